"""Stage 3: a one-pass softmax right only where a row holds 128 columns (the timed size): it reads the first 128."""
from _agent import NARROW, STAGE, write_kernel
assert STAGE == "implement", STAGE
write_kernel(NARROW)
print("rewrote kernel.py as one pass")
