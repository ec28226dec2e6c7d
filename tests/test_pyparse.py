"""kernelopt's parses of Python source go through one lock (src/kernelopt/pyparse.py; python/cpython#106905)."""

from __future__ import annotations

import gc
import re
import threading
import time
from pathlib import Path

from kernelopt import pyparse

SRC = Path(__file__).resolve().parents[1] / "src" / "kernelopt"


def test_every_parse_of_a_source_text_in_kernelopt_goes_through_the_lock() -> None:
    """No module but pyparse calls ``ast.parse`` or ``ast.literal_eval`` itself: a parse outside the lock can fail one
    inside it (the counter is the interpreter's)."""
    direct = re.compile(r"\bast\.(parse|literal_eval)\(")
    found = [
        f"{path.relative_to(SRC)}:{n}"
        for path in sorted(SRC.rglob("*.py"))
        if path.name != "pyparse.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if direct.search(line)
    ]
    assert found == [], found


class _Cycle:
    """Cyclic garbage whose finalizer gives up the GIL: the collector runs it inside another thread's parse, where
    CPython 3.11 switches threads mid-``ast2obj`` (how a batch's preparing thread met the check's thread)."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        time.sleep(0.0001)


def test_parses_in_threads_at_once_never_fail_the_recursion_counter() -> None:
    """Three threads parse while the collector runs finalizers that switch threads; on Python 3.11.7 bare
    ``ast.parse`` failed so within 4 s ("AST constructor recursion depth mismatch (before=18, after=12)",
    2026-12-07); under the lock none fails, and literals parse too."""
    source = "def f(a):\n    return {'k': (a, [a, (a, {a: a})])}\n" * 200
    errors: list[str] = []
    stop = threading.Event()

    def hammer() -> None:
        while not stop.is_set():
            for _ in range(20):
                _Cycle()
            try:
                assert len(pyparse.parse(source).body) == 200
                assert pyparse.literal(" {'M': (1, 2)}") == {"M": (1, 2)}
            except SystemError as exc:
                errors.append(str(exc))
                return

    threshold = gc.get_threshold()
    gc.set_threshold(50)
    try:
        threads = [threading.Thread(target=hammer) for _ in range(3)]
        for t in threads:
            t.start()
        time.sleep(1.0)
    finally:
        stop.set()
        for t in threads:
            t.join()
        gc.set_threshold(*threshold)
    assert errors == []
