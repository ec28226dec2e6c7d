"""A new user's first hour on a fresh clone after the day's changes, second trial (2026-12-05), one test per
fix (docs/faults.md, "A new user's first hour, second trial")."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from kernelopt.cli.app import main
from tests.conftest import skip_without


@pytest.mark.timeout(30)
@pytest.mark.parametrize("argv", [[], ["memory"], ["wiki"], ["agent"]])
def test_a_command_given_alone_prints_its_help_and_no_empty_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`kernelopt` alone (and a group alone) printed the help, then "kernelopt: error: ; see `kernelopt --help`",
    exit 2: click's usage error for "no arguments, so the help" has no message."""
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "Usage: kernelopt" in out and "COMMAND" in out
    assert err == ""


TRITON_RELU = """import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


def run(x):
    out = torch.empty_like(x)
    relu_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
    return out
"""

RELU_REFERENCE = """import torch


def reference(x):
    return torch.relu(x)


def get_inputs(n=1000):
    return [torch.randn(n)]
"""


@pytest.mark.timeout(60)
def test_a_worker_given_no_device_on_a_machine_without_a_gpu_runs_triton_in_its_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kernelopt validate WS` with no --device ("cuda when present") on the CPU-only machine: a correct Triton
    kernel was a FAIL, "the kernel raised RuntimeError: 0 active drivers ([]). There should only be one."; the
    worker resolved the device to the CPU but Triton's interpreter was on only for --device cpu."""
    torch = pytest.importorskip("torch")
    skip_without("triton")  # the worker imports it, interpreted
    if torch.cuda.is_available():
        pytest.skip("a GPU is here: no device given means cuda")
    from kernelopt.harness.model import JobMode, KernelSource, WorkerJob
    from kernelopt.harness.progress import ProgressWriter
    from kernelopt.harness.worker import run_job

    monkeypatch.setenv("TRITON_INTERPRET", "0")  # as a shell may leave it; restored after the test
    monkeypatch.delenv("KERNELOPT_DEVICE", raising=False)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))  # run_job sets them; restored after
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "ext"))
    (tmp_path / "kernel.py").write_text(TRITON_RELU)
    (tmp_path / "reference.py").write_text(RELU_REFERENCE)
    job = WorkerJob(
        mode=JobMode.CHECK,
        reference_py=str(tmp_path / "reference.py"),
        kernels=[KernelSource(label="v0", kernel_py=str(tmp_path / "kernel.py"), build_dir=str(tmp_path / "b"))],
        progress_path=str(tmp_path / "progress.jsonl"),
        result_path=str(tmp_path / "result.json"),
        device=None,
    )
    writer = ProgressWriter(tmp_path / "progress.jsonl", time.monotonic)
    try:
        result = run_job(job, writer)
    finally:
        writer.close()
    assert result.device == "cpu"
    assert result.failure is None, result.failure
    assert os.environ["TRITON_INTERPRET"] == "1"


@pytest.mark.timeout(30)
def test_batch_with_no_device_on_a_machine_without_a_gpu_runs_as_device_cpu_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kernelopt batch examples/kernelbench` with no --device on the CPU-only machine: the three Triton problems
    were FAILs for Triton's "0 active drivers" (the batch's pre-started workers import Triton before any kernel,
    without its interpreter), and nothing said the batch ran on the CPU or how to scale its GPU sizes."""
    from kernelopt.batch.runner import BatchOptions
    from kernelopt.cli import batch as batch_cli
    from kernelopt.cli import optimize

    monkeypatch.delenv("KERNELOPT_DEVICE", raising=False)
    monkeypatch.setattr(optimize, "nvidia_gpu_present", lambda: False)
    seen: list[tuple[BatchOptions, str | None]] = []

    class Stop(BaseException):
        """Ends the command where the batch would start (no error boundary catches it)."""

    def fake_run(directory: Path, options: BatchOptions, **kw: Any) -> None:
        seen.append((options, kw["bar"].first_note))  # the note the bar says when the first problem starts
        raise Stop

    monkeypatch.setattr(batch_cli, "_run", fake_run)
    if Path("/dev/kfd").exists():
        pytest.skip("an AMD GPU driver is here")
    with pytest.raises(Stop):
        main(["batch", str(Path(__file__).parents[1] / "examples" / "kernelbench"), "--out", str(tmp_path)])
    options, note = seen[0]
    assert options.device == "cpu"
    assert note is not None and note.splitlines()[0] == batch_cli.NO_GPU_NOTE
    assert "--size-scale 0.01" in note.splitlines()[1]
    monkeypatch.setenv("KERNELOPT_DEVICE", "cuda")  # a device named in the environment is not overridden
    assert not batch_cli.no_gpu_here()


@pytest.mark.timeout(60)
def test_the_report_counts_a_candidate_served_from_a_session_record_apart_from_those_timed(ws_root: Path) -> None:
    """The README's CPU demo (V1 timed 9 candidates, V2's session served the same 9 from its record): the loop
    said "9 candidate(s) timed by Stage 3 over all versions", its report "Candidates timed by Stage 3: 18 of 18
    evaluated"."""
    from kernelopt.loop.machine import OptimizeLoop
    from kernelopt.loop.opening import open_or_create
    from kernelopt.loop.settings import LoopRequest
    from kernelopt.memory.model import CandidateResult, CandidateStatus, IterationRecord
    from kernelopt.report.reader import collect
    from kernelopt.report.sections import headline
    from kernelopt.workspace import Workspace

    from .loop_fakes import DATA, make_fakes

    ws = open_or_create(DATA, name="served", root=ws_root).workspace
    OptimizeLoop(Workspace(ws.root), make_fakes().collaborators(), LoopRequest(max_iterations=1)).run()
    path = ws.root / "memory" / "v1.json"
    record = IterationRecord.model_validate_json(path.read_text())
    ok = CandidateStatus.OK
    record.candidates = [
        CandidateResult(parameters={"BLOCK": b}, status=ok, latency_us=10.0 * b, served=served)
        for b, served in [(64, False), (128, False), (64, True), (128, True), (256, True)]
    ] + [CandidateResult(parameters={"BLOCK": 512}, status=CandidateStatus.WRONG_RESULT, reason="wrong")]
    path.write_text(record.model_dump_json())
    assert record.candidates_timed == 2 and record.candidates_served == 3
    lines = headline(collect(Workspace(ws.root), measured=None))
    said = next(line for line in lines if line.startswith("Candidates timed by Stage 3"))
    assert said == (
        "Candidates timed by Stage 3: 2 of 3 evaluated, in 1 tuning session(s); 3 more served from a session "
        "record (timed before)"
    )


@pytest.mark.timeout(30)
def test_every_command_s_summary_is_one_line_in_the_help(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kernelopt --help` at 200 columns: tunables' summary broke after "autotune" and after "never" (its
    docstring's line breaks), every other command's took one line."""
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["--help"]) == 0
    out = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(out) if "Commands" in line)
    rows = [line for line in out[start + 1 :] if line.startswith("│")]
    assert rows and all(not line.startswith("│  ") for line in rows), [r.rstrip() for r in rows if r.startswith("│  ")]
    assert any(line.startswith("│ tunables ") for line in rows)


@pytest.mark.timeout(30)
def test_a_latency_in_a_progress_note_is_written_out_as_the_bar_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """`kernelopt optimize examples/softmax --device cpu --max-iters 1`: one progress line read "best 51120 us
    (n/a of roofline) | V0 PASS: 5.112e+04 us", and "V1 tuning: 4 of 6 candidates, best 5.151e+04 us"."""
    from types import SimpleNamespace

    from kernelopt.backends import launch_tuning
    from kernelopt.digits import sig
    from kernelopt.tuning.session import Progress

    values = (51120.4, 5.151e4, 7.39, 0.012345, 1.718e10, 9.898e-06)
    assert [sig(v) for v in values] == ["51120", "51510", "7.39", "0.01235", "1.718e+10", "9.898e-06"]
    said: list[str] = []
    monkeypatch.setattr(launch_tuning, "PROGRESS_EVERY_S", -1.0)
    report = launch_tuning._reporter(SimpleNamespace(note=said.append))  # type: ignore[arg-type]
    assert report is not None
    report(
        Progress(
            candidates=4, budget=6, evaluations=4, best_latency_us=51510.0, best_config={"BLOCK_SIZE": 512}, batch=()
        )
    )
    assert said == ["tuning: 4 of 6 candidates, first-round best 51510 us (BLOCK_SIZE=512)"]


@pytest.mark.timeout(30)
def test_the_session_line_says_why_it_ended_in_words_on_a_line_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's tune example at 100 columns: the session table's title wrapped, "module constants (no launch):
    9 evaluated, 0 from the record, space 9," / "19.5 s (candidates)", the stop said as its enum value."""
    from kernelopt.cli.tune import _render

    from .test_newuser_cases import _changing_session

    monkeypatch.setenv("COLUMNS", "100")
    _render(_changing_session(tmp_path, tuned=False), "", written=False, dry_run=False, plot=None)
    out = capsys.readouterr().out.splitlines()
    line = next(line for line in out if "evaluated" in line)
    assert line.endswith("3 evaluated, 0 from the record, space 9, 1.0 s; ended: the budget's candidates spent")
    assert out[out.index(line) + 1].startswith("┏")  # the table follows, with no title of its own


@pytest.mark.timeout(30)
def test_problems_given_as_ids_in_a_folder_layout_say_the_folders_names_and_how_many(tmp_path: Path) -> None:
    """`kernelopt batch examples/kernelbench --problems 1-2` (its folders are 01_relu ... 14_row_sum_triton): "it has
    names 01_relu, 02_sigmoid, 03_gelu, 04_softmax, 05_layernorm", five of fourteen, as if that were all, and no
    word that ids number KernelBench's layout only."""
    from kernelopt.batch.problems import BatchItem
    from kernelopt.batch.selection import select
    from kernelopt.errors import UsageError

    items = [BatchItem(problem=f"{n:02d}_p", folder=tmp_path / f"{n:02d}_p") for n in range(1, 15)]
    with pytest.raises(UsageError) as caught:
        select(items, "1-2", kernelbench=False)
    said = caught.value.one_line()
    assert "it has names 01_p, 02_p, 03_p, 04_p, 05_p, ... (14 in all)" in said, said
    assert "ids number the problems of KernelBench's layout (--kernels), here give folder names" in said, said
    assert [i.problem for i in select(items, "02_p,14_p", kernelbench=False)] == ["02_p", "14_p"]


@pytest.mark.timeout(30)
def test_prompt_says_an_unknown_stage_or_channel_as_every_command_says_a_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`kernelopt prompt WS --stage nothing` said "bad --stage 'nothing'; --stage plan|implement", where every other
    command says "unknown device 'tpu'; use cuda or cpu"."""
    assert main(["prompt", str(tmp_path), "--stage", "nothing"]) == 2
    assert capsys.readouterr().err == "kernelopt: error: unknown stage 'nothing'; use plan or implement\n"
    assert main(["prompt", str(tmp_path), "--stage", "plan", "--channel", "foo"]) == 2
    assert capsys.readouterr().err == "kernelopt: error: unknown channel 'foo'; use agent or api\n"
