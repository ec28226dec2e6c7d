"""Backend names -> lazily imported implementations, plus third-party entry points.

Built-ins: ``rules`` (no LLM, the default), ``agent-cli`` (an external coding-agent command) and
``llm-api`` (an OpenAI-compatible chat API). Third parties register classes under the entry-point
groups ``kernelopt.planners`` and ``kernelopt.implementers``.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any

from kernelopt.errors import UsageError

PLANNERS: dict[str, str] = {
    "rules": "kernelopt.backends.rules:RulePlanner",
    "agent-cli": "kernelopt.backends.agent_cli:AgentCliPlanner",
    "llm-api": "kernelopt.backends.llm_api:LlmApiPlanner",
}
IMPLEMENTERS: dict[str, str] = {
    "rules": "kernelopt.backends.rules:RuleImplementer",
    "agent-cli": "kernelopt.backends.agent_cli:AgentCliImplementer",
    "llm-api": "kernelopt.backends.llm_api:LlmApiImplementer",
}
PLANNER_GROUP = "kernelopt.planners"
IMPLEMENTER_GROUP = "kernelopt.implementers"


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _find(kind: str, builtins: dict[str, str], group: str, name: str) -> Any:
    if name in builtins:
        return _load(builtins[name])
    for ep in entry_points(group=group):
        if ep.name == name:
            return ep.load()
    known = sorted({*builtins, *(ep.name for ep in entry_points(group=group))})
    raise UsageError(f"unknown {kind} backend {name!r}", hint=f"known: {', '.join(known)}")


def planner_class(name: str) -> Any:
    """The planner class registered as ``name``.

    Raises:
        UsageError: no such backend.
    """
    return _find("planner", PLANNERS, PLANNER_GROUP, name)


def implementer_class(name: str) -> Any:
    """The implementer class registered as ``name``.

    Raises:
        UsageError: no such backend.
    """
    return _find("implementer", IMPLEMENTERS, IMPLEMENTER_GROUP, name)
