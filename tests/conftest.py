"""Shared fixtures. GPU tests (``@pytest.mark.gpu``) run only with KERNELOPT_GPU_TESTS=1."""

from __future__ import annotations

import atexit
import compileall
import contextlib
import gc
import getpass
import hashlib
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

import pytest

from kernelopt.env import EnvSettings

# One thread per torch process, in every test: the test workers and the runs they start share two cores,
# and the CPU loops' own fixtures already asked for one thread (steadier timing). With every test alike, a
# worker's CPU runs all fork from one shared fork server instead of one per setting (torch imported again).
os.environ["OMP_NUM_THREADS"] = "1"

TMP = Path(tempfile.gettempdir())
OURS = ("kernel_opt_", ".kernel_opt_", "kernelopt_batch_")
"""Names of what kernelopt puts under /tmp by default (workspaces, their locks, batch folders): what a test
could leave there although TMPDIR points elsewhere (the checks compare with the session's start; other
users' runs of kernelopt on a shared machine could still add one meanwhile)."""

DATA = Path(__file__).parent / "data"
KERNELS = DATA / "kernels"
SRC = str(Path(__file__).resolve().parents[1] / "src")
SHARED_FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures-public"


# The test files that take longest, longest first (the files under about 1 s follow in collection order). The run is
# spread over the workers one file at a time (--dist loadfile, in this order: pyproject.toml turns off xdist's own
# reordering by test count): starting the long files first keeps every worker busy to the end instead of leaving one
# running the last long file alone. Measured 2026-12-06 (suite19, 20:55-21:28 UTC, the shared 2-core machine at load
# 5-11): every file run in turn in one pytest process (-n 0), as a default run's worker runs them (torch imported once,
# one fork server), each test's CPU-s read from /proc for the whole process tree. A file's rank is twice its CPU-s (four
# workers share two cores) plus the seconds its tests wait beyond that (sleeps, timeouts, agents and servers starting:
# each test's wall, less the plugin's own 0.05 s, less its CPU-s times the run's median stretch, 2.2); the twenty files
# marked "alone" were measured in a process of their own, less a fork server's start. The order before it listed 146
# files (the fifth lane's measurements, 2026-12-05, and files put where their authors chose): the 113 others ran last in
# collection order, wrongkernel13-18 (27 CPU-s, a rank of 88 together) at the very end, test_variants_cases 49th.
SLOW_FILES = (
    "test_variants_cases.py",  # 33.2 CPU-s
    "test_late35_cases.py",  # 72-84 s wall (late35, 11:15 UTC, load 11-14): a v116 write, its net twice; a --set --check
    "test_late30_cases.py",  # 3.7 CPU-s, 5-8 s wall (late30, 05:55 UTC, load 7): two runs of a task, two preparations
    "test_discovery23_cases.py",  # 2.7 CPU-s, 11-16 s wall (discovery23, 08:06 UTC, load 14): a 1 s agent limit, children
    "test_late36_cases.py",  # 5.7 CPU-s, 12-15 s wall (late36, 11:25 UTC, load 5-9): two tune runs, a preparation
    "test_late33_cases.py",  # 5.4 CPU-s, 13-16 s wall (late33, 08:51 UTC, load 7-10): a bench worker, the meta device's first use
    "test_agent_skill_claude.py",  # 6.9 CPU-s, 26 s waiting
    "test_loop_machine.py",  # 7.2 CPU-s, 20 s waiting
    "test_tune_faults.py",  # 15.2 CPU-s (alone, less a fork server's start)
    "test_harness_gate.py",  # 13.7 CPU-s
    "test_agent_skill_codex.py",  # 2.2 CPU-s, 23 s waiting
    "test_wrongkernel20_cases.py",  # 8.3 CPU-s, 14 s waiting (leftovers21, 02:05 UTC, load 5)
    "test_late42_cases.py",  # 7.6 CPU-s, 14-17 s wall at load 3-6 (late42, 13:58 UTC): fla_matmul prepared for cuda twice
    "test_breaker20_cases.py",  # 11.4 CPU-s (suite26, 11:59 UTC): its GPU picks' CPU check opts in
    "test_breaker21_cases.py",  # 5.2 CPU-s (suite26, 11:59 UTC): its GPU picks' CPU check opts in
    "test_breaker22_cases.py",  # 5.8 CPU-s (suite26, 11:59 UTC): its GPU picks' CPU check opts in
    "test_breaker23_cases.py",  # 4.1 CPU-s (suite26, 11:59 UTC): its GPU picks' CPU check opts in
    "test_breaker24_cases.py",  # 3.1 CPU-s (suite26, 11:59 UTC): its GPU picks' CPU check opts in
    "test_breaker25_cases.py",  # 5.4 CPU-s (suite26, 11:59 UTC): its GPU picks' CPU check opts in
    "test_breaker26_cases.py",  # 2.3 CPU-s (suite26, 11:59 UTC): its GPU picks' CPU check opts in
    "test_breaker27_cases.py",  # 3.3 CPU-s, 10.5 s wall at load 7 (breaker27, 13:36 UTC): its GPU picks' opt in
    "test_batch_pool.py",  # 9.2 CPU-s, 8 s waiting
    "test_knob_patterns_e2e.py",  # 13.1 CPU-s (alone, less a fork server's start)
    "test_breaker_cases.py",  # 8.0 CPU-s, 10 s waiting
    "test_wrongkernel18_cases.py",  # 8.4 CPU-s, 7 s waiting
    "test_wrongkernel16_cases.py",  # 6.7 CPU-s, 10 s waiting
    "test_breaker19_cases.py",  # 6.2 CPU-s, 10 s waiting (time19, 22:10 UTC, load 5)
    "test_break20_cases.py",  # 7.3 CPU-s, 8 s waiting (leftovers21, 02:05 UTC, load 5)
    "test_tuning_folder.py",  # 6.5 CPU-s, 8 s waiting
    "test_proc.py",  # 2.6 CPU-s, 16 s waiting
    "test_break19_cases.py",  # 4.7 CPU-s in process, 9-13 s wall (22:10 UTC): b29-b32's harness workers, b26's agent
    "test_loop_agents.py",  # 9.5 CPU-s
    "test_agent_cli_claude.py",  # 9.2 CPU-s (alone, less a fork server's start)
    "test_tuneleft7_cases.py",  # 3.8 CPU-s, 11 s waiting
    "test_guard_forms.py",  # 8.4 CPU-s
    "test_leftovers21_cases.py",  # 3.6 CPU-s, 8 s waiting (leftovers21, 02:05 UTC, load 5)
    "test_leftovers15_cases.py",  # 5.8 CPU-s, 6 s waiting
    "test_wrongkernel17_cases.py",  # 5.0 CPU-s, 6 s waiting
    "test_wrongkernel21_cases.py",  # 5.1 CPU-s, 8 s waiting (wrongkernel21, 02:29 UTC, load 5.5): v88's workers
    "test_backends_agent_cli.py",  # 1.6 CPU-s, 12 s waiting
    "test_launch_tuning.py",  # 7.8 CPU-s (alone, less a fork server's start)
    "test_breaker7_cases.py",  # 7.7 CPU-s
    "test_tunables.py",  # 6.2 CPU-s, 3 s waiting
    "test_report_sweep_compare.py",  # 4.4 CPU-s, 6 s waiting
    "test_mcp_server.py",  # 7.4 CPU-s
    "test_agent_cli_codex.py",  # 7.2 CPU-s (alone, less a fork server's start)
    "test_tuning_evaluator.py",  # 7.0 CPU-s
    "test_newuser16_cases.py",  # 5.5 CPU-s, 2 s waiting (time19, 22:10 UTC, load 5)
    "test_wrongkernel19_cases.py",  # 6.0 CPU-s, 1 s waiting (time19, 22:10 UTC, load 5)
    "test_agents19_cases.py",  # 3.4 CPU-s, 6 s waiting (time19, 22:10 UTC, load 5)
    "test_discovery17_cases.py",  # 5.8 CPU-s
    "test_nvidia_reports.py",  # 6.2 CPU-s
    "test_gpu_parity.py",  # 6.6 CPU-s (alone, less a fork server's start)
    "test_agents_drive.py",  # 6.5 CPU-s
    "test_newuser7_cases.py",  # 5.9 CPU-s
    "test_tablebound11_cases.py",  # 5.6 CPU-s
    "test_agentbreak_cases.py",  # 5.0 CPU-s
    "test_tune_env_faults.py",  # 5.6 CPU-s (alone, less a fork server's start)
    "test_batch_optimize.py",  # 5.5 CPU-s (alone, less a fork server's start)
    "test_leftovers22_cases.py",  # 4.9 CPU-s, 6 s waiting (leftovers22, 05:00 UTC, load 5; l18's loop, V0's gate)
    "test_loopbreak_cases.py",  # 3.2 CPU-s, 5 s waiting
    "test_harness_correctness.py",  # 4.6 CPU-s
    "test_refblame14_cases.py",  # 5.3 CPU-s
    "test_loop_resume.py",  # 5.4 CPU-s (alone, less a fork server's start)
    "test_nvidia_runner.py",  # 4.7 CPU-s
    "test_leftovers17_cases.py",  # 3.2 CPU-s, 4 s waiting
    "test_wrongkernel14_cases.py",  # 3.5 CPU-s, 3 s waiting
    "test_batch.py",  # 5.2 CPU-s (alone, less a fork server's start)
    "test_tuning_shapes.py",  # 4.9 CPU-s (alone, less a fork server's start)
    "test_agentleft_cases.py",  # 4.7 CPU-s
    "test_loop_integration.py",  # 4.8 CPU-s
    "test_breaker6_cases.py",  # 4.8 CPU-s
    "test_batch_breaker_cases.py",  # 4.2 CPU-s
    "test_gpuleft10_cases.py",  # 4.5 CPU-s (alone, less a fork server's start)
    "test_forkpool_shared.py",  # 3.9 CPU-s
    "test_import.py",  # 4.4 CPU-s
    "test_starts.py",  # 4.4 CPU-s
    "test_honest12_cases.py",  # 4.3 CPU-s
    "test_newuser13_cases.py",  # 2.9 CPU-s, 3 s waiting
    "test_shape_failures.py",  # 4.3 CPU-s (alone, less a fork server's start)
    "test_breaker9_cases.py",  # 4.3 CPU-s
    "test_newuser9_cases.py",  # 4.1 CPU-s (alone, less a fork server's start)
    "test_amd_runner.py",  # 3.2 CPU-s
    "test_wrongkernel15_cases.py",  # 2.5 CPU-s, 3 s waiting
    "test_leftovers18_cases.py",  # 2.0 CPU-s, 4 s waiting
    "test_tuneleft8_cases.py",  # 0.8 CPU-s, 6 s waiting
    "test_breaker3_cases.py",  # 3.2 CPU-s
    "test_breaker4_cases.py",  # 3.8 CPU-s
    "test_structured_inputs.py",  # 3.8 CPU-s
    "test_batch_kernelbench.py",  # 3.7 CPU-s
    "test_break18_cases.py",  # 3.5 CPU-s
    "test_knob_helper_caps.py",  # 3.5 CPU-s (alone, less a fork server's start)
    "test_break17_cases.py",  # 3.5 CPU-s
    "test_loop_stop.py",  # 2.8 CPU-s
    "test_honest15_cases.py",  # 2.9 CPU-s
    "test_signals.py",  # 3.5 CPU-s
    "test_newuser4_cases.py",  # 2.3 CPU-s, 2 s waiting
    "test_examples.py",  # 2.1 CPU-s, 2 s waiting
    "test_batchbreak_cases.py",  # 3.2 CPU-s
    "test_tuning_rejected.py",  # 1.7 CPU-s, 3 s waiting
    "test_newuser3_cases.py",  # 3.0 CPU-s
    "test_size_scaling.py",  # 3.1 CPU-s
    "test_redact.py",  # 3.1 CPU-s
    "test_planning_cli.py",  # 3.1 CPU-s
    "test_newuser14_cases.py",  # 2.4 CPU-s
    "test_tuning_noise.py",  # 2.9 CPU-s
    "test_pace12_cases.py",  # 1.5 CPU-s, 3 s waiting
    "test_report_render.py",  # 2.5 CPU-s
    "test_target18_cases.py",  # 2.2 CPU-s
    "test_tuning_space.py",  # 2.9 CPU-s
    "test_newuser15_cases.py",  # 2.5 CPU-s
    "test_tunegaps11_cases.py",  # 2.8 CPU-s
    "test_reference_speedup.py",  # 2.2 CPU-s
    "test_breaker8_cases.py",  # 2.7 CPU-s
    "test_batch_verdicts.py",  # 1.1 CPU-s, 3 s waiting
    "test_newuser12_cases.py",  # 2.3 CPU-s
    "test_gpu_scripts.py",  # 2.6 CPU-s
    "test_table14_cases.py",  # 2.1 CPU-s
    "test_knobs17_cases.py",  # 1.2 CPU-s, 3 s waiting
    "test_knob_generality.py",  # 2.5 CPU-s (alone, less a fork server's start)
    "test_breaker16_cases.py",  # 2.0 CPU-s
    "test_evidence_summary_diff.py",  # 2.3 CPU-s
    "test_misalign17_cases.py",  # 2.4 CPU-s
    "test_seen19_cases.py",  # 1.7 CPU-s (time19, 22:10 UTC, load 5)
    "test_worker_protocol.py",  # 1.7 CPU-s
    "test_mcp_tools.py",  # 1.4 CPU-s, 2 s waiting
    "test_knob_heuristic_tables.py",  # 2.4 CPU-s (alone, less a fork server's start)
    "test_agentleft6_cases.py",  # 2.1 CPU-s
    "test_breaker11_cases.py",  # 2.3 CPU-s
    "test_breaker5_cases.py",  # 2.2 CPU-s
    "test_newuser5_cases.py",  # 2.2 CPU-s
    "test_tuning_memory.py",  # 2.2 CPU-s
    "test_tune_edges.py",  # 1.5 CPU-s
    "test_breaker15_cases.py",  # 2.1 CPU-s
    "test_tuning_slowcut.py",  # 0.3 CPU-s, 4 s waiting
    "test_floor18_cases.py",  # 2.0 CPU-s
    "test_break16_cases.py",  # 2.1 CPU-s
    "test_small11_cases.py",  # 1.9 CPU-s
    "test_small_faults.py",  # 0.9 CPU-s, 2 s waiting
    "test_gpufind19_cases.py",  # 1.4 CPU-s (time19, 22:10 UTC, load 5)
    "test_wrongkernel13_cases.py",  # 1.2 CPU-s
    "test_tunesafe2_cases.py",  # 2.0 CPU-s (alone, less a fork server's start)
    "test_taskcard.py",  # 0.4 CPU-s, 3 s waiting
    "test_breaker2_cases.py",  # 1.4 CPU-s
    "test_rounds13_cases.py",  # 1.6 CPU-s
    "test_break14_cases.py",  # 1.7 CPU-s
    "test_netgaps11_cases.py",  # 1.9 CPU-s
    "test_leftovers13_cases.py",  # 1.1 CPU-s
    "test_aside17_cases.py",  # 1.8 CPU-s
    "test_tuning_compile_pool.py",  # 1.7 CPU-s
    "test_card_inference.py",  # 1.3 CPU-s
    "test_breaker12_cases.py",  # 1.5 CPU-s
    "test_break15_cases.py",  # 1.6 CPU-s
    "test_report_cli.py",  # 1.7 CPU-s
    "test_loop_cli.py",  # 1.4 CPU-s
    "test_newuser11_cases.py",  # 1.5 CPU-s
    "test_cli_signals.py",  # 0.8 CPU-s
    "test_list_screen.py",  # 1.6 CPU-s
    "test_backends_rules.py",  # 1.2 CPU-s
    "test_net12_cases.py",  # 1.5 CPU-s
    "test_harnessleft6_cases.py",  # 1.3 CPU-s
    "test_bound14_cases.py",  # 1.5 CPU-s
    "test_breaker17_cases.py",  # 1.3 CPU-s
    "test_tablebound13_cases.py",  # 1.3 CPU-s
    "test_tablewarps12_cases.py",  # 1.4 CPU-s
    "test_tunables_guard.py",  # 1.2 CPU-s
    "test_h200_example_evidence.py",  # 1.4 CPU-s
    "test_report_paths.py",  # 1.1 CPU-s
    "test_knob_patterns.py",  # 1.2 CPU-s
    "test_breaker10_cases.py",  # 1.3 CPU-s
    "test_breaker13_cases.py",  # 1.2 CPU-s
    "test_tuning_cli.py",  # 1.2 CPU-s
    "test_wiki_search.py",  # 0.5 CPU-s
    "test_newuser8_cases.py",  # 1.3 CPU-s
    "test_seen14_cases.py",  # 1.0 CPU-s
    "test_lostpicks13_cases.py",  # 0.8 CPU-s
    "test_pruned_autotune.py",  # 1.2 CPU-s
    "test_late16_cases.py",  # 0.8 CPU-s
    "test_report_stop_and_axis.py",  # 0.6 CPU-s
    "test_newuser_cases.py",  # 0.8 CPU-s
    "test_doctor.py",  # 0.0 CPU-s, 2 s waiting
    "test_leftovers19_cases.py",  # 0.4 CPU-s (time19, 22:10 UTC, load 5)
    "test_refblame13_cases.py",  # 0.4 CPU-s
    "test_guard_helpers.py",  # 1.1 CPU-s
    "test_problem_sizes.py",  # 1.0 CPU-s
    "test_harness_stats.py",  # 0.5 CPU-s
)


def _file_rank(item: pytest.Item) -> int:
    name = item.path.name
    return SLOW_FILES.index(name) if name in SLOW_FILES else len(SLOW_FILES)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_file_rank)  # stable: the order inside a file and among the other files is kept
    if EnvSettings.read().gpu_tests:
        return
    skip = pytest.mark.skip(reason="GPU test: set KERNELOPT_GPU_TESTS=1 on a machine with an NVIDIA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After a test file's last test (its module fixtures torn down), collect its garbage and move what
    survives into the permanent generation, which the cyclic garbage collector never scans again: torch, Triton,
    libcst, the test modules and what they import (~400,000 objects a worker). Without it each full (gen 2)
    collection that a test's allocations trigger walks them all, ~0.1-0.15 CPU-s each, dozens of times a
    worker, and pytest's five collections at the session's end as many more. What the next file makes is
    collected as before; an object frozen here is still freed when its last reference goes (only a cycle it
    later joins is never collected: memory, not behaviour)."""
    yield
    if nextitem is None or nextitem.path != item.path:
        _freeze_survivors()


def pytest_collection_finish(session: pytest.Session) -> None:
    _freeze_survivors()  # what collection imported, before the first file runs


def _freeze_survivors() -> None:
    gc.collect()
    gc.freeze()


@pytest.fixture
def ws_root(tmp_path: Path) -> Path:
    """A root folder for workspaces (never /tmp itself)."""
    root = tmp_path / "root"
    root.mkdir()
    return root


@pytest.fixture
def add_workspace(ws_root: Path):
    """A fresh workspace built from the CPU add kernel."""
    from kernelopt.workspace import Workspace

    return Workspace.create(
        "add", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=ws_root
    )


BENCH_S = "0.05"
"""The seconds a real gate measures per case and version in the tests (``KERNELOPT_BENCH_S``; the harness's own
default is 1 s, tested there) unless a test asks for more: about 30 % of a gating test's CPU was that timing (suite27
s60: test_agents_drive 13.0 -> 9.2 CPU-s at 0.02 s; 0.05 s is what the batch and gate tests of a timing's cost
already ran at). A test that judges a timing sets its own (test_loop_agents' slower kernel, 0.2 s)."""


QUIET_GIT = "[maintenance]\n\tauto = false\n[gc]\n\tauto = 0\n"
"""The tests' global git configuration: no automatic housekeeping (``git maintenance run --auto``, which git
starts after every commit: a process each time, and nothing a test's small repository needs)."""


def quiet_git_config(path: Path) -> None:
    path.write_text(QUIET_GIT)


def git_home(home: Path) -> dict[str, str]:
    """The variables that make ``home`` the HOME of a test's processes, its quiet git configuration the only
    one git reads (written here)."""
    quiet_git_config(home / ".gitconfig")
    return {
        "HOME": str(home),
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        **QUIET_GIT_ENV,
    }


QUIET_GIT_ENV = {
    "GIT_CONFIG_COUNT": "2",
    "GIT_CONFIG_KEY_0": "maintenance.auto",
    "GIT_CONFIG_VALUE_0": "false",
    "GIT_CONFIG_KEY_1": "gc.auto",
    "GIT_CONFIG_VALUE_1": "0",
}
""":data:`QUIET_GIT` as git's command-line scope: kernelopt's own git runs with ``GIT_CONFIG_GLOBAL=/dev/null``
(``workspace.GIT_ENV``), so the quiet global file never reached it and each workspace commit started ``git maintenance
run --auto`` (219 in test_loop_resume alone, suite25 s40); variables of this scope reach every git a test starts."""


@pytest.fixture(scope="session", autouse=True)
def _triton_first_interpreted() -> None:
    """Triton imported first with TRITON_INTERPRET=1 in every process that runs tests on a machine without a GPU,
    so :func:`triton_interpreted` holds whatever a test before it imported: torch imports Triton of its own accord
    (``torch._dynamo`` asks ``has_triton_package``; ``init``'s dtype probe on the meta device reaches it), and a
    worker whose first import came that way, with the variable unset, failed every interpreted test it ran after
    (a fresh clone at 276efac, 13 failures on one worker). Left alone where the GPU tests run, which compile."""
    if os.environ.get("KERNELOPT_GPU_TESTS") == "1" or importlib.util.find_spec("triton") is None:
        return
    with mock.patch.dict(os.environ, {"TRITON_INTERPRET": "1"}):
        import triton.language  # noqa: F401


@pytest.fixture(autouse=True)
def _isolated_git_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never read or write the user's global git configuration; a real gate measures :data:`BENCH_S`
    per case and version unless the test asks for more.
    matplotlib keeps its configuration and font cache in the run's folder, shared by every test and process of
    the run: a fresh HOME per test made each process that draws a plot (a tune's search.png, a report's
    roofline) scan the system's fonts again."""
    monkeypatch.setenv("KERNELOPT_BENCH_S", BENCH_S)
    for name, value in git_home(tmp_path_factory.mktemp("home")).items():
        monkeypatch.setenv(name, value)
    # matplotlib's font cache is built once a run, not in every process that draws under a test's fresh HOME
    monkeypatch.setenv("MPLCONFIGDIR", str(_run_folder(tmp_path_factory) / "matplotlib"))
    # pytest-xdist workers run with COLUMNS=80 LINES=24; output is rendered as for a pipe (100 columns)
    # whichever way the tests run, and a test that wants a width sets COLUMNS itself
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


ROWS = DATA / "agents" / "rows"


@pytest.fixture(scope="session")
def rows_baseline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The coding-agent loops' workspace (tests/data/agents/rows) with V0 gated and committed, made once per
    run: the first test worker that asks makes it in the run's folder (which every worker of the run sees), the
    others wait for it (a lock) and read it; a loop test copies it (:func:`with_baseline`) and starts at V1.
    Four files ask for it, spread over the workers: one gate of V0 instead of one per worker."""
    import fcntl

    from kernelopt.cli.app import main

    shared = _run_folder(tmp_path_factory)
    done, root = shared / "rows_baseline.done", shared / "rows_baseline"
    with open(shared / "rows_baseline.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(root, ignore_errors=True)  # what a worker that died while making it left
            root.mkdir()
            home = git_home(tmp_path_factory.mktemp("rows_home"))
            settings = {**home, "KERNELOPT_BENCH_S": "0.2", "KERNELOPT_SEEDS": "1", "OMP_NUM_THREADS": "1"}
            with pytest.MonkeyPatch.context() as mp:
                for name, value in settings.items():
                    mp.setenv(name, value)
                argv = ["optimize", str(ROWS), "--root", str(root), "--device", "cpu", "--max-iters", "0", "--json"]
                code = main(argv)
            assert code == 0
            done.touch()
    return root / "kernel_opt_rows"


@pytest.fixture(scope="session", autouse=True)
def _report_reads_shared(tmp_path_factory: pytest.TempPathFactory) -> None:
    """kernelopt's memo of Nsight Compute report reads (``ncu_rep._READ``, by the report's bytes, the name asked for
    and the reader's PYTHONPATH) shared by the run's workers: a read one worker made (a ``python -m
    kernelopt.profiling.ncu_rep`` process, ~0.8 CPU-s for each of the H200 test reports) serves the others as it
    serves later reads in its own process. Each worker read the six H200 reports again (suite28 s92). The tests of
    the reader and its memo set ``_READ`` to a dict of their own, as before."""
    from kernelopt.profiling import ncu_rep

    folder = _run_folder(tmp_path_factory) / "ncu_reads"
    folder.mkdir(exist_ok=True)
    ncu_rep._READ = SharedReads(folder)


class SharedReads(dict[Any, str]):
    """A memo kept in this process and as one file a key in ``folder``: a key another process wrote there is found
    (and kept here); a key written here lands there whole (a temporary file renamed), once."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def _file(self, key: object) -> Path:
        return self.folder / f"{hashlib.sha256(repr(key).encode()).hexdigest()}.json"

    def __contains__(self, key: object) -> bool:
        if super().__contains__(key):
            return True
        try:
            text = self._file(key).read_text(encoding="utf-8")
        except OSError:
            return False
        super().__setitem__(key, text)
        return True

    def __setitem__(self, key: object, value: str) -> None:
        super().__setitem__(key, value)
        path = self._file(key)
        if not path.is_file():
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            tmp.write_text(value, encoding="utf-8")
            tmp.replace(path)


def _run_folder(factory: pytest.TempPathFactory) -> Path:
    """The folder of this run that every pytest-xdist worker sees (the parent of each worker's own
    ``popen-gwN``), or the session's own folder without xdist; pytest removes it when the run ends."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def with_baseline(baseline: Path, root: Path) -> Path:
    """A copy of a baselined workspace under ``root`` (git history included; the harness's run and build
    folders, scratch that a run makes again, left out); returns its folder."""
    skip = shutil.ignore_patterns("runs", "build")
    return Path(shutil.copytree(baseline, root / baseline.name, symlinks=True, ignore=skip))


def skip_without(module: str, reason: str | None = None) -> None:
    """Skip the calling test where ``module`` is not installed, found without importing it or its packages:
    ``pytest.importorskip("triton")`` imported Triton in the test's process with TRITON_INTERPRET unset, and every
    test that process ran after it under :func:`triton_interpreted` failed (13 on one worker of a fresh-clone run
    of 2026-12-05, 23:52, depending on which files the worker drew before)."""
    top, *rest = module.split(".")
    spec = importlib.util.find_spec(top)
    places = [Path(p, *rest) for p in (spec.submodule_search_locations or ())] if spec is not None else []
    if spec is None or (rest and not any(p.is_dir() or p.with_suffix(".py").is_file() for p in places)):
        pytest.skip(reason or f"{module} is not installed")


@contextlib.contextmanager
def triton_interpreted() -> Iterator[None]:
    """TRITON_INTERPRET=1 and kernelopt's fixes to Triton's interpreter while a test loads kernels with
    :func:`load_fresh` and runs them in its own process. Triton's own jit'd library (``tl.sum``, ``tl.max``, ...)
    runs in the interpreter only when ``triton.language`` was first imported with the variable set (kernelopt never
    imports Triton in the calling process; its workers do): a process that imported it otherwise fails here."""
    with mock.patch.dict(os.environ, {"TRITON_INTERPRET": "1"}):
        from kernelopt.harness.interpreter import patch_interpreter

        patch_interpreter()
        import triton.language as tl
        from triton.runtime.interpreter import InterpretedFunction

        assert isinstance(tl.standard.sum, InterpretedFunction), (
            "triton.language was imported in this process without TRITON_INTERPRET=1: its library cannot run "
            "in the interpreter here"
        )
        yield


def check_in_process(folder: Path, label: str = "v0", device: str = "cpu") -> Any:
    """The harness worker's CHECK job of ``folder``'s kernel.py against its reference.py on ``device`` (the CPU), run
    in this process (``run_job``, no child): its :class:`~kernelopt.harness.model.WorkerResult`. Triton's and torch's
    build folders go under ``folder``."""
    import time

    from kernelopt.harness.model import JobMode, KernelSource, WorkerJob
    from kernelopt.harness.progress import ProgressWriter
    from kernelopt.harness.worker import run_job

    builds = {"TRITON_CACHE_DIR": str(folder / "triton"), "TORCH_EXTENSIONS_DIR": str(folder / "ext")}
    job = WorkerJob(
        mode=JobMode.CHECK,
        reference_py=str(folder / "reference.py"),
        kernels=[KernelSource(label=label, kernel_py=str(folder / "kernel.py"), build_dir=str(folder / "build"))],
        progress_path=str(folder / "progress.jsonl"),
        result_path=str(folder / "result.json"),
        device=device,
    )
    with mock.patch.dict(os.environ, builds):
        writer = ProgressWriter(folder / "progress.jsonl", time.monotonic)
        try:
            return run_job(job, writer)
        finally:
            writer.close()


def load_fresh(path: Path, name: str) -> ModuleType:
    """The module of ``path`` loaded afresh under ``name`` (not put in ``sys.modules``): a kernel's ``triton.jit``
    reads TRITON_INTERPRET when it runs, so a test loads a written kernel.py with TRITON_INTERPRET=1 set and runs
    it in Triton's interpreter in its own process, without a child that imports torch and triton again."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def copy_fixture(src: Path, dst_dir: Path) -> Path:
    dst = dst_dir / src.name
    shutil.copyfile(src, dst)
    return dst


def timed_or_withheld(speedup: float | None, reason: str | None) -> bool:
    """A passing batch row gives its speedup over the reference (and no reason, or the headline saying it is not
    reliable: its interval spans more than 2x, `kernelopt.report.headline`), or says why it is withheld: its
    interval was too wide (a reference at the timer's resolution on a loaded CPU), never a bare n/a."""
    if speedup is not None:
        return reason is None or ", not reliable: its 95 % interval " in reason
    return (reason or "").startswith("the speedup over the reference is withheld: its 95 % interval ")


def _ours_in_tmp() -> set[str]:
    return {p.name for p in TMP.iterdir() if p.name.startswith(OURS)}


def _compile_src() -> None:
    """Compile kernelopt's own modules once, before any test: a machine that sets ``PYTHONDONTWRITEBYTECODE``
    (CI's and this one do) otherwise compiles about 180 modules again in every ``python -m kernelopt`` child and
    worker, about 0.35 CPU-s each time. Only ``src/`` is compiled, and explicitly: the variable still keeps every
    process from writing bytecode of its own, so a kernel.py a test rewrites is never read from a stale cache."""
    compileall.compile_dir(SRC, quiet=2)


def _rewrite_test_modules(config: pytest.Config) -> None:
    """Write pytest's assertion-rewritten bytecode of the test modules once, in the controller, before the xdist
    workers start: under ``PYTHONDONTWRITEBYTECODE`` pytest writes none, so each worker rewrote the asserts of
    all 150 test files afresh, 7 of its 13.5 collection CPU-s, three times a run. pytest reads a cached rewrite
    even where it writes none, valid while the file's size and mtime match (as any .pyc; its name carries
    pytest's version). Through pytest's own private functions: where they moved, each worker rewrites as before.

    On a fresh clone (CI's every run) that is 3.6 CPU-s, and the workers start only after it (xdist starts them
    last): a forked child rewrites half of the files beside the controller, so both cores do it."""
    try:
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _read_pyc,
            _rewrite_test,
            _write_pyc,
            assertstate_key,
            get_cache_dir,
        )

        state = config.stash[assertstate_key]
        if state.mode != "rewrite":
            return
        todo = []
        for source in [*sorted(Path(__file__).parent.glob("test_*.py")), Path(__file__)]:
            source = source.resolve()
            pyc = get_cache_dir(source) / (source.name[:-3] + PYC_TAIL)
            if _read_pyc(source, pyc) is None:
                todo.append((source, pyc))
        if todo:
            todo[0][1].parent.mkdir(exist_ok=True)  # one __pycache__ folder for every test module

        def rewrite(part: list[tuple[Path, Path]]) -> None:
            for source, pyc in part:
                source_stat, code = _rewrite_test(source, config)
                _write_pyc(state, code, source_stat, pyc)  # a temporary file renamed: never read half written

        with _forked(todo[1::2] if len(todo) >= 16 else [], rewrite):
            rewrite(todo[::2] if len(todo) >= 16 else todo)
    except Exception:  # an optimization only: the workers rewrite what is not cached
        return


@contextlib.contextmanager
def _forked(part: list[tuple[Path, Path]], work: Callable[[list[tuple[Path, Path]]], None]) -> Iterator[None]:
    """``work(part)`` in a forked child while the block runs (where the platform forks and ``part`` is not empty);
    waits for the child after it. The child leaves by ``os._exit``: no exit handler, no buffer of the parent's
    flushed twice."""
    pid = os.fork() if part and hasattr(os, "fork") else -1
    if pid == 0:
        try:
            work(part)
        finally:
            os._exit(0)
    try:
        yield
    finally:
        if pid > 0:
            os.waitpid(pid, 0)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Everything a test makes with ``tempfile`` lands under pytest's own session folder (TMPDIR points
    there, for this process and every child), which pytest removes at the end (tmp_path_retention_policy)."""
    session.config.stash[_BEFORE] = _ours_in_tmp()
    base = session.config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    if not hasattr(session.config, "workerinput"):
        _hold_session_folder(base)
        _compile_src()
        _rewrite_test_modules(session.config)
    scratch = base / "tmpdir"
    scratch.mkdir(exist_ok=True)
    os.environ["TMPDIR"] = str(scratch)
    tempfile.tempdir = None  # re-read TMPDIR
    # torch._dynamo's import (reached in this process by a meta-device probe, as `init`'s) writes torch's inductor
    # cache folder into os.environ, the value below (torch/_inductor/runtime/cache_dir_utils.py, cache_dir): from
    # that test on, the runs' environment differed from the shared CPU fork server's, and the worker started a
    # second one (torch imported again, ~2 CPU-s; seen on a worker of 27 files at 2026-12-06, speed12). Set first,
    # the variable stays as it is for the whole session.
    user = re.sub(r'[\\/:*?"<>|]', "_", getpass.getuser())
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(scratch / f"torchinductor_{user}"))
    # a child `python -m kernelopt` imports this checkout's kernelopt (pyproject's pythonpath=src only sets
    # this process's sys.path; an installed kernelopt could point at another checkout)
    path = [SRC, *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != SRC)]
    os.environ["PYTHONPATH"] = os.pathsep.join(path)


def _hold_session_folder(base: Path) -> None:
    """Keep other pytest sessions of this user from removing ``base`` while this one runs.

    With ``tmp_path_retention_policy = "none"`` pytest locks no session folder, and every session removes, as
    it exits, every numbered ``pytest-of-<user>/pytest-N`` folder without a lock: a second session (one
    engineer's single test file beside another's full run) ending first took the running session's folder
    away, and each of its later tests failed at setup (FileNotFoundError). pytest skips a folder holding a
    fresh ``.lock`` (_pytest.pathlib.ensure_deletable); the lock goes at exit, before pytest's own cleanup
    (exit handlers run last registered first, and pytest registered its cleanup when it made ``base``), so
    that cleanup still removes this session's folder."""
    lock = base / ".lock"
    lock.write_text(str(os.getpid()))
    atexit.register(lambda: lock.unlink(missing_ok=True))


@pytest.hookimpl(trylast=True)  # after pytest's own, which makes the factory
def pytest_configure(config: pytest.Config) -> None:
    _interruptible()
    if not hasattr(config, "workerinput"):
        # registered before pytest's own removal of the session folder (at exit too, once the session made
        # it), so it runs after it: exit handlers run last registered first
        atexit.register(_remove_if_empty, config._tmp_path_factory)  # type: ignore[attr-defined]


def _interruptible() -> None:
    """SIGINT as in a terminal (Python's KeyboardInterrupt) in the controller and each worker, and so its default in
    every child they start: a run started in the background by a shell without job control (``pytest &``, nohup,
    a scheduler) inherits SIGINT ignored, which a process keeps through fork and exec, and the tests that interrupt
    a command or themselves (test_tune_faults, test_faults7_cases, test_cli_signals) failed: the signal was never
    seen (2026-12-05, six failures in two such runs that pass from a terminal)."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The session folder's contents go here, many at once, before pytest's own removal at exit (one file after
    another) finds the folder nearly empty: on a disk mounted with ``discard`` (this machine's), while other
    processes keep it busy, each unlink of a file holding data waits on the disk, 2-3 ms, and a default run leaves
    tens of thousands of files (workspaces, their git objects): pytest's lone rmtree took 170 s after the last
    test there (2026-12-05); 16 at once removed 4000 such files in 0.5 s where one took 10 s. Only where pytest
    would remove the folder anyway: the controller (or a run without xdist), retention "none", no ``--basetemp``."""
    if hasattr(config, "workerinput"):
        return
    factory = config._tmp_path_factory  # type: ignore[attr-defined]
    base = factory._basetemp
    if base is None or factory._given_basetemp is not None or factory._retention_policy != "none":
        return
    remove_in_parallel(base, keep=".lock")


def remove_in_parallel(folder: Path, keep: str, threads: int = 16) -> None:
    """Remove what ``folder`` holds except ``keep``, its sub-folders' entries ``threads`` at a time (a test's
    folder each, under xdist's ``popen-gwN``); errors are ignored, as pytest's own removal ignores them."""
    from concurrent.futures import ThreadPoolExecutor

    def remove(path: Path) -> None:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)

    with contextlib.suppress(OSError):
        top = [p for p in folder.iterdir() if p.name != keep]
        units = [q for p in top if p.is_dir() and not p.is_symlink() for q in p.iterdir()]
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(remove, units))
            list(pool.map(remove, top))


def _remove_if_empty(factory: pytest.TempPathFactory) -> None:
    """pytest's ``pytest-of-<user>`` folder, once its session folders are gone (tmp_path_retention_policy):
    the default run then leaves nothing in the temporary folder."""
    base = factory._basetemp
    if base is not None and base.parent.name.startswith("pytest-of-"):
        with contextlib.suppress(OSError):  # not empty: another session's, or kept on purpose
            base.parent.rmdir()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Nothing of kernelopt's is left in the real temporary folder (a workspace under /tmp, a lock, a
    crash log, a batch folder): the session fails when a test left one."""
    before = session.config.stash.get(_BEFORE, None)
    if before is None:
        return
    left = sorted(_ours_in_tmp() - before)
    if left:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        sys.stderr.write(f"\ntests left these in {TMP}: {', '.join(left)}\n")


_BEFORE = pytest.StashKey[set[str]]()


SINCE_RE = re.compile(r" since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC")
"""A run lock's holder's start in its refusal and its probe line (``... (pid 8949) since 2026-12-07 05:04:36 UTC``;
late27, z51)."""


def without_since(text: str) -> str:
    """``text`` with the holder's start taken out of each lock line, after checking one is there: the tests that read
    the line before it compare the rest."""
    assert SINCE_RE.search(text), text
    return SINCE_RE.sub("", text)


def fill_disk(folder: Path) -> None:
    """Write zeros into ``folder`` until the file system refuses."""
    with open(folder / "filler", "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError:
            pass


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MiB tmpfs mounted for the test (skipped where mounting is not allowed); fill it with
    :func:`fill_disk`."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True, text=True, timeout=30
    )
    if done.returncode != 0 or shutil.which("umount") is None:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, timeout=30)
