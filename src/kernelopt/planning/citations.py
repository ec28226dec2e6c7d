"""Does an evidence line cite a measured value? Facts of a profile summary and the matching rule (pure).

A plan's evidence line is grounded when it names a value that Stage 1 measured: a number in the line
equals (to the precision written) a numeric value of ``profiles/v<N>/summary.json`` and the line also
names that value (its metric name, the profiler's metric name, the stall reason, the rule id, the
opcode, the source location). A line may instead cite a text artifact of the profile folder (a CSV of
counters, ``kernel.s``): then it names the file, and one line of that file holds both a number of the
evidence line and one of its identifiers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kernelopt.evidence.model import ProfileSummary

# Containers of the summary schema: their names never name a value themselves.
_CONTAINERS = {
    "kernels",
    "metrics",
    "findings",
    "evidence",
    "profiler_rules",
    "hotspots",
    "isa",
    "instruction_counts",
    "stall_breakdown_pct",
    "artifacts",
    "value",
    "focus_metrics",
    "action_categories",
}
# Fields of a record that identify the value next to them.
_ID_FIELDS = ("metric", "rule_id", "location", "dominant_stall")
_NUMBER_RE = re.compile(r"(?<![\w.])[-+]?\d(?:[\d,]*\d)?(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])")
_METRIC_NAME_RE = re.compile(r"[A-Za-z]\w*[._][\w.]*")
_IDENT_RE = re.compile(r"[A-Za-z_][\w.\-:/\[\]]*[\w\]]")
# Values match when equal at the precision written, or within this relative difference (a value
# printed with 4 significant digits, e.g. by EvidenceItem.render, is within 0.05 %; 0.5 % leaves room
# for a person rounding 88.04 to 88).
REL_TOLERANCE = 0.005


@dataclass(frozen=True)
class Fact:
    """One numeric value of the summary and the names that identify it.

    Attributes:
        names: lower-case identifiers (metric, stall reason, rule id, location, ...).
        value: the number.
        where: its path in summary.json (``kernels[0].metrics.dram_throughput_pct``).
    """

    names: tuple[str, ...]
    value: float
    where: str


def _norm(text: str) -> str:
    return re.sub(r"[\s_]+", "_", text.strip().lower())


def _to_float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        m = _NUMBER_RE.fullmatch(value.strip())
        if m:
            return float(value.strip().replace(",", ""))
    return None


def summary_facts(summary: ProfileSummary) -> list[Fact]:
    """Every numeric value of ``summary`` with the names that identify it."""
    facts: list[Fact] = []

    def walk(node: Any, path: list[str | int], in_metrics: bool) -> None:
        if isinstance(node, dict):
            ids = [str(node[f]) for f in _ID_FIELDS if isinstance(node.get(f), str)]
            if in_metrics and isinstance(node.get("source"), str):  # Metric.source: profiler metric names
                ids += [t for t in re.split(r"[\s,;+/()]+", node["source"]) if _METRIC_NAME_RE.fullmatch(t)]
            for key, child in node.items():
                sub = [*path, key]
                if isinstance(child, dict | list):
                    walk(child, sub, in_metrics or key == "metrics")
                    continue
                num = _to_float(child)
                if num is None:
                    continue
                strings = [p for p in sub[-2:] if isinstance(p, str) and p not in _CONTAINERS]
                names = tuple(dict.fromkeys(_norm(n) for n in [*strings, *ids] if len(n) >= 3))
                if names:
                    facts.append(Fact(names, num, _where(sub)))
        elif isinstance(node, list):
            for i, child in enumerate(node):
                walk(child, [*path, i], in_metrics)

    walk(summary.model_dump(mode="json"), [], False)
    return facts


def _where(path: list[str | int]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


def numbers(text: str) -> list[tuple[float, int]]:
    """Numbers written in ``text`` as (value, decimals written); digits inside identifiers are skipped."""
    out = []
    for m in _NUMBER_RE.finditer(text):
        raw = m.group(0).replace(",", "")
        mantissa = re.split(r"[eE]", raw)[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        try:
            out.append((float(raw), decimals))
        except ValueError:
            continue
    return out


def same_value(written: float, decimals: int, measured: float) -> bool:
    """True when ``written`` (with ``decimals`` digits after the point) states ``measured``."""
    if abs(written - measured) <= 0.5 * 10 ** (-decimals) + 1e-12:
        return True
    return measured != 0 and abs(written - measured) / abs(measured) <= REL_TOLERANCE


def cited_fact(line: str, facts: list[Fact]) -> Fact | None:
    """The first fact that ``line`` names and states, or ``None``."""
    norm = _norm(line)
    written = numbers(line)
    if not written:
        return None
    for fact in facts:
        if not any(n in norm for n in fact.names):
            continue
        if any(same_value(x, d, fact.value) for x, d in written):
            return fact
    return None


def cites_text_artifact(line: str, artifact_names: tuple[str, ...], text: str) -> bool:
    """True when ``line`` names the artifact and one line of ``text`` holds one of its numbers and identifiers.

    Args:
        line: the evidence line.
        artifact_names: ways the line may name the file (``profiles/v3/pmc/counters.csv``,
            ``pmc/counters.csv``, ``counters.csv``).
        text: the artifact's text.
    """
    low = line.lower()
    if not any(name.lower() in low for name in artifact_names):
        return False
    written = numbers(line)
    idents = {
        i.lower()
        for i in _IDENT_RE.findall(line)
        if len(i) >= 4
        and (re.search(r"[_.:\[]", i) or any(c.isupper() for c in i[1:]))
        and not any(i.lower() in n.lower() or n.lower() in i.lower() for n in artifact_names)
    }
    if not written or not idents:
        return False
    for file_line in text.splitlines():
        low_fl = file_line.lower()
        if not any(i in low_fl for i in idents):
            continue
        here = numbers(file_line)
        if any(same_value(x, d, v) for x, d in written for v, _ in here):
            return True
    return False
