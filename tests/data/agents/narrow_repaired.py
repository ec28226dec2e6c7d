"""Stage 3: the one-pass softmax right only where a row holds 128 columns (narrow.py's) at the first attempt; at a
repair attempt whose failure names the size it is wrong at (``rows=65,cols=129``), the single pass over whole rows."""
from _agent import NARROW, PROMPT, REPAIR, SINGLE_PASS, STAGE, write_kernel
assert STAGE == "implement", STAGE
if REPAIR and "fails at rows=65,cols=129" in PROMPT:
    write_kernel(SINGLE_PASS)
    print("repaired: the single pass over whole rows")
else:
    write_kernel(NARROW)
    print("rewrote kernel.py as one pass over the first 128 columns")
