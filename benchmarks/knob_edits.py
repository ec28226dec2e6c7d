"""Time what a tuning session does to kernel.py for every candidate: apply one knob change and verify it.

Usage::

    PYTHONPATH=src python benchmarks/knob_edits.py

For each example with a movable knob, each legal power of two around its value is applied to the example's
kernel.py, as a session applies its candidates to one base text. "each parse"
clears the parse cache before every edit (what every edit cost before the cache: the base text parsed
again each time); "parse kept" is the code as it runs (the base text parsed once). Both columns are measured
here, one after the other, in one process. Prints one table (milliseconds per edit).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from kernelopt.numeric import is_int
from kernelopt.tunables import analysis
from kernelopt.tunables.edit import apply_source

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def candidates(source: str) -> tuple[str, list[int]] | None:
    """The first editable integer knob of ``source`` and its legal powers of two around its value (each a
    distinct candidate text, as a session's candidates are)."""
    for t in analysis.discover_source(source):
        if not t.editable or not is_int(t.value):
            continue
        near = [t.value * 2**k for k in (1, -1, 2, -2, 3, 4)] if t.value > 1 else [2, 4, 8, 16]
        legal = sorted({int(v) for v in near if v >= 1 and v == int(v) and t.legality.problem(int(v)) is None})
        legal = [v for v in legal if v != t.value]
        if legal:
            return t.key, legal
    return None


def per_edit_ms(source: str, key: str, values: list[int], *, keep: bool) -> float:
    """Median time of one edit; with ``keep`` the base text is parsed once (its first edit included), and
    every edited text, being new, is parsed once either way."""
    analysis._parse.cache_clear()
    times = []
    for v in values:
        if not keep:
            analysis._parse.cache_clear()
        t0 = time.perf_counter()
        apply_source(source, {key: v})
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    rows = []
    for kernel in sorted(EXAMPLES.glob("*/kernel.py")):
        source = kernel.read_text(encoding="utf-8")
        found = candidates(source)
        if found is None:
            continue
        key, values = found
        cold = per_edit_ms(source, key, values, keep=False)
        warm = per_edit_ms(source, key, values, keep=True)
        rows.append((kernel.parent.name, key, cold, warm))
    print(f"{'example':<22} {'knob':<28} {'each parse':>11} {'parse kept':>11} {'ratio':>7}")
    for name, key, cold, warm in rows:
        print(f"{name:<22} {key[:28]:<28} {cold:>11.1f} {warm:>11.1f} {cold / warm:>6.2f}x")
    total_cold, total_warm = sum(r[2] for r in rows), sum(r[3] for r in rows)
    print(f"{'all':<22} {'':<28} {total_cold:>11.1f} {total_warm:>11.1f} {total_cold / total_warm:>6.2f}x")


if __name__ == "__main__":
    main()
