"""A new user's first hour on a fresh clone, third trial (2026-12-05): bad input to the commands this session
changed, one test per fix (docs/faults.md, "A new user's first hour, third trial")."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from kernelopt.cli.app import main
from kernelopt.workspace import Workspace


@pytest.mark.timeout(60)
def test_a_folder_of_the_workspace_s_name_here_does_not_hide_the_workspace_under_root(
    add_workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/examples.md's `kernelopt report softmax --root /tmp --html report.html`, run from examples/ (which
    holds the kernel's own folder `softmax`): "examples/softmax: not a kernelopt workspace (no git
    repository)", exit 2: the folder here hid the workspace the name means under --root."""
    here = tmp_path / "here"
    (here / "add").mkdir(parents=True)
    (here / "add" / "kernel.py").write_text("def run(x):\n    return x\n")
    monkeypatch.chdir(here)
    assert main(["report", "add", "--root", str(add_workspace.root.parent), "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["written"] == {}
    # a folder that is a workspace is still the one meant, and a name found nowhere says where it looked
    assert main(["report", str(add_workspace.root), "--json"]) == 0
    capsys.readouterr()
    assert main(["report", "nothing", "--root", str(add_workspace.root.parent)]) == 2
    err = capsys.readouterr().err
    assert "kernel_opt_nothing" in err and len(err.strip().splitlines()) == 1


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("verb", "code"), [("summary", 0), ("list", 0), ("latest", 2), ("read", 2)])
def test_memory_of_a_workspace_with_no_version_says_so_and_names_the_command_that_records_v0(
    add_workspace: Workspace, verb: str, code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """`kernelopt memory summary WS` (and `list`) before V0 printed an empty table, its header only, and
    `latest` said "no unmasked records": nothing said that no version was recorded yet, nor what records one."""
    assert main(["memory", verb, str(add_workspace.root)]) == code
    out, err = capsys.readouterr()
    said = (out + err).strip()
    assert len(said.splitlines()) == 1, said
    assert "no version recorded in memory/ yet" in said and "--max-iters 0" in said
    assert "┏" not in said  # no empty table


@pytest.mark.timeout(60)
def test_memory_summary_of_masked_versions_only_names_include_masked(
    add_workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every version masked: the empty table said nothing of why; now it names --include-masked."""
    add_workspace.memory.create("v0")
    add_workspace.memory.set_masked("v0", True)
    assert main(["memory", "summary", str(add_workspace.root)]) == 0
    out = capsys.readouterr().out.strip()
    assert "every recorded version is masked" in out and "--include-masked" in out
    assert main(["memory", "summary", str(add_workspace.root), "--include-masked"]) == 0
    assert "v0 (masked)" in capsys.readouterr().out


@pytest.mark.timeout(60)
@pytest.mark.parametrize("code", [errno.EROFS, errno.ENOSPC, errno.EACCES])
def test_a_report_file_the_disk_refuses_names_the_report_s_path_not_the_workspace(
    add_workspace: Workspace,
    tmp_path: Path,
    code: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`kernelopt report WS --markdown RO/r.md` on a read-only folder (a read-only bind mount in the trial):
    "... (errno 30); copy the workspace to a writable folder (or pass --root to create it elsewhere)": the
    workspace was never written and `report` has no --root. Through `kernelopt mcp`, `report(markdown=RO/r.md)`
    gave the SDK's bare "Error executing tool report". Now both name the report's own path and its fix."""
    import kernelopt.report as report_pkg
    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots

    target = tmp_path / "ro" / "r.html"

    def refused(path: Path, *_: Any, **__: Any) -> Any:
        raise OSError(code, "refused", str(path))

    monkeypatch.setattr(report_pkg, "atomic_write_text", refused)
    assert main(["report", str(add_workspace.root), "--html", str(target)]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(target) in err and f"errno {code}" in err
    assert "name a file in a folder this user can write" in err
    assert "--root" not in err and "workspace" not in err
    if code != errno.EROFS:
        return
    server = build_server(Roots([add_workspace.root.parent, tmp_path]), default_device="cpu")

    async def call() -> Any:
        return await server.call_tool("report", {"workspace": str(add_workspace.root), "html": str(target)})

    with pytest.raises(Exception) as caught:
        anyio.run(call)
    said = str(caught.value)
    assert str(target) in said and "name a file in a folder this user can write" in said, said


def _row(version: str, **fields: Any) -> Any:
    from kernelopt.loop.summary import VersionRow

    values: dict[str, Any] = {name: None for name in VersionRow.model_fields}
    values.update(version=version, masked=False, candidates_timed=0, candidates_evaluated=0, converged=False, **fields)
    return VersionRow.model_validate(values)


@pytest.mark.timeout(30)
def test_the_loop_summary_says_why_a_version_failed_where_it_changed_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's CPU demo: V2's row read "FAIL ... Tune the launch configuration of `kernel.py (CPU)` as one
    category...": the plan's sentence filled the 70 characters, and the reason (its tuning session kept
    nothing) never showed. A failed change keeps its few words; a version that changed nothing shows its
    category and the reason."""
    from kernelopt.cli.optimize import _render
    from kernelopt.loop.summary import LoopSummary

    monkeypatch.setenv("COLUMNS", "200")
    plan = "Tune the launch configuration of `kernel.py (CPU)` as one category: `BLOCK`, now BLOCK=4096. " * 3
    kept_nothing = "the tuning session of module constants (no launch) kept nothing: the best does not beat it"
    versions = [
        _row("v1", result="PASS", action_category="autotune", action="autotune: BLOCK 64 -> 4096"),
        _row("v2", result="FAIL", action_category="autotune", action=plan, failure_reason=kept_nothing),
        _row(
            "v3",
            result="FAIL",
            action_category="autotune",
            action="autotune: BLOCK 4096 -> 128",
            failure_reason="differs from the reference at n=256",
        ),
    ]
    values: dict[str, object] = {name: None for name in LoopSummary.model_fields}
    values.update(workspace="ws", versions=versions, iterations=3, failures=2, elapsed_s=1.0, stage_seconds={})
    _render(LoopSummary.model_construct(**values))  # type: ignore[arg-type]
    out = " ".join(capsys.readouterr().out.replace("│", " ").split())
    assert "autotune -> the tuning session of module constants (no launch) kept nothing" in out
    assert "Tune the launch configuration" not in out
    assert "autotune: BLOCK 4096 -> 128 -> differs from the reference at n=256" in out
    assert "autotune: BLOCK 64 -> 4096" in out


@pytest.mark.timeout(60)
def test_an_amd_profile_that_gets_no_evidence_leaves_no_folder_to_take_the_version_number(
    add_workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`kernelopt profile WS --vendor amd` on a machine without rocprofv3: one line, exit 3, but an empty
    profiles/v0/ stayed, so the next `kernelopt profile WS --device cpu` of the kernel as given wrote "v1"."""
    monkeypatch.setenv("PATH", str(tmp_path / "no-rocm"))  # no rocprofv3 to find
    monkeypatch.delenv("ROCM_PATH", raising=False)
    ws = add_workspace
    assert main(["profile", str(ws.root), "--vendor", "amd", "--pmc-only"]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "rocprofv3 not found" in err
    assert not ws.profile_dir(0).exists()
    assert ws.next_version() == 0
    # a folder the user made (or an earlier call) is not removed
    ws.profile_dir(0).mkdir(parents=True)
    assert main(["profile", str(ws.root), "--vendor", "amd", "--att-only"]) == 3
    assert ws.profile_dir(0).is_dir()


@pytest.mark.timeout(60)
def test_validate_of_a_version_label_the_loop_will_not_use_says_which_version_is_next(
    rows_baseline: Path, tmp_path: Path
) -> None:
    """`kernelopt validate WS --version 7` with V0 recorded: "...; the loop records V7", where the loop's next
    version is V1. The label given is said as a label, with the version the loop will record."""
    from kernelopt.cli.validate import not_recorded

    from .conftest import with_baseline

    ws = Workspace(with_baseline(rows_baseline, tmp_path))
    said = not_recorded(ws, 7, "aside.json")
    assert "gated under the label v7, but the loop's next version is V1" in said
    assert "the loop records V7" not in said
    assert "the loop records V1 (" in not_recorded(ws, 1, "aside.json")
    assert "memory/v0.json is the loop's record of V0, unchanged" in not_recorded(ws, 0, "aside.json")


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("value", "hint"),
    [("big", "give a number, as get_inputs's default is ('n': 4096)"), ("4096", "write 'n': 4096 without quotes")],
)
def test_a_shapes_string_where_get_inputs_takes_a_number_gets_a_fix_that_is_python(
    tmp_path: Path, value: str, hint: str
) -> None:
    """`SHAPES = [{"n": "big"}]`: "...; write n: big without quotes", a fix that is neither Python nor a number."""
    from kernelopt.errors import InputFileError
    from kernelopt.tuning.shapes import check_entries

    reference = tmp_path / "reference.py"
    reference.write_text("def get_inputs(n=4096):\n    return [n]\n")
    with pytest.raises(InputFileError) as caught:
        check_entries(reference, [{"n": value}])
    said = caught.value.one_line()
    assert said.endswith(hint) and f"n is the string '{value}'" in said, said


@pytest.mark.timeout(120)
def test_tune_of_a_shapes_code_that_fails_does_not_claim_to_time_the_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`SHAPES = [dict(n=n) for n in undefined_name]`: `tune` printed "timed on get_inputs()'s defaults" (the
    parent's probe could not import reference.py), then failed on the NameError: no run timed the defaults."""
    import shutil

    folder = tmp_path / "loop"
    shutil.copytree(Path(__file__).parent / "data" / "loop", folder)
    reference = folder / "reference.py"
    text = reference.read_text()
    reference.write_text(text.replace('SHAPES = [{"n": 4096}, {"n": 1000}]', "SHAPES = [dict(n=n) for n in nowhere]"))
    assert reference.read_text() != text
    assert main(["tune", str(folder), "--device", "cpu", "--budget", "1", "--dry-run"]) == 2
    out, err = capsys.readouterr()
    said = out + err
    assert "get_inputs()'s defaults" not in said
    assert "timed on the entries reference.py's SHAPES code builds (not read here" in said
    assert "NameError: name 'nowhere' is not defined" in err


@pytest.mark.timeout(30)
def test_mcp_given_a_file_as_a_root_says_it_is_a_file(tmp_path: Path) -> None:
    """`kernelopt mcp --root README.md`: "--root README.md: no such folder", of a file that exists."""
    from kernelopt.agents.roots import Roots
    from kernelopt.errors import UsageError

    readme = tmp_path / "README.md"
    readme.write_text("# x\n")
    with pytest.raises(UsageError, match="is a file, not a folder"):
        Roots([readme])
    with pytest.raises(UsageError, match="no such folder"):
        Roots([tmp_path / "nothing"])


@pytest.mark.timeout(30)
def test_profile_with_an_empty_vendor_is_an_unknown_vendor_not_the_default(
    add_workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    """`kernelopt profile WS --vendor ''` (an unset shell variable, `--vendor "$VENDOR"`) was taken as no vendor:
    it went on to the task card's default (here: "no NVIDIA GPU found")."""
    assert main(["profile", str(add_workspace.root), "--vendor", ""]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("unknown profiler vendor ''; use amd (rocprofv3) or nvidia (Nsight Compute)"), err
    assert not add_workspace.profile_dir(0).exists()
