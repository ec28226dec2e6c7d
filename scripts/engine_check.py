#!/usr/bin/env python3
"""Issue 22's execution proof on a GPU: large problems through KernelEvaluator, with no candidate failing for memory.

For each problem (tests/data/tuning/gpu/<name>: bias + GELU fp32 16384 x 16384, 1 GiB per tensor; row softmax
fp32 16384 x 8192, 512 MiB per tensor) a few configurations of its knobs go through
:class:`kernelopt.tuning.kernel_evaluator.KernelEvaluator` (compile pool on the small shape, one bench worker
that holds the inputs once), then the best two are re-timed interleaved. Printed per candidate: outcome,
latency, peak memory of the bench worker against inputs + outputs, and the seconds it cost (compile,
check, time, and the batch's wall divided by its candidates). A candidate that fails for memory, or a
peak above 4 x (inputs + outputs), makes the exit status 1.

    python scripts/engine_check.py --out $OUT [--problems bias_gelu softmax] [--device cuda]
    TRITON_INTERPRET=1 python scripts/engine_check.py --out /tmp/ec --device cpu --shape M=16,N=1024  # smoke

Writes ``engine_check.json`` and ``engine_check.md`` under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if (REPO / "src" / "kernelopt").is_dir():
    sys.path.insert(0, str(REPO / "src"))

from kernelopt.tuning.candidate import Config, Outcome, Result  # noqa: E402
from kernelopt.tuning.kernel_evaluator import EvaluatorSettings, KernelEvaluator, knob_editor  # noqa: E402
from kernelopt.tuning.problem import BENCH_MEMORY_FACTOR, Problem  # noqa: E402

DATA = REPO / "tests" / "data" / "tuning" / "gpu"
CONFIGS: dict[str, list[dict[str, int]]] = {
    "bias_gelu": [{"BLOCK_SIZE": b, "num_warps": w} for b in (512, 1024, 2048, 4096) for w in (4, 8)],
    "softmax": [{"num_warps": w, "num_stages": s} for w in (4, 8, 16, 32) for s in (1, 2)],
}
MEMORY_OUTCOMES = (Outcome.OUT_OF_MEMORY, Outcome.WORKER_CRASH)
MIB = 2**20


def _row(r: Result, bound: int) -> dict[str, object]:
    return {
        "config": Config.of(r.config).key(),
        "outcome": r.outcome.value,
        "reason": r.reason,
        "latency_us": r.latency_us,
        "peak_mib": None if r.peak_bytes is None else round(r.peak_bytes / MIB, 1),
        "peak_over_problem": None if r.peak_bytes is None else round(r.peak_bytes * BENCH_MEMORY_FACTOR / bound, 2),
        "compile_s": r.compile_s,
        "check_s": r.check_s,
        "bench_s": r.bench_s,
    }


def check(name: str, device: str, session: Path, shape: dict[str, int] | None = None) -> dict[str, object]:
    folder = DATA / name
    base = (folder / "kernel.py").read_text()
    problem = Problem.from_folder(folder, device=device).model_copy(update={"shape": shape})
    t0 = time.monotonic()
    with KernelEvaluator(
        problem, base, knob_editor(base), session_dir=session / name, settings=EvaluatorSettings()
    ) as ev:
        ready = ev.start()
        start_s = time.monotonic() - t0
        batch = [Config.of(c) for c in CONFIGS[name]]
        t1 = time.monotonic()
        results = ev.evaluate(batch)
        batch_s = time.monotonic() - t1
        ok = sorted((r for r in results if r.outcome is Outcome.OK), key=lambda r: r.latency_us or 0.0)
        t2 = time.monotonic()
        retimed = ev.retime([Config.of(r.config) for r in ok[:2]]) if len(ok) >= 2 else []
        retime_s = time.monotonic() - t2
        compile_workers, bench_starts = ev.compile_workers, ev.bench_starts
    bound = ready.need.bench_bound_bytes
    rows = [_row(r, bound) for r in results]
    memory_failures = [r for r in results if r.outcome in MEMORY_OUTCOMES]
    over = [r for r in results if r.peak_bytes is not None and r.peak_bytes > bound]
    return {
        "problem": name,
        "device": ready.device,
        "device_name": ready.device_name,
        "shape": ready.shape,
        "inputs_mib": round(ready.need.inputs_bytes / MIB, 1),
        "outputs_mib": round(ready.need.outputs_bytes / MIB, 1),
        "free_mib_before": round(ready.free_bytes / MIB, 1),
        "held_mib_after_setup": None if ready.held_bytes is None else round(ready.held_bytes / MIB, 1),
        "start_s": round(start_s, 2),
        "batch_s": round(batch_s, 2),
        "per_candidate_wall_s": round(batch_s / len(batch), 3),
        "retime_s": round(retime_s, 2),
        "compile_workers": compile_workers,
        "bench_starts": bench_starts,
        "candidates": rows,
        "retimed": [_row(r, bound) for r in retimed],
        "memory_failures": len(memory_failures),
        "peaks_over_bound": len(over),
    }


def markdown(report: dict[str, object]) -> str:
    lines = [
        f"## {report['problem']} on {report['device_name']} ({report['shape']})",
        "",
        f"inputs {report['inputs_mib']} MiB, outputs {report['outputs_mib']} MiB, "
        f"free before {report['free_mib_before']} MiB; bench worker start {report['start_s']} s "
        f"(held after setup {report['held_mib_after_setup']} MiB); "
        f"{report['compile_workers']} compile workers; batch {report['batch_s']} s = "
        f"{report['per_candidate_wall_s']} s per candidate; re-time of the best two {report['retime_s']} s",
        "",
        "| config | outcome | latency us | peak MiB | peak / (in+out) | compile s | check s | time s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in report["candidates"]:  # type: ignore[attr-defined]
        lat = f"{r['latency_us']:.1f}" if r["latency_us"] is not None else "-"
        cells = [r["config"], r["outcome"] + (f" ({r['reason']})" if r["reason"] else ""), lat]
        cells += [str(r[k]) if r[k] is not None else "-" for k in ("peak_mib", "peak_over_problem")]
        cells += [f"{r[k]:.2f}" if r[k] is not None else "-" for k in ("compile_s", "check_s", "bench_s")]
        lines.append("| " + " | ".join(cells) + " |")
    for r in report["retimed"]:  # type: ignore[attr-defined]
        lines.append(f"\nre-timed interleaved: {r['config']}: {r['latency_us']:.1f} us")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--problems", nargs="+", default=list(CONFIGS))
    p.add_argument("--device", default="cuda")
    p.add_argument("--shape", default=None, help="override the primary shape, e.g. M=64,N=1024 (a CPU smoke run)")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    shape = {k: int(v) for k, v in (kv.split("=") for kv in args.shape.split(","))} if args.shape else None
    reports = [check(name, args.device, args.out / "sessions", shape) for name in args.problems]
    (args.out / "engine_check.json").write_text(json.dumps(reports, indent=1), encoding="utf-8")
    text = "\n".join(markdown(r) for r in reports)
    (args.out / "engine_check.md").write_text(text, encoding="utf-8")
    print(text)
    bad = sum(int(r["memory_failures"]) + int(r["peaks_over_bound"]) for r in reports)  # type: ignore[call-overload]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
