"""Shared fixtures. GPU tests (``@pytest.mark.gpu``) run only with KERNELOPT_GPU_TESTS=1."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.env import EnvSettings

DATA = Path(__file__).parent / "data"
KERNELS = DATA / "kernels"
SHARED_FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures-public"


# The test files that take longest (most of it module fixtures and CPU loops), longest first. The run is
# spread over two workers one file at a time (--dist loadfile): starting the long files first keeps both
# workers busy to the end instead of leaving one running the last long file alone.
SLOW_FILES = (
    "test_harness_gate.py",
    "test_tunables.py",
    "test_report_sweep_compare.py",
    "test_batch.py",
    "test_batch_pool.py",
    "test_batch_kernelbench.py",
    "test_loop_agents.py",
    "test_search.py",
    "test_batch_ray.py",
    "test_harness_correctness.py",
    "test_tuning_evaluator.py",
    "test_tuning_memory.py",
    "test_loop_integration.py",
    "test_problem_sizes.py",
    "test_reference_speedup.py",
    "test_tuning_compile_pool.py",
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


@pytest.fixture(autouse=True)
def _isolated_git_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never read or write the user's global git configuration."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    # pytest-xdist workers run with COLUMNS=80 LINES=24; output is rendered as for a pipe (100 columns)
    # whichever way the tests run, and a test that wants a width sets COLUMNS itself
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


def copy_fixture(src: Path, dst_dir: Path) -> Path:
    dst = dst_dir / src.name
    shutil.copyfile(src, dst)
    return dst
