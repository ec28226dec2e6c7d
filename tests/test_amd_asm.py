"""AMDGCN assembly analysis on assembly the project compiled itself (scripts/make_amd_asm_fixtures.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.errors import InputFileError
from kernelopt.evidence.amdgcn import analyze, kernel_base_name, looks_like_amdgcn, normalize_kernel_name

ASM = Path(__file__).parent / "data" / "amd" / "asm"


def _one(name: str):
    facts = analyze((ASM / name).read_text(), name)
    assert len(facts) == 1
    return next(iter(facts.values()))


def test_narrow_copy_uses_32_bit_global_loads() -> None:
    f = _one("triton_gfx942_copy_narrow.amdgcn")
    assert f.kernel == "copy_kernel" and f.arch == "gfx942"
    assert f.global_loads_by_bits == {32: 4}
    assert f.global_stores_by_bits == {32: 4}
    assert f.global_load_bits == 32 and f.global_load_bits_min == 32
    assert f.narrow_global_loads() == 4
    assert f.instruction_counts["global_load_dword"] == 4
    assert (f.registers_per_thread, f.sgprs, f.occupancy_waves_per_simd) == (10, 19, 8)
    assert (f.vgpr_spill_count, f.sgpr_spill_count, f.scratch_bytes, f.spill_ops) == (0, 0, 0, 0)
    assert (f.max_workgroup_size, f.wavefront_size) == (256, 64)
    assert f.waitcnt_insts == 5 and f.waitcnt_vmcnt == 4 and f.waitcnt_lgkmcnt == 1
    assert f.source == "triton_gfx942_copy_narrow.amdgcn"


def test_wide_copy_uses_dwordx4() -> None:
    f = _one("triton_gfx942_copy_wide.amdgcn")
    assert f.global_loads_by_bits == {128: 1}
    assert f.global_stores_by_bits == {128: 1}
    assert f.narrow_global_loads() == 0
    assert f.instruction_counts["global_load_dwordx4"] == 1
    assert f.registers_per_thread == 6


def test_bf16_gemm_narrow_vs_wide_and_mfma() -> None:
    narrow = _one("triton_gfx942_matmul_bf16_narrow.amdgcn")
    wide = _one("triton_gfx942_matmul_bf16_wide.amdgcn")
    assert narrow.global_loads_by_bits == {16: 64}  # global_load_ushort
    assert narrow.lds_writes_by_bits == {16: 32, 64: 8}  # ds_write_b16, ds_write_b64
    assert narrow.lds_reads_by_bits == {128: 16} and narrow.lds_read2_insts == 16  # ds_read2st64_b64
    assert narrow.tensor_instructions == 32
    assert narrow.instruction_counts["v_mfma_f32_32x32x8_bf16"] == 32
    assert (narrow.arch_vgprs, narrow.agprs, narrow.registers_per_thread) == (256, 78, 334)
    assert narrow.occupancy_waves_per_simd == 1
    assert wide.global_loads_by_bits == {128: 16}
    assert wide.lds_writes_by_bits == {64: 16, 128: 8}  # ds_write_b64 and ds_write2st64_b64
    assert wide.lds_write2_insts == 8
    assert wide.tensor_instructions == 64
    assert (wide.arch_vgprs, wide.agprs, wide.registers_per_thread, wide.occupancy_waves_per_simd) == (152, 64, 216, 2)


def test_spilling_gemm_reports_spills_and_scratch() -> None:
    f = _one("triton_gfx942_matmul_fp32_spill.amdgcn")
    assert f.vgpr_spill_count == 110 and f.sgpr_spill_count == 0 and f.spilled_registers == 110
    assert f.scratch_bytes == 372
    assert f.scratch_loads == 69 and f.scratch_stores == 72
    assert f.spill_ops == 141  # every scratch op is a compiler-marked spill/reload
    assert f.instruction_counts["scratch_load_dword"] == 59
    assert f.registers_per_thread == 512 and f.agprs == 256
    assert f.tensor_instructions == 256  # v_mfma_f32_32x32x4_xf32
    assert f.max_workgroup_size == 64


def test_softmax_uses_buffer_loads_and_lds() -> None:
    f = _one("triton_gfx942_softmax.amdgcn")
    assert f.instruction_counts["buffer_load_dword"] == 4
    assert f.global_loads_by_bits == {32: 4}
    assert f.lds_reads_by_bits == {32: 4} and f.lds_writes_by_bits == {32: 4}
    assert f.tensor_instructions == 0


def test_gfx950_transpose_lds_reads() -> None:
    f = _one("triton_gfx950_matmul_bf16_wide.amdgcn")
    assert f.arch == "gfx950"
    assert f.instruction_counts["ds_read_b64_tr_b16"] == 48
    assert f.lds_reads_by_bits == {64: 48, 128: 24}
    assert f.lds_writes_by_bits == {128: 24}
    assert f.instruction_counts["v_mfma_f32_32x32x16_bf16"] == 48


def test_several_kernels_in_one_hipcc_style_file() -> None:
    facts = analyze((ASM / "llvm_gfx942_multi_kernel.s").read_text(), "multi.s")
    assert list(facts) == ["lds_shuffle", "private_array", "copy_x2_x3"]
    lds = facts["lds_shuffle"]
    assert lds.instruction_counts["ds_read2_b32"] == 1 and lds.lds_read2_insts == 1
    assert lds.lds_reads_by_bits == {64: 1}  # two 32-bit elements
    assert lds.ds_bpermute_insts == 1
    assert lds.lds_bytes == 2048
    private = facts["private_array"]
    assert private.scratch_loads == 1 and private.scratch_stores == 1
    assert private.spill_ops == 0 and private.vgpr_spill_count == 0  # scratch array, not a spill
    assert private.scratch_bytes == 260
    copy = facts["copy_x2_x3"]
    assert copy.global_loads_by_bits == {64: 1, 96: 1}
    assert copy.global_stores_by_bits == {64: 1, 96: 1}


def test_concatenated_outputs_keep_both_specializations() -> None:
    text = (ASM / "triton_gfx942_copy_narrow.amdgcn").read_text() + (ASM / "triton_gfx942_copy_wide.amdgcn").read_text()
    facts = analyze(text, "kernel.s")
    assert list(facts) == ["copy_kernel", "copy_kernel#2"]
    assert facts["copy_kernel"].global_loads_by_bits == {32: 4}
    assert facts["copy_kernel#2"].global_loads_by_bits == {128: 1}


def test_objdump_disassembly_without_metadata() -> None:
    text = (
        "kernel.co:\tfile format elf64-amdgpu\n\nDisassembly of section .text:\n\n"
        "0000000000001900 <vecAdd>:\n"
        "\ts_load_dwordx4 s[0:3], s[4:5], 0x0  // 000000001900: C00A0002 00000000\n"
        "\tglobal_load_dwordx2 v[0:1], v2, s[0:1]  // 000000001908: DC548000 00000002\n"
        "\tds_write_b128 v3, v[4:7]  // 000000001910: D9BE0000 00000403\n"
        "\ts_waitcnt vmcnt(0)  // 000000001918: BF8C0F70\n"
        "\ts_endpgm  // 00000000191C: BF810000\n"
    )
    assert looks_like_amdgcn(text)
    f = analyze(text, "vecadd.dis")["vecAdd"]
    assert f.global_loads_by_bits == {64: 1}
    assert f.lds_writes_by_bits == {128: 1}
    assert f.waitcnt_vmcnt == 1
    assert f.registers_per_thread is None and f.vgpr_spill_count is None  # no metadata in disassembly
    assert f.total_instructions == 5


def test_not_assembly_is_refused() -> None:
    with pytest.raises(InputFileError, match="no AMDGCN kernel"):
        analyze("just some text\n", "notes.txt")
    assert not looks_like_amdgcn("def f():\n    return 1\n")


def test_broken_metadata_is_refused() -> None:
    text = (ASM / "triton_gfx942_copy_wide.amdgcn").read_text().replace("amdhsa.kernels:", "amdhsa.kernels: [unclosed")
    with pytest.raises(InputFileError, match="metadata"):
        analyze(text, "bad.amdgcn")


def test_base_is_plain_isa_facts() -> None:
    base = _one("triton_gfx942_matmul_fp32_spill.amdgcn").base()
    assert type(base).__name__ == "IsaFacts"
    assert base.spilled_registers == 110 and base.tensor_instructions == 256


@pytest.mark.parametrize(
    ("name", "base"),
    [
        ("vecCopy(double*, double*, double*, int, int) (.kd)", "vecCopy"),
        ("vecCopy(double*, double*, double*, int, int) [clone .kd]", "vecCopy"),
        ("_Z7vecCopyPdS_S_ii", "vecCopy"),
        ("_Z7vecCopyPdS_S_ii.kd", "vecCopy"),
        ("vecCopy", "vecCopy"),
        (
            "void batched_matrix_multiplication_matrix_core_128x128x16<128u, 128u, 16u>(unsigned int, dim3, int)",
            "batched_matrix_multiplication_matrix_core_128x128x16",
        ),
        (
            "_Z52batched_matrix_multiplication_matrix_core_128x128x16ILj128ELj128ELj16EEvjjjj",
            "batched_matrix_multiplication_matrix_core_128x128x16",
        ),
        ("_ZN2ns6kernelEPf", "kernel"),
        ("matmul_kernel", "matmul_kernel"),
    ],
)
def test_kernel_name_variants_match(name: str, base: str) -> None:
    assert kernel_base_name(name) == base


def test_normalize_kernel_name_strips_descriptor_suffixes() -> None:
    assert normalize_kernel_name("foo(int) (.kd)") == "foo(int)"
    assert normalize_kernel_name("foo(int) [clone .kd]") == "foo(int)"
    assert normalize_kernel_name("foo.kd") == "foo"
    assert normalize_kernel_name("foo") == "foo"
