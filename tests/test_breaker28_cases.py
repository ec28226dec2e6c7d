"""Issue 32's twenty-eighth held-out trial, as a new user runs it (tests/data/breaker28/README.md: four public Triton
kernels from FlagAttention and LMDeploy: FlagAttention's flash attention forward, its settings from a table keyed by
the device's capability and its mask flags computed from the chosen blocks; LMDeploy's rotary embedding of the query
and key in one launch, every stride a constexpr and a head count under a block's name; LMDeploy's W8A8 linear, a
per-token int8 quantization then an autotuned int8 GEMM that splats a helper's dict; LMDeploy's paged KV-cache fill
with blocked fp8 quantization, the cache's page size under a block's name and the quantization group under an L2
swizzle's). Each finding is a test: each original once in Triton's interpreter at a small odd size against its
reference (``_all_correct``: NaN around the inputs and the outputs), the defects' own cases, the forms ``tune``
writes for GPU picks checked at sizes the ``SHAPES`` do not name, and the GPU test the lead's session runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gpu_correct import Ran, costly_picks
from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker28"

#: one small size each original has not been checked at, odd where the kernel allows it (the W8A8 linear's K a
#: multiple of its list's BLOCK_K, 128: its K tail loads take ``other=None``; the fp8 fill's head a multiple of its
#: group, 64; a page of 4 slots, one new token past a page's end)
SMALL: dict[str, dict[str, int]] = {
    "flag_flash": {"B": 1, "H": 1, "M": 33, "N": 65, "D": 16, "CAUSAL": 1},
    "lmd_rope": {"S": 33, "Hq": 3, "Hk": 1, "D": 32, "R": 32},
    "lmd_w8a8": {"M": 17, "N": 65, "K": 128},
    "lmd_fill_fp8": {"batch": 2, "Q": 9, "hist": 5, "H": 1, "D": 64, "BS": 4},
}


@pytest.mark.timeout(180)
def test_each_original_is_right_at_a_small_odd_size() -> None:
    """The four kernels as their authors launch them, each once in the interpreter at a size no entry names
    (FlagAttention's forward through its table's last branch, causal over 33 queries and 65 keys, both masked;
    LMDeploy's rope over 33 tokens, two programs of 16 and a wrapped one; its per-token quantization and autotuned
    int8 GEMM over wrapped rows and columns; its fp8 cache fill over pages of 4 slots)."""
    for name, size in SMALL.items():
        _all_correct(DATA / name, [size])


# ------------------------------------------------------------------------------------- the defects


def _found(name: str, source: str | None = None) -> dict[str, object]:
    from kernelopt.tunables.analysis import discover_source

    text = source if source is not None else (DATA / name / "kernel.py").read_text()
    return {t.key: t for t in discover_source(text)}


def test_q80_a_block_bound_to_a_size_of_the_problem_through_a_name_is_no_knob() -> None:
    """Seen on 2026-12-07: ``tunables`` on flag_flash listed ``BLOCK_DMODEL`` (``BLOCK_DMODEL=D`` of ``B, H, M, D =
    q.shape``: the head dimension) as a computed setting "tuned where it is computed ... a table by size", and ``tune
    --device cpu`` spent 14 of its 24 candidates on other head sizes (7 worker crashes reading out of bounds, 7 wrong
    results); on lmd_fill_fp8 it offered ``BLOCK`` (``BLOCK = block_size``, ``block_size = k_caches.size(s_dim)``: the
    cache's page size, which picks each token's page and slot) the same way. A launch name followed through its
    renames to a size unpacked from a shape, or one size of a tensor, is refused as a size passed whole; a block
    computed from a size is still a knob."""
    flash = _found("flag_flash")
    why = flash["_fwd_kernel:BLOCK_DMODEL"].refused_reason or ""  # type: ignore[attr-defined]
    assert "BLOCK_DMODEL=D passes a size of the problem whole, not a choice: 'D' is a size of the problem, " in why
    assert "unpacked from q.shape in flash_attention_forward() (line 30)" in why, why
    assert flash["_fwd_kernel:BLOCK_M"].refused_reason is None  # type: ignore[attr-defined]

    fill = _found("lmd_fill_fp8")
    why = fill["_fill_kv_cache_blocked_fp8_kernel:BLOCK"].refused_reason or ""  # type: ignore[attr-defined]
    assert "'block_size' is a size of the problem, k_caches.size(s_dim) in fill_kv_cache_blocked_fp8()" in why, why
    assert fill["_fill_kv_cache_blocked_fp8_kernel:BLOCK_D"].refused_reason is None  # type: ignore[attr-defined]

    source = (DATA / "flag_flash" / "kernel.py").read_text()
    rounded = source.replace("BLOCK_DMODEL=D,", "BLOCK_DMODEL=BD,").replace(
        "        divisible_m = M % BLOCK_M == 0\n",
        "        BD = triton.next_power_of_2(D)\n        divisible_m = M % BLOCK_M == 0\n",
    )
    assert rounded.count("BD") == 2
    site = _found("flag_flash", rounded)["_fwd_kernel:BLOCK_DMODEL"]
    assert site.refused_reason is None and site.kind.value == "computed_setting", site  # type: ignore[attr-defined]


def test_q81_a_group_the_data_is_split_into_under_a_swizzle_s_name_is_no_knob() -> None:
    """Seen on 2026-12-07: ``tunables`` on lmd_fill_fp8 listed ``GROUP_SIZE`` (passed to the helper
    ``_quant_blocked_fp8``, which reshapes each row ``x.reshape(M, N // GROUP_SIZE, GROUP_SIZE)`` under one fp8 scale a
    group) as a knob of category l2_rasterization, the name of a GEMM's grouped program order, and ``tune`` searched
    it beside the blocks: another group quantizes other values and writes other scales. A constexpr that divides an
    axis of a reshape, in the kernel or in a jit helper it is passed to, is a grain of the data; a GEMM's
    ``GROUP_SIZE_M`` read in program-id arithmetic stays a knob, and a tile split into pairs by a literal is no
    group."""
    import libcst as cst

    from kernelopt.tunables.grains import split_groups

    why = _found("lmd_fill_fp8")["_fill_kv_cache_blocked_fp8_kernel:GROUP_SIZE"].refused_reason or ""  # type: ignore[attr-defined]
    assert why.startswith("'GROUP_SIZE' is _quant_blocked_fp8()'s GROUP_SIZE: 'GROUP_SIZE' splits an axis"), why
    assert "(x.reshape(M, N // GROUP_SIZE, GROUP_SIZE))" in why, why
    assert _found("lmd_w8a8")["_linear:GROUP_SIZE_M"].refused_reason is None  # type: ignore[attr-defined]

    pairs = cst.parse_module(
        "@triton.jit\ndef k(x, BLOCK: tl.constexpr, G: tl.constexpr):\n"
        "    a = tl.reshape(tl.load(x + tl.arange(0, BLOCK)), (BLOCK // 2, 2))\n"
        "    b = tl.reshape(a, (BLOCK // G, G))\n"
    ).body[0]
    assert isinstance(pairs, cst.FunctionDef)
    assert set(split_groups(pairs)) == {"G"}


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for three of the trial's kernels when its session (a GPU's space) picks these, checked on the
#: GPU and written on the CPU too (:func:`test_the_gpu_picks_are_written_on_the_cpu`): FlagAttention's blocks a table
#: after its device table (the mask flags computed after it follow); LMDeploy's W8A8 list pinned to a smaller tile
#: (K steps of 64 inside the original's multiples of 128); its fp8 fill's head block a table over the computation
#: (wider than the head: the wrapped features quantized and masked off)
GPU_PICKS = {
    "flag_flash": {"BLOCK_M": 128, "BLOCK_N": 64},
    "lmd_w8a8": {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64},
    "lmd_fill_fp8": {"BLOCK_D": 256},
}

#: (folder, sizes) of the originals on the GPU: the small odd size and realistic ones (256 MB - 1 GB a tensor where
#: memory matters)
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "flag_flash": [
        SMALL["flag_flash"],
        {"B": 2, "H": 8, "M": 4096, "N": 4096, "D": 128, "CAUSAL": 1},
        {"B": 2, "H": 8, "M": 3001, "N": 5003, "D": 64, "CAUSAL": 0},
    ],
    "lmd_rope": [
        SMALL["lmd_rope"],
        {"S": 32768, "Hq": 32, "Hk": 8, "D": 128, "R": 128},
        {"S": 4097, "Hq": 5, "Hk": 3, "D": 80, "R": 80},
    ],
    "lmd_w8a8": [SMALL["lmd_w8a8"], {"M": 8192, "N": 8192, "K": 8192}, {"M": 4097, "N": 3001, "K": 4096}],
    "lmd_fill_fp8": [
        SMALL["lmd_fill_fp8"],
        {"batch": 16, "Q": 512, "hist": 1000, "H": 8, "D": 128, "BS": 64},
        {"batch": 64, "Q": 1, "hist": 4093, "H": 8, "D": 576, "BS": 64},
    ],
}

#: past 2**31 elements, by reading: FlagAttention's ``off_z * stride_qz`` and ``offs_m * stride_qm`` are int32 (wrong
#: past 2**31 elements of q as written); LMDeploy's rope offsets ``pos_offset * stride_qs`` with constexpr strides in
#: int32, its W8A8 GEMM ``offs_am * stride_am`` int32, its fp8 fill ``block_off`` int64 (a page's start) but
#: ``q_offs * stride_kss`` int32: each wrong there as written, and no written form changes index arithmetic

#: the written forms' sizes: none a SHAPES entry names, odd ones, past the tables' rows, realistic ones
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "flag_flash": [
        {"B": 1, "H": 3, "M": 95, "N": 129, "D": 32, "CAUSAL": 1},  # the table's row (M <= 96), one past a block
        {"B": 8, "H": 32, "M": 96, "N": 16384, "D": 128, "CAUSAL": 1},  # the row at 16384 keys (268 MB each)
        {"B": 1, "H": 3, "M": 257, "N": 129, "D": 32, "CAUSAL": 1},  # above it, M > N: 128 rows see no key
        {"B": 2, "H": 8, "M": 4096, "N": 4097, "D": 128, "CAUSAL": 0},
    ],
    "lmd_w8a8": [{"M": 7, "N": 5, "K": 128}, {"M": 4097, "N": 3001, "K": 4096}, {"M": 8192, "N": 8192, "K": 8192}],
    "lmd_fill_fp8": [
        {"batch": 3, "Q": 17, "hist": 9, "H": 3, "D": 192, "BS": 16},
        {"batch": 16, "Q": 512, "hist": 1000, "H": 8, "D": 128, "BS": 64},
        {"batch": 64, "Q": 1, "hist": 4093, "H": 8, "D": 64, "BS": 128},
    ],
}


@costly_picks
@pytest.mark.timeout(300)
def test_the_gpu_picks_are_written_on_the_cpu(tmp_path: Path) -> None:
    """Every pick of the GPU test is written by the CPU's logic as the GPU test expects, and each written kernel holds
    in the interpreter at a size no entry names (odd sizes, one past a block, past a table's rows)."""
    from tests.gpu_correct import written_files, written_hold

    written = written_files(DATA, GPU_PICKS, tmp_path)
    flash = written["flag_flash"].read_text()
    assert "        if M <= 96:  # kernelopt: tuned\n            BLOCK_M = 128\n            BLOCK_N = 64\n" in flash, (
        flash
    )
    w8a8 = written["lmd_w8a8"].read_text()
    assert 'configs=[triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8, num_stages=3)]' in w8a8
    fill = written["lmd_fill_fp8"].read_text()
    assert "        BLOCK_D = 256\n" in fill, fill
    small = {
        "flag_flash": [{"B": 1, "H": 1, "M": 95, "N": 129, "D": 32, "CAUSAL": 1}],  # the row, one past two key blocks
        "lmd_w8a8": [{"M": 65, "N": 129, "K": 256}],  # one past a block of each
        "lmd_fill_fp8": [{"batch": 2, "Q": 3, "hist": 6, "H": 2, "D": 192, "BS": 8}],  # a head of three groups in 256
    }
    written_hold(DATA, written, small, tmp_path, _all_correct)


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_twenty_eighth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the four originals (:data:`GPU_SIZES`: FlagAttention's
    forward causal over 2 x 8 heads of 4096 and at odd lengths, through its device table's branch for the card;
    LMDeploy's rope over 32768 tokens and at an odd count; its W8A8 linear at 8192 cubed and at odd M / N; its fp8
    cache fill for a prefill of 16 x 1024 tokens and a decode step of 64 sequences of a 576-wide head), and the forms
    ``tune`` writes (:data:`GPU_PICKS`), correct at sizes no entry names (:data:`GPU_WRITTEN_SIZES`)."""
    from tests.gpu_correct import trial_holds

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    trial_holds(DATA, GPU_SIZES, GPU_PICKS, GPU_WRITTEN_SIZES, _within_an_fp8_step, tmp_path)


def _within_an_fp8_step(ran: Ran) -> bool | str:
    """:func:`~tests.test_breaker7_cases._outputs_checked`, but an fp8 output within one fp8 step of the reference's
    (e4m3's 3 mantissa bits: a relative 2**-3): a GPU's ``x / scale`` may round an ulp off torch's on the CPU and move
    a value across an fp8 rounding boundary (breaker10's fp8_row, docs/faults.md); a page or slot written wrong differs
    by far more."""
    import torch

    from tests.test_breaker7_cases import _leaves, _outputs_checked

    got, want = _leaves(ran.got), _leaves(ran.want)
    if not any(w.dtype == torch.float8_e4m3fn for w in want):
        return _outputs_checked(ran)
    far = [
        i
        for i, (g, w) in enumerate(zip(got, want, strict=True))
        if not torch.allclose(g.float(), w.float(), rtol=2**-3, atol=2**-9)
    ]
    return not far or f"outputs {far} beyond one fp8 step"


def test_q82_fp8_inputs_are_told_apart_across_seeds_without_nan_to_num() -> None:
    """Seen on 2026-12-07: ``batch --device cpu`` on lmd_fill_fp8 (its paged caches ``float8_e4m3fn`` inputs the
    kernel fills in place) passed its check, then ended ERROR "the problem's reference failed: timing ... building the
    inputs (reference.py get_inputs): ... NotImplementedError: "nan_to_num" not implemented for 'Float8_e4m3fn'":
    the harness's own test of whether two seeds' inputs are the same values (:func:`same_values`) called
    ``nan_to_num`` on every floating tensor. An fp8 tensor is compared by its float32 values (NaN equal to NaN)."""
    import torch

    from kernelopt.harness.inputs import same_values

    a = torch.tensor([1.0, float("nan"), -2.5]).to(torch.float8_e4m3fn)
    assert same_values([a, torch.ones(2)], [a.clone(), torch.ones(2)])
    assert not same_values([a], [torch.tensor([1.0, float("nan"), 3.0]).to(torch.float8_e4m3fn)])


def test_q83_a_table_is_keyed_by_a_size_that_tells_every_entry_apart() -> None:
    """Seen on 2026-12-07: ``tune --device cpu`` on flag_flash (after q80) found other blocks best at each entry (64 x
    64, 64 x 128, 128 x 32) and judged a per-bucket table, but the table's size was the first name of
    ``get_fwd_config(B, H, M, N, D, causal)`` whose value differs between the entries: ``B`` (1, 2, 1), one row for
    the first and third entries. The third got the first's tile, 28.6 % slower than the original there, and nothing
    was written, where ``M``, ``N`` or ``D`` (each different at all three) gives each entry its own row. The size
    that tells every entry apart comes first; where none does, the first that tells some apart, as before. (The
    folder's tunables and SHAPES as they are; the preparation's runs, which give the sizes under a launcher's
    names, replaced by the entries' own values.)"""
    from types import SimpleNamespace

    from kernelopt.tunables.model import TunableKind
    from kernelopt.tuning.folder import _planned_table
    from kernelopt.tuning.problem import ProblemShape
    from tests.conftest import load_fresh

    found = _found("flag_flash").values()
    tabled = {t.name: t for t in found if t.kind is TunableKind.COMPUTED_SETTING}  # type: ignore[attr-defined]
    shapes = load_fresh(DATA / "flag_flash" / "reference.py", "_breaker28_flash_ref").SHAPES

    def plan(entries: list[dict[str, int]]) -> object:
        prepared = SimpleNamespace(
            tabled=tabled,
            literal_tabled={},
            space=SimpleNamespace(origins={}, kernel=None),
            ran_shapes=[ProblemShape(kwargs=s) for s in entries],
            bounds={},
        )
        return _planned_table(prepared, {"BLOCK_M": 128, "BLOCK_N": 64})  # type: ignore[arg-type]

    assert [s["B"] for s in shapes] == [1, 2, 1] and len({s["M"] for s in shapes}) == 3
    assert plan(shapes) == (["BLOCK_M", "BLOCK_N"], "M")
    alike = [{**s, "M": 64, "N": 64, "D": 64} for s in shapes]  # only B tells any apart
    assert plan(alike) == (["BLOCK_M", "BLOCK_N"], "B")


def _int8_rows(x, off_ulps: int = 0):  # type: ignore[no-untyped-def]
    """The reference's per-row int8 values of ``x`` (fp32: scale = absmax / 127, round half away from zero), each
    quotient moved ``off_ulps`` fp32 ulps (a GPU's division: Triton's ``/`` is ``div.full.f32``, within 2 ulp, for the
    scale and again for the quotient)."""

    xf = x.float()
    q = xf / (xf.abs().amax(-1, keepdim=True).clamp_min(1e-7) / 127)
    q = q * (1 + off_ulps * 2.0**-23)
    return (q.sign() * (q.abs() + 0.5).floor()).clamp(-128, 127)


@pytest.mark.timeout(60)
def test_g12_the_h100_s_w8a8_misses_were_ties_two_fp32_divisions_round_apart() -> None:
    """breaker28's phase on the H100 (2026-12-07 22:08): lmd_w8a8's original 'output differs from the reference beyond
    tolerance' at M=4097,N=3001,K=4096 and 8192 cubed (its GPU test), and at the SHAPES entry M=64,N=256,K=256 (its
    tune: "kernel.py as written fails its own correctness check", worst at (43, 8): got -0.434326, expected -0.405029).
    Row 43 holds an element at half its absmax (1.7763671875 of 3.552734375): 127 |x| / absmax is 63.5 exactly, a tie.
    torch's fp32 quotient is 63.5, int8 64 (half away from zero); a quotient one ulp under (Triton's ``/`` is
    ``div.full.f32``, within 2 ulp, for the scale and the quotient) gives 63, and the output is the H100's to the last
    bit. At 4097 x 3001 x 4096 (row 4024, three elements at half its absmax) torch's rounded scale put the tie at
    63.499996 (63) and the GPU took 64, the exact tie's answer: -0.04864501953125 against -0.1424560546875, the H100's
    pair (computed on the CPU, 2026-12-07 22:24). Neither the kernel nor the reference is wrong: at a tie the int8 value
    is the last ulp's, and one step (x_s * |w_q| * w_s, up to 0.05) is past ATOL. The inputs now keep every quotient
    1e-3 off a tie (reference.py's ``_off_ties``), where a quotient 4 ulp off moves no int8 value."""
    import torch

    from tests.conftest import load_fresh

    ref = load_fresh(DATA / "lmd_w8a8" / "reference.py", "_g12_w8a8_ref")
    M, N, K = 64, 256, 256
    g = torch.Generator().manual_seed(M * 1000003 + N * 1009 + K)  # the inputs as the H100 ran them (no tie moved)
    x = torch.randn(M, K, generator=g).half()
    w_q = torch.randint(-127, 128, (N, K), generator=g, dtype=torch.int8)
    w_s = torch.rand(N, generator=g) / 100 + 1e-3
    row = x[43:44]
    (tie,) = (row.abs() * 2 == row.abs().amax()).nonzero()[:, 1].tolist()
    assert row[0, tie].item() == 1.7763671875
    x_s = row.float().abs().amax().double() / 127

    def out(q: torch.Tensor) -> float:
        return float(((q[0].double() @ w_q[8].double()) * x_s * w_s[8].double()).half())

    assert _int8_rows(row)[0, tie] == 64.0 and _int8_rows(row, -1)[0, tie] == 63.0
    assert out(_int8_rows(row)) == float(ref.reference(row, w_q[8:9], w_s[8:9])[0, 0]) == -0.405029296875
    assert out(_int8_rows(row, -1)) == -0.434326171875  # the H100's -0.434326
    assert [r for r in range(M) if not torch.equal(_int8_rows(x[r : r + 1], -1), _int8_rows(x[r : r + 1]))] == [
        24, 38, 43, 57,
    ]  # fmt: skip
    for shape in [*ref.SHAPES, SMALL["lmd_w8a8"]]:
        moved = ref.get_inputs(**shape)[0]
        assert all(torch.equal(_int8_rows(moved, d), _int8_rows(moved)) for d in (-4, -2, -1, 1, 2, 4)), shape
        g = torch.Generator().manual_seed(shape["M"] * 1000003 + shape["N"] * 1009 + shape["K"])
        raw = torch.randn(shape["M"], shape["K"], generator=g).half()
        assert torch.equal(moved.abs().amax(-1), raw.abs().amax(-1)) and (moved != raw).float().mean() < 0.01
