"""The K loop of a plain matmul (``acc += tl.dot(x, tl.trans(y))``, fp32: TF32 wgmma on sm_90), its first operand
scaled in registers where ``SCALE`` (``x * 2.0``), compiled for sm_90 by Triton 3.6.0 at ``BM=64, BN=64, BK=32``,
four warps, three stages: ``mm_fp32_s0_ns3.ttgir.gz`` / ``mm_fp32_s1_ns3.ttgir.gz`` (``triton.compile(ASTSource(mm,
...), target=GPUTarget("cuda", 90, 32), options={"num_warps": 4, "num_stages": 3})``). Rings of three slots for the
operands the wgmmas read from shared memory: no race (tests/test_kkt18_cases.py)."""

import triton
import triton.language as tl


@triton.jit
def mm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SCALE: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :], mask=(k + rk)[None, :] < K, other=0.0)
        y = tl.load(b + rn[:, None] * K + (k + rk)[None, :], mask=(k + rk)[None, :] < K, other=0.0)
        if SCALE:
            x = x * 2.0
        acc += tl.dot(x, tl.trans(y))
    tl.store(c + rm[:, None] * N + rn[None, :], acc)
