"""An agent that half-edits its allowed file, then fails."""

import os
import sys
from pathlib import Path

if os.environ["KERNELOPT_STAGE"] == "plan":
    Path(f"plans/v{os.environ['KERNELOPT_VERSION']}_plan.md").write_text("---\nversion: 1\n")
else:
    Path("kernel.py").write_text("def run(x, y):\n    return x +\n")
print("agent crashed: out of credits", file=sys.stderr)
sys.exit(3)
