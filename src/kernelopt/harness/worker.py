"""The harness worker: ``python -m kernelopt.harness.worker JOB.json``.

Runs inside a fresh process that the orchestrator started in its own process group (see
:mod:`kernelopt.harness.runner`). It imports torch and the user's kernel.py / reference.py, reports
its phases to the progress file, and writes a :class:`~kernelopt.harness.model.WorkerResult`. A
candidate that raises, returns wrong results, mutates its inputs or caches results is a *result*
(``failure``); the orchestrator handles crashes and hangs, which this process cannot report itself.

User code is called only inside the ``_user`` boundaries below; an exception there becomes a
failure with its class and traceback. Exit code 0 means a result was written; 3 means the
environment is unusable (a requested CUDA device that does not exist).
"""

from __future__ import annotations

import math
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from kernelopt.env import EnvSettings, interpret_here, use_build_folders
from kernelopt.fileio import atomic_write_text
from kernelopt.harness import highrun
from kernelopt.harness.branches import Line, LineTrace, OwnCode, other_lines, shown_lines
from kernelopt.harness.draws import OTHER_STATE_SEED, drew, generator_states, same_draws
from kernelopt.harness.first_call import first_call_line, watch_benchmarks
from kernelopt.harness.footprint import (
    CheckPlacement,
    Keep,
    Snapshot,
    margin_bytes,
    place_check,
    size_text,
)
from kernelopt.harness.hints import FIRST_CALL_ONLY
from kernelopt.harness.hostmem import InputsDoNotFit, is_out_of_memory
from kernelopt.harness.interpreter import patch_interpreter, patch_wrap_triton
from kernelopt.harness.model import (
    CHECK_DOES_NOT_FIT,
    COMPILED_REFERENCE_LABEL,
    REFERENCE_LABEL,
    SIZE_REMEDY,
    BenchSettings,
    CaseCheck,
    CaseTiming,
    Culprit,
    Failure,
    JobMode,
    KernelSource,
    TimingMethod,
    VersionTiming,
    WorkerJob,
    WorkerResult,
    shape_label,
)
from kernelopt.harness.own_fault import harness_failed, own_frame
from kernelopt.harness.patches import (
    active_modes,
    checker_replaced,
    checker_snapshot,
    mode_ids,
    module_replaced,
    module_snapshot,
    own_subclasses,
    replaced,
    snapshot,
)
from kernelopt.harness.progress import STEP_WORDS, Phase, ProgressWriter, Step
from kernelopt.harness.tolerance import reference_tolerance
from kernelopt.jsontext import dump_json, load_json
from kernelopt.kernelsource import (
    INTERPRETER_MAX_SIZE_TEXT,
    KernelForm,
    input_list,
    interpreted_cases,
    runs_in_interpreter,
    shape_size,
)
from kernelopt.oneline import first_line
from kernelopt.proc import die_with_parent, exit_process
from kernelopt.vocabulary import Device

if TYPE_CHECKING:
    from kernelopt.harness.compare import OutputCheck
    from kernelopt.harness.inplace import InPlaceContract, InputSnapshot

EXIT_ENVIRONMENT = 3
DEVICE_UNAVAILABLE_PREFIX = "kernelopt worker: "
"""How the worker's last stderr line starts when it exits with :data:`EXIT_ENVIRONMENT` itself: user code that
calls ``os._exit(3)`` leaves no such line, and its run is a crash of that code, not a missing device."""
RUN_SEED_BASE = 1000
"""Our choice: the random state (``torch.manual_seed``) each run of a check's seed ``s`` starts from is this plus
``s``; apart from the seeds that build the inputs, so a run's draws are not the inputs' draws again."""
TRACEBACK_LIMIT_CHARS = 4000


class DeviceUnavailable(Exception):
    """The requested device does not exist in this process (an environment problem, exit code 3)."""


class CandidateFailed(Exception):
    """Raised inside the worker to stop at the first failure; carries the :class:`Failure`."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


class _GraphMissed(Exception):
    """Raised by :func:`_check_timed_output` where a CUDA graph's output differed from the reference and an eager call
    on the same inputs matched it: the graph missed part of a correct kernel's work (timing21 y2); carries the line the
    version's re-timing says."""


@dataclass
class _Loaded:
    source: KernelSource
    pair: Any  # KernelPair
    fn: Callable[..., Any] | None = None


@dataclass
class _Ctx:
    job: WorkerJob
    progress: ProgressWriter
    device: str
    result: WorkerResult
    compile_s: float = 0.0
    compile_t0: float | None = None
    compile_depth: int = 0  # compiles open now (a Triton JIT inside a torch.compile is one pause)
    warned: dict[str, str] = field(default_factory=dict)  # each warning said, by its key
    interpreted: bool = False  # the kernels imported Triton and run in its interpreter on the CPU
    torch_callables: dict[str, int] = field(default_factory=dict)  # harness.patches.snapshot before kernel.py
    checker_callables: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # patches.checker_snapshot, likewise
    modes_before: set[int] = field(default_factory=set)  # patches.mode_ids: the torch modes its caller had entered
    reference_module: Any = None  # reference.py's module, as kernel.py finds it in sys.modules
    reference_bindings: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # patches.module_snapshot, likewise
    import_rng: Any = None  # torch's CPU random state as reference.py was imported (a fresh import starts from it)
    at: Step | None = None  # the step said last (:meth:`step`): what an error of kernelopt's own code was around

    def warn_once(self, key: str, text: str) -> None:
        if key not in self.warned:
            self.warned[key] = text
            self.result.warnings.append(text)

    def unsay(self, key: str) -> None:
        """Take back the warning said under ``key`` (its cause turned out to be another, said in its place)."""
        text = self.warned.pop(key, None)
        if text is not None and text in self.result.warnings:
            self.result.warnings.remove(text)

    def step(self, step: Step) -> None:
        """Say what the current case or timing phase does from now on (the per-phase seconds; whose code a
        kill there was in)."""
        self.at = step
        self.progress.emit("step", step=step.value)

    def inputs_on_host(self, text: str) -> None:
        """``get_inputs()`` could not run with the device as the default device (said once per run)."""
        self.warn_once("inputs-on-host", text)


def _tb(exc: BaseException) -> str:
    text = "".join(traceback.format_exception(exc))
    return text[-TRACEBACK_LIMIT_CHARS:]


def _first_line(exc: BaseException) -> str:
    return first_line(str(exc), 300)


def _failure(
    where: str,
    what: str,
    exc: BaseException,
    *,
    case: int | None,
    version: str | None,
    culprit: Culprit,
    out_of_memory: Culprit | None = None,
) -> Failure:
    detail = _first_line(exc)
    if isinstance(exc, InputsDoNotFit):
        # our refusal before get_inputs ran for real, not something it raised: the check cannot run on this machine
        # (the checker's, exit 3 in every command, as `tune` says it), never a fault of reference.py; no traceback
        # of our own refusal
        return Failure(
            message=f"{where}: {exc}",  # our own line, whole: its figures and its remedy come last
            error_class=type(exc).__name__,
            case=case,
            version=version,
            culprit=Culprit.CHECKER,
        )
    if out_of_memory is not None and is_out_of_memory(exc):
        # numpy's or torch's allocator refused while the case was built (numpy allocates where no count sees it
        # first): the memory of the machine it runs on, as the host's refusal is and as `tune` says it
        return Failure(
            message=f"{where}: {CHECK_DOES_NOT_FIT}: {what} ran out of it ({type(exc).__name__}: {detail}); "
            f"{SIZE_REMEDY}",
            error_class=type(exc).__name__,
            case=case,
            version=version,
            traceback=_tb(exc),
            culprit=out_of_memory,
        )
    own = own_frame(exc) if culprit is Culprit.PROBLEM else None
    if (
        own is not None
    ):  # kernelopt's own call failed inside the problem's boundary: not the problem's, not the kernel's
        return Failure(
            message=harness_failed(where, what, f"{type(exc).__name__}" + (f": {detail}" if detail else ""), own),
            error_class=type(exc).__name__,
            case=case,
            version=version,
            traceback=_tb(exc),
            culprit=Culprit.CHECKER,
        )
    msg = f"{where}: {what} raised {type(exc).__name__}" + (f": {detail}" if detail else "")
    return Failure(
        message=msg, error_class=type(exc).__name__, case=case, version=version, traceback=_tb(exc), culprit=culprit
    )


@contextmanager
def _user(
    where: str,
    what: str,
    *,
    case: int | None = None,
    version: str | None = None,
    culprit: Culprit = Culprit.KERNEL,
    out_of_memory: Culprit | None = None,
) -> Iterator[None]:
    """Boundary around user code: any exception it raises becomes a :class:`CandidateFailed`, blamed on
    ``culprit`` (reference.py's code is the problem's: an ERROR of the problem, not a FAIL of the kernel), or on
    ``out_of_memory`` when it is an out-of-memory error (building a case's inputs: the machine's, not the code's)."""
    try:
        yield
    except CandidateFailed:
        raise
    except (Exception, SystemExit) as exc:  # user code may raise anything; it is a result, not our bug
        failure = _failure(where, what, exc, case=case, version=version, culprit=culprit, out_of_memory=out_of_memory)
        raise CandidateFailed(failure) from exc


def resolve_device(requested: str | None) -> str:
    """``requested``, else KERNELOPT_DEVICE, else ``cuda`` when torch sees a GPU, else ``cpu``.

    Raises:
        DeviceUnavailable: a CUDA device was requested and torch has none, or the name is unknown.
    """
    import torch

    device = requested or EnvSettings.read().device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise DeviceUnavailable(f"device {device!r} requested but torch sees no CUDA/ROCm GPU")
    if Device.of(device) is None:
        raise DeviceUnavailable(f"unknown device {device!r} (use cuda or cpu)")
    return device


def _version_env(source: KernelSource) -> None:
    """Point Triton's cache and torch's extension builds at this version's own folder."""
    build = Path(source.build_dir)
    (build / "triton").mkdir(parents=True, exist_ok=True)
    (build / "torch_extensions").mkdir(parents=True, exist_ok=True)
    use_build_folders(build / "triton", build / "torch_extensions")


_ACTIVE: list[_Ctx] = []  # the run the Triton hooks report to (one at a time; empty between runs)


def _compile_started() -> None:
    """A compile began in the active run: the first of any open ones pauses the case clock (``compile_start``)."""
    if not _ACTIVE:
        return
    ctx = _ACTIVE[-1]
    if ctx.compile_depth == 0:
        ctx.compile_t0 = time.monotonic()
        ctx.progress.emit("compile_start")
    ctx.compile_depth += 1


def _compile_ended() -> None:
    """A compile ended: the last of the open ones resumes the clock (``compile_end``) and adds to ``compile_s``."""
    if not _ACTIVE or _ACTIVE[-1].compile_depth == 0:
        return
    ctx = _ACTIVE[-1]
    ctx.compile_depth -= 1
    if ctx.compile_depth == 0:
        if ctx.compile_t0 is not None:
            ctx.compile_s += time.monotonic() - ctx.compile_t0
            ctx.compile_t0 = None
        ctx.progress.emit("compile_end")


_DYNAMO_HOOKED: list[bool] = []  # torch.compile's callbacks registered in this process


def _install_compile_hooks() -> None:
    """Report Triton JIT compilations and torch.compile's (dynamo's compile callbacks, when torch._dynamo is
    imported: a kernel written with ``@torch.compile``) as ``compile_start`` / ``compile_end`` so they pause the case
    clock: a torch.compile'd kernel compiling at its first call on the CPU (Inductor's C++, 30 s and more on a loaded
    machine) was "TIMEOUT_FAIL: case 0 ran past the per-case limit of 30 s ...; the kernel hangs" (newuser16 n100).

    Installed once per process, chaining any hooks already set; they report to the active run only.
    """
    callback = sys.modules.get("torch._dynamo.callback")
    handler = getattr(callback, "callback_handler", None)
    if handler is not None and not _DYNAMO_HOOKED and hasattr(handler, "register_start_callback"):
        handler.register_start_callback(lambda _args: _compile_started())
        handler.register_end_callback(lambda _args: _compile_ended())
        _DYNAMO_HOOKED.append(True)
    triton = sys.modules.get("triton")
    runtime = getattr(getattr(triton, "knobs", None), "runtime", None)
    if runtime is None or getattr(runtime, "_kernelopt_hooked", False):
        return
    prev_start, prev_end = runtime.jit_cache_hook, runtime.jit_post_compile_hook

    def on_start(**kwargs: Any) -> Any:
        _compile_started()
        return prev_start(**kwargs) if prev_start else None

    def on_end(**kwargs: Any) -> Any:
        _compile_ended()
        return prev_end(**kwargs) if prev_end else None

    runtime.jit_cache_hook = on_start
    runtime.jit_post_compile_hook = on_end
    runtime._kernelopt_hooked = True


def _load(ctx: _Ctx) -> list[_Loaded]:
    """Import reference.py (phase ``reference``) and every kernel version (phase ``load``)."""
    from kernelopt.harness.loader import KernelPair, check_shapes, load_module, pair_of

    job = ctx.job
    loaded: list[_Loaded] = []
    first = job.kernels[0]
    _version_env(first)
    # reference.py's import is timed on its own (the start-up limit): one that hangs is said at once
    ctx.progress.phase(Phase.REFERENCE)
    import torch

    ctx.import_rng = torch.get_rng_state()
    with _user("loading", "reference.py", version=first.label, culprit=Culprit.PROBLEM):
        # the problem's sizes are substituted as the file runs: whatever it derives from them follows
        reference = load_module(Path(job.reference_py), overrides=job.constants)
        check_shapes(reference)
    ctx.torch_callables = snapshot()  # before kernel.py runs: a patch of torch's operators is found against it
    ctx.checker_callables = checker_snapshot()  # and one of kernelopt's own (the checker, the timers)
    ctx.modes_before = mode_ids()  # and the torch modes already active (a caller's, never kernel.py's)
    ctx.reference_module, ctx.reference_bindings = reference, module_snapshot(reference)  # and reference.py's (b29)
    ctx.progress.phase(Phase.LOAD)
    with _user("loading", "kernel.py", version=first.label):
        pair = pair_of(load_module(Path(first.kernel_py)), reference)
    loaded.append(_Loaded(first, pair))
    for source in job.kernels[1:]:
        _version_env(source)
        with _user("loading", "kernel.py", version=source.label):
            module = load_module(Path(source.kernel_py))
        loaded.append(
            _Loaded(source, KernelPair(kernel=module, reference=pair.reference, form=pair.form, shapes=pair.shapes))
        )
    ctx.result.form = pair.form
    ctx.result.n_shapes = len(pair.shapes)
    if any("torch.compile" in Path(item.source.kernel_py).read_text(errors="replace") for item in loaded):
        import torch._dynamo.callback  # a kernel that compiles at its first call: its compile callbacks
    _install_compile_hooks()
    return loaded


def _instantiate(ctx: _Ctx, item: _Loaded, seed: int = 0) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """(candidate, reference) callables; KernelBench models are built under the same seed."""
    import torch

    pair = item.pair
    _version_env(item.source)
    with _user("setup", "reference.py Model / get_init_inputs", version=item.source.label, culprit=Culprit.PROBLEM):
        torch.manual_seed(seed)
        ref = pair.reference_fn(ctx.device)
    with _user("setup", "kernel.py ModelNew", version=item.source.label):
        torch.manual_seed(seed)
        cand = pair.candidate(ctx.device)
    if pair.form == "kernelbench" and isinstance(ref, torch.nn.Module) and isinstance(cand, torch.nn.Module):
        ref_state, cand_state = ref.state_dict(), cand.state_dict()
        if ref_state.keys() == cand_state.keys() and all(ref_state[k].shape == cand_state[k].shape for k in ref_state):
            cand.load_state_dict(ref_state)  # same weights whatever the initialization order
        # both run in the mode they were built in, training unless the problem says otherwise, as KernelBench's eval
        # runs them (never .eval()): its BatchNorm normalizes by the batch's statistics, and a kernel that does so is
        # right (break21 b42: eval mode took the running statistics, failed it and passed one that left BN out)
    return cand, ref


def _cases(ctx: _Ctx, shapes: Sequence[Mapping[str, Any]]) -> list[int]:
    """The ``SHAPES`` entries to run: the job's, else all of them; in Triton's interpreter (unless the task card
    sets the sizes) only those it can run in seconds (:func:`kernelopt.kernelsource.interpreted_cases`), the
    others named in a warning."""
    n_shapes = len(shapes)
    if ctx.job.cases is not None:
        wanted = ctx.job.cases
    elif ctx.interpreted and not ctx.job.constants:
        wanted = interpreted_cases(shapes)
        # an entry with no number has no known size (kernelsource.shape_size): said as such
        left = [
            shape_label(dict(shapes[i])) + ("" if shape_size(shapes[i]) < math.inf else " (size unknown)")
            for i in range(n_shapes)
            if i not in wanted
        ]
        if left:
            ctx.warn_once(
                "interpreted-cases",
                f"Triton's interpreter on the CPU: SHAPES entries too large for it (over {INTERPRETER_MAX_SIZE_TEXT}) "
                f"were not run ({'; '.join(left)})",
            )
    else:
        wanted = list(range(n_shapes))
    for i in wanted:
        if not 0 <= i < n_shapes:
            raise CandidateFailed(
                Failure(message=f"no case {i}: reference.py SHAPES has {n_shapes} entries", error_class="UsageError")
            )
    return wanted


# -- sizes -------------------------------------------------------------------------------------


def _sizes(ctx: _Ctx) -> None:
    """``size`` mode: reference.py as written must import; then each candidate set of sizes in turn is
    substituted, the model and the first case's inputs built and the reference run once, until one runs
    (``result.size_choice``); why each other one did not is ``result.size_failures``. When none runs, the
    model as written is built on the meta device (no memory): one that cannot be built is the failure."""
    import torch

    from kernelopt.harness.inputs import build_inputs
    from kernelopt.harness.loader import check_shapes, load_module, pair_of, unload
    from kernelopt.harness.timers import synchronize

    job = ctx.job
    path = Path(job.reference_py)
    ctx.progress.phase(Phase.REFERENCE)
    with _user("loading", "reference.py"):
        plain = load_module(path)
        check_shapes(plain)
    unload(plain)
    errors: list[str] = []  # each size's error, as "Class: first line"
    for i, constants in enumerate(job.size_candidates):
        label = ",".join(f"{k}={v}" for k, v in constants.items())
        ctx.progress.phase(Phase.CASE, case=i, label=label)
        ctx.step(Step.REFERENCE)
        module = None
        try:
            with _user("sizes", f"reference.py at {label}"):
                module = load_module(path, overrides=constants)
                pair = pair_of(module, module)
                torch.manual_seed(0)
                ref = pair.reference_fn(ctx.device)
                ref(*build_inputs(pair, pair.shapes[0], ctx.device, 0, on_host=ctx.inputs_on_host))
                synchronize(ctx.device)
        except CandidateFailed as failed:
            ctx.result.size_failures.append(failed.failure.message)
            cause = failed.__cause__
            errors.append(
                f"{type(cause).__name__}: {_first_line(cause)}" if cause is not None else failed.failure.message
            )
            continue
        finally:
            if module is not None:
                unload(module)
            if ctx.device.startswith("cuda"):
                torch.cuda.empty_cache()
        ctx.result.size_choice = i
        return
    if job.size_candidates:  # none ran: a model that cannot be built as written is the file's defect, not the sizes'
        with _user("setup", "reference.py Model / get_init_inputs (as written, on the meta device)"):
            pair = pair_of(plain, plain)
            with torch.device("meta"):
                ref = pair.reference_fn(None)
        _fails_as_written(pair, ref, errors)


def _fails_as_written(pair: Any, ref: Callable[..., Any], errors: list[str]) -> None:
    """The reference as written, run on the meta device (shapes only, no memory): when it raises what it raised
    at every size tried, that is its own failure, not the sizes' (a :class:`CandidateFailed` of the problem).
    One that runs there, or fails otherwise (an operation the meta device lacks), leaves the sizes blamed."""
    import torch

    if not errors or len(set(errors)) != 1:
        return
    try:
        with torch.device("meta"):
            torch.manual_seed(0)
            ref(*input_list(pair.reference.get_inputs(**pair.shapes[0])))
    except (Exception, SystemExit) as exc:  # the problem's own code; compared with what it raised before
        said = f"{type(exc).__name__}: {_first_line(exc)}"
        if said == errors[0]:
            raise CandidateFailed(
                Failure(
                    message=f"the reference raised {said} at every size tried and as written: its own failure, "
                    "not the sizes'",
                    error_class=type(exc).__name__,
                    traceback=_tb(exc),
                    culprit=Culprit.PROBLEM,
                )
            ) from exc


# -- correctness -------------------------------------------------------------------------------


def _reference_high(
    ref: Callable[..., Any], inputs: list[Any], ctx: _Ctx, cache: dict[Any, Any], seed: int, traced: OwnCode
) -> tuple[Any, str, set[Line]]:
    """The reference in float64 (else float32) on upcast inputs (:func:`kernelopt.harness.highrun.run_high`, the
    tuning engine's run too); native when neither runs. Each attempt starts from the random state ``seed``. Also
    the lines of the reference's own code (``traced``) the run that answered executed."""
    import torch

    from kernelopt.harness.inputs import clone_tree

    high = highrun.run_high(ref, inputs, cache, seed=seed, own=traced)
    if high is not None:
        return high.outputs, high.precision, high.lines
    ctx.warn_once("native-ref", "the reference could not run in float64 or float32; compared in its own dtype")
    torch.manual_seed(seed)
    return ref(*clone_tree(inputs)), "native", set()


def _check(ctx: _Ctx, loaded: list[_Loaded]) -> None:
    """Check the current version on every case: each seed's outputs against the reference's."""
    import torch

    item = loaded[0]
    cand, ref = _instantiate(ctx, item)
    reference = item.pair.reference
    subject = _Checked(
        item.pair,
        cand,
        ref,
        *reference_tolerance(reference),
        own=OwnCode(getattr(reference, "__file__", None)),
    )
    for i in _cases(ctx, item.pair.shapes):
        _check_case(ctx, subject, i)
        if ctx.device.startswith("cuda"):
            torch.cuda.empty_cache()


@dataclass
class _Checked:
    """What :func:`_check` compares: the kernel and the reference of one version, reference.py's tolerances
    (``None``: the dtype's), the reference's upcast copies (by dtype) the high-precision reference runs, and
    whether the float64 run of a reference that draws random numbers draws the same ones (``None``: not yet known)."""

    pair: Any  # KernelPair
    cand: Callable[..., Any]
    ref: Callable[..., Any]
    atol: float | None
    rtol: float | None
    hi_cache: dict[Any, Any] = field(default_factory=dict)
    same_draws: bool | None = None
    own: OwnCode = field(default_factory=lambda: OwnCode(None))
    calls: int = 0  # the reference's own-dtype runs so far (the first has no earlier call to depend on)


def _check_case(ctx: _Ctx, subject: _Checked, i: int) -> None:
    """Case ``i`` with every seed; its :class:`CaseCheck` is added to the result, ``passed`` once all pass.

    Raises:
        CandidateFailed: at the first seed that fails (the case's message says why); the device out of memory
            in the checker's own work (outside the kernel's and the reference's code) is the checker's
            (:attr:`Culprit.CHECKER`), never the kernel's.
    """
    import torch

    from kernelopt.harness.hints import Hint, failure_class, hint_fits
    from kernelopt.harness.inplace import fingerprint
    from kernelopt.harness.inputs import PERMUTED_NOTE

    label = shape_label(subject.pair.shapes[i])
    ctx.progress.phase(Phase.CASE, case=i, label=label)
    cc = CaseCheck(index=i, label=label)
    ctx.result.cases.append(cc)
    first_prints: list[tuple[int, int, int]] | None = None  # seed 0's inputs, as checksums: no copy kept
    previous: _Seen | None = None  # the kernel's and the reference's outputs of the seed before
    for s in range(ctx.job.seeds):
        where = f"case {i} ({label})" + (f", seed {s}" if s else "")
        if s:  # a test case of its own inputs: its own per-case clock (the run's limit bounds the seeds together)
            ctx.progress.phase(Phase.CASE, case=i, label=label, seed=s)
        try:
            ctx.progress.emit("check_start")  # building the inputs is the problem's work, not the kernel's
            ctx.step(Step.INPUTS)
            inputs, permuted = _seed_inputs(ctx, subject.pair, i, s, first_prints, where, label)
            if s == 0 and ctx.job.seeds > 1:
                first_prints = fingerprint(_floating(inputs))
            try:
                previous = _check_seed(ctx, subject, cc, inputs, previous, where, last=s == ctx.job.seeds - 1)
            except CandidateFailed as exc:
                failed = failure_class(exc.failure.error_class, exc.failure.culprit)
                if permuted and hint_fits(Hint.PERMUTED, failed):  # failed on inputs the harness made: it says how
                    exc.failure.message = cc.message = f"{exc.failure.message}; {PERMUTED_NOTE}"
                raise
        except torch.OutOfMemoryError as exc:  # not in user code (that is a CandidateFailed): the checker's own
            cc.passed = False
            cc.message = f"{where}: {CHECK_DOES_NOT_FIT}: the checker's own work ran out of it ({_first_line(exc)})"
            raise CandidateFailed(
                Failure(
                    message=cc.message,
                    error_class="CheckDoesNotFit",
                    case=i,
                    traceback=_tb(exc),
                    culprit=Culprit.CHECKER,
                )
            ) from exc
        finally:
            inputs = None  # type: ignore[assignment]  # the next seed builds its own: these go first
    cc.passed = True


def _floating(inputs: list[Any]) -> list[Any]:
    """The floating-point tensors of ``inputs`` (what :func:`~kernelopt.harness.inputs.same_values` compares)."""
    from kernelopt.harness.inputs import tensors_in

    return [t for t in tensors_in(inputs) if t.is_floating_point()]


def _seed_inputs(
    ctx: _Ctx, pair: Any, i: int, s: int, first_prints: list[tuple[int, int, int]] | None, where: str, label: str
) -> tuple[list[Any], bool]:
    """Seed ``s``'s inputs of case ``i``, and whether they are seed 0's permuted (``get_inputs()`` returned seed
    0's again: the checksums of its floating inputs, ``first_prints``, are seed 0's): a warning when seed 0's
    are all zeros (skipped work may pass)."""
    from kernelopt.harness.inplace import fingerprint
    from kernelopt.harness.inputs import all_zero_inputs, build_inputs, rerandomize

    with _user(where, "reference.py get_inputs", case=i, culprit=Culprit.PROBLEM, out_of_memory=Culprit.CHECKER):
        inputs = build_inputs(pair, pair.shapes[i], ctx.device, seed=s, on_host=ctx.inputs_on_host)
    if s == 0:
        zeros = all_zero_inputs(inputs)
        if zeros:
            ctx.warn_once(
                f"zeros{i}",
                f"case {i} ({label}): input(s) {zeros} are all zeros, so skipped work may go unnoticed",
            )
    elif first_prints and fingerprint(_floating(inputs)) == first_prints:
        ctx.warn_once(
            "rerandomized",
            "get_inputs() returns the same values for every seed and takes no seed; seeds 1+ use seed 0's inputs "
            "with their rows (first dimension) permuted",
        )
        return rerandomize(inputs, s), True
    return inputs, False


@dataclass
class _Seen:
    """A seed's outputs, kept for the next seed's cached-result check without a copy: the checksums of the
    kernel's and the reference's outputs, their shapes and dtypes, and weak references to the kernel's (alive
    only while the kernel itself keeps them, so the same storage returned again is told from a reused address)."""

    out_prints: list[tuple[int, int, int]]
    out_layout: list[tuple[tuple[int, ...], str]]
    ref_prints: list[tuple[int, int, int]]
    out_refs: list[Any]

    @classmethod
    def of(cls, out: Any, ref_prints: list[tuple[int, int, int]]) -> _Seen:
        import weakref

        from kernelopt.harness.inplace import fingerprint
        from kernelopt.harness.inputs import tensors_in

        tensors = tensors_in(out)
        return cls(fingerprint(out), _layout(out), ref_prints, [weakref.ref(t) for t in tensors])

    def same_storage(self, out: Any) -> bool:
        from kernelopt.harness.inputs import tensors_in

        now = tensors_in(out)
        before = [r() for r in self.out_refs]
        return (
            bool(now)
            and len(now) == len(before)
            and all(
                b is not None and a.data_ptr() == b.data_ptr() and a.numel() > 0
                for a, b in zip(now, before, strict=True)
            )
        )


def _layout(obj: Any) -> list[tuple[tuple[int, ...], str]]:
    from kernelopt.harness.inputs import tensors_in

    return [(tuple(t.shape), str(t.dtype)) for t in tensors_in(obj)]


def _peak_start(device: str) -> int | None:
    """Start measuring the peak of the device's allocated memory; the bytes allocated now (``None``: the CPU)."""
    if not device.startswith("cuda"):
        return None
    import torch

    torch.cuda.reset_peak_memory_stats(torch.device(device))
    return int(torch.cuda.memory_allocated(torch.device(device)))


def _peak_above(device: str, start: int | None) -> int | None:
    """The peak of the device's allocated memory since :func:`_peak_start`, above what was allocated then."""
    if start is None:
        return None
    import torch

    return max(0, int(torch.cuda.max_memory_allocated(torch.device(device))) - start)


def _park(obj: Any, keep: Keep) -> Any:
    """``obj`` with its tensors on the host when ``keep`` says so (they wait there while the kernel runs)."""
    from kernelopt.harness.inputs import map_tensors

    return obj if keep is Keep.DEVICE else map_tensors(obj, lambda t: t.detach().to("cpu"))


def _check_seed(
    ctx: _Ctx,
    subject: _Checked,
    cc: CaseCheck,
    inputs: list[Any],
    previous: _Seen | None,
    where: str,
    *,
    last: bool = True,
) -> _Seen | None:
    """Run the reference and the kernel (on poisoned output memory) on one seed's inputs and check the kernel:
    inputs left untouched, outputs within tolerance, no stale output of the seed before (a cached result).
    The worst errors so far are kept in ``cc``. What the checker keeps meanwhile, and where, is placed by the
    device's free memory (:func:`kernelopt.harness.footprint.place_check`). Returns what the next seed's
    cached-result check needs of this one (``None`` after the ``last`` seed).

    Raises:
        CandidateFailed: the kernel or the reference raised, or a check failed.
    """
    from kernelopt.harness.inplace import fingerprint
    from kernelopt.harness.inputs import tensors_in
    from kernelopt.harness.timers import synchronize

    ctx.progress.emit("check_start")  # the checker's work is not the kernel's: it pauses the case clock
    _fail_if_torch_patched(ctx, cc, where)  # at import or in ModelNew(): the reference would run the patch too
    ctx.step(Step.REFERENCE)
    # Each run of the seed starts from the same random state (as KernelBench's eval seeds the reference and the
    # kernel alike): a reference that draws random numbers (dropout in training mode) draws the same ones in its
    # own dtype, in float64 and in the kernel, so its randomness is neither read as its own rounding error (which
    # widens the tolerance) nor charged to a kernel that draws the same way.
    run_seed = RUN_SEED_BASE + cc.seeds
    ref = _run_reference(ctx, subject, cc, inputs, where, run_seed)
    cc.reference_precision = ref.precision
    ctx.step(Step.CHECK)
    _fail_if_reference_not_finite(cc, ref.native, where)
    made_on = tensors_in(ref.native)[0].device.type if tensors_in(ref.native) else None
    ref_prints = fingerprint(ref.native) if not last else []
    kept = _kept_for_kernel(ctx, subject, ref, inputs)
    contract, random, ref_free = ref.contract, ref.random, ref.free_bytes
    synchronize(ctx.device)
    ctx.progress.emit("check_end")
    ctx.step(Step.KERNEL)
    with watch_benchmarks() as benchmarked:
        out = _run_kernel(ctx, subject, cc, inputs, where, run_seed, kept, ref_free)
    kernel_drew = _drew_since(ctx, run_seed)
    cc.seeds += 1
    ctx.progress.emit("check_start")
    ctx.step(Step.CHECK)
    assert kept.saved is not None
    ref_native, ref_hi = kept.native, kept.hi
    _fail_if_inputs_changed(ctx, cc, kept.saved, inputs, where, contract, subject)
    _fail_if_torch_patched(ctx, cc, where)  # in forward: the next seed's reference would run the patch
    _fail_if_own_subclass(ctx, cc, out, where, ref_native)
    seen = None if last else _Seen.of(out, ref_prints)
    if contract.whole_result:  # an op in place returning nothing: its inputs, checked above, are its result
        ctx.progress.emit("check_end")
        return seen
    run = _SeedRun(inputs, run_seed, made_on, kept, ref_native, ref_hi, ref_random=random, kernel_drew=kernel_drew)
    chk = _checked(ctx, subject, run, out)
    ctx.progress.emit("check_end")
    _keep_worst(cc, chk)
    if chk.message is not None:
        _fail_if_not_the_kernels(ctx, subject, cc, chk, run, out, previous, where)
        if benchmarked:  # an autotuner benchmarked on these tensors: is the next call right?
            del out
            again = _run_kernel(ctx, subject, cc, inputs, where, run_seed, kept, ref_free)
            if _checked(ctx, subject, run, again).message is None:
                _fail_case(ctx, cc, f"{where}: {first_call_line(benchmarked, chk.message)}", FIRST_CALL_ONLY)
        _fail_case(ctx, cc, f"{where}: {chk.message}", chk.error_class or "Mismatch")
    return seen


@dataclass
class _SeedRun:
    """One seed's run as the check of the kernel's outputs reads it: the inputs, the random state the runs started
    from, the device type the reference's outputs were made on, what the check kept of the reference, and whether the
    reference drew random numbers and the kernel drew any. The reference's outputs are those the check kept when the
    kernel had run (:class:`_Kept` may park its own on the host later, to give a second call room)."""

    inputs: list[Any]
    run_seed: int
    made_on: str | None
    kept: _Kept
    ref_native: Any
    ref_hi: Any
    ref_random: bool
    kernel_drew: bool


def _checked(ctx: _Ctx, subject: _Checked, run: _SeedRun, got: Any) -> OutputCheck:
    """The kernel's outputs ``got`` on the seed's inputs against the reference's (a second call's too)."""
    from kernelopt.harness.compare import check_outputs, inputs_device_type

    return check_outputs(
        got,
        run.ref_native,
        run.ref_hi,
        dtype_hint=ctx.job.dtype_hint,
        atol=subject.atol,
        rtol=subject.rtol,
        prepared=run.kept.prepared,
        device_type=run.made_on,
        inputs_type=inputs_device_type(run.inputs),
        inputs=run.inputs,
    )


def _fail_if_not_the_kernels(
    ctx: _Ctx,
    subject: _Checked,
    cc: CaseCheck,
    chk: OutputCheck,
    run: _SeedRun,
    out: Any,
    previous: _Seen | None,
    where: str,
) -> None:
    """Fail the case with whoever else's fault the outputs' mismatch ``chk`` is, before it is the kernel's: the
    previous seed's output returned again (a cached result), the reference's own randomness, or its output kept from
    its earlier calls."""
    ref_native, left = run.ref_native, run.kept.contract.left
    stale = f"{where}: kernel returned the same output as for the previous, different inputs (a cached result)"
    _fail_if_stale(ctx, cc, out, ref_native, previous, f"{stale}; {chk.message}")
    if run.ref_random and not run.kernel_drew and not left:
        _fail_if_reference_random(ctx, subject, cc, chk, run.inputs, ref_native, where)
    if subject.calls > 1 and not left:
        call = (run.inputs, run.run_seed, run.made_on)
        _fail_if_reference_cached(ctx, subject, cc, chk, call, ref_native, previous, where)


@dataclass
class _ReferenceRun:
    """The reference's run on one seed's inputs (:func:`_run_reference`).

    Attributes:
        native: its outputs in its own dtype.
        hi: its outputs in higher precision, or ``native`` where that run did not fit, took another path or drew
            other numbers.
        precision: the dtype ``hi`` ran in (``float64``, ``float32``), or ``native``.
        contract: what it leaves in the inputs it modifies (an op in place).
        random: whether it drew from the random generators.
        place: where each copy of the check lives while the kernel runs
            (:func:`~kernelopt.harness.footprint.place_check`).
        free_bytes: the device's free memory the reference ran in (its inputs' copy made); ``None`` on the CPU.
        prepared: its outputs' statistics where a rounded run made them (:func:`_rounded_stats`), else ``None``
            (each check reads them itself).
    """

    native: Any
    hi: Any
    precision: str
    contract: InPlaceContract
    random: bool
    place: CheckPlacement
    free_bytes: int | None
    prepared: list[Any] | None = None


def _run_reference(
    ctx: _Ctx, subject: _Checked, cc: CaseCheck, inputs: list[Any], where: str, run_seed: int
) -> _ReferenceRun:
    """Run the reference on a copy of one seed's inputs from the random state ``run_seed``, in its own dtype and,
    where it fits beside the inputs, in higher precision (kept only where that run took the same path and drew the
    same numbers: else its own dtype is the truth), and place what the check keeps by the device's free memory.

    Raises:
        CandidateFailed: the reference raised, or made an output on a device that holds no values (the problem's).
    """
    import torch

    from kernelopt.harness.inplace import InPlaceContract, modified_inputs
    from kernelopt.harness.inputs import clone_tree, other_fill, tensors_in

    # a reference that branches on its dtype computes something else in float64: not its rounding either
    traced = subject.own
    with _user(where, "the reference", culprit=Culprit.PROBLEM):
        torch.manual_seed(run_seed)
        before = generator_states(ctx.device)
        ref_inputs = clone_tree(inputs)
        ref_free = highrun.device_free_bytes(ctx.device)  # the room the reference runs in (its inputs' copy made)
        start = _peak_start(ctx.device)
        with LineTrace(traced) as native_path:
            ref_native = subject.ref(*ref_inputs)
        subject.calls += 1
        peak = _peak_above(ctx.device, start)
        _fail_if_reference_elsewhere(ctx, cc, ref_native, inputs, where)
        # an op in place: what it leaves in its inputs
        contract = InPlaceContract(modified_inputs(inputs, ref_inputs), returns_nothing=ref_native is None)
        del ref_inputs
        random = drew(before, generator_states(ctx.device))
        place = place_check(highrun.check_footprint(highrun.device_free_bytes(ctx.device), inputs, ref_native, peak))
        if place.high:
            ref_hi, precision, hi_lines = _reference_high(subject.ref, inputs, ctx, subject.hi_cache, run_seed, traced)
        else:
            ref_hi, precision, hi_lines = ref_native, "native", set()
            ctx.warn_once(
                "high-does-not-fit",
                f"{where}: {place.high_skipped}: the kernel is checked against the reference in its own dtype with "
                "the dtype's default tolerance",
            )
        if precision != "native" and (
            not _high_took_the_same_path(ctx, subject.own, precision, native_path.lines, hi_lines)
            or (random and not _high_drew_the_same(ctx, subject, inputs, ref_native, ref_hi))
        ):
            ref_hi, precision = ref_native, "native"

        def rerun() -> Any:  # the same run, its fresh memory another byte: integer elements unwritten (x5)
            with other_fill(ctx.device, tensors_in(ref_native)):
                torch.manual_seed(run_seed)
                return subject.ref(*clone_tree(inputs))

        # after the float64 run, which tells a bf16 finfo.max the reference computed from memory it left (r17)
        _fail_if_reference_unwritten(ctx, cc, ref_native, where, ref_hi if precision != "native" else None, rerun)
        prepared = None
        if precision != "native" and not random:
            prepared = _rounded_stats(ctx, subject, (inputs, run_seed), ref_native, ref_hi, native_path.lines, where)
    return _ReferenceRun(ref_native, ref_hi, precision, contract, random, place, ref_free, prepared)


def _rounded_stats(
    ctx: _Ctx, subject: _Checked, run: tuple[list[Any], int], ref_native: Any, ref_hi: Any, lines: set[Any], where: str
) -> list[Any] | None:
    """The statistics of the reference's outputs read with a run rounding as their dtype does without its range
    (:func:`~kernelopt.harness.highrun.run_rounded`), where its own run's error would widen the default tolerance
    and an operation of that run overflowed the dtype: that error is then the overflow's, no rounding (verdicts22 x8:
    an fp16 sum kept at 65504 by ``nan_to_num``, then divided by, left every quotient in range and 1.27x off, and
    widened the tolerance past a kernel 10 % off). ``None`` elsewhere (outputs of no single fp16 or bf16 dtype,
    reference.py's own tolerance, nothing widened, no overflow, a run that fails or takes other lines of the
    reference's code than its own run, ``lines``): the check reads its statistics as before. ``run``: the seed's
    inputs and random state."""
    if subject.atol is not None or subject.rtol is not None:
        return None
    inputs, seed = run
    reading = highrun.rounded_reading(
        subject.ref,
        inputs,
        subject.hi_cache,
        ref_native,
        ref_hi,
        dtype_hint=ctx.job.dtype_hint,
        lines=lines,
        seed=seed,
        own=subject.own,
    )
    if reading is None:
        return None
    stats, dtype = reading
    name = str(dtype).removeprefix("torch.")
    ctx.warn_once(
        "rounded-reference",
        f"{where}: an operation of the reference overflowed {name}'s range (its own run's error there is no rounding): "
        f"the tolerance reads the reference's rounding from a run rounding as {name} does without that range, and "
        "its own run's value is one answer",
    )
    return stats


def _kept_for_kernel(ctx: _Ctx, subject: _Checked, ref: _ReferenceRun, inputs: list[Any]) -> _Kept:
    """What the check keeps of ``ref`` while the kernel runs, where ``ref.place`` puts it (the outputs parked on the
    host, the inputs copied or checksummed), and the output memory poisoned where there is room (else a warning).
    ``ref`` gives up its outputs to it, so that nothing else holds their device copies once they are parked (or
    once :meth:`_Kept.shrink` parks them after an out-of-memory error)."""
    from kernelopt.harness.inplace import InputCopy, InputPrints
    from kernelopt.harness.inputs import poison_device_memory, tensors_in

    place = ref.place
    kept = _Kept(ref.native, ref.hi, ref.contract, ref.prepared)
    ref.native = ref.hi = None  # the kept outputs are the only ones held: parking them gives the device's back
    if place.outputs is Keep.HOST or place.high_output is Keep.HOST:
        kept.park(ctx, subject, place.outputs, place.high_output)
    kept.saved = InputCopy.of(inputs) if place.snapshot is Snapshot.COPY else InputPrints.of(inputs)
    highrun.device_free_bytes(ctx.device)  # what left the device is given back before the poison and the kernel
    if not place.poison or not poison_device_memory(ctx.device, tensors_in(kept.native)):
        ctx.warn_once("no-poison", "not enough GPU memory to poison output memory: unwritten outputs may pass")
    return kept


def _keep_worst(cc: CaseCheck, chk: OutputCheck) -> None:
    """Keep in ``cc`` the first tolerance and output dtype a check read, and the worst errors of its seeds so far."""
    cc.tolerance = cc.tolerance or chk.tolerance
    cc.output_dtype = cc.output_dtype or chk.output_dtype
    for attr in ("rel_err", "max_abs_err", "worst_ratio"):
        new = getattr(chk, attr)
        old = getattr(cc, attr)
        if new is not None and (old is None or new > old):
            setattr(cc, attr, new)


@dataclass
class _Kept:
    """What the check of one seed keeps while the kernel runs: the reference's outputs in its own dtype and in high
    precision, what it leaves in inputs it modifies (``contract``), their statistics when read before they moved to
    the host (``prepared``), and the inputs' snapshot."""

    native: Any
    hi: Any
    contract: Any  # InPlaceContract
    prepared: list[Any] | None = None
    saved: Any = None  # InputCopy | InputPrints
    least: bool = False  # shrunk to the least (:meth:`shrink`)

    def on_device(self) -> bool:
        """Anything of the checker's beside the inputs where the kernel runs (a copy of the inputs, a reference
        output): what :meth:`shrink` would move."""
        from kernelopt.harness.inplace import InputCopy
        from kernelopt.harness.inputs import tensors_in

        if self.least:
            return False
        held = [*tensors_in(self.native), *tensors_in(self.hi), *tensors_in(list(self.contract.left.values()))]
        return isinstance(self.saved, InputCopy) or any(t.device.type != "cpu" for t in held)

    def park(self, ctx: _Ctx, subject: _Checked, outputs: Keep, high_output: Keep) -> None:
        """Move the reference's outputs to the host as ``outputs`` / ``high_output`` say, their statistics read
        on the device first."""
        from kernelopt.harness.compare import prepare_pair

        if self.prepared is None:
            self.prepared = prepare_pair(
                self.native, self.hi, dtype_hint=ctx.job.dtype_hint, atol=subject.atol, rtol=subject.rtol
            )
        hi_is_native = self.hi is self.native
        self.native = _park(self.native, outputs)
        self.hi = self.native if hi_is_native else _park(self.hi, high_output)
        self.contract.left = {j: _park(t, outputs) for j, t in self.contract.left.items()}

    def shrink(self, ctx: _Ctx, subject: _Checked) -> None:
        """The least on the device: the outputs on the host, the inputs' copy a checksum of it."""
        from kernelopt.harness.inplace import InputCopy, InputPrints, fingerprint

        self.park(ctx, subject, Keep.HOST, Keep.HOST)
        if isinstance(self.saved, InputCopy):
            self.saved = InputPrints(fingerprint(self.saved.tensors))
        self.least = True


def _run_kernel(
    ctx: _Ctx,
    subject: _Checked,
    cc: CaseCheck,
    inputs: list[Any],
    where: str,
    run_seed: int,
    kept: _Kept,
    ref_free: int | None,
) -> Any:
    """The kernel's call on one seed's inputs: what it returned.

    A kernel that runs out of device memory while the checker keeps anything beside its inputs on the device is
    called again once with the checker at its least (:meth:`_Kept.shrink`). One that runs out of it with nothing
    of the checker's beside its inputs fails only when it had at least the room the reference ran in
    (``ref_free``); otherwise the check does not fit the device: an ERROR of the checker
    (:attr:`Culprit.CHECKER`), never a FAIL of the kernel.

    Raises:
        CandidateFailed: the kernel raised (its own fault), or the check does not fit the device.
    """
    import torch

    from kernelopt.harness.timers import synchronize

    for attempt in (0, 1):
        try:
            with _user(where, "the kernel", case=cc.index):
                torch.manual_seed(run_seed)
                out = subject.cand(*inputs)
                synchronize(ctx.device)
            return out
        except CandidateFailed as failed:
            if not isinstance(failed.__cause__, torch.OutOfMemoryError) or ref_free is None:
                raise
            if attempt == 0 and kept.on_device():
                kept.shrink(ctx, subject)
                if kept.saved.changed(inputs):  # it wrote into its inputs before it ran out: not called again
                    raise _does_not_fit(
                        cc,
                        f"{where}: {CHECK_DOES_NOT_FIT}: the kernel ran out of it beside the checker's copies, after "
                        "writing into its inputs, so it is not called again",
                        failed,
                    ) from failed.__cause__
                ctx.warn_once(
                    "kernel-retried",
                    f"{where}: the kernel ran out of device memory beside the checker's copies; called again with "
                    "the reference's outputs on the host and the inputs' copy made a checksum",
                )
                continue
            free = highrun.device_free_bytes(ctx.device)
            if free is not None and free + margin_bytes(ref_free) < ref_free:
                raise _does_not_fit(
                    cc,
                    f"{where}: {CHECK_DOES_NOT_FIT}: the kernel ran out of it with {size_text(free)} free, less "
                    f"than the {size_text(ref_free)} the reference ran in ({_first_line(failed.__cause__)})",
                    failed,
                ) from failed.__cause__
            failed.failure.message += (
                f" (with {size_text(free or 0)} of the device free, at least the {size_text(ref_free)} the "
                "reference ran in)"
            )
            raise
    raise AssertionError("unreachable: the second call returns or raises")


def _does_not_fit(cc: CaseCheck, message: str, failed: CandidateFailed) -> CandidateFailed:
    """The checker's ERROR for a check that does not fit the device (the kernel's OOM ``failed`` kept as cause)."""
    cc.passed = False
    cc.message = message
    return CandidateFailed(
        Failure(
            message=message,
            error_class="CheckDoesNotFit",
            case=cc.index,
            traceback=failed.failure.traceback,
            culprit=Culprit.CHECKER,
        )
    )


def _high_took_the_same_path(ctx: _Ctx, own: OwnCode, precision: str, native: set[Line], high: set[Line]) -> bool:
    """Whether the float64 run of the reference executed the lines of its own code (reference.py and the helper
    modules it runs, :class:`~kernelopt.harness.branches.OwnCode`) its own-dtype run executed. When not (a branch
    on the dtype), the kernel is checked against the own-dtype run with the dtype's default tolerance: the other
    branch's result would otherwise be read as the reference's rounding error and widen the tolerance by the
    branch's difference."""
    differ = other_lines(native, high)
    if differ:
        ctx.warn_once(
            "branch-by-dtype",
            f"the reference takes another path in {precision} than in its own dtype ({shown_lines(differ, own)} "
            "ran in one of the two only): the kernel is checked against the reference in its own dtype with the "
            "dtype's default tolerance",
        )
    return not differ


def _high_drew_the_same(ctx: _Ctx, subject: _Checked, inputs: list[Any], ref_native: Any, ref_hi: Any) -> bool:
    """Whether the float64 run of a reference that draws random numbers drew the numbers its own-dtype run drew
    (:mod:`kernelopt.harness.draws`; decided once per check). When not, the kernel is checked against the
    own-dtype run, whose draws it shares, with the dtype's default tolerance: the float64 run's other numbers
    would otherwise be read as the reference's rounding error and widen the tolerance by its noise."""
    import torch

    from kernelopt.harness.inputs import clone_tree

    if subject.same_draws is None:
        torch.manual_seed(OTHER_STATE_SEED)
        other = subject.ref(*clone_tree(inputs))
        subject.same_draws = same_draws(ref_native, ref_hi, other)
        if not subject.same_draws:
            ctx.warn_once(
                "draws-by-dtype",
                "the reference draws random numbers that depend on its dtype (its float64 run drew others): the "
                "kernel is checked against the reference in its own dtype, from the same random state, with the "
                "dtype's default tolerance",
            )
    return subject.same_draws


def _checker_patched(ctx: _Ctx, where: str) -> str | None:
    """What to say when kernel.py replaced a function of kernelopt's own since it was imported; ``None`` when not."""
    names = checker_replaced(ctx.checker_callables) if ctx.checker_callables else []
    if not names:
        return None
    return (
        f"{where}: kernel.py replaced {_shown(names)}, which kernelopt checks and times kernels with: a kernel "
        "computes its result, it never patches the harness"
    )


def _shown(names: list[str]) -> str:
    """The first three of ``names`` and how many more."""
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _reference_patched(ctx: _Ctx, where: str) -> str | None:
    """What to say when kernel.py changed a binding of reference.py's module since it was imported (break19's b29);
    ``None`` when not."""
    if ctx.reference_module is None or not ctx.reference_bindings:
        return None
    names = module_replaced(ctx.reference_module, ctx.reference_bindings)
    if not names:
        return None
    return (
        f"{where}: kernel.py changed reference.py's {_shown(names)}, which the check reads the reference through: a "
        "kernel computes its result, it never patches the reference"
    )


def _mode_left(ctx: _Ctx, where: str) -> str | None:
    """What to say when a torch function or dispatch mode is active between a case's runs (kernel.py entered it:
    the worker's own are entered and left within a call; break19's b31); ``None`` when none is."""
    modes = active_modes(ctx.modes_before)
    if not modes:
        return None
    return (
        f"{where}: kernel.py left torch mode {', '.join(dict.fromkeys(modes))} active, which intercepts every torch "
        "call the reference and the check make: a kernel computes its result, it never patches the reference"
    )


def _fail_if_own_subclass(ctx: _Ctx, cc: CaseCheck, out: Any, where: str, reference_out: Any) -> None:
    """Fail the case when kernel.py returned a tensor of a subclass of its own that answers torch calls itself
    (:func:`~kernelopt.harness.patches.own_subclasses`): every comparison the check makes would be its to answer.
    A class the reference returns too is the kernel's to return."""
    from kernelopt.harness.inputs import tensors_in

    names = own_subclasses(tensors_in(out), tensors_in(reference_out))
    if names:
        _fail_case(
            ctx,
            cc,
            f"{where}: kernel.py returned a tensor of its own subclass {', '.join(names)}, which answers the torch "
            "calls the check compares it with itself: return plain torch.Tensor outputs",
            "TensorSubclass",
        )


def _fail_if_torch_patched(ctx: _Ctx, cc: CaseCheck, where: str) -> None:
    """Fail the case when kernel.py replaced one of torch's operators (:mod:`kernelopt.harness.patches`), a function
    of the checker's own, or a binding of reference.py's."""
    said = _checker_patched(ctx, where) or _reference_patched(ctx, where) or _mode_left(ctx, where)
    if said is not None:
        _fail_case(ctx, cc, said, "CheckerPatched")
    if not ctx.torch_callables:
        return
    names = replaced(ctx.torch_callables)
    if names:
        _fail_case(
            ctx,
            cc,
            f"{where}: kernel.py replaced {_shown(names)}, which the reference calls too: the check would compare the "
            "kernel with itself; call your own function instead of patching torch",
            "TorchPatched",
        )


def _fail_if_reference_elsewhere(ctx: _Ctx, cc: CaseCheck, ref_native: Any, inputs: list[Any], where: str) -> None:
    """Say once that the reference made an output on a device type other than its inputs' (its values are compared
    where the kernel's are: :func:`~kernelopt.harness.compare.reference_device_line`); fail the case as the
    problem's when that device holds no values (``meta``): never the kernel's fault."""
    from kernelopt.harness.compare import ReferenceElsewhere, incomparable_reference_line, reference_device_line

    incomparable = incomparable_reference_line(ref_native)  # a string, an object: nothing to compare (v191)
    if incomparable is not None:
        _fail_case(ctx, cc, f"{where}: {incomparable}", "ReferenceIncomparable", Culprit.PROBLEM)
    try:
        line = reference_device_line(ref_native, inputs)
    except ReferenceElsewhere as exc:
        no_values: str | None = str(exc)
    else:
        no_values = None
    if no_values is not None:
        _fail_case(ctx, cc, f"{where}: {no_values}", "ReferenceDevice", Culprit.PROBLEM)
    if line is not None:
        ctx.warn_once("reference-device", line)


def _fail_if_reference_unwritten(
    ctx: _Ctx, cc: CaseCheck, ref_native: Any, where: str, ref_hi: Any = None, rerun: Callable[[], Any] | None = None
) -> None:
    """Fail the case as the problem's where the reference returned memory it never wrote
    (:func:`~kernelopt.harness.inputs.unwritten_reference_line`, the one rule, ``tune``'s setup's too; ``rerun``: the
    reference once more, its fresh memory another byte, for an integer output holding the pattern as chance does)."""
    from kernelopt.harness.inputs import unwritten_reference_line

    line = unwritten_reference_line(ref_native, ref_hi, rerun)  # ref_hi: its float64 run, where one was kept
    if line is not None:
        _fail_case(ctx, cc, f"{where}: {line}", "ReferenceNotWritten", Culprit.PROBLEM)


def _drew_since(ctx: _Ctx, seed: int) -> bool:
    """Whether anything drew from torch's generators since they were seeded with ``seed`` (the kernel's call); they
    are seeded with it again."""
    import torch

    after = generator_states(ctx.device)
    torch.manual_seed(seed)
    return drew(generator_states(ctx.device), after)


def _fail_if_reference_random(
    ctx: _Ctx, subject: _Checked, cc: CaseCheck, chk: Any, inputs: list[Any], ref_native: Any, where: str
) -> None:
    """Fail the case as the problem's when the kernel, which drew nothing from torch's generators, failed on its values
    against a reference that drew random numbers and whose own output changes with the random state beyond the
    tolerance (:func:`~kernelopt.harness.draws.state_dependence`): the check cannot tell a correct kernel there."""
    from kernelopt.harness.draws import state_dependence
    from kernelopt.harness.hints import FailureClass, failure_class
    from kernelopt.harness.inputs import clone_tree

    if failure_class(chk.error_class) not in (FailureClass.VALUES, FailureClass.CONTENT):
        return
    with _user(where, "the reference", culprit=Culprit.PROBLEM):
        line = state_dependence(
            lambda: subject.ref(*clone_tree(inputs)),
            ref_native,
            dtype_hint=ctx.job.dtype_hint,
            atol=subject.atol,
            rtol=subject.rtol,
        )
    if line is not None:
        _fail_case(ctx, cc, f"{where}: {line}", "ReferenceNondeterministic", Culprit.PROBLEM)


def _fail_if_reference_cached(
    ctx: _Ctx,
    subject: _Checked,
    cc: CaseCheck,
    chk: Any,
    call: tuple[list[Any], int, str | None],
    ref_native: Any,
    previous: _Seen | None,
    where: str,
) -> None:
    """Fail the case as the problem's when the kernel failed on its outputs against a reference that ran before and
    reference.py loaded afresh returns another output on the same inputs (``call``: the inputs, the random state the
    run started from and the device type the reference's outputs were made on): its output came from its earlier
    calls (:mod:`kernelopt.harness.history`), a correct kernel's failure there is never the kernel's. A fresh
    reference agreeing with the one the check used leaves the failure the kernel's (a constant output is a
    legitimate one), and so does one that cannot be loaded again (``torch.library`` registering an op at import)."""
    import torch

    from kernelopt.harness.compare import rerun_differs
    from kernelopt.harness.hints import REFERENCE_CACHED, FailureClass, failure_class
    from kernelopt.harness.history import cached_line
    from kernelopt.harness.inplace import fingerprint
    from kernelopt.harness.inputs import clone_tree
    from kernelopt.harness.loader import loaded_afresh, pair_of

    if failure_class(chk.error_class) not in (FailureClass.VALUES, FailureClass.CONTENT, FailureClass.LAYOUT):
        return
    inputs, run_seed, made_on = call
    try:
        if ctx.import_rng is not None:
            torch.set_rng_state(ctx.import_rng)  # what it draws as it is imported, drawn again
        with loaded_afresh(Path(ctx.job.reference_py), ctx.job.constants) as module:
            torch.manual_seed(0)  # as _instantiate builds it
            fresh = pair_of(subject.pair.kernel, module).reference_fn(ctx.device)  # in its built mode (b42)
            torch.manual_seed(run_seed)
            again = fresh(*clone_tree(inputs))
    except (Exception, SystemExit):  # a file that imports once only (a custom op registered): no verdict of it here
        return
    differs = rerun_differs(
        again, ref_native, dtype_hint=ctx.job.dtype_hint, atol=subject.atol, rtol=subject.rtol, device_type=made_on
    )
    if differs is None:
        return
    same = previous is not None and bool(previous.ref_prints) and fingerprint(ref_native) == previous.ref_prints
    ctx.unsay("branch-by-dtype")  # its float64 run took the cache's other path: not a branch on the dtype
    _fail_case(ctx, cc, f"{where}: {cached_line(differs, same_as_before=same)}", REFERENCE_CACHED, Culprit.PROBLEM)


def _fail_if_reference_not_finite(cc: CaseCheck, ref_native: Any, where: str) -> None:
    """Fail the case as the problem's when a floating output of the reference is NaN or Inf at every element:
    any kernel returning NaN there would pass, so the check would say nothing about the kernel."""
    import torch

    from kernelopt.harness.compare import as_outputs

    for j, out in enumerate(as_outputs(ref_native)):
        floating = isinstance(out, torch.Tensor) and out.is_floating_point() and out.numel()
        # torch has no isfinite of an 8-bit float (fp8 quantization's output, breaker10): read it widened
        if floating and not bool(torch.isfinite(out.float() if out.element_size() == 1 else out).any()):
            cc.passed = False
            cc.message = (
                f"{where}: the reference's output {j} is NaN or Inf at every element ({out.numel()}): "
                "nothing to check the kernel against"
            )
            raise CandidateFailed(
                Failure(message=cc.message, error_class="ReferenceNotFinite", case=cc.index, culprit=Culprit.PROBLEM)
            )


def _fail_if_inputs_changed(
    ctx: _Ctx,
    cc: CaseCheck,
    saved: InputSnapshot,
    inputs: Any,
    where: str,
    contract: InPlaceContract,
    subject: _Checked,
) -> None:
    """Fail the case when the kernel broke the in-place rule (:mod:`kernelopt.harness.inplace`): it wrote into an
    input the reference leaves alone (``saved`` is the inputs' copy from before), or left one the reference
    modifies (``contract``) as it was or unlike what the reference leaves in it."""
    from kernelopt.harness.inplace import input_fault

    fault = input_fault(saved, inputs, contract, dtype_hint=ctx.job.dtype_hint, atol=subject.atol, rtol=subject.rtol)
    if fault is not None:
        _fail_case(ctx, cc, f"{where}: {fault.message}", fault.kind.value)


def _fail_if_stale(ctx: _Ctx, cc: CaseCheck, out: Any, ref_native: Any, previous: _Seen | None, message: str) -> None:
    """Fail a wrong output as a cached result when it is the previous seed's output (the same storage, or
    the same values while the reference's changed: :class:`_Seen`, checksums of both)."""
    from kernelopt.harness.inplace import fingerprint

    if previous is None:
        return
    same_values = _layout(out) == previous.out_layout and fingerprint(out) == previous.out_prints
    if previous.same_storage(out) or (same_values and fingerprint(ref_native) != previous.ref_prints):
        _fail_case(ctx, cc, message, "CachedResult")


def _fail_case(ctx: _Ctx, cc: CaseCheck, message: str, error_class: str, culprit: Culprit = Culprit.KERNEL) -> NoReturn:
    """Fail case ``cc`` with ``message``: the kernel's failure, or ``culprit``'s (the reference's own fault is the
    problem's, :attr:`Culprit.PROBLEM`)."""
    cc.passed = False
    cc.message = message
    raise CandidateFailed(Failure(message=message, error_class=error_class, case=cc.index, culprit=culprit))


# -- timing ------------------------------------------------------------------------------------


def _bench(ctx: _Ctx, loaded: list[_Loaded]) -> None:
    """Time the current version (the last loaded), the previous ones and the reference on every case,
    interleaved; a previous version that fails is dropped with a warning, the current one's failure raises. The
    device out of memory outside the kernel's and the reference's code is the timing's own (:attr:`Culprit.CHECKER`).
    """
    import torch

    timed = _prepare_bench(ctx, loaded)
    run_left_s = ctx.job.run_timeout_s if ctx.job.run_timeout_s is not None else math.inf
    for i in _cases(ctx, timed.current.pair.shapes):
        t0, compile0 = time.monotonic(), ctx.compile_s
        try:
            ctx.result.timings.append(_bench_case(ctx, timed, i, min(ctx.job.case_timeout_s, run_left_s)))
        except torch.OutOfMemoryError as exc:  # not in user code (that is a CandidateFailed): the timing's own
            raise CandidateFailed(
                Failure(
                    message=f"case {i}: {CHECK_DOES_NOT_FIT}: the timing's own work ran out of it ({_first_line(exc)})",
                    error_class="CheckDoesNotFit",
                    case=i,
                    traceback=_tb(exc),
                    culprit=Culprit.CHECKER,
                )
            ) from exc
        run_left_s -= max(0.0, time.monotonic() - t0 - (ctx.compile_s - compile0))
        said = _checker_patched(ctx, f"case {i}")
        if said is not None:  # the timers among them: the case's timing is not to be believed
            raise CandidateFailed(Failure(message=said, error_class="CheckerPatched", case=i))


@dataclass
class _Fit:
    """How one case's timing fits its limit (:func:`kernelopt.harness.timers.full_timing_fits`): the limit (the
    per-case limit, or what is left of the run's), when the case began, the compile seconds then (compilation is not
    charged to the case), the single calls measured of each callable (two each, microseconds, in the order the
    samplers are made), and whether the timing is reduced to fewer samples."""

    limit_s: float
    since: float
    compile_s: float
    calls_us: list[list[float]] = field(default_factory=list)
    reduced: bool = False

    def room_s(self, ctx: _Ctx) -> float:
        """Seconds the case's limit still leaves."""
        return self.limit_s - (time.monotonic() - self.since - (ctx.compile_s - self.compile_s))

    @property
    def round_s(self) -> float:
        """Seconds of one call of every callable measured so far (the slower of each one's two calls)."""
        return sum(max(c) for c in self.calls_us) / 1e6


def _warm_sampler(
    ctx: _Ctx, fn: Callable[..., Any], sets: list[list[Any]], fit: _Fit, flusher: Any, ungraphed: str | None = None
) -> tuple[Any, Any]:
    """Warm ``fn`` up with three calls (the first may compile; the other two are timed, compilation excluded) and
    make its sampler: the gate's full one when the case's full timing still fits its limit, else one call a sample
    (:func:`~kernelopt.harness.timers.single_call_sampler`) and the case's timing is reduced. ``ungraphed``: why no CUDA
    graph times it (its graph missed part of its work, :class:`_GraphMissed`), said in the sampler's warnings. Returns
    the sampler and the last call's output."""
    from kernelopt.harness.timers import full_timing_fits, make_sampler, single_call_sampler, synchronize

    out = fn(*sets[0])
    synchronize(ctx.device)
    calls: list[float] = []
    fit.calls_us.append(calls)
    for k in (1, 2):
        t0, compile0 = time.perf_counter(), ctx.compile_s
        out = fn(*sets[k % len(sets)])
        synchronize(ctx.device)
        calls.append(max(1e-3, (time.perf_counter() - t0 - (ctx.compile_s - compile0)) * 1e6))
        if k == 1 and not fit.reduced and not full_timing_fits(fit.round_s, fit.room_s(ctx)):
            fit.reduced = True
    if fit.reduced:
        return single_call_sampler(fn, sets, ctx.device, min(calls)), out
    if ungraphed is None:
        return make_sampler(fn, sets, ctx.device, ctx.job.bench, flusher), out
    sampler = make_sampler(fn, sets, ctx.device, ctx.job.bench.model_copy(update={"cuda_graphs": False}), flusher)
    sampler.warnings.append(ungraphed)
    return sampler, out


@dataclass
class _Timed:
    """What :func:`_bench` times: the versions still timed (the current one last) and their callables by
    label, the reference, ``torch.compile(reference)`` (or why it could not be built; ``None``: not asked),
    and the L2 flusher (``None`` on the CPU or when not asked); ``ungraphed``: the versions no CUDA graph times, by
    label, each with why (:class:`_GraphMissed`)."""

    current: _Loaded
    versions: list[_Loaded]
    fns: dict[str, Callable[..., Any]]
    ref: Callable[..., Any]
    compiled: Callable[..., Any] | BaseException | None
    flusher: Any
    ungraphed: dict[str, str] = field(default_factory=dict)


def compiled_reference(ref: Callable[..., Any], settings: BenchSettings) -> Callable[..., Any] | BaseException:
    """``torch.compile(reference)`` with the backend and mode asked (``KERNELOPT_COMPILE_BACKEND``,
    ``KERNELOPT_COMPILE_MODE``: Inductor's ``max-autotune`` to compare with); what torch.compile raised when it
    refuses the reference (a note, never a candidate failure). Compiled per shape at its warm-up."""
    import torch

    try:
        return torch.compile(ref, backend=settings.compile_backend, mode=settings.compile_mode)
    except Exception as exc:
        return exc


def _prepare_bench(ctx: _Ctx, loaded: list[_Loaded]) -> _Timed:
    """Instantiate every version (a previous one that fails is dropped with a warning), build
    ``torch.compile(reference)`` when asked (compiled per shape at its warm-up), and the L2 flusher."""
    from kernelopt.harness.timers import L2Flusher

    settings = ctx.job.bench
    current = loaded[-1]
    versions = list(loaded)
    fns: dict[str, Callable[..., Any]] = {}
    refs: Callable[..., Any] | None = None
    for item in list(versions):
        try:
            cand, ref = _instantiate(ctx, item)
        except CandidateFailed as failed:
            if item is current:
                raise
            versions.remove(item)
            ctx.result.warnings.append(f"previous version {item.source.label} not timed: {failed.failure.message}")
            continue
        fns[item.source.label] = cand
        refs = ref
    assert refs is not None
    compiled: Callable[..., Any] | BaseException | None = None
    if settings.time_reference and settings.compile_reference:
        compiled = compiled_reference(refs, settings)
    flusher = L2Flusher(ctx.device) if settings.l2_flush and ctx.device.startswith("cuda") else None
    return _Timed(current, versions, fns, refs, compiled, flusher)


def _bench_case(ctx: _Ctx, timed: _Timed, i: int, limit_s: float) -> CaseTiming:
    """Case ``i``: its input sets, a sampler per version (and the reference), its size, then the samples of
    all of them, interleaved in ABBA blocks, within ``limit_s`` seconds (the per-case limit, or what is left of the
    run's): a timing that cannot take its full plan there is reduced (:func:`_reduced_samples`)."""
    from kernelopt.harness.timers import one_count

    settings = ctx.job.bench
    current = timed.current
    pair = current.pair
    label = shape_label(pair.shapes[i])
    ctx.progress.phase(Phase.BENCH, case=i, label=label, version=current.source.label)
    where = f"case {i} ({label})"
    # building the timing's inputs is the problem's work, as in the check: off the case's clock, on the checker's
    # (a get_inputs of 1.96 s under a 2 s case limit made a kernel of 20 ms a call "hang": fresh28 f66)
    ctx.progress.emit("check_start")
    ctx.step(Step.INPUTS)
    sets = _bench_inputs(ctx, pair, i, where)
    ctx.progress.emit("check_end")
    fit = _Fit(limit_s=limit_s, since=time.monotonic(), compile_s=ctx.compile_s)
    ctx.step(Step.TIMING)
    timing = CaseTiming(index=i, label=label, versions=[], interleaved=len(timed.versions) > 1)
    samplers, out_bytes = _version_samplers(ctx, timed, sets, timing, i, where, fit)
    if settings.time_reference:
        samplers += _reference_samplers(ctx, timed.ref, timed.compiled, sets, timed.flusher, timing, where, fit)
    # the versions and the reference take one count of calls per CPU sample: one exposure to preemption
    counts = one_count([s for _, s in samplers], settings, 1 if fit.reduced else None)
    samplers = list(zip([x for x, _ in samplers], counts, strict=True))
    _problem_size(pair, sets[0], out_bytes, timing, i, where)
    while True:
        with _user(where, "the kernel (timing)", case=i, version=current.source.label):
            samples, again = _samples_of(ctx, samplers, current, fit, timing, limit_s, where)
        try:
            _check_timed_output(ctx, timed, next(s for item, s in samplers if item is current), sets, i, where)
            break
        except _GraphMissed as missed:  # timed again, the current version by calls back to back, in what is left
            timed.ungraphed[current.source.label] = str(missed)
            ungraphed = _ungraphed_samplers(ctx, timed, samplers, sets, fit, i, where)
            if ungraphed is None:  # no room left for a full timing: the case is timed again whole, reduced
                del samplers, sets
                return _bench_case(ctx, timed, i, fit.room_s(ctx))
            samplers = ungraphed
    for (item, sampler), taken, retaken in zip(samplers, samples, again, strict=True):
        timing.versions.append(
            VersionTiming(
                label=item if isinstance(item, str) else item.source.label,
                samples_us=taken,
                method=sampler.method,
                launches_per_sample=sampler.launches,
                input_sets=sampler.input_sets,
                l2_flushed=sampler.l2_flushed,
                warnings=sampler.warnings,
                retime_samples_us=retaken,
            )
        )
    return timing


def _samples_of(
    ctx: _Ctx,
    samplers: list[tuple[Any, Any]],
    current: _Loaded,
    fit: _Fit,
    timing: CaseTiming,
    limit_s: float,
    where: str,
) -> tuple[list[list[float]], list[list[float]]]:
    """The samples of every sampler, interleaved in ABBA blocks within what ``limit_s`` and the case's ``fit`` leave
    (a reduced timing's single calls where ``fit`` is reduced), and the re-time's where the first claims."""
    from kernelopt.harness.timers import TIMING_BUDGET_SHARE, abba_order, plan_blocks, take_samples

    if fit.reduced:
        samples = _reduced_samples(ctx, [s for _, s in samplers], fit, timing)
        return samples, [[] for _ in samples]
    # the shares are of what the limit leaves now: the warm-up and the samplers' estimates already spent some (nine
    # calls a callable: at 0.8 s a call against 30 s, 7.2 s, then 12.8 s of samples and 9.6 s of a claim's re-time as
    # shares of the whole limit; tuneleft8)
    room_s = min(limit_s, fit.room_s(ctx))
    blocks = plan_blocks([s.est_sample_us for _, s in samplers], ctx.job.bench, room_s)
    order = abba_order(len(samplers), blocks)
    # at most the share of the case limit plan_blocks plans for, whatever the load does meanwhile
    t0 = time.monotonic()
    samples = take_samples([s for _, s in samplers], order, budget_s=TIMING_BUDGET_SHARE * room_s)
    now = next(k for k, (item, _) in enumerate(samplers) if item is current)
    left_s = min(limit_s, fit.room_s(ctx))
    again = _retime(ctx, [s for _, s in samplers], order, samples, now, time.monotonic() - t0, where, left_s)
    return samples, again


def _ungraphed_samplers(
    ctx: _Ctx,
    timed: _Timed,
    samplers: list[tuple[Any, Any]],
    sets: list[list[Any]],
    fit: _Fit,
    i: int,
    where: str,
) -> list[tuple[Any, Any]] | None:
    """The case's samplers with the current version's made again without a CUDA graph (its graph missed part of its
    work, :class:`_GraphMissed`, said in its warnings), the others kept as they are, the sets given back the values
    they were timed on (the timed check refilled them in place): what a second timing of the case needs, where y2
    made every sampler again, its inputs, warm-ups, captures and estimates (verdicts22 x7). ``None`` where the room
    left is too short for a full timing (the caller then times the case again whole, reduced)."""
    from kernelopt.harness.inputs import refill
    from kernelopt.harness.timers import one_count

    current = timed.current
    k = next(n for n, (item, _) in enumerate(samplers) if item is current)
    fresh = _bench_inputs(ctx, current.pair, i, where)
    if not all(refill([target], values) for target, values in zip(sets, fresh, strict=True)):
        return None
    del fresh
    ctx.step(Step.TIMING)
    samplers[k] = (current, None)  # the graph and its outputs go before the new sampler's memory is taken
    del fit.calls_us[k]  # its calls are measured again, in its place
    with _user(where, "the kernel (warm-up)", case=i, version=current.source.label):
        sampler, _ = _warm_sampler(
            ctx, timed.fns[current.source.label], sets, fit, timed.flusher, timed.ungraphed[current.source.label]
        )
    fit.calls_us.insert(k, fit.calls_us.pop())
    if fit.reduced:
        return None
    samplers[k] = (current, sampler)
    counts = one_count([s for _, s in samplers], ctx.job.bench)
    return list(zip([x for x, _ in samplers], counts, strict=True))


TIMED_CHECK_SEED = 7919
"""Our choice: the seed of the inputs the timed path's output is checked on (:func:`_check_timed_output`), none of
the check's seeds (0 up) nor of the rotation's sets (1 up to ``MAX_ROTATION_SETS``)."""

TIMED_MISMATCH = "TimedMismatch"
"""The error class of a kernel whose output through the timed path differed from the reference."""


def _check_timed_output(ctx: _Ctx, timed: _Timed, sampler: Any, sets: list[list[Any]], i: int, where: str) -> None:
    """After a case's samples, the current version's outputs through the path its samples took, checked against the
    reference with the check's tolerances (a14: a kernel that walked its caller's frames for the timers returned a
    result cached by input pointer only while timed, and passed at 2.17x over eager; no timed call's output was
    checked). Every input set the sampler's probe reads (:attr:`~kernelopt.harness.timers.Sampler.probe_sets`: one
    for a call timed alone, each set a CUDA graph rotates through) is refilled in place (the same storage, so a cache
    keyed by pointer is read) with the case's inputs at :data:`TIMED_CHECK_SEED` (:func:`_timed_check_inputs`), the
    same values in each, so every output the probe returns is checked against one reference run on a copy
    (:func:`_run_reference`, the check's own run). A graph's outputs are all checked, not its last call's alone
    (timedgpu20: the a14 cheat's results cached before the capture were never replayed, and the last call's, captured,
    passed at 59x over eager on the H100): each one bit for bit like the first checked needs no check of its own. One
    run of the probe and one reference run, none of them among the samples. Skipped, as nothing is compared like for
    like, where those inputs are built otherwise (other shapes, dtypes or other arguments), an input cannot be refilled
    alone (an expanded tensor, or one sharing its storage with another), the reference modifies its inputs, or it
    draws random numbers. Only a mismatch calls the kernel again, as the check does, on the inputs the wrong output
    was computed from and on a copy of them, to say whose the difference is.

    Raises:
        CandidateFailed: the kernel raised, or an output differed from the reference: :data:`TIMED_MISMATCH` where
            the untimed call on the same inputs matched it, ``CachedResult`` where only a copy of them did,
            ``Mismatch`` where neither did.
    """
    from kernelopt.harness.inputs import PERMUTED_NOTE, clone_tree, same_bits, tensors_in
    from kernelopt.harness.timers import synchronize

    if sampler.probe is None:
        return
    pair = timed.current.pair
    targets = [sets[k] for k in sampler.probe_sets]
    ctx.progress.emit("check_start")  # the checker's work is not the kernel's: it pauses the case clock
    ctx.step(Step.INPUTS)
    permuted = _timed_check_inputs(ctx, pair, i, targets, where)
    if permuted is None:
        ctx.progress.emit("check_end")
        return
    ctx.step(Step.REFERENCE)
    reference = pair.reference
    label = timed.current.source.label
    subject = _Checked(pair, timed.fns[label], timed.ref, *reference_tolerance(reference))
    subject.own = OwnCode(getattr(reference, "__file__", None))
    ref = _run_reference(
        ctx, subject, CaseCheck(index=i, label=shape_label(pair.shapes[i])), targets[0], where, RUN_SEED_BASE
    )
    ctx.progress.emit("check_end")
    if ref.random or ref.contract.left or ref.contract.whole_result:
        return
    made_on = tensors_in(ref.native)[0].device.type if tensors_in(ref.native) else None
    kept = _Kept(ref.native, ref.hi, ref.contract, ref.prepared)
    if ref.place.outputs is Keep.HOST or ref.place.high_output is Keep.HOST:  # where the check keeps them too
        kept.park(ctx, subject, ref.place.outputs, ref.place.high_output)
    run = _SeedRun(targets[0], RUN_SEED_BASE, made_on, kept, kept.native, kept.hi, ref_random=False, kernel_drew=False)
    del ref

    def called(what: str, call: Callable[[], Any]) -> Any:
        ctx.step(Step.TIMING)
        # the device's memory then holds the timing's sets and the check's copies: its exhaustion is the checker's
        with _user(where, what, case=i, version=label, out_of_memory=Culprit.CHECKER):
            out = call()
            synchronize(ctx.device)
        return out

    checks: list[OutputCheck] = []

    def said(out: Any) -> str | None:
        ctx.progress.emit("check_start")
        ctx.step(Step.CHECK)
        checks.append(_checked(ctx, subject, run, out))
        ctx.progress.emit("check_end")
        return checks[-1].message

    probed = called("the kernel (timed output)", sampler.probe)
    wrong, first = probed[0]
    timed_said = said(first)
    for k, out in probed[1:]:
        if timed_said is not None:
            break
        if not same_bits(out, first):  # one bit for bit like the first, checked, needs no check of its own
            timed_said, wrong = said(out), k
    if timed_said is None:
        return
    target = sets[wrong]  # the inputs the wrong output was computed from: their pointers, their values
    if said(called("the kernel (untimed, the same inputs)", lambda: subject.cand(*target))) is None:
        if sampler.method is TimingMethod.CUDA_GRAPH and label not in timed.ungraphed:
            raise _GraphMissed(
                f"the CUDA graph's output differed from the reference where an eager call on the same inputs matched "
                f"it ({first_line(timed_said, 160)}): the graph does not replay what an eager call computes, either "
                "because part of the kernel's work runs outside the captured stream (a launch on the legacy default "
                "stream, say), which a replay does not time, or because the kernel computes otherwise while captured; "
                "timing back-to-back launches, which includes launch overhead, their own outputs checked"
            )
        message = (
            f"{where}: the timed path's output differed from the reference, where the untimed call's on the same "
            f"inputs matched it (a kernel computes its result however it is called): {timed_said}"
        )
        error_class = TIMED_MISMATCH
    else:
        copy_said = said(called("the kernel (a copy of the inputs)", lambda: subject.cand(*clone_tree(target))))
        if copy_said is None:
            message = (
                f"{where}: kernel returned a stale output for inputs refilled in place (the same storage, new "
                f"values), timed or not, and the right one for a copy of them (a result cached by input pointer): "
                f"{timed_said}"
            )
            error_class = "CachedResult"
        else:
            # the reference ran through the whole timing before this run of it: an output it keeps across calls (a
            # buffer counting them) is its own fault, as the check's seeds find it (break22 b53)
            cc = CaseCheck(index=i, label=shape_label(pair.shapes[i]))
            call = (targets[0], RUN_SEED_BASE, made_on)
            _fail_if_reference_cached(ctx, subject, cc, checks[-1], call, run.ref_native, None, where)
            note = f"; {PERMUTED_NOTE}" if permuted else ""
            message = (
                f"{where}: output differs from the reference on the inputs of seed {TIMED_CHECK_SEED} (the timed "
                f"output's check), timed or not: {copy_said}{note}"
            )
            error_class = "Mismatch"
    raise CandidateFailed(Failure(message=message, error_class=error_class, case=i, version=label))


def _timed_check_inputs(ctx: _Ctx, pair: Any, i: int, targets: list[list[Any]], where: str) -> bool | None:
    """Refill every set of ``targets`` (input sets of the timing) in place with case ``i``'s inputs at
    :data:`TIMED_CHECK_SEED`, made as the timing's own sets are (:func:`_bench_inputs`: ``get_inputs`` under that
    seed, its structure kept; where it returns the values one of them holds, taking no seed, those rows permuted as
    the check's seeds 1+ have them, :func:`~kernelopt.harness.inputs.rerandomize`: no set keeps its values, so no
    output cached for it is right by chance). Returns whether they were permuted; ``None`` where the sets could not
    be refilled (nothing changed)."""
    from kernelopt.harness.inputs import build_inputs, refill, rerandomize, same_values

    with _user(where, "reference.py get_inputs", case=i, culprit=Culprit.PROBLEM, out_of_memory=Culprit.CHECKER):
        fresh = build_inputs(pair, pair.shapes[i], ctx.device, seed=TIMED_CHECK_SEED, on_host=ctx.inputs_on_host)
    permuted = any(same_values(fresh, target) for target in targets)
    if permuted:
        fresh = rerandomize(fresh, TIMED_CHECK_SEED)
    return permuted if refill(targets, fresh) else None


def _reduced_samples(ctx: _Ctx, samplers: list[Any], fit: _Fit, timing: CaseTiming) -> list[list[float]]:
    """A timing reduced to fit its limit: each callable's two timed warm-up calls are its first two samples (one
    block, not interleaved), then as many interleaved blocks of single calls as still fit
    (:func:`~kernelopt.harness.timers.samples_that_fit`, up to the gate's floor of three), and the case says so in
    :attr:`CaseTiming.reduced` (its speedups' intervals are wide; with one block none is given)."""
    from kernelopt.harness.timers import MIN_BLOCKS_KEPT, TIMING_ROOM_SHARE, abba_order, samples_that_fit, take_samples

    room = fit.room_s(ctx)
    blocks = samples_that_fit(2.0 * fit.round_s, room, MIN_BLOCKS_KEPT)
    taken = take_samples(
        samplers,
        abba_order(len(samplers), blocks),
        budget_s=TIMING_ROOM_SHARE * room,
        min_blocks=0,  # the warm-up's calls are its first block: one more only where it ends within the budget
        block_s=2.0 * fit.round_s,
        limit_s=room,
    )
    samples = [list(calls) + more for calls, more in zip(fit.calls_us, taken, strict=True)]
    got = len(samples[0]) // 2
    timing.reduced = (
        f"timed in {got} block(s) of single calls, fewer than the {MIN_BLOCKS_KEPT} of a full timing: one call of "
        f"every callable takes {fit.round_s:.3g} s against a limit of {fit.limit_s:g} s (TEST_TIMEOUT_SEC a case, "
        "KERNELOPT_RUN_TIMEOUT_S the run), so the speedups' intervals are wide"
    )
    return samples


RETIME_SHARE = 0.3
"""Our choice: the re-time of a claim may take at most this share of what the per-case limit leaves after the first
timing, and is made only when the blocks it needs fit (with :data:`~kernelopt.harness.timers.TIMING_BUDGET_SHARE` of
what it leaves after the warm-up and the estimates for the first timing, the case's timing stays within its limit: a
claim is never paid for with a false TIMEOUT_FAIL)."""


def _retime(
    ctx: _Ctx,
    samplers: list[Any],
    order: list[int],
    samples: list[list[float]],
    current: int,
    first_s: float,
    where: str,
    limit_s: float,
) -> list[list[float]]:
    """The samples of a second interleaved timing of every callable when the first claims a difference between the
    current version (``samplers[current]``) and another (:func:`kernelopt.harness.stats.claims`): the re-time that
    confirms a claim or takes it back, within :data:`RETIME_SHARE` of ``limit_s`` (what the case's limit leaves).
    Empty lists when the first claims nothing, or when the fewest blocks a re-time needs
    (:data:`~kernelopt.harness.stats.REPLICATION_MIN_BLOCKS`) would not fit, at the first timing's pace (the claim is
    then not confirmed: :func:`~kernelopt.harness.stats.unrepeated_verdict` decides it, and a warning says its rule)."""
    from kernelopt.harness.stats import REPLICATION_MIN_BLOCKS, UNREPEATED_RULE, claims
    from kernelopt.harness.timers import take_samples

    margin = ctx.job.bench.claim_margin_pct
    none: list[list[float]] = [[] for _ in samples]
    if margin is None or not claims(samples, current, margin):
        return none
    room = RETIME_SHARE * limit_s
    need = REPLICATION_MIN_BLOCKS * first_s / max(1, len(samples[current]) // 2)
    if need > room:
        ctx.result.warnings.append(
            f"{where}: the timing claimed a difference, but the {REPLICATION_MIN_BLOCKS} blocks a re-time needs would "
            f"take about {need:.1f} s, more than the {room:.1f} s it may: the claim is not confirmed "
            f"({UNREPEATED_RULE})"
        )
        return none
    return take_samples(samplers, order, budget_s=room, min_blocks=REPLICATION_MIN_BLOCKS)


def _bench_inputs(ctx: _Ctx, pair: Any, i: int, where: str) -> list[list[Any]]:
    """Case ``i``'s input sets: seed 0's, and on a GPU as many more as the rotation needs to keep the
    L2 cache cold (a set equal to seed 0's is randomly permuted)."""
    from kernelopt.harness.inputs import build_inputs, nbytes, rerandomize, same_values
    from kernelopt.harness.timers import rotation_count

    shape = pair.shapes[i]
    with _user(where, "reference.py get_inputs", case=i, culprit=Culprit.PROBLEM, out_of_memory=Culprit.CHECKER):
        first = build_inputs(pair, shape, ctx.device, seed=0, on_host=ctx.inputs_on_host)
        n_sets = rotation_count(nbytes(first), ctx.device, ctx.job.bench)  # 1 on the CPU: no L2 to keep cold
        sets = [first]
        for s in range(1, n_sets):
            extra = build_inputs(pair, shape, ctx.device, seed=s, on_host=ctx.inputs_on_host)
            sets.append(rerandomize(extra, s) if same_values(extra, first) else extra)
    return sets


def _version_samplers(
    ctx: _Ctx, timed: _Timed, sets: list[list[Any]], timing: CaseTiming, i: int, where: str, fit: _Fit
) -> tuple[list[tuple[_Loaded | str, Any]], int]:
    """A sampler for each version after its warm-up, and the current version's output bytes (its output
    dtype goes to ``timing``). A previous version that fails here is dropped from ``timed`` for this case
    and the next ones, with a warning.

    Raises:
        CandidateFailed: the current version failed its warm-up.
    """
    from kernelopt.harness.inputs import nbytes, tensors_in

    samplers: list[tuple[_Loaded | str, Any]] = []
    out_bytes = 0
    for item in list(timed.versions):
        fn = timed.fns[item.source.label]
        is_current = item is timed.current
        measured = len(fit.calls_us)
        try:
            _version_env(item.source)
            with _user(where, "the kernel (warm-up)", case=i, version=item.source.label):
                sampler, out = _warm_sampler(ctx, fn, sets, fit, timed.flusher, timed.ungraphed.get(item.source.label))
        except CandidateFailed as failed:
            if is_current:
                raise
            del fit.calls_us[measured:]
            timed.versions.remove(item)
            timing.interleaved = False
            ctx.result.warnings.append(f"previous version {item.source.label} not timed: {failed.failure.message}")
            continue
        samplers.append((item, sampler))
        if is_current:
            timing.output_dtype = str(tensors_in(out)[0].dtype).removeprefix("torch.") if tensors_in(out) else None
            out_bytes = nbytes(out)
    return samplers, out_bytes


def _problem_size(pair: Any, first: list[Any], out_bytes: int, timing: CaseTiming, i: int, where: str) -> None:
    """The case's FLOPs and bytes moved into ``timing``: reference.py's ``flops()`` / ``bytes_moved()`` on the
    first input set, else no FLOPs and the bytes of the inputs and the output."""
    from kernelopt.harness.inputs import nbytes

    with _user(where, "reference.py flops()/bytes_moved()", case=i, culprit=Culprit.PROBLEM):  # not the kernel's
        flops_fn = pair.optional("flops")
        bytes_fn = pair.optional("bytes_moved")
        timing.flops = float(flops_fn(*first)) if flops_fn else None
        if bytes_fn:
            timing.bytes_moved, timing.bytes_source = float(bytes_fn(*first)), "bytes_moved()"
        else:
            timing.bytes_moved, timing.bytes_source = float(nbytes(first) + out_bytes), "inputs + outputs"
        for name, count in (("flops", timing.flops), ("bytes_moved", timing.bytes_moved)):
            if count is not None and not (count >= 0 and math.isfinite(count)):  # said as reference.py's, not ours
                raise ValueError(f"{name}() returned {count}; a count per launch is a finite number >= 0")


def _reference_samplers(
    ctx: _Ctx,
    ref: Callable[..., Any],
    compiled: Callable[..., Any] | BaseException | None,
    sets: list[list[Any]],
    flusher: Any,
    timing: CaseTiming,
    where: str,
    fit: _Fit,
) -> list[tuple[str, Any]]:
    """Samplers of the reference as written (eager) and of ``torch.compile(reference)`` when asked.

    Same warm-up and same timer as the kernels, so the samples interleave with theirs. The compiled
    reference compiles during its warm-up, which reports ``compile_start``/``compile_end`` so the case
    clock pauses, and the seconds it took go to ``timing.reference_compile_s``. A reference that cannot
    be timed (or compiled) is a warning, never a failure of the candidate.
    """
    from kernelopt.harness.timers import synchronize

    out: list[tuple[str, Any]] = []
    ctx.step(Step.REFERENCE)
    measured = len(fit.calls_us)
    try:
        with _user(where, "the reference (timing warm-up)", version=REFERENCE_LABEL, culprit=Culprit.PROBLEM):
            out.append((REFERENCE_LABEL, _warm_sampler(ctx, ref, sets, fit, flusher)[0]))
    except CandidateFailed as failed:
        del fit.calls_us[measured:]
        ctx.result.warnings.append(f"the reference was not timed: {failed.failure.message}")
        return out
    finally:
        ctx.step(Step.TIMING)
    fn = compiled
    if fn is None:
        return out
    if isinstance(fn, BaseException):
        timing.reference_compile_error = f"torch.compile raised {type(fn).__name__}: {_first_line(fn)}"
        return out
    _compile_started()  # one pause with the callbacks of the compile inside it: not charged to the case
    t0 = time.monotonic()
    try:
        with _user(where, "torch.compile(reference) (warm-up)", version=COMPILED_REFERENCE_LABEL):
            fn(*sets[0])  # it compiles here; _warm_sampler's calls follow
            synchronize(ctx.device)
    except CandidateFailed as failed:
        timing.reference_compile_error = failed.failure.message
        return out
    finally:
        timing.reference_compile_s = time.monotonic() - t0
        _compile_ended()
    measured = len(fit.calls_us)
    try:
        with _user(where, "torch.compile(reference) (timing)", version=COMPILED_REFERENCE_LABEL):
            out.append((COMPILED_REFERENCE_LABEL, _warm_sampler(ctx, fn, sets, fit, flusher)[0]))
    except CandidateFailed as failed:
        del fit.calls_us[measured:]
        timing.reference_compile_error = failed.failure.message
    return out


# -- entry -------------------------------------------------------------------------------------


def run_job(job: WorkerJob, progress: ProgressWriter) -> WorkerResult:
    """Run ``job`` in this process and return the result (exceptions of user code become failures).

    The worker's ``main`` calls it in a fresh process; tests call it in-process for checks that need no
    isolation. It sets ``TRITON_CACHE_DIR`` / ``TORCH_EXTENSIONS_DIR`` in this process's environment.
    """
    import torch

    device = resolve_device(job.device)
    if job.device is None and Device.of(device) is Device.CPU:
        interpret_here()  # no device asked and no GPU here: a Triton kernel runs in the interpreter
    result = WorkerResult(mode=job.mode, device=device, torch_version=torch.__version__)
    result.device_name = torch.cuda.get_device_name(torch.device(device)) if device.startswith("cuda") else "cpu"
    ctx = _Ctx(job=job, progress=progress, device=device, result=result)
    _ACTIVE.append(ctx)
    try:
        with torch.no_grad():
            if job.mode is JobMode.SIZE:
                _sizes(ctx)
                return result
            if not device.startswith("cuda"):
                # before kernel.py's import: one that binds `from torch.library import wrap_triton` there keeps what
                # it finds, torch's own, which refuses an interpreted kernel before torch 2.12 (late20's z8)
                patch_wrap_triton()
            loaded = _load(ctx)
            torch.set_grad_enabled(KernelForm(loaded[0].pair.form).takes_gradients)  # no_grad's exit restores it
            if not device.startswith("cuda") and "triton" in sys.modules:
                patch_interpreter()  # the kernels imported Triton: they run in its interpreter on the CPU
                # triton is imported in every child of a fork server: the kernel's own imports say
                ctx.interpreted = any(runs_in_interpreter(Path(k.kernel_py), device) for k in job.kernels)
            if job.mode is JobMode.CHECK:
                _check(ctx, loaded)
            elif job.mode is JobMode.BENCH:
                _bench(ctx, loaded)
    except CandidateFailed as failed:
        result.failure = failed.failure
    except Exception as exc:  # past every boundary of the problem's and the kernel's code: kernelopt's own, or a crash
        own = own_frame(exc)
        if own is None:
            raise
        what = STEP_WORDS.get(ctx.at, f"the {ctx.at.value} step") if ctx.at is not None else f"its {job.mode} job"
        said = f"{type(exc).__name__}: {_first_line(exc)}"
        result.failure = Failure(
            message=harness_failed("the worker", what, said, own),
            error_class=type(exc).__name__,
            traceback=_tb(exc),
            culprit=Culprit.CHECKER,
        )
    finally:
        _ACTIVE.remove(ctx)
    triton = sys.modules.get("triton")
    result.triton_version = getattr(triton, "__version__", None) if triton else None
    result.compile_s = ctx.compile_s
    return result


def main(argv: list[str]) -> int:
    """``python -m kernelopt.harness.worker JOB.json``; returns the exit code."""
    die_with_parent()
    if len(argv) != 1:
        sys.stderr.write("usage: python -m kernelopt.harness.worker JOB.json\n")
        return 2
    job = load_json(WorkerJob, Path(argv[0]).read_text(encoding="utf-8"))
    progress = ProgressWriter(Path(job.progress_path), time.monotonic)
    progress.phase(Phase.STARTUP)
    try:
        result = run_job(job, progress)
    except DeviceUnavailable as exc:
        sys.stderr.write(f"{DEVICE_UNAVAILABLE_PREFIX}{exc}\n")
        return EXIT_ENVIRONMENT
    atomic_write_text(Path(job.result_path), dump_json(result, indent=1))
    progress.phase(Phase.DONE)
    progress.close()
    return 0


if __name__ == "__main__":
    exit_process(main(sys.argv[1:]))
