"""KernelEvaluator: configurations -> candidate sources -> compile pool -> bench worker -> results.

The :class:`~kernelopt.tuning.evaluator.Evaluator` of the hardware (a GPU, or the CPU with torch kernels
and Triton's interpreter, ``TRITON_INTERPRET=1``). For each configuration of a batch, the caller's
``apply`` callable makes the candidate's source (the knob edits are the caller's: usually
:func:`kernelopt.tunables.apply_source`, see :func:`knob_editor`); the source is written to the session
folder (``candidates/<sha256[:12]>/kernel.py``; equal sources are evaluated once), compiled by the
:class:`~kernelopt.tuning.compile_pool.CompilePool` on the small shape (on a GPU; on the CPU there is
nothing to compile ahead, so the bench worker's first call does it), then checked and timed by the bench
worker(s) (:mod:`kernelopt.tuning.bench_worker`, one per device; a second on the same device only when its
measured free memory holds two). Every failure is a :class:`~kernelopt.tuning.candidate.Result` with its
outcome and one-line reason; a crashed or hung worker is started again for the next candidate.

The bench workers start on the first batch (or :meth:`KernelEvaluator.start`): a problem that cannot fit
on the device is then one line (:class:`~kernelopt.tuning.problem.ProblemDoesNotFit`, exit 3) and a
reference.py that fails on it another (:class:`~kernelopt.tuning.problem.ProblemError`, exit 2), before any
candidate runs.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.env import inherited
from kernelopt.errors import KerneloptError
from kernelopt.fileio import atomic_write_code
from kernelopt.harness.interpreter import INTERPRETER_LIMIT_ENV, child_limit
from kernelopt.harness.model import PROBLEM_FAILED
from kernelopt.harness.poison import MALLOC_PERTURB
from kernelopt.kernelsource import carry
from kernelopt.numeric import is_int
from kernelopt.tunables import (
    AutotuneConfig,
    AutotuneEvaluation,
    AutotuneSpace,
    EditResult,
    KnobEdit,
    ResourceLimits,
    Tunable,
    TunableError,
    TunableKind,
    Value,
    apply_source,
    discover_source,
    pin_configs,
)
from kernelopt.tunables.guard import guard_edit, strip_stale_guards
from kernelopt.tunables.list_model import ListScreen
from kernelopt.tuning.accuracy import judged, original_error
from kernelopt.tuning.bench_worker import (
    CUT_FACTOR,
    BenchInit,
    BenchKind,
    BenchPlan,
    BenchReady,
    BenchReply,
    EvaluateRequest,
    RetimeReply,
    RetimeRequest,
)
from kernelopt.tuning.candidate import Config, Outcome, Result, is_computed
from kernelopt.tuning.compile_pool import CompilePool, CompileResult, CompileSettings, shared_cache_env
from kernelopt.tuning.far_footprint import FootprintReply, FootprintRequest
from kernelopt.tuning.net import SizeRequest
from kernelopt.tuning.pace import LEAST_REQUEST_S, CandidateLimit
from kernelopt.tuning.problem import (
    AT_IMPORT,
    Problem,
    ProblemDoesNotFit,
    ProblemError,
    ProblemShape,
    ReferenceDoesNotImport,
    workers_that_fit,
)
from kernelopt.tuning.shapes import RAISED_OUTCOMES
from kernelopt.tuning.space import KnobOrigin
from kernelopt.vocabulary import Device
from kernelopt.worker.client import WorkerProcess, WorkerStartError
from kernelopt.worker.messages import Failure, FailureKind, Ready, Reply, Service
from kernelopt.worker.pool import Answer, Job, WorkerPool

DEVICE_BYTES_PER_COMPILE_WORKER = 1024**3
"""Device memory one compile worker may take (a CUDA context and the compile shape; our bound)."""
ELSEWHERE = RAISED_OUTCOMES | {Outcome.WRONG_RESULT, Outcome.INVALID}
"""Compile pool outcomes that its compile shape decides (it raised there, computed wrong there, the author's screen
dropped it at that size): where that shape is another ``SHAPES`` entry of the session, the failure is that entry's
(:meth:`KernelEvaluator._elsewhere`), never the candidate's at the shape this evaluator times."""


@dataclass(frozen=True)
class Refusal:
    """What ``apply`` returns for a configuration it cannot make into a source (an illegal or unfit value)."""

    reason: str


Apply = Callable[[Config], "str | Refusal"]
"""Configuration -> the candidate's full kernel source, or a :class:`Refusal`."""

#: How a :class:`Refusal` of an edit the guard cannot write begins (:func:`knob_editor`, ``writable``).
UNWRITABLE = "cannot be written: "


class EvaluatorSettings(BaseModel):
    """Limits and workers of a :class:`KernelEvaluator`.

    Attributes:
        plan: how the bench worker checks and times (warm-up, repetitions, re-time rounds).
        bench_timeout_s: limit for checking and timing one candidate (its first call may compile), seconds.
        retime_timeout_s: limit for one interleaved re-time of the top few, seconds.
        startup_timeout_s: limit for a worker's start and setup (the bench worker builds the problem).
        compile: the compile pool's workers and adaptive limit.
        compile_pool: compile ahead in the pool (``None``: on a GPU yes; on the CPU no, compiling there
            is the interpreter's, nothing to do ahead).
        devices: one bench worker each (``None``: the problem's device).
        workers_per_device: bench workers wanted per device; more than one only when its measured free memory
            holds them (their timings then overlap: for checking throughput, not for final numbers).
        cut_slow: once a best latency is known, a candidate far slower than it stops being timed early
            (:data:`~kernelopt.tuning.bench_worker.CUT_FACTOR`, docs/tuning-engine.md "Cutting far-slower candidates").
        first_best_us: the kernel as written's measured latency (V0's, or the version being tuned: the gate's, or a
            resumed session's record of the current configuration), microseconds a call on the primary shape: the
            cut's best before any candidate is timed, so a first candidate far slower than the kernel as written is
            cut too; ``None``: the first timed candidate's latency is the first best.
        dot_bytes_limit: in Triton's interpreter, the shared memory a candidate's largest ``tl.dot`` operands must
            fit (the session's limits; the kernel as written is never held to it), whatever its tiles are named.
        screen: the tuned autotune list's own filters (:func:`kernelopt.tunables.list_filters.list_screen`): the
            workers set aside a candidate they reject, ``INVALID`` (:mod:`kernelopt.tuning.list_screen`).
    """

    model_config = ConfigDict(extra="forbid")

    plan: BenchPlan = Field(default_factory=BenchPlan)
    bench_timeout_s: float = Field(default=60.0, gt=0)
    retime_timeout_s: float = Field(default=300.0, gt=0)
    startup_timeout_s: float = Field(default=120.0, gt=0)
    compile: CompileSettings = Field(default_factory=CompileSettings)
    compile_pool: bool | None = None
    devices: list[str] | None = None
    workers_per_device: int = Field(default=1, ge=1)
    cut_slow: bool = True
    first_best_us: float | None = Field(default=None, gt=0)
    dot_bytes_limit: int | None = Field(default=None, gt=0)
    screen: ListScreen | None = None


def knob_editor(
    base_source: str,
    *,
    filename: str = "kernel.py",
    limits: ResourceLimits | None = None,
    kernel: str | None = None,
    gpu: str | None = None,
    evaluation: AutotuneEvaluation | None = None,
    origins: Mapping[str, KnobOrigin] | None = None,
    pin_current: bool = False,
    writable: bool = False,
    found: Sequence[Tunable] | None = None,
) -> Apply:
    """An ``apply`` callable of :func:`kernelopt.tunables.apply_source` on ``base_source``: a configuration
    becomes the edited source (knobs already at their value are left out, so the current configuration is
    ``base_source`` itself), and an edit the tunables refuse (an unknown or illegal value, a tile that
    cannot fit ``limits``) a :class:`Refusal` with its one line. ``origins`` (the space's) names the keys a
    knob moves: every config of an autotune list, which a configuration pins to one config
    (:func:`pin_config`). ``pin_current``: the current configuration of a list is pinned too (Triton's
    interpreter cannot run the autotuner's benchmark of several configs: there the list as written does not
    run, and a candidate runs as the one configuration it is). ``writable``: a configuration whose write
    :func:`~kernelopt.tunables.guard.guard_edit` refuses (a tile that no longer divides a size the original
    handled, where no guard can be written: a module-level constant, a decorator's tile) is refused too, with the
    guard's one line, so a session never times what it could not write (its candidate would run unguarded). The
    other arguments are ``apply_source``'s. ``found``: the knobs of ``base_source`` as :func:`discover_source` reads
    them with these arguments, where the caller holds them (read, not changed).

    Raises:
        TunableError: ``base_source`` does not parse.
    """
    if found is None:
        found = discover_source(base_source, filename, gpu=gpu, evaluation=evaluation)
    current = current_values(found)
    listed = autotune_list(kernel, evaluation, found) if origins and is_list_space(origins) else None

    def apply(config: Config) -> str | Refusal:
        divisors = False  # every knob moved to a divisor of its literal: legal wherever the original was
        try:
            if listed is not None and origins is not None:
                pinned = pin_config(
                    base_source, config, listed, origins, filename=filename, evaluation=evaluation, force=pin_current
                )
                made = pinned.new_source if pinned is not None else base_source
            else:
                changes = config_changes(config, current, origins)
                if not changes:
                    return base_source
                divisors = all(divides(v, current.get(k)) for k, v in changes.items())
                made = apply_source(
                    base_source,
                    changes,
                    filename=filename,
                    limits=limits,
                    kernel=kernel,
                    gpu=gpu,
                    evaluation=evaluation,
                ).new_source
        except TunableError as exc:
            return Refusal(exc.one_line())
        if writable and made != base_source and not divisors:
            kept = guard_edit(base_source, made)
            if kept.new_source is None:
                return Refusal(f"{UNWRITABLE}{kept.note}")
        if listed is not None:
            return made
        return strip_stale_guards(base_source, made)  # a guard an earlier write left would override it

    return apply


def divides(new: object, old: object) -> bool:
    """``new`` is a positive integer that divides the integer ``old`` (a tile moved to it stays legal at every size
    the original handled, so :func:`~kernelopt.tunables.guard.guard_edit` keeps it as it is)."""
    ints = all(is_int(x) for x in (new, old))
    return ints and new > 0 and old % new == 0  # type: ignore[operator]


#: The compile options of a ``triton.Config``; a configuration's other knobs are its meta-parameters.
CONFIG_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def is_list_space(origins: Mapping[str, KnobOrigin]) -> bool:
    """The knobs are those of an autotune list (every key a ``<kernel>.configs[i].<name>`` one)."""
    return bool(origins) and all(".configs[" in k for o in origins.values() for k in o.keys)


def autotune_list(
    kernel: str | None, evaluation: AutotuneEvaluation | None, tunables: Sequence[Tunable] = ()
) -> AutotuneSpace | None:
    """The autotune list of ``kernel`` as the autotuner holds it (read back from the imported module), else as
    its literal ``triton.Config`` entries write it (``tunables``: discovery's; ``None`` when a value of an entry
    is not a literal), when the launch tuned is one."""
    if kernel is None:
        return None
    listed = evaluation.spaces.get(kernel) if evaluation is not None else None
    if listed is not None and listed.configs:
        return listed
    entries: dict[int, dict[str, Value]] = {}
    line = None
    for t in tunables:
        found = _CONFIG_KEY.fullmatch(t.key)
        if t.kind is not TunableKind.AUTOTUNE_CONFIG or found is None or found.group(1) != kernel:
            continue
        if t.value is None:
            return None
        entries.setdefault(int(found.group(2)), {})[found.group(3)] = t.value
        line = line or _line_of(t.location)
    if not entries or sorted(entries) != list(range(len(entries))):
        return None
    configs = [AutotuneConfig().with_values(entries[i]) for i in range(len(entries))]
    return AutotuneSpace(kernel=kernel, line=line, configs=configs)


_CONFIG_KEY = re.compile(r"(.+)\.configs\[(\d+)\]\.(\w+)")


def _line_of(location: str) -> int | None:
    """``kernel.py:12`` -> 12."""
    tail = location.rpartition(":")[2]
    return int(tail) if tail.isdigit() else None


def pin_base(listed: AutotuneSpace, config: Mapping[str, Value]) -> AutotuneConfig:
    """The config of ``listed`` a pin of ``config`` is written over: the launch options (``num_warps``,
    ``num_stages``) and hooks ``config`` does not give come from it. The list's config of the same tile, where the
    authors wrote one (its options go with its tile: breaker16's mamba_chunk_state pinned to its 128 x 64 x 32 was
    written with the first config's ``num_warps=8, num_stages=3``, not the ``4`` / ``4`` its authors gave that tile;
    the autotuner's pick first where several share the tile), else the config the autotuner picked (else the
    first): the options the session held (on the CPU, where the interpreter ignores them).

    Raises:
        TunableError: the list's configs carry different ``pre_hook``s and none has ``config``'s tile: which hook
            the tile needs is the authors' choice, and another config's could be wrong for it (xformers' tiled
            matmul zeroes its outputs in the hook of its split-K configs alone, where the partials are added:
            breaker27's q70).
    """
    tile = {k: v for k, v in config.items() if k not in CONFIG_OPTIONS}
    ordered = [c for c in (listed.best_config, *listed.configs) if c is not None]  # the picked one first
    same = [c for c in ordered if tile and c.kwargs == {**c.kwargs, **tile}]  # its every tile value
    if same:
        return same[0]
    hooks = {(c.pre_hook, c.pre_hook_name) for c in listed.configs}
    if len(hooks) > 1:
        shown = ", ".join(f"{k}={v}" for k, v in tile.items())
        raise TunableError(
            f"{listed.kernel}: its autotune configs carry different pre_hooks and none has the tile {shown}: "
            "which hook that tile needs is not known; the list's own tiles are tried"
        )
    return listed.best_config or listed.configs[0]


def pin_config(
    base_source: str,
    config: Mapping[str, Value],
    listed: AutotuneSpace,
    origins: Mapping[str, KnobOrigin],
    *,
    filename: str = "kernel.py",
    evaluation: AutotuneEvaluation | None = None,
    force: bool = False,
) -> EditResult | None:
    """kernel.py with the autotune list pinned to ``config`` alone (``None``: ``config`` is the current one,
    unless ``force``: then the list is pinned to it too).

    The configs of a list differ, so a knob name cannot be moved at one literal: the ``configs=`` argument
    becomes a literal list of one ``triton.Config`` (:func:`kernelopt.tunables.pin_configs`), the config the
    autotuner picked (else the first) with the configuration's values. The edits name each knob that moved,
    with the expression the list replaced.

    Raises:
        TunableError: the list cannot be pinned (a config with a ``pre_hook``).
    """
    before = {name: o.value for name, o in origins.items()}
    moved = {n: v for n, v in config.items() if not (n in before and same_value(before[n], v))}
    if not moved and not force:
        return None
    base = pin_base(listed, config)
    options = {k: v for k, v in config.items() if k in CONFIG_OPTIONS}
    kwargs = {**base.kwargs, **{k: v for k, v in config.items() if k not in CONFIG_OPTIONS}}
    pinned = base.model_copy(update={"kwargs": kwargs, **options})
    result = pin_configs(base_source, listed.kernel, [pinned], filename=filename, evaluation=evaluation)
    edits = [
        KnobEdit(
            key=f"{listed.kernel}.configs[0].{n}",
            name=n,
            before=before.get(n),
            after=v,
            location=f"{filename}:{listed.line}" if listed.line else filename,
            overrides=origins[n].computed if n in origins else None,
        )
        for n, v in moved.items()
    ]
    return result.model_copy(update={"edits": edits})


def config_changes(
    config: Mapping[str, Value], current: Mapping[str, Value], origins: Mapping[str, KnobOrigin] | None = None
) -> dict[str, Value]:
    """The edits that give kernel.py ``config`` (knob name -> value), leaving out what already holds it.

    A knob of several keys (an autotune list: one key per ``triton.Config``, the configs holding different
    values) is moved at each key that differs, so every config of the list becomes the candidate's and the
    autotuner has it alone to pick (the edit pins it); a knob of one key is moved by name. A knob at
    :data:`~kernelopt.tuning.candidate.COMPUTED` keeps its computation; ``current`` (:func:`current_values`)
    holds no knob computed from the problem, so a literal equal to what the computation gives at one size is
    still written (it is that value at every size).
    """
    out: dict[str, Value] = {}
    for name, v in config.items():
        if is_computed(v):  # the computation as written: nothing to edit
            continue
        keys = origins[name].keys if origins is not None and name in origins else ()
        if len(keys) > 1:
            out.update({k: v for k in keys if not (k in current and same_value(current[k], v))})
        elif keys and keys[0] in current and same_value(current[keys[0]], v):
            continue  # a name two launches share at different values: its key says this launch's holds it
        elif not (name in current and same_value(current[name], v)):
            out[name] = v
    return out


def same_value(a: object, b: object) -> bool:
    """Equal and of one type (``4`` is not ``4.0`` nor ``True``: a knob's literal keeps its type)."""
    return type(a) is type(b) and a == b


def current_values(tunables: Sequence[Tunable]) -> dict[str, Value]:
    """Knob key -> its literal value, and knob name -> its value where every knob of that name holds the same
    one. A knob computed from the problem (:func:`from_problem`) has no literal value: the value a run read is
    the computation's at one size, so it is left out (any literal is an edit of it)."""
    literal = [t for t in tunables if t.value is not None and not from_problem(t)]
    out: dict[str, Value] = {t.key: t.value for t in literal if t.value is not None}
    by_name: dict[str, set[str]] = {}
    for t in literal:
        by_name.setdefault(t.name, set()).add(repr(t.value))
    for t in literal:
        if t.value is not None and len(by_name.get(t.name, ())) == 1:
            out[t.name] = t.value
    return out


def from_problem(t: Tunable) -> bool:
    """``t`` is computed from the problem where the kernel launches (a settings helper, an expression at the
    launch, a heuristic), not an autotune list's entry (its list is the autotuner's): the tunable side of
    :attr:`~kernelopt.tuning.space.KnobOrigin.from_problem`."""
    return t.computed is not None and t.kind is not TunableKind.AUTOTUNE_CONFIG


class KernelEvaluator:
    """Evaluates configurations of one kernel on the hardware (the Evaluator protocol).

    Args:
        problem: the problem (reference, shape, device, tolerance).
        base_source: the kernel's source that configurations edit (kept for the caller; ``apply`` owns edits).
        apply: configuration -> candidate source or :class:`Refusal` (see :func:`knob_editor`).
        session_dir: the session's folder (candidate files, Triton cache, worker logs).
        settings: limits and workers.
        env: the workers' environment (default: this process's).
        name: the bench workers' name (``bench-0``, ...; their logs are named so).
        entries: labels of the session's other ``SHAPES`` entries (:class:`~kernelopt.tuning.shape_evaluator.
            ShapesEvaluator`'s primary): where the compile pool compiles on one of them (the smallest entry), a
            candidate that fails there (:data:`ELSEWHERE`) is that entry's failure, for its own evaluator to find; it
            goes on to the bench worker here (docs/faults.md aside17).
    """

    def __init__(
        self,
        problem: Problem,
        base_source: str,
        apply: Apply,
        *,
        session_dir: Path,
        settings: EvaluatorSettings | None = None,
        env: Mapping[str, str] | None = None,
        name: str = "bench",
        entries: Collection[str] = (),
    ) -> None:
        self.problem = problem
        self.entries = frozenset(entries)
        self.not_compiled_on: set[str] = set()  # set aside (:meth:`never_compile_on`): no pool compiles on them
        self.name = name
        self.base_source = base_source
        self.apply = apply
        self.session_dir = Path(session_dir)
        self.settings = settings or EvaluatorSettings()
        self._env = shared_cache_env(inherited() if env is None else env, self.session_dir)
        self._bench: WorkerPool | None = None
        self._compile: CompilePool | None = None
        self.ready: BenchReady | None = None
        self._paths: dict[str, Path] = {}  # config key -> candidate file
        self._compiled: dict[Path, CompileResult] = {}  # candidate file -> its passing compile, not sent again
        # on the CPU, the calls per sample of the session's first timed candidate: every later one is timed with it
        # (kernelopt.harness.timers.one_count), whichever worker, restarted or not, times it
        self.calls_per_sample: int | None = None
        # the fastest latency this evaluator measured in full (not cut, not re-timed): the slow-candidate cut's base
        self.best_us: float | None = self.settings.first_best_us
        # the first best measured by another timer (the gate's): the session's own first timing replaces it, faster
        # or not, so a timer that reads the same kernel slower (another count of calls, a loaded machine) never
        # cuts every candidate against the other timer's figure
        self._best_from_outside = self.settings.first_best_us is not None
        # the kernel as written's own configuration (config keys): never cut, it is what the best is measured against
        self.uncut: set[str] = set()
        # config key -> the configs of the autotune list its source runs whole (the kernel as written on a GPU, its list
        # judged as one configuration): each of its requests' own limits counts them (:meth:`own_s`)
        self.whole_lists: dict[str, int] = {}
        # the original's error here (rel_err of the uncut configurations that passed): every other candidate's, and the
        # text to be written, is compared with it (kernelopt.tuning.accuracy)
        self.original_err: float | None = None
        # whether this evaluator refuses a less accurate candidate itself: one entry's alone; a session across entries
        # judges their errors together (ShapesEvaluator: an excess that does not grow with the size is no refusal)
        self.judges = True
        self._first: WorkerPool | None = None  # the first bench workers, spawned and not yet awaited (spawn)
        self._aside: WorkerProcess | None = None  # the net's worker for a size likely to fault (check_alone)
        self._aside_failed = False  # that worker could not start: check_alone runs in the first worker
        # a kernel file's errors where it passed at a size the entries do not name (the net's sizes), by (its path,
        # the size's label): the written kernel's at the net's largest size is compared with the original's (late35)
        self._errors_at: dict[tuple[str, str], Result] = {}
        # the session's limit of each candidate's request (its pace, its wall time): None, the settings' own limits
        self.limit: CandidateLimit | None = None

    # -- workers ------------------------------------------------------------------------------------

    def _bench_worker(self, device: str | None, k: int | str) -> WorkerProcess:
        env = dict(self._env)
        if Device.of(device or self.problem.device or "") is not Device.CUDA:
            env["MALLOC_PERTURB_"] = MALLOC_PERTURB  # glibc fills fresh host memory with the poison byte
            # a launch of Triton's interpreter that cannot finish in a candidate's time stops in one line
            env[INTERPRETER_LIMIT_ENV] = child_limit(self.settings.bench_timeout_s)
        return WorkerProcess(
            Service.BENCH,
            setup=BenchInit(problem=self.problem, device=device, plan=self.settings.plan, screen=self.settings.screen),
            log_dir=self.session_dir / "logs",
            env=env,
            cwd=Path(self.problem.kernel_py).parent,
            startup_timeout_s=self.settings.startup_timeout_s,
            name=f"{self.name}-{k}",
            forked=Device.of(device or self.problem.device or "") is Device.CPU,
            device=device or self.problem.device,
        )

    def spawn(self) -> None:
        """Spawn the first bench worker(s) without waiting for them (:meth:`start` waits): a session across shapes
        spawns every entry's before it waits for any, so their start-ups overlap (on the H100, 2026-12-06, three
        entries' workers started one after another took about 24 s of a 60 s wall)."""
        if self.ready is not None or self._first is not None:
            return
        devices = self.settings.devices or [self.problem.device]  # type: ignore[list-item]
        self._first = WorkerPool([self._bench_worker(d, k) for k, d in enumerate(devices)])
        self._first.spawn()

    def start(self, compile_workers: int = 0) -> BenchReady:
        """Start the bench worker(s) (the problem is built and its fit checked) and, on a GPU, the compile pool, with
        ``compile_workers`` of its workers started now (a session's batch; else on the first batches).

        Raises:
            ProblemDoesNotFit: the problem does not fit on the device (exit 3).
            ProblemError: reference.py fails on the problem (exit 2).
            WorkerStartError: a worker could not start (exit 3).
        """
        if self.ready is not None:
            return self.ready
        devices = self.settings.devices or [self.problem.device]  # type: ignore[list-item]
        self.spawn()
        pool, self._first = self._first, None
        assert pool is not None
        first = list(pool.workers)
        readies = _started(pool.await_ready)
        ready = BenchReady.model_validate(readies[0].info)
        extra = workers_that_fit(ready.need, ready.free_bytes, self.settings.workers_per_device) - 1
        if extra > 0:
            more = [
                self._bench_worker(d, len(first) + k * len(devices) + i)
                for k in range(extra)
                for i, d in enumerate(devices)
            ]
            _started(lambda: pool.grow(more))
        self._bench, self.ready = pool, ready
        use_pool = self.settings.compile_pool
        if use_pool is None:
            use_pool = Device.of(ready.device) is Device.CUDA
        if use_pool:
            self._compile = self._compile_pool()
            if compile_workers > 0:
                try:
                    self._compile.prepare(compile_workers)
                except WorkerStartError as exc:
                    raise _problem_error(exc) from None
        return ready

    def _compile_pool(self) -> CompilePool:
        """A compile pool for the started bench workers' device (its workers start on its first batch), compiling on
        no entry of :attr:`not_compiled_on`."""
        assert self._bench is not None and self.ready is not None
        ready = self.ready
        left = max(0, ready.free_bytes - len(self._bench.workers) * ready.need.bench_bound_bytes)
        cuda = Device.of(ready.device) is Device.CUDA
        return CompilePool(
            self.problem,
            session_dir=self.session_dir,
            device=ready.device,
            settings=self.settings.compile,
            env=self._env,
            device_cap=max(1, left // DEVICE_BYTES_PER_COMPILE_WORKER) if cuda else None,
            screen=self.settings.screen,
            avoid=self.not_compiled_on,
        )

    def never_compile_on(self, label: str) -> None:
        """The session set the ``SHAPES`` entry ``label`` aside (the kernel as written cannot run it): a compile pool
        compiling there compiles elsewhere from the next batch (on the H100, 2026-12-06, refblame14's int_one: the
        pool compiled every candidate on M=8,N=1, the smallest entry, where none compiles)."""
        self.not_compiled_on.add(label)
        if self._compile is not None and self._compile.compile_shape == label:
            self._compile.close()
            self._compile = self._compile_pool()

    def _elsewhere(self, compiled: CompileResult) -> bool:
        """Whether ``compiled`` failed on another entry of the session (:attr:`entries`: the pool's compile shape),
        in a way that entry decides (:data:`ELSEWHERE`): no verdict here, the bench worker compiles it for this
        shape."""
        pool = self._compile
        return compiled.outcome in ELSEWHERE and pool is not None and pool.compile_shape in self.entries

    def bound(self, limit: CandidateLimit | None) -> None:
        """Bound each candidate's request by the session's ``limit`` (:mod:`kernelopt.tuning.pace`); ``None``: by the
        settings' limits alone."""
        self.limit = limit

    def _bounded(self, own_s: float, sent: list[tuple[float, float]]) -> Callable[[], float | None]:
        """The limit of each request sent next (``own_s``: the settings' limit; ``None``: not sent), each kept in
        ``sent`` as (limit, own) in the order the requests go."""
        return lambda: self._limit_s(own_s, sent)

    def _limit_s(self, own_s: float, sent: list[tuple[float, float]] | None = None) -> float | None:
        """The limit of a request sent now whose own limit is ``own_s``: the session's (:meth:`CandidateLimit.seconds`,
        ``None``: not sent), kept in ``sent`` as (limit, own) when it is sent; ``own_s`` where no session bounds it.
        The one reading of the session's bound, for every request: a compile, a check or timing, a re-time."""
        if self.limit is None:
            return own_s
        seconds = self.limit.seconds(own_s)
        if seconds is not None and sent is not None:
            sent.append((seconds, own_s))
        return seconds

    def _cut_reason(self, result: Result, limit: tuple[float, float] | None) -> Result:
        """``result`` with why its limit was the session's, when it ran past one under the settings' own."""
        if limit is None or self.limit is None or result.outcome not in (Outcome.RUN_TIMEOUT, Outcome.COMPILE_TIMEOUT):
            if self.limit is not None and result.outcome is Outcome.NOT_RUN_BUDGET:
                self.limit.cut += 1
            return result
        why = self.limit.why(*limit)
        if why is None:
            return result
        self.limit.cut += 1
        return result.model_copy(update={"reason": f"{result.reason}; {why}"})

    def discard_workers(self) -> None:
        """Stop the bench workers (the next request starts them again): a candidate that failed on another shape
        passed here, and in the interpreter may have written past its buffers into these workers' heaps."""
        if self._bench is not None:
            for worker in self._bench.workers:
                worker.kill()

    @property
    def check_notes(self) -> list[str]:
        """What the bench worker's setup said of the check: the reference's float64 run for its integer outputs
        skipped for the device's room (:attr:`BenchReady.high_skipped`), the reference's output on a device type
        other than its inputs' (:attr:`BenchReady.device_line`), as the gate's warnings say them."""
        if self.ready is None:
            return []
        high, device = self.ready.high_skipped, self.ready.device_line
        return [*([f"the check: {high}"] if high else []), *([device] if device else [])]

    @property
    def bench_starts(self) -> int:
        """How many times bench workers were started (restarts after a crash or hang included)."""
        return 0 if self._bench is None else sum(w.starts for w in self._bench.workers)

    @property
    def worker_start_s(self) -> float:
        """The seconds its bench and compile workers' starts took so far, summed (restarts included): a session reads
        what its rounds waited on them (:attr:`~kernelopt.tuning.pace.SessionPace.restart_s`)."""
        bench = 0.0 if self._bench is None else self._bench.start_s
        return bench + (0.0 if self._compile is None else self._compile.start_s)

    @property
    def compile_workers(self) -> int:
        """Compile workers started so far (0 without a compile pool)."""
        return 0 if self._compile is None else self._compile.workers

    # -- evaluation ---------------------------------------------------------------------------------

    def never_cut(self, keys: Iterable[str]) -> None:
        """The configurations (keys) of the kernel as written: what the cut's best is measured against, never cut
        and never held to the interpreter's shared-memory bound."""
        self.uncut.update(keys)

    def runs_whole_list(self, key: str, configs: int) -> None:
        """The configuration ``key``'s source runs an autotune list of ``configs`` configs whole: Triton compiles and
        benchmarks each at every new key, so its compile, check and timing have ``configs`` times a candidate's own
        limit (:meth:`own_s`), the session's wall still bounding them (docs/faults.md l102)."""
        self.whole_lists[key] = max(1, configs)

    def own_s(self, keys: Iterable[str], own_s: float) -> float:
        """The own limit of one request of the configurations ``keys``, seconds: ``own_s`` (the settings' limit of one
        candidate), times the most configs one of them runs whole (:meth:`runs_whole_list`)."""
        return own_s * max((self.whole_lists.get(k, 1) for k in keys), default=1)

    def _own_of(self, paths: Sequence[Path], own_s: float) -> float:
        """:meth:`own_s` of the candidate files ``paths`` (their configurations, by :attr:`_paths`)."""
        if not self.whole_lists:
            return own_s
        wanted = set(map(str, paths))
        return self.own_s((k for k, p in self._paths.items() if str(p) in wanted), own_s)

    def _write(self, source: str) -> Path:
        digest = hashlib.sha256(source.encode("utf-8")).hexdigest()[:12]
        path = self.session_dir / "candidates" / digest / "kernel.py"
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_code(path, source)
        carry(self.problem.kernel_py, path.parent)  # the JSON tables it reads beside it (vLLM's configs/)
        return path

    def _sources(self, batch: Sequence[Config]) -> list[Path | Result]:
        out: list[Path | Result] = []
        for config in batch:
            try:
                made = self.apply(config)
            except KerneloptError as exc:  # an edit that raised instead of refusing: the same verdict
                made = Refusal(exc.one_line())
            if isinstance(made, Refusal):
                out.append(Result.failed(config, Outcome.INVALID, made.reason))
                continue
            path = self._write(made)
            self._paths[config.key()] = path
            out.append(path)
        return out

    def evaluate(self, batch: Sequence[Config], *, timed: bool = True) -> list[Result]:
        """Compile, check and time each configuration; one result each, in ``batch``'s order.

        ``timed=False``: compile and check only (a session across shapes checks a candidate on every entry before
        it times it on any, :class:`~kernelopt.tuning.shape_evaluator.ShapesEvaluator`); a file compiled once is
        not sent to the compile pool again.

        Raises:
            ProblemDoesNotFit, ProblemError, WorkerStartError: as :meth:`start` (never for a candidate).
        """
        self.start()
        made = self._sources(batch)
        paths = list(dict.fromkeys(p for p in made if isinstance(p, Path)))
        compile_limits: dict[Path, tuple[float, float]] = {}
        compiled = self._compile_all(paths, compile_limits)
        # the pool's failure at another entry: no verdict here (ELSEWHERE), its seconds still the candidate's
        elsewhere = {p: r.compile_s for p in paths if (r := compiled[p]) is not None and self._elsewhere(r)}
        compiled.update(dict.fromkeys(elsewhere))
        to_bench = [p for p in paths if compiled[p] is None or compiled[p].outcome is Outcome.OK]  # type: ignore[union-attr]
        sent: list[tuple[float, float]] = []
        benched = dict(zip(to_bench, self._bench_all(to_bench, timed=timed, sent=sent), strict=True))
        bench_limits = dict(zip(to_bench, sent, strict=False))
        results: list[Result] = []
        for config, item in zip(batch, made, strict=True):
            if isinstance(item, Result):
                results.append(item)
                continue
            merged = _merge(config, compiled[item], benched.get(item), timed=timed)
            if (spent := elsewhere.get(item)) is not None:
                merged = merged.model_copy(update={"compile_s": (merged.compile_s or 0.0) + spent})
            limit = bench_limits.get(item) if item in benched else compile_limits.get(item)
            results.append(self._cut_reason(merged, limit))
        return self._accurate(results)

    def _accurate(self, results: Sequence[Result]) -> list[Result]:
        """``results`` with the original's error taken from its own (the uncut configurations) and every other one
        less accurate than it refused (:func:`kernelopt.tuning.accuracy.judged`)."""
        own = [r for r in results if r.key in self.uncut]
        if (err := original_error(own)) is not None:
            self.original_err = err if self.original_err is None else max(self.original_err, err)
        if not self.judges:
            return list(results)
        return [r if r.key in self.uncut else judged(r, self.original_err) for r in results]

    def _compile_all(
        self, paths: Sequence[Path], limits: dict[Path, tuple[float, float]] | None = None
    ) -> dict[Path, CompileResult | None]:
        """Each path's compile result (``None``: no compile pool); one that compiled before is not compiled again
        (its result comes back without its seconds: they were spent once). ``limits``: filled with each compile's
        (limit, own limit) where the session bounds it."""
        if self._compile is None or not paths:
            return dict.fromkeys(paths)
        fresh = [p for p in paths if p not in self._compiled]
        sent: list[tuple[float, float]] = []
        scale = self._own_of(fresh, 1.0)
        bound = (lambda own: self._limit_s(own * scale, sent)) if self.limit is not None else None
        try:
            done = self._compile.compile(fresh, bound=bound) if fresh else []
        except WorkerStartError as exc:
            raise _problem_error(exc) from None
        out: dict[Path, CompileResult | None] = {}
        for p, r in zip(fresh, done, strict=True):
            out[p] = r
            if r.outcome is Outcome.OK:
                self._compiled[p] = dataclasses.replace(r, compile_s=None)
        if limits is not None:
            limits.update(zip(fresh, sent, strict=False))
        return {p: out[p] if p in out else self._compiled[p] for p in paths}

    def _bench_all(
        self, paths: Sequence[Path], *, timed: bool = True, sent: list[tuple[float, float]] | None = None
    ) -> list[Answer]:
        """Check (and, ``timed``, time) each path in the bench workers; ``sent``: filled with each request's (limit,
        own limit) in the order they went (:meth:`_bounded`)."""
        assert self._bench is not None
        if not paths:
            return []
        own_s = self._own_of(paths, self.settings.bench_timeout_s)
        limit_s = self._bounded(own_s, sent if sent is not None else [])

        # a Triton kernel in the interpreter reads and writes raw host memory: one that failed may have written
        # past its buffers into the worker's heap (a GEMM without masks), and the next candidate crashed on it
        interpreted = self.problem.interpreted
        corrupting = {Outcome.WRONG_RESULT.value, Outcome.RUN_ERROR.value}

        built: list[Job] = []

        uncut = {str(self._paths[k]) for k in self.uncut if k in self._paths}

        def on_answer(j: int, answer: Answer, seconds: float, worker: WorkerProcess) -> None:
            if timed and isinstance(answer, Reply) and self._saw(answer.payload):
                for job in built:  # requests not sent yet carry the new bound (a payload is read when it is sent)
                    if job.payload["path"] not in uncut:
                        job.payload["cut_us"] = self._cut_us()
            if self.limit is not None:  # the wall time moved: the timing plans within what its request will get
                for job in built:
                    job.payload["limit_s"] = self._request_room(own_s)
            if isinstance(answer, Reply) and answer.payload.get("restart"):
                worker.kill()  # its process is unusable (a sticky CUDA error): the next request starts it again
            elif interpreted and isinstance(answer, Reply) and answer.payload.get("outcome") in corrupting:
                worker.kill()  # the next candidate gets a fresh (forked, cheap) worker, not a corrupt one

        def jobs(part: Sequence[Path]) -> list[Job]:
            built[:] = [
                Job(
                    BenchKind.EVALUATE,
                    EvaluateRequest(
                        path=str(p),
                        time=timed,
                        calls_per_sample=self.calls_per_sample,
                        cut_us=self._cut_us() if timed and str(p) not in uncut else None,
                        limit_s=self._request_room(own_s),
                        dot_bytes_limit=self.settings.dot_bytes_limit if interpreted and str(p) not in uncut else None,
                    ).model_dump(mode="json"),
                )
                for p in part
            ]
            return built

        answers: list[Answer] = []
        try:
            # on the CPU the first timed candidate sets the session's count of calls per sample: alone, then the rest
            while timed and self._pins_calls() and self.calls_per_sample is None and len(answers) < len(paths):
                [answer] = self._bench.run(
                    jobs(paths[len(answers) : len(answers) + 1]), timeout_s=limit_s, on_answer=on_answer
                )
                answers.append(answer)
                if isinstance(answer, Reply):
                    self.calls_per_sample = BenchReply.model_validate(answer.payload).calls_per_sample
            rest = paths[len(answers) :]
            if rest:
                answers += self._bench.run(jobs(rest), timeout_s=limit_s, on_answer=on_answer)
            return answers
        except WorkerStartError as exc:
            raise _problem_error(exc) from None

    def _request_room(self, own_s: float | None = None) -> float:
        """The seconds a bench request sent now may take (the worker plans its timing within them); ``own_s``: its own
        limit (the settings' by default)."""
        own = self.settings.bench_timeout_s if own_s is None else own_s
        seconds = self._limit_s(own)
        return own if seconds is None else seconds

    def _saw(self, payload: Mapping[str, object]) -> bool:
        """Keep a timed reply's latency as the best so far when it is faster (a cut one is no best); whether it was."""
        reply = BenchReply.model_validate(payload)
        if reply.outcome is not Outcome.OK or reply.cut_slow or reply.latency_us is None:
            return False
        if self.best_us is not None and reply.latency_us >= self.best_us and not self._best_from_outside:
            return False
        self.best_us = reply.latency_us
        self._best_from_outside = False
        return True

    def _cut_us(self) -> float | None:
        """The slow-candidate bound sent with a timing request: :data:`CUT_FACTOR` x the best so far."""
        if not self.settings.cut_slow or self.best_us is None:
            return None
        return CUT_FACTOR * self.best_us

    def _pins_calls(self) -> bool:
        """Whether the session's candidates are timed at one count of calls per sample (the CPU's timer)."""
        return self.ready is not None and Device.of(self.ready.device) is Device.CPU

    def check_source(self, source: str, config: Config) -> Result:
        """Check a kernel source (the edit to be written, which no candidate was) once, untimed; its result as
        ``config``'s.

        Raises:
            ProblemDoesNotFit, ProblemError, WorkerStartError: as :meth:`start`.
        """
        self.start()
        assert self._bench is not None
        path = self._write(source)
        job = Job(BenchKind.EVALUATE, EvaluateRequest(path=str(path), time=False).model_dump(mode="json"))
        try:
            [answer] = self._bench.run([job], timeout_s=lambda: self.settings.bench_timeout_s)
        except WorkerStartError as exc:
            raise _problem_error(exc) from None
        checked = _merge(config, None, answer, timed=False)
        return judged(checked, self.original_err) if self.judges else checked

    def check_at(self, source: str, shape: ProblemShape, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        """Check a kernel source at a size the ``SHAPES`` entries do not name, untimed, in the first bench worker (its
        inputs and reference built there once for the size, beside the problem: :mod:`kernelopt.tuning.net`); its
        outcome and the failure's line. In the interpreter a failure starts the worker again (a write past a buffer
        may have corrupted its heap). ``limit_s``: the request's limit (the net's, within its cap: netcap20), else
        :attr:`request_s`.

        Raises:
            ProblemDoesNotFit, ProblemError, WorkerStartError: as :meth:`start`.
        """
        return self._size(SizeRequest(path=str(self._write(source)), shape=shape), "checking", limit_s)

    @property
    def request_s(self) -> float:
        """A bench request's limit, seconds (``tune --candidate-timeout-s``)."""
        return self.settings.bench_timeout_s

    def request_limit_s(self) -> float | None:
        """The limit of one bench request sent now, seconds: :attr:`request_s` bounded by the session's
        (:meth:`_limit_s`; ``None``: the session leaves it no time)."""
        return self._limit_s(self.request_s)

    def build_at(self, shape: ProblemShape, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        """Build a size the ``SHAPES`` entries do not name (its inputs and reference output, kept for the next
        :meth:`check_at`) in the first bench worker, in a request of its own: ``OK``, or why reference.py cannot
        (a ``RUN_TIMEOUT`` is reference.py's, not a kernel's).

        Raises:
            ProblemDoesNotFit, ProblemError, WorkerStartError: as :meth:`start`.
        """
        return self._size(SizeRequest(path=None, shape=shape), "building the size", limit_s)

    def footprints(self, shapes: Sequence[ProblemShape]) -> list[tuple[int | None, str | None]]:
        """Each of ``shapes``' footprint in the first bench worker (:mod:`kernelopt.tuning.far_footprint`: its bytes
        read on the meta device), or ``None`` and why not (a reply that did not come: that line for each).

        Raises:
            ProblemDoesNotFit, ProblemError, WorkerStartError: as :meth:`start`.
        """
        self.start()
        assert self._bench is not None
        try:
            wanted = FootprintRequest(shapes=list(shapes))
            answer = self._bench.workers[0].request(BenchKind.FOOTPRINT, wanted, self.request_s)
        except WorkerStartError as exc:
            raise _problem_error(exc) from None
        if isinstance(answer, Failure):
            return [(None, answer.reason)] * len(shapes)
        reply = FootprintReply.model_validate(answer.payload)
        return list(zip(reply.needs, reply.why, strict=True))

    def _size(self, at: SizeRequest, doing: str, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        self.start()
        assert self._bench is not None
        worker = self._bench.workers[0]
        try:
            answer = worker.request(BenchKind.SIZE, at, limit_s if limit_s is not None else self.request_s)
        except WorkerStartError as exc:
            raise _problem_error(exc) from None
        if isinstance(answer, Failure):
            return _bench_failure(answer, doing)
        reply = BenchReply.model_validate(answer.payload)
        if reply.restart or (self.problem.interpreted and not reply.outcome.ok and at.path is not None):
            worker.kill()  # a kernel's write past a buffer may have corrupted the heap; reference.py's refusal did not
        self._keep_errors(at, reply)
        return reply.outcome, reply.reason

    def _keep_errors(self, at: SizeRequest, reply: BenchReply) -> None:
        """Keep a kernel's errors where it passed at a derived size (:meth:`error_at`)."""
        if at.path is not None and reply.outcome is Outcome.OK and reply.rel_err is not None:
            errors = Result(config={}, outcome=Outcome.OK, rel_err=reply.rel_err, worst_ratio=reply.worst_ratio,
                            roundoff=reply.roundoff)  # fmt: skip
            self._errors_at[(at.path, at.shape.label())] = errors

    def error_at(self, source: str, shape: ProblemShape) -> Result | None:
        """The errors (``rel_err``, ``worst_ratio``, ``roundoff``) of ``source``'s last check that passed at ``shape``,
        a size the entries do not name (:meth:`check_at`, :meth:`check_alone`); ``None``: it passed no check there."""
        return self._errors_at.get((str(self._write(source)), shape.label()))

    def check_alone(self, source: str, shape: ProblemShape, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        """:meth:`check_at` in a bench worker of its own, for a size where a fault is likely (the net's
        :meth:`~kernelopt.tuning.net._Caster.tried`): a fault there kills that worker, not the first one, whose start is
        a Python, torch, Triton and CUDA context again (about 10 s on an H100, gpufind19). That worker is spawned again
        at once, its start overlapping the net's next requests in the first worker; it builds the size itself. Where it
        cannot start (a second copy of the problem that does not fit the device), :meth:`check_at` runs it, as before.

        Raises:
            ProblemDoesNotFit, ProblemError, WorkerStartError: as :meth:`start`.
        """
        self.start()
        if self._aside_failed:
            return self.check_at(source, shape, limit_s)
        if self._aside is None:
            self._aside = self._bench_worker((self.settings.devices or [self.problem.device])[0], "aside")  # type: ignore[list-item]
        worker = self._aside
        at = SizeRequest(path=str(self._write(source)), shape=shape)
        try:
            if worker.alive and worker.ready is None:  # spawned after the last fault: its start is awaited now
                worker.await_ready()
            answer = worker.request(BenchKind.SIZE, at, limit_s if limit_s is not None else self.request_s)
        except (WorkerStartError, OSError):
            worker.kill()
            self._aside_failed = True
            return self.check_at(source, shape, limit_s)
        reply = None if isinstance(answer, Failure) else BenchReply.model_validate(answer.payload)
        if reply is None or reply.restart or (self.problem.interpreted and not reply.outcome.ok):
            worker.kill()  # unusable after the fault (or a heap a write may have corrupted): a new one, not awaited
            try:
                worker.spawn()
            except OSError:
                self._aside_failed = True
        if isinstance(answer, Failure):
            return _bench_failure(answer, "checking")
        assert reply is not None
        self._keep_errors(at, reply)
        return reply.outcome, reply.reason

    @property
    def aside_starts(self) -> int:
        """How many times the worker of :meth:`check_alone` was started."""
        return 0 if self._aside is None else self._aside.starts

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        """Check and time ``batch`` again in one bench worker, interleaved (ABBA rounds); results are ``retimed``."""
        self.start()
        unknown = [c for c in batch if c.key() not in self._paths]
        refused = {c.key(): r for c, r in zip(unknown, self._sources(unknown), strict=True) if isinstance(r, Result)}
        paths = [self._paths.get(c.key()) for c in batch]
        replies = self._retimed(list(dict.fromkeys(p for p in paths if p is not None)))
        out = []
        for config, path in zip(batch, paths, strict=True):
            if path is None:
                out.append(refused[config.key()])
                continue
            result = _merge(config, None, replies[path])
            out.append(result.model_copy(update={"retimed": result.outcome is Outcome.OK}))
        return out

    def retime_sources(self, sources: Sequence[tuple[Config, str]]) -> list[Result]:
        """:meth:`retime` of kernel texts no configuration makes (each named by the configuration it runs as: the
        original computation under a retune's guards, the text to be written; leftovers27 l131), interleaved in one
        request; one result each, in order."""
        self.start()
        paths = [self._write(source) for _, source in sources]
        replies = self._retimed(list(dict.fromkeys(paths)))
        out = []
        for (config, _), path in zip(sources, paths, strict=True):
            result = _merge(config, None, replies[path])
            out.append(result.model_copy(update={"retimed": result.outcome is Outcome.OK}))
        return out

    def retime_sources_at(self, label: str, sources: Sequence[tuple[Config, str]]) -> list[Result]:
        """:meth:`retime_sources`, each latency keyed by the entry ``label`` in ``latency_us_by_shape`` (this
        evaluator's one entry; :meth:`ShapesEvaluator.retime_sources_at` asks the entry's own)."""
        return [
            r.model_copy(update={"latency_us_by_shape": {label: r.latency_us}}) if r.latency_us is not None else r
            for r in self.retime_sources(sources)
        ]

    def _retimed(self, wanted: Sequence[Path]) -> dict[Path, BenchReply | Failure]:
        """The first bench worker's re-time of the candidate files ``wanted``, interleaved in one request within the
        session's limit of a re-time: its own limit (``retime_timeout_s``) times the most configs one of them runs
        whole (:meth:`runs_whole_list`: a fresh worker autotunes the list again at each key, as each of its other
        requests does; leftovers27 l132), the session's wall still bounding it; each file's reply, or the request's
        failure for each."""
        assert self._bench is not None
        if not wanted:
            return {}
        worker = self._bench.workers[0]
        try:
            retime = RetimeRequest(paths=[str(p) for p in wanted], calls_per_sample=self.calls_per_sample)
            bounded = self._limit_s(self._own_of(wanted, self.settings.retime_timeout_s))
            answer = worker.request(BenchKind.RETIME, retime, LEAST_REQUEST_S if bounded is None else bounded)
        except WorkerStartError as exc:
            raise _problem_error(exc) from None
        if isinstance(answer, Reply):
            return dict(zip(wanted, RetimeReply.model_validate(answer.payload).results, strict=True))
        return dict.fromkeys(wanted, answer)

    def close(self) -> None:
        """Shut every worker down (their process groups killed); the session folder stays."""
        if self._compile is not None:
            self._compile.close()
            self._compile = None
        if self._bench is not None:
            self._bench.close()
            self._bench = None
        if self._first is not None:  # spawned, never awaited (a session across shapes stopped at another entry)
            self._first.close()
            self._first = None
        if self._aside is not None:
            if self._aside.ready is None:  # spawned again after a fault and never used: killed, not waited on
                self._aside.kill()
            self._aside.close()
            self._aside = None
        self.ready = None

    def __enter__(self) -> KernelEvaluator:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _started(start: Callable[[], list[Ready]]) -> list[Ready]:
    try:
        return start()
    except WorkerStartError as exc:
        raise _problem_error(exc) from None


def _problem_error(exc: WorkerStartError) -> KerneloptError:
    """A worker's refused setup as the problem's error: no room -> exit 3, a failing reference.py -> exit 2."""
    if exc.failure.outcome is FailureKind.NO_ROOM:
        return ProblemDoesNotFit(exc.failure.reason)
    if exc.failure.outcome is FailureKind.BAD_INPUT:  # what to do, as validate and optimize say it (n157)
        log = f" (the worker's log: {exc.log_path})" if _holds_text(exc.log_path) else ""  # never an empty one
        if exc.failure.reason.startswith(AT_IMPORT):
            return ReferenceDoesNotImport(exc.failure.reason, hint=f"fix reference.py, then run again{log}")
        return ProblemError(exc.failure.reason, hint=f"{PROBLEM_FAILED}{log}")
    return exc


def _holds_text(log: Path) -> bool:
    """Whether the worker's log at ``log`` holds anything to read (fresh24 f20: an empty one was named)."""
    try:
        return log.stat().st_size > 0
    except OSError:
        return False


def _merge(
    config: Config, compiled: CompileResult | None, benched: Answer | BenchReply | None, *, timed: bool = True
) -> Result:
    """One candidate's Result from its compile result (``None``: not compiled ahead) and its bench answer
    (``timed``: the request checked and timed it, else it checked only)."""
    compile_s = compiled.compile_s if compiled is not None else None
    if compiled is not None and compiled.outcome is not Outcome.OK:
        return Result(config=config.as_dict(), outcome=compiled.outcome, reason=compiled.reason, compile_s=compile_s)
    if isinstance(benched, Failure):
        outcome, reason = _bench_failure(benched, "checking and timing" if timed else "checking")
        return Result(config=config.as_dict(), outcome=outcome, reason=reason, compile_s=compile_s)
    reply = benched if isinstance(benched, BenchReply) else BenchReply.model_validate(benched.payload)  # type: ignore[union-attr]
    if compile_s is None and reply.load_s is not None and reply.first_call_s is not None:
        compile_s = reply.load_s + reply.first_call_s  # not compiled ahead: loading and the first call compiled it
    checked = [s for s in (reply.load_s, reply.first_call_s, reply.check_s) if s is not None]
    return Result(
        config=config.as_dict(),
        outcome=reply.outcome,
        reason=reply.reason,
        error_class=reply.error_class,
        latency_us=reply.latency_us if reply.outcome is Outcome.OK else None,
        samples_us=reply.samples_us,
        compile_s=compile_s,
        check_s=sum(checked) if checked else None,
        bench_s=reply.bench_s,
        peak_bytes=reply.peak_bytes,
        cut_slow=reply.cut_slow and reply.outcome is Outcome.OK,
        grows_with_tiles=reply.grows_with_tiles and reply.outcome is Outcome.INVALID,
        shrinks_with_tiles=reply.shrinks_with_tiles and reply.outcome is Outcome.RUN_ERROR,
        timing=reply.timing if reply.outcome is Outcome.OK else None,
        rel_err=reply.rel_err if reply.outcome is Outcome.OK else None,
        worst_ratio=reply.worst_ratio if reply.outcome is Outcome.OK else None,
        roundoff=reply.roundoff if reply.outcome is Outcome.OK else None,
    )


def _bench_failure(failure: Failure, doing: str = "checking and timing") -> tuple[Outcome, str]:
    if failure.outcome is FailureKind.RUN_TIMEOUT:
        return Outcome.RUN_TIMEOUT, f"{doing}: {failure.reason}; the bench worker starts again"
    if failure.outcome is FailureKind.WORKER_CRASH:
        return Outcome.WORKER_CRASH, f"{doing}: {failure.reason}; the bench worker starts again"
    if failure.outcome is FailureKind.NOT_SENT:
        return Outcome.NOT_RUN_BUDGET, f"{doing}: {failure.reason} (the session's wall time)"
    return Outcome.RUN_ERROR, f"the bench service failed: {failure.reason}"
