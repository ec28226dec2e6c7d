"""A fresh helper breaking the ninth session's work as a new user (break10, 2026-12-06): the README's CPU commands,
issue 32's kernels tuned and checked at sizes no entry names, new kernels written with the session's features, bad
input to the new surfaces; one test per fix (docs/faults.md, "The ninth session's work broken as a new user")."""

from __future__ import annotations

import pytest

from kernelopt.cli.app import main
from kernelopt.memory.model import parse_version


def test_a_version_is_written_in_ascii_digits(add_workspace, capsys: pytest.CaptureFixture[str]) -> None:
    """b1: `memory create WS --version v٢` (an Arabic-Indic two) created memory/v2.json, and `memory read WS v١` read
    v1: the label's pattern took any Unicode digit and int() read it. A version is v<N> in ASCII digits."""
    assert parse_version("v2") == parse_version(" V2 ") == parse_version("2") == 2
    for text in ("v٢", "٢", "v²", "v1\n2"):
        with pytest.raises(ValueError, match="not a version label"):
            parse_version(text)
    ws = str(add_workspace.root)
    capsys.readouterr()
    assert main(["memory", "create", ws, "--version", "v٢"]) == 2
    assert "not a version label" in capsys.readouterr().err
    assert not (add_workspace.root / "memory" / "v2.json").exists()


def test_a_candidate_time_limit_of_forever_is_refused(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    """b3: `tune PATH --candidate-timeout-s inf` ran a session whose candidates had no limit (one that hangs in the
    interpreter, reading out of bounds, held it forever), where n31 refused every other time limit of forever. Now
    one line, exit 2, before any work; nan was refused already (not >= 1)."""
    (tmp_path / "kernel.py").write_text("def run(x):\n    return x\n")
    (tmp_path / "reference.py").write_text("def get_inputs():\n    return []\n")
    for given in ("inf", "1e400"):
        assert main(["tune", str(tmp_path), "--device", "cpu", "--candidate-timeout-s", given]) == 2
        assert "--candidate-timeout-s must be a finite number of seconds, not inf" in capsys.readouterr().err
    assert not (tmp_path / ".kernelopt").exists()


@pytest.mark.timeout(120)
def test_a_heuristic_of_two_sizes_is_not_tabled_over_one(tmp_path) -> None:
    """b2: heur_prod's ``BLOCK`` is ``next_power_of_2(args["C"] * args["G"])``, the whole row one block. A session
    picking BLOCK=128 (what both SHAPES entries compute) wrote ``128 if args["C"] <= 50 else _block(args)``: the
    table bounded C alone, and at C=30, G=5 (150 columns, no entry's) the block covered 128 of them. A heuristic
    reading several sizes is tabled over its own value now: ``128 if _block(args) <= 128``."""
    import shutil
    from pathlib import Path

    from tests.test_breaker7_cases import _correct_padded
    from tests.test_breaker_cases import _tune_edit

    folder = Path(shutil.copytree(Path(__file__).parent / "data" / "break10" / "heur_prod", tmp_path / "heur_prod"))
    written, _ = _tune_edit(folder, {"BLOCK": 128})
    assert written is not None and '"BLOCK": lambda args: 128 if _block(args) <= 128 else _block(args)' in written
    (folder / "kernel.py").write_text(written)
    assert _correct_padded(folder, [{"R": 3, "G": 5, "C": 30}]) == {"R=3,G=5,C=30": True}
