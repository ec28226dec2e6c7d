"""``kernelopt wiki search|spec|show|list|lint``: the gpu-wiki knowledge base from the command line."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import typer

from kernelopt.cli.output import emit_json, info, table, warn
from kernelopt.errors import UsageError
from kernelopt.hardware.specs import GpuSpec, lookup
from kernelopt.wiki.record import RecordKind, WikiRecord


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


def register(app: typer.Typer) -> None:
    wiki = typer.Typer(
        help="The built-in GPU knowledge base: search, spec sheets, records, lint.", no_args_is_help=True
    )
    app.add_typer(wiki, name="wiki")
    wiki_opt = typer.Option(None, "--wiki", help="Another wiki directory (repeatable), searched like the built-in one.")
    json_opt = typer.Option(False, "--json", help="Print the result as JSON.")

    @wiki.command("search")
    def search_cmd(
        query: str = typer.Argument("", help="Free text: metric names, stall reasons, symptom ids, words."),
        arch: str | None = typer.Option(None, "--arch", help="sm_90, gfx942, a family (hopper) or a GPU (h200)."),
        vendor: str | None = typer.Option(None, "--vendor", help="nvidia or amd."),
        framework: str | None = typer.Option(None, "--framework", help="triton, cuda, hip or torch."),
        symptom: list[str] | None = typer.Option(None, "--symptom", help="A Symptom id (repeatable); boosts matches."),
        kind: list[str] | None = typer.Option(None, "--kind", help="technique, pitfall or hardware_spec (repeatable)."),
        wiki_dirs: list[Path] | None = wiki_opt,
        limit: int = typer.Option(10, "--limit", help="At most this many hits."),
        as_json: bool = json_opt,
    ) -> None:
        """Search the wiki (BM25 + symptom boost) within a hard architecture/framework scope."""
        from kernelopt.wiki.search import search

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
            emit_json(
                [
                    {
                        "score": h.score,
                        "neutral": h.neutral,
                        "matched_symptoms": h.matched_symptoms,
                        "record": _record_json(h.record),
                    }
                    for h in hits
                ]
            )
            return
        if not hits:
            info("no matching record")
            return
        rows = []
        for h in hits:
            r = h.record
            scope = "neutral" if h.neutral else ",".join(r.scope.arch or r.scope.vendor)
            rows.append(
                [
                    f"{h.score:.3f}",
                    r.id,
                    r.kind.value,
                    r.action_category.value if r.action_category else "",
                    scope,
                    ",".join(h.matched_symptoms),
                    r.title,
                ]
            )
        table(None, ["score", "id", "kind", "category", "scope", "matched", "title"], rows)

    @wiki.command("spec")
    def spec_cmd(
        name: str = typer.Argument(..., help="GPU name or alias: H200, h200-sxm, GH100, MI300X, ..."),
        field: str | None = typer.Option(None, "--field", help="One figure, e.g. memory_bandwidth_gbps."),
        wiki_dirs: list[Path] | None = wiki_opt,
        as_json: bool = json_opt,
    ) -> None:
        """Exact spec-sheet lookup; an unknown GPU is an error, never a sibling's numbers."""
        from kernelopt.wiki.loader import load_wiki

        sheets = load_wiki(list(wiki_dirs or [])).specs
        spec = lookup(name, tuple(sheets))
        if field is not None:
            fig = spec.figure(field)
            if as_json:
                emit_json({"gpu": spec.id, "field": field, **fig.model_dump(mode="json"), "cite": spec.cite(field)})
            else:
                shown = _num(fig.value) + ("" if fig.value is None else f" {fig.unit}")
                info(f"{spec.name} {field} = {shown}")
                info(f"source: {spec.cite(field)}")
                if fig.note:
                    info(f"note: {fig.note}")
            return
        if as_json:
            emit_json(_spec_json(spec))
            return
        rows = []
        for key, fig in spec.figures.items():
            cited = spec.sources[fig.source].title if fig.source else f"measure: {fig.how_to_measure}"
            rows.append([key, _num(fig.value), fig.unit, cited, fig.note or ""])
        table(f"{spec.name} ({spec.architecture}, {spec.arch})", ["figure", "value", "unit", "source", "note"], rows)
        for key, src in spec.sources.items():
            info(f"[{key}] {src.title}" + (f" <{src.url}>" if src.url else ""))

    @wiki.command("show")
    def show_cmd(
        record_id: str = typer.Argument(..., help="Record id (see `kernelopt wiki list`)."),
        wiki_dirs: list[Path] | None = wiki_opt,
        as_json: bool = json_opt,
    ) -> None:
        """Print one record: its fields, sources and explanation."""
        from kernelopt.wiki.loader import load_records

        records = {r.id: r for r in load_records(list(wiki_dirs or []))}
        if record_id not in records:
            close = difflib.get_close_matches(record_id, list(records), n=3)
            raise UsageError(
                f"no wiki record {record_id!r}", hint=("did you mean " + ", ".join(close)) if close else None
            )
        r = records[record_id]
        if as_json:
            emit_json(_record_json(r))
            return
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

    @wiki.command("list")
    def list_cmd(
        kind: list[str] | None = typer.Option(None, "--kind", help="technique, pitfall or hardware_spec."),
        wiki_dirs: list[Path] | None = wiki_opt,
        as_json: bool = json_opt,
    ) -> None:
        """List the records (id, kind, category, scope)."""
        from kernelopt.wiki.loader import load_records

        kinds = _kinds(kind)
        records = [r for r in load_records(list(wiki_dirs or [])) if kinds is None or r.kind in kinds]
        if as_json:
            emit_json([_record_json(r) for r in records])
            return
        rows = [
            [
                r.id,
                r.kind.value,
                r.action_category.value if r.action_category else "",
                "neutral" if r.scope.neutral else ",".join(r.scope.arch or r.scope.vendor),
                r.title,
            ]
            for r in records
        ]
        table(f"{len(rows)} records", ["id", "kind", "category", "scope", "title"], rows)

    @wiki.command("lint")
    def lint_cmd(
        wiki_dirs: list[Path] | None = wiki_opt,
        as_json: bool = json_opt,
    ) -> None:
        """Check every record (schema, vocabulary, sources, spec rules); exit 1 when any error is found."""
        from kernelopt.wiki.lint import lint
        from kernelopt.wiki.rules import Severity

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
