"""Serve the last profile again when Stage 1 would profile the very same kernel.

The loop profiles the current ``kernel.py`` at the start of every iteration. Right after the baseline
(V1 profiles what V0's baseline profile just measured) and after every revert (the kernel is the last good
version, profiled at the previous iteration) that is the same file on the same GPU with the same
profiler settings: on the H200 (2026-11-29, docs/results.md) each such ncu run cost about 15 s of a
40-45 s iteration, 3 of matmul's 9 iterations and 3 of layernorm's 4.

Each profile folder the loop fills gets a stamp, ``profiles/v<N>/kernel_stamp.json``: the SHA-256 of
``kernel.py``, ``reference.py`` and every other source file of the workspace (a plan may change an
auxiliary source such as ``helpers.cu`` and leave ``kernel.py`` alone), the profiler settings that matter
(``fast``), the GPU and driver, and the Triton and torch versions that compile the kernel. When the
newest stamped profile matches the kernel now, its files are copied into ``profiles/v<N>/`` (so
plans cite artifacts of their own version, as validation asks) and its summary is rewritten for
``v<N>`` with a note naming the profile it came from. Anything that differs, or a stamp that cannot be
read, means profiling again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from kernelopt.errors import RecordError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.evidence.summary import SUMMARY_JSON, SummaryError, read_summary, write_summary
from kernelopt.fileio import atomic_write_text
from kernelopt.workspace import Workspace

STAMP = "kernel_stamp.json"
#: Files the kernel may be built from: Stage 3 may edit any such file a plan names besides ``kernel.py``
#: (the auxiliary sources of :func:`kernelopt.stages.allowance.aux_files_of`).
SOURCE_SUFFIXES = (".py", ".cu", ".cuh", ".h", ".hpp", ".c", ".cc", ".cpp", ".hip")
#: Folders holding records, history or caches, never the kernel's sources.
_NOT_SOURCE_DIRS = frozenset({"memory", "plans", "profiles", ".git", ".kernelopt", "__pycache__", ".triton_cache"})


def _sources(root: Path) -> list[str]:
    """Workspace-relative paths of the source files under ``root`` (record and cache folders skipped)."""
    out: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _NOT_SOURCE_DIRS)
        rel = Path(folder).relative_to(root)
        out += [(rel / f).as_posix() for f in files if f.endswith(SOURCE_SUFFIXES)]
    return sorted(out)


def source_digests(root: Path) -> dict[str, str]:
    """The SHA-256 of each file the kernel is built and checked from: ``kernel.py``, ``reference.py`` and every other
    source file under ``root`` (a plan may change ``helpers.cu`` or a helper module and leave ``kernel.py`` alone).
    Two readings of one kernel are interchangeable only where these are equal (a profile; the net's verdict of an
    agent's rewrite, :class:`kernelopt.loop.wiring.HarnessGate`)."""
    names = dict.fromkeys(["kernel.py", "reference.py", *_sources(root)])
    return digests_of({name: (root / name).read_bytes() for name in names if (root / name).is_file()})


def committed_sources(workspace: Workspace, ref: str) -> dict[str, bytes]:
    """The bytes of each source file commit ``ref`` holds, by the rule :func:`source_digests` reads the folder by
    (``kernel.py``, ``reference.py`` and every other source outside the record and cache folders).

    Raises:
        GitError: ``ref`` is not a commit.
    """
    names = [
        n
        for n in workspace.paths_at(ref)
        if n.endswith(SOURCE_SUFFIXES) and not _NOT_SOURCE_DIRS & set(n.split("/")[:-1])
    ]
    return {name: workspace.bytes_at(ref, name) for name in names}


def digests_of(sources: dict[str, bytes]) -> dict[str, str]:
    """The SHA-256 of each of ``sources``' bytes, as :func:`source_digests` reads a folder's."""
    return {name: hashlib.sha256(data).hexdigest() for name, data in sources.items()}


def kernel_stamp(workspace: Workspace, *, fast: bool, gpu: str | None) -> dict[str, object]:
    """What makes two profiles interchangeable: the kernel, reference and other source files, the metric
    set, the GPU."""
    return {"sha256": source_digests(workspace.root), "fast": fast, "gpu": gpu, "tools": _tool_versions()}


def _tool_versions() -> dict[str, str | None]:
    """Versions of the packages that compile the kernel (a new Triton or torch can change its SASS)."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for name in ("triton", "torch"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def _masked(workspace: Workspace, version: int) -> bool:
    """True when version ``version`` has a masked memory record (unreadable counts as masked: not trusted)."""
    if not workspace.memory.exists(version):
        return False
    try:
        return workspace.memory.read(version).masked
    except RecordError:  # a record that cannot be read is not trusted either
        return True


def write_stamp(workspace: Workspace, version: int, *, fast: bool, gpu: str | None) -> None:
    """Stamp ``profiles/v<version>/`` with the kernel it profiled (call after profiling it)."""
    folder = workspace.profile_dir(version)
    if folder.is_dir():
        text = json.dumps(kernel_stamp(workspace, fast=fast, gpu=gpu), indent=2, sort_keys=True) + "\n"
        atomic_write_text(folder / STAMP, text)


def reuse_unchanged(workspace: Workspace, version: int, *, fast: bool, gpu: str | None) -> ProfileSummary | None:
    """The newest earlier profile of this very kernel, copied into ``profiles/v<version>/``; else ``None``.

    Args:
        workspace: the workspace.
        version: the version about to be profiled.
        fast: the metric set about to be used (a full profile is not replaced by a fast one, or back).
        gpu: the GPU about to be profiled (its product name); ``None`` (unknown) never reuses.

    Returns:
        The summary now in ``profiles/v<version>/summary.json``, with ``version`` set and a note
        naming the profile it came from; ``None`` when no earlier profile matches or
        ``profiles/v<version>/`` already holds files (copying into it would mix two profiles).
    """
    if gpu is None or version <= 0:
        return None
    target = workspace.profile_dir(version)
    if target.is_dir() and any(target.iterdir()):
        return None  # never mixed into files already there: the profiler refuses such a folder (staging)
    want = kernel_stamp(workspace, fast=fast, gpu=gpu)
    for m in range(version - 1, -1, -1):
        source = workspace.profile_dir(m)
        try:
            stamp = json.loads((source / STAMP).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if stamp != want or _masked(workspace, m):
            continue  # a masked version's profile is not active data (DESIGN: masked records)
        try:
            summary = read_summary(source / SUMMARY_JSON)
        except (SummaryError, OSError):
            return None
        if not summary.counters_available:
            return None  # a timing-only profile is retried: the counters may be readable now
        return _copy(workspace, source, m, version, summary)
    return None


def _copy(workspace: Workspace, source: Path, m: int, version: int, summary: ProfileSummary) -> ProfileSummary:
    target = workspace.profile_dir(version)
    target.mkdir(parents=True, exist_ok=True)
    for item in source.iterdir():
        if item.name == STAMP or item.name.startswith("summary."):  # summary.json/.txt are rewritten below
            continue
        dest = target / item.name
        if item.is_dir():
            shutil.copytree(item, dest, dirs_exist_ok=True)
        else:
            shutil.copy2(item, dest)
    reused = summary.model_copy(deep=True)
    reused.version = f"v{version}"
    reused.notes = [*summary.notes, reuse_note(m)]
    write_summary(target, reused)
    shutil.copy2(source / STAMP, target / STAMP)
    return reused


_REUSED = "reused profiles/v"


def reuse_note(m: int) -> str:
    """The note a reused summary carries, naming the version whose profile it is."""
    return (
        f"{_REUSED}{m}/: kernel.py, reference.py and the other sources are byte-identical to what it profiled, "
        "on the same GPU with the same metric set, so Stage 1 did not run the profiler again"
    )


def reused_from(workspace: Workspace, version: int) -> int | None:
    """The version whose profile ``profiles/v<version>/`` is a copy of (:func:`reuse_note`), else ``None``
    (profiled for this version, or no readable summary)."""
    try:
        summary = read_summary(workspace.profile_dir(version) / SUMMARY_JSON)
    except (SummaryError, OSError):
        return None
    for note in reversed(summary.notes):  # a copy of a copy carries both notes: the last is its own
        if note.startswith(_REUSED):
            head = note[len(_REUSED) :].split("/", 1)[0]
            return int(head) if head.isdigit() else None
    return None
