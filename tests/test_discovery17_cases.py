"""Knobs the seventeenth held-out trial (breaker17, tests/data/breaker17) found missed or searched wrongly, each taken
as a rule of ``kernelopt.tunables`` (docs/faults.md, "discovery17"): a split count a caller sizes a buffer with
(l1), a heuristics module's dict (l3), a platform-selected block (l2). What tuning writes is checked as a user would:
the written kernel against the reference at sizes no ``SHAPES`` entry names, its outputs in the middle of NaN."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data" / "breaker17"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _tunables(name: str) -> dict[str, Any]:
    from kernelopt.tunables import discover_source

    return {t.key: t for t in discover_source((DATA / name / "kernel.py").read_text())}


@pytest.mark.timeout(120)
def test_l1_a_split_count_a_caller_sizes_its_buffer_with_is_held_at_both_launches() -> None:
    """breaker17's l1: vLLM's decode attention takes ``NUM_KV_SPLITS = num_kv_splits`` from its parameter, while
    ``run`` sizes ``attn_logits`` with the same ``num_kv_splits`` and hands both down to the two stages. ``tune``
    searched the split count 2 .. 32 at stage 1 alone (12 of 17 candidates failed their checks with Inf: stage 1
    wrote past the buffer's splits or stage 2 merged splits never written). The rule that holds a value sizing a
    tensor follows the parameter up the calls of this file to the caller that allocates with it."""
    found = _tunables("vllm_decode_att")
    for key in ("_fwd_kernel_stage1:NUM_KV_SPLITS", "_fwd_kernel_stage2:NUM_KV_SPLITS"):
        knob = found[key]
        assert knob.semantic and knob.computed is None, (key, knob)
        assert "run() also sizes 'attn_logits'" in (knob.refused_reason or ""), knob.refused_reason
    # a name the launching function computes from a tensor (BLOCK_DMODEL from k's shape) is no passed-down split
    assert not found["_fwd_kernel_stage1:BLOCK_DMODEL"].semantic
