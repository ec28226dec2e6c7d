"""One rule in one place (bound14, 2026-12-06): "bound once" read by one rule (tunables/bindings.py), the first call's
compare held to the gate's tolerance, a tile beside a guarded tile falling back at every launch; one test per fix
(docs/faults.md, "One rule in one place")."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from pathlib import Path

import pytest


def test_a_first_call_is_held_to_the_next_by_the_gate_s_comparison_and_said_in_its_words() -> None:
    """Discovery's first-call compare (tunables/autotune_worker) re-implemented the gate's rule: ``torch.allclose`` at
    reference.py's ATOL / RTOL, or 1e-2 / 1e-2 where it gives none, and a message of its own. It is the gate's
    comparison now (harness/first_call.calls_differ, given through ``FirstCallWatch``), the next call standing for
    the reference: the same verdict where reference.py gives ATOL / RTOL, the gate's dtype-aware default where it
    gives none (a 0.1 % drift between calls fails as the gate fails it, which 1e-2 let pass), and the gate's
    message."""
    import torch

    from kernelopt.harness.compare import check_outputs
    from kernelopt.harness.first_call import calls_differ, kept_outputs

    out = torch.linspace(1.0, 2.0, 64)
    kept = kept_outputs((out,))
    out.mul_(1.001)  # the next call writes the same buffer: the first call's values are kept apart
    plain, loose = types.SimpleNamespace(), types.SimpleNamespace(ATOL=1e-2, RTOL=1e-2)
    said = calls_differ(kept, (out,), plain)
    gate = check_outputs(kept, [out], [out]).message
    assert said is not None and gate is not None and said.endswith(f"taken as the reference: {gate}"), said
    assert "atol 0.000153, rtol 0.0001, fp32" in said, said  # the fp32 default: 1e-4 x the outputs' RMS (1.53)
    assert calls_differ(kept, (out,), loose) is None  # reference.py's tolerance, used as given
    assert calls_differ(kept, (kept[0].clone(),), plain) is None


@pytest.mark.timeout(90)
def test_tune_says_where_a_keyed_list_as_written_picks_other_than_the_fastest_pinned(tmp_path: Path) -> None:
    """tune times each configuration of a keyed autotune list pinned alone and judges the list by the fastest of
    them at each shape, which the list as written runs only where its own autotuner picks it. Discovery's run of the
    task now keeps each autotuner's pick at every ``SHAPES`` entry (``ShapeSizes.picks``: the list as written, run
    once at each key; on a GPU discovery runs a keyed list of a few configs for it), and tune says where a pick is
    not the fastest pinned. The picks here are the interpreter's own (newuser8's keyed list of BLOCK 1024 and 8192 at
    n = 1000 and 30000); the timings are replayed so that the other configuration is fastest at the first shape and
    the pick at the second."""
    from kernelopt.tunables.evaluate import LIST_RUN_MOST, evaluate_autotune, keyed_lists
    from kernelopt.tuning.candidate import Config
    from kernelopt.tuning.folder import judge_against_list
    from tests.test_newuser8_cases import KEYED_TABLE, _keyed_list, _replayed, _timed

    # which lists discovery runs as written on a GPU: keyed, of 2 to LIST_RUN_MOST configs (cheap to run)
    entry = 'triton.Config({"BLOCK": 1024}, num_warps=4, num_stages=3), '
    many = KEYED_TABLE.replace(entry, entry * LIST_RUN_MOST)  # one config more than LIST_RUN_MOST
    assert keyed_lists(KEYED_TABLE) and keyed_lists(many.replace(entry, "", 1))
    assert not keyed_lists(many) and not keyed_lists(KEYED_TABLE.replace('key=["n"]', "key=[]"))
    prepared, listed = _keyed_list(tmp_path)
    assert prepared.evaluation is None  # in the interpreter discovery does not run a literal list (its picks noise)
    folder = prepared.problem.kernel_py.parent
    evaluation = evaluate_autotune(folder / "kernel.py", reference=folder / "reference.py", device="cpu")
    prepared = dataclasses.replace(prepared, evaluation=evaluation)  # as on a GPU, where discovery runs it
    labels = tuple(s.label() for s in prepared.shapes)
    picks = [Config.of({"BLOCK": e.picks["_axpb"].kwargs["BLOCK"]}) for e in prepared.evaluation.shape_sizes]
    assert len(picks) == 2 and all(p in listed for p in picks), prepared.evaluation.shape_sizes
    other = next(c for c in listed if c != picks[0])
    us = {(other, 0): 100.0, (picks[0], 0): 200.0, (picks[1], 1): 300.0}
    results = [
        _timed(labels, c.as_dict()["BLOCK"], us.get((c, 0), 250.0), us.get((c, 1), 400.0))
        for c in [*listed, Config.of({"BLOCK": 2048})]
    ]
    best = min(results, key=lambda r: r.latency_us or 0.0).config
    judged = judge_against_list(_replayed(prepared, results, best, listed[0].as_dict(), 600.0), listed)
    line = judged.list_as_written
    assert line is not None and line.startswith("the autotune list as written (its autotuner's own pick at each key"), (
        line
    )
    assert (
        f"at {labels[0]} its autotuner picked BLOCK={picks[0].as_dict()['BLOCK']} (200 us pinned), the fastest "
        f"pinned is BLOCK={other.as_dict()['BLOCK']} (100 us)" in line
    ), line
    assert labels[1] not in line  # the pick there is the fastest pinned: nothing to say


class _Launches:
    """Stands for a kernel in a written module: each ``kernel[grid](...)`` recorded as (grid, keywords)."""

    def __init__(self) -> None:
        self.seen: list[tuple[tuple[int, ...], dict[str, int]]] = []

    def __getitem__(self, grid: tuple[int, ...]) -> Callable[..., None]:
        return lambda *args, **kwargs: self.seen.append((tuple(grid), kwargs))


def _both_fall_back(folder: Path, name: str) -> None:
    """The tuned tile_lse in ``folder`` launched twice, run at N on both sides of its guard ``N % 64 == 0``: both
    launches take the pick (``BLOCK_M=32, BLOCK_N=64``) at 128 and fall back together to the original at 96."""
    import torch

    from tests.conftest import load_fresh

    module = load_fresh(folder / "kernel.py", name)
    module.tile_lse = launches = _Launches()
    for n, values in ((96, (16, 32)), (128, (32, 64))):
        launches.seen.clear()
        module.run(torch.zeros(40, n))
        want = ((-(-40 // values[0]),), {"BLOCK_M": values[0], "BLOCK_N": values[1]})
        assert launches.seen == [want, want], (n, launches.seen)


@pytest.mark.timeout(120)
def test_a_tile_beside_a_guarded_tile_falls_back_with_it_in_every_launch(tmp_path: Path) -> None:
    """leftovers13 / lostpicks13's l1b (break14's seen): tile_lse launched twice in one function, the pick ``BLOCK_M=32,
    BLOCK_N=64``. b96879d8's rule (every setting a pick moved beside a guarded tile falls back with it) held for one
    launch only: with two, each launch's ``BLOCK_M`` claimed both grids' ``triton.cdiv(M, 32)``, the bound was refused
    ("moved with two settings") and ``BLOCK_M=32`` went out at every size, beside the original ``BLOCK_N=32`` where
    ``N % 64 != 0``: a combination never timed. A copy inside a launch is that launch's: both launches fall back.
    The written text, run at N on both sides of the guard: the launches' values, and the kernel right in the
    interpreter."""
    import shutil

    from tests.test_breaker7_cases import _all_correct
    from tests.test_breaker_cases import _tune_edit

    folder = Path(shutil.copytree(Path(__file__).parent / "data" / "variants" / "tile_lse_zero", tmp_path / "lse2"))
    launch = "    tile_lse[(triton.cdiv(M, 16),)](x, y, M, N, BLOCK_M=16, BLOCK_N=32)\n"
    source = (folder / "kernel.py").read_text()
    (folder / "kernel.py").write_text(source.replace(launch, launch * 2))
    written, note = _tune_edit(folder, {"BLOCK_M": 32, "BLOCK_N": 64})
    assert written is not None, note
    block = (
        "    BLOCK_N, BLOCK_M = 32, 16\n    if N % 64 == 0:  # kernelopt: tuned\n        BLOCK_N, BLOCK_M = 64, 32\n"
        "    tile_lse[(triton.cdiv(M, BLOCK_M),)](x, y, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)\n"
    )
    assert written.count(block) == 2, written
    assert note is not None and note.count("BLOCK_M=32") == 1 and "BLOCK_M=32 only where N % 64 == 0" in note, note
    (folder / "kernel.py").write_text(written)
    _both_fall_back(folder, "lse_twice")
    _all_correct(folder, [{"M": 9, "N": 96}, {"M": 17, "N": 128}])

    # the two launches reading one grid local: its literal moves once (it raised "two requested edits overlap", so no
    # candidate moving BLOCK_M ran), named by the first launch's BLOCK_M, which falls back with BLOCK_N in both
    shared = source.replace(
        launch, "    grid = (triton.cdiv(M, 16),)\n" + launch.replace("(triton.cdiv(M, 16),)", "grid") * 2
    )
    (folder / "kernel.py").write_text(shared)
    written, note = _tune_edit(folder, {"BLOCK_M": 32, "BLOCK_N": 64})
    assert written is not None, note
    first = "    BLOCK_M = 16\n    if N % 64 == 0:  # kernelopt: tuned\n        BLOCK_M = 32\n    grid = (triton.cdiv(M, BLOCK_M),)\n"
    assert first in written and block.replace("[(triton.cdiv(M, BLOCK_M),)]", "[grid]") in written, written
    (folder / "kernel.py").write_text(written)
    _both_fall_back(folder, "lse_shared_grid")


@pytest.mark.gpu
@pytest.mark.timeout(400)
def test_on_a_gpu_a_keyed_list_runs_once_as_written_and_tune_says_where_its_picks_differ(tmp_path: Path) -> None:
    """On CUDA discovery runs a keyed autotune list once as written at each ``SHAPES`` entry (its autotuner's own
    do_bench at each key): each entry's pick is one of the list's configs, kept in ``ShapeSizes.picks``; then
    ``kernelopt tune --device cuda --json --dry-run`` carries ``list_as_written`` (a line naming each shape whose pick
    is not the fastest pinned entry, or ``None`` where every pick is), and the kernel is left unchanged."""
    import json
    import os
    import subprocess
    import sys

    from kernelopt.tunables.evaluate import discover_evaluated
    from tests.test_newuser8_cases import AXPB_REFERENCE, KEYED_TABLE

    folder = tmp_path / "axpb"
    folder.mkdir()
    (folder / "kernel.py").write_text(KEYED_TABLE)
    (folder / "reference.py").write_text(AXPB_REFERENCE)  # its inputs made on the CPU, moved as the task's are
    _, evaluation = discover_evaluated(folder / "kernel.py", reference=folder / "reference.py", device="cuda")
    assert evaluation is not None and evaluation.problem is None, evaluation
    picks = [e.picks["_axpb"].kwargs["BLOCK"] for e in evaluation.shape_sizes]
    assert len(picks) == 2 and set(picks) <= {1024, 8192}, evaluation.shape_sizes
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[1] / "src"), *sys.path])}
    args = ["tune", str(folder), "--device", "cuda", "--budget-wall-s", "120", "--json", "--dry-run"]
    done = subprocess.run(
        [sys.executable, "-m", "kernelopt", *args], capture_output=True, text=True, env=env, timeout=360, check=False
    )
    assert done.returncode in (0, 1), done.stderr
    out = json.loads(done.stdout)
    print(json.dumps({k: out.get(k) for k in ("current_list", "list_as_written", "per_shape", "verdict")}, indent=1))
    assert "list_as_written" in out and out["current_list"], out
    line = out["list_as_written"]
    assert line is None or line.startswith("the autotune list as written (its autotuner's own pick at each key"), line
    assert (folder / "kernel.py").read_text() == KEYED_TABLE


BINDS = """def run(x, n, ctx):
    M, N = x.shape
    grid = (triton.cdiv(M, 16),)
    num_warps = 4
    if n > 1024:
        num_warps *= 2
    a = b = 8
    BLOCK: int = 64
    ctx.N = N
    out = torch.empty(M)
    out[0] = 1
    n = n * 2
    for i in range(3):
        pass
    _k[grid](x, out, N, BLOCK=BLOCK, num_warps=num_warps)
"""


def test_bound_once_is_one_rule_wherever_tunables_read_a_name_for_its_value() -> None:
    """Three readings of "bound once" differed (guard._bound_once: plain assignments only, so ``num_warps = 4`` then
    ``num_warps *= 2`` read as 4, a parameter assigned once read as its value; grains.assigned_once: a parameter
    not counted, a chained or annotated assignment no value; launch_bound._readable: ``ctx.N = N`` read as binding
    ``N``, a walrus not counted). One rule now (tunables/bindings.py): every binding counts, a parameter too; an item
    or attribute set through a name binds that name only; a value where the one binding is a plain assignment."""
    import libcst as cst

    from kernelopt.tunables.bindings import assigned_once, rebound

    fn = cst.parse_module(BINDS).body[0]
    assert isinstance(fn, cst.FunctionDef)
    code = cst.Module([]).code_for_node
    assert {k: code(v) for k, v in assigned_once(fn).items()} == {
        "grid": "(triton.cdiv(M, 16),)",
        "a": "8",
        "b": "8",
        "BLOCK": "64",
    }
    assert rebound(fn) == {"num_warps", "ctx", "out", "n"}  # N, M (an unpacking, once) and x read the same again


def test_a_heuristic_s_bound_reads_a_launch_argument_an_attribute_set_through_another_name_leaves_alone() -> None:
    """``ctx.N = N`` (an autograd launcher keeping its sizes) rebinds ``ctx``, not ``N``: a heuristic's bound over
    ``args["N"]`` is written with the launch's ``N`` where the moved literal is set; it was refused ("args is not
    known where it is set") as if ``N`` were bound twice. ``N`` rebound (``N = N + 0``) is still refused."""
    import libcst as cst

    from kernelopt.tunables.launch_bound import launch_test

    kernel = "@triton.jit\ndef _k(x_ptr, out_ptr, N, BLOCK: tl.constexpr):\n    pass\n\n\n"
    for text, want in ((BINDS, "N <= 100"), (BINDS.replace("ctx.N = N", "N = N + 0"), None)):
        module = cst.parse_module(kernel + text)
        fn = module.body[1]
        assert isinstance(fn, cst.FunctionDef) and isinstance(fn.body, cst.IndentedBlock)
        assert launch_test('args["N"] <= 100', fn.body.body[-1], fn, module) == want, text
