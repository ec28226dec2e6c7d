"""wrongkernel27: variants of real kernels on which ``kernelopt tune`` or ``tunables --set`` wrote a kernel wrong at a
size the original handled (docs/faults.md, "Wrong written kernels, twenty-seventh hunt"). v132 (a workspace grown by
need and viewed) is v119's test's fourth folder (tests/test_wrongkernel26_cases.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_wrongkernel17_cases import VARIANTS


def test_v133_a_descriptor_block_shape_an_autotune_pre_hook_sets_keeps_sixteen_bytes_in_bf16(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v133 (desc_prehook_side: v122's host descriptors made on a placeholder block ``[1, 1]``, their block shape set
    by the autotune config's ``pre_hook``, ``nargs["x_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_N"]]``, as
    Triton's persistent matmul tutorial sets it; one config ``BLOCK_N = 8``): ``tunables --set
    scale_kernel.configs[0].BLOCK_N=4`` wrote ``"BLOCK_N": 4``, and at 33 x 40 in bf16, which the original scales,
    the written kernel raises "Descriptor block shape must have at least 16 bytes in the last dimension" (in the
    interpreter as in a GPU compile). v122's floor read a descriptor's block where it is made, not where a hook
    sets it: the hook's last side is read through its locals to the config's key."""
    import torch

    from kernelopt.tunables import discover_source
    from tests import gpu_correct
    from tests.conftest import triton_interpreted

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
    monkeypatch.setattr(gpu_correct, "DEVICE", "cpu")
    bf16 = {"M": 33, "N": 40, "dtype": "bfloat16"}
    for value, right in ((8, True), (4, False)):
        (tmp_path / f"k{value}.py").write_text(base.replace('"BLOCK_N": 8}', f'"BLOCK_N": {value}}}'))
        with triton_interpreted():
            got = gpu_correct.correct_on_device(
                VARIANTS / "desc_prehook_side",
                [bf16],
                lambda ran: bool(torch.equal(ran.got, ran.want)),
                kernel_py=tmp_path / f"k{value}.py",
            )
        verdict = got["M=33,N=40,dtype=bfloat16"]
        assert (verdict is True) is right and (right or "at least 16 bytes" in str(verdict)), (value, got)


def test_v135_a_tile_whose_rows_fall_as_the_row_grows_keeps_its_fixed_side_within_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v135 (rows_heuristic_falling: short rows packed ``ROWS = max(1, 1024 // triton.next_power_of_2(args["n_cols"]))``
    a program by the kernel's heuristic, one block of ``BLOCK_N = 1024`` a row at the launch, rows of at most 1024
    columns): ``tunables --set BLOCK_N=2048`` wrote it plainly, and at rows of one column, where ``ROWS`` is 1024, the
    tile (1024, 2048) raises "numel (2097152) exceeds triton maximum tensor numel" (in the interpreter as on a GPU),
    where the original's (1024, 1024) sums them. v102's rule read sides that rise with their size: a budget over one
    falls, largest at the least size, and no guard by the size from above keeps it."""
    import torch

    from kernelopt.tunables.guard import guard_edit
    from tests import gpu_correct
    from tests.conftest import triton_interpreted

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
    monkeypatch.setattr(gpu_correct, "DEVICE", "cpu")
    (tmp_path / "grown.py").write_text(grown)
    verdicts = []
    with triton_interpreted():
        for kernel_py in (None, tmp_path / "grown.py"):
            got = gpu_correct.correct_on_device(
                VARIANTS / "rows_heuristic_falling",
                [{"n_rows": 3, "n_cols": 1}],
                lambda ran: bool(torch.allclose(ran.got, ran.want)),
                kernel_py=kernel_py,
            )
            verdicts.append(got["n_rows=3,n_cols=1"])
    assert verdicts[0] is True and "exceeds triton maximum tensor numel" in str(verdicts[1]), verdicts


def test_v137_a_list_pruned_to_its_dividing_tiles_keeps_a_divisor_of_each_original_tile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v137 (prune_divides: row sums over whole blocks without masks, an autotune list of ``BLOCK`` 64, 128 and 256
    whose ``prune_configs_by`` keeps the blocks dividing the row, ``assert n_cols % 64 == 0``): ``tunables --set
    row_sum.configs[0].BLOCK=128`` wrote a list of 128, 128 and 256, and at rows of 192 columns, which the original
    sums with 64, the prune keeps none: "No valid autotuner configs after pruning" (in the interpreter as on a GPU).
    The decorator rule asked each new value to divide the least common multiple of the original's (256), which
    holds without a prune, where any config may run; with one, the original ran whichever divides the size, so each
    original value needs a divisor among the new ones. The list pinned to its largest (as ``tune`` pins a pick) alike."""
    import torch

    from kernelopt.tunables.guard import guard_edit
    from tests import gpu_correct
    from tests.conftest import triton_interpreted

    base = (VARIANTS / "prune_divides" / "kernel.py").read_text()
    raised = base.replace('{"BLOCK": 64}', '{"BLOCK": 128}')
    refused = guard_edit(base, raised)
    assert refused.new_source is None and "BLOCK=128 as the list's least does not divide" in (refused.note or "")
    pinned = base.replace('{"BLOCK": 64}', '{"BLOCK": 256}').replace('{"BLOCK": 128}', '{"BLOCK": 256}')
    assert guard_edit(base, pinned).new_source is None
    halved = base.replace('{"BLOCK": 256}', '{"BLOCK": 32}')  # 32 divides 64: every size still has a divisor
    assert guard_edit(base, halved).new_source == halved
    monkeypatch.setattr(gpu_correct, "DEVICE", "cpu")
    (tmp_path / "raised.py").write_text(raised)
    verdicts = []
    with triton_interpreted():
        for kernel_py in (None, tmp_path / "raised.py"):
            got = gpu_correct.correct_on_device(
                VARIANTS / "prune_divides",
                [{"n_rows": 3, "n_cols": 192}],
                lambda ran: bool(torch.allclose(ran.got, ran.want, atol=1e-3, rtol=1e-4)),
                kernel_py=kernel_py,
            )
            verdicts.append(got["n_rows=3,n_cols=192"])
    assert verdicts[0] is True and "No valid autotuner configs after pruning" in str(verdicts[1]), verdicts
