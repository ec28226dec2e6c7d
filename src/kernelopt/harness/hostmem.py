"""The host's memory as Linux reports it: what is available now, and this process's resident size.

The one reading of ``/proc/meminfo`` and the cgroup's limit, for the gate's check of the inputs' size before
they are built on the CPU (:class:`kernelopt.harness.inputs.HostBudget`) and for the tuning engine's fit
(:func:`kernelopt.tuning.checks.device_free_bytes`), and the one rule for what an out-of-memory error is
(:func:`is_out_of_memory`). Imports nothing heavy: importing it does nothing.
"""

from __future__ import annotations

from pathlib import Path


class InputsDoNotFit(MemoryError):
    """The inputs of a case, sized on the meta device before any is built, would not fit the host's available
    memory (:class:`kernelopt.harness.inputs.HostBudget`); a ``MemoryError``, so every caller's
    out-of-memory rule takes it."""


def is_out_of_memory(exc: BaseException) -> bool:
    """torch's OutOfMemoryError (CUDA), Python's MemoryError (numpy's "Unable to allocate 512. GiB ..."), or
    torch's CPU allocator refusing ("can't allocate memory")."""
    import torch

    if isinstance(exc, torch.OutOfMemoryError | MemoryError):
        return True
    return isinstance(exc, RuntimeError) and "can't allocate memory" in str(exc)


def host_available_bytes() -> int | None:
    """Memory a new allocation can take without swapping: the kernel's ``MemAvailable``, lowered to the
    cgroup's limit minus its use when there is one; ``None`` off Linux (nothing to read)."""
    free = meminfo("MemAvailable")
    if free is None:
        return None
    limit, used = cgroup_value("memory.max"), cgroup_value("memory.current")
    if limit is not None and used is not None:
        free = min(free, max(0, limit - used))
    return free


def meminfo(key: str) -> int | None:
    """One line of ``/proc/meminfo`` in bytes (``MemAvailable``, ``MemTotal``); ``None`` when it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def cgroup_value(name: str) -> int | None:
    """A number of the cgroup (v2) this process runs in (``memory.max``, ``memory.current``); ``None`` when
    absent or ``max``."""
    try:
        raw = Path("/sys/fs/cgroup", name).read_text(encoding="ascii").strip()
    except OSError:
        return None
    return int(raw) if raw.isdigit() else None
