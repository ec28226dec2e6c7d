"""A scripted Stage 2 agent: reads profiles/v<N>/summary.json and writes a valid code-change plan.

V1 plans a fusion (one pass instead of three), V2 a vectorized access, V3 a tiling: each a new action.
"""

import json
from pathlib import Path

from _agent import STAGE, VERSION

from kernelopt.memory.model import SearchLogEntry
from kernelopt.planning.markdown import render_plan
from kernelopt.planning.plan import Plan

assert STAGE == "plan", STAGE
summary = json.loads(Path(f"profiles/v{VERSION}/summary.json").read_text())
latency = summary["kernels"][0]["metrics"]["duration_us"]["value"]
category = ["fusion", "vectorized_access", "tiling", "coalescing"][(VERSION - 1) % 4]
plan = Plan(
    version=VERSION,
    bottleneck_type="latency_bound",
    action_category=category,
    targets=["kernel.py"],
    parameters={},
    action=f"{category}: walk each row once instead of once per pass",
    evidence=[
        f"duration_us = {latency} us [profiles/v{VERSION}/summary.json] -> three passes over every row "
        "-> fuse the passes into one"
    ],
    search_log=[
        SearchLogEntry(
            source="gpu-wiki",
            query="row softmax multi-pass fusion",
            finding="a single pass reads each row once",
            actionability="actionable",
        )
    ],
    expected_impact="fewer passes over the rows; lower latency",
    risks_and_rollback="numerics of the fused exp-sum; revert kernel.py",
    counters_available=bool(summary.get("counters_available", True)),
)
Path(f"plans/v{VERSION}_plan.md").write_text(render_plan(plan))
print(f"wrote plans/v{VERSION}_plan.md ({category})")
