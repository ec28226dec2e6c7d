"""review21: this session's diff (since 89ac948a) reviewed; each finding's test (docs/faults.md, review21)."""

from __future__ import annotations

# ------------------------------------------------- r13: the code net's cap said as what it is


def test_r13_the_code_net_s_cap_is_said_as_its_own_not_a_session_s_share() -> None:
    """b43's net over a rewrite (``code_net``) built its cap as a session's, ``NetCap(seconds=120, session_s=120)``:
    a size the cap left was said "past the net's time cap of 120 s (the larger of 30 s and 25% of the session's 120 s)",
    arithmetic that gives 30, of a session the gate never ran. Its cap is said as the rewrite's own now, in the line the
    gate's note carries; a session's cap keeps its words."""
    from kernelopt.harness.sizekeys import KeyReading, KeyRole
    from kernelopt.tuning.budget import ManualClock
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.code_net import CODE_NET_S, code_net_cap
    from kernelopt.tuning.net import EntryTimes, NetCap, cast, derived_sizes
    from kernelopt.tuning.problem import ProblemShape

    roles = {k: KeyReading(KeyRole.SIZE) for k in ("n_rows", "n_cols")}
    sizes = derived_sizes([ProblemShape(kwargs={"n_rows": 64, "n_cols": 512})], (), roles, residue=True)
    clock = ManualClock()

    def check_at(source: str, shape: ProblemShape, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        clock.advance(50.0)  # each request a long one: the cap leaves sizes unchecked
        return Outcome.OK, None

    times = EntryTimes(check_s=50.0, kernel_s=0.001, count=1)
    verdict = cast(sizes, "original", "written", check_at, cap=code_net_cap(clock()), entries=times, clock=clock)
    line = verdict.line()
    assert verdict.failed is None and verdict.for_time, line
    assert f"past the net's time cap of {CODE_NET_S:.0f} s (the net's cap over a rewritten kernel)" in line, line
    assert "the larger of" not in line and "the session's" not in line, line
    session = NetCap.of(10.0, 0.0).words()
    assert session == "past the net's time cap of 30 s (the larger of 30 s and 25% of the session's 10 s)", session
