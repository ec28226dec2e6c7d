"""Each stage's file made a symbolic link to a file of the agent's own outside the workspace (agents19 a6): Stage 2's
plans/v<N>_plan.md (a copy of PLAN_TEXT), Stage 3's kernel.py (an edited copy)."""

import os
from pathlib import Path

stage = os.environ["KERNELOPT_STAGE"]
version = os.environ["KERNELOPT_VERSION"]
out = Path(os.environ["LINK_OUT"])
if stage == "plan":
    out.write_text(Path(os.environ["PLAN_TEXT"]).read_text())
    os.symlink(out, f"plans/v{version}_plan.md")
else:
    out.write_text(Path("kernel.py").read_text().replace("num_warps=4", "num_warps=8"))
    os.unlink("kernel.py")
    os.symlink(out, "kernel.py")
print("done")
