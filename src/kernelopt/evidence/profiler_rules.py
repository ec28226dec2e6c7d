"""Nsight Compute's own guided analysis: clean, rank and summarize its rule results and source markers.

Nsight Compute evaluates rule files (``sections/*.py``) on every result and stores their messages, focus
metrics and estimated speedups in the report; it also places source markers on the lines and SASS
instructions a rule blames. This module ranks both so that the planner sees the profiler's most
valuable advice first. Pure: no I/O.
"""

from __future__ import annotations

import re

from kernelopt.evidence.model import ProfilerRuleResult, SourceMarker

_URL_LINK = re.compile(r"@url:([^:@]+):[^@]*@")
_SECTION_LINK = re.compile(r"@section:[^:@]+:([^@]+)@")
_SASS_LINK = re.compile(r"@sass:[^:@]+:([^@]+)@")
_SOURCE_LINK = re.compile(r"@source:[^:@]+:\d+:([^@]+)@")
_SHARE = re.compile(r"(\d+(?:\.\d+)?)\s*%")

# Message types in the order the planner should read them (ncu_report.MsgType values by name).
_KIND_RANK = {"OPTIMIZATION": 0, "WARNING": 1, "ERROR": 2, "INFO": 3, "OK": 4, "NONE": 5}


def clean_text(text: str) -> str:
    """Replace Nsight Compute's link markup (``@section:Id:Text@``, ``@url:Text:https://...@``) by its text."""
    out = _URL_LINK.sub(r"\1", text)
    out = _SECTION_LINK.sub(r"\1", out)
    out = _SASS_LINK.sub(r"\1", out)
    out = _SOURCE_LINK.sub(r"\1", out)
    return " ".join(out.split())


def stated_share_pct(message: str) -> float | None:
    """The first percentage a marker message states ("responsible for 46.3% of all warp stalls")."""
    m = _SHARE.search(message)
    return float(m.group(1)) if m else None


def rank_rule_results(results: list[ProfilerRuleResult]) -> list[ProfilerRuleResult]:
    """Order the profiler's rule results: actionable first, then by estimated speedup (largest first).

    Optimization messages come before warnings and informational ones; within a kind, a result with an
    estimated speedup comes before one without, larger speedups first; ties keep the report's order.
    """
    indexed = list(enumerate(results))

    def key(item: tuple[int, ProfilerRuleResult]) -> tuple[int, float, int]:
        i, r = item
        kind = _KIND_RANK.get((r.kind or "NONE").upper(), 5)
        speedup = -(r.estimated_speedup_pct if r.estimated_speedup_pct is not None else -1.0)
        return kind, speedup, i

    return [r for _, r in sorted(indexed, key=key)]


def rank_source_markers(markers: list[SourceMarker], rules: list[ProfilerRuleResult]) -> list[SourceMarker]:
    """Order source markers by the estimated speedup of the rule that placed them, then by stated share.

    Markers of the same rule are ordered by the share their message states (a line "responsible for 46%
    of all warp stalls" before one responsible for 20%); source-line markers come before SASS ones at
    equal rank because a line of ``kernel.py`` is what Stage 3 edits.
    """
    best: dict[str, float] = {}
    for r in rules:
        if r.estimated_speedup_pct is not None:
            best[r.rule_id] = max(best.get(r.rule_id, 0.0), r.estimated_speedup_pct)
    indexed = list(enumerate(markers))

    def key(item: tuple[int, SourceMarker]) -> tuple[float, float, int, int]:
        i, m = item
        return (
            -best.get(m.rule_id, 0.0),
            -(m.share_pct if m.share_pct is not None else 0.0),
            0 if m.kind == "source" else 1,
            i,
        )

    return [m for _, m in sorted(indexed, key=key)]
