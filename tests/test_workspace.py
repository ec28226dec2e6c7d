"""Workspace creation, refusal cases, version numbering and git operations."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.errors import GitError, InputFileError, WorkspaceError
from kernelopt.workspace import Workspace

from .conftest import KERNELS


def test_layout_and_first_commit(add_workspace: Workspace) -> None:
    ws = add_workspace
    assert ws.root.name == "kernel_opt_add"
    for name in ("kernel.py", "reference.py", "README.md", "test_kernel.py", ".gitignore"):
        assert (ws.root / name).is_file(), name
    for sub in ("memory", "plans", "profiles"):
        assert (ws.root / sub).is_dir()
    assert ws.is_clean()
    assert ws.log()[0][1].startswith("init:")
    card = ws.task_card()
    assert card.name == "add" and card.framework == "torch" and card.kernel_form == "function"
    assert card.stop_conditions.roofline_utilization_pct == 90.0
    # profile summaries are committed, large profiler output is ignored
    ignored = ws.repo.git.check_ignore(
        "profiles/v1/ncu.ncu-rep",
        "profiles/v1/ncu.log",
        "profiles/v1/att/x.csv",
        "profiles/v1/k.sass",
        with_exceptions=False,
    ).split()
    assert ignored == ["profiles/v1/ncu.ncu-rep", "profiles/v1/ncu.log", "profiles/v1/att/x.csv", "profiles/v1/k.sass"]
    assert ws.repo.git.check_ignore("profiles/v1/summary.json", "profiles/v1/summary.txt", with_exceptions=False) == ""
    assert ws.repo.config_reader("repository").get_value("user", "name") == "kernelopt"


def test_refuses_overwrite_without_force(add_workspace: Workspace, ws_root: Path) -> None:
    marker = add_workspace.root / "keep.txt"
    marker.write_text("user data")
    with pytest.raises(WorkspaceError, match="already exists"):
        Workspace.create("add", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=ws_root)
    assert marker.read_text() == "user data"
    ws = Workspace.create(
        "add", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=ws_root, force=True
    )
    assert not (ws.root / "keep.txt").exists()


@pytest.mark.parametrize("bad", ["../evil", "a/b", "", ".hidden", "x" * 65, "a..b", "sp ace"])
def test_rejects_path_tricks(ws_root: Path, bad: str) -> None:
    with pytest.raises(WorkspaceError, match="invalid workspace name"):
        Workspace.create(bad, kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=ws_root)
    assert list(ws_root.iterdir()) == []


def test_kernel_contract_checks(ws_root: Path, tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no get_inputs"):
        Workspace.create(
            "x", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "no_inputs_reference.py", root=ws_root
        )
    with pytest.raises(InputFileError, match="no such file"):
        Workspace.create("x", kernel=tmp_path / "missing.py", reference=KERNELS / "add_reference.py", root=ws_root)
    with pytest.raises(InputFileError, match="no class ModelNew"):
        Workspace.create("x", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "kb_reference.py", root=ws_root)
    broken = tmp_path / "broken.py"
    broken.write_text("def run(:\n")
    with pytest.raises(InputFileError, match="syntax error at line 1"):
        Workspace.create("x", kernel=broken, reference=KERNELS / "add_reference.py", root=ws_root)
    assert list(ws_root.iterdir()) == [], "nothing half-made is left behind"
    ws = Workspace.create("kb", kernel=KERNELS / "kb_kernel.py", reference=KERNELS / "kb_reference.py", root=ws_root)
    assert ws.kernel_form().value == "kernelbench"


@pytest.mark.timeout(30)
@pytest.mark.parametrize("line", ["from settings import pick\n", "import settings\n", "from .settings import pick\n"])
def test_a_kernel_importing_a_module_of_its_own_folder_is_refused_in_one_line(
    line: str, ws_root: Path, tmp_path: Path
) -> None:
    """A kernel folder may hold a helper module beside kernel.py; a
    workspace holds only kernel.py and reference.py, where the import failed at V0 as the kernel's FAIL ("loading:
    kernel.py raised ModuleNotFoundError"). Now the workspace is not made, and one line says why (issue 32)."""
    folder = tmp_path / "task"
    folder.mkdir()
    (folder / "kernel.py").write_text(line + (KERNELS / "add_kernel.py").read_text())
    (folder / "settings.py").write_text("def pick(n):\n    return 128\n")
    with pytest.raises(InputFileError, match="settings from its own folder; a workspace holds only kernel.py") as err:
        Workspace.create("x", kernel=folder / "kernel.py", reference=KERNELS / "add_reference.py", root=ws_root)
    assert "\n" not in err.value.one_line() and list(ws_root.iterdir()) == []
    # an installed module of the same name is not the folder's: nothing said
    (folder / "kernel.py").write_text("import math\n" + (KERNELS / "add_kernel.py").read_text())
    Workspace.create("y", kernel=folder / "kernel.py", reference=KERNELS / "add_reference.py", root=ws_root)


def test_versions_and_git_operations(add_workspace: Workspace) -> None:
    ws = add_workspace
    assert ws.next_version() == 0 and ws.latest_unmasked() is None
    ws.memory.create(0)
    ws.plan_path(1).write_text("plan")
    assert ws.next_version() == 2, "a plan alone reserves its version number"
    ws.memory.create(1)
    ws.memory.set_masked(1, True)
    assert ws.latest_unmasked() == 0

    ws.kernel_py.write_text(ws.kernel_py.read_text() + "\n# edit\n")
    assert not ws.is_clean()
    h1 = ws.commit([ws.kernel_py, ws.memory.path(0)], "V0: baseline\n\nbody with 'quotes' and \"more\"")
    assert ws.is_clean() and ws.repo.head.commit.message.startswith("V0: baseline")
    ws.memory.update(0, [f"git_commit_hash={h1}"])
    h2 = ws.amend([ws.memory.path(0)])
    assert h2 != h1 and ws.repo.head.commit.message.startswith("V0: baseline")
    assert json.loads(ws.file_at("HEAD", "memory/v0.json"))["git_commit_hash"] == h1

    ws.kernel_py.write_text("broken")
    ws.reset_hard(["kernel.py"])
    assert "# edit" in ws.kernel_py.read_text()
    ws.kernel_py.write_text("broken again")
    ws.reset_hard()
    assert ws.is_clean()


def test_head_is_the_hash_git_gives(add_workspace: Workspace) -> None:
    """head() reads .git without starting git; on a branch, with packed refs, detached, and where git
    itself must answer (no commit on the branch), it says what `git rev-parse HEAD` says."""
    ws = add_workspace

    def git_head() -> str:
        return ws.repo.git.rev_parse("HEAD").strip()

    first = ws.head()
    assert first == git_head() and len(first) == 40
    second = ws.commit([], "an empty commit")
    assert second != first and ws.head() == git_head() == second
    ws.repo.git.pack_refs("--all")
    assert ws.head() == git_head() == second
    ws.repo.git.checkout("--detach", first)
    assert ws.head() == git_head() == first
    ws.repo.git.checkout("--orphan", "empty")
    with pytest.raises(GitError, match="rev-parse HEAD"):
        ws.head()


def test_init_cli(ws_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "init",
        "cli",
        "--kernel",
        str(KERNELS / "add_kernel.py"),
        "--reference",
        str(KERNELS / "add_reference.py"),
        "--root",
        str(ws_root),
        "--json",
    ]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["workspace"].endswith("kernel_opt_cli") and out["kernel_form"] == "function"
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--force" in err and err.count("\n") == 1
    assert main([*args[:-1], "--force"]) == 0


def test_force_never_deletes_a_folder_that_is_not_a_workspace(ws_root: Path, tmp_path: Path) -> None:
    precious = ws_root / "kernel_opt_precious"
    precious.mkdir()
    (precious / "thesis.txt").write_text("years of work")
    with pytest.raises(WorkspaceError, match="not a kernelopt workspace"):
        Workspace.create(
            "precious",
            kernel=KERNELS / "add_kernel.py",
            reference=KERNELS / "add_reference.py",
            root=ws_root,
            force=True,
        )
    assert (precious / "thesis.txt").read_text() == "years of work"
    a_file = tmp_path / "plain.txt"
    a_file.write_text("x")
    with pytest.raises(WorkspaceError, match="is not a folder"):
        Workspace.create("x", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=a_file)
    with pytest.raises(InputFileError, match="no such file"):
        Workspace.create(
            "x",
            kernel=KERNELS / "add_kernel.py",
            reference=KERNELS / "add_reference.py",
            root=ws_root,
            task_card=tmp_path / "nope.md",
        )


def test_kernelopt_s_git_reads_no_user_or_system_config(ws_root: Path, tmp_path: Path, monkeypatch) -> None:
    """review19 r5: an agent runs as the user and may write ~/.gitconfig, outside the workspace the guard watches; a
    ``core.fsmonitor`` command set there ran at kernelopt's ``git add`` with kernelopt's whole environment (the API key
    among it), and an ``init.templateDir`` put its hooks into every new workspace. kernelopt's git reads the
    workspace's own config alone."""
    home, ran = tmp_path / "home", tmp_path / "ran"
    (home / "hooks").mkdir(parents=True)
    (home / "hooks" / "post-commit").write_text(f"#!/bin/sh\necho hook >> {ran}\n")
    (home / "hooks" / "post-commit").chmod(0o755)
    (home / ".gitconfig").write_text(
        f'[core]\n\tfsmonitor = "echo fsmonitor >> {ran}; true"\n[init]\n\ttemplateDir = {home}\n'
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))  # the tests' own points at a quiet one
    ws = Workspace.create("add", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=ws_root)
    (ws.root / "kernel.py").write_text(ws.kernel_py.read_text() + "\n# edited\n")
    ws.commit(["kernel.py"], "an edit")
    assert not ran.exists(), ran.read_text()
    assert not (ws.root / ".git" / "hooks" / "post-commit").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="gives the workspace to another uid (chown needs root)")
def test_a_workspace_of_another_uid_is_kept_safe_by_the_user_s_own_safe_directory(
    ws_root: Path, tmp_path: Path, monkeypatch
) -> None:
    """late19 z1: r5 took the user's ~/.gitconfig from kernelopt's git whole, its ``safe.directory`` with it: a workspace
    on a volume of another uid (a container's bind mount, a colleague's folder), which git refuses as of 'dubious
    ownership' until the user lists it as git's message says, failed every git command of kernelopt after the user
    had. The user's (and the system's) ``safe.directory`` entries are kept, and nothing else of their config."""
    ws = Workspace.create("add", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=ws_root)
    home, ran = tmp_path / "home", tmp_path / "ran"
    home.mkdir()
    (home / ".gitconfig").write_text(
        f'[safe]\n\tdirectory = {ws.root}\n[core]\n\tfsmonitor = "echo x >> {ran}; true"\n'
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    for folder, _, files in os.walk(ws.root):
        for name in [".", *files]:
            os.chown(os.path.join(folder, name), 4321, 4321)
    ws = Workspace(ws.root)
    (ws.root / "kernel.py").write_text(ws.kernel_py.read_text() + "\n# edited\n")
    ws.commit(["kernel.py"], "an edit")
    assert ws.repo.head.commit.message.strip() == "an edit"
    assert not ran.exists()
