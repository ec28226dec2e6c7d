"""The accuracy-only size a session runs where a candidate's rise along the entries is ambiguous (leftovers27, l130).

The accuracy rule (:mod:`kernelopt.tuning.accuracy`) refuses a candidate whose error rises along the reduction's size
faster than the original's. At sizes under a split-K's ``split_k * block_k`` the count of rounded partial adds grows
along K as a longer chain would, so a candidate within :data:`~kernelopt.tuning.accuracy.ERROR_GROWTH` times the
original's error at every entry (:attr:`~kernelopt.tuning.accuracy.ChainRise.ambiguous`) cannot be told from a doubled
chain there: the H100 refused seven right split_k=16 and 64 picks of ai_splitk so (leftovers26, l110). Here that
candidate and the original run once more, at the size :func:`~kernelopt.tuning.accuracy.past_partials` derives from
the entry at the rise's high end (K past every split's tiles, the candidate's and the original's: 8192 for those
picks), checked in the primary entry's bench worker on the same inputs (:meth:`KernelEvaluator.check_at`, the net's
request); both errors there join the entries' in :func:`~kernelopt.tuning.accuracy.across_entries`. A chain twice as
long still rises there; a count of partials that stopped growing does not. Nothing here is timed, and nothing runs
for a candidate the entries keep or refuse by its ratio at an entry alone (split_k=32's 1.5 to 2 times the original's
error there).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kernelopt.tuning.accuracy import ChainRise, EntryError, across_entries, past_partials
from kernelopt.tuning.candidate import Config, Outcome
from kernelopt.tuning.kernel_evaluator import KernelEvaluator, Refusal
from kernelopt.tuning.problem import ProblemShape


@dataclass(frozen=True)
class TellApart:
    """What the size past the splits said of an ambiguous refusal: ``kept`` (the rise a count of partials that stops
    growing there) or refused, ``line`` the refusal's whole reason (or why it was kept); ``label`` the ``SHAPES`` entry
    the size was derived from (the refusal's entry), ``size`` the size's label (``None`` where none ran)."""

    kept: bool
    label: str
    line: str
    size: str | None = None

    @property
    def said(self) -> str:
        """One line of what was run and found, for the session's notes."""
        if self.size is None:
            return f"not told apart ({self.line})"
        if self.kept:
            return f"kept at {self.size}, a size past its splits: {self.line}"
        return f"refused with {self.size}, a size past its splits, beside the entries: {self.line}"


def tell_apart(
    primary: KernelEvaluator,
    config: Config,
    original: Config | None,
    errors: Sequence[EntryError],
    rise: ChainRise,
    entries: Mapping[str, ProblemShape],
) -> TellApart:
    """Judge ``config``'s ambiguous ``rise`` (its errors at the entries, ``errors``) again beside its error and the
    original's (``original``'s source, else the base source) at the size past the splits, checked in ``primary``'s
    bench worker within the session's limit of a request (:meth:`KernelEvaluator.request_limit_s`); ``entries``: the
    session's ``SHAPES`` entries by label (the derived size keeps the high entry's other arguments and constants).
    Where the size cannot be derived or run (too large, a size ``get_inputs`` does not take by name, the session's time
    spent, the original failing there), the refusal stands with the reason in its line; where the candidate fails its
    check there and the original passes, that failure is its refusal.

    Raises:
        ProblemDoesNotFit, ProblemError, WorkerStartError: as :meth:`KernelEvaluator.check_at`.
    """
    label = rise.high.label
    why = f"on the SHAPES entry {label}: {rise.line()}"
    high = entries.get(label)
    values = past_partials(rise, [config, original or {}])
    if values is None or high is None or rise.name not in high.kwargs:
        unrun = "its size past the splits would pass the most an accuracy-only size may be"
        if values is not None:
            unrun = f"{rise.name} is no argument of get_inputs at {label}"
        return TellApart(False, label, f"{why} (not told apart: {unrun})")
    shape = ProblemShape(kwargs={**high.kwargs, rise.name: values[rise.name]}, constants=high.constants)
    size = shape.label()
    ours_src = primary.apply(config)
    theirs_src = primary.base_source if original is None else primary.apply(original)
    if isinstance(ours_src, Refusal) or isinstance(theirs_src, Refusal):
        return TellApart(False, label, f"{why} (not told apart: no source to run at {size})")
    theirs = primary.error_at(theirs_src, shape)
    if theirs is None:
        limit = primary.request_limit_s()
        if limit is None:
            return TellApart(False, label, f"{why} (not told apart: no time left to run {size})")
        outcome, reason = primary.check_at(theirs_src, shape, limit)
        theirs = primary.error_at(theirs_src, shape)
        if outcome is not Outcome.OK or theirs is None or not theirs.rel_err:
            said = f"{outcome.value}: {reason}" if outcome is not Outcome.OK else "its error not measured or exact"
            return TellApart(False, label, f"{why} (not told apart: the original at {size}: {said})")
    limit = primary.request_limit_s()
    if limit is None:
        return TellApart(False, label, f"{why} (not told apart: no time left to run {size})")
    outcome, reason = primary.check_at(ours_src, shape, limit)
    ours = primary.error_at(ours_src, shape)
    if outcome is not Outcome.OK:  # a failure where the original passes: its own refusal
        failed = f"at {size}, a size past its splits derived from the SHAPES entry {label}, where the original passes"
        return TellApart(False, label, f"{failed}: {outcome.value}: {reason}", size)
    if ours is None or ours.rel_err is None:
        return TellApart(False, label, f"{why} (not told apart: its error at {size} not measured)", size)
    assert theirs.rel_err is not None
    found = across_entries([*errors, EntryError(size, ours, theirs.rel_err, values)])
    if found is None:
        kept = (
            f"rel_err {ours.rel_err:.3g} against the original's {theirs.rel_err:.3g}: its rise at the entries was "
            "rounded partial adds that stop growing past the splits, not a longer chain"
        )
        return TellApart(True, label, kept, size)
    at, line = found
    where = f"at {size}, a size past its splits derived from the SHAPES entry {label}"
    if at != size:
        where = f"on the SHAPES entry {at}, with {size} (a size past its splits) beside the entries"
    return TellApart(False, label, f"{where}: {line}", size)
