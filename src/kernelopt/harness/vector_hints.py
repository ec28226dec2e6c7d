"""The authors' alignment hints on a wrapped offset, and the vector accesses a GPU compile builds on them.

Matmul kernels of Triton's old tutorial line (bitsandbytes' int8 matmul, Inductor's mm template) wrap their rows and
columns and tell the compiler the result is aligned: ``ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M),
BLOCK_M)``. The claim holds where ``M`` is a multiple of ``BLOCK_M``; where it is not, the last tile wraps
(``rm % M`` runs ``M-2, M-1, 0, 1, ...``) and the compiler, believing every run of ``v`` lanes starts at a multiple of
``v``, loads ``v`` elements at once from an address that is not: a ``misaligned address`` CUDA error, the context
lost (pytorch/pytorch#125437, triton-lang/triton#1297). Whether it happens depends on the configuration (the tile and
``num_warps`` give each thread its lanes: bitsandbytes' ``BLOCK_M = 256`` on four warps gives two rows of
``state_x`` a thread, ``ld.global.v2.b32``; on eight warps one, ``ld.global.b32``) and on the size (a run of ``v``
lanes wrapped at ``M`` starts at ``(-M) mod v``: misaligned exactly where ``M`` is not a multiple of ``v``). The
columns the wrap reads are masked at the store: the hint costs no wrong value, only the fault.

:func:`wrapped_hints` reads the hinted names from the source; :func:`hinted_vectors` reads, from a compile's PTX,
the widest vector access at each source line that indexes a pointer argument by one of them directly
(``tl.load(state_w_ptr + rbn)``; a 2-D tile built from such a name and a row stride is not read: its vector runs
along the other axis, or needs the stride's divisibility, which the compiler knows only of a multiple of 16).
A run of ``v`` lanes wrapped at ``M`` starts at ``(-M) mod v``: such an access faults where ``M`` is no multiple of
``v``: the check of a pick compiled for the target (``target_compile._wider_than_hinted``) refuses one that loads
more at once on such an offset than the original does. docs/faults.md, "misalign17", has the PTX.

Pure: no I/O, no Triton import.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from pydantic import BaseModel, ConfigDict

from kernelopt import pyparse

#: The hints that claim an offset's alignment (``tl.multiple_of``) and its contiguity (``tl.max_contiguous``).
HINTS = ("multiple_of", "max_contiguous")

#: A global access of the PTX and its bytes: ``ld.global.v2.b32`` (8), ``ld.global.L1::evict_last.v4.b32`` (16), two
#: fp16 in one ``ld.global.b32`` (4), an async copy's size (``cp.async.ca.shared.global [ ... ], [ ... ], 0x8``).
_VECTOR = re.compile(
    r"\b(?:ld|st)\.global(?:\.[\w:]+?)*?(?:\.v(?P<count>\d))?\.b(?P<bits>\d+)\b|"
    r"\bcp\.async\.c[ag]\.shared\.global\s*\[[^]]*\],\s*\[[^]]*\],\s*0x(?P<bytes>[0-9a-fA-F]+)"
)
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+")
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')


class WrappedHint(BaseModel):
    """A name the source binds to a hinted offset wrapped by a size: ``ram`` for ``tl.max_contiguous(tl.multiple_of(
    rm % M, BLOCK_M), BLOCK_M)`` (``modulus`` ``M``, ``line`` its 1-based line)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    modulus: str
    line: int


class VectorAccess(BaseModel):
    """The widest global vector access a compile builds at one source line that indexes a pointer by a hinted name.

    Attributes:
        line: the source line's text, stripped (the same in the written kernel and the original, whose line numbers
            differ by what the edit wrote above).
        hint: the hinted name the line reads (:class:`WrappedHint`).
        modulus: the size that wraps it (``M``).
        pointer: the pointer argument it indexes.
        elements: the vector's elements (its bytes over the pointer's element's).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    line: str
    hint: str
    modulus: str
    pointer: str
    elements: int


def wrapped_hints(source: str) -> list[WrappedHint]:
    """Each name bound (``name = ...``) to a ``tl.multiple_of`` / ``tl.max_contiguous`` hint, one inside the other or
    alone, of an offset wrapped by ``% SIZE`` (a plain name: the size the hint is false at): the claim of a block's
    alignment that the wrap breaks. ``[]`` for a source that does not parse."""
    try:
        tree = pyparse.parse(source)
    except SyntaxError:
        return []
    out: list[WrappedHint] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        value: ast.expr = node.value
        hinted = False
        while isinstance(value, ast.Call) and _hint_call(value) and value.args:
            hinted, value = True, value.args[0]
        if (
            hinted
            and isinstance(value, ast.BinOp)
            and isinstance(value.op, ast.Mod)
            and isinstance(value.right, ast.Name)
        ):
            out.append(WrappedHint(name=node.targets[0].id, modulus=value.right.id, line=node.lineno))
    return out


def _hint_call(call: ast.Call) -> bool:
    func = call.func
    return (isinstance(func, ast.Attribute) and func.attr in HINTS) or (isinstance(func, ast.Name) and func.id in HINTS)


def element_bytes(triton_type: str) -> int | None:
    """The bytes of a pointer argument's element from its Triton type (``*fp32`` -> 4, ``*i8`` -> 1, ``*fp8e4nv`` ->
    1); ``None`` for a type that is no pointer or names no width."""
    if not triton_type.startswith("*"):
        return None
    if "fp8" in triton_type:
        return 1
    bits = re.search(r"(\d+)$", triton_type)
    return max(int(bits.group(1)) // 8, 1) if bits else None


def hinted_vectors(
    ptx: str, source: str, kernel_path: str, pointers: Mapping[str, str], hints: Sequence[WrappedHint]
) -> list[VectorAccess]:
    """The widest global vector access (more than one element) at each line of ``source`` (the kernel's file, at
    ``kernel_path`` in the PTX's ``.file`` table) that indexes one pointer argument (``pointers``: name -> Triton type,
    the launch's signature) by one of ``hints``' names directly; in the order the lines come."""
    if not hints:
        return []
    table = {m.group(1): m.group(2) for ln in ptx.splitlines() if (m := _FILE.match(ln))}
    # the path a compile recorded: Triton's cache serves a kernel of the same text compiled from another copy of the
    # file, whose path it keeps: the same name is the file then
    files = {k for k, v in table.items() if v == kernel_path} or {
        k for k, v in table.items() if PurePosixPath(v).name == PurePosixPath(kernel_path).name
    }
    lines = source.splitlines()
    widest: dict[int, int] = {}
    at: int | None = None
    for text in ptx.splitlines():
        loc = _LOC.match(text)
        if loc is not None:
            at = int(loc.group(2)) if loc.group(1) in files else None
            continue
        found = _VECTOR.search(text)
        if found is None or at is None:
            continue
        size = int(found["count"] or 1) * int(found["bits"]) // 8 if found["bits"] else int(found["bytes"], 16)
        widest[at] = max(widest.get(at, 0), size)
    out = []
    for number, size in sorted(widest.items()):
        text = lines[number - 1].strip() if 0 < number <= len(lines) else ""
        named = [h for h in hints if re.search(rf"\b{re.escape(h.name)}\b", text)]
        used = [
            (p, b) for p, t in pointers.items() if re.search(rf"\b{re.escape(p)}\b", text) and (b := element_bytes(t))
        ]
        if len(named) == 1 and len(used) == 1 and size // used[0][1] > 1:
            hint, (pointer, each) = named[0], used[0]
            out.append(VectorAccess(line=text, hint=hint.name, modulus=hint.modulus, pointer=pointer,
                                    elements=size // each))  # fmt: skip
    return out
