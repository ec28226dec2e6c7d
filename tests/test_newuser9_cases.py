"""A new user's first hour on a fresh clone, ninth trial (2026-12-06): what the tenth session changed (the net behind
the rules, ``tune --target sm_90``, per-entry screened autotune lists, a pick written only over a timed baseline,
``tune --json``'s check_notes) tried on the user's own kernels, and bad input of every kind; one test per fix
(docs/faults.md, "A new user's first hour, ninth trial")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import skip_without
from tests.steady_timing import blocks, steady_timing


@pytest.mark.timeout(300)
def test_n41_n43_tune_says_what_the_compile_for_its_target_did_whatever_the_kernel_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """n41: the compile for ``--target`` read every stdout line starting with "{" as its report: a ptxas failure
    (Triton prints the PTX, a line of it a bare "{") ended ``tune --target`` after its whole session in exit 70,
    "ValidationError: 1 validation error for TargetReport ... input_value='{'", as did a ``run()`` that prints a dict.
    What the kernel and Triton print goes to stderr; the reports carry their own mark. n43: ``tune --target sm_90``
    said nothing of the target unless it refused the pick: on a torch kernel (nothing to compile) the pick was
    written with no word of the target, as if it had compiled. The line is printed beside the net's, and ``--json``
    has it as ``target``. The figures are the loop's chunks (``steady_timing``): the pick to compile is judged better
    whatever the machine's load."""
    import json
    import shutil

    from kernelopt.cli.app import main

    steady_timing(monkeypatch, blocks)
    skip_without("triton.backends.nvidia.compiler", reason="Triton without its NVIDIA backend")
    folder = shutil.copytree(Path(__file__).parent / "data" / "loop", tmp_path / "loop", ignore=_no_sessions)
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text().replace("    out = torch.empty_like(x)\n", PRINTS))
    args = ["tune", str(folder), "--device", "cpu", "--budget", "2", "--repetitions", "1", "--target", "sm_90"]
    assert main([*args, "--json", "--dry-run"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["better"] and out["diff"]  # BLOCK 64 -> a larger block, many times faster: a pick to compile
    assert out["target"] == (
        "not compiled for sm_90: kernel.py launches no Triton kernel at the SHAPES entries (nothing to compile)"
    )
    # n45: docs/tuning-engine.md's list of --json's keys lacked ten of them (check_notes, net, current_list, ...)
    doc = (Path(__file__).parents[1] / "docs" / "tuning-engine.md").read_text()
    listed = doc[doc.index("`--json` prints `best_config`") :]
    listed = listed[: listed.index("Errors are one line")]
    assert [k for k in out if f"`{k}`" not in listed] == []


#: What users print while debugging: a dict, and a line that is a bare brace (a ptxas failure prints the PTX, whose
#: body opens with one).
PRINTS = """    print({"n": x.numel()})
    print("{")
    out = torch.empty_like(x)
"""


def _no_sessions(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n == ".kernelopt"]


def _folder(folder: Path, kernel: str, reference: str) -> Path:
    """A task folder of the user's: ``kernel`` as kernel.py, ``reference`` as reference.py."""
    folder.mkdir()
    (folder / "kernel.py").write_text(kernel)
    (folder / "reference.py").write_text(reference)
    return folder


def test_n41_a_ptxas_failure_is_said_by_ptxas_own_line() -> None:
    """n41: a launch's error was the last line of the compiler's message, for a ptxas failure Triton's "Repro
    command: .../ptxas -lineinfo -v --gpu-name=sm_9 ..." (which says nothing of why); now ptxas's own line."""
    from kernelopt.harness.target_compile import compiler_line

    skip_without("triton.runtime.errors", reason="Triton")
    from triton.runtime.errors import PTXASError

    # the message as Triton's make_cubin builds it (triton/backends/nvidia/compiler.py, Triton 3.6)
    exc = PTXASError(
        "Internal Triton PTX codegen error\n`ptxas` stderr:\nptxas fatal   : Value 'sm_9' is not defined for option "
        "'gpu-name'\n\nRepro command: /x/ptxas -lineinfo -v --gpu-name=sm_9 /tmp/a.ptx -o /tmp/a.ptx.o\n"
    )
    assert compiler_line(exc) == "PTXASError: ptxas fatal : Value 'sm_9' is not defined for option 'gpu-name'"
    assert compiler_line(RuntimeError("a\n\nPassManager::run failed\n")) == "RuntimeError: PassManager::run failed"


@pytest.mark.parametrize("target", ["sm_9", "sm_0", "sm_1000", "91"])
def test_n42_a_target_that_is_no_gpu_is_one_line_before_the_session(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n42: ``tune --target sm_9`` (sm_90 mistyped) was taken as a capability of 9: the whole session ran, then ptxas
    refused "sm_9" (exit 70 by n41; after n41 the pick would be refused as not compiling, kernel.py as it is too).
    A capability no NVIDIA GPU has is one line, exit 2, before any work."""
    from kernelopt.cli.app import main
    from kernelopt.harness.target_compile import parse_target

    assert parse_target("sm_90") == parse_target("SM90") == parse_target("90") == 90
    import shutil

    folder = shutil.copytree(Path(__file__).parent / "data" / "loop", tmp_path / "loop")  # never the test data
    assert main(["tune", str(folder), "--device", "cpu", "--target", target]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"kernelopt: error: --target {target!r} is no NVIDIA GPU's compute capability: give one of")
    assert "sm_90" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--target", "sm_90"], "--target goes"),
        (["--dry-run"], "--dry-run goes"),
        (["--device", "cpu", "--repetitions", "5"], "--device, --repetitions go"),
        (
            ["--kernel", "k", "--out", "o", "--size-scale", "0.5", "--candidate-timeout-s", "9"],
            "--kernel, --out, --size-scale, --candidate-timeout-s go",
        ),
    ],
)
def test_n44_a_folder_flag_given_to_a_replay_is_one_line(
    flags: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """n44: ``tune --replay SWEEP --target sm_90`` (or ``--dry-run``, ``--device cpu``, ...) replayed and exited 0, the
    flag taken in silence, where ``--trials`` without ``--replay`` is refused: a user reads that the replay compiled
    for the target, or that ``--dry-run`` kept something unwritten. One line, exit 2, before the replay."""
    from kernelopt.cli.app import main

    sweep = Path(__file__).parents[1] / "docs" / "gpu-runs" / "2026-11-29-run4-sweep_layernorm.json.gz"
    assert main(["tune", "--replay", str(sweep), "--trials", "1", *flags]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == (
        f"kernelopt: error: {named} with PATH only: --replay runs the strategy on the sweep's recorded latencies, and "
        "compiles, times and writes nothing\n"
    )
    assert main(["tune", "--replay", str(sweep), "--trials", "1", "--json"]) == 0  # its own flags still run
    assert '"trials"' in capsys.readouterr().out


#: A scale without masks whose grid counts its programs with ``math.ceil`` (the run() asserts what the kernel needs).
CEIL_GRID_KERNEL = """
import math

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 3.0)


def run(x):
    n = x.numel()
    assert n % 64 == 0
    out = x.new_empty(n)
    scale_kernel[(math.ceil(n / 64),)](x, out, BLOCK=64)
    return out
"""

CEIL_GRID_REFERENCE = """
import torch

SHAPES = [{"n": 4096}, {"n": 8192}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(n=4096):
    return [torch.randn(n)]


def reference(x):
    return x * 3.0
"""


@pytest.mark.timeout(120)
def test_n46_a_grid_counted_by_math_ceil_over_a_kernel_without_masks_is_guarded(tmp_path: Path) -> None:
    """n46, a wrong written kernel: ``kernelopt tune --device cpu`` of a scale without masks launched on
    ``(math.ceil(n / 64),)`` programs (``assert n % 64 == 0``; SHAPES 4096 and 8192) wrote ``scale_kernel[(math.ceil(n
    / 1024),)](x, out, BLOCK=1024)``: at 4160 elements, which the original handles, its fifth program reads and writes
    4096..5119, past the end of both tensors. The guard read ``triton.cdiv`` and ``(n + B - 1) // B`` as counts of
    tiles but not ``math.ceil(n / B)``; the net missed it too (its output came from ``x.new_empty``, which it does not
    fence). Now the tile is guarded by ``n`` and the grid names it."""
    from tests.test_breaker_cases import _correct_at, _edit_for

    folder = _folder(tmp_path / "ceil_grid", CEIL_GRID_KERNEL, CEIL_GRID_REFERENCE)
    written = _edit_for(folder, {"BLOCK": 1024})
    assert "    BLOCK = 64\n    if n % 1024 == 0:  # kernelopt: tuned\n        BLOCK = 1024\n" in written
    assert "scale_kernel[(math.ceil(n / BLOCK),)](x, out, BLOCK=BLOCK)" in written
    (folder / "kernel.py").write_text(written)
    assert _correct_at((folder, [{"n": 4096}, {"n": 4160}, {"n": 1088}])) == {
        "n=4096": True,
        "n=4160": True,
        "n=1088": True,
    }


@pytest.mark.parametrize("alloc", ["x.new_empty(n)", "torch.zeros(n)", "torch.zeros_like(x)", "x.new_zeros(n)"])
def test_n47_the_net_sees_a_store_past_an_output_that_new_empty_or_zeros_allocated(alloc: str, tmp_path: Path) -> None:
    """n47: the net fenced what ``run()`` allocates with ``torch.empty`` and ``torch.empty_like`` only: n46's written
    kernel (``BLOCK=1024`` over ``math.ceil(n / 1024)`` programs, no masks) stores 4096..5119 at 4160 elements past
    the end of its ``x.new_empty(n)`` output, and the net said "correct at n=8704". ``torch.zeros``, ``zeros_like``
    and a tensor's ``new_empty`` / ``new_zeros`` are fenced too: the store is seen (the values in range are right),
    and a size the tile divides stays inside."""
    import torch

    from kernelopt.harness.fences import OUTPUT_FILL, Fences, fenced_outputs, padded, trespassed
    from tests.conftest import load_fresh, triton_interpreted

    written = CEIL_GRID_KERNEL.replace("math.ceil(n / 64)", "math.ceil(n / 1024)").replace("BLOCK=64", "BLOCK=1024")
    (tmp_path / "kernel.py").write_text(written.replace("x.new_empty(n)", alloc))
    with triton_interpreted():
        kernel = load_fresh(tmp_path / "kernel.py", f"_newuser9_n47_{alloc.split('(')[0].replace('.', '_')}")
        seen = {}
        for n in (4160, 4096):
            fences: Fences = []
            x = padded(torch.randn(n), fences)
            with fenced_outputs(fences, OUTPUT_FILL):
                out = kernel.run(x)
            assert torch.equal(out, x * 3.0)
            seen[n] = trespassed(fences)
    assert seen == {4160: True, 4096: False}


MASKED_AXPY = """
import torch
import triton
import triton.language as tl


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    tl.store(out_ptr + offs, a * tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def run(x, y):
    n = x.numel()
    out = torch.empty_like(x)
    axpy_kernel[GRID](x, y, out, 2.0, n, BLOCK_SIZE=32)
    return out
"""

AXPY_REFERENCE = """
import torch

SHAPES = [{"n": 1000}, {"n": 5000}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(n=1000):
    return [torch.randn(n), torch.randn(n)]


def reference(x, y):
    return 2.0 * x + y
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("grid", "written"),
    [("((n - 1) // 32 + 1,)", "((n - 1) // 1024 + 1,)"), ("(-(-n // 32),)", "(-(-n // 1024),)")],
)
def test_n48_a_grid_rounded_up_by_hand_over_a_masked_kernel_takes_any_block(
    grid: str, written: str, tmp_path: Path
) -> None:
    """n48, a correct pick refused: an axpy with masks launched on ``((n - 1) // 32 + 1,)`` or ``(-(-n // 32),)``
    programs (two spellings of ``triton.cdiv(n, 32)``): ``tune`` set every larger block aside, "cannot be written: the
    divisor 32 at line 19 moved to 1024, which does not divide every size the original handled, in a form no guard is
    written for", since their floors read as ``n - 1`` and ``-n`` rounded down. Both are counts of tiles rounded up
    (``guard._ceil_floors``): over masks any block is right, written plainly; without masks the tile must divide ``n``
    (not ``n - 1``, a guard that never held where the original ran)."""
    from kernelopt.tunables.guard import guard_edit
    from tests.test_breaker_cases import _correct_at, _edit_for

    folder = _folder(tmp_path / "axpy", MASKED_AXPY.replace("GRID", grid), AXPY_REFERENCE)
    text = _edit_for(folder, {"BLOCK_SIZE": 1024})
    assert f"axpy_kernel[{written}](x, y, out, 2.0, n, BLOCK_SIZE=1024)" in text
    (folder / "kernel.py").write_text(text)
    shapes = [{"n": 1000}, {"n": 1025}, {"n": 7}]
    assert set(_correct_at((folder, shapes)).values()) == {True}
    unmasked = CEIL_GRID_KERNEL.replace("math.ceil(n / 64)", grid[1:-2].replace("32", "64"))
    moved = unmasked.replace("// 64", "// 1024").replace("BLOCK=64", "BLOCK=1024")
    guarded = guard_edit(unmasked, moved).new_source
    assert guarded is not None and "    if n % 1024 == 0:  # kernelopt: tuned\n" in guarded


#: A row sum whose autotune list a ``tl.static_assert`` in a ``@triton.jit`` helper refuses at short rows.
HELPER_ASSERT_LIST = (
    Path("/dev/null"),
    """
import torch
import triton
import triton.language as tl


@triton.jit
def _fits(N: tl.constexpr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= N, "BLOCK must not exceed the row")


@triton.autotune(
    configs=[triton.Config({"BLOCK": 16}, num_warps=1), triton.Config({"BLOCK": 32}, num_warps=1)],
    key=["N"],
)
@triton.jit
def rowsum_kernel(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    _fits(N, BLOCK)
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(0, N, BLOCK):
        c = s + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + c, mask=c < N, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def run(x):
    m, n = x.shape
    out = torch.empty(m, dtype=x.dtype)
    rowsum_kernel[(m,)](x, out, n)
    return out
""",
)[1]

ROWSUM_REFERENCE = """
import torch

SHAPES = [{"m": 4, "N": 40}, {"m": 4, "N": 3000}]
ATOL = 1e-3
RTOL = 1e-4


def get_inputs(m=4, N=40):
    return [torch.randn(m, N)]


def reference(x):
    return x.sum(dim=1)
"""


@pytest.mark.timeout(120)
def test_n49_a_static_assert_in_a_helper_keeps_the_original_configs_after_the_tuned_ones(tmp_path: Path) -> None:
    """n49, a wrong written kernel: a keyed list ``[16, 32]`` whose ``tl.static_assert(BLOCK <= N)`` sits in a
    ``@triton.jit`` helper the kernel calls; ``tune --device cpu`` (SHAPES N = 40 and 3000) wrote ``[32, 1024]`` in
    its place, each entry's best: at rows of 16 to 31, which the original ran with 16, every config fails the assert
    and the autotuner has none left ("BLOCK must not exceed the row"). The net checks only sizes past the entries.
    An assert in a helper is read as one in the kernel (``list_filters.size_asserts``), so the original configs stay
    after the tuned ones and every row the original ran still has a config."""
    from kernelopt.tunables.edit import keep_pruned_fallback
    from tests.test_breaker_cases import _correct_at

    folder = _folder(tmp_path / "rowsum", HELPER_ASSERT_LIST, ROWSUM_REFERENCE)
    tuned = '[triton.Config({"BLOCK": 32}, num_warps=1), triton.Config({"BLOCK": 1024}, num_warps=1)]'
    old = '[triton.Config({"BLOCK": 16}, num_warps=1), triton.Config({"BLOCK": 32}, num_warps=1)]'
    kept = keep_pruned_fallback(HELPER_ASSERT_LIST, HELPER_ASSERT_LIST.replace(old, tuned), "rowsum_kernel")
    assert kept is not None  # the list as tune pins it, the original's 16 after the tuned configs
    written, note = kept
    assert 'triton.Config({"BLOCK": 16}, num_warps=1)' in written and '{"BLOCK": 1024}' in written
    assert note.startswith("rowsum_kernel's tl.static_assert(BLOCK <= N in _fits) reads a tuned knob beside a size")
    (folder / "kernel.py").write_text(written)
    rows = [{"m": 2, "N": n} for n in (16, 20, 31, 40, 1100)]
    assert _correct_at((folder, rows)) == {f"m=2,N={r['N']}": True for r in rows}


@pytest.mark.timeout(120)
def test_n50_a_grid_rounded_up_with_literals_is_written_over_masks_and_never_with_a_broken_fallback(
    tmp_path: Path,
) -> None:
    """n50: a grid of ``((n + 31) // 32,)`` programs, the launch's ``BLOCK_SIZE=32`` (the C spelling of a ceiling,
    both literals moved by the edit: ``(n + 1023) // 1024``). Over masks every larger block was refused ("the divisor
    32 ... moved to 1024, ... in a form no guard is written for"), a correct pick; without masks the guard named the
    divisor alone, ``if ((n + 1023)) % 1024 == 0: BLOCK = 1024`` over ``scale_kernel[((n + 1023) // BLOCK,)]``, so
    its fallback of 64 launched ``(n + 1023) // 64`` programs, past the end at every size, the SHAPES entries among
    them. Now the masked pick is written plainly and the unmasked one is not written (the line says why)."""
    from tests.test_breaker_cases import _correct_at, _edit_for, _tune_edit

    masked = _folder(tmp_path / "masked", MASKED_AXPY.replace("GRID", "((n + 31) // 32,)"), AXPY_REFERENCE)
    text = _edit_for(masked, {"BLOCK_SIZE": 1024})
    assert "axpy_kernel[((n + 1023) // 1024,)](x, y, out, 2.0, n, BLOCK_SIZE=1024)" in text
    (masked / "kernel.py").write_text(text)
    assert set(_correct_at((masked, [{"n": 7}, {"n": 1000}, {"n": 1025}])).values()) == {True}
    unmasked = CEIL_GRID_KERNEL.replace("math.ceil(n / 64)", "(n + 63) // 64")
    bare = _folder(tmp_path / "bare", unmasked, CEIL_GRID_REFERENCE)
    written, note = _tune_edit(bare, {"BLOCK": 1024})
    assert written is None and note is not None and note.endswith("not written")


@pytest.mark.timeout(30)
def test_n51_a_resumed_session_re_times_a_config_set_aside_at_one_entry_at_the_others(tmp_path: Path) -> None:
    """n51: ``tune`` of n49's list wrote ``[32, 1024]`` (BLOCK=1024 set aside at N=40 by the assert, timed at
    N=3000, 15x faster there); run again (as after a ``--dry-run``), its record served every candidate and the
    re-time took 1024 at N=40 first, found it set aside, and re-timed it nowhere else: "the current configuration
    stays: BLOCK=32 does not beat the current autotune list", its per-shape table lost. The re-time sets it aside
    there and times it at the others, as the session's first evaluation did (the fake shapes of
    tests/test_shape_failures.py: BLOCK=512 pruned at 40 columns)."""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.space import Config
    from tests.test_shape_failures import _shapes_evaluator

    ev, (small, large, middle) = _shapes_evaluator(tmp_path, [set()] * 3, [{512}], per_entry=True)
    ok, part = ev.retime([Config.of({"BLOCK": b}) for b in (64, 512)])  # nothing evaluated in this process
    assert ok.outcome is Outcome.OK and len(ok.latency_us_by_shape) == 3
    assert part.outcome is Outcome.INVALID and part.failed_entry == "rows=4,cols=40"
    assert part.latency_us_by_shape == pytest.approx({"rows=4,cols=300": 100 / 512, "rows=4,cols=200": 100 / 512})
    assert small.calls == large.calls == middle.calls == [([64, 512], True)]  # found set aside at 40 by its check


def test_n52_a_group_bound_to_a_local_and_taken_whole_is_not_written(tmp_path: Path) -> None:
    """n52: a matmul with the tutorial's grouped order, its group first bound to a local (``group_size_m =
    GROUP_SIZE_M``, then ``pid % group_size_m``) and no ``min``: ``GROUP_SIZE_M=2`` passed both SHAPES entries (2 and
    4 rows of 32-row tiles) and the guard wrote it plainly (its rule looked for ``% GROUP_SIZE_M`` by that name), wrong
    at M = 96, which the original (a group of 1) handles; only the net's M=129 stood in the way. The local is read as
    the group: not written, the line says why (variants' mm_group_whole with its group bound to a local)."""
    import shutil

    from tests.test_breaker_cases import _tune_edit

    whole = Path(__file__).parent / "data" / "variants" / "mm_group_whole"
    folder = Path(shutil.copytree(whole, tmp_path / "mm", ignore=_no_sessions))
    kernel = (folder / "kernel.py").read_text()
    aliased = kernel.replace(
        "    first_pid_m = group_id * GROUP_M\n", "    first_pid_m = group_id * GROUP_M\n    group_m = GROUP_M\n"
    )
    aliased = aliased.replace("(pid % GROUP_M)", "(pid % group_m)").replace("// GROUP_M\n", "// group_m\n")
    assert aliased.count("group_m") == 3
    (folder / "kernel.py").write_text(aliased)
    written, note = _tune_edit(folder, {"GROUP_M": 2})
    assert written is None and note is not None
    assert note.startswith("GROUP_M=2 may leave tiles undone at a size the original handled")


def test_n53_a_count_of_programs_by_math_ceil_bound_before_the_launch_is_a_copy_of_the_tile(tmp_path: Path) -> None:
    """n53: ``num_blocks = math.ceil(n / 64)`` then ``scale_kernel[(num_blocks,)](x, out, BLOCK=64)`` (no masks): the
    pick ``BLOCK=1024`` was written with the count left at 64, so ``n / 64`` programs each stored 1024 elements, past
    the end at every size; the rule that refuses a copy of the tile the edit does not move read ``triton.cdiv``,
    ``(n + 63) // 64`` and ``n // 64`` but not ``math.ceil``. Now it is read too: not written, the line says why."""
    from tests.test_breaker_cases import _tune_edit

    launch = "    scale_kernel[(math.ceil(n / 64),)](x, out, BLOCK=64)\n"
    bound = "    num_blocks = math.ceil(n / 64)\n    scale_kernel[(num_blocks,)](x, out, BLOCK=64)\n"
    folder = _folder(tmp_path / "counted", CEIL_GRID_KERNEL.replace(launch, bound), CEIL_GRID_REFERENCE)
    written, note = _tune_edit(folder, {"BLOCK": 1024})
    assert written is None and note is not None
    assert note.startswith("BLOCK=1024 moves the tile from 64, but line 20 still divides by 64 (math.ceil(n / 64))")


@pytest.mark.timeout(120)
def test_n54_a_grid_of_minus_n_floor_minus_block_programs_is_a_count_rounded_up(tmp_path: Path) -> None:
    """n54, a wrong written kernel: ``BLOCK = 64`` then ``scale_kernel[(-(n // -BLOCK),)](x, out, BLOCK=BLOCK)`` (the
    upside-down floor, Python's ceiling division), no masks: ``BLOCK = 1024`` was written plainly, so at 4160
    elements, which the original handles, its fifth program stores 4096..5119 past the end (the floor's divisor,
    ``-BLOCK``, read as no tile). Now the tile is guarded by ``n``; over masks any block is written plainly."""
    from tests.test_breaker_cases import _correct_at, _edit_for

    launch = "    scale_kernel[(math.ceil(n / 64),)](x, out, BLOCK=64)\n"
    named = "    BLOCK = 64\n    scale_kernel[(-(n // -BLOCK),)](x, out, BLOCK=BLOCK)\n"
    bare = _folder(tmp_path / "bare", CEIL_GRID_KERNEL.replace(launch, named), CEIL_GRID_REFERENCE)
    written = _edit_for(bare, {"BLOCK": 1024})
    assert "    BLOCK = 64\n    if n % 1024 == 0:  # kernelopt: tuned\n        BLOCK = 1024\n" in written
    launch = "    axpy_kernel[GRID](x, y, out, 2.0, n, BLOCK_SIZE=32)\n"
    named = "    BLOCK_SIZE = 32\n    axpy_kernel[(-(n // -BLOCK_SIZE),)](x, y, out, 2.0, n, BLOCK_SIZE=BLOCK_SIZE)\n"
    masked = _folder(tmp_path / "masked", MASKED_AXPY.replace(launch, named), AXPY_REFERENCE)
    text = _edit_for(masked, {"BLOCK_SIZE": 1024})
    assert "    BLOCK_SIZE = 1024\n" in text and "kernelopt: tuned" not in text
    (masked / "kernel.py").write_text(text)
    assert set(_correct_at((masked, [{"n": 7}, {"n": 1025}])).values()) == {True}


@pytest.mark.timeout(120)
def test_n55_a_masked_kernel_on_one_program_more_than_the_tiles_takes_any_block(tmp_path: Path) -> None:
    """n55, a correct pick refused: an axpy with masks on ``(n // 32 + 1,)`` programs (a program more than the tiles
    where 32 divides ``n``, never fewer): every larger block was refused, "the divisor 32 ... moved to 1024, which does
    not divide every size the original handled, in a form no guard is written for". It is read as a count rounded up
    (at least): written plainly, right at 7, 1024 and 1025 elements."""
    from tests.test_breaker_cases import _correct_at, _edit_for

    masked = _folder(tmp_path / "masked", MASKED_AXPY.replace("GRID", "(n // 32 + 1,)"), AXPY_REFERENCE)
    text = _edit_for(masked, {"BLOCK_SIZE": 1024})
    assert "axpy_kernel[(n // 1024 + 1,)](x, y, out, 2.0, n, BLOCK_SIZE=1024)" in text
    (masked / "kernel.py").write_text(text)
    assert set(_correct_at((masked, [{"n": 7}, {"n": 1024}, {"n": 1025}])).values()) == {True}
