"""wrongkernel17: a key ``get_inputs`` hands to ``run()`` as a plain value is moved by the net (docs/faults.md v65: a
chunked cumsum whose blocks carry nothing between them, right while a chunk fits in one block, the chunk length an
integer argument of ``run()`` the net kept and no rule reads), and an exponent key climbs a far ladder (v66: the same
scan over rows ``1 << log_cols`` long, the key moved by one and two only)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness.sizekeys import KeyRole, key_roles
from kernelopt.tuning.net import FarRoom, SizeClass, derived_sizes
from kernelopt.tuning.problem import ProblemShape

VARIANTS = Path(__file__).parent / "data" / "variants"


def test_a_key_get_inputs_hands_to_run_as_a_plain_value_is_moved_and_one_it_never_returns_is_kept() -> None:
    """``return [x, chunk]`` (or ``torch.tensor(G)``, a scalar for ``run()`` to read back; or a list built by
    ``append``, ``+`` or ``*extra``): what the key sizes in kernel.py the text cannot tell, so it moves like a key
    handed to another module's function; a key returned nowhere, a seed and a divisor stay kept."""
    passed = "def get_inputs(n=64, chunk=16):\n    return [torch.randn(n), chunk]\n"
    wrapped = "def get_inputs(n=64, G=16):\n    x = torch.randn(n)\n    return [x, torch.tensor(G)]\n"
    unused = "def get_inputs(n=64, mode=2):\n    return [torch.randn(n)]\n"
    seeded = "def get_inputs(n=64, seed=3):\n    torch.manual_seed(seed)\n    return [torch.randn(n)]\n"
    divisor = "def get_inputs(n=64, groups=4):\n    assert n % groups == 0\n    return [torch.randn(n), groups]\n"
    built = (
        "def get_inputs(n=64, chunk=16):\n    inputs = [torch.randn(n)]\n    inputs.append(chunk)\n    return inputs\n"
    )
    summed = "def get_inputs(n=64, chunk=16):\n    x = torch.randn(n)\n    return [x] + [chunk]\n"
    starred = "def get_inputs(n=64, chunk=16):\n    extra = (chunk,)\n    return [torch.randn(n), *extra]\n"
    rebound = (
        "def get_inputs(n=64, chunk=16):\n    args = [torch.randn(n)]\n    args = args + [chunk]\n    return args\n"
    )
    extended = (
        "def get_inputs(n=64, chunk=16):\n    args = [torch.randn(n)]\n    args.extend([chunk])\n    return args\n"
    )
    for text, key in (
        (passed, "chunk"), (wrapped, "G"), (built, "chunk"), (summed, "chunk"), (starred, "chunk"), (rebound, "chunk"),
        (extended, "chunk"),
    ):  # fmt: skip
        reading = key_roles(text)[key]
        assert (reading.role, reading.why) == (KeyRole.PASSED, "handed to run() as a plain value"), text
    assert key_roles(passed)["n"].role is KeyRole.SIZE
    assert key_roles(unused)["mode"].why == "no tensor dimension in get_inputs"
    assert key_roles(seeded)["seed"].why == "a seed"
    assert key_roles(divisor)["groups"].why == "divides a dimension"


def test_an_exponent_key_climbs_a_far_ladder_doubling_its_power_of_two_a_rung() -> None:
    """Where the pick shrinks a tile, a key a dimension is a power of (``1 << log_cols``) climbs its far ladder one
    a rung past the past and power sizes' one and two, within the room; a size key of at most 8 still has none."""
    roles = key_roles("def get_inputs(rows=4, log_cols=6):\n    return [torch.randn(rows, 1 << log_cols)]\n")
    shapes = [ProblemShape(kwargs={"rows": 8, "log_cols": 5}), ProblemShape(kwargs={"rows": 4, "log_cols": 6})]
    room = FarRoom(primary_bytes=6144, free_bytes=8 * 2**20)  # 24 bytes an element of 8 x 32: 43690 in 1 MiB
    far = [d for d in derived_sizes(shapes, (), roles, far=room) if d.kind is SizeClass.FAR]
    assert [[t.label() for t in d.tries] for d in far] == [
        [f"rows=8,log_cols={v}" for v in range(9, 13)]  # 8 * 2**12 = 32768 elements, 8 * 2**13 past the room
    ]
    assert derived_sizes(shapes, (), roles)[-1].kind is SizeClass.POWER  # no room: no far size


def test_a_key_handed_to_run_climbs_a_far_ladder_of_plain_multiples_where_its_odd_rungs_are_refused() -> None:
    """v67's chunks (64 and 32 of 4096 and 2048 elements): the chunk, handed to ``run()``, grows no tensor, so its far
    ladder is bounded by the elements alone, and each rung (the largest entry doubled plus the entries' common
    factor, which ``n % chunk`` refuses) carries its plain multiple to run instead; ``n`` counts its elements alone."""
    roles = key_roles(
        "def get_inputs(n=4096, chunk=64):\n    return [torch.randn(n), chunk]\n\n\ndef reference(x, chunk):\n"
        "    return x.view(-1, chunk).cumsum(-1).view(-1)\n"
    )
    shapes = [ProblemShape(kwargs={"n": 4096, "chunk": 64}), ProblemShape(kwargs={"n": 2048, "chunk": 32})]
    room = FarRoom(primary_bytes=4096 * 12, free_bytes=8 * 2**20)  # 12 bytes an element: 87381 in 1 MiB
    far = {d.tries[0].kwargs["n"]: d for d in derived_sizes(shapes, (), roles, far=room) if d.kind is SizeClass.FAR}
    assert [t.kwargs["n"] for t in far[10240].tries] == [10240, 18432, 34816, 67584]
    chunk = far[4096]
    assert [t.kwargs["chunk"] for t in chunk.tries][:4] == [160, 288, 544, 1056]
    assert [f.kwargs["chunk"] for f in chunk.fallbacks if f is not None][:4] == [128, 256, 512, 1024]
    assert chunk.scales[0] == pytest.approx(4096 / 6144)  # the chunk counts no element


def _checked(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    variant: str,
    pick: dict[str, int],
    block: tuple[str, str] | None = None,
) -> Any:
    """What ``tune`` does with ``pick`` (see :func:`_checked_each`)."""
    [done] = _checked_each(tmp_path, monkeypatch, variant, [pick], block)
    return done


def _checked_each(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    variant: str,
    picks: list[dict[str, int]],
    block: tuple[str, str] | None = None,
) -> list[Any]:
    """What ``tune`` does with each of ``picks`` in turn over a copy of ``tests/data/variants/<variant>`` (``block``:
    a number of its kernel.py replaced, old and new), its rules on (as main writes it): the entries' check and the
    net, in the session's own workers on the CPU under Triton's interpreter (one prepared folder and one evaluator's
    workers for all the picks)."""
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = Path(shutil.copytree(VARIANTS / variant, tmp_path / variant))
    if block is not None:
        kernel = folder / "kernel.py"
        kernel.write_text(kernel.read_text().replace(*block))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    current = prepared.space.current()
    base = (current.as_dict() if current is not None else {}, 2.0)
    with _evaluator(prepared) as evaluator:
        return [tf._checked_edit(_session(prepared, [(pick, 1.0)], base), evaluator) for pick in picks]


def _refused_by_the_grid(done: Any) -> None:
    """Nothing written, and the guard said why before the net ran: the grid counts its programs by the chunk, a
    constant of the launch, not by the tile, so no guard keeps a changed tile right (the guard's constant counts as of
    2026-12-07: these picks, once the net's to catch, are now refused from the text)."""
    assert done.edit is None, done.edit_note
    assert "does not match the grid's count" in done.edit_note and "not by BLOCK" in done.edit_note, done.edit_note


def _caught(done: Any, kind: SizeClass, label: str) -> None:
    """Nothing written: the net failed the pick at ``label``, a size of ``kind``, where the original passes."""
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.kind is kind and done.net.failed.shape.label() == label, done.net.line()


@pytest.mark.timeout(120)
def test_v65_a_chunked_cumsum_without_a_carry_fails_the_half_size_of_its_chunk_with_the_rules_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v65 (chunk_cumsum_int: each chunk of a flat vector one program, its blocks scanned by ``tl.cumsum`` with no
    carry, ``BLOCK=256`` for chunks of at most 256, the chunk a plain integer of ``run()``; SHAPES chunks of 64 and
    32): ``BLOCK=64`` was written plainly with the rules on (no rule reads a missing carry; the net kept ``chunk``,
    "no tensor dimension in get_inputs"), wrong from 65-long chunks, which the original handles. Now the half size
    moves the chunk with ``n`` and the pick fails there; nothing is written."""
    done = _checked(tmp_path, monkeypatch, "chunk_cumsum_int", {"BLOCK": 64})
    _refused_by_the_grid(done)  # the net's catch was at its half size, n=5120,chunk=80


@pytest.mark.timeout(120)
def test_v66_a_row_scan_without_a_carry_over_rows_a_power_of_two_long_fails_the_exponent_s_far_ladder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v66 (scan_pow2_rows: v65's scan over rows ``1 << log_cols`` long, ``BLOCK=1024`` for rows of at most 1024;
    SHAPES ``log_cols`` 5 and 6): ``BLOCK=256`` was written plainly with the rules on, the exponent moved by one and
    two only ("correct at ... rows=8,log_cols=8"), wrong at 512 and 1024 columns, which the original handles. Now its
    far ladder fails it at ``log_cols=9``; nothing is written."""
    done = _checked(tmp_path, monkeypatch, "scan_pow2_rows", {"BLOCK": 256})
    _caught(done, SizeClass.FAR, "rows=8,log_cols=9")


@pytest.mark.timeout(120)
def test_v67_a_chunk_covered_four_times_past_the_entries_fails_the_far_ladder_s_plain_multiple(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v67 (v65 with ``BLOCK=1024`` for chunks of at most 1024): ``BLOCK=256`` passed every size with v65's fix alone,
    the chunk's far ladder ending at its first rung (chunks of 160, which 4096 elements do not divide) and the chunk
    counted as elements; wrong from 257-long chunks, which the original handles. Now the rung's plain multiple runs:
    fails at ``n=4096,chunk=512``; nothing is written."""
    done = _checked(tmp_path, monkeypatch, "chunk_cumsum_int", {"BLOCK": 256}, ("256", "1024"))
    _refused_by_the_grid(done)  # the net's catch was on its far ladder, n=4096,chunk=512


@pytest.mark.timeout(120)
def test_v68_a_small_chunk_handed_to_run_fails_its_power_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """v68 (chunk_cumsum_small: v65's chunks a power of two of at most 8, ``BLOCK=8``; SHAPES chunks of 4 and 2):
    ``BLOCK=4`` was written with the rules on, the chunk a small key moved by no size but the past size, which the
    original refuses (4097 elements, chunks of 5); wrong at chunks of 8, which the original handles. Now a small key
    handed to ``run()`` gets the power size, as a small dimension does (v61): fails at ``n=512,chunk=8``."""
    done = _checked(tmp_path, monkeypatch, "chunk_cumsum_small", {"BLOCK": 4})
    _refused_by_the_grid(done)  # the net's catch was at its power size, n=512,chunk=8


def test_the_interpreter_runs_a_grid_s_programs_last_first_inside_mirrored_programs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each program takes a ticket (``tl.atomic_add`` on a counter) and stores it at its id: in order the tickets
    are the ids; inside :func:`~kernelopt.harness.interpreter.mirrored_programs` the last program takes the first,
    on both axes; after it, in order again."""
    import torch
    import triton
    import triton.language as tl

    from kernelopt.harness.interpreter import mirrored_programs

    monkeypatch.setenv("TRITON_INTERPRET", "1")

    @triton.jit
    def tickets(counter_ptr, out_ptr):
        pid = tl.program_id(0) * tl.num_programs(1) + tl.program_id(1)
        tl.store(out_ptr + pid, tl.atomic_add(counter_ptr, 1))

    def taken() -> list[int]:
        counter, out = torch.zeros(1, dtype=torch.int32), torch.full((6,), -1, dtype=torch.int32)
        tickets[(3, 2)](counter, out)
        return out.tolist()

    assert taken() == [0, 1, 2, 3, 4, 5]
    with mirrored_programs():
        assert taken() == [5, 4, 3, 2, 1, 0]
    assert taken() == [0, 1, 2, 3, 4, 5]


@pytest.mark.timeout(120)
def test_v69_a_split_sum_whose_first_split_stores_fails_the_net_in_mirrored_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v69 (splitk_store_first: a row sum split in ``SPLIT_K`` programs, split 0 storing its partial and the others
    adding theirs; ``SPLIT_K=1`` a plain store): ``SPLIT_K=2`` was written with the rules on, right in the
    interpreter, which ran the splits in order, and a race on a GPU. The net now runs a size's programs last first:
    it fails at the past size, where the original (one split) passes; nothing is written."""
    done = _checked(tmp_path, monkeypatch, "splitk_store_first", {"SPLIT_K": 2})
    _caught(done, SizeClass.PAST, "n_rows=9,n_cols=1025")


GPU_CASES = [
    (
        "chunk_cumsum_int",
        '[{"n": 4096, "chunk": 64}, {"n": 2048, "chunk": 32}]',
        '[{"n": 4194304, "chunk": 64}, {"n": 2097152, "chunk": 32}]',
        {"BLOCK": 64},
        SizeClass.HALF,
        "chunk=80",
    ),
    (
        "scan_pow2_rows",
        '[{"rows": 8, "log_cols": 5}, {"rows": 4, "log_cols": 6}]',
        '[{"rows": 8192, "log_cols": 5}, {"rows": 4096, "log_cols": 6}]',
        {"BLOCK": 256},
        SizeClass.FAR,
        "log_cols=9",
    ),
]


@pytest.mark.gpu
@pytest.mark.timeout(600)
@pytest.mark.parametrize(("variant", "shapes", "realistic", "pick", "kind", "at"), GPU_CASES)
def test_on_cuda_v65_and_v66_s_picks_fail_the_net_past_the_entries_rules_on_or_off(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    variant: str,
    shapes: str,
    realistic: str,
    pick: dict[str, int],
    kind: SizeClass,
    at: str,
) -> None:
    """On a GPU, compiled, at realistic sizes each original compiles for sm_90 (``compile_for_target``, 2026-12-06):
    v65 (chunk_cumsum_int, 2**22 elements in chunks of 64 and 2**21 in chunks of 32) fails the half size at chunks of
    80 and v66 (scan_pow2_rows, 8192 rows of 32 columns and 4096 of 64) the exponent's far ladder at 512 columns, where
    each original passes, whether the rules are on or off (none reads a missing carry), and nothing is written."""
    from tests.test_tuning_net import realistic_picks

    for done in realistic_picks(tmp_path, monkeypatch, variant, shapes, realistic, pick):
        assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
        assert done.net.failed.kind is kind and at in done.net.failed.shape.label(), done.net.line()
