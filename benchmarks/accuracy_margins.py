#!/usr/bin/env python3
"""The accuracy rule's margins on a numeric model of reduced-precision accumulations (leftovers24, docs/faults.md).

:mod:`kernelopt.tuning.accuracy` refuses a candidate whose error grows with the size faster than the original's. Its
thresholds were set on one kernel's H100 figures; here they are measured on a model of the accumulations a tuned
kernel's knobs change, where the truth is known: each program sums a chain of ``K / (split * inner * lanes)`` adds
in an accumulator of a few mantissa bits (rounding to nearest, or truncating toward zero as an fp8 ``tl.dot`` does
on sm90), its ``inner`` terms exact before each add (a ``tl.dot`` instruction's K, a BLOCK_K tile summed in fp32),
its ``lanes`` a vector accumulator's (a row sum's BLOCK lanes, each adding every BLOCK-th value), the programs'
partial sums added into the output (fp16 atomics round each). A candidate whose chain is longer than the original's
is wrong (it reaches the tolerance at a size the original handles; twice as long is the least counted), one no
longer is right, and so is any chain summed in fp32 (its error stays under the output's rounding). Each trial draws
fresh inputs at every size, runs the original and the candidate on them, checks both against the exact sum rounded
to the output's precision (``||out - ref|| / ||ref||``, the worst element's share of ``atol + rtol |ref|``, as the
tuner's check does) and asks the rule, with the ``SHAPES`` entries alone and with the net's larger size beside them
(run only where the original passes there, as the net does; a candidate failing there is the net's refusal): false
refusals (right picks refused) and misses (wrong picks accepted) are counted, and the pace of the candidate's rise
against the original's that the rule read (:func:`kernelopt.tuning.accuracy.chain_rise`): the most in a right pick,
the least in a wrong one. A session (leftovers27 l130) judges a refusal whose rise is ambiguous
(:attr:`~kernelopt.tuning.accuracy.ChainRise.ambiguous`) again with the size
:func:`~kernelopt.tuning.accuracy.past_partials` derives beside the entries: its false refusals and misses are counted
too ("session"). Run it against another tree's rule with ``PYTHONPATH=that/src``.

Usage: ``python benchmarks/accuracy_margins.py [--trials 10] [--seed 0] [--json OUT]`` (CPU, numpy, one thread:
``OMP_NUM_THREADS=1``; about 5 s of CPU a trial).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from kernelopt.tuning.accuracy import EntryError, across_entries, entry_values, past_partials, refusing_rise
from kernelopt.tuning.candidate import Outcome, Result

try:  # leftovers24's rule reads the rise along the reduction's size; an older tree's has none
    from kernelopt.tuning.accuracy import chain_rise as rise
except ImportError:  # pragma: no cover - measuring main's rule before leftovers24
    rise = None


def rounded(x: np.ndarray, bits: int, truncate: bool = False) -> np.ndarray:
    """``x`` with ``bits`` bits of mantissa (the leading one included): to nearest (ties to even), or toward zero."""
    m, e = np.frexp(x)
    scaled = m * float(2**bits)
    return np.ldexp((np.trunc(scaled) if truncate else np.round(scaled)) / float(2**bits), e)


@dataclass(frozen=True)
class Format:
    """A floating-point format by its mantissa bits (the leading one included) and its unit roundoff's name."""

    name: str
    bits: int
    truncate: bool = False

    @property
    def roundoff(self) -> float:
        """The unit roundoff as the tuner's check reads it (``harness.tolerance.EPS``: 2**-10 for fp16)."""
        return 2.0 ** (1 - self.bits)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return rounded(x, self.bits, self.truncate)


#: the most outputs a size's sums are drawn for: a root mean square over 1024 of them is steady within a few percent,
#: and the CPU's time goes as the outputs times the row
MOST_OUTPUTS = 1024

#: the most terms a size's draw holds (its row times its outputs): a session's derived size (K = 65536 for split_k=64
#: over block_k=512) draws fewer outputs, 128 there, so a draw stays under 64 MB an array
MOST_TERMS = 2**23

FP32 = Format("fp32", 24)
FP16 = Format("fp16", 11)
BF16 = Format("bf16", 8)
#: an fp8 ``tl.dot``'s accumulator on sm90 as modelled: 15 bits kept, truncated (DeepSeek-V3's report reads about 14
#: on the H800); at 15 the model's split-K errors at breaker21's entries come near the H100's (docs/gpu-runs/
#: 2026-12-07-h100-p: the original's 4.3e-4 to 5.6e-4, its split_k=2 rising to 6.7e-4 at K = 2500)
FP8_DOT = Format("sm90 fp8 dot accumulator (15 bits, truncating)", 15, truncate=True)
FP8_E4M3 = Format("fp8 e4m3", 4)


@dataclass(frozen=True)
class Kind:
    """A kernel's accumulation: its inputs (``terms``: the products or values each output sums, by its row length and
    output count), its accumulator, how each program's partial sums reach the output, its output's format, its
    tolerance, the sizes of its ``SHAPES`` entries and of the net's larger size (``net``), which knob lengthens the
    chain (``chain(config, length)``: the adds one program's lane makes) and its original and candidate configs."""

    name: str
    terms: Callable[[np.random.Generator, int, int], np.ndarray]
    accumulator: Format
    atomics: Format | None
    output: Format
    atol: float
    rtol: float
    reduced: str
    entries: Sequence[dict[str, int]]
    net: dict[str, int]
    original: dict[str, int]
    candidates: Sequence[dict[str, int]]
    inner: Callable[[dict[str, int]], int] = field(default=lambda c: 1)
    lanes: Callable[[dict[str, int]], int] = field(default=lambda c: 1)

    def chain(self, config: dict[str, int], length: int) -> float:
        """The adds one lane of one program makes over a row of ``length``."""
        return length / (config.get("split", 1) * self.inner(config) * self.lanes(config))

    def outputs(self, size: dict[str, int]) -> int:
        """How many sums an entry makes (every size but the reduced one), at most :data:`MOST_OUTPUTS` and
        :data:`MOST_TERMS` over its row."""
        most = min(MOST_OUTPUTS, max(1, MOST_TERMS // size[self.reduced]))
        return min(int(np.prod([v for k, v in size.items() if k != self.reduced])), most)

    def run(self, config: dict[str, int], terms: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
        """The output of ``config`` over ``terms`` (row length x outputs) in this accumulation: each program's share a
        contiguous ``1 / split`` of the row, or, where ``config`` names a ``block_k``, every ``split``-th tile of
        ``block_k`` from its own (a split-K GEMM's: a program whose first tile lies past the row adds nothing, so the
        partials added into the output number ``min(split, ceil(K / block_k))``, growing with K up to ``split``),
        added in a random order where ``rng`` is given (atomics land as the programs finish; the contiguous shares
        keep the programs' order, as leftovers24 measured them)."""
        outs = terms.shape[1]
        inner, lanes = self.inner(config), self.lanes(config)
        out = np.zeros(outs)
        for part in _shares(config, terms, rng):
            step = inner * lanes
            trips = -(-len(part) // step)
            padded = np.zeros((trips * step, outs))
            padded[: len(part)] = part
            groups = padded.reshape(trips, lanes, inner, outs).sum(axis=2)  # each add's inner terms, exact
            acc = np.zeros((lanes, outs))
            for t in range(trips):
                acc = self.accumulator(acc + self.accumulator(groups[t]))
            partial = acc.sum(axis=0)  # the lanes' sum (fp32 tl.sum: exact beside the chain)
            out = self.atomics(out + self.output(partial)) if self.atomics else out + partial
        return self.output(out)


def _shares(config: dict[str, int], terms: np.ndarray, rng: np.random.Generator | None) -> list[np.ndarray]:
    """Each program's terms (see :meth:`Kind.run`), those with none left out (their partial is an exact zero)."""
    split, block = config.get("split", 1), config.get("block_k")
    if block is None:  # the other kinds' contiguous shares, added in program order (their draws as before)
        return list(np.array_split(terms, split, axis=0))
    tiles = [terms[t : t + block] for t in range(0, len(terms), block)]
    parts = [np.concatenate(tiles[p::split]) for p in range(min(split, len(tiles)))]
    return [parts[i] for i in rng.permutation(len(parts))] if rng is not None else parts


def _gemm_terms(fmt: Format) -> Callable[[np.random.Generator, int, int], np.ndarray]:
    def terms(rng: np.random.Generator, length: int, outs: int) -> np.ndarray:
        scale = 2.0 ** -round(np.log2(length) / 2)  # sums of about 1, where atol means what it means to a model
        return fmt(rng.standard_normal((length, outs))) * fmt(rng.standard_normal((length, outs))) * scale

    return terms


def _positive_terms(rng: np.random.Generator, length: int, outs: int) -> np.ndarray:
    return FP16(rng.random((length, outs)))


_SPLITK_ENTRIES = ({"M": 64, "N": 128, "K": 1000}, {"M": 128, "N": 64, "K": 512}, {"M": 64, "N": 64, "K": 2500})

KINDS = (
    # breaker21's ai_splitk: an fp8 tl.dot's truncating accumulator on sm90 (each wgmma's K of 32 exact before its
    # add), the programs' tiles added into an fp16 output by atomics; the original split_k=4
    Kind(
        "fp8 dot, split-K, fp16 atomics",
        _gemm_terms(FP8_E4M3),
        FP8_DOT,
        FP16,
        FP16,
        1e-2,
        1e-2,
        "K",
        _SPLITK_ENTRIES,
        {"M": 129, "N": 129, "K": 4097},
        {"split": 4},
        [{"split": s} for s in (1, 2, 4, 8, 16)],
        inner=lambda c: 32,
    ),
    # a bf16 accumulator over a BLOCK_K loop (each tile summed in fp32, then added into the bf16 running sum)
    Kind(
        "bf16 accumulator, BLOCK_K trips",
        _gemm_terms(BF16),
        BF16,
        None,
        BF16,
        5e-2,
        5e-2,
        "K",
        ({"M": 32, "N": 64, "K": 1024}, {"M": 64, "N": 32, "K": 512}, {"M": 32, "N": 32, "K": 2048}),
        {"M": 65, "N": 65, "K": 4097},
        {"BLOCK_K": 64},
        [{"BLOCK_K": b} for b in (16, 32, 64, 128, 256)] + [{"BLOCK_K": 32, "split": 2}],
        inner=lambda c: c["BLOCK_K"],
    ),
    # v116's sums_fp16_split: fp16 lanes, each adding every BLOCK-th value of its split's share, added into fp32
    Kind(
        "fp16 lanes, row sums",
        _positive_terms,
        FP16,
        None,
        FP32,
        1e-3,
        1e-3,
        "n_cols",
        ({"n_rows": 8, "n_cols": 5000}, {"n_rows": 8, "n_cols": 20000}),
        {"n_rows": 9, "n_cols": 65537},
        {"BLOCK": 256, "split": 8},
        [{"BLOCK": b, "split": s} for b in (256, 1024) for s in (1, 2, 4, 8, 16)],
        lanes=lambda c: c["BLOCK"],
    ),
    # examples/matmul: an fp16 GEMM summing K in fp32 (no chain grows past the output's rounding: review23's r33)
    Kind(
        "fp32 accumulator, fp16 output",
        _gemm_terms(FP16),
        FP32,
        None,
        FP16,
        5e-2,
        1e-2,
        "K",
        ({"M": 64, "N": 64, "K": 1024}, {"M": 96, "N": 80, "K": 72}),
        {"M": 129, "N": 129, "K": 2049},
        {"BLOCK_K": 32},
        [{"BLOCK_K": b} for b in (16, 32, 64, 128)],
        inner=lambda c: c["BLOCK_K"],
    ),
)


KINDS = (
    *KINDS,
    # breaker21's ai_splitk as the kernel runs it (leftovers26, l110): program p sums every split_k-th tile of block_k
    # from the p-th, so at the entries' K (512 to 2500, under split_k x block_k) a larger split_k adds more partials
    # as K grows, up to split_k; the atomics land in a random order. The H100's 13 refusals of 2026-12-07 (split_k
    # 16 to 64, their chains a quarter to a sixteenth of the original's) are right picks here: K = 8192 is the net's
    replace(
        KINDS[0],
        name="fp8 dot, split-K over block_k tiles, fp16 atomics",
        net={"M": 32, "N": 32, "K": 8192},
        original={"split": 4, "block_k": 512},
        candidates=[
            {"split": s, "block_k": b}
            for s, b in ((16, 128), (32, 64), (32, 32), (64, 512), (16, 64), (8, 64), (2, 64))
        ],
    ),
)


def checked(kind: Kind, out: np.ndarray, exact: np.ndarray) -> Result:
    """The tuner's check of ``out`` against the exact sum rounded to the output's format, as a passing ``Result``
    (``WRONG_RESULT`` past the tolerance)."""
    ref = kind.output(exact)
    diff = np.abs(out - ref)
    worst = float((diff / (kind.atol + kind.rtol * np.abs(ref))).max())
    rel = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
    outcome = Outcome.OK if worst <= 1.0 else Outcome.WRONG_RESULT
    return Result(config={}, outcome=outcome, rel_err=rel, worst_ratio=worst, roundoff=kind.output.roundoff)


def _label(size: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in size.items())


@dataclass
class Tally:
    """One kind's counts: right and wrong picks judged, false refusals and misses, with and without the net's size."""

    right: int = 0
    wrong: int = 0
    false_refusals: int = 0
    misses: int = 0
    false_refusals_net: int = 0
    misses_net: int = 0
    false_refusals_session: int = 0
    misses_session: int = 0
    derived: int = 0
    told: list[tuple[str, str, bool]] = field(default_factory=list)  # (config, derived size, kept) a session's
    failed_check: int = 0
    refused_lines: list[str] = field(default_factory=list)
    missed_lines: list[str] = field(default_factory=list)
    growth_right: list[float] = field(default_factory=list)
    growth_wrong: list[float] = field(default_factory=list)


def trial(kind: Kind, rng: np.random.Generator, tally: Tally, derive: np.random.Generator | None = None) -> None:
    """Draw inputs at every entry and the net's size, run the original and each candidate, tally the rule's calls;
    a session's derived sizes drawn from ``derive`` (its own generator, so the entries' draws stay as they were;
    ``None``: none drawn, the session's tally the entries')."""
    sizes = [*kind.entries, kind.net]
    runs = []
    for size in sizes:
        terms = kind.terms(rng, size[kind.reduced], kind.outputs(size))
        exact = terms.sum(axis=0)
        original = checked(kind, kind.run(kind.original, terms, rng), exact)
        runs.append((size, terms, exact, original))
    for config in kind.candidates:
        if config == kind.original:
            continue
        ratio = kind.chain(config, 1) / kind.chain(kind.original, 1) if kind.accumulator is not FP32 else 1.0
        if 1.0 < ratio < 2.0:
            continue  # neither: a chain longer by less than twice is counted nowhere
        errors = []
        caught = False  # failed the net's size where the original passed: the net refuses it
        for i, (size, terms, exact, original) in enumerate(runs):
            result = checked(kind, kind.run(config, terms, rng), exact)
            if i == len(runs) - 1:  # the net's size, run only where the original passes there (as the net does)
                caught = original.outcome.ok and not result.outcome.ok
                if original.outcome.ok and result.outcome.ok:
                    errors.append(EntryError(_label(size), result, original.rel_err or 0.0, entry_values(size)))
                break
            if not result.outcome.ok or not original.outcome.ok:
                tally.failed_check += 1  # failed the check at an entry (or the original did): not the rule's call
                break
            errors.append(EntryError(_label(size), result, original.rel_err or 0.0, entry_values(size)))
        else:
            continue
        if len(errors) < len(kind.entries):
            continue
        entries = errors[: len(kind.entries)]
        at_entries = across_entries(entries) is not None
        with_net = caught or across_entries(errors) is not None
        in_session = at_entries and not (derive is not None and _told_apart(kind, config, entries, derive, tally))
        if rise is not None and (r := rise(entries)) is not None and r.original > 0:
            (tally.growth_right if ratio <= 1.0 else tally.growth_wrong).append(r.candidate / r.original)
        if ratio <= 1.0:
            tally.right += 1
            tally.false_refusals += at_entries
            tally.false_refusals_net += with_net
            tally.false_refusals_session += in_session
            if at_entries:
                tally.refused_lines.append(f"{config} (chain x{ratio:g})")
        else:
            tally.wrong += 1
            tally.misses += not at_entries
            tally.misses_net += not with_net
            tally.misses_session += not in_session
            if not at_entries:
                tally.missed_lines.append(f"{config} (chain x{ratio:g})")


def _knobs(config: dict[str, int]) -> dict[str, int]:
    """A model's config by the names a kernel's knobs take (``split`` is a split-K's ``split_k``)."""
    return {("split_k" if k == "split" else k): v for k, v in config.items()}


def _told_apart(
    kind: Kind, config: dict[str, int], entries: list[EntryError], rng: np.random.Generator, tally: Tally
) -> bool:
    """Whether a session keeps ``config`` refused at the entries: its rise ambiguous, the size
    :func:`~kernelopt.tuning.accuracy.past_partials` derives drawn, both run there, and the rule with that size beside
    the entries keeps it (a candidate failing there where the original passes stays refused)."""
    rise = refusing_rise(entries)
    if rise is None or not rise.ambiguous:
        return False
    size = past_partials(rise, [_knobs(config), _knobs(kind.original)])
    if size is None:
        return False
    terms = kind.terms(rng, size[kind.reduced], kind.outputs(size))
    exact = terms.sum(axis=0)
    original = checked(kind, kind.run(kind.original, terms, rng), exact)
    result = checked(kind, kind.run(config, terms, rng), exact)
    kept = False
    if original.outcome.ok and result.outcome.ok:
        derived = EntryError(_label(size), result, original.rel_err or 0.0, entry_values(size))
        kept = across_entries([*entries, derived]) is None
    tally.derived += 1
    tally.told.append((str(config), _label(size), kept))
    return kept


def measure(trials: int, seed: int, kinds: Sequence[Kind] = KINDS, session: bool = False) -> dict[str, Tally]:
    """Each kind's tally over ``trials`` trials of fresh inputs (numpy's generator from ``seed``); ``session``: each
    ambiguous refusal judged again at its derived size too (:func:`_told_apart`, drawn from ``seed + 1``)."""
    rng, derive = np.random.default_rng(seed), np.random.default_rng(seed + 1) if session else None
    tallies = {k.name: Tally() for k in kinds}
    for _ in range(trials):
        for kind in kinds:
            trial(kind, rng, tallies[kind.name], derive)
    return tallies


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    tallies = measure(args.trials, args.seed, session=True)
    print(f"{'kind':34} right  false refusals (net, session)  wrong  misses (net, session)  failed the check")
    for name, t in tallies.items():
        print(
            f"{name:34} {t.right:5}  {t.false_refusals:5} ({t.false_refusals_net:3}, {t.false_refusals_session:3})"
            f"          {t.wrong:5}  {t.misses:5} ({t.misses_net:3}, {t.misses_session:3})  {t.failed_check}"
        )
        if t.derived:
            kept = sorted({c for c, _, k in t.told if k})
            print(f"    a size past the splits derived for {t.derived} ambiguous refusals, kept there: {kept}")
        for line in sorted(set(t.refused_lines))[:6]:
            print(f"    refused right: {line}")
        for line in sorted(set(t.missed_lines))[:6]:
            print(f"    missed wrong: {line}")
        if t.growth_right or t.growth_wrong:
            most = max(t.growth_right, default=float("nan"))
            least = min(t.growth_wrong, default=float("nan"))
            print(f"    the rise's pace at the entries: right picks at most {most:.3g}, wrong at least {least:.3g}")
    if args.json:
        out: dict[str, Any] = {n: vars(t) for n, t in tallies.items()}
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
