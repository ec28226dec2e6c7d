"""A correct add that prints 100 KB on stdout and on stderr at every call (issue 17: unbounded output)."""

import sys

LINE = "x" * 99 + "\n"


def run(x, y):
    sys.stdout.write(LINE * 1000)
    sys.stderr.write(LINE * 1000)
    return x + y
