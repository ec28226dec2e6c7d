"""Returns the right values and leaves its input untouched, where the reference modifies it: fails (InputNotWritten)."""


def run(x):
    return x * 2.0 + 1.0
