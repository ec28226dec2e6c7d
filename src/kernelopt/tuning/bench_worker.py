"""The ``bench`` service: one long-lived worker per GPU checks and times candidates on the full problem.

Runs in ``python -m kernelopt.child bench`` (:mod:`kernelopt.child`); the parent talks to it through
:class:`kernelopt.worker.client.WorkerProcess` with the models below (:class:`BenchInit`, then
:class:`EvaluateRequest` / :class:`RetimeRequest`, answered by :class:`BenchReply` / :class:`RetimeReply`).

Setup, once per process: the device; the inputs (seed 0), their fingerprint (no copy), the reference's
output in its own dtype; then the problem's memory need (their bytes) checked against the device's free
memory measured before they were built
(:func:`kernelopt.tuning.problem.fit_problem`): a problem that cannot fit, or whose building runs out of
memory, is refused with one line before any candidate runs. Per candidate (a kernel file): load it,
poison the output memory, run it once, check it (:mod:`kernelopt.tuning.checks`: inputs untouched,
NaN/Inf, unwritten elements, shape and dtype, values in chunks with the dtype-aware tolerance), then
time it with the gate's sampler (:mod:`kernelopt.harness.timers`: L2 flushed, CUDA events on a GPU,
``perf_counter`` on the CPU) for a fixed warm-up and number of repetitions, and report the median and
the peak memory above the process's baseline (``torch.cuda.max_memory_allocated`` on a GPU, ``VmHWM`` on
the CPU). An out-of-memory inside a candidate is its result; the worker frees the cache and goes on.
``retime`` times several checked candidates interleaved (ABBA rounds), the final pick of a session.

Memory (docs/tuning-engine.md, "Memory"): inputs 1x, reference output 1x, one candidate output at a time,
poison buffers and compare chunks, CUDA-graph outputs capped at inputs + outputs: at most
:data:`~kernelopt.tuning.problem.BENCH_MEMORY_FACTOR` x (inputs + outputs) above the baseline.
"""

from __future__ import annotations

import dataclasses
import signal
import statistics
import time
from collections.abc import Callable, Sequence
from enum import StrEnum
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.digits import sig, size_text
from kernelopt.harness.hostmem import InputsDoNotFit, is_out_of_memory
from kernelopt.harness.interpreter import dot_k_short, dot_operand_bytes, patch_interpreter
from kernelopt.harness.model import ReferenceFault
from kernelopt.tunables.list_model import ListScreen
from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.checks import (
    LoadedCandidate,
    LoadedProblem,
    Verdict,
    classify,
    device_free_bytes,
    first_line,
    indexed_device,
    mutated_inputs,
    recover,
    reset_resident_peak,
    resident_bytes,
    run_candidate,
    synchronize,
)
from kernelopt.tuning.far_footprint import FootprintRequest, footprints
from kernelopt.tuning.net import DerivedProblems, SizeRequest
from kernelopt.tuning.noise import needs_more
from kernelopt.tuning.problem import AT_IMPORT, MemoryNeed, Problem, ProblemDoesNotFit, fit_problem
from kernelopt.worker.messages import USER_CODE, FailureKind, JsonObject
from kernelopt.worker.server import EventSink, SetupInfo, SetupRefused

KEEP_CHECKED = 8
"""Candidates a bench worker keeps loaded after an untimed check passed, for their timing request (a session's
batch is four; our bound on the modules held)."""
CUT_FACTOR = 3.0
"""A candidate whose first samples are all above this many times the session's best latency so far is cut: no more
samples (its record keeps those it has, ``cut_slow``). Our bound, Inductor's and Helion's practice: the re-time takes
candidates within a few percent of the best, and sample noise on a loaded clock stays well under 3x (the gate's own
noisy pairs read 1.1-2x), so a candidate 3x slower in each of its first samples is never the pick."""

CUT_PROBE_SAMPLES = 3
"""Samples a candidate has before the latency cut judges it (the fastest of them must exceed the bound: one
preempted sample never cuts)."""

CUT_MIN_CALL_S = 0.5
"""In Triton's interpreter a single call longer than ``CUT_FACTOR`` x the best's latency and than this many seconds
cuts the candidate (its check's first call, or any call while it is timed, by a timer signal): a small-block
candidate there takes seconds a call, and its ~30 calls ran to the 60 s candidate limit. The floor keeps a call's
one-off costs (the first call in a fresh worker: first-use allocations, lazy imports) from cutting a candidate whose
later calls are fast; one under it is cut by its samples instead."""

CUT_CALL_FACTOR = 10.0
"""One call stopped in the interpreter must be this many times the best's latency (and over :data:`CUT_MIN_CALL_S`):
one call is one sample, and at load 17 on a 2-core machine (2026-12-05) a 1024-wide cap's single call ran past
3x the 155 ms of the kernel as written, which its next shape ran in 79 ms, and the cut lost the pick; the samples'
rule (all of the first :data:`CUT_PROBE_SAMPLES` above :data:`CUT_FACTOR` x) stays at 3x."""


GRAPH_FLOOR_BYTES = 64 * 1024**2
"""The least memory the outputs of one callable's CUDA graph may keep, whatever the problem's size (the cap is
otherwise the problem's own bytes, shared by the callables timed together). Below it a problem of a few kilobytes
held one or two calls a graph, and the graph's own start was part of every per-call figure: on an H100
(benchmarks/graph_calls.py, 2026-12-06) xformers' RMS norm at 6 x 100 read 2.78 us at the first round's cap (two
calls), 3.71 us at a re-time's (one call) and 1.46 us at 64 MiB (410 calls), as at the gate's 1 GB; so a session's
first round and its re-time measured different things, and the re-time read about 1.6 us slower. A kernel short
enough to be timed by graph (under ``graph_below_us``) moves less than 64 MiB a call on any GPU we know, so every
round holds as many calls as the sample target asks."""


def graph_cap(problem_bytes: int, callables: int) -> int:
    """The bytes of graph outputs each of ``callables`` timed together may keep: the problem's bytes shared among
    them, never under :data:`GRAPH_FLOOR_BYTES`."""
    return max(GRAPH_FLOOR_BYTES, problem_bytes // max(1, callables))


class _CutSlow(BaseException):
    """Raised by the per-call timer signal in the interpreter (a BaseException: no ``except Exception`` of the
    interpreter or the timer may swallow it)."""


class BenchKind(StrEnum):
    """The bench service's request kinds."""

    EVALUATE = "evaluate"
    RETIME = "retime"
    SIZE = "size"  # one kernel file checked at a size the SHAPES entries do not name (kernelopt.tuning.net)
    FOOTPRINT = "footprint"  # sizes' bytes read on the meta device (kernelopt.tuning.far_footprint)


class BenchPlan(BaseModel):
    """How the bench worker checks and times.

    Attributes:
        warmup_calls: calls of each candidate before its sampler is prepared (then the sampler's own
            50 ms warm-up, :data:`kernelopt.harness.timers.WARMUP_S`).
        repetitions: timing samples per candidate; the latency is their median.
        retime_rounds: ABBA rounds of a re-time (two samples of every candidate per round).
        extra_rounds: a candidate whose samples spread more than 10 % of their median (their IQR) is timed
            again, up to this many more rounds of ``repetitions`` samples (:func:`kernelopt.tuning.noise.needs_more`).
        l2_flush: flush the L2 before each sample (GPU).
        cuda_graphs: time kernels under 20 us as CUDA-graph replays (their kept outputs are capped at the
            problem's inputs + outputs).
    """

    model_config = ConfigDict(extra="forbid")

    warmup_calls: int = Field(default=3, ge=1)
    repetitions: int = Field(default=20, ge=1)
    retime_rounds: int = Field(default=10, ge=1)
    extra_rounds: int = Field(default=2, ge=0)
    l2_flush: bool = True
    cuda_graphs: bool = True


class BenchInit(BaseModel):
    """The bench service's setup payload (``screen``: the tuned autotune list's own filters, see
    :mod:`kernelopt.tuning.list_screen`)."""

    model_config = ConfigDict(extra="forbid")

    problem: Problem
    device: str | None = None
    plan: BenchPlan = Field(default_factory=BenchPlan)
    screen: ListScreen | None = None


class BenchReady(BaseModel):
    """What the bench worker's setup measured (its Ready's ``info``).

    Attributes:
        device: the device (``cuda:0``, ``cpu``); device_name: its name.
        shape: the primary shape's label.
        need: the problem's inputs and outputs, bytes.
        free_bytes: the device's free memory before the problem was built.
        held_bytes: what the worker holds above its baseline after setup (inputs, reference output).
        baseline_bytes: the process's memory before the problem was built (GPU: allocated by torch after the
            L2 flush buffer; CPU: resident set), the zero of every ``peak_bytes``.
        high_skipped: why the reference's float64 run for its integer outputs was not made (it could not fit),
            else ``None`` (:attr:`kernelopt.tuning.checks.LoadedProblem.high_skipped`).
        device_line: the reference returns an output on a device type other than its inputs'
            (:attr:`kernelopt.tuning.checks.LoadedProblem.device_line`), else ``None``.
    """

    device: str
    device_name: str
    shape: str
    need: MemoryNeed
    free_bytes: int
    held_bytes: int | None
    baseline_bytes: int | None
    high_skipped: str | None = None
    device_line: str | None = None


class EvaluateRequest(BaseModel):
    """Check (and time) one candidate file.

    Attributes:
        calls_per_sample: on the CPU, the count of calls per sample the session's candidates are timed with (the
            count its first was timed with, :func:`kernelopt.harness.timers.one_count`); ``None``: the first, which
            takes its own.
        cut_us: the slow-candidate bound, :data:`CUT_FACTOR` x the session's best latency so far (microseconds per
            call); ``None``: no best yet, nothing is cut.
        limit_s: the request's limit (checking and timing), seconds: a timing whose full plan cannot fit what the
            check leaves of it takes fewer samples (:func:`kernelopt.harness.timers.full_timing_fits`, the gate's
            rule); ``None``: no limit to plan for.
        dot_bytes_limit: in Triton's interpreter, the shared memory (bytes) the candidate's largest ``tl.dot``
            operands must fit (:func:`kernelopt.harness.interpreter.dot_operand_bytes`); past it the candidate is
            ``INVALID``, as a GPU compile would refuse it; ``None``: not checked (the kernel as written).
    """

    model_config = ConfigDict(extra="forbid")

    path: str
    time: bool = True
    calls_per_sample: int | None = Field(default=None, ge=1)
    cut_us: float | None = Field(default=None, gt=0)
    limit_s: float | None = Field(default=None, gt=0)
    dot_bytes_limit: int | None = Field(default=None, gt=0)


class BenchReply(BaseModel):
    """One candidate's verdict and measurement.

    Attributes:
        outcome: ``OK`` or why not; reason: one line for a failure; error_class: a wrong result's check name
            (:attr:`kernelopt.tuning.checks.Verdict.error_class`).
        latency_us: median of ``samples_us`` (microseconds per call).
        load_s, first_call_s, check_s, bench_s: seconds importing, of the first call, checking, timing.
        peak_bytes: the worker's peak memory above its baseline while it ran (``None``: not measured).
        restart: the worker's process is unusable after this candidate (a sticky CUDA error).
        calls_per_sample: the calls per sample it was timed with (``None``: not timed).
        timing: how its samples were taken, :class:`~kernelopt.harness.model.TimingMethod`'s value (``cuda_graph``,
            ``cuda_events``: one call a sample, ``cuda_batch``: calls back to back, ``cpu_perf_counter``), and the spin
            before each sample where the host's work sized it (:attr:`~kernelopt.harness.timers.Sampler.timing`);
            ``None``: not timed, or single calls reduced to fit its limit.
        cut_slow: its timing was cut (:data:`CUT_FACTOR`): ``samples_us`` are those it had, its latency is their
            median (a lower bound when a call was cut by the clock); ``reason`` says why. It passed its check.
        grows_with_tiles: refused (``INVALID``) for its ``tl.dot`` operand tiles' shared memory, a bound larger
            tiles only exceed further (:attr:`~kernelopt.tuning.candidate.Result.grows_with_tiles`).
        shrinks_with_tiles: a ``RUN_ERROR`` of a ``tl.dot`` whose K is under what a GPU compile needs, which smaller
            tiles break too (:attr:`~kernelopt.tuning.candidate.Result.shrinks_with_tiles`).
        rel_err, worst_ratio, roundoff: its check's errors and its output's unit roundoff
            (:attr:`~kernelopt.tuning.checks.Verdict.rel_err`).
    """

    model_config = ConfigDict(extra="forbid")

    path: str
    outcome: Outcome
    reason: str | None = None
    error_class: str | None = None
    latency_us: float | None = None
    samples_us: list[float] = Field(default_factory=list)
    load_s: float | None = None
    first_call_s: float | None = None
    check_s: float | None = None
    bench_s: float | None = None
    peak_bytes: int | None = None
    restart: bool = False
    calls_per_sample: int | None = None
    timing: str | None = None
    cut_slow: bool = False
    grows_with_tiles: bool = False
    shrinks_with_tiles: bool = False
    rel_err: float | None = None
    worst_ratio: float | None = None
    roundoff: float | None = None


class RetimeRequest(BaseModel):
    """Time several checked candidates interleaved (``calls_per_sample``: as :class:`EvaluateRequest`'s)."""

    model_config = ConfigDict(extra="forbid")

    paths: list[str] = Field(min_length=1)
    calls_per_sample: int | None = Field(default=None, ge=1)


class RetimeReply(BaseModel):
    """One reply per path, in order."""

    results: list[BenchReply]


class _Peak:
    """The worker's peak memory above its baseline: CUDA caching allocator's peak, or the resident peak."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.baseline: int | None = self.current()

    def current(self) -> int | None:
        import torch

        if self.device.startswith("cuda"):
            return int(torch.cuda.memory_allocated(torch.device(self.device)))
        return resident_bytes("VmRSS")

    def reset(self) -> None:
        import torch

        if self.device.startswith("cuda"):
            torch.cuda.reset_peak_memory_stats(torch.device(self.device))
        else:
            reset_resident_peak()

    def read(self) -> int | None:
        import torch

        if self.baseline is None:
            return None
        if self.device.startswith("cuda"):
            peak: int | None = int(torch.cuda.max_memory_allocated(torch.device(self.device)))
        else:
            peak = resident_bytes("VmHWM")
        return None if peak is None else max(0, peak - self.baseline)


def _versions() -> dict[str, str]:
    import platform

    out = {"python": platform.python_version()}
    for name in ("torch", "triton", "kernelopt"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def time_callables(
    fns: Sequence[Callable[..., Any]],
    inputs: list[Any],
    device: str,
    plan: BenchPlan,
    *,
    flusher: Any,
    graph_bytes: int,
    order: Sequence[int],
    gradients: bool = False,
    calls_per_sample: int | None = None,
    cut_us: float | None = None,
    room_s: float | None = None,
    methods: list[str] | None = None,
) -> tuple[list[list[float]], list[int]]:
    """Samples (microseconds per call) of each of ``fns`` on ``inputs``, taken in ``order`` (index per sample), and
    the calls per sample of each.

    Each is called ``plan.warmup_calls`` times, then the gate's sampler is prepared (its method chosen, a
    50 ms warm-up); CUDA-graph outputs are capped at ``graph_bytes`` shared among them, never under
    :data:`GRAPH_FLOOR_BYTES` a callable (:func:`graph_cap`). On the CPU every callable is timed
    with one count of calls per sample, ``calls_per_sample`` when given (the session's), by the gate's rule
    (:func:`kernelopt.harness.timers.one_count`). ``gradients``: autograd stays on
    (:attr:`~kernelopt.kernelsource.KernelForm.takes_gradients`). ``cut_us`` (one callable): the sampling stops once
    its first :data:`CUT_PROBE_SAMPLES` samples are all above it (:func:`cut_after`). ``room_s`` (one callable): the
    seconds its limit leaves; when the full plan cannot fit there (:func:`kernelopt.harness.timers.full_timing_fits`,
    the gate's rule), its warm-up calls are its first samples and it takes only the single-call samples that fit.
    ``methods``: each callable's timing method is appended to it (:attr:`BenchReply.timing`; none for a reduced one).
    """
    import torch

    from kernelopt.harness.model import BenchSettings
    from kernelopt.harness.timers import make_sampler, one_count, take_samples

    warmup_calls = plan.warmup_calls
    if room_s is not None and len(fns) == 1:
        reduced = _reduced_timing(fns[0], inputs, device, plan, len(order), room_s, gradients)
        if reduced is not None:
            return [reduced], [1]
        warmup_calls = 0  # it made them

    settings = BenchSettings(
        l2_flush=plan.l2_flush,
        rotate_inputs=False,
        cuda_graphs=plan.cuda_graphs,
        max_graph_output_bytes=graph_cap(graph_bytes, len(fns)),
    )
    with torch.set_grad_enabled(gradients):
        for fn in fns:
            for _ in range(warmup_calls):
                fn(*inputs)
        synchronize(device)
        samplers = one_count(
            [make_sampler(fn, [inputs], device, settings, flusher) for fn in fns], settings, calls_per_sample
        )
        launches = [s.launches for s in samplers]
        if methods is not None:
            methods.extend(s.timing for s in samplers)
        if cut_us is None or len(samplers) != 1:
            return take_samples(samplers, order), launches
        taken: list[float] = []
        for _ in order:
            taken.append(samplers[0].sample())
            if cut_after(taken, cut_us):
                break
        return [taken], launches


def _reduced_timing(
    fn: Callable[..., Any],
    inputs: list[Any],
    device: str,
    plan: BenchPlan,
    samples: int,
    room_s: float,
    gradients: bool,
) -> list[float] | None:
    """The samples of a timing reduced to fit ``room_s`` seconds (single calls: the warm-up's, then those that fit, up
    to ``samples``), or ``None`` when the full plan (warm-up, the sampler's estimate and warm-up, ``samples``) fits:
    the gate's rule (:func:`kernelopt.harness.timers.full_timing_fits`), so a correct candidate whose call takes
    seconds in Triton's interpreter is timed, not killed at its limit (breaker6 j5, j9). A call that would end past
    ``room_s`` at the pace of the last one is not made (a load spike after the count was planned; tuneleft9)."""
    import torch

    from kernelopt.harness.timers import SAMPLER_SETUP_CALLS, ends_past, full_timing_fits, samples_that_fit

    t_start = time.perf_counter()
    warm: list[float] = []
    with torch.set_grad_enabled(gradients):
        for k in range(plan.warmup_calls):
            t0 = time.perf_counter()
            fn(*inputs)
            synchronize(device)
            warm.append(max(1e-3, (time.perf_counter() - t0) * 1e6))
            left = room_s - (time.perf_counter() - t_start)
            if k == 0 and full_timing_fits(warm[0] / 1e6, left, plan.warmup_calls - 1 + SAMPLER_SETUP_CALLS + samples):
                for _ in range(plan.warmup_calls - 1):
                    fn(*inputs)
                synchronize(device)
                return None
        more = samples_that_fit(max(warm) / 1e6, room_s - (time.perf_counter() - t_start), max(0, samples - len(warm)))
        for _ in range(more):
            if ends_past(t_start, warm[-1] / 1e6, room_s):  # at the last call's pace it would end past the limit
                break
            t0 = time.perf_counter()
            fn(*inputs)
            synchronize(device)
            warm.append(max(1e-3, (time.perf_counter() - t0) * 1e6))
    return warm


def cut_after(samples: Sequence[float], cut_us: float) -> bool:
    """Whether a candidate's sampling stops here: it has :data:`CUT_PROBE_SAMPLES` samples (or more) and the fastest
    of its first ones is above ``cut_us`` (one preempted sample never cuts)."""
    return len(samples) >= CUT_PROBE_SAMPLES and min(samples[:CUT_PROBE_SAMPLES]) > cut_us


def call_deadline_s(cut_us: float) -> float:
    """In the interpreter, the longest one call of a candidate may run before it is cut (:data:`CUT_MIN_CALL_S`,
    :data:`CUT_CALL_FACTOR` x the best, ``cut_us`` being :data:`CUT_FACTOR` x the best)."""
    return max(CUT_MIN_CALL_S, cut_us * 1e-6 * CUT_CALL_FACTOR / CUT_FACTOR)


def _deadline_calls(fn: Callable[..., Any], deadline_s: float) -> Callable[..., Any]:
    """``fn`` with each call cut (:class:`_CutSlow`) when it runs past ``deadline_s`` (a real-time timer signal; the
    interpreter runs Python, so the signal lands within the call)."""

    def on_alarm(signum: int, frame: Any) -> None:
        raise _CutSlow

    def timed(*args: Any) -> Any:
        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, deadline_s)
        try:
            return fn(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    return timed


def _reference_failure(exc: BaseException, *, imported: bool = False) -> str:
    """reference.py's failure in one line: ``reference.py: ValueError: ...`` (``reference.py raised at import:
    ValueError: ...`` when ``imported``: raised as it was imported), or for ``sys.exit(4)`` (which a worker must not
    take as its own exit: it is reference.py's fault, bad input) ``reference.py called sys.exit(4)``."""
    if isinstance(exc, SystemExit):
        return f"reference.py called sys.exit({exc.code!r}) while the problem was built"
    if isinstance(exc, ReferenceFault):  # our line, naming reference.py and the fix
        return str(exc)
    return f"{AT_IMPORT}: {first_line(exc)}" if imported else f"reference.py: {first_line(exc)}"


def _warm_up(device: str) -> None:
    """Run a few small ops of every kind the checks use, so that the runtime's one-time allocations (thread
    pools, kernels loaded on first use) land before the baseline, not in the first candidate's peak."""
    import torch

    from kernelopt.harness.inplace import fingerprint

    x = torch.randn(1 << 16, device=device)
    fingerprint([x])
    ((x.double() - x.double()).abs() / (x.abs() + 1)).max().item()
    synchronize(device)
    del x


class BenchService:
    """The bench service's handler (one per worker process)."""

    def __init__(self) -> None:
        self.loaded: LoadedProblem | None = None
        self.plan = BenchPlan()
        self.flusher: Any = None
        self.peak: _Peak | None = None
        self.need: MemoryNeed | None = None
        self.interpreted = False  # Triton kernels run in its interpreter (the CPU): one call may take seconds
        self.derived = DerivedProblems()  # the net's size, built beside the problem (kernelopt.tuning.net)
        # candidates an untimed request checked here and passed, kept loaded for their timing request (path ->
        # the loaded candidate and its check's verdict): a session across shapes checks a batch on every entry,
        # then times it; a second load and check of each (its module imported, its kernel loaded, its reference
        # compared again) took about 40 % of the candidates' check seconds on the H100 (2026-12-06, scaled_mm)
        self.checked: dict[Path, tuple[LoadedCandidate, Verdict]] = {}

    # -- setup --------------------------------------------------------------------------------------

    def setup(self, payload: JsonObject, events: EventSink) -> SetupInfo:
        import torch

        from kernelopt.harness.timers import L2Flusher
        from kernelopt.harness.worker import DeviceUnavailable, resolve_device

        init = BenchInit.model_validate(payload)
        self.plan = init.plan
        try:
            device = resolve_device(init.device or init.problem.device)
        except DeviceUnavailable as exc:
            raise SetupRefused(FailureKind.SETUP_FAILED, str(exc)) from None
        device = indexed_device(device)
        if device.startswith("cuda"):
            torch.cuda.set_device(torch.device(device))
            self.flusher = L2Flusher(device) if self.plan.l2_flush else None
        else:
            patch_interpreter()  # Triton kernels run in its interpreter on the CPU
            self.interpreted = init.problem.interpreted
        try:
            # the parent hears where reference.py runs: a process that dies there (os._exit in get_inputs) is
            # reference.py's fault, named, as an exception or sys.exit there is (WorkerProcess.await_ready)
            loaded = LoadedProblem.load(init.problem, device, watch=lambda where: events.emit(USER_CODE, where=where))
        except (Exception, SystemExit) as exc:  # reference.py does not import (or exits while it does): bad input
            raise SetupRefused(FailureKind.BAD_INPUT, _reference_failure(exc, imported=True)) from None
        shape = init.problem.primary_shape(loaded.shapes)
        _warm_up(device)
        self.peak = _Peak(device)  # the zero of every peak: after the runtime's own first-use allocations
        free = device_free_bytes(device)
        try:
            need = self._build(loaded, shape, free)
            fit_problem(need, free, device=device)
        except ProblemDoesNotFit as exc:
            raise SetupRefused(FailureKind.NO_ROOM, exc.one_line()) from None
        loaded.screen = init.screen
        loaded.watch = None  # the setup is over: what a candidate's request meets is the candidate's result
        self.loaded, self.need = loaded, need
        name = torch.cuda.get_device_name(torch.device(device)) if device.startswith("cuda") else "cpu"
        held = self.peak.current()
        ready = BenchReady(
            device=device,
            device_name=name,
            shape=shape.label(),
            need=need,
            free_bytes=free,
            held_bytes=None if held is None or self.peak.baseline is None else max(0, held - self.peak.baseline),
            baseline_bytes=self.peak.baseline,
            high_skipped=loaded.high_skipped,
            device_line=loaded.device_line,
        )
        return SetupInfo(device=device, versions=_versions(), info=ready.model_dump(mode="json"))

    def _build(self, loaded: LoadedProblem, shape: Any, free_bytes: int) -> MemoryNeed:
        try:
            return loaded.build(shape)
        except InputsDoNotFit as exc:  # sized before anything was built: its own figures and remedy
            raise ProblemDoesNotFit(f"the problem cannot fit on {loaded.device}: {exc}") from None
        except (Exception, SystemExit) as exc:  # reference.py failed (or exited) on the real problem
            if is_out_of_memory(exc):
                raise ProblemDoesNotFit(
                    f"the problem cannot fit on {loaded.device}: building its inputs and reference output ran "
                    f"out of memory with {size_text(free_bytes)} free ({first_line(exc)})",
                    hint="free the device, use a larger one, or lower the problem size (task card sizes / size_scale)",
                ) from None
            raise SetupRefused(FailureKind.BAD_INPUT, _reference_failure(exc)) from None

    # -- requests -----------------------------------------------------------------------------------

    def handle(self, kind: str, payload: JsonObject, events: EventSink) -> JsonObject:
        if kind == BenchKind.EVALUATE:
            request = EvaluateRequest.model_validate(payload)
            reply = self.evaluate(
                Path(request.path),
                timed=request.time,
                calls_per_sample=request.calls_per_sample,
                cut_us=request.cut_us,
                limit_s=request.limit_s,
                dot_bytes_limit=request.dot_bytes_limit,
            )
            return reply.model_dump(mode="json")
        if kind == BenchKind.RETIME:
            retime = RetimeRequest.model_validate(payload)
            replies = self.retime([Path(p) for p in retime.paths], calls_per_sample=retime.calls_per_sample)
            return RetimeReply(results=replies).model_dump(mode="json")
        if kind == BenchKind.SIZE:
            at = SizeRequest.model_validate(payload)
            assert self.loaded is not None and self.peak is not None
            self.peak.reset()
            if at.path is None:  # the size built alone: a hang here is reference.py's
                return self._reply(Path(), self.derived.build(self.loaded, at.shape)).model_dump(mode="json")
            return self._reply(Path(at.path), self.derived.check(self.loaded, Path(at.path), at.shape)).model_dump(
                mode="json"
            )
        if kind == BenchKind.FOOTPRINT:
            assert self.loaded is not None
            wanted = FootprintRequest.model_validate(payload)
            return footprints(Path(self.loaded.problem.reference_py), wanted).model_dump(mode="json")
        raise ValueError(f"the bench service has no request kind {kind!r}")

    def _reply(self, path: Path, verdict: Verdict, **extra: Any) -> BenchReply:
        assert self.peak is not None
        return BenchReply(
            path=str(path),
            outcome=verdict.outcome,
            reason=verdict.reason,
            error_class=verdict.error_class,
            load_s=verdict.load_s,
            first_call_s=verdict.first_call_s,
            check_s=verdict.check_s,
            peak_bytes=self.peak.read(),
            restart=verdict.restart,
            rel_err=verdict.rel_err,
            worst_ratio=verdict.worst_ratio,
            roundoff=verdict.roundoff,
            **extra,
        )

    def evaluate(
        self,
        path: Path,
        *,
        timed: bool = True,
        calls_per_sample: int | None = None,
        cut_us: float | None = None,
        limit_s: float | None = None,
        dot_bytes_limit: int | None = None,
    ) -> BenchReply:
        """Check one candidate and, when it passes and ``timed``, time it (on the CPU at ``calls_per_sample`` calls
        per sample, the session's count; ``None``: its own, and every extra round at the first round's).

        ``cut_us`` (:data:`CUT_FACTOR` x the session's best so far): a candidate whose first samples are all above it
        is cut (``cut_slow``, the samples it has); in the interpreter so is one whose check's first call, or any call
        while it is timed, runs past :func:`call_deadline_s` (that call's time is its one sample, a lower bound, and
        the worker starts again: the call was stopped inside the interpreter). ``limit_s``: the request's limit, which
        the timing plans within (:func:`time_callables`' ``room_s``)."""
        started = time.perf_counter()
        loaded, peak = self.loaded, self.peak
        assert loaded is not None and peak is not None and self.need is not None
        peak.reset()
        kept = self.checked.pop(path, None)
        if kept is not None and not timed:  # checked again: the new check's load replaces it
            kept[0].release()
            kept = None
        if kept is not None:  # checked here already: timed without a second load and check
            candidate, checked = kept
            verdict = dataclasses.replace(checked, load_s=None, first_call_s=None, check_s=None)
            return self._timed(
                path, candidate, verdict, checked.first_call_s, started, calls_per_sample, cut_us, limit_s
            )
        dot_operand_bytes(reset=True)
        dot_k_short(reset=True)
        candidate, verdict = run_candidate(loaded, path)
        if candidate is None:
            recover(loaded, verdict)
            short = self.interpreted and verdict.outcome is Outcome.RUN_ERROR and dot_k_short() is not None
            return self._reply(path, verdict, shrinks_with_tiles=short)
        dots = dot_operand_bytes() if self.interpreted else 0
        if dot_bytes_limit is not None and dots > dot_bytes_limit:
            candidate.release()
            why = (
                f"its largest tl.dot's operand tiles take {dots} B of shared memory at one stage, past the "
                f"{dot_bytes_limit} B a block may use on the GPU the session is for; a GPU compile refuses it "
                "(out of resource), which Triton's interpreter does not check"
            )
            refused = dataclasses.replace(verdict, outcome=Outcome.INVALID, reason=why)
            return self._reply(path, refused, grows_with_tiles=True)
        if not timed:  # kept for its timing request, the oldest released past KEEP_CHECKED
            self.checked[path] = (candidate, verdict)
            self._release_checked()
            return self._reply(path, verdict)
        return self._timed(path, candidate, verdict, verdict.first_call_s, started, calls_per_sample, cut_us, limit_s)

    def _release_checked(self, keep: int = KEEP_CHECKED) -> None:
        """Release the candidates kept loaded past the ``keep`` newest (all: ``keep=0``): a batch's checks that were
        never timed (a candidate that failed another entry) do not pile up."""
        while len(self.checked) > keep:
            candidate, _ = self.checked.pop(next(iter(self.checked)))
            candidate.release()

    def _timed(
        self,
        path: Path,
        candidate: LoadedCandidate,
        verdict: Verdict,
        first_call_s: float | None,
        started: float,
        calls_per_sample: int | None,
        cut_us: float | None,
        limit_s: float | None,
    ) -> BenchReply:
        """Time ``candidate``, which passed its check (``first_call_s``: its first call's seconds there), and release
        it (:meth:`evaluate`)."""
        loaded = self.loaded
        assert loaded is not None
        try:
            deadline = call_deadline_s(cut_us) if cut_us is not None and self.interpreted else None
            if deadline is not None and first_call_s is not None and first_call_s > deadline:
                first_us = first_call_s * 1e6
                return self._cut(path, verdict, [first_us], cut_us, bench_s=0.0, calls=1, by_clock=True)
            t0 = time.perf_counter()
            methods: list[str] = []
            try:
                samples, verdict, calls = self._time(
                    [candidate],
                    verdict,
                    [0] * self.plan.repetitions,
                    calls_per_sample,
                    cut_us=cut_us,
                    deadline=deadline,
                    room_s=None if limit_s is None else limit_s - (t0 - started),
                    methods=methods,
                )
            except _CutSlow:
                bench_s = time.perf_counter() - t0
                assert deadline is not None and cut_us is not None
                return self._cut(
                    path, verdict, [deadline * 1e6], cut_us, bench_s=bench_s, calls=1, by_clock=True, interrupted=True
                )
            cut = cut_us is not None and bool(samples) and cut_after(samples[0], cut_us)
            reduced = bool(samples) and len(samples[0]) < self.plan.repetitions  # to fit its limit: no more rounds
            for _ in range(self.plan.extra_rounds):  # a high spread gets more samples
                if cut or reduced or verdict.outcome is not Outcome.OK or not needs_more(samples[0]):
                    break
                more, verdict, _ = self._time([candidate], verdict, [0] * self.plan.repetitions, calls)
                samples = [samples[0] + more[0]] if more else samples
            bench_s = time.perf_counter() - t0
            if verdict.outcome is not Outcome.OK:
                recover(loaded, verdict)
                return self._reply(path, verdict, bench_s=bench_s)
            if cut:
                assert cut_us is not None
                return self._cut(path, verdict, samples[0], cut_us, bench_s=bench_s, calls=calls, by_clock=False)
            return self._reply(
                path,
                verdict,
                latency_us=statistics.median(samples[0]),
                samples_us=samples[0],
                bench_s=bench_s,
                calls_per_sample=calls,
                timing=methods[0] if methods else None,
            )
        finally:
            candidate.release()

    def _cut(
        self,
        path: Path,
        verdict: Verdict,
        samples: list[float],
        cut_us: float,
        *,
        bench_s: float,
        calls: int | None,
        by_clock: bool,
        interrupted: bool = False,
    ) -> BenchReply:
        """A candidate cut as far slower than the best so far: timed with the samples it has, and why
        (``interrupted``: a call was stopped by the timer signal; the worker starts again)."""
        best_us = cut_us / CUT_FACTOR
        if by_clock:
            took = "was stopped at" if interrupted else "took"
            reason = (
                f"cut: a call {took} {samples[0] / 1e6:.3g} s, past the interpreter's call deadline of "
                f"{call_deadline_s(cut_us):.3g} s (the larger of {CUT_MIN_CALL_S:g} s and {CUT_CALL_FACTOR:g}x the "
                f"best so far, {sig(best_us)} us); its latency is a lower bound"
            )
        else:
            reason = (
                f"cut: its first {CUT_PROBE_SAMPLES} samples were all above {CUT_FACTOR:g}x the best so far "
                f"({sig(min(samples[:CUT_PROBE_SAMPLES]))} us > {sig(cut_us)} us); {len(samples)} samples taken"
            )
        return self._reply(
            path,
            dataclasses.replace(verdict, reason=reason, restart=verdict.restart or interrupted),
            latency_us=statistics.median(samples),
            samples_us=samples,
            bench_s=bench_s,
            calls_per_sample=calls,
            cut_slow=True,
        )

    def _time(
        self,
        candidates: Sequence[LoadedCandidate],
        verdict: Verdict,
        order: Sequence[int],
        calls_per_sample: int | None = None,
        *,
        cut_us: float | None = None,
        deadline: float | None = None,
        room_s: float | None = None,
        methods: list[str] | None = None,
    ) -> tuple[list[list[float]], Verdict, int | None]:
        """The candidates' samples in ``order``, the verdict, and the calls per sample they were timed with
        (``cut_us``: :func:`time_callables`'; ``deadline``: each call is cut past that many seconds, raising
        :class:`_CutSlow`)."""
        loaded = self.loaded
        assert loaded is not None and self.need is not None
        fns = [c.fn if deadline is None else _deadline_calls(c.fn, deadline) for c in candidates]
        try:
            samples, calls = time_callables(
                fns,
                loaded.inputs,
                loaded.device,
                self.plan,
                flusher=self.flusher,
                graph_bytes=self.need.total_bytes,
                order=order,
                gradients=loaded.form.takes_gradients,
                calls_per_sample=calls_per_sample,
                cut_us=cut_us,
                room_s=room_s,
                methods=methods,
            )
        except Exception as exc:  # a launch that fails only under the timer (graph capture, ...): a result
            path = candidates[0].path if len(candidates) == 1 else None
            return [], classify(exc, path, "timing"), None
        changed = mutated_inputs(loaded, timing=True)
        if changed:
            return [], Verdict(Outcome.WRONG_RESULT, f"while timing: {changed}"), None
        return samples, verdict, calls[0]

    def retime(self, paths: Sequence[Path], *, calls_per_sample: int | None = None) -> list[BenchReply]:
        """Check each candidate again, then time those that pass interleaved (ABBA rounds), on the CPU all at one
        count of calls per sample (``calls_per_sample``, the session's; ``None``: the smallest of theirs)."""
        loaded, peak = self.loaded, self.peak
        assert loaded is not None and peak is not None
        self._release_checked(0)  # the rounds are over: what was kept for a timing is not timed now
        peak.reset()
        ready: list[tuple[Path, LoadedCandidate, Verdict]] = []
        replies: dict[Path, BenchReply] = {}
        for path in paths:
            candidate, verdict = run_candidate(loaded, path)
            if candidate is None:
                recover(loaded, verdict)
                replies[path] = self._reply(path, verdict)
            else:
                ready.append((path, candidate, verdict))
        try:
            if ready:
                self._retime_ready(ready, replies, calls_per_sample)
        finally:
            for _, candidate, _ in ready:
                candidate.release()
        return [replies[p] for p in paths]

    def _retime_ready(
        self,
        ready: list[tuple[Path, LoadedCandidate, Verdict]],
        replies: dict[Path, BenchReply],
        calls_per_sample: int | None,
    ) -> None:
        from kernelopt.harness.timers import abba_order

        t0 = time.perf_counter()
        order = abba_order(len(ready), self.plan.retime_rounds)
        methods: list[str] = []
        samples, failed, calls = self._time(
            [c for _, c, _ in ready], ready[0][2], order, calls_per_sample, methods=methods
        )
        bench_s = time.perf_counter() - t0
        for k, (path, _, verdict) in enumerate(ready):
            if failed.outcome is not Outcome.OK:
                reason = f"re-timed with {len(ready)} others: {failed.reason}"
                replies[path] = self._reply(path, Verdict(failed.outcome, reason), bench_s=bench_s)
                continue
            replies[path] = self._reply(
                path,
                verdict,
                latency_us=statistics.median(samples[k]),
                samples_us=samples[k],
                bench_s=bench_s,
                calls_per_sample=calls,
                timing=methods[k] if k < len(methods) else None,
            )

    def close(self) -> None:
        self._release_checked(0)
        if self.loaded is not None:
            self.derived.release(self.loaded.device)
        self.loaded = None
