"""Where a report or an output file may be written (docs/faults.md, "Agents and CLI leftovers": the CLI's
``report --markdown WS/kernel.py`` replaced the kernel). One rule, :mod:`kernelopt.destination`, for the CLI and
the MCP server: a path named for output lies outside every workspace, is a file of the kind written, and replaces
only a file kernelopt wrote of that kind. Each refusal is one line, exit 2, and writes nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest

from kernelopt.cli.app import main
from kernelopt.workspace import Workspace

pytestmark = pytest.mark.timeout(120)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _refused(capsys: pytest.CaptureFixture[str], tree: Path, *argv: str) -> str:
    """The one-line error of a CLI call that must be refused with exit 2 and leave ``tree`` as it was."""
    before = _files(tree)
    code, out, err = _run(capsys, *argv)
    assert code == 2, (argv, code, out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert _files(tree) == before, argv
    return lines[0]


@pytest.fixture
def outside(add_workspace: Workspace) -> Path:
    """A user's folder beside the workspace, with their own README.md and page."""
    folder = add_workspace.root.parent / "mine"
    folder.mkdir()
    (folder / "README.md").write_text("# my project\n\nnotes I keep\n")
    (folder / "page.html").write_text("<!DOCTYPE html>\n<html><head><title>mine</title></head></html>\n")
    (folder / "kernel.py").write_text("def run(x):\n    return x\n")
    return folder


@pytest.mark.parametrize(
    ("flag", "name", "said"),
    [
        ("--markdown", "kernel.py", "name a .md or .markdown file (a report replaces no other kind of file)"),
        ("--html", "reference.py", "name a .html or .htm file"),
        ("--markdown", "memory/v0.json", "name a .md or .markdown file"),
        ("--markdown", ".git/HEAD", "name a .md or .markdown file"),
        ("--markdown", "README.md", "whose files only its stages write; name a path outside it"),
        ("--markdown", "notes.md", "whose files only its stages write"),  # a new file in it, too
        ("--html", "plans/report.html", "whose files only its stages write"),
        ("--markdown", ".git/report.md", "whose files only its stages write"),
    ],
)
def test_report_never_writes_into_a_workspace(
    add_workspace: Workspace, capsys: pytest.CaptureFixture[str], flag: str, name: str, said: str
) -> None:
    ws = add_workspace
    ws.memory.create("v0")
    target = ws.root / name
    line = _refused(capsys, ws.root.parent, "report", str(ws.root), flag, str(target))
    assert line.startswith(f"kernelopt: error: {flag} {target}: ") and said in line, line


def test_report_replaces_only_an_earlier_report(
    add_workspace: Workspace, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A user's own README.md, page or kernel beside the workspace is not a report: refused; a new path is
    written, and a second run replaces the report it wrote (and its plot)."""
    ws = add_workspace
    for flag, name in (("--markdown", "README.md"), ("--html", "page.html")):
        line = _refused(capsys, ws.root.parent, "report", str(ws.root), flag, str(outside / name))
        assert f"{outside / name} exists and is not a kernelopt report; name a new file" in line, line
    line = _refused(capsys, ws.root.parent, "report", str(ws.root), "--markdown", str(outside / "kernel.py"))
    assert "name a .md or .markdown file" in line, line
    line = _refused(capsys, ws.root.parent, "report", str(ws.root), "--html", str(outside))
    assert "is a folder; give a file name" in line, line
    md, page = outside / "out" / "add.md", outside / "add.html"
    for _ in range(2):  # the second run replaces the first's files
        code, _out, err = _run(capsys, "report", str(ws.root), "--markdown", str(md), "--html", str(page))
        assert code == 0, err
    assert md.read_text().startswith("# kernelopt report: add") and "<title>kernelopt report: add" in page.read_text()


def test_a_report_plot_replaces_only_a_png(
    add_workspace: Workspace, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The roofline plot goes beside the Markdown report as ``<stem>.roofline.png``: a file of that name that is
    not a PNG is refused before anything is written."""
    ws = add_workspace
    ws.memory.create("v0")
    ws.memory.update("v0", ["performance.latency_us=12.5", "quality_gate.result=PASS"])
    (outside / "add.roofline.png").write_text("not an image\n")
    line = _refused(capsys, ws.root.parent, "report", str(ws.root), "--markdown", str(outside / "add.md"))
    assert "add.roofline.png exists and is not a PNG" in line, line


def _call(server: Any, tool: str, **arguments: Any) -> Any:
    async def go() -> Any:
        return await server.call_tool(tool, arguments)

    return anyio.run(go)


def test_the_mcp_report_follows_the_same_rule(add_workspace: Workspace, outside: Path) -> None:
    """The MCP server's ``report(markdown=, html=)`` uses the CLI's rule (under its roots): a user's README.md is
    not replaced, an earlier report is."""
    from mcp.server.mcpserver.exceptions import ToolError

    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots

    ws = add_workspace
    server = build_server(Roots([ws.root.parent]), default_device="cpu")
    before = _files(ws.root.parent)
    for key, name in (("markdown", "README.md"), ("html", "page.html"), ("markdown", str(ws.root / "kernel.py"))):
        with pytest.raises(ToolError) as caught:
            _call(server, "report", workspace=str(ws.root), **{key: str(outside / name)})
        said = str(caught.value)
        assert "\n" not in said and f"{key} {outside / name}: " in said, said
        assert ("not a kernelopt report" in said) is name.endswith(("README.md", "page.html")), said
    assert _files(ws.root.parent) == before
    (outside / "add.md").write_text("# kernelopt report: add\n\nan earlier report\n")
    result = _call(server, "report", workspace=str(ws.root), markdown="mine/add.md")
    assert Path(result.structured_content["written"]["markdown"]) == outside / "add.md"
    assert "an earlier report" not in (outside / "add.md").read_text()


# == every other file or folder a user names for output =============================================


def test_prompt_out_writes_only_a_prompt_outside_a_workspace(
    add_workspace: Workspace, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`prompt WS --out WS/kernel.py` replaced the kernel with the prompt; a user's README.md likewise."""
    from kernelopt.backends.prompts import PROMPT_FILE, template

    ws = add_workspace
    for out, said in (
        (ws.root / "kernel.py", "name a .md or .txt file (a prompt replaces no other kind of file)"),
        (ws.root / "plans" / "v1_plan.md", "whose files only its stages write"),
        (outside / "README.md", "exists and is not a kernelopt prompt; name a new file"),
        (outside / "kernel.py", "name a .md or .txt file"),
    ):
        argv = ("prompt", str(ws.root), "--stage", "plan", "--out", str(out))
        line = _refused(capsys, ws.root.parent, *argv)
        assert line.startswith(f"kernelopt: error: --out {out}: ") and said in line, line
    for name in ("plan.md", "implement.md"):  # an earlier prompt is known by its opening, and replaced
        assert PROMPT_FILE.is_ours(template(name)), name


def test_test_kernel_json_writes_only_a_result_outside_the_workspace(
    add_workspace: Workspace, outside: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python test_kernel.py --json memory/v0.json` (run in the workspace, as its docstring shows) replaced a
    record; refused before anything runs, as `--json kernel.py` and a user's own JSON file are."""
    import json

    from kernelopt.cli.test_kernel import RESULT_FILE, main

    ws = add_workspace
    ws.memory.create("v0")
    (outside / "data.json").write_text('{"mine": 1}\n')
    monkeypatch.chdir(ws.root)
    before = _files(ws.root.parent)
    for out, said in (
        ("memory/v0.json", f"inside the workspace {ws.root}, whose files only its stages write"),
        ("kernel.py", "name a .json file (a result replaces no other kind of file)"),
        ("result.json", "name a path outside it (or in its .kernelopt/)"),
        (str(outside / "data.json"), "exists and is not a kernelopt result"),
    ):
        assert main(ws.root, ["--json", out]) == 2, out
        err = capsys.readouterr().err
        assert err.startswith(f"test_kernel: error: --json {out}: ") and said in err and err.count("\n") == 1, err
    assert _files(ws.root.parent) == before
    written = json.dumps({"status": "PASS", "message": "ok", "correctness": {}}, indent=2)  # as main writes it
    assert RESULT_FILE.is_ours(written) and not RESULT_FILE.is_ours('{"mine": 1}')


def test_output_folders_never_lie_in_a_workspace(
    add_workspace: Workspace, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`batch --out`, `tune --out`, `init --root` and `optimize --root` named a workspace (or its .git): batch's
    table and workspaces, tune's session, a new workspace would be written into it. Each is refused before
    anything runs; tune's --out may lie in the workspace's .kernelopt/, where its default does."""
    from kernelopt.destination import output_folder

    from .conftest import DATA, KERNELS

    ws = add_workspace
    tree = ws.root.parent
    kb = DATA / "kernelbench"
    task = tree / "task"  # a user's kernel and reference, as tune and optimize take them
    task.mkdir()
    shutil.copy(KERNELS / "add_kernel.py", task / "kernel.py")
    shutil.copy(KERNELS / "add_reference.py", task / "reference.py")
    for argv, said in (
        (("batch", str(kb), "--out", str(ws.root), "--device", "cpu"), f"--out {ws.root}: inside the workspace"),
        (("batch", str(kb), "--out", str(ws.root / ".git"), "--device", "cpu"), "whose files only its stages write"),
        (("batch", str(kb), "--out", str(ws.root / "kernel.py"), "--device", "cpu"), "is a file, not a folder"),
        (("tune", str(task), "--out", str(ws.root), "--device", "cpu"), "(or in its .kernelopt/)"),
        (("tune", str(ws.root), "--out", str(ws.root / "kernel.py"), "--device", "cpu"), "is a file, not a folder"),
        (
            (
                "init",
                "inner",
                "--kernel",
                str(KERNELS / "add_kernel.py"),
                "--reference",
                str(KERNELS / "add_reference.py"),
                "--root",
                str(ws.root / "plans"),
            ),
            f"--root {ws.root / 'plans'}: inside the workspace {ws.root}",
        ),
        (
            ("optimize", str(task), "--root", str(ws.root), "--device", "cpu"),
            f"--root {ws.root}: inside the workspace",
        ),
    ):
        line = _refused(capsys, tree, *argv)
        assert said in line, (argv, line)
    assert output_folder(ws.state_dir / "tune", "--out", state_ok=True) == ws.state_dir / "tune"
    with pytest.raises(Exception, match="whose files only its stages write"):
        output_folder(ws.state_dir / "tune", "--out")
