"""Problem sizes: the task card's ``sizes`` overrides reference.py's module-level constants, a scale
shrinks the others for a quick run, the file keeps its own sizes, and a missing name is exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.errors import UsageError
from kernelopt.harness.gate import validate
from kernelopt.harness.sizes import effective_constants, size_constants
from kernelopt.memory.model import GateResult
from kernelopt.workspace import Workspace

from .conftest import DATA

RELU = DATA / "kernelbench" / "relu"

pytestmark = pytest.mark.timeout(240)


def _ws(root: Path, card: str | None) -> Workspace:
    path = None
    root.mkdir(parents=True, exist_ok=True)
    if card is not None:
        path = root / "card.md"
        path.write_text(card)
    return Workspace.create(
        "relu", kernel=RELU / "kernel.py", reference=RELU / "reference.py", root=root, task_card=path
    )


def test_constants_are_read_from_the_file_without_importing_it(tmp_path: Path) -> None:
    ref = tmp_path / "reference.py"
    ref.write_text("import torch\nN = 4096\nK: int = 3\nEPS = 1e-5\nFLAG = True\nname = 'x'\nM = N * 2\n")
    assert size_constants(ref) == {"N": 4096, "K": 3, "EPS": 1e-5, "M": 8192}  # a product too
    assert effective_constants(ref, sizes={}, scale=None) == {}
    # the scale leaves small integers (kernel sizes, strides) and floats alone
    assert effective_constants(ref, sizes={}, scale=0.25) == {"N": 1024}
    assert effective_constants(ref, sizes={"K": 5}, scale=0.5) == {"K": 5, "N": 2048}
    with pytest.raises(UsageError, match="'Q'") as err:
        effective_constants(ref, sizes={"Q": 1}, scale=None)
    assert err.value.exit_code == 2 and "N, K, EPS" in err.value.one_line()


def test_a_size_written_as_a_shift_is_a_size(tmp_path: Path) -> None:
    """H100, 2026-12-06: net11's GPU test wrote its module-level size ``N = 1 << 20``, which was read as no number,
    so the net said "reference.py gives no size to move" and checked nothing; sizes are often written so."""
    from kernelopt.harness.sizes import module_sizes

    ref = tmp_path / "reference.py"
    ref.write_text(
        "import torch\nN = 1 << 12\nH = N >> 2\nS = 1 << 99\nF = 1.5 * 2\n\n"
        "def get_inputs(device='cpu'):\n    return [torch.randn(N, device=device)]\n"
    )
    assert size_constants(ref) == {"N": 4096, "H": 1024, "F": 3.0}  # a shift past 64 bits is no size
    assert module_sizes(ref) == {"N": 4096}


def test_sizes_and_scale_change_the_timed_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELOPT_DEVICE", "cpu")
    monkeypatch.setenv("KERNELOPT_BENCH_S", "0.05")
    monkeypatch.setenv("KERNELOPT_SEEDS", "1")
    default = validate(_ws(tmp_path / "a", None), 0, previous=None)
    assert default.record.performance.bytes_moved == 2 * 64 * 256 * 4  # the file's sizes
    ws = _ws(tmp_path / "b", "---\nsizes:\n  dim: 32\n---\n")
    over = validate(ws, 0, previous=None)
    assert over.result is GateResult.PASS
    assert over.record.performance.bytes_moved == 2 * 64 * 32 * 4
    assert "batch_size = 64" in ws.reference_py.read_text()  # the file is left as written
    scaled = validate(ws, 1, previous=None, size_scale=0.25)  # the card's dim stays; batch_size scales
    assert scaled.record.performance.bytes_moved == 2 * 16 * 32 * 4
    assert any("problem sizes changed" in w for w in scaled.warnings)


def test_a_size_naming_no_constant_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kernelopt.cli.app import main

    ws = _ws(tmp_path, "---\nsizes:\n  seq_len: 128\n---\n")
    monkeypatch.setenv("KERNELOPT_DEVICE", "cpu")
    code = main(["validate", str(ws.root)])  # the CLI's exit code and one line (tests/test_harness_gate.py runs it)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "seq_len" in err and len(err.strip().splitlines()) == 1


def test_the_profiler_driver_reads_the_same_sizes_from_the_task_card(tmp_path: Path) -> None:
    from kernelopt.harness.sizes import card_constants

    ws = _ws(tmp_path, "---\nsizes:\n  dim: 32\nsize_scale: 0.5\n---\n")
    assert card_constants(ws.reference_py, None) == {"dim": 32, "batch_size": 32}
    assert card_constants(ws.reference_py, 0.25) == {"dim": 32, "batch_size": 16}
    assert card_constants(RELU / "reference.py", None) == {}  # no task card beside it: the file's sizes
