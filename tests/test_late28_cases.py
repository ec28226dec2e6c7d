"""late28: things kernelopt says that are not true (docs/faults.md, "Said true (late28, 2026-12-07)")."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.batch.model import ProblemRow, ProblemStatus
from kernelopt.batch.rows import figures
from kernelopt.harness.gate import _case_bench, _performance
from kernelopt.harness.model import REFERENCE_LABEL, BenchReport, CaseTiming, TimingMethod, VersionTiming
from kernelopt.memory.model import CorrectnessStatus, IterationRecord


def _reduced(eager: list[float], kernel: list[float]) -> IterationRecord:
    """A primary case timed as a slow kernel's reduced timing is (three blocks of single calls, the first its warm-up
    calls, no re-time made), through the gate's reading into the record it writes."""

    def timed(label: str, samples: list[float]) -> VersionTiming:
        return VersionTiming(
            label=label, samples_us=samples, method=TimingMethod.CPU_PERF_COUNTER, launches_per_sample=1
        )

    timing = CaseTiming(
        index=0,
        label="n=4096",
        interleaved=True,
        reduced="timed in 3 block(s) of single calls, fewer than the 10 of a full timing: ...",
        versions=[timed(REFERENCE_LABEL, eager), timed("v0", kernel)],
    )
    case = _case_bench(timing, "v0", None, 2.0)
    assert not timing.versions[0].retime_samples_us  # no re-time: the case that read "no significant change"
    report = BenchReport(ok=True, status=CorrectnessStatus.PASS, cases=[case])
    perf = _performance(report, case, None, None, None, None, [])
    return IterationRecord.model_validate({"version": "v0", "performance": perf.model_dump()})


def test_z60_a_kernel_measured_far_slower_without_a_re_time_reads_slower() -> None:
    """z60 (break22's seen item): a kernel sleeping 1.5 s a call is timed reduced, with no re-time, and its claim was
    taken back for want of one: ``eager_verdict`` "no significant change" beside "14900x slower ..., not reliable".
    A claim whose own p is past the level of both tests together is kept: the verdict says slower, the figure keeps
    its caveat (its interval spans more than 2x: "not reliable", the batch table's ``?``); a weak claim with no
    re-time is still none."""
    from kernelopt.cli.batch import _speedup
    from kernelopt.harness.decision import describe_speedup
    from kernelopt.harness.stats import UNREPEATED_ALPHA, Verdict, compare_retimed
    from kernelopt.report.headline import eager_claim, reference_headline

    eager = [400.0, 60.0, 300.0, 95.0, 110.0, 190.0]
    kernel = [1.62e6, 1.49e6, 1.50e6, 1.48e6, 1.51e6, 1.49e6]
    vs = _reduced(eager, kernel).performance.speedup_vs_reference
    assert vs is not None and vs.eager is not None and vs.eager_p_value is not None
    assert vs.eager_p_value < UNREPEATED_ALPHA and vs.eager_verdict == Verdict.REGRESSION.value
    assert eager_claim(vs) == f"p {vs.eager_p_value:.2g}, d {vs.eager_effect_size_d:.2f}: regression"
    headline = reference_headline(vs)
    assert headline is not None and headline.startswith("7540x slower than the reference (PyTorch eager), not reliable")
    row = figures(ProblemRow(problem="p", folder="/p", status=ProblemStatus.PASS), _reduced(eager, kernel))
    assert row.eager_verdict == "regression"
    assert _speedup(row.speedup_vs_eager, row.eager_verdict, row.eager_ci_low, row.eager_ci_high) == "0.000133x*?"
    alone = compare_retimed(eager, kernel, [], [], 2.0)
    assert alone.confirmed is False and describe_speedup(alone).endswith(
        "; not re-timed: kept (a faster claim is not made, a slower one stands only at p below 0.001))"
    )
    # a 1.27x slowdown at p 0.008 in three blocks claims by rules 1-3 and, with no re-time, is no claim, as before
    weak = _reduced([100.0, 100.0, 104.0, 96.0, 100.0, 100.0], [120.0, 134.0, 131.0, 139.0, 126.0, 124.0])
    wvs = weak.performance.speedup_vs_reference
    assert wvs is not None and wvs.eager_p_value is not None and UNREPEATED_ALPHA < wvs.eager_p_value < 0.05
    assert wvs.eager_verdict == Verdict.NO_CHANGE.value
    assert eager_claim(wvs).endswith("no claim: its interval does not clear the margin, or no re-time was made")
    weak_alone = compare_retimed(
        [100.0, 100.0, 104.0, 96.0, 100.0, 100.0], [120.0, 134.0, 131.0, 139.0, 126.0, 124.0], [], [], 2.0
    )
    assert weak_alone.confirmed is False and describe_speedup(weak_alone).endswith(
        "; not re-timed: no claim (a faster claim is not made, a slower one stands only at p below 0.001))"
    )


LEFTOVERS22 = Path(__file__).parent / "data" / "leftovers22"


def test_z61_a_knob_whose_grid_a_helper_counts_is_listed_not_editable_with_the_edit_s_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """z61 (leftovers22's l16 seen item): ``kernelopt tunables`` listed BLOCK of a launch whose grid another module's
    helper or a class's method counts (the tile not handed to it) as a computed setting to tune, while every edit of
    it was refused (tune) or written wrong at every size (``--set``, "written as asked"). The listing now says it is
    not editable with the edit's own line, ``--set`` refuses it with that line and writes nothing, and the form handing
    the tile to the helper stays editable."""
    from kernelopt.cli.app import main
    from kernelopt.tunables import discover
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit

    for folder in ("grid_helper_module", "grid_module_object", "grid_class"):
        source = (LEFTOVERS22 / folder / "kernel.py").read_text()
        (block,) = [t for t in discover(LEFTOVERS22 / folder / "kernel.py") if t.key == "scale_kernel:BLOCK"]
        edit = guard_edit(source, apply_source(source, {"scale_kernel:BLOCK": 512}).new_source).note
        assert not block.editable and edit is not None and block.refused_reason == edit.removesuffix(": not written")
    kernel = tmp_path / "kernel.py"
    source = (LEFTOVERS22 / "grid_class" / "kernel.py").read_text()
    kernel.write_text(source)
    assert main(["tunables", str(kernel)]) == 0
    said = " ".join(capsys.readouterr().err.split())
    assert "scale_kernel:BLOCK is not editable: the grid of BLOCK is counted by Cfg.grid(n), a method of class" in said
    assert said.endswith("hand it the tile (Cfg.grid(n, BLOCK)) or count the grid in kernel.py")
    assert main(["tunables", str(kernel), "--set", "scale_kernel:BLOCK=512"]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "scale_kernel:BLOCK cannot be edited safely: the grid of BLOCK is counted by Cfg.grid(n)" in said
    assert kernel.read_text() == source
    handed = source.replace("def grid(n):\n        return (triton.cdiv(n, Cfg.BLOCK),)", "def grid(n, block):\n")
    handed = handed.replace("def grid(n, block):\n", "def grid(n, block):\n        return (triton.cdiv(n, block),)")
    handed = handed.replace(
        "scale_kernel[Cfg.grid(n)](x, y, n, BLOCK=Cfg.block(n))",
        "BLOCK = Cfg.block(n)\n    scale_kernel[Cfg.grid(n, BLOCK)](x, y, n, BLOCK=BLOCK)",
    )
    kernel.write_text(handed)
    (block,) = [t for t in discover(kernel) if t.key == "scale_kernel:BLOCK"]
    assert block.editable, block.refused_reason
    assert main(["tunables", str(kernel), "--set", "scale_kernel:BLOCK=512"]) == 0
    assert "BLOCK = 512" in kernel.read_text()


def test_z62_the_batch_table_the_timeline_csv_and_the_mcp_digest_say_the_compile_mode(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """z62 (late27's seen item): z52 recorded the backend and mode torch.compile built the reference with and said them
    beside the headline, the report's line and validate's table; the batch table (its ``vs compile`` column and fast_p's),
    batch.json and batch.csv, the timeline CSV and the MCP report digest gave the figure alone. Each now says it by the
    one rule (``compiled_name``): a column header where every row shares it, the row's cell where rows differ."""
    import csv
    import io

    from kernelopt.agents.report_digest import digest
    from kernelopt.batch.model import BatchMode, BatchTable, csv_text
    from kernelopt.cli.batch import render
    from kernelopt.report.model import ReportData, VersionEntry
    from kernelopt.report.timeline_csv import timeline_csv
    from tests.test_break22_cases import reference_timed_case

    case, report = reference_timed_case()
    perf = _performance(report, case, None, None, None, None, [], compiled_with=("inductor", "max-autotune"))
    record = IterationRecord.model_validate({"version": "v0", "performance": perf.model_dump()})
    said = "torch.compile (mode max-autotune)"
    data = ReportData(name="w", root="/w", versions=[VersionEntry(record=record)])
    (line,) = csv.DictReader(io.StringIO(timeline_csv(data)))
    assert line["compiled_against"] == said and float(line["speedup_vs_compiled"]) > 1
    (version,) = digest(data, more="").versions
    assert version.compiled_against == said and version.speedup_vs_compiled is not None
    row = figures(ProblemRow(problem="p", folder="/p", status=ProblemStatus.PASS), record)
    assert row.compiled_against == said
    table = BatchTable(directory="/d", mode=BatchMode.VALIDATE, rows=[row, row.model_copy(update={"problem": "q"})])
    (first, _) = csv.DictReader(io.StringIO(csv_text(table)))
    assert first["compiled_against"] == said
    render(table, Path("/nonexistent"))
    out = " ".join(capsys.readouterr().out.split())
    assert "(mode max-autotune)" in out and "vs compile (mode max-autotune)" in out  # the header, the fast_p column
    other = record.performance.speedup_vs_reference
    assert other is not None
    default = record.model_copy(
        update={
            "performance": record.performance.model_copy(
                update={"speedup_vs_reference": other.model_copy(update={"compile_mode": "default"})}
            )
        }
    )
    mixed = figures(ProblemRow(problem="q", folder="/q", status=ProblemStatus.PASS), default)
    render(BatchTable(directory="/d", mode=BatchMode.VALIDATE, rows=[row, mixed]), Path("/nonexistent"))
    out = capsys.readouterr().out
    assert "(mode max-autotune)" in out and "(mode default)" in out  # each row's cell, the rows differing


def test_z63_a_second_live_server_is_named_after_the_first_one_dies(tmp_path: Path) -> None:
    """z63 (leftovers22's l19 seen item): a workspace two ``kernelopt mcp`` servers made stage calls on kept
    ``"running": true`` after the one that paused the run (the last call's) was killed, its status naming neither: a
    client could not tell its own server from another's. Each call now writes its server's pid into the mark, and the
    status names the live servers (``served_by``) and, where the last call's server has ended, says so and which
    lives; with both killed, the run reads as l19's (no server serves it)."""
    import os
    import signal

    from kernelopt.agents import drive
    from kernelopt.loop.journal import IterationState, Journal, RunSettings, RunState
    from kernelopt.stagenames import Stage
    from tests.backends_support import make_ws

    ws = make_ws(tmp_path)
    it = IterationState(version=1, stage=Stage.IMPLEMENT, base_commit=ws.head(), good_version=0)
    settings = RunSettings(planner=drive.AGENT, implementer=drive.AGENT)
    Journal(ws.state_dir).save(RunState(settings=settings, current=it, paused=True))

    def server() -> int:
        """A forked server that makes one stage call (drive's wrapper of every call), then idles; its pid, once
        the call returned."""
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                drive._held(lambda _ws: None)(ws)
                os.write(write, b"x")
                signal.pause()
            finally:
                os._exit(0)
        os.close(write)
        assert os.read(read, 1) == b"x"
        os.close(read)
        alive.append(pid)
        return pid

    def kill(pid: int) -> None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        alive.remove(pid)

    alive: list[int] = []
    try:
        other = server()
        last = server()  # the last call, pausing the run
        both = drive.status(ws)
        assert both.running and both.served_by == sorted((other, last)) and both.interrupted is None, both
        assert not both.why.startswith("the run is paused")
        kill(last)
        now = drive.status(ws)  # main said running: true here, and nothing of which server lives
        assert now.running and now.interrupted is None and now.served_by == [other], now
        assert now.why.startswith(
            f"the run is paused in V1's implement stage; the kernelopt mcp server that made the last stage call (pid "
            f"{last}) has ended, and another that served this workspace lives (pid {other}): the next stage call, "
            "from it or any server, continues the run where it paused; "
        ), now.why
    finally:
        for pid in list(alive):  # only this test's own children, each once
            kill(pid)
    gone = drive.status(ws)
    assert not gone.running and gone.served_by == [] and (gone.interrupted or "").endswith("where it paused")
