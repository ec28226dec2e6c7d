"""Correct add whose import takes longer than a (short) per-case limit: import time is compile time."""

import time

time.sleep(2.0)


def run(x, y):
    return x + y
