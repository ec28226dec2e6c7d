"""Split Markdown with YAML front matter (``---`` fenced, first line) into (mapping, body).

Used by the task card (README.md), plans and gpu-wiki records.
"""

from __future__ import annotations

from typing import Any

import yaml

FENCE = "---"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: ~10x faster, same semantics


class FrontMatterError(ValueError):
    """The front matter is not valid YAML or not a mapping."""


def split(text: str) -> tuple[dict[str, Any], str]:
    """Return (front matter mapping, body). Text without front matter gives ``({}, text)``.

    Raises:
        FrontMatterError: the fenced block is not valid YAML, is not a mapping, or is never closed.
    """
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != FENCE:
        return {}, text
    for i in range(1, len(lines)):
        if lines[i].strip() == FENCE:
            try:
                loaded = yaml.load("".join(lines[1:i]), Loader=_LOADER) or {}
            except yaml.YAMLError as exc:
                raise FrontMatterError(f"front matter is not valid YAML ({exc})") from None
            if not isinstance(loaded, dict):
                raise FrontMatterError("front matter must be a mapping")
            return loaded, "".join(lines[i + 1 :])
    raise FrontMatterError("front matter opened with '---' is never closed")


def join(front: dict[str, Any], body: str) -> str:
    """Render front matter + body (keys in the given order)."""
    dumped = yaml.safe_dump(front, sort_keys=False, allow_unicode=True).strip()
    return f"{FENCE}\n{dumped}\n{FENCE}\n{body}"
