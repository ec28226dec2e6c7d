"""The corpus check a change to a rule of tunables owes (bound14): every kernel file under tests/data and examples
(a `.py` that mentions triton, reference.py aside), static discovery's readings (each `Tunable` as `kernelopt
tunables --json --no-evaluate` gives it, hashed) and the guarded edit tune writes for a literal pick (`apply_source`
then `guard_edit`: the note and a hash of the text) of each editable integer knob doubled and halved alone, and of a
launch's blocks doubled together. Run it on two trees (main's source and the branch's) and diff the outputs.

Usage (repository root, CPU; about 20 minutes on 2 loaded cores):

    PYTHONPATH=OLD/src python3 scripts/corpus_check.py OLD > before.txt
    PYTHONPATH=src python3 scripts/corpus_check.py . > after.txt
    diff before.txt after.txt

Each launch option (``num_warps``, ``num_stages``) doubled and halved alone is also read by n64's cover rule
(``readers.shrunk_covers``: a COVER line, its refusals or "kept"), the rule leftovers15 narrowed.

Env: FILES (paths relative to the root, space-separated: only those), ALARM (seconds a file, default 60; a file past
it prints TIMEOUT: run it again alone with more), COVER_ONLY (the readings and the COVER lines, no guarded edits).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
from pathlib import Path

from kernelopt.numeric import is_int
from kernelopt.oneline import one_line
from kernelopt.tunables import discover
from kernelopt.tunables.edit import apply_source
from kernelopt.tunables.guard import guard_edit
from kernelopt.tunables.readers import shrunk_covers


def _alarm(*_: object) -> None:
    raise TimeoutError


def _file(root: Path, k: Path) -> None:
    rel = k.relative_to(root)
    src = k.read_text(errors="replace")
    found = discover(k)
    readings = json.dumps([t.model_dump(mode="json") for t in found], sort_keys=True, default=str)
    print(rel, "READ", hashlib.sha1(readings.encode()).hexdigest()[:10], len(found))
    ts = [t for t in found if t.editable and is_int(t.value)]
    for t in (t for t in ts if t.name in ("num_warps", "num_stages")):  # n64's cover rule on each option moved
        for value in sorted({t.value * 2, max(1, t.value // 2)} - {t.value}):
            refused = shrunk_covers(found, src, {t.name: value}, {t.name: t.value})
            print(rel, "COVER", t.key, value, " | ".join(refused) or "kept")
    if os.environ.get("COVER_ONLY"):
        return
    trials = [{t.key: t.value * 2} for t in ts] + [{t.key: max(1, t.value // 2)} for t in ts]
    blocks = [t for t in ts if t.name not in ("num_warps", "num_stages", "num_ctas")]
    if len(blocks) > 1:
        trials.append({t.key: t.value * 2 for t in blocks})
    for change in trials:
        try:
            guarded = guard_edit(src, apply_source(src, change).new_source)
            text = hashlib.sha1((guarded.new_source or "").encode()).hexdigest()[:8]
            print(rel, sorted(change.items()), text, guarded.note)
        except TimeoutError:
            raise
        except Exception as exc:  # a refusal is a line of the output, compared like any other
            print(rel, sorted(change.items()), "ERR", type(exc).__name__, one_line(str(exc), 80))


def main(root: Path) -> None:
    signal.signal(signal.SIGALRM, _alarm)
    only = set(os.environ.get("FILES", "").split())
    files = [
        k
        for d in ("tests/data", "examples")
        for k in sorted((root / d).glob("**/*.py"))
        if k.name != "reference.py" and "triton" in k.read_text(errors="replace")
    ]
    for k in files:
        if only and str(k.relative_to(root)) not in only:
            continue
        signal.alarm(int(os.environ.get("ALARM", "60")))
        try:
            _file(root, k)
        except TimeoutError:
            print(k.relative_to(root), "TIMEOUT")
        except Exception as exc:  # discovery refused the file: its line is compared too
            print(k.relative_to(root), "ERR", type(exc).__name__, one_line(str(exc), 100))
        finally:
            signal.alarm(0)
        sys.stdout.flush()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
