"""The rules a gpu-wiki record must follow: pure checks of one parsed front matter mapping.

Each check returns :class:`Problem` items. A *blocking* problem makes the record unusable (the loader
refuses the file with a one-line error); every problem, blocking or not, is reported by
``kernelopt wiki lint`` (:mod:`kernelopt.wiki.lint`, which adds the checks that need all records at
once: unique ids, related ids, aliases shared by two GPU sheets). No I/O here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from kernelopt.actions import ActionCategory
from kernelopt.evidence.symptoms import Symptom
from kernelopt.hardware.specs import GpuSpec, SourceKind, validation_summary
from kernelopt.vocabulary import DTYPES, FRAMEWORKS, SOURCE_FRAMEWORKS, VENDORS, Framework, Vendor
from kernelopt.wiki.record import ARCH_PATTERN, RecordKind, WikiRecord

MIN_BODY_CHARS = 80
"""A record's explanation must be at least this long (a sentence or two in our own words)."""

REQUIRED_FIGURES = (
    *(f"peak_tflops_{d}" for d in DTYPES),
    "peak_tflops_fp64_tensor",
    "memory_bandwidth_gbps",
    "memory_capacity_gb",
    "sm_count",
    "l2_cache_bytes",
    "shared_memory_per_sm_bytes",
    "register_file_per_sm_bytes",
    "max_warps_per_sm",
)
"""Figures every hardware sheet carries (``None`` + how to measure when unpublished)."""

TENSOR_FIGURES = ("peak_tflops_tf32", "peak_tflops_bf16", "peak_tflops_fp16", "peak_tflops_fp8")
"""Matrix-unit rates that vendors also quote with 2:4 sparsity: their note must say which one is kept."""

_UNIT_BY_SUFFIX = (
    ("peak_tflops_", "TFLOP/s"),
    ("_gbps", "GB/s"),
    ("_gb", "GB"),
    ("_bytes", "bytes"),
    ("_count", "count"),
    ("max_warps_per_sm", "count"),
)

_METRIC_SHAPES = (
    re.compile(r"^[a-z0-9]+__[a-z0-9_]+(\.[a-z0-9_]+)*$"),  # Nsight Compute: dram__throughput.avg.pct_...
    re.compile(r"^[A-Z][A-Za-z0-9]*(_[A-Za-z0-9]+)+$"),  # AMD counters/fields: SQ_LDS_BANK_CONFLICT, Arch_VGPR
    re.compile(r"^(sass|amdgcn|ptx|triton|timing)\.[A-Za-z0-9_.\-]+$"),  # ISA / compiler / timing facts
)


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class Problem(BaseModel):
    """One broken rule.

    Attributes:
        rule: the rule's id (``schema``, ``vocabulary``, ``required``, ``sources``, ``change``, ...).
        message: one line saying what is wrong and what would fix it.
        severity: ``error`` fails ``kernelopt wiki lint``; ``warning`` is reported only.
        blocking: the record cannot be loaded at all.
    """

    model_config = ConfigDict(extra="forbid")
    rule: str
    message: str
    severity: Severity = Severity.ERROR
    blocking: bool = False


def _blocking(rule: str, message: str) -> Problem:
    return Problem(rule=rule, message=message, blocking=True)


def _words(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


def check_vocabulary(front: Mapping[str, Any]) -> list[Problem]:
    """Controlled words: kind, scope.vendor/arch/framework, symptoms, action_category (all blocking)."""
    out: list[Problem] = []
    kind = front.get("kind")
    kinds = [k.value for k in RecordKind]
    if kind is None:
        return [_blocking("required", "no 'kind' (one of " + ", ".join(kinds) + ")")]
    if kind not in kinds:
        return [_blocking("vocabulary", f"kind {kind!r} is not one of {', '.join(kinds)}")]
    if kind == RecordKind.HARDWARE_SPEC:
        return out
    scope = front.get("scope") or {}
    if not isinstance(scope, Mapping):
        return [_blocking("schema", "scope must be a mapping with vendor/arch/framework lists")]
    for v in _words(scope.get("vendor")):
        if v not in VENDORS:
            out.append(_blocking("vocabulary", f"scope.vendor {v!r} is not one of {', '.join(VENDORS)}"))
    for f in _words(scope.get("framework")):
        if f not in FRAMEWORKS:
            out.append(_blocking("vocabulary", f"scope.framework {f!r} is not one of {', '.join(FRAMEWORKS)}"))
    for a in _words(scope.get("arch")):
        if not ARCH_PATTERN.match(a):
            out.append(_blocking("vocabulary", f"scope.arch {a!r} is not an sm_NN or gfxNNN target"))
    known_symptoms = {s.value for s in Symptom}
    for s in _words(front.get("symptoms")):
        if s not in known_symptoms:
            out.append(_blocking("vocabulary", f"symptom {s!r} is not a Symptom id (kernelopt.evidence.symptoms)"))
    cat = front.get("action_category")
    if cat is not None and cat not in {c.value for c in ActionCategory}:
        out.append(_blocking("vocabulary", f"action_category {cat!r} is not an ActionCategory (kernelopt.actions)"))
    return out


def validate_record(front: Mapping[str, Any], body: str) -> tuple[WikiRecord | None, list[Problem]]:
    """Vocabulary + schema for a technique/pitfall front matter; the record when nothing blocks."""
    problems = check_vocabulary(front)
    if any(p.blocking for p in problems):
        return None, problems
    try:
        record = WikiRecord.model_validate({**front, "body": body})
    except ValidationError as exc:
        return None, [*problems, _blocking("schema", validation_summary(exc))]
    return record, problems + check_content(record)


def check_content(record: WikiRecord) -> list[Problem]:
    """What a usable technique/pitfall must say, and what a good one should say."""
    out: list[Problem] = []
    if record.kind is RecordKind.TECHNIQUE:
        if record.action_category is None:
            out.append(_blocking("required", "a technique needs action_category (an ActionCategory)"))
        change = record.change
        texts = {k: v for k, v in (change.model_dump() if change else {}).items() if v and v.strip()}
        if not texts:
            out.append(_blocking("required", "a technique needs change.triton and/or change.cuda/change.hip"))
        else:
            frameworks = record.scope.framework or [Framework.TRITON, Framework.CUDA]
            for fw in frameworks:
                if fw in SOURCE_FRAMEWORKS and fw not in texts:
                    out.append(Problem(rule="change", message=f"scope names framework {fw} but change.{fw} is empty"))
        if not record.symptoms:
            out.append(Problem(rule="required", message="a technique must answer at least one symptom id"))
        if not record.metrics:
            out.append(Problem(rule="metrics", message="a technique must name the profiler metrics it answers"))
        for field in ("expected_impact", "risks"):
            if not (getattr(record, field) or "").strip():
                out.append(Problem(rule="required", message=f"a technique needs {field}"))
    elif record.kind is RecordKind.PITFALL:
        for field in ("tried", "fails_when", "why"):
            if not (getattr(record, field) or "").strip():
                out.append(_blocking("required", f"a pitfall needs {field}"))
    out.extend(check_scope(record))
    out.extend(check_sources([(s.title, s.url) for s in record.sources]))
    for m in record.metrics:
        if not any(p.match(m) for p in _METRIC_SHAPES):
            out.append(
                Problem(
                    rule="metrics",
                    severity=Severity.WARNING,
                    message=f"metric {m!r} is not an ncu name, an AMD counter or an isa/timing fact",
                )
            )
    if len(record.body.strip()) < MIN_BODY_CHARS:
        out.append(
            Problem(rule="body", message=f"the explanation below the front matter needs {MIN_BODY_CHARS}+ characters")
        )
    return out


def check_scope(record: WikiRecord) -> list[Problem]:
    """Architectures must belong to the vendors listed."""
    out = []
    for a in record.scope.arch:
        v = Vendor.of_arch(a)
        if v and v not in record.scope.vendor:
            out.append(Problem(rule="scope", message=f"scope.arch {a} is {v} but scope.vendor does not list {v}"))
    return out


def check_sources(sources: list[tuple[str, str | None]]) -> list[Problem]:
    """At least one source; each with a title and an http(s) URL."""
    if not sources:
        return [Problem(rule="sources", message="no sources: cite at least one public document (title + url)")]
    out = []
    for title, url in sources:
        if not (title or "").strip():
            out.append(Problem(rule="sources", message="a source has no title"))
        if not url or not re.match(r"^https?://\S+$", url):
            out.append(Problem(rule="sources", message=f"source {title!r} needs an http(s) url"))
    return out


def _unit_for(figure: str) -> str | None:
    for suffix, unit in _UNIT_BY_SUFFIX:
        if (suffix.endswith("_") and figure.startswith(suffix)) or figure.endswith(suffix):
            return unit
    return None


def check_sheet(spec: GpuSpec) -> list[Problem]:
    """Hardware sheet rules beyond :func:`kernelopt.hardware.specs.parse_sheet` (which already refuses a
    value without a source, an unknown source key, and an unknown figure without how to measure it)."""
    out: list[Problem] = []
    if spec.vendor not in VENDORS:
        out.append(Problem(rule="vocabulary", message=f"vendor {spec.vendor!r} is not one of {', '.join(VENDORS)}"))
    if not ARCH_PATTERN.match(spec.arch):
        out.append(Problem(rule="vocabulary", message=f"arch {spec.arch!r} is not an sm_NN or gfxNNN target"))
    elif Vendor.of_arch(spec.arch) != spec.vendor:
        out.append(Problem(rule="vocabulary", message=f"arch {spec.arch} does not belong to vendor {spec.vendor}"))
    for name in REQUIRED_FIGURES:
        if name not in spec.figures:
            out.append(Problem(rule="spec_figures", message=f"missing figure {name} (use null + how_to_measure)"))
    for name, fig in spec.figures.items():
        unit = _unit_for(name)
        if unit and fig.unit != unit:
            out.append(Problem(rule="spec_units", message=f"figure {name} must be in {unit}, not {fig.unit!r}"))
        if fig.value is None and fig.source is not None and not (fig.note or fig.how_to_measure):
            out.append(Problem(rule="spec_figures", message=f"figure {name} is null: say why (note) or how to measure"))
        if fig.value is not None and fig.value < 0:
            out.append(Problem(rule="spec_figures", message=f"figure {name} is negative"))
        if fig.source is not None and fig.source in spec.sources:
            src = spec.sources[fig.source]
            if src.kind is SourceKind.MEASURED and not fig.note:
                out.append(
                    Problem(rule="spec_sources", message=f"measured figure {name} needs a note: machine, tool, date")
                )
        if name in TENSOR_FIGURES and fig.value is not None:
            note = (fig.note or "").lower()
            if "dense" not in note and "sparsity" not in note:
                out.append(
                    Problem(
                        rule="spec_dense",
                        message=f"figure {name} must say it is the dense rate (vendors also quote 2:4 sparsity)",
                    )
                )
    for key, src in spec.sources.items():
        if src.kind is SourceKind.VENDOR:
            out.extend(
                Problem(rule="spec_sources", message=f"source {key}: {p.message}")
                for p in check_sources([(src.title, src.url)])
            )
        elif not src.title.strip():
            out.append(Problem(rule="spec_sources", message=f"source {key} has no title"))
    if len(spec.body.strip()) < MIN_BODY_CHARS:
        out.append(Problem(rule="body", message=f"the sheet needs a {MIN_BODY_CHARS}+ character note below the fence"))
    return out
