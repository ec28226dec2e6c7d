"""The one list of stage names of the loop, shared by the stage runner, the backends and the loop.

A foundation module (no kernelopt imports): the backends name the two stages they run (``plan``,
``implement``), the stage runner keys its allowance table by stage, the loop's journal records the
stage in flight.
"""

from __future__ import annotations

from enum import StrEnum
from fnmatch import fnmatch


class Stage(StrEnum):
    """Where an iteration is. V0 runs BASELINE_GATE -> BASELINE_PROFILE -> RECORD -> STOP; V<N> (N >= 1)
    runs PROFILE -> PLAN -> IMPLEMENT -> GATE -> RECORD -> STOP (a failed stage goes to RECORD).

    Backends run only PLAN (Stage 2) and IMPLEMENT (Stage 3).
    """

    BASELINE_GATE = "baseline_gate"
    BASELINE_PROFILE = "baseline_profile"
    PROFILE = "profile"
    PLAN = "plan"
    IMPLEMENT = "implement"
    GATE = "gate"
    RECORD = "record"
    STOP = "stop"


BACKEND_STAGES = (Stage.PLAN, Stage.IMPLEMENT)
"""The stages a planner or implementer backend runs."""


BACKEND_FILES = ("*transcript*", "agent_*.log", "llm_*.log")
"""The names of the files a backend stage may leave in ``profiles/v<N>/`` (its transcripts, which hold what the agent
printed): the allowance of Stage 2 and Stage 3 there, and never profiler evidence a plan may cite (agents19, a10)."""


def is_backend_file(rel: str) -> bool:
    """True when ``rel`` (a path inside ``profiles/v<N>/``) is a name a backend stage may write there."""
    return any(fnmatch(rel, pattern) for pattern in BACKEND_FILES)
