"""A pick refused at one ``SHAPES`` entry alone, by a small margin, re-timed against the current configuration there.

A session across entries judges a pick shape by shape (:func:`~kernelopt.tuning.session.judge_table`): it is written
when it gains the minimum on some entry and is slower by no more than that on any. Each entry's figure is a median of
``--repetitions`` samples; with three, one slow episode at one entry on a loaded machine kept a real gain from being
written (seen twice in the test suite under load, the sixteenth session). Where the judgement refuses at one entry
alone (:attr:`~kernelopt.tuning.session.GainJudgement.refused_at`), slower there by at most
:data:`RETIME_SLOWER_PCT`, or by any margin where the session's other round had the pick faster there, the pick (the
configuration that serves that entry) and the current configuration are re-timed at that entry, interleaved, as the
session re-times its top few (the same rounds, from its ``--repetitions``: :meth:`ShapesEvaluator.retime_at`), and
the session is judged again with those two figures at that entry. Every timing stays: the re-time's results are
appended to the session's record (marked re-timed, never served to a rerun) and the verdict names both rounds. A
re-time that reads either of the two :data:`~kernelopt.tuning.session.OUTLIER_FACTOR` times its figure in the round
judged or more (:func:`~kernelopt.tuning.session.outliers`) leaves the refusal standing: one of the two measurements
of the same kernel is wrong, and no gain is claimed from either (claim20).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kernelopt.digits import sig
from kernelopt.tuning.candidate import Config, Result, Value, config_text
from kernelopt.tuning.record import SessionRecord
from kernelopt.tuning.session import OUTLIER_FACTOR, GainJudgement, SessionResult, outliers
from kernelopt.tuning.shape_evaluator import ShapesEvaluator
from kernelopt.tuning.shapes import latest, same_round, total

#: The most a pick may be slower than the current configuration at the one entry that refuses it, percent, for that
#: entry to be re-timed: past it the refusal stands as measured.
RETIME_SLOWER_PCT = 10.0


def retime_refusal(
    result: SessionResult,
    judgement: GainJudgement,
    pick: Mapping[str, Value] | None,
    evaluator: ShapesEvaluator,
    record: SessionRecord | None = None,
    cut: Callable[[], str | None] | None = None,
) -> tuple[SessionResult, str] | None:
    """The session with ``pick`` and the current configuration re-timed at the one entry that refused ``pick`` (the
    module docstring), and the sentence that says so; ``None`` where no such re-time applies (the pick judged better,
    refused at several entries, or by more than :data:`RETIME_SLOWER_PCT` where the other round agrees
    (:func:`_other_round`), a session too noisy to rank, no current configuration timed, an entry set aside or
    untimed). Where the re-time fails for either, the session is returned as it was, with the sentence saying why the
    refusal stands; so too where ``cut`` (asked just before the re-time would run) says the session's wall time cannot
    fit it (:meth:`~kernelopt.tuning.tail_wall.TailWall.cut`)."""
    if judgement.better or judgement.refused_at is None or result.noisy is not None:
        return None
    label, slower = judgement.refused_at
    if pick is None or result.current_config is None:
        return None
    mine, theirs = Config.of(pick), Config.of(result.current_config)
    if mine == theirs or label not in evaluator.labels or label in evaluator.untimed or label in evaluator.set_aside:
        return None
    first = same_round(result.results, result.retimed, [mine, theirs])
    before = [first[c].latency_us_by_shape.get(label) if c in first else None for c in (mine, theirs)]
    other = _other_round(result, label, mine, theirs, before, judgement.min_gain_pct)
    if slower > RETIME_SLOWER_PCT and other is None:
        return None
    was = f"judged on {_us(before[0])} against {_us(before[1])}, {slower:.1f} % slower"
    if other is not None:
        was = f"{was}; the other round {_us(other[0])} against {_us(other[1])}"
    spent = cut() if cut is not None else None
    if spent is not None:
        return result, f"{spent}; the refusal stands ({was})"
    again = evaluator.retime_at(label, [mine, theirs])
    if record is not None:
        for r in again:
            record.append(r.model_copy(update={"retimed": True}))
    failed = next((r for r in again if not r.outcome.ok or r.latency_us is None), None)
    if failed is not None:
        why = failed.reason or failed.outcome.value
        head = f"re-timed at {label} (interleaved with the current configuration)"
        return result, f"{head}: {config_text(failed.config)} did not time there ({why}); the refusal stands ({was})"
    samples = min(len(r.samples_us) for r in again)
    head = f"re-timed at {label} ({samples} samples each, interleaved with the current configuration)"
    far = outliers(again, [first[c] for c in (mine, theirs) if c in first], then="in the round judged")
    if far:  # one of two measurements of one kernel is wrong: no gain is claimed from either (claim20)
        return result, (
            f"{head}: it read {'; '.join(far)}: one of the two measurements of the same kernel is wrong by "
            f"{OUTLIER_FACTOR:g}x or more; the refusal stands ({was})"
        )
    now = {Config.of(r.config): r.latency_us or 0.0 for r in again}
    patched = result.model_copy(
        update={
            "results": [_at(r, label, now) for r in result.results],
            "retimed": [_at(r, label, now) for r in result.retimed],
        }
    )
    gain = (now[theirs] / now[mine] - 1) * 100 if now[mine] else 0.0
    return patched, (
        f"{head}: {config_text(pick)} {_us(now[mine])} against the current {_us(now[theirs])} ({gain:+.1f} %; {was})"
    )


def _other_round(
    result: SessionResult,
    label: str,
    mine: Config,
    theirs: Config,
    judged: list[float | None],
    min_gain_pct: float,
) -> tuple[float, float] | None:
    """The pick's and the current configuration's figures at ``label`` in the session's other round of measurements
    (the first, where the judgement read the re-time, or the re-time), where that round had the pick faster there by
    the minimum gain: the two rounds disagree, so the entry is re-timed whatever the margin (a CPU session at load 13,
    2026-12-06: BLOCK=1024 11.5 us against 164.3 at n=1024 at first, 587.4 against 163.1 in the re-time, one of its
    two samples 1.2 ms, refused "72.2 % slower"). ``None`` otherwise."""
    for pool in (latest(result.results), latest(result.retimed)):
        a, b = pool.get(mine), pool.get(theirs)
        at = (a.latency_us_by_shape.get(label), b.latency_us_by_shape.get(label)) if a and b else (None, None)
        if at[0] and at[1] and [at[0], at[1]] != judged and (at[1] / at[0] - 1) * 100 >= min_gain_pct:
            return at[0], at[1]
    return None


def _at(result: Result, label: str, now: Mapping[Config, float]) -> Result:
    """``result`` with its figure at ``label`` the re-time's where it is one of the two re-timed and was timed there
    (its total again the sum over its entries); any other result as it was."""
    config = Config.of(result.config)
    if config not in now or label not in result.latency_us_by_shape:
        return result
    by = {**result.latency_us_by_shape, label: now[config]}
    return result.model_copy(update={"latency_us_by_shape": by, "latency_us": total(list(by.values()))})


def _us(value: float | None) -> str:
    return "-" if value is None else f"{sig(value)} us"


__all__ = ["RETIME_SLOWER_PCT", "retime_refusal"]
