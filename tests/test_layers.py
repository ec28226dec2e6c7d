"""The layering of docs/architecture.md holds: import-linter's contracts in pyproject.toml are kept."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = str(ROOT / "src")

_RUN = (
    "import sys\n"
    "from importlinter.cli import lint_imports\n"
    "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))\n"
)


def test_import_contracts_are_kept() -> None:
    # the checkout's kernelopt is the one analysed (import-linter finds the package through sys.path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (SRC, os.environ.get("PYTHONPATH")) if p)}
    out = subprocess.run(
        [sys.executable, "-c", _RUN], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env, check=False
    )
    report = out.stdout + out.stderr
    assert out.returncode == 0, report
    assert "Contracts: 4 kept, 0 broken." in report, report
