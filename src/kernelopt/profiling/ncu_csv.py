"""Parse Nsight Compute CSV exports (``ncu --import R --csv --page details|raw``, ``ncu --csv --metrics``).

Two layouts exist:

- long (``--page details`` and ``--metrics`` exports): one row per metric with ``Section Name``,
  ``Metric Name``, ``Metric Unit`` and ``Metric Value`` columns; details rows carry the section's human
  label (``Duration``), ``--metrics`` rows the metric's real name; rule rows add ``Rule Name``,
  ``Rule Type``, ``Rule Description``, ``Estimated Speedup Type`` and ``Estimated Speedup``;
- wide (``--page raw``): one row per launch, one column per metric, a second row with the units.

Values are printed for people: thousands separators (``13,485``), ``n/a``, and units scaled per metric
(``us`` here, ``ms`` there; ``Mbyte`` next to ``byte``). Every value is converted to its base unit
(:mod:`kernelopt.profiling.units`); details labels are mapped to the metric the section file shows
(:data:`kernelopt.evidence.nvidia_metrics.DETAILS_LABELS`). Pure: works on text, no I/O.
"""

from __future__ import annotations

import csv
import io
import re

from kernelopt.errors import InputFileError
from kernelopt.evidence.model import ProfilerRuleResult
from kernelopt.evidence.nvidia_metrics import DETAILS_LABELS
from kernelopt.evidence.profiler_rules import clean_text
from kernelopt.evidence.raw import RawKernel, RawMetric, RawReport
from kernelopt.profiling.units import parse_number, to_base

#: Rows of the roofline chart sections (``SpeedOfLight_RooflineChart`` and the hierarchical ones) as a
#: details or section export prints them with ``--print-details all``: the body items ``Achieved`` and
#: ``Roofline`` label the metrics the chart is drawn from (sections/SpeedOfLight_RooflineChart.section,
#: ``PeakWork`` / ``PeakTraffic`` / ``AchievedWork`` / ``AchievedTraffic``). The same label in both items
#: names the same metric (the roofline's clocks are the measured ones).
ROOFLINE_LABELS: dict[str, str] = {
    "dram bandwidth": "dram__bytes.sum.per_second",
    "sm frequency": "sm__cycles_elapsed.avg.per_second",
    "dram frequency": "dram__cycles_elapsed.avg.per_second",
    "theoretical dram bytes accessible": "dram__bytes.sum.peak_sustained",
    "theoretical predicated-on ffma operations": "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2",
    "theoretical predicated-on dfma operations": "derived__sm__sass_thread_inst_executed_op_dfma_pred_on_x2",
    "predicated-on ffma operations per cycle": "derived__smsp__sass_thread_inst_executed_op_ffma_pred_on_x2",
    "predicated-on dfma operations per cycle": "derived__smsp__sass_thread_inst_executed_op_dfma_pred_on_x2",
    "predicated-on fadd thread instructions executed per cycle": (
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed"
    ),
    "predicated-on fmul thread instructions executed per cycle": (
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed"
    ),
    "predicated-on ffma thread instructions executed per cycle": (
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"
    ),
    "predicated-on dadd thread instructions executed per cycle": (
        "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed"
    ),
    "predicated-on dmul thread instructions executed per cycle": (
        "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed"
    ),
    "predicated-on dfma thread instructions executed per cycle": (
        "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed"
    ),
}


def details_metric_name(section: str, label: str, body_item: str | None = None) -> str:
    """The metric a details/section row shows: the section file's metric for known rows, the label
    itself when it is a metric name, else ``details:<section>/<body item>/<label>`` (kept, never dropped).

    Section names are matched both as the display name (``GPU Speed Of Light Roofline Chart``) and as
    the identifier (``SpeedOfLight_RooflineChart``); roofline rows by :data:`ROOFLINE_LABELS`.
    """
    name = DETAILS_LABELS.get((section, label))
    if name is not None:
        return name
    if "__" in label or "." in label:
        return label
    if "roofline" in section.lower():
        mapped = ROOFLINE_LABELS.get(" ".join(label.lower().replace("\u2011", "-").split()))
        if mapped is not None:
            return mapped
    item = f"{body_item}/" if body_item else ""
    return f"details:{section}/{item}{label}"


_RULE_TYPES = {"OPT": "OPTIMIZATION", "WRN": "WARNING", "INF": "INFO", "ERR": "ERROR", "OK": "OK"}
_DIMS = re.compile(r"^\(?\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)?$")
_ATTRIBUTE_COLUMNS = {
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Kernel Time",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Metric Value",
    "Rule Name",
    "Rule Type",
    "Rule Description",
    "Estimated Speedup Type",
    "Estimated Speedup",
    "Body Item Label",
}


def is_ncu_csv(text: str) -> bool:
    """True when ``text`` starts with an Nsight Compute CSV header (``"ID","Process ID",...``)."""
    head = text.lstrip("\ufeff").splitlines()[:1]
    if not head:
        return False
    first = head[0]
    return '"ID"' in first and '"Kernel Name"' in first


def _dims(text: str | None) -> list[int] | None:
    if not text:
        return None
    m = _DIMS.match(text.strip())
    return [int(g) for g in m.groups()] if m else None


def _number(text: str, where: str) -> float | None:
    try:
        return parse_number(text)
    except ValueError:
        raise InputFileError(where, f"unparsable value {text!r}") from None


def _kernel_for(kernels: dict[str, RawKernel], row: dict[str, str], artifact: str) -> RawKernel:
    key = row.get("ID", "").strip()
    k = kernels.get(key)
    if k is None:
        name = row.get("Kernel Name", "").strip()
        k = RawKernel(
            name=name,
            function_name=name.split("(", 1)[0].split("<", 1)[0].replace("void ", "").strip() or None,
            launch_id=int(key) if key.isdigit() else None,
            artifact=artifact,
            grid=_dims(row.get("Grid Size")),
            block=_dims(row.get("Block Size")),
        )
        cc = row.get("CC", "").strip()
        if cc:
            k.strings["device__attribute_compute_capability"] = cc
        # The launch configuration columns hold what the Launch Statistics section would.
        for dims, metric in ((k.grid, "launch__grid_size"), (k.block, "launch__block_size")):
            if dims is not None:
                k.metrics[metric] = RawMetric(name=metric, value=float(dims[0] * dims[1] * dims[2]))
        kernels[key] = k
    return k


def _parse_long(rows: list[dict[str, str]], artifact: str) -> list[RawKernel]:
    kernels: dict[str, RawKernel] = {}
    for i, row in enumerate(rows, start=2):
        k = _kernel_for(kernels, row, artifact)
        rule = (row.get("Rule Name") or "").strip()
        label = (row.get("Metric Name") or "").strip()
        section = (row.get("Section Name") or "").strip()
        if rule and not label:
            speedup_text = (row.get("Estimated Speedup") or "").strip()
            speedup = _number(speedup_text, f"{artifact}:{i}") if speedup_text else None
            stype = (row.get("Estimated Speedup Type") or "").strip().upper() or None
            k.rules.append(
                ProfilerRuleResult(
                    rule_id=rule,
                    section=section or None,
                    kind=_RULE_TYPES.get((row.get("Rule Type") or "").strip().upper(), row.get("Rule Type")),
                    message=clean_text(row.get("Rule Description") or ""),
                    estimated_speedup_pct=speedup,
                    speedup_type=stype,
                )
            )
            continue
        if not label:
            continue
        raw_value = (row.get("Metric Value") or "").strip()
        unit = (row.get("Metric Unit") or "").strip()
        name = details_metric_name(section, label, (row.get("Body Item Label") or "").strip() or None)
        try:
            number = parse_number(raw_value)
        except ValueError:
            k.strings[name] = raw_value
            continue
        if number is None:
            k.metrics.setdefault(name, RawMetric(name=name, value=None, unit=unit, label=label))
            continue
        base, base_unit = to_base(number, unit)
        k.metrics[name] = RawMetric(name=name, value=base, unit=base_unit, label=label)
    return list(kernels.values())


def _parse_wide(header: list[str], body: list[list[str]], artifact: str) -> list[RawKernel]:
    units: dict[str, str] = {}
    rows = body
    if rows and not rows[0][header.index("ID")].strip():
        units = dict(zip(header, rows[0], strict=False))
        rows = rows[1:]
    kernels: dict[str, RawKernel] = {}
    for values in rows:
        row = dict(zip(header, values, strict=False))
        k = _kernel_for(kernels, row, artifact)
        for col, text in row.items():
            if col in _ATTRIBUTE_COLUMNS:
                continue
            try:
                number = parse_number(text)
            except ValueError:
                k.strings[col] = text.strip()
                continue
            if number is None:
                k.metrics[col] = RawMetric(name=col, value=None, unit=units.get(col, ""))
                continue
            base, base_unit = to_base(number, units.get(col, ""))
            k.metrics[col] = RawMetric(name=col, value=base, unit=base_unit)
    return list(kernels.values())


def parse_ncu_csv(text: str, *, artifact: str) -> RawReport:
    """Parse an Nsight Compute CSV export.

    Args:
        text: the file's content.
        artifact: how evidence should name the file.

    Raises:
        InputFileError: not an Nsight Compute CSV, cut off (no final line break, a row wider than the
            header, or a metric row without its value), no launch in it, or an unparsable number.
    """
    text = text.lstrip("\ufeff")
    # ncu prints "==PROF==" / "==WARNING==" lines before the table when stdout was captured.
    lines = [ln for ln in text.splitlines() if not ln.startswith("==")]
    reader = csv.reader(io.StringIO("\n".join(lines)))
    table = [r for r in reader if r]
    if not table or "ID" not in table[0] or "Kernel Name" not in table[0]:
        raise InputFileError(artifact, "not an Nsight Compute CSV export (no ID / Kernel Name header)")
    header = table[0]
    if not text.endswith(("\n", "\r")):
        raise InputFileError(
            artifact,
            "truncated: the export ends inside a line (no final line break)",
            hint="the copy was cut off; export again with ncu --import REPORT --csv",
        )
    # Metric rows of a details export stop before the rule columns; no row reaches past the header,
    # and a metric row always reaches its value.
    long_format = "Metric Value" in header
    least = header.index("Metric Value") + 1 if long_format else len(header)
    for i, row in enumerate(table[1:], start=2):
        if len(row) > len(header) or len(row) < least:
            raise InputFileError(
                artifact,
                f"malformed CSV: row {i} has {len(row)} fields but the header has {len(header)}",
                hint="the export is truncated or was edited; export again with ncu --import REPORT --csv",
            )
    if "Metric Name" in header and "Metric Value" in header:
        kernels = _parse_long([dict(zip(header, r, strict=False)) for r in table[1:]], artifact)
    else:
        kernels = _parse_wide(header, table[1:], artifact)
    if not kernels:
        raise InputFileError(artifact, "the CSV export holds no profiled launch")
    return RawReport(path=artifact, tool="ncu (CSV export)", kernels=kernels)
