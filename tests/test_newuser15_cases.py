"""newuser15: a new user's first hour on a fresh clone, fifteenth trial (docs/faults.md, "newuser15").

Each case is a fault the user met, replayed on the CPU: a session is replayed through the judgement with figures of
the user's own run (tune --device cpu, 2026-12-06), or the user's kernel is run under TRITON_INTERPRET=1."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.tuning.candidate import Outcome, Result
from kernelopt.tuning.shapes import ChoiceKind
from tests.conftest import triton_interpreted
from tests.test_breaker7_cases import _all_correct
from tests.test_newuser14_cases import OPTS_FOLDERS, _refuses_4_keeps_16, tuned_right_on_a_gpu

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "newuser15"


@pytest.fixture(scope="module")
def relu_progs(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The user's ReLU whose host raises past 64 programs, prepared for a CPU session."""
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folder = Path(shutil.copytree(DATA / "relu_progs", tmp_path_factory.mktemp("newuser15") / "relu_progs"))
    return prepare_folder(TuneRequest(folder=folder, device="cpu"))


def _retimed(block: int, by_shape: dict[str, float], samples: list[float]) -> Result:
    return Result(config={"BLOCK": block}, outcome=Outcome.OK, latency_us=sum(by_shape.values()),
                  latency_us_by_shape=by_shape, samples_us=samples, retimed=True)  # fmt: skip


def test_n82_one_configuration_judged_shape_by_shape_is_written_when_it_beats_the_current_in_a_noisy_retime(
    relu_progs: Any,
) -> None:
    """The user's session's re-time (18:45, load 11): BLOCK=4096 and 8192 tie round by round (each faster in half
    the rounds, spread over 50 %), both 13x faster than the current BLOCK=256 in every round; n=1000's own best is
    1024, so one configuration is judged shape by shape (no table holds a literal). It said "the current
    configuration stays: too noisy to rank ...; kernel.py left unchanged", where the same re-time judged alone
    (judge_gain's sign test) writes the pick."""
    from kernelopt.cli.tune import verdict_line
    from kernelopt.tuning.folder import judge_session
    from kernelopt.tuning.noise import too_noisy
    from kernelopt.tuning.session import SessionResult, StopReason

    low, high = [2000.0, 5000.0] * 10, [5000.0, 2000.0] * 10
    retimed = [
        _retimed(4096, {"n=1000": 1362.4, "n=8192": 2111.5}, low),
        _retimed(8192, {"n=1000": 2080.6, "n=8192": 2796.0}, high),
        _retimed(1024, {"n=1000": 1307.7, "n=8192": 10558.6}, [11866.0] * 20),
        _retimed(256, {"n=1000": 6883.6, "n=8192": 38135.7}, [45019.0] * 20),
    ]
    noisy = too_noisy(retimed[0], retimed)
    assert noisy is not None and "too noisy to rank" in noisy  # the session's own rule, on these samples
    result = SessionResult(
        best_config={"BLOCK": 4096}, best_latency_us=retimed[0].latency_us, current_config={"BLOCK": 256},
        current_latency_us=retimed[3].latency_us, results=[r.model_copy(update={"retimed": False}) for r in retimed],
        retimed=retimed, evaluations=10, served=0, budget=24, space_size=10, wall_s=15.0,
        stop=StopReason.CANDIDATES, strategy="local", noisy=noisy,
    )  # fmt: skip
    tuning = judge_session(relu_progs, result)
    assert tuning.choice is not None and tuning.choice.kind is ChoiceKind.TABLE  # no table holds a literal: one judged
    judgement = tuning.judgement
    assert judgement.better, judgement.reason
    assert "20 of its 20 re-timed rounds" in judgement.reason and "no slower beyond 2 %" in judgement.reason
    line = verdict_line(result, judgement, kernel_py="kernel.py", written=True, dry_run=False)
    assert line.endswith("written to kernel.py") and "stays" not in line
    # a tie with the current is still kept out: the sign test is what lets a noisy re-time write
    tied = [*retimed[:3], _retimed(256, {"n=1000": 1400.0, "n=8192": 2150.0}, high)]
    kept = judge_session(relu_progs, result.model_copy(update={"retimed": tied, "current_latency_us": 3550.0}))
    assert not kept.judgement.better and "too noisy to rank" in kept.judgement.reason


@pytest.mark.timeout(120)
def test_n83_a_python_float_beside_a_bf16_block_is_a_bf16_constant_in_the_interpreter() -> None:
    """The user's bf16 axpy (``x * 2.0 + y``, a leaky ReLU's ``r * 0.5``) failed every candidate on the CPU, the
    original too: "InterpreterError: AttributeError("'InterpreterBuilder' object has no attribute 'get_bf16'")", so
    `tune` said "no candidate ran" of a correct kernel. Triton's semantic makes the float a bf16 constant
    (``builder.get_bf16``, rounded to nearest even as the GPU's compile rounds it) and the product is bf16 arithmetic."""
    import torch

    with triton_interpreted():
        import triton
        import triton.language as tl

        @triton.jit
        def scaled(x_ptr, out_ptr, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = tl.load(x_ptr + offs)
            tl.store(out_ptr + offs, x * 0.1)
            tl.store(out_ptr + N + offs, tl.where(x > 0, x, x * 3.0714))

        x = torch.randn(64, generator=torch.Generator().manual_seed(0)).to(torch.bfloat16)
        out = torch.empty(2 * 64, dtype=torch.bfloat16)
        scaled[(1,)](x, out, N=64)

        def times(c: float) -> torch.Tensor:  # the constant rounded to bf16 first, then one bf16 product
            return (x.float() * torch.tensor(c).to(torch.bfloat16).float()).to(torch.bfloat16)

        torch.testing.assert_close(out[:64], times(0.1), rtol=0, atol=0)
        torch.testing.assert_close(out[64:], torch.where(x > 0, x, times(3.0714)), rtol=0, atol=0)
    _all_correct(DATA / "bf16_axpy", [{"n": 1}, {"n": 1000}, {"n": 4097}])


def test_n84_two_configs_of_a_keyed_list_that_fail_are_named_apart(tmp_path: Path) -> None:
    """n84: the user's column sum's keyed list, two of whose three tiles fail its ``tl.static_assert(BM * BN !=
    1024)``: the verdict said "... its 3 configs at each key; BM=32, BN=32, BM=64, BN=16 failed here and is left out",
    one config's text run into the next. n76's replay (newuser8's keyed axpb) with two of four configs failing."""
    from kernelopt.tuning.folder import TuneRequest, judge_against_list, list_configs, prepare_folder
    from tests.test_newuser8_cases import AXPB_REFERENCE, KEYED_TABLE, _replayed, _timed

    folder = tmp_path / "axpb"
    folder.mkdir()
    more = (
        'triton.Config({"BLOCK": 2048}, num_warps=4, num_stages=3), triton.Config({"BLOCK": 4096}, num_warps=4, '
        'num_stages=3), triton.Config({"BLOCK": 8192}'
    )
    (folder / "kernel.py").write_text(KEYED_TABLE.replace('triton.Config({"BLOCK": 8192}', more))
    (folder / "reference.py").write_text(AXPB_REFERENCE)
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    listed = list_configs(prepared)
    labels = tuple(s.label() for s in prepared.shapes)
    failed = [Result(config={"BLOCK": b}, outcome=Outcome.COMPILE_ERROR, reason="static_assert") for b in (2048, 4096)]
    results = [_timed(labels, 1024, 3000.0, 40000.0), *failed, _timed(labels, 8192, 9000.0, 9000.0),
               _timed(labels, 256, 2000.0, 30000.0)]  # fmt: skip
    judged = judge_against_list(_replayed(prepared, results, {"BLOCK": 256}, {"BLOCK": 1024}, 43000.0), listed)
    reason = judged.judgement.reason
    assert "its 4 configs at each key; BLOCK=2048 | BLOCK=4096 failed here and are left out, as its" in reason, reason


#: n85's forms: (the folder copied, the text replaced, its replacement, the module text put before ``def run(x):``)
TUPLE_FORMS = {
    "relu_tuple": (
        "break16/warps_augmented",
        OPTS_FOLDERS["opts_dict"][1],
        "    nw, ns = CFG\n    BLOCK = block_of(CFG)\n"
        "    relu_kernel[(n // BLOCK,)](x, y, n, BLOCK=BLOCK, num_warps=nw, num_stages=ns)\n",
        "CFG = (2, 3)\nblock_of = lambda cfg: cfg[0] * 32\n\n\n",
    ),
    "rowmax_tuple": (
        "newuser12/warps_cover",
        OPTS_FOLDERS["rowmax_opts"][1],
        "    warps, stages = CFG\n    BLOCK = block_of(CFG)\n"
        "    rowmax_kernel[(M,)](x, out, N, BLOCK=BLOCK, num_warps=warps, num_stages=stages)\n",
        "CFG = (8, 1)\n\n\ndef block_of(cfg):\n    return cfg[0] * 128\n\n\n",
    ),
    "relu_computed": (  # n86: the warps computed in run(), the block from the name the launch passes
        "break16/warps_augmented",
        OPTS_FOLDERS["opts_dict"][1],
        "    nw, ns = BIG if n > 10**9 else CFG\n    BLOCK = nw * 32\n"
        "    relu_kernel[(n // BLOCK,)](x, y, n, BLOCK=BLOCK, num_warps=nw, num_stages=ns)\n",
        "CFG = (2, 3)\nBIG = (8, 3)\n\n\n",
    ),
}


def _tuple_folder(tmp_path: Path, name: str) -> Path:
    source, old, new, before = TUPLE_FORMS[name]
    folder = Path(shutil.copytree(ROOT / "tests" / "data" / source, tmp_path / name))
    text = (folder / "kernel.py").read_text()
    assert old in text, source
    (folder / "kernel.py").write_text(text.replace(old, new).replace("def run(x):", before + "def run(x):"))
    return folder


@pytest.mark.timeout(120)
def test_n85_a_launch_option_s_module_tuple_passed_whole_to_a_helper_casts_the_net(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """n85 (**a wrong written kernel** on a GPU): the user's ReLU over ``n // BLOCK`` programs without masks, its
    launch options a module tuple, ``CFG = (2, 3)``, ``nw, ns = CFG`` at the launch, and its block computed by a
    lambda given the tuple whole, ``block_of = lambda cfg: cfg[0] * 32``, ``BLOCK = block_of(CFG)``. A pick of
    ``num_warps=32`` passed the entries (8192, 1024), the net was not cast ("only num_warps moved": b16 read the
    tuple's unpacking and its subscript, not the tuple passed), and ``CFG = (32, 3)`` was written, wrong at n=64,
    1088 and 8256 (the user's check, NaN-poisoned; ``folder._checked_edit`` with the pick given, 19:20). Now the
    tuple read whole is named and the net fails the pick."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import chained_values
    from kernelopt.tuning import folder as tf
    from tests.test_newuser13_cases import _gpu_prepared
    from tests.test_tuning_net import _evaluator, _session

    folder = _tuple_folder(tmp_path, "relu_tuple")
    source = (folder / "kernel.py").read_text()
    assert chained_values(discover_source(source), source, ["num_warps"]) == {"line 20 (CFG)": None}
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = _gpu_prepared(folder, monkeypatch)
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(_session(prepared, [({"num_warps": 32}, 10.0)], ({"num_warps": 2}, 20.0)), evaluator)
    assert done.edit is None and done.edit_note is not None, done.edit_note
    assert done.edit_note.startswith("the written kernel fails at n=8704 "), done.edit_note


def test_n85_a_one_block_row_computed_by_a_helper_given_the_tuple_is_never_shrunk(tmp_path: Path) -> None:
    """n85's row max (n64's, one block a row): ``CFG = (8, 1)``, ``BLOCK = block_of(CFG)`` with ``def block_of(cfg):
    return cfg[0] * 128``; a pick of ``num_warps=4`` (BLOCK 512) left part of a row undone at N=600 where n64's rule
    did not ask (the helper reads its parameter, not the option's names). Now the tuple passed makes it a reader."""
    _refuses_4_keeps_16((_tuple_folder(tmp_path, "rowmax_tuple") / "kernel.py").read_text(), "block_of(CFG)")


@pytest.mark.gpu
@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", ["relu_tuple", "rowmax_tuple", "relu_computed"])
def test_n85_n86_on_a_gpu_a_tuned_num_warps_held_in_a_tuple_or_computed_is_never_written_wrong(
    tmp_path: Path, name: str
) -> None:
    """n85 and n86 on an NVIDIA GPU, where the session searches ``num_warps``: ``kernelopt tune --device cuda`` (a 120 s
    wall) on each folder, then the kernel.py it leaves run at sizes no entry names that the original handles (the
    ReLU: multiples of its 64-element block; the row max: rows up to its 1024-element block): right at every one,
    whatever was written."""
    tuned_right_on_a_gpu(_tuple_folder(tmp_path, name), rows=name == "rowmax_tuple")


@pytest.mark.timeout(120)
def test_n86_a_computed_num_warps_tuned_in_a_table_moves_the_block_computed_from_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """n86 (**a wrong written kernel** on a GPU): the ReLU over ``n // BLOCK`` programs without masks with its warps
    computed in ``run()`` (``nw, ns = BIG if n > 10**9 else CFG``, ``num_warps=nw`` at the launch) and its block from
    them (``BLOCK = nw * 32``). A pick of ``num_warps=32`` is written as a table after the computation, ``if n <= 8192:
    nw = 32``, so BLOCK is 1024 there too: it passed the entries (8192, 1024), the net was not cast ("only num_warps
    moved": a computed option bound no name), and it was written, wrong at n=64 and 1088 (the user's check, 19:40).
    Now the name the launch passes is followed: the net fails it just past the smaller entry (1088)."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import chained_values, computed_readers
    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.candidate import COMPUTED
    from tests.test_newuser13_cases import _gpu_prepared
    from tests.test_tuning_net import _evaluator, _session

    folder = _tuple_folder(tmp_path, "relu_computed")
    source = (folder / "kernel.py").read_text()
    found = discover_source(source)
    assert chained_values(found, source, ["num_warps"]) == {"BLOCK": None}
    assert [t.name for t in computed_readers(found, source, ["num_warps"])] == ["BLOCK"]
    # at the launch itself the option binds no name: a conditional there is read as before
    inline = source.replace("num_warps=nw,", "num_warps=8 if n > 65536 else 4,")
    assert chained_values(discover_source(inline), inline, ["num_warps"]) == {}
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = _gpu_prepared(folder, monkeypatch)
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(
            _session(prepared, [({"num_warps": 32}, 10.0)], ({"num_warps": COMPUTED}, 20.0)), evaluator
        )
    assert done.edit is None and done.edit_note is not None, done.edit_note
    # the table's next row first fails just past the entry below it (wrongkernel19's between size: 1088, where the
    # user's check saw it), before the size below the smallest entry (512)
    assert done.edit_note.startswith("the written kernel fails at n=1088 (just past an entry below"), done.edit_note
