"""The twelfth session's correctness leftovers (leftovers13, 2026-12-06; docs/faults.md, "The last session's
correctness leftovers, thirteenth session"): a kernel wrong on its first call only, named with its cause and fix;
each comparison of the session in one round of measurements; Transformer Engine's called autotune; fills reached
through a flag or a call."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import triton_interpreted

DATA = Path(__file__).parent / "data" / "leftovers13"
FIRST = DATA / "first_call"


def _variant(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A copy of the first-call fixture with ``old`` replaced by ``new`` in kernel.py."""
    folder = Path(shutil.copytree(FIRST, tmp_path / name))
    source = (folder / "kernel.py").read_text()
    assert old in source
    (folder / "kernel.py").write_text(source.replace(old, new))
    return folder


def _gate_check(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, device: str = "cpu") -> str | None:
    """The gate's check of ``folder`` (the worker's job, in this process) on ``device`` (the CPU: Triton's
    interpreter): its failure's message, else ``None``."""
    from kernelopt.harness.model import JobMode, KernelSource, WorkerJob
    from kernelopt.harness.progress import ProgressWriter
    from kernelopt.harness.worker import run_job

    if device == "cpu":
        monkeypatch.setenv("TRITON_INTERPRET", "1")
    else:
        monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "ext"))
    job = WorkerJob(
        mode=JobMode.CHECK,
        reference_py=str(folder / "reference.py"),
        kernels=[KernelSource(label="v0", kernel_py=str(folder / "kernel.py"), build_dir=str(tmp_path / "build"))],
        progress_path=str(tmp_path / f"{folder.name}.jsonl"),
        result_path=str(tmp_path / f"{folder.name}.json"),
        device=device,
        seeds=1,
    )
    writer = ProgressWriter(tmp_path / f"{folder.name}.jsonl", time.monotonic)
    try:
        result = run_job(job, writer)
    finally:
        writer.close()
    return result.failure.message if result.failure else None


def test_the_gate_names_a_kernel_wrong_on_its_first_call_only_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """break13: a partial sum autotuned without ``reset_to_zero`` is wrong on the first call at each new key (the
    autotuner's BLOCK=16 run leaves partials past the picked config's grid) and right after. The gate's check is
    that first call (a fresh process); it said only "output differs", now it names the cause and the fix. The same
    kernel with ``reset_to_zero`` passes; one wrong on every call keeps the plain line."""
    message = _gate_check(FIRST, tmp_path, monkeypatch)
    assert message is not None
    assert "wrong on its first call only (the next call is right)" in message
    assert "@triton.autotune of partial_sum benchmarked 3 config(s)" in message
    assert 'Fix: add reset_to_zero=["parts_ptr"]' in message
    fixed = _variant(tmp_path, "fixed", 'key=["n"],', 'key=["n"],\n    reset_to_zero=["parts_ptr"],')
    assert _gate_check(fixed, tmp_path, monkeypatch) is None
    wrong = _variant(tmp_path, "wrong", "tl.sum(x, axis=0))", "tl.sum(x, axis=0) * 2)")
    always = _gate_check(wrong, tmp_path, monkeypatch)
    assert always is not None and "output differs" in always and "first call" not in always


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_a_gpu_the_gate_names_a_kernel_wrong_on_its_first_call_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same on CUDA, where Triton's autotuner benchmarks each config with its own ``do_bench`` (many calls on the
    call's tensors, not the CPU's one): named with the fix; with ``reset_to_zero`` the first call is right."""
    message = _gate_check(FIRST, tmp_path, monkeypatch, device="cuda")
    assert message is not None and "wrong on its first call only" in message, message
    assert 'Fix: add reset_to_zero=["parts_ptr"]' in message
    fixed = _variant(tmp_path, "fixed", 'key=["n"],', 'key=["n"],\n    reset_to_zero=["parts_ptr"],')
    assert _gate_check(fixed, tmp_path, monkeypatch, device="cuda") is None


def test_tune_s_candidate_check_names_a_list_wrong_on_its_first_call_only() -> None:
    """The tuning engine's check of a candidate that keeps an autotune list (a per-bucket table keeps several
    configs) loads it afresh, so its call is the first: the failure says why and how to fix it."""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.checks import LoadedProblem, run_candidate
    from kernelopt.tuning.problem import Problem, ProblemShape

    problem = Problem(reference_py=FIRST / "reference.py", kernel_py=FIRST / "kernel.py", device="cpu")
    with triton_interpreted():  # as a bench worker runs it: the interpreter's fixes (its autotuner) in place
        loaded = LoadedProblem.load(problem, "cpu")
        loaded.build(ProblemShape(kwargs=loaded.shapes[0]))
        candidate, verdict = run_candidate(loaded, FIRST / "kernel.py")
    assert candidate is None and verdict.outcome is Outcome.WRONG_RESULT
    assert verdict.reason is not None and "wrong on its first call only" in verdict.reason
    assert 'reset_to_zero=["parts_ptr"]' in (verdict.reason or "")


def test_the_pointers_a_kernel_writes_through_are_read_from_its_stores_and_atomics() -> None:
    """What the fix names: the parameters in a ``tl.store`` / ``tl.atomic_*`` pointer, not those only loaded."""
    from kernelopt.harness.first_call import written_pointers

    def kernel(x_ptr, out_ptr, lock_ptr, n, BLOCK):
        tl = None
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs))
        tl.atomic_add(lock_ptr, 1)

    assert written_pointers(kernel) == ("out_ptr", "lock_ptr")
    assert written_pointers(len) == ()


def test_a_written_autotune_list_keeps_reset_to_zero_restore_value_and_the_hooks(
    tmp_path: Path,
) -> None:
    """What tune writes into an autotune list (the configs pinned, two of them as a per-bucket table keeps) keeps
    the original's ``reset_to_zero``, ``restore_value``, the list's own ``pre_hook`` and each config's ``pre_hook``, and
    the written kernel is right on its first call (its autotuner benchmarks both configs on the call's tensors)."""
    import ast

    from kernelopt.tunables.edit import pin_configs
    from kernelopt.tunables.model import AutotuneConfig
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.checks import LoadedProblem, run_candidate
    from kernelopt.tuning.problem import Problem, ProblemShape

    folder = _variant(
        tmp_path,
        "hooked",
        '@triton.autotune(\n    configs=[triton.Config({"BLOCK": b}, num_warps=4) for b in (16, 64, 256)],\n'
        '    key=["n"],\n)',
        "def _seen(nargs):\n    nargs['x_ptr'].add_(0)\n\n\n"
        "@triton.autotune(\n"
        '    configs=[triton.Config({"BLOCK": b}, num_warps=4, pre_hook=_seen) for b in (16, 64, 256)],\n'
        '    key=["n"],\n    reset_to_zero=["parts_ptr"],\n    restore_value=["x_ptr"],\n)',
    )
    source = (folder / "kernel.py").read_text()
    tuned = [AutotuneConfig(kwargs={"BLOCK": b}, pre_hook=True, pre_hook_name="_seen") for b in (256, 16)]

    def words(text: str) -> dict[str, str]:
        decorator = next(
            d
            for node in ast.parse(text).body
            if isinstance(node, ast.FunctionDef) and node.name == "partial_sum"
            for d in node.decorator_list
            if isinstance(d, ast.Call) and ast.unparse(d.func) == "triton.autotune"
        )
        return {str(k.arg): ast.unparse(k.value) for k in decorator.keywords}

    written = pin_configs(source, "partial_sum", tuned).new_source
    kept = words(written)
    assert kept["reset_to_zero"] == "['parts_ptr']" and kept["restore_value"] == "['x_ptr']"
    assert kept["configs"].count("pre_hook=_seen") == 2
    # the list's own pre_hook (Triton then runs it instead of its reset and restore: so not in the kernel run below)
    own = source.replace('restore_value=["x_ptr"],', "pre_hook=_seen,")
    assert words(pin_configs(own, "partial_sum", tuned).new_source)["pre_hook"] == "_seen"
    (folder / "kernel.py").write_text(written)
    problem = Problem(reference_py=folder / "reference.py", kernel_py=folder / "kernel.py", device="cpu")
    with triton_interpreted():  # as a bench worker runs it: the interpreter's fixes (its autotuner) in place
        loaded = LoadedProblem.load(problem, "cpu")
        loaded.build(ProblemShape(kwargs=loaded.shapes[0]))
        candidate, verdict = run_candidate(loaded, folder / "kernel.py")
    assert verdict.outcome is Outcome.OK, verdict.reason
    assert candidate is not None
    candidate.release()


def test_a_short_re_time_is_read_in_one_round_for_the_pick_and_the_current() -> None:
    """session._load_only_adds gave each configuration of a short re-time (fewer than MIN_PAIRS rounds) the lower of
    its re-timed and first latency on its own: a pick preempted in the re-time (first 22.6, re-timed 169.8) read
    its first figure, the current (first 83.8, re-timed 60.0) its re-time, and the gain line compared 22.6 with
    60.0 across rounds. One round is read: a short re-time slower than the first measurements anywhere gives way
    to the first round, every configuration alike; a re-time no slower anywhere is read as it ran."""
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.session import _load_only_adds

    def ran(block: int, latency: float, samples: list[float], *, retimed: bool) -> Result:
        return Result(
            config={"BLOCK": block}, outcome=Outcome.OK, latency_us=latency, samples_us=samples, retimed=retimed
        )

    first = [ran(64, 22.6, [22.6] * 5, retimed=False), ran(16, 83.8, [83.8] * 5, retimed=False)]
    again = [ran(64, 169.8, [319.3, 20.3], retimed=True), ran(16, 60.0, [60.0, 60.0], retimed=True)]
    read = {r.config["BLOCK"]: r.latency_us for r in _load_only_adds(again, first)}
    assert read == {64: 22.6, 16: 83.8}  # both the first round's (before: {64: 22.6, 16: 60.0})
    calm = [ran(64, 20.0, [20.0, 20.0], retimed=True), ran(16, 60.0, [60.0, 60.0], retimed=True)]
    assert {r.config["BLOCK"]: r.latency_us for r in _load_only_adds(calm, first)} == {64: 20.0, 16: 60.0}
    unknown = [*again, ran(32, 50.0, [50.0, 50.0], retimed=True)]  # one re-timed with no first figure: the re-time
    assert [r.latency_us for r in _load_only_adds(unknown, first)] == [169.8, 60.0, 50.0]


#: fill12's table of the heuristic's block (n58) and its launching function's form (n57)
LAMBDA = 'lambda args: triton.next_power_of_2(args["n_cols"])'
TABLE = 'lambda args: 1024 if args["n_cols"] <= 1000 else triton.next_power_of_2(args["n_cols"])'
POW2 = "    BLOCK = triton.next_power_of_2(n_cols)\n"
ROWS = "    if n_cols <= 1000:  # kernelopt: tuned\n        BLOCK = 1024\n"
#: the evidence a session has: the original ran masked-out lanes at 200 columns and passed (``folder._ran_masked``)
LIFTED = {("BLOCK", "n_cols"), ("BLOCK", 'args["n_cols"]')}


def _rows_right(kernel: Path, reference: Path, sizes: tuple[int, ...]) -> dict[int, bool]:
    """Whether ``kernel`` matches ``reference`` at 8 rows of each column count, rows of one sign each (Triton's
    interpreter): the rows a fill of 0.0 under a max (negative rows) or a min (positive rows) gets wrong."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    with triton_interpreted():
        ref, ker = load_fresh(reference, "_l13_ref"), load_fresh(kernel, "_l13_ker")
        out = {}
        for n in sizes:
            (x,) = ref.get_inputs(m=8, n_cols=n)
            x = torch.cat([x.abs()[:4] + 0.1, -x.abs()[4:] - 0.1])
            out[n] = bool(torch.equal(ker.run(x), ref.reference(x)))
    return out


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("name", "old", "new"),
    [("rowmin_flagfill", LAMBDA, TABLE), ("rowmax_helper", POW2, POW2 + ROWS)],
)
def test_a_fixed_fill_through_a_flag_or_a_helper_is_never_lifted(tmp_path: Path, name: str, old: str, new: str) -> None:
    """fill12's leftover: the rule that a max or min over a fixed ``other=`` fill is never lifted by a run's evidence
    read the fill only as a literal at the load. rowmin_flagfill chooses it by a constexpr flag (``float("-inf") if
    IS_MAX else 0.0``, run with the min): the fill read as unknown, the evidence lifted it, and the table of 1024 a
    session picking BLOCK=1024 writes was written, wrong at 2, 4 and 8 columns where the original's block fills the
    row (rows of one sign).
    rowmax_helper loads its row in a ``@triton.jit`` helper (``other=0.0``): the kernel's own store unmasked, it was read as
    a kernel without masks (and the helper's return was not followed), so the table was written without any evidence. Both are refused now, with the reason;
    the original is right at those sizes."""
    from kernelopt.tunables.guard import BY_DATA_FILL, guard_edit

    folder = DATA / name
    original = (folder / "kernel.py").read_text()
    table = tmp_path / "table.py"
    table.write_text(original.replace(old, new))
    assert table.read_text() != original
    sizes = (2, 4, 8)  # the original's block fills these rows
    assert _rows_right(folder / "kernel.py", folder / "reference.py", sizes) == dict.fromkeys(sizes, True)
    assert _rows_right(table, folder / "reference.py", sizes) == dict.fromkeys(sizes, False)
    for evidence in (set(), LIFTED):
        refused = guard_edit(original, table.read_text(), ran_masked=evidence)
        assert refused.new_source is None, (evidence, refused)
    assert BY_DATA_FILL in (guard_edit(original, table.read_text(), ran_masked=LIFTED).note or "")


def test_the_fill_rule_follows_a_flag_s_branch_and_a_helper_s_returned_fill() -> None:
    """The same rule through the other routes a fill takes: a fill a helper returns (``other=_fill()``), a max under
    ``if IS_MAX:`` in a heuristic's kernel (whose ``if FLAG:`` branches the lanes skipped: a heuristic knows no
    launch), each never lifted; a flag choosing between the identities (``-inf`` / ``+inf``) is no fixed value, so
    the evidence still lifts it, and a helper returning the max's identity needs none."""
    from kernelopt.tunables.guard import BY_DATA_FILL, guard_edit

    flagged = (DATA / "rowmin_flagfill" / "kernel.py").read_text()
    helper = (DATA / "rowmax_helper" / "kernel.py").read_text()

    def judged(old: str, new: str, evidence: set[tuple[str, str]]) -> tuple[bool, str]:
        verdict = guard_edit(old, old.replace(*new), ran_masked=evidence)
        return verdict.new_source is not None, verdict.note or ""

    returned = helper.replace(
        "@triton.jit\ndef _load_row", "@triton.jit\ndef _fill():\n    return 0.0\n\n\n@triton.jit\ndef _load_row"
    ).replace("other=0.0)", "other=_fill())")
    assert judged(returned, (POW2, POW2 + ROWS), LIFTED) == (False, judged(helper, (POW2, POW2 + ROWS), LIFTED)[1])
    branch = flagged.replace(
        "    tl.store(y_ptr + row, tl.max(x, axis=0) if IS_MAX else tl.min(x, axis=0))",
        "    if IS_MAX:\n        r = tl.max(x, axis=0)\n    else:\n        r = tl.min(x, axis=0)\n    tl.store(y_ptr + row, r)",
    )
    written, note = judged(branch, (LAMBDA, TABLE), LIFTED)
    assert not written and BY_DATA_FILL in note
    identities = flagged.replace("if IS_MAX else 0.0)", 'if IS_MAX else float("inf"))')
    assert judged(identities, (LAMBDA, TABLE), set())[0] is False  # unknown without evidence
    assert judged(identities, (LAMBDA, TABLE), LIFTED)[0] is True  # lifted by it
    neutral = helper.replace("other=0.0)", 'other=float("-inf"))')
    assert judged(neutral, (POW2, POW2 + ROWS), set())[0] is True


@pytest.mark.timeout(120)
def test_transformer_engine_s_called_autotune_list_is_tuned_where_the_file_writes_it(tmp_path: Path) -> None:
    """breaker12's te_permute applies its list by a call after the definition, inside ``try: ... except
    RuntimeError: pass`` (Transformer Engine's form); it was listed refused ("kernelopt edits only a decorator's
    list"). It is now read as the decorator it stands for (discovery, the list's filters, the guard's rules on a
    decorator's configs) and written where the file holds it: the ``try`` kept, no decorator added, the guard's
    verdict the same as on the decorator's form (a block whose grid passes the GPU's axis limit refused), and the
    written two-config list (a per-bucket table's) right at sizes no SHAPES entry names."""
    import torch

    from kernelopt.tunables.called_autotune import as_decorators
    from kernelopt.tunables.edit import pin_configs
    from kernelopt.tunables.guard import guard_edit
    from kernelopt.tunables.model import AutotuneConfig
    from tests.conftest import load_fresh, triton_interpreted

    te = Path(__file__).parent / "data" / "breaker12" / "te_permute"
    source = (te / "kernel.py").read_text()
    tuned = [AutotuneConfig(kwargs={"BLOCK_SIZE": b}) for b in (256, 4096)]
    written = pin_configs(source, "_permute_kernel", tuned).new_source
    assert "try:\n    _permute_kernel = triton.autotune(\n        configs=[" in written
    assert "except RuntimeError:\n    pass" in written and "@triton.autotune" not in written
    assert written.count('triton.Config({"BLOCK_SIZE"') == 2
    assert guard_edit(source, written).new_source == written
    # the guard's rules read the called list as a decorator's: a block of 32 puts more programs on grid axis 1 than
    # the 64 the original's smallest config allows at the sizes it handled
    small = pin_configs(source, "_permute_kernel", [AutotuneConfig(kwargs={"BLOCK_SIZE": 32})]).new_source
    refused = guard_edit(source, small)
    assert refused.new_source is None and "65535" in (refused.note or ""), refused
    as_decorator = as_decorators(written)
    assert as_decorator is not None and "@triton.autotune(" in as_decorator and "try:\n    pass\n" in as_decorator
    folder = Path(shutil.copytree(te, tmp_path / "te"))
    (folder / "kernel.py").write_text(written)
    with triton_interpreted():
        ref = load_fresh(folder / "reference.py", "_l13_te_ref")
        ker = load_fresh(folder / "kernel.py", "_l13_te_ker")
        for shape in ({"T": 5, "E": 3, "H": 77}, {"T": 2, "E": 8, "H": 300}):
            inputs = ref.get_inputs(**shape)
            got, want = ker.run(*[t.clone() for t in inputs]), ref.reference(*inputs)
            assert all(torch.equal(g, w) for g, w in zip(got, want, strict=True)), shape


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_a_gpu_transformer_engine_s_written_called_list_is_right(tmp_path: Path) -> None:
    """The two-config list written into te_permute's ``try`` compiles and is right on CUDA at sizes no entry names,
    a small one and TE's realistic 4096 tokens x 4096 hidden."""
    from kernelopt.tunables.edit import pin_configs
    from kernelopt.tunables.model import AutotuneConfig
    from tests.gpu_correct import assert_correct
    from tests.test_breaker7_cases import _outputs_checked

    te = Path(__file__).parent / "data" / "breaker12" / "te_permute"
    tuned = [AutotuneConfig(kwargs={"BLOCK_SIZE": b}) for b in (256, 4096)]
    written = tmp_path / "kernel.py"
    written.write_text(pin_configs((te / "kernel.py").read_text(), "_permute_kernel", tuned).new_source)
    shapes = [{"T": 11, "E": 3, "H": 33}, {"T": 4096, "E": 8, "H": 4096}]
    assert_correct(te, shapes, _outputs_checked, kernel_py=written)
