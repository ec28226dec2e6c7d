"""The iteration record (``memory/v<N>.json``): model, JSON Schema, and the atomic store."""

from kernelopt.memory.model import IterationRecord, parse_version, version_label
from kernelopt.memory.store import MemoryStore

__all__ = ["IterationRecord", "MemoryStore", "parse_version", "version_label"]
