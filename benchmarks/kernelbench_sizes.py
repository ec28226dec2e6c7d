#!/usr/bin/env python3
"""Size scaling on KernelBench level folders: does every problem still run at a size scale (issue 34)?

For each ``<id>_<Name>.py`` problem of the level folders given (KernelBench's ``level1/``, ``level2/``; nothing
is fetched), this makes the size plan at the scale (:func:`kernelopt.harness.sizes.size_candidates`), loads
the file with each plan substituted as it runs, builds ``Model(*get_init_inputs())`` and ``get_inputs()`` and
runs the reference once on the CPU, as the gate's ``size`` run does, and prints:

- per problem (``--verbose``): the plan that ran (which fallback, if any), or why none did;
- per level: the problems whose reference runs at the first plan, at a fallback plan, at none (an ERROR
  naming the rule), and, beside them, how the rule of main at e4f2ed6 (module-level ``NAME = <int>`` of 16 or
  more scaled, set on the module after it ran; kept here only to compare) fared: refused (nothing to scale)
  or the reference raising at its sizes;
- the wall time.

    python benchmarks/kernelbench_sizes.py LEVEL_DIR [LEVEL_DIR ...] [--size-scale S] [--verbose]

This imports and runs the problem files in this process: give it level folders you trust (KernelBench's).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from kernelopt.harness.sizes import SizeScaleError, size_candidates  # noqa: E402
from kernelopt.numeric import is_int  # noqa: E402
from kernelopt.worker.loader import load_module, unload  # noqa: E402

PROBLEM_FILE = re.compile(r"^(\d+)_(.*)\.py$")


def before_constants(path: Path, scale: float) -> dict[str, int]:
    """The rule of main at e4f2ed6: module-level ``NAME = <int>`` of at least 16, times ``scale``, rounded."""
    out: dict[str, int] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        v = value.value if isinstance(value, ast.Constant) else None
        if isinstance(target, ast.Name) and is_int(v) and v >= 16:
            out[target.id] = max(1, round(v * scale))
    return out


def runs(path: Path, overrides: dict[str, object] | None, after_import: dict[str, int] | None = None) -> str | None:
    """``None`` when the reference builds and runs once with these sizes, else its error in one line."""
    import torch

    module = None
    try:
        module = load_module(path, overrides=overrides)
        for name, value in (after_import or {}).items():
            setattr(module, name, value)
        torch.manual_seed(0)
        model = module.Model(*module.get_init_inputs())
        with torch.no_grad():
            model(*module.get_inputs())
        return None
    except Exception as exc:  # the problem's own code: any error is the answer
        return f"{type(exc).__name__}: {exc}".splitlines()[0][:160]
    finally:
        if module is not None:
            unload(module)


def level(level_dir: Path, scale: float, verbose: bool) -> dict[str, int]:
    counts = {"problems": 0, "first": 0, "fallback": 0, "none": 0, "before_refused": 0, "before_raised": 0}
    files = sorted(
        (p for p in level_dir.glob("*.py") if PROBLEM_FILE.match(p.name)),
        key=lambda p: int(PROBLEM_FILE.match(p.name).group(1)),  # type: ignore[union-attr]
    )
    for path in files:
        counts["problems"] += 1
        old = before_constants(path, scale)
        if not old:
            counts["before_refused"] += 1
        elif runs(path, None, old) is not None:
            counts["before_raised"] += 1
        try:
            plans = size_candidates(path, sizes={}, scale=scale)
        except SizeScaleError as exc:
            counts["none"] += 1
            if verbose:
                print(f"  {path.stem}: ERROR {exc.one_line()}")
            continue
        errors = []
        for i, plan in enumerate(plans):
            error = runs(path, dict(plan.constants))
            if error is None:
                counts["first" if i == 0 else "fallback"] += 1
                if verbose:
                    which = "" if i == 0 else f" (fallback {i}: {errors[0]})"
                    print(f"  {path.stem}: {plan.line()}{which}")
                break
            errors.append(error)
        else:
            counts["none"] += 1
            if verbose:
                print(f"  {path.stem}: ERROR no plan runs: {errors[0]}")
    return counts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("levels", nargs="+", type=Path)
    parser.add_argument("--size-scale", type=float, default=0.05)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    start = time.monotonic()
    print(f"size scale {args.size_scale:g}, CPU, torch {torch.__version__}")
    now = f"{'level':<10} {'problems':>8} {'first plan':>10} {'fallback':>8} {'none':>5}"
    print(f"{now} | {'e4f2ed6: refused':>16} {'raised':>6}")
    for level_dir in args.levels:
        c = level(level_dir, args.size_scale, args.verbose)
        print(
            f"{level_dir.name:<10} {c['problems']:>8} {c['first']:>10} {c['fallback']:>8} {c['none']:>5} | "
            f"{c['before_refused']:>16} {c['before_raised']:>6}"
        )
    print(f"wall {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
