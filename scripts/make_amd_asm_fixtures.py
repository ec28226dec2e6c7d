"""Regenerate the AMDGCN assembly fixtures in ``tests/data/amd/asm/`` without an AMD GPU.

What worked (2026-11-29, CPU-only machine, no ROCm installed):

* **Triton 3.6.0** (PyPI wheel) compiles for ``GPUTarget("hip", "gfx942", 64)`` and
  ``GPUTarget("hip", "gfx950", 64)`` offline: ``triton.compile(ASTSource(...), target=...)`` returns
  ``.asm["amdgcn"]``, the same text Triton writes as ``<name>.amdgcn`` into its cache on a ROCm
  machine. No GPU, driver or ROCm install is touched.
* **The LLVM AMDGPU backend bundled in Triton** (``triton._C.libtriton.llvm.translate_to_asm`` after
  ``llvm.init_targets()``) compiles hand-written LLVM IR with several ``amdgpu_kernel`` functions into
  one ``.s`` file with a single ``.amdgpu_metadata`` block listing every kernel, which is the shape of
  ``hipcc --save-temps`` / ``clang -S`` output. The system ``llc`` (LLVM 14) is too old for gfx942, so
  no ``apt-get install clang`` was needed.

Fixtures (what each one exercises):

* ``triton_gfx942_copy_narrow.amdgcn``: masked fp32 copy, no alignment hints -> ``global_load_dword``.
* ``triton_gfx942_copy_wide.amdgcn``: the same copy with 16-divisible pointers/size -> ``global_load_dwordx4``.
* ``triton_gfx942_matmul_bf16_narrow.amdgcn``: bf16 ``tl.dot`` without stride hints ->
  ``global_load_ushort``, ``ds_write_b16``, MFMA ``v_mfma_f32_32x32x8_bf16``.
* ``triton_gfx942_matmul_bf16_wide.amdgcn``: the same GEMM with 16-divisible strides -> 128-bit loads.
* ``triton_gfx942_matmul_fp32_spill.amdgcn``: fp32 128x128x32 tile on one wave -> VGPR spills
  (``scratch_load/store``, ``.vgpr_spill_count`` > 0). Line info disabled to keep the file small.
* ``triton_gfx942_softmax.amdgcn``: row softmax -> ``buffer_load_dword`` and LDS reductions.
* ``triton_gfx950_matmul_bf16_wide.amdgcn``: the wide GEMM for CDNA4 (gfx950).
* ``triton_gfx942_matmul_bf16_wide.json``: Triton's metadata of that GEMM (``shared`` = the LDS it
  allocates at launch, which the assembly does not state).
* ``llvm_gfx942_multi_kernel.s``: three kernels in one file: ``lds_shuffle`` (``ds_read2_b32``,
  ``ds_bpermute_b32``, 2 KiB LDS), ``private_array`` (scratch array, no spill), ``copy_x2_x3``
  (``global_load_dwordx2`` / ``dwordx3``).

Run from the repository root: ``python scripts/make_amd_asm_fixtures.py [--out tests/data/amd/asm]``.
The outputs depend on the Triton version; tests assert the facts of the checked-in files.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

MULTI_KERNEL_IR = r"""
target triple = "amdgcn-amd-amdhsa"

@tile = internal addrspace(3) global [512 x i32] poison, align 16

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare void @llvm.amdgcn.s.barrier()

define amdgpu_kernel void @lds_shuffle(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t64 = zext i32 %tid to i64
  %src = getelementptr i32, ptr addrspace(1) %in, i64 %t64
  %v = load i32, ptr addrspace(1) %src, align 4
  %l0 = getelementptr [512 x i32], ptr addrspace(3) @tile, i32 0, i32 %tid
  store i32 %v, ptr addrspace(3) %l0, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %i2 = shl i32 %tid, 1
  %p0 = getelementptr [512 x i32], ptr addrspace(3) @tile, i32 0, i32 %i2
  %i3 = add i32 %i2, 40
  %p1 = getelementptr [512 x i32], ptr addrspace(3) @tile, i32 0, i32 %i3
  %a = load i32, ptr addrspace(3) %p0, align 8
  %b = load i32, ptr addrspace(3) %p1, align 4
  %s = add i32 %a, %b
  %addr = shl i32 %i3, 2
  %perm = call i32 @llvm.amdgcn.ds.bpermute(i32 %addr, i32 %s)
  %dst = getelementptr i32, ptr addrspace(1) %out, i64 %t64
  store i32 %perm, ptr addrspace(1) %dst, align 4
  ret void
}

define amdgpu_kernel void @private_array(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %k) #0 {
entry:
  %buf = alloca [64 x float], align 4, addrspace(5)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t64 = zext i32 %tid to i64
  br label %fill
fill:
  %i = phi i32 [ 0, %entry ], [ %inext, %fill ]
  %idx = add i32 %i, %tid
  %i64 = zext i32 %idx to i64
  %sp = getelementptr float, ptr addrspace(1) %in, i64 %i64
  %x = load float, ptr addrspace(1) %sp, align 4
  %bp = getelementptr [64 x float], ptr addrspace(5) %buf, i32 0, i32 %i
  store float %x, ptr addrspace(5) %bp, align 4
  %inext = add i32 %i, 1
  %done = icmp eq i32 %inext, 64
  br i1 %done, label %use, label %fill
use:
  %km = and i32 %k, 63
  %rp = getelementptr [64 x float], ptr addrspace(5) %buf, i32 0, i32 %km
  %r = load float, ptr addrspace(5) %rp, align 4
  %dst = getelementptr float, ptr addrspace(1) %out, i64 %t64
  store float %r, ptr addrspace(1) %dst, align 4
  ret void
}

define amdgpu_kernel void @copy_x2_x3(ptr addrspace(1) %in2, ptr addrspace(1) %out2,
                                      ptr addrspace(1) %in3, ptr addrspace(1) %out3) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t64 = zext i32 %tid to i64
  %s2 = getelementptr <2 x float>, ptr addrspace(1) %in2, i64 %t64
  %v2 = load <2 x float>, ptr addrspace(1) %s2, align 8
  %d2 = getelementptr <2 x float>, ptr addrspace(1) %out2, i64 %t64
  store <2 x float> %v2, ptr addrspace(1) %d2, align 8
  %s3 = getelementptr <3 x float>, ptr addrspace(1) %in3, i64 %t64
  %v3 = load <3 x float>, ptr addrspace(1) %s3, align 16
  %d3 = getelementptr <3 x float>, ptr addrspace(1) %out3, i64 %t64
  store <3 x float> %v3, ptr addrspace(1) %d3, align 16
  ret void
}

attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }
"""


def _kernels() -> dict[str, Any]:
    import triton
    import triton.language as tl

    @triton.jit
    def copy_kernel(x, y, n, BLOCK: tl.constexpr):
        off = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = off < n
        tl.store(y + off, tl.load(x + off, mask=m), mask=m)

    @triton.jit
    def matmul_kernel(
        a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
    ):
        pm = tl.program_id(0)
        pn = tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        ap = a + rm[:, None] * sam + rk[None, :] * sak
        bp = b + rk[:, None] * sbk + rn[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for _ in range(0, K, BK):
            acc += tl.dot(tl.load(ap), tl.load(bp))
            ap += BK * sak
            bp += BK * sbk
        tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc.to(c.dtype.element_ty))

    @triton.jit
    def softmax_kernel(x, y, stride, n, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        v = tl.load(x + row * stride + cols, mask=cols < n, other=-float("inf"))
        v = v - tl.max(v, 0)
        e = tl.exp(v)
        tl.store(y + row * stride + cols, e / tl.sum(e, 0), mask=cols < n)

    return {"copy": copy_kernel, "matmul": matmul_kernel, "softmax": softmax_kernel}


def _compiled(fn: Any, arch: str, sig: dict[str, str], consts: dict[str, Any], attrs: Any = None, **opts: Any) -> Any:
    import triton
    from triton.backends.compiler import GPUTarget

    src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs or {})
    return triton.compile(src, target=GPUTarget("hip", arch, 64), options=opts)


def _compile(fn: Any, arch: str, sig: dict[str, str], consts: dict[str, Any], attrs: Any = None, **opts: Any) -> str:
    return str(_compiled(fn, arch, sig, consts, attrs, **opts).asm["amdgcn"])


def _metadata_json(compiled: Any) -> str:
    """The ``<kernel>.json`` Triton's cache holds beside ``<kernel>.amdgcn`` (``json.dumps(metadata,
    default=vars)`` as ``triton.compiler.compile`` writes it), library paths made neutral."""
    import json

    meta = compiled.metadata._asdict()
    meta["extern_libs"] = [[name, Path(path).name] for name, path in meta.get("extern_libs") or []]
    return json.dumps(meta, default=vars, indent=1, sort_keys=True) + "\n"


def _div16(*indices: int) -> dict[tuple[int, ...], list[list[Any]]]:
    return {(i,): [["tt.divisibility", 16]] for i in indices}


def _neutral(text: str) -> str:
    """The debug info names the folder this script ran from; make it the repository-relative one."""
    return text.replace(str(Path(__file__).resolve().parent), "scripts")


def build(out: Path) -> list[Path]:
    """Compile every fixture into ``out``; returns the written paths."""
    k = _kernels()
    copy_sig = {"x": "*fp32", "y": "*fp32", "n": "i32"}
    mm_names = ("a", "b", "c", "M", "N", "K", "sam", "sak", "sbk", "sbn", "scm", "scn")
    bf16_sig = dict(zip(mm_names, ("*bf16",) * 3 + ("i32",) * 9, strict=True))
    fp32_sig = dict(zip(mm_names, ("*fp32",) * 3 + ("i32",) * 9, strict=True))
    unit_strides = {"sak": 1, "sbn": 1, "scn": 1}
    wide = _div16(0, 1, 2, 3, 4, 5, 6, 8, 10)
    jobs: dict[str, Any] = {
        "triton_gfx942_copy_narrow.amdgcn": lambda: _compile(k["copy"], "gfx942", copy_sig, {"BLOCK": 1024}),
        "triton_gfx942_copy_wide.amdgcn": lambda: _compile(
            k["copy"], "gfx942", copy_sig, {"BLOCK": 1024}, attrs=_div16(0, 1, 2)
        ),
        "triton_gfx942_matmul_bf16_narrow.amdgcn": lambda: _compile(
            k["matmul"], "gfx942", bf16_sig, {"BM": 128, "BN": 128, "BK": 64, **unit_strides}, num_warps=4
        ),
        "triton_gfx942_matmul_bf16_wide.amdgcn": lambda: _compile(
            k["matmul"], "gfx942", bf16_sig, {"BM": 128, "BN": 128, "BK": 64, **unit_strides}, wide, num_warps=4
        ),
        "triton_gfx942_softmax.amdgcn": lambda: _compile(
            k["softmax"], "gfx942", {"x": "*fp32", "y": "*fp32", "stride": "i32", "n": "i32"}, {"BLOCK": 1024}
        ),
        "triton_gfx950_matmul_bf16_wide.amdgcn": lambda: _compile(
            k["matmul"], "gfx950", bf16_sig, {"BM": 128, "BN": 128, "BK": 64, **unit_strides}, wide, num_warps=4
        ),
    }
    written = []
    out.mkdir(parents=True, exist_ok=True)
    for name, job in jobs.items():
        path = out / name
        path.write_text(_neutral(job()), encoding="utf-8")
        written.append(path)
    # Triton allocates LDS at launch: the size is in the cache's metadata JSON, not in the assembly.
    wide_bf16 = _compiled(
        k["matmul"], "gfx942", bf16_sig, {"BM": 128, "BN": 128, "BK": 64, **unit_strides}, wide, num_warps=4
    )
    meta_path = out / "triton_gfx942_matmul_bf16_wide.json"
    meta_path.write_text(_metadata_json(wide_bf16), encoding="utf-8")
    written.append(meta_path)
    # The spill kernel is large; without line info it stays under 200 KB.
    old = os.environ.get("TRITON_DISABLE_LINE_INFO")
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"
    try:
        spill = _compile(k["matmul"], "gfx942", fp32_sig, {"BM": 128, "BN": 128, "BK": 32, **unit_strides}, num_warps=1)
    finally:
        if old is None:
            os.environ.pop("TRITON_DISABLE_LINE_INFO", None)
        else:
            os.environ["TRITON_DISABLE_LINE_INFO"] = old
    (out / "triton_gfx942_matmul_fp32_spill.amdgcn").write_text(_neutral(spill), encoding="utf-8")
    written.append(out / "triton_gfx942_matmul_fp32_spill.amdgcn")

    from triton._C.libtriton import llvm

    llvm.init_targets()
    multi = llvm.translate_to_asm(MULTI_KERNEL_IR, "amdgcn-amd-amdhsa", "gfx942", "", [], True, False)
    (out / "llvm_gfx942_multi_kernel.s").write_text(multi, encoding="utf-8")
    written.append(out / "llvm_gfx942_multi_kernel.s")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("tests/data/amd/asm"))
    args = parser.parse_args()
    for path in build(args.out):
        print(f"{path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
