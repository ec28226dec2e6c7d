"""The spec's ``memory_manager``: create, read, update, mask and summarize iteration records.

Every write is validated against :class:`~kernelopt.memory.model.IterationRecord` and atomic (a
temporary file in the same folder, fsync, then ``os.replace``), so a failed or refused write leaves the
previous file intact.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from kernelopt.errors import RecordError
from kernelopt.fileio import atomic_write_text
from kernelopt.jsontext import dump_json
from kernelopt.memory.assign import apply_assignments
from kernelopt.memory.model import IterationRecord, parse_version, version_label


class MemoryStore:
    """Iteration records of one workspace, in ``<workspace>/memory/v<N>.json``.

    Args:
        memory_dir: the workspace's ``memory/`` folder.
    """

    def __init__(self, memory_dir: Path) -> None:
        self.memory_dir = Path(memory_dir)

    def path(self, version: int | str) -> Path:
        """Path of the record of ``version`` (``3`` or ``"v3"``).

        Raises:
            RecordError: ``version`` is not a version label.
        """
        try:
            n = parse_version(version)
        except ValueError as exc:
            raise RecordError(str(exc)) from None
        return self.memory_dir / f"{version_label(n)}.json"

    def versions(self) -> list[int]:
        """Version numbers that have a record file, ascending (masked ones included)."""
        out = []
        for p in self.memory_dir.glob("v*.json"):
            try:
                out.append(parse_version(p.stem))
            except ValueError:
                continue
        return sorted(out)

    def exists(self, version: int | str) -> bool:
        return self.path(version).is_file()

    def read(self, version: int | str) -> IterationRecord:
        """Load and validate one record.

        Raises:
            RecordError: no such record, or the file is not valid JSON / does not match the schema.
        """
        path = self.path(version)
        if not path.is_file():
            raise RecordError(f"no record {path.name} in {self.memory_dir}")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RecordError(f"{path}: corrupt JSON ({exc})", hint="restore it from git") from None
        try:
            return IterationRecord.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"]) or "<root>"
            raise RecordError(f"{path}: does not match the schema at '{loc}': {err['msg']}") from None

    def write(self, record: IterationRecord) -> Path:
        """Validate and atomically write ``record`` to its file; returns the path."""
        validated = IterationRecord.model_validate(record.model_dump())
        path = self.path(validated.version)
        atomic_write_text(path, dump_json(validated, indent=2) + "\n")
        return path

    def create(self, version: int | str, *, force: bool = False) -> IterationRecord:
        """Create an empty record for ``version``.

        Raises:
            RecordError: it already exists and ``force`` is False.
        """
        n = parse_version(self.path(version).stem)
        if self.exists(n) and not force:
            raise RecordError(f"{self.path(n).name} already exists", hint="use --force to replace it")
        record = IterationRecord(version=version_label(n))
        self.write(record)
        return record

    def update(self, version: int | str, assignments: list[str]) -> IterationRecord:
        """Apply ``key.path=value`` assignments and write atomically (all or nothing)."""
        record = apply_assignments(self.read(version), assignments)
        assert isinstance(record, IterationRecord)
        self.write(record)
        return record

    def set_masked(self, version: int | str, masked: bool) -> IterationRecord:
        record = self.read(version)
        record.masked = masked
        self.write(record)
        return record

    def records(self, *, include_masked: bool = False) -> Iterator[IterationRecord]:
        """Records in version order; masked ones only when asked."""
        for n in self.versions():
            record = self.read(n)
            if include_masked or not record.masked:
                yield record

    def latest(self, *, include_masked: bool = False) -> IterationRecord | None:
        """The highest-numbered record (unmasked unless asked), or ``None`` when there is none."""
        found = list(self.records(include_masked=include_masked))
        return found[-1] if found else None


__all__ = ["MemoryStore", "version_label"]
