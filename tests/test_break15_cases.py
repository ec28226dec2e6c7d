"""A fresh clone broken by hand, fifteenth trial (2026-12-06): the fourteenth session's changes (a per-bucket table's
next-best rows, a reference caching its output, a kernel output of another structure, entries the kernel cannot run,
the first-call compare in the gate, launch options moving computed covers, autotune lists built by code, fla's
partial axes, a constexpr under a true division, and the refactors said to change no behaviour) tried on neighbours
of the kernels they were made for; one test per fix (docs/faults.md, "A fresh clone broken, fifteenth trial")."""

from __future__ import annotations

import collections
import shutil
from pathlib import Path

import pytest
import torch

DATA = Path(__file__).parent / "data"


def test_b8_a_kernel_returning_the_reference_s_named_tuple_is_checked() -> None:
    """b8: r12 puts a call's output in the reference's dict order before the flat comparison (``in_order_of``), and
    rebuilt each sequence as ``type(out)(iterable)``: a named tuple's class takes its fields one by one, so a kernel
    returning the same ``Pair(scaled, shifted)`` as its reference failed validate with "TypeError: Pair.__new__()
    missing 1 required positional argument" (a correct kernel refused; at 66667e5c it passed). A wrong value in the
    same build is still found, and a tensor for the pair is still WrongType."""
    from kernelopt.harness.compare import check_outputs

    pair = collections.namedtuple("Pair", "scaled shifted")
    x = torch.randn(37)
    ref, hi = pair(2 * x, x + 1), pair(2 * x.double(), x.double() + 1)
    assert check_outputs(pair(2 * x, x + 1), ref, hi).error_class is None
    assert check_outputs((2 * x, x + 1), ref, hi).error_class is None
    assert (
        check_outputs(torch.max(x.view(1, -1), dim=1), tuple(torch.max(x.view(1, -1), dim=1)), None).error_class is None
    )
    wrong = check_outputs(pair(2 * x, x + 2), ref, hi)
    assert wrong.error_class is not None and "output 1" in wrong.message
    assert check_outputs(2 * x, ref, hi).error_class == "WrongOutputCount"
    assert check_outputs({"a": 2 * x, "b": x + 1}, ref, hi).error_class == "WrongType"


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("line", "form"),
    [
        ("    threads = nw * 32\n", "    threads, rows = nw * 32, 1\n"),
        ("    nw = 2\n", "    nw, ns = 2, 1\n"),
    ],
    ids=["unpacked-local", "unpacked-option"],
)
def test_b9_a_launch_option_read_through_an_unpacking_is_netted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str, form: str
) -> None:
    """b9 (**a wrong written kernel** on a GPU): n65's kernel (tests/data/newuser12/warps_chain: ``nw = 2``,
    ``threads = nw * 32``, ``BLOCK = threads`` over ``n // BLOCK`` programs without masks) with one link of the chain
    an unpacking (``threads, rows = nw * 32, 1``, or the option's own line ``nw, ns = 2, 1``): ``tunables.readers``
    followed plain assignments only, so a pick of ``num_warps=32`` (BLOCK 1024) was "only num_warps moved", the net
    not cast, and written, wrong at n=64 and 1088 as n65 was. The unpacking is followed: the net is cast and fails
    it; ``num_stages`` beside ``nw`` on one line still moves nothing computed."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import computed_readers
    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.candidate import COMPUTED
    from tests.test_newuser12_cases import _gpu_prepared
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = Path(shutil.copytree(DATA / "newuser12" / "warps_chain", tmp_path / "warps_chain"))
    source = (
        (folder / "kernel.py").read_text().replace(line, form).replace("num_warps=nw", "num_warps=nw, num_stages=1")
    )
    (folder / "kernel.py").write_text(source)
    knobs = discover_source(source)
    assert [t.name for t in computed_readers(knobs, source, ["num_stages"])] == []
    prepared = _gpu_prepared(folder)
    with _evaluator(prepared) as evaluator:
        picks = [({"BLOCK": COMPUTED, "num_warps": 32}, 10.0)]
        done = tf._checked_edit(_session(prepared, picks, ({"BLOCK": COMPUTED, "num_warps": 2}, 20.0)), evaluator)
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note


MEAN_KERNEL = """
import torch
import triton
import triton.language as tl


@triton.jit
def row_mean(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    tl.store(out_ptr + row, tl.sum(tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0), axis=0) / n)


def run(x):
    m, n = x.shape
    out = torch.empty(m, device=x.device, dtype=torch.float32)
    row_mean[(m,)](x, out, n, BLOCK=1024)
    return out
"""


def test_b10_a_tile_read_in_a_load_whose_value_is_divided_is_still_a_knob() -> None:
    """b10: the rule for a constexpr read only under a true division (DeepSpeed's ``(residual + bias) / mp_size``)
    counted every read anywhere under the ``/``, so a row mean written in one line, ``tl.sum(tl.load(x_ptr + row * n +
    tl.arange(0, BLOCK), mask=tl.arange(0, BLOCK) < n, other=0.0), axis=0) / n``, lost its BLOCK ("read only as an
    operand of a true division ... never an index, a shape or a count", untrue: it is the arange's): no knob, where
    66667e5c offered it. A read in a load's pointer, a mask, an arange or a shape is an index whatever the value is
    divided by; a divisor of the sum stays refused (DeepSpeed's mp_size: tests/test_breaker14_cases.py), and the tile of the same kernel with its arange named is offered as before."""
    from kernelopt.tunables import discover_source

    inline = MEAN_KERNEL.replace("    cols = tl.arange(0, BLOCK)\n", "").replace("cols", "tl.arange(0, BLOCK)")
    assert "tl.load(x_ptr + row * n + tl.arange(0, BLOCK), mask=tl.arange(0, BLOCK) < n" in inline
    for source in (MEAN_KERNEL, inline):
        block = next(t for t in discover_source(source) if t.name == "BLOCK")
        assert block.refused_reason is None, block.refused_reason
    scaled = inline.replace("tl.arange(0, BLOCK)", "tl.arange(0, 1024)").replace("/ n)", "/ mp_size)")
    scaled = scaled.replace("BLOCK: tl.constexpr", "mp_size: tl.constexpr").replace("BLOCK=1024", "mp_size=4")
    mp_size = next(t for t in discover_source(scaled) if t.name == "mp_size")
    assert mp_size.refused_reason is not None


DEINTERLEAVE = """
import torch
import triton
import triton.language as tl


@triton.jit
def deinterleave_kernel(x_ptr, y_ptr, n, half, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + (offs % 2) * half + offs // 2, x, mask=mask)


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    deinterleave_kernel[(triton.cdiv(n, 64),)](x, y, n, n // 2, BLOCK=64)
    return y
"""


def test_b11_a_tile_whose_global_index_a_store_scatters_is_still_a_knob(tmp_path: Path) -> None:
    """b11: 8193e055's layout rule (a tile whose ``tl.arange`` a store scatters by an integer literal's ``//`` or
    ``%`` is its layout's: torchao's MX swizzle, ``rows % 32`` over ``rows = tl.arange(0, BLOCK_ROWS)``) also read an
    element's index in the whole tensor: an even/odd split (``y = cat(x[0::2], x[1::2])``, stored at ``(offs % 2) *
    half + offs // 2`` over ``offs = pid * BLOCK + tl.arange(0, BLOCK)``) had BLOCK refused, "another value stores
    elements where the layout does not put them" (untrue: the mapping is the element's, any block stores it alike),
    where 66667e5c offered it and tune wrote BLOCK=4096 (27x in the interpreter, correct at n=4100, 4098 and 500). A
    placement through ``tl.program_id`` is the element's; the swizzle's tiles stay refused."""
    from kernelopt.tunables import discover_source
    from tests.conftest import load_fresh, triton_interpreted

    block = next(t for t in discover_source(DEINTERLEAVE) if t.name == "BLOCK")
    assert block.editable and block.refused_reason is None, block.refused_reason
    swizzle = discover_source((DATA / "breaker14" / "ao_swizzle" / "kernel.py").read_text())
    assert all(not t.editable for t in swizzle if t.name in {"BLOCK_ROWS", "BLOCK_COLS"})
    path = tmp_path / "deinterleave.py"
    path.write_text(DEINTERLEAVE.replace("64),)", "256),)").replace("BLOCK=64", "BLOCK=256"))
    with triton_interpreted():
        module = load_fresh(path, "_break15_deint")
        x = torch.randn(1002)
        assert torch.equal(module.run(x), torch.cat([x[0::2], x[1::2]]))


@pytest.mark.gpu
@pytest.mark.timeout(420)
def test_b9_on_a_gpu_a_num_warps_read_through_an_unpacking_is_never_written_wrong(tmp_path: Path) -> None:
    """b9 on an NVIDIA GPU, where the session searches ``num_warps``: ``kernelopt tune --device cuda`` (a 120 s wall)
    on tests/data/break15/warps_unpacked (``nw = 2``, ``threads, rows = nw * 32, 1``, ``BLOCK = threads`` over
    ``n // BLOCK`` programs without masks), then the kernel.py it leaves run at sizes no entry names that the original
    handles (multiples of its 64-element block): right at every one, whatever was written."""
    from tests.gpu_correct import assert_correct, tuned_on_device

    folder = Path(shutil.copytree(DATA / "break15" / "warps_unpacked", tmp_path / "warps_unpacked"))
    tuned_on_device(folder)
    shapes = [{"n": 64}, {"n": 1088}, {"n": 8256}, {"n": 1 << 20}]
    assert_correct(folder, shapes, lambda r: bool(torch.allclose(r.got, r.want, atol=1e-5, rtol=1e-5)))


def test_b12_an_original_raising_at_the_first_entry_is_not_said_to_run_the_others() -> None:
    """b12: r13's line (tune, exit 2) read any raise of the original at an entry every candidate failed too as "a size
    the original cannot run ...; drop it from SHAPES to tune on the others", without knowing the original ran another
    entry: a bug in ``run`` raising at every size (gelu_nomask with its bias made 3-D, then ``assert bias.dim() ==
    2``) stops every check at the first entry, and tune said so of n_rows=8,n_cols=128, untrue (the other entry fails
    the same). An original that raised at the first entry checked gets no such line (the session's own verdict, "no
    candidate ran", as before r13); one raising at a later entry, after the first passed, still does."""
    from kernelopt.tuning.candidate import Config, Outcome, Result
    from kernelopt.tuning.shapes import unrunnable_entry_line

    def result(block: int, entry: str) -> Result:
        said = f"on the SHAPES entry {entry}: raised while running: AssertionError: bias must be 2-D"
        return Result(config={"BLOCK_SIZE": block}, outcome=Outcome.RUN_ERROR, reason=said, failed_entry=entry)

    first, later = "n_rows=8,n_cols=128", "n_rows=4,n_cols=512"
    current = Config.of({"BLOCK_SIZE": 128})
    assert unrunnable_entry_line(current, [result(128, first), result(256, first)], first=first) is None
    line = unrunnable_entry_line(current, [result(128, later), result(256, later)], first=first)
    assert line is not None and line.startswith(f"kernel.py as written cannot run the SHAPES entry {later} ")
