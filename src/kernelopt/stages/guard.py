"""The guard around every stage: writes outside the allowance, protected-file content, git state, secrets.

Backends are never trusted (DESIGN.md, "may write" column), and tooling stages are checked the same way.

- Write guard: :func:`snapshot` hashes every file of the workspace except ``.git/``, ``.kernelopt/``
  and backend transcripts; :func:`changes` compares two snapshots; :func:`enforce` reverts every
  change no allowed pattern matches (tracked files from HEAD, new files deleted) and reports them.
  :func:`capture` / :func:`restore` put a failed stage's own files back.
- Protected content (:class:`ProtectedContent`): the bytes of ``reference.py``, ``test_kernel.py`` and
  the task card ``README.md`` recorded at run start (kept under ``.kernelopt/protected/``); a backend
  that changes one has it written back from that recorded content, whatever git says (an agent may
  have committed its change). A user's task-card edit made between iterations is accepted with
  :meth:`ProtectedContent.accept`.
- Git state (:class:`GitState`): HEAD, every ref (branches, tags, stash, ``refs/kernelopt/*``), the
  index and ``.git/config`` recorded before a backend runs; :meth:`GitState.restore`
  undoes commits, new branches, tags, stashes, index and config changes, and lists what it undid.
- Secrets: :func:`files_with_secret` finds changed files that hold a secret value (the API key) or a key.
- What the gate reads back from ``.kernelopt/`` (:func:`gate_state`): each version's compiled code under
  ``build/`` and the chosen sizes (``sizes.json``). A backend that changes them has them removed (the gate builds
  and chooses again from source): a planted build of V0's kernel was what V1's gate timed as V0 (break21 b44).
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from kernelopt.fileio import link_target, made_a_link
from kernelopt.harness.gate import BUILD_FOLDER, CHECK_LABEL
from kernelopt.harness.sizes import SIZES_FILE
from kernelopt.memory.model import PitfallAndFix
from kernelopt.redact import MIN_SECRET_CHARS, Redactor, secret_values
from kernelopt.stagenames import Stage
from kernelopt.stages.allowance import PROTECTED_FILES
from kernelopt.workspace import STATE_DIR, Workspace

IGNORED_DIRS = (".git", ".kernelopt", "__pycache__", ".triton_cache")
# Backend transcripts (``profiles/v<N>/agent_plan.log``, ``llm_implement.log``, ...) are written by the
# backend wrappers after the agent exits, and rewritten on every run: the orchestrator's record of the
# stage, not a change the stage made. Every guard skips them.
TRANSCRIPT_RE = re.compile(r"^profiles/v\d+/(agent|llm)_(plan|implement)\.log$")
PROTECTED_DIR = "protected"


class ChangeKind(StrEnum):
    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"


def snapshot(root: Path) -> dict[str, str]:
    """Map of relative path -> sha256 of every file under ``root`` (ignored folders and backend
    transcripts skipped)."""
    found: list[tuple[str, ...]] = []
    # os.walk never descends into an ignored folder (.git holds most of a workspace's files) nor follows a
    # link to a folder; a file is one os.path.isfile says is (a link to a file included, by its content); a link
    # to a folder and a dangling link are entries of their own, by where they point (a4: an agent's link to a
    # folder outside stayed in the workspace, unseen)
    for folder, dirs, files in os.walk(root):
        base = Path(folder).relative_to(root).parts
        found += [(*base, d) for d in dirs if d not in IGNORED_DIRS and os.path.islink(os.path.join(folder, d))]
        dirs[:] = [d for d in dirs if d not in IGNORED_DIRS]
        found += [(*base, f) for f in files if f not in IGNORED_DIRS]
    out: dict[str, str] = {}
    for parts in sorted(found):  # the order of sorted Paths: part by part
        rel = "/".join(parts)
        if TRANSCRIPT_RE.match(rel):
            continue
        path = root.joinpath(*parts)
        link = Link.of(path)
        if link is not None:  # where it points and what it holds: a file replaced by a link to a copy is a change
            out[rel] = link.digest
        elif path.is_file():
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


BYTECODE_DIR = "__pycache__"


def purge_bytecode(root: Path) -> list[str]:
    """Remove every ``__pycache__`` folder of the workspace (outside ``.git`` and ``.kernelopt``); the folders removed.

    Python runs a module's cached bytecode in place of its source when the cache says it is current, and an
    *unchecked* hash-based ``.pyc`` is run whatever the source holds: a stage that leaves
    ``__pycache__/reference.<tag>.pyc`` has the gate's reference (or kernel) be code no file shows (a2). A cache is
    never a stage's output, so after every stage none is left (the worker writes none: ``PYTHONDONTWRITEBYTECODE``).
    """
    removed = []
    for folder, dirs, _files in os.walk(root):
        for d in [d for d in dirs if d == BYTECODE_DIR]:
            target = Path(folder, d)
            if target.is_symlink():
                target.unlink()
            else:
                shutil.rmtree(target, ignore_errors=True)
            removed.append(target.relative_to(root).as_posix())
        dirs[:] = [d for d in dirs if d not in IGNORED_DIRS]
    return removed


@dataclass(frozen=True)
class Change:
    """A file added, modified or deleted; ``kept``: where the guard kept its content before undoing it."""

    path: str
    kind: ChangeKind
    kept: Path | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.path} ({self.kind.value})"


BACKUPS_DIR = "backups"
"""The folder of ``.kernelopt/`` where a file's content is kept before the guard undoes it (and where a resume keeps
kernel.py's edits, :mod:`kernelopt.loop.resume`)."""


def keep_aside(root: Path, rel: str) -> Path | None:
    """Copy the workspace file ``rel`` to ``.kernelopt/backups/<rel>.<ms>`` before the guard reverts or deletes it;
    the copy's path (``None`` when there is no file of its own to keep: missing, a folder, a symbolic link).

    The guard cannot tell a stage's stray write from a user's edit made while the stage ran: both are undone, and
    both are kept. A user's edit of kernel.py or reference.py during the gate was reverted from git and lost, the
    version blamed on the gate (fault trial faults7, f5).
    """
    src = root / rel
    if src.is_symlink() or not src.is_file():
        return None
    dst = root / STATE_DIR / BACKUPS_DIR / f"{rel}.{time.time_ns() // 1_000_000}"
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    return dst


def changes(before: dict[str, str], after: dict[str, str]) -> list[Change]:
    """Files added, modified or deleted between two snapshots, sorted by path."""
    out = [Change(p, ChangeKind.ADDED) for p in after.keys() - before.keys()]
    out += [Change(p, ChangeKind.DELETED) for p in before.keys() - after.keys()]
    out += [Change(p, ChangeKind.MODIFIED) for p in before.keys() & after.keys() if before[p] != after[p]]
    return sorted(out, key=lambda c: c.path)


def allowed(path: str, patterns: list[str]) -> bool:
    """True when ``path`` matches one of the glob ``patterns`` (``profiles/v3/*``, ``kernel.py``)."""
    return any(fnmatch.fnmatch(path, pat) for pat in patterns)


def enforce(
    ws: Workspace,
    before: dict[str, str],
    patterns: list[str],
    *,
    keep_added: bool = True,
    untracked: Path | None = None,
) -> list[Change]:
    """Revert every change since ``before`` that ``patterns`` do not allow; return those violations.

    Tracked files are restored from HEAD; untracked files that were added are deleted; an untracked
    file that was modified or deleted is put back from ``untracked`` (:func:`copy_untracked`) where it was kept and
    its copy still holds the recorded bytes; one modified whose copy was changed too is removed (kept aside), never left
    as the stage wrote it (late19 z3); else reported all the same (git cannot recover it).
    (Protected files are restored from their recorded content by :class:`ProtectedContent`.)
    What a reverted or deleted file held is kept first (:func:`keep_aside`); with ``keep_added`` False, only what a
    tracked file held (an interrupted stage's rollback: the files it added are its own outputs, a profile report of
    megabytes among them).
    """
    violations = [c for c in changes(before, snapshot(ws.root)) if not allowed(c.path, patterns)]
    if not violations:
        return []
    tracked = set(ws.repo.git.ls_files().splitlines())
    undone = []
    for c in violations:
        target = ws.root / c.path
        copy = _kept_copy(untracked, c.path, before) if c.path not in tracked else None
        forged = c.kind is ChangeKind.MODIFIED and copy is None and _was_kept(untracked, c.path)
        aside = c.path in tracked or (keep_added and c.kind is ChangeKind.ADDED) or forged
        kept = keep_aside(ws.root, c.path) if aside else None
        if c.path in tracked:
            ws.reset_hard([c.path])
        elif c.kind is ChangeKind.ADDED or forged:  # a change no kept copy undoes is not left as the stage wrote it
            target.unlink(missing_ok=True)
        elif copy is not None:
            if target.is_symlink() or target.is_file():
                target.unlink()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(copy, target)
        undone.append(Change(c.path, c.kind, kept))
    return undone


def _kept_copy(untracked: Path | None, rel: str, before: dict[str, str]) -> Path | None:
    """The copy :func:`copy_untracked` kept of ``rel`` where it still holds the bytes the stage's snapshot recorded;
    ``None`` for none, or one changed since. The copy lies under ``.kernelopt/``, which no snapshot reads: a planner
    that wrote its fitted numbers into ``profiles/v1/summary.json`` and into the copy too had them "put back" as the
    measured ones, as a1's copy of reference.py was (late19 z3); the digest is held in the process."""
    copy = untracked / rel if untracked is not None else None
    if copy is None or copy.is_symlink() or not copy.is_file():
        return None
    return copy if hashlib.sha256(copy.read_bytes()).hexdigest() == before.get(rel) else None


def _was_kept(untracked: Path | None, rel: str) -> bool:
    """Whether :func:`copy_untracked` kept a copy of ``rel`` at all (a file past its bytes has none: it is reported
    alone, as before a11), whatever the copy holds now."""
    return untracked is not None and os.path.lexists(untracked / rel)


UNTRACKED_COPY = "untracked-before-stage"
"""The folder of ``.kernelopt/`` that holds a copy of the workspace's untracked files through a backend stage."""
UNTRACKED_COPY_BYTES = 1 << 30
"""The most :func:`copy_untracked` copies in all (a profile's report is megabytes; a file past what is left is only
reported when a stage changes it, as before)."""


def copy_untracked(ws: Workspace, snap: dict[str, str]) -> Path:
    """A copy of each file of ``snap`` git does not track (``.kernelopt/untracked-before-stage/<rel>``): the version's
    profile under ``profiles/v<N>/`` until its record commits it, the plan during Stage 3. A stage that rewrote
    ``profiles/v1/summary.json`` (its numbers to fit its plan) was reported, and the file stayed as it left it: the
    record would commit invented profiler numbers (a11)."""
    tracked = set(ws.repo.git.ls_files().splitlines())
    dst = ws.state_dir / UNTRACKED_COPY
    shutil.rmtree(dst, ignore_errors=True)
    left = UNTRACKED_COPY_BYTES
    for rel in snap:
        src = ws.root / rel
        if rel in tracked or not src.is_file() or src.is_symlink() or src.stat().st_size > left:
            continue
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst / rel)
        left -= src.stat().st_size
    return dst


def _own_bytes(p: Path) -> bytes | None:
    """A workspace file's bytes; ``None`` when it is missing or is a symbolic link (a link an agent made
    points outside: never read or written through)."""
    return p.read_bytes() if p.is_file() and not p.is_symlink() else None


@dataclass(frozen=True)
class Link:
    """A workspace file that is a symbolic link (the user's project's kernel.py, say): where it pointed and the bytes it
    led to (``None``: dangling). :func:`restore` puts it back as the same link, never as a deleted file: a failed Stage
    3 attempt removed a user's linked kernel.py, a link having no bytes of its own (loses20 l1). The guard's one
    reading of a workspace link (:meth:`of`): the snapshot's entry of it (:attr:`digest`), a stage's backup of it
    (:func:`capture`) and where the links pointed as a stage began (:attr:`GuardPoint.links`) are read alike
    (leftovers20's l8; before, each read the link its own way)."""

    target: str
    data: bytes | None

    @classmethod
    def of(cls, path: Path) -> Link | None:
        """The link ``path`` is now; ``None`` where it is no link (a file, a folder, nothing)."""
        target = link_target(path)
        if target is None:
            return None
        return cls(target, path.read_bytes() if path.is_file() else None)

    @property
    def digest(self) -> str:
        """The snapshot's entry of the link: where it points and what it holds (``link:`` and a hash of both)."""
        return "link:" + hashlib.sha256(os.fsencode(self.target) + b"\0" + (self.data or b"")).hexdigest()


Captured = bytes | Link | None
"""One file as :func:`capture` kept it: its bytes, a :class:`Link`, or ``None`` for a missing file."""


def capture(root: Path, paths: list[str]) -> dict[str, Captured]:
    """The content of each of ``paths`` (relative to ``root``) now; ``None`` for a missing file, a
    :class:`Link` for a symbolic link."""
    return {rel: _kept(root / rel) for rel in paths}


def _kept(p: Path) -> Captured:
    link = Link.of(p)
    return link if link is not None else _own_bytes(p)


def restore(root: Path, captured: dict[str, Captured]) -> list[str]:
    """Write back files captured by :func:`capture` (deleting those that did not exist); returns the
    paths that had to be restored. A file an agent replaced with a symbolic link gets its own bytes back in
    place of the link: the file the link points to (outside the workspace, perhaps) is never written. A link
    captured as a :class:`Link` (the user's) is put back as that link, and the bytes it led to written back through
    it where a stage changed them."""
    restored = []
    for rel, content in captured.items():
        p = root / rel
        if isinstance(content, Link):
            if _put_link_back(p, content):
                restored.append(rel)
            continue
        if not p.is_symlink() and _own_bytes(p) == content:
            continue
        if p.is_symlink():
            p.unlink()
        if content is None:
            p.unlink(missing_ok=True)
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(content)
        restored.append(rel)
    return restored


def _put_link_back(p: Path, link: Link) -> bool:
    """``p`` made the link ``link`` again, leading to its bytes; whether anything had to change."""
    changed = False
    if link_target(p) != link.target:
        if p.is_symlink() or p.is_file():
            p.unlink()
        p.parent.mkdir(parents=True, exist_ok=True)
        p.symlink_to(link.target)
        changed = True
    if link.data is not None and (not p.is_file() or p.read_bytes() != link.data):
        p.write_bytes(link.data)
        changed = True
    return changed


def describe(violations: list[Change]) -> str:
    """``reference.py (modified), notes.txt (added)``."""
    return ", ".join(str(c) for c in violations)


# -- protected content ------------------------------------------------------------------------------


def _digest(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


class ProtectedContent:
    """The recorded content of the protected files (``reference.py``, ``test_kernel.py``, ``README.md``).

    The bytes live under ``.kernelopt/protected/`` (untracked), the digests in the caller's journal
    (:attr:`digests`), so that a resumed run checks against the content of the first session.

    Args:
        ws: the workspace.
        digests: digests recorded earlier (a resumed run); ``None`` records the files now.
    """

    def __init__(self, ws: Workspace, digests: dict[str, str | None] | None = None) -> None:
        self.ws = ws
        self.folder = ws.state_dir / PROTECTED_DIR
        #: the recorded bytes, held in this process: the copies under ``.kernelopt/protected/`` lie in the workspace,
        #: where an agent can write them as well as the file (a1: both poisoned, the "restore" wrote the poison back)
        self._bytes: dict[str, bytes | None] = {}
        if digests is None or not self._kept_matches(digests):
            digests = {rel: self._keep(rel) for rel in PROTECTED_FILES}
        self.digests: dict[str, str | None] = dict(digests)

    def _kept_matches(self, digests: dict[str, str | None]) -> bool:
        for rel in PROTECTED_FILES:
            kept = self.folder / rel
            data = kept.read_bytes() if kept.is_file() else None
            if rel not in digests or _digest(data) != digests[rel]:
                return False
            self._bytes[rel] = data
        return True

    def _keep(self, rel: str) -> str | None:
        src = self.ws.root / rel
        dst = self.folder / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        data = src.read_bytes() if src.is_file() else None
        self._bytes[rel] = data
        if data is not None:
            dst.write_bytes(data)
            return _digest(data)
        dst.unlink(missing_ok=True)
        return None

    def changed(self) -> list[str]:
        """Protected files whose content differs from the recorded one."""
        out = []
        for rel in PROTECTED_FILES:
            p = self.ws.root / rel
            if p.is_symlink() or _digest(_own_bytes(p)) != self.digests.get(rel):
                out.append(rel)
        return out

    def restore(self) -> list[Change]:
        """Write every changed protected file back from its recorded content; returns what was undone."""
        undone = []
        for rel in self.changed():
            p = self.ws.root / rel
            recorded = self._bytes[rel]
            linked = p.is_symlink()
            aside = keep_aside(self.ws.root, rel)  # a user's edit made during a stage is kept, never lost
            if linked:  # never written through: the link goes, the recorded file comes back
                p.unlink()
            if recorded is None:
                kind = ChangeKind.ADDED
                p.unlink(missing_ok=True)
            else:
                kind = ChangeKind.MODIFIED if linked or p.is_file() else ChangeKind.DELETED
                p.write_bytes(recorded)
            undone.append(Change(rel, kind, aside))
        self._rewrite_kept()
        return undone

    def _rewrite_kept(self) -> None:
        """Put the copies under ``.kernelopt/protected/`` back from the bytes held here, where a stage changed them
        (a resumed run checks against them)."""
        for rel, data in self._bytes.items():
            kept = self.folder / rel
            if _own_bytes(kept) != data:
                if kept.is_symlink() or data is None:
                    kept.unlink(missing_ok=True)
                if data is not None:
                    kept.parent.mkdir(parents=True, exist_ok=True)
                    kept.write_bytes(data)

    def accept(self, rel: str) -> bool:
        """Record the current content of ``rel`` (a user's edit between iterations); True when it changed."""
        if rel not in self.changed():
            return False
        self.digests[rel] = self._keep(rel)
        return True


# -- git state --------------------------------------------------------------------------------------


@dataclass
class GitState:
    """HEAD, refs, index and config of the workspace repository at one moment.

    Recording it runs one git command (``for-each-ref``): HEAD, the index and the config are read as
    files. A stage call is bracketed by two recordings, and a loop makes hundreds of stage calls.

    Attributes:
        head: HEAD's commit.
        head_ref: the branch HEAD points to (``refs/heads/main``), ``None`` when detached.
        refs: every ref (branches, tags, ``refs/stash``, ``refs/kernelopt/*``) -> object name.
        index: the bytes of ``.git/index`` (``None``: there is none).
        config: the bytes of ``.git/config``.
        redirects: the bytes of each of :data:`REDIRECT_FILES` the git folder holds, by name.
    """

    head: str
    head_ref: str | None
    refs: dict[str, str] = field(default_factory=dict)
    index: bytes | None = None
    config: bytes = b""
    hooks: dict[str, bytes] = field(default_factory=dict)
    redirects: dict[str, bytes] = field(default_factory=dict)

    @classmethod
    def record(cls, ws: Workspace) -> GitState:
        git_dir = Path(ws.repo.git_dir)
        redirects = _redirects(git_dir)  # read before the git command below, which a redirect would steer
        refs = {}
        for line in ws.repo.git.for_each_ref("--format=%(refname) %(objectname)").splitlines():
            name, _, sha = line.partition(" ")
            if name:
                refs[name] = sha
        return cls(
            head=ws.head(),
            head_ref=ws.branch(),
            refs=refs,
            index=_read_or_none(git_dir / "index"),
            config=_read_or_none(git_dir / "config") or b"",
            hooks=_hooks(git_dir),
            redirects=redirects,
        )

    def restore(self, ws: Workspace) -> list[str]:
        """Undo every difference from this state; returns one line per thing undone (empty: none)."""
        git_dir = Path(ws.repo.git_dir)
        undone = self._redirects_back(git_dir)  # first: every git command after it reads the repository they name
        now = GitState.record(ws)
        g = ws.repo.git
        if now.config != self.config:
            (git_dir / "config").write_bytes(self.config)
            undone.append("git config changed")
        if now.hooks != self.hooks:  # kernelopt's git runs none (workspace.NO_HOOKS); a user's own git would
            hooks = git_dir / "hooks"
            for name in sorted(now.hooks.keys() - self.hooks.keys()):
                (hooks / name).unlink(missing_ok=True)
                undone.append(f"git hook {name} added")
            for name in sorted(n for n in self.hooks if now.hooks.get(n) != self.hooks[n]):
                (hooks / name).unlink(missing_ok=True)
                (hooks / name).write_bytes(self.hooks[name])
                undone.append(f"git hook {name} changed")
        for name in sorted(now.refs.keys() - self.refs.keys()):
            g.update_ref("-d", name)
            undone.append(f"{_ref_kind(name)} {name} created")
        for name in sorted(self.refs.keys()):
            if now.refs.get(name) != self.refs[name]:
                g.update_ref(name, self.refs[name])
                if name != self.head_ref:
                    undone.append(f"{_ref_kind(name)} {name} moved")
        if now.head_ref != self.head_ref:
            if self.head_ref is not None:
                g.symbolic_ref("HEAD", self.head_ref)
            else:
                g.update_ref("--no-deref", "HEAD", self.head)
            undone.append(f"HEAD switched to {now.head_ref or 'a detached commit'}")
        elif self.head_ref is None and now.head != self.head:
            g.update_ref("--no-deref", "HEAD", self.head)
        if now.head != self.head:
            undone.append(f"HEAD moved {self.head[:12]} -> {now.head[:12]} (commits made)")
        if self.index is not None and now.index != self.index:
            # `git status` rewrites the index to refresh its file times: only another tree is a change
            if _index_tree(ws, now.index) != _index_tree(ws, self.index):
                undone.append("git index changed")
            _write_index(git_dir / "index", self.index)
        return undone

    def _redirects_back(self, git_dir: Path) -> list[str]:
        """Put :data:`REDIRECT_FILES` back as recorded (an added one removed); one line per file put back."""
        now, undone = _redirects(git_dir), []
        for name in sorted(now.keys() | self.redirects.keys()):
            if now.get(name) == self.redirects.get(name):
                continue
            path = git_dir / name
            path.unlink(missing_ok=True)
            if name in self.redirects:
                path.write_bytes(self.redirects[name])
            what = "added" if name not in self.redirects else "changed" if name in now else "removed"
            undone.append(f"git {name} {what}{REDIRECT_NOTES.get(name, '')}")
        return undone


REDIRECT_FILES = ("commondir", "config.worktree")
"""Files of the git folder that make git read another repository's config, refs and objects (``commondir``: a
linked worktree's, which git honours in any git folder) or a configuration of their own (``config.worktree``), which
:attr:`GitState.config` never saw. An agent that copied ``.git`` elsewhere, set ``core.fsmonitor`` (or a filter
driver) there and named it in ``.git/commondir`` left the guard nothing to see (the config, the refs and the hooks
as recorded), and kernelopt's next ``git add`` and ``commit`` ran that command with kernelopt's whole environment and
wrote the workspace's history there (break19's b26)."""
REDIRECT_NOTES = {"commondir": " (the repository's config, refs and objects read from elsewhere)"}


def _redirects(git_dir: Path) -> dict[str, bytes]:
    """The bytes of each of :data:`REDIRECT_FILES` ``git_dir`` holds (a link by where it points), by name."""
    out = {}
    for name in REDIRECT_FILES:
        path = git_dir / name
        if (target := link_target(path)) is not None:
            out[name] = b"link:" + os.fsencode(target)
        elif path.is_file():
            out[name] = path.read_bytes()
    return out


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _hooks(git_dir: Path) -> dict[str, bytes]:
    """The files of ``.git/hooks/`` (a link by where it points), by name."""
    folder = git_dir / "hooks"
    if not folder.is_dir():
        return {}
    return {
        p.name: os.fsencode(target) if (target := link_target(p)) is not None else p.read_bytes()
        for p in folder.iterdir()
        if p.is_symlink() or p.is_file()
    }


def _index_tree(ws: Workspace, index: bytes | None) -> str | None:
    """The tree an index of these bytes holds (``git write-tree`` on a copy); ``None`` when it has
    unmerged entries or cannot be read."""
    import git

    if index is None:
        return None
    copy = Path(ws.repo.git_dir) / "kernelopt-index-copy"
    try:
        copy.write_bytes(index)
        return str(ws.repo.git.write_tree(env={"GIT_INDEX_FILE": str(copy)})).strip()
    except git.GitCommandError:
        return None
    finally:
        copy.unlink(missing_ok=True)


def _write_index(path: Path, data: bytes) -> None:
    tmp = path.with_name("kernelopt-index-back")
    tmp.write_bytes(data)
    tmp.replace(path)


def _ref_kind(name: str) -> str:
    if name.startswith("refs/heads/"):
        return "branch"
    if name.startswith("refs/tags/"):
        return "tag"
    if name == "refs/stash":
        return "stash"
    return "ref"


# -- secrets ----------------------------------------------------------------------------------------


def files_with_secret(root: Path, paths: list[str], secrets: list[str]) -> list[str]:
    """Those of ``paths`` (relative to ``root``) that hold one of ``secrets`` or a known key format
    (:class:`kernelopt.redact.Redactor`: the one rule of what a secret looks like)."""
    redactor = Redactor([s for s in secrets if len(s) >= MIN_SECRET_CHARS])
    out = []
    for rel in paths:
        p = root / rel
        if p.is_file() and redactor.holds_secret(p.read_bytes().decode("utf-8", errors="replace")):
            out.append(rel)
    return out


# -- the guard of one stage call --------------------------------------------------------------------


REPOSITORY_COPY = "git-before-stage"
"""The folder of ``.kernelopt/`` that holds the hard-linked copy of ``.git`` made before a backend stage."""


def copy_repository(ws: Workspace) -> Path | None:
    """A copy of the workspace's ``.git`` made of hard links (``.kernelopt/git-before-stage``; a few milliseconds:
    git replaces a file by renaming a new one over it, so a link keeps the content of the moment); ``None`` where the
    file system takes no hard link.

    An agent that deleted ``.git`` (or replaced it with a link or a ``gitdir:`` file naming another repository) took
    the workspace's history with it, and the guard's next git command raised (a9).
    """
    src = ws.root / ".git"
    dst = ws.state_dir / REPOSITORY_COPY
    shutil.rmtree(dst, ignore_errors=True)
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copytree(src, dst, symlinks=True, copy_function=os.link)
    except OSError:
        shutil.rmtree(dst, ignore_errors=True)
        return None
    return dst


def _repository_intact(git_dir: Path) -> bool:
    return (
        git_dir.is_dir()
        and not git_dir.is_symlink()
        and (git_dir / "HEAD").is_file()
        and (git_dir / "objects").is_dir()
        and (git_dir / "refs").is_dir()
    )


def _holds_commit(ws: Workspace, git_dir: Path, commit: str) -> bool:
    """Whether the repository at ``git_dir`` holds ``commit`` (a loose object, else as git finds it: a pack)."""
    import git

    if (git_dir / "objects" / commit[:2] / commit[2:]).is_file():
        return True
    try:
        ws.repo.git.cat_file("-e", f"{commit}^{{commit}}")
    except git.GitCommandError:
        return False
    return True


def repository_back(ws: Workspace, copy: Path | None, head: str | None = None) -> list[str]:
    """Put the copy of ``.git`` back where a stage deleted or replaced the repository (then remove the copy); one line
    per thing undone. ``head``: the commit HEAD held before the stage, which the repository must still hold (a
    ``git init`` over a deleted ``.git`` looks whole, and its history is not the workspace's: review19 r7)."""
    git_dir = ws.root / ".git"
    undone = []
    replaced = not _repository_intact(git_dir) or (head is not None and not _holds_commit(ws, git_dir, head))
    if copy is not None and copy.is_dir() and replaced:
        if git_dir.is_symlink() or git_dir.is_file():
            git_dir.unlink()
        else:
            shutil.rmtree(git_dir, ignore_errors=True)
        os.replace(copy, git_dir)
        undone.append(".git (deleted or replaced: the repository put back as it was before the stage)")
    if copy is not None:
        shutil.rmtree(copy, ignore_errors=True)
    return undone


def gate_state(root: Path) -> dict[str, str]:
    """Path under ``.kernelopt/`` -> sha256 of each file the gate reads back from there: the compiled code of
    every checked source (``build/<label>-<digest>/...``: a previous version's is loaded and timed beside the
    new one, never checked again) and the chosen sizes (``sizes.json``)."""
    build = root / STATE_DIR / BUILD_FOLDER
    out = {f"{BUILD_FOLDER}/{rel}": digest for rel, digest in snapshot(build).items()} if build.is_dir() else {}
    sizes = root / STATE_DIR / SIZES_FILE
    if sizes.is_file():
        out[SIZES_FILE] = hashlib.sha256(sizes.read_bytes()).hexdigest()
    return out


def gate_state_back(root: Path, before: dict[str, str]) -> list[str]:
    """Remove what a stage added to or changed in :func:`gate_state` since ``before``: each build folder touched
    (the gate builds it again from its source) and ``sizes.json`` (chosen again); one line each. The builds of
    Stage 3's check (``check-<digest>``: ``python test_kernel.py``, an agent's own runs of it on its edits) are
    kept: only that check reads them, and the gate checks a version's source in a build of its own before it times
    it. What a stage deleted is built again as needed."""
    own = f"{CHECK_LABEL}-"
    touched: dict[str, None] = {}
    for change in changes(before, gate_state(root)):
        if change.kind is ChangeKind.DELETED:
            continue
        parts = change.path.split("/")
        if parts[0] == BUILD_FOLDER and len(parts) > 2 and not parts[1].startswith(own):
            touched["/".join(parts[:2])] = None
        elif parts[0] == SIZES_FILE:
            touched[SIZES_FILE] = None
    out = []
    for rel in touched:
        path = root / STATE_DIR / rel
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        out.append(f"{STATE_DIR}/{rel} (the gate's own state, changed: removed, made again from source)")
    return out


@dataclass
class GuardPoint:
    """What the guard recorded just before a stage call (see :meth:`RunGuard.begin`)."""

    snapshot: dict[str, str]
    git: GitState | None
    kept: dict[str, Captured]
    repository: Path | None = None
    untracked: Path | None = None
    links: dict[str, str] = field(default_factory=dict)  # each link of the snapshot: where it pointed (z5)
    gate: dict[str, str] | None = None  # :func:`gate_state` before the call (b44); None: not recorded


def links_of(root: Path, snap: dict[str, str]) -> dict[str, Link]:
    """Each link of the snapshot ``snap`` as it is now, read by :meth:`Link.of`: taken with the snapshot, where the
    links pointed as a stage began (:attr:`GuardPoint.links`, the journal's ``IterationState.links``)."""
    out = {}
    for rel, digest in snap.items():
        link = Link.of(root / rel) if digest.startswith("link:") else None
        if link is not None:
            out[rel] = link
    return out


class RunGuard:
    """The guard of one run: every stage call is bracketed by :meth:`begin` and :meth:`check`.

    Args:
        ws: the workspace.
        protected: the protected files' recorded content (``None``: record it now).
        secrets: values no file a stage writes may contain (default: the values of this process's
            secret-looking variables, :func:`kernelopt.redact.secret_values`, the API key among them).
    """

    def __init__(self, ws: Workspace, protected: ProtectedContent | None = None, secrets: list[str] | None = None):
        self.ws = ws
        self.protected = protected if protected is not None else ProtectedContent(ws)
        self.secrets = list(secrets) if secrets is not None else secret_values()
        #: the changes undone whose content was kept first (:func:`keep_aside`), for the caller to say
        self.kept_aside: list[Change] = []

    def begin(
        self, editable: list[str], *, snapshot_now: dict[str, str] | None = None, git_state: bool = True
    ) -> GuardPoint:
        """Record the workspace before a call: file digests, git state, the bytes of ``editable``."""
        snap = snapshot_now if snapshot_now is not None else snapshot(self.ws.root)
        return GuardPoint(
            snapshot=snap,
            git=GitState.record(self.ws) if git_state else None,
            kept=capture(self.ws.root, editable),
            repository=copy_repository(self.ws) if git_state else None,
            untracked=copy_untracked(self.ws, snap) if git_state else None,
            links={rel: link.target for rel, link in links_of(self.ws.root, snap).items()},
            gate=gate_state(self.ws.root),
        )

    def check(self, point: GuardPoint, allowed_patterns: list[str], *, secrets: bool = True) -> list[str]:
        """Undo what the call did outside ``allowed_patterns`` since ``point``; one line per violation.

        In order: the repository back where it was deleted, git state back (commits, branches, tags, stash, index,
        config, hooks), protected files back
        from their recorded content, other writes outside the allowance reverted, and an allowed file
        that holds a secret put back as it was before the call.
        """
        out: list[str] = []
        purge_bytecode(self.ws.root)
        out += repository_back(self.ws, point.repository, point.git.head if point.git is not None else None)
        if point.git is not None:
            out += point.git.restore(self.ws)
        undone = self.protected.restore()
        # protected files are the recorded content's business (git may hold a poisoned copy)
        undone += enforce(self.ws, point.snapshot, [*allowed_patterns, *PROTECTED_FILES], untracked=point.untracked)
        if point.untracked is not None:
            shutil.rmtree(point.untracked, ignore_errors=True)
        out += [str(c) for c in undone]
        self.kept_aside += [c for c in undone if c.kept is not None]
        if point.gate is not None:
            out += gate_state_back(self.ws.root, point.gate)
        now = snapshot(self.ws.root)
        written = [c.path for c in changes(point.snapshot, now) if c.kind is not ChangeKind.DELETED]
        for rel in [rel for rel in written if rel in point.links and _own_bytes(self.ws.root / rel) is not None]:
            # the user's link replaced by a file of the stage's own: the stage's bytes written through the link put
            # back, so their project's file is the one edited, never left behind unedited (leftovers20's seen item)
            _put_link_back(self.ws.root / rel, Link(point.links[rel], (self.ws.root / rel).read_bytes()))
        for rel in [rel for rel in written if made_a_link(self.ws.root / rel, point.links.get(rel))]:
            # a6: kernel.py (or the plan) replaced by a link to a file outside passed as an edit: gated, then
            # committed as a link, so what ran later was whatever that file held by then
            if rel in point.links:  # the user's link pointed elsewhere: pointed back (it has no bytes to write)
                _put_link_back(self.ws.root / rel, Link(point.links[rel], None))
            else:
                restore(self.ws.root, {rel: point.kept.get(rel)})
            out.append(f"{rel}{LINK_NOTE}")
            written.remove(rel)
        leaked = files_with_secret(self.ws.root, written, self.secrets if secrets else [])
        for rel in leaked:
            restore(self.ws.root, {rel: point.kept.get(rel)})
            out.append(f"{rel}{SECRET_NOTE}")
        return out


SECRET_NOTE = " (holds a secret value: the API key or another secret variable)"
"""What follows the file name in a violation that is a secret in an allowed file, not a stray write."""
LINK_NOTE = " (made a symbolic link)"
"""What follows the file name in a violation that is an allowed file made a link, not a stray write."""


def _split(violations: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The stray writes, the allowed files that held a secret, the allowed files made links (names only)."""
    stray = [v for v in violations if not v.endswith((SECRET_NOTE, LINK_NOTE))]
    secret = [v.removesuffix(SECRET_NOTE) for v in violations if v.endswith(SECRET_NOTE)]
    linked = [v.removesuffix(LINK_NOTE) for v in violations if v.endswith(LINK_NOTE)]
    return stray, secret, linked


def violation_message(who: str, where: str, violations: list[str]) -> str:
    """The one-line failure of a stage whose call broke the guard: the writes outside ``where``, and the
    allowed files put back because they held a secret or were made links (told apart: a plan that holds the key
    was written inside the allowance, not outside it)."""
    stray, secret, linked = _split(violations)
    parts = [f"the {who} wrote outside {where}: {', '.join(stray)}"] if stray else []
    if secret:
        subject = "" if parts else f"the {who} "
        parts.append(
            f"{subject}wrote a secret value (the API key or another secret variable) into {', '.join(secret)} "
            "(put back as it was)"
        )
    if linked:
        subject = "" if parts else f"the {who} "
        parts.append(f"{subject}made {', '.join(linked)} a symbolic link, where a stage writes files (put back)")
    return "; and ".join(parts)


def violation_pitfall(violations: list[str], *, stage: Stage, who: str, allowed_patterns: list[str]) -> PitfallAndFix:
    """The memory ``pitfalls_and_fixes`` entry that records a stage writing outside its allowance, or a secret
    value into a file it may write (told apart: the lesson of a secret is about the secret, not the file)."""
    stray, secret, linked = _split(violations)
    stray = [v.split(" (")[0] for v in stray]
    lessons = [f"the {who} must not touch {', '.join(stray)}"] if stray else []
    if secret:
        lessons.append(
            f"the {who} must never write a secret value (an API key, a token) into a file; "
            f"{', '.join(secret)} held one and was put back"
        )
    if linked:
        lessons.append(f"the {who} must write {', '.join(linked)} as a file, never as a symbolic link")
    return PitfallAndFix(
        error_type="write_violation",
        error_message=f"{who} wrote outside its allowance: {', '.join(violations)}"
        if stray
        else violation_message(who, "its allowance", violations),
        root_cause=f"stage {stage.value} may write only {', '.join(allowed_patterns) or 'nothing'}"
        + (", and never a secret value" if secret else ""),
        fix_applied="undone: git state restored, protected files written back from their content at run start, "
        "other writes reverted (tracked files from git, new files deleted)"
        + (", files holding a secret put back as they were" if secret else ""),
        lesson="; ".join(lessons),
    )
