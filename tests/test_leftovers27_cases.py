"""leftovers27's cases (docs/faults.md, "Leftovers, twenty-seventh round"): a split-K pick whose rise along the entries
cannot be told from a longer chain judged again at a size past its splits (l130)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_leftovers26_cases import H100_ORIGINAL, H100_REFUSED, SPLITK_ENTRIES, SPLITK_NOW, _splitk_errors

#: l42's H100 figures (docs/gpu-runs/2026-12-07-h100-q/leftovers24_l42.json): each config's and the original's error
#: at ai_splitk's entries and at 512 x 512 x 8192
L42 = json.loads(
    (Path(__file__).parents[1] / "docs" / "gpu-runs" / "2026-12-07-h100-q" / "leftovers24_l42.json").read_text()
)["ai_splitk"]
M24_NW8 = "block_k=128,block_m=64,block_n=128,group_m=2,num_stages=3,num_warps=8,split_k=16"
DOUBLED = "block_k=64,block_m=64,block_n=64,group_m=8,num_stages=2,num_warps=8,split_k=2"
AT_8192 = "M=512,N=512,K=8192"


def _config(key: str) -> dict[str, int]:
    return {k: int(v) for k, v in (kv.split("=") for kv in key.split(","))}


def test_l130_the_size_past_the_splits_is_derived_for_the_ambiguous_refusals_alone() -> None:
    """l130: of the H100's 13 refusals of ai_splitk (2026-12-07), the seven of split_k 16 and 64 were within 1.25
    times the original's error at every entry, a rise the entries cannot tell from a doubled chain
    (:attr:`ChainRise.ambiguous`); split_k=32's six were 1.5 to 2 times it at an entry already, a loss there, and stay
    refused with no size run. The size derived for each ambiguous one (:func:`past_partials`) is the entry at the rise's
    high end with K the least power of two at twice the largest of its K and each split x block_k (the pick's, the
    original's 4 x 512): 8192 for split_k=16 over block_k=128 (as the H100's 8192 of l42), 65536 for 64 over 512; l42's
    split_k=2 (its doubled chain within 1.2 times the original's at the entries) gets 8192; a size past the cap (the
    product of sizes more than 64 times the largest entry's) none."""
    from kernelopt.tuning.accuracy import past_partials, refusing_rise

    derived = {}
    for key, (*errs, worst) in H100_REFUSED.items():
        rise = refusing_rise(_splitk_errors(tuple(errs), worst, H100_ORIGINAL, SPLITK_ENTRIES))
        if key == (16, 128, 4, "bn32 st3"):  # kept at its margin (l110): nothing to tell apart
            assert rise is None
            continue
        assert rise is not None and rise.name == "K" and rise.ambiguous is (key[0] != 32), (key, rise)
        if rise.ambiguous:
            config = {"split_k": key[0], "block_k": key[1], "num_warps": key[2]}
            derived[key] = past_partials(rise, [config, SPLITK_NOW])
    assert {k[:2]: v for k, v in derived.items()} == {
        (16, 128): {"M": 64, "N": 64, "K": 8192},
        (64, 512): {"M": 64, "N": 64, "K": 65536},
    }, derived
    assert len(derived) == 6, derived  # the seventh kept at its margin
    run = L42[DOUBLED]["errors"]
    labels = [label for label in run if label != AT_8192]
    entries = _splitk_errors(tuple(run[x][1] for x in labels), 0.2, tuple(run[x][0] for x in labels),
                             [_config(x) for x in labels])  # fmt: skip
    rise = refusing_rise(entries)
    assert rise is not None and rise.ambiguous, rise
    assert past_partials(rise, [_config(DOUBLED), SPLITK_NOW]) == {"M": 64, "N": 64, "K": 8192}
    assert past_partials(rise, [{"split_k": 64, "block_k": 512}], most=20) is None  # 26 times the largest entry


class Primary:
    """The primary entry's evaluator as :func:`tell_apart` reads it: each source's check at a derived size gives the
    recorded error there (``at``: source -> rel_err, or an outcome that failed), counted in ``ran``."""

    def __init__(self, at: dict[str, Any], limit_s: float | None = 60.0) -> None:
        self.base_source = "original"
        self.original_err = H100_ORIGINAL[0]
        self.at, self.limit_s, self.ran = at, limit_s, []
        self.kept: dict[tuple[str, str], Any] = {}

    def apply(self, config: Any) -> str:
        return "original" if dict(config) == SPLITK_NOW else "candidate"

    def request_limit_s(self) -> float | None:
        return self.limit_s

    def check_at(self, source: str, shape: Any, limit_s: float | None = None) -> tuple[Any, str | None]:
        from kernelopt.tuning.candidate import Outcome, Result

        self.ran.append((source, shape.label()))
        got = self.at[source]
        if isinstance(got, Outcome):
            return got, "differs from the reference at 12 of 4096 elements"
        self.kept[(source, shape.label())] = Result(
            config={}, outcome=Outcome.OK, rel_err=got, worst_ratio=0.2, roundoff=2**-10
        )
        return Outcome.OK, None

    def error_at(self, source: str, shape: Any) -> Any:
        return self.kept.get((source, shape.label()))


class Entry:  # another entry's evaluator as errors_by reads it: the original's error there
    def __init__(self, err: float) -> None:
        self.original_err = err


def _session(primary: Primary, originals: tuple[float, ...]) -> Any:
    from kernelopt.tuning.accuracy import entry_values
    from kernelopt.tuning.candidate import Config
    from kernelopt.tuning.problem import ProblemShape
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator

    class Shapes(ShapesEvaluator):  # the session's evaluator as its accuracy rule reads it, no bench worker started
        def __init__(self) -> None:
            shapes = [ProblemShape(kwargs=dict(size)) for size in SPLITK_ENTRIES]
            self.labels = [s.label() for s in shapes]
            primary.original_err = originals[0]
            self.evaluators = [primary, *(Entry(err) for err in originals[1:])]  # type: ignore[list-item]
            self.values = {s.label(): entry_values(s.kwargs) for s in shapes}
            self.shapes = {s.label(): s for s in shapes}
            self.told_apart = {}
            self.uncut = set()
            self.original = Config.of(SPLITK_NOW)

    return Shapes()


@pytest.mark.parametrize("case", ["m24 split_k=16", "split_k=2", "original fails there", "no time left"])
def test_l130_an_ambiguous_refusal_is_judged_again_at_a_size_past_its_splits(case: str) -> None:
    """l130: the session's rule (``ShapesEvaluator._accurate``) refused the H100's m24 tiles (split_k=16 over
    block_k=128, num_warps=4: 1.06 to 1.24 times the original's error at the entries, rising along K 2.2 times as fast)
    as it refuses a doubled chain. Such a refusal now runs the pick and the original at the size past their splits
    (:func:`kernelopt.tuning.accuracy_size.tell_apart`: K = 8192 at the high entry's M and N), the original once a
    size, judged with the entries: with the H100's figures at 8192 (l42: the same tiles with num_warps=8, 7.49e-4
    against the original's 8.88e-4) kept; l42's split_k=2 (1.30e-3 against 8.88e-4 there) still refused, at that size.
    Where the size tells nothing (the original failing there, the session's time spent) the refusal stands, its line
    saying why."""
    from kernelopt.tuning.accuracy import LESS_ACCURATE
    from kernelopt.tuning.candidate import Config, Outcome, Result

    if case == "split_k=2":
        run = L42[DOUBLED]["errors"]
        by_label = {",".join(f"{k}={v}" for k, v in size.items()): size for size in SPLITK_ENTRIES}
        errs = tuple(run[label][1] for label in by_label)
        originals = tuple(run[label][0] for label in by_label)
        config, at = _config(DOUBLED), {"candidate": run[AT_8192][1], "original": run[AT_8192][0]}
    else:
        *errs, _ = H100_REFUSED[(16, 128, 4, "bm64")]  # K = 512, 1000, 2500: SPLITK_ENTRIES' order
        errs, originals = tuple(errs), H100_ORIGINAL
        config = {**SPLITK_NOW, "block_n": 128, "block_k": 128, "split_k": 16, "group_m": 2, "num_warps": 4}
        at = {"candidate": L42[M24_NW8]["errors"][AT_8192][1], "original": L42[M24_NW8]["errors"][AT_8192][0]}
        if case == "original fails there":
            at["original"] = Outcome.WRONG_RESULT
    primary = Primary(at, None if case == "no time left" else 60.0)
    session = _session(primary, originals)
    by = {
        label: Result(config={}, outcome=Outcome.OK, rel_err=err, worst_ratio=0.2, roundoff=2**-10)
        for label, err in zip(session.labels, errs, strict=True)
    }
    picked = Config.of(config)
    merged = Result(config=config, outcome=Outcome.OK, latency_us=10.0)
    got = session._accurate(picked, merged, by)
    again = session._accurate(picked, merged, by)  # the same candidate judged again runs nothing more
    assert again == got
    said = session.told_apart[picked.key()]
    if case == "m24 split_k=16":
        assert got is merged and said.kept and said.size == "M=64,N=64,K=8192", said
        assert primary.ran == [("original", "M=64,N=64,K=8192"), ("candidate", "M=64,N=64,K=8192")]
        assert said.line.startswith("rel_err 0.000749 against the original's 0.000888"), said.line
        return
    assert got.outcome is Outcome.WRONG_RESULT and got.error_class == LESS_ACCURATE, got
    assert got.failed_entry == "M=64,N=64,K=2500" and not said.kept, got
    if case == "split_k=2":
        assert got.reason.startswith(
            "at M=64,N=64,K=8192, a size past its splits derived from the SHAPES entry M=64,N=64,K=2500: its error "
            "rises along K"
        ), got.reason
        assert len(primary.ran) == 2
    elif case == "original fails there":
        assert got.reason.startswith("on the SHAPES entry M=64,N=64,K=2500: its error rises along K"), got.reason
        assert got.reason.endswith(
            "(not told apart: the original at M=64,N=64,K=8192: wrong_result: differs from the reference at 12 of "
            "4096 elements)"
        ), got.reason
        assert primary.ran == [("original", "M=64,N=64,K=8192")]
    else:
        assert got.reason.endswith("(not told apart: no time left to run M=64,N=64,K=8192)"), got.reason
        assert primary.ran == []


#: ai_splitk's picks for the session's rule on a GPU: the H100's refused split_k 16 and 64 (within 1.25 times the
#: original's error at the entries: ambiguous), split_k=32 over 64 (1.5 to 2 times it at an entry: refused with no size
#: run) and split_k=2's doubled chain (leftovers26's SPLITK_REFUSED, SPLITK_DOUBLED)
SPLITK_PICKS = (
    {"block_m": 64, "block_n": 128, "block_k": 128, "split_k": 16, "group_m": 2, "num_stages": 3, "num_warps": 4},
    {"block_m": 16, "block_n": 64, "block_k": 128, "split_k": 16, "group_m": 16, "num_stages": 4, "num_warps": 4},
    {"block_m": 32, "block_n": 16, "block_k": 512, "split_k": 64, "group_m": 4, "num_stages": 3, "num_warps": 4},
    {"block_m": 16, "block_n": 32, "block_k": 64, "split_k": 32, "group_m": 32, "num_stages": 5, "num_warps": 8},
    {"block_k": 64, "split_k": 2, "num_stages": 2},
)


@pytest.mark.gpu
@pytest.mark.timeout(400)
def test_on_cuda_l130_a_session_tells_split_k_s_partials_from_a_longer_chain_past_its_splits(tmp_path: Path) -> None:
    """On an NVIDIA GPU (owed: scripts/gpu_leftovers27.sh): l130 in a session's own evaluator. ai_splitk's original and
    the picks above evaluated by a :class:`ShapesEvaluator` over its three entries, as ``tune`` builds it (the
    original never cut); each refusal's line and what the size past its splits said (``told_apart``) printed.
    Asserted: no pick fails a check at an entry; split_k=2 refused (at the entries, or at its size past the splits);
    a pick the entries refuse ambiguously ran its size (K = 8192, 65536 for 64 over 512) and the split_k 16 and 64 picks
    are not refused (the model's and l42's prediction: the shorter chain no less accurate there); split_k=32 is not
    judged at a derived size (refused at an entry by its ratio, or kept)."""
    import os

    from kernelopt.tuning.accuracy import LESS_ACCURATE
    from kernelopt.tuning.candidate import Config
    from kernelopt.tuning.kernel_evaluator import knob_editor
    from kernelopt.tuning.problem import Problem
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator
    from kernelopt.tuning.shapes import session_shapes
    from tests.conftest import load_fresh

    folder = Path(__file__).parent / "data" / "breaker21" / "ai_splitk"
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    base = (folder / "kernel.py").read_text()
    problem = Problem.from_folder(folder, device="cuda")
    entries = list(load_fresh(folder / "reference.py", "_l130_ai_splitk").SHAPES)
    current = Config.of(SPLITK_NOW)
    picks = [current.with_values(p) for p in SPLITK_PICKS]
    with ShapesEvaluator(
        problem, session_shapes(problem, entries), base, knob_editor(base),
        session_dir=tmp_path / "s", env=env, original=current,
    ) as ev:  # fmt: skip
        ev.never_cut([current.key()])
        results = ev.evaluate([current, *picks])
        told = dict(ev.told_apart)
    for config, result in zip([current, *picks], results, strict=True):
        said = told.get(config.key())
        print("l130", config.key(), result.outcome.value, result.error_class, result.reason, said and said.said)
    assert results[0].outcome.ok, results[0]
    *ambiguous, thirty_two, doubled = zip(picks, results, strict=True)
    for config, result in [*ambiguous, thirty_two, doubled]:
        assert result.outcome.ok or result.error_class == LESS_ACCURATE, (config, result)
    assert not doubled[1].outcome.ok, doubled
    for config, result in ambiguous:
        assert result.outcome.ok, (config, result.reason)
        if config.key() in told:
            assert told[config.key()].kept and told[config.key()].size is not None, told[config.key()]
    assert thirty_two[0].key() not in told or told[thirty_two[0].key()].size is None, told
