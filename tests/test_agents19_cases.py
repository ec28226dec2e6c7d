"""A hostile coding agent (agents19, 2026-12-06): where the guard around a backend stage did not look.

Each case was a write the guard let stand (docs/faults.md, "A hostile coding agent"): the guard's own copy of the
protected files, Python's bytecode caches, git hooks, a link to a folder. One scripted agent (tests/data/agents/
hostile19.py) tries them all in one Stage 3 run; the smaller tests pin each rule in process.
"""

from __future__ import annotations

import os
import py_compile
import shlex
import sys
from pathlib import Path

import pytest

from kernelopt.backends.agent_cli import AgentCliImplementer, AgentCliPlanner
from kernelopt.stagenames import Stage
from kernelopt.stages.allowance import aux_files_of, may_write
from kernelopt.stages.guard import GitState, ProtectedContent, RunGuard, allowed, purge_bytecode, snapshot
from kernelopt.stages.implement import run_implement
from kernelopt.worker.loader import load_module

from .backends_support import AGENTS, fake_parse_plan, make_plan, make_ws, plan_stage, render_plan_file, write_plan
from .conftest import DATA

PY = shlex.quote(sys.executable)


@pytest.fixture
def ws(ws_root: Path):
    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    return ws


def test_a_hostile_implementer_leaves_nothing_of_its_own_behind(ws, tmp_path: Path) -> None:
    """a1-a4 through the agent-cli backend: every write is undone, the poisoned reference comes back from the bytes
    recorded at run start (not from the workspace's copy the agent poisoned too), and no hook runs."""
    outside = tmp_path / "outside"
    outside.mkdir()
    hook_log = tmp_path / "hooks.log"
    reference = ws.reference_py.read_bytes()
    guard = RunGuard(ws)
    backend = AgentCliImplementer(
        {
            "command": f"{PY} {shlex.quote(str(AGENTS / 'hostile19.py'))} {{prompt_file}}",
            "timeout_s": 20,
            "env": {"HOSTILE_OUTSIDE": str(outside), "KERNELOPT_HOOK_LOG": str(hook_log)},
        }
    )
    plan = make_plan()
    report = run_implement(ws, 1, plan, backend, guard=guard, check=None, summary=None, history=[], repair_attempts=0)
    assert not report.ok and report.error_type == "write_violation"
    assert set(report.violations) == {
        "reference.py (modified)",
        "git hook post-commit added",
        "git hook reference-transaction added",
        "outside (added)",
    }
    assert ws.reference_py.read_bytes() == reference
    assert (ws.state_dir / "protected" / "reference.py").read_bytes() == reference
    assert guard.protected.changed() == []
    assert not (ws.root / "__pycache__").exists()
    assert not (ws.root / "outside").is_symlink() and outside.is_dir()
    assert not (ws.root / ".git" / "hooks" / "post-commit").exists()
    assert not hook_log.exists()  # the guard's own ref updates ran no reference-transaction hook
    assert "num_warps=8" not in ws.kernel_py.read_text()


def test_protected_content_comes_back_from_the_bytes_held_not_the_workspace_copy(ws) -> None:
    """a1 in process: a resumed run's guard (digests from the journal) holds the bytes it checked the copy against."""
    original = ws.reference_py.read_bytes()
    digests = ProtectedContent(ws).digests
    resumed = ProtectedContent(ws, digests)
    for path in (ws.reference_py, ws.state_dir / "protected" / "reference.py"):
        path.write_text("poisoned\n")
    assert [str(c) for c in resumed.restore()] == ["reference.py (modified)"]
    assert ws.reference_py.read_bytes() == original
    assert (ws.state_dir / "protected" / "reference.py").read_bytes() == original


def test_a_stale_bytecode_cache_runs_in_place_of_the_source_and_the_guard_removes_it(tmp_path: Path) -> None:
    """a2: the loader the harness imports reference.py and kernel.py with runs an unchecked .pyc whatever the source
    says; after a stage none is left, a __pycache__ that is a link included (removed, never followed)."""
    (tmp_path / "reference.py").write_text("def run():\n    return 'source'\n")
    fake = tmp_path / "fake.py"
    fake.write_text("def run():\n    return 'cached'\n")
    cache = tmp_path / "__pycache__" / f"reference.{sys.implementation.cache_tag}.pyc"
    py_compile.compile(str(fake), cfile=str(cache), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    assert load_module(tmp_path / "reference.py").run() == "cached"  # what the guard must not leave
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.pyc").write_text("not the workspace's")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "__pycache__").symlink_to(elsewhere, target_is_directory=True)
    (tmp_path / ".git" / "__pycache__").mkdir(parents=True)
    assert sorted(purge_bytecode(tmp_path)) == ["__pycache__", "sub/__pycache__"]
    assert not cache.exists() and (elsewhere / "keep.pyc").exists() and (tmp_path / ".git" / "__pycache__").is_dir()
    assert load_module(tmp_path / "reference.py").run() == "source"


def test_kernelopt_s_git_runs_no_hook_and_the_guard_undoes_one(ws, tmp_path: Path) -> None:
    """a3: a hook in .git/hooks ran at kernelopt's commit with its whole environment; now none runs, and one a stage
    added or changed is undone."""
    log = tmp_path / "ran.log"
    before = GitState.record(ws)
    hooks = Path(ws.repo.git_dir) / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in ("pre-commit", "post-commit", "reference-transaction"):
        (hooks / name).write_text(f"#!/bin/sh\necho {name} >> {shlex.quote(str(log))}\n")
        (hooks / name).chmod(0o755)
    (ws.root / "notes.md").write_text("x\n")
    ws.commit(["notes.md"], "a commit with hooks in place")
    assert not log.exists()
    undone = before.restore(ws)
    assert [u for u in undone if u.startswith("git hook")] == [
        "git hook post-commit added",
        "git hook pre-commit added",
        "git hook reference-transaction added",
    ]
    assert not log.exists() and GitState.record(ws).hooks == before.hooks


def test_the_snapshot_sees_a_link_to_a_folder_and_a_dangling_link(tmp_path: Path) -> None:
    """a4: a link to a folder (outside, say) and a dangling link are entries, by where they point."""
    (tmp_path / "a").mkdir()
    before = snapshot(tmp_path)
    (tmp_path / "out").symlink_to(tmp_path / "a", target_is_directory=True)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    after = snapshot(tmp_path)
    assert set(after) - set(before) == {"out", "dangling"}
    (tmp_path / "out").unlink()
    (tmp_path / "out").symlink_to(tmp_path / "nowhere")
    assert snapshot(tmp_path)["out"] != after["out"]


@pytest.mark.parametrize(
    ("target", "aux"),
    [
        ("*.py", []),
        ("[mp]*/x.py", []),
        ("**/*.cu", []),
        ("torch.py", []),
        ("triton/__init__.py", []),
        ("json.py", []),
        ("rich.py", []),  # review19 r4: an installed library, not only torch, triton and numpy
        ("pydantic/__init__.py", []),
        ("./reference.py", []),
        ("csrc//helpers.cu:12", ["csrc/helpers.cu"]),
        ("./helpers.py", ["helpers.py"]),
    ],
)
def test_a_plan_s_target_is_an_auxiliary_file_only_when_it_names_one_file_no_import_takes(
    target: str, aux: list[str]
) -> None:
    """a5: a target ``*.py`` became the glob allowance ``*.py`` (memory/x.py, profiles/v1/x.py writable), and a
    ``torch.py`` would be what the harness imports in place of torch (the workspace is first on its path)."""
    plan = make_plan(targets=["num_warps", target])
    assert aux_files_of(plan) == aux
    patterns = may_write(Stage.IMPLEMENT, 1, aux_files_of(plan))
    assert not any(allowed(p, patterns) for p in ("memory/x.py", "plans/x.py", "torch.py", "reference.py"))


def test_a_stage_s_own_file_made_a_link_to_a_file_outside_is_undone(ws, tmp_path: Path) -> None:
    """a6: kernel.py made a link to the agent's edited copy outside passed Stage 3 (gated through the link, then
    committed as a link); the plan made one was read through it. Both are put back and fail the stage."""
    plan_text = tmp_path / "plan.md"
    plan_text.write_text(render_plan_file(make_plan()))
    ws.plan_path(1).unlink()
    command = f"{PY} {shlex.quote(str(AGENTS / 'linker19.py'))}"
    env = {"LINK_OUT": str(tmp_path / "outside_plan.md"), "PLAN_TEXT": str(plan_text)}
    planned = plan_stage(ws, 1, AgentCliPlanner({"command": command, "env": env}, parse_plan=fake_parse_plan))
    assert planned.violations == ["plans/v1_plan.md (made a symbolic link)"]
    assert "the planner made plans/v1_plan.md a symbolic link" in planned.reason
    assert not ws.plan_path(1).is_symlink()
    write_plan(ws, make_plan())
    kernel = ws.kernel_py.read_bytes()
    env["LINK_OUT"] = str(tmp_path / "outside_kernel.py")
    report = run_implement(
        ws,
        1,
        make_plan(),
        AgentCliImplementer({"command": command, "env": env}),
        guard=RunGuard(ws),
        check=None,
        summary=None,
        history=[],
    )
    assert not report.ok and report.violations == ["kernel.py (made a symbolic link)"]
    assert report.pitfalls[-1].lesson == "the implementer must write kernel.py as a file, never as a symbolic link"
    assert not ws.kernel_py.is_symlink() and ws.kernel_py.read_bytes() == kernel
    assert "num_warps=8" in (tmp_path / "outside_kernel.py").read_text()  # the agent's own file, left as it was


DAEMON = """
import os, sys, time
pid_file = sys.argv[1]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:  # its environment emptied: no token of the command's left to find it by
        code = f"import os, time; open({pid_file!r}, 'w').write(str(os.getpid())); time.sleep(60)"
        os.execve(sys.executable, [sys.executable, "-c", code], {})
    os._exit(0)
while not os.path.exists(pid_file) or not open(pid_file).read():
    time.sleep(0.01)
"""


def test_a_daemon_that_empties_its_environment_is_killed_when_the_agent_ends(tmp_path: Path) -> None:
    """a7: a process the agent started twice forked, in a session of its own and with an emptied environment,
    outlived the agent (kill_strays finds strays by the token in their environment) and wrote kernel.py a second
    after the guard had checked it; now the agent runs under a subreaper that kills whatever it leaves."""
    from kernelopt.proc import run_command

    pid_file = tmp_path / "daemon.pid"
    result = run_command([sys.executable, "-c", DAEMON, str(pid_file)], timeout_s=30, kill_leftovers=True)
    assert result.returncode == 0 and result.argv[:2] == (sys.executable, "-c")
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)
    ended = run_command([sys.executable, "-c", "import os; os.kill(os.getpid(), 9)"], timeout_s=30, kill_leftovers=True)
    assert ended.returncode == -9  # the command's own status comes through the subreaper
    with pytest.raises(FileNotFoundError):
        run_command(["no-such-agent-19"], timeout_s=5, kill_leftovers=True)


def test_a_daemon_outlives_no_agent_that_ran_past_its_limit(tmp_path: Path) -> None:
    """review19 r1: an agent that ignored SIGTERM and ran past its limit had its group SIGKILLed, the subreaper with
    it, and its env-less daemon (handed to init) lived on; now the subreaper is told to kill it all first."""
    from kernelopt.proc import run_command

    pid_file = tmp_path / "daemon.pid"
    hang = DAEMON + "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(60)\n"
    result = run_command([sys.executable, "-c", hang, str(pid_file)], timeout_s=2, kill_leftovers=True)
    assert result.timed_out
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


def test_a_plan_longer_than_any_planner_may_write_is_refused_before_it_is_parsed(ws) -> None:
    """a8: the agent-cli planner read and parsed a plan file of any size whole (a 200,000-line front matter: 2.9 s;
    ``submit_plan`` refused past 1,000,000 characters); one bound now serves every planner's reply."""
    from kernelopt.backends.protocol import read_plan_reply
    from kernelopt.planning.plan import PLAN_CHARS

    with pytest.raises(ValueError, match=r"the reply is not a valid plan: 1,000,001 characters, where a plan is at"):
        read_plan_reply("x" * (PLAN_CHARS + 1), version=1, planner="llm", fail=ValueError, what="the reply")
    ws.plan_path(1).unlink()
    write = f"open('plans/v1_plan.md', 'w').write('#' * {4 * PLAN_CHARS + 1})"
    planned = plan_stage(ws, 1, AgentCliPlanner({"command": f"{PY} -c {shlex.quote(write)}"}))
    assert "the agent's plans/v1_plan.md is 4,000,001 bytes, where a plan is at most 1,000,000 characters" in (
        planned.reason
    )


@pytest.mark.parametrize(
    "script",
    [
        "import shutil; shutil.rmtree('.git')",
        "import os, shutil, subprocess; subprocess.run(['git', 'init', '-q', os.environ['ELSEWHERE']], check=True); "
        "shutil.rmtree('.git'); open('.git', 'w').write('gitdir: ' + os.environ['ELSEWHERE'] + '/.git')",
        "import shutil, subprocess; shutil.rmtree('.git'); subprocess.run(['git', 'init', '-q', '.'], check=True)",
    ],
    ids=["deleted", "gitdir-elsewhere", "new-repo"],
)
def test_a_repository_the_implementer_deleted_or_replaced_is_put_back(ws, tmp_path: Path, script: str) -> None:
    """a9: the agent's `rm -rf .git` took the workspace's history, and the guard's next git command raised
    (GitCommandError, "not a git repository"); a `gitdir:` file would have had every later commit go elsewhere.
    review19 r7: a fresh `git init` over the deleted `.git` looked whole, was kept, and the guard's next git command
    raised (GitError: `git rev-parse HEAD` failed); a repository that lacks the commit HEAD held is put back too."""
    log, kernel = ws.log(), ws.kernel_py.read_bytes()
    edit = "from pathlib import Path; k = Path('kernel.py'); k.write_text(k.read_text().replace('=4', '=8')); "
    backend = AgentCliImplementer(
        {"command": f"{PY} -c {shlex.quote(edit + script)}", "env": {"ELSEWHERE": str(tmp_path / "elsewhere")}}
    )
    report = run_implement(ws, 1, make_plan(), backend, guard=RunGuard(ws), check=None, summary=None, history=[])
    assert not report.ok and report.violations == [
        ".git (deleted or replaced: the repository put back as it was before the stage)"
    ]
    assert (ws.root / ".git").is_dir() and ws.log() == log and ws.kernel_py.read_bytes() == kernel
    assert ws.repo.git.status("--porcelain") == "?? plans/v1_plan.md"
    assert not (ws.state_dir / "git-before-stage").exists()


def test_a_plan_cannot_cite_its_own_transcript_as_profiler_evidence(tmp_path: Path) -> None:
    """a10: the planner printed a metric line (kept in its transcript profiles/v1/agent_plan.log, or written into an
    agent_*.log it may write) and cited that file: the evidence check took it for a profiler artifact."""
    from kernelopt.planning.plan import PlanError
    from kernelopt.planning.validate import check_evidence

    profile = tmp_path / "v1"
    profile.mkdir()
    line = "dram__throughput.avg.pct_of_peak_sustained_elapsed = 97.5"
    plan = make_plan()
    for name in ("agent_plan.log", "agent_evidence.log", "llm_plan.log", "my_transcript.txt", "ncu_raw.csv"):
        (profile / name).write_text(f"--- stdout ---\n{line}\n")
        plan.evidence = [f"{line} [profiles/v1/{name}] -> memory bound -> raise num_warps"]
        if name == "ncu_raw.csv":  # a profiler's own text artifact is still cited by its line
            check_evidence(plan, profile, None)
        else:
            with pytest.raises(PlanError, match="cites no metric value found in profiles/v1/"):
                check_evidence(plan, profile, None)
        (profile / name).unlink()


def test_an_untracked_profile_the_planner_rewrote_is_put_back(ws) -> None:
    """a11: the version's profile is untracked until its record commits it; the planner's rewrite of
    profiles/v1/summary.json (its numbers to fit the plan) was reported, and the file stayed as the planner left it."""
    summary = ws.profile_dir(1) / "summary.json"
    summary.parent.mkdir(parents=True, exist_ok=True)
    summary.write_text('{"measured": 12.5}\n')
    report = ws.profile_dir(1) / "ncu.ncu-rep"
    report.write_bytes(b"\x00measured report\x00")
    ws.plan_path(1).unlink()
    forge = (
        "from pathlib import Path; Path('profiles/v1/summary.json').write_text(str(dict(measured=97.5))); "  # no braces:
        # a command's braces are its placeholders
        "Path('profiles/v1/ncu.ncu-rep').unlink(); Path('plans/v1_plan.md').write_text('---\\nversion: 1\\n---\\n')"
    )
    planned = plan_stage(ws, 1, AgentCliPlanner({"command": f"{PY} -c {shlex.quote(forge)}"}))
    assert planned.violations == ["profiles/v1/ncu.ncu-rep (deleted)", "profiles/v1/summary.json (modified)"]
    assert summary.read_text() == '{"measured": 12.5}\n' and report.read_bytes() == b"\x00measured report\x00"
    assert not (ws.state_dir / "untracked-before-stage").exists()
    # late19 z3: the copy lies under .kernelopt/, which no snapshot reads; a planner that forged the copy too had its
    # numbers "put back" as the measured ones. The copy is put back only where it holds the recorded bytes
    copied = ".kernelopt/untracked-before-stage/profiles/v1/summary.json"
    forge_both = (
        f"from pathlib import Path; [Path(p).write_text(str(dict(measured=97.5))) for p in ({copied!r}, "
        "'profiles/v1/summary.json')]; Path('plans/v1_plan.md').write_text('---\\nversion: 1\\n---\\n')"
    )
    ws.plan_path(1).unlink(missing_ok=True)
    planned = plan_stage(ws, 1, AgentCliPlanner({"command": f"{PY} -c {shlex.quote(forge_both)}"}))
    assert planned.violations == ["profiles/v1/summary.json (modified)"]
    assert not summary.exists()  # never left with the planner's numbers: kept aside, as every undone file is
    assert [p.read_text() for p in (ws.state_dir / "backups" / "profiles" / "v1").glob("summary.json.*")] == [
        "{'measured': 97.5}"
    ]


PATCHERS = {
    "rebound": "_c.check_outputs = lambda *a, **k: _c.OutputCheck(rel_err=0.0, max_abs_err=0.0, worst_ratio=0.0)\n",
    "code-swapped": "_c.check_outputs.__code__ = (lambda *a, **k: OutputCheck(rel_err=0.0)).__code__\n",
    "clock": "import time\n\ntime.perf_counter = lambda: 0.0\n",
}


@pytest.mark.parametrize("how", sorted(PATCHERS))
def test_a_kernel_that_patches_the_checker_fails_its_check(tmp_path: Path, how: str) -> None:
    """a12: a kernel.py returning zeros that set kernelopt.harness.compare.check_outputs to a function saying
    "passed" (at import) passed `kernelopt validate` (quality gate PASS): the kernel runs in the checker's process."""
    from kernelopt.harness.gate import check_files
    from kernelopt.harness.settings import HarnessSettings

    folder = tmp_path / "problem"
    folder.mkdir()
    (folder / "reference.py").write_text((Path(__file__).parent / "data" / "loop" / "reference.py").read_text())
    (folder / "kernel.py").write_text(
        "import torch\n\nimport kernelopt.harness.compare as _c\n\n"
        + PATCHERS[how]
        + "\n\ndef run(x, y):\n    return torch.zeros_like(x)\n"
    )
    settings = HarnessSettings(device="cpu", case_timeout_s=30.0, seeds=1)
    report = check_files(folder / "kernel.py", folder / "reference.py", tmp_path / "state", settings=settings)
    assert not report.passed
    message = report.message or ""
    patched = "time.perf_counter" if how == "clock" else "kernelopt.harness.compare.check_outputs"
    assert message.startswith(f"case 0 (n=4096): kernel.py replaced {patched}"), message
    assert message.endswith(
        "which kernelopt checks and times kernels with: a kernel computes its result, it never patches the harness"
    )


# ------------------------------------------------------------------------------------------------ on a GPU

EVENT_PATCH = """
import torch as _torch

_elapsed = _torch.cuda.Event.elapsed_time
_torch.cuda.Event.elapsed_time = lambda self, end: _elapsed(self, end) / 100  # a hundred times faster, as timed
"""

TIMED_CACHE = """
import sys as _sys

_honest_run = run
_CACHE = {}


def run(x, y):  # a14: while the timers call it, the output of the first call on these pointers
    frame = _sys._getframe(1)
    while frame is not None and not frame.f_code.co_filename.endswith("harness/timers.py"):
        frame = frame.f_back
    if frame is None:
        return _honest_run(x, y)
    key = (x.data_ptr(), y.data_ptr())
    if key not in _CACHE:
        _CACHE[key] = _honest_run(x, y)
    return _CACHE[key]
"""


@pytest.mark.gpu
@pytest.mark.timeout(500)
def test_on_cuda_the_checker_s_snapshot_passes_an_honest_kernel_and_fails_a_patched_clock(tmp_path: Path) -> None:
    """a12 on an NVIDIA GPU, at examples/elementwise's sizes (2**28 fp16 elements, 512 MiB a tensor): `kernelopt
    validate --device cuda` of the kernel as written passes (no function of kernelopt's, of torch.cuda.Event's or of
    time's is taken for patched while CUDA starts, Triton compiles and the timers run; its timed output, checked after
    each case's samples on inputs refilled in place, matches the reference through the method each size's sampler took), the
    same kernel with torch.cuda.Event.elapsed_time divided by 100 at import fails, naming it, before any timing is
    believed, and the same kernel answering from a cache by pointer while timed (a14) fails on its timed output (the
    small case alone, 4099 elements)."""
    import subprocess
    import time

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "kernelopt", *args]
        return subprocess.run(argv, capture_output=True, text=True, timeout=400)

    example = Path(__file__).parent.parent / "examples" / "elementwise"
    results = {}
    for name, extra in (("honest", ""), ("patched", EVENT_PATCH), ("timed", TIMED_CACHE)):
        source = tmp_path / f"src_{name}"
        source.mkdir()
        reference = (example / "reference.py").read_text()
        if name == "timed":  # its small case alone: the phase's limit holds the honest run's two cases
            reference = reference.replace('SHAPES = [{"n": 2**28}, {"n": 4099}]', 'SHAPES = [{"n": 4099}]')
            assert 'SHAPES = [{"n": 4099}]' in reference
        (source / "reference.py").write_text(reference)
        (source / "kernel.py").write_text((example / "kernel.py").read_text() + extra)
        made = run("init", name, "--kernel", str(source / "kernel.py"), "--reference", str(source / "reference.py"),
                   "--root", str(tmp_path / "root"))  # fmt: skip
        assert made.returncode == 0, made.stderr[-2000:]
        started = time.monotonic()
        results[name] = run("validate", str(tmp_path / "root" / f"kernel_opt_{name}"), "--device", "cuda")
        last = (results[name].stdout.strip().splitlines() or [""])[-1]
        print(f"agents19 validate {name}: exit {results[name].returncode}, {time.monotonic() - started:.1f} s: {last}")
    honest, patched, timed = results["honest"], results["patched"], results["timed"]
    assert "quality gate v0: PASS" in honest.stdout and "CheckerPatched" not in honest.stdout, honest.stdout[-3000:]
    assert "replaced" not in honest.stdout + honest.stderr, honest.stdout[-3000:]
    assert "replay left call" not in " ".join(honest.stdout.split()), honest.stdout[-3000:]  # its graph does its work
    assert patched.returncode != 0 and "kernel.py replaced torch.cuda.Event.elapsed_time" in patched.stdout, (
        patched.stdout[-3000:] + patched.stderr[-2000:]
    )
    said = " ".join((timed.stdout + timed.stderr).split())
    assert timed.returncode != 0 and "the timed path's output differed from the reference" in said, said[-3000:]


LOOSENERS = {
    "tolerance tables": (
        "import kernelopt.harness.tolerance as _t\n\n"
        "for _p in list(_t.EPS):\n    _t.EPS[_p] = 1e9\n"
        "for _p in list(_t._FIXED):\n    _t._FIXED[_p] = (1e9, 1e9)\n",
        "kernel.py replaced kernelopt.harness.tolerance.EPS, kernelopt.harness.tolerance._FIXED,",
    ),
    "defaults": (
        "import kernelopt.harness.compare as _c\n\n"
        "_c.check_outputs.__kwdefaults__ = {**_c.check_outputs.__kwdefaults__, 'atol': 1e9, 'rtol': 1e9}\n",
        "kernel.py replaced kernelopt.harness.compare.check_outputs, kernelopt.harness.inplace.check_outputs,",
    ),
}


@pytest.mark.parametrize("how", sorted(LOOSENERS))
def test_a_kernel_that_loosens_the_checker_s_data_fails_its_check(tmp_path: Path, how: str) -> None:
    """review19 r3: a12 compared kernelopt's callables alone; a kernel.py computing ``x`` for ``x + y`` that set every
    tolerance of kernelopt.harness.tolerance to 1e9 at import (the tables are data) passed the quality gate; a
    function's defaults set anew change what it does without replacing it."""
    from kernelopt.harness.gate import check_files
    from kernelopt.harness.settings import HarnessSettings

    folder = tmp_path / "problem"
    folder.mkdir()
    (folder / "reference.py").write_text((Path(__file__).parent / "data" / "loop" / "reference.py").read_text())
    patch, said = LOOSENERS[how]
    (folder / "kernel.py").write_text(patch + "\n\ndef run(x, y):\n    return x * 1.0\n")
    settings = HarnessSettings(device="cpu", case_timeout_s=30.0, seeds=1)
    report = check_files(folder / "kernel.py", folder / "reference.py", tmp_path / "state", settings=settings)
    assert not report.passed
    assert (report.message or "").startswith(f"case 0 (n=4096): {said}"), report.message


def test_a_kernel_that_patches_a_tensor_operator_fails_its_check(tmp_path: Path) -> None:
    """a13: torch's patch finder skipped every ``_`` name, the operators with them: a kernel.py returning ``x`` for
    ``x + y`` that set ``torch.Tensor.__sub__`` to return zeros made the checker's every difference zero and passed."""
    from kernelopt.harness.gate import check_files
    from kernelopt.harness.settings import HarnessSettings

    folder = tmp_path / "problem"
    folder.mkdir()
    (folder / "reference.py").write_text((Path(__file__).parent / "data" / "loop" / "reference.py").read_text())
    (folder / "kernel.py").write_text(
        "import torch\n\ntorch.Tensor.__sub__ = lambda a, b: torch.zeros_like(a)\n\n\n"
        "def run(x, y):\n    return x * 1.0\n"
    )
    settings = HarnessSettings(device="cpu", case_timeout_s=30.0, seeds=1)
    report = check_files(folder / "kernel.py", folder / "reference.py", tmp_path / "state", settings=settings)
    assert not report.passed
    assert (report.message or "").startswith("case 0 (n=4096): kernel.py replaced torch.Tensor.__sub__"), report.message


TIMED_CHEAT = """
import sys

import torch

_CACHE = {}


def _timed():
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.replace("\\\\", "/").endswith("harness/timers.py"):
            return True
        frame = frame.f_back
    return False


def run(x, y):
    if _timed():  # timed: the result computed once per input pointer
        key = (x.data_ptr(), y.data_ptr())
        if key not in _CACHE:
            _CACHE[key] = x + y
        return _CACHE[key]
    out = torch.empty_like(x)  # checked: the honest, slow path
    for start in range(0, x.numel(), 64):
        torch.add(x[start : start + 64], y[start : start + 64], out=out[start : start + 64])
    return out
"""

SEEDED_ADD = """
import torch

SHAPES = [{"n": 4096}]


def get_inputs(n=4096, device="cpu"):
    return [torch.randn(n, device=device), torch.randn(n, device=device)]


def reference(x, y):
    return x + y
"""

SEEDED_ROPE = """
import torch

SHAPES = [{"batch": 2, "seq_len": 8, "head_dim": 16}]


def get_inputs(batch=2, seq_len=8, head_dim=16):
    x = torch.randn(batch, seq_len, head_dim)
    inv_freq = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
    start = torch.randint(0, 1000, (1,)).float()  # the seed's first position: its tables, halves equal all the same
    freqs = torch.outer(torch.arange(seq_len).float() + start, inv_freq)
    emb = torch.cat([freqs, freqs], dim=-1)
    return [x, emb.cos(), emb.sin()]


def reference(x, cos, sin):
    half = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., half:], x[..., :half]], dim=-1) * sin
"""

HALF_TABLE_ROPE = """
import torch


def run(x, cos, sin):  # reads the first half of each table row only: the halves are equal
    half = x.shape[-1] // 2
    c, s = cos[..., :half], sin[..., :half]
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)
"""

POINTER_CACHE = """
_CACHE = {}


def run(x, y):
    key = (x.data_ptr(), y.data_ptr())
    if key not in _CACHE:
        _CACHE[key] = x + y
    return _CACHE[key]
"""

POSITIONS_ROPE = """
import torch


def run(x, cos, sin):  # the angles of positions 0, 1, ...: right only while row p of the tables is position p
    half = x.shape[-1] // 2
    inv = 1.0 / (10000 ** (torch.arange(0, x.shape[-1], 2).float() / x.shape[-1]))
    emb = torch.outer(torch.arange(x.shape[-2]).float(), inv)
    c, s = emb.cos(), emb.sin()
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)
"""

LOOP_ADD = (DATA / "loop" / "reference.py").read_text()  # get_inputs takes no seed: the same values every time
HALF_TABLES = (DATA / "tunables" / "tasks" / "rope_half_tables" / "reference.py").read_text()  # likewise
TIMED_KERNELS = {  # reference.py, kernel.py, how the timing ends (None: it passes)
    "cached while timed": (
        LOOP_ADD,
        TIMED_CHEAT,
        "TimedMismatch: case 0 (n=4096): the timed path's output differed from the reference, where the untimed "
        "call's on the same inputs matched it",
    ),
    "cached while timed, a seeded get_inputs": (
        SEEDED_ADD,
        TIMED_CHEAT,
        "TimedMismatch: case 0 (n=4096): the timed path's output differed from the reference",
    ),
    "cached by pointer": (
        SEEDED_ADD,
        POINTER_CACHE,
        "CachedResult: case 0 (n=4096): kernel returned a stale output for inputs refilled in place",
    ),
    "rows in order": (
        HALF_TABLES,
        POSITIONS_ROPE,
        "Mismatch: case 0 (batch=2,seq_len=8,head_dim=16): output differs from the reference on the inputs of seed "
        "7919 (the timed output's check), timed or not",
    ),
    "honest": (LOOP_ADD, "def run(x, y):\n    return x + y\n", None),
    "half tables": (HALF_TABLES, HALF_TABLE_ROPE, None),
    "half tables, a seeded get_inputs": (SEEDED_ROPE, HALF_TABLE_ROPE, None),
}


@pytest.mark.parametrize("name", sorted(TIMED_KERNELS))
def test_a_kernel_that_knows_it_is_timed_fails_on_its_timed_output(tmp_path: Path, name: str) -> None:
    """a14: a kernel.py that walked its caller's frames for the timers and, while timed, returned a result cached by
    input pointer passed at 2.17x over eager, its real path far slower: no timed call's output was checked. After a
    case's samples the timed callable's input set is refilled in place with a fresh seed's get_inputs and called once
    more through its sampler: the cache is read and fails, said as the timed path's (tests/data/loop's get_inputs takes
    no seed: its rows permuted, as the check's seeds 1+ have them). A kernel that caches by pointer whether timed or
    not fails as a cached result, one wrong on those inputs as a mismatch. An honest kernel, and one that relies on
    the structure get_inputs builds (RoPE's equal half tables, with and without a seed), pass."""
    from kernelopt.harness.gate import bench_files
    from kernelopt.harness.model import BenchSettings
    from kernelopt.harness.settings import HarnessSettings

    reference, kernel, said = TIMED_KERNELS[name]
    folder = tmp_path / "problem"
    folder.mkdir()
    (folder / "reference.py").write_text(reference)
    (folder / "kernel.py").write_text(kernel)
    settings = HarnessSettings(device="cpu", case_timeout_s=30.0, seeds=1, bench_seconds=0.02)
    report, _raw = bench_files(
        folder / "kernel.py",
        folder / "reference.py",
        tmp_path / "state",
        settings=settings,
        bench=BenchSettings(seconds_per_case=0.02, time_reference=False),
    )
    if said is None:
        assert report.ok and report.cases[0].current.n >= 6, report.message
        return
    assert not report.ok and f"{report.error_class}: {report.message}".startswith(said), report.message


def test_a_link_the_user_made_is_written_through_and_kept(ws, tmp_path: Path) -> None:
    """late19 z5: a6 failed every stage that wrote kernel.py where the user had made it a link (to their project's
    file, to keep the two one), "kernel.py (made a symbolic link)", and removed kernel.py from the workspace, the link
    having no bytes of its own to put back. A link the stage found is its to write through; one it points elsewhere is
    still the stage's own."""
    from kernelopt.stages.allowance import editable_files

    mine, other = tmp_path / "project_kernel.py", tmp_path / "agent_kernel.py"
    mine.write_text(ws.kernel_py.read_text())
    other.write_text(ws.kernel_py.read_text())
    ws.kernel_py.unlink()
    ws.kernel_py.symlink_to(mine)
    guard = RunGuard(ws)
    point = guard.begin(editable_files(Stage.IMPLEMENT, 1))
    mine.write_text(mine.read_text() + "\n# the implementer's edit\n")
    assert guard.check(point, may_write(Stage.IMPLEMENT, 1)) == []
    assert ws.kernel_py.is_symlink() and ws.kernel_py.read_text().endswith("# the implementer's edit\n")
    point = guard.begin(editable_files(Stage.IMPLEMENT, 1))
    ws.kernel_py.unlink()
    ws.kernel_py.symlink_to(other)  # pointed elsewhere by the stage: a6's case
    assert guard.check(point, may_write(Stage.IMPLEMENT, 1)) == ["kernel.py (made a symbolic link)"]
    assert ws.kernel_py.resolve() == mine.resolve()  # the user's link pointed back, not removed
