"""Nothing kept holds a secret: the one redactor, where it applies, and the whole loop with an agent
that leaks a key it read from kernelopt's ``/proc/<pid>/environ``."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from kernelopt.fileio import atomic_write_text, redact_tree
from kernelopt.proc import child_env, run_command, start_command
from kernelopt.redact import REDACTED, Redactor, named_values, redact, secret_values

from .conftest import BENCH_S, with_baseline

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ROOT / "tests" / "data" / "agents"
KEY = "LEAKME-plain-value-0123456789"  # no known key format: only the value rule catches it


def test_values_formats_and_the_json_spelling_are_replaced() -> None:
    r = Redactor(["hunter2-hunter2", 'quo"ted-secret'])
    text = (
        "a hunter2-hunter2 b, sk-proj-abcdefghijklmnop0123 ghp_abcdefghijklmnopqrstuvwxyz0123456789 "
        "AKIAIOSFODNN7EXAMPLE xoxb-1234567890-abcdefghij Authorization: Bearer abc123def456ghi789jkl "
        + json.dumps({"m": 'quo"ted-secret'})
    )
    out = r(text)
    assert out == (
        f"a {REDACTED} b, {REDACTED} {REDACTED} {REDACTED} {REDACTED} Authorization: Bearer {REDACTED} "
        f'{{"m": "{REDACTED}"}}'
    )
    assert r.holds_secret(text) and not r.holds_secret(out)


def test_a_private_key_over_several_lines_goes_whole() -> None:
    """A PEM block spans lines (the pattern once stopped at the first newline, so no real key matched)."""
    pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACD\n-----END OPENSSH PRIVATE KEY-----"
    assert redact(f"key:\n{pem}\nafter") == f"key:\n{REDACTED}\nafter"
    assert redact("-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----").startswith("-----BEGIN PUBLIC")


def test_a_private_key_cut_short_and_a_lowercase_scheme_are_redacted() -> None:
    """A fresh-user trial of 2026-12-04: a PEM block with no END line (truncated output) kept its body, and
    `authorization: bearer ...` (HTTP reads the scheme in any case) kept its token."""
    body = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx1234567890abcdefghij\nQyNTUxOQAAACDabcdefgh\n"
    assert redact(f"out:\n{body}truncated here") == f"out:\n{REDACTED}\ntruncated here"  # prose stays
    assert redact(json.dumps({"log": body})) == json.dumps({"log": f"{REDACTED}\n"})  # \n as JSON spells it
    assert redact("authorization: bearer abcdefghijklmnop1234567890") == f"authorization: bearer {REDACTED}"
    assert redact("AUTHORIZATION: BASIC dXNlcjpwYXNzd29yZDEyMzQ1Ng==") == f"AUTHORIZATION: BASIC {REDACTED}"
    assert redact("Bearer of bad news, basic blocks of the loop") == "Bearer of bad news, basic blocks of the loop"


def test_prose_code_and_an_embedded_image_are_left_alone() -> None:
    r = Redactor()
    image = base64.b64encode(bytes(range(256)) * 64).decode()
    for text in (
        "Basic blocks/instructions of the loop",
        "task-abcdefghijklmnopqrstuvwxyz and mask_kernel_abcdefghijkl",
        f"<img src='data:image/png;base64,{image}'>",
        "BLOCK_SIZE=1024, num_warps=4",
    ):
        assert r(text) == text


def test_the_environment_names_what_is_secret() -> None:
    env = {"OPENAI_API_KEY": KEY, "GH_TOKEN": "short", "DB_URL": "postgres://u:pw@db/x", "PATH": "/usr/bin"}
    assert secret_values(env) == [KEY]  # "short" is under 8 characters
    env["KERNELOPT_REDACT"] = "DB_URL, internal-host-7 ,x"
    assert named_values(env) == ["postgres://u:pw@db/x", "internal-host-7"]  # "x" is too short
    r = Redactor.of_environment(env)
    assert r(f"{KEY} postgres://u:pw@db/x internal-host-7 /usr/bin") == f"{REDACTED} {REDACTED} {REDACTED} /usr/bin"


def test_git_s_configuration_of_the_environment_reaches_a_child_whole(tmp_path: Path) -> None:
    """suite25 s40: ``GIT_CONFIG_KEY_0`` was taken for a secret and dropped, ``GIT_CONFIG_COUNT`` kept: git refused
    every command of a child ('unable to parse command-line config')."""
    git = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "kernelopt.suite", "GIT_CONFIG_VALUE_0": "twenty-five"}
    env = child_env({"PATH": os.environ["PATH"], "GH_TOKEN": KEY, "GIT_CONFIG_KEYRING": KEY, **git})
    assert git.items() <= env.items() and "GH_TOKEN" not in env and "GIT_CONFIG_KEYRING" not in env
    assert secret_values(env) == []  # a setting's name is no secret to redact
    got = subprocess.run(["git", "config", "kernelopt.suite"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert (got.returncode, got.stdout) == (0, "twenty-five\n"), got.stderr


def test_every_writer_and_the_gateway_redact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert redact(f"x {KEY}") == f"x {REDACTED}"
    atomic_write_text(tmp_path / "kept.json", json.dumps({"reason": f"refused {KEY}"}))
    assert KEY not in (tmp_path / "kept.json").read_text()
    # a child gets no secret, but it can print one it found: captured output is redacted
    assert "OPENAI_API_KEY" not in child_env()
    echo = [sys.executable, "-c", "import sys; print(sys.argv[1]); print(sys.argv[1], file=sys.stderr)", KEY]
    result = run_command(echo, timeout_s=30)
    assert result.stdout.strip() == REDACTED and result.stderr.strip() == REDACTED
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with start_command(echo, timeout_s=30, stdout_path=out, stderr_path=err) as cmd:
        while cmd.running():
            pass
    assert out.read_text().strip() == REDACTED and err.read_text().strip() == REDACTED
    # files a worker wrote itself: cleaned in place; binary files are left alone
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "result.json").write_text(f'{{"error": "{KEY}"}}')
    (tmp_path / "w" / "blob.bin").write_bytes(b"\xff\xfe" + KEY.encode())
    assert redact_tree(tmp_path / "w") == [tmp_path / "w" / "result.json"]


def test_a_crash_log_and_the_error_line_are_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kernelopt.cli import app

    def boom() -> None:
        raise RuntimeError(f"refused {KEY}")

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("KERNELOPT_CRASH_DIR", str(tmp_path))
    boom_module = SimpleNamespace(register=lambda a: a.command("boom")(boom))
    monkeypatch.setattr(app, "command_modules", lambda args=None: (boom_module,))
    assert app.main(["boom"]) == 70
    err = capsys.readouterr().err
    assert KEY not in err and f"refused {REDACTED}" in err
    (log,) = tmp_path.glob("kernelopt-crash-*.log")
    assert KEY not in log.read_text() and f"refused {REDACTED}" in log.read_text()


@pytest.mark.timeout(240)
def test_a_key_read_from_proc_environ_is_nowhere_in_the_workspace(tmp_path: Path, rows_baseline: Path) -> None:
    """The agent (and the kernel it writes) read OPENAI_API_KEY from kernelopt's /proc/<pid>/environ:
    the key reaches failure reasons, a repair prompt, transcripts, worker results and a commit. The run
    starts at V1 of a gated V0 (``rows_baseline``)."""
    root = tmp_path / "root"
    with_baseline(rows_baseline, root)
    env = {
        **os.environ,
        "OPENAI_API_KEY": KEY,  # in kernelopt's environment from its start: in /proc/<pid>/environ
        "PYTHONPATH": str(ROOT / "src"),
        "KERNELOPT_BENCH_S": BENCH_S,
        "KERNELOPT_SEEDS": "1",
        "OMP_NUM_THREADS": "1",
    }
    agent = f"command={sys.executable} {AGENTS}/{{script}} {{{{prompt_file}}}}"
    argv = [
        *(sys.executable, "-m", "kernelopt", "optimize", str(AGENTS / "rows"), "--root", str(root)),
        *("--device", "cpu", "--max-iters", "1", "--planner", "agent-cli", "--implementer", "agent-cli"),
        *("-P", agent.format(script="planner.py"), "-I", agent.format(script="environ_leak.py")),
    ]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=200, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    ws = root / "kernel_opt_rows"
    out = tmp_path / "reports"  # a report is written outside every workspace (docs/faults.md, reportpath)
    out.mkdir()
    reports = ["--html", str(out / "report.html"), "--markdown", str(out / "report.md")]
    report = subprocess.run(
        [sys.executable, "-m", "kernelopt", "report", str(ws), *reports],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert report.returncode == 0, report.stderr
    assert f"refused the key {REDACTED}" in (out / "report.html").read_text()
    record = json.loads((ws / "memory" / "v1.json").read_text())
    assert record["quality_gate"]["result"] == "FAIL"
    kept = "\n".join(p["error_message"] for p in record["pitfalls_and_fixes"])
    assert f"refused the key {REDACTED}" in kept  # the leak happened, and was caught
    assert f"the kernel service refused the key {REDACTED}" in kept  # ... in the harness worker too
    history = subprocess.run(
        ["git", "log", "-p", "--all"], cwd=ws, capture_output=True, text=True, timeout=30, check=True
    ).stdout
    files = [*ws.rglob("*"), *out.iterdir()]
    leaks = [str(p) for p in files if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaks == [] and KEY not in history and KEY not in done.stdout + done.stderr + report.stdout
