"""A fresh clone broken, seventeenth trial (break17, 2026-12-06): the sixteenth session's landings tried on near
neighbours of the kernels they were made for; one test per finding (docs/faults.md, "A fresh clone broken,
seventeenth trial")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def _built(tmp_path: Path, source: str, name: str, edits: list[tuple[str, str]]) -> Path:
    """A copy of ``tests/data/<source>`` named ``name`` with ``edits`` (old, new) made to its kernel.py."""
    folder = Path(shutil.copytree(DATA / source, tmp_path / name))
    text = (folder / "kernel.py").read_text()
    for old, new in edits:
        assert old in text, (source, old)
        text = text.replace(old, new)
    (folder / "kernel.py").write_text(text)
    return folder


TUPLE_NOMASK = [
    ("    mask = (rm[:, None] < M) & (rn[None, :] < N)\n", ""),
    (", mask=mask", ""),
    ("(triton.cdiv(M, bm), triton.cdiv(N, bn))", "(M // bm, N // bn)"),
]
"""leftovers17's tuple_run without masks (b15): ``M // bm`` by ``N // bn`` programs, so a tile must divide its size."""

WARPS_TUPLE = [
    ("@triton.jit", "CFG = (2, 3)\n\n\n@triton.jit"),
    ("    nw = 2\n    BLOCK = 32\n    BLOCK *= nw\n", "    nw, ns = CFG\n    BLOCK = nw * 32\n"),
    ("num_warps=nw)", "num_warps=nw, num_stages=ns)"),
]
"""break16's warps_augmented (a ReLU over ``n // BLOCK`` programs, no masks) with its launch options a module-level
tuple unpacked in ``run`` (b16): ``nw, ns = CFG``, ``BLOCK = nw * 32``."""


def test_b15_a_tuple_s_element_that_no_longer_divides_its_size_is_never_written(tmp_path: Path) -> None:
    """break17 b15: leftovers17's l2 made each element of a module-level tuple unpacked in ``run`` (``TILE = (16,
    16)``, ``bm, bn = TILE``) a knob written in the tuple, but the guard read no move there (``TILE = (32, 16)`` is
    no assignment of an integer), so over ``M // bm`` programs without masks ``TILE = (32, 16)`` was written with no
    guard, wrong at M=80 where the original's 16 is right (the net caught it in ``tune``, M=112,N=64, after 8
    candidates). Now the element moves as the name its unpacking binds: a module-level constant, which no guard by a
    size can hold, refused as ``BM = 32`` is (a grid reading ``TILE[0]`` too); a value that divides the original, and a
    masked grid, still written."""
    from kernelopt.tunables.guard import guard_edit

    old = (_built(tmp_path, "leftovers17/tuple_run", "t", TUPLE_NOMASK) / "kernel.py").read_text()
    refused = guard_edit(old, old.replace("TILE = (16, 16)", "TILE = (32, 16)"))
    assert refused.new_source is None and refused.note is not None, refused
    assert refused.note.startswith("bm=32 does not divide every size the original bm=16 handled (the grid at line 23 "
                                   "has M // bm programs), and a module-level constant cannot be guarded"), refused.note  # fmt: skip
    indexed = old.replace("(M // bm, N // bn)", "(M // TILE[0], N // TILE[1])")  # the grid reads the element
    by_index = guard_edit(indexed, indexed.replace("TILE = (16, 16)", "TILE = (32, 16)"))
    assert by_index.new_source is None and by_index.note is not None, by_index
    assert by_index.note.startswith("TILE[0]=32 does not divide every size the original TILE[0]=16 handled (the grid")
    smaller = old.replace("TILE = (16, 16)", "TILE = (8, 16)")
    assert guard_edit(old, smaller).new_source == smaller
    module = old.replace("    bm, bn = TILE\n", "").replace("TILE = (16, 16)", "TILE = (16, 16)\nbm, bn = TILE")
    at_module = guard_edit(module, module.replace("TILE = (16, 16)", "TILE = (16, 64)"))
    assert at_module.new_source is None and at_module.note is not None and at_module.note.startswith("bn=64 ")
    masked = (DATA / "leftovers17" / "tuple_run" / "kernel.py").read_text()
    moved = masked.replace("TILE = (16, 16)", "TILE = (32, 64)")
    assert guard_edit(masked, moved).new_source == moved


@pytest.mark.timeout(120)
def test_b16_a_block_computed_from_the_warps_of_a_module_tuple_is_netted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """break17 b16 (a **wrong written kernel** on a GPU): n75's ReLU with its launch options a module-level tuple
    unpacked in ``run`` (``CFG = (2, 3)``, ``nw, ns = CFG``, ``BLOCK = nw * 32``), leftovers17 l2's knob an element
    each: a pick of ``num_warps=32`` was written ``CFG = (32, 3)`` (BLOCK 1024) as "only num_warps moved", the net not
    cast (``readers.chained_values`` read no name the unpacking binds), wrong at n=64, 1088, 8256."""
    from kernelopt.tuning import folder as tf
    from tests.test_newuser13_cases import _gpu_prepared
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = _gpu_prepared(_built(tmp_path, "break16/warps_augmented", "t", WARPS_TUPLE), monkeypatch)
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(_session(prepared, [({"num_warps": 32}, 10.0)], ({"num_warps": 2}, 20.0)), evaluator)
    assert done.edit is None and done.net is not None and done.net.failed is not None, (done.edit_note, done.edit)
    assert done.edit_note is not None and "output not written" in done.edit_note, done.edit_note


def test_b16_what_a_launch_option_held_in_a_module_tuple_computes(tmp_path: Path) -> None:
    """``readers.chained_values`` follows a tuple's element through its unpacking (``nw, ns = CFG``) and a name bound
    to its subscript (``nw = CFG[0]``), and names a read of the subscript in a computation (``BLOCK = CFG[0] * 32``);
    a tuple whose elements feed their launch alone computes nothing, and another element moves nothing here."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import chained_values

    def chained(source: str, option: str = "num_warps") -> dict[str, object]:
        return chained_values(discover_source(source), source, [option])

    source = (_built(tmp_path, "break16/warps_augmented", "t", WARPS_TUPLE) / "kernel.py").read_text()
    assert chained(source) == {"BLOCK": 64} and chained(source, "num_stages") == {}
    assert chained(source.replace("    nw, ns = CFG\n", "    nw = CFG[0]\n    ns = CFG[1]\n")) == {"BLOCK": 64}
    assert chained(source.replace("BLOCK = nw * 32", "BLOCK = CFG[0] * 32")) == {"line 19 (CFG[0])": None}
    assert chained(source.replace("BLOCK = nw * 32", "BLOCK = 64")) == {}


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_b16_on_a_gpu_a_tuned_num_warps_held_in_a_module_tuple_is_never_written_wrong(tmp_path: Path) -> None:
    """b16 on an NVIDIA GPU, where the session searches ``num_warps``: ``kernelopt tune --device cuda`` on warps_tuple,
    then the kernel.py it leaves run at sizes no entry names that the original handles (multiples of its 64-element
    block): right at every one, whatever was written."""
    import torch

    from tests.gpu_correct import assert_correct, tuned_on_device

    folder = _built(tmp_path, "break16/warps_augmented", "warps_tuple", WARPS_TUPLE)
    tuned_on_device(folder)
    shapes = [{"n": 64}, {"n": 1088}, {"n": 8256}, {"n": 1 << 20}]
    assert_correct(folder, shapes, lambda r: bool(torch.allclose(r.got, r.want, atol=1e-5, rtol=1e-5)))


PROGRAMS_KERNEL = """import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    BLOCK = 256
    assert triton.cdiv(n, BLOCK) >= 8, "at least 8 programs"
    scale_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y
"""
PROGRAMS_REFERENCE = """import torch

SHAPES = [{"n": 32768}, {"n": 700}]


def get_inputs(n=32768, device="cpu"):
    g = torch.Generator().manual_seed(n)
    return [torch.randn(n, generator=g).to(device)]


def reference(x):
    return x * 2.0
"""


@pytest.mark.timeout(120)
def test_b17_the_compile_pool_set_aside_from_an_entry_compiles_on_an_entry_never_the_primary_shrunk(
    tmp_path: Path,
) -> None:
    """break17 b17 (the GPU's path; a compile pool forced on the CPU as aside17's test forces it): ``run`` asserts at
    least 8 programs of 256, SHAPES n=32768 (the GPU's primary) and n=700, which the original cannot run. aside17 sets
    700 aside and moves the pool off it; with the primary the one entry left, the pool compiled on the primary shrunk,
    n=512, a size no entry names where the original raises too, so the original's re-check was ``run_error`` at
    n=32768 (which it runs) and so was BLOCK=128, right wherever the original runs. Now it compiles on the entry left."""
    from kernelopt.tuning.candidate import Config, Outcome
    from kernelopt.tuning.problem import Problem
    from tests.test_aside17_cases import pooled_evaluator

    folder = tmp_path / "programs"
    folder.mkdir()
    (folder / "kernel.py").write_text(PROGRAMS_KERNEL)
    (folder / "reference.py").write_text(PROGRAMS_REFERENCE)
    current, other = Config.of({"BLOCK": 256}), Config.of({"BLOCK": 128})

    def apply(c: Config) -> str:
        return PROGRAMS_KERNEL.replace("BLOCK = 256", f"BLOCK = {c['BLOCK']}")

    with pooled_evaluator(folder, [{"n": 32768}, {"n": 700}], apply, current, tmp_path / "session") as ev:
        ev.start()
        results = [*ev.evaluate([current]), *ev.evaluate([other])]
        pool = ev.evaluators[0]._compile
    assert list(ev.set_aside) == ["n=700"], ev.set_aside
    assert pool is not None and pool.compile_shape == "n=32768", pool
    assert [r.outcome for r in results] == [Outcome.OK] * 2, [r.reason for r in results]
    problem = Problem.from_folder(folder, device="cpu").model_copy(update={"shape": {"n": 32768}})
    assert problem.compile_shape([{"n": 32768}, {"n": 700}, {"n": 4096}], ["n=700"]).label() == "n=4096"


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_b17_on_a_gpu_tune_sets_aside_the_entry_and_times_the_original_at_the_primary(tmp_path: Path) -> None:
    """b17 on an NVIDIA GPU (the compile pool's own path): ``kernelopt tune --device cuda --json`` on the programs
    kernel sets n=700 aside and times the original at n=32768 (it was read as raising there, the pool compiling at the
    primary shrunk, n=512); the kernel.py it leaves is right at sizes the original runs that no entry names."""
    import json
    import os
    import subprocess
    import sys

    import torch

    from tests.gpu_correct import DEVICE, assert_correct

    folder = tmp_path / "programs"
    folder.mkdir()
    (folder / "kernel.py").write_text(PROGRAMS_KERNEL)
    (folder / "reference.py").write_text(PROGRAMS_REFERENCE)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run(
        [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", DEVICE, "--budget-wall-s", "90", "--json"],
        capture_output=True, text=True, timeout=380, env=env,
    )  # fmt: skip
    print(done.stdout[-3000:], done.stderr[-2000:])
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout[done.stdout.index("{") :])
    assert list(out["set_aside"]) == ["n=700"] and out["current_latency_us"] is not None, out
    shapes = [{"n": 2048}, {"n": 2049}, {"n": 5000}, {"n": 1 << 20}]
    assert_correct(folder, shapes, lambda r: bool(torch.allclose(r.got, r.want)))
