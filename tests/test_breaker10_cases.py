"""The tenth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``, held
out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of tests/data/breaker10
is a public Triton kernel written for the trial in a form the first nine trials did not try (its README lists them).
What tuning writes is judged as a user would: the written kernel against the reference at every ``SHAPES`` entry and
at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty`` outputs in the middle of NaN
(tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import triton_interpreted
from tests.gpu_correct import Ran, assert_correct, written_files
from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker10"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


# ------------------------------------------------------------------------------------- correct kernels failing on the CPU


@pytest.mark.timeout(120)
def test_a_libdevice_function_imported_by_name_runs_in_the_interpreter() -> None:
    """Seen on 2026-12-06: group_norm, Liger-Kernel's group norm, imports ``rsqrt`` by name (``from
    triton.language.extra.libdevice import rsqrt``, its rms / layer / group norms all do). Every check on the CPU
    failed "InterpreterError: AttributeError("'NoneType' object has no attribute 'type'")": the fixes patched the
    libdevice modules' attributes, and the name the kernel's module binds still called the generic stub (``None``).
    A global of the kernel's module bound to a libdevice function is patched (and restored) as the modules are."""
    _all_correct(DATA / "group_norm", [{"B": 2, "C": 8, "H": 96}, {"B": 1, "C": 12, "H": 37}])


@pytest.mark.timeout(120)
def test_libdevice_llrint_runs_in_the_interpreter_rounding_half_to_even() -> None:
    """Seen on 2026-12-06: bnb_rowwise, bitsandbytes' row-wise int8 quantization, ``libdevice.llrint(127 * x /
    absmax)``: V0 FAIL "libdevice's __nv_llrintf has no numpy equivalent". ``llrint`` / ``lrint`` round half to even
    (the current rounding mode), ``llround`` / ``lround`` half away from zero, as CUDA's."""
    from kernelopt.harness.interpreter import extern_name

    assert extern_name("__nv_llrintf") == extern_name("__nv_llrint") == "llrint"
    assert extern_name("__nv_llroundf") == "llround" and extern_name("__ocml_lrint_f32") == "lrint"
    _all_correct(DATA / "bnb_rowwise", [{"M": 3, "N": 77}, {"M": 2, "N": 1024}])


@pytest.mark.timeout(120)
def test_a_float_narrowed_to_fp8_in_the_interpreter_is_rounded_and_saturated_as_on_a_gpu() -> None:
    """Seen on 2026-12-06: fp8_row, FBGEMM's row-wise fp8 quantization (a store of ``clamp(a * scale, -448, 448)``
    into a ``float8_e4m3fn`` tensor): V0 FAIL on the CPU, one value in ten off by a binade (31.6 stored as 16, not
    32): Triton 3.6's interpreter adds the rounding bit to the mantissa without carrying it into the exponent, and
    wraps values past the format's largest. A narrowing to an 8-bit float torch knows is rounded to nearest even and
    saturated (NVIDIA's ``cvt.rn.satfinite``), NaN kept; a widening reads the NaN and infinity codes."""
    import numpy as np
    import torch

    with triton_interpreted():
        import triton
        import triton.language as tl

        @triton.jit
        def narrow(x_ptr, f_ptr, N: tl.constexpr):
            offs = tl.arange(0, N)
            tl.store(f_ptr + offs, tl.load(x_ptr + offs).to(f_ptr.dtype.element_ty))

        @triton.jit
        def widen(f_ptr, x_ptr, N: tl.constexpr):
            offs = tl.arange(0, N)
            tl.store(x_ptr + offs, tl.load(f_ptr + offs).to(tl.float32))

        g = torch.Generator().manual_seed(0)
        edges = [1e6, -1e6, float("inf"), -float("inf"), float("nan"), 0.0, -0.0, 464.0, 465.0, -31.6, 2.0**-10]
        for fp8 in (torch.float8_e4m3fn, torch.float8_e5m2):
            for wide in (torch.float32, torch.float16, torch.bfloat16):
                x = torch.cat([torch.randn(1013, generator=g) * 100, torch.tensor(edges)]).to(wide)
                got = torch.empty(1024, dtype=fp8)
                narrow[(1,)](x, got, N=1024)
                top = torch.finfo(fp8).max
                want = x.float().clamp(-top, top).to(fp8)
                np.testing.assert_array_equal(got.view(torch.uint8).numpy(), want.view(torch.uint8).numpy())
            codes = torch.arange(256, dtype=torch.uint8).view(fp8)
            back = torch.empty(256)
            widen[(1,)](codes, back, N=256)
            torch.testing.assert_close(back, codes.float(), equal_nan=True, rtol=0, atol=0)
    _all_correct(DATA / "fp8_row", [{"M": 2, "N": 5000}, {"M": 3, "N": 17}])


def test_the_gate_checks_an_fp8_output() -> None:
    """Seen on 2026-12-06, after the conversion above: ``validate fp8_row --device cpu`` still failed "the worker
    exited with code 1 without a result: NotImplementedError: "isfinite" not implemented for 'Float8_e4m3fn'" (the
    reference's outputs screened for NaN), then "aminmax_cpu" (the output's range): torch has neither for an 8-bit
    float. Both read it widened; ``tune``'s check, which compared it widened already, said the same."""
    import torch

    from kernelopt.harness.compare import check_outputs
    from kernelopt.harness.worker import _fail_if_reference_not_finite

    ref = (torch.linspace(-400, 400, 300).reshape(3, 100)).to(torch.float8_e4m3fn)
    scale = torch.rand(3)
    _fail_if_reference_not_finite(None, (ref, scale), "case 0")  # type: ignore[arg-type]
    hi = (ref.float(), scale.double())
    same = check_outputs((ref.clone(), scale.clone()), (ref, scale), hi, atol=0, rtol=1e-6, device_type="cpu")
    assert same.message is None, same
    off = ref.clone()
    off[1, 7] = torch.tensor(-16.0).to(torch.float8_e4m3fn)  # 31.6 stored a binade low, as the interpreter did
    wrong = check_outputs((off, scale), (ref, scale), hi, atol=0, rtol=1e-6, device_type="cpu")
    assert wrong.message is not None and "(1, 7)" in wrong.message, wrong


# ------------------------------------------------------------------------------------- knobs that are no knobs


@pytest.mark.timeout(120)
def test_a_block_named_setting_passed_a_whole_size_is_no_knob(tmp_path: Path) -> None:
    """Seen on 2026-12-06: bnb_rowwise, bitsandbytes' ``quantize_rowwise``, launches ``BLOCK_SIZE=x.shape[1]`` (the
    row's length under a block's name: the kernel's row stride, the arange covering it is ``P2``). ``tune`` searched
    it as a block, "BLOCK_SIZE: power_of_two 16..65536", where every value but the row length computes something
    else (each candidate fails a check, the budget spent on nothing). A launch value that is one of a tensor's sizes
    as it is (``x.shape[i]``, ``x.size(i)``, ``x.numel()``, ``len(x)``) is refused, said so; the kernel's only knobs
    are then its autotune list's ``num_warps`` / ``num_stages``, which the CPU cannot time: ``tune`` says that,
    where it said "discovery lists only knobs it cannot edit" naming neither."""
    from kernelopt.errors import UsageError
    from kernelopt.tunables import discover_source
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    found = {t.key: t for t in discover_source((DATA / "bnb_rowwise" / "kernel.py").read_text())}
    block = found["_quantize_rowwise:BLOCK_SIZE"]
    assert not block.editable and "x.shape[1] is a size of the problem passed whole" in (block.refused_reason or "")
    with pytest.raises(
        UsageError, match="no tunable knob on the CPU: the kernel.s autotune list holds launch options only"
    ):
        prepare_folder(TuneRequest(folder=_copy("bnb_rowwise", tmp_path), device="cpu"))


# ------------------------------------------------------------------------------------- wrong kernels written


TWO_SIZES = """import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_rows(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    m = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=m, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=1)[:, None])
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], e / tl.sum(e, axis=1)[:, None], mask=m)


def run(x):
    M, N = x.shape
    y = torch.empty_like(x)
    BLOCK_M = 4 if M <= 64 else 8
    BLOCK_N = triton.next_power_of_2(N)
    _softmax_rows[(triton.cdiv(M, BLOCK_M),)](x, y, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y
"""

TWO_SIZES_REFERENCE = """import torch

SHAPES = [{"M": 20, "N": 100}, {"M": 100, "N": 60}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(M=20, N=100, device="cpu"):
    return [torch.randn(M, N, generator=torch.Generator().manual_seed(M + N)).to(device)]


def reference(x):
    return torch.softmax(x, dim=1)
"""


@pytest.mark.timeout(120)
def test_a_computed_setting_that_does_not_read_the_table_s_size_stays_at_its_computation(tmp_path: Path) -> None:
    """Seen on 2026-12-06 (mamba_ssu, Mamba's ``selective_state_update``: ``BLOCK_SIZE_M`` from ``dstate`` in the
    launching function, ``BLOCK_SIZE_DSTATE`` a heuristic of ``args["dstate"]``): ``tune`` wrote both in one table
    over the launcher's ``dstate``, the heuristic's lambda ``128 if dstate <= 100 else ...``, whose check failed
    "NameError: name 'dstate' is not defined". ``_table_plan`` keeps a setting that does not read the table's size
    at its computation; the edit tabled every computed setting regardless. The same with two launcher sizes wrote a
    wrong kernel: a one-block ``BLOCK_N = next_power_of_2(N)`` beside ``BLOCK_M`` computed from ``M``, a pick of
    ``BLOCK_M=16, BLOCK_N=128``, was written ``if M <= 100: BLOCK_N = 128``: at 20 rows of 1000 columns, which the
    original handled, 872 columns of each row never normalized. Only the settings reading the size are tabled."""
    from tests.test_breaker_cases import _tune_edit

    folder = tmp_path / "two_sizes"
    folder.mkdir()
    (folder / "kernel.py").write_text(TWO_SIZES)
    (folder / "reference.py").write_text(TWO_SIZES_REFERENCE)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 128})
    assert written is not None, note
    assert "    if M <= 100:  # kernelopt: tuned\n        BLOCK_M = 16\n" in written
    assert "BLOCK_N = 128" not in written and "BLOCK_N kept at its computation (it reads N, not M)" in (note or "")
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 20, "N": 1000}, {"M": 7, "N": 3}])
    # the heuristic of mamba_ssu stays a lambda of args: no launcher name in it (tunegaps11: its args["dstate"] is
    # the launcher's dstate, one size, so it is tabled too, spelled as the lambda reads it)
    mamba, note = _tune_edit(_copy("mamba_ssu", tmp_path), {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_DSTATE": 128})
    assert mamba is not None, note
    assert 'lambda args: 128 if args["dstate"] <= 100 else triton.next_power_of_2(args["dstate"])' in mamba, mamba
    assert "if dstate <= 100:" in mamba


# ------------------------------------------------------------------------------------- on a GPU


def _fp8_within_a_step(ran: Ran) -> bool | str:
    """fp8_row's outputs on a GPU: the scales to 1e-5, the fp8 values within one step of the format (a GPU divides
    ``MAX_FP8 / absmax`` to within an ulp, which can move a value across a rounding boundary) and all but 1 % exact."""
    import torch

    (got, scale), (want, want_scale) = ran.got, ran.want
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"fp8 output {got.dtype} {tuple(got.shape)}, expected {want.dtype} {tuple(want.shape)}"
    if not torch.allclose(scale, want_scale, rtol=1e-5, atol=0):
        return f"scales differ by {float((scale - want_scale).abs().max())}"
    g, w = got.float(), want.float()
    step = torch.exp2(torch.floor(torch.log2(w.abs().clamp(min=2.0**-6))) - 3)  # e4m3: 3 mantissa bits
    off = (g - w).abs()
    if bool((off > step).any()):
        return f"fp8 values off by more than a step: {float(off.max())}"
    return bool((off > 0).float().mean() <= 0.01) or "over 1 % of the fp8 values off by a step"


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_tenth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals at their SHAPES and at realistic sizes
    (256 MB to 1 GB a tensor where the kernel allows: the dropout's 64 M elements, bitsandbytes' and FBGEMM's 256 MB
    rows, Liger's group norm of 64 M values, JSD over a 16 K vocabulary, FlashInfer's 16 K positions x 32 heads x
    128), libdevice's ``llrint`` and ``rsqrt`` imported by name as CUDA computes them, the fp8 store as the GPU rounds
    it (against the same torch conversion the interpreter's fix uses), and the forms ``tune`` wrote on the CPU:
    mamba_ssu's ``if dstate <= 100: BLOCK_SIZE_M = 128`` (its heuristic left at its computation), liger_jsd's ``if
    V <= 1000: BLOCK_SIZE = 1024``, the dropout's ``BLOCK_SIZE=8192``, extend_attn's table of ``BLOCK_N``
    (a ``BLOCK_M`` row over its helper refused since wrongkernel24; and the H100's pick with six stages, bounded by the table: the original's settings at D=65 and 128,
    where the mixed form needed 458752 B of shared memory), and the two-size softmax whose one-block ``BLOCK_N`` stays computed, correct at sizes no entry names."""
    from tests.test_breaker7_cases import _outputs_checked
    from tests.test_breaker_cases import _tune_edit

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    picks = {
        "mamba_ssu": {"BLOCK_SIZE_M": 128},
        "liger_jsd": {"BLOCK_SIZE": 1024},
        "seeded_dropout": {"BLOCK_SIZE": 8192},
        "extend_attn": {"BLOCK_N": 32},  # a BLOCK_M row over the helper is refused (wrongkernel24: v33 axis 2)
    }
    written = written_files(DATA, picks, tmp_path)
    two = tmp_path / "two_sizes"
    two.mkdir()
    (two / "kernel.py").write_text(TWO_SIZES)
    (two / "reference.py").write_text(TWO_SIZES_REFERENCE)
    text, note = _tune_edit(two, {"BLOCK_M": 16, "BLOCK_N": 128})
    assert text is not None and "BLOCK_N = 128" not in text, note
    (two / "kernel.py").write_text(text)
    # the H100's pick (2026-12-06): six stages bounded with the table (tablebound11), the original's settings above it
    staged, note = _tune_edit(_copy("extend_attn", tmp_path / "staged"), {"BLOCK_N": 64, "num_stages": 6})
    assert staged is not None and "    if Lq <= 48:  # kernelopt: tuned\n        num_stages = 6\n" in staged, note
    (tmp_path / "extend_attn_staged.py").write_text(staged)
    attn = {"B": 4, "H": 32, "G": 4, "D": 128, "P": 2048, "E": 1024}
    cases: list[tuple[Path, Path | None, list[dict[str, int]]]] = [
        (DATA / "mamba_ssu", None, [{"B": 2, "D": 48, "S": 16}, {"B": 64, "D": 4096, "S": 256}]),
        (DATA / "mamba_ssu", written["mamba_ssu"], [{"B": 3, "D": 300, "S": 16}, {"B": 64, "D": 4096, "S": 64}]),
        (DATA / "bnb_rowwise", None, [{"M": 3, "N": 77}, {"M": 65536, "N": 1024}]),
        (DATA / "seeded_dropout", None, [{"N": 333}, {"N": 1 << 26}]),
        (DATA / "seeded_dropout", written["seeded_dropout"], [{"N": 8193}, {"N": (1 << 26) + 5}]),
        (DATA / "group_norm", None, [{"B": 1, "C": 12, "H": 37}, {"B": 32, "C": 512, "H": 4096}]),
        (DATA / "liger_jsd", None, [{"BT": 9, "V": 64}, {"BT": 4096, "V": 16384}]),
        (DATA / "liger_jsd", written["liger_jsd"], [{"BT": 5, "V": 17}, {"BT": 64, "V": 999}, {"BT": 8, "V": 5000}]),
        (DATA / "merge_state", None, [{"S": 9, "H": 3, "D": 8}, {"S": 16384, "H": 32, "D": 128}]),
        (DATA / "extend_attn", None, [{"B": 2, "H": 2, "G": 1, "D": 32, "P": 40, "E": 30}, attn]),
        (DATA / "extend_attn", written["extend_attn"], [{"B": 1, "H": 2, "G": 1, "D": 40, "P": 10, "E": 70}, attn]),
        (
            DATA / "extend_attn",
            tmp_path / "extend_attn_staged.py",
            [
                {"B": 1, "H": 2, "G": 1, "D": 40, "P": 10, "E": 70},
                {"B": 2, "H": 4, "G": 2, "D": 65, "P": 300, "E": 200},
                attn,
            ],
        ),
        (two, None, [{"M": 20, "N": 1000}, {"M": 4096, "N": 8192}]),
    ]
    for folder, kernel_py, shapes in cases:
        assert_correct(folder, shapes, _outputs_checked, kernel_py=kernel_py)
    assert_correct(DATA / "fp8_row", [{"M": 3, "N": 17}, {"M": 32768, "N": 2048}], _fp8_within_a_step)
