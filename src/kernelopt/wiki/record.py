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

Pitfalls add ``tried`` (what was tried), ``fails_when`` (conditions) and ``why``.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.actions import ActionCategory


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
    """A technique or pitfall record (hardware sheets use :class:`kernelopt.hardware.specs.GpuSpec`)."""

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
    sources: list[RecordSource] = Field(default_factory=list)
    body: str = Field(default="", exclude=True)
    path: str | None = Field(default=None, exclude=True)
