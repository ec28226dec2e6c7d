"""The memory CLI end to end (the spec's memory_manager)."""

from __future__ import annotations

import json

import pytest

from kernelopt.cli.app import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_round_trip(add_workspace, capsys: pytest.CaptureFixture[str]) -> None:
    ws = str(add_workspace.root)
    assert run(capsys, "memory", "create", "--workspace", ws, "--version", "v0")[0] == 0
    code, _, err = run(
        capsys,
        "memory",
        "update",
        "--workspace",
        ws,
        "--version",
        "v0",
        "--set",
        "git_commit_hash=0012345",
        "--set",
        "performance.latency_us=12.5",
        "--set",
        "performance.tflops=null",
        "--set",
        'references=["a", "b"]',
    )
    assert code == 0, err
    code, out, _ = run(capsys, "memory", "read", "--workspace", ws, "--version", "v0", "--field", "git_commit_hash")
    assert json.loads(out) == "0012345"
    code, out, _ = run(capsys, "memory", "read", "--workspace", ws, "--field", "references")
    assert json.loads(out) == ["a", "b"]

    run(capsys, "memory", "create", "--workspace", ws, "--version", "v1")
    run(capsys, "memory", "update", "--workspace", ws, "--version", "v1", "--set", "quality_gate.result=FAIL")
    code, out, _ = run(capsys, "memory", "latest", "--workspace", ws, "--json")
    assert json.loads(out) == {"version": "v1"}
    assert run(capsys, "memory", "mask", "--workspace", ws, "v1")[0] == 0
    code, out, _ = run(capsys, "memory", "latest", "--workspace", ws)
    assert out.strip() == "v0"
    code, out, err = run(capsys, "memory", "read", "--workspace", ws, "--version", "v1")
    assert code == 2 and "masked" in err
    code, out, _ = run(capsys, "memory", "summary", "--workspace", ws, "--json")
    rows = json.loads(out)
    assert [r["version"] for r in rows] == ["v0"]
    assert rows[0]["latency_us"] == 12.5 and rows[0]["tflops"] is None
    code, out, _ = run(capsys, "memory", "summary", "--workspace", ws, "--include-masked", "--json")
    assert [r["version"] for r in json.loads(out)] == ["v0", "v1"]
    code, out, _ = run(capsys, "memory", "summary", "--workspace", ws)
    # the table fits 100 columns when piped: headers may wrap ("latency" / "(us)")
    assert "latency" in out and "(us)" in out and "12.5" in out
    assert run(capsys, "memory", "unmask", "--workspace", ws, "v1")[0] == 0
    code, out, _ = run(capsys, "memory", "list", "--workspace", ws, "--json")
    assert [r["version"] for r in json.loads(out)] == ["v0", "v1"]


def test_errors_are_one_line(add_workspace, capsys: pytest.CaptureFixture[str]) -> None:
    ws = str(add_workspace.root)
    code, _, err = run(capsys, "memory", "read", "--workspace", ws, "--version", "v9")
    assert code == 2 and err.count("\n") == 1 and "no record v9.json" in err
    run(capsys, "memory", "create", "--workspace", ws, "--version", "v0")
    code, _, err = run(capsys, "memory", "update", "--workspace", ws, "--version", "v0", "--set", "bogus.x=1")
    assert code == 2 and "no field 'bogus'" in err and err.count("\n") == 1
    (add_workspace.memory_dir / "v0.json").write_text("{")
    code, _, err = run(capsys, "memory", "read", "--workspace", ws, "--version", "v0")
    assert code == 2 and "corrupt JSON" in err
    code, _, err = run(capsys, "memory", "mask", "--workspace", ws, "v0", "v7")
    assert code == 2
    code, _, err = run(capsys, "memory", "list", "--workspace", "/nonexistent/ws")
    assert code == 2 and "no memory/ folder" in err


def test_schema_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", "memory")
    assert code == 0 and json.loads(out)["title"] == "IterationRecord"


def test_the_workspace_may_be_given_first_as_for_report(add_workspace, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23: `report WS` is positional, `memory --workspace WS` was not; both spellings work."""
    ws = str(add_workspace.root)
    assert run(capsys, "memory", "create", ws, "--version", "v0")[0] == 0
    code, out, _ = run(capsys, "memory", "latest", ws, "--json")
    assert code == 0 and json.loads(out) == {"version": "v0"}
    assert run(capsys, "memory", "mask", ws, "v0")[0] == 0
    assert run(capsys, "memory", "unmask", "--workspace", ws, "v0")[0] == 0
    code, out, _ = run(capsys, "memory", "list", ws, "--json")
    assert code == 0 and json.loads(out)[0]["masked"] is False
    code, _, err = run(capsys, "memory", "list")
    assert code == 2 and err == "kernelopt: error: no workspace given; kernelopt memory <verb> WS (or --workspace WS)\n"
