"""A correct candidate 3 ms a call: far slower than a plain add, too short for the interpreter's call deadline, so the
latency cut of its first samples stops it."""

import time


def run(x, y):
    time.sleep(0.003)
    return x + y
