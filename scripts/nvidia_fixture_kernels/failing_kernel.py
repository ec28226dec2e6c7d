"""A kernel.py that fails on its own (to record how a user program failure looks under ncu)."""


def run(x):
    raise RuntimeError("fixture: this kernel fails on purpose")
