"""Limits and knobs of the validation harness, with the environment variables that override them.

Defaults follow the spec's Stage 4 timeout guard: every test case must finish within 30 s
(``TEST_TIMEOUT_SEC``) and a whole validation run within 60 s (``timeout 60 python test_kernel.py``).
Compilation (importing kernel.py, building CUDA extensions, Triton JIT) is bounded separately, so a
slow first compile is not mistaken for a hung kernel and a hung kernel is not given the compile
budget. The environment is read only by :meth:`HarnessSettings.from_env`, at the edge.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kernelopt.errors import UsageError

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

ENV_CASE_TIMEOUT = "TEST_TIMEOUT_SEC"
ENV_RUN_TIMEOUT = "KERNELOPT_RUN_TIMEOUT_SEC"
ENV_COMPILE_TIMEOUT = "KERNELOPT_COMPILE_TIMEOUT_SEC"
ENV_STARTUP_TIMEOUT = "KERNELOPT_STARTUP_TIMEOUT_SEC"
ENV_MIN_GAIN = "KERNELOPT_MIN_GAIN_PCT"
ENV_SEEDS = "KERNELOPT_SEEDS"
ENV_DEVICE = "KERNELOPT_DEVICE"
ENV_BENCH_SECONDS = "KERNELOPT_BENCH_SECONDS"
ENV_COMPILE_REFERENCE = "KERNELOPT_COMPILE_REFERENCE"
ENV_SIZE_SCALE = "KERNELOPT_SIZE_SCALE"
ENV_COMPILE_BACKEND = "KERNELOPT_COMPILE_BACKEND"


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

    @field_validator("device")
    @classmethod
    def _known_device(cls, v: str | None) -> str | None:
        if v is not None and v != "cpu" and not v.startswith("cuda"):
            raise ValueError(f"unknown device {v!r} (use cuda, cuda:<i> or cpu)")
        return v

    @classmethod
    def from_env(cls, env: Mapping[str, str], **overrides: object) -> HarnessSettings:
        """Settings from environment variables, then explicit ``overrides`` (``None`` values ignored).

        Raises:
            UsageError: a variable is set to something that is not a positive number.
        """
        values: dict[str, object] = {}
        for key, var in (
            ("case_timeout_s", ENV_CASE_TIMEOUT),
            ("run_timeout_s", ENV_RUN_TIMEOUT),
            ("compile_timeout_s", ENV_COMPILE_TIMEOUT),
            ("startup_timeout_s", ENV_STARTUP_TIMEOUT),
            ("min_gain_pct", ENV_MIN_GAIN),
            ("bench_seconds", ENV_BENCH_SECONDS),
        ):
            raw = env.get(var)
            if raw is None or not raw.strip():
                continue
            try:
                values[key] = float(raw)
            except ValueError:
                raise UsageError(f"{var}={raw!r} is not a number") from None
        raw_seeds = env.get(ENV_SEEDS)
        if raw_seeds and raw_seeds.strip():
            try:
                values["seeds"] = int(raw_seeds)
            except ValueError:
                raise UsageError(f"{ENV_SEEDS}={raw_seeds!r} is not an integer") from None
        raw_compile = (env.get(ENV_COMPILE_REFERENCE) or "").strip().lower()
        if raw_compile:
            if raw_compile not in ("0", "1", "true", "false", "yes", "no"):
                raise UsageError(f"{ENV_COMPILE_REFERENCE}={raw_compile!r} is not 0 or 1")
            values["compile_reference"] = raw_compile in ("1", "true", "yes")
        raw_scale = env.get(ENV_SIZE_SCALE)
        if raw_scale and raw_scale.strip():
            try:
                values["size_scale"] = float(raw_scale)
            except ValueError:
                raise UsageError(f"{ENV_SIZE_SCALE}={raw_scale!r} is not a number") from None
        backend = env.get(ENV_COMPILE_BACKEND)
        if backend and backend.strip():
            values["compile_backend"] = backend.strip()
        device = env.get(ENV_DEVICE)
        if device and device.strip():
            values["device"] = device.strip()
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"])
            raise UsageError(f"invalid harness setting {field}: {err['msg']}") from None
