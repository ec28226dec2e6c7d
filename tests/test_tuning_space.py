"""The knob space of one launch: knob kinds, fit pruning, sizes, draws and moves; built from the knobs
``kernelopt tunables`` lists for the corpus of tests/data/tunables and the examples."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kernelopt.errors import UsageError
from kernelopt.tunables import ResourceLimits, Tunable, discover, resource_problems
from kernelopt.tunables.launches import NO_LAUNCH
from kernelopt.tuning.candidate import COMPUTED, Config
from kernelopt.tuning.launch import space_from_tunables
from kernelopt.tuning.space import (
    ChoiceKnob,
    IntegerKnob,
    KnobKind,
    PowerOfTwoKnob,
    knob_of,
)

REPO = Path(__file__).resolve().parents[1]
TUNABLES = REPO / "tests" / "data" / "tunables"
CORPUS = sorted(TUNABLES.glob("*.py")) + sorted((TUNABLES / "corpus").glob("*.py"))
EXAMPLES = sorted((REPO / "examples").glob("*/kernel.py"))
H200_FP16 = ResourceLimits.for_gpu("H200", "fp16")


def usable(tunables: list[Tunable]) -> list[Tunable]:
    return [t for t in tunables if t.editable and not t.semantic]


# ---------------------------------------------------------------------------------------------- knob kinds


def test_power_of_two_knob_moves_by_doubling_and_encodes_log2() -> None:
    k = PowerOfTwoKnob("BLOCK_SIZE", 1024, 16, 65536)
    assert k.values == tuple(2**i for i in range(4, 17)) and k.kind is KnobKind.POWER_OF_TWO
    assert k.neighbours(1024) == (512, 2048)
    assert k.neighbours(16) == (32,) and k.neighbours(65536) == (32768,)
    assert k.encode(16) == 0.0 and k.encode(65536) == 1.0 and k.encode(1024) == pytest.approx(6 / 12)
    rng = random.Random(3)
    assert {k.random(rng) for _ in range(400)} == set(k.values)


def test_integer_and_choice_knobs() -> None:
    stages = IntegerKnob("num_stages", 3, 1, 8)
    assert stages.values == tuple(range(1, 9)) and stages.neighbours(3) == (2, 4)
    group = ChoiceKnob("GROUP_M", 1, (8, 1))
    assert group.values == (1, 8) and group.neighbours(1) == (8,) and group.ordered
    mode = ChoiceKnob("layout", "a", ("c", "a", "b"))
    assert not mode.ordered and set(mode.neighbours("a")) == {"b", "c"}
    with pytest.raises(ValueError, match="not one of"):
        IntegerKnob("num_stages", 9, 1, 8)


def test_knob_of_reads_the_kind_from_the_values() -> None:
    assert isinstance(knob_of("BLOCK_M", [64, 16, 32, 128], 32), PowerOfTwoKnob)
    assert isinstance(knob_of("num_stages", [1, 2, 3, 4], 1), IntegerKnob)
    mixed = knob_of("NUM_SMS", [64, 128, 132], 132)
    assert isinstance(mixed, ChoiceKnob) and mixed.values == (64, 128, 132)


# ---------------------------------------------------------------------------------------------- from tunables


def launches_of(tunables: list[Tunable]) -> dict[str, set[str]]:
    """Launch label -> the knob names ``kernelopt tunables`` lists for it (the test's own grouping)."""
    out: dict[str, set[str]] = {}
    for t in usable(tunables):
        if t.kind.value == "autotune_config":
            labels = [f"{t.kernel}.configs"]
        elif t.kind.value == "heuristic":
            labels = [g for g in out if g.startswith(f"launch {t.kernel}")] or [f"{t.kernel}.heuristics"]
        else:
            labels = t.groups or [NO_LAUNCH]
        for label in labels:
            out.setdefault(label, set()).add(t.name)
    return out


def belongs(t: Tunable, label: str, kernel: str | None) -> bool:
    if t.kind.value == "heuristic":
        return t.kernel == kernel
    return label in t.groups or label == f"{t.kernel}.configs" or (label == NO_LAUNCH and not t.groups)


@pytest.mark.parametrize("path", CORPUS + EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_listed_knob_of_a_launch_is_a_knob_of_its_space(path: Path) -> None:
    tunables = discover(path)
    launches = launches_of(tunables)
    if not launches:
        with pytest.raises(UsageError, match="no tunable knob") as exc:
            space_from_tunables(tunables)
        assert "\n" not in exc.value.one_line() and tunables[0].key in exc.value.one_line()
        return
    for label, names in launches.items():
        space = space_from_tunables(tunables, kernel=label, limits=H200_FP16)
        assert space.launch == label
        assert set(space.names) == names, label
        for name in space.names:  # every literal an edit must move is named
            keys = {t.key for t in usable(tunables) if t.name == name and belongs(t, label, space.kernel)}
            assert keys and keys == set(space.origins[name].keys), (label, name)
        current = space.default()
        assert not space.illegal(current)
        assert space.size.count > 0
    largest = max(launches, key=lambda la: len(launches[la]))
    assert len(space_from_tunables(tunables).names) == len(launches[largest])


def test_current_values_and_computed_knobs() -> None:
    tunables = discover(TUNABLES / "local_and_positional.py")
    first = space_from_tunables(tunables)
    assert first.launch is not None and first.launch.startswith("launch rms_kernel#1")
    assert first.current() == Config.of({"BLOCK": 512, "ROWS": 2, "num_warps": 4, "num_stages": 3})
    second = space_from_tunables(tunables, kernel="rms_kernel#2")
    assert second.origins["BLOCK"].computed == "triton.next_power_of_2(n)"
    current = second.current()  # the computation, a point of its own (no run told its value; none is needed)
    assert current is not None and current["BLOCK"] == COMPUTED and not second.literal(current)
    assert second.literal(first.current())  # type: ignore[arg-type]
    assert second.default()["BLOCK"] in second.knob("BLOCK").values
    with pytest.raises(UsageError, match="no launch named 'nope'"):
        space_from_tunables(tunables, kernel="nope")


def test_autotune_list_is_one_configuration_of_its_kernel() -> None:
    tunables = discover(TUNABLES / "matmul_autotune.py")
    space = space_from_tunables(tunables, kernel="matmul_kernel")
    assert space.launch == "matmul_kernel.configs"
    assert space.origins["BLOCK_M"].keys == ("matmul_kernel.configs[0].BLOCK_M", "matmul_kernel.configs[1].BLOCK_M")
    assert space.default()["BLOCK_M"] == 128  # configs[0], no autotuner run told which it picks


def test_fit_pruning_by_resources_and_problem_size() -> None:
    tunables = discover(REPO / "examples" / "skinny_gemm" / "kernel.py")
    free = space_from_tunables(tunables)
    fitted = space_from_tunables(tunables, limits=H200_FP16)
    sized = space_from_tunables(tunables, limits=H200_FP16, problem_sizes={"M": 65536, "N": 128, "K": 4096})
    assert free.size.count == free.raw_size
    assert sized.size.count < fitted.size.count < free.size.count
    assert free.fingerprint != fitted.fingerprint != sized.fingerprint
    for c in fitted.configs():
        assert not resource_problems(c.as_dict(), H200_FP16)
    wide = sized.default().with_values({"BLOCK_N": 256})
    assert any("larger than the problem" in p for p in sized.problems(wide))
    assert all(c["BLOCK_N"] <= 128 for c in sized.configs())


def test_size_estimate_sampling_and_moves_on_a_large_space() -> None:
    space = space_from_tunables(discover(REPO / "examples" / "matmul" / "kernel.py"), limits=H200_FP16)
    assert space.raw_size > 20_000 and not space.size.exact and 0 < space.size.count < space.raw_size
    rng = random.Random(0)
    drawn = space.sample(rng, 50)
    assert len(set(drawn)) == 50 and all(space.fits(c) for c in drawn)
    assert not set(space.sample(rng, 20, exclude=set(drawn))) & set(drawn)
    centre = drawn[0]
    singles, pairs = space.neighbours(centre), space.paired_neighbours(centre)
    assert singles and pairs and all(space.fits(c) for c in singles + pairs)
    assert {space.distance(centre, c) for c in singles} == {1}
    assert {space.distance(centre, c) for c in pairs} == {2}
    assert len(space.encode(centre)) == len(space.knobs) and all(0 <= x <= 1 for x in space.encode(centre))


def test_a_space_that_pruning_leaves_empty_is_one_line() -> None:
    tiny = ResourceLimits(shared_memory_bytes=1, elem_bytes=2)
    with pytest.raises(UsageError, match="the fit rules leave no configuration") as exc:
        space_from_tunables(discover(REPO / "examples" / "matmul" / "kernel.py"), limits=tiny)
    assert "\n" not in exc.value.one_line()


def test_a_run_tells_computed_values_and_the_autotuners_pick() -> None:
    from kernelopt.tunables import AutotuneConfig, AutotuneEvaluation, AutotuneSpace, discover_source

    path = TUNABLES / "corpus" / "rmsnorm_calculate_settings.py"
    told = AutotuneEvaluation(launch_values={"rmsnorm_kernel": {"BLOCK_SIZE": 4096, "num_warps": 16}})
    space = space_from_tunables(discover_source(path.read_text(), path.name, evaluation=told))
    # the run's values are where the search starts; the current configuration is the computation itself
    assert space.default() == Config.of({"BLOCK_SIZE": 4096, "num_warps": 16, "num_stages": 3})
    assert space.current() == Config.of({"BLOCK_SIZE": COMPUTED, "num_warps": COMPUTED, "num_stages": 3})
    assert space.origins["BLOCK_SIZE"].computed is not None  # the edit overrides the expression

    path = TUNABLES / "matmul_autotune.py"
    picked = AutotuneConfig(kwargs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=4)
    ran = AutotuneEvaluation(spaces={"matmul_kernel": AutotuneSpace(kernel="matmul_kernel", best_config=picked)})
    tunables = discover_source(path.read_text(), path.name)
    space = space_from_tunables(tunables, kernel="matmul_kernel", evaluation=ran)
    assert space.current() == Config.of({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "num_warps": 4, "num_stages": 4})


LOOPED = """
import triton
import triton.language as tl


@triton.jit
def flat(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)


@triton.jit
def rows(x_ptr, n, BLOCK: tl.constexpr):
    for start in range(0, n, BLOCK):
        tl.store(x_ptr + start + tl.arange(0, BLOCK), 1.0)


def run(x):
    flat[(1,)](x, BLOCK=64, num_warps=4)
    rows[(1,)](x, x.numel(), BLOCK=64, num_warps=4, num_ctas=1)
"""


def test_knobs_that_cannot_change_the_speed_are_held() -> None:
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.launches import loop_kernels

    tunables = discover_source(LOOPED, "kernel.py")
    looped = loop_kernels(LOOPED)
    assert looped == {"rows"}
    flat = space_from_tunables(tunables, kernel="flat", looped=looped)
    rows = space_from_tunables(tunables, kernel="rows", looped=looped)
    # no loop: num_stages has nothing to pipeline; num_ctas left at Triton's default is not offered
    assert set(flat.names) == {"BLOCK", "num_warps"}
    assert any("num_stages" in r and "no loop" in r for r in flat.fit_rules)
    # a loop: num_stages is a knob; num_ctas written in the launch is the user's knob
    assert {"BLOCK", "num_warps", "num_stages", "num_ctas"} <= set(rows.names)
    # unknown loops (no source): every num_stages stays a knob
    assert "num_stages" in space_from_tunables(tunables, kernel="flat").names


@pytest.mark.timeout(30)
def test_one_setting_two_launches_read_is_in_each_launch_s_space_under_its_own_kernel() -> None:
    """add_then_scale_shared_block: one ``BLOCK`` hoisted for both launches is one knob, listed under the first
    launch's kernel; the second launch's space still holds it, and names its own kernel (its warps are its own)."""
    found = discover(TUNABLES / "corpus" / "add_then_scale_shared_block.py")
    for kernel in ("add_bias_kernel", "scale_kernel"):
        space = space_from_tunables(found, kernel=kernel)
        assert space.kernel == kernel and set(space.names) == {"BLOCK", "num_warps", "num_stages"}
