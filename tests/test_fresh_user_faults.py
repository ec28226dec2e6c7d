"""The faults of the fresh-user trial of 2026-12-04 on the CPU, one test each (see docs/faults.md)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from kernelopt.cli.app import main

DATA = Path(__file__).parent / "data"
KERNELS = DATA / "kernels"


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_an_atomic_write_keeps_the_mode_and_gives_a_new_file_the_umask_s(tmp_path: Path, umask_022: None) -> None:
    """`kernelopt tune` rewrote kernel.py with mode 600 (mkstemp's), record.jsonl too."""
    from kernelopt.fileio import atomic_write_text, new_file_mode

    new = tmp_path / "record.jsonl"
    atomic_write_text(new, "{}\n")
    assert _mode(new) == 0o644 == new_file_mode()
    kernel = tmp_path / "kernel.py"
    kernel.write_text("BLOCK = 64\n")
    kernel.chmod(0o664)
    atomic_write_text(kernel, "BLOCK = 4096\n")
    assert _mode(kernel) == 0o664 and kernel.read_text() == "BLOCK = 4096\n"
    os.umask(0o077)
    atomic_write_text(tmp_path / "private.json", "{}")
    assert _mode(tmp_path / "private.json") == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_workspace_and_its_profile_folder_get_the_umask_s_mode(ws_root: Path, umask_022: None) -> None:
    """Built in a mkdtemp staging folder (0700) and moved into place: they kept 0700."""
    from kernelopt.profiling.staging import staged_profile_dir
    from kernelopt.workspace import Workspace

    ws = Workspace.create("add", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=ws_root)
    assert _mode(ws.root) == 0o755
    with staged_profile_dir(ws, 1, force=False) as staging:
        (staging / "summary.txt").write_text("x")
    assert _mode(ws.profile_dir(1)) == 0o755


def _help_of(command: str, option: str) -> str:
    import typer

    from kernelopt.cli.app import build_app

    group = typer.main.get_command(build_app())
    cmd = group.commands[command]  # type: ignore[attr-defined]
    return " ".join(next(p.help for p in cmd.params if option in p.opts).split())


def test_tune_dry_run_says_what_it_writes() -> None:
    """The help said "write nothing", but the session folder (record, plot) is written: resume needs it.
    That it is written, and kernel.py left: tests/test_tuning_folder.py::test_triton_kernel_dry_run_then_resume..."""
    said = _help_of("tune", "--dry-run")
    assert "write nothing" not in said
    assert "leave kernel.py unchanged; the session's record and plot are still written" in said
    root = Path(__file__).resolve().parents[1]
    for doc in (root / "README.md", root / "docs" / "tuning-engine.md"):
        text = " ".join(doc.read_text().split())
        assert "`--dry-run` only prints" not in text and "kernel.py unchanged" in text, doc


@pytest.mark.parametrize(
    ("flag", "said"),
    [
        (["--max-wall-min", "0"], "Invalid value for '--max-wall-min': Input should be greater than 0"),
        (["--max-wall-min", "-1"], "Invalid value for '--max-wall-min': Input should be greater than 0"),
        (["--target-latency-us", "0"], "Invalid value for '--target-latency-us': Input should be greater than 0"),
        (["--target-speedup", "0"], "Invalid value for '--target-speedup': Input should be greater than 0"),
        (["--planner", "nosuch"], "unknown planner backend 'nosuch'; known: agent-cli, llm-api, rules"),
        (["--implementer", "nosuch"], "unknown implementer backend 'nosuch'"),
        (["-P", "foo"], "bad option 'foo'; use KEY=VALUE"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else "",
)
def test_optimize_checks_every_setting_before_the_workspace_is_made(
    flag: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--max-wall-min 0` passed the command line (min 0) and was refused after the workspace was made."""
    root = tmp_path / "root"
    assert main(["optimize", str(DATA / "loop"), "--device", "cpu", "--root", str(root), *flag]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"kernelopt: error: {said}"), err
    assert not root.exists()  # nothing made, not even the folder of the run lock


@pytest.mark.parametrize(
    ("variable", "flags", "said", "code"),
    [
        (
            "/nonexistent/agent {prompt_file}",
            ["--planner", "agent-cli"],
            "agent command not found: '/nonexistent/agent'; install it or put it on PATH",
            3,
        ),
        (
            "no-such-agent-cli -p {prompt_file}",
            ["--implementer", "agent-cli"],
            "agent command not found: 'no-such-agent-cli'; install it or put it on PATH",
            3,
        ),
        (None, ["--implementer", "agent-cli"], "agent-cli: setting 'command' is required", 2),
        (
            "python3 agent.py {prompt_file}",
            ["--planner", "agent-cli", "-P", "tiemout_s=5"],
            "agent-cli: unknown option 'tiemout_s'",
            2,
        ),
    ],
    ids=["planner from the variable", "implementer from the variable", "no command", "unknown option"],
)
def test_an_agent_command_is_checked_before_the_workspace_is_made(
    variable: str | None,
    flags: list[str],
    said: str,
    code: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An agent command given through KERNELOPT_AGENT_COMMAND was found missing only after the workspace was
    made (the -P/-I form was checked first): both backends are now built once before anything is made."""
    if variable is None:
        monkeypatch.delenv("KERNELOPT_AGENT_COMMAND", raising=False)
    else:
        monkeypatch.setenv("KERNELOPT_AGENT_COMMAND", variable)
    root = tmp_path / "root"
    assert main(["optimize", str(DATA / "loop"), "--device", "cpu", "--root", str(root), *flags]) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"kernelopt: error: {said}"), err
    assert not root.exists()  # no workspace, not even the folder of the run lock


def test_a_numeric_option_takes_its_model_field_s_bound(capsys: pytest.CaptureFixture[str]) -> None:
    """One rule: the option's range is the field's (the CLI said min 0, the stop condition > 0)."""
    from kernelopt.cli.bounds import bounded
    from kernelopt.taskcard import StopConditions, TaskCard

    assert bounded(StopConditions, "max_wall_time_min")["metavar"] == "<float range> [x>0]"
    assert bounded(StopConditions, "max_iterations")["metavar"] == "<int range> [x>=0]"
    assert bounded(TaskCard, "size_scale")["metavar"] == "<float range> [0<x<=1]"
    assert bounded(TaskCard, "size_scale")["parser"]("0.5") == 0.5
    for argv, said in [
        (["--size-scale", "0"], "'--size-scale': Input should be greater than 0"),
        (["--problem-timeout-s", "0.5"], "'--problem-timeout-s': Input should be greater than or equal to 1"),
    ]:
        assert main(["batch", "nowhere", *argv]) == 2
        assert said in capsys.readouterr().err


def test_a_bad_sweep_file_names_the_field_and_the_schema_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`{"schema": "1"}` was "schema '1' is not supported (known: 1)"; a missing field "key: Field required";
    an empty file a JSONDecodeError."""
    import json

    doc = json.loads(
        (Path(__file__).parents[1] / "docs" / "gpu-runs" / "2026-12-01-sweeps" / "elementwise.json").read_text()
    )
    del doc["configs"][0]["status"]
    schema_hint = "; see `kernelopt schema sweep` (docs/sweep-format.md)\n"
    cases = [
        (json.dumps({"schema": "1"}), '"schema" must be the number 1, not "1"' + schema_hint),
        (json.dumps(doc), "does not match the sweep file schema: configs[0].status: field required" + schema_hint),
        (
            json.dumps({"schema": 1}),
            "does not match the sweep file schema: key: field required (and 6 more)" + schema_hint,
        ),
        ("\n", "empty file" + schema_hint),
    ]
    for text, said in cases:
        sweep = tmp_path / "sweep.json"
        sweep.write_text(text)
        assert main(["tune", "--replay", str(sweep)]) == 2
        assert capsys.readouterr().err == f"kernelopt: error: {sweep}: {said}"


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("pyproject.toml", '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools"\n', 3),
        ("README.md", "# kernel\n\nIt's `fast`.\n", 3),
    ],
)
def test_tunables_on_a_file_that_is_not_python_says_so(
    name: str, text: str, line: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It printed libcst's grammar ("cannot parse: line 4: parser error: error at 3:16: expected one of !=, ...")."""
    (tmp_path / name).write_text(text)
    assert main(["tunables", str(tmp_path / name), "--no-evaluate"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith(f"kernelopt: error: {name}: not Python: syntax error at line {line}: ") and err.count("\n") == 1
    )


def test_an_unknown_gpu_name_is_said_by_one_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tunables --gpu nosuchgpu` was accepted silently (rc 0, the output of no --gpu). A flag's unknown name is
    an error, as `utilization --gpu` says it; a task card's is a warning (it may be the name the machine
    gives), from optimize and now from tune too (it pruned with the generic limits without a word)."""
    import shutil

    import kernelopt.tuning.folder as folder
    from kernelopt.errors import UsageError

    assert main(["tunables", str(DATA / "loop"), "--gpu", "nosuchgpu", "--no-evaluate"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kernelopt: error: unknown GPU 'nosuchgpu': no spec sheet; known: amd-mi300x, ")
    assert err.count("\n") == 1 and "nvidia-h200-sxm" in err
    assert main(["tunables", str(DATA / "loop"), "--gpu", "H200", "--no-evaluate", "--json"]) == 0
    capsys.readouterr()

    task = shutil.copytree(DATA / "loop", tmp_path / "loop")
    card = task / "README.md"
    card.write_text(card.read_text().replace("gpu: H200", "gpu: RTX 9999 Ti"))

    def stop(*args: object, **kwargs: object) -> None:
        raise UsageError("stopped before the session")

    monkeypatch.setattr(folder, "tune_folder", stop)
    assert main(["tune", str(task), "--device", "cpu", "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("warning: task card gpu 'RTX 9999 Ti' has no spec sheet (known: amd-mi300x, ")
    assert "tuning prunes by the limits that need no spec sheet" in err


def test_tune_refuses_trials_without_replay_and_says_a_budget_under_the_floor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`tune PATH --trials 5` was ignored without a word; `--budget-fraction 1e-9` ran 1 candidate silently."""
    from kernelopt.tuning.budget import BudgetRule

    assert main(["tune", str(DATA / "loop"), "--device", "cpu", "--trials", "5"]) == 2
    assert capsys.readouterr().err == (
        "kernelopt: error: --trials goes with --replay only; a tuning session of PATH is one session\n"
    )
    assert BudgetRule(fraction=1e-9).below_floor(9) == (
        "budget fraction 1e-09 of the 9 fit configurations is a budget of 1 candidate(s), fewer than the 9 the "
        "default rule's floor gives; run as asked"
    )
    assert BudgetRule(fraction=0.5).below_floor(100) is None  # 50 candidates: above the floor of 24
    assert BudgetRule(count=1).below_floor(100) is None  # a count is what was asked, in candidates already
    sweep = Path(__file__).parents[1] / "docs" / "gpu-runs" / "2026-12-01-sweeps" / "elementwise.json"
    assert main(["tune", "--replay", str(sweep), "--budget-fraction", "0.01", "--trials", "2", "--json"]) == 0
    err = capsys.readouterr().err
    assert err == (
        "budget fraction 0.01 of the 42 fit configurations is a budget of 1 candidate(s), fewer than the 24 "
        "the default rule's floor gives; run as asked\n"
    )


def test_the_readme_names_the_commands_without_json() -> None:
    """README said every command that reports results takes --json; `schema sweep --json` is "No such option"."""
    import re

    import typer

    from kernelopt.cli.app import build_app

    def leaves(command: object, path: list[str]) -> Iterator[tuple[str, object]]:
        subs = getattr(command, "commands", None)
        if not subs:
            yield " ".join(path), command
            return
        for name, sub in subs.items():
            yield from leaves(sub, [*path, name])

    without = {
        name
        for name, cmd in leaves(typer.main.get_command(build_app()), ["kernelopt"])
        if not any("--json" in p.opts for p in cmd.params)  # type: ignore[attr-defined]
    }
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text().split())
    said = re.search(r"Every command takes `--json` but (.*?), whose output is JSON already", readme)
    assert said is not None
    assert (
        set(re.findall(r"`(kernelopt [a-z ]+)`", said.group(1)))
        == without
        == {
            "kernelopt schema",
            "kernelopt memory read",
            "kernelopt mcp",
        }
    )


def test_a_speedup_under_1_is_said_as_slower(capsys: pytest.CaptureFixture[str]) -> None:
    """The CPU demo's summary read "0.255x over the reference (PyTorch eager)" for a kernel 4x slower."""
    from kernelopt.cli.optimize import _render, speedup_words
    from kernelopt.loop.summary import LoopSummary

    assert speedup_words(0.255, "the reference (PyTorch eager)") == "3.92x slower than the reference (PyTorch eager)"
    assert speedup_words(41.1, "V0") == "41.1x over V0"
    assert speedup_words(0.9996, "torch.compile") == "1x over torch.compile"
    values: dict[str, object] = {name: None for name in LoopSummary.model_fields}
    values.update(
        workspace="ws",
        versions=[],
        best_version="v1",
        best_latency_us=7.4,
        speedup_vs_baseline=41.1,
        speedup_vs_reference=0.255,
        speedup_vs_compiled=0.5,
        iterations=1,
        failures=0,
        elapsed_s=1.0,
        stage_seconds={},
        candidates_evaluated=0,
    )
    summary = LoopSummary.model_construct(**values)  # type: ignore[arg-type]
    _render(summary)
    out = " ".join(capsys.readouterr().out.split())
    assert "best: v1 at 7.4 us (41.1x over V0)" in out
    assert "3.92x slower than the reference (PyTorch eager), 2x slower than torch.compile" in out
