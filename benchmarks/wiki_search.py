"""Time the gpu-wiki: reading the records, building the BM25 index, and warm queries.

Usage::

    PYTHONPATH=src python benchmarks/wiki_search.py [--repeat 200]

Prints one table (milliseconds). Cold figures clear the in-process caches first; warm queries reuse
the index that ``kernelopt.wiki.search.search`` builds once per process.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from kernelopt.wiki import loader, search
from kernelopt.wiki.index import WikiIndex
from kernelopt.wiki.record import RecordKind
from kernelopt.wiki.scope import family_names

QUERIES: list[tuple[str, dict[str, object]]] = [
    ("text only", {"query": "shared memory bank conflicts transpose"}),
    ("metric name + arch", {"query": "dram__throughput.avg.pct_of_peak_sustained_elapsed 92 %", "arch": "h200"}),
    ("symptoms only", {"query": "", "arch": "sm_90", "symptoms": ["latency_bound", "register_spills"]}),
    ("AMD, techniques", {"query": "SQ_LDS_BANK_CONFLICT", "arch": "gfx942", "kinds": [RecordKind.TECHNIQUE]}),
    ("framework filter", {"query": "split-K small grid", "framework": "triton", "symptoms": ["small_grid"]}),
]


def _ms(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e3)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(0.95 * len(samples)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="warm queries per row")
    args = parser.parse_args()

    rows: list[tuple[str, float, float]] = []
    t0 = time.perf_counter()
    import bm25s  # noqa: F401  (timed on its own: the first index build pays it otherwise)

    rows.append(("import bm25s (numpy, scipy)", (time.perf_counter() - t0) * 1e3, float("nan")))
    loader._builtin.cache_clear()
    t0 = time.perf_counter()
    wiki = loader.load_wiki()
    rows.append(("load + parse all records (cold)", (time.perf_counter() - t0) * 1e3, float("nan")))
    t0 = time.perf_counter()
    WikiIndex(wiki.records, family_names(wiki.specs))
    rows.append((f"build BM25 index ({len(wiki.records)} records)", (time.perf_counter() - t0) * 1e3, float("nan")))
    search.clear_cache()
    loader._builtin.cache_clear()
    t0 = time.perf_counter()
    search.search("first query of the process", arch="sm_90")
    rows.append(("first search() in a process (load + index + query)", (time.perf_counter() - t0) * 1e3, float("nan")))
    for label, kwargs in QUERIES:
        med, p95 = _ms(lambda kw=kwargs: search.search(**kw), args.repeat)  # type: ignore[arg-type]
        rows.append((f"warm query: {label}", med, p95))

    width = max(len(r[0]) for r in rows)
    print(f"{'step'.ljust(width)}  {'median ms':>10}  {'p95 ms':>8}")
    for name, med, p95 in rows:
        p95_s = "" if p95 != p95 else f"{p95:8.3f}"
        print(f"{name.ljust(width)}  {med:10.3f}  {p95_s:>8}")


if __name__ == "__main__":
    main()
