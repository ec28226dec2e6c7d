"""wrongkernel19: a kernel written wrong where a row's rest after its whole blocks is long (docs/faults.md v78, v79):
whole blocks of ``BLOCK`` without masks, then the rest in one masked block of another knob, ``TAIL``. Every size of
the net left a rest of 1 (past), of half a block or of none; the ``tail`` size, one below the power of two at or
above the largest entry, leaves the longest rest of any block."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness.sizekeys import key_roles
from kernelopt.tuning.net import SizeClass, derived_sizes
from kernelopt.tuning.problem import ProblemShape
from tests.test_wrongkernel17_cases import VARIANTS, _caught, _checked_each


def test_the_tail_size_is_one_below_the_power_of_two_above_the_largest_entry_else_less_the_entries_grain() -> None:
    """Every key together one below the power of two at or above its largest entry (8192 -> 8191, 16 rows -> 15),
    then that power of two less 2, 4, ... up to each key's entries' grain (an original asserting ``n % 128 == 0``
    refuses the odd one, and passes 8064, the longest rest its grain allows); an exponent stays."""
    text = "def get_inputs(n_rows=8, n_cols=4096):\n    return [torch.randn(n_rows, n_cols)]\n"
    entries = [ProblemShape(kwargs={"n_rows": 8, "n_cols": 4096}), ProblemShape(kwargs={"n_rows": 16, "n_cols": 8192})]
    [tail] = [s for s in derived_sizes(entries, (256,), key_roles(text), residue=True) if s.kind is SizeClass.TAIL]
    labels = [t.label() for t in tail.tries]
    assert labels[:3] == ["n_rows=15,n_cols=8191", "n_rows=14,n_cols=8190", "n_rows=12,n_cols=8188"], labels
    assert labels[3:] == [f"n_rows=16,n_cols={8192 - (1 << j)}" for j in range(3, 12)], labels
    exponent = "def get_inputs(rows=100, log_n=12):\n    return [torch.randn(rows, 1 << log_n)]\n"
    [tail] = [
        s
        for s in derived_sizes(
            [ProblemShape(kwargs={"rows": 100, "log_n": 12})], (256,), key_roles(exponent), residue=True
        )
        if s.kind is SizeClass.TAIL
    ]
    assert [t.label() for t in tail.tries] == ["rows=127,log_n=12", "rows=126,log_n=12", "rows=124,log_n=12"]


@pytest.mark.timeout(120)
def test_v78_v79_a_rest_longer_than_its_masked_block_fails_the_tail_size_with_the_rules_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v78 and v79 (tail_block_knob: rows of at least 256 columns summed in whole blocks of ``BLOCK=128`` without
    masks, the rest in one masked block of ``TAIL=128``; SHAPES 4 x 1024 and 8 x 2048): ``BLOCK=256`` and ``TAIL=64``
    were written plainly with the rules on, "correct at n_rows=9,n_cols=2049, n_rows=10,n_cols=2176, ...", each wrong
    where the rest is longer than ``TAIL`` (1200 and 4300 columns), which the original sums. Now the tail size fails
    them at 7 x 2047; nothing is written."""
    picks = [{"BLOCK": 256, "TAIL": 128}, {"BLOCK": 128, "TAIL": 64}]  # v78 (block grown), v79 (tail shrunk)
    for done in _checked_each(tmp_path, monkeypatch, "tail_block_knob", picks):
        _caught(done, SizeClass.TAIL, "n_rows=7,n_cols=2047")


def test_v80_a_tuned_config_a_static_assert_reads_beside_a_size_the_key_leaves_out_is_keyed_by_that_size(
    tmp_path: Path,
) -> None:
    """v80 (autotune_unkeyed_assert: rows of ``D`` scaled in masked chunks of ``BLOCK_N``, ``tl.static_assert(BLOCK_N
    <= D)``, an autotune list of one config ``BLOCK_N=16`` keyed by ``n_rows`` only; SHAPES 64 x 64 and 128 x 128):
    ``BLOCK_N=64`` was written ahead of the original config (``tune``, rules on: "the autotuner benchmarks the 2 at
    each new key"), and the autotuner, which now benchmarks and caches, ran the config it picked at 64 x 64 at 64 x 32
    (the same key) and failed the assert there, which the original runs; the net loads the written kernel afresh at
    each size and never saw it. Now the key is given ``D``: the written kernel, called at 8 x 64, then 8 x 32 and 8 x 16
    in one process (one key as it was written before, where the old text fails at 8 x 32 as at 64 x 32; 8 rows cost
    the interpreter an eighth of 64's), is right at each."""
    import torch

    from kernelopt.tunables.edit import keep_pruned_fallback
    from tests.conftest import load_fresh, triton_interpreted

    source = (VARIANTS / "autotune_unkeyed_assert" / "kernel.py").read_text()
    pinned = source.replace('triton.Config({"BLOCK_N": 16}', 'triton.Config({"BLOCK_N": 64}')
    kept = keep_pruned_fallback(source, pinned, "scale_rows_kernel")
    assert kept is not None and 'key=["n_rows", "D"]' in kept[0] and "its key given D" in kept[1], kept
    written = tmp_path / "written.py"
    written.write_text(kept[0])
    with triton_interpreted():
        kernel = load_fresh(written, "v80_written")
        reference = load_fresh(VARIANTS / "autotune_unkeyed_assert" / "reference.py", "v80_reference")
        for d in (64, 32, 16):
            [x] = reference.get_inputs(n_rows=8, d=d)
            assert torch.equal(kernel.run(x), x * 2.0), d


@pytest.mark.timeout(120)
def test_v81_a_table_s_next_row_that_raises_just_above_the_entry_below_fails_the_between_size_before_any_size_above(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v81 (table_programs_rows: v70's at least 8 programs, the block computed, ``max(256, next_power_of_2(n) //
    64)``; SHAPES 16384 and 262144): a per-bucket table ``if n <= 16384: BLOCK = 256`` / ``elif n <= 262144: BLOCK =
    8192`` was written, "correct at n=262145, n=270336, n=8193, n=2049, ...", and raises from 16385 elements to
    57344, which the computed block runs (40 programs of 512 at 20000): the second row was checked at its own entry
    only. Now the sizes just past the entry below, 16385 first, fail it; nothing is written.

    gpunet20: on an H100 over 16384 and 2**24 elements the table was written: the net's first size, 2**24 + 1, runs
    the original's computation above the table (its block of 524288 compiled) and took the request's 60 s limit, the
    net's 30 s cap with it, and the between size was not run. Here every size above the largest entry answers so (no
    reply, a minute on the net's clock): the between sizes run first, and no size above the entries is asked."""
    import time

    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.candidate import Outcome
    from tests.test_table14_cases import _table_session
    from tests.test_tuning_net import _evaluator

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = Path(shutil.copytree(VARIANTS / "table_programs_rows", tmp_path / "table_programs_rows"))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    tuning = _table_session(prepared, {512: (5.0, 100.0), 8192: (1000.0, 40.0)})
    above: list[str] = []  # the sizes above the largest entry asked, each a request past its limit
    cast = tf.cast
    monkeypatch.setattr(tf, "cast", lambda *a, **k: cast(*a, **k, clock=lambda: time.monotonic() + 60.0 * len(above)))
    with _evaluator(prepared) as evaluator:
        check_at = evaluator.check_at

        def compiled_past_the_limit_above(
            source: str, shape: ProblemShape, limit_s: float | None = None
        ) -> tuple[Outcome, str | None]:
            if shape.kwargs["n"] <= 262144:
                return check_at(source, shape, limit_s)
            above.append(shape.label())
            return Outcome.RUN_TIMEOUT, "no reply within 60 s (its first call compiles)"

        monkeypatch.setattr(evaluator, "check_at", compiled_past_the_limit_above)
        done = tf._checked_edit(tuning, evaluator)
    _caught(done, SizeClass.BETWEEN, "n=16385")
    assert above == [], above


# ------------------------------------------------------------------------------------- on a GPU


@pytest.mark.gpu
@pytest.mark.timeout(600)
@pytest.mark.parametrize("pick", [{"BLOCK": 256, "TAIL": 128}, {"BLOCK": 128, "TAIL": 64}], ids=["v78", "v79"])
def test_on_cuda_v78_v79_fail_the_tail_size_at_realistic_rows_rules_on_or_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pick: dict[str, int]
) -> None:
    """On a GPU, compiled, over 4096 x 8192 and 8192 x 16384 (512 MB) rows: each pick fails the tail size at 8191 x
    16383, where the original passes, whether the rules are on or off (none reads the rest's block); nothing is
    written."""
    from tests.test_tuning_net import realistic_picks

    shapes = 'SHAPES = [{"n_rows": 4, "n_cols": 1024}, {"n_rows": 8, "n_cols": 2048}]'
    realistic = 'SHAPES = [{"n_rows": 4096, "n_cols": 8192}, {"n_rows": 8192, "n_cols": 16384}]'
    for done in realistic_picks(tmp_path, monkeypatch, "tail_block_knob", shapes, realistic, pick):
        _caught(done, SizeClass.TAIL, "n_rows=8191,n_cols=16383")


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_v80_the_cached_config_fails_its_assert_compiled_and_the_keyed_list_picks_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a GPU, compiled: the tuned list as written before v80's fix (``key=["n_rows"]``), called at 4096 x 64 then
    4096 x 32, raises Triton's ``CompileTimeAssertionFailure`` at the second (the config the autotuner cached at the
    first, ``BLOCK_N=64``, fails ``BLOCK_N <= D``), which the original runs; the list as now written (``key=["n_rows",
    "D"]``) is right at 64, 32 and 16 in one process."""
    import torch
    from triton.compiler.errors import CompileTimeAssertionFailure

    from kernelopt.tunables import edit
    from tests.conftest import load_fresh

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    source = (VARIANTS / "autotune_unkeyed_assert" / "kernel.py").read_text()
    pinned = source.replace('triton.Config({"BLOCK_N": 16}', 'triton.Config({"BLOCK_N": 64}')
    kept = edit.keep_pruned_fallback(source, pinned, "scale_rows_kernel")
    assert kept is not None and 'key=["n_rows", "D"]' in kept[0]
    unkeyed = kept[0].replace('key=["n_rows", "D"]', 'key=["n_rows"]')
    for name, text in (("before", unkeyed), ("now", kept[0])):
        (tmp_path / f"{name}.py").write_text(text)
    before, now = (load_fresh(tmp_path / f"{n}.py", f"v80_{n}") for n in ("before", "now"))
    x64, x32, x16 = (torch.randn(4096, d, device="cuda") for d in (64, 32, 16))
    assert torch.equal(before.run(x64), x64 * 2.0)
    with pytest.raises(CompileTimeAssertionFailure):
        before.run(x32)
    for x in (x64, x32, x16):
        assert torch.equal(now.run(x), x * 2.0)


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_v81_s_table_fails_the_between_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a GPU, compiled, over 16384 and 2**24 elements: the table ``512`` / ``8192`` fails the between size at
    16385 ("at least 8 programs"), where the computed block runs, the first size the net runs (gpunet20: on the H100
    of 23:11 the net ran 60.25 s, a request past its 60 s limit above the entries first, and the table was written);
    nothing is written."""
    from kernelopt.tuning import folder as tf
    from tests.test_table14_cases import _table_session
    from tests.test_tuning_net import _evaluator

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    folder = Path(shutil.copytree(VARIANTS / "table_programs_rows", tmp_path / "table_programs_rows"))
    reference = folder / "reference.py"
    reference.write_text(reference.read_text().replace('{"n": 262144}', '{"n": 16777216}'))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cuda"))
    tuning = _table_session(prepared, {512: (5.0, 100.0), 8192: (1000.0, 40.0)})
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(tuning, evaluator)
    _caught(done, SizeClass.BETWEEN, "n=16385")
    assert [c.kind for c in done.net.checks] == [SizeClass.BETWEEN], done.net.line()


def _keyed_table_session(prepared: Any, rows: list[tuple[dict[str, int], tuple[float, float]]]) -> Any:
    """A finished session over two entries whose re-timed candidates are ``rows`` (the current configuration first,
    each with its latency on the two entries), judged as ``tune_folder`` judges it: a keyed list's table where the
    shapes' own bests differ."""
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.folder import FolderTuning, judge_choice
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain
    from kernelopt.tuning.shapes import ChoiceKind, choose, per_shape, total

    labels = [s.label() for s in prepared.shapes]
    results = [
        Result(config=c, outcome=Outcome.OK, latency_us=total(list(t)), latency_us_by_shape=dict(zip(labels, t, strict=True)),
               retimed=True)
        for c, t in rows
    ]  # fmt: skip
    current, best = results[0], min(results, key=lambda r: r.latency_us or 0.0)
    result = SessionResult(
        best_config=best.config, best_latency_us=best.latency_us, current_config=current.config,
        current_latency_us=current.latency_us, results=results, retimed=results, evaluations=len(results), served=0,
        budget=4, space_size=8, wall_s=1.0, stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    shapes = per_shape(results, results, best.config, current.config)
    choice = choose(shapes)
    assert choice.kind is ChoiceKind.TABLE, choice
    return judge_choice(FolderTuning(prepared, result, judge_gain(result), per_shape=tuple(shapes), choice=choice))


@pytest.mark.timeout(120)
def test_v82_each_row_of_a_keyed_list_s_table_is_checked_alone_since_its_autotuner_may_pick_it_at_any_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v82 (tail_keyed_list: v78's row sums as an autotune list of one config ``BLOCK=128, TAIL=128`` keyed by
    ``n_cols``, rows of at least 256 columns): the shapes' own bests, the original at 8 x 2048 and ``BLOCK=64, TAIL=32``
    at 4 x 1024, were written
    as the list of both, "correct at n_rows=9,n_cols=2049, ..." (the net ran the list, and
    the interpreter's autotuner picked the original at its sizes; the best overall was the original, so no tile moved
    and no tail size was cast); the autotuner picks by its timing at each new key, and ``64, 32`` is wrong wherever a
    row's rest after its blocks of 64 is longer than 32 (1130 columns). Now each row that moves a knob is checked
    alone by the net: fails at 7 x 2047; nothing written."""
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _evaluator

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = Path(shutil.copytree(VARIANTS / "tail_keyed_list", tmp_path / "tail_keyed_list"))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    rows = [({"BLOCK": 128, "TAIL": 128}, (10.0, 100.0)), ({"BLOCK": 64, "TAIL": 32}, (5.0, 200.0))]
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(_keyed_table_session(prepared, rows), evaluator)
    _caught(done, SizeClass.TAIL, "n_rows=7,n_cols=2047")
    assert done.edit_note.startswith("the keyed list's row BLOCK=64, TAIL=32, which its autotuner may pick"), (
        done.edit_note
    )


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_v82_s_keyed_row_fails_the_tail_size_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a GPU, compiled, over 4096 x 8192 and 8192 x 16384 rows: the keyed list's table of the original and
    ``BLOCK=64, TAIL=32`` fails with its second row pinned alone at the tail size, 8191 x 16383; nothing written."""
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _evaluator

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    folder = Path(shutil.copytree(VARIANTS / "tail_keyed_list", tmp_path / "tail_keyed_list"))
    reference = folder / "reference.py"
    reference.write_text(
        reference.read_text().replace(
            'SHAPES = [{"n_rows": 4, "n_cols": 1024}, {"n_rows": 8, "n_cols": 2048}]',
            'SHAPES = [{"n_rows": 4096, "n_cols": 8192}, {"n_rows": 8192, "n_cols": 16384}]',
        )
    )
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cuda"))
    rows = [({"BLOCK": 128, "TAIL": 128}, (10.0, 100.0)), ({"BLOCK": 64, "TAIL": 32}, (5.0, 200.0))]
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(_keyed_table_session(prepared, rows), evaluator)
    _caught(done, SizeClass.TAIL, "n_rows=8191,n_cols=16383")


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_a_grouped_order_over_a_grid_of_more_programs_than_tiles_stays_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """group_grid_square (the tutorial's grouped order on a grid counting square tiles of ``BLOCK_N``) with
    ``BLOCK_M=64`` as ``tune --device cpu`` writes it plainly (right in the interpreter at 96, 64 and 160 rows): the
    grid then holds twice the programs there are tiles, and where ``cdiv(M, 64)`` is a multiple of ``GROUP_M=4``
    (1024 and 8192 rows) the extra programs' ``group_size_m`` is 0 and their ``%`` and ``//`` by it are undefined on a
    GPU (Triton's interpreter gives 0 there). Compiled, the written kernel must give the original's output at those
    sizes (within tf32's sums: the tiles differ); a failure here is a wrong kernel the CPU cannot see (wrongkernel19, owed)."""
    import torch

    from tests.conftest import load_fresh

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    source = (VARIANTS / "group_grid_square" / "kernel.py").read_text()
    written = source.replace("BLOCK_M=32, BLOCK_N=32", "BLOCK_M=64, BLOCK_N=32")
    assert written != source
    (tmp_path / "written.py").write_text(written)
    original = load_fresh(VARIANTS / "group_grid_square" / "kernel.py", "group_grid_original")
    tuned = load_fresh(tmp_path / "written.py", "group_grid_written")
    for m, n, k in ((1024, 64, 64), (8192, 8192, 256)):
        a, b = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
        want = original.run(a, b)
        got = tuned.run(a, b)
        torch.cuda.synchronize()
        torch.testing.assert_close(got, want, rtol=1e-3, atol=1e-3)  # the tiles' tf32 sums agree; a stray store not
