"""A correct candidate whose every call takes 0.8 s (a small-block kernel in Triton's interpreter)."""

import time


def run(x, y):
    time.sleep(0.8)
    return x + y
