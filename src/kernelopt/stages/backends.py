"""The one way to build a planner or an implementer, for the loop and for ``kernelopt plan`` / ``implement``.

The backend name goes through the registry (:mod:`kernelopt.backends.registry`: built-ins and entry
points); its options are checked now, so a bad name or option is one line before any stage runs. The
options are the backend's own (``--option KEY=VALUE`` / the environment variables of
:mod:`kernelopt.backends.settings`); the stage runner never adds options of its own to a call, so the
loop and the commands call a backend exactly the same way.

Defaults applied here, for every caller:

- the ``rules`` planner proposes knob moves only when the implementer is ``rules`` (the rules
  implementer only moves knobs; a code-change plan would cost a failed iteration);
- the ``rules`` planner's web search is ``KERNELOPT_WEB_SEARCH_CMD`` when set (``{query}`` replaced).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from kernelopt.backends.agent_cli import check_command
from kernelopt.backends.protocol import Implementer, Planner
from kernelopt.backends.registry import implementer_class, planner_class
from kernelopt.backends.settings import AgentCliSettings, LlmApiSettings, RuleSettings, load_settings
from kernelopt.env import EnvSettings, variable
from kernelopt.errors import UsageError

WEB_ENV = variable("web_search_cmd").name

_PLANNER_SETTINGS: dict[str, type[BaseModel]] = {"agent-cli": AgentCliSettings, "llm-api": LlmApiSettings}
_IMPLEMENTER_SETTINGS: dict[str, type[BaseModel]] = {
    "agent-cli": AgentCliSettings,
    "llm-api": LlmApiSettings,
    "rules": RuleSettings,
}


def planner_options(
    name: str, options: Mapping[str, Any] | None, *, implementer: str, env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The options ``name`` is built with: ``options`` plus the defaults of this module.

    Raises:
        UsageError: ``KERNELOPT_WEB_SEARCH_CMD`` does not split.
    """
    out = dict(options or {})
    if name == "rules":
        out.setdefault("knob_only", implementer == "rules")
        command = EnvSettings.read(env).web_search_cmd
        if command and "web_command" not in out:
            try:
                out["web_command"] = shlex.split(command)
            except ValueError as exc:
                raise UsageError(f"{WEB_ENV}: {exc}") from None
    return out


def build_planner(name: str, options: Mapping[str, Any] | None = None, *, implementer: str = "rules") -> Planner:
    """The planner registered as ``name``, built with :func:`planner_options`.

    Args:
        name: ``rules``, ``agent-cli``, ``llm-api`` or a plug-in.
        options: the backend's options.
        implementer: the name of the implementer that will apply the plans (it decides what may be
            planned); it must name a backend.

    Raises:
        UsageError: an unknown planner or implementer name, or an option the backend does not know / a
            required setting missing (the message names the option and its environment variable).
    """
    implementer_class(implementer)
    opts = planner_options(name, options, implementer=implementer)
    cls = planner_class(name)
    if name in _PLANNER_SETTINGS:
        settings = load_settings(_PLANNER_SETTINGS[name], opts, backend=name)
        if isinstance(settings, AgentCliSettings):
            check_command(settings.command)
    backend: Planner = cls(opts)
    return backend


def build_implementer(name: str, options: Mapping[str, Any] | None = None) -> Implementer:
    """The implementer registered as ``name``, built with ``options``.

    Raises:
        UsageError: an unknown name, or an option the backend does not know / a required setting missing.
    """
    opts = dict(options or {})
    cls = implementer_class(name)
    if name in _IMPLEMENTER_SETTINGS:
        env: Mapping[str, str] | None = {} if name == "rules" else None  # rules reads no variable
        settings = load_settings(_IMPLEMENTER_SETTINGS[name], opts, env, backend=name)
        if isinstance(settings, AgentCliSettings):
            check_command(settings.command)
    backend: Implementer = cls(opts)
    return backend
