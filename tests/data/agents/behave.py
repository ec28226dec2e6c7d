"""A well-behaved agent: does exactly the stage's job."""

import os
import sys
from pathlib import Path

stage = os.environ["KERNELOPT_STAGE"]
version = int(os.environ["KERNELOPT_VERSION"])
prompt = Path(sys.argv[1]).read_text() if len(sys.argv) > 1 else ""
assert "kernelopt Stage" in prompt, "the prompt file was not passed"

if stage == "plan":
    Path("plans").mkdir(exist_ok=True)
    Path(f"plans/v{version}_plan.md").write_text(
        f"---\nversion: {version}\nbottleneck_type: latency_bound\naction_category: num_warps\n"
        "targets: [num_warps]\nparameters: {num_warps: 8}\naction: raise num_warps to 8\n"
        "expected_impact: more latency hiding\nrisks_and_rollback: revert kernel.py\n---\n"
        "## Input Evidence\n- stall_long_scoreboard = 61 % [profiles/v1/summary.json] -> latency -> more warps\n"
    )
    print(f"wrote plans/v{version}_plan.md")
else:
    k = Path("kernel.py")
    k.write_text(k.read_text().replace("num_warps=4", "num_warps=8"))
    print("raised num_warps from 4 to 8; python test_kernel.py passed")
