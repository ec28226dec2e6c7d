"""Issue 32's twenty-first held-out trial, as a new user runs it (tests/data/breaker21/README.md: eight public Triton
kernels from PyTorch Labs' applied-ai, tritonbench, vLLM, flash-linear-attention, Kakao Brain's trident, attorch and
Liger-Kernel, in forms earlier trials left out). Each finding is a test: each original once in Triton's interpreter
at a small odd size against its reference (``_all_correct``: NaN around the inputs and the outputs), the defects' own
cases, the forms ``tune`` writes for picks checked at sizes the ``SHAPES`` do not name, and the GPU test the lead's
session runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.gpu_correct import costly_picks
from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker21"

#: one small size each original has not been checked at (odd where the kernel allows: applied-ai's split-K loads
#: its rows and columns unmasked, so M and N stay multiples of 64; tritonbench's Stream-K at 9 tiles of 128 over 4
#: programs, 1 of them split by K)
SMALL: dict[str, dict[str, int]] = {
    "ai_splitk": {"M": 64, "N": 64, "K": 77},
    "tb_streamk": {"M": 300, "N": 260, "K": 24},
    "vllm_merge_states": {"T": 3, "H": 2, "D": 40},
    "fla_token_shift": {"B": 1, "T": 3, "D": 7},
    "trident_var_mean": {"Y": 3, "X": 7},
    "ai_causal_conv": {"B": 1, "D": 7, "L": 5, "W": 4},
    "attorch_bn": {"N": 3, "C": 2, "H": 5, "W": 3},
    "liger_flj": {"BT": 5, "H": 3, "V": 37},
}


@pytest.mark.timeout(180)
@pytest.mark.parametrize("name", sorted(SMALL))
def test_each_original_is_right_at_a_small_odd_size(name: str) -> None:
    """The eight kernels as their authors launch them, once each in the interpreter at a size no entry names
    (trident's Welford reduction through q1's vectorized ``tl.reduce``; tritonbench's Stream-K with the one change
    that makes it right, ``reset_to_zero=["C"]``: the README says why)."""
    _all_correct(DATA / name, [SMALL[name]])


# ------------------------------------------------------------------------------------- the defects

_REDUCE = '''
import triton
import triton.language as tl


@triton.jit
def first_max(v_a, i_a, v_b, i_b):
    """The larger value, the left one of a tie (not commutative: the order of the pairs matters)."""
    take_b = v_b > v_a
    return tl.where(take_b, v_b, v_a), tl.where(take_b, i_b, i_a)


@triton.jit
def rows_first_max(x_ptr, v_ptr, i_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + row * N + cols)
    v, i = tl.reduce((x, cols), 0, first_max)
    tl.store(v_ptr + row, v)
    tl.store(i_ptr + row, i)
'''


@pytest.mark.timeout(120)
def test_q1_a_reduction_by_the_kernel_s_own_combine_function_runs_in_vectorized_steps(tmp_path: Path) -> None:
    """Seen on 2026-12-07: trident_var_mean, Kakao Brain's trident ``var_mean``, whose Welford lanes are combined by
    ``tl.reduce((m2, mean, count), 1, language.combine_welford)``. Triton's interpreter reduces by a combine function
    of the kernel's own one element at a time (a Python call of the function and its operations each): 18.8 s for a
    4 x 100 matrix, so ``tune --device cpu`` could time nothing. The elements are combined pairwise in ``log2(n)``
    vectorized steps, neighbours in order: a left-biased argmax over ties (a combine function that is not
    commutative) still takes the first of equal values, and the function is called 9 times for 512 lanes, not
    511."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    (tmp_path / "reduce_kernel.py").write_text(_REDUCE)
    with triton_interpreted():
        mod = load_fresh(tmp_path / "reduce_kernel.py", "_breaker21_reduce")
        calls: list[int] = []
        inner = mod.first_max.fn

        def counted(*args: object) -> object:
            calls.append(1)
            return inner(*args)

        mod.first_max.fn = counted
        x = torch.tensor([[1.0, 5.0, 3.0, 5.0] * 128, [7.0] * 512, [0.0] * 511 + [2.0]])
        v, i = torch.empty(3), torch.empty(3, dtype=torch.int32)
        mod.rows_first_max[(3,)](x, v, i, N=512)
    assert v.tolist() == [5.0, 7.0, 2.0] and i.tolist() == [1, 0, 511], (v, i)
    assert len(calls) == 3 * 9, len(calls)  # three programs, 9 halvings of 512 lanes each


def test_q2_a_kernel_decorated_through_an_alias_of_triton_jit_is_a_kernel() -> None:
    """Seen on 2026-12-07: vllm_merge_states, vLLM's ``merge_attn_states_kernel``, decorated ``@triton_jit_decorator``
    (``vllm.triton_utils`` binds it to ``triton.jit``): ``kernelopt tunables`` said "no tunable found", the kernel no
    kernel at all. A module-level name bound to ``triton.jit`` (``autotune``, ``heuristics``) is read as it; the guard
    reads the text with each alias written as its word and writes the alias back: applied-ai's split-K kernel under
    such an alias gets its ``block_m=128`` (with ``block_k=64``) guarded by ``m % 128 == 0`` (its rows are loaded unmasked) and keeps
    ``@my_jit``."""
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.decorator_words import aliased, plain_decorators
    from kernelopt.tunables.guard import guard_edit

    found = {t.key for t in discover_source((DATA / "vllm_merge_states" / "kernel.py").read_text())}
    assert "merge_attn_states_kernel:num_warps" in found, found
    text = (DATA / "ai_splitk" / "kernel.py").read_text()
    old = text.replace("@triton.jit\ndef gemm_split_k_kernel", "@my_jit\ndef gemm_split_k_kernel").replace(
        "os.environ['ENABLE_TMA'] = '1'\n", "os.environ['ENABLE_TMA'] = '1'\nmy_jit = triton.jit\n"
    )
    assert old.count("my_jit") == 2 and plain_decorators(old) is not None
    assert aliased(plain_decorators(old) or "", old) == old
    new = old.replace("    block_m = 64\n", "    block_m = 128\n").replace("    block_k = 512\n", "    block_k = 64\n")
    written = guard_edit(old, new)
    assert written.new_source is not None, written.note
    assert "    if m % 128 == 0:  # kernelopt: tuned\n        block_m = 128\n" in written.new_source, written.new_source
    assert "@my_jit\ndef gemm_split_k_kernel" in written.new_source
    plain = guard_edit(
        text,
        text.replace("    block_m = 64\n", "    block_m = 128\n").replace("    block_k = 512\n", "    block_k = 64\n"),
    )
    assert plain.new_source == written.new_source.replace("my_jit = triton.jit\n", "").replace("@my_jit", "@triton.jit")


def test_q3_an_autotune_list_of_a_class_s_static_method_is_read() -> None:
    """Seen on 2026-12-07: trident_var_mean, whose kernel is ``kernel.VarMean.forward``, a static method of a class
    under ``@triton.autotune(configs(), ["x_size"])``, ``configs`` another static method building the list. Even
    ``tunables --evaluate`` said "forward.configs is not editable: autotune configs are built by code (configs());
    edit them by hand": the evaluation looked for autotuners among the module's names only. The classes the module
    defines are looked in too (its eight configs read, positional ``num_warps`` / ``num_stages`` included); ``tune``'s
    pick is written as a one-config list in place of ``configs()``
    (:func:`test_the_gpu_picks_are_written_on_the_cpu`)."""
    from kernelopt.tunables.autotune_worker import autotuners, base_fn
    from tests.conftest import load_fresh, triton_interpreted

    with triton_interpreted():
        mod = load_fresh(DATA / "trident_var_mean" / "kernel.py", "_breaker21_trident")
        found = autotuners(mod)
    assert [base_fn(a).__name__ for a in found] == ["forward"], found
    assert [(c.kwargs["x_block_size"], c.num_warps, c.num_stages) for c in found[0].configs][:3] == [
        (512, 2, 4), (512, 2, 5), (1024, 4, 4),
    ]  # fmt: skip


@pytest.mark.timeout(300)
def test_q4_a_guarded_tile_beside_other_moves_is_written_whatever_the_tile_alone_would_need(tmp_path: Path) -> None:
    """Seen on 2026-12-07: ``tune --device cpu`` on ai_splitk, applied-ai's split-K GEMM (every setting a local passed
    positionally; rows and columns loaded unmasked). Its session's best, ``block_m=128, block_k=64, split_k=1,
    group_m=16``, needs ``block_m`` guarded (M = 64 is an entry); the guard is read from a text holding the tile alone,
    beside the original's ``block_k=512``, which "cannot fit: estimated shared memory 589824 B" raised, and ``tune``
    exited 2 after 189 s of tuning, nothing written. That text is no configuration that runs and no fit is asked of
    it: the pick is written under ``if m % 128 == 0`` (the original's settings elsewhere), right at M = 64 and 192."""
    from tests.test_breaker_cases import _tune_edit

    folder = Path(shutil.copytree(DATA / "ai_splitk", tmp_path / "ai_splitk"))
    pick = {"block_m": 128, "block_n": 64, "block_k": 64, "group_m": 16, "split_k": 1}
    written, note = _tune_edit(folder, pick)
    assert written is not None, note
    assert "    if m % 128 == 0:  # kernelopt: tuned\n        split_k, group_m = 1, 16\n" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 64, "N": 64, "K": 100}, {"M": 192, "N": 64, "K": 33}])


def test_q5_a_computation_is_read_without_the_comment_lines_above_it() -> None:
    """Seen on 2026-12-07: ``kernelopt tunables`` on tb_streamk said "streamk_amd_gemm:NUM_SMS is computed (# (setting
    total_tiles_streamk to 0 gives plain blocking; ...) grids = min(total_programs_streamk, total_tiles))": a computed
    setting's text was its statement with the comment lines above it, joined into one line, which is one comment
    as Python. The rule that reads a block through its computation (newuser12's n64) could not evaluate it, and
    refused a smaller ``num_warps`` in vaguer words ("a value no rule here works out") where it works the value out
    without the comment. The statement is read without them."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.readers import shrunk_covers

    streamk = discover_source((DATA / "tb_streamk" / "kernel.py").read_text())
    assert [t.computed for t in streamk if t.key == "streamk_amd_gemm:NUM_SMS"] == [
        "grids = min(total_programs_streamk, total_tiles)"
    ]
    text = (DATA.parent / "newuser12" / "warps_cover" / "kernel.py").read_text()
    text = text.replace("    BLOCK = warps * 128", "    # one block a row: 128 columns a warp\n    BLOCK = warps * 128")
    assert shrunk_covers(discover_source(text), text, {"num_warps": 4}, {"num_warps": 8}) == [
        "BLOCK is computed from num_warps (BLOCK = warps * 128) and covers N with one block (cols < N): num_warps=4 "
        "makes it 512, smaller than the original's 1024, which leaves part of a row undone where the original covers it"
    ]


def test_q6_trident_s_block_names_are_blocks() -> None:
    """Seen on 2026-12-07: ``tunables --evaluate --set "forward.configs[0].x_block_size=300"`` on trident_var_mean wrote
    a list the kernel cannot run ("Shape element 1 must be a power of 2": the block reaches ``tl.arange`` only in the
    helper ``language.VarMean.forward``): ``x_block_size`` was legal at any value >= 1, a name no block rule knew.
    Trident's ``x_block_size`` / ``y_block_size`` are blocks: powers of two, refused in one line otherwise."""
    from kernelopt.actions import ActionCategory
    from kernelopt.tunables.knobs import knob_rule

    for name in ("x_block_size", "y_block_size", "X_BLOCK_SIZE"):
        rule = knob_rule(name)
        assert rule is not None and ActionCategory.BLOCK_SIZE in rule[0], name
        assert rule[1].problem(512) is None and "power of two" in (rule[1].problem(300) or ""), name
    assert knob_rule("x_block_sizes") is None


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for three of the trial's kernels when its session (a GPU's space) picks these, checked on the
#: GPU and written on the CPU too (:func:`test_the_gpu_picks_are_written_on_the_cpu`): applied-ai's split-K locals
#: (guarded by m % 128: its rows are loaded unmasked; a second guard of n beside moved settings is refused, a
#: combination never timed), the Stream-K list pinned with its ``reset_to_zero``, trident's static-method list
#: pinned. The split-K pick keeps each program's K chain at most the original's (``split_k=8`` of 4 with ``block_k=64``):
#: ``split_k=2`` was written so until 2026-12-07 and failed at 8192 on an H100 (the fp8 accumulator's error grows with
#: the chain), and a session now refuses it at the entries (tests/test_wrongkernel25_cases.py, its GPU test)
GPU_PICKS = {
    "ai_splitk": {"block_m": 128, "block_k": 64, "split_k": 8, "num_stages": 2},
    "tb_streamk": {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 8, "num_stages": 3},
    "trident_var_mean": {"x_block_size": 2048, "num_warps": 8, "num_stages": 4},
}

#: (folder, sizes) of the originals on the GPU: a small odd size and realistic ones (128 MB - 1 GB a tensor where
#: memory matters; the GEMMs at 8192 with Stream-K tiles left over on any SM count but a divisor of 4096)
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "ai_splitk": [SMALL["ai_splitk"], {"M": 8192, "N": 8192, "K": 8192}],
    "tb_streamk": [
        SMALL["tb_streamk"],
        {"M": 1000, "N": 1000, "K": 1000},
        {"M": 8192, "N": 8192, "K": 4096},
        {"M": 8191, "N": 8200, "K": 4104},
    ],
    "vllm_merge_states": [SMALL["vllm_merge_states"], {"T": 32768, "H": 32, "D": 128}],
    "fla_token_shift": [SMALL["fla_token_shift"], {"B": 8, "T": 8192, "D": 2048}],
    "trident_var_mean": [SMALL["trident_var_mean"], {"Y": 8192, "X": 8192}],
    "ai_causal_conv": [SMALL["ai_causal_conv"], {"B": 8, "D": 4096, "L": 4096, "W": 4}],
    "attorch_bn": [SMALL["attorch_bn"], {"N": 64, "C": 256, "H": 56, "W": 56}],
    "liger_flj": [SMALL["liger_flj"], {"BT": 2048, "H": 2048, "V": 32000}],
}

#: the written forms' sizes: none a SHAPES entry names, odd ones where the kernel allows them, and a realistic one.
#: Stream-K's own hint ``tl.multiple_of(A_BASE, (1, 16))`` claims each row of A starts 16 bytes aligned (K a multiple
#: of 8 halves): at K = 4095 its written form hit "misaligned address" on an H100 (2026-12-07), a size the original's
#: hint rules out too (:func:`test_on_cuda_stream_k_s_own_alignment_hint_faults_at_an_odd_k`); so K = 4104 (8 past
#: 64-wide steps: the masked tail) and N = 8200 (8 past 256-wide tiles), M odd
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "ai_splitk": [{"M": 64, "N": 64, "K": 1}, {"M": 192, "N": 320, "K": 1001}, {"M": 8192, "N": 8192, "K": 8192}],
    "tb_streamk": [{"M": 1, "N": 1, "K": 1}, {"M": 8191, "N": 8200, "K": 4104}],
    "trident_var_mean": [{"Y": 2, "X": 3}, {"Y": 8191, "X": 8193}],
}


@costly_picks
@pytest.mark.timeout(300)
def test_the_gpu_picks_are_written_on_the_cpu(tmp_path: Path) -> None:
    """Every pick of the GPU test is written by the CPU's logic as the GPU test expects (breaker19's GPU test failed on
    2026-12-06 on a pick the CPU logic no longer wrote), and applied-ai's guarded split-K (its rows are loaded
    unmasked: the guard keeps 128 off M = 64) and trident's pinned static-method list (q3) hold in the interpreter at
    sizes no entry names."""
    from tests.gpu_correct import written_files

    written = written_files(DATA, GPU_PICKS, tmp_path)
    splitk = written["ai_splitk"].read_text()
    assert "    if m % 128 == 0:  # kernelopt: tuned\n        block_m = 128\n" in splitk, splitk
    assert "    if m % 128 == 0:  # kernelopt: tuned\n        split_k = 8\n" in splitk, splitk
    streamk = written["tb_streamk"].read_text()
    assert 'num_warps=8, num_stages=3)],\n    key=["M", "N", "K"],\n    reset_to_zero=["C"],' in streamk, streamk
    trident = written["trident_var_mean"].read_text()  # q3: a class's static-method list pinned in place
    assert '@triton.autotune([triton.Config({"x_block_size": 2048}, num_warps=8, num_stages=4)], ["x_size"])' in trident
    for name, sizes in (("ai_splitk", GPU_WRITTEN_SIZES["ai_splitk"][:2]), ("trident_var_mean", [{"Y": 2, "X": 3}])):
        folder = Path(shutil.copytree(DATA / name, tmp_path / f"{name}_check"))
        shutil.copy(written[name], folder / "kernel.py")
        _all_correct(folder, sizes)


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_twenty_first_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals (:data:`GPU_SIZES`: applied-ai's
    split-K GEMM and channel-last causal conv1d; tritonbench's Stream-K GEMM over the SM count; vLLM's merge of
    attention states through its ``triton.jit`` alias; fla's token shift through autograd; trident's var_mean over
    both dimensions; attorch's batch norm, its running statistics in place; Liger's fused linear JSD with its
    backward's scaling), and the forms ``tune`` writes (:data:`GPU_PICKS`), correct at sizes no entry names
    (:data:`GPU_WRITTEN_SIZES`)."""
    from tests.gpu_correct import trial_holds
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    trial_holds(DATA, GPU_SIZES, GPU_PICKS, GPU_WRITTEN_SIZES, _outputs_checked, tmp_path)


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_cuda_stream_k_s_own_alignment_hint_faults_at_an_odd_k(tmp_path: Path) -> None:
    """On a GPU: the ORIGINAL Stream-K kernel at K = 4095 (rows of A 8190 bytes apart) against its hint
    ``tl.multiple_of(A_BASE, (1, 16))``: the hint's vectorized loads of A fault ("misaligned address") or read wrong,
    so an odd K is outside what the original handles and no written form is asked to hold there (its written form
    faulted there on an H100, 2026-12-07). In a child process: the fault spoils its CUDA context."""
    import subprocess
    import sys

    script = (
        "import torch, importlib.util as u\n"
        "def load(p, n):\n s = u.spec_from_file_location(n, p); m = u.module_from_spec(s); s.loader.exec_module(m); return m\n"
        f"ref = load({str(DATA / 'tb_streamk' / 'reference.py')!r}, 'ref')\n"
        f"ker = load({str(DATA / 'tb_streamk' / 'kernel.py')!r}, 'ker')\n"
        "a, b = ref.get_inputs(M=257, N=256, K=4095, device='cuda')\n"
        "got = ker.run(a, b); torch.cuda.synchronize()\n"
        "print('close', torch.allclose(got.float(), ref.reference(a, b).float(), atol=ref.ATOL, rtol=ref.RTOL))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240, cwd=tmp_path)
    said = done.stdout + done.stderr
    assert "misaligned address" in said or "close False" in said, said[-2000:]
