"""Issue 15's H200 comparison for one corpus kernel: V0, the loop's final kernel and the exhaustive best of
the same knob space, timed side by side in one process on the task's main shape.

Usage (repository root, a CUDA GPU, after `kernelopt optimize` finished on the task):

    python scripts/tunables_bench.py --task rmsnorm_calculate_settings --workspace WS --json OUT.json

The space (``SPACES``) is the knobs kernelopt's tunables find in the corpus kernel, each over the legal
values an engineer would try on an H200; every configuration is written by ``kernelopt.tunables``
(``apply_source``, or ``pin_configs`` for the autotuned GEMM: one explicit config), imported, checked
against the reference on the main shape and timed with ``triton.testing.do_bench`` (CUDA events, median
of its repetitions). V0 and the final kernel are timed in the same process, interleaved with the sweep's
configurations by being timed first and again last (both figures are kept).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "tunables" / "corpus"
GPU_TASKS = ROOT / "tests" / "data" / "tunables" / "gpu_tasks"

# task -> knob key -> values. Keys are the corpus kernel's tunable keys (kernelopt tunables FILE).
SPACES: dict[str, dict[str, list[int]]] = {
    "swiglu_defaults": {
        "swiglu_kernel:BLOCK_SIZE": [256, 512, 1024, 2048, 4096, 8192],
        "swiglu_kernel:num_warps": [1, 2, 4, 8, 16],
    },
    "rmsnorm_calculate_settings": {
        # the row of 4096 columns must fit one block: 4096 or 8192
        "rmsnorm_kernel:BLOCK_SIZE": [4096, 8192],
        "rmsnorm_kernel:num_warps": [1, 2, 4, 8, 16, 32],
    },
    "mm_module_dict": {
        "mm_kernel:BLOCK_M": [64, 128],
        "mm_kernel:BLOCK_N": [64, 128],
        "mm_kernel:BLOCK_K": [32, 64],
        "mm_kernel:num_warps": [4, 8],
        "mm_kernel:num_stages": [3, 4],
    },
    "matmul_autotune_helper": {  # one pinned config per point
        "BLOCK_M": [64, 128],
        "BLOCK_N": [64, 128],
        "BLOCK_K": [32, 64],
        "GROUP_M": [8],
        "num_warps": [4, 8],
        "num_stages": [3, 4],
    },
}
AUTOTUNED = {"matmul_autotune_helper": "gemm_kernel"}


def _load(text: str, folder: Path, tag: str) -> Any:
    path = folder / f"k_{tag}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"bench_{tag}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _variants(task: str, v0: str) -> list[tuple[dict[str, int], str | None, str | None]]:
    """(point, source or None, why not) for every point of the task's space."""
    from kernelopt.tunables import AutotuneConfig, TunableError, apply_source, pin_configs

    space = SPACES[task]
    names = list(space)
    out: list[tuple[dict[str, int], str | None, str | None]] = []
    for values in itertools.product(*(space[n] for n in names)):
        point = dict(zip(names, values, strict=True))
        try:
            if task in AUTOTUNED:
                opts = {k: point[k] for k in ("num_warps", "num_stages")}
                kwargs = {k: v for k, v in point.items() if k not in opts}
                src = pin_configs(v0, AUTOTUNED[task], [AutotuneConfig(kwargs=kwargs, **opts)]).new_source
            else:
                from kernelopt.tunables import discover_source

                current = {t.key: t.value for t in discover_source(v0)}
                changes = {k: v for k, v in point.items() if current.get(k) != v}
                src = apply_source(v0, changes).new_source if changes else v0
            out.append((point, src, None))
        except TunableError as exc:
            out.append((point, None, exc.one_line()))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--task", required=True, choices=sorted(SPACES))
    p.add_argument("--workspace", type=Path, required=True)
    p.add_argument("--json", type=Path, required=True)
    p.add_argument("--budget-s", type=float, default=150.0, help="stop sweeping after this many seconds")
    args = p.parse_args(argv)

    import torch
    import triton.testing

    from kernelopt.report.reader import collect
    from kernelopt.workspace import Workspace

    ws = Workspace(args.workspace)
    data = collect(ws, measured=None)
    best = data.best()
    v0 = (CORPUS / f"{args.task}.py").read_text()
    final = ws.file_at(best.record.git_commit_hash, "kernel.py") if best and best.record.git_commit_hash else v0
    ref_spec = importlib.util.spec_from_file_location("bench_reference", GPU_TASKS / args.task / "reference.py")
    assert ref_spec is not None and ref_spec.loader is not None
    ref = importlib.util.module_from_spec(ref_spec)
    ref_spec.loader.exec_module(ref)
    shape = ref.SHAPES[0]
    torch.manual_seed(0)
    inputs = ref.get_inputs(**shape, device="cuda")
    expected = ref.reference(*inputs)
    tmp = Path(tempfile.mkdtemp(prefix="tunables-bench-"))

    def measure(src: str, tag: str) -> dict[str, Any]:
        try:
            mod = _load(src, tmp, tag)
            got = mod.run(*inputs)
            torch.cuda.synchronize()
            ok = torch.allclose(got.float(), expected.float(), atol=ref.ATOL, rtol=ref.RTOL)
            if not ok:
                return {"ok": False, "why": "wrong result"}
            us = triton.testing.do_bench(lambda: mod.run(*inputs), warmup=25, rep=100) * 1e3
            return {"ok": True, "latency_us": us}
        except Exception as exc:  # a configuration that does not compile or launch is a result here
            return {"ok": False, "why": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"}

    start = time.monotonic()
    result: dict[str, Any] = {"task": args.task, "shape": shape, "gpu": torch.cuda.get_device_name(0)}
    result["best_version"] = best.record.version if best else None
    result["loop_changes"] = [
        {
            "version": v.record.version,
            "category": v.record.optimization.action_category,
            "knob_changes": v.record.optimization.knob_changes,
            "knob_overrides": v.record.optimization.knob_overrides,
            "loop_latency_us": v.record.performance.latency_us,
        }
        for v in data.good_versions()
    ]
    result["v0_first"] = measure(v0, "v0a")
    result["final_first"] = measure(final, "fa")
    sweep = []
    for i, (point, src, why) in enumerate(_variants(args.task, v0)):
        if time.monotonic() - start > args.budget_s:
            sweep.append({"point": point, "ok": False, "why": "not timed: the sweep's time budget ran out"})
            continue
        sweep.append({"point": point, **(measure(src, f"s{i}") if src else {"ok": False, "why": why})})
    result["v0_last"] = measure(v0, "v0b")
    result["final_last"] = measure(final, "fb")
    timed = [s for s in sweep if s.get("ok")]
    result["sweep_points"] = len(sweep)
    result["sweep_timed"] = len(timed)
    result["exhaustive_best"] = min(timed, key=lambda s: s["latency_us"]) if timed else None
    result["sweep"] = sweep
    result["wall_s"] = time.monotonic() - start
    args.json.write_text(json.dumps(result, indent=1, default=str))

    def fmt(m: dict[str, Any] | None) -> str:
        return f"{m['latency_us']:.1f} us" if m and m.get("ok") else f"n/a ({(m or {}).get('why')})"

    print(f"{args.task} on {result['gpu']} shape {shape}")
    print(f"  V0            {fmt(result['v0_first'])} / {fmt(result['v0_last'])}")
    print(f"  final ({result['best_version']})  {fmt(result['final_first'])} / {fmt(result['final_last'])}")
    eb = result["exhaustive_best"]
    print(f"  exhaustive    {fmt(eb)} at {eb['point'] if eb else '-'} ({len(timed)}/{len(sweep)} points timed)")
    for c in result["loop_changes"]:
        print(f"  {c['version']}: {c['category']} {c['knob_changes']} {c['knob_overrides'] or ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
