"""Time kernelopt's own static analysis of three real kernels, this tree's code beside another ref's (main's).

Usage::

    PYTHONPATH=src python benchmarks/analysis_speed.py [--base main] [--repeat 1] [--clock wall|cpu]

For each kernel (tests/data: variants/pad_rows_helper, breaker25/la_nodecay, breaker21/tb_streamk) three times are
taken, every cache of the package cleared before each: ``discover`` (``discover_source`` of kernel.py), ``guard``
(``guard_edit`` of every one-knob edit a session would try first: each editable knob moved to its first other legal
value) and ``prepare`` (``prepare_folder`` of a copy of the folder on the CPU: the worker's evaluation included).
The base ref is checked out with ``git worktree`` into a temporary folder and both trees are measured in one child
process each (two versions of one package cannot share an interpreter), one after the other. Each child also prints
a digest of every answer (the knobs found, each guarded text and note, the prepared space); the table says whether
the two agree.
Prints one table (seconds; ratio = base / this tree). ``--clock cpu`` times each phase by the measuring process's
own CPU time (``time.process_time``: a worker process's is not counted) rather than the wall clock: on a machine
shared by several at a load of 4-6, the wall clock of one child was twice the other's for the same code (perf29).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ("variants/pad_rows_helper", "breaker25/la_nodecay", "breaker21/tb_streamk")
PHASES = ("discover", "guard", "prepare")


def _clear_caches() -> None:
    """Forget every kept result of the package (functools caches, :func:`~kernelopt.tunables.syntax.kept_by_text`,
    the node caches of :mod:`kernelopt.tunables.blocks` and its answers by a kernel's text), so each phase is timed
    as a fresh process meets it."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("kernelopt"):
            continue
        for value in list(vars(module).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()
            elif isinstance(value, dict) and value and all(_by_node(k) for k in list(value)[:3]):
                value.clear()  # a cache by libcst node (blocks' _CHILDREN, _WALKED, _TYPED ...)
    blocks = sys.modules.get("kernelopt.tunables.blocks")
    if blocks is not None and hasattr(blocks, "_BY_CODE"):
        blocks._BY_CODE.clear()  # answers kept by a kernel's text (perf29), not by a node
    for count in ("_walked_nodes", "_typed_nodes", "_outside_nodes"):
        if blocks is not None and hasattr(blocks, count):
            getattr(blocks, count)[0] = 0


def _by_node(key: object) -> bool:
    """Whether ``key`` is a libcst node, or a tuple that starts with one."""
    import libcst as cst

    return isinstance(key[0] if isinstance(key, tuple) and key else key, cst.CSTNode)


def _edits(source: str) -> list[str]:
    """Each editable knob of ``source`` moved to its first other legal value (one text per knob)."""
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.model import TunableError

    out = []
    for t in discover_source(source):
        if not t.editable:
            continue
        values = t.legality.values or [16, 32, 64, 128, 256]
        other = next((v for v in values if v != t.value and t.legality.problem(v) is None), None)
        if other is None:
            continue
        try:
            out.append(apply_source(source, {t.key: other}).new_source)
        except TunableError:  # a move the editor refuses is no guard's question
            continue
    return out


def measure(repeat: int, clock: str = "wall") -> dict[str, dict[str, object]]:
    """Each kernel's best time of each phase over ``repeat`` runs (by ``clock``: ``wall`` or ``cpu``, this process's
    CPU time) and a digest of its answers."""
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.guard import guard_edit
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    now = time.process_time if clock == "cpu" else time.perf_counter
    out: dict[str, dict[str, object]] = {}
    for name in KERNELS:
        folder = ROOT / "tests" / "data" / name
        source = (folder / "kernel.py").read_text(encoding="utf-8")
        _clear_caches()
        edits = _edits(source)
        times = {p: float("inf") for p in PHASES}
        digest = hashlib.sha256()
        for _ in range(repeat):
            _clear_caches()
            t0 = now()
            found = discover_source(source)
            times["discover"] = min(times["discover"], now() - t0)
            _clear_caches()
            t0 = now()
            guarded = [guard_edit(source, new) for new in edits]
            times["guard"] = min(times["guard"], now() - t0)
            _clear_caches()
            with tempfile.TemporaryDirectory() as tmp:
                copy = Path(tmp) / "task"
                shutil.copytree(folder, copy)
                t0 = now()
                prepared = prepare_folder(TuneRequest(folder=copy, device="cpu"))
                times["prepare"] = min(times["prepare"], now() - t0)
        digest.update(json.dumps([t.model_dump(mode="json") for t in found], sort_keys=True).encode())
        digest.update(json.dumps([[g.new_source, g.note] for g in guarded]).encode())
        space = prepared.space
        fits = [repr(c) for _, c in zip(range(5000), space.configs(), strict=False)]  # the configurations that fit
        digest.update(f"{space.fingerprint} {space.domain_notes} {fits}".encode())
        out[name] = {"times": times, "edits": len(edits), "digest": digest.hexdigest()[:12]}
    return out


def _child(src: Path, repeat: int, clock: str) -> dict[str, dict[str, object]]:
    """:func:`measure` run by a fresh interpreter importing the package from ``src``."""
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", "--repeat", str(repeat), "--clock", clock],
        env={**os.environ, "PYTHONPATH": str(src)},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"measuring {src} failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="the git ref measured beside this tree (default main)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each phase; the best is kept")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="wall time, or this process's CPU")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.repeat, args.clock)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(base), args.base], check=True)
        try:
            before = _child(base / "src", args.repeat, args.clock)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    after = _child(ROOT / "src", args.repeat, args.clock)
    print(f"{'kernel':<26} {'edits':>5} {'phase':<9} {args.base + ' s':>9} {'this s':>9} {'ratio':>7}  answers")
    for name in KERNELS:
        b, a = before[name], after[name]
        same = "same" if b["digest"] == a["digest"] else f"DIFFER {b['digest']} {a['digest']}"
        for phase in PHASES:
            tb, ta = b["times"][phase], a["times"][phase]  # type: ignore[index]
            print(f"{name:<26} {a['edits']:>5} {phase:<9} {tb:>9.2f} {ta:>9.2f} {tb / ta:>6.2f}x  {same}")


if __name__ == "__main__":
    main()
