"""leftovers17: the fifteenth session's correctness and judgement leftovers (docs/faults.md, "leftovers17"). Each
test runs what a user runs: kernels under Triton's interpreter, Triton's own compile for sm_90 (no GPU needed),
``tune`` on a kernel file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import load_fresh, triton_interpreted


def _flag_cases() -> dict[str, tuple[str, dict[str, object], dict[str, object]]]:
    """b14's flag kernel five ways, each launched with a flag of 1: the kernel's source, and its signature and
    constexprs as a GPU launch of it binds them (Triton's JIT makes an int argument of 1 a constexpr, unless
    ``do_not_specialize`` names it)."""
    from tests.test_break16_cases import _FLAGGED
    from tests.test_late16_cases import _flag_forms

    data = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    local = _FLAGGED.replace("    if flag and n > 0:", "    f = flag\n    if f and n > 0:")
    paired = _FLAGGED.replace("    if flag and n > 0:", "    f, k = flag, n\n    if f and k > 0:")
    assert local != _FLAGGED != paired
    forms = _flag_forms()
    return {
        "argument": (_FLAGGED, {**data, "flag": "constexpr"}, {"flag": 1, "BLOCK": 64}),
        "local": (local, {**data, "flag": "constexpr"}, {"flag": 1, "BLOCK": 64}),  # the code generator's tensor
        "paired": (paired, {**data, "flag": "constexpr"}, {"flag": 1, "BLOCK": 64}),  # each element a tensor too
        "loaded": (forms["loaded"], {**data, "flag_ptr": "*i32"}, {"BLOCK": 64}),
        "unspecialized": (forms["unspecialized"], {**data, "flag": "i32"}, {"BLOCK": 64}),
    }


@pytest.mark.timeout(240)
def test_l1_only_an_argument_the_jit_specializes_is_a_constexpr_in_and(tmp_path: Path) -> None:
    """late16 l3 (b14's false pass): the interpreter read any integer scalar holding 1 as the constexpr a GPU launch
    makes of an argument of 1, so ``flag = tl.load(flag_ptr)`` holding 1, an argument under ``do_not_specialize``
    and a local assigned the argument each ran ``if flag and n > 0`` where the sm_90 compile joins an int32 by
    ``logical_and`` and fails. Each verdict of the interpreter is now the compile's, and the argument itself runs."""
    import torch

    from tests.test_gpu_parity import _compiled

    cases = _flag_cases()
    interpreted: dict[str, str | None] = {}
    with triton_interpreted():
        for name, (text, _, _) in cases.items():
            path = tmp_path / f"{name}.py"
            path.write_text(text)
            module = load_fresh(path, f"_leftovers17_flag_{name}")
            try:
                out = module.run(torch.ones(10), 1)
            except Exception as exc:  # the interpreter's refusal is its verdict
                interpreted[name] = str(exc)
            else:
                assert torch.equal(out, torch.full((10,), 2.0)), name
                interpreted[name] = None
    both = tmp_path / "compiled.py"  # the kernels in one file: one compile process
    both.write_text("\n".join(text.replace("flag_kernel", f"flag_{name}") for name, (text, _, _) in cases.items()))
    jobs = [
        {"kernel": f"flag_{name}", "signature": signature, "constexprs": constexprs, "options": {}, "arch": 90}
        for name, (_, signature, constexprs) in cases.items()
    ]
    compiled = dict(zip(cases, _compiled(both, jobs), strict=True))
    for name, cpu in interpreted.items():
        assert (compiled[name]["error"] is None) == (cpu is None), (name, cpu, compiled[name])
    assert interpreted["argument"] is None  # the specialized argument runs: not every verdict a refusal
    assert all(
        "Cannot bitcast data-type of size 32 to data-type of size 1" in (interpreted[n] or "")
        for n in ("loaded", "unspecialized", "local", "paired")
    )


TUPLE_RUN = Path(__file__).parent / "data" / "leftovers17" / "tuple_run"
"""A 2-D scale whose tiles are ``TILE = (16, 16)`` at the module, unpacked in ``run`` (``bm, bn = TILE``)."""


def _module_tuple(folder: Path) -> Path:
    """tuple_run with its tiles unpacked at the module instead (``BLOCK_M, BLOCK_N = TILES``), read in ``run``."""
    kernel = folder / "kernel.py"
    text = kernel.read_text()
    moved = text.replace("TILE = (16, 16)\n", "TILES = (16, 16)\nBLOCK_M, BLOCK_N = TILES\n")
    moved = moved.replace("    bm, bn = TILE\n", "").replace("bm", "BLOCK_M").replace("bn", "BLOCK_N")
    assert moved.count("TILES") == 2 and "bm" not in moved
    kernel.write_text(moved)
    return folder


def _not_in_shapes_right(folder: Path) -> None:
    from tests.test_breaker7_cases import _all_correct

    _all_correct(folder, [{"M": 37, "N": 200}, {"M": 130, "N": 17}, {"M": 1, "N": 1}])


def test_l2_a_module_level_tuple_unpacked_is_a_knob_an_element_each(tmp_path: Path) -> None:
    """l2: ``bm, bn = TILE`` in ``run()`` with ``TILE = (16, 16)`` at the module was "computed from no size of the
    problem", tuned by an override in ``run`` (or ``BLOCK_M, BLOCK_N = TILES`` at the module, ``bm = TILE[0]``, the
    same); each element is now a knob of its own, at the tuple's line, and an edit writes the element in the tuple."""
    import shutil

    from kernelopt.tunables import apply_source, discover_source
    from kernelopt.tunables.guard import guard_edit

    text = (TUPLE_RUN / "kernel.py").read_text()
    knobs = {t.key: t for t in discover_source(text)}
    assert (knobs["TILE[0]"].name, knobs["TILE[0]"].value, knobs["TILE[0]"].kind.value) == (
        "BLOCK_M",
        16,
        "module_constant",
    )
    assert (knobs["TILE[1]"].name, knobs["TILE[1]"].value, knobs["TILE[0]"].location) == ("BLOCK_N", 16, "kernel.py:8")
    moved = _read(_module_tuple(Path(shutil.copytree(TUPLE_RUN, tmp_path / "t"))))
    knobs = {t.key: t for t in discover_source(moved)}
    assert (knobs["BLOCK_M"].value, knobs["BLOCK_N"].value, knobs["BLOCK_N"].location) == (16, 16, "kernel.py:8")
    edited = apply_source(moved, {"BLOCK_M": 64, "BLOCK_N": 32}).new_source
    assert "TILES = (64, 32)\nBLOCK_M, BLOCK_N = TILES\n" in edited
    # read by subscript and bound in run: the same knobs, written in the tuple; a move that no longer divides a
    # size a mask-less grid reads is refused as the unpacking's is (break17's b15); at the launch it is read as before
    bound = text.replace("    bm, bn = TILE\n", "    bm = TILE[0]\n    bn = TILE[1]\n")
    knobs = {t.key: t for t in discover_source(bound)}
    assert (knobs["TILE[0]"].value, knobs["TILE[1]"].kind.value, knobs["TILE[1]"].location) == (
        16,
        "module_constant",
        "kernel.py:8",
    )
    assert apply_source(bound, {"BLOCK_M": 64}).new_source == bound.replace("TILE = (16, 16)", "TILE = (64, 16)")
    nomask = _tuple_nomask()
    nomask = nomask.replace("    bm, bn = TILE\n", "    bm = TILE[0]\n    bn = TILE[1]\n")
    refused = guard_edit(nomask, nomask.replace("TILE = (16, 16)", "TILE = (32, 16)"))
    assert refused.new_source is None and (refused.note or "").startswith("bm=32 does not divide"), refused
    at_launch = text.replace("    bm, bn = TILE\n", "").replace("bm", "TILE[0]").replace("bn", "TILE[1]")
    # read at the launch (BLOCK_M=TILE[0]) the element is the same knob (leftovers18's n3; a computed setting before)
    assert discover_source(at_launch)[0].key == "TILE[0]"


def test_l2_tune_writes_a_tuple_s_elements_right_at_sizes_no_entry_names(tmp_path: Path) -> None:
    """l2: what ``tune`` writes when its session picks larger tiles (the pick given, as the GPU tests of late16 give
    theirs: a session on the CPU took 15 s): the tuple's elements move in ``TILE = (...)`` and nothing else, the
    module-level unpacking's in ``TILES = (...)``; each written kernel is right, under ``TRITON_INTERPRET=1``, at sizes
    no SHAPES entry names (its inputs and outputs fenced in NaN)."""
    import shutil

    from tests.test_breaker_cases import _tune_edit

    folder = Path(shutil.copytree(TUPLE_RUN, tmp_path / "run"))
    text, note = _tune_edit(folder, {"BLOCK_M": 64, "BLOCK_N": 32})
    assert text is not None and text.replace("TILE = (64, 32)", "TILE = (16, 16)") == _read(TUPLE_RUN), note
    (folder / "kernel.py").write_text(text)
    _not_in_shapes_right(folder)

    moved = _module_tuple(Path(shutil.copytree(TUPLE_RUN, tmp_path / "module")))
    before = _read(moved)
    text, note = _tune_edit(moved, {"BLOCK_M": 128, "BLOCK_N": 64})
    assert text is not None and text.replace("TILES = (128, 64)", "TILES = (16, 16)") == before, note
    (moved / "kernel.py").write_text(text)
    _not_in_shapes_right(moved)


def _tuple_nomask() -> str:
    """tuple_run without masks (``M // bm`` by ``N // bn`` programs), as break17's b15 builds it."""
    from tests.test_break17_cases import TUPLE_NOMASK

    text = _read(TUPLE_RUN)
    for old, new in TUPLE_NOMASK:
        text = text.replace(old, new)
    return text


def _read(folder: Path) -> str:
    return (folder / "kernel.py").read_text()


ASIDE = Path(__file__).parent / "data" / "leftovers15" / "aside"
"""A scale whose ``run`` asserts at most 16 programs: as written (BLOCK=64) it runs n=256 and cannot run n=2000."""


def _aside_primary(folder: Path) -> Path:
    """leftovers15's aside turned round: ``run`` asks for at least 4 programs, so as written (BLOCK=64) it raises at
    n=100, the smallest entry (the primary in the interpreter), and runs n=2000."""
    import shutil

    shutil.copytree(ASIDE, folder)
    kernel, reference = folder / "kernel.py", folder / "reference.py"
    text = kernel.read_text().replace(
        'assert programs <= 16, "at most 16 programs"', 'assert programs >= 4, "at least 4 programs"'
    )
    shapes = reference.read_text().replace('SHAPES = [{"n": 256}, {"n": 2000}]', 'SHAPES = [{"n": 2000}, {"n": 100}]')
    assert text != kernel.read_text() and shapes != reference.read_text()
    kernel.write_text(text)
    reference.write_text(shapes)
    return folder


@pytest.mark.timeout(120)
def test_l4_an_original_that_cannot_run_the_primary_stops_tune_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """l4: an entry the original cannot run is set aside only after the primary (the smallest entry in the
    interpreter, the first on a GPU). Where the primary is the one, the session went on without the original, timed
    the candidates and wrote the fastest ("the current BLOCK=64 was not timed"), its gain over kernel.py never
    measured. It now stops with exit 2 and one line naming the entry and one the original runs, nothing written."""
    from kernelopt.cli.app import main
    from kernelopt.harness.unrunnable import CANNOT_RUN

    folder = _aside_primary(tmp_path / "aside_primary")
    written = (folder / "kernel.py").read_text()
    assert main(["tune", str(folder), "--device", "cpu", "--budget", "1", "--json"]) == 2
    out, err = capsys.readouterr()
    line = (
        f"kernelopt: error: the SHAPES entry n=100 {CANNOT_RUN}, while it runs n=2000 (raised while running: "
        "AssertionError: at least 4 programs (kernel.py:21)): it is the entry every candidate is checked and timed at "
        "first, so none could be compared with kernel.py; drop it from SHAPES to tune on the others"
    )
    assert err.strip().splitlines()[-1] == line, err
    assert json.loads(out) == {"error": {"code": 2, "message": line.removeprefix("kernelopt: error: ")}}  # late34 z110
    assert (folder / "kernel.py").read_text() == written


@pytest.mark.timeout(180)
def test_l5_the_net_derives_no_size_from_an_entry_set_aside(tmp_path: Path) -> None:
    """l5: leftovers15's aside (SHAPES n=256 and n=2000; as written, BLOCK=64, ``run`` asserts at most 16 programs, so
    it cannot run n=2000, which the session sets aside). The net derived its sizes from every entry, the one set aside
    too: a pick of BLOCK=256 was "correct at n=2049, n=2008, n=129", two sizes past the one the original cannot run,
    which the original cannot run either: no evidence about the pick where the original runs. Now every size the net
    tries comes from n=256 alone, each one the original runs (at most 1024 elements)."""
    import re
    import shutil
    from dataclasses import replace

    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator
    from tests.test_tuning_net import _session

    folder = Path(shutil.copytree(ASIDE, tmp_path / "aside"))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    current = prepared.space.current()
    assert current is not None and [s.label() for s in prepared.shapes] == ["n=256", "n=2000"]
    tuning = _session(prepared, [({"BLOCK": 256}, 1.0)], (current.as_dict(), 2.0))
    base = prepared.base_source
    with ShapesEvaluator(
        prepared.problem, prepared.shapes, base, lambda c: base, session_dir=prepared.session_dir, env=prepared.env,
        original=current,
    ) as evaluator:  # fmt: skip
        evaluator.evaluate([current])  # the session's first batch: the original sets n=2000 aside
        assert list(evaluator.set_aside) == ["n=2000"]
        aside = evaluator.aside_lines()
        done = tf._checked_edit(replace(tuning, set_aside=aside), evaluator)
    assert done.net is not None and done.net.failed is None and done.edit is not None, done.edit_note
    tried = [int(n) for n in re.findall(r"n=(\d+)", done.net.line())]
    assert tried and max(tried) <= 16 * 64, done.net.line()  # every size one the original runs


def test_l2_a_tuple_run_binds_stays_a_computed_setting() -> None:
    """l2's neighbour: a tuple ``run`` itself binds (``TILE = (16, 16)`` then ``bm, bn = TILE``, both in ``run``) is
    no knob an element each: its element moved under a guard by a size (``if M % 32 == 0: bm = 32``) would be bound
    again by the unpacking after the guard, a write that changes nothing; it stays the computed setting it was, tuned
    after the unpacking."""
    from kernelopt.tunables import discover_source

    nomask = _tuple_nomask()
    local = nomask.replace("TILE = (16, 16)\n", "").replace(
        "    bm, bn = TILE\n", "    TILE = (16, 16)\n    bm, bn = TILE\n"
    )
    kinds = {t.key: t.kind.value for t in discover_source(local)}
    assert kinds["scale_kernel:BLOCK_M"] == kinds["scale_kernel:BLOCK_N"] == "computed_setting", kinds
    assert not any(k.startswith("TILE[") for k in kinds), kinds


def test_l4_an_original_that_runs_no_entry_goes_on_as_before() -> None:
    """l4's other side: where the original raises at the primary and at every other entry, dropping the primary is
    no cure (break15's b12: an original raising there may raise everywhere), so the session goes on as before, every
    candidate checked without it (test_tuning_folder's session in which no candidate ran still exits 1); where it runs
    one, that one is named. The evaluator asks the other entries in order, untimed, once a session."""
    from kernelopt.tuning.candidate import Config, Outcome, Result
    from kernelopt.tuning.problem import ProblemError
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator

    original = Config.of({"BLOCK": 64})

    class Entry:
        def __init__(self, runs: bool) -> None:
            self.runs, self.asked = runs, 0

        def evaluate(self, batch: list[Config], timed: bool = True) -> list[Result]:
            assert batch == [original] and not timed
            self.asked += 1
            outcome = Outcome.OK if self.runs else Outcome.RUN_ERROR
            return [Result(config=original.as_dict(), outcome=outcome)]

    raised = Result(
        config=original.as_dict(), outcome=Outcome.RUN_ERROR, failed_entry="n=100",
        reason="on the SHAPES entry n=100: raised while running: AssertionError: at least 4 programs",
    )  # fmt: skip
    for runs in ((False, False), (False, True)):
        evaluator = ShapesEvaluator.__new__(ShapesEvaluator)
        entries = [Entry(False), *(Entry(r) for r in runs)]
        evaluator.labels, evaluator.evaluators = ["n=100", "n=2000", "n=3000"], entries
        evaluator.original, evaluator.primary_elsewhere = original, None
        for _ in range(2):  # a second batch holding the original (a re-time) asks no entry again
            if not runs[1]:
                assert evaluator._set_aside([original], [raised]) is False
                continue
            with pytest.raises(ProblemError) as caught:
                evaluator._set_aside([original], [raised])
            said = "the SHAPES entry n=100 is a size kernel.py as written (V0) cannot run, while it runs n=3000"
            assert caught.value.message.startswith(said), caught.value.message
        assert [e.asked for e in entries] == [0, 1, 1]
