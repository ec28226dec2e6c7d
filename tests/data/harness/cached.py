"""Adversarial: computes once, then returns the same tensor for any new inputs."""

_CACHE = {}


def run(x, y):
    if "out" not in _CACHE:
        _CACHE["out"] = x + y
    return _CACHE["out"]
