"""A new user's first hour on a fresh clone, tenth trial (2026-12-06): what the eleventh session changed (module-level
sizes, tuple ``SHAPES`` entries, key roles, the net's time cap and the size below the smallest entry, bounded tables,
falling heuristic tables, ``list_note``, int8 sizing) tried on the user's own kernels, and bad input of every kind;
one test per fix (docs/faults.md, "A new user's first hour, tenth trial")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"

#: tests/data/loop's reference with its size given as a shape: ``{"shape": [4096]}``.
SHAPED_REFERENCE = """import torch

SHAPES = {shapes}


def get_inputs(shape=(4096,), device="cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(*shape, generator=g).to(device), torch.randn(*shape, generator=g).to(device)]


def reference(x, y):
    return x + y
"""


def _loop(tmp_path: Path, shapes: str) -> Path:
    folder = shutil.copytree(DATA / "loop", tmp_path / "loop", ignore=lambda _, names: [".kernelopt"])
    (folder / "reference.py").write_text(SHAPED_REFERENCE.format(shapes=shapes))
    return folder


@pytest.mark.timeout(120)
def test_n56_a_shapes_entry_holding_a_list_is_tuned_as_its_tuple(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n56: ``SHAPES = [{"shape": [4096]}, ...]`` (a list where the eleventh session's tuples are taken), and a tuple
    built by code (``[dict(shape=(n,)) for n in ...]``, which comes back from the child that reads it as JSON's
    list), ended ``tune`` in exit 70 before its first candidate: "TypeError: unhashable type: 'list'" (the session's
    line of the shapes it times keyed the entries by their items). The entries are read with each list a tuple, as
    the bench workers hold them; the session runs and its net moves each number."""
    from kernelopt.cli.app import main
    from kernelopt.tuning.problem import reference_shapes

    built = _loop(tmp_path / "built", "[dict(shape=(n,)) for n in (4096, 1000)]")
    assert reference_shapes(built / "reference.py", device="cpu") == [{"shape": (4096,)}, {"shape": (1000,)}]
    folder = _loop(tmp_path, '[{"shape": [4096]}, {"shape": [1000]}]')
    assert main(["tune", str(folder), "--device", "cpu", "--budget", "2", "--dry-run", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["better"] and "shape=(4097,)" in out["net"], out["net"]
