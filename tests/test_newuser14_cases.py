"""A new user's first hour on a fresh clone, fourteenth trial (2026-12-06): what the sixteenth session changed (blocks
computed from num_warps through module level, a parameter's default, a helper, ``*=``; the set-aside of an entry the
original cannot run; the table's fallbacks; the re-time's estimate; an atomic setting held; a list whose pick the
host reads) tried on the user's own kernels, and bad input of every kind; one test per fix (docs/faults.md, "A new
user's first hour, fourteenth trial")."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from tests.test_newuser13_cases import _gpu_prepared

DATA = Path(__file__).parent / "data"

#: each folder's kernel as an earlier lane's with its launch options in a dict: the text replaced, and what replaces it
OPTS_FOLDERS = {
    "opts_dict": (
        "break16/warps_augmented",
        "    nw = 2\n    BLOCK = 32\n    BLOCK *= nw\n    relu_kernel[(n // BLOCK,)](x, y, n, BLOCK=BLOCK, num_warps=nw)\n",
        '    opts = {"num_warps": 2}\n    BLOCK = opts["num_warps"] * 32\n    relu_kernel[(n // BLOCK,)](x, y, n, BLOCK=BLOCK, **opts)\n',
    ),
    "rowmax_opts": (
        "newuser12/warps_cover",
        "    warps = 8\n    BLOCK = warps * 128\n    rowmax_kernel[(M,)](x, out, N, BLOCK=BLOCK, num_warps=warps)\n",
        '    opts = {"num_warps": 8}\n    BLOCK = opts["num_warps"] * 128\n    rowmax_kernel[(M,)](x, out, N, BLOCK=BLOCK, **opts)\n',
    ),
    "rowmax_helper": (  # n81: the block computed by a helper reading a module constant
        "newuser12/warps_cover",
        "    warps = 8\n    BLOCK = warps * 128\n    rowmax_kernel[(M,)](x, out, N, BLOCK=BLOCK, num_warps=warps)\n",
        "    BLOCK = _block()\n    rowmax_kernel[(M,)](x, out, N, BLOCK=BLOCK, num_warps=NW)\n",
    ),
}
#: text put before ``def run(x):`` in a folder of :data:`OPTS_FOLDERS`
BEFORE_RUN = {"rowmax_helper": "NW = 8\n\n\ndef _block():\n    return NW * 128\n\n\n"}


def _opts_folder(tmp_path: Path, name: str) -> Path:
    """n75's ReLU (break16's warps_augmented) or n77's row max (newuser12's warps_cover) with its launch options in a
    dict, ``opts = {"num_warps": ...}``, the block computed from ``opts["num_warps"]``, ``**opts`` at the launch."""
    source, old, new = OPTS_FOLDERS[name]
    folder = Path(shutil.copytree(DATA / source, tmp_path / name))
    text = (folder / "kernel.py").read_text()
    assert old in text, source
    text = text.replace(old, new).replace("def run(x):", BEFORE_RUN.get(name, "") + "def run(x):")
    (folder / "kernel.py").write_text(text)
    return folder


@pytest.mark.timeout(120)
def test_n75_a_block_computed_from_the_warps_through_the_launch_s_options_dict_is_netted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """n75 (**a wrong written kernel** on a GPU): a ReLU over ``n // BLOCK`` programs without masks whose launch
    options are a dict, ``opts = {"num_warps": 2}``, ``BLOCK = opts["num_warps"] * 32``, ``relu_kernel[...](...,
    BLOCK=BLOCK, **opts)``. A pick of ``num_warps=32`` was written as ``opts = {"num_warps": 32}`` (BLOCK 1024): it
    passed the entries (8192, 1024), the net was not cast ("only num_warps moved": a dict holding the literal binds no
    name), and the file was wrong at n=64, 1088 and 8256. Now the dict's read by the option's key casts the net."""
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = _gpu_prepared(_opts_folder(tmp_path, "opts_dict"), monkeypatch)
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(_session(prepared, [({"num_warps": 32}, 10.0)], ({"num_warps": 2}, 20.0)), evaluator)
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.edit_note is not None and done.edit_note.startswith("the written kernel fails at n=8704 "), (
        done.edit_note
    )


def test_n75_a_launch_options_dict_is_read_by_its_key_alone(tmp_path: Path) -> None:
    """What a moved launch option held in a dict computes (``readers.chained_values``): a read of the dict by the
    option's key (``opts["num_warps"]``, ``cfg.get("num_warps")``) is named by its line; the dict's splat into the
    launch and its subscript by another key (``cfg["BLOCK"]`` beside ``dict(BLOCK=64, num_warps=2)``) are not."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import chained_values

    source = (_opts_folder(tmp_path, "opts_dict") / "kernel.py").read_text()
    assert chained_values(discover_source(source), source, ["num_warps"]) == {"line 16 (opts['num_warps'])": None}
    through_get = source.replace('opts["num_warps"] * 32', 'opts.get("num_warps") * 32')
    assert chained_values(discover_source(through_get), through_get, ["num_warps"]) == {
        "line 16 (opts['num_warps'])": None
    }
    alone = source.replace('BLOCK = opts["num_warps"] * 32', "BLOCK = 64")
    assert chained_values(discover_source(alone), alone, ["num_warps"]) == {}
    other_key = source.replace('opts = {"num_warps": 2}', "opts = dict(BLOCK=64, num_warps=2)").replace(
        'BLOCK = opts["num_warps"] * 32', 'BLOCK = opts["BLOCK"]'
    )
    assert chained_values(discover_source(other_key), other_key, ["num_warps"]) == {}


def test_n78_a_launch_options_dict_held_in_another_is_read_through_its_alias(tmp_path: Path) -> None:
    """n78 (**a wrong written kernel** on a GPU): n75's ReLU with its options a dict inside a module's dict,
    ``CONFIGS = {"small": {"num_warps": 2}}``, ``opts = CONFIGS["small"]``, ``BLOCK = opts["num_warps"] * 32``, ``**opts``
    at the launch: a pick of ``num_warps=32`` was written as ``CONFIGS = {"small": {"num_warps": 32}}``, "only num_warps
    moved", wrong at n=64, 1088 and 8256 (``folder._checked_edit`` with the pick given, 16:50). Now the alias's read
    casts the net ("the written kernel fails at n=8704"); the alias splatted into the launch alone casts nothing."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import chained_values

    source = (_opts_folder(tmp_path, "opts_dict") / "kernel.py").read_text()
    nested = source.replace('    opts = {"num_warps": 2}\n', '    opts = CONFIGS["small"]\n').replace(
        "def run(x):", 'CONFIGS = {"small": {"num_warps": 2}}\n\n\ndef run(x):'
    )
    assert 'CONFIGS = {"small": {"num_warps": 2}}' in nested and 'opts = CONFIGS["small"]' in nested
    assert chained_values(discover_source(nested), nested, ["num_warps"]) == {"line 19 (opts)": None}
    alone = nested.replace('BLOCK = opts["num_warps"] * 32', "BLOCK = 64")
    assert chained_values(discover_source(alone), alone, ["num_warps"]) == {}


def test_n76_a_keyed_list_with_a_config_that_fails_is_judged_against_the_autotuner_s_pick_of_the_rest(
    tmp_path: Path,
) -> None:
    """n76: a keyed autotune list ``[BLOCK 1024, 2048, 8192]`` whose 2048 fails wherever it runs (the user's own
    ``tl.static_assert(BLOCK != 32)`` in tests' trial; a GPU compile's shared memory alike): the judgement was left as
    against the list's first entry ("current BLOCK=1024", its latency on every shape), where the kernel as written
    runs 8192 on the large size, its autotuner skipping the config that fails. Now the failing config is left out and
    the line says so; the current is the autotuner's pick of the rest at each shape."""
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.folder import TuneRequest, judge_against_list, list_configs, prepare_folder
    from tests.test_newuser8_cases import AXPB_REFERENCE, KEYED_TABLE, _replayed, _timed

    folder = tmp_path / "axpb"
    folder.mkdir()
    three = 'triton.Config({"BLOCK": 2048}, num_warps=4, num_stages=3), triton.Config({"BLOCK": 8192}'
    (folder / "kernel.py").write_text(KEYED_TABLE.replace('triton.Config({"BLOCK": 8192}', three))
    (folder / "reference.py").write_text(AXPB_REFERENCE)
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    listed = list_configs(prepared)
    assert [c.as_dict() for c in listed] == [{"BLOCK": 1024}, {"BLOCK": 2048}, {"BLOCK": 8192}]
    small, large = labels = tuple(s.label() for s in prepared.shapes)
    failed = Result(config={"BLOCK": 2048}, outcome=Outcome.COMPILE_ERROR, reason="static_assert")
    results = [_timed(labels, 1024, 3000.0, 40000.0), failed, _timed(labels, 8192, 9000.0, 9000.0),
               _timed(labels, 256, 2000.0, 30000.0), _timed(labels, 4096, 4000.0, 8500.0)]  # fmt: skip
    judged = judge_against_list(_replayed(prepared, results, {"BLOCK": 4096}, {"BLOCK": 1024}, 43000.0), listed)
    assert judged.current_list == tuple(c.as_dict() for c in listed)
    assert {s.shape: s.current_latency_us for s in judged.per_shape} == {small: 3000.0, large: 9000.0}
    assert judged.result.current_latency_us == pytest.approx(12000.0)
    assert "its autotuner's pick of its 3 configs at each key; BLOCK=2048 failed here and is left out" in (
        judged.judgement.reason
    ), judged.judgement.reason
    # one that ran out of time (a loaded machine) is no config its autotuner skips: not left out; with no figure for
    # it (timed again alone, and out of time again), the list's pick is unknown and nothing is written (honest18)
    timed_out = [r if r is not failed else r.model_copy(update={"outcome": Outcome.RUN_TIMEOUT}) for r in results]
    before = _replayed(prepared, timed_out, {"BLOCK": 4096}, {"BLOCK": 1024}, 43000.0)
    after = judge_against_list(before, listed)
    assert replace(after, judgement=before.judgement) == before and not after.judgement.better
    assert after.judgement.reason.startswith("not written: the current autotune list has no figure at "), after


def test_n77_a_one_block_row_computed_from_the_warps_through_the_options_dict_is_never_shrunk(tmp_path: Path) -> None:
    """n77 (**a wrong written kernel** on a GPU): n64's row max (one block a row, ``cols < N``) with its launch
    options in a dict, ``opts = {"num_warps": 8}``, ``BLOCK = opts["num_warps"] * 128`` (newuser12's
    warps_cover so; SHAPES N=200 and 500). A pick of ``num_warps=4`` (BLOCK 512) passed the entries and the net (n75's
    read cast it; a max over 513 columns missing one is rarely wrong) and was written, wrong at N=600 and 1000: the
    computed block was not read as computed from the option, so n64's rule (``readers.shrunk_covers``) did not ask.
    Now the dict's read by the option's key makes it a reader: the pick is refused, a larger one (16) proved to
    cover."""

    _refuses_4_keeps_16((_opts_folder(tmp_path, "rowmax_opts") / "kernel.py").read_text(), 'opts["num_warps"] * 128')


@pytest.mark.gpu
@pytest.mark.timeout(900)
@pytest.mark.parametrize("name", ["opts_dict", "rowmax_opts", "rowmax_helper"])
def test_n75_n77_n81_on_a_gpu_a_tuned_num_warps_read_through_a_dict_or_a_helper_is_never_written_wrong(
    tmp_path: Path, name: str
) -> None:
    """n75, n77 and n81 on an NVIDIA GPU, where the session searches ``num_warps``: ``kernelopt tune --device cuda`` (a 120 s
    wall) on each folder, then the kernel.py it leaves run at sizes no entry names that the original handles (n75:
    multiples of its 64-element block; n77, n81: rows up to its 1024-element block): right at every one, whatever was
    written."""
    tuned_right_on_a_gpu(_opts_folder(tmp_path, name), rows=name != "opts_dict")


def tuned_right_on_a_gpu(folder: Path, *, rows: bool) -> None:
    """``kernelopt tune --device cuda`` on ``folder``, then the kernel.py it leaves run at sizes no entry names that
    the original handles: the ReLU's multiples of its 64-element block, or (``rows``) the row max's rows up to its
    1024-element block (newuser15's n85 and n86 too)."""
    import torch

    from tests.gpu_correct import assert_correct, tuned_on_device

    tuned_on_device(folder)
    if not rows:
        shapes = [{"n": 64}, {"n": 1088}, {"n": 8256}, {"n": 1 << 20}]
    else:
        shapes = [{"M": 16, "N": 600}, {"M": 33, "N": 1000}, {"M": 7, "N": 1024}, {"M": 3, "N": 513}]
    assert_correct(folder, shapes, lambda r: bool(torch.allclose(r.got, r.want, atol=1e-5, rtol=1e-5)))


def test_n79_an_annotated_launch_options_dict_is_read_by_its_key(tmp_path: Path) -> None:
    """n79 (**a wrong written kernel** on a GPU): n75's ReLU with its options dict annotated, ``opts: dict =
    {"num_warps": 2}``: after n75's and n78's fixes a pick of ``num_warps=32`` was still written, wrong at n=64, 1088
    and 8256 (``folder._checked_edit`` with the pick given, 16:55): only a plain assignment was read as binding the
    dict. Now an annotated one is too."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import chained_values

    source = (_opts_folder(tmp_path, "opts_dict") / "kernel.py").read_text().replace("opts = {", "opts: dict = {")
    assert "opts: dict = {" in source
    assert chained_values(discover_source(source), source, ["num_warps"]) == {"line 16 (opts['num_warps'])": None}


def test_n80_a_size_two_of_the_net_s_rules_derive_alike_is_checked_and_said_once() -> None:
    """n80: the net's line after a tune of the user's 2-D scale without masks (``BM = 16``, ``BN = 32`` over ``(M //
    BM, N // BN)`` programs; SHAPES 32 x 128 and 64 x 256) read "correct at M=80,N=320, M=80,N=256, M=64,N=288, ...,
    M=64,N=64, M=64,N=288, ...": one size derived by two rules was checked twice and said twice. Now a size whose every
    try the written kernel already passed is skipped."""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.net import cast, derived_sizes
    from kernelopt.tuning.problem import ProblemShape

    sizes = derived_sizes([ProblemShape(kwargs={"M": 32, "N": 128}), ProblemShape(kwargs={"M": 64, "N": 256})])
    quarter = next(s for s in sizes if [t.label() for t in s.tries] == ["M=64,N=288"])
    ran: list[str] = []

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        ran.append(shape.label())
        return Outcome.OK, None

    verdict = cast([*sizes, quarter], "original", "written", check_at)
    assert ran.count("M=64,N=288") == 1 and verdict.line().count("M=64,N=288") == 1, (ran, verdict.line())


@pytest.mark.parametrize("through", ["module", "dict_default", "lambda", "nested"])
def test_n81_a_one_block_row_computed_by_a_helper_reading_the_warps_is_never_shrunk(
    tmp_path: Path, through: str
) -> None:
    """n81 (**a wrong written kernel** on a GPU): n64's row max (newuser12's warps_cover) with its block computed by a
    helper, ``NW = 8``, ``def _block(): return NW * 128``, ``BLOCK = _block()`` (break16's b13 form), or with a dict
    read through a parameter's default, ``def _block(o=OPTS): return o["num_warps"] * 128``, or a lambda bound to a
    name, or a helper calling one that reads ``NW``. A pick of ``num_warps=4``
    (BLOCK 512) passed the entries and the net (a max over 513 columns missing one is rarely wrong) and was written,
    wrong at N=600 (``folder._checked_edit`` with the pick given, 17:05): n64's rule asked only of settings computed
    from the option's names, and ``BLOCK = _block()`` names none. Now a setting that calls a function reading them
    is computed from them; a function's own local of the name (breaker7's xent_chunked ``calculate_settings``) is
    not a read."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import shrunk_covers

    source = (DATA / "newuser12" / "warps_cover" / "kernel.py").read_text()
    old = "    warps = 8\n    BLOCK = warps * 128\n    rowmax_kernel[(M,)](x, out, N, BLOCK=BLOCK, num_warps=warps)\n"
    assert old in source
    helper, launch = {
        "module": ("NW = 8\n\n\ndef _block():\n    return NW * 128\n", "num_warps=NW"),
        "dict_default": (
            'OPTS = {"num_warps": 8}\n\n\ndef _block(o=OPTS):\n    return o["num_warps"] * 128\n',
            "**OPTS",
        ),
        "lambda": ("NW = 8\n_block = lambda: NW * 128\n", "num_warps=NW"),
        "nested": (
            "NW = 8\n\n\ndef _inner():\n    return NW\n\n\ndef _block():\n    return _inner() * 128\n",
            "num_warps=NW",
        ),
    }[through]
    source = source.replace(old, f"    BLOCK = _block()\n    rowmax_kernel[(M,)](x, out, N, BLOCK=BLOCK, {launch})\n")
    source = source.replace("def run(x):", f"{helper}\n\ndef run(x):")
    _refuses_4_keeps_16(source, "_block()")
    xent = (DATA / "breaker7" / "xent_chunked" / "kernel.py").read_text()
    assert shrunk_covers(discover_source(xent), xent, {"num_warps": 4}, {"num_warps": 32}) == []


def _refuses_4_keeps_16(source: str, computed: str) -> None:
    """n64's rule on a row max whose ``BLOCK = <computed>`` is 1024 at ``num_warps=8``: a pick of 4 refused, 16 kept."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import shrunk_covers

    found = discover_source(source)
    assert shrunk_covers(found, source, {"num_warps": 4}, {"num_warps": 8}) == [
        f"BLOCK is computed from num_warps (BLOCK = {computed}) and covers N with one block (cols < N): num_warps=4 "
        "moves it by more than num_warps (a value no rule here works out), so it may leave part of a row undone where "
        "the original covers it"
    ]
    assert shrunk_covers(found, source, {"num_warps": 16}, {"num_warps": 8}) == []
