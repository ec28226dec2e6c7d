"""What users and agents read (late34, 2026-12-07): ``--json`` answers with one JSON object when refused or
interrupted (z110). CPU, in process. tune's kept-configuration line (z111) is tests/test_tuning_folder.py's verdict
test and tests/test_breaker6_cases.py's; a resumed batch's line (z112) is tests/test_batch.py's resume test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


def _said(capsys: pytest.CaptureFixture[str]) -> tuple[Any, str]:
    """stdout as JSON (it must parse as one object) and stderr's one line."""
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1, out.err
    return json.loads(out.out), lines[0]


def test_z110_a_json_command_refused_or_interrupted_prints_one_json_error_with_its_exit_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kernelopt.cli.app import main

    missing = tmp_path / "no_such_ws"
    assert main(["status", str(missing), "--json"]) == 2  # bad input: the workspace is not there
    doc, line = _said(capsys)
    assert doc == {"error": {"code": 2, "message": f"{missing}: no such workspace folder"}}
    assert line == f"kernelopt: error: {doc['error']['message']}"

    assert main(["status", "--json", "--bogus"]) == 2  # a usage error click raises before the command runs
    doc, line = _said(capsys)
    assert doc["error"]["code"] == 2 and doc["error"]["message"].startswith("No such option: --bogus"), doc
    assert line.endswith(doc["error"]["message"])

    assert main(["status", str(missing)]) == 2  # without --json stdout stays empty, as before
    assert capsys.readouterr().out == ""

    def ctrl_c(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("kernelopt.cli.status._workspace_of", ctrl_c)
    assert main(["status", str(missing), "--json"]) == 130  # interrupted inside the command: the CLI's own line
    assert _said(capsys) == ({"error": {"code": 130, "message": "interrupted"}}, "kernelopt: interrupted")

    monkeypatch.setattr("kernelopt.batch.runner.run_batch", ctrl_c)  # a command that says its own interrupt
    code = main(["batch", str(tmp_path), "--out", str(tmp_path / "out"), "--device", "cpu", "--json"])
    doc, line = _said(capsys)
    assert code == 130 and doc["error"]["code"] == 130, doc
    assert doc["error"]["message"] == (
        "interrupted; no problem had finished, so no table was written: the same command resumes the batch"
    )
    assert line == f"kernelopt: {doc['error']['message']}"


def test_z110_a_json_command_that_printed_its_result_and_failed_prints_no_second_object(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from kernelopt.cli.app import main

    code = main(["doctor", "--no-probe", "--json"])  # exit 3 where a check fails (no GPU here), 0 on a GPU machine
    out = capsys.readouterr().out
    checks = json.loads(out)  # one document: the checks, no error object after it
    assert isinstance(checks, list) and code in (0, 3), out
    assert code == 0 or any(c["status"] == "fail" for c in checks)


def test_z110_a_cold_batch_reads_optimize_s_error_object_as_no_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cold ``batch --optimize`` reads a problem's row from its workspace when ``optimize --json`` printed a
    summary; the error object of a refused ``optimize`` is none (else a workspace's older records were its row)."""
    from kernelopt.batch.cold import summary_printed
    from kernelopt.cli.app import main

    assert main(["optimize", str(tmp_path / "none"), "--device", "cpu", "--json"]) == 2
    refused = capsys.readouterr().out
    assert json.loads(refused)["error"]["code"] == 2 and not summary_printed(refused)
    assert not summary_printed("") and summary_printed('{"workspace": "/w", "versions": []}')
    assert summary_printed('{"workspace": "/w", "vers')  # a summary cut short was printed: the records say the rest
