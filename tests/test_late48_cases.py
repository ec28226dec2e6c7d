"""Lane late48 (2026-12-07): late44's bound on a raised tile beside the problem's sizes written where the launching
function binds those sizes only below the tile's line (docs/faults.md, "A size bound below the tile's line").

The CPU rehearsal of 2026-12-07 18:00 UTC (``KERNELOPT_GPU_PICKS=1``) lost breaker12's LightLLM pick (``BLOCK_N=128``)
and breaker13's SGLang pick (``BLOCK_H=32, BLOCK_N=64``): the bound (``args["BLOCK_DMODEL"] <= 128``, the SHAPES
entries' largest head block) could not be read at ``BLOCK = 32``, the launcher's first line, above ``Lk``, nor at
SGLang's ``BLOCK_H = 16``, its head block bound in each branch of an ``if Lk == 576:`` chain and passed beside
``**extra_kargs``. No ``triton.heuristics`` lambda was involved. ``tune``'s own texts for both picks:
``tests/test_gpu_picks.py``'s costly check; here the writer (``guard.bound_moves``, as ``folder._size_bounded`` calls
it with ``size_tiles.bound_test``) on the two kernels as the trials hold them, and the written kernels in Triton's
interpreter at small sizes.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
LIGHTLLM = DATA / "breaker12" / "lightllm_tokatt"
SGLANG = DATA / "breaker13" / "sgl_decode_grouped"

#: a row the bound writes: ``if <test>:  # kernelopt: tuned`` and its one line
_ROW = re.compile(r"^( *)if [^\n]*:  # kernelopt: tuned\n\1    [^\n]*\n", re.MULTILINE)


def _bounded(folder: Path, moves: dict[str, tuple[str, str]], bounds: dict[str, int]) -> tuple[str, str, str]:
    """The folder's kernel.py, and the text and note the writer gives for the literal lines ``moves`` (name -> the
    line as written, the pick's) under the sizes ``bounds`` (the SHAPES entries' largest). (``tune`` then asks
    ``guard_edit`` of it, 1-3 s on these kernels: the costly check of tests/test_gpu_picks.py runs that whole path.)"""
    from kernelopt.tunables.guard import bound_moves
    from kernelopt.tunables.size_tiles import bound_test

    source = (folder / "kernel.py").read_text()
    plain = source
    for old, new in moves.values():
        assert plain.count(old) == 1, old
        plain = plain.replace(old, new)
    bounded = bound_moves(source, plain, bound_test(bounds), at_launch=True)
    assert bounded.new_source is not None, bounded.note
    return source, bounded.new_source, bounded.note or ""


def _checked(folder: Path, text: str, size: dict[str, int], kernel: str) -> dict[str, object]:
    """The arguments ``text`` (a kernel.py of ``folder``) launches ``kernel`` with at ``size`` in the interpreter, its
    output checked against the reference there (breaker7's check: inputs and outputs fenced by NaN)."""
    from kernelopt.tunables.autotune_worker import _LaunchRecorder
    from tests.conftest import triton_interpreted
    from tests.test_breaker7_cases import _correct_padded

    (folder / "kernel.py").write_text(text)
    with triton_interpreted():
        recorder = _LaunchRecorder()
        with recorder:
            got = _correct_padded(folder, [size])
    assert list(got.values()) == [True], got
    return recorder.launches[kernel]


@pytest.mark.timeout(120)
def test_l170_a_bound_on_a_size_bound_below_the_tile_s_line_moves_the_line_below_it(tmp_path: Path) -> None:
    """LightLLM's ``token_att_fwd``: ``BLOCK = 32`` then ``Lq, Lk = q.shape[-1], k.shape[-1]``; ``BLOCK_DMODEL=Lk``
    at the launch. Before: "BLOCK=128 cannot be set under args["BLOCK_DMODEL"] <= 128 (Lk is not known where it is
    set)", the pick not written. Now ``BLOCK = 32``, unchanged, moves below the line that binds ``Lk`` (nothing between
    reads or sets ``BLOCK``) and the row follows it; with the row taken out, the text is the original's with those two
    lines swapped: past the entries the launcher runs the original's statements. In the interpreter the pick runs at a
    head size of 16 and is right (the launcher's ``assert Lk in {16, 32, 64, 128}`` leaves no size past the bound)."""
    source, text, note = _bounded(LIGHTLLM, {"BLOCK": ("    BLOCK = 32\n", "    BLOCK = 128\n")}, {"BLOCK_DMODEL": 128})
    lines = "    BLOCK = 32\n    Lq, Lk = q.shape[-1], k.shape[-1]\n"
    assert "    Lq, Lk = q.shape[-1], k.shape[-1]\n    BLOCK = 32\n    if Lk <= 128:  # kernelopt: tuned\n" in text
    assert _ROW.sub("", text) == source.replace(lines, "    Lq, Lk = q.shape[-1], k.shape[-1]\n    BLOCK = 32\n")
    assert "BLOCK=128 only where Lk <= 128" in note and "line 75 moved below line 76" in note, note
    folder = Path(shutil.copytree(LIGHTLLM, tmp_path / "lightllm_tokatt"))
    size = {"B": 2, "HQ": 2, "HK": 1, "D": 16, "S": 9}
    assert _checked(folder, text, size, "_fwd_kernel_token_att1")["BLOCK_N"] == 128


@pytest.mark.timeout(120)
def test_l171_a_bound_read_after_a_chain_of_branches_and_past_a_user_s_override(tmp_path: Path) -> None:
    """SGLang's ``_decode_grouped_att_m_fwd``: ``BLOCK = 32``, then ``Lk``/``Lv``, ROCm's override ``if _is_hip and
    Lk >= 576:`` / ``BLOCK = 16``, the head blocks from an ``if Lk == 576:`` / ``elif`` / ``else`` chain, then
    ``BLOCK_H = 16``; the launch passes ``BLOCK_DMODEL=BLOCK_DMODEL`` beside ``**extra_kargs``. Before: "BLOCK_H=32
    cannot be set under ... (args is not known where it is set, and the launch passes no argument it reads again the
    same)": a keyword beside ``**`` was read as not passed, and a name bound in three branches as not read again the
    same, though every binding is above the row. Now ``BLOCK_H``'s row follows its line; ``BLOCK = 32`` moves below
    the chain with ROCm's override after its row (the override still wins where it runs), and with the rows taken out
    the statements are the original's in their order. In the interpreter the pick runs at a head of 16, the
    original's blocks at 129 (past the entries' 128: ``BLOCK_DMODEL`` 256), each right."""
    moves = {"BLOCK": ("    BLOCK = 32\n", "    BLOCK = 64\n"), "BLOCK_H": ("    BLOCK_H = 16\n", "    BLOCK_H = 32\n")}
    source, text, note = _bounded(SGLANG, moves, {"BLOCK_DMODEL": 128, "BLOCK_DPE": 0, "BLOCK_DV": 128})
    test = "BLOCK_DMODEL <= 128 and BLOCK_DPE <= 0 and BLOCK_DV <= 128"
    assert f"    BLOCK_H = 16\n    if {test}:  # kernelopt: tuned\n        BLOCK_H = 32\n" in text
    override = "\n    # [TODO] work around shmem limit on MI3xx\n    if _is_hip and Lk >= 576:\n        BLOCK = 16\n"
    assert f"    BLOCK = 32\n    if {test}:  # kernelopt: tuned\n        BLOCK = 64\n{override}" in text
    unrowed = _ROW.sub("", text)
    kept = [ln for ln in source.splitlines() if ln.strip()]
    assert sorted(kept) == sorted(ln for ln in unrowed.splitlines() if ln.strip())  # the original's lines, no other
    order = [unrowed.index(s) for s in ("    BLOCK = 32\n", "    if _is_hip and Lk >= 576:", "    BLOCK_H = 16\n")]
    assert order == sorted(order) and unrowed.index("    BLOCK_DV = ") < order[0]
    assert "line 144 and line 149 moved below line 161" in note, note
    folder = Path(shutil.copytree(SGLANG, tmp_path / "sgl_decode_grouped"))
    within = {"B": 1, "HQ": 2, "HK": 1, "D": 16, "S": 9, "P": 1}
    past = {"B": 1, "HQ": 2, "HK": 1, "D": 129, "S": 3, "P": 1}
    for size, blocks in ((within, (64, 32)), (past, (32, 16))):
        ran = _checked(folder, text, size, "_fwd_grouped_kernel_stage1")
        assert (ran["BLOCK_N"], ran["BLOCK_H"]) == blocks, (size, ran)


def test_l172_the_line_does_not_move_past_a_read_of_its_tile_and_the_note_names_the_override() -> None:
    """Where a statement reads the tile before the sizes are bound (the grid counted by ``BLOCK`` above ``Lk``), the
    line cannot move past it: the grid would count tiles of the original and the launch run the pick's. Refused as
    before. Where the statement that ends the moves sets the tile itself and is not one that can move (an override
    that also sets another name), the note says so."""
    from kernelopt.tunables.guard import bound_moves
    from kernelopt.tunables.size_tiles import bound_test

    source = (LIGHTLLM / "kernel.py").read_text()
    grid = "    grid = (batch, head_num, triton.cdiv(max_len_in_batch, BLOCK))\n"
    early = source.replace(grid, "").replace(
        "    BLOCK = 32\n", f"    BLOCK = 32\n    batch = B_req_idx.shape[0]\n{grid}"
    )
    early = early.replace("    batch, head_num = B_req_idx.shape[0], q.shape[1]\n", "    head_num = q.shape[1]\n")
    early = early.replace(grid, grid.replace("head_num", "q.shape[1]"))
    test = bound_test({"BLOCK_DMODEL": 128})
    refused = bound_moves(early, early.replace("    BLOCK = 32\n", "    BLOCK = 128\n"), test, at_launch=True)
    assert refused.new_source is None and "Lk is not known where it is set" in (refused.note or ""), refused.note
    lines = "    BLOCK = 32\n    Lq, Lk = q.shape[-1], k.shape[-1]\n"
    reset = source.replace(
        lines, "    BLOCK = 32\n    if max_len_in_batch > 4096:\n        BLOCK, n = 16, 1\n" + lines[15:]
    )
    refused = bound_moves(reset, reset.replace("    BLOCK = 32\n", "    BLOCK = 128\n"), test, at_launch=True)
    assert refused.new_source is None and "nor below it before line 76 sets BLOCK again" in (refused.note or "")


HEURISTIC = DATA / "late48" / "heur_rows"


def test_l173_a_tile_a_heuristic_sets_is_bounded_in_its_lambda(tmp_path: Path) -> None:
    """A row block set by ``@triton.heuristics({"BLOCK_N": lambda args: 16})`` beside ``D: tl.constexpr`` (its
    ``[BLOCK_N, D]`` tile; SHAPES D up to 32). Before: discovery never ran the task at the entries for it (its knob is
    a heuristic's, category tiling, where ``size_tiles.needs_sizes`` asked for block sizes alone), so the pick
    ``BLOCK_N=64`` was refused ("a size of the problem no run told at the SHAPES entries"), and ``bound_moves`` read
    no literal outside a launching function ("the edit moved more than literals that can be set under ..."). Now the
    run is asked and the bound is written in the lambda, the original's literal its fallback: ``lambda args: 64 if
    args["D"] <= 32 else 16`` (a lambda naming its arguments otherwise reads them by its own name). In the
    interpreter the pick runs at D=32 and the original's 16 at D=128, each right."""
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.guard import bound_moves
    from kernelopt.tunables.size_tiles import bound_test, needs_sizes

    source = (HEURISTIC / "kernel.py").read_text()
    assert needs_sizes(discover_source(source), source)
    plain = source.replace("lambda args: 16}", "lambda args: 64}")
    bounded = bound_moves(source, plain, bound_test({"D": 32}), at_launch=True)
    text = bounded.new_source
    assert text == source.replace("lambda args: 16}", 'lambda args: 64 if args["D"] <= 32 else 16}'), bounded.note
    assert bounded.note == 'BLOCK_N=64 only where args["D"] <= 32, the original values elsewhere'
    named = source.replace("lambda args: 16}", "lambda nargs: 16}")
    renamed = bound_moves(named, named.replace(": 16}", ": 64}"), bound_test({"D": 32}), at_launch=True).new_source
    assert renamed == named.replace(": 16}", ': 64 if nargs["D"] <= 32 else 16}')
    folder = Path(shutil.copytree(HEURISTIC, tmp_path / "heur_rows"))
    for size, block in (({"R": 70, "D": 32}, 64), ({"R": 5, "D": 128}, 16)):
        assert _checked(folder, text, size, "_rows")["BLOCK_N"] == block, size


@pytest.mark.gpu
@pytest.mark.timeout(280)
def test_on_cuda_l170_l171_the_two_picks_written_again_compile_and_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled): the texts ``tune`` writes again for breaker12's LightLLM pick
    (``BLOCK_N=128``) and breaker13's SGLang pick (``BLOCK_N=64, BLOCK_H=32``), each through its folder's
    preparation as the trials' GPU tests write them, right within the bound (head sizes 16 to 128: the pick) and,
    for SGLang, past it (heads of 192 and 256: the original's blocks, ROCm's override left in place after the row),
    at a decode batch over a long cache."""
    from tests.gpu_correct import assert_correct, written_files
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    lightllm = written_files(LIGHTLLM.parent, {"lightllm_tokatt": {"BLOCK_N": 128}}, tmp_path / "l")
    sglang = written_files(SGLANG.parent, {"sgl_decode_grouped": {"BLOCK_N": 64, "BLOCK_H": 32}}, tmp_path / "s")
    assert "if Lk <= 128:  # kernelopt: tuned" in lightllm["lightllm_tokatt"].read_text()
    assert_correct(
        LIGHTLLM,
        [{"B": 3, "HQ": 6, "HK": 3, "D": 32, "S": 257}, {"B": 16, "HQ": 32, "HK": 8, "D": 128, "S": 8192}],
        _outputs_checked,
        kernel_py=lightllm["lightllm_tokatt"],
    )
    assert_correct(
        SGLANG,
        [
            {"B": 2, "HQ": 64, "HK": 2, "D": 96, "S": 130, "P": 3},
            {"B": 1, "HQ": 4, "HK": 4, "D": 16, "S": 1, "P": 1},
            {"B": 32, "HQ": 32, "HK": 8, "D": 128, "S": 4096, "P": 8},
            {"B": 2, "HQ": 16, "HK": 2, "D": 192, "S": 300, "P": 4},
            {"B": 8, "HQ": 16, "HK": 2, "D": 256, "S": 2048, "P": 4},
        ],
        _outputs_checked,
        kernel_py=sglang["sgl_decode_grouped"],
    )
