"""``kernelopt optimize``: flags, exit codes, --json, progress, Ctrl-C and --resume, the no-GPU line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kernelopt.cli.app import main
from kernelopt.loop.journal import RunSettings
from kernelopt.workspace import Workspace

from .loop_fakes import DATA, Fakes, make_fakes, subjects


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> Fakes:
    """The CLI wired to the fakes (the real stages are other packages); progress goes to the CLI's sink."""
    f = make_fakes()
    seen: list[RunSettings] = []

    def build(ws: Workspace, settings: RunSettings, *, progress: Any = None, **_: Any):  # type: ignore[no-untyped-def]
        seen.append(settings)
        c = f.collaborators()
        c.progress = progress
        return c

    monkeypatch.setattr("kernelopt.loop.wiring.build_collaborators", build)
    monkeypatch.setattr("kernelopt.cli.optimize.nvidia_gpu_present", lambda: False)
    f.settings_seen = seen  # type: ignore[attr-defined]
    return f


def test_no_gpu_says_so_in_one_line(fakes: Fakes, ws_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["optimize", str(DATA), "--root", str(ws_root)]) == 3
    err = capsys.readouterr().err
    assert err == (
        "kernelopt: error: no NVIDIA GPU found; run `kernelopt doctor` to check the setup; --device cpu runs it on "
        f"the CPU in timing-only mode: `kernelopt optimize {DATA} --device cpu --max-iters 1`\n"
    )
    assert list(ws_root.iterdir()) == []  # nothing created


def test_cpu_path_runs_triton_in_the_interpreter_and_refuses_cuda_in_one_line(
    fakes: Fakes, ws_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23: `kernelopt batch examples/kernelbench --device cpu` failed the Triton problems ("0 active
    drivers") unless the user set TRITON_INTERPRET=1: --device cpu now sets it for its workers."""
    from kernelopt.cli.optimize import refuse_gpu_framework_on_cpu
    from kernelopt.harness.gate import check_files
    from kernelopt.harness.settings import HarnessSettings

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    example = Path(__file__).resolve().parents[1] / "examples" / "softmax"
    note = refuse_gpu_framework_on_cpu(example)
    assert note is not None and "Triton's interpreter (TRITON_INTERPRET=1" in note
    data = Path(__file__).parent / "data"
    report = check_files(
        data / "harness" / "add_triton.py",
        data / "kernels" / "add_reference.py",
        tmp_path / "state",
        settings=HarnessSettings(device="cpu", seeds=1),
    )
    assert report.passed and report.device == "cpu", report.message
    cuda = tmp_path / "cuda_task"
    cuda.mkdir()
    (cuda / "kernel.py").write_text("def run(x):\n    return x\n")
    (cuda / "reference.py").write_text((data / "kernels" / "add_reference.py").read_text())
    (cuda / "README.md").write_text("---\nframework: cuda\n---\n")
    assert main(["optimize", str(cuda), "--root", str(ws_root), "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kernelopt: error: --device cpu cannot run this cuda kernel: it launches on a GPU driver;")
    assert err.count("\n") == 1 and "tests/data/loop" in err
    assert list(ws_root.iterdir()) == []  # nothing created


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda tmp: tmp / "missing", "missing: no such folder; give a folder with kernel.py and reference.py"),
        (lambda tmp: _file(tmp / "kernel.py"), "kernel.py: is a file, not a folder; give the folder that holds"),
        (lambda tmp: _file(tmp / "k" / "kernel.py").parent, "k: has no reference.py; a task folder holds"),
    ],
    ids=["missing", "a_file", "no_reference"],
)
def test_a_wrong_path_is_said_before_the_missing_gpu(
    fakes: Fakes, ws_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, expected: str
) -> None:
    # Without a GPU and without --device cpu: the path is what the user must fix first.
    assert main(["optimize", str(make(tmp_path)), "--root", str(ws_root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err and "GPU" not in err
    assert list(ws_root.iterdir()) == []


def _file(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("def run(x):\n    return x\n")
    return path


def test_cpu_run_json(fakes: Fakes, ws_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["optimize", str(DATA), "--root", str(ws_root), "--device", "cpu", "--max-iters", "2", "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    data = json.loads(out)
    assert data["status"] == "finished"
    assert data["stop"] == {"reason": "max_iterations", "detail": "2 iteration(s) run, limit 2"}
    assert [v["version"] for v in data["versions"]] == ["v0", "v1", "v2"]
    assert data["best_version"] == "v2" and data["speedup_vs_baseline"] == pytest.approx(2.5)
    assert data["workspace"] == str(ws_root.resolve() / "kernel_opt_loop")
    # progress on stderr: version, stage, elapsed, best latency
    assert "] V1 profile" in err and "best 60 us (n/a of roofline)" in err
    assert "] end                  best 40 us (n/a of roofline) | stopped: max_iterations" in err
    # a CPU timing is not measured against the task card's GPU
    assert data["best_roofline"]["spec_note"] == "timed on the CPU (--device cpu): no GPU roofline applies"
    assert fakes.settings_seen[0].device == "cpu"  # type: ignore[attr-defined]


def test_human_summary_and_rerun_continues(
    fakes: Fakes, ws_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    args = ["optimize", str(DATA), "--root", str(ws_root), "--device", "cpu", "--max-iters", "1"]
    assert main(args) == 0
    out = capsys.readouterr().out
    # piped: the table fits 100 columns (a line naming a file of the workspace, "created <workspace>" or n127's
    # diff and cp of the best kernel, is as long as the temporary path)
    assert max(len(line) for line in out.splitlines() if str(ws_root) not in line) <= 100
    assert "kernelopt summary" in out and "BLOCK 64 ->" in out  # the action cell: the knob move as applied
    assert "stopped: max_iterations: 1 iteration(s) run, limit 1" in out
    assert "best: v1 at 60 us (1.67x over V0)" in out
    ws = Workspace(ws_root / "kernel_opt_loop")
    assert all(f" {short} " in out for short, _ in ws.log(max_count=2))  # issue 23: the commit column survives
    assert main(args) == 0  # the same folder again: the same workspace, the next version
    assert [s.split(":")[0] for s in subjects(ws)[1:]] == ["V0", "V1", "V2"]
    # and it says so (a fresh user's second run of the README example looked like a new run)
    assert f"continuing {ws.root} (V1 is its latest version; --name NEW starts another)" in capsys.readouterr().out


def test_ctrl_c_then_resume(fakes: Fakes, ws_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fakes.killer.arm("gate", 1)
    args = ["optimize", str(DATA), "--root", str(ws_root), "--device", "cpu", "--max-iters", "2"]
    assert main(args) == 130
    err = capsys.readouterr().err
    ws_path = ws_root.resolve() / "kernel_opt_loop"
    assert f"kernelopt: interrupted; the run is saved: `kernelopt optimize {ws_path} --resume` continues it" in err
    # resume by workspace path, without --device: the run's settings (cpu) hold, so no GPU is needed
    assert main(["optimize", str(ws_path), "--resume", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["iterations"] == 2 and [o["version"] for o in data["this_run"]] == [0, 1, 2]
    assert main(["optimize", str(ws_path), "--resume"]) == 2
    assert "already stopped" in capsys.readouterr().err


def test_sigterm_stops_like_ctrl_c(fakes: Fakes, ws_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import os
    import signal

    def term(point: str, version: int, orig=fakes.killer.check) -> None:
        if (point, version) == ("implement", 1):
            os.kill(os.getpid(), signal.SIGTERM)
        orig(point, version)

    fakes.killer.check = term  # type: ignore[method-assign]
    before = signal.getsignal(signal.SIGTERM)
    assert main(["optimize", str(DATA), "--root", str(ws_root), "--device", "cpu", "--max-iters", "1"]) == 130
    assert signal.getsignal(signal.SIGTERM) == before
    ws = Workspace(ws_root / "kernel_opt_loop")
    assert ws.is_clean(paths=["kernel.py"])  # rolled back like after Ctrl-C
    assert "--resume` continues it" in capsys.readouterr().err


def test_resume_with_nothing_to_resume(fakes: Fakes, ws_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["optimize", str(DATA), "--root", str(ws_root), "--device", "cpu", "--resume"])
    assert rc == 2 and "nothing to resume" in capsys.readouterr().err


def test_baseline_failure_exit_code(fakes: Fakes, ws_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fakes.gate.fail_at = {0}
    assert main(["optimize", str(DATA), "--root", str(ws_root), "--device", "cpu"]) == 1
    assert "stopped: baseline_failed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--device", "tpu"], "unknown device 'tpu'"),
        (["--device", "cpu", "--max-wall-min", "0"], "'--max-wall-min': Input should be greater than 0"),
    ],
)
def test_bad_flags(
    fakes: Fakes, ws_root: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["optimize", str(DATA), "--root", str(ws_root), *args]) == 2
    assert message in capsys.readouterr().err


def test_not_a_task_folder(fakes: Fakes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["optimize", str(tmp_path), "--device", "cpu", "--root", str(tmp_path)]) == 2
    assert "has no kernel.py" in capsys.readouterr().err
