"""``kernelopt memory <verb> WS`` (or ``--workspace WS``, the spec's spelling): the spec's memory_manager."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from kernelopt.cli.output import emit_json, fmt, info, table
from kernelopt.cli.workspace_arg import chosen_workspace
from kernelopt.errors import RecordError, UsageError
from kernelopt.memory.model import IterationRecord, parse_version
from kernelopt.memory.store import MemoryStore
from kernelopt.oneline import shell_word
from kernelopt.workspace import Workspace, is_workspace


def _chosen(positional: Path | None, option: Path | None, *, takes_version: bool = False) -> Path:
    """The workspace given; a version given where the workspace goes (``memory read -w WS v7``) is said as one."""
    if positional is not None and option is not None and not Path(positional).expanduser().is_dir():
        try:
            number = parse_version(str(positional))
        except ValueError:
            number = None
        if number is not None:
            fix = f"give it as --version v{number}" if takes_version else "this verb takes no version"
            raise UsageError(
                f"{positional} is a version, not a workspace (--workspace {option} is the workspace)", hint=fix
            )
    return chosen_workspace(positional, option, usage="kernelopt memory <verb>")


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
WS_ARG = typer.Argument(None, help="The workspace folder (or --workspace).", show_default=False)
JSON_OPT = typer.Option(False, "--json", help="Print the result as JSON.")
VERSIONS_ARG = typer.Argument(..., help="[WS] v<N>...")


def register(app: typer.Typer) -> None:
    app.add_typer(MEMORY, name="memory")


@MEMORY.command("create")
def create(
    ws: Path | None = WS_ARG,
    workspace: Path | None = WS_OPT,
    version: str = typer.Option(..., "--version", help="v<N>"),
    force: bool = typer.Option(False, "--force", help="Replace an existing record."),
    as_json: bool = JSON_OPT,
) -> None:
    """Create an empty record for a version."""
    folder = _chosen(ws, workspace)
    store = _store(folder)
    n = parse_version(store.path(version).stem)  # a label that is no version: the store's one line
    if is_workspace(Path(folder).expanduser()):  # a record past the next version renumbers every later one
        Workspace(Path(folder).expanduser()).writable_version(n)
    record = store.create(version, force=force)
    emit_json(record) if as_json else info(f"created {store.path(record.version)}")


@MEMORY.command("read")
def read(
    ws: Path | None = WS_ARG,
    workspace: Path | None = WS_OPT,
    version: str | None = typer.Option(None, "--version", help="v<N> (default: latest unmasked)."),
    field: str | None = typer.Option(None, "--field", help="Dotted path, e.g. performance.latency_us."),
    include_masked: bool = typer.Option(False, "--include-masked", help="Allow a masked record."),
) -> None:
    """Print a record (or one field of it) as JSON."""
    workspace = _chosen(ws, workspace, takes_version=True)
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
        sys.stdout.write(json.dumps(_field(record, field), indent=2) + "\n")
    else:
        emit_json(record)


@MEMORY.command("update")
def update(
    ws: Path | None = WS_ARG,
    workspace: Path | None = WS_OPT,
    version: str = typer.Option(..., "--version", help="v<N>"),
    sets: list[str] = typer.Option(..., "--set", help="key.path=value (repeatable)."),
    as_json: bool = JSON_OPT,
) -> None:
    """Set fields (converted by the schema's type); all or nothing, validated, atomic."""
    store = _store(_chosen(ws, workspace))
    record = store.update(version, list(sets))
    emit_json(record) if as_json else info(f"updated {store.path(record.version)}")


@MEMORY.command("mask")
def mask(workspace: Path | None = WS_OPT, versions: list[str] = VERSIONS_ARG, as_json: bool = JSON_OPT) -> None:
    """Mask records: kept for audit, never read as active data."""
    _mask(workspace, versions, True, as_json)


@MEMORY.command("unmask")
def unmask(workspace: Path | None = WS_OPT, versions: list[str] = VERSIONS_ARG, as_json: bool = JSON_OPT) -> None:
    """Unmask records."""
    _mask(workspace, versions, False, as_json)


def _mask(workspace: Path | None, versions: list[str], masked: bool, as_json: bool) -> None:
    if workspace is None and versions:  # kernelopt memory mask WS v1 v2
        workspace, versions = Path(versions[0]), versions[1:]
    workspace = _chosen(None, workspace)
    if not versions:
        raise UsageError("no version to change", hint="kernelopt memory mask WS v<N>...")
    store = _store(workspace)
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
    store = _store(_chosen(ws, workspace))
    rows = [_list_row(store, n) for n in store.versions()]
    if as_json:
        emit_json(rows)
    elif not rows:
        info(_nothing_to_show(_chosen(ws, workspace), store))
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
    workspace = _chosen(ws, workspace)
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
    workspace = _chosen(ws, workspace)
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
