"""benchmarks/safety_cost.py: today's legality rules over a recorded complete sweep (cost30), the real figures."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from kernelopt.tuning.candidate import Config
from kernelopt.tuning.kernel_evaluator import Refusal, knob_editor

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "safety_cost.py"

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("safety_cost", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["safety_cost"] = module  # its dataclasses resolve their annotations through it
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("safety_cost", None)


def test_the_11_29_elementwise_sweep_loses_nothing_to_the_rules_that_forbid_six_configurations_it_timed(
    bench: ModuleType, tmp_path: Path
) -> None:
    """The 2026-11-29 sitting recorded no digest: its kernel is the one committed that day; today's register estimate
    forbids six configurations that ran then (128 elements a thread or more), none of them the best (BLOCK_SIZE 1024,
    4 warps, 371.23 us), the fastest of them 1.12 times it."""
    held, left = bench.held_sweeps({"elementwise"})
    sitting = next(h for h in held if h.label.startswith("elementwise (11-29"))
    assert not left and len(held) == 2  # the 12-01 sitting too, its digest found in the working tree
    cost = bench.cost_of(sitting, tmp_path)
    assert (cost.size, cost.timed) == (48, 48)
    assert dict(cost.forbidden) == {"fit: resources": 6} and dict(cost.forbidden_ok) == {"fit: resources": 6}
    ran = {(e.config["BLOCK_SIZE"], e.config["num_warps"]) for e in sitting.sweep.configs if e.status == "ok"}
    assert {(4096, 1), (8192, 1), (8192, 2), (16384, 1), (16384, 2), (16384, 4)} <= ran
    assert "128 elements per thread" in cost.reasons["fit: resources"]
    assert cost.best is not None and cost.best.config == {"BLOCK_SIZE": 1024, "num_warps": 4}
    assert cost.best.latency_us == pytest.approx(371.23, abs=0.01)
    assert cost.best_admissible is cost.best and cost.ratio == 1.0 and cost.best_rule is None
    assert cost.fastest_forbidden is not None and cost.fastest_forbidden.config == {"BLOCK_SIZE": 16384, "num_warps": 4}
    assert cost.fastest_forbidden.latency_us / cost.best.latency_us == pytest.approx(1.122, abs=0.001)
    assert cost.edits == 8  # one editor request per block size: launch options are the fit's


#: The recorded GEMM sweeps whose BLOCK_K never went under the dot K floor (c51), and how many of their fastest
#: configurations are timed again with a K tile of 16 beside them.
FLOORED = ("matmul", "skinny_gemm")
FASTEST = 6
#: Their kernel.py and reference.py as the sweeps ran them, taken from the git history (``held_sweeps(FLOORED)`` on the
#: CPU, 2026-12-07): the GPU session's copy of the repository has no ``.git`` (g10).
KEPT = Path(__file__).resolve().parent / "data" / "cost30"


def test_g10_the_gpu_proof_reads_the_sweeps_kernels_kept_without_the_git_history(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The H100 of 2026-12-07 22:15 ran cost30's GPU test in /tmp/kernelopt_repo, a copy of the working tree without
    ``.git``: ``held_sweeps`` opened ``git.Repo`` and raised ``InvalidGitRepositoryError`` before anything ran. Given
    the kept texts it opens no repository, and finds the same sweeps with the same files as the history gives."""
    from_history, _ = bench.held_sweeps(FLOORED)

    def no_repository(*args: object, **kwargs: object) -> None:
        raise AssertionError("git.Repo opened")

    monkeypatch.setattr(bench.git, "Repo", no_repository)
    kept, left = bench.held_sweeps(FLOORED, texts=KEPT)
    assert [h.label for h in kept] == [h.label for h in from_history] == [
        "skinny_gemm (12-01)", "matmul (11-29 run5, another sitting)",
    ], left  # fmt: skip
    for ours, theirs in zip(kept, from_history, strict=True):
        assert (ours.kernel, ours.reference, ours.readme) == (theirs.kernel, theirs.reference, theirs.readme)


def _module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.gpu
@pytest.mark.timeout(280)
def test_on_cuda_c51_what_the_dot_k_floor_costs_on_the_recorded_gemms(bench: ModuleType, tmp_path: Path) -> None:
    """On an NVIDIA GPU (owed: scripts/gpu_cost30.sh): the dot K floor keeps BLOCK_K >= 32 for matmul and skinny_gemm
    (fp16 operands, where a K tile of 16 compiles and is right), and no recorded sweep timed 16. Each sweep's six fastest
    configurations are run as the sweep ran its kernel and again with BLOCK_K=16 (a measurement's text, never a write:
    the tunables' edit refuses 16), checked against the reference at the main shape and timed with
    ``triton.testing.do_bench`` in three interleaved rounds. Printed: each configuration's two latencies, and the best
    with 16 over the best without (under 1: the floor costs that speed). Asserted: every configuration without 16 is
    right (the sweep's own), and every one with 16 that compiles is right too (a right value the floor refuses)."""
    import torch
    import triton.testing

    held, _ = bench.held_sweeps(FLOORED, texts=KEPT)  # matmul's 11-29 sweep (its 12-01 one cut), skinny_gemm's 12-01
    wrong: list[str] = []
    for h in held:
        (tmp_path / h.sweep.name).mkdir()
        (tmp_path / h.sweep.name / "reference.py").write_text(h.reference)
        ref = _module(tmp_path / h.sweep.name / "reference.py", f"c51_ref_{h.sweep.name}")
        inputs = ref.get_inputs()
        want = ref.reference(*inputs)
        fastest = sorted(h.sweep.timed(), key=lambda e: e.latency_us)[:FASTEST]
        apply = knob_editor(h.kernel)
        runs: dict[tuple[int, int], ModuleType] = {}
        failed: list[str] = []
        for i, entry in enumerate(fastest):
            made = apply(Config.of(entry.config))
            assert not isinstance(made, Refusal), made
            sixteen, n = re.subn(r"(?m)^(\s+BLOCK_K=)\d+,$", r"\g<1>16,", made)
            assert n == 1, f"{h.label}: {n} launch keywords BLOCK_K"
            for k, text in enumerate((made, sixteen)):
                path = tmp_path / h.sweep.name / f"v{i}_{k}.py"
                path.write_text(text)
                module = _module(path, f"c51_{h.sweep.name}_{i}_{k}")
                try:
                    got = module.run(*inputs)
                    torch.cuda.synchronize()
                except Exception as exc:  # a K tile of 16 this Triton does not compile: said, not timed
                    assert k == 1, f"{h.label} {entry.config}: {exc}"
                    failed.append(f"{entry.config} with BLOCK_K=16: {type(exc).__name__}: {str(exc)[:160]}")
                    continue
                if not torch.allclose(got.float(), want.float(), atol=ref.ATOL, rtol=ref.RTOL):
                    assert k == 1, f"{h.label} {entry.config}: the sweep's own configuration is wrong"
                    wrong.append(f"{h.label} {entry.config} with BLOCK_K=16")  # the floor right there: said below
                    continue
                runs[(i, k)] = module
        times: dict[tuple[int, int], float] = {}
        for _ in range(3):
            for key, module in runs.items():
                ms = triton.testing.do_bench(lambda m=module, x=inputs: m.run(*x), warmup=25, rep=100)
                times[key] = min(times.get(key, float("inf")), ms * 1000.0)
        for i, entry in enumerate(fastest):
            sixteen = f"{times[(i, 1)]:.2f}" if (i, 1) in times else "not compiled or wrong"
            print(
                f"c51 {h.label} {entry.config}: {times[(i, 0)]:.2f} us, BLOCK_K=16 {sixteen} us "
                f"(the sweep's {entry.latency_us:.2f})"
            )
        best = min(v for (i, k), v in times.items() if k == 0)
        floored = [v for (i, k), v in times.items() if k == 1]
        ratio = f"{min(floored) / best:.4f}" if floored else "none compiled"
        print(f"c51 {h.label}: best with BLOCK_K=16 / best without = {ratio}; failed: {failed or 'none'}")
    assert not wrong, f"a K tile of 16 wrong where the sweep's configuration is right (the floor right there): {wrong}"
