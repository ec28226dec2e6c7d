"""Returns nothing and does nothing: the work skipped."""


def run(x):
    return None
