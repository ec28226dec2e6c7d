"""The knob patterns of tests/data/tunables/corpus tuned end to end on the CPU (Triton's interpreter, tiny
sizes): by ``kernelopt tune`` and by ``kernelopt optimize`` (issue 32 item 1), with the one line of a kernel whose
knobs would all change its results (the second bad-input bullet)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from kernelopt.tunables import discover_source

from .steady_timing import programs, steady_timing

DATA = Path(__file__).parent / "data" / "tunables"
CORPUS = DATA / "corpus"
TASKS = DATA / "tasks"


def _task(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    shutil.copyfile(CORPUS / f"{name}.py", folder / "kernel.py")
    shutil.copyfile(TASKS / name / "reference.py", folder / "reference.py")
    return folder


@pytest.fixture(autouse=True)
def _interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")


@pytest.mark.timeout(240)
def test_tune_edits_the_splat_entry_in_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``**LAUNCH_CONFIGS[gate.dtype]``: one run tells the float32 entry is in use; only its BLOCK is tuned (the
    interpreter ignores the launch options) and only that entry may be written."""
    from kernelopt.cli.app import main

    folder = _task(tmp_path, "geglu_dtype_configs")
    before = (folder / "kernel.py").read_text()
    assert main(["tune", str(folder), "--device", "cpu", "--budget", "2", "--repetitions", "2", "--json"]) == 0, (
        capsys.readouterr().err
    )
    out = json.loads(capsys.readouterr().out)
    tried = {k for c in out["candidates"] for k in c["config"]} if "candidates" in out else set(out["best_config"])
    assert tried == {"BLOCK"}, out
    after = (folder / "kernel.py").read_text()
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    assert len(changed) <= 1 and all("torch.float32: {" in a for a, _ in changed), changed
    if changed:
        assert out["written"] and discover_source(after)[0].key == "geglu_kernel:BLOCK"


@pytest.mark.timeout(240)
@pytest.mark.parametrize(
    ("name", "knob", "line"),
    [
        # BLOCK_SIZE = 1024, then `if n_cols <= 256: BLOCK_SIZE = ...`: the literal moves, the override stays
        ("prefix_sum_block_override", "BLOCK_SIZE", "    BLOCK_SIZE = "),
        # marked constants in module-level if/else: the run tells the branch taken, only that one moves
        ("scale_marked_per_backend", "BLOCK", "    BLOCK = "),
    ],
)
def test_tune_moves_the_knob_of_the_pattern(
    name: str, knob: str, line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kernelopt.cli.app import main

    folder = _task(tmp_path, name)
    before = (folder / "kernel.py").read_text()
    args = ["tune", str(folder), "--device", "cpu", "--budget", "2", "--repetitions", "2", "--json"]
    assert main(args) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    assert set(out["best_config"]) == {knob}, out
    after = (folder / "kernel.py").read_text()
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    assert len(changed) <= 1 and all(a.startswith(line) and b.startswith(line) for a, b in changed), changed
    if name == "scale_marked_per_backend":
        assert all("1024" in a for a, _ in changed)  # the branch taken here (not the HIP one, 512)
    if name == "prefix_sum_block_override":
        assert "if n_cols <= 256:\n        BLOCK_SIZE = triton.next_power_of_2(n_cols)" in after


@pytest.mark.timeout(240)
def test_tune_says_when_every_move_changes_the_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """RMSNorm's block comes from a tuple-unpacked settings helper and must cover the row: every smaller block
    fails and a larger one does not fit the problem, so on the CPU (where the warps are ignored) nothing can
    move: one line names the knob. Since tuneleft8 the space knows it before any candidate runs (the block starts
    at the row's 300 columns: 512, the value the helper computes)."""
    from kernelopt.cli.app import main

    folder = _task(tmp_path, "rmsnorm_calculate_settings")
    before = (folder / "kernel.py").read_bytes()
    assert main(["tune", str(folder), "--device", "cpu", "--budget", "3", "--repetitions", "2"]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if "kernelopt: error" in line]
    assert len(err) == 1, err
    assert err[0].startswith("kernelopt: error: BLOCK_SIZE cannot move without changing what kernel.py computes")
    assert "rmsnorm_kernel covers n_cols with one block of BLOCK_SIZE" in err[0] and "kernel.py unchanged" in err[0]
    assert "nothing to tune" in err[0] and not list(folder.glob(".kernelopt/tune/*/record.jsonl"))  # nothing ran
    assert (folder / "kernel.py").read_bytes() == before


@pytest.mark.timeout(120)
def test_the_run_records_each_shapes_sizes(tmp_path: Path) -> None:
    """What a tuned table buckets on: the value of the computation's size name at each SHAPES entry."""
    from kernelopt.tunables.evaluate import discover_evaluated

    folder = _task(tmp_path, "row_normalize_autograd")
    found, ev = discover_evaluated(folder / "kernel.py", reference=folder / "reference.py", device="cpu")
    assert ev is not None and ev.problem is None
    block = next(t for t in found if t.key == "row_normalize_kernel:BLOCK")
    assert block.size_names == ["n_cols"] and block.value == 128  # the first (smallest) entry's run
    sizes = [ev.size_value("row_normalize_kernel", "n_cols", {"rows": 4, "cols": c}) for c in (100, 256)]
    assert sizes == [100, 256]
    # a kernel that loops over a runtime length runs in the evaluation as in the checks (the interpreter's fixes)
    loop = _task(tmp_path, "kl_div_capped_block")
    _, ev = discover_evaluated(loop / "kernel.py", reference=loop / "reference.py", device="cpu")
    assert ev is not None and ev.problem is None and ev.size_value("kl_div_kernel", "n_cols", {"rows": 4, "cols": 300})


@pytest.mark.timeout(300)
def test_optimize_tunes_the_cap(
    tmp_path: Path, ws_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The loop sees the cap inside ``min()`` as tune does, and on the CPU plans no launch option."""
    from kernelopt.cli.app import main
    from kernelopt.planning.markdown import parse_plan
    from kernelopt.workspace import Workspace

    folder = _task(tmp_path, "kl_div_capped_block")
    args = ["optimize", str(folder), "--root", str(ws_root), "--device", "cpu", "--max-iters", "1", "--json"]
    assert main([*args, "-I", "bench_repetitions=2", "-I", "budget=2"]) == 0, capsys.readouterr().err
    ws = Workspace(Path(json.loads(capsys.readouterr().out)["workspace"]))
    plan = parse_plan(ws.plan_path(1).read_text())
    assert plan.targets == ["MAX_FUSED_SIZE"], plan.targets  # num_warps and num_stages: ignored on the CPU
    (v1,) = [r for r in ws.memory.records(include_masked=True) if r.number == 1]
    assert v1.candidates and {k for c in v1.candidates for k in c.parameters} == {"MAX_FUSED_SIZE"}


@pytest.mark.timeout(240)
def test_tune_moves_tile_sizes_the_launch_does_not_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module-level ``tl.constexpr`` read as a global and a constexpr parameter's default: both found and moved
    (8 rows a tile on 40 rows is 5 interpreted programs a column tile, more rows fewer), the grid's literal 64
    with the default, and the kernel written is correct at the SHAPES and at sizes no entry names. The candidates'
    figures are their programs (``steady_timing``: a loaded full run once judged the pick not better, m16)."""
    from kernelopt.cli.app import main

    from .test_knob_generality import correct_at

    def tiles(config: Mapping[str, Any], entry: Mapping[str, Any]) -> float:
        m, n = config["BLOCK_M"], config["BLOCK_N"]
        return programs(-(-entry["rows"] // m), -(-entry["cols"] // n)) + m * n / 1000  # a smaller tile breaks ties

    steady_timing(monkeypatch, tiles)
    folder = _task(tmp_path, "scale_tiles_implicit_blocks")
    args = ["tune", str(folder), "--device", "cpu", "--budget", "4", "--repetitions", "1", "--json"]
    assert main(args) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    assert out["written"] and set(out["best_config"]) == {"BLOCK_M", "BLOCK_N"}, out
    text = (folder / "kernel.py").read_text()
    found = {t.key: t.value for t in discover_source(text)}
    assert (found["BLOCK_M"], found["scale_tiles_kernel:BLOCK_N"]) == (
        out["best_config"]["BLOCK_M"],
        out["best_config"]["BLOCK_N"],
    )
    assert f"triton.cdiv(n_cols, {out['best_config']['BLOCK_N']}))" in text
    assert all(correct_at(folder, [(16, 100), (40, 300), (7, 1000), (130, 33)]).values())


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("name", "best", "written", "sizes"),
    [
        # one block computed inline at two launches: hoisted once, both launches read it
        (
            "add_then_scale_shared_block",
            {"BLOCK": 2048},
            "    if n <= 2000:  # kernelopt: tuned\n        BLOCK = 2048\n    add_bias_kernel[grid](x, tmp, 0.5, n, BLOCK=BLOCK)\n    scale_kernel[grid](tmp, out, 3.0, n, BLOCK=BLOCK)\n",
            [{"n": 1}, {"n": 1000}, {"n": 2049}, {"n": 9000}],
        ),
    ],
    ids=["shared_inline"],
)
def test_what_tune_writes_for_the_new_patterns_is_right_between_and_above_the_shapes(
    name: str, best: dict[str, int], written: str, sizes: list[dict[str, int]], tmp_path: Path
) -> None:
    """The edit ``kernelopt tune`` writes for its pick (the engine's own shaped edit, on the CPU), checked against
    the reference at sizes no ``SHAPES`` entry names: between the entries, below and above them (issue 32). A
    settings helper's dict is checked so in tests/test_breaker2_cases.py (helper_dict)."""
    from tests.test_breaker_cases import _correct_at, _edit_for

    folder = _task(tmp_path, name)
    text = _edit_for(folder, best)
    assert written in text
    (folder / "kernel.py").write_text(text)
    assert _correct_at((folder, sizes)) == {",".join(f"{k}={v}" for k, v in s.items()): True for s in sizes}
