"""AMDGCN assembly facts: what the compiler emitted for each kernel, read from its text.

Inputs are the assembly the AMDGPU LLVM backend prints: Triton's ``<kernel>.amdgcn`` cache files,
``hipcc --save-temps`` / ``clang -S`` ``.s`` files (several kernels, one metadata block), a
concatenation of such files (``profiles/v<N>/kernel.s``), or ``llvm-objdump -d`` disassembly (no
metadata there, instructions only).

Per kernel it counts, statically (one count per instruction in the text, not per execution):

* global memory loads/stores by width: ``global_load_*``, ``buffer_load_*``, ``flat_load_*``
  (``dword`` = 32 bit, ``dwordx2`` = 64, ``dwordx3`` = 96, ``dwordx4`` = 128, ``ushort`` = 16, ...);
* LDS traffic by width, including the two-address forms ``ds_read2*`` / ``ds_write2*`` (their width is
  both elements together, e.g. ``ds_read2_b32`` = 64 bit) and the cross-lane ``ds_bpermute``;
* scratch (private memory) loads/stores, and the ones LLVM marks as register spills
  (``; 4-byte Folded Spill`` / ``Folded Reload`` comments);
* matrix-core instructions (``v_mfma_*``, ``v_smfmac_*``, and ``v_wmma_*`` on RDNA);
* wait counts (``s_waitcnt`` with ``vmcnt`` / ``lgkmcnt``, and the gfx12 ``s_wait_*`` forms);

and reads the compiler's resource report: code-object metadata (``.vgpr_count``, ``.agpr_count``,
``.sgpr_count``, ``.vgpr_spill_count``, ``.sgpr_spill_count``, ``.private_segment_fixed_size``,
``.group_segment_fixed_size``, ``.max_flat_workgroup_size``, ``.wavefront_size``), the
``.amdhsa_kernel`` descriptor directives, and the ``; Kernel info:`` comment block (``NumVgprs``,
``NumAgprs``, ``TotalNumVgprs``, ``ScratchSize``, ``LDSByteSize``, ``Occupancy``).

Instruction names and metadata keys: AMD "CDNA3 Instruction Set Architecture" reference guide and
LLVM's "User Guide for AMDGPU Backend" (AMDGPUUsage, code object V5 metadata). This module is pure:
no I/O.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import yaml
from pydantic import Field

from kernelopt.errors import InputFileError
from kernelopt.evidence.model import IsaFacts

# Width in bits of a memory-instruction suffix (per lane). ``None``: not a data width we count.
_SUFFIX_BITS: dict[str, int] = {
    "dwordx4": 128,
    "dwordx3": 96,
    "dwordx2": 64,
    "dword": 32,
    "b128": 128,
    "b96": 96,
    "b64": 64,
    "b32": 32,
    "b16": 16,
    "b8": 8,
    "short": 16,
    "ushort": 16,
    "sshort": 16,
    "u16": 16,
    "i16": 16,
    "byte": 8,
    "ubyte": 8,
    "sbyte": 8,
    "u8": 8,
    "i8": 8,
    "format_x": 32,
    "format_xy": 64,
    "format_xyz": 96,
    "format_xyzw": 128,
    "format_d16_x": 16,
    "format_d16_xy": 32,
    "format_d16_xyz": 48,
    "format_d16_xyzw": 64,
}

_GLOBAL_RE = re.compile(r"^(?:global|buffer|flat)_(load|store)_(?:lds_)?(.+)$")
_LDS_RE = re.compile(r"^ds_(read|write|load|store)(2st64|2)?_(.+)$")
_SCRATCH_RE = re.compile(r"^scratch_(load|store)_")
_MATRIX_RE = re.compile(r"^(v_mfma_|v_smfmac_|v_wmma_|v_swmmac_)")
_WAIT_RE = re.compile(
    r"^(s_waitcnt(?:_vscnt|_vmcnt|_lgkmcnt|_expcnt)?|s_wait_(?:loadcnt|storecnt|dscnt|kmcnt|samplecnt|bvhcnt|expcnt)(?:_dscnt)?)$"
)
_MNEMONIC_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_LABEL_RE = re.compile(r"^([A-Za-z_.$][\w.$]*):")
_OBJDUMP_FUNC_RE = re.compile(r"^[0-9a-fA-F]+ <([^>]+)>:\s*$")
_TYPE_FUNC_RE = re.compile(r"^\s*\.type\s+([^,\s]+)\s*,\s*@function")
_KERNEL_INFO_RE = re.compile(
    r"^;\s*(NumVgprs|NumAgprs|TotalNumVgprs|TotalNumSgprs|ScratchSize|LDSByteSize|Occupancy):\s*(\d+)"
)
_AMDHSA_DIRECTIVE_RE = re.compile(r"^\s*\.amdhsa_(\w+)\s+(-?\d+)")
_SPILL_COMMENT_RE = re.compile(r"(Folded Spill|Folded Reload|\bSpill\b|\bReload\b)")


def _width_bits(suffix: str) -> int | None:
    """Bits per lane of a load/store suffix (``dwordx4`` -> 128, ``short_d16_hi`` -> 16, ``b64_tr_b16`` -> 64)."""
    if suffix in _SUFFIX_BITS:
        return _SUFFIX_BITS[suffix]
    head = suffix.split("_")[0]  # short_d16_hi -> short, b64_tr_b16 -> b64, u16_d16 -> u16
    return _SUFFIX_BITS.get(head)


def normalize_kernel_name(name: str) -> str:
    """The kernel's symbol without the ``.kd`` descriptor suffix forms.

    Profilers print ``foo(int) (.kd)``, ``foo(int) [clone .kd]`` or ``foo.kd``; assembly names the
    kernel ``foo`` and its descriptor ``foo.kd``.
    """
    text = name.strip()
    for suffix in (" [clone .kd]", " (.kd)", "[clone .kd]", "(.kd)", ".kd"):
        if text.endswith(suffix):
            return text[: -len(suffix)].rstrip()
    return text


def _demangled_base(name: str) -> str:
    """``void ns::foo<1>(int, float*)`` -> ``foo``; ``foo`` -> ``foo``."""
    text = normalize_kernel_name(name)
    depth = 0
    cut = len(text)
    for i, ch in enumerate(text):  # the argument list is the first '(' at template depth 0
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "(" and depth == 0:
            cut = i
            break
    head = text[:cut]
    depth = 0
    out = []
    for ch in head:  # drop template arguments
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    words = "".join(out).strip().split()
    last = words[-1] if words else text
    return last.split("::")[-1]


def _itanium_base(symbol: str) -> str | None:
    """The unqualified name of an Itanium-mangled symbol (``_Z6vecAddPfS_`` -> ``vecAdd``), or ``None``."""
    m = re.match(r"^_Z(N)?(.*)$", symbol)
    if not m:
        return None
    rest = m.group(2)
    name = None
    while True:
        rest = re.sub(r"^[rVKL]+", "", rest) if m.group(1) else rest
        n = re.match(r"^(\d+)", rest)
        if not n:
            break
        length = int(n.group(1))
        start = len(n.group(1))
        name = rest[start : start + length]
        rest = rest[start + length :]
        if not m.group(1) or rest.startswith("E") or not rest[:1].isdigit():
            break
    return name


def kernel_base_name(name: str) -> str:
    """A comparable identifier for matching one kernel across PMC, ATT and assembly.

    ``vecCopy(double*, double*, double*, int, int) (.kd)``, ``_Z7vecCopyPdS_S_ii`` and ``vecCopy`` all
    give ``vecCopy``; Triton kernel names are returned unchanged.
    """
    text = normalize_kernel_name(name)
    if text.startswith("_Z"):
        base = _itanium_base(text)
        if base:
            return base
    return _demangled_base(text)


class AmdIsaFacts(IsaFacts):
    """:class:`IsaFacts` of one AMD kernel plus the AMD-specific resource report.

    Attributes:
        kernel: kernel symbol (no ``.kd``).
        arch: ``gfx942``-style target, when the file names it.
        arch_vgprs: architected VGPRs (``NumVgprs``), per lane.
        agprs: accumulation VGPRs (``.agpr_count`` / ``NumAgprs``), per lane.
        vgpr_spill_count: VGPRs spilled to scratch (``.vgpr_spill_count``).
        sgpr_spill_count: SGPRs spilled (``.sgpr_spill_count``).
        lds_bytes: static LDS per workgroup in bytes (``.group_segment_fixed_size``); Triton allocates
            its LDS dynamically, so Triton kernels show 0 here (Triton's ``shared`` metadata has it).
        occupancy_waves_per_simd: the compiler's occupancy estimate (``; Occupancy: N``), waves per SIMD.
        max_workgroup_size: ``.max_flat_workgroup_size`` (work-items).
        wavefront_size: ``.wavefront_size`` (work-items).
        global_loads_by_bits: static global/buffer/flat load count by width in bits.
        global_stores_by_bits: the same for stores.
        lds_reads_by_bits: static LDS read count by width in bits (``ds_read2_b32`` counts as 64).
        lds_writes_by_bits: the same for LDS writes.
        lds_read2_insts: ``ds_read2*`` instructions.
        lds_write2_insts: ``ds_write2*`` instructions.
        ds_bpermute_insts: ``ds_bpermute_b32`` / ``ds_permute_b32`` instructions.
        scratch_loads: ``scratch_load_*`` instructions.
        scratch_stores: ``scratch_store_*`` instructions.
        waitcnt_insts: wait-count instructions (``s_waitcnt`` and gfx12 ``s_wait_*``).
        waitcnt_vmcnt: of those, the ones waiting on vector memory (``vmcnt`` / ``loadcnt``).
        waitcnt_lgkmcnt: of those, the ones waiting on LDS/scalar memory (``lgkmcnt`` / ``dscnt``).
        total_instructions: all instructions of the kernel body.
    """

    kernel: str
    arch: str | None = None
    arch_vgprs: int | None = None
    agprs: int | None = None
    vgpr_spill_count: int | None = None
    sgpr_spill_count: int | None = None
    lds_bytes: int | None = None
    occupancy_waves_per_simd: int | None = None
    max_workgroup_size: int | None = None
    wavefront_size: int | None = None
    global_loads_by_bits: dict[int, int] = Field(default_factory=dict)
    global_stores_by_bits: dict[int, int] = Field(default_factory=dict)
    lds_reads_by_bits: dict[int, int] = Field(default_factory=dict)
    lds_writes_by_bits: dict[int, int] = Field(default_factory=dict)
    lds_read2_insts: int = 0
    lds_write2_insts: int = 0
    ds_bpermute_insts: int = 0
    scratch_loads: int = 0
    scratch_stores: int = 0
    waitcnt_insts: int = 0
    waitcnt_vmcnt: int = 0
    waitcnt_lgkmcnt: int = 0
    total_instructions: int = 0

    @property
    def global_loads(self) -> int:
        return sum(self.global_loads_by_bits.values())

    def narrow_global_loads(self, below_bits: int = 128) -> int:
        """Static global loads narrower than ``below_bits`` bits per lane."""
        return sum(n for bits, n in self.global_loads_by_bits.items() if bits < below_bits)

    def base(self) -> IsaFacts:
        """The vendor-neutral part (what ``KernelEvidence.isa`` holds)."""
        return IsaFacts.model_validate(self.model_dump(include=set(IsaFacts.model_fields)))


class _Body:
    """Instructions and comment facts collected for one function while scanning."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.lines: list[tuple[str, str, str]] = []  # (mnemonic, operands, comment)
        self.info: dict[str, int] = {}
        self.amdhsa: dict[str, int] = {}


def _split_comment(line: str) -> tuple[str, str]:
    for marker in (";", "//"):
        idx = line.find(marker)
        if idx >= 0:
            return line[:idx], line[idx + len(marker) :]
    return line, ""


def _scan(text: str) -> tuple[dict[str, _Body], list[dict[str, object]], str | None]:
    """One pass over the text: function bodies, metadata kernels, target arch."""
    declared = {m.group(1) for m in map(_TYPE_FUNC_RE.match, text.splitlines()) if m}
    bodies: dict[str, _Body] = {}
    metadata: list[dict[str, object]] = []
    arch: str | None = None
    current: _Body | None = None
    last: _Body | None = None
    amdhsa_for: _Body | None = None
    meta_lines: list[str] | None = None
    for raw in text.splitlines():
        stripped = raw.strip()
        if meta_lines is not None:
            if stripped.startswith(".end_amdgpu_metadata"):
                metadata.extend(_parse_metadata("\n".join(meta_lines)))
                meta_lines = None
            else:
                meta_lines.append(raw)
            continue
        if stripped.startswith(".amdgpu_metadata"):
            meta_lines = []
            current = None
            continue
        if arch is None:
            m = re.search(r"amdgcn-amd-amdhsa--(gfx[0-9a-f]+)", stripped)
            if m:
                arch = m.group(1)
        objdump = _OBJDUMP_FUNC_RE.match(stripped)
        if objdump:
            current = bodies.setdefault(objdump.group(1), _Body(objdump.group(1)))
            last = current
            continue
        label = _LABEL_RE.match(stripped)
        if label and not raw[:1].isspace():
            name = label.group(1)
            if name in declared:
                current = bodies.setdefault(name, _Body(name))
                last = current
                continue
            if name.startswith(".Lfunc_end"):
                current = None
            continue
        if stripped.startswith(".amdhsa_kernel"):
            parts = stripped.split()
            amdhsa_for = bodies.setdefault(parts[1], _Body(parts[1])) if len(parts) > 1 else None
            current = None
            continue
        if stripped.startswith(".end_amdhsa_kernel"):
            amdhsa_for = None
            continue
        if amdhsa_for is not None:
            d = _AMDHSA_DIRECTIVE_RE.match(stripped)
            if d:
                amdhsa_for.amdhsa[d.group(1)] = int(d.group(2))
            continue
        if stripped.startswith((".section", ".size")):
            current = None
            continue
        info = _KERNEL_INFO_RE.match(stripped)
        if info and last is not None:
            last.info.setdefault(info.group(1), int(info.group(2)))
            continue
        if current is None or not stripped or stripped.startswith((";", ".", "//")):
            continue
        code, comment = _split_comment(stripped)
        parts = code.split(None, 1)
        if not parts or not _MNEMONIC_RE.match(parts[0]):
            continue
        current.lines.append((parts[0], parts[1] if len(parts) > 1 else "", comment))
    return bodies, metadata, arch


def _parse_metadata(block: str) -> list[dict[str, object]]:
    try:
        doc = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        raise ValueError(f"unreadable .amdgpu_metadata block ({exc})") from None
    if not isinstance(doc, dict):
        return []
    kernels = doc.get("amdhsa.kernels") or []
    out = [k for k in kernels if isinstance(k, dict)]
    target = doc.get("amdhsa.target")
    for k in out:
        k.setdefault("_target", target)
    return out


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


class _Counts:
    """Static instruction counts of one kernel body, by kind and width (bits per lane)."""

    def __init__(self) -> None:
        self.ops: Counter[str] = Counter()
        self.global_loads: Counter[int] = Counter()
        self.global_stores: Counter[int] = Counter()
        self.lds_reads: Counter[int] = Counter()
        self.lds_writes: Counter[int] = Counter()
        self.read2 = self.write2 = self.bpermute = 0
        self.scratch_loads = self.scratch_stores = self.spills = 0
        self.waits = self.wait_vm = self.wait_lgkm = self.matrix = 0

    def add(self, mnemonic: str, operands: str, comment: str) -> None:
        """Count one instruction (its mnemonic, operands and trailing comment)."""
        self.ops[mnemonic] += 1
        g = _GLOBAL_RE.match(mnemonic)
        if g and "atomic" not in mnemonic:
            bits = _width_bits(g.group(2))
            if bits is not None:
                (self.global_loads if g.group(1) == "load" else self.global_stores)[bits] += 1
        elif d := _LDS_RE.match(mnemonic):
            self._lds(d)
        elif mnemonic in ("ds_bpermute_b32", "ds_permute_b32"):
            self.bpermute += 1
        elif s := _SCRATCH_RE.match(mnemonic):
            if s.group(1) == "load":
                self.scratch_loads += 1
            else:
                self.scratch_stores += 1
            self.spills += bool(_SPILL_COMMENT_RE.search(comment))
        elif mnemonic.startswith("buffer_") and _SPILL_COMMENT_RE.search(comment):
            self.spills += 1  # pre-gfx940 spills go through buffer_store/load to the scratch buffer
        elif _MATRIX_RE.match(mnemonic):
            self.matrix += 1
        elif _WAIT_RE.match(mnemonic):
            self.waits += 1
            self.wait_vm += "vmcnt" in operands or "loadcnt" in mnemonic or "vmcnt" in mnemonic
            self.wait_lgkm += "lgkmcnt" in operands or "dscnt" in mnemonic or "lgkmcnt" in mnemonic

    def _lds(self, d: re.Match[str]) -> None:
        bits = _width_bits(d.group(3))
        is_read = d.group(1) in ("read", "load")
        if d.group(2):
            self.read2 += is_read
            self.write2 += not is_read
            bits = bits * 2 if bits is not None else None
        if bits is not None:
            (self.lds_reads if is_read else self.lds_writes)[bits] += 1

    def fields(self) -> dict[str, Any]:
        """The :class:`AmdIsaFacts` fields these counts give."""
        loads = sorted(self.global_loads)
        return {
            "instruction_counts": dict(sorted(self.ops.items(), key=lambda kv: (-kv[1], kv[0]))),
            "global_load_bits": loads[-1] if loads else None,
            "global_load_bits_min": loads[0] if loads else None,
            "spill_ops": self.spills,
            "tensor_instructions": self.matrix,
            "global_loads_by_bits": dict(sorted(self.global_loads.items())),
            "global_stores_by_bits": dict(sorted(self.global_stores.items())),
            "lds_reads_by_bits": dict(sorted(self.lds_reads.items())),
            "lds_writes_by_bits": dict(sorted(self.lds_writes.items())),
            "lds_read2_insts": self.read2,
            "lds_write2_insts": self.write2,
            "ds_bpermute_insts": self.bpermute,
            "scratch_loads": self.scratch_loads,
            "scratch_stores": self.scratch_stores,
            "waitcnt_insts": self.waits,
            "waitcnt_vmcnt": self.wait_vm,
            "waitcnt_lgkmcnt": self.wait_lgkm,
            "total_instructions": sum(self.ops.values()),
        }


def _resources(meta: dict[str, object], body: _Body | None, arch: str | None) -> dict[str, Any]:
    """The :class:`AmdIsaFacts` fields of the resource report: metadata first, then directives and comments."""
    info = body.info if body else {}
    amdhsa = body.amdhsa if body else {}
    total_vgprs = _int(meta.get(".vgpr_count"))
    if total_vgprs is None:
        total_vgprs = info.get("TotalNumVgprs", amdhsa.get("next_free_vgpr"))
    vgpr_spill = _int(meta.get(".vgpr_spill_count"))
    sgpr_spill = _int(meta.get(".sgpr_spill_count"))
    scratch = _int(meta.get(".private_segment_fixed_size"))
    if scratch is None:
        scratch = amdhsa.get("private_segment_fixed_size", info.get("ScratchSize"))
    lds = _int(meta.get(".group_segment_fixed_size"))
    if lds is None:
        lds = amdhsa.get("group_segment_fixed_size", info.get("LDSByteSize"))
    target = meta.get("_target")
    if isinstance(target, str):
        m = re.search(r"(gfx[0-9a-f]+)", target)
        arch = m.group(1) if m else arch
    return {
        "arch": arch,
        "registers_per_thread": total_vgprs,
        "sgprs": _int(meta.get(".sgpr_count")) if meta.get(".sgpr_count") is not None else info.get("TotalNumSgprs"),
        "spilled_registers": None
        if vgpr_spill is None and sgpr_spill is None
        else (vgpr_spill or 0) + (sgpr_spill or 0),
        "scratch_bytes": scratch,
        "arch_vgprs": info.get("NumVgprs"),
        "agprs": _int(meta.get(".agpr_count")) if meta.get(".agpr_count") is not None else info.get("NumAgprs"),
        "vgpr_spill_count": vgpr_spill,
        "sgpr_spill_count": sgpr_spill,
        "lds_bytes": lds,
        "occupancy_waves_per_simd": info.get("Occupancy"),
        "max_workgroup_size": _int(meta.get(".max_flat_workgroup_size")),
        "wavefront_size": _int(meta.get(".wavefront_size")),
    }


def _facts(name: str, body: _Body | None, meta: dict[str, object] | None, arch: str | None, source: str) -> AmdIsaFacts:
    counts = _Counts()
    for mnemonic, operands, comment in body.lines if body else []:
        counts.add(mnemonic, operands, comment)
    return AmdIsaFacts(kernel=name, source=source, **counts.fields(), **_resources(meta or {}, body, arch))


def looks_like_amdgcn(text: str) -> bool:
    """True when ``text`` is AMDGCN assembly (a cheap sniff for path dispatch; reads the first 64 KiB)."""
    head = text[:65536]
    return bool(
        re.search(r"amdgcn-amd-amdhsa|\.amdhsa_kernel|\.amdgpu_metadata|amdhsa\.kernels", head)
        or re.search(r"^\s+s_endpgm\b", head, re.M)
    )


def analyze(text: str, source: str) -> dict[str, AmdIsaFacts]:
    """Facts of every kernel in ``text``, keyed by kernel symbol (no ``.kd``), in file order.

    Kernels are the entries of the ``.amdgpu_metadata`` blocks when there are any (device functions
    that are not kernels are left out); otherwise the functions with an ``.amdhsa_kernel`` descriptor;
    otherwise (disassembly) every function found.

    Args:
        text: the assembly text.
        source: where it came from (file name), recorded in each fact's ``source``.

    A concatenation of several compiler outputs (``profiles/v<N>/kernel.s``) is split at each
    ``.amdgcn_target`` line; a kernel name seen twice gets a ``#2`` suffix.

    Raises:
        InputFileError: the text holds no AMDGCN kernel, was cut off (compiler output without the end
            of its metadata block), or its metadata block is not valid YAML.
    """
    out: dict[str, AmdIsaFacts] = {}
    for segment in _modules(text):
        try:
            found = _analyze_module(segment, source)
        except ValueError as exc:
            raise InputFileError(
                source,
                str(exc),
                hint="copy the assembly again (Triton's cache: ~/.triton/cache/<hash>/<kernel>.amdgcn)",
            ) from None
        for name, facts in found.items():
            key = name
            n = 2
            while key in out:  # the same kernel compiled twice (two Triton specializations)
                key = f"{name}#{n}"
                n += 1
            out[key] = facts
    if not out:
        raise InputFileError(source, "no AMDGCN kernel found (expected .amdgcn / .s assembly or llvm-objdump output)")
    return out


def _modules(text: str) -> list[str]:
    """Split a concatenation of compiler outputs into modules (each starts with ``.amdgcn_target``)."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.lstrip().startswith(".amdgcn_target")]
    if len(starts) <= 1:
        return [text]
    starts[0] = 0
    return ["".join(lines[a:b]) for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]


_TARGET_LINE = re.compile(r"^\s*\.amdgcn_target\b", re.M)


def _check_complete(text: str) -> None:
    """Compiler output (``.amdgcn_target``) ends with its ``.amdgpu_metadata`` block (LLVM prints it
    last, for code object v3 and later); a file without the block's end was cut off.

    Raises:
        ValueError: the metadata block is missing or unterminated.
    """
    if ".amdgpu_metadata" in text and ".end_amdgpu_metadata" not in text:
        raise ValueError("truncated: the .amdgpu_metadata block has no .end_amdgpu_metadata (the file was cut off)")
    if _TARGET_LINE.search(text) and ".amdgpu_metadata" not in text:
        raise ValueError(
            "truncated: compiler output without its .amdgpu_metadata block, which LLVM prints at the end of "
            "the file (the file was cut off)"
        )


def _analyze_module(text: str, source: str) -> dict[str, AmdIsaFacts]:
    _check_complete(text)
    bodies, metadata, arch = _scan(text)
    out: dict[str, AmdIsaFacts] = {}
    if metadata:
        for meta in metadata:
            raw = meta.get(".name") or meta.get(".symbol")
            if not isinstance(raw, str):
                continue
            name = normalize_kernel_name(raw)
            out[name] = _facts(name, bodies.get(name), meta, arch, source)
    else:
        kernels = [b for b in bodies.values() if b.amdhsa] or [b for b in bodies.values() if b.lines]
        for body in kernels:
            name = normalize_kernel_name(body.name)
            out[name] = _facts(name, body, None, arch, source)
    return out
