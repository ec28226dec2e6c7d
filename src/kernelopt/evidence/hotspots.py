"""Hotspots: where warp-stall samples concentrate, by source line and by SASS instruction.

Nsight Compute's PC sampling (Source Counters section) records, per SASS address, how many samples
found a warp there and why it was stalled (``smsp__pcsamp_warps_issue_stalled_<reason>``). Summing
addresses that map to the same ``file:line`` gives the source-line view. Pure: no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import PurePath

from kernelopt.evidence.model import Hotspot

SAMPLE_COUNT = "smsp__pcsamp_sample_count"
_STALL_PREFIX = "smsp__pcsamp_warps_issue_stalled_"


def _reason_name(metric: str) -> str | None:
    if not metric.startswith(_STALL_PREFIX) or metric.endswith("_not_issued"):
        return None
    reason = metric[len(_STALL_PREFIX) :]
    return "no_instruction" if reason == "no_instructions" else reason


_LIBRARY_MARKS = ("site-packages", "dist-packages", "/triton/language/", "/include/cuda", "/cuda/include/")


def is_library_path(path: str, source_root: str | None) -> bool:
    """True for source outside the user's code: installed packages (Triton's ``tl.max`` inlines from
    ``triton/language/standard.py``), CUDA headers, or any file outside ``source_root`` when one is given."""
    if source_root:
        try:
            PurePath(path).relative_to(source_root)
            return False
        except ValueError:
            return True
    return any(mark in path for mark in _LIBRARY_MARKS)


def display_path(path: str, source_root: str | None) -> str:
    """``path`` relative to ``source_root`` when it lies below it, else as given."""
    if source_root:
        try:
            return str(PurePath(path).relative_to(source_root))
        except ValueError:
            pass
    return path


def rank_hotspots(
    per_pc: dict[str, dict[int, float]],
    *,
    sass: dict[int, str],
    source_lines: dict[int, tuple[str, int]],
    source_text: dict[str, list[str]],
    function_pc: int | None,
    source_root: str | None = None,
    top_lines: int = 5,
    top_library_lines: int = 3,
    top_instructions: int = 10,
) -> list[Hotspot]:
    """Top source lines, then top SASS instructions, by stall samples.

    Args:
        per_pc: source-level counters by metric name and SASS address (PC sampling metrics among them).
        sass: SASS text by address.
        source_lines: address -> (file, line) when the report has line information.
        source_text: file -> its lines, when the source was imported into the report.
        function_pc: address of the function's first instruction (SASS locations are printed as offsets).
        source_root: folder that source paths are shown relative to (the workspace).
        top_lines: how many source lines of the user's code to return.
        top_library_lines: how many library source lines (installed packages, headers) to return.
        top_instructions: how many SASS instructions to return.

    Returns:
        Hotspots with ``share_pct`` of all samples of the kernel and the dominant stall reason (the
        profiler's name, ``selected`` excluded because it is not a stall); empty without PC sampling data.
        Source lines of the user's code come first (by samples), then library lines (Nsight Compute
        attributes inlined library code such as Triton's reductions to the library file, not to the
        call site), then SASS instructions.
    """
    samples = per_pc.get(SAMPLE_COUNT) or {}
    total = sum(samples.values())
    if total <= 0:
        return []
    reasons = {r: per_pc[m] for m in per_pc if (r := _reason_name(m)) is not None}

    def dominant(addresses: list[int]) -> str | None:
        sums = {r: sum(v.get(a, 0.0) for a in addresses) for r, v in reasons.items() if r != "selected"}
        best = max(sums.items(), key=lambda kv: kv[1], default=(None, 0.0))
        return best[0] if best[1] > 0 else None

    out: list[Hotspot] = []
    by_line: dict[tuple[str, int], list[int]] = defaultdict(list)
    for addr in samples:
        if addr in source_lines:
            by_line[source_lines[addr]].append(addr)
    ranked = sorted(by_line.items(), key=lambda kv: -sum(samples[a] for a in kv[1]))
    user = [kv for kv in ranked if not is_library_path(kv[0][0], source_root)]
    library = [kv for kv in ranked if is_library_path(kv[0][0], source_root)]
    for (file, line), addrs in user[:top_lines] + library[:top_library_lines]:
        n = sum(samples[a] for a in addrs)
        if n <= 0:
            continue
        lines = source_text.get(file) or []
        text = lines[line - 1].strip() if 0 < line <= len(lines) else None
        out.append(
            Hotspot(
                location=f"{display_path(file, source_root)}:{line}",
                text=text,
                samples=n,
                share_pct=100.0 * n / total,
                dominant_stall=dominant(addrs),
            )
        )
    for addr, n in sorted(samples.items(), key=lambda kv: -kv[1])[:top_instructions]:
        if n <= 0:
            continue
        offset = addr - function_pc if function_pc is not None and addr >= function_pc else addr
        out.append(
            Hotspot(
                location=f"0x{offset:04x}",
                text=sass.get(addr),
                samples=n,
                share_pct=100.0 * n / total,
                dominant_stall=dominant([addr]),
            )
        )
    return out
