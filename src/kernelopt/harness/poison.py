"""The poison pattern the harness fills output memory with before a candidate runs (no torch here).

Byte ``0x7F`` everywhere: float32 / bfloat16 ``0x7F7F...`` is 3.39e38, float16 ``0x7F7F`` is NaN, int32
``0x7F7F7F7F`` is 2139062143 -- never a plausible result, so elements a kernel never wrote are found.

- CPU: the worker runs with ``MALLOC_PERTURB_=128``; glibc then fills every allocation with the
  complement byte ``0x7F`` (and freed memory with ``0x80``), including the large mmap-backed blocks
  torch's CPU allocator uses (glibc mallopt(3), M_PERTURB; checked with torch 2.13 on glibc 2.36).
- CUDA: freed blocks of torch's caching allocator are filled with it (``inputs.poison_device_memory``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from kernelopt.worker.forkserver import M_PERTURB  # glibc's mallopt parameter behind MALLOC_PERTURB_

POISON_BYTE = 0x7F
MALLOC_PERTURB = "128"
#: Our choice: the byte a second run of the reference gets its fresh memory filled with, to tell an integer element
#: left unwritten (the pattern of each run's byte) from one that holds :data:`POISON_BYTE`'s pattern as its value (the
#: same in both runs): ``0x3C`` everywhere is 15420 in int16, 1010580540 in int32.
OTHER_POISON_BYTE = 0x3C


def _perturb(value: int) -> bool:
    """Set glibc's malloc perturb byte (fresh allocations filled with its complement); False off glibc's Linux."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        return bool(ctypes.CDLL(None).mallopt(M_PERTURB, value))
    except (OSError, AttributeError):  # no mallopt: a libc other than glibc
        return False


@contextlib.contextmanager
def host_fill(byte: int) -> Iterator[bool]:
    """Fresh host memory filled with ``byte`` while the block runs (glibc's perturb; it yields whether it took), the
    process's own ``MALLOC_PERTURB_`` put back after (0, none, where it has none)."""
    took = _perturb(byte ^ 0xFF)
    try:
        yield took
    finally:
        if took:
            own = os.environ.get("MALLOC_PERTURB_", "")
            _perturb(int(own) if own.isdigit() else 0)
