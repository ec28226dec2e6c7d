"""What the scripted coding agents share: the stage, version and prompt they were started with."""

import os
import sys
from pathlib import Path

STAGE = os.environ["KERNELOPT_STAGE"]
VERSION = int(os.environ["KERNELOPT_VERSION"])
PROMPT = Path(sys.argv[1]).read_text() if len(sys.argv) > 1 else sys.stdin.read()
REPAIR = "## Repair attempt" in PROMPT

SINGLE_PASS = '''"""Row softmax on torch CPU tensors in one pass: each row's max, exp-sum and normalize at once."""

import torch


def run(x):
    e = torch.exp(x - x.amax(dim=1, keepdim=True))
    return e / e.sum(dim=1, keepdim=True)
'''

NARROW = '''"""Row softmax in one pass over a row's first 128 columns."""

import torch


def run(x):
    head = x[:, :128]
    e = torch.exp(head - head.amax(dim=1, keepdim=True))
    out = torch.empty_like(x)
    out[:, :128] = e / e.sum(dim=1, keepdim=True)
    out[:, 128:] = 0
    return out
'''


def write_plan(category: str, action: str, finding: str, parameters: dict | None = None) -> Path:
    """plans/v<N>_plan.md as the orchestrator's own reader and rules accept it (newuser22 n165): rendered by
    kernelopt's plan writer, its Input Evidence citing the latency Stage 1 measured in profiles/v<N>/summary.json,
    a gpu-wiki search first in its log, and the timing-only note where that profile had no counters."""
    import json

    from kernelopt.memory.model import SearchLogEntry
    from kernelopt.planning.markdown import render_plan
    from kernelopt.planning.plan import Plan

    summary = json.loads(Path(f"profiles/v{VERSION}/summary.json").read_text())
    latency = summary["kernels"][0]["metrics"]["duration_us"]["value"]
    plan = Plan(
        version=VERSION,
        bottleneck_type="latency_bound",
        action_category=category,
        targets=list(parameters or {}) or ["kernel.py"],
        parameters=parameters or {},
        action=action,
        evidence=[f"duration_us = {latency} us [profiles/v{VERSION}/summary.json] -> {finding}"],
        search_log=[SearchLogEntry(source="gpu-wiki", query=category, finding=finding, actionability="actionable")],
        expected_impact="lower latency",
        risks_and_rollback="revert kernel.py",
        counters_available=bool(summary.get("counters_available", True)),
    )
    path = Path(f"plans/v{VERSION}_plan.md")
    path.write_text(render_plan(plan))
    return path


def write_kernel(text: str) -> None:
    Path("kernel.py").write_text(text)


def slower(text: str) -> str:
    """The kernel with every pass run four times (same result, four times the work)."""
    return text.replace("    for i in range(rows):", "    for _ in range(4):\n      for i in range(rows):").replace(
        "\n        ", "\n          "
    )
