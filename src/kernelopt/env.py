"""Foundation: every environment variable kernelopt reads or sets, and the one place that reads them.

:data:`VARIABLES` is the table of all of them (documented in docs/environment.md, which a test keeps
equal to :func:`render_table`). :class:`EnvSettings` holds the typed values of the variables kernelopt
reads; :meth:`EnvSettings.read` is the only code that looks them up in the environment. Modules take
the value they need from it (``EnvSettings.read(env).device``), at the edge, so a pure package never
touches ``os.environ``.

Names end in their unit (``_S`` seconds, ``_PCT`` percent). Older spellings (``_SEC``,
``_SECONDS``) still work as deprecated aliases: the new name wins when both are set, and reading an
old one warns once (:class:`DeprecatedVariable`, a ``FutureWarning``). ``TEST_TIMEOUT_SEC`` is the
spec's own name and stays.

This module imports nothing of kernelopt but its errors, so every layer may use it.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from kernelopt.errors import UsageError


class DeprecatedVariable(FutureWarning):
    """An environment variable was read under its older name (the CLI prints it as one line)."""


class Direction(StrEnum):
    """Who sets a variable."""

    READ = "read"
    """The user (or a test run) sets it; kernelopt reads it."""
    SET = "set"
    """kernelopt sets it in the environment of a child process (an agent, the harness worker)."""
    TEST = "test"
    """This repository's tests and GPU scripts set or read it for themselves; kernelopt neither reads nor sets it,
    and does not warn of it (:func:`misspelt`)."""


@dataclass(frozen=True)
class EnvVar:
    """One environment variable.

    Attributes:
        name: the variable's name.
        field: the :class:`EnvSettings` field holding its value (``None`` for a variable kernelopt sets).
        meaning: what it does, in plain words.
        default: the value used when it is unset, in words.
        deprecated: older names that still work.
        direction: whether kernelopt reads it or sets it for a child.
    """

    name: str
    field: str | None
    meaning: str
    default: str
    deprecated: tuple[str, ...] = ()
    direction: Direction = Direction.READ


CompileMode = Literal["default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"]
"""The modes ``torch.compile`` takes (its ``mode=``), for the compiled reference."""
COMPILE_MODES: tuple[str, ...] = get_args(CompileMode)


VARIABLES: tuple[EnvVar, ...] = (
    # the harness (Stage 4)
    EnvVar("TEST_TIMEOUT_SEC", "case_timeout_s", "limit for one test case, seconds (the spec's name)", "30"),
    EnvVar(
        "KERNELOPT_RUN_TIMEOUT_S",
        "run_timeout_s",
        "limit for a whole validation run, minus start-up and compilation, seconds",
        "60",
        deprecated=("KERNELOPT_RUN_TIMEOUT_SEC",),
    ),
    EnvVar(
        "KERNELOPT_COMPILE_TIMEOUT_S",
        "compile_timeout_s",
        "limit for loading kernel.py and for each single JIT compilation, seconds",
        "300",
        deprecated=("KERNELOPT_COMPILE_TIMEOUT_SEC",),
    ),
    EnvVar(
        "KERNELOPT_STARTUP_TIMEOUT_S",
        "startup_timeout_s",
        "limit for the worker to start Python and import torch, and again for importing reference.py, seconds",
        "120",
        deprecated=("KERNELOPT_STARTUP_TIMEOUT_SEC",),
    ),
    EnvVar("KERNELOPT_SEEDS", "seeds", "random input sets checked per case", "3"),
    EnvVar(
        "KERNELOPT_MIN_GAIN_PCT", "min_gain_pct", "smallest speedup the comparison calls an improvement, percent", "2"
    ),
    EnvVar(
        "KERNELOPT_BENCH_S",
        "bench_s",
        "measurement time per case and version, seconds",
        "1",
        deprecated=("KERNELOPT_BENCH_SECONDS",),
    ),
    EnvVar("KERNELOPT_DEVICE", "device", "force the torch device: cuda, cuda:N or cpu", "cuda when present, else cpu"),
    # profiling, hardware, wiki
    EnvVar("KERNELOPT_NCU", "ncu", "the Nsight Compute CLI to run", "ncu on PATH, then /usr/local/cuda/bin"),
    EnvVar(
        "KERNELOPT_CACHE_DIR",
        "cache_dir",
        "cache folder (measured ceilings under ceilings/)",
        "~/.cache/kernelopt",
    ),
    EnvVar(
        "KERNELOPT_WIKI_DIRS",
        "wiki_dirs",
        "extra gpu-wiki record folders, separated by os.pathsep (: on Linux)",
        "none",
    ),
    EnvVar(
        "KERNELOPT_CONFIG",
        "config",
        "the config file ([wiki] dirs)",
        "$XDG_CONFIG_HOME/kernelopt/config.toml, else ~/.config/kernelopt/config.toml",
    ),
    # commands and backends
    EnvVar("KERNELOPT_CRASH_DIR", "crash_dir", "folder for crash logs of unexpected errors", "the temporary folder"),
    EnvVar("KERNELOPT_IMPLEMENTER", "implementer", "default implementer backend of kernelopt implement", "rules"),
    EnvVar(
        "KERNELOPT_WEB_SEARCH_CMD",
        "web_search_cmd",
        "web-search command of the rules planner, {query} replaced",
        "off",
    ),
    EnvVar("KERNELOPT_AGENT_COMMAND", "agent_command", "command line of the agent-cli backend", "none (required)"),
    EnvVar("KERNELOPT_AGENT_TIMEOUT_S", "agent_timeout_s", "time limit of one agent-cli call, seconds", "1800"),
    EnvVar("KERNELOPT_LLM_BASE_URL", "llm_base_url", "base URL of the OpenAI-compatible API (llm-api)", "none"),
    EnvVar("KERNELOPT_LLM_MODEL", "llm_model", "model name sent to the API (llm-api)", "none"),
    EnvVar("KERNELOPT_LLM_API_KEY", "llm_api_key", "API key (llm-api); never written anywhere", "none"),
    EnvVar("KERNELOPT_LLM_TIMEOUT_S", "llm_timeout_s", "time limit of one API request, seconds (llm-api)", "300"),
    EnvVar(
        "KERNELOPT_COMPILE_REFERENCE",
        "compile_reference",
        "1 also times torch.compile(reference) in the gate (its compile time kept out)",
        "off",
    ),
    EnvVar(
        "KERNELOPT_COMPILE_BACKEND",
        "compile_backend",
        "torch.compile backend for the reference (one this torch lacks is refused before validate, optimize and batch "
        "run anything)",
        "inductor",
    ),
    EnvVar(
        "KERNELOPT_COMPILE_MODE",
        "compile_mode",
        f"torch.compile mode for the reference: {', '.join(COMPILE_MODES)} (Inductor's max-autotune to compare with)",
        "default",
    ),
    EnvVar(
        "KERNELOPT_SIZE_SCALE",
        "size_scale",
        "scale a problem's module-level size constants down for a quick run (0 < x <= 1)",
        "1 (off)",
    ),
    EnvVar(
        "KERNELOPT_KEEP_ENV",
        "keep_env",
        "comma-separated secret-looking variables that child processes may see (read by kernelopt.proc)",
        "none",
    ),
    EnvVar(
        "KERNELOPT_REDACT",
        "redact",
        "comma-separated variable names (their values) or literal values that no kept file may hold "
        "(read by kernelopt.redact; secret-looking variables and known key formats are redacted anyway)",
        "none",
    ),
    # the test suite
    EnvVar("KERNELOPT_GPU_TESTS", "gpu_tests", "1 runs the tests marked gpu (needs an NVIDIA GPU)", "off"),
    # standard variables kernelopt reads
    EnvVar("COLUMNS", "columns", "width of the printed tables, characters (when not a terminal)", "100"),
    EnvVar("XDG_CONFIG_HOME", "xdg_config_home", "the folder of the config file (kernelopt/config.toml)", "~/.config"),
    EnvVar(
        "CUDA_VISIBLE_DEVICES",
        "cuda_visible_devices",
        "the GPUs a process sees; a Ray batch row names them (set by Ray for a task)",
        "all",
    ),
    # set by kernelopt for its children
    EnvVar(
        "KERNELOPT_PARENT_PID",
        None,
        "pid of the kernelopt process that started a child (a worker ends with it)",
        "",
        direction=Direction.SET,
    ),
    EnvVar(
        "KERNELOPT_COMMAND_ID",
        None,
        "a token of one worker or agent command, inherited by all it starts (what survives it is killed)",
        "",
        direction=Direction.SET,
    ),
    EnvVar("KERNELOPT_WORKER", None, "1 in the harness worker process", "", direction=Direction.SET),
    EnvVar(
        "KERNELOPT_INTERPRETER_LIMIT_S",
        None,
        "seconds one run of a kernel is given in a worker running Triton's interpreter: a launch that cannot finish "
        "in them stops in one line (kernelopt.harness.interpreter): a tuning session's bench workers get the "
        "candidate limit, the gate's worker the largest of its limits; a smaller value of yours is kept",
        "",
        direction=Direction.SET,
    ),
    EnvVar(
        "KERNELOPT_HANDED_LOCK",
        None,
        "the run lock a command hands the kernelopt child it starts (batch to its optimize): the descriptor passed "
        "to it and the lock file, fd:path; taken once, then dropped",
        "",
        direction=Direction.SET,
    ),
    EnvVar(
        "KERNELOPT_WORKER_FDS",
        None,
        "the pipe pair of a kernelopt.child worker: its read and write file descriptors, r,w",
        "",
        direction=Direction.SET,
    ),
    EnvVar(
        "TRITON_INTERPRET",
        None,
        "1 in every child of a `--device cpu` run (harness and tuning workers, Stage 1's driver, the discovery "
        "run of `optimize`/`plan`/`tunables`/`batch`/MCP tools; one rule, `worker.environment.worker_env`): "
        "Triton kernels run in Triton's interpreter (a value of yours is overridden: the CPU has no Triton driver)",
        "",
        direction=Direction.SET,
    ),
    EnvVar(
        "OMP_NUM_THREADS",
        None,
        "1 in every child of a `--device cpu` run (and of a gate with no device where there is no GPU driver) "
        "unless you set it (`worker.environment.worker_env`): torch's threads in the harness and tuning workers "
        "(torch's default of 2 timed a 1 us softmax at 2.5-20,010 us on the loaded 2-core CI machine; 1 thread: "
        "1.15-1.28 us)",
        "",
        direction=Direction.SET,
    ),
    EnvVar(
        "TRITON_CACHE_DIR",
        None,
        "Triton's cache: a version's build folder (triton/) in a harness worker, the session's shared cache "
        "(triton-cache/) in a tuning session's workers, the ASM pass's folder in the AMD profiler",
        "",
        direction=Direction.SET,
    ),
    EnvVar(
        "TORCH_EXTENSIONS_DIR",
        None,
        "torch's extension builds: a version's build folder (torch_extensions/) in a harness worker, the "
        "session's (torch-extensions/) in a tuning session's workers",
        "",
        direction=Direction.SET,
    ),
    EnvVar("KERNELOPT_WORKSPACE", None, "the workspace folder, for an agent-cli agent", "", direction=Direction.SET),
    EnvVar("KERNELOPT_VERSION", None, "the version N being planned or implemented", "", direction=Direction.SET),
    EnvVar("KERNELOPT_STAGE", None, "the stage the agent runs (plan or implement)", "", direction=Direction.SET),
    EnvVar("KERNELOPT_PROMPT_FILE", None, "the file holding the agent's prompt", "", direction=Direction.SET),
    # this repository's tests and GPU scripts (kernelopt neither reads nor sets them)
    EnvVar(
        "KERNELOPT_COMMIT",
        None,
        "the commit of main a GPU session's copy runs (a copy without .git: scripts/gpu_env.sh)",
        "",
        direction=Direction.TEST,
    ),
    EnvVar(
        "KERNELOPT_AOT_TESTS",
        None,
        "1 compiles every test kernel for sm_90 on the CPU (tests/test_gpuleft10_cases.py)",
        "",
        direction=Direction.TEST,
    ),
    EnvVar(
        "KERNELOPT_GPU_PICKS",
        None,
        "1 writes every trial's GPU picks on the CPU before a GPU session (tests/test_gpu_picks.py)",
        "",
        direction=Direction.TEST,
    ),
    EnvVar(
        "KERNELOPT_SKIP_COMPILE_TESTS",
        None,
        "1 skips the tests that run torch.compile (tests/test_reference_speedup.py)",
        "",
        direction=Direction.TEST,
    ),
    EnvVar(
        "KERNELOPT_EXPECT_COUNTERS",
        None,
        "0 where a GPU machine forbids profiler counters (tests/test_doctor.py)",
        "",
        direction=Direction.TEST,
    ),
    EnvVar(
        "KERNELOPT_TEST_CLI_CACHE",
        None,
        "where the agent tests install the real Claude Code and Codex CLIs (tests/real_clis.py)",
        "",
        direction=Direction.TEST,
    ),
    EnvVar(
        "KERNELOPT_CLI_TABLE",
        None,
        "a file the real-CLI scenarios append their results to (tests/real_clis.py)",
        "",
        direction=Direction.TEST,
    ),
    EnvVar(
        "KERNELOPT_TEST_PROBE",
        None,
        "a file a batch test's child writes what it saw to (tests/test_batch_pool.py)",
        "",
        direction=Direction.TEST,
    ),
    EnvVar(
        "KERNELOPT_TEST_PLAIN",
        None,
        "a plain value a batch test's child must see (tests/test_batch_pool.py)",
        "",
        direction=Direction.TEST,
    ),
    EnvVar(
        "KERNELOPT_TEST_API_TOKEN",
        None,
        "a secret a batch test's child must not see (tests/test_batch_pool.py)",
        "",
        direction=Direction.TEST,
    ),
    EnvVar(
        "KERNELOPT_HOOK_LOG",
        None,
        "where a hostile scripted agent's git hook writes (tests/test_agents19_cases.py)",
        "",
        direction=Direction.TEST,
    ),
)
"""Every environment variable, in the order of the documented table."""


_DEVICE = re.compile(r"cpu|cuda(:\d+)?")
"""The devices kernelopt runs on (:class:`kernelopt.vocabulary.Device`'s names; this layer imports none of it)."""


class EnvSettings(BaseModel):
    """The typed values of the variables kernelopt reads; ``None`` (or empty) when unset.

    Units are in the names (``_s`` seconds, ``_pct`` percent). Defaults of the settings themselves
    live with their owners (e.g. :class:`~kernelopt.harness.settings.HarnessSettings`); this record
    only says what the environment asks for. A number must be finite: ``KERNELOPT_BENCH_S=inf`` would
    otherwise pass this check and break the harness worker's job file (JSON has no infinity).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    case_timeout_s: float | None = Field(default=None, gt=0)
    run_timeout_s: float | None = Field(default=None, gt=0)
    compile_timeout_s: float | None = Field(default=None, gt=0)
    startup_timeout_s: float | None = Field(default=None, gt=0)
    seeds: int | None = Field(default=None, ge=1, le=32)
    min_gain_pct: float | None = Field(default=None, ge=0, lt=100)
    bench_s: float | None = Field(default=None, gt=0)
    device: str | None = None
    ncu: str | None = None
    cache_dir: Path | None = None
    wiki_dirs: tuple[Path, ...] = Field(default=())
    config: Path | None = None
    crash_dir: Path | None = None
    implementer: str | None = None
    web_search_cmd: str | None = None
    agent_command: str | None = None
    agent_timeout_s: float | None = Field(default=None, gt=0)
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float | None = Field(default=None, gt=0)
    keep_env: str | None = None
    redact: str | None = None
    compile_reference: bool | None = None
    compile_backend: str | None = None
    compile_mode: CompileMode | None = None
    size_scale: float | None = Field(default=None, gt=0, le=1)
    gpu_tests: bool = False
    columns: str | None = None
    xdg_config_home: Path | None = None
    cuda_visible_devices: str | None = None

    @field_validator("device")
    @classmethod
    def _a_device(cls, v: str | None) -> str | None:
        """A torch device kernelopt runs on, checked with the other settings before any command starts: the
        harness's own check named no variable ("invalid harness setting device: Value error, unknown device 'gpu'",
        newuser20 n151)."""
        if v is not None and not _DEVICE.fullmatch(v):
            raise ValueError("not a device")
        return v

    @classmethod
    def read(cls, env: Mapping[str, str] | None = None) -> EnvSettings:
        """The settings from ``env`` (default: ``os.environ``); empty values count as unset.

        Raises:
            UsageError: a variable holds a value of the wrong kind (``KERNELOPT_SEEDS='many'``).
        """
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        names: dict[str, str] = {}
        for var in VARIABLES:
            if var.field is None:
                continue
            found = _lookup(env, var)
            if found is None:
                continue
            name, raw = found
            names[var.field] = name
            if var.field == "wiki_dirs":
                values["wiki_dirs"] = tuple(Path(p).expanduser() for p in raw.split(os.pathsep) if p.strip())
            elif var.field in ("cache_dir", "config", "crash_dir", "xdg_config_home"):
                values[var.field] = Path(raw).expanduser()
            elif var.field == "gpu_tests":
                values["gpu_tests"] = raw.strip() == "1"
            elif var.field in ("device", "columns", "cuda_visible_devices"):
                values[var.field] = raw.strip()
            else:
                values[var.field] = raw
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = str(err["loc"][0])
            raise UsageError(f"{names[field]}={values[field]!r} {_complaint(field, err)}") from None


_BOUNDS = {"gt": "greater than", "ge": "at least", "lt": "less than", "le": "at most"}


def _complaint(field: str, err: Mapping[str, object]) -> str:
    """What is wrong with a value, in words: its kind, or the bound it breaks."""
    ctx = err.get("ctx")
    if isinstance(ctx, Mapping):
        for key, words in _BOUNDS.items():
            if key in ctx:
                return f"must be {words} {ctx[key]:g}"
    if err.get("type") == "finite_number":
        return "is not a finite number"
    if field == "seeds":
        return "is not an integer"
    if field in ("compile_reference",):
        return "is not 0 or 1"
    if field == "compile_mode":
        return "is not one of " + ", ".join(COMPILE_MODES)
    if field == "device":
        return "is not a device kernelopt runs on: use cuda, cuda:N or cpu"
    return "is not a number"


_warned: set[str] = set()


def _lookup(env: Mapping[str, str], var: EnvVar) -> tuple[str, str] | None:
    """``(name, value)`` of the first set, non-empty spelling of ``var``; warns once for an old name."""
    for name in (var.name, *var.deprecated):
        raw = env.get(name)
        if raw is None or not raw.strip():
            continue
        if name != var.name and name not in _warned:
            _warned.add(name)
            warnings.warn(f"{name} is deprecated: use {var.name}", DeprecatedVariable, stacklevel=3)
        return name, raw
    return None


PREFIX = "KERNELOPT_"

_NEAR = 0.75
"""How alike (difflib's ratio of the names after ``KERNELOPT_``) a name must be to one kernelopt reads to be called
its misspelling: ``SEED`` / ``SEEDS`` 0.89, ``BENCH_SEC`` / ``BENCH_S`` 0.88, ``MIN_GAIN`` / ``MIN_GAIN_PCT`` 0.80; the
names this repository's tests and GPU scripts read for themselves (``COMMIT``, ``AOT_TESTS``, ``GPU_PICKS`` after the
prefix) are 0.67 or less."""


def misspelt(env: Mapping[str, str] | None = None) -> list[str]:
    """A line for each set ``KERNELOPT_*`` variable that kernelopt neither reads nor sets (nor this repository's
    tests and scripts, :attr:`Direction.TEST`): otherwise ignored in silence, its setting left at the default with
    nothing said. One spelt like a variable kernelopt reads (``SEED`` after the prefix for ``SEEDS``, ``NCU_PATH``
    for ``NCU``) names it, by its current name (newuser20 n141); one like none (``DEBUG`` after the prefix, a wish)
    lists the ``KERNELOPT_`` variables kernelopt reads (newuser21 n153: it was ignored in silence)."""
    import difflib

    env = os.environ if env is None else env
    spelt = {n: v for v in VARIABLES for n in (v.name, *v.deprecated)}
    ours = {n: v for n, v in spelt.items() if n.startswith(PREFIX) and v.direction is Direction.READ}
    read = {n[len(PREFIX) :]: v.name for n, v in ours.items()}
    lines = []
    for name in sorted(env):
        if not name.startswith(PREFIX) or name in spelt or not env[name].strip():
            continue
        rest = name[len(PREFIX) :]
        near = difflib.get_close_matches(rest, list(read), n=1, cutoff=_NEAR)
        near = near or [k for k in read if rest.startswith(k + "_") or k.startswith(rest + "_")][:1]
        if near:
            lines.append(
                f"{name} is not a variable kernelopt reads (ignored): did you mean {read[near[0]]}? "
                "(docs/environment.md lists them all)"
            )
        else:
            names = ", ".join(dict.fromkeys(v.name for v in ours.values()))
            lines.append(
                f"{name} is not a variable kernelopt reads (ignored); unset it, or use one it reads: {names} "
                "(docs/environment.md says what each does)"
            )
    return lines


WORKER_FDS = "KERNELOPT_WORKER_FDS"
"""The variable a worker's parent sets to ``r,w``: the child's ends of the protocol's pipe pair."""


def read_worker_fds(env: Mapping[str, str] | None = None) -> tuple[int, int] | None:
    """The ``(read, write)`` descriptors of :data:`WORKER_FDS` in ``env`` (default: ``os.environ``);
    ``None`` when it is unset. The one reader of a variable kernelopt sets for its own children.

    Raises:
        UsageError: the value is not two non-negative integers ``r,w``.
    """
    raw = (os.environ if env is None else env).get(WORKER_FDS, "").strip()
    if not raw:
        return None
    parts = raw.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise UsageError(f"{WORKER_FDS}={raw!r} is not two file descriptors r,w")
    return int(parts[0]), int(parts[1])


PARENT_PID = "KERNELOPT_PARENT_PID"
"""Set in every child's environment (:func:`kernelopt.proc.child_env`): the pid of the kernelopt process
that started it."""


def read_parent_pid(env: Mapping[str, str] | None = None) -> int | None:
    """The pid in :data:`PARENT_PID` of ``env`` (default: ``os.environ``); ``None`` when unset or not a
    number. What a worker checks to end with the kernelopt process that started it."""
    raw = (os.environ if env is None else env).get(PARENT_PID, "").strip()
    return int(raw) if raw.isdigit() else None


def inherited() -> dict[str, str]:
    """A copy of this process's environment: what a child inherits, and the base each child's
    environment is built from (:func:`kernelopt.proc.child_env`, :func:`kernelopt.worker.environment.worker_env`).

    The one place that takes the environment whole; a setting is read through :meth:`EnvSettings.read`.
    """
    return dict(os.environ)


TRITON_CACHE_DIR = "TRITON_CACHE_DIR"
TORCH_EXTENSIONS_DIR = "TORCH_EXTENSIONS_DIR"


def build_folders(triton_cache: Path, torch_extensions: Path) -> dict[str, str]:
    """The variables that send Triton's cache and torch's extension builds to these folders."""
    return {TRITON_CACHE_DIR: str(triton_cache), TORCH_EXTENSIONS_DIR: str(torch_extensions)}


def use_build_folders(triton_cache: Path, torch_extensions: Path) -> None:
    """Send this process's Triton cache and torch extension builds to these folders (the harness worker, per
    kernel version: Triton and torch read the variables when they compile, so a change applies to the next
    compilation)."""
    os.environ.update(build_folders(triton_cache, torch_extensions))


TRITON_INTERPRET = "TRITON_INTERPRET"
"""Set to 1 for a worker on the CPU (listed in :data:`VARIABLES`)."""


def interpret_here() -> None:
    """This process runs Triton kernels in Triton's interpreter from now on: ``TRITON_INTERPRET=1`` here.

    For a harness worker started with no device (``kernelopt validate`` or ``kernelopt batch`` without
    ``--device``: "cuda when present") that found no GPU and runs on the CPU, as
    :func:`kernelopt.worker.environment.worker_env` does for a child of ``--device cpu``; Triton reads the variable
    when ``@triton.jit`` decorates a kernel, so this must come before kernel.py is imported. Before, such a run
    failed a correct Triton kernel with Triton's "0 active drivers" (a new user's first hour, 2026-12-05).
    """
    os.environ[TRITON_INTERPRET] = "1"


HANDED_LOCK = "KERNELOPT_HANDED_LOCK"
"""The variable by which a command hands the run lock it holds to the kernelopt child it starts: ``<descriptor>:<lock
file>``, the descriptor passed to the child (:meth:`kernelopt.workspace.RunLock.handed_to_child`)."""


def take_handed_lock(lock_file: str) -> int | None:
    """The descriptor :data:`HANDED_LOCK` hands this process for ``lock_file``, dropped from this process's environment
    as it is taken (once: a command this one starts takes its own lock); ``None``, the variable left as it is, where
    it hands none or another file's."""
    fd_text, _, path = os.environ.get(HANDED_LOCK, "").partition(":")
    if not fd_text.isdigit() or path != lock_file:
        return None
    os.environ.pop(HANDED_LOCK, None)
    return int(fd_text)


def replace_environment(values: Mapping[str, str]) -> None:
    """Make ``values`` this process's whole environment (a fork server's child becoming its job)."""
    os.environ.clear()
    os.environ.update(values)


def raw_value(field: str, env: Mapping[str, str] | None = None) -> str | None:
    """The raw text of one variable (by its :class:`EnvSettings` field), unvalidated; ``None`` when unset.

    For code that must work while another setting is malformed (the redactor, the crash log, the width
    of a printed table, a batch row's host); everything else reads :meth:`EnvSettings.read`.
    """
    found = _lookup(os.environ if env is None else env, variable(field))
    return None if found is None else found[1]


def variable(field: str) -> EnvVar:
    """The variable behind an :class:`EnvSettings` field (for messages: ``variable("seeds").name``)."""
    for var in VARIABLES:
        if var.field == field:
            return var
    raise KeyError(field)


_SET_BY = {
    Direction.READ: "you",
    Direction.SET: "kernelopt, for a child",
    Direction.TEST: "this repository's tests and GPU scripts",
}


def render_table() -> str:
    """The Markdown table of :data:`VARIABLES`, as docs/environment.md shows it."""
    rows = ["| variable | set by | meaning | default | older name |", "|---|---|---|---|---|"]
    for var in VARIABLES:
        who = _SET_BY[var.direction]
        old = ", ".join(f"`{n}`" for n in var.deprecated)
        default = var.default or "-"
        rows.append(f"| `{var.name}` | {who} | {var.meaning} | {default} | {old} |")
    return "\n".join(rows) + "\n"
