"""The tunables package's own reading of a parsed tree gives libcst's answers (perf29): a node's children
(:func:`kernelopt.tunables.blocks.child_nodes`, read from its fields rather than by rebuilding it) and a text's
positions (:func:`kernelopt.tunables.syntax.parsed`, without the wrapper's empty batched visit)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from kernelopt.tunables import blocks
from kernelopt.tunables.syntax import parsed

DATA = Path(__file__).parent / "data"
KERNELS = ("breaker21/tb_streamk", "breaker25/la_nodecay", "breaker22/mg_bi_matmul")
# forms whose class visits a field only when it is set (an f-string's format spec), met first without it, then with
# it; the others a kernel file rarely holds
FORMS = """
from . import a as b, c
from .m import (d, e)
from x import *
import os.path as p
x = f"{n}" + f"{n!r:>{w}}" + f"{n:{w}.{p}}" + f"{n=}"
@dec
async def g(a, /, b: int = 1, *c, d, **e) -> None:
    global q
    async with m() as (h, i):
        async for j in k:
            yield j
    try:
        del a[1:2, ::3]
    except* (E, F) as err:
        raise G from err
    finally:
        pass
    match a:
        case [1, *rest] | {"k": _} if rest:
            lam = lambda s, *t, u=2: (s, *t, u)
        case Point(x=0) as pt:
            return {**pt, "a": [i async for i in b if i]}
    while not a is not b:
        a @= b ** -c
    else:
        assert a, "why"
class C(B, metaclass=M):
    v: list[int] = []; w = ...
type Alias[T: int, *Ts, **P] = dict[T, P]
"""


def _texts() -> list[tuple[str, str]]:
    return [(k, (DATA / k / "kernel.py").read_text(encoding="utf-8")) for k in KERNELS] + [("forms", FORMS)]


@pytest.mark.parametrize(("name", "text"), _texts(), ids=[n for n, _ in _texts()])
def test_child_nodes_are_libcsts_children_of_every_node(name: str, text: str) -> None:
    tree = cst.parse_module(text)
    nodes, seen = [tree], 0
    while nodes:
        node = nodes.pop()
        theirs = tuple(node.children)
        ours = blocks.child_nodes(node)
        assert len(ours) == len(theirs) and all(a is b for a, b in zip(ours, theirs, strict=True)), (
            f"{name}: {type(node).__name__}"
        )
        nodes.extend(theirs)
        seen += 1
    assert seen > 200  # a tree read, not an empty one


def test_an_f_string_met_first_without_its_format_spec_still_gives_it_as_a_child_later() -> None:
    plain, spec = cst.parse_expression('f"{a}"'), cst.parse_expression('f"{b:>{w}}"')
    blocks._FIELDS.pop(cst.FormattedStringExpression, None)
    part = plain.parts[0]
    assert blocks.child_nodes(part) == tuple(part.children)
    assert cst.FormattedStringExpression not in blocks._FIELDS  # the order is not read from a node that lacks one
    part = spec.parts[0]
    assert [type(c).__name__ for c in blocks.child_nodes(part)].count("FormattedStringText") == 1
    assert blocks.child_nodes(part) == tuple(part.children)
    assert cst.FormattedStringExpression in blocks._FIELDS
    # a field left None that holds no node (a newline's value, an index's star) does not keep its class unread
    line = cst.parse_module("a[i]\n").body[0]
    for node in blocks.walk(line):
        assert blocks.child_nodes(node) == tuple(node.children)
    assert {cst.Newline, cst.Index} <= set(blocks._FIELDS)


def test_parsed_positions_are_the_wrappers_positions() -> None:
    text = (DATA / KERNELS[0] / "kernel.py").read_text(encoding="utf-8") + "\n" + FORMS
    ours = parsed(text)
    module = cst.parse_module(text)
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert len(ours.positions) == len(theirs) > 1000
    assert [ours.positions.get(n) for n in blocks.walk(ours.module)] == [theirs.get(n) for n in blocks.walk(module)]


HELPED = """
import triton
import triton.language as tl

@triton.jit
def _store(ptr, offs, x, n):
    tl.store(ptr + offs, x, mask=offs < n)

@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(src + offs, mask=offs < n)
    _store(dst, offs, x, n)
"""


def _functions(text: str) -> dict[str, cst.FunctionDef]:
    return {n.name.value: n for n in cst.parse_module(text).body if isinstance(n, cst.FunctionDef)}


def test_an_answer_kept_by_a_kernels_text_is_a_new_one_where_the_kernel_or_a_helper_it_calls_is_edited() -> None:
    """An access reading is kept by the text of the kernel and of the helpers it names (perf29 s82): the same texts
    parsed again get the kept answer; a helper's store without its mask, or the kernel's load without its own, is
    another text and gets its own answer; a helper the kernel does not name is no part of it."""
    unchecked = blocks.unchecked_blocks
    first = _functions(HELPED)
    assert unchecked(first["_copy"], helpers=first) == set()
    again = _functions(HELPED + "\n@triton.jit\ndef _other(p):\n    tl.store(p, 0)\n")  # new nodes, one more helper
    assert blocks.node_code(again["_copy"]) == blocks.node_code(first["_copy"])
    assert unchecked(again["_copy"], helpers=again) == set()
    unmasked_helper = _functions(HELPED.replace("x, mask=offs < n)", "x)"))
    assert unchecked(unmasked_helper["_copy"], helpers=unmasked_helper) == {"BLOCK"}
    unmasked_load = _functions(HELPED.replace("src + offs, mask=offs < n)", "src + offs)"))
    assert unchecked(unmasked_load["_copy"], helpers=unmasked_load) == {"BLOCK"}
    # the helper's store is not read where no helper is given, and the kept answer is the caller's own copy
    alone = unchecked(first["_copy"])
    alone.add("changed")
    assert unchecked(first["_copy"]) == set()


def test_the_names_a_body_binds_and_the_bindings_a_node_makes_are_the_isinstance_readings() -> None:
    """suite30 s110-s111: :func:`blocks._names_bound` (kept per node, through :func:`blocks.typed`) and
    :func:`bindings.made_by` (a node of a class that binds nothing answered by its class) give what a walk testing
    each node with ``isinstance`` gives, for every function body of a real kernel file (breaker22's mg_bi_matmul); the
    classes tested by their exact class have no subclass in libcst (a subclass would be read as nothing)."""
    from kernelopt.tunables import bindings

    exact = (*bindings._BINDERS, *bindings._TESTED, cst.FunctionDef, cst.CompFor, cst.Call, cst.Name, cst.Attribute)
    assert all(not c.__subclasses__() for c in exact)
    module = parsed((DATA / KERNELS[2] / "kernel.py").read_text()).module
    targeted = (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.CompFor)
    bodies = [n.body for n in blocks.walk(module) if isinstance(n, cst.FunctionDef)]
    assert bodies
    for body in bodies:
        nodes = blocks.walk(body)
        plain = {
            m.value for n in nodes if isinstance(n, targeted) for m in blocks.walk(n.target) if isinstance(m, cst.Name)
        }
        plain |= {n.name.value for n in nodes if isinstance(n, cst.Param)}
        assert blocks._names_bound(body) == plain and blocks._names_bound(body) is blocks._names_bound(body)
        for node in nodes:
            binds = isinstance(
                node, cst.Assign | cst.AnnAssign | cst.AugAssign | cst.For | cst.NamedExpr | cst.WithItem
            )
            assert binds or list(bindings.made_by(node)) == [], node
