"""Task-card values are validated when the card is read: one line naming the file, the field, the value
and the accepted range; a GPU without a spec sheet is a warning, not an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.errors import WorkspaceError
from kernelopt.taskcard import TaskCard
from kernelopt.workspace import Workspace

from .conftest import KERNELS

pytestmark = pytest.mark.timeout(60)

REPO = Path(__file__).resolve().parents[1]
CARDS = sorted(
    [
        *REPO.glob("examples/*/README.md"),
        *REPO.glob("tests/data/**/README.md"),
        REPO / "src/kernelopt/templates/README.md",
    ]
)


def card(front: str) -> TaskCard:
    return TaskCard.parse(f"---\n{front}\n---\n# body\n", origin="cards/README.md")


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("stop_conditions:\n  target_latency_us: -5", "'stop_conditions.target_latency_us' = -5: must be > 0"),
        ("stop_conditions:\n  target_latency_us: 0", "'stop_conditions.target_latency_us' = 0: must be > 0"),
        ("stop_conditions:\n  target_speedup: 0", "'stop_conditions.target_speedup' = 0: must be > 0"),
        ("stop_conditions:\n  target_speedup: -2.5", "'stop_conditions.target_speedup' = -2.5: must be > 0"),
        (
            "stop_conditions:\n  target_speedup_vs_reference: 0",
            "'stop_conditions.target_speedup_vs_reference' = 0: must be > 0",
        ),
        (
            "stop_conditions:\n  roofline_utilization_pct: 120",
            "'stop_conditions.roofline_utilization_pct' = 120: must be > 0 and <= 100",
        ),
        (
            "stop_conditions:\n  roofline_utilization_pct: 0",
            "'stop_conditions.roofline_utilization_pct' = 0: must be > 0 and <= 100",
        ),
        ("stop_conditions:\n  max_iterations: -1", "'stop_conditions.max_iterations' = -1: must be >= 0"),
        ("stop_conditions:\n  max_wall_time_min: 0", "'stop_conditions.max_wall_time_min' = 0: must be > 0"),
        (
            "stop_conditions:\n  max_consecutive_failures: 0",
            "'stop_conditions.max_consecutive_failures' = 0: must be >= 1",
        ),
        (
            "stop_conditions:\n  target_latency_us: fast",
            "'stop_conditions.target_latency_us' = 'fast': Input should be a valid number",
        ),
        # YAML's .inf and .nan passed "> 0" (a budget_wall_s of .inf: a session with no wall limit)
        ("budget_wall_s: .inf", "'budget_wall_s' = inf: must be a finite number > 0"),
        ("budget_wall_s: .nan", "'budget_wall_s' = nan: must be a finite number > 0"),
        ("budget_wall_s: -3", "'budget_wall_s' = -3: must be > 0"),
        ("budget_fraction: -.inf", "'budget_fraction' = -inf: must be a finite number > 0 and <= 1"),
        (
            "stop_conditions:\n  max_wall_time_min: .inf",
            "'stop_conditions.max_wall_time_min' = inf: must be a finite number > 0",
        ),
        ("dtype: fp13", "'dtype' = 'fp13': unknown dtype 'fp13'; accepted: fp64, fp32, tf32, bf16, fp16, fp8"),
        ("framework: jax", "'framework' = 'jax': unknown framework 'jax'; accepted: triton, cuda, hip, torch"),
        ("platform: intel", "'platform' = 'intel': unknown platform 'intel'; accepted: nvidia, amd"),
        (
            "kernel_form: module",
            "'kernel_form' = 'module': unknown kernel_form 'module'; accepted: function, kernelbench",
        ),
        (
            "stop_conditions:\n  target_latncy_us: 5",
            # issue 23: a wrong key lists the allowed ones
            "'stop_conditions.target_latncy_us': unknown key (allowed: max_consecutive_failures, max_iterations, "
            "max_wall_time_min, roofline_utilization_pct, target_latency_us, target_speedup, "
            "target_speedup_vs_reference)",
        ),
    ],
)
def test_bad_value_is_one_line_naming_file_field_and_range(front: str, expected: str) -> None:
    with pytest.raises(WorkspaceError) as info:
        card(front)
    line = info.value.one_line()
    assert line.startswith("cards/README.md: front matter ") and expected in line
    assert "\n" not in line


@pytest.mark.parametrize(
    ("front", "key"),
    [
        # A second block added above the card's own: PyYAML alone would keep the last one silently.
        (
            "stop_conditions: {roofline_utilization_pct: 150}\nstop_conditions:\n  roofline_utilization_pct: 90",
            "stop_conditions",
        ),
        ("stop_conditions:\n  target_speedup: 2\n  target_speedup: 3", "target_speedup"),
    ],
)
def test_a_key_given_twice_is_refused_not_silently_dropped(front: str, key: str) -> None:
    with pytest.raises(WorkspaceError) as info:
        card(front)
    line = info.value.one_line()
    assert line.startswith("cards/README.md: front matter is not valid YAML") and f"key '{key}' is given twice" in line
    assert "\n" not in line


@pytest.mark.parametrize("path", CARDS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_shipped_card_is_valid(path: Path) -> None:
    loaded = TaskCard.load(path)
    assert isinstance(loaded, TaskCard)


def test_shipped_cards_are_found() -> None:
    assert len(CARDS) >= 6 and any("examples" in str(p) for p in CARDS)


def test_valid_values_are_kept_and_words_lower_cased() -> None:
    c = card(
        "platform: NVIDIA\nframework: Triton\ndtype: torch.bfloat16\nkernel_form: function\ngpu: h200\n"
        "stop_conditions:\n  roofline_utilization_pct: 100\n  target_speedup: 0.5\n  max_iterations: 0"
    )
    assert (c.platform, c.framework, c.dtype, c.kernel_form) == ("nvidia", "triton", "torch.bfloat16", "function")
    # max_iterations 0 is valid on purpose: like `--max-iters 0`, it gates the baseline and stops
    assert c.stop_conditions.max_iterations == 0 and c.stop_conditions.roofline_utilization_pct == 100
    assert c.warnings() == []


def test_gpu_without_a_spec_sheet_is_a_warning_not_an_error() -> None:
    c = card("gpu: RTX 9999 Ti")
    assert c.gpu == "RTX 9999 Ti"
    (note,) = c.warnings()
    assert "'RTX 9999 Ti' has no spec sheet" in note and "nvidia-h200-sxm" in note and "measured ceilings" in note


def test_workspace_and_cli_refuse_a_bad_card(ws_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "README.md"
    bad.write_text("---\ngpu: H200\nstop_conditions:\n  target_latency_us: -1\n---\n")
    with pytest.raises(WorkspaceError, match="target_latency_us"):
        Workspace.create(
            "bad", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=ws_root, task_card=bad
        )
    args = ["init", "bad", "-k", str(KERNELS / "add_kernel.py"), "-r", str(KERNELS / "add_reference.py")]
    assert main([*args, "--root", str(ws_root), "--task-card", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err and "'stop_conditions.target_latency_us' = -1: must be > 0" in err


def test_init_warns_about_a_gpu_without_a_spec_sheet(
    ws_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unknown = tmp_path / "README.md"
    unknown.write_text("---\ngpu: RTX 9999 Ti\ndtype: fp16\n---\n")
    args = ["init", "rtx", "-k", str(KERNELS / "add_kernel.py"), "-r", str(KERNELS / "add_reference.py")]
    assert main([*args, "--root", str(ws_root), "--task-card", str(unknown)]) == 0
    err = capsys.readouterr().err
    assert "warning: task card gpu 'RTX 9999 Ti' has no spec sheet" in err


@pytest.mark.parametrize("command", ["tune", "optimize"])
def test_an_infinite_budget_in_the_card_is_refused_before_anything_is_made(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``budget_wall_s: .inf`` was accepted; now `tune` and `optimize` refuse it in one line naming the field,
    exit 2, with no session folder and no workspace made."""
    folder = tmp_path / "add"
    folder.mkdir()
    (folder / "kernel.py").write_bytes((KERNELS / "add_kernel.py").read_bytes())
    (folder / "reference.py").write_bytes((KERNELS / "add_reference.py").read_bytes())
    (folder / "README.md").write_text("---\nbudget_wall_s: .inf\n---\n# add\n")
    root = tmp_path / "root"
    argv = [command, str(folder), "--device", "cpu", *(["--root", str(root)] if command == "optimize" else [])]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert (
        err
        == f"kernelopt: error: {folder / 'README.md'}: front matter 'budget_wall_s' = inf: must be a finite number > 0\n"
    )
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "kernel.py", "reference.py"]
    assert not list(root.glob("kernel_opt_*"))
