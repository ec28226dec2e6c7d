"""An agent whose first edit fails the correctness check and whose repair attempt changes nothing."""

from pathlib import Path

from _agent import REPAIR

if not REPAIR:
    k = Path("kernel.py")
    k.write_text(k.read_text().replace("num_warps=4", "num_warps=8"))
print("done")
