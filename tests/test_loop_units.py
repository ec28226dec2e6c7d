"""Pure parts of the loop (commit messages, aux files, baseline report) and workspace opening."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.errors import InputFileError, WorkspaceError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.loop import commits
from kernelopt.loop.baseline import BuiltinBaselineRenderer
from kernelopt.loop.journal import Journal
from kernelopt.loop.opening import default_name, find_existing, open_or_create
from kernelopt.loop.protocols import Stage
from kernelopt.loop.wiring import baseline_renderer
from kernelopt.memory.model import IterationRecord, Performance
from kernelopt.planning.plan import Plan
from kernelopt.report.baseline import BaselineRenderer
from kernelopt.stages.allowance import aux_files_of, may_write

from .loop_fakes import DATA, MEMORY_BOUND, TIMING_ONLY


def test_commit_messages() -> None:
    summary = ProfileSummary.model_validate_json(MEMORY_BOUND.read_text())
    evidence = commits.bottleneck_evidence(summary)
    assert evidence == "memory_bound, gpu__compute_memory_throughput 72.4%"
    perf = Performance(latency_us=12.5, tflops=150.0, bandwidth_gbps=1500.25)
    assert commits.pass_message(3, perf, "XOR16 swizzle layout", "ds_read bank conflict stall 12 cycles") == (
        "V3: 150 TFLOPS / 1500 GB/s | XOR16 swizzle layout (bottleneck: ds_read bank conflict stall 12 cycles)"
    )
    assert commits.pass_message(4, Performance(latency_us=3.0), "a\n  b", "e").startswith(
        "V4: n/a TFLOPS / n/a GB/s | a b"
    )
    assert (
        commits.change_summary("block_size", {"BLOCK": 128}, {"BLOCK": [64, 128]}, "a") == "block_size: BLOCK 64 -> 128"
    )
    assert commits.change_summary("num_warps", {"num_warps": 8}, {}, "a") == "num_warps: num_warps=8"
    # a computed block was the computation, not the value it gave at one size (issue 32: "BLOCK_SIZE 16 -> 128")
    computed = {"BLOCK_SIZE": "triton.next_power_of_2(n_cols)"}
    assert commits.change_summary("block_size", {}, {"BLOCK_SIZE": [16, 128]}, "a", computed) == (
        "block_size: BLOCK_SIZE computed (triton.next_power_of_2(n_cols)) -> 128"
    )
    assert commits.change_summary("fusion", {}, {}, "fuse the two kernels") == "fuse the two kernels"
    assert commits.revert_message(5, "occupancy 25% -> 12%") == "V5: revert (occupancy 25% -> 12%)"
    long = commits.revert_message(6, "x " * 200)
    assert len(long) < 140 and long.endswith("...)")
    assert commits.baseline_message(Performance(latency_us=100.0, tflops=0.5, bandwidth_gbps=12.34), "e") == (
        "V0: baseline 0.5 TFLOPS / 12.3 GB/s | 100 us (bottleneck: e)"
    )
    timing = ProfileSummary.model_validate_json(TIMING_ONLY.read_text())
    assert commits.bottleneck_evidence(timing) == "timing-only, unknown, duration 77.8 us"
    assert commits.bottleneck_evidence(None) == "no profile"
    assert [commits.figure(v) for v in (None, 0.0, 0.00012, 0.5, 3.14159, 42.42, 4250.4)] == [
        "n/a",
        "0",
        "1.20e-04",
        "0.5",
        "3.14",
        "42.4",
        "4250",
    ]


def _plan(targets: list[str]) -> Plan:
    return Plan(
        version=1,
        bottleneck_type="memory_bound",
        action_category=ActionCategory.BLOCK_SIZE,
        targets=targets,
        action="a",
        expected_impact="e",
        risks_and_rollback="r",
    )


def test_aux_files_named_by_a_plan() -> None:
    targets = ["BLOCK", "kernel.py:12", "csrc/k.cuh:40", "helper.py", "reference.py", "../x.py", "/etc/passwd.py"]
    plan = _plan([*targets, "memory/v1.json", "plans/x.py", "test_kernel.py", "helper.py"])
    assert aux_files_of(plan) == ["csrc/k.cuh", "helper.py"]
    t1 = ["profiles/v1/*transcript*", "profiles/v1/agent_*.log", "profiles/v1/llm_*.log"]
    assert may_write(Stage.IMPLEMENT, 1, ["helper.py"]) == ["kernel.py", "helper.py", *t1]
    assert may_write(Stage.PLAN, 1) == ["plans/v1_plan.md", *t1]
    assert may_write(Stage.GATE, 7) == ["memory/v7.json"] and may_write(Stage.PROFILE, 7) == ["profiles/v7/*"]


def test_the_loop_renders_the_baseline_with_the_report_renderer(add_workspace) -> None:  # type: ignore[no-untyped-def]
    assert BuiltinBaselineRenderer is BaselineRenderer and isinstance(baseline_renderer(), BaselineRenderer)
    record = IterationRecord(version="v0", performance=Performance(latency_us=5.0, latency_us_by_shape={"n=1": 5.0}))
    timing = ProfileSummary.model_validate_json(TIMING_ONLY.read_text())
    text = BuiltinBaselineRenderer().render(
        workspace=add_workspace, record=record, summary=timing, roofline_lines=["bound A", "bound B"]
    )
    assert text.startswith("# Baseline report: add (V0)\n\n")
    assert "\n> **Timing-only evidence**: hardware counters were unavailable (" in text
    assert "| latency, n=1 | 5 us |" in text and "- bound A\n- bound B" in text and "- no rule fired" in text


# -- opening ---------------------------------------------------------------------------------------


def test_open_from_a_task_folder_with_card(ws_root: Path) -> None:
    opened = open_or_create(DATA, root=ws_root)
    ws = opened.workspace
    assert opened.created and ws.root == ws_root.resolve() / "kernel_opt_loop"
    card = ws.task_card()
    assert card.gpu == "H200" and card.dtype == "fp32" and card.platform == "nvidia"
    assert find_existing(DATA, root=ws_root) is not None
    again = open_or_create(DATA, root=ws_root)
    assert not again.created and again.note is None and again.workspace.head() == ws.head()
    assert open_or_create(ws.root).workspace.root == ws.root  # the workspace itself


def test_task_folder_changed_before_any_baseline_recreates(ws_root: Path, tmp_path: Path) -> None:
    src = tmp_path / "task"
    shutil.copytree(DATA, src)
    first = open_or_create(src, root=ws_root).workspace
    (src / "kernel.py").write_text((src / "kernel.py").read_text().replace("BLOCK = 64", "BLOCK = 32"))
    opened = open_or_create(src, root=ws_root)
    assert opened.created and opened.note and "re-created" in opened.note
    assert "BLOCK = 32" in opened.workspace.kernel_py.read_text() and first.root == opened.workspace.root


def test_task_folder_changed_after_the_baseline_is_refused_unless_asked(ws_root: Path, tmp_path: Path) -> None:
    src = tmp_path / "task"
    shutil.copytree(DATA, src)
    ws = open_or_create(src, root=ws_root).workspace
    ws.memory.create(0)
    ws.commit(["memory/v0.json"], "V0: baseline n/a TFLOPS / n/a GB/s | 1 us (bottleneck: x)")
    assert open_or_create(src, root=ws_root).note is None
    (src / "kernel.py").write_text("def run(x, y):\n    return y + x\n")
    with pytest.raises(WorkspaceError, match=r"made from another kernel.py than .*its V0 differs") as exc:
        open_or_create(src, root=ws_root)
    assert "--reuse-workspace" in exc.value.one_line() and "--name" in exc.value.one_line()
    opened = open_or_create(src, root=ws_root, reuse=True)
    assert not opened.created and opened.note and "whose V0 differs" in opened.note


def test_different_folders_with_the_same_name_never_share_a_workspace(ws_root: Path, tmp_path: Path) -> None:
    """Two folders of one name: the second is refused (its V0 would differ), never optimized as the first."""
    a, b = tmp_path / "a" / "task", tmp_path / "b" / "task"
    shutil.copytree(DATA, a)
    shutil.copytree(DATA, b)
    (b / "kernel.py").write_text("def run(x, y):\n    return y + x\n")
    ws = open_or_create(a, root=ws_root).workspace
    ws.memory.create(0)
    ws.commit(["memory/v0.json"], "V0: baseline n/a TFLOPS / n/a GB/s | 1 us (bottleneck: x)")
    with pytest.raises(WorkspaceError, match="its V0 differs"):
        open_or_create(b, root=ws_root)


def test_non_ascii_folder_names_give_safe_distinct_names(ws_root: Path, tmp_path: Path) -> None:
    names = [default_name(Path(f"/x/{n}")) for n in ("ядро", "核", "café", "ядро2")]
    assert len(set(names)) == 4
    assert all(n.isascii() and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", n) for n in names)
    assert names[2].startswith("cafe_") and names[0].startswith("kernel_")
    assert default_name(Path("/x/ядро")) == names[0]  # stable: the same folder name opens the same workspace
    for n in ("ядро", "核"):
        src = tmp_path / n
        shutil.copytree(DATA, src)
    first = open_or_create(tmp_path / "ядро", root=ws_root).workspace
    second = open_or_create(tmp_path / "核", root=ws_root).workspace
    assert first.root != second.root


def test_bad_paths(tmp_path: Path, ws_root: Path) -> None:
    with pytest.raises(InputFileError, match="no such folder"):
        open_or_create(tmp_path / "missing", root=ws_root)
    (tmp_path / "kernel.py").write_text("def run(x):\n    return x\n")
    with pytest.raises(InputFileError, match="has no reference.py"):
        open_or_create(tmp_path, root=ws_root)
    with pytest.raises(WorkspaceError, match="invalid workspace name"):
        open_or_create(DATA, name="../x", root=ws_root)
    assert default_name(Path("/a/my kernel!")) == "my_kernel" and default_name(Path("/a/.x")) == "x"


def test_corrupt_journal_is_a_one_line_error(tmp_path: Path) -> None:
    j = Journal(tmp_path)
    (tmp_path / "loop_state.json").write_text("{")
    with pytest.raises(WorkspaceError, match="unreadable loop state"):
        j.load()


def test_importing_the_loop_and_command_is_light() -> None:
    code = (
        "import sys, kernelopt.loop.machine, kernelopt.loop.wiring, kernelopt.cli.optimize\n"
        "bad = [m for m in ('torch', 'triton', 'matplotlib', 'numpy') if m in sys.modules]\n"
        "print(','.join(bad))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True, env=env)
    assert out.stdout.strip() == ""
