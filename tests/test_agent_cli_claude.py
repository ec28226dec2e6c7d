"""The agent path with the real Claude Code CLI: the scenarios of tests/real_clis.py."""

from __future__ import annotations

import pytest

from .real_clis import *  # noqa: F403  (the scenarios and their fixtures)


@pytest.fixture
def cli_name() -> str:
    return "claude"
