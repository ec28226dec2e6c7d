"""Adversarial: raises."""


def run(x, y):
    raise ValueError("index out of range in the tile loop")
