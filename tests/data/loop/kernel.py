"""A CPU elementwise add with a tunable block size, for the loop tests (the fake gate times BLOCK)."""

BLOCK = 64  # kernelopt: tunable


def run(x, y):
    return x + y
