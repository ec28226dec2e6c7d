"""wrongkernel15: the net's residue size over two keys together (docs/faults.md v56) and its constant size over a
module-level tuple's integers (v57)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.net import SizeClass, cast, derived_sizes
from kernelopt.tuning.problem import ProblemShape

ENTRIES = [ProblemShape(kwargs={"M": 64, "N": 64}), ProblemShape(kwargs={"M": 32, "N": 64})]  # v56's SHAPES


def _flat(pick: int, own: int) -> Any:
    """A check where a kernel needs its block to divide ``M * N`` (v56's flat grid): the original's ``own``, the
    written kernel's ``pick``."""
    seen: list[str] = []

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        m, n = shape.kwargs["M"], shape.kwargs["N"]
        seen.append(f"{source}@{m}x{n}")
        ok = (m * n) % (pick if source == "written" else own) == 0
        return (Outcome.OK, None) if ok else (Outcome.WRONG_RESULT, "output not written")

    return check_at, seen


def test_the_joint_residue_halves_one_key_s_step_at_a_time_and_catches_a_block_of_the_product() -> None:
    """Each key alone at 64 + 16, 8, ... keeps the other's 64 and so the product's six factors of two: a block of 64
    over the original's 16 passes every such step. The joint residue (both keys off their multiples, the product
    losing one factor of two a step: 80 x 96 (2^9 x 15), 80 x 80, 72 x 80, 72 x 72 (2^6 x 81), 68 x 72 (2^5 x 153),
    ...) is searched by halves (wrongkernel16): it fails a step whose product the original's 16 divides and 64 does
    not, where the original passes. A block of 16 passes down to where the original refuses too, and nothing is
    failed."""
    sizes = [s for s in derived_sizes(ENTRIES, residue=True) if s.kind in (SizeClass.PAST, SizeClass.RESIDUE)]
    joint = [t.label() for t in sizes[-1].tries]
    assert joint[:6] == ["M=80,N=96", "M=80,N=80", "M=72,N=80", "M=72,N=72", "M=68,N=72", "M=68,N=68"], joint
    check_at, seen = _flat(pick=64, own=16)
    verdict = cast(sizes, "original", "written", check_at, clock=lambda: 0.0)
    assert verdict.failed is not None and verdict.failed.kind is SizeClass.RESIDUE, verdict.line()
    m, n = (int(verdict.failed.shape.kwargs[k]) for k in "MN")  # type: ignore[call-overload]
    assert (m * n) % 16 == 0 and (m * n) % 64, verdict.line()
    assert seen[-1] == f"original@{m}x{n}", seen
    check_at, seen = _flat(pick=16, own=16)
    verdict = cast(sizes, "original", "written", check_at, clock=lambda: 0.0)
    assert verdict.failed is None, verdict.line()
    assert seen[-1].startswith("original@"), seen  # down to the first step the original refuses


def test_one_key_has_no_joint_residue() -> None:
    """One size key: its own residue ladder only."""
    entries = [ProblemShape(kwargs={"n": 8192}), ProblemShape(kwargs={"n": 1024})]
    assert len([s for s in derived_sizes(entries, residue=True) if s.kind is SizeClass.RESIDUE]) == 1


@pytest.mark.timeout(120)
def test_v56_a_block_of_a_flat_matrix_fails_the_joint_residue_with_the_rules_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v56 (flat2d_nomask: n61's ReLU over an M x N matrix read flat, ``M * N // BLOCK`` programs, no masks, BLOCK=16;
    SHAPES 64 x 64 and 32 x 64): ``BLOCK=64`` written plainly passed every size of the net before the joint residue
    (each key alone keeps the other's 64); now it fails at a size both keys are off their multiples, where the
    original passes. With the rules on it is written ``if n % 64 == 0`` (net_catch.py cases --rules on)."""
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "flat2d_nomask", {"BLOCK": 64})
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.kind is SizeClass.RESIDUE, done.net.line()
    m, n = (done.net.failed.shape.kwargs[k] for k in "MN")
    assert m % 64 and n % 64 and (m * n) % 16 == 0, done.net.line()


def test_each_integer_of_a_module_level_tuple_steps_alone_like_a_module_level_size() -> None:
    """v57's ``FEATURES = (2, 1024)`` beside a ``batch`` key (residue on): its 1024 alone at 1025, then 1536, 1280,
    ..., 1026, the 2 kept (a small key); a tuple's 1000 at 1001, 1004, 1002."""
    entries = [ProblemShape(kwargs={"batch": 2}), ProblemShape(kwargs={"batch": 4})]
    sizes = derived_sizes(entries, constants={"FEATURES": (2, 1024), "SHAPE": (4, 1000)}, residue=True)
    steps = [[t.label() for t in s.tries] for s in sizes if s.kind is SizeClass.CONSTANT]
    assert steps == [
        [f"batch=4,FEATURES=(2, {1024 + d})" for d in (1, 512, 256, 128, 64, 32, 16, 8, 4, 2)],
        [f"batch=4,SHAPE=(4, {1000 + d})" for d in (1, 4, 2)],
    ], steps


@pytest.mark.timeout(120)
def test_v57_a_tile_dividing_a_module_level_tuple_s_item_fails_the_constant_size_with_its_rule_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v57 (row_module_tuple: v54's loop without masks over rows of the last item of reference.py's ``FEATURES = (2,
    1024)``, SHAPES batches of 2 and 4): ``BLOCK=512`` written plainly passed every size (the constant size stepped
    integers only), wrong at 1280 columns, which the original's 256 handles. Now caught there; with the rules on
    written ``if n_cols % 512 == 0``, correct at 1280 (net_catch.py cases --rules on)."""
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "row_module_tuple", {"BLOCK": 512})
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.kind is SizeClass.CONSTANT, done.net.line()
    assert done.net.failed.shape.label() == "batch=4,FEATURES=(2, 1280)", done.net.line()


def test_a_key_bounding_randint_s_codes_is_a_size() -> None:
    """``torch.randint(0, n_bins, (n,))``: the codes' range is a size a block may have to cover (v59's bins), read as
    one; ``randint(high=...)`` too; a literal bound adds no key."""
    from kernelopt.harness.sizekeys import KeyRole, key_roles

    text = (
        "def get_inputs(n=64, n_bins=100, vocab=50, device='cpu'):\n"
        "    return [torch.randint(0, n_bins, (n,)), torch.randint(high=vocab, size=(n,)), torch.randint(0, 2, (n,))]\n"
    )
    roles = key_roles(text)
    assert {k: roles[k].role for k in ("n", "n_bins", "vocab")} == dict.fromkeys(("n", "n_bins", "vocab"), KeyRole.SIZE)


@pytest.mark.timeout(120)
def test_v59_a_histogram_s_bins_a_block_fails_one_past_its_largest_bin_count_with_the_rules_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v59 (hist_bins_block: ``tl.histogram(codes, BINS)``, ``BINS = 256`` a block every code must fall below, codes
    ``torch.randint(0, n_bins, ...)``, SHAPES of 100 and 64 bins): ``BINS=128`` written plainly passed every size (the
    net kept ``n_bins``, a randint bound read as no size), wrong at 129 bins and up, which the original handles. Now
    caught at 129; with the rules on written ``if n_bins <= 128`` (net_catch.py cases --rules on)."""
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "hist_bins_block", {"BINS": 128})
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.shape.kwargs["n_bins"] == 129, done.net.line()
