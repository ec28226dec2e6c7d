"""Find the names of the GPU kernels a ``kernel.py`` defines, without importing it.

These names become the default ncu kernel filter, so that Stage 1 profiles the kernels of ``kernel.py``
and not the PyTorch kernels that build inputs. Triton kernels are functions decorated with
``triton.jit`` (also through ``triton.autotune`` / ``triton.heuristics`` stacks, or gluon's ``jit``); the
compiled kernel keeps the Python function's name. CUDA kernels in source strings (``load_inline``,
CuPy ``RawKernel``) are ``__global__`` functions; ncu's ``function`` name base drops parameters and
template arguments, so the bare identifier is what the filter needs. Pure: parses text, no I/O.
"""

from __future__ import annotations

import ast
import re

from kernelopt import pyparse

_GLOBAL = re.compile(r"__global__\s+(?:[\w:<>,\s*&]+?\s+)?(\w+)\s*\(")
_LAUNCH_BOUNDS = re.compile(r"__launch_bounds__\s*\([^)]*\)")
_JIT_NAMES = {"jit"}


def _is_jit(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute):
        return target.attr in _JIT_NAMES
    if isinstance(target, ast.Name):
        return target.id in _JIT_NAMES
    return False


def triton_kernel_names(source: str) -> list[str]:
    """Functions decorated with ``@triton.jit`` / ``@jit`` / ``@gluon.jit`` (in definition order)."""
    try:
        tree = pyparse.parse(source)
    except SyntaxError:
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(_is_jit(d) for d in node.decorator_list):
            names.append(node.name)
    return names


def cuda_kernel_names(source: str) -> list[str]:
    """``__global__`` function names found anywhere in the text (CUDA sources in strings included)."""
    text = _LAUNCH_BOUNDS.sub(" ", source)
    return list(dict.fromkeys(m.group(1) for m in _GLOBAL.finditer(text)))


def kernel_names(source: str) -> list[str]:
    """Every kernel name ``kernel.py`` defines: Triton kernels first, then CUDA ``__global__`` functions."""
    return list(dict.fromkeys(triton_kernel_names(source) + cuda_kernel_names(source)))
