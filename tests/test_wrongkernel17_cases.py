"""wrongkernel17: a key ``get_inputs`` hands to ``run()`` as a plain value is moved by the net (docs/faults.md v65: a
chunked cumsum whose blocks carry nothing between them, right while a chunk fits in one block, the chunk length an
integer argument of ``run()`` the net kept and no rule reads)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness.sizekeys import KeyRole, key_roles
from kernelopt.tuning.net import SizeClass

VARIANTS = Path(__file__).parent / "data" / "variants"


def test_a_key_get_inputs_hands_to_run_as_a_plain_value_is_moved_and_one_it_never_returns_is_kept() -> None:
    """``return [x, chunk]`` (or ``torch.tensor(G)``, a scalar for ``run()`` to read back): what the key sizes in
    kernel.py the text cannot tell, so it moves like a key handed to another module's function; a key returned
    nowhere, a seed and a divisor stay kept."""
    passed = "def get_inputs(n=64, chunk=16):\n    return [torch.randn(n), chunk]\n"
    wrapped = "def get_inputs(n=64, G=16):\n    x = torch.randn(n)\n    return [x, torch.tensor(G)]\n"
    unused = "def get_inputs(n=64, mode=2):\n    return [torch.randn(n)]\n"
    seeded = "def get_inputs(n=64, seed=3):\n    torch.manual_seed(seed)\n    return [torch.randn(n)]\n"
    divisor = "def get_inputs(n=64, groups=4):\n    assert n % groups == 0\n    return [torch.randn(n), groups]\n"
    for text, key in ((passed, "chunk"), (wrapped, "G")):
        reading = key_roles(text)[key]
        assert (reading.role, reading.why) == (KeyRole.UNKNOWN, "handed to run() as a plain value"), text
    assert key_roles(passed)["n"].role is KeyRole.SIZE
    assert key_roles(unused)["mode"].why == "no tensor dimension in get_inputs"
    assert key_roles(seeded)["seed"].why == "a seed"
    assert key_roles(divisor)["groups"].why == "divides a dimension"


def _checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pick: dict[str, int]) -> Any:
    """What ``tune`` does with ``pick`` over a copy of chunk_cumsum_int, its rules on (as main writes it): the
    entries' check and the net, in the session's own workers on the CPU under Triton's interpreter."""
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = Path(shutil.copytree(VARIANTS / "chunk_cumsum_int", tmp_path / "chunk_cumsum_int"))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    current = prepared.space.current()
    tuning = _session(prepared, [(pick, 1.0)], (current.as_dict() if current is not None else {}, 2.0))
    with _evaluator(prepared) as evaluator:
        return tf._checked_edit(tuning, evaluator)


@pytest.mark.timeout(120)
def test_v65_a_chunked_cumsum_without_a_carry_fails_the_half_size_of_its_chunk_with_the_rules_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v65 (chunk_cumsum_int: each chunk of a flat vector one program, its blocks scanned by ``tl.cumsum`` with no
    carry, ``BLOCK=256`` for chunks of at most 256, the chunk a plain integer of ``run()``; SHAPES chunks of 64 and
    32): ``BLOCK=64`` was written plainly with the rules on (no rule reads a missing carry; the net kept ``chunk``,
    "no tensor dimension in get_inputs"), wrong from 65-long chunks, which the original handles. Now the half size
    moves the chunk with ``n`` and the pick fails there; nothing is written."""
    done = _checked(tmp_path, monkeypatch, {"BLOCK": 64})
    assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
    assert done.net.failed.kind is SizeClass.HALF, done.net.line()
    assert done.net.failed.shape.label() == "n=5120,chunk=80", done.net.line()


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_v65_s_pick_fails_the_net_at_a_chunk_past_the_entries_rules_on_or_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a GPU, compiled, over 2**22 elements in chunks of 64 and 2**21 in chunks of 32 (the original compiled for
    sm_90 there, ``compile_for_target``, 2026-12-06): ``BLOCK=64`` fails the half size at chunks of 80, where the
    original passes, whether the rules are on or off (none reads the missing carry), and nothing is written."""
    from tests.test_tuning_net import realistic_picks

    shapes = '[{"n": 4096, "chunk": 64}, {"n": 2048, "chunk": 32}]'
    realistic = '[{"n": 4194304, "chunk": 64}, {"n": 2097152, "chunk": 32}]'
    for done in realistic_picks(tmp_path, monkeypatch, "chunk_cumsum_int", shapes, realistic, {"BLOCK": 64}):
        assert done.edit is None and done.net is not None and done.net.failed is not None, done.edit_note
        assert done.net.failed.kind is SizeClass.HALF and "chunk=80" in done.net.failed.shape.label(), done.net.line()
