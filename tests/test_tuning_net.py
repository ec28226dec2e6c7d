"""The net behind the rules (:mod:`kernelopt.tuning.net`): the kernel ``tune`` is about to write, checked at sizes the
``SHAPES`` entries do not name, where the original passes, before it is written. The rules of
:mod:`kernelopt.tunables.guard` are switched off here (``guard_edit`` returns every pick written plainly, the form
each of docs/faults.md's v1-v29 wrote before its rule) to show what the net alone keeps out; the pick is checked in
the session's own workers under Triton's interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.tunables.guard import Guarded
from kernelopt.tuning.candidate import Outcome, Result
from kernelopt.tuning.net import NetVerdict, SizeCheck, SizeClass, cast, derived_sizes
from kernelopt.tuning.problem import ProblemShape

VARIANTS = Path(__file__).parent / "data" / "variants"


def _labels(entries: list[dict[str, Any]], grown: tuple[int, ...] = ()) -> list[tuple[str, list[str]]]:
    sizes = derived_sizes([ProblemShape(kwargs=e) for e in entries], grown)
    return [(s.kind.value, [t.label() for t in s.tries]) for s in sizes]


def test_the_sizes_go_one_past_a_power_of_two_and_half_a_power_of_two_past_the_largest_entry() -> None:
    # one past the power of two at or above the largest entry: odd, above every entry, past a one-block pick of 64
    assert _labels([{"M": 8, "N": 50}, {"M": 16, "N": 60}]) == [
        ("past", ["M=17,N=65", "M=16,N=65"]),  # the rows' 8 and 16 are multiples of 8: kept in the second try
        ("half", ["M=20,N=61"]),
        ("power", ["M=64,N=60", "M=32,N=60"]),  # the rows a power of two in every entry: four times, else twice
    ]
    # an assert K % 16 == 0 refuses the first try; the second moves the rows only; half: K=80, a multiple of 16, not 32;
    # last, K a whole grain (32) past, the rest kept: for a format that allows only multiples of 32 (breaker11)
    assert _labels([{"M": 10, "N": 12, "K": 32}, {"M": 40, "N": 36, "K": 64}]) == [
        ("past", ["M=65,N=65,K=65", "M=65,N=36,K=64"]),
        ("half", ["M=41,N=38,K=80", "M=40,N=36,K=96"]),
        ("power", ["M=40,N=36,K=256", "M=40,N=36,K=128"]),
    ]
    assert _labels([{"n": 100}, {"n": 128}]) == [("past", ["n=129"]), ("half", ["n=130"])]
    # entries of powers of two: half the grown tile first (BLOCK 128 -> 256: 8192 + 128), then the entries' own
    realistic = [{"n_rows": 1024, "n_cols": 4096}, {"n_rows": 512, "n_cols": 8192}]
    assert _labels(realistic, grown=(256,)) == [
        ("past", ["n_rows=1025,n_cols=8193"]),
        ("half", ["n_rows=1152,n_cols=8320", "n_rows=1280,n_cols=10240", "n_rows=1536,n_cols=12288"]),
        ("quarter", ["n_rows=1152,n_cols=9216"]),  # a quarter of the entries' common factors past the largest
        ("power", ["n_rows=4096,n_cols=8192", "n_rows=2048,n_cols=8192"]),  # each key alone, four times or twice
        ("power", ["n_rows=1024,n_cols=32768", "n_rows=1024,n_cols=16384"]),
    ]
    # a 0/1 key (a flag, a mode) and a string stay; no key above 1: no size
    assert _labels([{"n": 64, "causal": 1, "dtype": "fp16"}]) == [
        ("past", ["n=65,causal=1,dtype=fp16"]),
        ("half", ["n=96,causal=1,dtype=fp16", "n=128,causal=1,dtype=fp16"]),
        ("quarter", ["n=80,causal=1,dtype=fp16"]),
        ("power", ["n=256,causal=1,dtype=fp16"]),  # twice, 128, is the half size's whole grain
    ]
    assert _labels([{"causal": 1}]) == [] and _labels([]) == []


def test_the_original_runs_only_where_the_written_kernel_fails_and_a_size_it_refuses_is_skipped() -> None:
    sizes = derived_sizes([ProblemShape(kwargs={"M": 10, "K": 32}), ProblemShape(kwargs={"M": 40, "K": 64})])
    ran: list[tuple[str, str]] = []

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        ran.append((source, shape.label()))
        if source == "original" and shape.kwargs["K"] % 16:
            return Outcome.RUN_ERROR, "raised while running: AssertionError"
        if source == "wide" and shape.kwargs["K"] % 32:
            return Outcome.WRONG_RESULT, "output differs from the reference"
        return Outcome.OK, None

    known: dict[str, tuple[Outcome, str | None]] = {}
    wide = cast(sizes, "original", "wide", check_at, known=known)
    assert [(c.kind, c.shape.label(), c.passed) for c in wide.checks] == [
        (SizeClass.PAST, "M=65,K=64", True),  # K=65 refused by the original's assert: the rows alone moved
        (SizeClass.HALF, "M=41,K=80", False),
    ]
    assert ran == [  # the original runs only where the written kernel fails
        ("wide", "M=65,K=65"), ("original", "M=65,K=65"), ("wide", "M=65,K=64"), ("wide", "M=41,K=80"),
        ("original", "M=41,K=80"),
    ]  # fmt: skip
    assert wide.failed is not None and wide.line() == (
        "the written kernel fails at M=41,K=80 (half a power of two past the largest entry), where the original "
        "passes: wrong_result: output differs from the reference"
    )
    ran.clear()
    narrow = cast(sizes, "original", "narrow", check_at, known=known)  # the next pick: the original is known
    assert ran == [("narrow", "M=65,K=65"), ("narrow", "M=41,K=80"), ("narrow", "M=40,K=256")]
    assert narrow.failed is None
    refused = cast(derived_sizes([ProblemShape(kwargs={"K": 64})]), "original", "wide", check_at)
    assert [c.passed for c in refused.checks] == [None, True, False]  # the quarter, K=80: wide fails, the original not
    # (the power size, K=256, is not reached: the net stops at its first failure)
    assert refused.checks[0].reason is not None and "the original fails there too: run_error: raised while" in (
        refused.checks[0].reason
    )
    alone = cast(derived_sizes([ProblemShape(kwargs={"K": 64})])[:2], "original", "wide", check_at)
    assert "skipped K=65 (K=65: the original fails there too: run_error: raised while running: AssertionError)" in (
        alone.line()
    )
    slow = cast(sizes[1:], "original", "slow", lambda src, shape: (Outcome.RUN_TIMEOUT, "ran past 60 s"))
    assert [c.passed for c in slow.checks] == [None, None] and slow.failed is None  # no verdict, no original run
    assert "no reply within the limit (the written kernel, or reference.py building the size): ran past 60 s" in (
        slow.line()
    )
    assert NetVerdict(not_cast="only num_warps moved").line().startswith("not checked at sizes")
    assert SizeCheck(kind=SizeClass.PAST, shape=ProblemShape(kwargs={"n": 3}), passed=None).label() == (
        "n=3 (one past the power of two at or above the largest entry)"
    )


def _session(prepared: Any, picks: list[tuple[dict[str, int], float]], current: tuple[dict[str, int], float]) -> Any:
    """A finished session on ``prepared`` (a prepared folder) whose re-timed candidates are ``picks`` (configuration,
    latency), fastest first, beside the current configuration, as :func:`kernelopt.tuning.folder.tune_folder` holds it
    before the write."""
    from kernelopt.tuning.folder import FolderTuning
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain
    from kernelopt.tuning.shapes import choose, per_shape

    labels = [s.label() for s in prepared.shapes]
    results = [
        Result(config=c, outcome=Outcome.OK, latency_us=us, latency_us_by_shape=dict.fromkeys(labels, us), retimed=True)
        for c, us in [*picks, current]
    ]
    result = SessionResult(
        best_config=picks[0][0], best_latency_us=picks[0][1], current_config=current[0],
        current_latency_us=current[1], results=results, retimed=results, evaluations=len(results), served=0,
        budget=4, space_size=4, wall_s=1.0, stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    shapes = per_shape(results, results, result.best_config, result.current_config)
    return FolderTuning(prepared, result, judge_gain(result), per_shape=tuple(shapes), choice=choose(shapes))


def _evaluator(prepared: Any) -> Any:
    """The session's evaluator on every entry (its workers check what the net asks)."""
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator

    base = prepared.base_source
    return ShapesEvaluator(
        prepared.problem, prepared.shapes, base, lambda c: base, session_dir=prepared.session_dir, env=prepared.env
    )


def plain_pick_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str, pick: dict[str, int]) -> Any:
    """What ``tune`` does with ``pick`` over a copy of ``tests/data/variants/<variant>`` with its rules switched off
    (written plainly, as before the variant's fix): the entries' check and the net, in the session's own workers on
    the CPU under Triton's interpreter (:func:`kernelopt.tuning.folder._checked_edit`'s result)."""
    from kernelopt.tunables.guard import Guarded
    from kernelopt.tuning import folder as tf

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setattr(tf, "guard_edit", lambda old, new, **_: Guarded(new_source=new, note=None))
    folder = Path(shutil.copytree(VARIANTS / variant, tmp_path / variant))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    current = prepared.space.current()
    tuning = _session(prepared, [(pick, 1.0)], (current.as_dict() if current is not None else {}, 2.0))
    with _evaluator(prepared) as evaluator:
        return tf._checked_edit(tuning, evaluator)


def realistic_picks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str, shapes: str, realistic: str, pick: dict[str, int]
) -> tuple[Any, Any]:
    """What ``tune`` does on cuda with ``pick`` over a copy of ``tests/data/variants/<variant>`` whose ``SHAPES``
    (``shapes``, as reference.py writes it) is replaced by ``realistic``, compiled (Triton's interpreter off): its
    rules switched off (written plainly), then on (:func:`kernelopt.tuning.folder._checked_edit`'s results)."""
    from kernelopt.tuning import folder as tf

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    folder = Path(shutil.copytree(VARIANTS / variant, tmp_path / variant))
    reference = folder / "reference.py"
    assert shapes in reference.read_text()
    reference.write_text(reference.read_text().replace(shapes, realistic))
    done = []
    for rules in (False, True):
        with monkeypatch.context() as m:
            if not rules:
                m.setattr(tf, "guard_edit", lambda old, new, **_: Guarded(new_source=new, note=None))
            prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cuda"))
            current = prepared.space.current()
            tuning = _session(prepared, [(pick, 10.0)], (current.as_dict() if current is not None else {}, 20.0))
            with _evaluator(prepared) as evaluator:
                done.append(tf._checked_edit(tuning, evaluator))
    return done[0], done[1]


def pick_checked(
    monkeypatch: pytest.MonkeyPatch,
    folder: Path,
    pick: dict[str, int],
    current: dict[str, int],
    *,
    rules: bool,
    device: str = "cuda",
) -> Any:
    """What ``tune`` does with ``pick`` (beside ``current``) over ``folder`` on ``device``, its rules on or switched off
    (``rules``: off, the pick is written plainly, as before a variant's fix): the entries' check and the net, in the
    session's own workers (:func:`kernelopt.tuning.folder._checked_edit`'s result)."""
    from kernelopt.tuning import folder as tf

    with monkeypatch.context() as m:
        if not rules:
            m.setattr(tf, "guard_edit", lambda old, new: Guarded(new_source=new, note=None))
        prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device=device))
        with _evaluator(prepared) as evaluator:
            return tf._checked_edit(_session(prepared, [(pick, 10.0)], (current, 20.0)), evaluator)


def _two_picks_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, largest: int = 128) -> tuple[Any, Any]:
    """grid_named_copy (v23, its rule switched off; SHAPES of 100 and ``largest`` elements) through
    :func:`kernelopt.tuning.folder._checked_edit` under Triton's interpreter: a session picking ``BLOCK=128`` (wrong
    above 128 elements) with ``BLOCK=512`` next, and one picking ``BLOCK=128`` alone."""
    from kernelopt.tuning import folder as tf

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setattr(tf, "guard_edit", lambda old, new: Guarded(new_source=new, note=None))
    folder = Path(shutil.copytree(VARIANTS / "grid_named_copy", tmp_path / "grid_named_copy"))
    reference = folder / "reference.py"
    reference.write_text(reference.read_text().replace('{"n": 128}', f'{{"n": {largest}}}'))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    with _evaluator(prepared) as evaluator:
        picks = [({"BLOCK": 128}, 10.0), ({"BLOCK": 512}, 11.0)]
        done = tf._checked_edit(_session(prepared, picks, ({"BLOCK": 256}, 20.0)), evaluator)
        alone = tf._checked_edit(_session(prepared, picks[:1], ({"BLOCK": 256}, 20.0)), evaluator)
    return done, alone


@pytest.mark.timeout(120)
def test_a_pick_wrong_past_the_entries_gives_way_to_the_next_best_that_holds_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v23 with its rule switched off: grid_named_copy's ``BLOCK=128`` beside a grid of ``ROWS_PER_PROGRAM = 256``
    passes the SHAPES' 100 and 128 elements and leaves half of every program's elements unwritten above 128. The net
    finds it at 129 elements, where the original passes, and the next-best pick, ``BLOCK=512`` (its programs overlap:
    correct everywhere), is written instead, the line naming the size; with no next-best nothing is written."""
    done, alone = _two_picks_checked(tmp_path, monkeypatch)
    assert done.edit is not None and "scale_kernel[grid](x, y, n, BLOCK=512)" in done.edit.new_source
    assert done.result.best_config == {"BLOCK": 512} and done.judgement.better
    assert done.edit_note is not None and done.edit_note.startswith(
        "the written kernel fails at n=129 (one past the power of two at or above the largest entry), where the "
        "original passes: wrong_result: output not written"
    )
    assert "BLOCK=128 not written; the next-best, BLOCK=512, passes: written instead" in done.edit_note
    assert done.net is not None and done.net.failed is None and "correct at n=129, n=130" in done.net.line()
    assert alone.edit is None and not alone.judgement.better
    assert alone.edit_note is not None and alone.edit_note.endswith(": nothing written")
    assert "n=129" in alone.judgement.reason


# ------------------------------------------------------------------------------------------------ on a GPU


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_the_net_runs_on_cuda_at_realistic_sizes_and_keeps_out_what_the_rules_would_have_missed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a GPU, compiled, at sizes of thousands: row_var_center (v21) and hist_block (v24) with realistic SHAPES of
    powers of two. With the rules switched off the plain pick passes every entry and the net fails it at the largest
    entry plus half the tile it grew (8192 + 128 columns, 2**20 + 256 codes), where the original passes; with the
    rules on, the guarded text passes the net at the same sizes and is written."""

    cases = {
        "row_var_center": (
            [{"n_rows": 256, "n_cols": 4096}, {"n_rows": 128, "n_cols": 8192}], {"BLOCK": 256}, {"BLOCK": 128}
        ),
        "hist_block": ([{"n": 1 << 19}, {"n": 1 << 20}], {"BLOCK": 512}, {"BLOCK": 256}),
    }  # fmt: skip
    for name, (entries, pick, current) in cases.items():
        folder = Path(shutil.copytree(VARIANTS / name, tmp_path / name))
        reference = folder / "reference.py"
        text = reference.read_text()
        start = text.index("SHAPES = [")
        end = text.index("]", start) + 1
        reference.write_text(text[:start] + f"SHAPES = {entries!r}" + text[end:])
        for rules in (False, True):
            done = pick_checked(monkeypatch, folder, pick, current, rules=rules)
            assert done.net is not None, (name, rules, done.edit_note)
            if rules:
                assert done.edit is not None and done.net.failed is None, (name, done.net.line())
            else:
                assert done.edit is None and done.net.failed is not None, (name, done.net.line())
                assert done.net.failed.kind is SizeClass.HALF, done.net.line()
