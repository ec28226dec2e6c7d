"""newuser21: a new user from a fresh clone, and the agent path (docs/faults.md, "A new user, twenty-first round
(newuser21, 2026-12-07)"); n1-n152 are earlier trials'."""

from __future__ import annotations

import json
import re
import signal
import sys
import types
from pathlib import Path
from typing import Any

import pytest


def test_n153_a_kernelopt_variable_like_none_it_reads_is_said_with_the_ones_it_reads(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`KERNELOPT_DEBUG=1 kernelopt tunables ...` (a wish, spelt like no variable kernelopt reads): ignored in silence,
    where `KERNELOPT_SEED` (spelt like `KERNELOPT_SEEDS`) was said since n141. Now it is one warning line listing the
    `KERNELOPT_` variables kernelopt reads; the names this repository's tests and GPU scripts set for themselves are
    in the table as theirs, and none of them is warned of."""
    from kernelopt.cli.app import main
    from kernelopt.env import VARIABLES, Direction, misspelt

    ours = [v.name for v in VARIABLES if v.direction is Direction.TEST]
    assert "KERNELOPT_COMMIT" in ours and "KERNELOPT_TEST_CLI_CACHE" in ours
    assert misspelt(dict.fromkeys(ours, "1")) == []
    monkeypatch.setenv("KERNELOPT_DEBUG", "1")
    assert main(["schema", "sweep"]) == 0
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(
        "kernelopt: warning: KERNELOPT_DEBUG is not a variable kernelopt reads (ignored); unset it, or use one it "
        "reads: KERNELOPT_RUN_TIMEOUT_S, KERNELOPT_COMPILE_TIMEOUT_S, "
    ), line
    read = [v.name for v in VARIABLES if v.direction is Direction.READ and v.name.startswith("KERNELOPT_")]
    assert line.endswith(f"{', '.join(read)} (docs/environment.md says what each does)"), line
    assert "KERNELOPT_COMMIT" not in line and "KERNELOPT_WORKER" not in line


def test_n154_ctrl_c_while_the_cli_is_imported_still_gives_json_its_one_object(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`kernelopt status WS --json` interrupted in its first second (Python importing typer, rich, pydantic and the
    commands): "kernelopt: interrupted" on stderr, exit 130, and nothing on stdout, where every other refused or
    interrupted `--json` command prints `{"error": {...}}` (late34 z110). Now the entry point prints it too; without
    `--json` (or with it after `--`) stdout stays empty."""
    import kernelopt.proc
    from kernelopt.cli import start

    def cut(name: str) -> object:
        raise KeyboardInterrupt

    app = types.ModuleType("kernelopt.cli.app")
    app.__getattr__ = cut  # type: ignore[method-assign]  # the import of main is cut by the Ctrl-C
    monkeypatch.setitem(sys.modules, "kernelopt.cli.app", app)
    monkeypatch.setattr(kernelopt.proc, "exit_process", lambda code: sys.exit(code))
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    said = []
    try:
        for argv in (["status", "/ws", "--json"], ["status", "/ws"], ["batch", "d", "--", "--json"]):
            monkeypatch.setattr(sys, "argv", ["kernelopt", *argv])
            with pytest.raises(SystemExit) as stop:
                start.run()
            assert stop.value.code == 130
            out, err = capsys.readouterr()
            assert err == "kernelopt: interrupted\n"
            said.append(out)
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    assert json.loads(said[0]) == {"error": {"code": 130, "message": "interrupted"}}
    assert said[1:] == ["", ""]


def test_n155_a_model_that_stalls_after_a_tool_call_is_said_to_have_stalled(ws_root: Path) -> None:
    """A model that made one tool call and then went silent (its API gone quiet) until kernelopt's limit read
    ``agent_unfinished`` with "a model that keeps calling tools is no setup problem" (discovery23's seen line): the
    output was read only at the end, so a silent model looked like a busy one. The gateway now notes when a command
    last printed (``CommandResult.silent_s``), and a run silent for a quarter of its limit or more when the limit came
    is said to have stalled, with where it stood; a model calling tools to the limit keeps d33's words."""
    from .backends_support import busy_implement

    report = busy_implement(ws_root, 2.0, BUSY_SILENT="1")
    assert (report.error_type, report.result.value) == ("agent_unfinished", "FAIL"), report
    said = re.search(
        r"the agent answered, then stalled: no output for the last (\d+) s of its 2 s limit, ", report.reason
    )
    assert said is not None and int(said[1]) >= 1, report.reason
    assert "after its last tool's result (the model's API gone silent, or one long answer being written); its " in (
        report.reason
    )
    assert "1 tool call, the last tool call Bash" in report.reason and "keeps calling tools" not in report.reason
    assert "check the model's API, then give it a larger limit or a smaller plan" in report.reason
    (transcript,) = [p.read_text() for p in ws_root.glob("*/profiles/v1/agent_implement.log")]
    assert "; the agent answered, then stalled: no output for the last " in transcript


TORCH_2_13_BACKENDS = {  # `torch._dynamo.list_backends()` and `(exclude_tags=())` of torch 2.13.0+cpu, 2026-12-07
    "listed": ["cudagraphs", "inductor", "openxla", "tvm"],
    "all": ["aot_eager", "aot_eager_decomp_partition", "aot_ts", "cudagraphs", "eager", "inductor", "openxla", "tvm"],
}


def test_n156_a_misspelt_compile_backend_is_refused_before_anything_runs(
    ws_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`KERNELOPT_COMPILE_BACKEND=indutor kernelopt optimize DIR --device cpu` (newuser20's seen line): taken at the
    start, then every version's figure against torch.compile "not timed: its compile failed" (n152) for the whole run.
    Now `validate`, `optimize` and `batch` ask this torch for its backends first (a child, only for a name that is
    not built in) and refuse one it lacks in one line, exit 2, nothing made; a built-in name starts no child."""
    from kernelopt.cli.app import main
    from kernelopt.harness import compile_backend

    said = json.dumps(TORCH_2_13_BACKENDS)
    monkeypatch.setattr(compile_backend, "_LIST", f"print({said!r})")  # the child's answer, as torch 2.13 gave it
    compile_backend._torch_backends.cache_clear()
    monkeypatch.setenv("KERNELOPT_COMPILE_BACKEND", "indutor")
    folder = ws_root / "add"
    for argv in (["optimize", str(folder), "--device", "cpu"], ["batch", str(ws_root), "--device", "cpu"]):
        assert main(argv) == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert line == (
            "kernelopt: error: KERNELOPT_COMPILE_BACKEND='indutor' is not a torch.compile backend of this torch (did "
            "you mean inductor?); it has aot_eager, cudagraphs, eager, inductor, openxla, tvm "
            "(torch._dynamo.list_backends()); fix it, or unset it for inductor"
        ), line
    assert list(ws_root.iterdir()) == []  # no workspace, no batch folder under the root
    monkeypatch.setenv("KERNELOPT_COMPILE_BACKEND", "aot_ts")  # one of torch's own, not built in: asked, taken
    compile_backend.check_compile_backend()
    compile_backend._torch_backends.cache_clear()
    monkeypatch.setattr(compile_backend, "_LIST", "raise SystemExit(1)")  # torch cannot be asked: the gate says it
    monkeypatch.setenv("KERNELOPT_COMPILE_BACKEND", "indutor")
    compile_backend.check_compile_backend()
    monkeypatch.setenv("KERNELOPT_COMPILE_BACKEND", "eager")  # built in: no child at all
    monkeypatch.setattr(compile_backend, "run_command", None)
    compile_backend.check_compile_backend()
    compile_backend._torch_backends.cache_clear()


def test_n157_tune_s_refusal_of_a_reference_that_raises_says_what_to_do(tmp_path: Path) -> None:
    """`kernelopt tune DIR --device cpu` with a reference that raises at a SHAPES entry said "the SHAPES entry
    rows=64,cols=100: reference.py: ValueError: boom in reference; the worker's log: ...": whose fault and what to do
    were left out, where `optimize` on the same folder says "reference.py fails, not the kernel: fix reference.py or
    its SHAPES entry, then run again". Both now say it by the one rule (`harness.model.PROBLEM_FAILED`); one that
    raised at its import is told to fix reference.py."""
    from kernelopt.harness.model import PROBLEM_FAILED
    from kernelopt.tuning.kernel_evaluator import _problem_error
    from kernelopt.tuning.problem import ProblemError, ReferenceDoesNotImport
    from kernelopt.worker.client import WorkerStartError
    from kernelopt.worker.messages import Failure, FailureKind, Service

    log = tmp_path / "bench-0-1.log"
    log.write_text("what the worker printed\n")  # an empty log is not named (fresh24 f20)
    at_entry = "the SHAPES entry rows=64,cols=100: reference.py: ValueError: boom in reference"
    said = _problem_error(
        WorkerStartError(Service.BENCH, Failure(id=0, outcome=FailureKind.BAD_INPUT, reason=at_entry), log)
    )
    assert isinstance(said, ProblemError) and said.exit_code == 2
    assert said.one_line() == f"{at_entry}; {PROBLEM_FAILED} (the worker's log: {log})"
    assert PROBLEM_FAILED == "reference.py fails, not the kernel: fix reference.py or its SHAPES entry, then run again"
    at_import = "reference.py raised at import: RuntimeError: boom at import"
    said = _problem_error(
        WorkerStartError(Service.BENCH, Failure(id=0, outcome=FailureKind.BAD_INPUT, reason=at_import), log)
    )
    assert isinstance(said, ReferenceDoesNotImport)
    assert said.one_line() == f"{at_import}; fix reference.py, then run again (the worker's log: {log})"


def test_n158_a_shapes_key_get_inputs_lacks_is_told_the_one_it_is_spelt_like(tmp_path: Path) -> None:
    """`SHAPES = [dict(rows=r, colz=c) ...]` where `get_inputs(rows, cols, device)`: refused before anything ran, but
    "...: get_inputs takes no argument 'colz'; its parameters: rows, cols, device" left the user to find the typo and
    where to fix it. The line names the parameter it is spelt like (one the entry does not already give) and the
    place; a key like none still lists the parameters."""
    from kernelopt.kernelsource import entry_fault

    ref = tmp_path / "reference.py"
    ref.write_text("def get_inputs(rows: int = 64, cols: int = 100, device: str = 'cpu'):\n    return []\n")
    fault, fix = entry_fault(ref, [{"rows": 64, "cols": 100}, {"rows": 33, "colz": 257}]) or ("", "")
    assert fault == "SHAPES[1] {'rows': 33, 'colz': 257} cannot be built: get_inputs takes no argument 'colz'"
    assert (
        fix
        == "did you mean 'cols'? fix that entry of reference.py's SHAPES (get_inputs's parameters: rows, cols, device)"
    )
    _, fix = entry_fault(ref, [{"rows": 3, "width": 4}]) or ("", "")
    assert fix == "fix that entry of reference.py's SHAPES (get_inputs's parameters: rows, cols, device)"


def test_n159_the_report_tool_refuses_a_version_with_no_record(add_workspace: Any) -> None:
    """`report(workspace, section="evidence", version=9)` through the SDK's stdio client, on a workspace of V0 and V1:
    a success whose Markdown read "No record of V9." (a version the tool was given that does not exist), where
    `compare(before=0, after=7)` refuses "has no version 7". The tool refuses it in one line naming the versions
    there, before it writes anything (`report_digest.missing_version`, read here on the records the tool collects;
    the server's SDK import alone costs seconds); a version that is there has its evidence."""
    from kernelopt.agents.report_digest import missing_version
    from kernelopt.report import collect
    from kernelopt.report.markdown import Section, markdown_section

    ws = add_workspace
    for version in ("v0", "v1"):
        ws.memory.create(version)
        ws.memory.update(version, ["performance.latency_us=413.8", "quality_gate.result=PASS"])
    data = collect(ws)
    assert missing_version(data, 9) == (
        "has no record of V9 (recorded: V0, V1); give one of them, or leave version out for every version's evidence"
    )
    assert missing_version(data, 1) is None
    assert any(line.startswith("### V1") for line in markdown_section(data, Section.EVIDENCE, version=1))


AGENT_PLAN = """---
version: 1
bottleneck_type: latency_bound
action_category: block_size
targets: [BLOCK]
parameters: {BLOCK: 1024}
expected_impact: fewer loop trips per row
risk_level: low
counters_available: false
---
# Plan v1: block_size

## Input Evidence

- duration_us = 654600 us [profiles/v1/summary.json] -> each row walks its columns 64 at a time -> raise BLOCK to 1024

## Search Log

| Source | Query | Finding | Actionability |
| --- | --- | --- | --- |
| gpu-wiki | block size per row | one pass per row keeps the row on chip | actionable: BLOCK 64 -> 1024 |

## This Iteration's Optimization Action

- **Category:** `block_size`
- **Targets:** `BLOCK`
- **Change:** `BLOCK` = 1024

Raise BLOCK's cap from 64 to 1024.

## Expected Impact

Fewer loop trips.

## Risks and Rollback

record reverts kernel.py on a FAIL.
"""


def test_n160_an_agent_s_timing_only_plan_gets_its_note_without_a_warning(tmp_path: Path) -> None:
    """`submit_plan` of the plan above through `kernelopt mcp --device cpu` (front matter `counters_available: false`,
    as the plan prompt asks): accepted, with the warning "v1_plan.md: could not add the timing-only note without
    changing the plan". The note was appended at the end, inside the free text of Risks and Rollback, which changed
    the plan: every agent's plan ending in prose was warned of, and the warning named nothing to do. The note now goes
    under the Input Evidence heading where the end will not take it, as the plan writer puts it, and the parsed plan is
    unchanged."""
    from kernelopt.evidence.model import ProfileSummary, Vendor
    from kernelopt.stages.plan import MarkdownPlanReader, say_timing_only

    reader = MarkdownPlanReader()
    path = tmp_path / "v1_plan.md"
    path.write_text(AGENT_PLAN)
    summary = ProfileSummary(
        vendor=Vendor.NVIDIA, tool_used="timing-only", counters_available=False, counters_unavailable_reason="cpu"
    )
    assert say_timing_only(path, summary, reader)
    written = path.read_text()
    assert (
        "## Input Evidence\n\n> **Timing-only evidence**: hardware counters were unavailable for this iteration (cpu)"
        in (written)
    )
    assert reader.parse(written) == reader.parse(AGENT_PLAN)
    assert written.endswith("record reverts kernel.py on a FAIL.\n")


def test_n161_a_note_written_into_kernel_py_during_a_tune_keeps_the_session_to_resume(tmp_path: Path) -> None:
    """`tune cc --device cpu` (the masked row-max, its autotune list) Ctrl-C'd after 4 of 5 candidates ("kernel.py
    unchanged; ... a rerun resumes from it"), the user having added a comment line to kernel.py meanwhile (kept, as
    tune keeps every edit of the user's): the rerun started a new session, "5 evaluated, 0 from the record", 6 min
    of timing again, since the session's key hashed kernel.py's text, comments and blank lines included. The key now
    reads its code: a comment or a blank line leaves the session; a change of code, or of a `# kernelopt:` marker,
    starts another."""
    import shutil

    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folder = tmp_path / "loop"
    shutil.copytree(Path(__file__).parent / "data" / "loop", folder, ignore=shutil.ignore_patterns(".kernelopt"))
    kernel = folder / "kernel.py"

    def session() -> str:
        return prepare_folder(TuneRequest(folder=folder, device="cpu")).session_dir.name

    first, text = session(), kernel.read_text()
    kernel.write_text(text.replace("def run(x, y):", "# my own note, written during the tune\n\n\ndef run(x, y):"))
    assert session() == first
    kernel.write_text(text.replace("torch.add(x[start:end], y[start:end]", "torch.add(y[start:end], x[start:end]"))
    assert session() != first
    kernel.write_text(text.replace("# kernelopt: tunable max=4096", "# kernelopt: tunable max=2048"))
    assert session() != first


def test_n162_a_kernel_py_that_raises_as_it_is_imported_is_told_to_be_fixed_not_searched() -> None:
    """`tune nameerr --device cpu` of the row-max with `BOOM = undefined_name + 1` at its top: the session loaded
    each of the 5 candidates, each failed "loading failed: NameError: ...", and the verdict read "no candidate ran
    (each one's outcome is in the session record)", exit 1: whose fault and what to do left out, as if a search had
    come up empty. Where every candidate's kernel.py raised the one same error at import, the verdict says so and
    names the fix; candidates that failed otherwise keep the old line."""
    from kernelopt.cli.tune import verdict_line
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.session import SessionResult, judge_gain

    from .test_break13_cases import _session

    error = "NameError: name 'undefined_name' is not defined (kernel.py:31)"

    def session(*reasons: str) -> SessionResult:
        results = [
            Result(config={"BLOCK_N": 16 << i}, outcome=Outcome.COMPILE_ERROR, reason=r) for i, r in enumerate(reasons)
        ]
        return _session([*results, Result(config={"BLOCK_N": 1024}, outcome=Outcome.NOT_RUN_BUDGET)])

    def verdict(s: SessionResult) -> str:
        return verdict_line(s, judge_gain(s), kernel_py="kernel.py", written=False, dry_run=False)

    every = [f"on the SHAPES entry rows=64,cols=100: loading failed: {error}"] * 3
    assert verdict(session(*every)) == (
        f"no candidate ran: kernel.py fails as it is imported, whatever its knobs ({error}); fix it, then run again; "
        "kernel.py left unchanged"
    )
    other = [*every[:2], "on the SHAPES entry rows=64,cols=100: CompilationError: BLOCK_N too large (kernel.py:20)"]
    assert verdict(session(*other)) == (
        "no candidate ran (each one's outcome is in the session record); kernel.py left unchanged"
    )


def test_n163_a_shapes_entry_built_by_code_that_get_inputs_cannot_take_is_refused_first(tmp_path: Path) -> None:
    """`batch` over the row-max whose `SHAPES = [dict(rows=r, colz=c) for r, c in ...]` (built by code): an ERROR row
    "the problem's reference failed: correctness: case 0 (rows=64,colz=100): reference.py get_inputs raised
    TypeError...", after a worker had started, and `optimize` and `validate` the same at V0's gate, where `tune` (which
    reads the entries code builds and checks them) refused it before anything ran. The entries code builds meet the
    rule a literal entry meets (`kernelsource.entry_fault`) where they are read (`harness.infer.shapes_by_code`), so
    every command refuses it in one line first."""
    from kernelopt.errors import InputFileError
    from kernelopt.harness.infer import shapes_by_code

    ref = tmp_path / "reference.py"
    ref.write_text(
        "SHAPES = [dict(rows=r, colz=c) for r, c in ((64, 100), (33, 257))]\n\n\n"
        "def get_inputs(rows: int = 64, cols: int = 100, device: str = 'cpu'):\n    return []\n"
    )
    with pytest.raises(InputFileError) as caught:
        shapes_by_code(ref, device="cuda")  # a plain child: this reference.py imports no torch
    assert caught.value.one_line() == (
        f"{ref}: SHAPES[0] {{'rows': 64, 'colz': 100}} cannot be built: get_inputs takes no argument 'colz'; did you "
        "mean 'cols'? fix that entry of reference.py's SHAPES (get_inputs's parameters: rows, cols, device)"
    )
    ref.write_text(ref.read_text().replace("colz", "cols"))
    assert shapes_by_code(ref, device="cuda") == [{"rows": 64, "cols": 100}, {"rows": 33, "cols": 257}]
