"""``--size-scale`` keeps a problem valid (issue 34): the sizes are read in every way a problem writes them
(products, tuples, chained and unpacked assignments), substituted before anything derived from them is
computed, only sizes are scaled (never kernel sizes, group counts or pool windows), the problem's rules are
kept (multiples of the group count, a spatial extent no smaller than the kernel), a plan that breaks the
reference gives way to the nearest that runs, and a problem no scale keeps valid, or one that does not
import or build, is an ERROR row with its one-line reason while the batch goes on.

The problems are small files written here (tests/data/sizes), one per pattern."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kernelopt.batch.model import ProblemStatus
from kernelopt.batch.rows import BatchOptions
from kernelopt.batch.runner import run_batch
from kernelopt.harness.sizes import SizeScaleError, card_constants, plan_sizes, size_candidates, size_constants
from kernelopt.worker.loader import load_module, unload

from .conftest import DATA

SIZES = DATA / "sizes"

pytestmark = pytest.mark.timeout(300)


def _scaled(name: str, scale: float = 0.05) -> tuple[dict[str, object], dict[str, str]]:
    plan = plan_sizes(SIZES / name, sizes={}, scale=scale)
    return {s.name: (s.before, s.after) for s in plan.scaled}, {k.name: k.reason for k in plan.kept}


def test_products_are_sizes() -> None:
    assert size_constants(SIZES / "product.py") == {"M": 2048, "N": 4096, "K": 512}
    scaled, kept = _scaled("product.py")
    assert scaled == {"M": (2048, 102), "N": (4096, 205), "K": (512, 26)} and kept == {}


@pytest.mark.parametrize("call", ["randint(HI, (N,))", "randint(0, HI, (N,))", "randint(0, HI, size=(N,))"])
def test_randint_s_bound_is_no_size_in_either_spelling(call: str, tmp_path: Path) -> None:
    """torch.randint(high, size) and randint(low, high, size): one reading of the size (harness.sizes.size_args) for
    the scale. The scale read ``high`` as a dimension in the two-argument and ``size=`` forms (``HI`` scaled with
    ``N``). A SHAPES key that is the bound is moved by the net as a size (wrongkernel15's v59: a histogram's bins a
    block the codes must fall below), so the keys read it as one; scaling it shrinks no tensor."""
    from kernelopt.harness.sizekeys import KeyRole, key_roles
    from kernelopt.harness.sizes import module_sizes

    reference = tmp_path / "reference.py"
    reference.write_text(f"import torch\nN = 4096\nHI = 1000\ndef get_inputs():\n    return [torch.{call}]\n")
    assert module_sizes(reference) == {"N": 4096}
    roles = key_roles(f"import torch\ndef get_inputs(N, HI):\n    return [torch.{call}]\n")
    assert roles["N"].role is KeyRole.SIZE and roles["HI"].role is KeyRole.SIZE, roles


def test_a_tuple_shape_is_scaled_and_a_dim_index_kept() -> None:
    scaled, kept = _scaled("tuple_shape.py")
    assert scaled == {"batch_size": (512, 26), "input_shape": ((32768,), (1638,))}
    assert kept == {"dim": "a dimension index"}


def test_chained_and_unpacked_assignments_are_scaled() -> None:
    scaled, kept = _scaled("chained_unpacked.py")
    assert scaled["height"] == scaled["width"] == (128, 6)  # equal before, equal after
    assert scaled["D"] == (16, 3) and scaled["H"] == scaled["W"] == (32, 3)
    assert kept == {"kernel_size": "a kernel size"}


def test_a_derived_shape_follows_its_size() -> None:
    plan = plan_sizes(SIZES / "derived_bias.py", sizes={}, scale=0.05)
    bias = next(s for s in plan.scaled if s.name == "bias_shape")
    assert (bias.before, bias.after, bias.derived) == ((128, 1, 1), (6, 1, 1), True)
    assert "bias_shape" not in plan.constants  # never substituted itself: it is computed from out_channels
    assert plan.constants["out_channels"] == 6
    assert "bias_shape (128, 1, 1) -> (6, 1, 1)" in plan.line()


def test_group_counts_divide_the_scaled_features_and_settings_stay() -> None:
    scaled, kept = _scaled("group_norm.py")
    assert scaled["out_features"] == (8192, 448) and 448 % 64 == 0
    assert kept == {"num_groups": "a group count", "pool_kernel_size": "a kernel size"}  # 16s, never scaled


def test_a_spatial_extent_stays_at_least_the_kernel() -> None:
    plan = plan_sizes(SIZES / "chained_unpacked.py", sizes={}, scale=0.01)
    assert plan.constants["height"] == 3 and plan.constants["H"] == 3  # kernel_size 3, not round(128 * 0.01)
    candidates = size_candidates(SIZES / "conv_pool.py", sizes={}, scale=0.05)
    assert [c.constants["depth"] for c in candidates[:3]] == [3, 6, 12]  # then larger spatial floors
    assert candidates[3].scale == 0.0625 and all(c.asked_scale == 0.05 for c in candidates)  # a power of two


def test_scale_one_changes_nothing(tmp_path: Path) -> None:
    from kernelopt.harness.gate import problem_sizes
    from kernelopt.harness.settings import HarnessSettings
    from kernelopt.workspace import Workspace

    kernel = tmp_path / "kernel.py"
    kernel.write_text((SIZES / "product.py").read_text() + "\n\nclass ModelNew(Model):\n    pass\n")
    ws = Workspace.create("product", kernel=kernel, reference=SIZES / "product.py", root=tmp_path, task_card=None)
    assert problem_sizes(ws, HarnessSettings(size_scale=1.0)) == (None, [])  # the full sizes, no warning


def test_a_problem_no_scale_can_shrink_names_the_rules() -> None:
    with pytest.raises(SizeScaleError) as err:
        plan_sizes(SIZES / "unshrinkable.py", sizes={}, scale=0.05)
    line = err.value.one_line()
    assert "channels=512: a multiple of num_groups=512" in line and "batch_size=8: below 16" in line


def test_the_loader_substitutes_before_derived_values_are_computed(tmp_path: Path) -> None:
    ref = tmp_path / "sizes_only.py"
    ref.write_text(
        "N = 2048 * 2\nheight = width = 128\nD, H = 16, 32\nshape: tuple = (N, height)\n"
        "def default(n=N):\n    return n\n"
    )
    plan = plan_sizes(ref, sizes={}, scale=0.25)
    module = load_module(ref, overrides=plan.constants)
    try:
        assert (module.N, module.height, module.width, module.D, module.H) == (1024, 32, 32, 4, 8)
        assert module.shape == (1024, 32) and module.default() == 1024
    finally:
        unload(module)
    assert "N = 2048 * 2" in ref.read_text()  # the file stays as written


@pytest.fixture(scope="module")
def level_batch(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """One batch over a level folder of the problems here, each with the identical kernel."""
    root = tmp_path_factory.mktemp("sizes")
    level, runs = root / "level1", root / "runs"
    level.mkdir()
    runs.mkdir()
    files = ["derived_bias", "conv_pool", "unshrinkable", "pinned", "broken_import", "unbuildable", "own_bug"]
    for pid, name in enumerate(files, start=1):
        shutil.copy(SIZES / f"{name}.py", level / f"{pid}_{name}.py")
        text = (SIZES / f"{name}.py").read_text() + "\n\nclass ModelNew(Model):\n    pass\n"
        (runs / f"level_1_problem_{pid}_sample_0_kernel.py").write_text(text)
    broken = (SIZES / "derived_bias.py").read_text().replace("def get_inputs():", "def get_inputs(:")
    (level / "8_syntax.py").write_text(broken)  # written here: a file that does not parse has no place in tests/data
    (runs / "level_1_problem_8_sample_0_kernel.py").write_text(broken + "\n\nclass ModelNew(Model):\n    pass\n")
    env = {"KERNELOPT_DEVICE": "cpu", "KERNELOPT_BENCH_S": "0.05", "KERNELOPT_SEEDS": "1", "TEST_TIMEOUT_SEC": "30"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        options = BatchOptions(out_dir=root / "out", kernels=runs, device="cpu", size_scale=0.05)
        table = run_batch(level, options, fresh=True)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return {r.problem: r for r in table.rows}


def test_scaled_problems_run_and_say_their_sizes(level_batch: dict[str, object]) -> None:
    bias = level_batch["1_derived_bias"]
    assert bias.status is ProblemStatus.PASS, bias.reason  # type: ignore[attr-defined]
    assert bias.sizes.constants["out_channels"] == 6  # type: ignore[attr-defined]
    pools = level_batch["2_conv_pool"]
    assert pools.status is ProblemStatus.PASS, pools.reason  # type: ignore[attr-defined]
    assert pools.sizes.constants["depth"] == 6 and pools.sizes.spatial_floor == 2  # type: ignore[attr-defined]
    # the plan that ran is kept for every later run, the profiler's driver included
    reference = Path(pools.workspace) / "reference.py"  # type: ignore[attr-defined]
    assert card_constants(reference, 0.05)["depth"] == 6
    assert card_constants(reference, 0.5)["depth"] == 8  # another scale: the plan asked for


def test_what_cannot_run_is_one_error_row_and_the_batch_goes_on(level_batch: dict[str, object]) -> None:
    expected = {
        "3_unshrinkable": "cannot shrink reference.py: batch_size=8: below 16; channels=512: a multiple of",
        "4_pinned": "no size scale keeps reference.py valid (x0.05: ",
        "5_broken_import": "the problem's reference failed: loading: reference.py raised NameError: name 'SIZE_FROM",
        "6_unbuildable": "missing 1 required positional argument: 'scale'",
        "7_own_bug": "the problem's reference failed: the reference raised ValueError: the lookup table lut.pt was",
        "8_syntax": "8_syntax.py: syntax error at line",
    }
    for problem, words in expected.items():
        row = level_batch[problem]
        assert row.status is ProblemStatus.ERROR, row  # type: ignore[attr-defined]
        assert words in row.reason and "\n" not in row.reason, row.reason  # type: ignore[attr-defined]
    assert "this problem needs dim = 4096" in level_batch["4_pinned"].reason  # type: ignore[attr-defined]
    # a reference that fails at every size as it does as written: its own failure, the sizes not blamed
    assert "no size scale" not in level_batch["7_own_bug"].reason  # type: ignore[attr-defined]


def test_the_benchmark_counts_first_plans_fallbacks_and_the_old_rule(tmp_path: Path) -> None:
    import importlib.util

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "kernelbench_sizes.py"
    spec = importlib.util.spec_from_file_location("kernelbench_sizes", script)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    level = tmp_path / "level1"
    level.mkdir()
    for pid, name in enumerate(["product", "derived_bias", "conv_pool", "unshrinkable"], start=1):
        shutil.copy(SIZES / f"{name}.py", level / f"{pid}_{name}.py")
    counts = bench.level(level, 0.05, verbose=False)
    # the old rule refused the product and broke the derived bias (it never saw conv_pool's unpacked extents,
    # and scaled num_groups with the channels); now conv_pool runs at a fallback and unshrinkable is an ERROR
    assert counts == {
        "problems": 4,
        "first": 2,
        "fallback": 1,
        "none": 1,
        "before_refused": 1,
        "before_raised": 1,
    }


def test_a_dim_of_16_or_more_is_a_size_and_head_dim_is_not_a_head_count(tmp_path: Path) -> None:
    ref = tmp_path / "attention.py"
    ref.write_text(
        "import torch\nbatch_size = 64\nnum_heads = 16\nhead_dim = 128\nhidden_dim = 2048\ndim = 1\n"
        "def get_inputs():\n    return [torch.rand(batch_size, num_heads, head_dim)]\n"
        "def get_init_inputs():\n    return [hidden_dim, num_heads, dim]\n"
    )
    plan = plan_sizes(ref, sizes={}, scale=0.25)
    assert {s.name: s.after for s in plan.scaled} == {"batch_size": 16, "head_dim": 32, "hidden_dim": 512}
    assert {k.name: k.reason for k in plan.kept} == {"num_heads": "a head count", "dim": "a dimension index"}


@pytest.mark.gpu
def test_a_scaled_problem_on_the_gpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On an NVIDIA GPU: the size run tries the plans on the device, and the gate runs at the plan that ran."""
    from kernelopt.harness.gate import validate
    from kernelopt.memory.model import GateResult
    from kernelopt.workspace import Workspace

    monkeypatch.setenv("KERNELOPT_BENCH_S", "0.1")
    kernel = tmp_path / "kernel.py"
    kernel.write_text((SIZES / "conv_pool.py").read_text() + "\n\nclass ModelNew(Model):\n    pass\n")
    ws = Workspace.create("pools", kernel=kernel, reference=SIZES / "conv_pool.py", root=tmp_path, task_card=None)
    report = validate(ws, 0, previous=None, device="cuda", size_scale=0.05, scratch=True)
    assert report.result is GateResult.PASS, report.failure_reason
    assert report.sizes is not None and report.sizes.constants["depth"] == 6 and report.sizes.spatial_floor == 2
    assert any("broke the problem" in w for w in report.warnings)
