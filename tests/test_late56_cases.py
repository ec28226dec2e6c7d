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
