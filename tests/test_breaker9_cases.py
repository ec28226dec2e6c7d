"""The ninth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``, held
out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of tests/data/breaker9 is
a public Triton kernel written for the trial in a form the first eight trials did not try (its README lists them).
What tuning writes is judged as a user would: the written kernel against the reference at every ``SHAPES`` entry and
at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty`` outputs in the middle of NaN
(tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.tunables import discover_source
from tests.test_breaker7_cases import _correct_padded
from tests.test_breaker_cases import _tune_edit

DATA = Path(__file__).parent / "data" / "breaker9"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _all_correct(folder: Path, shapes: list[dict[str, int]]) -> None:
    got = _correct_padded(folder, shapes)
    assert got == {",".join(f"{k}={v}" for k, v in s.items()): True for s in shapes}, got


# ------------------------------------------------------------------------------------- knobs not found


@pytest.mark.timeout(120)
def test_a_constexpr_local_of_the_kernel_body_is_a_knob(tmp_path: Path) -> None:
    """Seen on 2026-12-05: kv_indices, SGLang's ``create_flashinfer_kv_indices_triton``, whose block is
    ``BLOCK_SIZE: tl.constexpr = 512``, the kernel body's first line (never passed at the launch). ``tune`` exited 2
    "no tunable knob: discovery lists only knobs it cannot edit: ...req_to_token_ptr_stride": the one setting the
    kernel has was not seen. A ``tl.constexpr`` local bound once to a literal is now read as a signature default
    is: listed as the launch's ``BLOCK_SIZE`` and moved where it is written; the loop over the tokens keeps every
    value correct."""
    source = (DATA / "kv_indices" / "kernel.py").read_text()
    found = {t.key: t for t in discover_source(source)}
    block = found["create_flashinfer_kv_indices_triton:BLOCK_SIZE"]
    assert block.value == 512 and block.refused_reason is None and block.legality.power_of_two
    folder = _copy("kv_indices", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_SIZE": 128})
    assert written is not None, note
    assert "    BLOCK_SIZE: tl.constexpr = 128\n" in written and "    BLOCK_SIZE: tl.constexpr = 512\n" not in written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"B": 2, "L": 300}, {"B": 3, "L": 77}])
    # a local bound twice, or to no literal, is no knob
    twice = source.replace(
        "    pid = tl.program_id(axis=0)\n", "    pid = tl.program_id(axis=0)\n    BLOCK_SIZE = 256\n", 1
    )
    assert "create_flashinfer_kv_indices_triton:BLOCK_SIZE" not in {t.key for t in discover_source(twice)}
