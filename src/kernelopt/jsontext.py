"""Foundation: the JSON text of kernelopt's models, for any ``str`` they hold, a path of an ASCII locale included.

Under an ASCII file system encoding (``LC_ALL=C`` with ``PYTHONUTF8=0``) Python decodes a folder named
``café`` to ``caf\\udcc3\\udca9``: the bytes it could not decode become lone surrogates, which give the exact
bytes back when the path is opened. pydantic's JSON writer refuses such a string ("surrogates not allowed",
an exit 70 of ``kernelopt tune`` in issue 35) and its reader refuses the escapes that would carry it.
:func:`dump_json` and :func:`load_json` are pydantic's own, and only for a text pydantic refuses they go
through :mod:`json` with the surrogates escaped (``\\udcc3``, plain ASCII), which reads back to the same
string, so a path passed to a worker or kept in a record is the same path on the other side.

Imports nothing of kernelopt, so every layer may use it.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError

M = TypeVar("M")

_UNREADABLE = frozenset({"json_invalid", "string_unicode"})
"""pydantic's errors for JSON it cannot read as text: an escaped lone surrogate, a raw one in a ``str``."""


def dump_json(model: BaseModel, **options: Any) -> str:
    """``model.model_dump_json(**options)``; a model holding a lone surrogate (a path an ASCII locale decoded)
    as :func:`json.dumps` of its JSON-mode dump with the surrogates escaped (``indent`` is kept)."""
    try:
        return model.model_dump_json(**options)
    except PydanticSerializationError:
        indent = options.pop("indent", None)
        separators = (",", ":") if indent is None else None
        return json.dumps(model.model_dump(mode="json", **options), indent=indent, separators=separators)


def load_json(model: type[M] | TypeAdapter[M], data: str | bytes) -> M:
    """``data`` validated as ``model`` (a model class or a ``TypeAdapter``); JSON that carries a lone surrogate
    (escaped, as :func:`dump_json` writes it, or raw in a ``str`` decoded under an ASCII locale) is read by
    :func:`json.loads`, then validated.

    Raises:
        ValidationError: ``data`` is not JSON, or not a ``model``.
    """
    adapter = model if isinstance(model, TypeAdapter) else None
    try:
        if adapter is not None:
            return adapter.validate_json(data)
        return model.model_validate_json(data)  # type: ignore[union-attr]
    except ValidationError as exc:
        if not any(e["type"] in _UNREADABLE for e in exc.errors()):
            raise
        try:
            doc = json.loads(data)
        except ValueError:
            raise exc from None
        if adapter is not None:
            return adapter.validate_python(doc)
        return model.model_validate(doc)  # type: ignore[union-attr]
