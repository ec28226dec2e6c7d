"""A new user's first hour with README and docs on a fresh clone (2026-12-05), one test per fix
(docs/faults.md, "A new user's first hour, 2026-12-05")."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.cli.app import main

LOOP = Path(__file__).parent / "data" / "loop"


@pytest.mark.timeout(30)
def test_a_table_wider_than_the_console_folds_its_wide_column_and_keeps_every_column(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """tune's per-shape table, piped (100 columns), lost its last column ("current's latency" cut to "current's
    lat"): Rich cannot fold a column below its min_width, so it cropped the table at the right edge."""
    from kernelopt.cli.output import table

    monkeypatch.delenv("COLUMNS", raising=False)
    columns = ["shape", "its own best", "latency", "chosen's latency", "chosen vs its best", "current's latency"]
    rows = [
        ["n=4096", "BLOCK=4096", 8.956, 8.956, "+0.0 %", 338.9],
        ["n=1000", "BLOCK=1024, num_warps=4, num_stages=3", 7.823, 8.285, "+5.9 %", 88.62],
        ["rows=4,cols=300", "BLOCK_SIZE=computed", 7831.0, 7831.0, "+0.0 %", 7831.0],
    ]
    table("per shape (latency, us)", columns, rows, wide="its own best")
    lines = capsys.readouterr().out.splitlines()
    framed = [line for line in lines if line.strip() and line.lstrip()[0] in "┏┃┡│└"]
    assert framed and all(len(line) <= 100 and line.rstrip()[-1] in "┓┃┩│┘" for line in framed), lines
    assert "338.9" in "\n".join(lines) and "88.62" in "\n".join(lines)
    assert re.search(r"│ BLOCK_SIZE=computed +│", "\n".join(lines))  # a word is not cut ("BLOCK_SIZE=comp")
    knobs = [
        ["row_center_kernel:BLOCK_SIZE", "computed", "computed_setting", "kernel.py:28", "power of two, >= 1", "-"],
        ["row_center_kernel:num_stages", 3, "launch_default", "kernel.py:29", ">= 1", "software_pipelining"],
    ]
    table("tunables", ["key", "value", "kind", "location", "legal", "categories"], knobs)
    drawn = capsys.readouterr().out
    words = drawn.split()  # too wide for the heavy frame, it is drawn without one rather than fold a word
    assert "kernel.py:28" in words and "kernel.py:29" in words, drawn  # was "kernel.py:2" over "8"
    assert "software_pipelining" in words, drawn
    assert all(len(line) <= 100 for line in drawn.splitlines())
    table("t", ["", "configuration", "latency (us)"], [["current", "BLOCK=64", 427.6]], wide="configuration")
    narrow = capsys.readouterr().out
    assert "│ BLOCK=64                 │" in narrow  # a table that fits keeps the wide column's 24 characters


def _folder(tmp_path: Path, shapes: str) -> Path:
    folder = tmp_path / "add"
    shutil.copytree(LOOP, folder, ignore=shutil.ignore_patterns("make_summaries.py", "summary_*"))
    ref = folder / "reference.py"
    ref.write_text(ref.read_text().replace('SHAPES = [{"n": 4096}, {"n": 1000}]', f"SHAPES = {shapes}"))
    return folder


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("shapes", "said"),
    [
        ('{"n": 4096}', "not dict ({'n': 4096})"),
        ("5", "not int (5)"),
        ('["n=4"]', "not list of str ('n=4')"),
        ("[]", "SHAPES is empty"),
    ],
)
def test_tune_refuses_a_shapes_that_is_not_a_list_of_dicts_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shapes: str, said: str
) -> None:
    """`SHAPES = {"n": 4096}` was read as its keys: tune timed get_inputs()'s defaults and wrote kernel.py;
    `SHAPES = 5` ended in "reference.py: TypeError: 'int' object is not iterable; the worker's log: ..."."""
    folder = _folder(tmp_path, shapes)
    before = (folder / "kernel.py").read_bytes()
    assert main(["tune", str(folder), "--device", "cpu", "--budget", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"kernelopt: error: {folder / 'reference.py'}: SHAPES"), err
    assert said in err
    assert (folder / "kernel.py").read_bytes() == before


@pytest.mark.timeout(30)
def test_a_computed_shapes_that_is_not_a_list_is_refused_where_the_worker_loads_it(tmp_path: Path) -> None:
    """A SHAPES the parent cannot read as a literal (``dict(n=4096)``) is checked where the bench worker imports
    reference.py, by the rule validate uses (`harness.loader.check_shapes`)."""
    from kernelopt.tuning.checks import LoadedProblem
    from kernelopt.tuning.problem import Problem

    folder = tmp_path / "add"
    folder.mkdir()
    (folder / "kernel.py").write_text("def run(x):\n    return x\n")
    (folder / "reference.py").write_text(
        "SHAPES = dict(n=4096)\n\n\ndef get_inputs(n=8):\n    return [n]\n\n\ndef reference(x):\n    return x\n"
    )
    problem = Problem.from_folder(folder, device="cpu")
    with pytest.raises(ValueError, match=r"SHAPES must be a list of dicts .* not dict \(\{'n': 4096\}\)"):
        LoadedProblem.load(problem, "cpu")


@pytest.mark.timeout(30)
def test_a_read_only_kernel_py_is_refused_before_the_session_and_by_tunables_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`chmod 444 kernel.py`, then `tune` (or `tunables --set`): the rename replaced it all the same (its mode
    kept, the edit in it). Now one line, exit 3 (no permission), before any candidate runs; --dry-run still runs."""
    folder = _folder(tmp_path, '[{"n": 4096}, {"n": 1000}]')
    kernel = folder / "kernel.py"
    before = kernel.read_bytes()
    kernel.chmod(0o444)
    try:
        for argv in (
            ["tune", str(folder), "--device", "cpu", "--budget", "4"],
            ["tunables", str(kernel), "--set", "BLOCK=128"],
        ):
            assert main(argv) == 3
            err = capsys.readouterr().err
            assert (
                err
                == f"kernelopt: error: {kernel}: read-only (mode 0444), so nothing was written to it; make it writable (chmod u+w) and run again\n"
            )
            assert kernel.read_bytes() == before
        assert not (folder / ".kernelopt").exists()  # refused before the session: no record, no budget spent
        assert main(["tunables", str(kernel), "--set", "BLOCK=128", "--dry-run"]) == 0
        assert "+BLOCK = 128" in capsys.readouterr().out and kernel.read_bytes() == before
    finally:
        kernel.chmod(0o644)


@pytest.mark.timeout(30)
def test_a_kernel_py_with_a_syntax_error_says_python_s_reason_as_reference_py_s_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """kernel.py said "not Python: syntax error at line 17" and no more, where reference.py said "syntax error at
    line 25: '(' was never closed"."""
    folder = _folder(tmp_path, '[{"n": 4096}]')
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text() + "\nout = (\n")
    before = kernel.read_bytes()
    assert main(["tune", str(folder), "--device", "cpu", "--budget", "4"]) == 2
    err = capsys.readouterr().err
    # one line, the file and Python's reason, as reference.py's (kernelsource's check of the pair, 0b034f1)
    assert err == f"kernelopt: error: {kernel}: syntax error at line 18: '(' was never closed\n", err
    assert kernel.read_bytes() == before


@pytest.mark.timeout(30)
def test_a_latency_in_a_table_is_written_out_not_in_exponent_form() -> None:
    """tune's table on the CPU read "current  BLOCK=512  2.914e+04" beside a verdict of "29.14 ms"."""
    from kernelopt.cli.output import fmt

    assert fmt(29140.3) == "29140" and fmt(12764.0) == "12760" and fmt(-15328.7) == "-15330"
    assert fmt(427.6) == "427.6" and fmt(9.898e-06) == "9.898e-06" and fmt(1.718e10) == "1.718e+10"
    assert fmt(None) == "n/a" and fmt(3) == "3"


@pytest.mark.timeout(30)
def test_optimize_s_progress_line_writes_a_millisecond_latency_out(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`optimize examples/softmax --device cpu` printed "best 7.488e+04 us (n/a of roofline)" on every line."""
    from kernelopt.cli.optimize import TerminalProgress
    from kernelopt.loop.protocols import EventKind, LoopEvent, Stage

    monkeypatch.delenv("COLUMNS", raising=False)
    progress = TerminalProgress()
    event = LoopEvent(
        kind=EventKind.STAGE_START,
        version=1,
        stage=Stage.PLAN,
        message="V1: plan",
        elapsed_s=9,
        best_latency_us=74883.2,
    )
    progress.event(event)
    progress.close()
    assert "best 74880 us (n/a of roofline)" in capsys.readouterr().err


def _changing_session(tmp_path: Path, tuned: bool, shapes: str = '[{"n": 4096}]') -> Any:
    """The loop add's session in which the current configuration ran and every other value was wrong_result; with
    ``tuned`` its kernel.py holds the lines an earlier tune wrote (``# kernelopt: tuned``)."""
    from dataclasses import replace

    from kernelopt.fileio import read_source
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.folder import FolderTuning, TuneRequest, prepare_folder
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain

    folder = _folder(tmp_path, shapes)
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    if tuned:
        kernel = folder / "kernel.py"
        kernel.write_text(
            kernel.read_text().replace(
                "    out = ", "    if x.numel() <= 4096:  # kernelopt: tuned\n        pass\n    out = "
            )
        )
        prepared = replace(prepared, source=read_source(kernel))
    now = Result(config={"BLOCK": 64}, outcome=Outcome.OK, latency_us=20.0, retimed=True)
    wrong = [Result(config={"BLOCK": b}, outcome=Outcome.WRONG_RESULT) for b in (16, 32)]
    result = SessionResult(
        best_config={"BLOCK": 64}, best_latency_us=20.0, current_config={"BLOCK": 64}, current_latency_us=20.0,
        results=[now, *wrong], retimed=[now], evaluations=3, served=0, budget=3, space_size=9, wall_s=1.0,
        stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    return FolderTuning(prepared, result, judge_gain(result))


@pytest.mark.timeout(30)
def test_every_move_changing_the_results_ends_in_one_line_without_a_verdict_before_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It printed the verdict "the current configuration is the best found (...); kernel.py left unchanged", then
    "error: ... so there is nothing to tune", exit 2: two outcomes of one session. The line ends the run alone."""
    from kernelopt.cli.tune import _changing_results, _render

    tuning = _changing_session(tmp_path, tuned=False)
    line = _changing_results(tuning)
    assert line is not None and line.startswith("every value tried beside the current one changes what kernel.py")
    _render(tuning, "", written=False, dry_run=False, plot=None, say_verdict=False)
    out = capsys.readouterr().out
    assert "per shape" not in out and "best found" not in out and "left unchanged" not in out, out
    assert "session record:" in out


@pytest.mark.timeout(30)
def test_a_retune_of_a_file_tune_wrote_tuned_lines_into_is_converged_not_bad_input(tmp_path: Path) -> None:
    """A second `tune` of the row-normalize (`if n_cols <= 256:  # kernelopt: tuned` / `block = 256`): the tuned
    value was the only correct one left in the fit space, so it said "nothing to tune (a block that must cover the
    row?)", exit 2, after "the current configuration is the best found". Now the verdict stands, exit 0."""
    from kernelopt.cli.tune import _changing_results

    assert _changing_results(_changing_session(tmp_path, tuned=True)) is None


@pytest.mark.timeout(30)
def test_the_set_aside_line_says_how_many_were_charged() -> None:
    """breaker2/global_tile, `tune --budget 4`: "2 evaluated ... (candidates)" and "6 configuration(s) set aside
    untimed, 6 of them not charged to the budget", though the 5th and 6th were charged and ended the budget."""
    from kernelopt.cli.tune import refused_line
    from kernelopt.tuning.candidate import Config, Outcome, Result
    from kernelopt.tuning.session import SessionResult, StopReason

    aside = [Result.failed(Config.of({"TILE": t}), Outcome.INVALID, "cannot be written") for t in (64, 128, 256, 1024)]
    aside += [Result.failed(Config.of({"TILE": t}), Outcome.INVALID, "cannot be written") for t in (16384, 65536)]
    result = SessionResult(
        best_config={"TILE": 32}, best_latency_us=1.0, current_config={"TILE": 32}, current_latency_us=1.0,
        results=aside, retimed=[], evaluations=2, served=0, budget=4, space_size=13, wall_s=1.0,
        stop=StopReason.CANDIDATES, strategy="local", screened=6,
    )  # fmt: skip
    assert refused_line(result) == (
        "6 configuration(s) set aside untimed, 4 of them not charged to the budget, the 2 past those charged as "
        "candidates (first: TILE=64: cannot be written)"
    )
    roomy = result.model_copy(update={"budget": 24})
    assert refused_line(roomy) == (
        "6 configuration(s) set aside untimed, 6 of them not charged to the budget (first: TILE=64: cannot be written)"
    )


@pytest.mark.timeout(30)
def test_the_docs_index_links_every_page_and_every_link_resolves() -> None:
    """A new user opening docs/ found sixteen pages and no index; the README said "see `docs/`" for the GPU tests."""
    import re

    docs = Path(__file__).parents[1] / "docs"
    index = (docs / "README.md").read_text()
    links = set(re.findall(r"\]\(([^)#]+)\)", index))
    assert all((docs / link).exists() for link in links), [link for link in links if not (docs / link).exists()]
    pages = {p.name for p in docs.glob("*.md")} - {"README.md"}
    assert pages <= links, sorted(pages - links)
    assert "(docs/README.md)" in (docs.parent / "README.md").read_text()


@pytest.mark.timeout(30)
def test_tune_says_a_missing_folder_is_missing_and_a_file_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tune /nonexistent` said "not a folder", where optimize says "no such folder" (and a file: "is a file")."""
    hint = "; PATH holds kernel.py and reference.py, as optimize takes\n"
    assert main(["tune", str(tmp_path / "nowhere"), "--device", "cpu"]) == 2
    assert capsys.readouterr().err == f"kernelopt: error: {tmp_path / 'nowhere'}: no such folder{hint}"
    (tmp_path / "kernel.py").write_text("BLOCK = 64\n")
    assert main(["tune", str(tmp_path / "kernel.py"), "--device", "cpu"]) == 2
    assert capsys.readouterr().err == f"kernelopt: error: {tmp_path / 'kernel.py'}: is a file, not a folder{hint}"


@pytest.mark.timeout(30)
def test_the_shape_choice_says_one_configuration_is_slower_then_what_is_wanted() -> None:
    """partial_act: "a per-bucket table: the best configuration for all shapes is 46.1 % slower than n=200's own
    best", then "one configuration written: a per-bucket table needs ...": which one was it? The line now says what
    was measured of the one configuration, then that a table is what each shape would want."""
    from kernelopt.tuning.shapes import ChoiceKind, ShapeBest, choose

    shapes = [
        ShapeBest(shape="n=200", best_config={"BLOCK": 256}, best_latency_us=4672.0, chosen_latency_us=6826.0,
                  within_pct=46.1),
        ShapeBest(shape="n=3000", best_config={"BLOCK": 1024}, best_latency_us=15360.0, chosen_latency_us=15360.0,
                  within_pct=0.0),
    ]  # fmt: skip
    choice = choose(shapes)
    assert choice.kind is ChoiceKind.TABLE
    assert choice.reason == (
        "one configuration for all 2 shapes is 46.1 % slower than n=200's own best (n=200 beyond 3 %): a per-bucket "
        "table, each shape its own best"
    )


@pytest.mark.timeout(30)
def test_tune_s_help_says_cpu_runs_torch_kernels_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tune --help` said "--device cuda (default) or cpu (Triton interpreted)", though the README's own CPU
    example (tests/data/loop) is a torch kernel."""
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["tune", "--help"]) == 0
    assert (
        "cuda (default) or cpu: a torch CPU kernel, or a Triton kernel in its interpreter." in capsys.readouterr().out
    )


@pytest.mark.timeout(30)
def test_the_computed_line_of_a_tuned_file_says_its_values_include_the_tuned_lines(tmp_path: Path) -> None:
    """The row-normalize's retune said "BLOCK computed (block = launch_block(n_cols)): 256 at rows=4,cols=100":
    the helper gives 128 there; 256 was the tuned line's. The line now says the values include those lines."""
    from dataclasses import replace

    from kernelopt.cli.tune import computed_line
    from kernelopt.tuning.folder import FolderTuning, TuneRequest, prepare_folder
    from kernelopt.tuning.session import judge_gain

    folder = tmp_path / "rownorm"
    shutil.copytree(Path(__file__).parent / "data" / "tuning" / "rownorm", folder)
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    session = _changing_session(tmp_path / "add", tuned=False).result
    plain = computed_line(FolderTuning(prepared, session, judge_gain(session)))
    assert plain is not None and plain.startswith("current: ") and "earlier tune" not in plain, plain
    tuned = replace(prepared, base_source=prepared.base_source + "\n# kernelopt: tuned\n")
    line = computed_line(FolderTuning(tuned, session, judge_gain(session)))
    assert line == plain + "; with the lines an earlier tune wrote into kernel.py (`# kernelopt: tuned`)"


@pytest.mark.timeout(30)
def test_a_missing_within_or_sweep_file_is_named_by_its_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tune PATH --within /nonexist.json` said "/nonexist.json: no such file": which of the files given?"""
    folder = _folder(tmp_path, '[{"n": 4096}]')
    for flag in ("--within", "--sweep"):
        assert main(["tune", str(folder), "--device", "cpu", flag, str(tmp_path / "none.json")]) == 2
        assert capsys.readouterr().err == f"kernelopt: error: {flag} {tmp_path / 'none.json'}: no such file\n"
        assert main(["tune", str(folder), "--device", "cpu", flag, str(tmp_path)]) == 2
        assert capsys.readouterr().err == f"kernelopt: error: {flag} {tmp_path}: is a folder, not a sweep file\n"
    assert not (folder / ".kernelopt").exists()


@pytest.mark.timeout(30)
def test_the_guarded_current_line_names_the_moved_knobs_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """mm_nomask's retune said "current: BLOCK_K=32, BLOCK_M=32, BLOCK_N=32, and BLOCK_K=32, BLOCK_M=32, BLOCK_N=64
    wherever the guard ... holds (...): BLOCK_K=32, BLOCK_M=32, BLOCK_N=64 is the current configuration, timed once
    as it": one configuration three times over. The guard's move is named alone."""
    from dataclasses import replace

    from kernelopt.cli.tune import _render

    tuning = replace(_changing_session(tmp_path, tuned=False), guarded={"BLOCK": 128})
    _render(tuning, "", written=False, dry_run=False, plot=None)
    out = capsys.readouterr().out
    assert (
        "current: BLOCK=64, and BLOCK=128 wherever the guard an earlier tune wrote into kernel.py holds (`# kernelopt: "
        "tuned`): the file as written, timed once as BLOCK=128\n" in out
    ), out


@pytest.mark.timeout(60)
def test_validate_says_a_failing_reference_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`validate` on a reference.py whose SHAPES is a dict printed the reason twice: "quality gate v0: FAIL:
    correctness: loading: reference.py raised ValueError: SHAPES must be ..." and then the error line (exit 2),
    beside the correctness detail. The gate's line then said whose failure it was and left the reason to the error
    line; since a SHAPES built by code is read before the gate (`harness.infer.shapes_by_code`, issue 32), the
    gate does not run: the reason is the one error line."""
    from kernelopt.workspace import Workspace

    monkeypatch.setenv("KERNELOPT_BENCH_S", "0.05")
    monkeypatch.setenv("KERNELOPT_SEEDS", "1")
    folder = _folder(tmp_path, "dict(n=4096)")  # built by code: the text cannot tell, its import does
    ws = Workspace.create("shapes_dict", kernel=folder / "kernel.py", reference=folder / "reference.py", root=tmp_path)
    assert main(["validate", str(ws.root), "--device", "cpu"]) == 2
    captured = capsys.readouterr()
    assert not [line for line in captured.out.splitlines() if line.startswith("quality gate v0")]
    err = captured.err.strip().splitlines()
    assert [line for line in err if "SHAPES" in line] == [err[-1]]
    assert err[-1].startswith("kernelopt: error: ") and "SHAPES must be a list of dicts" in err[-1]
    assert "not dict ({'n': 4096})" in err[-1]


@pytest.mark.timeout(30)
def test_docs_examples_names_every_example_folder() -> None:
    """docs/examples.md described ten examples ("the first four", "six more", "about 10 s for all ten"); examples/
    holds thirteen: bias_gelu_fp32, online_softmax_fp32 and rmsnorm_settings_bf16 were nowhere on the page."""
    repo = Path(__file__).parents[1]
    page = (repo / "docs" / "examples.md").read_text()
    folders = sorted(p.parent.name for p in (repo / "examples").glob("*/kernel.py"))
    assert len(folders) >= 13 and [f for f in folders if f"| `{f}` |" not in page] == []
    assert "all ten" not in page


@pytest.mark.timeout(30)
def test_the_time_per_stage_line_keeps_each_figure_with_its_unit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The softmax run's summary wrapped "... stop 0.0 s, profile 0.0" / "s, plan 0.6 s, ..." at 100 columns."""
    from kernelopt.cli.optimize import _render
    from kernelopt.loop.summary import LoopSummary

    monkeypatch.delenv("COLUMNS", raising=False)
    values: dict[str, object] = {name: None for name in LoopSummary.model_fields}
    stages = ["baseline_gate", "baseline_profile", "record", "stop", "profile", "plan", "implement", "gate"]
    values.update(
        workspace="ws", versions=[], iterations=1, failures=0, elapsed_s=91.0, candidates_evaluated=0,
        stage_seconds=dict(zip(stages, [8.7, 0.0, 0.1, 0.0, 0.0, 0.6, 77.5, 4.5], strict=True)), profiles_taken=0,
    )  # fmt: skip
    _render(LoopSummary.model_construct(**values))  # type: ignore[arg-type]
    out = capsys.readouterr().out.splitlines()
    lines = [line for line in out if "time per stage" in line or line.startswith("  profile")]
    assert len(lines) == 2 and all(len(line) <= 100 for line in lines), lines
    assert not any(line.strip().startswith("s,") or line.rstrip().endswith(("0.0", "0.1")) for line in lines), lines
    assert "\0" not in "".join(lines) and "profile 0.0 s, plan 0.6 s" in " ".join(lines)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("command", ["profile", "tune", "optimize", "validate", "plan"])
def test_an_unknown_device_is_one_line_in_every_command(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`profile WS --device tpu` said "invalid profile option device: String should match pattern '^(cuda|cpu)$'",
    where every other command says "unknown device 'tpu'; use cuda or cpu"."""
    assert main([command, str(tmp_path), "--device", "tpu"]) == 2
    assert capsys.readouterr().err == "kernelopt: error: unknown device 'tpu'; use cuda or cpu\n"


@pytest.mark.timeout(30)
def test_init_with_a_folder_for_kernel_says_it_is_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`init x --kernel FOLDER --reference ...` said "FOLDER: no such file"."""
    folder = _folder(tmp_path, '[{"n": 4096}]')
    argv = ["init", "x", "--kernel", str(folder), "--reference", str(folder / "reference.py"), "--root", str(tmp_path)]
    assert main(argv) == 2
    assert capsys.readouterr().err.endswith(f"kernelopt: error: {folder}: is a folder, not a file\n")
    assert not (tmp_path / "kernel_opt_x").exists()


@pytest.mark.timeout(30)
def test_the_session_table_says_its_latency_is_the_sum_over_the_shapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's tune example: "current BLOCK=64 425.4 / best BLOCK=4096 15.94" under "latency (us)", and
    below it n=4096 at 8.353 and n=1000 at 7.584: the first table's figure is their sum, and said nowhere."""
    from kernelopt.cli.tune import _render

    two = _changing_session(tmp_path / "two", tuned=False, shapes='[{"n": 4096}, {"n": 1000}]')
    _render(two, "", written=False, dry_run=False, plot=None)
    assert "latency (us, sum of 2 shapes)" in capsys.readouterr().out
    one = _changing_session(tmp_path / "one", tuned=False)
    _render(one, "", written=False, dry_run=False, plot=None)
    out = capsys.readouterr().out
    assert "latency (us)" in out and "sum of" not in out


@pytest.mark.timeout(30)
def test_tunables_set_of_a_negative_or_zero_value_is_no_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tunables kernel.py --set BLOCK=-1` was "internal error: AssertionError: tunable edit touched more than
    planned" (exit 70: discovery reads literals without a sign), and `--set BLOCK=0` a ZeroDivisionError in the
    guard's divisibility check (exit 70)."""
    kernel = _folder(tmp_path, '[{"n": 4096}]') / "kernel.py"
    before = kernel.read_bytes()
    assert main(["tunables", str(kernel), "--set", "BLOCK=-1"]) == 2
    assert capsys.readouterr().err == "kernelopt: error: BLOCK=-1 is illegal: a setting is not negative\n"
    assert main(["tunables", str(kernel), "--set", "BLOCK=/0"]) == 2
    assert capsys.readouterr().err == "kernelopt: error: BLOCK: '/0' divides by zero\n"  # was "nan is not an integer"
    assert main(["tunables", str(kernel), "--set", "BLOCK=0", "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert "+BLOCK = 0" in captured.out and "internal error" not in captured.err
    assert kernel.read_bytes() == before


@pytest.mark.timeout(30)
def test_an_unknown_choice_of_an_argument_has_no_pydantic_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    """`kernelopt schema nothing` said "Invalid value for 'what': Value error, 'nothing' is not one of ..."."""
    assert main(["schema", "nothing"]) == 2
    assert capsys.readouterr().err == (
        "kernelopt: error: Invalid value for 'what': 'nothing' is not one of 'memory', 'sweep'; "
        "see `kernelopt schema --help`\n"
    )


@pytest.mark.timeout(30)
@pytest.mark.parametrize(("shapes", "said"), [('{"n": 4096}', "not dict ({'n': 4096})"), ("[]", "SHAPES is empty")])
def test_init_refuses_a_written_shapes_that_names_no_case_before_the_workspace_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shapes: str, said: str
) -> None:
    """`optimize` on a folder whose SHAPES is a dict made the workspace, gated V0 and stopped "baseline_failed:
    reference.py fails ..." (exit 2); `init` made the workspace without a word."""
    folder = _folder(tmp_path, shapes)
    ref = folder / "reference.py"
    argv = ["init", "x", "--kernel", str(folder / "kernel.py"), "--reference", str(ref), "--root", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert (
        err.endswith(
            f"kernelopt: error: {ref}: SHAPES must be a list of dicts (keyword arguments of get_inputs), "
            f"one per case, not dict ({{'n': 4096}})\n"
        )
        if "dict" in said
        else said in err
    ), err
    assert not (tmp_path / "kernel_opt_x").exists()
