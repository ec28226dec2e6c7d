"""The README's two commands stay true: the test command is exactly what .ci/run runs."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, re.S)]


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Run the tests", 1)[1]
    test_cmd = _blocks(section)[0]
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_cmd in ci.splitlines()


def test_install_command_installs_the_package() -> None:
    readme = (ROOT / "README.md").read_text()
    install = _blocks(readme.split("## Install and run", 1)[1])[0]
    assert "pip install -e '.[dev]'" in install and "kernelopt" in install
