"""The one rule for a numeric option that sets a field of a model: the field's bound is the option's.

``--max-wall-min`` sets ``stop_conditions.max_wall_time_min`` (``> 0``); ``--size-scale`` the task card's
``size_scale`` (``> 0`` and ``<= 1``). A ``min=`` of typer's cannot say "greater than", and a bound written
twice drifts (``--max-wall-min 0`` passed the command line's ``min=0`` and was refused only after the
workspace was made). :func:`bounded` parses the option with the field's own constraints, so a value out of
range is refused by the command line, as typer refuses a ``min=`` bound (one line, exit 2), before
anything is written.
"""

from __future__ import annotations

from typing import Annotated, Any, get_args

import annotated_types
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import PydanticCustomError


def _range(metadata: list[Any]) -> str | None:
    """``x>0``, ``x>=1``, ``0<x<=1`` (typer's way of showing a range) from a field's constraints."""
    low = high = None
    for m in metadata:
        if isinstance(m, annotated_types.Gt | annotated_types.Ge):
            low = (m.gt, ">", "<") if isinstance(m, annotated_types.Gt) else (m.ge, ">=", "<=")
        if isinstance(m, annotated_types.Lt | annotated_types.Le):
            high = (m.lt, "<") if isinstance(m, annotated_types.Lt) else (m.le, "<=")
    if low is not None and high is not None:
        return f"{low[0]}{low[2]}x{high[1]}{high[0]}"
    if low is not None:
        return f"x{low[1]}{low[0]}"
    if high is not None:
        return f"x{high[1]}{high[0]}"
    return None


def bounded(model: type[BaseModel], name: str) -> dict[str, Any]:
    """``parser=`` and ``metavar=`` of a typer option that takes what field ``name`` of ``model`` takes (its
    number type and its ``gt``/``ge``/``lt``/``le`` bounds): ``typer.Option(None, "--x", **bounded(M, "x"))``.

    An out-of-range value reads as typer's own ("Input should be greater than 0"); ``--help`` shows the
    range as typer shows a ``min=`` bound (``<float range> [x>0]``, ``<float range> [0<x<=1]``).
    """
    field = model.model_fields[name]
    kind: type = int if field.annotation is int or int in get_args(field.annotation) else float
    adapter: TypeAdapter[Any] = TypeAdapter(Annotated[kind, *field.metadata] if field.metadata else kind)

    def parse(value: Any) -> Any:
        try:
            return adapter.validate_python(value)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise PydanticCustomError(err["type"], err["msg"]) from None

    shown = _range(field.metadata)
    if shown is None:
        return {"parser": parse}
    return {"parser": parse, "metavar": f"<{kind.__name__} range> [{shown}]"}


def version_number(value: Any) -> int:
    """The version an option names, ``3``, ``v3`` or ``V3`` (as records, plans and ``memory`` write it) -> ``3``;
    a negative number or a word that is no version reads as typer's refusal of the option (one line, exit 2).
    ``validate --previous v0``, copied from ``memory list``, was "Input should be a valid integer" (newuser8, n40);
    ``plan --version -1`` had typer's ``min=0``, which a parser replaces."""
    from kernelopt.memory.model import parse_version

    text = value if isinstance(value, int) else str(value).strip()
    if isinstance(text, str) and text[:1] == "-" and text[1:].isascii() and text[1:].isdigit():
        text = int(text)  # -2: parse_version's own ">= 0" line; int() of anything else reads "٢" and "1_0" as numbers
    try:
        return parse_version(text)
    except ValueError as exc:
        raise PydanticCustomError("version_label", str(exc)) from None


#: ``parser=`` and ``metavar=`` of an option naming a version: ``typer.Option(None, "--version", **VERSION)``.
VERSION: dict[str, Any] = {"parser": version_number, "metavar": "v<N>"}
