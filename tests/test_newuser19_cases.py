"""newuser19: a new user's first hour, nineteenth trial (docs/faults.md, "A new user's first hour, nineteenth
trial (newuser19, 2026-12-07)"); n1-n124 are earlier trials'."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kernelopt.actions import SEARCH_NO_GAIN, ActionCategory
from kernelopt.memory.model import (
    GateResult,
    IterationRecord,
    Optimization,
    Performance,
    PitfallAndFix,
    QualityGate,
)


def _record(n: int, gate: GateResult, reason: str | None = None, error_type: str | None = None) -> IterationRecord:
    return IterationRecord(
        version=f"v{n}",
        performance=Performance(latency_us=200.0 / (n + 1) if gate is GateResult.PASS else None),
        optimization=Optimization(
            action_category=None if n == 0 else ActionCategory.AUTOTUNE,
            action_description="autotune: BLOCK 64 -> 4096" if n == 1 else None,
        ),
        quality_gate=QualityGate(result=gate, failure_reason=reason),
        pitfalls_and_fixes=[PitfallAndFix(error_type=error_type, error_message=reason or "")] if error_type else [],
    )


@pytest.mark.timeout(30)
def test_n125_optimize_s_own_summary_says_converged_where_the_report_does(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README demo's V2 (its session kept nothing): `kernelopt report` said `converged` since late26's z40, while
    `optimize`'s own summary said `FAIL` in its gate cell and "this run: 2 iteration(s), 1 failed". The one rule is
    the record's (`IterationRecord.converged`); a wrong kernel stays FAIL. (The progress lines, "V2 converged (...)",
    are read in test_launch_tuning's loop run.)"""
    from kernelopt.cli.optimize import _render
    from kernelopt.loop.summary import LoopSummary, VersionRow

    monkeypatch.setenv("COLUMNS", "200")
    kept = "the tuning session of module constants (no launch) kept nothing: the best does not beat it"
    records = [
        _record(0, GateResult.PASS),
        _record(1, GateResult.PASS),
        _record(2, GateResult.FAIL, "correctness: max abs err 0.5 at n=4097", "correctness"),
        _record(3, GateResult.FAIL, kept, SEARCH_NO_GAIN),
    ]
    assert [r.converged for r in records] == [False, False, False, True]
    rows = [VersionRow.of(r) for r in records]
    assert [r.said for r in rows] == ["PASS", "PASS", "FAIL", "converged"]
    assert rows[3].result == "FAIL"  # --json keeps the record's gate beside `converged`
    values: dict[str, object] = {name: None for name in LoopSummary.model_fields}
    values.update(
        workspace="ws",
        versions=rows,
        iterations=3,
        failures=1,
        converged=1,
        elapsed_s=8.0,
        stage_seconds={},
        unlinked=[],
    )
    _render(LoopSummary.model_construct(**values))  # type: ignore[arg-type]
    out = capsys.readouterr().out
    cells = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in out.splitlines() if "│ v" in line}
    assert cells == {"v0": "PASS", "v1": "PASS", "v2": "FAIL", "v3": "converged"}
    assert "this run: 3 iteration(s), 1 converged, 1 failed, 0:00:08 wall time" in out


TABLE_KERNEL = """import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha + 1.0, mask=mask)


def run(x):
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 128
    if n <= 1000:  # kernelopt: tuned
        BLOCK = 1024
    elif n <= 4096:  # kernelopt: tuned
        BLOCK = 4096
    scale_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, 2.0, BLOCK=BLOCK, num_warps=4)
    return out
"""


@pytest.mark.timeout(30)
def test_n126_a_per_bucket_table_an_edit_wrote_is_no_fallback_a_later_session_times_again_and_again() -> None:
    """The project's kernel in the loop (`optimize ... --max-iters 2`, SHAPES n = 4096 and 1000): V1 wrote a per-bucket
    table over `BLOCK = 128`; V2's session then tuned the literal above it, the fallback no entry reaches, with the
    table kept in every candidate: nine timings of one kernel (2576-2666 us), the least by noise (BLOCK=32, +2.4 %)
    written above the table, untimed at every size it runs. A candidate that moves the names the table sets runs its
    configuration at every size (the table spliced out, as a single row's guard always was); the write replaces the
    table; a table with an `else`, or a row without the mark (the user's), is kept."""
    from kernelopt.tunables.guard import guard_edit, strip_stale_guards

    moved = TABLE_KERNEL.replace("BLOCK = 128", "BLOCK = 32")
    candidate = strip_stale_guards(TABLE_KERNEL, moved)
    assert "BLOCK = 32\n    scale_kernel[" in candidate and "kernelopt: tuned" not in candidate
    written = guard_edit(TABLE_KERNEL, TABLE_KERNEL.replace("BLOCK = 128", "BLOCK = 256"))
    assert written.new_source is not None and "if n <=" not in written.new_source, written
    assert "BLOCK = 256\n    scale_kernel[" in written.new_source
    # the same table as the user's: an `else` row, or one row's mark gone: kept as written
    users = [
        moved.replace("        BLOCK = 4096\n", "        BLOCK = 4096\n    else:\n        BLOCK = 64\n"),
        moved.replace("elif n <= 4096:  # kernelopt: tuned", "elif n <= 4096:"),
    ]
    for text in users:
        base = text.replace("BLOCK = 32", "BLOCK = 128", 1)
        assert strip_stale_guards(base, text) == text


def test_n127_optimize_from_a_project_s_folder_says_where_the_best_kernel_is_and_how_to_take_it(
    tmp_path: Path,
) -> None:
    """The project's kernel (`optimize src/acme/kernels/norm/rms --device cpu --max-iters 1`): V1 12x over V0, and
    nothing said that the project's kernel.py was left as it was (optimize edits only its workspace's copy) or how to
    take V1; the README named no path for a kernel of an existing project. The line names both files and the two
    commands, run here as written."""
    from kernelopt.cli.optimize import take_back
    from kernelopt.loop.summary import LoopSummary

    folder, ws = tmp_path / "src dir" / "rms", tmp_path / "kernel_opt_rms"
    folder.mkdir(parents=True)
    ws.mkdir()
    (folder / "kernel.py").write_text("BLOCK = 128\n")
    (ws / "kernel.py").write_text("BLOCK = 4096\n")
    values: dict[str, object] = {name: None for name in LoopSummary.model_fields}
    values.update(workspace=str(ws), best_version="v1")
    summary = LoopSummary.model_construct(**values)  # type: ignore[arg-type]
    line = take_back(folder, summary)
    assert line is not None and line.startswith(f"the best kernel (V1) is {ws / 'kernel.py'}; "), line
    commands = re.findall(r"`([^`]+)`", line)
    assert [c.split()[0] for c in commands] == ["diff", "cp"]
    diff = subprocess.run(commands[0], shell=True, capture_output=True, text=True, check=False)
    assert diff.returncode == 1 and "+BLOCK = 4096" in diff.stdout
    subprocess.run(commands[1], shell=True, check=True)
    assert (folder / "kernel.py").read_text() == "BLOCK = 4096\n"
    assert take_back(folder, summary) is None  # taken: nothing more to say
    assert take_back(ws, summary) is None  # a run on the workspace itself
    values.update(best_version="v0")
    (folder / "kernel.py").write_text("BLOCK = 128\n")
    assert take_back(folder, LoopSummary.model_construct(**values)) is None  # type: ignore[arg-type]


def test_n128_the_compiled_reference_takes_inductor_s_mode_to_compare_with_max_autotune(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A user comparing with Inductor's max-autotune: `--compile-reference` timed `torch.compile(reference)` with its
    default mode alone (`KERNELOPT_COMPILE_BACKEND` chose the backend, nothing the mode), so the figure against
    torch.compile was never Inductor's autotuned kernels. `KERNELOPT_COMPILE_MODE` is the mode, read and checked as
    every variable is, and the gate's worker compiles with it."""
    import torch

    from kernelopt.errors import UsageError
    from kernelopt.harness.model import BenchSettings
    from kernelopt.harness.settings import HarnessSettings
    from kernelopt.harness.worker import compiled_reference

    assert HarnessSettings.from_env({}).compile_mode is None
    settings = HarnessSettings.from_env({"KERNELOPT_COMPILE_MODE": "max-autotune"})
    assert settings.compile_mode == "max-autotune"
    with pytest.raises(UsageError, match=r"KERNELOPT_COMPILE_MODE='fast' is not one of default, reduce-overhead, max"):
        HarnessSettings.from_env({"KERNELOPT_COMPILE_MODE": "fast"})
    asked: list[dict[str, object]] = []

    def compile_(fn: object, **kwargs: object) -> object:
        asked.append(kwargs)
        return fn

    monkeypatch.setattr(torch, "compile", compile_)
    bench = BenchSettings(compile_reference=True, compile_backend="inductor", compile_mode=settings.compile_mode)
    assert compiled_reference(abs, bench) is abs
    assert asked == [{"backend": "inductor", "mode": "max-autotune"}]


@pytest.mark.timeout(60)
def test_n129_kernelopt_status_on_the_command_line_says_where_the_run_stands_and_what_to_run(
    add_workspace: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`kernelopt status WS` said "No such command 'status'": status was the MCP server's tool alone (fresh21's seen
    item), and a CLI user had no way to ask whether a run holds a workspace, was interrupted, or why it stopped. The
    command reads the journal, the lock and the records (writes nothing) and names the next command; given the
    kernel folder a workspace was made from, it finds the workspace `optimize` made."""
    from kernelopt.cli.app import main
    from kernelopt.loop.journal import IterationState, Journal, RunState, RunStatus
    from kernelopt.loop.stop import StopDecision, StopReason
    from kernelopt.stagenames import Stage

    ws = add_workspace
    word = str(ws.root)
    assert main(["status", word, "--json"]) == 0
    fresh = json.loads(capsys.readouterr().out)
    assert fresh["run"] == "none" and fresh["versions"] == 0
    assert fresh["next"] == f"`kernelopt optimize {word}` gates and records V0, then runs the loop"
    journal = Journal(ws.state_dir)
    head = ws.head()
    journal.save(RunState(current=IterationState(version=1, stage=Stage.GATE, base_commit=head, good_version=0)))
    assert main(["status", word]) == 0
    out = capsys.readouterr().out
    assert "run: interrupted (V1 at its gate stage)" in out, out
    assert f"next: `kernelopt optimize {word}` resumes it, rolling that stage back first" in out
    journal.save(
        RunState(
            status=RunStatus.FINISHED,
            stop=StopDecision(reason=StopReason.CONVERGED, detail="the launch configuration has converged"),
        )
    )
    assert main(["status", word]) == 0
    out = capsys.readouterr().out
    assert "run: stopped: converged: the launch configuration has converged" in out
    assert f"`kernelopt optimize {word} --implementer agent-cli`" in out
    # the kernel folder itself, before any run from it: said in one line, exit 2
    folder = ws.root.parent / "mykernel"
    folder.mkdir()
    (folder / "kernel.py").write_text("def run(x):\n    return x\n")
    assert main(["status", str(folder), "--root", str(ws.root.parent)]) == 2
    assert "a kernel folder no run has started from yet" in capsys.readouterr().err


def test_n130_the_skill_s_setup_and_commands_are_what_the_docs_and_the_cli_have() -> None:
    """An agent user setting Codex up from the skill alone (`kernelopt agent install codex`): its config named
    `command`, `args` and `tool_timeout_sec`, not `startup_timeout_sec` or `default_tools_approval_mode`, which
    docs/agents.md's block sets because without the second `codex exec` refuses every call ("requires approval");
    and its stage 6 named `kernelopt report` alone for "stop?", where `kernelopt status` now says it on the CLI. Every
    key of the docs' Codex block is in the skill, and every `kernelopt <command>` the skill names is a command."""
    import tomllib

    from kernelopt.agents.install import skill_files
    from kernelopt.cli.app import COMMANDS

    skill = skill_files()["SKILL.md"]
    docs = (Path(__file__).parents[1] / "docs" / "agents.md").read_text()
    block = docs.split("```toml\n", 1)[1].split("```", 1)[0]
    keys = tomllib.loads(block)["mcp_servers"]["kernelopt"]
    setup = skill.split("## Setting up", 1)[1]
    assert [k for k in keys if f"{k} = " not in setup] == []
    named = set(re.findall(r"`kernelopt ([a-z]+)", skill))
    assert named - set(COMMANDS) == set() and {"status", "report"} <= named
    assert "| `status` | `kernelopt status WS`, `kernelopt report WS` |" in skill


@pytest.mark.timeout(120)
def test_n131_a_kernel_at_its_roofline_stops_after_v0_in_the_field_s_terms(ws_root: Path) -> None:
    """A kernel already near its roofline, `optimize` with the default backends: the run stopped after V0 with
    "94.5 % of the roofline bound (measured ceilings) >= 90 %": not which roof (the measured copy stream's GB/s), not
    whether the kernel is memory- or compute-bound, not the rate it achieved, and nothing of Stage 1's profile of that
    very kernel (Nsight Compute's DRAM and SM throughput, % of peak). The stop says all four, each figure the
    profiler's with its metric name (V0's recorded profile, the loop's fakes)."""
    from kernelopt.loop.machine import OptimizeLoop
    from kernelopt.loop.opening import open_or_create
    from kernelopt.loop.settings import LoopRequest
    from kernelopt.loop.stop import StopReason
    from kernelopt.workspace import Workspace

    from .loop_fakes import DATA, FakeCeilings, make_fakes

    ws = open_or_create(DATA, name="loop", root=ws_root).workspace
    fakes = make_fakes()
    fakes.ceilings.value = FakeCeilings(memory_gbps=1.0)  # roofline latency: 49152 B / 1 GB/s = 49.152 us
    fakes.gate.latency_of = {64: 52.0}.__getitem__  # V0 at 94.5 % of it
    s = OptimizeLoop(Workspace(ws.root), fakes.collaborators(), LoopRequest(max_iterations=5)).run()
    assert s.stop is not None and s.stop.reason is StopReason.ROOFLINE_UTILIZATION and s.iterations == 0
    assert s.stop.detail == (
        "94.5 % of the roofline bound (measured ceilings: measured copy 1 GB/s, memory-bound) >= 90 %; achieved "
        "0.9452 GB/s and 7.877e-05 TFLOP/s (the gate's timing, reference.py's counts); ncu on V0's kernel (dot_prod): "
        "DRAM throughput 34.86 % of peak (gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed), compute (SM) "
        "throughput 72.43 % of peak (sm__throughput.avg.pct_of_peak_sustained_elapsed), DRAM 114.4 GB/s "
        "(dram__bytes.sum.per_second)"
    )


def _roofadd_stopped_after_v0(summary: dict[str, Any], *, counters: bool) -> None:
    """The GPU test's n131 checks of `optimize --json` on newuser19's roofadd: stopped after V0 at the roofline, the
    reason naming the roofs, memory-bound and the achieved GB/s, and, where ncu read counters (``counters``), V0's DRAM
    throughput with the metric ncu reported it under: one of the names kernelopt reads it from (ncu 2025.3.1 on the
    H100 of 2026-12-07 reports `gpu__dram_throughput...`, older ones `dram__throughput...`; gpurec23 g1)."""
    from kernelopt.evidence.nvidia_metrics import DIRECT

    stop = summary["stop"]
    assert stop["reason"] == "roofline_utilization" and summary["iterations"] == 0, stop
    detail = stop["detail"]
    assert re.search(r"% of the roofline bound \((measured ceilings|spec peak): .*memory-bound\) >= 50 %", detail)
    assert "; achieved " in detail and " GB/s" in detail, detail
    if counters:
        [names] = [spec.sources for spec in DIRECT if spec.name == "dram_throughput_pct"]
        said = re.search(r"on V0's kernel \(add_kernel\): DRAM throughput [0-9.]+ % of peak \(([^)]+)\)", detail)
        assert said is not None and said.group(1) in names, (detail, names)


def test_gpurec23_g1_the_h100_s_roofline_stop_names_ncu_s_own_dram_metric() -> None:
    """The H100's `optimize --json` of 2026-12-07 (docs/gpu-runs/2026-12-07-h100-p) replayed through the GPU test's
    checks: ncu 2025.3.1 named V0's DRAM throughput `gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed`, which the
    GPU test refused, asking for `dram__throughput...` alone. Either name passes; a name kernelopt does not read it
    from, or a detail without the metric, does not."""
    recorded = Path(__file__).parents[1] / "docs" / "gpu-runs" / "2026-12-07-h100-p" / "newuser19_optimize.json"
    summary = json.loads(recorded.read_text())
    detail = summary["stop"]["detail"]

    def told(said: str) -> dict[str, Any]:
        return {**summary, "stop": {**summary["stop"], "detail": said}}

    older = detail.replace("(gpu__dram_throughput.", "(dram__throughput.")
    assert older != detail
    for said in (detail, older):
        _roofadd_stopped_after_v0(told(said), counters=True)
    no_ncu = detail.split("; ncu ")[0]
    for wrong in (detail.replace("(gpu__dram_throughput.", "(lts__throughput."), no_ncu):
        with pytest.raises(AssertionError):
            _roofadd_stopped_after_v0(told(wrong), counters=True)
    _roofadd_stopped_after_v0(told(no_ncu), counters=False)


@pytest.mark.gpu
@pytest.mark.timeout(560)
def test_n128_n131_on_a_gpu_an_add_at_its_roofline_stops_after_v0_in_ncu_s_terms_and_meets_max_autotune(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU with Nsight Compute: `optimize --device cuda` on an elementwise add at 1 GiB a tensor whose task
    card asks half the roofline bound: the run stops after V0 (no tuning session), its reason naming the roofs, the
    bound and the achieved GB/s, and, where ncu read counters, V0's DRAM throughput with ncu's metric name (n131).
    Then `KERNELOPT_COMPILE_MODE=max-autotune validate --compile-reference` times the kernel against Inductor's
    max-autotune build of the reference: a figure, no compile error (n128). Outputs kept under $OUT/newuser19_roofadd."""
    import os
    import shutil

    from kernelopt.cli.app import main

    folder = Path(shutil.copytree(Path(__file__).parent / "data" / "newuser19" / "roofadd", tmp_path / "roofadd"))
    keep = Path(os.environ["OUT"]) / "newuser19_roofadd" if os.environ.get("OUT") else tmp_path / "kept"
    keep.mkdir(parents=True, exist_ok=True)
    code = main(["optimize", str(folder), "--device", "cuda", "--root", str(tmp_path), "--max-iters", "2", "--json"])
    captured = capsys.readouterr()
    (keep / "optimize.json").write_text(captured.out)
    (keep / "optimize.err").write_text(captured.err)
    assert code == 0, captured.err[-3000:]
    summary = json.loads(captured.out)
    ws = Path(summary["workspace"])
    v0 = json.loads((ws / "profiles" / "v0" / "summary.json").read_text())
    _roofadd_stopped_after_v0(summary, counters=v0["counters_available"])
    monkeypatch.setenv("KERNELOPT_COMPILE_MODE", "max-autotune")
    code = main(["validate", str(ws), "--device", "cuda", "--compile-reference", "--json"])
    captured = capsys.readouterr()
    (keep / "validate.json").write_text(captured.out)
    (keep / "validate.err").write_text(captured.err)
    assert code == 0, captured.err[-3000:]
    said = json.loads(captured.out)
    assert isinstance(said.get("speedup_vs_compiled"), float), {k: v for k, v in said.items() if "compil" in k}
    vs = said["record"]["performance"]["speedup_vs_reference"]  # the mode it was measured against (late27, z52)
    assert (vs["compile_backend"], vs["compile_mode"]) == ("inductor", "max-autotune"), vs


def test_n132_a_relative_import_in_an_installed_package_is_told_its_absolute_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project's kernel with its helper imported relatively (`from ....utils import cdiv` in
    src/acme/kernels/norm/rel/kernel.py, every folder a package, acme installed): `tune` and `optimize` refused it,
    rightly (a workspace holds kernel.py alone), but said only "define what it uses in kernel.py", where
    `from acme.utils import cdiv` loads anywhere acme is importable, as it is here. The hint names the absolute name
    where the top package is importable, and not where it is not."""
    from kernelopt.errors import InputFileError
    from kernelopt.kernelsource import KernelForm, check_kernel

    src = tmp_path / "src"
    pkg = src / "acmex" / "kernels" / "rel"
    pkg.mkdir(parents=True)
    for folder in (src / "acmex", src / "acmex" / "kernels", pkg):
        (folder / "__init__.py").write_text("")
    (src / "acmex" / "utils.py").write_text("def cdiv(a, b):\n    return (a + b - 1) // b\n")
    kernel = pkg / "kernel.py"
    kernel.write_text("from ...utils import cdiv\nfrom . import launch\n\n\ndef run(x):\n    return x\n")
    (pkg / "launch.py").write_text("")

    def hint() -> str:
        with pytest.raises(InputFileError) as caught:
            check_kernel(kernel, KernelForm.FUNCTION)
        return caught.value.one_line()

    assert hint().endswith("so it could not load there; define what it uses in kernel.py")
    monkeypatch.syspath_prepend(str(src))
    said = hint()
    assert "imports ...utils, .launch from its own folder" in said, said
    assert said.endswith(
        "import them by their absolute name (acmex.utils, acmex.kernels.rel.launch: acmex is importable here), or "
        "define what it uses in kernel.py"
    ), said


def test_n133_a_kernel_py_that_imports_its_run_from_the_project_is_told_why_nothing_tunes() -> None:
    """The project's kernel given as its package has it (`kernel.py` = `from acme.ops.scale import run`, the Triton
    launch in acme/ops/scale.py): `tune` said "no tunable knob: discovery lists nothing (no launch literal, autotune
    config or `# kernelopt: tunable` constant)" and the loop the same, though the launch has literals: they are in a
    module that neither edits. Both now say where the entry point comes from and what to do."""
    from kernelopt.kernelsource import entry_imported
    from kernelopt.tuning.launch import seen_knobs

    forms = {
        "from acme.ops.scale import run\n": "acme.ops.scale.run",
        "from acme.ops import fused_scale as run\n": "acme.ops.fused_scale",
        "import acme.ops.scale as scale\n\nrun = scale.run\n": "scale.run",
        "from acme.models import Fused as ModelNew\n": "acme.models.Fused",
        "from acme.ops.scale import run\n\n\ndef run(x):\n    return x\n": None,  # defined after: its own
        "import torch\n\n\ndef run(x):\n    return torch.relu(x)\n": None,
    }
    assert {text: entry_imported(text) for text in forms} == forms
    said = seen_knobs([], "from acme.ops.scale import run\n")
    assert said.startswith("nothing: kernel.py imports its entry point (acme.ops.scale.run) and launches no kernel")
    assert said.endswith("put its code (its launch and the kernel it launches) in kernel.py")
    assert seen_knobs([], "def run(x):\n    return x\n").startswith("nothing (no launch literal")


def test_n134_an_mcp_init_of_a_project_s_kernel_outside_the_roots_says_how_to_reach_it(tmp_path: Path) -> None:
    """An agent user with the server set up as docs/agents.md shows it (`kernelopt mcp --root ~/kernels`) asking
    `init` for the project's kernel (~/proj/src/acme/kernels/norm/rms/kernel.py): "kernel ...: outside the server's
    roots (...)", and nothing in the docs or the skill said that init's own files must lie under a root, or how to
    give one. The refusal names the second --root, as do the skill's setup and docs/agents.md."""
    from kernelopt.agents.install import skill_files
    from kernelopt.agents.roots import OutsideRoots, Roots

    kernels, project = tmp_path / "kernels", tmp_path / "proj"
    kernels.mkdir()
    (project / "rms").mkdir(parents=True)
    with pytest.raises(OutsideRoots) as caught:
        Roots([kernels]).confine(str(project / "rms" / "kernel.py"), "kernel")
    assert caught.value.one_line().endswith(
        f"outside the server's roots ({kernels}); start the server with a root that holds it too (kernelopt mcp "
        f"--root {kernels} --root YOUR_PROJECT: new workspaces go under the first root)"
    )
    assert (
        Roots([kernels, project]).confine(str(project / "rms" / "kernel.py"), "kernel") == project / "rms" / "kernel.py"
    )
    assert "give the repository as a second root (`--root DIR --root PROJECT`" in skill_files()["SKILL.md"]
    docs = (Path(__file__).parents[1] / "docs" / "agents.md").read_text()
    assert "`kernelopt mcp --root ~/kernels --root ~/myproject`" in docs


def test_n135_a_kernel_taken_back_from_the_workspace_continues_it_not_refused(tmp_path: Path) -> None:
    """The project's user did as n127's line says (`cp WS/kernel.py DIR/kernel.py`, V1 taken into the project) and ran
    `optimize DIR` again: "the existing workspace ... was made from another kernel.py than DIR's (its V0 differs); pass
    --name NEW ... or --reuse-workspace": the run's own result refused as a stranger. A folder whose kernel.py is the
    workspace's as its last run left it continues the workspace, said in a note; any other kernel.py is refused as
    before."""
    import shutil

    from kernelopt.errors import WorkspaceError
    from kernelopt.loop.opening import BASELINE_PREFIX, open_or_create

    folder = Path(shutil.copytree(Path(__file__).parent / "data" / "loop", tmp_path / "mine"))
    ws = open_or_create(folder, root=tmp_path).workspace
    ws.commit(["kernel.py"], f"{BASELINE_PREFIX} (the kernel as given)")
    ws.kernel_py.write_text(ws.kernel_py.read_text().replace("BLOCK = 64", "BLOCK = 4096"))
    ws.commit(["kernel.py"], "V1: autotune: BLOCK 64 -> 4096")
    shutil.copyfile(ws.kernel_py, folder / "kernel.py")  # taken back
    opened = open_or_create(folder, root=tmp_path)
    assert opened.workspace.root == ws.root and not opened.created
    assert opened.note == f"continuing {ws.root}: {folder / 'kernel.py'} is its kernel.py as its last run left it"
    (folder / "kernel.py").write_text(ws.kernel_py.read_text().replace("BLOCK = 4096", "BLOCK = 128"))
    with pytest.raises(WorkspaceError, match="was made from another kernel.py than"):
        open_or_create(folder, root=tmp_path)


def test_n137_tune_s_help_says_what_the_docs_say_of_a_workspace_and_the_default_budget(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kernelopt tune --help` said PATH is "a folder ... or a workspace" (a workspace without --dry-run is refused:
    the loop writes its kernel.py, docs/tuning-engine.md) and `--budget` "Candidates per session." with no default,
    where the session's own header says "budget default: max(24, 1/5 of the space)"."""
    from kernelopt.cli.app import main

    monkeypatch.setenv("COLUMNS", "400")
    assert main(["tune", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.replace("│", " ").split())
    assert "or a workspace (--dry-run only: the loop writes a workspace's kernel.py)" in text
    assert "Candidates per session (default: the larger of 24 and 1/5 of the fit-pruned space)" in text


def test_n138_a_command_given_the_kernel_folder_names_the_workspace_optimize_made_from_it(
    add_workspace: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kernelopt report src/acme/kernels/norm/rms --root WSROOT` (and `validate`, `profile` on the folder) after
    `optimize` of that folder: "not a kernelopt workspace (no git repository); `kernelopt init NAME --kernel ...`
    makes one from it", with the run's workspace there all along. The refusal names it: under --root where the
    command takes one, under /tmp (the default root) for the others."""
    from kernelopt import workspace as wsmod
    from kernelopt.cli.workspace_arg import resolve_workspace
    from kernelopt.errors import WorkspaceError

    made = add_workspace.root  # <root>/kernel_opt_add
    folder = tmp_path / "project" / "add"
    folder.mkdir(parents=True)
    for name in ("kernel.py", "reference.py"):
        (folder / name).write_bytes((made / name).read_bytes())
    said = f"a workspace of this folder's name is {made} (`kernelopt optimize` makes <root>/kernel_opt_<folder name>"
    with pytest.raises(WorkspaceError) as caught:
        resolve_workspace(str(folder), made.parent)
    assert said in caught.value.one_line() and "`kernelopt init NAME --kernel" in caught.value.one_line()
    monkeypatch.setattr(wsmod, "DEFAULT_ROOT", made.parent)
    with pytest.raises(WorkspaceError) as caught:
        wsmod.Workspace(folder)
    assert said in caught.value.one_line()
    monkeypatch.setattr(wsmod, "DEFAULT_ROOT", tmp_path / "elsewhere")
    with pytest.raises(WorkspaceError) as caught:
        wsmod.Workspace(folder)
    assert "a workspace of this folder's name" not in caught.value.one_line()


def test_n139_optimize_refuses_a_project_s_kernel_whose_package_is_not_importable_before_a_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The project's kernel (`from acme.utils import cdiv`) with acme neither installed nor on PYTHONPATH: `tune`
    refused it in one line, but `optimize` made the workspace and V0's gate failed "loading: kernel.py raised
    ModuleNotFoundError: No module named 'acme'". `optimize` now refuses it as `tune` does, before any workspace, and
    both say how a project's own package is made importable."""
    from kernelopt.cli.app import main

    folder = tmp_path / "rms"
    folder.mkdir()
    (folder / "kernel.py").write_text("from acmex_not_installed.utils import cdiv\n\n\ndef run(x):\n    return x\n")
    (folder / "reference.py").write_text(
        "import torch\n\n\ndef get_inputs():\n    return [torch.ones(4)]\n\n\ndef reference(x):\n    return x\n"
    )
    root = tmp_path / "root"
    assert main(["optimize", str(folder), "--device", "cpu", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kernelopt: error: {folder / 'kernel.py'}: imports acmex_not_installed, which is not ")
    assert "`pip install -e` the project or put its source folder on PYTHONPATH" in err and err.count("\n") == 1
    assert not (root / "kernel_opt_rms").exists()
