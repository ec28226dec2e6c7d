"""The candidate kernel of an iteration: kept aside, put back, or replaced by the last good version.

After Stage 3 passes its correctness check, the files it changed (kernel.py and any auxiliary file the
plan names) are copied to ``.kernelopt/candidates/v<N>/`` with their sha256 in the journal. Whenever
the loop stops mid-iteration, ``kernel.py`` goes back to the last good version (the iteration's base
commit); a resumed gate or record stage puts the candidate back, byte for byte, from the copy.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from kernelopt.loop.journal import IterationState
from kernelopt.stages import guard
from kernelopt.workspace import Workspace


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rollback(ws: Workspace, it: IterationState) -> list[guard.Change]:
    """Undo whatever the in-flight stage wrote since its snapshot; each undo, with where its content was kept
    (``str(change)`` is ``path (kind)``)."""
    if not it.snapshot:
        return []
    return guard.enforce(ws, it.snapshot, [], keep_added=False)  # what it added is its own output


def restore_good_kernel(ws: Workspace, it: IterationState) -> None:
    """kernel.py (and the plan's auxiliary files) back to the last good version (the base commit). A link the stage
    began with (the user's linked kernel.py), which git's checkout replaced with a file of the commit's bytes, is put
    back, those bytes written through it: a cancelled ``validate`` left a plain file there, and the next one refused
    it as a link the agent made (late20's z6). Where the base commit holds kernel.py as a link (the loop committed
    the user's link), git's checkout puts the link back and nothing more: the good version's bytes kept at its
    commit (:meth:`Workspace.kernel_at`) are written through it, as the good version ran (leftovers21 l11)."""
    tracked = set(ws.repo.git.ls_files().splitlines())
    paths = ["kernel.py", *it.aux_files]
    in_git = [p for p in paths if p in tracked]
    if in_git:
        ws.reset_hard(in_git, ref=it.base_commit)
    for p in paths:
        if p not in tracked:
            (ws.root / p).unlink(missing_ok=True)
        elif p in it.links and guard.Link.of(ws.root / p) is None and (ws.root / p).is_file():
            guard.restore(ws.root, {p: guard.Link(it.links[p].target, (ws.root / p).read_bytes())})
    if "kernel.py" in in_git:
        _good_bytes_through_link(ws, it)


def _good_bytes_through_link(ws: Workspace, it: IterationState) -> None:
    """Where the base commit holds kernel.py as a link that now leads to a file, the good version's bytes (those it
    led to when that version was committed) written through it; a link whose bytes were not kept (a version committed
    before late21's z10) is left as git put it back."""
    link = guard.Link.of(ws.kernel_py)
    if link is None or link.data is None or it.good_version is None or not ws.is_link_at(it.base_commit, "kernel.py"):
        return
    good = ws.kernel_at(it.base_commit, it.good_version)
    if good is not None and good != link.data:
        guard.restore(ws.root, {"kernel.py": guard.Link(link.target, good)})


def changed_files(ws: Workspace, it: IterationState) -> list[str]:
    """Files changed (added or modified) since the stage's snapshot."""
    return [
        c.path for c in guard.changes(it.snapshot, guard.snapshot(ws.root)) if c.kind is not guard.ChangeKind.DELETED
    ]


def keep(ws: Workspace, folder: Path, it: IterationState) -> None:
    """Copy the files Stage 3 changed into ``folder``; their digests go to ``it.candidate``."""
    shutil.rmtree(folder, ignore_errors=True)
    it.candidate = {}
    for rel in changed_files(ws, it):
        dst = folder / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ws.root / rel, dst)
        it.candidate[rel] = sha256(dst)


def restore(ws: Workspace, folder: Path, it: IterationState) -> bool:
    """Put the candidate files back from ``folder``; False when a copy is missing or altered."""
    for rel, digest in it.candidate.items():
        src = folder / rel
        if not src.is_file() or sha256(src) != digest:
            return False
    for rel, digest in it.candidate.items():
        dst = ws.root / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if not dst.is_file() or sha256(dst) != digest:
            shutil.copyfile(folder / rel, dst)
    return bool(it.candidate)
