"""Importing kernelopt must do nothing: no torch/triton/matplotlib, no subprocess."""

import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")


def test_import_pulls_in_no_heavy_modules() -> None:
    code = (
        "import sys, kernelopt, kernelopt.cli.app, kernelopt.memory, kernelopt.workspace, "
        "kernelopt.evidence.model, kernelopt.utilization, kernelopt.hardware.specs\n"
        "bad = [m for m in ('torch', 'triton', 'matplotlib', 'numpy') if m in sys.modules]\n"
        "print(','.join(bad))"
    )
    # the checkout's kernelopt, not whatever an installed copy imports (the shared env has none)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (SRC, os.environ.get("PYTHONPATH")) if p)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True, env=env)
    assert out.stdout.strip() == ""


def test_version_flag() -> None:
    from kernelopt.cli.app import main

    assert main(["--version"]) == 0
