"""wrongkernel27: variants of real kernels on which ``kernelopt tune`` or ``tunables --set`` wrote a kernel wrong at a
size the original handled (docs/faults.md, "Wrong written kernels, twenty-seventh hunt"). v132 (a workspace grown by
need and viewed) is v119's test's fourth folder (tests/test_wrongkernel26_cases.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.test_wrongkernel17_cases import VARIANTS


def _interpreted(folder: str, size: dict[str, object], written: str, tmp_path: Path) -> tuple[object, object]:
    """:func:`tests.gpu_correct.original_and_written` of the variant ``folder``, its outputs compared in float64."""
    import torch

    from tests import gpu_correct

    def judge(ran: Any) -> bool:
        return bool(torch.allclose(ran.got.double(), ran.want.double(), atol=1e-3, rtol=1e-3))

    return gpu_correct.original_and_written(VARIANTS / folder, written, size, tmp_path, judge)


def test_v133_a_descriptor_block_shape_an_autotune_pre_hook_sets_keeps_sixteen_bytes_in_bf16(tmp_path: Path) -> None:
    """v133 (desc_prehook_side: v122's host descriptors made on a placeholder block ``[1, 1]``, their block shape set
    by the autotune config's ``pre_hook``, ``nargs["x_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_N"]]``, as
    Triton's persistent matmul tutorial sets it; one config ``BLOCK_N = 8``): ``tunables --set
    scale_kernel.configs[0].BLOCK_N=4`` wrote ``"BLOCK_N": 4``, and at 33 x 40 in bf16, which the original scales,
    the written kernel raises "Descriptor block shape must have at least 16 bytes in the last dimension" (in the
    interpreter as in a GPU compile). v122's floor read a descriptor's block where it is made, not where a hook
    sets it: the hook's last side is read through its locals to the config's key."""

    from kernelopt.tunables import discover_source

    base = (VARIANTS / "desc_prehook_side" / "kernel.py").read_text()
    side = next(t for t in discover_source(base) if t.key == "scale_kernel.configs[0].BLOCK_N")
    assert side.legality is not None and side.legality.problem(8) is None, side.legality
    assert "must be >= 8" in (side.legality.problem(4) or ""), side.legality
    # the tutorial's spelling: the keys bound to locals first, the side halved under a flag (either may run)
    tutorial = base.replace(
        '    block = [nargs["BLOCK_M"], nargs["BLOCK_N"]]\n',
        '    BM = nargs["BLOCK_M"]\n    BN = nargs["BLOCK_N"]\n    block = [BM, BN // 2 if nargs.get("SUB") else BN]\n',
    ).replace('"BLOCK_N": 8}', '"BLOCK_N": 32}')
    halved = next(t for t in discover_source(tutorial) if t.key == "scale_kernel.configs[0].BLOCK_N")
    assert halved.legality is not None and "must be >= 32" in (halved.legality.problem(16) or ""), halved.legality
    unpacked = base.replace(  # breaker7's tma_persist spelling: the keys unpacked into locals at once
        '    block = [nargs["BLOCK_M"], nargs["BLOCK_N"]]\n',
        '    bm, bn = nargs["BLOCK_M"], nargs["BLOCK_N"]\n    block = [bm, bn]\n',
    )
    plain = next(t for t in discover_source(unpacked) if t.key == "scale_kernel.configs[0].BLOCK_N")
    assert plain.legality is not None and "must be >= 8" in (plain.legality.problem(4) or ""), plain.legality
    original, written = _interpreted(
        "desc_prehook_side",
        {"M": 33, "N": 40, "dtype": "bfloat16"},
        base.replace('"BLOCK_N": 8}', '"BLOCK_N": 4}'),
        tmp_path,
    )
    assert original is True and "at least 16 bytes" in str(written), (original, written)


def test_v135_a_tile_whose_rows_fall_as_the_row_grows_keeps_its_fixed_side_within_the_limit(tmp_path: Path) -> None:
    """v135 (rows_heuristic_falling: short rows packed ``ROWS = max(1, 1024 // triton.next_power_of_2(args["n_cols"]))``
    a program by the kernel's heuristic, one block of ``BLOCK_N = 1024`` a row at the launch, rows of at most 1024
    columns): ``tunables --set BLOCK_N=2048`` wrote it plainly, and at rows of one column, where ``ROWS`` is 1024, the
    tile (1024, 2048) raises "numel (2097152) exceeds triton maximum tensor numel" (in the interpreter as on a GPU),
    where the original's (1024, 1024) sums them. v102's rule read sides that rise with their size: a budget over one
    falls, largest at the least size, and no guard by the size from above keeps it."""

    from kernelopt.tunables.guard import guard_edit

    base = (VARIANTS / "rows_heuristic_falling" / "kernel.py").read_text()
    grown = base.replace("BLOCK_N=1024)", "BLOCK_N=2048)")
    refused = guard_edit(base, grown)
    assert refused.new_source is None and "ROWS falls as n_cols grows" in (refused.note or ""), refused.note
    assert "reaches 1024 where the original runs: 2097152 values" in (refused.note or ""), refused.note
    # the same budget computed at the launch, ``BLOCK_N`` a local: refused alike; a smaller block keeps its cover guard
    local = (
        base.replace(
            "    grid = lambda META",
            "    ROWS = max(1, 1024 // triton.next_power_of_2(n_cols))\n    BLOCK_N = 1024\n    grid = lambda META",
        )
        .replace("BLOCK_N=1024)", "BLOCK_N=BLOCK_N, ROWS=ROWS)")
        .replace(
            '@triton.heuristics({"ROWS": lambda args: max(1, 1024 // triton.next_power_of_2(args["n_cols"]))})\n', ""
        )
    )
    assert "ROWS falls as n_cols grows" in (
        guard_edit(local, local.replace("    BLOCK_N = 1024\n", "    BLOCK_N = 4096\n")).note or ""
    )
    assert guard_edit(base, base.replace("BLOCK_N=1024)", "BLOCK_N=512)")).tests == ("n_cols <= 512",)
    original, written = _interpreted("rows_heuristic_falling", {"n_rows": 3, "n_cols": 1}, grown, tmp_path)
    assert original is True and "exceeds triton maximum tensor numel" in str(written), (original, written)


def test_v137_a_list_pruned_to_its_dividing_tiles_keeps_a_divisor_of_each_original_tile(tmp_path: Path) -> None:
    """v137 (prune_divides: row sums over whole blocks without masks, an autotune list of ``BLOCK`` 64, 128 and 256
    whose ``prune_configs_by`` keeps the blocks dividing the row, ``assert n_cols % 64 == 0``): ``tunables --set
    row_sum.configs[0].BLOCK=128`` wrote a list of 128, 128 and 256, and at rows of 192 columns, which the original
    sums with 64, the prune keeps none: "No valid autotuner configs after pruning" (in the interpreter as on a GPU).
    The decorator rule asked each new value to divide the least common multiple of the original's (256), which
    holds without a prune, where any config may run; with one, the original ran whichever divides the size, so each
    original value needs a divisor among the new ones. The list pinned to its largest (as ``tune`` pins a pick) alike."""

    from kernelopt.tunables.guard import guard_edit

    base = (VARIANTS / "prune_divides" / "kernel.py").read_text()
    raised = base.replace('{"BLOCK": 64}', '{"BLOCK": 128}')
    refused = guard_edit(base, raised)
    assert refused.new_source is None and "BLOCK=128 as the list's least does not divide" in (refused.note or "")
    pinned = base.replace('{"BLOCK": 64}', '{"BLOCK": 256}').replace('{"BLOCK": 128}', '{"BLOCK": 256}')
    assert guard_edit(base, pinned).new_source is None
    halved = base.replace('{"BLOCK": 256}', '{"BLOCK": 32}')  # 32 divides 64: every size still has a divisor
    assert guard_edit(base, halved).new_source == halved
    original, written = _interpreted("prune_divides", {"n_rows": 3, "n_cols": 192}, raised, tmp_path)
    assert original is True and "No valid autotuner configs after pruning" in str(written), (original, written)


@pytest.mark.parametrize(
    ("folder", "kernel", "k"), [("mm_int8_path", "mm_kernel", 70), ("bp_int8_path", "bp_matmul", 96)]
)
def test_v138_v141_a_dot_s_k_tile_keeps_the_k_every_operand_width_the_original_takes_compiles_with(
    folder: str, kernel: str, k: int, tmp_path: Path
) -> None:
    """v138 (mm_int8_path: a masked GEMM of float or int8 operands, the accumulator int32 for int8 (``ACC`` chosen
    by the launcher), ``BLOCK_K = 32``; fp32 entries) and v141 (bp_int8_path: the same over block pointers of
    ``(BLOCK_M, BLOCK_K)`` and ``(BLOCK_K, BLOCK_N)``): ``tunables --set BLOCK_K=16`` wrote each (16 compiles for
    fp32), and with int8 operands, which the original multiplies, a GPU compile refuses the dot: "a GPU compile
    needs K >= 32" (Triton's ``min_dot_size``, which the patched interpreter checks). The K side of a dot (a range
    laid along A's second axis and B's first, or a block's side so) is legal from the original's value or 32,
    whichever is less."""
    from kernelopt.tunables import discover_source

    base = (VARIANTS / folder / "kernel.py").read_text()
    knobs = {t.key: t for t in discover_source(base)}
    legal_k, legal_m = knobs[f"{kernel}:BLOCK_K"].legality, knobs[f"{kernel}:BLOCK_M"].legality
    assert legal_k is not None and "must be >= 32" in (legal_k.problem(16) or ""), legal_k
    assert legal_k.problem(64) is None and legal_m is not None and legal_m.problem(16) is None  # BLOCK_M: no K
    k16 = base.replace("BLOCK_K=32,", "BLOCK_K=16,")
    # a K tile the original keeps at 16 (a 16-bit GEMM) keeps its 16
    sixteen = {t.key: t for t in discover_source(k16)}[f"{kernel}:BLOCK_K"]
    assert sixteen.legality is not None and sixteen.legality.problem(16) is None
    int8 = {"M": 33, "N": 40, "K": k, "dtype": "int8"}
    original, written = _interpreted(folder, int8, k16, tmp_path)
    assert original is True and "a GPU compile needs K >= 32" in str(written), (original, written)


#: (folder, a size the original handles, the written text's change, the words of its failure on a GPU, or ``None``):
#: a compiled Triton says each in its own words, not the interpreter's (the H100 of 2026-12-07: "Failed to create
#: tensor map descriptor: invalid argument" for a 4-element bf16 side, where the interpreter says "16 bytes"; a
#: ``CompilationError`` for the falling ``ROWS``, where it says "numel")
_ON_CUDA = [
    (
        "desc_prehook_side",
        {"M": 33, "N": 40, "dtype": "bfloat16"},
        ('"BLOCK_N": 8}', '"BLOCK_N": 4}'),
        "tensor map descriptor",
    ),
    ("rows_heuristic_falling", {"n_rows": 3, "n_cols": 1}, ("BLOCK_N=1024)", "BLOCK_N=2048)"), "CompilationError"),
    ("prune_divides", {"n_rows": 3, "n_cols": 192}, ('{"BLOCK": 64}', '{"BLOCK": 128}'), "No valid autotuner"),
    ("mm_int8_path", {"M": 33, "N": 40, "K": 70, "dtype": "int8"}, ("BLOCK_K=32,", "BLOCK_K=16,"), None),
    ("bp_int8_path", {"M": 33, "N": 40, "K": 96, "dtype": "int8"}, ("BLOCK_K=32,", "BLOCK_K=16,"), None),
]


@pytest.mark.gpu
@pytest.mark.timeout(300)
@pytest.mark.parametrize(("folder", "size", "change", "said"), _ON_CUDA, ids=[f for f, *_ in _ON_CUDA])
def test_on_cuda_v133_v135_v137_v138_v141_the_texts_set_wrote_fail_where_the_original_is_right(
    folder: str, size: dict[str, object], change: tuple[str, str], said: str | None, tmp_path: Path
) -> None:
    """On a GPU: each text ``tunables --set`` wrote before this hunt's rules (v133's ``BLOCK_N`` 4 of a descriptor
    block a pre_hook sets, v135's ``BLOCK_N = 2048`` beside a falling ``ROWS``, v137's pruned list without 64, v138's and
    v141's ``BLOCK_K = 16`` of an int8 dot) fails at a size its original runs right, as Triton's interpreter (and its
    patched ``min_dot_size`` check) said on the CPU. A written text that runs right here would mean the interpreter
    refuses what a GPU runs: the rule then costs speed, not a wrong kernel."""
    import torch

    from tests.gpu_correct import correct_on_device

    def judge(ran: Any) -> bool:
        return bool(torch.allclose(ran.got.double(), ran.want.double(), atol=1e-2, rtol=1e-2))

    base = (VARIANTS / folder / "kernel.py").read_text()
    assert change[0] in base
    (tmp_path / "written.py").write_text(base.replace(*change))
    original = correct_on_device(VARIANTS / folder, [size], judge)
    written = correct_on_device(VARIANTS / folder, [size], judge, kernel_py=tmp_path / "written.py")
    print(folder, "original", original, "written", written)
    assert all(v is True for v in original.values()), original
    assert all(v is not True and (said is None or said in str(v)) for v in written.values()), written


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_v132_a_grown_workspace_s_padded_stride_wraps_where_the_original_s_is_right(tmp_path: Path) -> None:
    """On a GPU: v132 (pad_rows_grown) at 262145 rows of 1025 columns (1.07 GB of float32 in): the original pads each
    row to 2048 (a 2.1 GB workspace) and sums every row right; ``BLOCK = 8192``, as ``tune`` wrote it before the rule,
    pads to 8192 (8.6 GB), and row 262144's ``row * stride`` reaches 2**31 in int32 and wraps: its stores land 8 GB
    before the workspace (an illegal address, or another tensor overwritten) and its sum reads zeros. The wrong kernel
    runs last: an illegal address spoils the process's CUDA context."""
    import torch

    from tests.gpu_correct import StickyFault, correct_on_device

    def judge(ran: Any) -> bool:
        return bool(torch.allclose(ran.got, ran.want, atol=1e-2, rtol=1e-4))

    base = (VARIANTS / "pad_rows_grown" / "kernel.py").read_text()
    (tmp_path / "grown.py").write_text(base.replace("    BLOCK = 1024\n", "    BLOCK = 8192\n"))
    size = {"n_rows": 262145, "n_cols": 1025}
    original = correct_on_device(VARIANTS / "pad_rows_grown", [size], judge)
    torch.cuda.empty_cache()
    print("v132 original", original)
    assert all(v is True for v in original.values()), original
    try:
        grown = correct_on_device(VARIANTS / "pad_rows_grown", [size], judge, kernel_py=tmp_path / "grown.py")
    except StickyFault as fault:  # the wrapped store's illegal address: wrong there, as an overwritten tensor is
        grown = fault.out
    print("v132 grown", grown)
    assert all(v is not True for v in grown.values()), grown
