"""newuser20: a new user's first hour, twentieth trial (docs/faults.md, "A new user's first hour, twentieth trial
(newuser20, 2026-12-07)"); n1-n139 are earlier trials'."""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

import pytest


def test_n140_status_of_a_run_ended_by_ctrl_c_says_interrupted_and_which_version_resumes(
    add_workspace: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`optimize` Ctrl-C'd in V1's implement stage said "interrupted; the run is saved: `kernelopt optimize WS
    --resume` continues it", and `kernelopt status WS` then said "run: none in flight" and "next: `kernelopt optimize
    WS` starts V2": the run's own process had rolled the stage back (the journal's `parked`), which status read as no
    run at all, and the next version counted from the records. It says the run was interrupted, where, and that the
    next optimize resumes it."""
    from kernelopt.cli.app import main
    from kernelopt.loop.journal import IterationState, Journal, RunState
    from kernelopt.stagenames import Stage

    ws = add_workspace
    word = str(ws.root)
    journal = Journal(ws.state_dir)
    state = RunState(current=IterationState(version=1, stage=Stage.IMPLEMENT, base_commit=ws.head(), good_version=0))
    journal.save(state.model_copy(update={"parked": True}))
    assert main(["status", word]) == 0
    out = capsys.readouterr().out
    assert "run: interrupted (V1 at its implement stage)" in out, out
    assert f"next: `kernelopt optimize {word}` resumes it (that stage was rolled back as it stopped)" in out
    assert "starts V" not in out and "none in flight" not in out
    assert main(["status", word, "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert (said["run"], said["version"], said["stage"]) == ("interrupted", 1, "implement")


def test_n141_a_misspelt_kernelopt_variable_is_said_not_ignored_in_silence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`KERNELOPT_SEED=1 KERNELOPT_BENCH_SEC=0.05 kernelopt validate ...`: both typos ignored in silence, three seeds
    and the default timing taken, nothing said. Each command warns in one line naming the variable meant; the names
    this repository's own tests and GPU scripts set (`KERNELOPT_COMMIT`, `KERNELOPT_AOT_TESTS`, ...) are left alone."""
    from kernelopt.cli.app import main
    from kernelopt.env import misspelt

    ours = ["KERNELOPT_COMMIT", "KERNELOPT_AOT_TESTS", "KERNELOPT_GPU_PICKS", "KERNELOPT_TEST_PLAIN"]
    ours += ["KERNELOPT_TEST_PROBE", "KERNELOPT_HOOK_LOG", "KERNELOPT_CLI_TABLE"]
    ours += ["KERNELOPT_EXPECT_COUNTERS", "KERNELOPT_SKIP_COMPILE_TESTS", "KERNELOPT_TEST_API_TOKEN"]
    ours += ["KERNELOPT_TEST_CLI_CACHE", "KERNELOPT_SEEDS", "KERNELOPT_BENCH_SECONDS", "KERNELOPT_WORKER"]
    assert misspelt(dict.fromkeys(ours, "1")) == []
    typos = {
        "KERNELOPT_SEED": "1",
        "KERNELOPT_BENCH_SEC": "0.05",
        "KERNELOPT_NCU_PATH": "/x/ncu",
        "KERNELOPT_CACHE": "/c",
    }
    meant = [re.search(r"did you mean (\w+)\?", line)[1] for line in misspelt({**typos, "KERNELOPT_LLM_APIKEY": ""})]  # type: ignore[index]
    assert meant == ["KERNELOPT_BENCH_S", "KERNELOPT_CACHE_DIR", "KERNELOPT_NCU", "KERNELOPT_SEEDS"]
    monkeypatch.setenv("KERNELOPT_SEED", "1")
    assert main(["schema", "sweep"]) == 0
    err = capsys.readouterr().err
    assert err == (
        "kernelopt: warning: KERNELOPT_SEED is not a variable kernelopt reads (ignored): did you mean "
        "KERNELOPT_SEEDS? (docs/environment.md lists them all)\n"
    )


def test_n142_the_timeline_csv_gives_the_speedup_over_pytorch_with_its_interval() -> None:
    """`kernelopt report WS --csv`: the speedup over the previous version came with its 95 % interval and verdict,
    the one over PyTorch (and torch.compile) as a bare figure, where the summary, the report and batch.csv give its
    interval ("290x slower than PyTorch eager, 95 % interval 214-420x slower"). The CSV gives both the same way."""
    from kernelopt.memory.model import IterationRecord, Performance, ReferenceSpeedup
    from kernelopt.report.model import ReportData, VersionEntry
    from kernelopt.report.timeline_csv import timeline_csv

    ref = ReferenceSpeedup(
        eager=0.00345, eager_ci_low=0.00238, eager_ci_high=0.00468, eager_verdict="regression", eager_latency_us=36.4
    )
    ref = ref.model_copy(update={"compiled": 1.8, "compiled_ci_low": 1.7, "compiled_ci_high": 1.9})
    ref = ref.model_copy(update={"compiled_verdict": "improvement", "compile_backend": "inductor"})
    record = IterationRecord(version="v0", performance=Performance(latency_us=12290.0, speedup_vs_reference=ref))
    (line,) = csv.DictReader(
        io.StringIO(timeline_csv(ReportData(name="w", root="/w", versions=[VersionEntry(record=record)])))
    )
    assert [line[f"speedup_vs_reference{k}"] for k in ("", "_ci_low", "_ci_high")] == ["0.00345", "0.00238", "0.00468"]
    assert line["verdict_vs_reference"] == "regression"
    assert [line[f"speedup_vs_compiled{k}"] for k in ("", "_ci_low", "_ci_high")] == ["1.8", "1.7", "1.9"]
    assert line["verdict_vs_compiled"] == "improvement"


def test_n143_a_search_plot_s_log_axis_writes_every_latency_label_as_a_plain_number() -> None:
    """`tune`'s search.png on the CPU (latencies 25,000-350,000 us): the latency axis read "4 x 10^5", "3 x 10^5",
    "200000", "6 x 10^4", "50000": the majors plain, the minor ticks matplotlib labels where a decade holds few majors
    in its scientific form. Every label is a plain number now, thousands grouped."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from kernelopt.report.search_plot import _latency_scale, latency_axis, plain_latency

    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    ax.plot([1, 2], [25170.0, 350000.0])
    _latency_scale(ax, latency_axis([25170.0, 350000.0]))
    fig.canvas.draw()
    labels = [t.get_text() for t in (*ax.get_yticklabels(), *ax.get_yticklabels(minor=True)) if t.get_text()]
    assert {"30,000", "50,000", "200,000", "300,000"} <= set(labels), labels
    assert [x for x in labels if not re.fullmatch(r"\d{1,3}(,\d{3})*", x)] == []
    assert (plain_latency(1e6), plain_latency(0.5)) == ("1,000,000", "0.5")


def test_n144_every_command_s_help_ends_with_examples_that_parse_and_name_real_paths() -> None:
    """No `--help` showed an example (the top-level one neither: nowhere to start from); a user read `optimize`'s
    options and went back to the README for a line that runs. The top-level help and nine commands' end with lines
    to run from the repository's root: each parses against its command's own options, each repository path it names
    exists, each fits 76 columns (typer wraps an epilog at the terminal's width, and a wrapped line no longer runs
    when pasted), and each shows in its help."""
    import shlex
    from pathlib import Path

    import typer.main
    from typer.testing import CliRunner

    from kernelopt.cli.app import build_app
    from kernelopt.cli.examples import EXAMPLES, WIDTH

    root = Path(__file__).resolve().parents[1]
    app = build_app()
    commands: dict[str, Any] = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    assert {"kernelopt", "optimize", "tune", "status", "report"} <= set(EXAMPLES)
    assert {name.split()[0] for name in EXAMPLES} <= {"kernelopt", *commands}  # "agent install": a group's (l275)
    for name, shown in EXAMPLES.items():
        help_text = " ".join(
            CliRunner().invoke(app, [*([] if name == "kernelopt" else name.split()), "--help"]).output.split()
        )
        for _what, lines in shown:
            names: dict[str, str] = {}
            for line in lines:
                assert len(line) <= WIDTH and line in help_text, (name, line)
                for part in line.split("&&"):
                    for key, value in names.items():
                        part = part.replace(f"${key}", value)
                    words = shlex.split(part)
                    if "=" in words[0]:  # D=tests/data/loop
                        key, value = words[0].split("=", 1)
                        names[key] = value
                        continue
                    paths = [w for w in words if w.startswith(("tests/", "examples/"))]
                    assert all((root / p).exists() for p in paths), (line, paths)
                    if words[0] != "kernelopt":
                        continue
                    sub, args = commands[words[1]], words[2:]
                    if args and args[0] in getattr(sub, "commands", {}):  # a command of a group (agent install)
                        sub, args = sub.commands[args[0]], args[1:]
                    if args == ["--help"]:
                        continue
                    with sub.make_context(words[1], args) as ctx:  # an unknown option or bad value raises
                        assert ctx.params is not None


@pytest.mark.timeout(120)
def test_n145_each_version_s_commit_says_its_latency_its_speedups_and_why(ws_root: Any) -> None:
    """`git log` in the README demo's workspace: "V1: 6.10e-07 TFLOPS / 4.88e-04 GB/s | autotune: BLOCK_SIZE 128 -> 512
    (bottleneck: timing-only, unknown, duration_us 2.87e+04 us)" and nothing else: no version's latency past V0's, no
    speedup, the "why" a bottleneck class; a revert's reason cut at 120 characters. The subject stays the spec's; the
    body says the latency, the speedup over V0 and the gate's over the version compared with and over PyTorch, the
    plan's inference, and where the plan and the record are; a revert's body has its whole reason (the loop's fakes,
    real git)."""
    from kernelopt.loop.machine import OptimizeLoop
    from kernelopt.loop.opening import open_or_create
    from kernelopt.loop.settings import LoopRequest
    from kernelopt.workspace import Workspace

    from .loop_fakes import DATA, make_fakes

    ws = open_or_create(DATA, name="loop", root=ws_root).workspace
    fakes = make_fakes()
    fakes.gate.reference_latency_us = 30.0
    fakes.gate.fail_at = {2}
    OptimizeLoop(Workspace(ws.root), fakes.collaborators(), LoopRequest(max_iterations=3)).run()
    bodies = {b.split(":", 1)[0]: b for b in ws.repo.git.log("--format=%B%x00").split("\x00") if b.strip()}
    bodies = {k.strip(): v.strip() for k, v in bodies.items()}
    v1 = bodies["V1"].split("\n")
    assert v1[1] == "" and v1[2].startswith("latency: ") and v1[2].endswith(" us"), v1  # V0 is its previous
    assert v1[3].startswith("against V0: ") and "x over V0" in v1[3], v1
    assert v1[4].startswith("against the reference: ") and "the reference (PyTorch eager)" in v1[4], v1
    assert v1[5].startswith("why: ") and v1[-1] == "plan: plans/v1_plan.md; record: memory/v1.json", v1
    assert " -> " not in v1[5], v1  # the plan's inference alone, not its facts or its action
    v3 = bodies["V3"].split("\n")
    # late46 l160: over V0 by the gates' side-by-side speedups chained from V0, never V0's median over this one's
    assert re.fullmatch(
        r"latency: [0-9.]+ us; [0-9.]+x over V0 \(the gates' side-by-side speedups chained from V0\)", v3[2]
    ), v3
    assert v3[3].startswith("against V1: "), v3
    v2 = bodies["V2"].split("\n")
    assert v2[0] == "V2: revert (injected failure)" and v2[2:] == ["injected failure", "record: memory/v2.json"], v2


def test_n146_the_report_names_each_version_s_nsight_compute_report_and_what_opens_it() -> None:
    """The report of a GPU run (docs/gpu-runs' softmax): "Profile: ncu 2025.3.1 --set full (profiles/v1/summary.json)"
    and findings citing "[ncu.ncu-rep (sm_throughput_pct)]": which file, where, and that Nsight Compute's GUI opens it
    (it stays out of git) were nowhere; `kernelopt profile` named the folder and summary.txt alone. The evidence of
    each version names its report's path and the command that opens it, in every report format and in `profile`."""
    from kernelopt.evidence.summary import read_summary
    from kernelopt.memory.model import IterationRecord
    from kernelopt.report.markdown import markdown_report
    from kernelopt.report.model import ReportData, VersionEntry

    from .loop_fakes import DATA

    summary = read_summary(DATA / "summary_memory_bound.json")
    data = ReportData(
        name="w", root="/w", versions=[VersionEntry(record=IterationRecord(version="v1"), summary=summary)]
    )
    said = (
        "Nsight Compute report: profiles/v1/ncu_gtx1660s_dotprod_full.ncu-rep (open it in Nsight Compute's GUI: "
        "`ncu-ui profiles/v1/ncu_gtx1660s_dotprod_full.ncu-rep`; on disk where the profile ran, out of git)"
    )
    assert f"- {said}" in markdown_report(data)
    assert summary.model_copy(update={"artifacts": ["summary.json"]}).gui_lines("profiles/v1") == []


def test_n147_a_config_file_named_but_missing_or_holding_an_unknown_setting_is_said(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`KERNELOPT_CONFIG=~/kernelopt.toml` (no such file), and a config.toml of `[wiki] dir = ["mywiki"]` (a typo of
    `dirs`) or `[harness] seeds = 5` (a wish): each passed over in silence, the user's wiki never searched. A named
    file that is missing, and a setting the file does not hold, are one line each naming it; the right file works."""
    from kernelopt.wiki.loader import configured_dirs
    from kernelopt.wiki.record import WikiError

    monkeypatch.delenv("KERNELOPT_WIKI_DIRS", raising=False)
    monkeypatch.setenv("KERNELOPT_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(WikiError, match=r"KERNELOPT_CONFIG=.*missing\.toml: no such file"):
        configured_dirs()
    cfg = tmp_path / "config.toml"
    monkeypatch.setenv("KERNELOPT_CONFIG", str(cfg))
    (tmp_path / "mywiki").mkdir()
    for text, said in (
        ('[wiki]\ndir = ["mywiki"]\n', r"wiki\.dir is not a setting of the config file \(did you mean wiki\.dirs\?\)"),
        ("[harness]\nseeds = 5\n", r"harness\.seeds is not a setting of the config file; it holds \[wiki\] dirs alone"),
        ("seeds = 5\n", r": seeds is not a setting"),
    ):
        cfg.write_text(text)
        with pytest.raises(WikiError, match=said):
            configured_dirs()
    cfg.write_text('[wiki]\ndirs = ["mywiki"]\n')
    assert configured_dirs() == [tmp_path / "mywiki"]


def test_n148_the_latency_panel_shows_each_latency_s_interval_and_pytorch_beside_each_version() -> None:
    """The report's roofline figure, "Latency per version": one dot a version and the roofline bound; not the 95 %
    interval of any latency the records hold, not the reference (PyTorch eager) the gate timed beside each version,
    the speedup over PyTorch said only in text. The panel draws each interval as an error bar, PyTorch eager as a
    series, and the legend says the final version's speedup over it with its interval."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from kernelopt.memory.model import GateResult, IterationRecord, Performance, QualityGate, ReferenceSpeedup
    from kernelopt.report.model import ReportData, VersionEntry
    from kernelopt.report.roofline import _latency_axes, latency_axis_top, roofline_points

    def version(n: int, lat: float, low: float, high: float, ref_us: float) -> VersionEntry:
        ref = ReferenceSpeedup(eager=ref_us / lat, eager_ci_low=0.9 * ref_us / lat, eager_ci_high=1.1 * ref_us / lat)
        perf = Performance(latency_us=lat, latency_ci_low_us=low, latency_ci_high_us=high)
        perf.speedup_vs_reference = ref.model_copy(update={"eager_latency_us": ref_us})
        gate = QualityGate(result=GateResult.PASS)
        return VersionEntry(record=IterationRecord(version=f"v{n}", performance=perf, quality_gate=gate))

    data = ReportData(
        name="w", root="/w", versions=[version(0, 300.0, 280.0, 330.0, 150.0), version(1, 100.0, 95.0, 104.0, 150.0)]
    )
    points = roofline_points(data)
    assert [(p.latency_ci_low_us, p.latency_ci_high_us, p.reference_us) for p in points] == [
        (280.0, 330.0, 150.0),
        (95.0, 104.0, 150.0),
    ]
    assert points[1].final and points[1].vs_reference == "1.5x over PyTorch eager, 95 % interval 1.35-1.65x"
    assert latency_axis_top(points, []) == pytest.approx(1.1 * 330.0)  # V0's interval fits
    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    _latency_axes(ax, points, [])
    labels = ax.get_legend_handles_labels()[1]
    assert "95 % interval of each latency" in labels
    assert "PyTorch eager, timed beside each version\nV1: 1.5x over PyTorch eager, 95 % interval 1.35-1.65x" in labels
    (bars,) = ax.containers
    segments = bars.lines[2][0].get_segments()
    assert [(seg[0][1], seg[1][1]) for seg in segments] == [(280.0, 330.0), (95.0, 104.0)]


def test_n149_the_latency_panel_draws_a_converged_version_as_converged_not_as_a_failure() -> None:
    """The README demo's V2 (its session kept nothing): the report's timeline says `converged`, the latency panel drew
    it as a failure, a red cross on the axis with "no timing". It is a hollow grey square with "converged: kept
    nothing"; a failed version keeps its red cross."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from kernelopt.actions import SEARCH_NO_GAIN
    from kernelopt.memory.model import GateResult, IterationRecord, Performance, PitfallAndFix, QualityGate
    from kernelopt.report.model import ReportData, VersionEntry
    from kernelopt.report.roofline import _latency_axes, _marker, roofline_points

    def version(n: int, gate: GateResult, kind: str | None = None) -> VersionEntry:
        lat = 100.0 if gate is GateResult.PASS else None
        pits = [PitfallAndFix(error_type=kind, error_message="kept nothing")] if kind else []
        record = IterationRecord(
            version=f"v{n}",
            performance=Performance(latency_us=lat),
            quality_gate=QualityGate(result=gate),
            pitfalls_and_fixes=pits,
        )
        return VersionEntry(record=record)

    data = ReportData(
        name="w",
        root="/w",
        versions=[
            version(0, GateResult.PASS),
            version(1, GateResult.FAIL, SEARCH_NO_GAIN),
            version(2, GateResult.FAIL, "correctness"),
        ],
    )
    points = roofline_points(data)
    assert [(p.converged, p.failed) for p in points] == [(False, False), (True, True), (False, True)]
    assert _marker(points[1])["marker"] == "s" and _marker(points[2])["marker"] == "x"
    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    _latency_axes(ax, points, [])
    assert [t.get_text() for t in ax.texts] == ["converged: kept nothing", "no timing"]


def test_n151_a_kernelopt_device_that_is_no_device_is_said_by_its_variable_before_anything_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`KERNELOPT_DEVICE=gpu kernelopt validate WS` (and `=CPU`): "invalid harness setting device: Value error, unknown
    device 'gpu' (use cuda, cuda:<i> or cpu)": pydantic's words, no variable named, and only once the harness was
    asked for its settings. The variable is checked with the others before any command starts, in their words."""
    from kernelopt.cli.app import main
    from kernelopt.env import EnvSettings
    from kernelopt.errors import UsageError

    for bad in ("gpu", "CPU", "cuda:x"):
        with pytest.raises(UsageError, match=f"KERNELOPT_DEVICE='{re.escape(bad)}' is not a device kernelopt runs on"):
            EnvSettings.read({"KERNELOPT_DEVICE": bad})
    assert [EnvSettings.read({"KERNELOPT_DEVICE": d}).device for d in ("cpu", "cuda", "cuda:1")] == [
        "cpu",
        "cuda",
        "cuda:1",
    ]
    monkeypatch.setenv("KERNELOPT_DEVICE", "gpu")
    assert main(["schema", "sweep"]) == 2
    assert capsys.readouterr().err == (
        "kernelopt: error: KERNELOPT_DEVICE='gpu' is not a device kernelopt runs on: use cuda, cuda:N or cpu\n"
    )


def test_n152_a_torch_compile_that_failed_is_said_where_its_speedup_would_be() -> None:
    """`KERNELOPT_COMPILE_BACKEND=indutor kernelopt validate WS --compile-reference` (a typo of inductor): the record
    kept "torch.compile raised InvalidBackend: Invalid backend: 'indutor'", validate's table said "speedup vs
    torch.compile: n/a" and optimize's summary nothing. Both say it was not timed and why."""
    from kernelopt.cli.validate import _against
    from kernelopt.memory.model import ReferenceSpeedup
    from kernelopt.report.headline import reference_headline

    ref = ReferenceSpeedup(eager=1.5, eager_ci_low=1.4, eager_ci_high=1.6, compile_backend="indutor")
    ref = ref.model_copy(update={"compile_error": "torch.compile raised InvalidBackend: Invalid backend: 'indutor'"})
    said = "torch.compile (indutor backend) not timed: its compile failed: torch.compile raised InvalidBackend"
    assert (_against(ref, "compiled") or "").startswith(said)
    assert reference_headline(ref) == (
        "1.5x over the reference (PyTorch eager), 95 % interval 1.4-1.6x; " + said + ": Invalid backend: 'indutor'"
    )
    assert _against(ref.model_copy(update={"compile_error": None}), "compiled") is None


def _run_until(argv: list[str], said: str, log: Any) -> int:
    """Run `python -m kernelopt ARGV` in a process group of its own, its output to ``log``; send the group SIGINT (as
    Ctrl-C in a terminal) once a line holds ``said``, and return the exit status (the run's own, where it ends first)."""
    import os
    import signal
    import subprocess
    import sys

    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kernelopt", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            out.write(line)
            if said in line:
                os.killpg(proc.pid, signal.SIGINT)
                break
        out.write(proc.stdout.read())
        return proc.wait(timeout=300)


@pytest.mark.gpu
@pytest.mark.timeout(560)
def test_n140_n145_n146_n148_on_a_gpu_ctrl_c_resume_and_what_the_run_leaves_to_read(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """On an NVIDIA GPU with Nsight Compute: `optimize --device cuda --max-iters 1` on examples/elementwise (2**28 fp16,
    512 MiB a tensor), Ctrl-C'd (SIGINT to its process group) once V1's implement stage starts: exit 130, `status` says
    interrupted at V1, the next `optimize` resumes and ends (n140). Then what the run leaves: each version's commit past
    V0 has its body (n145); the report names V0's `.ncu-rep` with the `ncu-ui` command and the file is there (n146);
    the CSV's speedup over PyTorch has its interval around it; the latency panel's points hold the intervals and
    PyTorch's latency, the final version's speedup in words (n148). Outputs kept under $OUT/newuser20_elementwise."""
    import csv
    import io
    import os
    import shutil
    from pathlib import Path

    from kernelopt.cli.app import main
    from kernelopt.report.reader import collect
    from kernelopt.report.roofline import roofline_points
    from kernelopt.workspace import Workspace

    root = Path(__file__).resolve().parents[1]
    folder = Path(shutil.copytree(root / "examples" / "elementwise", tmp_path / "elementwise"))
    keep = Path(os.environ["OUT"]) / "newuser20_elementwise" if os.environ.get("OUT") else tmp_path / "kept"
    keep.mkdir(parents=True, exist_ok=True)
    ws = tmp_path / "kernel_opt_elementwise"
    argv = ["optimize", str(folder), "--device", "cuda", "--root", str(tmp_path), "--max-iters", "1"]
    assert _run_until(argv, "V1 implement", keep / "interrupted.log") == 130, (keep / "interrupted.log").read_text()[
        -3000:
    ]
    assert main(["status", str(ws), "--json"]) == 0
    standing = json.loads(capsys.readouterr().out)
    (keep / "status.json").write_text(json.dumps(standing, indent=1))
    assert (standing["run"], standing["version"]) == ("interrupted", 1), standing
    code = main([*argv, "--json"])
    captured = capsys.readouterr()
    (keep / "resumed.json").write_text(captured.out)
    (keep / "resumed.err").write_text(captured.err)
    assert code == 0 and "resuming the interrupted run (V1" in captured.err, captured.err[-3000:]
    log = Workspace(ws).repo.git.log("--format=%B%x00")
    (keep / "gitlog.txt").write_text(log)
    for body in [b.strip() for b in log.split("\x00") if b.strip().startswith("V1:")]:
        assert "\n\n" in body and body.rstrip().endswith("record: memory/v1.json"), body
        if "revert (" not in body.split("\n", 1)[0]:
            assert "\nlatency: " in body and "\nagainst V0: " in body and "\nagainst the reference: " in body, body
    assert main(["report", str(ws), "--markdown", str(keep / "report.md"), "--csv", str(keep / "versions.csv")]) == 0
    capsys.readouterr()
    v0 = json.loads((ws / "profiles" / "v0" / "summary.json").read_text())
    for name in [a for a in v0["artifacts"] if a.endswith(".ncu-rep")]:
        assert (ws / "profiles" / "v0" / name).is_file()
        assert f"`ncu-ui profiles/v0/{name}`" in (keep / "report.md").read_text()
    rows = list(csv.DictReader(io.StringIO((keep / "versions.csv").read_text())))
    timed = [r for r in rows if r["speedup_vs_reference"] and r["speedup_vs_reference_ci_low"]]
    assert timed, rows
    for r in timed:
        low, x, high = (float(r[f"speedup_vs_reference{k}"]) for k in ("_ci_low", "", "_ci_high"))
        assert low <= x <= high and r["verdict_vs_reference"], r
    points = roofline_points(collect(Workspace(ws)))
    final = next(p for p in points if p.final)
    assert final.reference_us and final.vs_reference and "PyTorch eager" in final.vs_reference, final
    assert final.latency_ci_low_us is not None and final.latency_ci_low_us <= (final.latency_us or 0), final


def test_n150_a_pytorch_module_is_told_it_has_no_launch_to_tune_and_what_can_be(add_workspace: Any) -> None:
    """A PyTorch user's first kernel, a `ModelNew` of `torch.addmm` and `F.gelu` (KernelBench form): `tune` said "no
    tunable knob: discovery lists nothing (no launch literal, autotune config or `# kernelopt: tunable` constant)" and
    `optimize`'s stop the same in Triton's words, to a user who wrote no launch. Both say what the file is, that it has
    no launch configuration, and what can be searched; a Triton kernel, an extension, a Helion kernel and an imported
    entry point are not told so."""
    from kernelopt.kernelsource import plain_torch_note
    from kernelopt.planning.rules import _imported_entry_note
    from kernelopt.tuning.launch import seen_knobs

    gelu = (
        "import torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n    def forward(self, x, w, b):\n"
        "        return torch.nn.functional.gelu(torch.addmm(b, x, w.t())).mul_(2.0)\n"
    )
    said = "kernel.py is PyTorch calls with no kernel launch of its own (no Triton or CUDA kernel), so it has no launch"
    assert (plain_torch_note(gelu) or "").startswith(said)
    assert seen_knobs([], gelu).startswith(f"nothing: {said}")
    for other in (
        "import triton\nimport triton.language as tl\n",
        "from torch.utils.cpp_extension import load_inline\nmod = load_inline(name='m', cpp_sources=SRC)\n",
        "import helion\nimport torch\n",
        "from acme.ops.scale import run\n",
    ):
        assert plain_torch_note(other) is None, other
    ws = add_workspace
    ws.kernel_py.write_text(gelu)
    assert _imported_entry_note(ws).startswith(f"; {said}")
