"""Which items of a batch ``--problems`` names: a part of a level run at a time (pure: no I/O).

A spec is comma-separated parts: a problem id (``19``), a range of ids (``1-50``, both ends included) or a
problem's name (``19_ReLU``; a folder's name in the folder layout). Batches run one part at a time into one
``--out`` build up one table: the selection is not among the table's settings, so the same command with the next
part resumes it, and its rows keep the level's order. In KernelBench's layout the rows of runs files that pair
with no problem id (a file named otherwise, a second file for one problem and sample) come with every part, so a
batch run in parts still says them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from kernelopt.batch.problems import BatchItem
from kernelopt.errors import UsageError

_RANGE = re.compile(r"^(\d+)\s*-\s*(\d+)$")


class Selection(BaseModel):
    """The problems a ``--problems`` spec names: ids (ranges expanded) and names."""

    model_config = ConfigDict(frozen=True)

    ids: frozenset[int]
    names: frozenset[str]


def parse_selection(spec: str) -> Selection:
    """``"1-50,97,19_ReLU"`` -> ids 1..50 and 97, name ``19_ReLU``.

    Raises:
        UsageError: an empty spec or part, or a range that runs backwards (``50-1``).
    """
    ids: set[int] = set()
    names: set[str] = set()
    parts = [p.strip() for p in spec.split(",")]
    if not any(parts):
        raise UsageError("--problems names no problem", hint="give ids, ranges or names: --problems 1-50,97")
    for part in parts:
        if not part:
            raise UsageError(f"--problems {spec!r} has an empty part", hint="separate ids, ranges or names by commas")
        if part.isdigit():
            ids.add(int(part))
        elif (match := _RANGE.match(part)) is not None:
            lo, hi = int(match.group(1)), int(match.group(2))
            if hi < lo:
                raise UsageError(f"--problems {part} runs backwards", hint=f"write it {hi}-{lo}")
            ids.update(range(lo, hi + 1))
        else:
            names.add(part)
    return Selection(ids=frozenset(ids), names=frozenset(names))


def id_ranges(ids: Sequence[int]) -> str:
    """Sorted ids written as --problems takes them: runs as ranges, the rest one by one (``1-50, 52, 97``); the
    batch of ids 19, 23 and 36 read "ids 19-36" before."""
    runs: list[list[int]] = []
    for i in ids:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs)


def select(items: Sequence[BatchItem], spec: str | None, *, kernelbench: bool) -> list[BatchItem]:
    """The items ``spec`` names (all of them when ``spec`` is ``None``), in their order.

    Raises:
        UsageError: ``spec`` is malformed, or names none of the batch's problems (exit 2, before anything runs).
    """
    if spec is None:
        return list(items)
    sel = parse_selection(spec)
    named = [i for i in items if (i.problem_id is not None and i.problem_id in sel.ids) or i.problem in sel.names]
    if not named:
        ids = sorted({i.problem_id for i in items if i.problem_id is not None})
        problems = sorted({i.problem for i in items})
        shown = ", ".join(problems[:5]) + (f", ... ({len(problems)} in all)" if len(problems) > 5 else "")
        held = f"ids {id_ranges(ids)}" if ids else f"names {shown}"
        if sel.ids and not ids:  # a folder's problems are named by their folders (01_relu), not numbered
            held += "; ids number the problems of KernelBench's layout (--kernels), here give folder names"
        raise UsageError(f"--problems {spec} names none of the batch's problems", hint=f"it has {held}")
    keep = {i.key for i in named}
    unpaired = {i.key for i in items if kernelbench and i.problem_id is None}  # said with every part
    return [i for i in items if i.key in keep or i.key in unpaired]
