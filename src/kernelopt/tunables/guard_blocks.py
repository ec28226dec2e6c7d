"""One guard block per condition: two guards ``tune`` wrote one after the other under the same test are written as
one, as a Triton user writes them, readable in a diff.

A pick whose tile needs a guard, with other settings set under that guard too, was written as two blocks
(rounds13, on tests/data/gpuparity/kstep)::

    BLOCK_N = 32
    if N <= 16 * 65535:  # kernelopt: tuned
        BLOCK_N = 16
    BLOCK_M, KSTEP = 32, 8
    if N <= 16 * 65535:  # kernelopt: tuned
        BLOCK_M, KSTEP = 64, 64

and is now::

    BLOCK_N, BLOCK_M, KSTEP = 32, 32, 8
    if N <= 16 * 65535:  # kernelopt: tuned
        BLOCK_N, BLOCK_M, KSTEP = 16, 64, 64

The same kernel runs at every size: each fallback line and each block sets literals only, to names of their own
(none read by the test or set by the other pair), and the test, read twice before, is read once. The form is still a
guard's (a fallback line right before its block: :func:`~kernelopt.tunables.guard.guarded_values` and a later
session's stale-guard splice read it)."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from kernelopt.tunables.blocks import walk
from kernelopt.tunables.inline_guard import TUNED, literal_settings, marked_tuned


def one_block_per_condition(source: str) -> str:
    """``source`` with each run of guards ``tune`` wrote under one test (a fallback line, then ``if test:  #
    kernelopt: tuned`` setting the same names) merged into one fallback line and one block; ``source`` itself when
    there is none to merge or it does not parse."""
    if source.count(TUNED) < 2:
        return source
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return source
    merged = module.visit(_Merger())
    return merged.code if not merged.deep_equals(module) else source


class _Merger(cst.CSTTransformer):
    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body = _merged(list(updated.body))
        return updated.with_changes(body=body) if len(body) != len(updated.body) else updated


def _merged(body: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """``body`` with each (fallback, guard, fallback, guard) of one test made one (fallback, guard), repeatedly."""
    out: list[cst.BaseStatement] = []
    for stmt in body:
        out.append(stmt)
        while len(out) >= 4:
            pair = _join(out[-4], out[-3], out[-2], out[-1])
            if pair is None:
                break
            out[-4:] = list(pair)
    return out


def _join(
    first: cst.BaseStatement, guard: cst.BaseStatement, second: cst.BaseStatement, again: cst.BaseStatement
) -> tuple[cst.SimpleStatementLine, cst.If] | None:
    one, two = _pair(first, guard), _pair(second, again)
    if one is None or two is None or len(second.leading_lines) or len(again.leading_lines):
        return None
    assert isinstance(guard, cst.If) and isinstance(again, cst.If)
    if not guard.test.deep_equals(again.test):
        return None
    (names1, low1, high1), (names2, low2, high2) = one, two
    read = {n.value for n in walk(guard.test) if isinstance(n, cst.Name)}
    if set(names1) & set(names2) or read & {*names1, *names2}:
        return None
    names = [*names1, *names2]
    assert isinstance(first, cst.SimpleStatementLine) and isinstance(guard.body, cst.IndentedBlock)
    fallback = first.with_changes(body=[_assign(names, [*low1, *low2])])
    inner = guard.body.body[0]
    assert isinstance(inner, cst.SimpleStatementLine)
    block = guard.body.with_changes(body=[inner.with_changes(body=[_assign(names, [*high1, *high2])])])
    return fallback, guard.with_changes(body=block)


def _pair(
    fallback: cst.BaseStatement, guard: cst.BaseStatement
) -> tuple[list[str], list[cst.BaseExpression], list[cst.BaseExpression]] | None:
    """The names, their fallback values and their guarded values of a guard ``tune`` wrote (``A, B = 1, 2`` then
    ``if test:  # kernelopt: tuned`` / ``A, B = 3, 4``, integer literals), else ``None``."""
    if not isinstance(guard, cst.If) or guard.orelse is not None or not isinstance(guard.body, cst.IndentedBlock):
        return None
    if not marked_tuned(guard) or len(guard.body.body) != 1:
        return None
    low, high = _literals(fallback), _literals(guard.body.body[0])
    if low is None or high is None or [n for n, _ in low] != [n for n, _ in high]:
        return None
    return [n for n, _ in low], [v for _, v in low], [v for _, v in high]


def _literals(stmt: cst.BaseStatement) -> list[tuple[str, cst.Integer]] | None:
    """(name, value) of ``A = 1`` or ``A, B = 1, 2`` (integer literals, names each once: the one reading,
    :func:`~kernelopt.tunables.inline_guard.literal_settings`), else ``None``."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    out = literal_settings(stmt.body[0])
    return out if out is not None and len({n for n, _ in out}) == len(out) else None


def _assign(names: Sequence[str], values: Sequence[cst.BaseExpression]) -> cst.Assign:
    if len(names) == 1:
        return cst.Assign(targets=[cst.AssignTarget(cst.Name(names[0]))], value=values[0])
    target = cst.Tuple([cst.Element(cst.Name(n)) for n in names], lpar=[], rpar=[])
    return cst.Assign(
        targets=[cst.AssignTarget(target)], value=cst.Tuple([cst.Element(v) for v in values], lpar=[], rpar=[])
    )
