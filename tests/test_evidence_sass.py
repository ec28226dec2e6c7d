"""SASS parsing and ISA facts."""

from __future__ import annotations

from kernelopt.evidence.sass import access_bits, is_tensor, isa_facts, parse_instruction, parse_listing

CUOBJDUMP = """
        code for sm_90
                Function : softmax_kernel
        .headerflags    @"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                          /* 0x00000a00ff017b82 */
                                                                                  /* 0x000fe20000000800 */
        /*0010*/              @!P0 LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;       /* 0x0000000402048981 */
                                                                                  /* 0x000ea2000c1e9d00 */
        /*0020*/                   STL.64 [R1+0x8], R6 ;                           /* 0x0000080601007387 */
                                                                                  /* 0x000fe20000100a00 */
        /*0030*/                   LDL.LU R9, [R1+0x10] ;                          /* 0x00001000ff097983 */
                                                                                  /* 0x000fe20000300800 */
        /*0040*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24 ;  /* 0x00000000041879f0 */
                                                                                  /* 0x000fe20000000000 */
        /*0050*/                   LDG.E.U16 R10, desc[UR4][R8.64] ;               /* 0x000000040808a981 */
                                                                                  /* 0x000fe2000c1e1500 */
        /*0060*/                   EXIT ;                                          /* 0x000000000000794d */
"""
TRITON = """Function:spill_kernel
--:-:2:-:4\tLDG.E R23, desc[UR4][R8.64+0x1580];
LBB0:
--:-:-:Y:2\tSTL [R1+0x4], R23;
--:-:-:Y:1\tEXIT;
"""


def test_parse_cuobjdump_listing() -> None:
    listing = parse_listing(CUOBJDUMP)
    ins = listing["softmax_kernel"]
    assert [i.opcode for i in ins] == [
        "LDC",
        "LDG.E.128.CONSTANT",
        "STL.64",
        "LDL.LU",
        "HGMMA.64x128x16.F32.BF16",
        "LDG.E.U16",
        "EXIT",
    ]
    assert ins[1].address == 0x10 and ins[1].predicate == "@!P0" and ins[1].family == "LDG"
    facts = isa_facts(ins, source="k.sass", registers_per_thread=38)
    assert facts.global_load_bits == 128 and facts.global_load_bits_min == 16
    assert facts.spill_ops == 2 and facts.tensor_instructions == 1
    assert facts.instruction_counts["LDG"] == 2 and facts.instruction_counts["LDG.E.128.CONSTANT"] == 1
    assert facts.registers_per_thread == 38 and facts.source == "k.sass"


def test_parse_triton_listing() -> None:
    ins = parse_listing(TRITON)["spill_kernel"]
    assert [i.opcode for i in ins] == ["LDG.E", "STL", "EXIT"] and [i.address for i in ins] == [0, 16, 32]
    assert isa_facts(ins, source="t").spill_ops == 1


def test_single_instructions() -> None:
    assert parse_instruction("@P0 EXIT").predicate == "@P0"
    assert parse_instruction("") is None and parse_instruction(".L_x_0:") is None
    assert access_bits(parse_instruction("LDG.E.64 R2, [R4.64]")) == 64
    assert access_bits(parse_instruction("LDG.E.LTC128B R2, [R4.64]")) == 32  # an L2 prefetch hint, not a width
    assert access_bits(parse_instruction("LDGSTS.E.BYPASS.128 [R3], desc[UR4][R4.64]")) == 128
    assert is_tensor(parse_instruction("UTCHMMA gdesc[UR4], gdesc[UR6], tmem[UR8]"))
    assert not is_tensor(parse_instruction("FFMA R1, R2, R3, R4"))
    empty = isa_facts([], source="none")
    assert empty.global_load_bits is None and empty.spill_ops is None
