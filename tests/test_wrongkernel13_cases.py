"""wrongkernel13: the net's power size (v44's miss) and the forms ``tune`` wrote wrong at a size it did not time
(docs/faults.md, the variants table from v47; :mod:`kernelopt.tuning.net`, :mod:`kernelopt.tunables.guard`)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness.sizekeys import KeyReading, KeyRole
from kernelopt.tuning.net import SizeClass, derived_sizes
from kernelopt.tuning.problem import ProblemShape

VARIANTS = Path(__file__).parent / "data" / "variants"


def _powers(entries: list[dict[str, Any]], roles: dict[str, KeyReading] | None = None) -> list[list[str]]:
    sizes = derived_sizes([ProblemShape(kwargs=e) for e in entries], roles=roles)
    return [[t.label() for t in s.tries] for s in sizes if s.kind is SizeClass.POWER]


def test_the_power_size_moves_each_key_a_power_of_two_in_every_entry_alone_four_times_then_twice() -> None:
    """v44's rows of ``N`` reshaped from a block of 1024 (``assert n & (n - 1) == 0``) refuse every size but powers of
    two; a pick of ``BLOCK=256`` is right up to 256 and wrong from 512. Each key a power of two in every entry moves
    alone, four times its largest first (twice where an original's bound refuses four times), the rest at their
    largest; a key not a power of two in some entry, or at most 8 (a code, a ``dim``), does not; an exponent moves by
    two."""
    assert _powers([{"n_rows": 40, "n": 64}, {"n_rows": 20, "n": 128}]) == [["n_rows=40,n=512", "n_rows=40,n=256"]]
    assert _powers([{"M": 64, "N": 100}, {"M": 128, "N": 128}]) == [["M=512,N=128", "M=256,N=128"]]
    assert _powers([{"n": 100}, {"n": 128}]) == [] and _powers([{"n": 256, "dim": 4}]) == [["n=1024,dim=4"]]
    exponent = {"log_n": KeyReading(KeyRole.EXPONENT, "a dimension is a power of it")}
    assert _powers([{"log_n": 10}], exponent) == [["log_n=12"]]  # log_n=11 is the past size's


@pytest.mark.timeout(120)
def test_v44_a_tile_reshaped_into_rows_fails_the_net_past_the_next_power_of_two_with_its_rule_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """wrongkernel12's v44 (reshape_rows: ``tl.reshape(x, (BLOCK // N, N))``, rows a power of two long and at most
    1024; SHAPES 64 and 128 columns) with ``BLOCK=256`` written plainly (its rule off) passed every size of the net the
    original allows (32 columns, below) and failed to reshape at 512 and 1024. The power size, 4 x 128 = 512 columns,
    is one the original handles and the pick fails."""
    from tests.test_tuning_net import plain_pick_checked

    done = plain_pick_checked(tmp_path, monkeypatch, "reshape_rows", {"BLOCK": 256})
    assert done.edit is None and done.edit_note is not None, done.edit_note
    assert done.edit_note.startswith(
        "the written kernel fails at n_rows=40,n=512 (a key a power of two in every entry, alone at 4 (else 2) times "
        "its largest), where the original passes: run_error"
    ), done.edit_note
    assert "reshape() cannot change total number of elements" in done.edit_note, done.edit_note


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_the_power_size_keeps_out_v44_s_plain_pick_and_passes_its_guarded_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a GPU, compiled, at realistic sizes: reshape_rows (v44) over 4096 rows of 64 columns and 2048 of 128. With
    the rules off the plain ``BLOCK=256`` passes every entry and every other size of the net and fails the power
    size, 4096 rows of 512 columns (the reshape refused at compile time), where the original passes; with the rules
    on the guarded text (``if 256 % n == 0``) passes the net there too and is written."""
    from tests.test_tuning_net import pick_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    folder = Path(shutil.copytree(VARIANTS / "reshape_rows", tmp_path / "v44"))
    reference = folder / "reference.py"
    entries = '[{"n_rows": 4096, "n": 64}, {"n_rows": 2048, "n": 128}]'
    reference.write_text(reference.read_text().replace('[{"n_rows": 40, "n": 64}, {"n_rows": 20, "n": 128}]', entries))
    for rules in (False, True):
        done = pick_checked(monkeypatch, folder, {"BLOCK": 256}, {"BLOCK": 1024}, rules=rules)
        assert done.net is not None, (rules, done.edit_note)
        if rules:
            assert done.edit is not None and done.net.failed is None, done.net.line()
            assert "n_rows=4096,n=512" in done.net.line(), done.net.line()
        else:
            assert done.edit is None and done.net.failed is not None, done.net.line()
            assert done.net.failed.kind is SizeClass.POWER, done.net.line()
            assert done.net.failed.shape.label() == "n_rows=4096,n=512", done.net.line()
