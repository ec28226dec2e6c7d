"""wrongkernel16: the net's far size over reference.py's module-level sizes (docs/faults.md v60), its rungs near the
entries admitted by their elements, not by a time a loaded machine inflates; the joint residue searched by halves; a
small tensor dimension's power size (v61) and a divisor that is a dimension moved with what it divides (v62)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.net import EntryTimes, FarRoom, NetCap, SizeClass, cast, derived_sizes
from kernelopt.tuning.problem import ProblemShape

ROWS = [ProblemShape(kwargs={"rows": 2}), ProblemShape(kwargs={"rows": 4})]  # v60's SHAPES
ROOM = FarRoom(primary_bytes=2 * 8192 * 4 * 6, free_bytes=16 * 2**30)


def test_each_module_level_size_beside_the_keys_climbs_its_own_far_ladder() -> None:
    """A ``HIDDEN = 8192`` beside a ``rows`` key (v60's form) (the pick shrinks a tile: far on): after the key's own ladder,
    the size alone, the key at its largest, at 3, 5, 9, ... times its value (twice, four times, eight times, each plus
    the value), up to the int32 elements of the tensor it sizes; a tuple's item too, a small one (2) never; each
    rung's scale the elements it holds over the entries'."""
    constants = {"HIDDEN": 8192, "FEATURES": (2, 1000), "HEADS": 4}
    sizes = [s for s in derived_sizes(ROWS, constants=constants, far=ROOM) if s.kind is SizeClass.FAR]
    ladders = [[t.label() for t in s.tries] for s in sizes]
    assert ladders[0][:3] == [f"rows=4,HIDDEN={8192 * f}" for f in (3, 5, 9)], ladders
    assert ladders[1][:2] == ["rows=4,FEATURES=(2, 3000)", "rows=4,FEATURES=(2, 5000)"], ladders
    assert len(ladders) == 2, ladders  # HIDDEN and FEATURES' last item: rows (at most 4) and HEADS = 4 are small
    assert all(4 * int(t.constants["HIDDEN"]) <= 2**31 - 1 for t in sizes[0].tries)  # type: ignore[call-overload]
    assert sizes[0].scales[0] == pytest.approx(4 * 3 / 6), sizes[1].scales  # 4 rows of 3 x HIDDEN over 2 + 4 rows
    room = FarRoom(primary_bytes=ROOM.primary_bytes, free_bytes=8 * ROOM.primary_bytes * 8)  # an eighth: 8 primaries
    tight = [s for s in derived_sizes(ROWS, constants={"HIDDEN": 8192}, far=room) if s.kind is SizeClass.FAR]
    assert [t.label() for t in tight[-1].tries] == ["rows=4,HIDDEN=24576"], tight  # 4 rows x 5 HIDDEN: 10 primaries


def test_with_no_key_to_move_the_module_level_sizes_climb_the_far_ladder() -> None:
    """No ``SHAPES`` key moves (a KernelBench problem's ``N = 4096``): the module-level sizes are the far ladder."""
    entries = [ProblemShape(kwargs={})]
    sizes = derived_sizes(entries, constants={"N": 4096}, far=ROOM)
    far = [[t.label() for t in s.tries] for s in sizes if s.kind is SizeClass.FAR]
    assert far and far[0][:2] == ["N=12288", "N=20480"], far
    assert not [s for s in derived_sizes(entries, constants={"N": 4096}) if s.kind is SizeClass.FAR]


@pytest.mark.timeout(120)
def test_v60_a_count_of_tiles_of_a_module_level_row_fails_its_far_ladder_with_the_rules_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v60 (parts_module: v47's two-stage sum over rows of reference.py's ``HIDDEN = 4096``, the rows a ``SHAPES``
    key; 16 partials of ``BLOCK_SIZE = 1024`` columns): ``BLOCK=512`` written plainly passed every size of the net (the
    far ladder moved the rows only), wrong past 8192 columns, which the original handles to 16384. Now it fails at
    ``HIDDEN=12288``, where the original passes; with the rules on it is written ``if n_cols <= 8192`` and passes
    there (net_catch.py cases --rules on)."""
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "parts_module", {"BLOCK": 512})
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.kind is SizeClass.FAR, done.net.line()
    assert done.net.failed.shape.label() == "rows=4,HIDDEN=12288", done.net.line()


def test_a_far_rung_within_four_times_the_entries_elements_runs_whatever_its_request_is_estimated_at() -> None:
    """v47's far ladder (entries of 3000 and 8192 elements; rungs 16392, 32776, 65544: 1.5, 2.9 and 5.9 times the
    entries') on a loaded machine: the entries' check took 1 s, every request now takes 6. The rungs within
    ``FAR_SURE_SCALE`` run (the estimate weighed them past the far rung's time before, and v55's wrong pick was
    written under a loaded CI's estimate), so the plain pick wrong from 32769 fails at 32776; the rung past it is
    still admitted by time, and not run."""
    entries = [ProblemShape(kwargs={"n": 3000}), ProblemShape(kwargs={"n": 8192})]
    [far] = [s for s in derived_sizes(entries, far=FarRoom(primary_bytes=0, free_bytes=0)) if s.kind is SizeClass.FAR]
    assert [t.label() for t in far.tries][:3] == ["n=16392", "n=32776", "n=65544"]
    times = EntryTimes(check_s=1.0, kernel_s=0.9, count=2)

    def run(bad_from: int) -> tuple[object, list[str]]:
        now = [0.0]
        seen: list[str] = []

        def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
            now[0] += 6.0
            n = shape.kwargs["n"]
            seen.append(f"{source}@{n}")
            wrong = source == "written" and isinstance(n, int) and n >= bad_from
            return (Outcome.WRONG_RESULT, "differs") if wrong else (Outcome.OK, None)

        cap = NetCap.of(600.0, 0.0)  # 150 s; a far rung's time: 2 s (twice the entries' check)
        return cast([far], "original", "written", check_at, cap=cap, entries=times, clock=lambda: now[0]), seen

    verdict, seen = run(bad_from=32769)
    assert seen == ["written@16392", "written@32776", "original@32776"], seen
    assert verdict.failed is not None and verdict.failed.shape.label() == "n=32776"  # type: ignore[attr-defined]
    verdict, seen = run(bad_from=10**9)
    assert seen == ["written@16392", "written@32776"], seen  # 65544: 5.9 times the entries, about 12 s: not run


def _product(shape: ProblemShape) -> int:
    return int(shape.kwargs["M"]) * int(shape.kwargs["N"]) * int(shape.kwargs["K"])  # type: ignore[call-overload]


def _product_check(pick: int, own: int) -> tuple[Any, list[str]]:
    """A check where a kernel needs ``2^pick`` (the written one) or ``2^own`` (the original) to divide ``M * N * K``;
    and the kernels run."""
    runs: list[str] = []

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        runs.append(source)
        ok = _product(shape) % (1 << (pick if source == "written" else own)) == 0
        return (Outcome.OK, None) if ok else (Outcome.WRONG_RESULT, "output not written")

    return check_at, runs


def test_the_joint_residue_of_three_keys_is_searched_by_halves_and_loses_no_catch() -> None:
    """Three keys of grain 1024 (entries 1024 and 2048 each): 28 joint steps, the product one factor of two fewer a
    step (2^27 down to 1). For every original's block ``2^o`` and pick's ``2^b`` over the product, the search fails
    the pick at a step the original passes wherever ``b > o`` and fails nothing where ``b <= o``, in at most 9
    requests (the descent took up to 29)."""
    entries = [
        ProblemShape(kwargs={"M": 1024, "N": 1024, "K": 1024}),
        ProblemShape(kwargs={"M": 2048, "N": 2048, "K": 2048}),
    ]
    sizes = [s for s in derived_sizes(entries, residue=True) if s.kind is SizeClass.RESIDUE]
    joint = sizes[-1]
    assert joint.bisect and len(joint.tries) == 28, len(joint.tries)

    most = 0
    for o in range(0, 11):
        for b in range(0, 21):
            check_at, runs = _product_check(pick=b, own=o)
            verdict = cast([joint], "original", "written", check_at, clock=lambda: 0.0)
            if b > o:
                assert verdict.failed is not None, (o, b, verdict.line())
                at = _product(verdict.failed.shape)
                assert at % (1 << o) == 0 and at % (1 << b), (o, b, verdict.line())
            else:
                assert verdict.failed is None, (o, b, verdict.line())
            most = max(most, len(runs))
    assert most <= 9, most


ROUTER = (
    "def get_inputs(T: int = 16, E: int = 4, device: str = 'cpu'):\n    return [torch.randn(T, E, device=device)]\n"
)


def test_a_small_tensor_dimension_a_power_of_two_in_every_entry_gets_a_power_size_where_odd_sizes_are_refused() -> None:
    """v61's SHAPES (T 16 and 8 tokens, E 4 and 2 experts; E a tensor dimension by ``get_inputs``): E alone at 16,
    else 8, a size cast only where the original refuses the past size's first try (its power-of-two assert refuses 5
    experts, and every size before kept E at 4); an original that handles odd sizes met E moved at the past size, and
    the small key's power size is not run. A small key that is no tensor dimension (a code) gets none."""
    from kernelopt.harness.sizekeys import key_roles

    entries = [ProblemShape(kwargs={"T": 16, "E": 4}), ProblemShape(kwargs={"T": 8, "E": 2})]
    sizes = derived_sizes(entries, roles=key_roles(ROUTER))
    power = [([t.label() for t in s.tries], s.even) for s in sizes if s.kind is SizeClass.POWER]
    assert power == [(["T=64,E=4", "T=32,E=4"], False), (["T=16,E=16", "T=16,E=8"], True)], power
    assert not [s for s in derived_sizes(entries) if s.kind is SizeClass.POWER and s.even]  # E read as no dimension

    def check(odd: bool) -> list[str]:
        runs: list[str] = []

        def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
            e = int(shape.kwargs["E"])  # type: ignore[call-overload]
            runs.append(f"{source}@{shape.label()}")
            if not odd and (e & (e - 1) or e > 8):
                return Outcome.RUN_ERROR, "AssertionError"
            return (Outcome.WRONG_RESULT, "output not written") if source == "written" and e > 4 else (Outcome.OK, None)

        verdict = cast(sizes, "original", "written", check_at, clock=lambda: 0.0)
        assert verdict.failed is not None, verdict.line()
        return runs

    assert check(odd=False)[-2:] == ["written@T=16,E=8", "original@T=16,E=8"]  # caught by the small key's power size
    assert check(odd=True)[-1] == "original@T=17,E=5"  # caught at the past size: odd sizes handled


@pytest.mark.timeout(120)
def test_v61_a_router_s_experts_in_one_block_fails_the_small_key_s_power_size_with_the_rules_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v61 (moe_pow2_experts: a router's softmax, E experts in one block of ``BLOCK_E=8`` masked ``e < E``, the
    original's ``assert E & (E - 1) == 0 and E <= 8``; SHAPES of 4 and 2 experts): ``BLOCK_E=4`` written plainly passed
    every size of the net (the original refused every size moving E, the others kept the small key at 4), wrong at 8
    experts, which the original handles. Now it fails at ``T=16,E=8``; with the rules on it is written ``if E <= 4``
    (net_catch.py cases --rules on)."""
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "moe_pow2_experts", {"BLOCK_E": 4})
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.kind is SizeClass.POWER, done.net.line()
    assert done.net.failed.shape.label() == "T=16,E=8", done.net.line()


QK = "def get_inputs(T: int = 16, hidden: int = 512, heads: int = 4, device: str = 'cpu'):\n    return [torch.randn(T, heads, hidden // heads)]\n"


def test_a_key_dividing_a_dimension_and_a_dimension_itself_moves_with_what_it_divides() -> None:
    """v62's ``randn(T, heads, hidden // heads)``: ``heads`` is kept (moved alone, the division is one a reference
    refuses), its reading naming ``hidden``; the divisor size moves both by four, else two, from the entry where heads
    is largest, the head's 128 kept. A divisor that is no dimension itself names what it divides too (v64's groups,
    ``cdiv(n, block)``'s block)."""
    from kernelopt.harness.sizekeys import key_roles

    roles = key_roles(QK)
    assert roles["heads"].dividends == ("hidden",) and roles["hidden"].dividends == (), roles
    entries = [
        ProblemShape(kwargs={"T": 16, "hidden": 512, "heads": 4}),
        ProblemShape(kwargs={"T": 8, "hidden": 1024, "heads": 8}),
    ]
    sizes = [s for s in derived_sizes(entries, roles=roles) if s.kind is SizeClass.DIVISOR]
    assert [[t.label() for t in s.tries] for s in sizes] == [
        ["T=8,hidden=4096,heads=32", "T=8,hidden=2048,heads=16"]
    ], sizes
    ceil = key_roles("def get_inputs(n=1000, block=128):\n    return [torch.zeros(triton.cdiv(n, block))]")
    assert ceil["block"].dividends == ("n",)  # moved with n, the count of blocks kept
    groups = "def get_inputs(N=16, C=256, G=4):\n    assert C % G == 0\n    return [torch.randn(N, C), G]\n"
    assert key_roles(groups)["G"].dividends == ("C",)  # v64: a divisor handed to run(), no dimension itself


@pytest.mark.timeout(120)
def test_v62_heads_in_one_block_fail_the_divisor_size_with_the_rules_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v62 (qknorm_heads: a QK-norm, a token's heads in one block of ``BLOCK_H=16`` masked ``h < H``, SHAPES of 4 and 8
    heads of 128): ``BLOCK_H=8`` written plainly passed every size of the net (heads kept, as a divisor of hidden;
    moving hidden alone made heads of 256, which the original refuses), wrong from 9 heads, which the original
    handles. Now it fails at ``T=8,hidden=2048,heads=16``; with the rules on it is written ``if H <= 8``
    (net_catch.py cases --rules on)."""
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "qknorm_heads", {"BLOCK_H": 8})
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.kind is SizeClass.DIVISOR, done.net.line()
    assert done.net.failed.shape.label() == "T=8,hidden=2048,heads=16", done.net.line()


def test_a_key_a_tensor_s_values_are_taken_modulo_is_a_size() -> None:
    """``(torch.arange(n) * 7919) % n_bins``, directly or through a name: the key bounds the codes, as randint's bound
    does (v63), so the net moves it; ``hidden // heads`` and ``n % groups`` of integers still divide."""
    from kernelopt.harness.sizekeys import KeyRole, key_roles

    direct = "def get_inputs(n=64, n_bins=100):\n    return [(torch.arange(n) * 7919) % n_bins, n_bins]\n"
    named = "def get_inputs(n=64, k=10):\n    ids = torch.arange(n)\n    return [ids % k]\n"
    assert key_roles(direct)["n_bins"].role is KeyRole.SIZE
    assert key_roles(named)["k"].role is KeyRole.SIZE
    ints = "def get_inputs(n=64, groups=4):\n    assert n % groups == 0\n    return [torch.randn(n)]\n"
    assert key_roles(ints)["groups"].why == "divides a dimension"


@pytest.mark.timeout(120)
def test_v63_a_histogram_over_codes_modulo_its_bins_fails_one_past_its_largest_bin_count_with_the_rules_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v63 (hist_mod_bins: v59's ``tl.histogram(codes, BINS)``, ``BINS = 256``, its codes ``(torch.arange(n) * 7919)
    % n_bins``): ``BINS=128`` written plainly passed every size (``n_bins`` kept as a divisor), wrong from 129 bins,
    which the original handles. Now caught at 129; with the rules on written ``if n_bins <= 128``."""
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "hist_mod_bins", {"BINS": 128})
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.shape.kwargs["n_bins"] == 129, done.net.line()


GPU_CASES = [
    (
        "parts_module",
        '[{"rows": 2}, {"rows": 4}]',
        '[{"rows": 2048}, {"rows": 4096}]',
        {"BLOCK": 512},
        "far",
        "HIDDEN=12288",
    ),
    (
        "moe_pow2_experts",
        '[{"T": 16, "E": 4}, {"T": 8, "E": 2}]',
        '[{"T": 16384, "E": 4}, {"T": 8192, "E": 2}]',
        {"BLOCK_E": 4},
        "power",
        "T=16384,E=8",
    ),
    (
        "qknorm_heads",
        '[{"T": 16, "hidden": 512, "heads": 4}, {"T": 8, "hidden": 1024, "heads": 8}]',
        '[{"T": 4096, "hidden": 512, "heads": 4}, {"T": 2048, "hidden": 1024, "heads": 8}]',
        {"BLOCK_H": 8},
        "divisor",
        "T=2048,hidden=2048,heads=16",
    ),
    (
        "groupnorm_groups",
        '[{"N": 16, "C": 256, "G": 4}, {"N": 8, "C": 512, "G": 8}]',
        '[{"N": 4096, "C": 256, "G": 4}, {"N": 2048, "C": 512, "G": 8}]',
        {"BLOCK_G": 8},
        "divisor",
        "N=2048,C=1024,G=16",
    ),
    (
        "hist_mod_bins",
        '[{"n": 4096, "n_bins": 100}, {"n": 2048, "n_bins": 64}]',
        '[{"n": 1048576, "n_bins": 100}, {"n": 524288, "n_bins": 64}]',
        {"BINS": 128},
        "past",
        "n_bins=129",
    ),
]


@pytest.mark.gpu
@pytest.mark.timeout(600)
@pytest.mark.parametrize(("variant", "shapes", "realistic", "pick", "kind", "at"), GPU_CASES)
def test_on_cuda_v60_to_v64_s_plain_picks_fail_the_net_and_what_the_rules_write_passes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    variant: str,
    shapes: str,
    realistic: str,
    pick: dict[str, int],
    kind: str,
    at: str,
) -> None:
    """On a GPU, compiled, at realistic sizes each original compiles for sm_90 (``compile_for_target``, 2026-12-06):
    v60 (parts_module over 2048 and 4096 rows of ``HIDDEN = 4096``), v61 (moe_pow2_experts, 16384 and 8192 tokens),
    v62 (qknorm_heads, 4096 tokens of 4 heads and 2048 of 8), v63 (hist_mod_bins, 2**20 and 2**19 codes) and v64
    (groupnorm_groups, 4096 rows of 4 groups and 2048 of 8). With the rules off the plain pick fails the net where
    the original passes (v60's far ladder at ``HIDDEN=12288``, v61's small key's power size at 8 experts, v62's and
    v64's divisor size at 16 heads or groups, v63's past size at 129 bins), and nothing is written; with the rules on
    what they write (each guarded) passes the net."""
    from tests.test_tuning_net import realistic_picks

    off, on = realistic_picks(tmp_path, monkeypatch, variant, shapes, realistic, pick)
    assert off.edit is None and off.net is not None and off.net.failed is not None, off.edit_note
    assert off.net.failed.kind.value == kind and at in off.net.failed.shape.label(), off.net.line()
    assert on.edit is not None and on.net is not None and on.net.failed is None, on.net
    assert "if " in on.edit.new_source and on.edit_note, on.edit_note  # guarded


@pytest.mark.timeout(120)
def test_v64_a_group_norm_s_groups_in_one_block_fail_the_divisor_size_with_the_rules_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v64 (groupnorm_groups: a row's ``G`` groups in one block of ``BLOCK_G=16`` masked ``g < G``, ``G`` handed to
    ``run()``, ``get_inputs`` asserting ``C % G == 0``; SHAPES of 4 and 8 groups of 64 channels): ``BLOCK_G=8`` written
    plainly passed every size (``G`` kept as a divisor of ``C``, moving ``C`` alone made groups of more than 64
    channels, which the original refuses), wrong from 9 groups, which the original handles. Now it fails at
    ``N=8,C=1024,G=16``; with the rules on it is written ``if groups <= 8``."""
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "groupnorm_groups", {"BLOCK_G": 8})
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.kind is SizeClass.DIVISOR, done.net.line()
    assert done.net.failed.shape.label() == "N=8,C=1024,G=16", done.net.line()
