"""A new user's first hour on a fresh clone, eleventh trial (2026-12-06): what the twelfth session changed (per-bucket
tables holding computed warps, rows only of timed configurations, one round per comparison, the pace and the request
bound, the net's quarter size, integer outputs, the entries' one rule) tried on the user's own kernels, and bad input
of every kind; one test per fix (docs/faults.md, "A new user's first hour, eleventh trial")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


#: a reference whose get_inputs says it takes an integer size, and one whose scale has a float default
TYPED_REFERENCE = """import torch


def get_inputs(n: int = 4096, scale=1, flag: bool = False, device: str = "cpu"):
    return [torch.randn(n).to(device) * scale]


def reference(x):
    return x
"""


def test_n60_a_bool_or_a_fraction_where_get_inputs_takes_an_integer_is_refused_before_the_session(
    tmp_path: Path,
) -> None:
    """n60: ``SHAPES = [{"n": 4096}, {"n": True}]`` ran a session at n=1 and said "timed on n=4096 (not in the
    interpreter, too large: n=True)"; ``{"n": 1000.5}`` where ``get_inputs(n: int = 4096)`` reached the bench worker
    and ended in torch's long ``randn()`` TypeError. The entries' one rule refuses both in one line, before the
    session; a fraction where nothing says the parameter is an integer (a scale), a bool where it takes one, and a bool
    where the integer's default is 0 or 1 (a flag) are left alone."""
    from kernelopt.errors import EXIT_BAD_INPUT, InputFileError
    from kernelopt.tuning.shapes import check_entries

    reference = tmp_path / "reference.py"
    reference.write_text(TYPED_REFERENCE)
    for entry, said in [
        ({"n": True}, "SHAPES[1] {'n': True} cannot be built: n is the bool True, where get_inputs takes an integer; "
         "write 'n': 1 if that is the size meant"),
        ({"n": 1000.5}, "SHAPES[1] {'n': 1000.5} cannot be built: n is the float 1000.5, where get_inputs takes an "
         "integer (n: int); write 'n' as an integer"),
        ({"n": False}, "SHAPES[1] {'n': False} cannot be built: n is the bool False, where get_inputs takes an "
         "integer; write 'n': 0 if that is the size meant"),
    ]:  # fmt: skip
        with pytest.raises(InputFileError) as caught:
            check_entries(reference, [{"n": 4096}, entry])
        assert caught.value.exit_code == EXIT_BAD_INPUT
        assert caught.value.one_line().endswith(said), caught.value.one_line()
    check_entries(reference, [{"n": 8}, {"n": 8, "scale": 0.5}, {"n": 8, "flag": True}])
    # an integer whose default is 0 or 1 is a flag as often as a size (``causal=0``): a bool there is a flag's value
    # (break14, 2026-12-06: ``{"causal": True}`` beside ``causal=0`` was refused)
    check_entries(reference, [{"n": 8, "scale": True}, {"n": 8, "scale": False}])


@pytest.mark.timeout(60)
def test_n59_a_keyed_list_judged_in_the_first_round_chooses_and_reports_in_that_round_too(tmp_path: Path) -> None:
    """n59: an autotune list ``[16, 32]`` keyed by ``n_cols`` at 100 and 3000 columns, whose re-time took 4096, 512,
    256 and 16 but not 32: the list was judged in the first round (honest12's rule) and the pinned list written from
    the first round's bests (256 at 100 columns), but the choice (``shape_choice``'s table and its line) was the
    re-time's (512 there, "11.0 % slower" beside a per-shape table's "+8.0 %"), and the best's re-timed latency was
    set beside the list's first one. Replayed as the trial's record had it (the second re-time, 5x slower under
    load): the choice, its table and the best's latency are the first round's."""
    from dataclasses import replace

    from kernelopt.tuning.folder import TuneRequest, judge_against_list, list_configs, prepare_folder
    from kernelopt.tuning.shapes import choose, per_shape
    from tests.test_newuser8_cases import AXPB_REFERENCE, KEYED_TABLE, _replayed, _timed

    folder = tmp_path / "axpb"
    folder.mkdir()
    (folder / "kernel.py").write_text(KEYED_TABLE)
    (folder / "reference.py").write_text(AXPB_REFERENCE)
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    listed = list_configs(prepared)
    small, large = labels = tuple(s.label() for s in prepared.shapes)
    first = [_timed(labels, 1024, 10080.0, 78821.0), _timed(labels, 8192, 15085.0, 15546.0),
             _timed(labels, 256, 4855.0, 12220.0), _timed(labels, 512, 5008.0, 7451.0),
             _timed(labels, 4096, 5243.0, 2932.0)]  # fmt: skip
    first = [r.model_copy(update={"retimed": False}) for r in first]
    again = [_timed(labels, 4096, 28263.0, 12823.0), _timed(labels, 512, 25472.0, 29805.0),
             _timed(labels, 256, 28383.0, 43967.0), _timed(labels, 1024, 55726.0, 278651.0)]  # fmt: skip
    best, current = {"BLOCK": 4096}, {"BLOCK": 1024}
    before = _replayed(prepared, first, best, current, 88901.0)
    result = before.result.model_copy(update={"retimed": again, "best_latency_us": 41086.0})
    shapes = tuple(per_shape(first, again, best, current))
    before = replace(before, result=result, per_shape=shapes, choice=choose(shapes))
    assert before.choice.table[small] == {"BLOCK": 512}  # as tune_folder had it: the re-time's
    judged = judge_against_list(before, listed)
    assert judged.choice.table == {small: {"BLOCK": 256}, large: {"BLOCK": 4096}}, judged.choice
    assert judged.choice.reason.startswith(
        f"one configuration for all 2 shapes is {(5243.0 / 4855.0 - 1) * 100:.1f} % slower than {small}'s own best"
    ), judged.choice.reason
    assert {s.shape: s.best_config for s in judged.per_shape} == {small: {"BLOCK": 256}, large: {"BLOCK": 4096}}
    assert judged.result.best_latency_us == pytest.approx(5243.0 + 2932.0)
    assert judged.result.current_latency_us == pytest.approx(10080.0 + 15546.0)


@pytest.mark.timeout(180)
def test_n61_a_pick_of_num_warps_that_a_block_is_computed_from_is_netted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """n61 (**a wrong written kernel** on a GPU, where the session searches ``num_warps``): ``num_warps = 2`` then
    ``BLOCK = num_warps * 32`` beside a grid of ``n // BLOCK`` programs and loads without masks
    (tests/data/newuser11/warps_block). A pick of ``num_warps=32`` moves the block to 1024 through its computation; it
    passes the entries (8192 and 1024 elements, multiples of 1024), the guard reads no block literal moved, and the
    net was not cast: "only num_warps moved, which change no result at any size". Written, it leaves 64 of 64 elements
    undone at n=64, which the original handles. A launch option a computed setting reads is netted like a knob."""
    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.candidate import COMPUTED
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = Path(shutil.copytree(DATA / "newuser11" / "warps_block", tmp_path / "warps_block"))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    # 32 warps (BLOCK 1024), and 8 (BLOCK 256: the H100's pick of 2026-12-06 10:05, which the net passed at 8448 and
    # 8704, multiples of 256, stepping by the entries' 1024: written, wrong at n=64 and n=1088). The half size now
    # steps by the original's own block, 64: 8256 elements, which the original handles and no larger block divides
    for warps in (32, 8):
        with _evaluator(prepared) as evaluator:
            picks = [({"BLOCK": COMPUTED, "num_warps": warps}, 10.0)]
            current = ({"BLOCK": COMPUTED, "num_warps": 2}, 20.0)
            done = tf._checked_edit(_session(prepared, picks, current), evaluator)
        assert done.edit is None and not done.judgement.better, done.edit_note
        assert done.net is not None and done.net.failed is not None, done.net
        assert done.edit_note is not None and done.edit_note.startswith("the written kernel fails at n=8256 "), (
            done.edit_note
        )


@pytest.mark.gpu
@pytest.mark.timeout(400)
def test_n61_on_a_gpu_a_tuned_num_warps_that_moves_a_block_is_never_written_wrong(tmp_path: Path) -> None:
    """n61 on an NVIDIA GPU, where the session searches ``num_warps``: ``kernelopt tune --device cuda`` (a 120 s wall)
    on tests/data/newuser11/warps_block, then the kernel.py it leaves run at sizes no entry names, each a multiple of
    the original's 64-element block (the sizes the original handles): right at every one, whatever was written."""
    from tests.gpu_correct import assert_correct, tuned_on_device

    folder = Path(shutil.copytree(DATA / "newuser11" / "warps_block", tmp_path / "warps_block"))
    tuned_on_device(folder)
    shapes = [{"n": 64}, {"n": 1088}, {"n": 4160}, {"n": 8192 + 64}, {"n": 1 << 20}]
    assert_correct(folder, shapes, lambda r: bool((r.got == r.want).all()))


def test_n62_a_round_that_waited_on_a_cut_candidate_does_not_raise_the_next_cut() -> None:
    """n62: a kernel hanging in Triton's interpreter at BLOCK >= 2048 (``--candidate-timeout-s 120``, the 2-core CPU
    at load 14): the first hung candidate was cut at 62.3 s ("5x the 12.5 s a candidate of its rounds so far"), the
    second at 117.4 s ("5x the 23.5 s"), the median of two rounds being their mean, one of them the round that waited
    on the first cut. The pace is a round's own (the low median): the second cut comes at 62.5 s too."""
    from kernelopt.tuning.budget import Budget, ManualClock
    from kernelopt.tuning.pace import PACE_FACTOR, CandidateLimit

    budget = Budget(100, ManualClock(), wall_s=600.0)
    budget.start()
    limit = CandidateLimit(budget)
    limit.observe(12.5)
    assert limit.seconds(120.0) == PACE_FACTOR * 12.5
    limit.observe(34.5)  # the round that waited on the cut candidate
    assert limit.seconds(120.0) == PACE_FACTOR * 12.5
    why = limit.why(PACE_FACTOR * 12.5, 120.0)
    assert why is not None and why.startswith("cut at the session's pace: 5x the 12.5 s a candidate"), why


@pytest.mark.timeout(120)
def test_n63_a_sweep_of_launch_options_on_the_cpu_says_the_interpreter_holds_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n63: ``kernelopt tune examples/layernorm --device cpu --within`` its recorded H200 sweep said "the sweep of
    layernorm varies ['num_stages', 'num_warps'], which this launch has no knob for", where the launch writes both
    (``num_warps=4, num_stages=1``): Triton's interpreter holds them, so the CPU searches neither. The line says so."""
    from kernelopt.cli.app import main

    folder = Path(shutil.copytree(Path(__file__).parent.parent / "examples" / "layernorm", tmp_path / "layernorm"))
    sweep = Path(__file__).parent.parent / "docs" / "gpu-runs" / "2026-11-29-run4-sweep_layernorm.json.gz"
    code = main(["tune", str(folder), "--device", "cpu", "--within", str(sweep), "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2, err
    errors = [line for line in err.splitlines() if line.startswith("kernelopt: error:")]
    assert len(errors) == 1 and errors[0].startswith("kernelopt: error: --within "), err
    assert (
        "the sweep of layernorm varies ['num_stages', 'num_warps'], which Triton's interpreter holds at their values"
        in err
    ), err
    assert "no knob for" not in err and "Traceback" not in err


def test_n61_tunables_set_says_a_launch_option_moves_a_block_computed_from_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n61's hand-made twin: ``tunables --set num_warps=8`` on warps_block writes (as asked) the kernel tune no longer
    writes, wrong at n=64: no rule on launch options sees BLOCK move with it. It now says so in one warning line, and
    a launch option nothing computes from sets without it."""
    from kernelopt.cli.app import main

    folder = Path(shutil.copytree(DATA / "newuser11" / "warps_block", tmp_path / "warps_block"))
    assert main(["tunables", str(folder / "kernel.py"), "--set", "num_warps=8", "--dry-run"]) == 0
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if "is computed from" in line]
    assert said == [
        "warning: relu_kernel:BLOCK is computed from num_warps (BLOCK = num_warps * 32): it moves too, at every "
        "size, and no rule here checks that move; shown (--dry-run) (kernelopt validate checks the kernel; "
        "kernelopt tune checks such a pick at sizes the SHAPES do not name)"
    ], err
    plain = folder / "kernel.py"
    plain.write_text(plain.read_text().replace("BLOCK = num_warps * 32", "BLOCK = 64"))
    assert main(["tunables", str(plain), "--set", "num_warps=8", "--dry-run"]) == 0
    assert "is computed from" not in capsys.readouterr().err
