"""``kernelopt memory <verb> WS`` (or ``--workspace WS``, the spec's spelling): the spec's memory_manager."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import typer

from kernelopt.cli.output import emit_json, fmt, info, table
from kernelopt.cli.workspace_arg import chosen_workspace
from kernelopt.errors import RecordError, UsageError
from kernelopt.memory.model import IterationRecord, parse_version, version_label
from kernelopt.memory.store import MemoryStore
from kernelopt.oneline import shell_word
from kernelopt.workspace import Workspace, is_workspace, stage_lock


def _as_version(text: str) -> int | None:
    """The version ``text`` names (``v3``, ``V3``, ``3``), or ``None`` when it names a folder or no version."""
    if Path(text).expanduser().is_dir():  # a folder named like a version is a workspace
        return None
    try:
        return parse_version(text)
    except ValueError:
        return None


def _chosen(
    args: list[str] | None, option: Path | None, versions: list[str] | None = None, *, takes_version: bool = True
) -> tuple[Path, list[str]]:
    """The workspace and the versions a verb names.

    ``--version v<N>`` is the spelling of a version (the spec's memory_manager); a version written positionally
    after the workspace (``memory read WS v1``, ``memory mask WS v1 v2``, ``memory read -w WS v1``) is the same
    version, in every verb that takes one.

    Raises:
        UsageError: no workspace, two, a word that is neither a workspace folder nor a version, or a version
            given to a verb that takes none.
    """
    words = list(args or [])
    positional = Path(words.pop(0)).expanduser() if words and _as_version(words[0]) is None else None
    workspace = chosen_workspace(positional, option, usage="kernelopt memory <verb>")
    found = []
    for word in words:
        number = _as_version(word)
        if number is None:
            raise UsageError(f"{word}: neither a version (v<N>) nor the workspace ({workspace} is the workspace)")
        if not takes_version:
            raise UsageError(f"{word} is a version, not a workspace ({workspace} is the workspace)",
                             hint="this verb takes no version")  # fmt: skip
        found.append(version_label(number))
    given = []
    for v in versions or []:  # --version names a version, whatever folders the current one holds
        try:
            given.append(version_label(parse_version(v)))
        except ValueError as exc:  # '' (an unset "$V"): it read the latest record as if no version were given
            raise UsageError(str(exc)) from None
    return workspace, list(dict.fromkeys([*given, *found]))  # v1 given both ways is one version


def _one_version(named: list[str], verb: str) -> str | None:
    """The one version ``verb`` reads or writes, or ``None`` when none was given.

    Raises:
        UsageError: two or more.
    """
    if len(named) > 1:
        raise UsageError(f"two versions given: {' and '.join(named)}", hint=f"kernelopt memory {verb} takes one")
    return named[0] if named else None


def _held(workspace: Path, command: str) -> AbstractContextManager[object]:
    """The workspace's run lock while a verb writes a record (:func:`kernelopt.workspace.stage_lock`); none for a
    folder that is no workspace (a bare ``memory/`` of records)."""
    folder = Path(workspace).expanduser()
    return stage_lock(folder, command) if is_workspace(folder) else nullcontext()


def _store(workspace: Path) -> MemoryStore:
    memory_dir = Path(workspace).expanduser() / "memory"
    if not memory_dir.is_dir():
        raise RecordError(f"{workspace}: no memory/ folder (is this a kernelopt workspace?)")
    return MemoryStore(memory_dir)


def _nothing_to_show(workspace: Path, store: MemoryStore) -> str:
    """Why a listing of ``workspace``'s records has no row, and what to do (an empty table said nothing)."""
    if store.versions():
        return f"{workspace}: every recorded version is masked; --include-masked shows them"
    return (
        f"{workspace}: no version recorded in memory/ yet; `kernelopt optimize {shell_word(workspace)} --max-iters 0` "
        "gates, profiles and commits V0 as the baseline"
    )


def _field(record: IterationRecord, path: str) -> Any:
    node: Any = record.model_dump(mode="json")
    for part in path.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise RecordError(f"no field '{path}' in {record.version}")
    return node


def summary_rows(records: list[IterationRecord]) -> list[dict[str, Any]]:
    """One row per record: the spec's summary columns (:func:`kernelopt.memory.summary.summary_rows`)."""
    from kernelopt.memory.summary import summary_rows as rows

    return [row.model_dump(mode="json") for row in rows(records)]


MEMORY = typer.Typer(help="Create, read, update, mask and summarize memory/v<N>.json records.", no_args_is_help=True)
WS_OPT = typer.Option(None, "--workspace", "-w", help="The workspace folder (or give it first, positionally).")
WS_ARG = typer.Argument(None, help="The workspace folder (or --workspace).", show_default=False, metavar="[WS]")
WS_VERSION_ARG = typer.Argument(
    None, help="The workspace folder (or --workspace), then v<N> (the same as --version v<N>).", show_default=False,
    metavar="[WS] [v<N>]",
)  # fmt: skip
JSON_OPT = typer.Option(False, "--json", help="Print the result as JSON.")
VERSIONS_ARG = typer.Argument(None, help="[WS] v<N>... (the same as --version v<N> ...).", metavar="[WS] v<N>...")
VERSIONS_OPT = typer.Option(None, "--version", help="v<N> (repeatable; or give the versions after WS).")


def register(app: typer.Typer) -> None:
    app.add_typer(MEMORY, name="memory")


@MEMORY.command("create")
def create(
    ws: list[str] | None = WS_VERSION_ARG,
    workspace: Path | None = WS_OPT,
    version: str | None = typer.Option(None, "--version", help="v<N> (or give it after WS)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing record."),
    as_json: bool = JSON_OPT,
) -> None:
    """Create an empty record for a version."""
    folder, named = _chosen(ws, workspace, [version] if version is not None else None)
    version = _one_version(named, "create")
    if version is None:
        raise UsageError("no version to create", hint="kernelopt memory create WS --version v<N>")
    store = _store(folder)
    n = parse_version(store.path(version).stem)  # a label that is no version: the store's one line
    if is_workspace(Path(folder).expanduser()):  # a record past the next version renumbers every later one
        Workspace(Path(folder).expanduser()).writable_version(n)
    with _held(folder, "memory create"):
        record = store.create(version, force=force)
    emit_json(record) if as_json else info(f"created {store.path(record.version)}")


@MEMORY.command("read")
def read(
    ws: list[str] | None = WS_VERSION_ARG,
    workspace: Path | None = WS_OPT,
    version: str | None = typer.Option(None, "--version", help="v<N> (default: latest unmasked; or give it after WS)."),
    field: str | None = typer.Option(None, "--field", help="Dotted path, e.g. performance.latency_us."),
    include_masked: bool = typer.Option(False, "--include-masked", help="Allow a masked record."),
) -> None:
    """Print a record (or one field of it) as JSON."""
    workspace, named = _chosen(ws, workspace, [version] if version is not None else None)
    version = _one_version(named, "read")
    store = _store(workspace)
    if version is None:
        record = store.latest(include_masked=include_masked)
        if record is None:
            raise RecordError(_nothing_to_show(workspace, store))
    else:
        record = store.read(version)
        if record.masked and not include_masked:
            raise RecordError(f"{record.version} is masked", hint="pass --include-masked to read it")
    if field:
        emit_json(_field(record, field))
    else:
        emit_json(record)


@MEMORY.command("update")
def update(
    ws: list[str] | None = WS_VERSION_ARG,
    workspace: Path | None = WS_OPT,
    version: str | None = typer.Option(None, "--version", help="v<N> (or give it after WS)."),
    sets: list[str] = typer.Option(..., "--set", help="key.path=value (repeatable)."),
    as_json: bool = JSON_OPT,
) -> None:
    """Set fields (converted by the schema's type); all or nothing, validated, atomic."""
    folder, named = _chosen(ws, workspace, [version] if version is not None else None)
    version = _one_version(named, "update")
    if version is None:
        raise UsageError("no version to update", hint="kernelopt memory update WS --version v<N> --set KEY=VALUE")
    store = _store(folder)
    with _held(folder, "memory update"):
        record = store.update(version, list(sets))
    emit_json(record) if as_json else info(f"updated {store.path(record.version)}")


@MEMORY.command("mask")
def mask(
    args: list[str] | None = VERSIONS_ARG,
    workspace: Path | None = WS_OPT,
    versions: list[str] | None = VERSIONS_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Mask records: kept for audit, never read as active data."""
    _mask(args, workspace, versions, True, as_json)


@MEMORY.command("unmask")
def unmask(
    args: list[str] | None = VERSIONS_ARG,
    workspace: Path | None = WS_OPT,
    versions: list[str] | None = VERSIONS_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Unmask records."""
    _mask(args, workspace, versions, False, as_json)


def _mask(args: list[str] | None, option: Path | None, given: list[str] | None, masked: bool, as_json: bool) -> None:
    workspace, versions = _chosen(args, option, given)
    verb = "mask" if masked else "unmask"
    if not versions:
        raise UsageError(f"no version to {verb}", hint=f"kernelopt memory {verb} WS --version v<N> (or WS v<N> ...)")
    store = _store(workspace)
    with _held(workspace, f"memory {verb}"):
        for v in versions:  # check all first: nothing is written if one is missing
            store.read(v)
        done = [store.set_masked(v, masked).version for v in versions]
    if as_json:
        emit_json({"masked" if masked else "unmasked": done})
    else:
        info(f"{'masked' if masked else 'unmasked'}: {', '.join(done)}")


@MEMORY.command("list")
def list_(ws: Path | None = WS_ARG, workspace: Path | None = WS_OPT, as_json: bool = JSON_OPT) -> None:
    """List every record (masked ones included) with its status."""
    folder, _ = _chosen([str(ws)] if ws else None, workspace, takes_version=False)
    store = _store(folder)
    rows = [_list_row(store, n) for n in store.versions()]
    if as_json:
        emit_json(rows)
    elif not rows:
        info(_nothing_to_show(folder, store))
    else:
        table(
            "memory records",
            ["version", "masked", "gate", "error"],
            [[r["version"], r["masked"], r["quality_gate"], r["error"] or ""] for r in rows],
        )


def _list_row(store: MemoryStore, n: int) -> dict[str, Any]:
    """One row of ``memory list``: the record's status, or why it cannot be read."""
    try:
        r = store.read(n)
    except RecordError as exc:
        return {"version": f"v{n}", "masked": None, "quality_gate": None, "error": exc.message}
    gate = r.quality_gate.result.value if r.quality_gate.result else None
    return {"version": r.version, "masked": r.masked, "quality_gate": gate, "error": None}


@MEMORY.command("latest")
def latest(
    ws: Path | None = WS_ARG,
    workspace: Path | None = WS_OPT,
    include_masked: bool = typer.Option(False, "--include-masked"),
    as_json: bool = JSON_OPT,
) -> None:
    """Print the latest unmasked version label."""
    workspace, _ = _chosen([str(ws)] if ws else None, workspace, takes_version=False)
    store = _store(workspace)
    record = store.latest(include_masked=include_masked)
    if record is None:
        raise RecordError(_nothing_to_show(workspace, store))
    emit_json({"version": record.version}) if as_json else info(record.version)


SUMMARY_COLUMNS = (
    ("version", "version"),
    ("latency (us)", "latency_us"),
    ("TFLOP/s", "tflops"),
    ("GB/s", "bandwidth_gbps"),
    ("TFLOP/s %", "tflops_peak_utilization_pct"),
    ("GB/s %", "bandwidth_peak_utilization_pct"),
    ("roofline %", "roofline_utilization_pct"),
    ("correctness", "correctness"),
    ("gate", "quality_gate"),
    ("action", "action_category"),
)
"""The columns of ``memory summary``'s table: header, key of :func:`summary_rows`."""


@MEMORY.command("summary")
def summary(
    ws: Path | None = WS_ARG,
    workspace: Path | None = WS_OPT,
    include_masked: bool = typer.Option(False, "--include-masked"),
    as_json: bool = JSON_OPT,
) -> None:
    """Table of versions: latency, TFLOP/s, GB/s, utilization, correctness, gate, action."""
    workspace, _ = _chosen([str(ws)] if ws else None, workspace, takes_version=False)
    store = _store(workspace)
    rows = summary_rows(list(store.records(include_masked=include_masked)))
    if as_json:
        emit_json(rows)
        return
    if not rows:
        info(_nothing_to_show(workspace, store))
        return
    words = {"quality_gate", "action_category"}  # a missing word shows as n/a
    table(
        "kernelopt memory summary",
        [header for header, _ in SUMMARY_COLUMNS],
        [[_cell(r, key) if key in words or key == "version" else r[key] for _, key in SUMMARY_COLUMNS] for r in rows],
    )


def _cell(row: dict[str, Any], key: str) -> str:
    """A word of the table: ``n/a`` when missing; a masked version says so (``v2 (masked)``: no column of
    ``False`` beside every row, which left no room for the header's words at 80 columns)."""
    if key == "version":
        return f"{row['version']} (masked)" if row["masked"] else str(row["version"])
    return fmt(row[key])
