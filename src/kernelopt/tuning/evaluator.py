"""The seam between a strategy's session and the hardware (pure): a batch in, one result each, in order.

Implemented by :class:`kernelopt.tuning.kernel_evaluator.KernelEvaluator` (compile pool, then the bench
worker, on a GPU or the CPU) and :class:`kernelopt.tuning.replay.ReplayEvaluator` (a recorded sweep), so a
session runs the same way on the hardware and in replay (Kernel Tuner's runners, Helion's benchmark
provider).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from kernelopt.tuning.candidate import Config, Result


class Evaluator(Protocol):
    """Evaluates candidates; every failure is a :class:`Result`, never an exception."""

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        """Compile, check and time each configuration of ``batch``; one result each, in ``batch``'s order."""
        ...

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        """Time the configurations of ``batch`` again, interleaved (the final pick among the top few)."""
        ...

    def close(self) -> None:
        """Release workers and files; the evaluator is not used after it."""
        ...
