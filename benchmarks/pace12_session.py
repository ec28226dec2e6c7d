#!/usr/bin/env python3
"""A tuning session's pace: evaluations per minute of ``kernelopt tune`` on a session across three ``SHAPES`` entries,
with two source trees (before and after a change), on the CPU in Triton's interpreter.

The problem is tests/data/tuning/add (a Triton vector add, one knob ``BLOCK``) with three ``SHAPES`` entries whose
``get_inputs`` sleeps ``--start-s`` seconds, as a GPU bench worker's start takes seconds (its CUDA context, its inputs
and reference: about 8 s an entry on the H100, 2026-12-06). Each tree runs ``kernelopt tune --device cpu --json
--budget-wall-s W`` on a fresh copy, in its own process (``PYTHONPATH`` = the tree's ``src``); the script prints each
run's evaluations, its session wall (``wall_s``), the process's wall, evaluations per minute of the process, whether
the session re-timed and wrote, and the tree's ``pace`` breakdown where it has one.

    python benchmarks/pace12_session.py --before /path/to/old/checkout [--after .] [--start-s 8] [--wall-s 60]
                                        [--repetitions N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ADD = REPO / "tests" / "data" / "tuning" / "add"


def folder(root: Path, start_s: float) -> Path:
    """The add problem with three entries whose inputs take ``start_s`` seconds to build."""
    out = root / "add"
    out.mkdir(parents=True)
    shutil.copy(ADD / "kernel.py", out / "kernel.py")
    (out / "reference.py").write_text(
        "import time\n\nimport torch\n\n"
        'SHAPES = [{"n": 4096}, {"n": 12288}, {"n": 20480}]\n\n\n'
        "def get_inputs(n: int = 4096):\n"
        f"    time.sleep({start_s})\n"
        "    return [torch.randn(n), torch.randn(n)]\n\n\n"
        "def reference(x, y):\n    return x + y\n"
    )
    return out


def run(tree: Path, start_s: float, wall_s: float, repetitions: int | None = None) -> dict[str, object]:
    """One ``tune`` of a fresh copy with ``tree``'s source; its figures."""
    with tempfile.TemporaryDirectory(prefix="pace12-") as tmp:
        problem = folder(Path(tmp), start_s)
        env = {**os.environ, "PYTHONPATH": str(tree / "src"), "TRITON_INTERPRET": "1"}
        argv = [sys.executable, "-m", "kernelopt", "tune", str(problem), "--device", "cpu", "--json"]
        argv += ["--budget-wall-s", f"{wall_s:g}", "--out", str(Path(tmp) / "logs")]
        argv += ["--repetitions", str(repetitions)] if repetitions else []
        t0 = time.monotonic()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=wall_s * 4 + 300, check=False)
        process_s = time.monotonic() - t0
        if done.returncode not in (0, 1):
            raise SystemExit(f"{tree}: tune exited {done.returncode}: {done.stderr[-2000:]}")
        summary = json.loads(done.stdout)
    evaluations = int(summary["evaluations"])
    return {
        "tree": str(tree),
        "evaluations": evaluations,
        "wall_s": round(float(summary["wall_s"]), 1),
        "process_s": round(process_s, 1),
        "per_minute": round(60.0 * evaluations / process_s, 1),
        "stop": summary["stop"],
        "outcomes": summary["outcomes"],
        "unretimed": summary.get("unretimed"),
        "better": summary.get("better"),
        "pace": summary.get("pace"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the checkout before the change")
    parser.add_argument("--after", type=Path, default=REPO, help="the checkout after it (default: this one)")
    parser.add_argument("--start-s", type=float, default=8.0, help="seconds each entry's inputs take to build")
    parser.add_argument("--wall-s", type=float, default=60.0, help="the session's wall time")
    parser.add_argument("--repetitions", type=int, help="timing samples a candidate (tune's --repetitions)")
    args = parser.parse_args()
    for name, tree in (("before", args.before), ("after", args.after)):
        row = run(tree.resolve(), args.start_s, args.wall_s, args.repetitions)
        print(f"{name}: {json.dumps(row)}", flush=True)


if __name__ == "__main__":
    main()
