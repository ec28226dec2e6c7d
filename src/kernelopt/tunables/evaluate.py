"""Autotune lists built by code, evaluated the way Triton does: by importing the module (in a killable
``python -m kernelopt.child autotune`` worker, :mod:`kernelopt.worker`) and reading back the configs, ``key``, pruning
hooks and ``reset_to_zero`` / ``restore_value`` each ``@triton.autotune`` holds; optionally, after one
run of the task, the config the autotuner picked for the task's first shape (``best_config``).

A list that cannot be evaluated (an import error, a GPU query at import time on a machine without a
GPU, a worker that hangs) gives one line naming the file, the line and the reason
(:attr:`AutotuneEvaluation.problem`); the kernel then has no autotune knobs, and nothing crashes.
"""

from __future__ import annotations

import ast
import tempfile
from collections.abc import Callable, Collection, Mapping
from pathlib import Path

from pydantic import ValidationError

from kernelopt import pyparse
from kernelopt.errors import KerneloptError
from kernelopt.hardware.gpu import runs_on_cpu
from kernelopt.numeric import is_int
from kernelopt.tunables.analysis import GIVE_REFERENCE, analyze, evaluated, read_source
from kernelopt.tunables.autotune_worker import READ
from kernelopt.tunables.dict_origin import device_key
from kernelopt.tunables.edit import literal_autotune_key
from kernelopt.tunables.fixed import fix_by_reference, reference_text
from kernelopt.tunables.launches import branch_kernels
from kernelopt.tunables.list_pin import refuse_overridden
from kernelopt.tunables.model import AutotuneEvaluation, AutotuneSpace, ShapeSizes, Tunable, TunableKind, Value
from kernelopt.tunables.size_tiles import needs_sizes
from kernelopt.tunables.unmoved_grid import refuse_unmoved_grids
from kernelopt.vocabulary import Device
from kernelopt.worker.client import WorkerProcess, WorkerStartError
from kernelopt.worker.messages import Failure, FailureKind, Reply, Service

#: Seconds one evaluation may take: importing torch and triton (~5 s) plus one run of the task, which
#: benchmarks every config of every autotuned kernel once.
EVALUATE_TIMEOUT_S = 300.0


def needs_evaluation(source: str, filename: str = "kernel.py") -> list[str]:
    """Names of the kernels whose autotune list static reading cannot follow (built by code)."""
    _, sites, _ = analyze(source, filename)
    return [
        s.kernel for s in sites if s.kind is TunableKind.AUTOTUNE_CONFIG and s.key.endswith(".configs") and s.kernel
    ]


def parse_answer(
    answer: Reply | Failure, kernel_py: Path, timeout_s: float, *, interpreted: bool = False
) -> AutotuneEvaluation:
    """The evaluation from the autotune worker's answer (pure); every failure becomes one ``file:line: reason``
    (``interpreted``: the task ran in Triton's interpreter)."""
    name = kernel_py.name
    if isinstance(answer, Failure):
        if answer.outcome is FailureKind.RUN_TIMEOUT:
            return AutotuneEvaluation(
                problem=f"{name}: cannot evaluate the autotune configs: the import ran past {timeout_s:g} s"
            )
        return AutotuneEvaluation(
            problem=f"{name}: cannot evaluate the autotune configs: the worker failed: {answer.reason}"
        )
    data = answer.payload
    if "error" in data:
        where = f"{name}:{data['line']}" if data.get("line") else name
        reason = str(data["error"]).splitlines()[0] if str(data["error"]) else "unknown error"
        return AutotuneEvaluation(problem=f"{where}: cannot evaluate the autotune configs: {reason}")
    try:
        spaces = {k: AutotuneSpace.model_validate(v) for k, v in data.get("spaces", {}).items()}
    except ValidationError as exc:
        return AutotuneEvaluation(problem=f"{name}: cannot evaluate the autotune configs: {exc.errors()[0]['msg']}")
    problem = None
    if data.get("run_error"):
        problem = (
            f"{name}: the module was read, but the task run failed: {_run_error(str(data['run_error']), interpreted)}"
        )
    launches = {
        str(k): {str(n): v for n, v in vals.items() if isinstance(v, bool | int | float | str)}
        for k, vals in (data.get("launch_values") or {}).items()
    }
    try:
        sizes = [ShapeSizes.model_validate(s) for s in data.get("shape_sizes") or []]
    except ValidationError:
        sizes = []  # a local that is not a plain integer: no sizes, nothing else lost
    return AutotuneEvaluation(
        spaces=spaces,
        problem=problem,
        launch_values=launches,
        shape=data.get("shape"),
        shape_sizes=sizes,
        run_failed=problem is not None,
        interpreted=interpreted,
        first_call=str(data["first_call"]) if data.get("first_call") else None,
        device_key=_device_key(data.get("device_key")),
    )


def _device_key(given: object) -> tuple[str, Value] | None:
    """The worker's ``[call, value]`` (:attr:`AutotuneEvaluation.device_key`); ``None`` for anything else."""
    if not (isinstance(given, list) and len(given) == 2 and isinstance(given[0], str)):
        return None
    value = given[1]
    return (given[0], value) if isinstance(value, str) or is_int(value) else None


#: What Triton raises when it finds no GPU driver (a machine without a GPU, not in its interpreter).
_NO_DRIVER = "active drivers"


def _run_error(error: str, interpreted: bool) -> str:
    """The cause of a failed task run in one line: Triton's driver error named for what it means."""
    if _NO_DRIVER not in error:
        return error
    if interpreted:
        return (
            "Triton found no GPU driver: its interpreter (TRITON_INTERPRET=1) runs kernels on the CPU, but not "
            "Triton's own benchmarking (an @triton.autotune list of several configs, do_bench)"
        )
    return "Triton found no GPU driver (with no GPU, TRITON_INTERPRET=1 runs the kernels on the CPU)"


def evaluate_autotune(
    kernel_py: Path,
    *,
    reference: Path | None = None,
    device: str = "auto",
    timeout_s: float = EVALUATE_TIMEOUT_S,
    env: Mapping[str, str] | None = None,
    sizes: bool = True,
    pin_lists: int = 0,
) -> AutotuneEvaluation:
    """Import ``kernel_py`` in a worker process and read back its autotuned kernels.

    Args:
        kernel_py: the kernel file.
        reference: the task's reference.py; when given, the task runs once on its first ``SHAPES`` entry
            (the smallest one on the CPU),
            each space carries the ``best_config`` its autotuner picked, and ``launch_values`` the values
            every kernel's last launch received (computed settings, heuristics, the picked config).
        device: the device of that run (``cuda``, ``cpu`` under ``TRITON_INTERPRET=1``, ``auto``: cuda when
            torch sees a GPU). A worker on the CPU (``cpu``, or ``auto`` on a machine without a GPU driver)
            is forked from the process's fork server for CPU runs; any other starts a new interpreter.
        timeout_s: the worker's wall-clock limit; past it the process group is killed.
        env: the worker's environment (default: this process's).
        sizes: with ``reference``, the task also runs at each ``SHAPES`` entry for ``shape_sizes`` (``False``: the
            first run and the first-call check alone).
        pin_lists: the task's runs hold each keyed list of 2 to that many configs pinned to its first config, the
            first run too (:class:`~kernelopt.tunables.autotune_worker.pinned_lists`: nothing benchmarked, no pick of
            its kept; a list whose kernel adds into an output runs whole in the first run, for the first-call check:
            late49's l190); 0: every list runs as written.

    Returns:
        The spaces by kernel name; ``problem`` holds one line when the module could not be evaluated. A run of
        the task on the CPU (``cpu``, or ``auto`` on a machine with no GPU driver) is made in Triton's
        interpreter (``TRITON_INTERPRET=1``: Triton has no driver there), and ``interpreted`` says so.
    """
    interpreted = reference is not None and runs_on_cpu(device)
    with tempfile.TemporaryDirectory(prefix="kernelopt-autotune-") as logs:
        worker = WorkerProcess(
            Service.AUTOTUNE,
            log_dir=Path(logs),
            env=dict(env) if env is not None else None,
            cwd=kernel_py.parent,
            startup_timeout_s=timeout_s,
            forked=runs_on_cpu(device),
            device=Device.CPU.value if interpreted else device,  # auto on a machine with no GPU: the CPU
        )
        payload = {
            "kernel_py": str(Path(kernel_py).resolve()),
            "reference": str(Path(reference).resolve()) if reference is not None else None,
            "device": device,
            "sizes": sizes,
            "pin_lists": pin_lists,
            "device_key": _key_call(kernel_py) if reference is not None else None,
        }
        try:
            answer = worker.request(READ, payload, timeout_s)
        except WorkerStartError as exc:
            answer = exc.failure
        finally:
            worker.close()
    return parse_answer(answer, kernel_py, timeout_s, interpreted=interpreted)


def _key_call(kernel_py: Path) -> str | None:
    """The call by which ``kernel_py`` keys the settings it reads from files by the device (``get_arch()``;
    :func:`~kernelopt.tunables.dict_origin.device_key`), which the worker answers in its run; ``None`` where it has
    none or cannot be read. Read here, where the file's parse is kept, not in each worker."""
    try:
        return device_key(Path(kernel_py).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


LIST_RUN_MOST = 16
"""Our choice: the most configs a keyed autotune list may hold for discovery to run it as written on a GPU for its
picks (:func:`keyed_lists`): each costs a compile and a ``do_bench`` at each ``SHAPES`` entry's key (a second or two
on an H100), so 16 configs at three entries is about a minute; a longer list is judged as one entry anyway
(``tuning.folder.list_note``)."""


def keyed_lists(source: str, filename: str = "kernel.py") -> bool:
    """True when a kernel of the file carries an ``@triton.autotune`` keyed on its arguments (``key=["n"]``) and
    written as a list of 2 to :data:`LIST_RUN_MOST` configs: an autotuner that picks a config at each key at run
    time, cheap to run as written."""
    an, _, found = analyze(source, filename)
    for kernel in an.functions:
        if not literal_autotune_key(source, kernel, filename=filename):
            continue
        entries = {t.key.split("].", 1)[0] for t in found if t.key.startswith(f"{kernel}.configs[")}
        if 2 <= len(entries) <= LIST_RUN_MOST:
            return True
    return False


def benchmarks_unreset(source: str) -> bool:
    """True when the file holds a ``triton.autotune`` (a decorator, or Transformer Engine's called form) of more than
    one config (or configs built by code) with no ``reset_to_zero`` or ``restore_value``: its autotuner benchmarks on
    a call's own tensors, and only a run tells whether that leaves the first call's output wrong
    (:mod:`kernelopt.harness.first_call`)."""
    try:
        tree = pyparse.parse(source)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        named = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if named != "autotune" or not isinstance(node, ast.Call):
            continue
        keywords = {k.arg: k.value for k in node.keywords}
        if "reset_to_zero" in keywords or "restore_value" in keywords:
            continue
        configs = keywords.get("configs", node.args[0] if node.args else None)
        if not (isinstance(configs, ast.List | ast.Tuple) and len(configs.elts) < 2):
            return True
    return False


#: Whether an autotuned kernel's tree (its ``def``, the names its list's configs set) adds into an output, so that only
#: its autotuner's own benchmark on the call's tensors tells whether its first call is wrong: the first-call check's
#: rule (:func:`kernelopt.harness.first_call.writes_by_program`, a layer above), given by the caller.
AddsInto = Callable[[ast.AST, Collection[str]], bool]


def runs_pinned(source: str, most: int, adds_into: AddsInto) -> bool:
    """True when a run of the task with keyed lists of 2 to ``most`` configs pinned
    (:func:`~kernelopt.tunables.autotune_worker.pinned_lists`) benchmarks no autotune list and reads no autotuner's
    pick: every ``@triton.autotune`` of the file decorates a ``def``, with a literal list of one config, or of 2 to
    ``most`` under a literal non-empty ``key`` whose kernel does not add into an output (``adds_into``: such a list
    runs whole in the first run, for the first-call check). ``False`` for a list built by code, a called form
    (Transformer Engine's), a list past ``most`` or unkeyed, a kernel under a decorator other than Triton's three (a
    project's own autotuner, FLA's ``fla_cache_autotune``; an alias), and a file that does not parse.

    Such a file's run on a GPU tells the session nothing static reading does not (where :func:`needs_values` is
    false): the session times each config pinned at every entry (late42's l101), and since late49's l190 no pick is
    kept; what the run cost was each launch's compile of the first config at each entry's specialization, one after
    another (fla_matmul: 45 s before its session on the H100 of 2026-12-07 21:59, late54's l240)."""
    try:
        tree = pyparse.parse(source)
    except SyntaxError:
        return False
    decorators: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        words = [_decorator_word(d) for d in node.decorator_list]
        if any(w in _TRITON_WORDS for w in words) and not all(w in _TRITON_WORDS for w in words):
            return False  # a kernel under a decorator of its own (a project's autotuner, an alias): read at run time
        decorators |= {id(d): node for d in node.decorator_list}
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        named = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if named != "autotune" or not isinstance(node, ast.Call):
            continue
        kernel = decorators.get(id(node))
        keywords = {k.arg: k.value for k in node.keywords}
        configs = keywords.get("configs", node.args[0] if node.args else None)
        key = keywords.get("key", node.args[1] if len(node.args) > 1 else None)
        if kernel is None or not isinstance(configs, ast.List | ast.Tuple):
            return False
        if len(configs.elts) < 2:
            continue
        keyed = isinstance(key, ast.List | ast.Tuple) and bool(key.elts)
        if not keyed or len(configs.elts) > most or adds_into(kernel, _config_names(configs)):
            return False
    return True


#: The last names of Triton's decorators a kernel may carry for :func:`runs_pinned` to read it from the text.
_TRITON_WORDS = ("jit", "autotune", "heuristics")


def _decorator_word(decorator: ast.expr) -> str | None:
    """The last name of a decorator (``triton.autotune`` of ``@triton.autotune(...)``), ``None`` for another form."""
    expr = decorator.func if isinstance(decorator, ast.Call) else decorator
    return expr.attr if isinstance(expr, ast.Attribute) else expr.id if isinstance(expr, ast.Name) else None


def _config_names(configs: ast.List | ast.Tuple) -> set[str]:
    """The names a literal list's configs set (``triton.Config({"BM": 128}, ...)``'s dict keys)."""
    out: set[str] = set()
    for config in configs.elts:
        given = config.args[0] if isinstance(config, ast.Call) and config.args else None
        if isinstance(given, ast.Dict):
            out |= {k.value for k in given.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return out


def needs_values(source: str, filename: str = "kernel.py") -> bool:
    """True when some editable knob has a computed value that only a run can tell, a ``**configs[key]``
    launch needs a run to tell which entry it uses, the file picks between kernels by a branch (which runs at
    each ``SHAPES`` entry: :func:`~kernelopt.tunables.launches.branch_kernels`), one block of a knob must cover a
    size of the kernel (:attr:`~kernelopt.tunables.model.Tunable.covers`: the run tells the size at each entry, where
    the search starts), or a block knob spans a tile beside a size of the problem (the sizes at each entry bound a
    raise of it: :func:`~kernelopt.tunables.size_tiles.needs_sizes`, late44's l140)."""
    _, sites, found = analyze(source, filename)
    return (
        any(t.editable and (t.value is None or t.covers) for t in found)
        or any(s.needs_run for s in sites)
        or bool(branch_kernels(source))
        or needs_sizes(found, source)
    )


def should_evaluate(kernel_py: Path, *, reference: Path | None = None) -> bool:
    """True when :func:`discover_evaluated` would start a worker for ``kernel_py`` (an autotune list built
    by code, or, with ``reference``, a computed knob); ``False`` also when the file cannot be read or parsed
    (plain discovery then reports that)."""
    try:
        source = read_source(kernel_py)
        name = Path(kernel_py).name
        return bool(needs_evaluation(source, name)) or (reference is not None and needs_values(source, name))
    except KerneloptError:
        return False


def discover_evaluated(
    kernel_py: Path,
    *,
    gpu: str | None = None,
    reference: Path | None = None,
    device: str = "auto",
    timeout_s: float = EVALUATE_TIMEOUT_S,
    env: Mapping[str, str] | None = None,
    first_call: bool = False,
    run_task: bool = False,
    pin_lists: int = 0,
    adds_into: AddsInto | None = None,
) -> tuple[list[Tunable], AutotuneEvaluation | None]:
    """:func:`~kernelopt.tunables.analysis.discover`, evaluating what static reading cannot see.

    ``run_task``: with ``reference``, the task runs once whatever static reading needs (``tunables --set`` on a kernel
    holding block pointer tiles: their fit is checked at the sides the run gives at each entry, newuser13's n74).

    ``first_call`` (``tune``): where static reading needs no run but an autotune list benchmarks on the call's own
    tensors with nothing to undo it (:func:`benchmarks_unreset`), the task still runs once, with ``reference``, for the
    first-call check alone: the evaluation returned holds only its line (``None`` when the first call is right).

    ``pin_lists`` (``tune`` on a GPU): the task's runs hold each keyed list of 2 to that many configs pinned to its
    first config (:func:`evaluate_autotune`; leftovers27 l133 the runs after the first, late49 l190 the first too):
    Triton's autotuner compiled and benchmarked every config at each new key (fla_matmul: two launches' keys x 8
    configs, most of the 90 s before its session on the H100 of 2026-12-07 19:29), where the session times each pinned.
    With ``adds_into`` (the first-call check's rule), a file whose every list such runs hold pinned
    (:func:`runs_pinned`) is not run for its lists at all, nor for the first-call check: pinned, the run reads no pick
    and benchmarks nothing, and its compiles, one launch at each entry after another, were the 45 s before fla_matmul's
    session on the H100 of 2026-12-07 21:59 (late54's l240); the session compiles the same configs itself, in parallel.

    The module is imported (in a worker) only when static reading meets an autotune list built by code,
    or, with ``reference``, a computed knob or (on a GPU) an autotune list keyed on the problem: the task then runs
    once and each computed knob gets the value its launch received (``value_source`` says so; an edit still
    overrides the expression, which it records), and each autotuner's pick at each entry is kept. When the
    evaluation fails, its one-line problem becomes the refused reason of the autotune list's knob (no autotune
    knobs), and the evaluation is returned so the caller can show the line.

    Raises:
        TunableError: the file does not parse.
        InputFileError: the file does not exist or is not UTF-8 text.
    """
    source = read_source(kernel_py)
    name = Path(kernel_py).name
    # on a GPU a keyed list runs at each entry for its sizes and launch values (and, with no pin_lists, its autotuner's
    # own picks, ShapeSizes.picks: a do_bench of each config a key there); in the interpreter its picks are noise
    pinned = bool(pin_lists) and adds_into is not None and runs_pinned(source, pin_lists, adds_into)
    listed = reference is not None and not runs_on_cpu(device) and keyed_lists(source, name) and not pinned
    run = reference is not None and (
        run_task or needs_values(source, name) or bool(needs_evaluation(source, name)) or listed
    )
    if not needs_evaluation(source, name) and not run:
        found = analyze(source, name, gpu=gpu)[2]
        fix_by_reference(found, reference_text(Path(kernel_py), reference))
        refuse_unmoved_grids(found, source)
        refuse_overridden(found, source)
        if first_call and reference is not None and benchmarks_unreset(source) and not pinned:
            # a literal list is read without a run, so the first-call check had none (newuser12's n66); a list the run
            # holds pinned benchmarks nothing there (l240)
            seen = evaluate_autotune(
                Path(kernel_py),
                reference=reference,
                device=device,
                timeout_s=timeout_s,
                env=env,
                sizes=False,
                pin_lists=pin_lists,
            )
            if seen.first_call:
                return found, AutotuneEvaluation(first_call=seen.first_call, interpreted=seen.interpreted)
        return found, None
    evaluation = evaluate_autotune(
        Path(kernel_py),
        reference=reference if run else None,
        device=device,
        timeout_s=timeout_s,
        env=env,
        pin_lists=pin_lists,
    )
    found = analyze(source, name, gpu=gpu, **evaluated(evaluation))[2]
    fix_by_reference(found, reference_text(Path(kernel_py), reference))
    refuse_unmoved_grids(found, source)
    refuse_overridden(found, source)
    if evaluation.problem is not None and not evaluation.spaces:
        for t in found:
            if t.kind is TunableKind.AUTOTUNE_CONFIG and t.key.endswith(".configs"):
                t.refused_reason = evaluation.problem
    if evaluation.run_failed:  # the reference was given: what stands in the way is the failed run
        for t in found:
            if t.refused_reason is not None and t.refused_reason.endswith(GIVE_REFERENCE):
                t.refused_reason = t.refused_reason.replace(GIVE_REFERENCE, "(the run failed, said above)")
    return found, evaluation
