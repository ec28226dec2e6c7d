"""The gpu-wiki record model: one Markdown file with YAML front matter per record.

Kinds: ``technique`` (a change that answers symptoms), ``pitfall`` (an anti-strategy: what fails,
when, why) and ``hardware_spec`` (a GPU spec sheet, see :mod:`kernelopt.hardware.specs`). Technique
and pitfall front matter::

    ---
    kind: technique            # or pitfall
    id: nv-triton-num-warps-increase
    title: Raise num_warps to hide memory latency
    scope:
      vendor: [nvidia]         # nvidia, amd, or both; empty = vendor-neutral
      arch: [sm_80, sm_90]     # empty = any architecture of those vendors
      framework: [triton]      # triton, cuda, hip, torch; empty = any
    symptoms: [latency_bound]  # Symptom ids (kernelopt.evidence.symptoms)
    metrics: [smsp__average_warp_latency_issue_stalled_long_scoreboard]  # profiler metric names
    action_category: num_warps # ActionCategory (techniques only)
    change:
      triton: "..."            # the concrete change for Triton
      cuda: "..."              # ... for CUDA / HIP
    expected_impact: "..."
    risks: "..."
    sources:
      - {title: "...", url: "https://..."}
    ---
    Free text: explanation in our own words.

Pitfalls add ``tried`` (what was tried), ``fails_when`` (conditions) and ``why``. Either kind may
list ``related`` record ids (e.g. a pitfall names the technique it warns about).

Controlled vocabularies: ``kind`` is a :class:`RecordKind`; ``action_category`` an
:class:`~kernelopt.actions.ActionCategory`; ``symptoms`` are
:class:`~kernelopt.evidence.symptoms.Symptom` ids; ``scope.vendor`` is a
:class:`~kernelopt.vocabulary.Vendor` word; ``scope.framework`` a :class:`~kernelopt.vocabulary.Framework`
word; ``scope.arch`` names a CUDA SM target (``sm_90``) or an
AMD LLVM target (``gfx942``), see :data:`ARCH_PATTERN`. The checks live in :mod:`kernelopt.wiki.rules`.
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.actions import ActionCategory
from kernelopt.errors import KerneloptError

ARCH_PATTERN = re.compile(r"^(sm_\d{2,3}[a-z]?|gfx[0-9a-f]{3,4})$")
"""An architecture id: CUDA SM target (``sm_80``, ``sm_90a``) or AMD LLVM target (``gfx942``)."""


class WikiError(KerneloptError):
    """A gpu-wiki record or directory is unusable (malformed file, unknown word, duplicate id)."""

    exit_code = 2


class RecordKind(StrEnum):
    TECHNIQUE = "technique"
    PITFALL = "pitfall"
    HARDWARE_SPEC = "hardware_spec"


class Scope(BaseModel):
    """Where a record applies. Empty lists mean "any" (architecture-neutral)."""

    model_config = ConfigDict(extra="forbid")
    vendor: list[str] = Field(default_factory=list)
    arch: list[str] = Field(default_factory=list)
    framework: list[str] = Field(default_factory=list)

    @property
    def neutral(self) -> bool:
        """True when the record names neither a vendor nor an architecture (applies to any GPU)."""
        return not self.vendor and not self.arch


class RecordSource(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str
    url: str | None = None


class Change(BaseModel):
    model_config = ConfigDict(extra="forbid")
    triton: str | None = None
    cuda: str | None = None
    hip: str | None = None


class WikiRecord(BaseModel):
    """A technique or pitfall record.

    Hardware sheets are parsed as :class:`kernelopt.hardware.specs.GpuSpec`; the loader also offers a
    read-only ``WikiRecord`` view of each sheet (kind ``hardware_spec``, figures rendered in ``body``) so
    that search can return them. ``body`` and ``path`` are not part of the front matter.
    """

    model_config = ConfigDict(extra="forbid")
    kind: RecordKind
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    title: str
    scope: Scope = Field(default_factory=Scope)
    symptoms: list[str] = Field(default_factory=list)
    metrics: list[str] = Field(default_factory=list)
    action_category: ActionCategory | None = None
    change: Change | None = None
    expected_impact: str | None = None
    risks: str | None = None
    tried: str | None = None
    fails_when: str | None = None
    why: str | None = None
    related: list[str] = Field(default_factory=list)
    sources: list[RecordSource] = Field(default_factory=list)
    body: str = Field(default="", exclude=True)
    path: str | None = Field(default=None, exclude=True)
