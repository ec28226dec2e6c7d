"""Adversarial: right values, computed in place into the first input."""


def run(x, y):
    return x.add_(y)
