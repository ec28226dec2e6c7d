"""``--set key.path=value`` assignments, converted by the schema's type for that field.

A value for a string field stays the literal text (a git hash like ``0012345`` or ``12e4567`` is never
turned into a number); ``null`` clears a nullable field; other fields take JSON (numbers, booleans,
lists, objects) and fall back to the raw text, which pydantic then validates.
"""

from __future__ import annotations

import json
import types
import typing
from enum import Enum
from typing import Any

from pydantic import BaseModel, ValidationError

from kernelopt.errors import RecordError


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """Strip ``X | None`` -> (X, nullable)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        nullable = len(args) != len(typing.get_args(annotation))
        if len(args) == 1:
            return args[0], nullable
        return annotation, nullable
    return annotation, False


def _is_text(annotation: Any) -> bool:
    if annotation is str:
        return True
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return True
    if typing.get_origin(annotation) is typing.Literal:
        return all(isinstance(a, str) for a in typing.get_args(annotation))
    return False


def field_annotation(model: type[BaseModel], path: list[str]) -> tuple[Any, bool]:
    """The annotation (unwrapped) and nullability of the field at ``path`` inside ``model``.

    Raises:
        RecordError: a path element names no field.
    """
    annotation: Any = model
    nullable = False
    walked: list[str] = []
    for part in path:
        walked.append(part)
        base, _ = _unwrap(annotation)
        origin = typing.get_origin(base)
        if isinstance(base, type) and issubclass(base, BaseModel):
            if part not in base.model_fields:
                known = ", ".join(sorted(base.model_fields))
                raise RecordError(f"no field '{'.'.join(walked)}' in the record (known here: {known})")
            annotation = base.model_fields[part].annotation
        elif origin is list:
            if not part.isdigit():
                raise RecordError(f"'{'.'.join(walked)}': list index must be a number")
            annotation = typing.get_args(base)[0]
        elif origin is dict:
            annotation = typing.get_args(base)[1]
        else:
            raise RecordError(f"'{'.'.join(walked[:-1])}' is a value, not an object")
        annotation, nullable = _unwrap(annotation)
    return annotation, nullable


def convert(model: type[BaseModel], path: list[str], raw: str) -> Any:
    """Convert the text ``raw`` for the field at ``path`` by that field's type."""
    annotation, nullable = field_annotation(model, path)
    if raw == "null":
        if not nullable:
            raise RecordError(f"'{'.'.join(path)}' cannot be null")
        return None
    if _is_text(annotation):
        return raw
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


READ_ONLY = frozenset({"version", "schema_version"})


def parse_assignment(text: str) -> tuple[list[str], str]:
    """``"a.b=c"`` -> (["a", "b"], "c").

    Raises:
        RecordError: there is no ``=`` or the key is empty.
    """
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise RecordError(f"--set expects key.path=value, got {text!r}")
    return key.split("."), value


def apply_assignments(record: BaseModel, assignments: list[str]) -> BaseModel:
    """Return a new, validated record with every ``key.path=value`` applied in order.

    Raises:
        RecordError: unknown field, bad value, or the result fails validation (the message names the
            field path and pydantic's reason).
    """
    data = record.model_dump(mode="json")
    model = type(record)
    for text in assignments:
        path, raw = parse_assignment(text)
        if path[0] in READ_ONLY:
            raise RecordError(f"'{path[0]}' is read-only (it names the record; create another version instead)")
        value = convert(model, path, raw)
        node: Any = data
        for i, part in enumerate(path[:-1]):
            nxt = node[int(part)] if isinstance(node, list) else node.get(part)
            if nxt is None:
                nxt = {}
                if isinstance(node, list):
                    raise RecordError(f"'{'.'.join(path[: i + 1])}' does not exist")
                node[part] = nxt
            node = nxt
        last = path[-1]
        if isinstance(node, list):
            idx = int(last)
            if idx == len(node):
                node.append(value)
            elif 0 <= idx < len(node):
                node[idx] = value
            else:
                raise RecordError(f"'{'.'.join(path)}': index {idx} out of range (length {len(node)})")
        else:
            node[last] = value
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise RecordError(f"invalid value for '{loc}': {err['msg']}") from None
