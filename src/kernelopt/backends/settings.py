"""Typed settings of the built-in backends, built from an options dict and the environment.

Options given explicitly (``--option key=value`` on the command line, or the ``options`` dict of a
:class:`~kernelopt.backends.protocol.StageContext`) win over environment variables, which win over the
defaults. Environment variables:

- agent-cli: ``KERNELOPT_AGENT_COMMAND``, ``KERNELOPT_AGENT_TIMEOUT_S``;
- llm-api: ``KERNELOPT_LLM_BASE_URL``, ``KERNELOPT_LLM_MODEL``, ``KERNELOPT_LLM_API_KEY`` (or the
  variable named by the ``api_key_env`` option), ``KERNELOPT_LLM_TIMEOUT_S``.

The API key is held as a :class:`pydantic.SecretStr`: it never appears in a repr, a dump or an error.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from kernelopt.env import inherited
from kernelopt.errors import UsageError
from kernelopt.tuning.budget import MIN_WALL_S

PLACEHOLDERS = ("prompt_file", "workspace", "version", "plan_file", "stage")


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RuleSettings(_Settings):
    """Settings of the rule-based implementer.

    Attributes:
        gpu: GPU name for resource limits (default: the task card's ``gpu``).
        dtype: operand dtype for shared-memory estimates (default: the task card's ``dtype``).
        check_resources: refuse configurations that cannot fit (shared memory, accumulator registers).
        device: where a tuning session's candidates are checked and timed (``cuda`` / ``cpu``; the loop
            passes its ``--device``); ``None`` lets the worker choose (CUDA when present).
        budget, budget_fraction, budget_wall_s: one tuning session's budget (default: the task card's keys
            of the same names, else max(24, 1/5 of the fit-pruned space) and 600 s).
        strategy: the tuning strategy (``local``, ``pattern``, ``random``, ``exhaustive``); seed: its seed.
        bench_repetitions: timing samples per candidate (the median is its latency).
        bench_timeout_s: limit for checking and timing one candidate (its first call may compile), s.
        min_gain_pct: the best candidate must beat the current configuration by this much (percent, the
            gate's default margin) to be applied; otherwise the launch configuration has converged.
        size_scale: scale reference.py's size constants for the session (0 < s <= 1); ``None``: the gate's
            (``KERNELOPT_SIZE_SCALE``, else the task card's ``size_scale``), so candidates are measured on
            the problem the gate times.
    """

    gpu: str | None = None
    dtype: str | None = None
    check_resources: bool = True
    device: str | None = None
    budget: int | None = Field(default=None, ge=1)
    budget_fraction: float | None = Field(default=None, gt=0, le=1)
    budget_wall_s: float | None = Field(default=None, ge=MIN_WALL_S, allow_inf_nan=False)
    strategy: str = "local"
    seed: int = 0
    bench_repetitions: int = Field(default=20, ge=1)
    bench_timeout_s: float = Field(default=60.0, gt=0)
    min_gain_pct: float = Field(default=2.0, ge=0, lt=100)
    size_scale: float | None = Field(default=None, gt=0, le=1)


class AgentCliSettings(_Settings):
    """Settings of the coding-agent CLI backend.

    Attributes:
        command: the command template, split with shell rules (``shlex``) but never run by a shell;
            placeholders ``{prompt_file}``, ``{workspace}``, ``{version}``, ``{plan_file}``, ``{stage}``
            (``{{``/``}}`` for literal braces). Without ``{prompt_file}`` the prompt goes to stdin.
        timeout_s: wall-clock limit of one agent run in seconds; past it the process group gets SIGTERM.
        term_grace_s: seconds between that SIGTERM and SIGKILL (a CLI removes its shell snapshots and
            session files when it is terminated; SIGKILL leaves them behind).
        env: extra environment variables for the agent.
    """

    command: str = Field(min_length=1)
    timeout_s: float = Field(default=1800.0, gt=0)
    term_grace_s: float = Field(default=5.0, ge=0, le=120)
    env: dict[str, str] = Field(default_factory=dict)


class LlmApiSettings(_Settings):
    """Settings of the OpenAI-compatible chat-completions backend.

    Attributes:
        base_url: API root, e.g. ``https://api.openai.com/v1`` or ``http://127.0.0.1:8000/v1``;
            requests go to ``<base_url>/chat/completions``.
        model: model name sent in each request.
        api_key: bearer token (``None`` for servers that need none); never written anywhere.
        api_key_env: environment variable holding the key (default ``KERNELOPT_LLM_API_KEY``).
        timeout_s: wall-clock limit of one HTTP request in seconds.
        max_tokens: completion token limit sent with the request (``None``: the server's default).
        temperature: sampling temperature (``None``: the server's default).
        retries: extra attempts after HTTP 429 / 5xx / connection errors / timeouts.
        retry_backoff_s: wait before the first retry in seconds, doubled each time.
    """

    base_url: str = Field(min_length=1)
    model: str = Field(min_length=1)
    api_key: SecretStr | None = None
    api_key_env: str = "KERNELOPT_LLM_API_KEY"
    timeout_s: float = Field(default=300.0, gt=0)
    max_tokens: int | None = Field(default=None, gt=0)
    temperature: float | None = Field(default=0.0, ge=0)
    retries: int = Field(default=2, ge=0, le=10)
    retry_backoff_s: float = Field(default=2.0, ge=0)

    @field_validator("base_url")
    @classmethod
    def _http(cls, v: str) -> str:
        if not v.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return v.rstrip("/")


S = TypeVar("S", bound=BaseModel)

_ENV: dict[type[BaseModel], dict[str, str]] = {
    AgentCliSettings: {"command": "KERNELOPT_AGENT_COMMAND", "timeout_s": "KERNELOPT_AGENT_TIMEOUT_S"},
    LlmApiSettings: {
        "base_url": "KERNELOPT_LLM_BASE_URL",
        "model": "KERNELOPT_LLM_MODEL",
        "timeout_s": "KERNELOPT_LLM_TIMEOUT_S",
    },
}


def load_settings(
    cls: type[S], options: Mapping[str, Any] | None, env: Mapping[str, str] | None = None, *, backend: str
) -> S:
    """Build ``cls`` from ``options`` over the variables of ``env`` (default: this process's) over defaults.

    Raises:
        UsageError: an unknown option, a missing required setting, or a value of the wrong type; the
            message names the option and, where one exists, the environment variable.
    """
    env = inherited() if env is None else env
    data: dict[str, Any] = {}
    names = _ENV.get(cls, {})
    for fld, var in names.items():
        if env.get(var):
            data[fld] = env[var]
    data.update({k: v for k, v in (options or {}).items() if v is not None})
    if cls is LlmApiSettings and "api_key" not in data:
        key_var = str(data.get("api_key_env", "KERNELOPT_LLM_API_KEY"))
        if env.get(key_var):
            data["api_key"] = env[key_var]
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "?"
        env_var = names.get(loc)
        hint = f"pass --option {loc}=..." + (f" or set {env_var}" if env_var else "")
        if err["type"] == "extra_forbidden":
            known = ", ".join(cls.model_fields)
            raise UsageError(f"{backend}: unknown option '{loc}'", hint=f"known: {known}") from None
        if err["type"] == "missing":
            raise UsageError(f"{backend}: setting '{loc}' is required", hint=hint) from None
        raise UsageError(f"{backend}: option '{loc}': {err['msg']}", hint=hint) from None


_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")


def scalar(raw: str) -> Any:
    """A command-line value: decimal int (``020`` is 20, never octal), finite float, or the text itself
    (commands, templates such as ``{prompt_file}``, ``true``, directions such as ``x2``)."""
    text = raw.strip()
    if _INT.match(text):
        return int(text, 10)
    if _FLOAT.match(text):
        value = float(text)
        if math.isfinite(value):
            return value
    return raw  # "true"/"false" stay text: typed settings convert them for boolean fields only


def parse_assignments(items: list[str]) -> dict[str, Any]:
    """``["timeout_s=60", "command=claude -p {prompt_file}"]`` -> a dict of :func:`scalar` values.

    Raises:
        UsageError: an item without ``=``, or the same key given twice.
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError(f"bad option {item!r}", hint="use KEY=VALUE")
        if key in out:
            raise UsageError(f"{key} is given twice ({out[key]!r} and {raw!r})", hint="give each key once")
        out[key] = scalar(raw)
    return out
