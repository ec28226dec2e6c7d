"""Importing kernelopt must do nothing: no torch/triton/matplotlib, no subprocess."""

import subprocess
import sys


def test_import_pulls_in_no_heavy_modules() -> None:
    code = (
        "import sys, kernelopt, kernelopt.cli.app, kernelopt.memory, kernelopt.workspace, "
        "kernelopt.evidence.model, kernelopt.utilization, kernelopt.hardware.specs\n"
        "bad = [m for m in ('torch', 'triton', 'matplotlib', 'numpy') if m in sys.modules]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == ""


def test_version_flag() -> None:
    from kernelopt.cli.app import main

    assert main(["--version"]) == 0
