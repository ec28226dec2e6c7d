"""The layout of a ``@triton.heuristics`` decorator a tuned table was written into, as ``ruff format`` lays it out.

A table written into a heuristic's lambda (``128 if args["n_cols"] <= 100 else 8192 if args["n_cols"] <= 5000
else <the computation>``) makes its decorator one long line (165 characters for two rows: tunegaps11). When a
line of the decorator runs past :data:`LINE_LIMIT`, the decorator is laid out as the formatter lays out a call
of one dict: the dict on its own line if it fits, else one entry a line, and an entry still too long a lambda
whose body is parenthesized on its own line, or, too long there, its conditional expression one clause a line::

    @triton.heuristics(
        {
            "BLOCK": lambda args: (
                128 if args["N"] <= 100 else 4096 // triton.next_power_of_2(args["R"])
            )
        }
    )

A decorator holding a comment, or an entry written over several lines, is left as it is (its author laid it out).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

#: The longest line a written decorator keeps on one line (the project's, and a common, ``line-length``).
LINE_LIMIT = 120
_INDENT = "    "


def lay_out_heuristics(source: str, old: str, limit: int = LINE_LIMIT) -> str:
    """``source`` with each ``@...heuristics({...})`` decorator that is not in ``old`` as it is (the text before
    the edit: what its author wrote stays) laid out as the formatter lays it out: on one line where it fits in
    ``limit`` columns, else over several; ``source`` itself when no decorator changed."""
    wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    lines = source.splitlines(keepends=True)
    spans: list[tuple[int, int, str]] = []
    for node in _decorators(wrapper.module):
        pos = positions[node]
        first, last = pos.start.line - 1, pos.end.line - 1
        written = "".join(lines[first : last + 1])
        if written.strip() in old:
            continue
        text = _laid_out(node, written[: len(written) - len(written.lstrip())], limit)
        if text is not None:
            newline = lines[last][len(lines[last].rstrip("\r\n")) :] or "\n"
            spans.append((first, last, text.replace("\n", newline) + newline))
    for first, last, text in reversed(spans):
        lines[first : last + 1] = [text]
    return "".join(lines)


def _decorators(module: cst.Module) -> list[cst.Decorator]:
    out: list[cst.Decorator] = []

    class _Find(cst.CSTVisitor):
        def visit_Decorator(self, node: cst.Decorator) -> None:
            call = node.decorator
            if (
                isinstance(call, cst.Call)
                and _code(call.func).split(".")[-1] == "heuristics"
                and len(call.args) == 1
                and call.args[0].keyword is None
                and isinstance(call.args[0].value, cst.Dict)
            ):
                out.append(node)

    module.visit(_Find())
    return out


def _laid_out(node: cst.Decorator, indent: str, limit: int) -> str | None:
    """The decorator's text laid out, or ``None`` where it is left as written (a comment, an entry of several
    lines, an entry no layout fits)."""
    call = cst.ensure_type(node.decorator, cst.Call)
    table = cst.ensure_type(call.args[0].value, cst.Dict)
    if "#" in "".join(_comments(node)):
        return None
    entries: list[tuple[str, cst.BaseExpression]] = []
    for element in table.elements:
        if not isinstance(element, cst.DictElement):
            return None
        value = _flat(element.value)
        if value is None:
            return None
        entries.append((f"{_code(element.key)}: {_code(value)}", value))
    head = f"{indent}@{_code(call.func)}("
    # a trailing comma after the last entry keeps the dict one entry a line (the formatter's magic trailing comma)
    magic = bool(table.elements) and isinstance(table.elements[-1].comma, cst.Comma)
    whole = f"{head}{{{', '.join(text for text, _ in entries)}}})"
    if len(whole) <= limit and not magic:
        return whole
    inline = f"{indent}{_INDENT}{{{', '.join(text for text, _ in entries)}}}"
    if len(inline) <= limit and not magic:
        return "\n".join([head, inline, f"{indent})"])
    inner = indent + _INDENT * 2
    comma = "," if len(entries) > 1 or magic else ""
    body: list[str] = []
    for text, value in entries:
        line = f"{inner}{text}{comma}"
        if len(line) <= limit:
            body.append(line)
            continue
        broken = _lambda_lines(text, value, inner, limit)
        if broken is None:
            return None
        body += [*broken[:-1], broken[-1] + comma]
    return "\n".join([head, f"{indent}{_INDENT}{{", *body, f"{indent}{_INDENT}}}", f"{indent})"])


def _flat(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """A dict entry's value on one line: a lambda's parenthesized body (a layout written before) without its
    parentheses, a chain of conditional expressions laid over several lines joined again; ``None`` when a part
    of it is still written over several lines."""
    if isinstance(value, cst.Lambda) and value.body.lpar:
        body = value.body.with_changes(lpar=[], rpar=[])
        if isinstance(body, cst.IfExp):
            body = cst.parse_expression(" ".join(_clauses(body)))
        value = value.with_changes(body=body)
    return None if "\n" in _code(value) else value


def _lambda_lines(text: str, value: cst.BaseExpression, indent: str, limit: int) -> list[str] | None:
    """A dict entry ``"K": lambda args: <body>`` over several lines: the body parenthesized on a line of its own,
    or one clause of its conditional expression a line; ``None`` when the entry is no lambda or a line still runs
    past ``limit``."""
    if not isinstance(value, cst.Lambda):
        return None
    body = value.body
    key = text[: len(text) - len(_code(value))]
    params = _code(value.params)
    start = f"{indent}{key}lambda {params}: (" if params else f"{indent}{key}lambda: ("
    inner = indent + _INDENT
    one = f"{inner}{_code(body).strip()}"
    middle = [one] if len(one) <= limit else [f"{inner}{clause}" for clause in _clauses(body)]
    if any(len(line) > limit for line in (start, *middle)):
        return None
    return [start, *middle, f"{indent})"]


def _clauses(expr: cst.BaseExpression) -> list[str]:
    """A chain of conditional expressions one clause a line, as the formatter splits it: ``128``, ``if args["N"]
    <= 100``, ``else 256``, ..., ``else <the computation>``."""
    out: list[str] = []
    prefix = ""
    while isinstance(expr, cst.IfExp) and not expr.lpar:
        out += [f"{prefix}{_code(expr.body).strip()}", f"if {_code(expr.test).strip()}"]
        prefix, expr = "else ", expr.orelse
    out.append(f"{prefix}{_code(expr).strip()}")
    return out


def _comments(node: cst.CSTNode) -> list[str]:
    found: list[str] = []

    class _Find(cst.CSTVisitor):
        def visit_Comment(self, comment: cst.Comment) -> None:
            found.append(comment.value)

    node.visit(_Find())
    return found


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)
