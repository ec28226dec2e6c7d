"""``kernelopt wiki lint``: check every record of the built-in wiki and of the user directories.

Per file: the rules of :mod:`kernelopt.wiki.rules` (schema, controlled vocabulary, required fields per
kind, sources with titles and URLs, metric names, explanation present, hardware-sheet figure rules).
Across files: unique ids, the file name equal to the id, built-in records in the folder of their kind,
``related`` ids that exist, and no alias shared by two GPU sheets (an alias must never resolve to a
sibling's numbers). Unlike the loader, lint never stops at the first problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, ConfigDict

from kernelopt.hardware.specs import GpuSpec, normalize_name, parse_sheet
from kernelopt.wiki.loader import RecordFile, builtin_files, split_front, user_files, wiki_dirs
from kernelopt.wiki.record import RecordKind, WikiError, WikiRecord
from kernelopt.wiki.rules import Problem, Severity, check_sheet, validate_record

_FOLDER_OF_KIND = {
    RecordKind.TECHNIQUE: "techniques",
    RecordKind.PITFALL: "pitfalls",
    RecordKind.HARDWARE_SPEC: "hardware",
}


class LintIssue(BaseModel):
    """One problem found by lint.

    Attributes:
        path: the record file.
        record_id: the record's id when it could be read.
        rule: rule id (see :mod:`kernelopt.wiki.rules` and this module).
        severity: ``error`` (fails lint) or ``warning``.
        message: one line.
    """

    model_config = ConfigDict(extra="forbid")
    path: str
    record_id: str | None
    rule: str
    severity: Severity
    message: str


def _issue(f: RecordFile, rid: str | None, p: Problem) -> LintIssue:
    return LintIssue(path=f.origin, record_id=rid, rule=p.rule, severity=p.severity, message=p.message)


def lint_files(files: Sequence[RecordFile]) -> list[LintIssue]:
    """Lint already-read record files (pure)."""
    issues: list[LintIssue] = []
    seen: dict[str, str] = {}
    records: list[WikiRecord] = []
    sheets: list[tuple[RecordFile, GpuSpec]] = []
    for f in files:
        try:
            front, body = split_front(f.text, f.origin)
        except WikiError as exc:
            issues.append(
                LintIssue(path=f.origin, record_id=None, rule="front_matter", severity=Severity.ERROR, message=str(exc))
            )
            continue
        rid = front.get("id") if isinstance(front.get("id"), str) else None
        kind = front.get("kind")
        if kind == RecordKind.HARDWARE_SPEC.value:
            try:
                spec = parse_sheet(f.text.lstrip("\ufeff"), f.origin)
            except ValueError as exc:
                msg = str(exc).removeprefix(f"{f.origin}: ")
                issues.append(_issue(f, rid, Problem(rule="schema", message=msg)))
                continue
            sheets.append((f, spec))
            issues += [_issue(f, spec.id, p) for p in check_sheet(spec)]
        else:
            record, problems = validate_record(front, body)
            issues += [_issue(f, rid, p) for p in problems]
            if record is not None:
                record.path = f.origin
                records.append(record)
        if rid is not None:
            if rid in seen:
                issues.append(
                    _issue(f, rid, Problem(rule="duplicate_id", message=f"id {rid!r} is also used by {seen[rid]}"))
                )
            else:
                seen[rid] = f.origin
            stem = PurePosixPath(f.origin.replace("\\", "/")).stem
            if stem != rid:
                issues.append(_issue(f, rid, Problem(rule="filename", message=f"file name {stem}.md must be {rid}.md")))
        if f.builtin and kind in _FOLDER_OF_KIND:
            folder = _FOLDER_OF_KIND[RecordKind(kind)]
            if f"/{folder}/" not in f.origin:
                issues.append(_issue(f, rid, Problem(rule="folder", message=f"a {kind} record belongs in {folder}/")))
    for r in records:
        for other in r.related:
            if other not in seen:
                issues.append(
                    LintIssue(
                        path=r.path or "?",
                        record_id=r.id,
                        rule="related",
                        severity=Severity.ERROR,
                        message=f"related id {other!r} is not a record",
                    )
                )
    owner: dict[str, str] = {}
    for f, spec in sheets:
        for alias in {normalize_name(a) for a in (spec.id, spec.name, *spec.aliases)}:
            if alias in owner and owner[alias] != spec.id:
                issues.append(
                    _issue(
                        f,
                        spec.id,
                        Problem(rule="spec_alias", message=f"alias {alias!r} also names sheet {owner[alias]}"),
                    )
                )
            owner.setdefault(alias, spec.id)
    return issues


def lint(
    extra_dirs: Sequence[Path] | None = None, *, include_builtin: bool = True, include_configured: bool = True
) -> list[LintIssue]:
    """Lint the built-in wiki and the user directories (configured ones and ``extra_dirs``).

    Args:
        extra_dirs: more user wiki directories.
        include_builtin: lint the records shipped in the package (default).
        include_configured: include ``KERNELOPT_WIKI_DIRS`` and the config file's directories.

    Returns:
        Every issue found, in file order; empty when the wiki is clean.

    Raises:
        WikiError: a directory does not exist or a file cannot be read.
    """
    files = builtin_files() if include_builtin else []
    for d in wiki_dirs(list(extra_dirs or ()), include_configured=include_configured):
        files += user_files(d)
    return lint_files(files)
