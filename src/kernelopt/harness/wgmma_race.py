"""A loop's asynchronous wgmma reading a shared tile its copies refill while it runs, read from a compile's TTGIR.

On Hopper (sm_90) Triton lowers a ``tl.dot`` on four warps or more to ``wgmma``, asynchronous: a pipelined loop
issues it, waits only until ``pendings`` of them are left in flight, and goes on. Its K loop's loads are copied
(``cp.async``) ``num_stages - 1`` iterations ahead into a ring of shared slots; with ``num_stages`` slots the copy
lands in a slot no wgmma in flight reads. Triton 3.6 gives a ring ``num_stages - 1`` slots where one loaded tile
feeds both a dot's register operand and its shared one (fla's ``chunk_scaled_dot_kkt``: ``tl.dot(b_k *
b_beta[:, None], tl.trans(b_k))``): the copy of iteration ``i + num_stages - 1`` then lands in the slot the wgmmas of
iteration ``i`` are still reading. A write-after-read race on shared memory: whether a wgmma reads the old tile or the
new one is timing, so a few elements of some blocks are wrong (kkt18 on the H100, 2026-12-06: 75162 of 67108864 at
B=4, T=16384; docs/faults.md kkt18), at whatever size.

:func:`racing_tiles` reads it from the TTGIR the compile for the target leaves (``asm["ttgir"]``): a
``ttg.local_alloc`` ring of fewer slots than the launch's ``num_stages`` that a ``ttg.async_copy_global_to_local``
writes and an asynchronous ``ttng.warp_group_dot`` reads (through ``memdesc_index`` / ``memdesc_trans`` /
``memdesc_subslice``), in a loop whose ``ttng.warp_group_dot_wait`` leaves some in flight (``pendings`` above 0).
A loop that sets its own depth (``tl.range(0, K, BLOCK_K, num_stages=2)``: ``{tt.num_stages = 2 : i32}`` on its
``scf.for``) is pipelined to it, not the launch's: its ring of 2 slots, its copies one iteration ahead, is a proper
pipeline whatever the launch's ``num_stages`` (break18 b20: read as racing under a launch of 4, a correct kernel's
every pick refused).
"""

from __future__ import annotations

import re

_ALLOC = re.compile(r"^\s*(%[\w.]+) = ttg\.local_alloc\s*:\s*\(\)\s*->\s*!ttg\.memdesc<(\d+)x")
_VIEW = re.compile(r"^\s*(%[\w.]+) = ttg\.memdesc_(?:index|trans|subslice|reshape) (%[\w.]+)")
_COPY = re.compile(r"ttg\.async_copy_global_to_local %[\w.#]+, (%[\w.]+)")
_DOT = re.compile(r"ttng\.warp_group_dot (%[\w.#]+), (%[\w.#]+),[^{]*\{[^}]*isAsync = true")
_IN_FLIGHT = re.compile(r"ttng\.warp_group_dot_wait .*\{pendings = ([1-9]\d*)")
_LOOP_STAGES = re.compile(r"^\s*\}\s*\{[^}]*\btt\.num_stages = (\d+)")
_LOC = re.compile(r"\s*loc\([^()]*\)\s*$")


def racing_tiles(ttgir: str, num_stages: int) -> list[int]:
    """The slots of each ring of shared tiles in ``ttgir`` that an asynchronous wgmma of a loop reads while the loop's
    copies refill it: a ring of fewer than ``num_stages`` slots (see the module docstring), ``[]`` where none races
    (no wgmma in flight, rings of ``num_stages`` slots, or no copy into the ring a wgmma reads)."""
    if not _IN_FLIGHT.search(ttgir):
        return []
    slots: dict[str, int] = {}
    parent: dict[str, str] = {}
    copied: set[str] = set()
    looped: dict[str, int] = {}  # a copy in a loop -> the stages of its innermost loop (its own, else the launch's)
    read: set[str] = set()
    regions: list[tuple[bool, list[str]]] = []  # each open region: an scf.for?, the copies in it not yet placed
    for line in ttgir.splitlines():
        if line.lstrip().startswith("}") and regions:  # a region closes
            loop, inner = regions.pop()
            if loop:
                m = _LOOP_STAGES.match(line)
                looped.update(dict.fromkeys(inner, int(m.group(1)) if m else num_stages))
            elif regions:
                regions[-1][1].extend(inner)
        if m := _ALLOC.match(line):
            slots[m.group(1)] = int(m.group(2))
        elif m := _VIEW.match(line):
            parent[m.group(1)] = m.group(2)
        if m := _COPY.search(line):
            copied.add(m.group(1))
            if regions:
                regions[-1][1].append(m.group(1))
        if m := _DOT.search(line):
            read.update(m.groups())
        if _LOC.sub("", line).endswith("{"):
            regions.append(("scf.for" in line, []))

    def ring(name: str) -> str | None:
        name = name.split("#")[0]
        for _ in range(64):  # views of views; never a cycle in SSA
            if name in slots:
                return name
            if name not in parent:
                return None
            name = parent[name]
        return None

    refills: dict[str, list[int]] = {}  # each ring a loop's copies write -> those loops' stages
    for name, depth in looped.items():
        if (r := ring(name)) is not None:
            refills.setdefault(r, []).append(depth)
    # a ring no loop refills (its copies all before the loop): the launch's stages, as any copy's
    stages = {r: max(refills.get(r, [num_stages])) for r in map(ring, copied) if r is not None}
    racing = {r for r in map(ring, read) if r is not None and r in stages and slots[r] < stages[r]}
    return sorted(slots[r] for r in racing)
