"""The stages layer: one allowance table, the guard (writes, protected content, git state, secrets) and
every agent failure as a recorded result with its first real cause."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from kernelopt.backends.agent_cli import AgentCliImplementer
from kernelopt.harness.model import CorrectnessReport
from kernelopt.memory.model import CorrectnessStatus
from kernelopt.proc import child_env, run_command
from kernelopt.stagenames import Stage
from kernelopt.stages.allowance import AUX_SUFFIXES, PROTECTED_FILES, may_write
from kernelopt.stages.guard import GitState, ProtectedContent, RunGuard, snapshot
from kernelopt.stages.implement import run_implement, stage_context

from .backends_support import AGENTS, make_plan, make_ws, write_plan

PY = shlex.quote(sys.executable)
KEY = "sk-stages-test-5e4d3c2b1a"


def agent(script: str, **extra: object) -> dict:
    return {"command": f"{PY} {shlex.quote(str(AGENTS / script))} {{prompt_file}}", "timeout_s": 20, **extra}


@pytest.fixture
def ws(ws_root: Path):
    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    return ws


def clean(ws) -> bool:
    """Nothing changed but the (untracked) plan the fixture wrote."""
    return [x for x in ws.repo.git.status("--porcelain").splitlines() if x != "?? plans/v1_plan.md"] == []


def implement(ws, backend, *, check=None, repairs: int = 0):
    ctx = stage_context(ws, 1, plan=make_plan())
    return run_implement(
        ws, 1, ctx.plan, backend, guard=RunGuard(ws), check=check, summary=None, history=[], repair_attempts=repairs
    )


def test_one_allowance_table() -> None:
    assert PROTECTED_FILES == ("reference.py", "test_kernel.py", "README.md")
    assert ".cu" in AUX_SUFFIXES and ".inc" in AUX_SUFFIXES
    assert may_write(Stage.IMPLEMENT, 3, ["helpers.cu"])[:2] == ["kernel.py", "helpers.cu"]
    assert may_write(Stage.PLAN, 3)[0] == "plans/v3_plan.md" and may_write(Stage.RECORD, 3) == []


def test_the_snapshot_sees_every_file_outside_the_ignored_folders(tmp_path: Path) -> None:
    """Files at any depth, hidden ones, links (by where they point, and what a link to a file holds); never what
    lies under .git, .kernelopt, __pycache__ or .triton_cache (at any depth), through a link to a folder, or a
    backend transcript."""
    files = {
        "kernel.py": "k",
        ".hidden": "h",
        "a/b/c/d/deep.txt": "deep",
        ".gitx/kept.txt": "x",
        "notes.git/kept.txt": "n",
        "profiles/v1/summary.json": "{}",
        "a.txt": "dot sorts before slash",
    }
    ignored = {
        ".git/objects/ab/cdef": "blob",
        ".git/HEAD": "ref",
        ".kernelopt/runs/x/job.json": "{}",
        "sub/__pycache__/m.pyc": "pyc",
        "sub/.triton_cache/k.bin": "bin",
        "profiles/v1/agent_plan.log": "transcript",
    }
    for rel, text in {**files, **ignored}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "link.py").symlink_to(tmp_path / "kernel.py")
    (tmp_path / "linked_dir").symlink_to(tmp_path / "a", target_is_directory=True)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    snap = snapshot(tmp_path)
    assert set(snap) == set(files) | {"link.py", "linked_dir", "dangling"}
    assert list(snap) == [k for _, k in sorted((Path(k), k) for k in snap)]  # in the order of sorted paths
    assert snap["link.py"] != snap["kernel.py"]  # a file replaced by a link to its copy is a change
    (tmp_path / "a/b/c/d/new.txt").write_text("written by a stage")
    (tmp_path / ".git/objects/ab/new").write_text("git's own")
    assert set(snapshot(tmp_path)) - set(snap) == {"a/b/c/d/new.txt"}


def test_an_agent_that_commits_around_the_guard_is_undone(ws) -> None:
    ref, head = ws.reference_py.read_bytes(), ws.head()
    config = (Path(ws.repo.git_dir) / "config").read_bytes()
    report = implement(ws, AgentCliImplementer(agent("committer.py")))
    assert not report.ok and report.error_type == "write_violation"
    joined = "; ".join(report.violations)
    for what in (
        "git config changed",
        "branch refs/heads/agent-branch created",
        "tag refs/tags/agent-was-here created",
    ):
        assert what in joined
    assert "stash refs/stash created" in joined and "(commits made)" in joined and "reference.py (modified)" in joined
    assert ws.head() == head and ws.reference_py.read_bytes() == ref
    assert (Path(ws.repo.git_dir) / "config").read_bytes() == config
    assert ws.repo.git.tag() == "" and ws.repo.git.stash("list") == "" and "agent-branch" not in ws.repo.git.branch()
    assert clean(ws) and not (ws.root / "scratch.txt").exists()


def test_protected_files_come_back_from_their_content_at_run_start(ws) -> None:
    guard = RunGuard(ws)
    original = ws.reference_py.read_bytes()
    ws.reference_py.write_text("poisoned\n")
    ws.commit(["reference.py"], "poison at HEAD too")  # git cannot tell; the recorded content can
    assert guard.protected.changed() == ["reference.py"]
    assert guard.check(guard.begin([]), ["kernel.py"]) == ["reference.py (modified)"]
    assert ws.reference_py.read_bytes() == original and guard.protected.changed() == []


def test_a_protected_file_replaced_by_a_link_to_an_outside_file_is_restored_without_writing_it(
    ws, tmp_path: Path
) -> None:
    """A fresh-user trial: an agent (through kernelopt mcp) replaced reference.py with a symbolic link to a file
    outside the workspace, and the guard's restore wrote the reference's text through the link into it."""
    from kernelopt.stages.guard import capture, restore

    outside = tmp_path / "outside.txt"
    outside.write_text("the user's own file\n")
    guard = RunGuard(ws)
    original = ws.reference_py.read_bytes()
    kept = capture(ws.root, ["kernel.py"])
    for name in ("reference.py", "kernel.py"):
        (ws.root / name).unlink()
        (ws.root / name).symlink_to(outside)
    assert "reference.py" in guard.protected.changed()
    guard.protected.restore()
    assert restore(ws.root, kept) == ["kernel.py"]
    assert outside.read_text() == "the user's own file\n"
    for name, want in (("reference.py", original), ("kernel.py", kept["kernel.py"])):
        assert not (ws.root / name).is_symlink() and (ws.root / name).read_bytes() == want


def test_a_task_card_edit_between_iterations_is_accepted(ws) -> None:
    protected = ProtectedContent(ws)
    ws.readme.write_text(ws.readme.read_text() + "\nmore context from the user\n")
    assert protected.accept("README.md") and protected.changed() == []
    again = ProtectedContent(ws, protected.digests)  # a resumed run keeps the accepted content
    assert again.digests == protected.digests and again.changed() == []


def test_git_state_is_recorded_and_restored(ws) -> None:
    before = GitState.record(ws)
    ws.kernel_py.write_text("x = 1\n")
    ws.commit(["kernel.py"], "moved")
    ws.repo.git.tag("t1")
    undone = before.restore(ws)
    assert any("(commits made)" in u for u in undone) and "tag refs/tags/t1 created" in undone
    assert ws.head() == before.head and GitState.record(ws) == before


def test_an_index_refreshed_by_git_status_is_no_change_and_a_staged_file_is_undone(ws) -> None:
    before = GitState.record(ws)
    os.utime(ws.kernel_py, (1, 1))  # same content, other file times: `git status` rewrites the index
    ws.repo.git.status()
    assert (Path(ws.repo.git_dir) / "index").read_bytes() != before.index
    assert before.restore(ws) == []
    ws.kernel_py.write_text("x = 2\n")
    ws.repo.git.add("kernel.py")
    assert before.restore(ws) == ["git index changed"]
    assert ws.repo.git.diff("--cached", "--name-only") == "" and GitState.record(ws) == before


def test_secrets_are_dropped_from_child_environments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELOPT_LLM_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-other")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-x")
    monkeypatch.setenv("KERNELOPT_KEEP_ENV", "OPENAI_API_KEY,KERNELOPT_LLM_API_KEY")
    env = child_env()
    assert "KERNELOPT_LLM_API_KEY" not in env and "GITHUB_TOKEN" not in env  # the key is never kept
    assert env["OPENAI_API_KEY"] == "sk-other" and env["PATH"] == os.environ["PATH"]
    out = run_command([sys.executable, "-c", "import os; print(sorted(os.environ))"], timeout_s=30)
    assert "KERNELOPT_LLM_API_KEY" not in out.stdout and "GITHUB_TOKEN" not in out.stdout


def test_a_backend_written_file_holding_a_secret_is_refused(ws, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELOPT_LLM_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-agent-needs-this-one")
    kernel = ws.kernel_py.read_bytes()
    backend = AgentCliImplementer(agent("leak.py", env={"ANTHROPIC_API_KEY": "sk-ant-agent-needs-this-one"}))
    report = implement(ws, backend)
    assert not report.ok and report.error_type == "write_violation"
    assert report.violations == ["kernel.py (holds a secret value: the API key or another secret variable)"]
    # the fresh-clone trial of 2026-12-03 read "wrote outside its allowance: kernel.py (holds a secret ...)",
    # of kernel.py, the one file Stage 3 may write
    assert report.reason == (
        "the implementer wrote a secret value (the API key or another secret variable) into kernel.py "
        "(put back as it was)"
    )
    assert ws.kernel_py.read_bytes() == kernel
    # issue 33: the lesson is about the secret, not "the implementer must not touch kernel.py" (its own file)
    (pit,) = report.pitfalls
    assert pit.lesson and "must never write a secret value" in pit.lesson and "must not touch" not in pit.lesson
    log = (ws.profile_dir(1) / "agent_implement.log").read_text()
    assert "'ANTHROPIC_API_KEY'" in log and "KERNELOPT_LLM_API_KEY" not in log and KEY not in log


def test_the_harness_worker_does_not_see_the_key(ws, monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelopt.harness.gate import check_correctness

    monkeypatch.setenv("KERNELOPT_LLM_API_KEY", KEY)
    ws.kernel_py.write_text(
        "import os\n\nprint('key:', os.environ.get('KERNELOPT_LLM_API_KEY'))\n\n\ndef run(x, y):\n    return x + y\n"
    )
    report = check_correctness(ws, device="cpu")
    assert report.run_dir is not None
    texts = [p.read_bytes() for p in Path(report.run_dir).rglob("*") if p.is_file()]
    assert any(b"key: None" in t for t in texts) and not any(KEY.encode() in t for t in texts)


@pytest.mark.parametrize(
    ("script", "reason", "error_type"),
    [
        ("binary.py", "that Python cannot read: kernel.py: holds a NUL byte", "implementer_error"),
        ("delete.py", "the agent deleted kernel.py", "implementer_error"),
        ("silent.py", "the agent exited 0 without changing kernel.py", "implementer_error"),
        ("crash.py", "the agent exited with status 3: agent crashed: out of credits", "implementer_error"),
    ],
)
def test_every_agent_failure_is_a_recorded_result(ws, script: str, reason: str, error_type: str) -> None:
    kernel = ws.kernel_py.read_bytes()
    report = implement(ws, AgentCliImplementer(agent(script)))
    assert not report.ok and report.error_type == error_type and reason in (report.reason or "")
    assert [p.error_type for p in report.pitfalls] == [error_type]
    assert ws.kernel_py.read_bytes() == kernel and clean(ws)


def test_the_first_real_cause_is_the_failure_reason(ws) -> None:
    def crashed(_ws) -> CorrectnessReport:
        return CorrectnessReport(passed=False, status=CorrectnessStatus.FAIL, message="worker killed by SIGSEGV")

    report = implement(ws, AgentCliImplementer(agent("first_then_silent.py")), check=crashed, repairs=2)
    assert report.reason is not None and report.reason.startswith("correctness FAIL: worker killed by SIGSEGV; then ")
    assert "without changing kernel.py" in report.reason
    assert [p.error_type for p in report.pitfalls] == ["correctness_fail", "implementer_error"]
    assert report.attempts == 2
