"""netsafe20: what the net takes as "the original fails there too" (docs/faults.md, "What the net takes as a
refusal"). Each test is a finding's case: s1, s2, s3."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.net import DerivedSize, SizeClass, cast
from kernelopt.tuning.problem import ProblemShape

WRONG = "output not written: 1024 of 3072 elements still hold the poison pattern"


def _sizes(kind: SizeClass, bisect: bool = False) -> list[DerivedSize]:
    return [DerivedSize(kind=kind, tries=(ProblemShape(kwargs={"n": 3072}), ProblemShape(kwargs={"n": 1536})),
                        bisect=bisect)]  # fmt: skip


# ------------------------------------------- s1: the original's crash or the host's memory is no refusal of the size


@pytest.mark.parametrize("kind", [SizeClass.PAST, SizeClass.FLOOR])
@pytest.mark.parametrize(
    ("theirs", "why", "refusal"),
    [
        (Outcome.WORKER_CRASH, "the worker died (SIGKILL) without a reply", False),
        (Outcome.OUT_OF_MEMORY, "out of memory while checking: MemoryError: std::bad_alloc", False),
        (Outcome.OUT_OF_MEMORY, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", True),
        (Outcome.RUN_ERROR, "AssertionError: n % 1024 != 0", True),
    ],
)
def test_s1_a_written_kernel_wrong_where_the_original_s_run_failed_for_the_machine_is_unchecked_not_refused(
    kind: SizeClass, theirs: Outcome, why: str, refusal: bool
) -> None:
    """The net runs the original where the written kernel failed, to tell a size the original refuses from one it
    handles; any outcome but ``ok`` and (break19's b23) ``run_timeout`` was "the original fails there too", so a worker
    that died (the OOM killer, a signal) or the host's ``std::bad_alloc`` on the loaded machine passed the written
    kernel's wrong result over in silence: no failure, no unchecked size. Now such an outcome is no verdict: the size
    is unchecked, named in the verdict and its line with its own cure; what the original raises itself (its assert, a
    device's out-of-memory, which a size's own bytes cause) is still its refusal."""
    asked: list[str] = []

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        asked.append(f"{source} {shape.label()}")
        return (Outcome.WRONG_RESULT, WRONG) if source == "written" else (theirs, why)

    net = cast(_sizes(kind), "original", "written", check_at)
    assert net.failed is None, net.line()
    assert asked[:2] == ["written n=3072", "original n=3072"]
    if refusal:
        assert net.unchecked == [] and net.unchecked_line() is None, net
        assert f"the original fails there too: {theirs}: {why}" in net.line()
        return
    assert [c.shape.kwargs["n"] for c in net.unchecked] == [3072], net.line()
    assert net.checks[0].machine and not net.checks[0].limit
    assert asked == ["written n=3072", "original n=3072"]  # no try after it: the size's verdict is not known
    assert f"the written kernel failed (wrong_result: {WRONG}) where the original's run failed for the machine's " in (
        net.line()
    )
    assert net.unchecked_line() == (
        "the net did not check the written kernel at 1 of its 1 sizes where the original's run failed for the "
        "machine's reason (n=3072): it is unchecked there, where the original may run; a rerun on a machine less "
        "loaded checks them"
    )


# ------------------------------------ s2: reference.py's build past its limit in a ladder or a bisect is no refusal


@pytest.mark.parametrize(("kind", "bisect"), [(SizeClass.FLOOR, False), (SizeClass.RESIDUE, True)])
def test_s2_reference_py_s_build_past_its_limit_in_a_ladder_or_bisect_leaves_the_size_unchecked(
    kind: SizeClass, bisect: bool
) -> None:
    """b24 marks a size unchecked where reference.py's build of it has no reply within the request's limit, in
    ``check``; the ladder (far, residue, floor, constant sizes) and the bisect (the joint residue) took the same as a
    size reference.py cannot build, stepped over (the next try's smaller size checked as if the original refused the
    first) or the size skipped with no word. Now both stop there, unchecked for a request's limit, its cure named."""
    built: list[int] = []

    def build_at(shape: ProblemShape) -> tuple[Outcome, str | None]:
        built.append(shape.kwargs["n"])
        return (Outcome.RUN_TIMEOUT, "no reply within 60 s") if shape.kwargs["n"] == 3072 else (Outcome.OK, None)

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        return Outcome.OK, None

    net = cast(_sizes(kind, bisect), "original", "written", check_at, build_at=build_at)
    assert built == [3072], built  # no build of a smaller stand-in after the limit
    assert net.checks[0].passed is None and net.checks[0].limit, net
    assert "n=3072: reference.py did not build it within the limit: no reply within 60 s" in net.line()
    assert "with no reply within a request's limit (n=3072)" in (net.unchecked_line() or "")


# ----------------------------------------------- s3: a keyed list's row that cannot be pinned alone is not written


def test_s3_a_keyed_list_s_row_that_cannot_be_pinned_alone_refuses_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """wrongkernel19's v82 nets each row of a keyed list's table pinned alone; a row it could not pin was skipped
    (``continue``), and the table written with that row un-netted, though its autotuner may run it at any key
    (review19's seen item; unreachable with today's ``pin_config(..., force=True)``). Now it refuses the write."""
    from kernelopt.tuning import folder as tf
    from tests.test_wrongkernel17_cases import VARIANTS
    from tests.test_wrongkernel19_cases import _keyed_table_session

    folder = Path(shutil.copytree(VARIANTS / "tail_keyed_list", tmp_path / "tail_keyed_list"))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    tuning = _keyed_table_session(prepared, [({"BLOCK": 128, "TAIL": 128}, (10.0, 100.0)),
                                             ({"BLOCK": 64, "TAIL": 32}, (5.0, 200.0))])  # fmt: skip
    rows = tf._keyed_table_rows(tuning)
    assert rows == [{"BLOCK": 64, "TAIL": 32}], rows
    edit, _ = tf.shaped_edit(tuning)
    assert edit is not None
    monkeypatch.setattr(tf, "_pinned_one", lambda _: None)
    done = tf._keyed_rows_checked(tuning, None, edit, None, rows, {}, None, None)  # type: ignore[arg-type]
    assert done == (
        None, "the keyed list's row BLOCK=64, TAIL=32 cannot be pinned alone to be checked: not written", None, None,
        None,
    )  # fmt: skip
