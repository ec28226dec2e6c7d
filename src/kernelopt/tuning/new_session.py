"""Why a tune started a new session instead of serving the last one's record: the session key's parts, each digested
apart and kept in the record's header, compared with the last session folder's beside it (newuser21 saw a rerun after a
real change of kernel.py start afresh, every candidate timed again, nothing said of the record it did not use).

The parts are :func:`kernelopt.tuning.folder.session_parts`; :func:`key_of` is the session key itself (the session
folder's name), unchanged by the parts being kept.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from kernelopt.tuning.record import SessionRecord

#: Each part of the session key, in words (the order a line names them in).
PART_WORDS: dict[str, str] = {
    "kernel": "kernel.py's code",
    "reference": "reference.py",
    "carried": "the data files kernel.py carries",
    "problem": "the problem (device, sizes, dtype, tolerance)",
    "shapes": "the SHAPES entries",
    "space": "the knobs and their values",
    "launch": (
        "the launch tuned (its kernel and its line in kernel.py, which lines an earlier tune wrote above it move)"
    ),
    "gpu": "the GPU",
    "environment": "the workers' variables (TRITON_INTERPRET, the visible devices, the CPU threads)",
}


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:12]


def key_of(parts: Mapping[str, Any]) -> str:
    """The session key: one digest of every part."""
    return _digest(dict(parts))


def part_digests(parts: Mapping[str, Any]) -> dict[str, str]:
    """Each part's own digest, as the record's header keeps them."""
    return {name: _digest(value) for name, value in parts.items()}


def new_session_line(earlier: SessionRecord | None, parts: Mapping[str, str]) -> str | None:
    """The one line that says why the last session's record (``earlier``, another session folder's) was not served to a
    new session of ``parts`` (:func:`part_digests`): the parts that differ, in words ("does not match this run in the
    launch tuned (...)": "was made for other the launch tuned" read as no sentence, and a retune after a guarded write
    named a launch the user had not changed; newuser22 n166); ``None`` when there was no earlier record, or it had no
    result."""
    if earlier is None or not earlier.results:
        return None
    kept = earlier.header.key_parts
    if not kept:
        why = "was made by a kernelopt that did not keep what it was for"
    else:
        changed = [words for name, words in PART_WORDS.items() if kept.get(name) != parts.get(name)]
        why = f"does not match this run in {', '.join(changed)}" if changed else "was made for another session key"
    return (
        f"a new session: the last one's record ({earlier.path}, {len(earlier.served())} configuration(s)) {why}, so "
        "none of it is served; it is kept there"
    )
