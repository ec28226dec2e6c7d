"""Constexprs that are the block of the data's format, read from the kernel's body: a quantization block.

DeepSeek-V3's block-scaled fp8 GEMM (breaker11's fp8_block_gemm) holds ``BLOCK_SIZE_K`` at 128 in every config of its
autotune list: its K tile is also the block one scale covers, and the kernel reads it so, ``b_s_ptr + (offs_n //
BLOCK_SIZE_K) * k``: the column offsets of another tile divided by it pick ``b``'s scale. Any other value reads
other scales (wrong at every size, 5 of 6 CPU candidates failing their check, 11 of 12 at one block); a tile never
divides an index, it spans a ``tl.arange`` or multiplies a program id or a stride.

The rule, on the kernel's own body (its local assignments followed one level): a ``tl.constexpr`` parameter is a
grain when it is the whole divisor of a division (``x // NAME``, ``x / NAME``) whose dividend reads a ``tl.arange`` of
another block, directly or through a local assigned from one, or is a program's first index along another tile (a
program id times another constexpr: GemLite's ``(pid_k * BLOCK_SIZE_K) // group_size`` picks the K block's scale
row). Such a constexpr is held at its value (never a knob).
Pure: libcst nodes in, a line out.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import libcst as cst

from kernelopt.tunables.bindings import assigned_once
from kernelopt.tunables.blocks import dotted, walk
from kernelopt.tunables.filters import constexpr_params
from kernelopt.tunables.signature import params_of
from kernelopt.tunables.syntax import NODES_KEPT


def _aranges(node: cst.CSTNode) -> list[cst.Call]:
    return [n for n in walk(node) if isinstance(n, cst.Call) and dotted(n.func).split(".")[-1] == "arange"]


def _names(node: cst.CSTNode) -> set[str]:
    return {n.value for n in walk(node) if isinstance(n, cst.Name)}


def _outside_loads(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` with each ``tl.load(...)`` it holds replaced by a bare name: what a load returns is data, not an
    index, so a dividend ``tl.load(LOGITS + cols, ...) / TEMPERATURE`` spans no block (Liger's selective log-softmax:
    ``TEMPERATURE`` was said to divide "an index of another block", breaker23's q34)."""

    class _Loads(cst.CSTTransformer):
        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
            return cst.Name("_loaded") if dotted(original.func).split(".")[-1] == "load" else updated

    return node.visit(_Loads())


@functools.lru_cache(maxsize=NODES_KEPT)
def grain_sizes(kernel: cst.FunctionDef) -> dict[str, str]:
    """``tl.constexpr`` parameter -> why it is a grain of what ``kernel`` reads (module docstring); read once per
    kernel node (the cached dict is shared: callers copy it before changing it)."""
    params = constexpr_params(kernel)
    spans: dict[str, set[str]] = {}  # a local assigned from a tl.arange -> the names its aranges span
    once = assigned_once(kernel)  # a local standing for its value (b4)
    for node in walk(kernel.body):
        if isinstance(node, cst.Assign) and (found := _aranges(node.value)):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    spans.setdefault(t.target.value, set()).update(n for a in found for n in _names(a))
    out: dict[str, str] = {}
    for node in walk(kernel.body):
        if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide | cst.Divide)):
            continue
        if not isinstance(node.right, cst.Name) or node.right.value not in params or node.right.value in out:
            continue
        name = node.right.value
        dividend = _outside_loads(node.left)
        spanned = {n for a in _aranges(dividend) for n in _names(a)}
        for local in _names(dividend):
            spanned |= spans.get(local, set())
        if not spanned and tile_offset(node.left, params - {name}, once) is not None:
            spanned = {"tile"}  # a program's first index along another tile: (pid_k * BLOCK_SIZE_K) // group_size
        if spanned and name not in spanned:
            index = cst.Module([]).code_for_node(node)
            out[name] = (
                f"'{name}' divides an index of another block ({index}): a grain of what the kernel reads (a "
                "quantization block that picks a scale, a count that groups slots), not a tile; another value reads "
                "other elements, so it is held at its value"
            )
    return out


#: the calls whose arguments are a tensor's new shape (``x.reshape(M, N // G, G)``, ``tl.reshape(x, (M, N // G, G))``)
_SPLITS = frozenset({"reshape", "view"})


@functools.lru_cache(maxsize=NODES_KEPT)
def split_groups(kernel: cst.FunctionDef) -> dict[str, str]:
    """``tl.constexpr`` parameter -> why it is a group the data is split into: the whole divisor of an axis of a
    reshape (LMDeploy's blocked fp8 quantization, ``x.reshape(M, N // GROUP_SIZE, GROUP_SIZE)`` under one scale a
    group; its name is an L2 swizzle's, breaker28's q81). A tile split into pairs divides by a literal (``(BLOCK //
    2, 2)``) and is no such group. Read once per node (the cached dict is shared: callers copy it)."""
    params = constexpr_params(kernel)
    out: dict[str, str] = {}
    for node in walk(kernel.body):
        if not (isinstance(node, cst.Call) and dotted(node.func).split(".")[-1] in _SPLITS):
            continue
        for part in (n for a in node.args for n in walk(a.value)):
            if not (isinstance(part, cst.BinaryOperation) and isinstance(part.operator, cst.FloorDivide)):
                continue
            name = part.right.value if isinstance(part.right, cst.Name) else None
            if name in params and name not in out and name not in _names(part.left):
                split = cst.Module([]).code_for_node(node)
                out[name] = (
                    f"'{name}' splits an axis of the data into groups ({split}): a grain of what the kernel computes "
                    "(a group under one scale), not a tile or the programs' order; another value groups other "
                    "elements, so it is held at its value"
                )
    return out


def passed_grains(kernel: cst.FunctionDef, helpers: Mapping[str, cst.FunctionDef]) -> dict[str, str]:
    """``tl.constexpr`` parameter of ``kernel`` -> why: the kernel passes it as a parameter that a ``@triton.jit``
    helper of ``helpers`` (by name) splits its data by (:func:`split_groups`; LMDeploy's ``_quant_blocked_fp8(k,
    fp8_min, fp8_max, dtype, GROUP_SIZE, ROUND_SCALE)``)."""
    params = constexpr_params(kernel)
    out: dict[str, str] = {}
    for node in walk(kernel.body):
        helper = helpers.get(dotted(node.func)) if isinstance(node, cst.Call) else None
        groups = split_groups(helper) if helper is not None and helper is not kernel else {}
        if not groups:
            continue
        names = [p.name.value for p in params_of(helper)]
        for i, arg in enumerate(node.args):
            target = arg.keyword.value if arg.keyword is not None else names[i] if i < len(names) else None
            passed = arg.value.value if isinstance(arg.value, cst.Name) and not arg.star else None
            if target in groups and passed in params and passed not in out:
                out[passed] = f"'{passed}' is {dotted(node.func)}()'s {target}: {groups[target]}"
    return out


def tile_offset(
    node: cst.BaseExpression, tiles: set[str], local: dict[str, cst.BaseExpression] | None = None
) -> cst.BaseExpression | None:
    """The product of a program id (``pid_k``, ``tl.program_id(1)``, or a local named ``pid...``) and another
    constexpr (``pid_k * BLOCK_SIZE_K``, possibly in parentheses) that ``node`` is, or is a local of ``local``
    (:func:`~kernelopt.tunables.bindings.assigned_once`) bound to (``row0 = pid_y * BLOCK_SIZE_Y``, then ``row0 //
    group_size``: break14's b4); ``None`` where it is none."""
    if isinstance(node, cst.Name) and local and node.value in local:
        return tile_offset(local[node.value], tiles)
    if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply)):
        return None
    sides = [node.left, node.right]
    tile = any(isinstance(x, cst.Name) and x.value in tiles for x in sides)
    program = any(
        (isinstance(x, cst.Name) and x.value.startswith("pid"))
        or (isinstance(x, cst.Call) and dotted(x.func).split(".")[-1] == "program_id")
        for x in sides
    )
    return node if tile and program else None
