"""The region a rejected winner excludes from the next tuning session (issue 32, item 4; pure).

When the gate rejects the configuration a session wrote (wrong on a shape, a timeout), the next version
tunes again, among the configurations outside that region. The *region* of a rejected winner is every
configuration that holds the values it moved from the configuration before it, launch options left aside
(``BLOCK_M=128, BLOCK_N=128`` when the winner moved both tiles and ``num_warps``: a tile that does not divide a
shape fails at any warp count); the winner alone when it moved only launch options. The session serves an
excluded configuration as an ``INVALID`` result with the gate's reason
(:func:`kernelopt.tuning.session.tune`'s ``excluded``), neither timed nor served from its record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from kernelopt.tunables.knobs import LAUNCH_OPTIONS
from kernelopt.tuning.candidate import Config, Value


class Exclusion(BaseModel):
    """A region the next session leaves out.

    Attributes:
        region: knob name -> value; every configuration holding all of them is excluded.
        reason: why, one line (``V1's gate rejected BLOCK=128: ...``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    region: dict[str, Value]
    reason: str


def region_of(winner: Mapping[str, Value], before: Mapping[str, Value] | None) -> dict[str, Value]:
    """The values of ``winner`` that define its region: those it moved from ``before`` other than launch
    options; the whole of ``winner`` when it moved only launch options or ``before`` is unknown."""
    if before is None:
        return dict(winner)
    moved = {k: v for k, v in winner.items() if k not in before or before[k] != v}
    tiles = {k: v for k, v in moved.items() if k not in LAUNCH_OPTIONS}
    return tiles or dict(winner)


def excluder(exclusions: Sequence[Exclusion]) -> Callable[[Config], str | None] | None:
    """``config -> reason`` for the configurations inside any of ``exclusions`` (``None`` outside); ``None``
    when there is nothing to exclude."""
    if not exclusions:
        return None

    def why(config: Config) -> str | None:
        for e in exclusions:
            if e.region and all(k in config and config[k] == v for k, v in e.region.items()):
                return f"excluded: {e.reason}"
        return None

    return why
