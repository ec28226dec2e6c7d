"""late56: leftovers of breaker30's trial (docs/faults.md, "breaker30's leftovers (late56, 2026-12-07)")."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)

DATA = Path(__file__).parent / "data" / "breaker30"


def test_l260_a_quantizer_s_fp16_rows_in_and_fp8_codes_out_are_fp16() -> None:
    """fp8_rowquant: fp16 rows in, fp8 codes and fp32 scales out, one code an element; ``optimize`` inferred the
    card's dtype fp8 (the tie of elements went to the narrower, the output's), so the fit estimate counted its fp16
    loads at 1 B. A tie goes to the inputs' dtype; with no tie, or no inputs told, as before."""
    from kernelopt.harness.infer import _dominant, _probe, dominant_dtype

    seen = _probe(DATA / "fp8_rowquant" / "reference.py")  # the probe's child side, here: no second interpreter
    assert seen["outputs_seen"] and seen["input_elements"] == {"torch.float16": 17 * 300}, seen
    assert _dominant(seen) == "fp16", seen
    rows = {"torch.float16": 60}
    assert dominant_dtype({"torch.float16": 60, "torch.float8_e4m3fn": 60, "torch.float32": 6}, rows) == "fp16"
    assert dominant_dtype({"torch.float16": 60, "torch.float8_e4m3fn": 61}, rows) == "fp8"  # more codes: no tie
    assert dominant_dtype({"torch.bfloat16": 10, "torch.float16": 10}) == "bf16"  # no inputs told: the narrower


def _set(folder: Path, text: str, value: int) -> tuple[str | None, str]:
    """``tunables kernel.py --set _jacobi5:BLOCK_H=value`` (the edit layer, not written) on stencil_cfg's kernel as
    ``text``: the edited source, or ``None``, and the one line of its refusal."""
    from kernelopt.tunables import apply
    from kernelopt.tunables.model import TunableError

    kernel = folder / "kernel.py"
    kernel.write_text(text)
    try:
        return apply(kernel, {"_jacobi5:BLOCK_H": value}, write=False).new_source, ""
    except TunableError as exc:
        return None, str(exc)


def test_l261_a_frozen_dataclass_field_no_builder_passes_is_the_value_a_literal_is_judged_against(
    tmp_path: Path,
) -> None:
    """stencil_cfg's ``cfg = StencilTiles.for_width(W)`` builds ``cls(BLOCK_W=...)``, so ``cfg.BLOCK_H`` is the frozen
    field's default 8 at every size; every literal ``BLOCK_H``, 8 included, was refused "over a computed value ...
    the grid's axis 1 ... at most 65535". 8 is written now (as would be a larger one), 4 still refused (more programs on axis 1 than
    the original's); a builder that passes the field, or a dataclass not frozen, keeps the refusal."""
    original = (DATA / "stencil_cfg" / "kernel.py").read_text()
    text, said = _set(tmp_path, original, 8)
    assert text is not None, said
    assert "BLOCK_H = cfg.BLOCK_H\n    BLOCK_H = 8  # kernelopt: tuned\n" in text and "cdiv(H, BLOCK_H)" in text
    text, said = _set(tmp_path, original, 4)
    assert text is None and "does not cover every size" in said
    passed = original.replace("cls(BLOCK_W=", "cls(BLOCK_H=8, BLOCK_W=")
    mutable = original.replace("@dataclass(frozen=True)", "@dataclass")
    assert passed != original and mutable != original
    for other in (passed, mutable):
        text, said = _set(tmp_path, other, 8)
        assert text is None and "over a computed value" in said


def test_l262_a_launch_through_jitfunction_run_is_said_not_passed_over() -> None:
    """fp8_rowquant launched through Triton's low-level ``_fp8_rows.run(..., BLOCK=512, num_warps=4, grid=(M,),
    warmup=False)``: discovery finds no launch and ``tunables`` said only "no tunable found (launch literals, ...)".
    The line says what it saw and what to change; a kernel's ``.run`` without ``grid=`` (no launch) says nothing."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.compile_cache import unread_launch_note
    from kernelopt.tuning.launch import seen_knobs

    source = (DATA / "fp8_rowquant" / "kernel.py").read_text()
    low = source.replace(
        "_fp8_rows[(M,)](x, y, scale, N, x.stride(0), y.stride(0), QMAX=FP8_MAX, BLOCK=tiles.block, num_warps=tiles.warps)",
        "_fp8_rows.run(x, y, scale, N, x.stride(0), y.stride(0), QMAX=FP8_MAX, BLOCK=512, num_warps=4, grid=(M,), "
        "warmup=False)",
    )
    assert low != source and discover_source(low) == []
    line = seen_knobs([], low)
    assert "_fp8_rows is launched through Triton's low-level _fp8_rows.run(" in line, line
    assert "BLOCK=..., num_warps=..., grid=...)" in line and "launch it as _fp8_rows[grid](" in line, line
    assert unread_launch_note(low.replace("grid=(M,), ", "")) is None
    assert unread_launch_note(source) is None
