"""Limits and knobs of the validation harness, with the environment variables that override them.

Defaults follow the spec's Stage 4 timeout guard: every test case must finish within 30 s
(``TEST_TIMEOUT_SEC``) and a whole validation run within 60 s (``timeout 60 python test_kernel.py``).
Compilation (importing kernel.py, building CUDA extensions, Triton JIT) is bounded separately, so a
slow first compile is not mistaken for a hung kernel and a hung kernel is not given the compile
budget. The environment is read only by :meth:`HarnessSettings.from_env`, at the edge, through
:class:`kernelopt.env.EnvSettings` (the variables are listed in docs/environment.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kernelopt.env import CompileMode, EnvSettings, variable
from kernelopt.errors import UsageError
from kernelopt.vocabulary import Device

# names of the variables a parent sets for a harness child (kernelopt batch): one table, kernelopt.env
ENV_DEVICE = variable("device").name
ENV_COMPILE_REFERENCE = variable("compile_reference").name
ENV_SIZE_SCALE = variable("size_scale").name

#: Spec, "Timeout Guard": "Each individual test case must complete within 30 seconds".
DEFAULT_CASE_TIMEOUT_S = 30.0
#: Spec, "Timeout Guard": ``timeout 60 python test_kernel.py # 60s max per run``.
DEFAULT_RUN_TIMEOUT_S = 60.0
#: Our choice: a CUDA extension build (nvcc through torch.utils.cpp_extension) takes one to a few minutes.
DEFAULT_COMPILE_TIMEOUT_S = 300.0
#: Our choice: starting Python and importing torch; a cold CUDA start on a busy node can take tens of seconds.
DEFAULT_STARTUP_TIMEOUT_S = 120.0
#: Issue 3 ("Comparison with the previous version"): an improvement must clear 2 % by default.
DEFAULT_MIN_GAIN_PCT = 2.0


class HarnessSettings(BaseModel):
    """How the harness runs candidates.

    Attributes:
        case_timeout_s: limit for one test case (all its seeds), excluding compile time, seconds.
        run_timeout_s: limit for a whole worker run, excluding start-up and compile time, seconds.
        compile_timeout_s: limit for loading kernel.py and for any single JIT compilation, seconds.
        startup_timeout_s: limit for the worker to start Python and import torch, seconds.
        seeds: random input sets checked per case (seed 0, 1, ...).
        min_gain_pct: smallest speedup (percent) the comparison calls an improvement; the same
            margin the other way is needed to call a regression.
        bench_seconds: measurement time per case and version, seconds (split among the samples).
        device: ``cuda`` / ``cpu`` to force a device; ``None`` lets the worker choose (CUDA when present).
        compile_reference: also time ``torch.compile(reference)``; ``None`` leaves it to the task card's
            ``compile_reference`` key (``KERNELOPT_COMPILE_REFERENCE=1`` or ``--compile-reference``).
        size_scale: scale the problem's module-level size constants by this factor for a quick run;
            ``None`` leaves it to the task card's ``size_scale`` (``KERNELOPT_SIZE_SCALE``, ``--size-scale``).
        compile_backend: the ``torch.compile`` backend for the compiled reference
            (``KERNELOPT_COMPILE_BACKEND``; default ``inductor``, the tests use ``eager``).
        compile_mode: its ``torch.compile`` mode (``KERNELOPT_COMPILE_MODE``: ``max-autotune`` to compare with
            Inductor's autotuned kernels; ``None``, torch's default).
    """

    model_config = ConfigDict(extra="forbid")

    case_timeout_s: float = Field(default=DEFAULT_CASE_TIMEOUT_S, gt=0)
    run_timeout_s: float = Field(default=DEFAULT_RUN_TIMEOUT_S, gt=0)
    compile_timeout_s: float = Field(default=DEFAULT_COMPILE_TIMEOUT_S, gt=0)
    startup_timeout_s: float = Field(default=DEFAULT_STARTUP_TIMEOUT_S, gt=0)
    seeds: int = Field(default=3, ge=1, le=32)
    min_gain_pct: float = Field(default=DEFAULT_MIN_GAIN_PCT, ge=0, lt=100)
    bench_seconds: float = Field(default=1.0, gt=0)
    device: str | None = None
    compile_reference: bool | None = None
    size_scale: float | None = Field(default=None, gt=0, le=1)
    compile_backend: str = "inductor"
    compile_mode: CompileMode | None = None

    @field_validator("device")
    @classmethod
    def _known_device(cls, v: str | None) -> str | None:
        if v is not None and Device.of(v) is None:
            raise ValueError(f"unknown device {v!r} (use cuda, cuda:<i> or cpu)")
        return v

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> HarnessSettings:
        """Settings from the environment ``env`` (default: this process's, read by
        :meth:`EnvSettings.read`), then explicit ``overrides`` (``None`` values ignored).

        Raises:
            UsageError: a variable is set to something that is not a number, or out of range.
        """
        read = EnvSettings.read(env)
        values: dict[str, object] = {
            "case_timeout_s": read.case_timeout_s,
            "run_timeout_s": read.run_timeout_s,
            "compile_timeout_s": read.compile_timeout_s,
            "startup_timeout_s": read.startup_timeout_s,
            "seeds": read.seeds,
            "min_gain_pct": read.min_gain_pct,
            "bench_seconds": read.bench_s,
            "device": read.device,
            "compile_reference": read.compile_reference,
            "size_scale": read.size_scale,
            "compile_backend": read.compile_backend,
            "compile_mode": read.compile_mode,
        }
        values = {k: v for k, v in values.items() if v is not None}
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"])
            raise UsageError(f"invalid harness setting {field}: {err['msg']}") from None
