"""An autotune list's own filters hold every candidate (tuneleft9): ``filter(keep, configs)``, a comprehension's ``if``
clauses, ``[c for c in configs if ...]`` and ``early_config_prune`` are read from the source
(:mod:`kernelopt.tunables.list_filters`) and applied in the worker to the candidate's pinned list
(:mod:`kernelopt.tuning.list_screen`): a configuration they reject is ``INVALID``, set aside untimed and not charged.

Seen on 2026-12-05 (breaker8's fa2_causal, Triton's fused-attention tutorial, ``list(filter(keep, configs))`` with
``keep`` requiring ``BLOCK_M % BLOCK_N == 0``): ``tune --budget 12`` charged 7 of its 12 candidates to configurations
the author's own filter or ``tl.static_assert(BLOCK_N <= HEAD_DIM)`` rejects (6 compile_error, 1 wrong_result)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.tunables import AutotuneConfig, pin_configs
from kernelopt.tunables.list_filters import WHOLE_CONFIG, list_screen

DATA = Path(__file__).parent / "data" / "breaker8"

FORMS = """
import triton
import triton.language as tl

configs = [triton.Config({"BM": b * 2}) for b in [8, 16] if b > 8]


def drop_wide(configs, named_args, **kwargs):
    return [c for c in configs if c.kwargs["BLOCK"] <= named_args["n"]] or configs[:1]


@triton.autotune(
    [triton.Config({"BM": bm, "BN": bn}, num_warps=w) for bm in [16, 32] for bn in [16, 32] for w in [4] if bm >= bn],
    key=[],
)
@triton.jit
def comp(x, BM: tl.constexpr, BN: tl.constexpr):
    pass


@triton.autotune(configs=[c for c in configs if c.kwargs["BM"] < 64], key=[])
@triton.jit
def whole(x, BM: tl.constexpr):
    pass


@triton.autotune(
    [triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 256})],
    key=["n"],
    prune_configs_by={"early_config_prune": drop_wide},
)
@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


def built(small=False):
    out = []
    for bm in [16, 32, 64]:
        for bn in [16, 32]:
            if bm % bn == 0 and (bm < 64 or not small):
                out.append(triton.Config({"BM": bm, "BN": bn}))
    return out


@triton.autotune(configs=built(), key=[])
@triton.jit
def from_helper(x, BM: tl.constexpr, BN: tl.constexpr):
    pass


looped = []
for bm in [16, 32, 64]:
    for bn in [16, 32]:
        if bm < bn:
            continue
        if bm * bn >= 2048:
            looped.append(triton.Config({"BM": bm, "BN": bn}, num_warps=8))
        else:
            looped.append(triton.Config({"BM": bm, "BN": bn}, num_warps=4))


@triton.autotune(configs=looped, key=[])
@triton.jit
def loop(x, BM: tl.constexpr, BN: tl.constexpr):
    pass


def run(x):
    add_one[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, x.numel())
    return x
"""


def test_the_filters_people_write_are_read_with_the_knobs_they_bind() -> None:
    fa2 = list_screen((DATA / "fa2_causal" / "kernel.py").read_text(), "_attn_fwd")
    assert fa2 is not None and not fa2.prune and not fa2.unread
    [keep] = fa2.filters
    assert (keep.text, keep.expression, keep.binds) == ("filter(keep, ...)", "(keep)(config)", {"config": WHOLE_CONFIG})

    comp = list_screen(FORMS, "comp")
    assert comp is not None
    [cond] = comp.filters
    assert (cond.text, cond.binds) == ("if bm >= bn", {"bm": "BM", "bn": "BN"})

    # a comprehension over the Config objects binds them whole; the list it reads, followed to its module-level
    # assignment, filters on a loop variable no knob takes as it is (``BM = b * 2``): said, never dropped in silence
    whole = list_screen(FORMS, "whole")
    assert whole is not None
    assert [(f.text, f.binds) for f in whole.filters] == [('if c.kwargs["BM"] < 64', {"c": WHOLE_CONFIG})]
    assert len(whole.unread) == 1 and "`if b > 8`" in whole.unread[0] and "reads b" in whole.unread[0]

    # a list appended to in loops (Triton's tutorials, FlagGems): each append's conditions, the appends' alternatives
    loop = list_screen(FORMS, "loop")
    assert loop is not None and not loop.unread
    [either] = loop.filters
    assert either.binds == {"bm": "BM", "bn": "BN"}
    assert either.expression == (
        "(not (bm < bn) and (bm * bn >= 2048)) or (not (bm < bn) and not (bm * bn >= 2048))"
    ), either.expression

    # a helper's one return, its loops read in its body; a condition on its parameter is said, its other half kept
    helper = list_screen(FORMS, "from_helper")
    assert helper is not None
    assert [(f.text, f.binds) for f in helper.filters] == [("if bm % bn == 0", {"bm": "BM", "bn": "BN"})]
    assert len(helper.unread) == 1 and "reads small, which is neither a loop variable nor a name" in helper.unread[0]

    pruned = list_screen(FORMS, "add_one")
    assert pruned is not None and pruned.prune and not pruned.filters
    assert list_screen(FORMS, "run") is None  # no autotune decorator


def _pinned(source: str, kernel: str, tmp_path: Path, name: str, **kwargs: int) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(pin_configs(source, kernel, [AutotuneConfig(kwargs=kwargs, num_warps=4, num_stages=3)]).new_source)
    return path


@pytest.mark.timeout(120)
def test_a_pinned_candidate_the_list_s_own_filter_rejects_is_refused_in_the_worker(tmp_path: Path) -> None:
    """fa2_causal pinned to BLOCK_M=16, BLOCK_N=32: ``keep`` drops it (the diagonal block is walked in BLOCK_N steps
    that must divide BLOCK_M); 32 x 16 is kept. A comprehension's ``if`` holds the same way."""
    from kernelopt.tuning.list_screen import screen_loaded
    from tests.conftest import load_fresh, triton_interpreted

    source = (DATA / "fa2_causal" / "kernel.py").read_text()
    screen = list_screen(source, "_attn_fwd")
    assert screen is not None
    with triton_interpreted():
        bad = load_fresh(_pinned(source, "_attn_fwd", tmp_path, "bad", BLOCK_M=16, BLOCK_N=32), "_ls_bad")
        good = load_fresh(_pinned(source, "_attn_fwd", tmp_path, "good", BLOCK_M=32, BLOCK_N=16), "_ls_good")
        comp = load_fresh(_pinned(FORMS, "comp", tmp_path, "comp", BM=16, BN=32), "_ls_comp")
        looped = load_fresh(_pinned(FORMS, "loop", tmp_path, "loop", BM=16, BN=32), "_ls_loop")
        kept = load_fresh(_pinned(FORMS, "loop", tmp_path, "kept", BM=64, BN=16), "_ls_kept")
    why = screen_loaded(bad, screen)
    assert why is not None and "`filter(keep, ...)` (kernel.py:66) rejects BLOCK_M=16, BLOCK_N=32" in why, why
    assert screen_loaded(good, screen) is None
    comp_screen = list_screen(FORMS, "comp")
    assert comp_screen is not None
    why = screen_loaded(comp, comp_screen)
    assert why is not None and "`if bm >= bn`" in why, why
    loop_screen = list_screen(FORMS, "loop")
    assert loop_screen is not None
    why = screen_loaded(looped, loop_screen)
    assert why is not None and "the conditions of its 2 appends" in why, why
    assert screen_loaded(kept, loop_screen) is None


@pytest.mark.timeout(120)
def test_an_early_config_prune_that_drops_the_pinned_config_makes_it_invalid(tmp_path: Path) -> None:
    """With one config Triton's autotuner never calls ``early_config_prune``: the worker calls it at the launch, with
    the launch's arguments, and a config it drops is ``INVALID`` (not a run error, not timed); one it keeps runs. The
    prune falls back on its first config when it keeps none (``or configs[:1]``, as breaker5's split-K prune does), so
    a lone config is always kept: it is judged beside the original list too (``ListScreen.originals``)."""
    import torch

    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.checks import classify
    from kernelopt.tuning.list_screen import ScreenedConfig, watch_prune
    from tests.conftest import load_fresh, triton_interpreted

    alone = list_screen(FORMS, "add_one")
    assert alone is not None
    originals = tuple(AutotuneConfig(kwargs={"BLOCK": b}) for b in (64, 256))
    screen = alone.model_copy(update={"originals": originals})
    with triton_interpreted():
        wide_path = _pinned(FORMS, "add_one", tmp_path, "wide", BLOCK=256)
        wide = load_fresh(wide_path, "_ls_wide")
        narrow = load_fresh(_pinned(FORMS, "add_one", tmp_path, "narrow", BLOCK=64), "_ls_narrow")
        lone = load_fresh(wide_path, "_ls_lone")
        watch_prune(lone, alone)
        assert torch.equal(lone.run(torch.zeros(100)), torch.ones(100))  # the fallback keeps a config given alone
        watch_prune(wide, screen)
        watch_prune(narrow, screen)
        with pytest.raises(ScreenedConfig) as raised:
            wide.run(torch.zeros(100))
        assert torch.equal(narrow.run(torch.zeros(100)), torch.ones(100))
    verdict = classify(raised.value, wide_path, "running")
    assert verdict.outcome is Outcome.INVALID
    assert (
        verdict.reason is not None
        and "early_config_prune `drop_wide` drops BLOCK=256 beside the original configs" in verdict.reason
    )


def test_a_written_list_keeps_the_original_configs_when_a_static_assert_reads_a_tuned_knob() -> None:
    """fa2_causal's ``tl.static_assert(BLOCK_N <= HEAD_DIM)``: a table of tuned configs all 32-wide passes at the
    head dimension of 32 its ``SHAPES`` name, and every one fails at 16, which the original handled (its autotuner skips
    the 32-wide config there and runs a 16-wide one). The written list keeps the original configs after the tuned ones,
    as for a user's ``early_config_prune``; a kernel without such an assert keeps its pin alone."""
    from kernelopt.tunables.edit import keep_pruned_fallback
    from kernelopt.tunables.list_filters import size_asserts

    source = (DATA / "fa2_causal" / "kernel.py").read_text()
    assert size_asserts(source, "_attn_fwd", {"BLOCK_M", "BLOCK_N"}) == ["BLOCK_N <= HEAD_DIM"]
    assert size_asserts(source, "_attn_fwd", {"BLOCK_M"}) == []  # the assert reads no tuned knob
    tuned = [AutotuneConfig(kwargs={"BLOCK_M": m, "BLOCK_N": 32}, num_warps=4, num_stages=3) for m in (32, 128)]
    pinned = pin_configs(source, "_attn_fwd", tuned).new_source
    kept = keep_pruned_fallback(source, pinned, "_attn_fwd")
    assert kept is not None
    written, note = kept
    assert "*(list(filter(keep, configs)))" in written, written
    assert "tl.static_assert(BLOCK_N <= HEAD_DIM)" in note and "original configs are kept" in note
    compile(written, "kernel.py", "exec")
    plain = source.replace("    tl.static_assert(BLOCK_N <= HEAD_DIM)\n", "")
    assert keep_pruned_fallback(plain, pin_configs(plain, "_attn_fwd", tuned).new_source, "_attn_fwd") is None


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_fa2_s_written_list_holds_at_a_head_dim_every_tuned_config_fails_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled): fa2_causal's list tuned to two 32-wide key blocks. Pinned alone, the list
    fails at a head dimension of 16 (each config's ``tl.static_assert(BLOCK_N <= HEAD_DIM)``: a
    ``CompileTimeAssertionFailure``, which classify makes ``INVALID``); with the original configs kept after them
    (``keep_pruned_fallback``) it is correct at 16, 32 and 64, as the original is; and ``keep`` rejects a config of
    ``BLOCK_M % BLOCK_N != 0`` in the loaded module as in the interpreter."""
    from kernelopt.tunables.edit import keep_pruned_fallback
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.checks import classify
    from kernelopt.tuning.list_screen import screen_loaded
    from tests.conftest import load_fresh
    from tests.gpu_correct import correct_on_device
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    folder = DATA / "fa2_causal"
    source = (folder / "kernel.py").read_text()
    tuned = [AutotuneConfig(kwargs={"BLOCK_M": m, "BLOCK_N": 32}, num_warps=4, num_stages=3) for m in (32, 128)]
    pinned = pin_configs(source, "_attn_fwd", tuned).new_source
    kept = keep_pruned_fallback(source, pinned, "_attn_fwd")
    assert kept is not None
    (tmp_path / "pinned.py").write_text(pinned)
    (tmp_path / "written.py").write_text(kept[0])
    shapes = [{"Z": 1, "H": 2, "N_CTX": 200, "D": d} for d in (16, 32, 64)]
    got = correct_on_device(folder, shapes, _outputs_checked, kernel_py=tmp_path / "written.py")
    assert got == {f"Z=1,H=2,N_CTX=200,D={d}": True for d in (16, 32, 64)}, got
    import torch

    q = torch.randn(1, 2, 200, 16, device="cuda")
    with pytest.raises(Exception) as raised:
        load_fresh(tmp_path / "pinned.py", "_ls_gpu_pinned").run(q, q, q)
    verdict = classify(raised.value, tmp_path / "pinned.py", "running")
    assert verdict.outcome is Outcome.INVALID, verdict
    screen = list_screen(source, "_attn_fwd")
    assert screen is not None
    bad = load_fresh(_pinned(source, "_attn_fwd", tmp_path, "gpu_bad", BLOCK_M=16, BLOCK_N=32), "_ls_gpu_bad")
    assert screen_loaded(bad, screen) is not None


def test_a_pruned_literal_list_is_judged_beside_its_own_configs() -> None:
    """breaker5's split-K list is literal, so discovery imports nothing and no evaluation holds it: the original
    configs the prune judges a candidate beside come from its literal entries (before, none: the prune's fallback,
    ``kept or configs[:1]``, kept every lone candidate, and ``tune --budget 8`` timed three it drops)."""
    from kernelopt.tunables import discover_source
    from kernelopt.tuning.folder import _screen

    base = (Path(__file__).parent / "data" / "breaker5" / "splitk_prune" / "kernel.py").read_text()
    screen = _screen(base, "_mm_splitk", None, discover_source(base))
    assert screen is not None and screen.prune
    assert [(c.kwargs["BLOCK_K"], c.kwargs["SPLIT_K"]) for c in screen.originals] == [(16, 2), (32, 4), (16, 8)]


OTHER_FORMS = """
import itertools

import triton
import triton.language as tl

base = [triton.Config({"BM": bm, "BN": bn}) for bm in [16, 32, 64] for bn in [16, 32]]


def ok(c):
    return c.kwargs["BM"] >= c.kwargs["BN"]


def bad(c):
    return c.kwargs["BM"] < c.kwargs["BN"]


def square(c):
    return c.kwargs["BM"] == c.kwargs["BN"]


@triton.autotune(configs=list(filter(None, base)), key=[])
@triton.jit
def k_none(x, BM: tl.constexpr, BN: tl.constexpr):
    pass


@triton.autotune(configs=[c for c in base if c], key=[])
@triton.jit
def k_truthy(x, BM: tl.constexpr, BN: tl.constexpr):
    pass


@triton.autotune(configs=[c for c in itertools.filterfalse(bad, base)], key=[])
@triton.jit
def k_filterfalse(x, BM: tl.constexpr, BN: tl.constexpr):
    pass


@triton.autotune(configs=list(itertools.takewhile(ok, base)), key=[])
@triton.jit
def k_takewhile(x, BM: tl.constexpr, BN: tl.constexpr):
    pass


@triton.autotune(configs=[c for c in filter(square, base)] + [c for c in base if c.kwargs["BN"] == 16], key=[])
@triton.jit
def k_joined(x, BM: tl.constexpr, BN: tl.constexpr):
    pass


@triton.autotune(configs=list(itertools.chain(filter(ok, base), [triton.Config({"BM": 16, "BN": 64})])), key=[])
@triton.jit
def k_chain_literal(x, BM: tl.constexpr, BN: tl.constexpr):
    pass


@triton.autotune(configs=list(itertools.compress(base, [ok(c) for c in base])), key=[])
@triton.jit
def k_compress(x, BM: tl.constexpr, BN: tl.constexpr):
    pass
"""


@pytest.mark.timeout(120)
def test_filter_none_itertools_and_joined_lists_are_screened_as_their_author_wrote_them(tmp_path: Path) -> None:
    """leftovers10: ``filter(None, configs)`` was read as a filter calling ``None`` and refused every candidate
    ("raised on it (TypeError: 'NoneType' object is not callable)"); ``itertools.filterfalse``/``takewhile`` and lists
    joined by ``+`` or ``itertools.chain`` were not read (their filters dropped in silence). Each pinned to a config
    the author keeps (BM=32, BN=32) and one they do not (BM=16, BN=32)."""
    from kernelopt.tuning.list_screen import screen_loaded
    from tests.conftest import load_fresh, triton_interpreted

    verdicts: dict[str, tuple[str | None, str | None]] = {}
    for kernel in ("k_none", "k_truthy", "k_filterfalse", "k_takewhile", "k_joined", "k_chain_literal"):
        screen = list_screen(OTHER_FORMS, kernel)
        if screen is None:  # nothing to check: every candidate is kept
            verdicts[kernel] = (None, None)
            continue
        assert not screen.unread, screen.unread
        with triton_interpreted():
            good = load_fresh(_pinned(OTHER_FORMS, kernel, tmp_path, f"{kernel}_g", BM=32, BN=32), f"_{kernel}_g")
            bad = load_fresh(_pinned(OTHER_FORMS, kernel, tmp_path, f"{kernel}_b", BM=16, BN=32), f"_{kernel}_b")
        verdicts[kernel] = (screen_loaded(good, screen), screen_loaded(bad, screen))
    assert verdicts["k_none"] == verdicts["k_truthy"] == (None, None)  # a triton.Config is truthy: every one kept
    for kernel, text in [
        ("k_filterfalse", "`itertools.filterfalse(bad, ...)` (kernel.py:34)"),
        ("k_takewhile", "`itertools.takewhile(ok, ...)` (kernel.py:40)"),
        ("k_joined", "`the filters of its 2 parts joined by +` (kernel.py:46)"),
    ]:
        kept, refused = verdicts[kernel]
        assert kept is None and refused is not None and f"{text} rejects BM=16, BN=32" in refused, refused
    # a part that is a literal list states no rule beyond itself: nothing to check on a candidate
    assert verdicts["k_chain_literal"] == (None, None)
    compress = list_screen(OTHER_FORMS, "k_compress")
    assert compress is not None and not compress.filters
    assert (
        "`itertools.compress(...)` (kernel.py:58) keeps configs by more than each config's values" in compress.unread[0]
    )
