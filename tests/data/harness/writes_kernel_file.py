"""Adversarial: correct, but rewrites the workspace's kernel.py while it runs."""

from pathlib import Path

_DONE = []


def run(x, y):
    if not _DONE:
        path = Path(__file__)
        path.write_text(path.read_text() + "\n# tampered\n")
        _DONE.append(True)
    return x + y
