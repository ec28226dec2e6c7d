"""GPU spec sheets: exact lookup of vendor figures, each with its source.

The sheets are gpu-wiki records of kind ``hardware_spec`` (``kernelopt/wiki/records/hardware/*.md``),
the single copy of every hardware number in kernelopt. An unknown GPU is an error: a sibling's
numbers are never borrowed. A figure the vendor does not publish is ``None`` with how to measure it.
"""

from __future__ import annotations

import re
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kernelopt import frontmatter
from kernelopt.errors import UsageError
from kernelopt.vocabulary import DTYPE_ALIASES, DTYPES


class SourceKind(StrEnum):
    """Where a figure comes from: a vendor document, or a measurement on a named machine."""

    VENDOR = "vendor"
    MEASURED = "measured"


class Source(BaseModel):
    """A document (title + URL) or a measurement (``kind: measured``, the figure's note says where/when)."""

    model_config = ConfigDict(extra="forbid")
    title: str
    url: str | None = None
    kind: SourceKind = SourceKind.VENDOR


class SpecFigure(BaseModel):
    """One figure of a spec sheet.

    Attributes:
        value: the number in ``unit``; ``None`` when the vendor does not publish it.
        unit: unit of ``value``.
        source: key into the sheet's ``sources`` (``None`` only when ``value`` is ``None``).
        note: how the figure was derived (e.g. dense = half of the sparse datasheet figure).
        how_to_measure: for a ``None`` value, how to get it on the machine.
    """

    model_config = ConfigDict(extra="forbid")
    value: float | None
    unit: str
    source: str | None = None
    note: str | None = None
    how_to_measure: str | None = None


class GpuSpec(BaseModel):
    """A hardware spec sheet (wiki record of kind ``hardware_spec``)."""

    model_config = ConfigDict(extra="forbid")
    kind: str = "hardware_spec"
    id: str
    name: str
    vendor: str
    arch: str
    architecture: str | None = None
    aliases: list[str] = Field(default_factory=list)
    figures: dict[str, SpecFigure]
    sources: dict[str, Source]
    body: str = Field(default="", exclude=True)

    def figure(self, name: str) -> SpecFigure:
        """The figure ``name``.

        Raises:
            UsageError: the sheet has no such figure.
        """
        if name not in self.figures:
            raise UsageError(f"{self.name} has no figure '{name}' (known: {', '.join(sorted(self.figures))})")
        return self.figures[name]

    def peak_tflops(self, dtype: str) -> float | None:
        """Dense peak TFLOP/s for ``dtype`` (``bf16``, ``float16``, ...); ``None`` when unpublished.

        Raises:
            UsageError: unknown dtype.
        """
        return self.figure(f"peak_tflops_{normalize_dtype(dtype)}").value

    @property
    def memory_bandwidth_gbps(self) -> float | None:
        return self.figure("memory_bandwidth_gbps").value

    def cite(self, name: str) -> str:
        """``"<title> <url>"`` of the source of figure ``name`` (or how to measure it when unknown)."""
        fig = self.figure(name)
        if fig.source is None:
            return f"unknown; measure: {fig.how_to_measure or 'not documented'}"
        src = self.sources[fig.source]
        return f"{src.title}" + (f" <{src.url}>" if src.url else "")


def normalize_dtype(dtype: str) -> str:
    """``"bfloat16"`` / ``"torch.bfloat16"`` -> ``"bf16"``.

    Raises:
        UsageError: not a known dtype.
    """
    key = dtype.strip().lower().removeprefix("torch.")
    key = DTYPE_ALIASES.get(key, key)
    if key not in (*DTYPES, "fp64_tensor"):
        raise UsageError(f"unknown dtype {dtype!r}", hint=f"use one of {', '.join(DTYPES)}")
    return key


def normalize_name(name: str) -> str:
    """GPU name as compared by :func:`lookup`: lower case, no spaces, ``_`` or ``-`` (``H200-SXM`` -> ``h200sxm``)."""
    return re.sub(r"[\s_\-]+", "", name.strip().lower())


_norm = normalize_name


def validation_summary(exc: ValidationError) -> str:
    """One line for a pydantic error: the first problem with its field path, and how many more."""
    errors = exc.errors()
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "front matter"
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return " ".join(f"field {where}: {first.get('msg', 'invalid')}{more}".split())


def parse_sheet(text: str, origin: str) -> GpuSpec:
    """Parse one spec-sheet record.

    Raises:
        ValueError: (one line) malformed front matter, a figure citing an unknown source, or a known
            value without a source.
    """
    try:
        front, body = frontmatter.split(text)
        spec = GpuSpec.model_validate({**front})
    except frontmatter.FrontMatterError as exc:
        raise ValueError(f"{origin}: {' '.join(str(exc).split())}") from None
    except ValidationError as exc:
        raise ValueError(f"{origin}: {validation_summary(exc)}") from None
    for key, fig in spec.figures.items():
        if fig.value is not None and fig.source is None:
            raise ValueError(f"{origin}: figure {key} has a value but no source")
        if fig.source is not None and fig.source not in spec.sources:
            raise ValueError(f"{origin}: figure {key} cites unknown source {fig.source!r}")
        if fig.value is None and fig.source is None and not fig.how_to_measure:
            raise ValueError(f"{origin}: unknown figure {key} must say how to measure it")
    spec.body = body
    return spec


@cache
def builtin_specs() -> tuple[GpuSpec, ...]:
    """Every spec sheet shipped in the package (read once)."""
    folder = resources.files("kernelopt.wiki").joinpath("records").joinpath("hardware")
    sheets = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".md"):
            sheets.append(parse_sheet(entry.read_text(encoding="utf-8"), entry.name))
    return tuple(sheets)


def _index(sheets: tuple[GpuSpec, ...]) -> dict[str, GpuSpec]:
    index: dict[str, GpuSpec] = {}
    for s in sheets:
        for alias in (s.id, s.name, *s.aliases):
            index[_norm(alias)] = s
    return index


def lookup(name: str, sheets: tuple[GpuSpec, ...] | None = None) -> GpuSpec:
    """The spec sheet of GPU ``name`` (id, full name or alias, case and separators ignored).

    Raises:
        UsageError: no sheet matches exactly; siblings are never substituted.
    """
    sheets = builtin_specs() if sheets is None else sheets
    found = _index(sheets).get(_norm(name))
    if found is None:
        known = ", ".join(s.id for s in sheets)
        raise UsageError(f"unknown GPU {name!r}: no spec sheet", hint=f"known: {known}")
    return found


def known_gpus() -> list[dict[str, Any]]:
    return [{"id": s.id, "name": s.name, "arch": s.arch, "aliases": s.aliases} for s in builtin_specs()]
