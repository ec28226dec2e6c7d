"""The eighteenth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``,
held out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of
tests/data/breaker18 is a public Triton kernel written for the trial in a form the first seventeen trials did not try
(its README lists them). What tuning writes is judged as a user would: the written kernel against the reference at
every ``SHAPES`` entry and at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty``
outputs in the middle of NaN (tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's
interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

from kernelopt.tunables import discover_source

DATA = Path(__file__).parent / "data" / "breaker18"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


# ------------------------------------------------------------------------------------- legality


def test_d1_a_tile_width_named_like_a_thread_count_takes_triton_s_arange_rule() -> None:
    """Seen on 2026-12-06: sgl_moe_sum, SGLang's ``moe_sum_reduce_triton``, whose ``BLOCK_DIM = 2048`` is the width
    of a ``tl.arange(0, BLOCK_DIM)`` tile. ``tunables`` listed it ">= 32, <= 1024, multiple of 32" (the CUDA rule
    of threads a block, which the name matched), its own value outside, and ``tune`` searched widths no
    ``tl.arange`` takes. A name a kernel spans a ``tl.arange`` with is a power of two up to Triton's largest block,
    whatever rule its name matches that asks no power of two; a name rule that does (a vector width) stays."""
    knobs = {t.key: t for t in discover_source((DATA / "sgl_moe_sum" / "kernel.py").read_text())}
    legal = knobs["_moe_sum_reduce_kernel:BLOCK_DIM"].legality
    assert legal.power_of_two and legal.maximum == 1048576 and legal.multiple_of is None, legal
    assert legal.problem(2048) is None and legal.problem(96) is not None, legal
    # a CUDA-style thread count no arange spans keeps the thread rule
    src = (
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x, n, THREADS: tl.constexpr):\n"
        "    i = tl.program_id(0) * THREADS\n    tl.store(x + i, 1.0)\n\n\n"
        "def run(x):\n    k[(4,)](x, x.numel(), THREADS=256)\n    return x\n"
    )
    threads = {t.key: t for t in discover_source(src)}["k:THREADS"].legality
    assert threads.maximum == 1024 and threads.multiple_of == 32, threads
