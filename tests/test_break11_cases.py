"""break11: the tenth session's work broken from a fresh clone, as a new user (docs/faults.md, "break11").

Each test is one finding (x1, ...), run on the real engine: Triton kernels in the interpreter, the session's own
bench workers.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.tunables.guard import Guarded
from kernelopt.tuning.net import derived_sizes
from kernelopt.tuning.problem import ProblemShape

VARIANTS = Path(__file__).parent / "data" / "variants"

ACT_RUN = """
def run(x, act):
    assert act in (1, 2), f"unknown activation code {act}"
    n = x.numel()
    y = torch.empty_like(x)
    grid = (triton.cdiv(n, ROWS_PER_PROGRAM),)
    scale_kernel[grid](x, y, n, BLOCK=256)
    return y * (act / 2)
"""

ACT_REFERENCE = """import torch

SHAPES = [{"n": 100, "act": 2}, {"n": 128, "act": 2}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(n=200, act=2, device="cpu"):
    return [torch.randn(n, device=device), act]


def reference(x, act):
    if act not in (1, 2):
        raise ValueError(f"unknown activation code {act}")
    return x * act
"""


def _wrong_pick_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: str, reference: str) -> Any:
    """grid_named_copy (v23) with ``run`` for its run() and ``reference`` for reference.py, its pick ``BLOCK=128``
    (wrong above 128 elements) written through the real evaluator with v23's rule off: the session after the net."""
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setattr(tf, "guard_edit", lambda old, new: Guarded(new_source=new, note=None))
    folder = Path(shutil.copytree(VARIANTS / "grid_named_copy", tmp_path / "copy"))
    kernel = (folder / "kernel.py").read_text()
    (folder / "kernel.py").write_text(kernel[: kernel.index("\ndef run(")] + run)
    (folder / "reference.py").write_text(reference)
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    with _evaluator(prepared) as evaluator:
        return tf._checked_edit(_session(prepared, [({"BLOCK": 128}, 10.0)], ({"BLOCK": 256}, 20.0)), evaluator)


def test_x1_a_small_code_key_is_kept_in_each_size_s_last_tries() -> None:
    """x1: an int key that is a code, not a size (an activation's 2, a dim, a stride), was moved in every try with
    the sizes (2 -> 3), so the original refused every try and the net checked nothing; the last tries keep it."""
    sizes = derived_sizes([ProblemShape(kwargs={"n": 3000, "act": 2}), ProblemShape(kwargs={"n": 1000, "act": 2})])
    assert [(s.kind.value, [t.label() for t in s.tries]) for s in sizes] == [
        ("past", ["n=4097,act=3", "n=3000,act=3", "n=4097,act=2"]),
        ("half", ["n=3004,act=3", "n=3004,act=2"]),
    ]
    # a key above SMALL_KEY moves in every try as before: no fallback try
    assert [len(s.tries) for s in derived_sizes([ProblemShape(kwargs={"n": 100, "heads": 12})])] == [1, 1]


@pytest.mark.timeout(120)
def test_x1_the_net_catches_a_wrong_pick_of_a_kernel_with_an_activation_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """grid_named_copy (v23, its rule switched off) with an ``act`` code of 2 its run() asserts: ``BLOCK=128`` leaves
    half of every program's elements unwritten above 128 elements. Before x1 every net size moved ``act`` to 3, the
    original refused each, and the wrong pick was written; now the net finds it at n=129 with ``act`` kept."""
    done = _wrong_pick_checked(tmp_path, monkeypatch, ACT_RUN, ACT_REFERENCE)
    assert done.edit is None and not done.judgement.better
    assert done.edit_note is not None and done.edit_note.startswith(
        "the written kernel fails at n=129,act=2 (one past the power of two at or above the largest entry), where the "
        "original passes: wrong_result"
    )
    assert done.edit_note.endswith(": nothing written")


CLIP_RUN = """
def run(x, clip):
    n = x.numel()
    y = torch.empty_like(x)
    grid = (triton.cdiv(n, ROWS_PER_PROGRAM),)
    scale_kernel[grid](x, y, n, BLOCK=256)
    return y.clamp(max=clip)
"""

CLIP_REFERENCE = """import torch

SHAPES = [{"n": 100, "clip": float("inf")}, {"n": 128, "clip": float("inf")}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(n=200, clip=float("inf"), device="cpu"):
    return [torch.randn(n, device=device), clip]


def reference(x, clip):
    return (x * 2.0).clamp(max=clip)
"""


@pytest.mark.timeout(120)
def test_x2_a_float_key_of_inf_reaches_the_net_s_worker_as_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """x2: a SHAPES entry with ``"clip": float("inf")`` (no clipping): the net's size request wrote the inf as JSON
    ``null``, the bench service refused it ("4 validation errors for SizeRequest"), both sizes were skipped as if
    the original refused them, and grid_named_copy's wrong ``BLOCK=128`` (v23's rule off) was written. Now the inf
    arrives as itself and the net finds the pick wrong at n=129."""
    done = _wrong_pick_checked(tmp_path, monkeypatch, CLIP_RUN, CLIP_REFERENCE)
    assert (
        done.edit is None
        and done.edit_note is not None
        and done.edit_note.startswith(
            "the written kernel fails at n=129,clip=inf (one past the power of two at or above the largest entry), where "
            "the original passes: wrong_result"
        )
    )


def test_x3_a_size_that_runs_past_its_limit_ends_there_and_the_line_says_who_may_have() -> None:
    """x3: a reference.py that hangs past the entries (``time.sleep`` above 6000 elements, /work/tmp/break11/hang):
    the net spent the limit once a try (60 s each; with x1's fallback tries up to four a size), blamed "the written
    kernel", and ended "which the original does not pass" though the original never ran. Now a size stops at its
    first timeout, and the line names both candidates for the hang."""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.net import cast

    sizes = derived_sizes([ProblemShape(kwargs={"n": 3000, "act": 2}), ProblemShape(kwargs={"n": 1000, "act": 2})])
    ran: list[tuple[str, str]] = []

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        ran.append((source, shape.label()))
        return Outcome.RUN_TIMEOUT, "checking: no reply within 60 s"

    verdict = cast(sizes, "original", "written", check_at)
    assert ran == [("written", "n=4097,act=3"), ("written", "n=3004,act=3")]  # one limit a size, no original run
    assert [c.passed for c in verdict.checks] == [None, None] and verdict.failed is None
    line = verdict.line()
    assert "n=4097,act=3: no reply within the limit (the written kernel, or reference.py building the size)" in line
    assert "original does not pass" not in line
