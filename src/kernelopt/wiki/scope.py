"""Which wiki records apply to which target: the hard scope filter of search (pure, no I/O).

A query target is resolved from what the user typed: an architecture id (``sm_90``, ``sm90``, ``9.0``,
``gfx942``, ``gfx942:sramecc+:xnack-``), an architecture family name (``hopper``, ``cdna3``) or a GPU
name/alias (``h200``, ``MI300X``), the latter two through the hardware sheets. A record applies when
each of its non-empty scope lists admits the target: a Hopper query never returns a record scoped to
AMD only; records that name no vendor and no architecture are *neutral* and apply everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from kernelopt.errors import UsageError
from kernelopt.hardware.specs import GpuSpec, lookup
from kernelopt.vocabulary import FRAMEWORKS, VENDORS, Vendor
from kernelopt.wiki.record import Scope


class QueryScope(BaseModel):
    """The target of a query; ``None`` fields do not filter.

    Attributes:
        vendor: ``nvidia`` or ``amd``.
        arch: base architecture id (``sm_90``, ``gfx942``).
        framework: ``triton``, ``cuda``, ``hip`` or ``torch``.
        gpu: id of the spec sheet the target was resolved from, when a GPU name was given.
        family: architecture family name (``Hopper``, ``CDNA3``) when known from the sheets.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    vendor: str | None = None
    arch: str | None = None
    framework: str | None = None
    gpu: str | None = None
    family: str | None = None


def base_arch(arch: str) -> str:
    """Canonical architecture id: lower case, no feature suffixes (``sm_90a`` -> ``sm_90``,
    ``gfx942:sramecc+:xnack-`` -> ``gfx942``, ``sm90`` -> ``sm_90``, ``9.0`` -> ``sm_90``)."""
    a = arch.strip().lower().split(":")[0]
    m = re.fullmatch(r"(\d{1,2})\.(\d)", a)
    if m:
        return f"sm_{m.group(1)}{m.group(2)}"
    m = re.fullmatch(r"sm_?(\d{2,3})[a-z]?", a)
    if m:
        return f"sm_{m.group(1)}"
    return a


def _family_arch(name: str, sheets: Sequence[GpuSpec]) -> GpuSpec | None:
    key = re.sub(r"[\s_\-]+", "", name.lower())
    for s in sheets:
        if s.architecture and re.sub(r"[\s_\-]+", "", s.architecture.lower()) == key:
            return s
    return None


def family_names(sheets: Iterable[GpuSpec]) -> dict[str, str]:
    """Base arch id -> architecture family name, from the sheets (``sm_90`` -> ``Hopper``)."""
    out: dict[str, str] = {}
    for s in sheets:
        if s.architecture:
            out.setdefault(base_arch(s.arch), s.architecture)
    return out


def resolve_scope(
    *,
    arch: str | None = None,
    vendor: str | None = None,
    framework: str | None = None,
    sheets: Sequence[GpuSpec] = (),
) -> QueryScope:
    """Turn the user's words into a :class:`QueryScope`.

    Args:
        arch: architecture id, family name or GPU name/alias; ``None`` for any.
        vendor: ``nvidia``/``amd``; must agree with ``arch`` when both are given.
        framework: ``triton``/``cuda``/``hip``/``torch``.
        sheets: hardware sheets used to resolve GPU and family names.

    Raises:
        UsageError: an unknown architecture/GPU, vendor or framework, or a vendor contradicting arch.
    """
    q_vendor = vendor.strip().lower() if vendor else None
    if q_vendor is not None and q_vendor not in VENDORS:
        raise UsageError(f"unknown vendor {vendor!r}", hint=f"use one of {', '.join(VENDORS)}")
    q_framework = framework.strip().lower() if framework else None
    if q_framework is not None and q_framework not in FRAMEWORKS:
        raise UsageError(f"unknown framework {framework!r}", hint=f"use one of {', '.join(FRAMEWORKS)}")
    q_arch = gpu = family = None
    if arch:
        a = base_arch(arch)
        families = family_names(sheets)
        if re.fullmatch(r"sm_\d{2,3}|gfx[0-9a-f]{3,4}", a):
            q_arch = a
        else:
            sheet = _family_arch(arch, sheets)
            if sheet is None:
                try:
                    sheet = lookup(arch, tuple(sheets))
                except UsageError:
                    known = sorted({*families.values(), *(s.id for s in sheets)})
                    raise UsageError(
                        f"unknown architecture or GPU {arch!r}",
                        hint="give an sm_NN / gfxNNN target, a family or a GPU: " + ", ".join(known),
                    ) from None
                gpu = sheet.id
            q_arch = base_arch(sheet.arch)
        family = families.get(q_arch)
        a_vendor = Vendor.of_arch(q_arch)
        if q_vendor is not None and a_vendor is not None and q_vendor != a_vendor:
            raise UsageError(f"vendor {q_vendor} contradicts architecture {q_arch} ({a_vendor})")
        q_vendor = a_vendor or q_vendor
    return QueryScope(vendor=q_vendor, arch=q_arch, framework=q_framework, gpu=gpu, family=family)


def applies(scope: Scope, query: QueryScope) -> bool:
    """True when a record with ``scope`` may be returned for ``query`` (the hard filter)."""
    if query.vendor and scope.vendor and query.vendor not in scope.vendor:
        return False
    if query.arch and scope.arch and query.arch not in {base_arch(a) for a in scope.arch}:
        return False
    return not (query.framework and scope.framework and query.framework not in scope.framework)


def specificity(scope: Scope, query: QueryScope) -> float:
    """How specifically a record targets the query: 1 for its exact architecture, 0.5 for its vendor,
    0 for a neutral record or an unscoped query."""
    if query.arch and query.arch in {base_arch(a) for a in scope.arch}:
        return 1.0
    if query.vendor and query.vendor in scope.vendor:
        return 0.5
    return 0.0
