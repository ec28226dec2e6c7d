"""The best-kernel rule of the loop and what a run leaves in git when it ends.

The rule, in one place:

- **best version**: the unmasked version whose gate passed and that is fastest by the chain of the gates'
  side-by-side verdicts (each version timed beside the best before it; never two gates' medians); V0 until
  something beats it beside it. :func:`kernelopt.memory.model.best_version` computes it; the summary,
  the report and the stop check read the same records.
- **the gate compares with the best version so far**, not only with the previous one
  (:func:`gate_previous`). A "no significant change" pass is judged against the fastest kernel seen,
  so a chain of such passes cannot walk the kernel slower step by step.
- **the run ends on the best kernel** (:func:`end_on_best`): when the last passing version is not the
  best one, ``kernel.py`` is put back to the best version's (from its commit) and committed as
  ``end of run: kernel.py = V<B> ...``. That commit's subject starts with ``end of run`` (never ``V<N>:``),
  so every version keeps exactly one ``V<N>:`` commit.
- **profiles are committed or ignored**: the small files of ``profiles/v<N>/`` (``*.json``, ``*.txt``)
  go into the version's commit; the workspace ``.gitignore`` keeps every other profiler output (``.ncu-rep``,
  ATT/PMC folders, SASS listings, logs) out of git. :func:`profile_paths` names what a commit takes;
  :func:`end_on_best` commits any left over (a version that stopped before its own commit), so
  ``git status`` is clean after a run. A version that ended with no plan on a profile copied from an
  earlier version, or on the CPU's timing-only evidence read from an earlier record (:func:`drop_repeated_profile`),
  leaves nothing: running the loop again on a converged
  workspace adds no commit and no folder.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from kernelopt.digits import sig
from kernelopt.errors import GitError
from kernelopt.evidence.summary import SUMMARY_JSON, SummaryError, read_summary
from kernelopt.fileio import atomic_write_bytes
from kernelopt.memory.model import IterationRecord, best_version, speedup_over_v0
from kernelopt.profiling.reuse import reused_from
from kernelopt.report.headline import speedup_words
from kernelopt.stages.allowance import transcripts
from kernelopt.workspace import Workspace, version_commit

END_PREFIX = "end of run"


def gate_previous(records: list[IterationRecord], version: int, last_good: int | None) -> int | None:
    """The version the gate of ``version`` compares with: the best version below it, else ``last_good``."""
    best = best_version([r for r in records if r.number < version])
    return best.number if best is not None else last_good


def profile_paths(ws: Workspace, version: int) -> list[str]:
    """``profiles/v<N>`` when it exists (``git add`` takes its files that ``.gitignore`` lets through)."""
    folder = ws.profile_dir(version)
    return [str(folder.relative_to(ws.root))] if folder.is_dir() else []


def drop_repeated_profile(ws: Workspace, version: int) -> int | None:
    """Remove ``profiles/v<version>/`` when it is an untracked copy of an earlier version's profile, or (on the
    CPU) the timing-only evidence read from an earlier version's record; the version it repeated, else ``None``
    (a profile measured for this version is evidence, and is kept, as is a folder where a backend left its
    transcript of this version's plan: what the planner said is this version's own record)."""
    repeated = reused_from(ws, version)
    if repeated is None:
        repeated = record_timing_of(ws, version)
    folder = ws.profile_dir(version)
    if repeated is None or ws.repo.git.ls_files("--", str(folder.relative_to(ws.root))).strip():
        return None
    if any(any(ws.root.glob(pattern)) for pattern in transcripts(version)):
        return None
    shutil.rmtree(folder)
    return repeated


_RECORD_ARTIFACT = re.compile(r"^memory/v(\d+)\.json$")


def record_timing_of(ws: Workspace, version: int) -> int | None:
    """The version whose record ``profiles/v<version>/`` only repeats, else ``None``: Stage 1 on the CPU measures
    nothing (``loop.wiring.cpu_timing_summary``: the last good version's CPU timing, read from its
    ``memory/v<K>.json``), so a version that ends there with no plan adds no evidence. A rerun of the loop on a
    converged CPU workspace left an ``end of run: profile summaries ...`` commit and a folder each time
    (loopbreak trial, 2026-12-05)."""
    try:
        summary = read_summary(ws.profile_dir(version) / SUMMARY_JSON)
    except (SummaryError, OSError):
        return None
    if summary.counters_available or len(summary.kernels) != 1:
        return None
    found = _RECORD_ARTIFACT.match(summary.kernels[0].artifact or "")
    return int(found.group(1)) if found and int(found.group(1)) < version else None


def _untracked_profiles(ws: Workspace) -> list[str]:
    out = ws.repo.git.ls_files("--others", "--exclude-standard", "--", "profiles")
    return [line for line in out.splitlines() if line.strip()]


def _best_kernel(ws: Workspace, best: IterationRecord) -> bytes | None:
    """kernel.py of ``best``: from its recorded commit, else from its commit in the log, else None (a link whose
    bytes were not kept among them: its path written through the user's link replaced their project's kernel)."""
    found = version_commit(best.number, best.git_commit_hash, ws.log(max_count=1_000_000))
    for ref in (best.git_commit_hash, found[0] if found else None):
        if ref:
            try:
                return ws.kernel_at(ref, best.number)
            except GitError:
                continue
    return None


def _fastest(records: list[IterationRecord], best: IterationRecord) -> str:
    """``the fastest passing version (27160 us)`` for V0; past it, the speedup the best version was chosen by (the
    gates' side-by-side timings chained from V0, :func:`~kernelopt.memory.model.speedup_over_v0`) before its own median,
    which another gate's median may undercut (late46 l160: V1 at 68750 us, 1.71x over V0 timed beside it)."""
    lat = best.performance.latency_us
    over = speedup_over_v0(records, best.number) if best.number else None
    said = [f"{speedup_words(over, 'V0')} by the gates' side-by-side timings"] if over is not None else []
    said += [f"{sig(lat)} us"] if lat is not None else []
    return "the fastest passing version" + (f" ({'; '.join(said)})" if said else "")


def end_on_best(ws: Workspace, records: list[IterationRecord]) -> str | None:
    """Put kernel.py back to the best version's and commit leftover profile summaries; the new commit or None.

    Idempotent: nothing is committed when kernel.py already is the best version's and no profile file is
    untracked. A best version whose commit cannot be found leaves kernel.py alone.
    """
    best = best_version(records)
    paths: list[str | Path] = []
    subject = ""
    text = _best_kernel(ws, best) if best is not None else None
    if best is not None and text is not None:
        current = ws.kernel_py.read_bytes()  # bytes: a kernel.py in another encoding (latin-1) is put back as it was
        if current.rstrip(b"\n") != text.rstrip(b"\n"):
            atomic_write_bytes(ws.kernel_py, text if text.endswith(b"\n") else text + b"\n")
            paths.append("kernel.py")
            subject = f"{END_PREFIX}: kernel.py = {best.version.upper()}, {_fastest(records, best)}"
    leftovers = _untracked_profiles(ws)
    if leftovers:
        paths += ["profiles"]
        subject = subject or f"{END_PREFIX}: profile summaries of versions without a commit of their own"
    if not paths:
        return None
    return ws.commit(paths, subject)
