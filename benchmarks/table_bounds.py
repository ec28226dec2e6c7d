"""Which written forms the table and guard bounds (tablebound11) moved over a corpus, and only those.

Usage::

    PYTHONPATH=src python benchmarks/table_bounds.py DIR [DIR ...] > after.jsonl
    PYTHONPATH=<an older checkout>/src python benchmarks/table_bounds.py DIR [DIR ...] > before.jsonl
    python benchmarks/table_bounds.py --diff before.jsonl after.jsonl

``--original-passed`` (first) records the original's run beside each pick, slower and passing at every entry, as
``tune`` has it when the original passes its check (lanelift11: a table row's evidence of masked-out lanes).

Every folder under the DIRs holding kernel.py and reference.py is prepared as ``tune --device cpu`` prepares it; its
picks are each integer knob of the space doubled and halved alone (a computed one from the value it gave at the
first entry: a table), and each of those with each launch option the
launch passes or leaves to Triton (``num_warps`` doubled, ``num_stages`` one more: a GPU session's moves, which the
CPU's space leaves out). Each pick is written as ``tune`` writes it (:func:`kernelopt.tuning.folder.shaped_edit`,
no check run). One JSON line a pick: the folder, the pick, a hash of the written text (``None``: nothing written) and
the note. ``--diff`` pairs two runs and prints the picks whose text or note differs, and a count.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any


def _edit(prepared: Any, best: dict[str, Any], passed: bool = False) -> tuple[str | None, str | None]:
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.folder import FolderTuning, shaped_edit
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain
    from kernelopt.tuning.shapes import choose, per_shape

    by_shape = {s.label(): 1.0 for s in prepared.shapes}
    won = Result(config=best, outcome=Outcome.OK, latency_us=1.0, latency_us_by_shape=by_shape, retimed=True)
    now = prepared.space.current()
    original = now.as_dict() if passed and now is not None else None
    slower = {k: 2.0 for k in by_shape}
    ran = [Result(config=original, outcome=Outcome.OK, latency_us=2.0, latency_us_by_shape=slower)] if original else []
    result = SessionResult(
        best_config=best, best_latency_us=1.0, current_config=original,
        current_latency_us=2.0 if original is not None else None, results=[won, *ran], retimed=[won],
        evaluations=1 + len(ran), served=0, budget=1 + len(ran), space_size=1 + len(ran), wall_s=1.0,
        stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    shapes = per_shape([won], [won], best, original)
    tuning = FolderTuning(prepared, result, judge_gain(result), per_shape=tuple(shapes), choice=choose(shapes))
    edit, note = shaped_edit(tuning)
    return (edit.new_source if edit is not None else None), note


def _picks(prepared: Any) -> list[dict[str, Any]]:
    from kernelopt.numeric import is_int
    from kernelopt.tunables import discover_source
    from kernelopt.tuning.folder import computed_by_shape

    current = prepared.space.current()
    ran = computed_by_shape(prepared).get(prepared.shapes[0].label(), {}) if prepared.shapes else {}
    singles: list[dict[str, Any]] = []
    for knob in prepared.space.knobs:
        value = current.get(knob.name) if current is not None else None
        value = ran.get(knob.name, value) if not isinstance(value, int) else value  # a computed one: its value there
        if is_int(value):
            singles += [{knob.name: m} for m in (value * 2, value // 2) if m != value and m in knob.values]
    found = discover_source(prepared.base_source, prepared.problem.kernel_py.name, evaluation=prepared.evaluation)
    options = []
    for t in found:
        mine = t.kernel == prepared.space.kernel and t.name in ("num_warps", "num_stages") and t.editable
        if mine and isinstance(t.value, int) and t.computed is None:
            options.append({t.name: t.value * 2 if t.name == "num_warps" else t.value + 1})
    return singles + [{**s, **o} for s in singles for o in options if not set(s) & set(o)]


def run(dirs: list[Path], passed: bool = False) -> None:
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folders = sorted({k.parent for d in dirs for k in d.rglob("kernel.py") if (k.parent / "reference.py").is_file()})
    for folder in folders:
        try:
            prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
            picks = _picks(prepared)
        except Exception as exc:  # a folder tune refuses: the same before and after
            print(json.dumps({"folder": str(folder), "skipped": type(exc).__name__}), flush=True)
            continue
        for pick in picks:
            try:
                text, note = _edit(prepared, pick, passed)
            except Exception as exc:
                text, note = None, f"raised {type(exc).__name__}"
            digest = hashlib.sha256(text.encode()).hexdigest()[:12] if text is not None else None
            print(json.dumps({"folder": str(folder), "pick": pick, "text": digest, "note": note}), flush=True)


def diff(before: Path, after: Path) -> None:
    def rows(path: Path) -> dict[str, dict[str, Any]]:
        out = {}
        for line in path.read_text().splitlines():
            row = json.loads(line)
            out[json.dumps([row["folder"], row.get("pick")])] = row
        return out

    old, new = rows(before), rows(after)
    moved = [
        k
        for k in new
        if k in old and (old[k].get("text"), old[k].get("note")) != (new[k].get("text"), new[k].get("note"))
    ]
    for k in moved:
        a, b = old[k], new[k]
        written = [a.get("text") is not None, b.get("text") is not None]
        print(json.dumps({"pick": json.loads(k), "before": a.get("note"), "after": b.get("note"), "written": written}))
    print(
        json.dumps(
            {
                "picks": len(new),
                "same": len(new) - len(moved),
                "moved": len(moved),
                "unpaired": len(set(new) ^ set(old)),
            }
        )
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--diff"]:
        diff(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        passed = sys.argv[1:2] == ["--original-passed"]
        run([Path(a) for a in sys.argv[1 + passed :]], passed)
