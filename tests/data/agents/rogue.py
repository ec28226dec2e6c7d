"""An agent that writes files it must not, besides doing its job."""

import os
from pathlib import Path

stage = os.environ["KERNELOPT_STAGE"]
version = int(os.environ["KERNELOPT_VERSION"])
k = Path("kernel.py")
if stage == "plan":
    Path(f"plans/v{version}_plan.md").write_text("---\nversion: 1\n---\n")
    k.write_text(k.read_text() + "\n# the planner edited the kernel\n")
else:
    k.write_text(k.read_text().replace("num_warps=4", "num_warps=8"))
    ref = Path("reference.py")
    ref.write_text(ref.read_text() + "\nATOL = 1.0  # loosen the check\n")
    Path("notes.txt").write_text("scratch\n")
print("done")
