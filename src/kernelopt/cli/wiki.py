"""``kernelopt wiki search|spec|show|list|lint``: the gpu-wiki knowledge base from the command line.

One function per command (``search_cmd`` ...), each with the rendering it needs beside it;
:func:`register` only adds them to the ``wiki`` group.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import typer

from kernelopt.cli.output import emit_json, info, table, warn
from kernelopt.errors import UsageError
from kernelopt.hardware.specs import GpuSpec, lookup
from kernelopt.wiki.lint import lint
from kernelopt.wiki.loader import load_records, load_wiki
from kernelopt.wiki.record import RecordKind, WikiRecord
from kernelopt.wiki.rules import Severity
from kernelopt.wiki.search import SearchHit, search

WIKI_DIRS = typer.Option(None, "--wiki", help="Another wiki directory (repeatable), searched like the built-in one.")
AS_JSON = typer.Option(False, "--json", help="Print the result as JSON.")


def _record_json(record: WikiRecord) -> dict[str, Any]:
    return {**record.model_dump(mode="json", exclude_none=True), "body": record.body, "path": record.path}


def _spec_json(spec: GpuSpec) -> dict[str, Any]:
    figures = {}
    for key, fig in spec.figures.items():
        figures[key] = {**fig.model_dump(mode="json", exclude_none=True), "cite": spec.cite(key)}
    return {
        "id": spec.id,
        "name": spec.name,
        "vendor": spec.vendor,
        "arch": spec.arch,
        "architecture": spec.architecture,
        "aliases": spec.aliases,
        "figures": figures,
        "sources": {k: s.model_dump(mode="json", exclude_none=True) for k, s in spec.sources.items()},
    }


def _num(value: float | None) -> str:
    """A spec figure exactly as stored: integers without a decimal point, others to 6 digits."""
    if value is None:
        return "unknown"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _kinds(values: list[str] | None) -> list[RecordKind] | None:
    if not values:
        return None
    out = []
    for v in values:
        try:
            out.append(RecordKind(v))
        except ValueError:
            raise UsageError(
                f"unknown record kind {v!r}", hint="use " + ", ".join(k.value for k in RecordKind)
            ) from None
    return out


def _scope(record: WikiRecord, neutral: bool) -> str:
    return "neutral" if neutral else ",".join(record.scope.arch or record.scope.vendor)


# -- search ------------------------------------------------------------------------------------


def _hit_json(hit: SearchHit) -> dict[str, Any]:
    return {
        "score": hit.score,
        "neutral": hit.neutral,
        "matched_symptoms": hit.matched_symptoms,
        "record": _record_json(hit.record),
    }


def _print_hits(hits: list[SearchHit]) -> None:
    if not hits:
        info("no matching record")
        return
    rows = [
        [
            f"{h.score:.3f}",
            h.record.id,
            h.record.kind.value,
            h.record.action_category.value if h.record.action_category else "",
            _scope(h.record, h.neutral),
            ",".join(h.matched_symptoms),
            h.record.title,
        ]
        for h in hits
    ]
    table(None, ["score", "id", "kind", "category", "scope", "matched", "title"], rows)


def search_cmd(
    query: str = typer.Argument("", help="Free text: metric names, stall reasons, symptom ids, words."),
    arch: str | None = typer.Option(None, "--arch", help="sm_90, gfx942, a family (hopper) or a GPU (h200)."),
    vendor: str | None = typer.Option(None, "--vendor", help="nvidia or amd."),
    framework: str | None = typer.Option(None, "--framework", help="triton, cuda, hip or torch."),
    symptom: list[str] | None = typer.Option(None, "--symptom", help="A Symptom id (repeatable); boosts matches."),
    kind: list[str] | None = typer.Option(None, "--kind", help="technique, pitfall or hardware_spec (repeatable)."),
    wiki_dirs: list[Path] | None = WIKI_DIRS,
    limit: int = typer.Option(10, "--limit", help="At most this many hits."),
    as_json: bool = AS_JSON,
) -> None:
    """Search the wiki (BM25 + symptom boost) within a hard architecture/framework scope."""
    hits = search(
        query,
        arch=arch,
        vendor=vendor,
        framework=framework,
        symptoms=list(symptom or []),
        kinds=_kinds(kind),
        extra_dirs=list(wiki_dirs or []),
        limit=limit,
    )
    if as_json:
        emit_json([_hit_json(h) for h in hits])
    else:
        _print_hits(hits)


# -- spec --------------------------------------------------------------------------------------


def _print_figure(spec: GpuSpec, field: str, as_json: bool) -> None:
    fig = spec.figure(field)
    if as_json:
        emit_json({"gpu": spec.id, "field": field, **fig.model_dump(mode="json"), "cite": spec.cite(field)})
        return
    shown = _num(fig.value) + ("" if fig.value is None else f" {fig.unit}")
    info(f"{spec.name} {field} = {shown}")
    info(f"source: {spec.cite(field)}")
    if fig.note:
        info(f"note: {fig.note}")


def _print_spec(spec: GpuSpec) -> None:
    rows = []
    for key, fig in spec.figures.items():
        cited = spec.sources[fig.source].title if fig.source else f"measure: {fig.how_to_measure}"
        rows.append([key, _num(fig.value), fig.unit, cited, fig.note or ""])
    table(f"{spec.name} ({spec.architecture}, {spec.arch})", ["figure", "value", "unit", "source", "note"], rows)
    for key, src in spec.sources.items():
        info(f"[{key}] {src.title}" + (f" <{src.url}>" if src.url else ""))


def spec_cmd(
    name: str = typer.Argument(..., help="GPU name or alias: H200, h200-sxm, GH100, MI300X, ..."),
    field: str | None = typer.Option(None, "--field", help="One figure, e.g. memory_bandwidth_gbps."),
    wiki_dirs: list[Path] | None = WIKI_DIRS,
    as_json: bool = AS_JSON,
) -> None:
    """Exact spec-sheet lookup; an unknown GPU is an error, never a sibling's numbers."""
    sheets = load_wiki(list(wiki_dirs or [])).specs
    spec = lookup(name, tuple(sheets))
    if field is not None:
        _print_figure(spec, field, as_json)
    elif as_json:
        emit_json(_spec_json(spec))
    else:
        _print_spec(spec)


# -- show --------------------------------------------------------------------------------------


def _find_record(record_id: str, wiki_dirs: list[Path]) -> WikiRecord:
    """The record ``record_id``; an unknown id is a usage error naming the closest ids."""
    records = {r.id: r for r in load_records(wiki_dirs)}
    if record_id not in records:
        close = difflib.get_close_matches(record_id, list(records), n=3)
        raise UsageError(f"no wiki record {record_id!r}", hint=("did you mean " + ", ".join(close)) if close else None)
    return records[record_id]


def _print_record(r: WikiRecord) -> None:
    info(f"{r.id} [{r.kind.value}] {r.title}")
    info(f"file: {r.path}")
    scope = "neutral (any GPU)" if r.scope.neutral else ", ".join([*r.scope.vendor, *r.scope.arch])
    info(f"scope: {scope}; frameworks: {', '.join(r.scope.framework) or 'any'}")
    if r.action_category:
        info(f"action category: {r.action_category.value}")
    if r.symptoms:
        info(f"symptoms: {', '.join(r.symptoms)}")
    if r.metrics:
        info(f"metrics: {', '.join(r.metrics)}")
    if r.change:
        for fw, text in r.change.model_dump().items():
            if text:
                info(f"change ({fw}): {text}")
    for label, value in (
        ("expected impact", r.expected_impact),
        ("risks", r.risks),
        ("tried", r.tried),
        ("fails when", r.fails_when),
        ("why", r.why),
    ):
        if value:
            info(f"{label}: {value}")
    if r.related:
        info(f"related: {', '.join(r.related)}")
    for s in r.sources:
        info(f"source: {s.title}" + (f" <{s.url}>" if s.url else ""))
    info("")
    info(r.body.strip())


def show_cmd(
    record_id: str = typer.Argument(..., help="Record id (see `kernelopt wiki list`)."),
    wiki_dirs: list[Path] | None = WIKI_DIRS,
    as_json: bool = AS_JSON,
) -> None:
    """Print one record: its fields, sources and explanation."""
    record = _find_record(record_id, list(wiki_dirs or []))
    if as_json:
        emit_json(_record_json(record))
    else:
        _print_record(record)


# -- list --------------------------------------------------------------------------------------


def list_cmd(
    kind: list[str] | None = typer.Option(None, "--kind", help="technique, pitfall or hardware_spec."),
    wiki_dirs: list[Path] | None = WIKI_DIRS,
    as_json: bool = AS_JSON,
) -> None:
    """List the records (id, kind, category, scope)."""
    kinds = _kinds(kind)
    records = [r for r in load_records(list(wiki_dirs or [])) if kinds is None or r.kind in kinds]
    if as_json:
        emit_json([_record_json(r) for r in records])
        return
    rows = [
        [r.id, r.kind.value, r.action_category.value if r.action_category else "", _scope(r, r.scope.neutral), r.title]
        for r in records
    ]
    table(f"{len(rows)} records", ["id", "kind", "category", "scope", "title"], rows)


# -- lint --------------------------------------------------------------------------------------


def lint_cmd(
    wiki_dirs: list[Path] | None = WIKI_DIRS,
    as_json: bool = AS_JSON,
) -> None:
    """Check every record (schema, vocabulary, sources, spec rules); exit 1 when any error is found."""
    issues = lint(list(wiki_dirs or []))
    errors = [i for i in issues if i.severity is Severity.ERROR]
    if as_json:
        emit_json({"ok": not errors, "errors": len(errors), "issues": issues})
    elif issues:
        table(
            f"{len(errors)} errors, {len(issues) - len(errors)} warnings",
            ["severity", "path", "id", "rule", "message"],
            [[i.severity.value, i.path, i.record_id or "", i.rule, i.message] for i in issues],
        )
    else:
        info("wiki lint: no issues")
    if errors:
        if not as_json:
            warn(f"{len(errors)} lint errors")
        raise typer.Exit(1)


COMMANDS = (("search", search_cmd), ("spec", spec_cmd), ("show", show_cmd), ("list", list_cmd), ("lint", lint_cmd))


def register(app: typer.Typer) -> None:
    """Add the ``wiki`` command group and its commands to ``app``."""
    wiki = typer.Typer(
        help="The built-in GPU knowledge base: search, spec sheets, records, lint.", no_args_is_help=True
    )
    for name, command in COMMANDS:
        wiki.command(name)(command)
    app.add_typer(wiki, name="wiki")
