"""A pruned autotune list: the tuned config is what runs wherever the user's prune keeps it (breaker5 i4's leftover).

``tune`` pins an autotune list to the session's pick. Where the user's ``early_config_prune`` could keep none of the
pinned configs at a size ``SHAPES`` never names (a split-K list pruned to ``BLOCK_K * SPLIT_K <= K``), the original
configs stay after the tuned one (i4). But the autotuner then benchmarks every config the prune keeps, at each new
key: the tuned config was one candidate among several, and what ran was the autotuner's pick, not the session's.
Now the prune is wrapped (``_<kernel>_tuned_first``): the tuned config alone wherever the prune keeps it, what it
keeps of the original configs elsewhere, as before (docs/tuning-engine.md, "A pruned autotune list").
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import load_fresh, triton_interpreted

DATA = Path(__file__).parent / "data" / "breaker5"
WIDE = {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 32, "SPLIT_K": 2, "num_warps": 4}  # 64 wide in K
WRAPPER = "def _mm_splitk_tuned_first(configs, named_args, **kwargs):  # kernelopt: tuned\n"


def _ran(folder: Path, name: str, shapes: list[dict[str, int]]) -> list[dict[str, int]]:
    """The config the written kernel's autotuner ran at each shape (its ``best_config``), each result checked."""
    import torch

    with triton_interpreted():
        ref = load_fresh(folder / "reference.py", f"_pa_ref_{name}")
        ker = load_fresh(folder / "kernel.py", f"_pa_ker_{name}")
        out = []
        for shape in shapes:
            torch.manual_seed(0)
            inputs = ref.get_inputs(**shape)
            torch.testing.assert_close(ker.run(*inputs), ref.reference(*inputs), atol=1e-3, rtol=1e-3)
            out.append(dict(ker._mm_splitk.best_config.kwargs))
    return out


@pytest.mark.timeout(180)
def test_the_tuned_config_runs_wherever_the_prune_keeps_it_and_the_originals_elsewhere(tmp_path: Path) -> None:
    from tests.test_breaker_cases import _tune_edit

    folder = Path(shutil.copytree(DATA / "splitk_strict", tmp_path / "splitk_strict"))
    written, note = _tune_edit(folder, WIDE)
    assert written is not None and note is not None
    assert "the tuned config alone runs wherever the prune keeps it" in note, note
    assert WRAPPER in written and '"early_config_prune": _mm_splitk_tuned_first,' in written
    assert "    kept = list(_prune([*head, *rest], named_args, **kwargs))\n" in written  # the user's prune decides
    (folder / "kernel.py").write_text(written)
    ran = _ran(folder, "first", [{"M": 24, "N": 40, "K": 96}, {"M": 20, "N": 30, "K": 40}])
    tuned = {k: v for k, v in WIDE.items() if k != "num_warps"}
    assert ran[0] == tuned  # K 96: the prune keeps it, so it alone runs (two configs were benchmarked before)
    assert ran[1] == {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16, "SPLIT_K": 2}  # K 40: the original 32-wide

    # a retune keeps one wrapper and replaces the earlier tuned config rather than keeping it as a candidate
    again = _retuned(written, NARROW)
    assert again is not None and again[0].count("def _mm_splitk_tuned_first") == 1
    assert '"BLOCK_N": 64' not in again[0] and again[0].count("triton.Config(") == 4, again[0]
    assert again[0].count(NARROW) == 1 and "configs[:1]" in again[0]


NARROW = 'triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "SPLIT_K": 2}, num_warps=4)'


def _retuned(source: str, config: str) -> tuple[str, str] | None:
    """What the write of a pick of ``config`` makes of ``source``: its list pinned to it (as ``pin_config`` pins),
    then :func:`keep_pruned_fallback`."""
    from kernelopt.tunables.edit import keep_pruned_fallback

    start = source.index("    configs=[")
    end = source.index("    ],\n", start) + len("    ],\n")
    return keep_pruned_fallback(source, source[:start] + f"    configs=[{config}],\n" + source[end:], "_mm_splitk")


@pytest.mark.timeout(60)
def test_a_prune_kernelopt_cannot_wrap_is_said_one_candidate_among_n() -> None:
    text = (DATA / "splitk_strict" / "kernel.py").read_text()
    named = text.replace(
        'prune_configs_by={"early_config_prune": _prune, "perf_model": _perf, "top_k": 2}',
        "prune_configs_by=PRUNE",
    ).replace("@triton.autotune(", 'PRUNE = {"early_config_prune": _prune, "perf_model": _perf, "top_k": 2}\n\n\n'
              "@triton.autotune(", 1)  # fmt: skip
    kept = _retuned(named, NARROW)
    assert kept is not None and "_tuned_first" not in kept[0] and kept[0].count("triton.Config(") == 4
    assert "the tuned config is one candidate among the 4 the autotuner benchmarks" in kept[1]
    wrapped = _retuned(text, NARROW)  # the same list, its prune written in the decorator: wrapped
    assert wrapped is not None and "def _mm_splitk_tuned_first" in wrapped[0]
