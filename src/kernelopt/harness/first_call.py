"""A kernel wrong on its first call only: an ``@triton.autotune`` list that benchmarks into its own outputs.

On the first call at a new key, Triton's autotuner runs every config it keeps on the caller's tensors before the
call itself. A kernel that adds into an output (``tl.atomic_add``) or writes only part of it (a larger block writes
fewer partial sums) keeps what the benchmark runs left there unless the list names that output in
``reset_to_zero`` (zeroed before each run) or ``restore_value`` (restored after it): the first call is wrong, the
later ones right. A check that follows a warm-up never sees it, and a user's first call in production is wrong
(break13, docs/faults.md).

The checks (the gate's worker, the tuning engine's candidate check) call a kernel first in a fresh process, so they
see that first call; what this module adds costs nothing to a kernel that passes. :func:`watch_benchmarks` records
the autotuners that benchmarked their configs during a call (Triton's ``Autotuner.run`` wrapped for the
call only); where that call's check fails, the checker calls the kernel once more and, when the second call passes,
:func:`first_call_line` says why the first was wrong and how to fix it. Where no reference is at hand (tune's
discovery runs the task alone), :func:`calls_differ` holds the first call's outputs to the second's by the gate's one
comparison (:func:`kernelopt.harness.compare.check_outputs`, reference.py's ``ATOL`` / ``RTOL`` read as the gate
reads them), so a first call is judged by one tolerance and said in one message wherever it is watched.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from kernelopt import pyparse

WRITES = frozenset(
    {"store", "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor", "atomic_xchg"}
)
"""``tl.<name>`` calls whose first argument is a pointer the kernel writes through."""


@dataclass(frozen=True)
class Benchmarked:
    """An autotuner that benchmarked configs during a call, with nothing that undoes what the runs wrote.

    Attributes:
        kernel: the autotuned function's name.
        configs: how many configs it ran on the caller's tensors.
        written: the kernel's pointer parameters it stores or adds through (what ``reset_to_zero`` would name).
    """

    kernel: str
    configs: int
    written: tuple[str, ...]


@contextmanager
def watch_benchmarks() -> Iterator[list[Benchmarked]]:
    """The autotuners that benchmarked configs (one or more) on the caller's tensors inside the block and hold no
    ``reset_to_zero`` / ``restore_value`` (nothing when Triton is not imported)."""
    seen: list[Benchmarked] = []
    if "triton" not in sys.modules:
        yield seen
        return
    from triton.runtime.autotuner import Autotuner

    original = Autotuner.run

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        before = len(getattr(self, "cache", {}) or {})
        try:
            return original(self, *args, **kwargs)
        finally:
            timings = getattr(self, "configs_timings", None) or {}
            grew = len(getattr(self, "cache", {}) or {}) > before
            if grew and timings and not (self.reset_to_zero or self.restore_value):
                fn = _base_fn(self)
                seen.append(Benchmarked(getattr(fn, "__name__", "?"), len(timings), written_pointers(fn)))

    Autotuner.run = run  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        Autotuner.run = original  # type: ignore[method-assign]


def _base_fn(at: Any) -> Any:
    fn = getattr(at, "base_fn", None) or at.fn
    while not inspect.isfunction(fn) and getattr(fn, "fn", None) is not None:
        fn = fn.fn
    return fn


def written_pointers(fn: Any) -> tuple[str, ...]:
    """The parameters of ``fn`` (a ``@triton.jit`` function's Python body) named in the pointer of a
    ``tl.store`` / ``tl.atomic_*`` call, in order; ``()`` when its source cannot be read."""
    try:
        tree = pyparse.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return ()
    func = next((n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)), None)
    if func is None:
        return ()
    params = [a.arg for a in func.args.args]
    out: list[str] = []
    for node in ast.walk(func):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name not in WRITES:
            continue
        for sub in ast.walk(node.args[0]):
            if isinstance(sub, ast.Name) and sub.id in params and sub.id not in out:
                out.append(sub.id)
    return tuple(out)


def adds_into(fn: Any, keys: Collection[str] | None = None) -> bool:
    """Whether ``fn`` (a ``@triton.jit`` function's Python body) writes into an output so that its autotuner's
    benchmark runs on the call's own tensors can leave the first call's result wrong (:func:`writes_by_program`), so
    only that benchmark tells whether the first call is wrong. Tune's discovery on a GPU runs such a list whole in the
    task's first run and pins every other keyed list to its first config
    (:func:`kernelopt.tunables.autotune_worker.pinned_lists`, late49's l190). ``keys``: the names its autotune
    list's configs set (``None``: every ``tl.constexpr`` parameter). ``False`` when the source cannot be read."""
    try:
        tree = pyparse.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    return writes_by_program(tree, keys)


def writes_by_program(tree: ast.AST, keys: Collection[str] | None = None) -> bool:
    """Whether a kernel's tree writes through a ``tl.atomic_*`` call (it adds into an output: break13's partial sums)
    or stores one slot a program (``tl.store(parts_ptr + pid, ...)``: a store whose pointer reads the program's id
    and no ``tl.constexpr`` parameter, while elsewhere the id is scaled by one, ``pid * BLOCK``): a config of another
    block writes another count of slots, so the benchmark's runs leave slots the pick does not write (break13's first
    form, stored partials; wrongkernel32, v195: late49's Seen line on l190, such a list was pinned in discovery and its
    first call never checked by ``tune``). A kernel storing one value a row of a grid no tile counts (a norm's
    ``rstd``) reads no scaled id, and stays pinned. ``keys``: the parameters the configs set, the only tiles read
    (a row's one block, ``pid * BLOCK_SIZE`` beside a list of ``num_warps`` alone, moves no count of slots)."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    names = [n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None) for n in calls]
    if any(name in WRITES and name != "store" for name in names):
        return True
    func = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)), None)
    if func is None:
        return False
    tiles = {a.arg for a in func.args.args if a.annotation is not None and "constexpr" in ast.unparse(a.annotation)}
    tiles &= set(keys) if keys is not None else tiles
    values: dict[str, list[ast.AST]] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in (t.id for t in ast.walk(target) if isinstance(t, ast.Name)):
                    values.setdefault(name, []).append(node.value)

    def reads(expr: ast.AST, seen: frozenset[str] = frozenset()) -> set[str]:
        """The names ``expr`` reads through the kernel's locals, ``program_id`` for a call of it; not through a
        ``tl.load`` (what it reads is data, not where a program writes)."""
        out: set[str] = set()
        todo = [expr]
        while todo:
            sub = todo.pop()
            called = sub.func.attr if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) else None
            if called == "program_id":
                out.add("program_id")
                continue
            if called == "load":
                continue
            if isinstance(sub, ast.Name) and sub.id not in seen:
                out.add(sub.id)
                for value in values.get(sub.id, ()):
                    out |= reads(value, seen | {sub.id})
            todo.extend(ast.iter_child_nodes(sub))
        return out

    def scales(pid: ast.AST, tile: ast.AST) -> bool:  # ``pid * BLOCK``: the id on one side, a tile alone on the other
        other = reads(tile)
        return "program_id" in reads(pid) and bool(tiles & other) and "program_id" not in other

    scaled = any(
        isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and (scales(n.left, n.right) or scales(n.right, n.left))
        for n in ast.walk(func)
    )
    if not scaled or not tiles:
        return False
    for call, name in zip(calls, names, strict=True):
        if name == "store" and call.args:
            pointer = reads(call.args[0])
            if "program_id" in pointer and not tiles & pointer:
                return True
    return False


def kept_outputs(out: Any) -> list[Any]:
    """A call's outputs (:func:`kernelopt.harness.compare.as_outputs`), each tensor copied: a buffer the next call
    reuses keeps its first values here."""
    import torch

    from kernelopt.harness.compare import as_outputs

    return [o.detach().clone() if isinstance(o, torch.Tensor) else o for o in as_outputs(out)]


def calls_differ(first: list[Any], again: Any, reference: Any) -> str | None:
    """Where a task's first call's outputs (``first``: :func:`kept_outputs`) differ from its next call's on the same
    inputs (``again``), by the gate's comparison with the next call standing for the reference (reference.py's
    ``ATOL`` / ``RTOL`` as the gate reads them, else its dtype-aware default): what differs, as the mismatch
    :func:`first_call_line` names; ``None`` where they agree."""
    from kernelopt.harness.compare import as_outputs, rerun_differs
    from kernelopt.harness.tolerance import reference_tolerance

    atol, rtol = reference_tolerance(reference)
    differs = rerun_differs(first, as_outputs(again), dtype_hint=None, atol=atol, rtol=rtol)
    if differs is None:
        return None
    return f"its first call's output, the next call's on the same inputs taken as the reference: {differs}"


def first_call_line(benchmarked: list[Benchmarked], mismatch: str) -> str:
    """The check's failure for a kernel wrong on its first call and right on the next (``mismatch``: the first
    call's comparison): the cause, the autotuner, and the fix."""
    one = benchmarked[0]
    names = ", ".join(f'"{w}"' for w in one.written) or '"<the output it adds into>"'
    return (
        f"wrong on its first call only (the next call is right): the @triton.autotune of {one.kernel} benchmarked "
        f"{one.configs} config(s) on the call's own tensors before running it, and holds no reset_to_zero or "
        "restore_value, so what the benchmark runs wrote stayed in the outputs; a user's first call at each new "
        f"autotune key is wrong. Fix: add reset_to_zero=[{names}] (the outputs it adds into or writes only in "
        f"part) or restore_value=[...] to its @triton.autotune ({mismatch})"
    )
