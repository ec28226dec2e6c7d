"""In place, returning nothing, as the reference does."""


def run(x):
    x.mul_(2.0).add_(1.0)
