"""SASS (NVIDIA machine code) facts: load/store widths, tensor instructions, spills, instruction counts.

Reads the three textual forms kernelopt meets: ``cuobjdump -sass`` listings (``/*0080*/  LDG.E.128 R4,
desc[UR4][R2.64] ;``), Triton's reformatted SASS (``--:-:2:-:4<TAB>LDG.E R23, [R8.64];``) and the single
instructions Nsight Compute stores per address (``@P0 EXIT``). These are the facts README ISA targets
are checked against (e.g. ``LDG.E.128 >= 4``, ``spill_ops == 0``, ``HGMMA > 0``). Pure: no I/O.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from kernelopt.evidence.model import IsaFacts

_CUOBJDUMP = re.compile(r"^\s*/\*(?P<addr>[0-9a-fA-F]{4,})\*/\s+(?P<ins>[^;]*);")
_TRITON = re.compile(r"^\s*[-\d]{2}:[-\d]:[-\d]:[-Y]:[0-9a-f]\s+(?P<ins>[^;]*);?")
_FUNCTION = re.compile(r"^\s*(?:Function\s*:\s*|Function:)(?P<name>\S+)")
_PREDICATE = re.compile(r"^@!?U?P[T\d]+\s+")

GLOBAL_LOADS = ("LDG", "LDGSTS", "LDGDEPBAR")
GLOBAL_STORES = ("STG",)
LOCAL_MEMORY = ("LDL", "STL")
SHARED_MEMORY = ("LDS", "STS", "LDSM", "STSM")
TENSOR_FAMILIES = ("HMMA", "HGMMA", "IMMA", "IGMMA", "QGMMA", "BGMMA", "DMMA", "OMMA", "QMMA")
_WIDTH_TOKENS = {"8": 8, "U8": 8, "S8": 8, "16": 16, "U16": 16, "S16": 16, "32": 32, "64": 64, "128": 128}


@dataclass(frozen=True)
class SassInstruction:
    """One SASS instruction.

    Attributes:
        address: offset within the function (bytes), when the listing gives it.
        opcode: the opcode with its modifiers (``LDG.E.128.CONSTANT``).
        operands: the operand text.
        predicate: the guard predicate (``@P0``), when there is one.
    """

    address: int | None
    opcode: str
    operands: str
    predicate: str | None = None

    @property
    def family(self) -> str:
        """The opcode without modifiers (``LDG``)."""
        return self.opcode.split(".", 1)[0]


def parse_instruction(text: str, address: int | None = None) -> SassInstruction | None:
    """Parse one instruction (``@P0 LDG.E.128 R4, [R2.64]``); ``None`` for empty text or a label."""
    t = text.strip().rstrip(";").strip()
    if not t or t.endswith(":"):
        return None
    predicate = None
    m = _PREDICATE.match(t)
    if m:
        predicate = m.group(0).strip()
        t = t[m.end() :]
    parts = t.split(None, 1)
    if not parts or not re.match(r"^[A-Z][A-Z0-9_]*(\.[A-Za-z0-9_]+)*$", parts[0]):
        return None
    return SassInstruction(
        address=address, opcode=parts[0], operands=parts[1] if len(parts) > 1 else "", predicate=predicate
    )


def parse_listing(text: str) -> dict[str, list[SassInstruction]]:
    """Parse a SASS listing into instructions per function (``""`` when the listing names none).

    Accepts ``cuobjdump -sass`` output and Triton's reformatted SASS (``CompiledKernel.asm["sass"]``).
    """
    out: dict[str, list[SassInstruction]] = {}
    current = ""
    index = 0
    for line in text.splitlines():
        fm = _FUNCTION.match(line)
        if fm:
            current = fm.group("name")
            out.setdefault(current, [])
            index = 0
            continue
        cm = _CUOBJDUMP.match(line)
        if cm:
            ins = parse_instruction(cm.group("ins"), int(cm.group("addr"), 16))
        else:
            tm = _TRITON.match(line)
            ins = parse_instruction(tm.group("ins"), index * 16) if tm else None
        if ins is not None:
            out.setdefault(current, []).append(ins)
            index += 1
    return out


def access_bits(ins: SassInstruction) -> int:
    """Bits moved per thread by a load/store (``LDG.E.128`` -> 128; no size modifier -> 32)."""
    for token in ins.opcode.split(".")[1:]:
        if token in _WIDTH_TOKENS:
            return _WIDTH_TOKENS[token]
    return 32


def is_tensor(ins: SassInstruction) -> bool:
    """Tensor-core (matrix) instruction: HMMA/HGMMA/IMMA/QGMMA/... and Blackwell's ``UTC*MMA``."""
    fam = ins.family
    return fam in TENSOR_FAMILIES or (fam.startswith("UTC") and "MMA" in fam)


def isa_facts(
    instructions: Iterable[SassInstruction],
    *,
    source: str,
    registers_per_thread: int | None = None,
    spilled_registers: int | None = None,
) -> IsaFacts:
    """Summarize instructions into :class:`~kernelopt.evidence.model.IsaFacts`.

    ``instruction_counts`` holds the static count of every opcode family (``LDG``) and of every full
    opcode with modifiers that differs from its family (``LDG.E.128``).
    """
    counts: Counter[str] = Counter()
    load_bits: list[int] = []
    spills = 0
    tensor = 0
    n = 0
    for ins in instructions:
        n += 1
        counts[ins.family] += 1
        if ins.opcode != ins.family:
            counts[ins.opcode] += 1
        if ins.family in ("LDG", "LDGSTS"):
            load_bits.append(access_bits(ins))
        if ins.family in LOCAL_MEMORY:
            spills += 1
        if is_tensor(ins):
            tensor += 1
    return IsaFacts(
        instruction_counts=dict(sorted(counts.items())),
        global_load_bits=max(load_bits) if load_bits else None,
        global_load_bits_min=min(load_bits) if load_bits else None,
        spill_ops=spills if n else None,
        tensor_instructions=tensor if n else None,
        registers_per_thread=registers_per_thread,
        spilled_registers=spilled_registers,
        source=source,
    )
