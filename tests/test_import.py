"""Importing kernelopt must do nothing: no process, no torch/triton/matplotlib/GitPython."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")

#: Modules that run inside the harness's worker process and import torch at their top, by design.
WORKER_SIDE = (
    "kernelopt.harness.compare",
    "kernelopt.harness.indices",
    "kernelopt.harness.inplace",
    "kernelopt.harness.inputs",
    "kernelopt.harness.timers",
)
HEAVY = ("torch", "triton", "matplotlib", "numpy", "git", "ncu_report")

# Run in a fresh interpreter: every way of starting a process raises and is recorded, then every module
# of the package is imported, the worker-side ones last, and the heavy modules loaded by then are listed.
_PROBE = """
import importlib, json, os, pkgutil, subprocess, sys
started = []
def refuse(name):
    def start(*args, **kwargs):
        started.append(name + " " + repr(args[:2])[:200])
        raise RuntimeError("a process was started at import: " + name)
    return start
subprocess.Popen.__init__ = refuse("subprocess.Popen")
for name in ("posix_spawn", "posix_spawnp", "fork", "forkpty", "system", "popen",
             "execv", "execve", "execvp", "execvpe", "spawnv", "spawnve"):
    if hasattr(os, name):
        setattr(os, name, refuse("os." + name))
import kernelopt
worker_side, heavy = json.loads(sys.argv[1]), json.loads(sys.argv[2])
names = sorted(m.name for m in pkgutil.walk_packages(kernelopt.__path__, "kernelopt."))
failed, loaded = [], None
for group in ([n for n in names if n not in worker_side], [n for n in names if n in worker_side]):
    for name in group:
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed.append(name + ": " + type(exc).__name__ + ": " + str(exc))
    if loaded is None:
        loaded = [m for m in heavy if m in sys.modules]
print(json.dumps({"modules": names, "started": started, "failed": failed, "heavy": loaded}))
"""


@pytest.fixture(scope="module")
def probe() -> dict[str, list[str]]:
    # the checkout's kernelopt, not whatever an installed copy imports (the shared env has none)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (SRC, os.environ.get("PYTHONPATH")) if p)}
    argv = [sys.executable, "-c", _PROBE, json.dumps(WORKER_SIDE), json.dumps(HEAVY)]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True, env=env)
    result: dict[str, list[str]] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_every_module_imports_and_starts_no_process(probe: dict[str, list[str]]) -> None:
    assert len(probe["modules"]) > 100 and set(WORKER_SIDE) <= set(probe["modules"])
    assert "kernelopt.workspace" in probe["modules"] and "kernelopt.cli.app" in probe["modules"]
    assert probe["failed"] == []
    assert probe["started"] == []  # e.g. GitPython runs `git version` when imported


def test_only_the_worker_side_imports_heavy_modules(probe: dict[str, list[str]]) -> None:
    assert probe["heavy"] == []


def test_version_flag() -> None:
    from kernelopt.cli.app import main

    assert main(["--version"]) == 0


def test_the_cli_starts_without_the_loop_the_batch_runner_or_libcst() -> None:
    """``kernelopt validate`` / ``tune`` / ``--help`` start in a fraction of a second: the command modules
    import the loop, the batch runner and the tunables reader (libcst) when their command runs."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (SRC, os.environ.get("PYTHONPATH")) if p)}
    late = ("kernelopt.batch.runner", "kernelopt.loop.protocols", "kernelopt.planning.rules", "libcst")
    code = f"import sys, kernelopt.cli.app; print([m for m in {late!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True, env=env)
    assert out.stdout.strip() == "[]"


def test_the_fork_servers_preload_leaves_libcst_out() -> None:
    """A fork server's children run kernels and never parse one: its preload (the autotune worker lives in
    the tunables package) imports no libcst, which cost every server 0.2-0.3 s of its start."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (SRC, os.environ.get("PYTHONPATH")) if p)}
    code = (
        "import sys, kernelopt.tunables.autotune_worker, kernelopt.tuning.bench_worker, kernelopt.tunables as t;"
        "print('libcst' in sys.modules, t.ResourceLimits.__name__, 'libcst' in sys.modules, t.discover.__name__,"
        " 'libcst' in sys.modules, 'apply_source' in dir(t))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True, env=env)
    assert out.stdout.split() == ["False", "ResourceLimits", "False", "discover", "True", "True"]


def test_a_command_line_imports_only_the_module_of_its_command() -> None:
    """``kernelopt schema ...`` imports ``kernelopt.cli.schema`` and no other command's module (each costs
    the CLI's start); ``--help`` imports every one and lists every command with its help text."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (SRC, os.environ.get("PYTHONPATH")) if p)}
    code = (
        "import sys\n"
        "from kernelopt.cli.app import COMMANDS, main\n"
        "loaded = lambda: [c for c in COMMANDS if 'kernelopt.cli.' + c in sys.modules]\n"
        "code = main(['schema', '--help'])\n"
        "print('@@', code, loaded(), flush=True)\n"
        "code = main(['--help'])\n"
        "print('@@', code, loaded() == list(COMMANDS), flush=True)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True, env=env)
    schema_help, help_text, marks = out.stdout.split("@@")[0], out.stdout.split("@@")[1], out.stdout.split("@@")[1:]
    assert [m.splitlines()[0] for m in marks] == [" 0 ['schema']", " 0 True"], out.stdout + out.stderr
    assert "Usage: kernelopt schema" in schema_help
    from kernelopt.cli.app import COMMANDS

    # a command's row: its name, then its help text (rich's box, or click's plain two-space indent)
    listed = re.findall(r"^(?:\u2502 | {2})(\w+) {2,}\S", help_text, re.M)
    assert sorted(listed) == sorted(COMMANDS), help_text
