"""A scripted Stage 3 agent that rewrites the multi-pass row kernel as a single pass (faster, correct)."""

from _agent import SINGLE_PASS, STAGE, write_kernel

assert STAGE == "implement", STAGE
write_kernel(SINGLE_PASS)
print("rewrote kernel.py as a single pass over the rows")
