"""One place for each rule (twins15, 2026-12-06): the reading of computed launch settings
(tunables/readers.py) reads a file's bindings by the one rule of tunables/bindings.py, from the file's one parse."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest

DATA = Path(__file__).resolve().parent / "data"

CHAINS = """
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    threads = 7
    width = threads + 1
    tl.store(x_ptr + tl.arange(0, BLOCK), width)


def run(x):
    nw = 2
    threads, rows = nw * 32, 1
    BLOCK: int = threads

    def grid(meta):
        tiles = threads * 2
        return (tiles,)

    k[grid](x, BLOCK=BLOCK, num_warps=nw)
"""


def test_the_readers_follow_a_launch_option_by_the_bindings_rule_scope_by_scope() -> None:
    """The chain from a launch option (``nw``) runs through the launcher's assignments in source order: an unpacking
    gives each name its paired element (``threads`` takes ``nw * 32``, ``rows`` the literal 1: b9), an annotated
    assignment counts (``BLOCK: int``), and a nested function's locals are its enclosing function's (``tiles``, read
    through the closure; each function had a scope of its own before, so ``tiles`` was not followed). The kernel's
    own ``threads`` is another name: its ``width`` is not followed."""
    from kernelopt.tunables.readers import _followed, _parse

    assert _followed(_parse(CHAINS), {"nw": 4}) == {"threads": 128, "BLOCK": 128, "tiles": 256}
    assert _followed(_parse(CHAINS), {"nw": None}) == {"threads": None, "BLOCK": None, "tiles": None}
    assert _followed(_parse("def run(:\n"), {"nw": 4}) == {}  # not Python: nothing follows


def test_shrunk_covers_parses_the_file_once_and_never_with_ast(monkeypatch: pytest.MonkeyPatch) -> None:
    """n64's reading (tests/data/newuser12/warps_cover) parsed the file with ``ast`` three times for each computed
    reader, beside libcst's parse of it: now one parse, the one every reader of the text shares (a pick that grows
    the block, which the cover's proof of tunables/cover_kept.py is not asked about)."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import shrunk_covers
    from kernelopt.tunables.syntax import parsed

    text = (DATA / "newuser12" / "warps_cover" / "kernel.py").read_text()
    tunables = discover_source(text)
    parsed.cache_clear()  # type: ignore[attr-defined]
    calls: list[str] = []
    ast_calls: list[str] = []
    parse_module, parse_ast = cst.parse_module, ast.parse

    def counted(source: str, *args: object, **kwargs: object) -> cst.Module:
        calls.append(source)
        return parse_module(source, *args, **kwargs)  # type: ignore[arg-type]

    def counted_ast(source: str, *args: object, **kwargs: object) -> ast.AST:
        ast_calls.append(source)
        return parse_ast(source, *args, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as patched:  # undone before the asserts: pytest's report parses with ast
        patched.setattr(cst, "parse_module", counted)
        patched.setattr(ast, "parse", counted_ast)
        grown = shrunk_covers(tunables, text, {"num_warps": 16}, {"num_warps": 8})  # BLOCK 2048: it covers
    assert calls == [text] and grown == []
    assert not [s for s in ast_calls if "=" in s or "\n" in s]  # a literal's value aside (libcst's evaluated_value)
    assert shrunk_covers(tunables, text, {"num_warps": 4}, {"num_warps": 8}) == [
        "BLOCK is computed from num_warps (BLOCK = warps * 128) and covers N with one block (cols < N): num_warps=4 "
        "makes it 512, smaller than the original's 1024, which leaves part of a row undone where the original covers it"
    ]
