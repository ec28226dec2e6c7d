"""Foundation: the one redactor that every text kernelopt keeps passes through.

Dropping secrets from the children's environment (:func:`kernelopt.proc.child_env`) is not enough: a
child can read its parent's environment from ``/proc/<ppid>/environ`` and print a key, and kernelopt
writes what its children print into records, commit messages, transcripts, prompts and reports. So the
texts are cleaned where they are kept: :func:`kernelopt.fileio.atomic_write_text` (every persisted file,
the commit message file among them), the captured output of every command
(:func:`kernelopt.proc.run_command`, :func:`kernelopt.proc.start_command`), the files a worker leaves
(:func:`kernelopt.fileio.redact_file`) and the CLI's one-line errors all call :func:`redact`.

What is replaced by :data:`REDACTED`:

- the values of this process's secret-looking variables (:func:`is_secret_name`: ``*KEY*``,
  ``*TOKEN*``, ``*SECRET*``, ``*PASSW*``, ``*CREDENTIAL*``; 8 characters or more), also in their JSON-escaped
  spelling;
- what the user names in ``KERNELOPT_REDACT`` (comma-separated): a set variable's name redacts its value,
  any other item is redacted as it is written (4 characters or more);
- known key formats (:data:`KEY_FORMATS`: OpenAI/Anthropic ``sk-...``, GitHub ``ghp_...``/``github_pat_...``,
  AWS ``AKIA...``, Slack ``xox?-...``, GitLab ``glpat-...``, Hugging Face ``hf_...``, Google ``AIza...``,
  ``Bearer``/``Basic`` authorization values, PEM private keys), whoever's they are. A format only matches
  a whole word (never inside a longer run of base64, so an embedded image stays intact).

This module owns the secret-name rule (``kernelopt.proc`` uses it to drop variables from children) and
imports nothing of kernelopt but :mod:`kernelopt.env`, so every layer may use it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from kernelopt.env import inherited, raw_value

REDACTED = "[redacted]"
"""What a secret is replaced by."""

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL", re.IGNORECASE)
"""A variable whose name matches this is a secret: not passed to child processes, and redacted."""
ALWAYS_DROPPED = ("KERNELOPT_LLM_API_KEY",)
"""Never passed to a child, whatever ``KERNELOPT_KEEP_ENV`` says (only kernelopt's own llm-api client uses it)."""
MIN_SECRET_CHARS = 8
"""A secret-looking variable's value shorter than this is not redacted (``KEY=1`` would blank every 1)."""
MIN_NAMED_CHARS = 4
"""A value named in ``KERNELOPT_REDACT`` shorter than this is not redacted."""

_WORD_START = r"(?<![A-Za-z0-9+/_-])"
_WORD_END = r"(?![A-Za-z0-9+/=_-])"


@dataclass(frozen=True)
class KeyFormat:
    """A known key format: its pattern (the whole key) and the literal text every match holds, which decides
    in one fast search whether the pattern need run at all (most texts kept hold none of them)."""

    markers: tuple[str, ...]
    pattern: re.Pattern[str]

    def holds_marker(self, text: str) -> bool:
        if self.pattern.flags & re.IGNORECASE:
            text = text.lower()
            return any(m.lower() in text for m in self.markers)
        return any(m in text for m in self.markers)


def _word(markers: tuple[str, ...], body: str) -> KeyFormat:
    return KeyFormat(markers, re.compile(_WORD_START + body + _WORD_END))


KEY_FORMATS: tuple[KeyFormat, ...] = (
    _word(("sk-",), r"sk-[A-Za-z0-9][A-Za-z0-9_-]{15,}"),  # OpenAI, Anthropic (sk-ant-...)
    _word(("gh",), r"gh[pousr]_[A-Za-z0-9]{20,}"),  # GitHub tokens
    _word(("github_pat_",), r"github_pat_[A-Za-z0-9_]{20,}"),
    _word(("AKIA", "ASIA"), r"(?:AKIA|ASIA)[0-9A-Z]{16}"),  # AWS access key ids
    _word(("xox",), r"xox[abposr]-[A-Za-z0-9-]{10,}"),  # Slack
    _word(("glpat-",), r"glpat-[A-Za-z0-9_-]{20,}"),  # GitLab
    _word(("hf_",), r"hf_[A-Za-z0-9]{30,}"),  # Hugging Face
    _word(("AIza",), r"AIza[0-9A-Za-z_-]{35}"),  # Google API keys
    # a PEM block spans lines; one cut short (truncated output) goes up to the end of its base64 lines (whole
    # lines of base64), also where a JSON record spells its newlines \n
    KeyFormat(
        ("PRIVATE KEY-----",),
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----"
            r"(?:.*?-----END [A-Z ]*PRIVATE KEY-----"
            r"|(?:(?:\r?\n|(?:\\r)?\\n)[ \t]*[A-Za-z0-9+/=]{8,}(?=[ \t]*(?:\r?\n|\\n|\\r|\"|$)))+)",
            re.DOTALL,
        ),
    ),
)
"""Key formats redacted wherever they appear (each matches the whole key)."""
AUTHORIZATION = KeyFormat(
    ("Bearer", "Basic"),
    re.compile(r"\b(Bearer|Basic)(\s+)(?=[A-Za-z._~+/-]*[0-9])([A-Za-z0-9._~+/-]{16,}=*)", re.IGNORECASE),
)
"""An authorization header's value (16+ characters, a digit among them; the scheme word in any case, as HTTP
reads it): the scheme word is kept, the credential redacted."""


GIT_CONFIG_NAME = re.compile(r"GIT_CONFIG_KEY_\d+")
"""git's configuration of the environment: ``GIT_CONFIG_COUNT`` settings, each named in ``GIT_CONFIG_KEY_<n>`` (a
setting's name such as ``safe.directory``, no secret) and set in ``GIT_CONFIG_VALUE_<n>``. Taken for a secret, the
names were dropped from children and the count kept: every git a child ran failed 'unable to parse command-line
config' (suite25 s40)."""


def is_secret_name(name: str) -> bool:
    """True when the variable ``name`` holds a secret (dropped from children, its value redacted)."""
    if GIT_CONFIG_NAME.fullmatch(name):
        return False
    return name in ALWAYS_DROPPED or bool(SECRET_NAME.search(name))


def secret_values(base: Mapping[str, str] | None = None) -> list[str]:
    """The values of the secret-looking variables of ``base`` (default: this process's), 8+ characters."""
    env = inherited() if base is None else base
    return [v for k, v in env.items() if is_secret_name(k) and len(v) >= MIN_SECRET_CHARS]


def named_values(base: Mapping[str, str] | None = None) -> list[str]:
    """The values ``KERNELOPT_REDACT`` names in ``base`` (default: this process's environment).

    Each comma-separated item is the name of a set variable (its value is redacted) or a literal value.
    """
    env = inherited() if base is None else base
    out = []
    for item in (raw_value("redact", env) or "").split(","):
        item = item.strip()
        value = env.get(item) if item else None
        chosen = value if value else item
        if len(chosen) >= MIN_NAMED_CHARS:
            out.append(chosen)
    return out


class Redactor:
    """Replaces secret values and key formats in a text.

    Args:
        values: exact values to redact (longest first, so a value containing another goes whole).
        patterns: key formats (default :data:`KEY_FORMATS`).
    """

    def __init__(self, values: Iterable[str] = (), *, patterns: tuple[KeyFormat, ...] = KEY_FORMATS) -> None:
        spelled = set()
        for v in values:
            if v:
                spelled.add(v)
                spelled.add(json.dumps(v)[1:-1])  # as a JSON record holds it
        self.values = tuple(sorted(spelled, key=len, reverse=True))
        self._exact = re.compile("|".join(re.escape(v) for v in self.values)) if self.values else None
        self.patterns = patterns

    @classmethod
    def of_environment(cls, env: Mapping[str, str] | None = None) -> Redactor:
        """The redactor of ``env`` (default: this process's): its secret values and the named ones."""
        return cls([*secret_values(env), *named_values(env)])

    def __call__(self, text: str) -> str:
        """``text`` with every secret replaced by :data:`REDACTED`."""
        if self._exact is not None:
            text = self._exact.sub(REDACTED, text)
        for key in self.patterns:
            if key.holds_marker(text):
                text = key.pattern.sub(REDACTED, text)
        if not AUTHORIZATION.holds_marker(text):
            return text
        return AUTHORIZATION.pattern.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)

    def holds_secret(self, text: str) -> bool:
        """True when :meth:`__call__` would change ``text``."""
        return self(text) != text


@lru_cache(maxsize=8)
def _cached(values: tuple[str, ...]) -> Redactor:
    return Redactor(values)


def current() -> Redactor:
    """The redactor of this process's environment as it is now (rebuilt when it changes)."""
    return _cached(tuple(sorted({*secret_values(), *named_values()})))


def redact(text: str) -> str:
    """``text`` with this process's secrets and every known key format replaced (:class:`Redactor`)."""
    return current()(text)
