"""The twelfth session's correctness leftovers (leftovers13, 2026-12-06; docs/faults.md, "The last session's
correctness leftovers, thirteenth session"): a kernel wrong on its first call only, named with its cause and fix;
each comparison of the session in one round of measurements; Transformer Engine's called autotune; fills reached
through a flag or a call."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "leftovers13"
FIRST = DATA / "first_call"


def _variant(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A copy of the first-call fixture with ``old`` replaced by ``new`` in kernel.py."""
    folder = Path(shutil.copytree(FIRST, tmp_path / name))
    source = (folder / "kernel.py").read_text()
    assert old in source
    (folder / "kernel.py").write_text(source.replace(old, new))
    return folder


def _gate_check(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """The gate's check of ``folder`` (the worker's job, in this process): its failure's message, else ``None``."""
    from kernelopt.harness.model import JobMode, KernelSource, WorkerJob
    from kernelopt.harness.progress import ProgressWriter
    from kernelopt.harness.worker import run_job

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "ext"))
    job = WorkerJob(
        mode=JobMode.CHECK,
        reference_py=str(folder / "reference.py"),
        kernels=[KernelSource(label="v0", kernel_py=str(folder / "kernel.py"), build_dir=str(tmp_path / "build"))],
        progress_path=str(tmp_path / f"{folder.name}.jsonl"),
        result_path=str(tmp_path / f"{folder.name}.json"),
        device="cpu",
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


def test_tune_s_candidate_check_names_a_list_wrong_on_its_first_call_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tuning engine's check of a candidate that keeps an autotune list (a per-bucket table keeps several
    configs) loads it afresh, so its call is the first: the failure says why and how to fix it."""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.checks import LoadedProblem, run_candidate
    from kernelopt.tuning.problem import Problem, ProblemShape

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    problem = Problem(reference_py=FIRST / "reference.py", kernel_py=FIRST / "kernel.py", device="cpu")
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
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
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
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    problem = Problem(reference_py=folder / "reference.py", kernel_py=folder / "kernel.py", device="cpu")
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
