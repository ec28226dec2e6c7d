"""wrongkernel26: variants of real kernels on which ``kernelopt tune`` or ``tunables --set`` wrote a kernel wrong at a
size the original handled (docs/faults.md, "Wrong written kernels, twenty-sixth hunt"): a padded row stride taken
from a buffer a helper allocates or a view gives (v119, v120), and a tensor descriptor's last block side that is the
knob halved (v121) or a host-side descriptor's (v122), below the 16 bytes a bf16 call needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_wrongkernel17_cases import VARIANTS

#: the line every refusal of a padded stride ends in (guard._int32_strides)
PADDED = "a size padded to whole tiles of BLOCK, which pad_rows multiplies in int32 (row * stride)"


def _grown(text: str, value: int) -> str:
    return text.replace("    BLOCK = 1024\n", f"    BLOCK = {value}\n")


@pytest.mark.parametrize("folder", ["pad_rows_helper", "pad_rows_view"])
def test_v119_v120_a_padded_stride_of_a_helper_s_buffer_or_a_view_keeps_to_divisors_of_the_original(
    folder: str,
) -> None:
    """v119 (pad_rows_helper: v117's buffer returned by a module helper, ``ws = _workspace(n_rows, n_pad, x)``) and
    v120 (pad_rows_view: ``torch.zeros(n_rows * n_pad).view(n_rows, n_pad)``), the kernel storing at ``row * stride +
    cols`` in int32 with ``stride = ws.stride(0)``: ``kernelopt tune --device cpu`` wrote ``BLOCK = 4096`` plainly
    (v119) and a table ``BLOCK = 8192`` where ``n_cols <= 3000`` (v120), each padding a row of 1025 columns past the
    original's 2048 and wrapping past 2**31 at 262144 to 524288 rows, where the original indexes right (v113's GPU
    test shows the wrap). The stride is read through the helper's one ``return`` and through the view's shape, as
    v117's of a buffer the launcher allocates: guarded where the tile divides the size (it pads nothing there)."""
    from kernelopt.tunables.guard import guard_edit

    base = (VARIANTS / folder / "kernel.py").read_text()
    for grown in (2048, 4096):
        guarded = guard_edit(base, _grown(base, grown))
        assert guarded.tests == (f"n_cols % {grown} == 0",), guarded.note
        assert PADDED in (guarded.note or ""), guarded.note
    assert PADDED not in (guard_edit(base, _grown(base, 512)).note or ""), "a divisor of the original pads within it"


@pytest.mark.parametrize(
    ("made", "axis"),
    [
        ("torch.empty_strided((n_rows, n_cols), (n_pad, 1), device=x.device, dtype=x.dtype)", 0),
        ("torch.zeros(n_rows * n_pad, device=x.device, dtype=x.dtype).as_strided((n_rows, n_cols), (n_pad, 1))", 0),
        ("torch.zeros(n_rows, n_pad, device=x.device, dtype=x.dtype).t()", 1),
        ("torch.zeros((n_rows * n_pad,), device=x.device, dtype=x.dtype).reshape((n_rows, n_pad))", 0),
    ],
)
def test_a_padded_stride_is_read_through_every_maker_that_shows_it(made: str, axis: int) -> None:
    """The other makers whose strides the launcher's text shows, read by the same rule as v119's and v120's: given
    strides (``torch.empty_strided``, ``.as_strided``), a transpose (its ``stride(1)``), a reshape of a contiguous tensor.
    Where the stride is not the padded size (``torch.zeros(n_pad, n_rows).t()``'s ``stride(0)`` is 1) nothing is
    guarded, and a view of a tensor whose strides are unknown (``torch.empty_like``) is read no way."""
    from kernelopt.tunables.guard import guard_edit

    v120 = (VARIANTS / "pad_rows_view" / "kernel.py").read_text()
    flat = "torch.zeros(n_rows * n_pad, device=x.device, dtype=x.dtype).view(n_rows, n_pad)"
    base = v120.replace(flat, made).replace("ws.stride(0)", f"ws.stride({axis})")
    assert base != v120
    assert guard_edit(base, _grown(base, 4096)).tests == ("n_cols % 4096 == 0",)
    one = v120.replace(flat, "torch.zeros(n_pad, n_rows, device=x.device, dtype=x.dtype).t()")
    assert guard_edit(one, _grown(one, 4096)).tests == ()


@pytest.mark.parametrize(
    ("folder", "now", "floor", "small"),
    [("desc_half_side", 16, 16, 8), ("desc_host_side", 8, 8, 4), ("desc_last_side", 8, 8, 4)],
)
def test_v121_v122_a_descriptor_s_last_side_halved_or_made_on_the_host_keeps_sixteen_bytes_in_bf16(
    folder: str, now: int, floor: int, small: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v121 (desc_half_side: v118's scale with its tiles stored in halves, the descriptors' block ``[BLOCK_M, BLOCK_N
    // 2]``, ``BLOCK_N = 16``) and v122 (desc_host_side: host-side ``TensorDescriptor.from_tensor(x, [BLOCK_M,
    BLOCK_N])``, ``BLOCK_N = 8``): ``tunables --set BLOCK_N=8`` (v121) and ``BLOCK_N=4`` (v122) wrote the pick, guarded
    by the grid's axis limit alone, and at 33 x 40 in bf16, which the original scales, the written kernel raises
    "Descriptor block shape must have at least 16 bytes in the last dimension, but got 4 * 2 = 8 bytes" (in the
    interpreter as on a GPU). v118's floor read a kernel's descriptor side that is a plain name: a side that is the
    knob scaled is floored in the knob's values, and a host descriptor's side by the launcher's name."""
    import torch

    from kernelopt.tunables import discover_source
    from tests import gpu_correct
    from tests.conftest import triton_interpreted

    base = (VARIANTS / folder / "kernel.py").read_text()
    side = next(t for t in discover_source(base) if t.key == "scale_kernel:BLOCK_N")
    assert side.legality is not None and side.legality.problem(floor) is None, side.legality
    assert f"must be >= {floor}" in (side.legality.problem(small) or ""), side.legality
    monkeypatch.setattr(gpu_correct, "DEVICE", "cpu")
    bf16 = {"M": 33, "N": 40, "dtype": "bfloat16"}
    for value, right in ((now, True), (small, False)):
        (tmp_path / f"k{value}.py").write_text(base.replace(f"    BLOCK_N = {now}\n", f"    BLOCK_N = {value}\n"))
        with triton_interpreted():
            got = gpu_correct.correct_on_device(
                VARIANTS / folder,
                [bf16],
                lambda ran: bool(torch.equal(ran.got, ran.want)),
                kernel_py=tmp_path / f"k{value}.py",
            )
        verdict = got["M=33,N=40,dtype=bfloat16"]
        assert (verdict is True) is right and (right or "at least 16 bytes" in str(verdict)), (value, got)
