"""Split Markdown with YAML front matter (``---`` fenced, first line) into (mapping, body).

Used by the task card (README.md), plans and gpu-wiki records.
"""

from __future__ import annotations

from typing import Any

import yaml

FENCE = "---"
_BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: ~10x faster, same semantics


class _UniqueKeyLoader(_BASE_LOADER):  # type: ignore[misc,valid-type]
    """The safe loader, refusing a key given twice in one mapping.

    YAML requires unique keys, but PyYAML silently keeps the last one: a second ``stop_conditions:``
    in a task card would drop the first without a word.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = key in seen
            except TypeError:  # an unhashable key: the base constructor reports it
                continue
            if duplicate:
                raise yaml.constructor.ConstructorError(None, None, f"key {key!r} is given twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_LOADER = _UniqueKeyLoader


class FrontMatterError(ValueError):
    """The front matter is not valid YAML or not a mapping."""


def split(text: str) -> tuple[dict[str, Any], str]:
    """Return (front matter mapping, body). Text without front matter gives ``({}, text)``.

    Raises:
        FrontMatterError: the fenced block is not valid YAML (a key given twice in one mapping included),
            is not a mapping, or is never closed.
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
