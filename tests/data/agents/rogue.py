"""An agent that writes files it must not, besides doing its job (its plan one the orchestrator accepts, n165)."""

from pathlib import Path

from _agent import STAGE, write_plan

k = Path("kernel.py")
if STAGE == "plan":
    write_plan("num_warps", "raise num_warps to 8", "latency bound -> more warps", {"num_warps": 8})
    k.write_text(k.read_text() + "\n# the planner edited the kernel\n")
else:
    k.write_text(k.read_text().replace("num_warps=4", "num_warps=8"))
    ref = Path("reference.py")
    ref.write_text(ref.read_text() + "\nATOL = 1.0  # loosen the check\n")
    Path("notes.txt").write_text("scratch\n")
print("done")
