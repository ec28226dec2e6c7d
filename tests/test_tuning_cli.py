"""``kernelopt tune --replay`` and ``kernelopt schema sweep`` end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.tuning.record import shipped_sweep_schema

RUNS = Path(__file__).resolve().parents[1] / "docs" / "gpu-runs"
SUMSQ = str(RUNS / "2026-12-01-sweeps" / "sumsq.json")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_replay_prints_success_evaluations_and_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "tune", "--replay", SUMSQ, "--trials", "4")
    assert code == 0, err
    for words in ("success", "mean evaluations", "mean final/best", "sumsq", "4 trials", "wall_s / 38"):
        assert words in out, words
    assert "sessions ended: 4 " in out  # why they ended (a fresh user could not tell a stall from a budget)


def test_replay_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "tune", "--replay", SUMSQ, "--trials", "3", "--budget-fraction", "0.5", "--seed", "9", "--json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert {"success_rate", "mean_evaluations", "mean_ratio_to_best", "trials"} <= set(doc)
    assert doc["trials"] == 3 and doc["budget"] == 19 and doc["mean_evaluations"] == 19
    assert doc["stops"] == {"candidates": 3}  # an explicit fraction runs whole: no stall stop
    code, out, _ = run(
        capsys, "tune", "--replay", SUMSQ, "--trials", "2", "--budget", "7", "--strategy", "random", "--json"
    )
    assert code == 0 and json.loads(out)["budget"] == 7 and json.loads(out)["strategy"] == "random"


def test_replay_of_a_2026_11_29_file(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(RUNS / "2026-11-29-run4-sweep_elementwise.json.gz")
    code, out, err = run(capsys, "tune", "--replay", path, "--trials", "2", "--json")
    assert code == 0, err
    assert json.loads(out)["sweep"] == "elementwise"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{", "not a JSON sweep file"),
        (json.dumps({"schema": 1, "key": {}}), "does not match the sweep file schema"),
        (json.dumps({"schema": 2}), "schema 2 is not supported"),
    ],
)
def test_a_bad_replay_file_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, words: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    code, out, err = run(capsys, "tune", "--replay", str(bad), "--trials", "2")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("kernelopt: error:") and words in err


def test_a_replay_of_a_folder_says_it_is_a_folder(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The fresh-clone trial of 2026-12-03: `kernelopt tune --replay DIR` said "no such file"."""
    code, out, err = run(capsys, "tune", "--replay", str(tmp_path), "--trials", "2")
    assert code == 2 and out == ""
    assert err == f"kernelopt: error: {tmp_path}: is a folder, not a sweep file; give one of its .json files\n"
    code, _, err = run(capsys, "tune", "--replay", str(tmp_path / "none.json"), "--trials", "2")
    assert code == 2 and err == f"kernelopt: error: {tmp_path / 'none.json'}: no such file\n"


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--trials", "2"], "or --replay SWEEP.json"),
        (["--replay", SUMSQ, "--budget", "3", "--budget-fraction", "0.1"], "not both"),
        (["--replay", SUMSQ, "--budget-fraction", "1.5"], "(0, 1]"),
        (["--replay", SUMSQ, "--strategy", "annealing"], "unknown strategy"),
    ],
)
def test_bad_flags_are_one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    code, _, err = run(capsys, "tune", *argv)
    assert code == 2 and err.count("\n") == 1 and words in err


def test_schema_sweep_prints_the_shipped_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", "sweep")
    assert code == 0 and out == shipped_sweep_schema()
    code, out, _ = run(capsys, "schema", "memory")
    assert code == 0 and "quality_gate" in out


def test_within_a_sweep_of_other_knobs_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "loop"
    shutil.copytree(Path(__file__).parent / "data" / "loop", folder)
    before = (folder / "kernel.py").read_bytes()
    code, _out, err = run(capsys, "tune", str(folder), "--device", "cpu", "--within", SUMSQ, "--dry-run")
    assert code == 2, err
    assert "--within" in err and "which this launch has no knob for" in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if line.strip()]) <= 2
    assert (folder / "kernel.py").read_bytes() == before


def test_within_a_sweep_searches_only_its_values(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import shutil

    from kernelopt.tuning.record import read_sweeps, write_sweep

    folder = tmp_path / "loop"
    shutil.copytree(Path(__file__).parent / "data" / "loop", folder)
    # a sweep of the loop kernel's one knob over three values (its configurations are not needed: the
    # restriction reads the space)
    swept = read_sweeps(Path(SUMSQ))[0].model_copy(
        update={"space": {"BLOCK": [64, 256, 1024]}, "naive_config": {"BLOCK": 64}, "configs": [], "complete": False}
    )
    write_sweep(tmp_path / "sweep.json", swept)
    code, out, err = run(
        capsys, "tune", str(folder), "--device", "cpu", "--within", str(tmp_path / "sweep.json"), "--dry-run", "--json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["space_size"] == 3 and "BLOCK: one of [64, 256, 1024]" in err
    assert doc["best_config"]["BLOCK"] in (64, 256, 1024)
