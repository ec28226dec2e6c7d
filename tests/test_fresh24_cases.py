"""fresh24: this session's landings tried as a fresh user would (docs/faults.md, "A fresh clone, twenty-fourth
round"). Each test is a case, on the CPU, in process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

KERNEL = """import torch
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def run(x):
    out = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    rowsum_kernel[(x.shape[0],)](out, x, x.stride(0), x.shape[1], BLOCK=64)
    return out
"""

REFERENCE = """import torch

SHAPES = [{"n_rows": 64, "n_cols": 1000}, {"n_rows": 96, "n_cols": 77}]


def get_inputs(n_rows=64, n_cols=1000, device="cuda"):
    return [torch.randn(n_rows, n_cols, device=device)]


def reference(x):
    return x.sum(dim=1)
"""


def _task(folder: Path) -> Path:
    folder.mkdir()
    (folder / "kernel.py").write_text(KERNEL)
    (folder / "reference.py").write_text(REFERENCE)
    return folder


def test_f20_a_refusal_names_the_worker_s_log_only_where_it_is_kept_and_holds_something(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """f20: ``tunables --set ... --check`` on a task whose reference.py has no get_inputs said "... (the worker's log:
    /tmp/kernelopt-set-check-XXXX/logs/bench-0-1.log)": that folder was deleted as the check ended, and the log was
    empty anyway (as tune's is for the same refusal). An empty or missing log is not named; a check whose line names
    its scratch folder keeps it, one that names nothing there leaves nothing behind."""
    from kernelopt.errors import KerneloptError
    from kernelopt.tuning import set_check
    from kernelopt.tuning.kernel_evaluator import _problem_error
    from kernelopt.worker.client import WorkerStartError
    from kernelopt.worker.messages import Failure, FailureKind, Service

    reason = "the SHAPES entry n_rows=96,n_cols=77: reference.py: AttributeError: no attribute 'get_inputs'"
    failure = Failure(id=0, outcome=FailureKind.BAD_INPUT, reason=reason)
    empty = tmp_path / "empty.log"
    empty.write_text("")
    for log in (empty, tmp_path / "gone.log"):
        said = _problem_error(WorkerStartError(Service.BENCH, failure, log)).one_line()
        assert "log" not in said and said.endswith("fix reference.py or its SHAPES entry, then run again"), said

    scratches: list[Path] = []

    class Refusing:  # the evaluator's start, refused as a worker's is, its log written or not
        def __init__(self, *args: Any, session_dir: Path, **kwargs: Any) -> None:
            scratches.append(session_dir)
            log = session_dir / "logs" / "bench-0-1.log"
            log.parent.mkdir()
            log.write_text("Traceback ...\n" if len(scratches) == 1 else "")
            self.error = _problem_error(WorkerStartError(Service.BENCH, failure, log))

        def __enter__(self) -> None:
            raise self.error

        def __exit__(self, *exc: object) -> None:
            return None

    monkeypatch.setattr(set_check, "ShapesEvaluator", Refusing)
    task = _task(tmp_path / "task")
    for kept in (True, False):
        with pytest.raises(KerneloptError) as raised:
            set_check.set_checked(task, KERNEL, KERNEL.replace("BLOCK=64", "BLOCK=128"), {"BLOCK": 128}, "cpu")
        assert (str(scratches[-1]) in raised.value.one_line()) is kept
        assert scratches[-1].is_dir() is kept
    scratches[0].joinpath("logs", "bench-0-1.log").unlink()
    scratches[0].joinpath("logs").rmdir()
    scratches[0].rmdir()


def test_f21_check_with_another_reference_says_which_one_it_runs_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """f21: ``tunables DIR --set BLOCK=128 --check --reference other.py`` said "DIR/kernel.py has no reference.py
    beside it" where the user had given one, and where DIR had a reference.py too it checked that one and said
    nothing of --reference. Both are one line now, exit 2, naming the file the check runs and what to do."""
    from kernelopt.cli.app import main

    task = _task(tmp_path / "task")
    other = tmp_path / "other.py"
    other.write_text(REFERENCE)
    kernel = task / "kernel.py"
    args = ["tunables", str(kernel), "--set", "BLOCK=128", "--check", "--no-evaluate", "--reference", str(other)]
    assert main(args) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"--check runs {task / 'reference.py'} (the task folder's, as tune does), not --reference {other}" in err
    assert f"leave --reference out, or give it {task / 'reference.py'}" in err
    (task / "reference.py").unlink()
    assert main(args) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"--reference {other} is read for the knobs only" in err, err
    assert f"or copy that file to {task / 'reference.py'}" in err
    assert kernel.read_text() == KERNEL


ONE_BLOCK = """import torch
import triton
import triton.language as tl


@triton.jit
def rowmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))


def run(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    rowmax_kernel[(n_rows,)](out, x, x.stride(0), n_cols, BLOCK=1024)
    return out
"""


def test_f22_a_guarded_set_already_in_the_file_is_refused_as_a_change_that_does_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """f22: ``tunables k.py --set rowmax_kernel:BLOCK=512`` twice on a one-block kernel: the first writes the guard
    (``BLOCK = 512`` under ``n_cols <= 512``), the second said "BLOCK: 1024 -> 512 ... wrote k.py" and wrote the same
    bytes again, exit 0, where an unguarded value already set is "already 64: the change does nothing", exit 2. Now
    the same: one line, exit 2, the file not touched; another value still rewrites the guard."""
    from kernelopt.cli.app import main

    kernel = tmp_path / "k.py"
    kernel.write_text(ONE_BLOCK)
    args = ["tunables", str(kernel), "--no-evaluate", "--set"]
    assert main([*args, "rowmax_kernel:BLOCK=512"]) == 0
    guarded = kernel.read_text()
    assert "if n_cols <= 512:  # kernelopt: tuned" in guarded
    capsys.readouterr()
    mtime = kernel.stat().st_mtime_ns
    assert main([*args, "rowmax_kernel:BLOCK=512"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{kernel} holds rowmax_kernel:BLOCK=512 already, guarded: BLOCK=512 only where n_cols <= 512" in err, err
    assert err.endswith("; the change does nothing"), err
    assert kernel.read_text() == guarded and kernel.stat().st_mtime_ns == mtime
    assert main([*args, "rowmax_kernel:BLOCK=256"]) == 0
    assert "if n_cols <= 256:  # kernelopt: tuned" in kernel.read_text()
