"""review22: this session's diff reviewed (docs/faults.md, "This session's diff reviewed (review22, 2026-12-07)")."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

# ------------------------------------------------- r21: the net's verdict is kept for every source, not kernel.py's


def test_r21_the_net_s_verdict_of_a_rewrite_is_not_read_for_a_changed_helper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """l18 kept the net's verdict of an agent's rewrite by kernel.py's bytes, for Stage 3's check and the gate. A plan
    may change a helper module (``aux_files_of``) and leave kernel.py as it was: the verdict of the kernel before
    (a pass) was read for the new one, whose helper the net never ran. Now it is kept by the digest of every source
    the kernel is built and checked from; the same sources still read the kept verdict (one net a rewrite)."""
    from kernelopt.loop import wiring
    from tests.test_late31_cases import net_workspace

    root = tmp_path / "ws"
    root.mkdir()
    (root / "kernel.py").write_text("from helper import scale\n")
    (root / "reference.py").write_text("SHAPES = [{'n': 4}]\n")
    (root / "helper.py").write_text("scale = 2\n")
    cast: list[tuple[str, str]] = []

    def check_code_change(folder: Path, original: str, written: str, **kw: object) -> SimpleNamespace:
        helper = (folder / "helper.py").read_text()
        cast.append((helper, Path(str(kw["session_dir"])).name))
        wrong = "3" in helper  # the helper changed wrong at a size SHAPES does not name
        said = "the written kernel fails at n=5" if wrong else "checked at sizes the SHAPES entries do not name"
        return SimpleNamespace(failed=said if wrong else None, checks=[said], line=lambda: said)

    monkeypatch.setattr(wiring, "check_code_change", check_code_change)
    v0 = {
        "kernel.py": b"the kernel as written\n",
        "reference.py": b"SHAPES = [{'n': 4}]\n",
        "helper.py": b"scale = 2\n",
    }
    workspace = net_workspace(root, v0)
    gate = wiring.HarnessGate(device="cpu", net=True)
    assert gate._net(workspace, None).failed is None  # type: ignore[arg-type]
    assert gate._net(workspace, "v1").failed is None  # type: ignore[arg-type]  # the same sources: read again
    assert len(cast) == 1
    (root / "helper.py").write_text("scale = 3\n")  # kernel.py's bytes as they were
    read = gate._net(workspace, None)  # type: ignore[arg-type]
    assert read.failed is not None and read.failed.startswith("correct at the timed sizes only"), read
    assert [h for h, _ in cast] == ["scale = 2\n", "scale = 3\n"]
    assert cast[0][1] != cast[1][1] and all(name.startswith("check-") for _, name in cast)  # a session folder each


# ------------------------------------------------- r22: tune's float64 re-check reads an overflow as the gate does


def test_r22_tune_s_recheck_reads_an_overflow_inside_the_reference_as_the_gate_does(tmp_path: Path) -> None:
    """b56 checked a candidate refused on its values again with the reference's float64 run, the gate's reading; it
    read the reference's own error from that pair alone, where the gate reads it from a run rounding as fp16 does
    without its range when an operation overflowed (x8). x8's ``x / nan_to_num(x.sum(1))`` in fp16: the recheck
    widened the tolerance x176 and a candidate 10 % off passed tune's check (and so the code net), which the gate
    fails. Now both read the one rule (``highrun.rounded_reading``): the 10 % candidate fails, the reference's own code
    and a float32 quotient pass, as in the gate (x8's test)."""
    from kernelopt.tuning.checks import LoadedProblem, check_run, load_candidate
    from kernelopt.tuning.problem import Problem, ProblemShape
    from tests.test_verdicts22_cases import _OWN_QUOTIENT, _SUMS, QUOTIENTS

    (tmp_path / "reference.py").write_text(_SUMS.format(cls="Model", body=_OWN_QUOTIENT))
    (tmp_path / "kernel.py").write_text(_SUMS.format(cls="ModelNew", body=_OWN_QUOTIENT))
    loaded = LoadedProblem.load(
        Problem(reference_py=tmp_path / "reference.py", kernel_py=tmp_path / "kernel.py"), "cpu"
    )
    loaded.build(ProblemShape(kwargs={}))
    for name, (body, passes) in sorted(QUOTIENTS.items()):
        candidate_py = tmp_path / f"candidate_{len(name)}.py"
        candidate_py.write_text(_SUMS.format(cls="ModelNew", body=body))
        candidate, verdict = load_candidate(loaded, candidate_py)
        assert candidate is not None, verdict
        reason = check_run(loaded, candidate, verdict).reason
        assert (reason is None) is passes, (name, reason)
        if not passes:
            assert reason is not None and "beyond tolerance" in reason and "rel_err 0.1" in reason, reason


# ------------------------------------------------- r23: a refusal reads every record of a folder's lock


def test_r23_a_refusal_names_the_live_run_behind_the_records_of_killed_ones(tmp_path: Path) -> None:
    """z71 names the records whose pid holds the lock, but read the first 128 bytes of the file: runs of a folder
    killed one after another (``kill -9``: no end removes the file) left their records, and a live run's, added after
    them, lay past those bytes; the refusal named the last dead record read instead ("pid 4246"). Now the file is read
    whole (up to 64 KiB): the live run is named."""
    import fcntl
    import os

    from kernelopt.errors import UsageError
    from kernelopt.workspace import folder_lock
    from tests.test_late29_cases import _hold

    folder = tmp_path / "add"
    lock = folder_lock(folder, command="tune", hint="")
    lock.path.parent.mkdir(parents=True, exist_ok=True)
    dead = "".join(f"{pid} 1796600000 optimize\n" for pid in range(4240, 4247)).encode()  # killed runs' records
    held = _hold(lock.path, fcntl.LOCK_SH, dead + f"{os.getpid()} 1796603600 optimize\n".encode())
    try:
        with pytest.raises(UsageError) as refused:
            lock.acquire()
        assert f"(pid {os.getpid()}) since 2026-12-07" in refused.value.one_line(), refused.value.one_line()
        assert f"(pid {os.getpid()})" in (lock.holder() or "")
    finally:
        os.close(held)
        lock.path.unlink()
