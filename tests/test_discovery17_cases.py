"""Knobs the seventeenth held-out trial (breaker17, tests/data/breaker17) found missed or searched wrongly, each taken
as a rule of ``kernelopt.tunables`` (docs/faults.md, "discovery17"): a split count a caller sizes a buffer with
(l1), a heuristics module's dict (l3), a platform-selected block (l2). What tuning writes is checked as a user would:
the written kernel against the reference at sizes no ``SHAPES`` entry names, its outputs in the middle of NaN."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.test_breaker7_cases import _all_correct
from tests.test_breaker17_cases import DATA, _copy
from tests.test_breaker_cases import _tune_edit


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
    from kernelopt.tunables import discover_source

    source = (DATA / "vllm_decode_att" / "kernel.py").read_text()
    # run() owns the split it sizes the buffer with: that assignment is the knob (leftovers18's n2); from run()'s own
    # caller, as here, the split is held at both launches
    given = source.replace("b_seq_len, page):\n    page_size", "b_seq_len, page, num_kv_splits=8):\n    page_size")
    given = given.replace("    num_kv_splits = 8  # vLLM's default split count\n", "")
    assert given != source
    found = {t.key: t for t in discover_source(given)}
    for key in ("_fwd_kernel_stage1:NUM_KV_SPLITS", "_fwd_kernel_stage2:NUM_KV_SPLITS"):
        knob = found[key]
        assert knob.semantic and knob.computed is None, (key, knob)
        assert "run() also sizes 'attn_logits'" in (knob.refused_reason or ""), knob.refused_reason
    # a name the launching function computes from a tensor (BLOCK_DMODEL from k's shape) is no passed-down split
    assert not found["_fwd_kernel_stage1:BLOCK_DMODEL"].semantic


@pytest.mark.timeout(180)
def test_l3_a_heuristics_module_s_dict_read_through_its_runtime_lookup_is_tuned_in_the_dict(tmp_path: Path) -> None:
    """breaker17's l3: FlagGems' argmax hands ``@triton.heuristics`` ``runtime.get_heuristic_config("argmax")``, a
    method of a module-level instance (``runtime = _Runtime()``) returning ``HEURISTICS_CONFIGS[op_name]``, a dict
    of per-operator functions: "cannot be read (its dict is built by code)", so ``BLOCK_M`` / ``BLOCK_N`` were no
    knobs. The method is followed as a module function's lookup is (``self`` not passed): the two are knobs as a
    plain dict's are, and a pick is written into the module's dict, falling back on its function, right at sizes no
    entry names."""
    found = _tunables("gems_argmax")
    assert "argmax_kernel.heuristics" not in found
    assert found["argmax_kernel.heuristics.BLOCK_M"].computed == "argmax_heur_block_m(args)"
    assert found["argmax_kernel.heuristics.BLOCK_N"].computed == "argmax_heur_block_n(args)"
    written, note = _tune_edit(_copy("gems_argmax", tmp_path), {"BLOCK_M": 16, "BLOCK_N": 8}, kernel="argmax_kernel")
    assert written is not None and '"BLOCK_M": lambda args: 16 if args["M"] <= 13 else argmax_heur_block_m(args),' in (
        written
    ), note
    # M=17 past the table's bound (the function's pick), M=7 inside it over three partial steps of 8
    _all_correct(tmp_path / "gems_argmax", [{"M": 17, "N": 9, "K": 2}, {"M": 7, "N": 21, "K": 3}])


@pytest.mark.timeout(180)
def test_l2_a_platform_selected_block_is_a_knob_on_the_branch_that_runs(tmp_path: Path) -> None:
    """breaker17's l2: vLLM's ``BLOCK = 64 if not is_hip_ else 8``, passed as ``BLOCK_N`` (a loop's step over the
    keys, masked), was "computed from no size of the problem" and left alone: no table by size can fall back on a
    platform's pick. The branch that runs is the knob (the value the launch received in the run of the task picks
    it), edited in place; the other platform's branch is kept as written. Without a run the branch is unknown and
    the line says so. The written kernel is right at sizes no entry names."""
    from kernelopt.tunables import discover_source

    source = (DATA / "vllm_decode_att" / "kernel.py").read_text()
    static = {t.key: t for t in discover_source(source)}["_fwd_kernel_stage1:BLOCK_N"]
    # which branch runs is unknown without a run: no branch's value is listed as the launch's (discovery23 d30)
    assert static.value is None and "known only from a run of the task" in (static.refused_reason or ""), static
    written, note = _tune_edit(_copy("vllm_decode_att", tmp_path), {"BLOCK_N": 16})
    assert written is not None and "    BLOCK = 16 if not is_hip_ else 8\n" in written, note
    # 300 keys in 8 splits: three steps of 16 a split, the last one partial; odd head sizes and page
    _all_correct(tmp_path / "vllm_decode_att", [{"B": 1, "L": 300, "H": 2, "KVH": 1, "D": 9, "DV": 5, "P": 3}])
