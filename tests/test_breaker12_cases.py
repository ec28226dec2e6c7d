"""The twelfth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``, held
out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of tests/data/breaker12
is a public Triton kernel written for the trial in a form the first eleven trials did not try (its README lists
them). What tuning writes is judged as a user would: the written kernel against the reference at every ``SHAPES``
entry and at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty`` outputs in the
middle of NaN (tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker12"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


# ------------------------------------------------------------------------------------- knobs found


def test_a_dict_of_settings_bound_in_each_branch_is_read_as_its_settings() -> None:
    """Seen on 2026-12-06: liger_dyt, Liger-Kernel's DyT forward, binds its launch settings to a dict literal in each
    branch, ``kwargs = {"BLOCK_N": min(next_power_of_2(N), 2048), "num_warps": 4, "num_stages": 1}`` under ``if N >=
    4096:`` and the same keys with a cap of 1024 under ``else:``, then launches with ``**kwargs``. ``tune`` exited 2
    "no tunable knob: ... the argument **kwargs cannot be read (its dict is built by code or changed after it is
    built)". A dict literal bound in each branch with the same keys gives its settings, each computed and tuned
    after the ``if`` by the sizes the branches read, as a settings helper's dict is; keys that differ by branch
    are still refused, by name."""
    from kernelopt.tunables import discover_source

    found = {t.key: t for t in discover_source((DATA / "liger_dyt" / "kernel.py").read_text())}
    for name in ("BLOCK_N", "num_warps", "num_stages"):
        knob = found[f"_dyt_fwd_kernel:{name}"]
        assert knob.editable and knob.size_names == ["N"], knob
    differ = (
        (DATA / "liger_dyt" / "kernel.py")
        .read_text()
        .replace('"num_warps": 4, "num_stages": 1}\n    else', '"num_warps": 4}\n    else')
    )
    refused = {t.key: t for t in discover_source(differ)}["_dyt_fwd_kernel:**kwargs"]
    assert not refused.editable and "keys differ" in (refused.refused_reason or ""), refused


@pytest.mark.timeout(180)
def test_a_table_of_settings_of_a_dict_bound_in_branches_is_correct_at_other_sizes(tmp_path: Path) -> None:
    """The table ``tune`` writes for liger_dyt after the rule above: ``if N <= 5000:  # kernelopt: tuned`` after the
    ``if`` / ``else``, the dict copied (``kwargs = dict(kwargs)``) and its entries set, the branches' dict the
    fallback; the grid's ``meta["BLOCK_N"]`` follows. Correct at sizes no entry names, odd ones and one above."""
    from tests.test_breaker_cases import _tune_edit

    folder = _copy("liger_dyt", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_N": 256, "num_warps": 4, "num_stages": 1}, current=True)
    assert written is not None, note
    assert (
        '    if N <= 5000:  # kernelopt: tuned\n        kwargs = dict(kwargs)\n        kwargs["BLOCK_N"] = 256\n'
        in written
    )
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"B": 1, "T": 3, "N": 5001}, {"B": 2, "T": 1, "N": 77}, {"B": 1, "T": 1, "N": 1}])
