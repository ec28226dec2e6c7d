"""A scripted Stage 3 agent whose first edit does not compile; the repair attempt fixes it."""

from _agent import REPAIR, SINGLE_PASS, STAGE, write_kernel

assert STAGE == "implement", STAGE
if REPAIR:
    write_kernel(SINGLE_PASS)
    print("repaired: single pass, parenthesis closed")
else:
    write_kernel(SINGLE_PASS.replace("keepdim=True))\n", "keepdim=True)\n", 1))
    print("rewrote kernel.py as a single pass")
