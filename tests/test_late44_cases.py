"""Lane late44 (2026-12-07): a tile a pick raises, in a kernel whose tiles sizes of the problem span too, is written
only up to the sizes the ``SHAPES`` entries checked, the original's values past them (docs/faults.md, "On-chip limits
past the entries")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "breaker25"


@pytest.mark.timeout(120)
def test_l140_a_raised_tile_beside_the_head_s_sizes_is_set_under_the_sizes_checked(tmp_path: Path) -> None:
    """Seen on 2026-12-07 (H100, gpurec25): la_nodecay's written form for ``BLOCK=128, CBLOCK=128`` (Lightning
    Attention's backward, its ``[BLOCK, d]`` and ``[e, d]`` tiles, ``d`` and ``e`` the head's sizes as
    ``tl.constexpr``) raised "out of resource: shared memory, Required: 458752, Hardware limit: 232448" at
    D=E=128, where the original's ``BLOCK = 64`` runs: the SHAPES entries (D, E at most 32 and 64) were the only sizes
    the pick was compiled at, and it was written for every size. The raise is read beside ``d`` and ``e`` in both
    backward kernels (not ``n``, which spans no tile; not a lowered block), set under ``d <= 32 and e <= 64`` as the
    writer sets it, and in the interpreter the written kernel runs the pick within that bound and the original's blocks
    past it, right there. (``tune``'s own text for this pick: breaker25's ``test_the_gpu_picks_are_written_on_the_cpu``.)"""
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.autotune_worker import _LaunchRecorder
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import bound_moves, guard_edit
    from kernelopt.tunables.size_tiles import bound_test, needs_sizes, raised_sizes
    from tests.conftest import load_fresh, triton_interpreted
    from tests.test_breaker7_cases import _all_correct

    folder = Path(shutil.copytree(DATA / "la_nodecay", tmp_path / "la_nodecay"))
    source = (folder / "kernel.py").read_text()
    found = discover_source(source)
    assert needs_sizes(found, source)  # the run at the SHAPES entries tells d and e there
    keys = ("_bwd_intra_kernel:BLOCK",), ("_bwd_inter_kernel:CBLOCK",)
    raised = raised_sizes({"BLOCK": (keys[0], 64, 128), "CBLOCK": (keys[1], 32, 128)}, source, found)
    assert raised == {"_bwd_intra_kernel": ["d", "e"], "_bwd_inter_kernel": ["d", "e"]}, raised
    assert raised_sizes({"BLOCK": (keys[0], 64, 32)}, source, found) == {}  # a smaller tile fits where the original did
    plain = apply_source(source, {"BLOCK": 128, "CBLOCK": 128}, kernel="_bwd_inter_kernel").new_source
    bounded = bound_moves(source, plain, bound_test({"d": 32, "e": 64}), at_launch=True).new_source
    text = guard_edit(source, bounded).new_source
    assert text is not None
    assert "        BLOCK = 64\n        if d <= 32 and e <= 64:  # kernelopt: tuned\n            BLOCK = 128\n" in text
    assert (
        "        if d <= 32 and e <= 64 and BLOCK % 128 == 0:  # kernelopt: tuned\n            CBLOCK = 128\n" in text
    )
    (folder / "kernel.py").write_text(text)
    within, past = {"B": 1, "H": 1, "N": 129, "D": 16, "E": 16}, {"B": 1, "H": 1, "N": 65, "D": 16, "E": 128}
    ref = load_fresh(folder / "reference.py", "_late44_ref")
    for size, blocks in ((within, (128, 128)), (past, (64, 32))):
        with triton_interpreted():
            kernel = load_fresh(folder / "kernel.py", "_late44_ker")
            recorder = _LaunchRecorder(str((folder / "kernel.py").resolve()))
            with recorder:
                kernel.run(*ref.get_inputs(**size))
        ran = recorder.launches["_bwd_inter_kernel"]
        assert (ran["BLOCK"], ran["CBLOCK"]) == blocks, (size, ran)
    _all_correct(folder, [past])


def test_l142_a_guard_reading_a_block_an_earlier_row_set_reads_the_row_s_value() -> None:
    """Seen on 2026-12-07 with l140's text: ``judge_as_written`` read ``if d <= 32 and e <= 64 and BLOCK % 128 == 0:``
    (``CBLOCK = 128``) with ``BLOCK`` at 64, the value the original's run gave it at the launch, below the row that sets
    ``BLOCK = 128`` where ``d <= 32 and e <= 64``: "as written it runs BLOCK=128, CBLOCK=32 ...: a configuration never
    timed there: not written". A test reads what the rows above it in its function set; past them, the launch's."""
    from kernelopt.tunables.guard_holds import guard_run

    text = (
        "def backward(x, d):\n"
        "    BLOCK = 64\n"
        "    if d <= 32:  # kernelopt: tuned\n"
        "        BLOCK = 128\n"
        "    CBLOCK = 32\n"
        "    if d <= 32 and BLOCK % 128 == 0:  # kernelopt: tuned\n"
        "        CBLOCK = 128\n"
        "    kernel[(1,)](x, d, BLOCK=BLOCK, CBLOCK=CBLOCK)\n"
    )
    for d, held in ((32, {"BLOCK": 128, "CBLOCK": 128}), (128, {})):
        launch = {"d": d, "BLOCK": 64, "CBLOCK": 32}  # the original's run
        ran = guard_run(text, launch.get)
        assert ran is not None and ran.held == held, (d, ran)
