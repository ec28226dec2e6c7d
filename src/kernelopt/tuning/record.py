"""What a tuning session keeps on disk: its record (JSONL), and the sweep file (schema 1, JSON Schema).

**The session record** (``*.jsonl``) is a header line, then one line per result, appended as each result
arrives (:func:`kernelopt.fileio.append_line`), so an interrupted session keeps everything measured and a
resumed one serves it instead of timing it again (a transient failure, :attr:`Outcome.transient`, is measured
once again). The header names the space (its fingerprint, knobs and
fit rules), the device and the versions; a record made for another space is refused, not mixed. A
half-written last line (the process died mid-write) is ignored; any other unreadable line is an error.

**The sweep file** (``<example>.json``) is the exhaustive evaluation of a space, as
``benchmarks/sweep_compare.py`` writes it (schema 1): the key its measurements depend on, the space, the
naive configuration and every configuration's status and latency. :class:`SweepFile` is its model and
the source of the shipped JSON Schema (``kernelopt schema sweep``; format: ``docs/sweep-format.md``). The
older sweep files of 2026-11-29 (``run*-sweep_*.json.gz``, a ``results`` list with no ``schema`` field)
hold the same per-configuration entries in another envelope: :func:`read_sweeps` converts them.

This is the only module of :mod:`kernelopt.tuning` that reads or writes files.
"""

from __future__ import annotations

import gzip
import itertools
import json
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kernelopt.errors import InputFileError, RecordError
from kernelopt.fileio import append_line, atomic_write_text
from kernelopt.jsontext import dump_json, load_json
from kernelopt.numeric import is_int
from kernelopt.tuning.candidate import Config, Outcome, Result, Value
from kernelopt.tuning.space import Space

SWEEP_SCHEMA: Literal[1] = 1
RECORD_SCHEMA: Literal[1] = 1
#: The version of the rules a candidate's verdict is made by (its correctness check and the accuracy rule, the
#: guards and refusals of the edit layer, the net of sizes a pick is checked at, the bounds a candidate is set aside
#: for): **bump it in the change that alters any of them**. A session record keeps it in its header; a record made
#: under other rules serves nothing (each of its verdicts may be one the rules now in force would not give: a
#: candidate refused, or passed, by an older check), is kept beside the new one (:meth:`SessionRecord.open`) and the
#: tune says so in one line. Records written before it was kept read as rules 0. 1: 2026-12-07 (late36, 231ef74b);
#: 2: the accuracy rule's noise (review24 r42, d5da6567), a literal set under a device-keyed table's bound (983ae26e).
CHECK_RULES = 2
SWEEP_SCHEMA_FILE = "sweep.schema.json"

# ============================================================================================== sweep file


class SweepStatus(StrEnum):
    """What happened to one configuration of a sweep."""

    OK = "ok"  # checked and timed
    WRONG = "wrong"  # ran, result outside tolerance
    ERROR = "error"  # did not compile or launch
    PRUNED = "pruned"  # the tunables' resource estimate rejects it: not timed


#: A sweep status as the engine's outcome (the sweep does not tell a compile error from a launch error:
#: both are ``error``, read as ``COMPILE_ERROR``).
SWEEP_OUTCOMES: dict[SweepStatus, Outcome] = {
    SweepStatus.OK: Outcome.OK,
    SweepStatus.WRONG: Outcome.WRONG_RESULT,
    SweepStatus.ERROR: Outcome.COMPILE_ERROR,
    SweepStatus.PRUNED: Outcome.INVALID,
}


class SweepEntry(BaseModel):
    """One configuration of a sweep.

    Attributes:
        config: knob name -> value.
        status: what happened to it.
        latency_us: median latency at the sweep's shape, microseconds (``ok`` only).
        iqr_us: interquartile range of the samples, microseconds.
        samples: timing samples taken (0 when not timed).
        method: the timer (``cuda_events``; ``None`` when not timed).
        max_abs_err: largest absolute error against the reference (``None`` when not checked).
        message: why it was pruned, wrong or failed; for an ``ok`` one, why it has fewer samples than asked (its
            timing cut far slower than the best so far: the latency is a lower bound), else ``None``.
    """

    model_config = ConfigDict(extra="forbid")

    config: dict[str, Value]
    status: SweepStatus
    latency_us: float | None = Field(default=None, ge=0)
    iqr_us: float | None = Field(default=None, ge=0)
    samples: int = Field(default=0, ge=0)
    method: str | None = None
    max_abs_err: float | None = None
    message: str | None = None

    @model_validator(mode="after")
    def _timed_has_latency(self) -> SweepEntry:
        if self.status is SweepStatus.OK and self.latency_us is None:
            raise ValueError("an 'ok' configuration has a latency_us")
        return self

    @property
    def key(self) -> str:
        return Config.of(self.config).key()


class SweepKey(BaseModel):
    """What a sweep's measurements depend on (a sweep is re-run when any of it changes).

    The digests, timer and Triton version are ``None`` only in sweeps converted from the 2026-11-29
    format, which did not record them.
    """

    model_config = ConfigDict(extra="forbid")

    example: str
    kernel_sha256: str | None
    reference_sha256: str | None
    timer_version: str | None
    device: str
    gpu: str | None
    torch: str | None
    triton: str | None
    shape: dict[str, Value]


class SweepFile(BaseModel):
    """A sweep file, schema 1: the key, the space and every configuration measured so far.

    Attributes:
        schema_version: 1 (the field ``schema`` in the file).
        key: what the measurements depend on.
        space: knob name -> the values swept, in order.
        naive_config: the configuration the example's ``kernel.py`` runs (the current configuration).
        configs: every configuration measured or pruned so far.
        complete: every configuration of ``space`` is in ``configs``.
        wall_s: compile and timing seconds over every sitting (only this total is recorded).
        sittings: how many runs it took (a sweep cut by its time budget resumes).
        warnings: what the sweep said (a time budget spent, configurations left).
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_version: Literal[1] = Field(default=SWEEP_SCHEMA, alias="schema")
    key: SweepKey
    space: dict[str, list[Value]]
    naive_config: dict[str, Value]
    configs: list[SweepEntry]
    complete: bool
    wall_s: float = Field(ge=0)
    sittings: int = Field(ge=0)
    warnings: list[str] = Field(default_factory=list)

    @property
    def name(self) -> str:
        return self.key.example

    def timed(self) -> list[SweepEntry]:
        return [c for c in self.configs if c.status is not SweepStatus.PRUNED]

    def best(self) -> SweepEntry | None:
        """The fastest ``ok`` configuration (``None`` when none was timed)."""
        ok = [c for c in self.configs if c.status is SweepStatus.OK and c.latency_us is not None]
        return min(ok, key=lambda c: c.latency_us or 0.0) if ok else None

    def by_key(self) -> dict[str, SweepEntry]:
        """Configuration text (:meth:`Config.key`) -> its entry."""
        return {c.key: c for c in self.configs}


SWEEP_HINT = "see `kernelopt schema sweep` (docs/sweep-format.md)"
"""Where a sweep file's format is told, for the errors that reading one gives."""


def read_sweeps(path: Path) -> list[SweepFile]:
    """The sweeps in the file at ``path``: a schema-1 sweep file, or a 2026-11-29 file (``.json.gz``
    allowed) converted entry by entry.

    Raises:
        InputFileError: the file is missing, not JSON, or matches neither format (one line: the first
            problem and where).
    """
    doc = _load_json(path)
    if isinstance(doc, dict) and "schema" in doc:
        _check_schema(path, doc["schema"])
        return [_validated(path, SweepFile, doc)]
    if isinstance(doc, dict) and isinstance(doc.get("results"), list):
        legacy = _validated(path, _LegacySweeps, doc)
        return [run.to_sweep(legacy) for run in legacy.results]
    raise InputFileError(path, "not a sweep file: no 'schema' field (schema 1) and no 'results' list (2026-11-29)")


def write_sweep(path: Path, sweep: SweepFile) -> None:
    """Write ``sweep`` as a schema-1 sweep file, atomically."""
    atomic_write_text(path, json.dumps(sweep.model_dump(mode="json", by_alias=True), indent=1) + "\n")


def _load_json(path: Path) -> Any:
    if path.is_dir():
        raise InputFileError(path, "is a folder, not a sweep file; give one of its .json files")
    if not path.is_file():
        raise InputFileError(path, "no such file")
    try:
        raw = path.read_bytes()
        text = gzip.decompress(raw).decode("utf-8") if path.suffix == ".gz" else raw.decode("utf-8")
        if not text.strip():
            raise InputFileError(path, "empty file", hint=SWEEP_HINT)
        return json.loads(text)
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputFileError(path, f"not a JSON sweep file ({type(exc).__name__}: {exc})") from None


def _validated(path: Path, model: type[Any], doc: Any) -> Any:
    try:
        return model.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".") or "(top)"
        what = first["msg"][:1].lower() + first["msg"][1:]  # "configs[0].key: field required"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise InputFileError(
            path, f"does not match the sweep file schema: {where}: {what}{more}", hint=SWEEP_HINT
        ) from None


def _check_schema(path: Path, found: Any) -> None:
    """The ``schema`` field is the number 1 (``"1"``, the string, was said to be unsupported "(known: 1)")."""
    if is_int(found) and found == SWEEP_SCHEMA:
        return
    if is_int(found):
        raise InputFileError(
            path, f"sweep file schema {found} is not supported: this kernelopt reads schema {SWEEP_SCHEMA}"
        )
    shown = json.dumps(found) if isinstance(found, str | int | float | bool | None) else type(found).__name__
    raise InputFileError(path, f'"schema" must be the number {SWEEP_SCHEMA}, not {shown}', hint=SWEEP_HINT)


class _LegacyRun(BaseModel):
    """One example's sweep in the 2026-11-29 format (its loop comparison fields are not read)."""

    model_config = ConfigDict(extra="ignore")

    example: str
    device: str
    shape: dict[str, Value]
    knobs: dict[str, list[Value]]
    naive_config: dict[str, Value]
    configs: list[SweepEntry]
    wall_s: float = Field(ge=0)
    warnings: list[str] = Field(default_factory=list)

    def to_sweep(self, top: _LegacySweeps) -> SweepFile:
        names = list(self.knobs)
        wanted = {
            Config.of(dict(zip(names, combo, strict=True))).key() for combo in itertools.product(*self.knobs.values())
        }
        key = SweepKey(
            example=self.example,
            kernel_sha256=None,
            reference_sha256=None,
            timer_version=None,
            device=self.device,
            gpu=top.gpu,
            torch=top.torch,
            triton=None,
            shape=self.shape,
        )
        complete = wanted <= {c.key for c in self.configs}
        return SweepFile(
            key=key,
            space=self.knobs,
            naive_config=self.naive_config,
            configs=self.configs,
            complete=complete,
            wall_s=self.wall_s,
            sittings=1,
            warnings=self.warnings,
        )


class _LegacySweeps(BaseModel):
    model_config = ConfigDict(extra="ignore")

    device: str
    torch: str | None = None
    gpu: str | None = None
    results: list[_LegacyRun]


def sweep_schema() -> dict[str, object]:
    """The JSON Schema (draft 2020-12) of :class:`SweepFile`, generated by pydantic."""
    schema = SweepFile.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://kernelopt.dev/schemas/sweep.schema.json"
    return schema


def render_sweep_schema() -> str:
    """The sweep schema as the exact text of the shipped file."""
    return json.dumps(sweep_schema(), indent=2, sort_keys=True) + "\n"


def shipped_sweep_schema() -> str:
    """The text of the schema file shipped in the package (a test checks it equals the generated one)."""
    return resources.files("kernelopt.tuning").joinpath(SWEEP_SCHEMA_FILE).read_text(encoding="utf-8")


# ============================================================================================== session record


class RecordHeader(BaseModel):
    """The first line of a session record: which space, on what, with which versions.

    Attributes:
        schema_version: the record format (the field ``schema``).
        space_fingerprint: :attr:`Space.fingerprint`; a record is resumed only by a session of that space.
        knobs: knob name -> its legal values.
        fit_rules: what the space's fit rule checks, in words.
        kernel, launch: the kernel and the launch the knobs belong to.
        device: ``cuda``, ``cpu``, ...; gpu: the GPU's name.
        versions: package name -> version (torch, triton, kernelopt).
        started_at: when the session began (ISO 8601, the caller's clock).
        check_rules: :data:`CHECK_RULES` of the kernelopt that made its verdicts (0: a record from before it was kept).
        key_parts: a digest of each part of what its measurements depend on (the session key's parts,
            :func:`kernelopt.tuning.new_session.part_digests`): a new session says which of them changed.
        folder: the kernel folder the session tuned (resolved; not a part of the key, so a moved folder resumes):
            a new session's last record is one of its own folder's, never another kernel's sharing its ``--out``.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    kind: Literal["header"] = "header"
    schema_version: Literal[1] = Field(default=RECORD_SCHEMA, alias="schema")
    space_fingerprint: str
    knobs: dict[str, list[Value]]
    fit_rules: list[str] = Field(default_factory=list)
    kernel: str | None = None
    launch: str | None = None
    device: str | None = None
    gpu: str | None = None
    versions: dict[str, str] = Field(default_factory=dict)
    started_at: str | None = None
    check_rules: int = Field(default=0, ge=0)
    key_parts: dict[str, str] = Field(default_factory=dict)
    folder: str | None = None

    @classmethod
    def for_space(
        cls,
        space: Space,
        *,
        device: str | None = None,
        gpu: str | None = None,
        versions: dict[str, str] | None = None,
        started_at: str | None = None,
        key_parts: dict[str, str] | None = None,
        folder: str | None = None,
    ) -> RecordHeader:
        return cls(
            space_fingerprint=space.fingerprint,
            knobs={k.name: list(k.values) for k in space.knobs},
            fit_rules=list(space.fit_rules),
            kernel=space.kernel,
            launch=space.launch,
            device=device,
            gpu=gpu,
            versions=versions or {},
            started_at=started_at,
            check_rules=CHECK_RULES,
            key_parts=key_parts or {},
            folder=folder,
        )


class RecordLine(BaseModel):
    """One result line of a session record."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["result"] = "result"
    result: Result


class SessionRecord:
    """A session record on disk: its header, the results read back, and appends of new ones.

    Open with :meth:`open` (creates the file with its header, or reads an existing one of the same space).
    """

    def __init__(self, path: Path, header: RecordHeader, results: list[Result], torn_tail: bool) -> None:
        self.path = path
        self.header = header
        self.results = results
        #: the file ended in a half-written line, which was ignored
        self.torn_tail = torn_tail
        #: a record of the same space made under other check rules, moved beside this one when it was opened
        #: (:meth:`open`): nothing of it is served
        self.set_aside: SessionRecord | None = None

    @classmethod
    def open(cls, path: Path, header: RecordHeader) -> SessionRecord:
        """The record at ``path``: read back when it exists (it must be for the same space), else created.

        Raises:
            RecordError: the file is not a session record, a line in it is unreadable, or it was made for
                another space (its fingerprint differs).
        """
        if not path.exists():
            atomic_write_text(path, dump_json(header, by_alias=True) + "\n")
            return cls(path, header, [], torn_tail=False)
        found = cls.read(path)
        if found.header.space_fingerprint != header.space_fingerprint:
            raise RecordError(
                f"{path}: a session record of another space (fingerprint {found.header.space_fingerprint}, "
                f"this space {header.space_fingerprint})",
                hint=f"give another record path, or {clear_hint(path)}",
            )
        if found.header.check_rules != header.check_rules:
            return cls._beside(found, header)
        if found.torn_tail:
            found._drop_torn_tail()
        return found

    @classmethod
    def _beside(cls, found: SessionRecord, header: RecordHeader) -> SessionRecord:
        """A new record at ``found``'s path, ``found`` (made under other check rules) moved beside it under a name no
        file holds (``record.rules0.jsonl``, ``record.rules0.2.jsonl``, ...): the user's record is never written over,
        and a kernelopt of its rules finds nothing of the new one in it."""
        path = found.path
        stem = f"{path.stem}.rules{found.header.check_rules}"
        aside = next(
            p
            for n in itertools.count(1)
            if not (p := path.with_name(f"{stem}{'' if n == 1 else f'.{n}'}{path.suffix}")).exists()
        )
        path.rename(aside)
        atomic_write_text(path, dump_json(header, by_alias=True) + "\n")
        made = cls(path, header, [], torn_tail=False)
        made.set_aside = cls(aside, found.header, found.results, found.torn_tail)
        return made

    def aside_line(self) -> str | None:
        """The one line that says why a record this session found was not served (:attr:`set_aside`), ``None`` when
        none was set aside."""
        old = self.set_aside
        if old is None:
            return None
        kernelopt = old.header.versions.get("kernelopt")
        made = ", ".join(x for x in (f"kernelopt {kernelopt}" if kernelopt else None, old.header.started_at) if x)
        when = f" ({made})" if made else ""
        return (
            f"the session record's {len(old.served())} configuration(s) were checked under check rules "
            f"{old.header.check_rules}{when}, this kernelopt's are {self.header.check_rules}: none is served, every "
            f"candidate is checked and timed again; that record is kept at {old.path}"
        )

    @classmethod
    def read(cls, path: Path) -> SessionRecord:
        """Read the record at ``path`` (a half-written last line is ignored).

        Raises:
            RecordError: not a session record, or a line before the last is unreadable.
        """
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RecordError(f"{path}: unreadable session record ({exc})", hint=clear_hint(path)) from None
        lines = text.split("\n")
        torn = lines[-1] != ""
        lines = lines[:-1]
        if not lines:
            raise RecordError(f"{path}: an empty session record (no header line)", hint=clear_hint(path))
        header = _parse_line(path, 1, lines[0], RecordHeader)
        results = [_parse_line(path, i, line, RecordLine).result for i, line in enumerate(lines[1:], start=2)]
        return cls(path, header, results, torn_tail=torn)

    def append(self, result: Result) -> None:
        """Append ``result`` as one line (written whole, fsynced)."""
        append_line(self.path, dump_json(RecordLine(result=result)))
        self.results.append(result)

    def served(self) -> dict[str, Result]:
        """Configuration text -> the measurement in the record that a rerun may serve (re-times are not served):
        its first one that is not a transient outcome (:attr:`Outcome.transient`: a killed worker, a run error);
        a transient failure is measured once again, and when that again fails, the failure is the
        configuration's own (a tile that segfaults every time) and is served from then on."""
        out: dict[str, Result] = {}
        failed: dict[str, list[Result]] = {}
        for r in self.results:
            if r.retimed or r.key in out:
                continue
            if not r.outcome.transient:
                out[r.key] = r
            elif r.outcome is not Outcome.NOT_RUN_BUDGET:  # never ran: nothing to confirm
                failed.setdefault(r.key, []).append(r)
        for key, tries in failed.items():
            if key not in out and len(tries) >= TRANSIENT_TRIES:
                out[key] = tries[-1]
        return out

    def _drop_torn_tail(self) -> None:
        """Rewrite the file without its half-written last line, so the next append starts a line."""
        text = self.path.read_text(encoding="utf-8")
        atomic_write_text(self.path, text[: text.rfind("\n") + 1])
        self.torn_tail = False


def latest_beside(path: Path, folder: str | None = None) -> SessionRecord | None:
    """The most recently written readable record of the same name in another session folder beside ``path``'s (the
    last session's, when a new one starts) made for the kernel folder ``folder`` (a record that names none, written
    before it was kept, is taken as it may be; one of another folder is another kernel's sharing the ``--out``, never
    this one's last session: review25 r50); ``None`` when there is none."""
    found = sorted(
        (p for p in path.parent.parent.glob(f"*/{path.name}") if p.parent != path.parent and p.is_file()),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    for candidate in found:
        try:
            earlier = SessionRecord.read(candidate)
        except RecordError:
            continue
        if folder is None or earlier.header.folder in (None, folder):
            return earlier
    return None


#: Measurements of a transient failure after which it is taken as the configuration's own and served.
TRANSIENT_TRIES = 2


def clear_hint(path: Path) -> str:
    """What to do with a record that cannot be used: it is a cache of measurements, deleting it starts over."""
    return f"delete {path} to start the session over (the record only keeps measurements)"


def _parse_line(path: Path, number: int, line: str, model: type[Any]) -> Any:
    """Line ``number`` of the record at ``path`` as ``model``.

    Raises:
        RecordError: the header of another record schema ("record schema 2, this kernelopt reads 1"), or a line
            that is not JSON or not a record line (the file and line named, and how to start over).
    """
    if model is RecordHeader:
        _check_record_schema(path, line)
    try:
        return load_json(model, line)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            what = "not JSON: a damaged line"
        else:
            where = ".".join(str(p) for p in first["loc"]) or "(top)"
            what = f"{where}: {first['msg'][:1].lower()}{first['msg'][1:]}"
        kind = "header" if model is RecordHeader else "result"
        raise RecordError(
            f"{path}:{number}: not a session record {kind} line ({what})", hint=clear_hint(path)
        ) from None


def _check_record_schema(path: Path, line: str) -> None:
    """A header whose ``schema`` is not :data:`RECORD_SCHEMA` is said as such (not as a validation error)."""
    try:
        doc = json.loads(line)
    except ValueError:
        return  # said by the line's own check
    if not isinstance(doc, dict) or "schema" not in doc or doc.get("kind", "header") != "header":
        return
    found = doc["schema"]
    if is_int(found) and found == RECORD_SCHEMA:
        return
    shown = json.dumps(found) if isinstance(found, str | int | float | bool | None) else type(found).__name__
    raise RecordError(f"{path}: record schema {shown}, this kernelopt reads {RECORD_SCHEMA}", hint=clear_hint(path))
