"""Shared fixtures. GPU tests (``@pytest.mark.gpu``) run only with KERNELOPT_GPU_TESTS=1."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.env import EnvSettings

DATA = Path(__file__).parent / "data"
KERNELS = DATA / "kernels"
SHARED_FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures-public"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
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
