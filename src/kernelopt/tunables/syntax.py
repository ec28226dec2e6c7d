"""One parse of a kernel text for every reader of the tunables package, and what is kept of it.

A tuning session reads the same texts again and again: discovery of kernel.py (three times while it decides
whether to evaluate it), each candidate's edit of the original and the check of the edited text, and the guard's
reading of both. Each reader parsed the text again, with libcst's parse, its copy of the tree for the metadata
wrapper and its position pass: on a 380 kB kernel.py (100 Triton kernels) those were most of a `tune --dry-run`.
:func:`parsed` parses a text once for all of them.

What is kept is bounded by the texts' size as well as their number (:func:`kept_by_text`): a tree and its
positions take about 320 bytes of memory per character of source (355 MB for a 1.1 MB kernel.py), so 64 trees
of one large file's candidates grew a session past 1.3 GB (faults7's leftover). The two most recent texts are
always kept (a session's original and its current candidate).
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

#: Our choice: how many texts' results one cache keeps at most.
TEXTS_KEPT = 64
#: Our choice: how many characters of source one cache keeps results for (about 640 MB of trees at 320 bytes of
#: memory a character), beyond its two most recent texts.
CHARS_KEPT = 2_000_000
#: The most recent texts a cache keeps whatever their size.
ALWAYS_KEPT = 2
#: Our choice: how many nodes' results a cache by node keeps (a kernel's body, read per launch and per candidate).
NODES_KEPT = 4096

T = TypeVar("T")


def kept_by_text(fn: Callable[[str], T]) -> Callable[[str], T]:
    """``fn(source)``, kept for the next call with the same text: the least recently used results go first
    once more than :data:`TEXTS_KEPT` texts or :data:`CHARS_KEPT` characters are kept (never the
    :data:`ALWAYS_KEPT` most recent). An exception is not kept. ``cache_clear()`` forgets them all."""
    kept: OrderedDict[str, T] = OrderedDict()
    chars = 0

    @functools.wraps(fn)
    def cached(source: str) -> T:
        nonlocal chars
        if source in kept:
            kept.move_to_end(source)
            return kept[source]
        result = fn(source)
        kept[source] = result
        chars += len(source)
        while len(kept) > ALWAYS_KEPT and (len(kept) > TEXTS_KEPT or chars > CHARS_KEPT):
            old, _ = kept.popitem(last=False)
            chars -= len(old)
        return result

    def cache_clear() -> None:
        nonlocal chars
        kept.clear()
        chars = 0

    cached.cache_clear = cache_clear  # type: ignore[attr-defined]
    return cached


@dataclass(frozen=True)
class Parsed:
    """A text's tree and where each of its nodes is (lines from 1, columns from 0)."""

    module: cst.Module
    positions: Mapping[cst.CSTNode, CodeRange]


@kept_by_text
def parsed(source: str) -> Parsed:
    """The parse of ``source`` with its positions, made once per text (module docstring).

    Raises:
        cst.ParserSyntaxError: the text is not Python (nothing is kept).
    """
    # the tree is ours alone: the wrapper need not copy it (a third of the parse's time and twice its memory)
    wrapper = _Wrapper(cst.parse_module(source), unsafe_skip_copy=True)
    return Parsed(wrapper.module, wrapper.resolve(PositionProvider))


class _Wrapper(MetadataWrapper):
    """libcst's wrapper, less one visit: resolving a provider that is not batchable (positions are computed by one
    pass of code generation) still runs a batched visit of the whole tree with no visitor in it, which rebuilds every
    node and keeps nothing (a third of the position pass, 6.2 of 17.3 s under cProfile in 26 guarded edits of the
    benchmark's kernels; perf29 s80). With no visitor there is nothing to visit: the module is the visit's answer."""

    __slots__ = ()

    def visit_batched(
        self,
        visitors: Iterable[cst.BatchableCSTVisitor],
        before_visit: Callable[[cst.CSTNode], None] | None = None,
        after_leave: Callable[[cst.CSTNode], None] | None = None,
    ) -> cst.CSTNode:
        visitors = list(visitors)
        if not visitors:
            return self.module
        return super().visit_batched(visitors, before_visit, after_leave)
