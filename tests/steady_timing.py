"""A steady timer for tests whose subject follows the session's timing (suite23, docs/faults.md s20).

A CPU ``tune`` test about what is written (the edit, its table, the net's check, a refusal before the write) asserted
a pick and a "better" verdict that Triton's interpreter gives on a quiet machine, 3-25x apart. Under a full run's load
the interpreted timings lost that margin often enough (m16, m17 and earlier flips at load 10-13): a stalled sample made
the session too noisy to rank, or the current configuration timed best, and nothing was written. :func:`steady_timing`
keeps every candidate really compiled, checked and timed in its workers, and replaces each timed result's figures with
a cost the test states (a count of interpreted programs or loop trips: what the interpreter's time follows), the same
in every sample, so the pick, the verdict and the table follow the cost and not the machine's load.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

#: (the candidate's knob values, the SHAPES entry's sizes) -> its latency in microseconds
Cost = Callable[[Mapping[str, Any], Mapping[str, Any]], float]


def steady_timing(monkeypatch: pytest.MonkeyPatch, cost: Cost) -> None:
    """Every result a kernel evaluator times (its round and its re-times, at each ``SHAPES`` entry) is given
    ``cost(config, entry)`` microseconds for its latency and for each of its samples; failures are left as they are."""
    from kernelopt.tuning.candidate import Result
    from kernelopt.tuning.kernel_evaluator import KernelEvaluator
    from kernelopt.tuning.problem import literal_shapes

    evaluate, retime = KernelEvaluator.evaluate, KernelEvaluator.retime

    def steady(ev: KernelEvaluator, batch: Sequence[Any], results: list[Result]) -> list[Result]:
        out = []
        for config, r in zip(batch, results, strict=True):
            if r.latency_us is None:
                out.append(r)
                continue
            entry = ev.problem.primary_shape(literal_shapes(ev.problem.reference_py) or []).kwargs
            us = float(cost(dict(config), entry))
            by = dict.fromkeys(r.latency_us_by_shape, us)
            out.append(r.model_copy(update={"latency_us": us, "samples_us": [us] * len(r.samples_us),
                                             "latency_us_by_shape": by, "cut_slow": False}))  # fmt: skip
        return out

    def evaluated(ev: KernelEvaluator, batch: Sequence[Any], **kwargs: Any) -> list[Result]:
        return steady(ev, batch, evaluate(ev, batch, **kwargs))

    def retimed(ev: KernelEvaluator, batch: Sequence[Any]) -> list[Result]:
        return steady(ev, batch, retime(ev, batch))

    monkeypatch.setattr(KernelEvaluator, "evaluate", evaluated)
    monkeypatch.setattr(KernelEvaluator, "retime", retimed)


def programs(*counts: float) -> float:
    """A cost of so many interpreted programs (or loop trips), 100 us each: the interpreter's time follows the count."""
    total = 1.0
    for n in counts:
        total *= n
    return 100.0 * total


def blocks(config: Mapping[str, Any], entry: Mapping[str, Any]) -> float:
    """An elementwise kernel over ``n`` elements, a program (or a torch call) per ``BLOCK`` of them
    (``tests/data/tuning/tune_add``, ``tests/data/loop``)."""
    return programs(-(-entry["n"] // config["BLOCK"]))
