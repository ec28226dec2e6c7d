"""seen14: this session's "seen, not changed" items a user meets (docs/faults.md, "seen14")."""

from __future__ import annotations

import pytest


@pytest.mark.timeout(10)
def test_a_slowdown_not_reliable_gives_its_interval_as_a_slowdown() -> None:
    """break15's seen item: optimize's summary said "103x slower than the reference (PyTorch eager), not reliable:
    its 95 % interval 0.00618-0.0126x spans more than 2x", a slowdown beside an interval of speedups (n68 mended
    the reliable line only)."""
    from kernelopt.report.headline import interval_text

    eager = "the reference (PyTorch eager)"
    said = interval_text(1 / 103, 0.00618, 0.0126, eager)
    assert said.startswith(
        "103x slower than the reference (PyTorch eager), not reliable: its 95 % interval 79.4-162x slower spans more"
    ), said
    # a speedup not reliable, and one whose interval crosses 1, keep their factors
    assert "its 95 % interval 0.004-3.2x spans" in interval_text(1.55, 0.004, 3.2, eager)
    assert "its 95 % interval 0.3-1.2x spans" in interval_text(0.5, 0.3, 1.2, eager)
