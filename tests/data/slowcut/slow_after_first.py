"""A correct candidate whose first call (its check) is fast and every later call takes 5 s: only a deadline on each
call while it is timed cuts it before the candidate limit."""

import time

CALLS = [0]


def run(x, y):
    CALLS[0] += 1
    if CALLS[0] > 1:
        time.sleep(5.0)
    return x + y
