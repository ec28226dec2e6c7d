"""The workspace: ``<root>/kernel_opt_<name>/``, its layout, version numbering and git operations.

Layout (DESIGN.md): ``kernel.py``, ``reference.py``, ``README.md`` (task card), ``test_kernel.py``,
``baseline_report.md``, ``memory/v<N>.json``, ``plans/v<N>_plan.md``, ``profiles/v<N>/``. The git
repository has a local identity; the user's global git configuration is never touched.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import tempfile
import time
import unicodedata
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from kernelopt.env import HANDED_LOCK, take_handed_lock
from kernelopt.errors import (
    DiskProblem,
    GitError,
    InputFileError,
    UsageError,
    WorkspaceError,
    disk_problem,
    disk_problem_in,
)
from kernelopt.fileio import atomic_write_text, file_in_the_way, new_folder_mode
from kernelopt.kernelsource import KernelForm, check_kernel, check_reference, detect_framework
from kernelopt.memory.model import parse_version
from kernelopt.memory.store import MemoryStore
from kernelopt.oneline import shell_word
from kernelopt.taskcard import TaskCard

if TYPE_CHECKING:
    import git  # imported where used: GitPython runs `git version` when it is imported

DEFAULT_ROOT = Path("/tmp")
PREFIX = "kernel_opt_"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
GIT_USER = ("kernelopt", "kernelopt@localhost")

STATE_DIR = ".kernelopt"
KERNEL_BYTES_REF = "refs/kernelopt/v{n}-kernel"
"""A blob of the bytes version N's kernel.py led to where it was a link (git commits a link as the path it names)."""
"""A workspace's folder for kernelopt's own state (locks, run state, gate records, tuning sessions): no stage's."""


def validate_name(name: str) -> str:
    """Return ``name`` if it is a safe workspace name.

    Raises:
        WorkspaceError: empty, too long, or containing path separators, ``..`` or other characters
            outside ``[A-Za-z0-9_.-]``.
    """
    if not _NAME_RE.match(name) or ".." in name:
        raise WorkspaceError(
            f"invalid workspace name {name!r}",
            hint="use 1-64 letters a-z or A-Z (ASCII), digits, '_', '-' or '.', starting with a letter or digit",
        )
    return name


def made_from(folder: Path, root: Path) -> str | None:
    """Where a workspace of the kernel folder ``folder``'s name lies under ``root`` (the one ``kernelopt optimize
    FOLDER`` makes there), in words for a command given the folder instead; ``None`` when there is none. A command
    given the folder was told to ``init`` a workspace, with the run's workspace there all along (newuser19 n138)."""
    made = Path(root).expanduser().resolve() / f"{PREFIX}{default_name(folder)}"
    if not (made / "memory").is_dir() or made == Path(folder).resolve():
        return None
    return (
        f"a workspace of this folder's name is {made} (`kernelopt optimize` makes <root>/{PREFIX}<folder name> from a "
        "kernel folder): give that"
    )


def default_name(folder: Path) -> str:
    """A safe, valid workspace name from a folder name.

    ASCII names keep their letters (``my kernel`` -> ``my_kernel``). A name with other letters is
    transliterated where Unicode can (``café`` -> ``cafe``) and always gets 8 hex digits of the
    name's hash, so two different non-ASCII names never share a workspace (``ядро`` ->
    ``kernel_<hash>``, ``核`` -> ``kernel_<another hash>``).
    """
    raw = folder.resolve().name
    ascii_text = unicodedata.normalize("NFKD", raw).encode("ascii", "ignore").decode("ascii")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", ascii_text).strip("._-") or "kernel"
    name = name.replace("..", "_")
    if not name[0].isalnum():
        name = "k" + name
    if not raw.isascii():
        digest = hashlib.sha256(raw.encode("utf-8")).hexdigest()[:8]
        return f"{name[:55]}_{digest}"
    return name[:64]


class RunLock:
    """The one lock of a workspace, from before its first write: ``<root>/.kernel_opt_<name>.lock``.

    It lies beside the workspace folder, so it can be taken before the folder exists: ``kernelopt
    optimize`` on a new task folder creates the workspace under it, and holds it to the end of the run;
    a second start on the same folder is refused at once (exit 2), however close together they start.
    ``flock`` is released by the kernel when the holder dies (``kill -9`` included). The file is removed
    on release; a taker checks that the file it locked is still the one at the path (a release may have
    removed it in between). Re-entrant within one process (the command and the loop both take it).

    ``kernelopt tune`` takes the same lock on the folder it tunes (a task folder or a workspace), so two
    tunes, or a tune and an optimize, never write one kernel.py at once; a task folder's lock file lies in the shared
    lock folder, not beside it (:func:`folder_lock`). The file holds each holder's record (PID, start, command; a
    writer's alone, the readers' one a line), for the refusal's one line (:func:`_live_holders`).

    Args:
        target: the workspace folder, or the folder ``tune`` writes into (it need not exist yet).
        command: the kernelopt command that takes it (named in a refusal).
        hint: what the refused one can do.
        path: the lock file, where not beside the target (:func:`folder_lock`'s, in the shared lock folder).
        reading: taken shared (``LOCK_SH``), by a command that reads the folder's kernel file and must not see it
            written while it runs (``optimize DIR``): any number of them hold it at once, and it excludes the writers
            (``tune``, ``tunables --set``), which take it alone.
    """

    _held: ClassVar[dict[Path, tuple[int, int]]] = {}  # lock file -> (fd, depth), this process's locks

    def __init__(
        self,
        target: Path,
        *,
        command: str = "optimize",
        hint: str = "wait for it or stop it; the journal lets the next run continue",
        path: Path | None = None,
        reading: bool = False,
    ) -> None:
        self.target = Path(target).expanduser().resolve()
        self.in_lock_folder = path is not None  # a user's folder's, in the shared lock folder (:func:`folder_lock`)
        self.reading = reading
        self.path = path if path is not None else self.target.parent / f".{self.target.name}.lock"
        self.command = command
        self.hint = hint

    def acquire(self) -> None:
        """Take the lock.

        Raises:
            UsageError: another kernelopt process holds it (its pid is in the message).
            WorkspaceError: the workspace's parent is not a folder.
        """
        held = self._held.get(self.path)
        if held is not None:
            self._held[self.path] = (held[0], held[1] + 1)
            return
        if not self.reading and self._adopt():
            return
        parent = self.path.parent
        if parent.exists() and not parent.is_dir():
            raise WorkspaceError(f"--root {parent} is not a folder")
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except (NotADirectoryError, FileExistsError):  # a file where a folder of the path goes (faults7, f11)
            in_the_way = file_in_the_way(parent)
            raise UsageError(
                f"{in_the_way}: is a file, not a folder, and kernelopt {self.command} keeps its run lock (and "
                f"its state) in {parent}",
                hint="move or rename that file and run again",
            ) from None
        if self.in_lock_folder:
            _share(parent, 0o1777)  # every user's locks of a shared folder lie here, as in /tmp
            _remove_stale(parent)
        deadline = time.monotonic() + TAKE_WAIT_S
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            if self.in_lock_folder:
                _share(fd, 0o666)  # another user's tune of the same folder opens it after a kill -9 of this one
            try:
                fcntl.flock(fd, (fcntl.LOCK_SH if self.reading else fcntl.LOCK_EX) | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() < deadline:  # an ending reader's instant alone (``_alone``): open it again
                    os.close(fd)
                    time.sleep(0.01)
                    continue
                said = _holder_said(fd)
                try:
                    running = self._running(_live_holders(fd, said), os.fstat(fd).st_mtime)
                finally:
                    os.close(fd)
                raise UsageError(running, hint=self.hint) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)  # the holder released and removed it after we opened it: take the new one
        self._record(fd)
        self._held[self.path] = (fd, 1)

    def _record(self, fd: int) -> None:
        """This holder's record in the lock file, for a refusal (the lock holds without it): a writer's alone, a
        reader's after the others'."""
        try:
            if not self.reading:
                os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()} {time.time():.0f} {self.command}\n".encode())  # one write: appended whole
        except OSError:
            pass

    def handed_to_child(self) -> tuple[dict[str, str], int]:
        """What a child kernelopt command this process starts needs to hold this lock without a moment free: the
        entry of its environment (:data:`HANDED_LOCK`) and the descriptor to pass it (``pass_fds``). The lock is an
        open file's, which the child then holds too; this process keeps holding it until it releases it after the
        child. ``batch`` released a problem's workspace lock after opening it, and its child ``optimize WS`` took
        it again: a ``tune WS`` in between took it, and the problem was refused (late29's seen line; discovery23
        d34).

        Raises:
            KeyError: this process does not hold it.
        """
        fd, _ = self._held[self.path]
        return {HANDED_LOCK: f"{fd}:{self.path}"}, fd

    def _adopt(self) -> bool:
        """Take the lock a parent handed over (:meth:`handed_to_child`): the descriptor its environment names, open
        on this lock's file, locked again here (the same open file: its lock, so at once). Once: the variable is
        dropped, so a command this one starts takes its own. False where none was handed for this lock."""
        fd = take_handed_lock(str(self.path))
        if fd is None or not _names_open(self.path, fd):
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the parent's open file: held already, kept
        except OSError:
            return False
        self._record(fd)
        self._held[self.path] = (fd, 1)
        return True

    def held_here(self) -> bool:
        """True while this process holds the lock."""
        return self.path in self._held

    def holder(self) -> str | None:
        """``another kernelopt <command> is running on <target> (pid <pid>)`` while another process holds the lock,
        else ``None``. The lock is never taken, not even shared (a probe holding it for an instant would refuse a
        run starting at that instant): the kernel's table of locks (``/proc/locks``) says whether the lock file is
        held; where it cannot be read, ``None``."""
        if self.path in self._held:
            return None
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return None  # no lock file: nobody holds it
        try:
            if not _flock_pids(fd):
                return None  # held by nobody, or no table to read
            # its holder writes its pid just after taking the lock: read in that instant, read again, briefly (a
            # probe waits no longer than PROBE_WAIT_S, where a refused start waits up to a second; leftovers21 l13)
            said = _holder_said(fd, PROBE_WAIT_S)
            return self._running(_live_holders(fd, said), os.fstat(fd).st_mtime)
        except OSError:
            return None  # no table to read
        finally:
            os.close(fd)

    def _running(self, holders: list[tuple[str, str, float]], since: float) -> str:
        """The holders, from their records in the lock file (:func:`_live_holders`) and when each wrote its own:
        ``another kernelopt optimize is running on <target> (pid 8949) since 2026-12-07 05:04:36 UTC``; runs sharing
        it, each: ``2 kernelopt runs hold <target>: optimize (pid 8949) since ..., optimize (pid 8950) since ...``.
        Without the time, a refused user could not tell a run started a moment ago from one left running for a day
        (late27, z51); a record without its time (or none) is dated by the file's, ``since``."""
        if len(holders) > 1:
            each = ", ".join(f"{command or 'optimize'} (pid {pid}) since {_utc(t)}" for pid, command, t in holders)
            return f"{len(holders)} kernelopt runs hold {self.target}: {each}"
        pid, command, when = holders[0] if holders else ("?", "", since)
        return f"another kernelopt {command or 'optimize'} is running on {self.target} (pid {pid}) since {_utc(when)}"

    def release(self) -> None:
        """Give the lock back (the last release of this process removes the file)."""
        held = self._held.get(self.path)
        if held is None:
            return
        fd, depth = held
        if depth > 1:
            self._held[self.path] = (fd, depth - 1)
            return
        del self._held[self.path]
        try:
            # a reader removes the file only when it holds it alone (no other reader's hold on it: the exclusive
            # lock is had at once); another reader's next start would take a new file beside its hold
            # and only the file it holds: after a child it handed the lock to released it, the path may name the
            # next holder's file (d34)
            if (not self.reading or _alone(fd)) and _names_open(self.path, fd):
                self.path.unlink(missing_ok=True)
        except PermissionError:  # another user's file in the shared lock folder (sticky): it stays, and holds nobody
            pass
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _names_open(path: Path, fd: int) -> bool:
    """Whether ``path`` names the file open as ``fd``."""
    try:
        opened, named = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)


TAKE_WAIT_S = 0.2
"""How long a start tries again before it is refused: a reader that ends holds the lock alone for an instant, to tell
whether it may remove the file (``_alone``), and a start refused in that instant named a run that was ending (late29,
z70). A lock held by a running command is still refused, this much later."""

PROBE_WAIT_S = 0.1
"""How long :meth:`RunLock.holder`, a probe (a status line, a listing), reads a held lock file found empty again: the
holder's pid is written a moment after it takes the lock; a probe is not held up the second a refused start may wait."""


def _alone(fd: int) -> bool:
    """True when the shared hold on ``fd`` is the only one (it becomes exclusive at once)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


STALE_AFTER_S = 60.0
"""A lock file in the shared lock folder untouched this long, and held by nobody, is a killed holder's: removed."""


def _remove_stale(folder: Path) -> None:
    """Remove the lock files in ``folder`` (the shared lock folder) that a holder killed before its release left: held
    by nobody and untouched for ``STALE_AFTER_S``. Each lay there for good, one a folder ever tuned (late29, z72).

    Never one a process holds: a file the kernel's table names as held is not touched; another is taken alone (a
    holder's hold refuses that) and removed only while so held and still the file at its path, by the same rule a
    release removes its own. A taker that opened it before meets the file gone and takes a new one
    (:meth:`RunLock.acquire`'s same-file check), and one refused in that instant tries again (``TAKE_WAIT_S``); the
    age keeps a file just made, not yet locked, out of the way. Another user's file (the folder is sticky) stays."""
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if not entry.name.endswith(".lock") or not entry.is_file(follow_symlinks=False):
                continue
            if now - entry.stat(follow_symlinks=False).st_mtime < STALE_AFTER_S:
                continue
            fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            if _flock_pids(fd):
                continue  # held: never taken, not even for an instant
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(fd).st_ino == os.stat(entry.path, follow_symlinks=False).st_ino:
                os.unlink(entry.path)
        except OSError:  # held after all (BlockingIOError), gone, or another user's
            pass
        finally:
            os.close(fd)


def _utc(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t))


def _flock_pids(fd: int) -> set[str] | None:
    """The pids the kernel's table of locks (``/proc/locks``) names as holding a ``flock`` on ``fd``'s file (none:
    nobody holds it); ``None`` where the table cannot be read."""
    try:
        st = os.fstat(fd)
        table = Path("/proc/locks").read_text()
    except OSError:
        return None
    node = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    fields = (line.split() for line in table.splitlines())
    return {f[4] for f in fields if len(f) > 5 and f[1] == "FLOCK" and f[5] == node}


def _live_holders(fd: int, said: str) -> list[tuple[str, str, float]]:
    """The records (``<pid> <time> <command>`` a line, the time left out by a writer before late29) of the lock file
    ``fd`` whose pid holds the lock now, as ``(pid, command, time)``. Runs sharing a folder's lock each add their
    record, and one that ended left its own: a refusal named the run that started last, ended or not (late29, z71).
    Where no record's pid is in the kernel's table (or it cannot be read), the last record, as the file said before."""
    since = os.fstat(fd).st_mtime
    records: list[tuple[str, str, float]] = []
    for line in said.splitlines():
        pid, _, rest = line.strip().partition(" ")
        stamp, _, command = rest.partition(" ")
        try:
            records.append((pid, command, float(stamp)))
        except ValueError:
            records.append((pid, rest, since))
    pids = _flock_pids(fd) or set()
    return [r for r in records if r[0] and r[0] in pids] or [r for r in records if r[0]][-1:]


RECORDS_BYTES = 1 << 16
"""How much of a lock file :func:`_holder_said` reads: every record a folder's lock gathers (runs sharing it each add
one, and one killed leaves its own until a writer takes the lock or the last run ends). 128 bytes, four records and a
piece, left a live run's record unread behind those of runs killed before it, and a refusal named a dead one or a pid
cut short (review22, r23)."""


def _holder_said(fd: int, wait_s: float = 1.0) -> str:
    """What a held lock file says (``<pid> <command>``). Its holder writes that just after taking the lock, so a file
    read empty in that instant is read again for up to ``wait_s`` (under load a refusal said "pid ?" for a holder
    that had its pid written a moment later)."""
    deadline = time.monotonic() + wait_s
    while True:
        said = os.pread(fd, RECORDS_BYTES, 0).decode(errors="replace")
        if said.strip() or time.monotonic() >= deadline:
            return said
        time.sleep(0.02)


_GIT_LOCK_RE = re.compile(r"Unable to create '([^']+\.lock)': File exists")
"""git's words for a lock file (``index.lock``, ``HEAD.lock``, a ref's) that another git command holds or left."""


def _open_anywhere(path: Path) -> bool:
    """True when a process has ``path`` open (a file descriptor of its, in ``/proc``); True also where that cannot
    be told (no ``/proc``): a lock is removed only when it is known to be nobody's."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return True
    try:
        wanted = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    for pid in os.listdir(proc):
        if not pid.isdigit():
            continue
        try:
            fds = os.scandir(proc / pid / "fd")
        except OSError:  # gone, or another user's: then its own git would hold its own lock
            continue
        with fds:
            for fd in fds:
                try:
                    st = os.stat(fd.path)
                except OSError:
                    continue
                if (st.st_dev, st.st_ino) == (wanted.st_dev, wanted.st_ino):
                    return True
    return False


def stage_lock(root: Path, command: str) -> RunLock:
    """The run lock a stage run by hand takes on a workspace (``profile``, ``plan``, ``implement``, ``validate``,
    the memory verbs that write), the one ``optimize`` and ``kernelopt mcp`` hold: a ``kernelopt profile WS`` beside a
    running ``optimize`` wrote ``profiles/v4/`` while V3 was gated, and the guard failed and reverted V3 for a write
    it had not made; a ``validate`` beside it timed the kernel against the run's own timing (newuser7, n28).

    Args:
        root: the workspace folder.
        command: the kernelopt command that takes it (named in the other's refusal).
    """
    return RunLock(root, command=command, hint="wait for it or stop it: a stage run beside it writes into its version")


def folder_lock(folder: Path, *, command: str, hint: str, reading: bool = False) -> RunLock:
    """The run lock of a user's kernel folder, the one every command that writes its kernel.py takes (``tune``,
    ``tunables --set``; on a workspace it is the lock ``optimize`` holds, beside it under its root). ``tunables --set``
    took none, and wrote kernel.py under a running ``tune``, whose session then ended with nothing written (fault
    trial faults7, f3).

    A user's folder's lock file lies in the shared lock folder (:func:`locks_folder`), named by the folder's absolute
    path, never in the user's tree: beside the folder, ``git status`` showed ``.rms.lock`` while a tune ran and after
    a ``kill -9`` of it (newuser19, n136; late27, z50).

    Args:
        folder: the folder that holds the kernel file.
        command: the kernelopt command that takes it (named in a refusal).
        hint: what the refused one can do.
        reading: taken shared, by a command that only reads the kernel file (:class:`RunLock`'s ``reading``).
    """
    folder = Path(folder).expanduser().resolve()
    if looks_like_workspace(folder):
        return RunLock(folder, command=command, hint=hint, reading=reading)
    key = hashlib.sha256(os.fsencode(folder)).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", folder.name)[:40] or "root"
    return RunLock(folder, command=command, hint=hint, path=locks_folder() / f"{name}-{key}.lock", reading=reading)


def locks_folder() -> Path:
    """The folder of the run locks of users' kernel folders: ``/tmp/kernelopt-locks``, beside the default workspaces,
    whatever a process's ``TMPDIR`` says (a tune started with another one took a lock another tune never saw), and
    shared by every user as ``/tmp`` is (sticky, writable by all), so two users' tunes of one shared folder exclude
    each other as when the lock lay beside it."""
    return DEFAULT_ROOT / "kernelopt-locks"


def _share(where: int | Path, mode: int) -> None:
    """Give a lock file (a file descriptor) or the lock folder ``mode``, past the umask, when this user owns it (another
    user's already has it)."""
    try:
        st = os.fstat(where) if isinstance(where, int) else os.stat(where)
        if st.st_uid == os.geteuid() and (st.st_mode & 0o7777) != mode:
            os.chmod(where, mode)
    except OSError:
        pass  # the lock holds without it; only another user's taking of it after a kill needs the mode


@contextmanager
def kernel_locks(kernel: Path, *, command: str, hint: str, reading: bool = False) -> Iterator[None]:
    """The folder locks (:func:`folder_lock`) of a kernel file a command writes (or, ``reading``, reads and must not
    see written: taken shared): the folder its name is in and, when it is a symbolic link into another folder, the
    folder of the file it names, which a write changes (two folders whose kernel.py link to one file were tuned at
    once, each under its own lock; faults7, f10).

    Raises:
        UsageError: another kernelopt process holds one of them (its pid in the message).
    """
    kernel = Path(kernel).expanduser().absolute()
    folders = [kernel.parent.resolve()]
    real = Path(os.path.realpath(kernel)).parent
    if real not in folders:
        folders.append(real)
    with ExitStack() as held:
        for folder in folders:
            held.enter_context(folder_lock(folder, command=command, hint=hint, reading=reading))
        yield


def _template(name: str) -> str:
    return resources.files("kernelopt.templates").joinpath(name).read_text(encoding="utf-8")


NO_HOOKS = "core.hooksPath=/dev/null"
"""The configuration every git command of kernelopt runs under: no hook. A workspace needs none, and a hook a backend
wrote into ``.git/hooks/`` ran at the next commit (``pre-commit``, ``post-commit``), ref update
(``reference-transaction``: the guard's own undoing) or checkout, with kernelopt's whole environment, the API key the
agent is never given among it, and could change kernel.py after its gate (a3)."""


GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
"""The environment every git command of kernelopt adds: the workspace's own configuration alone (its identity is
there), never the user's ``~/.gitconfig`` nor the system's. An agent may write ``~/.gitconfig`` (it runs as the user,
outside the workspace the guard watches): a ``core.fsmonitor`` command set there ran at kernelopt's next ``git add``,
with kernelopt's whole environment, the API key among it, as a hook did (a3, b26; review19 r5)."""


def _safe_directories(folder: Path) -> dict[str, str]:
    """The user's and the system's ``safe.directory`` entries, as git's ``GIT_CONFIG_COUNT`` variables (after any the
    user's environment gives), for a ``folder`` another uid owns; none for one of this process's uid (git asks none).

    :data:`GIT_ENV` keeps the user's configuration from kernelopt's git, and with it the entry git's 'dubious
    ownership' message tells the user to add for a workspace on another uid's volume (a container's bind mount): every
    git command failed, the same message said again (late19 z1). The entry is the user's consent, read from their
    configuration by the one ``git config`` query, which runs no command of it; git honours it given this way."""
    import subprocess

    owners = {p.stat().st_uid for p in (folder, folder / ".git") if p.exists()}
    if owners <= {os.geteuid()}:
        return {}
    query = ["git", "config", "--show-scope", "--includes", "--get-all", "safe.directory"]
    found = subprocess.run(query, cwd=os.sep, capture_output=True, text=True, check=False).stdout
    scoped = (line.partition("\t") for line in found.splitlines())
    entries = [value for scope, _, value in scoped if scope in ("global", "system")]
    start = int(os.environ.get("GIT_CONFIG_COUNT", "0") or 0)
    env = {"GIT_CONFIG_COUNT": str(start + len(entries))} if entries else {}
    for i, value in enumerate(entries, start):
        env |= {f"GIT_CONFIG_KEY_{i}": "safe.directory", f"GIT_CONFIG_VALUE_{i}": value}
    return env


def _repo(folder: Path) -> git.Repo:
    """The repository of ``folder`` with every git command it runs under :data:`NO_HOOKS` and :data:`GIT_ENV` (and
    the user's :func:`_safe_directories`)."""
    import git

    repo = git.Repo(folder)
    repo.git.update_environment(**GIT_ENV, **_safe_directories(Path(repo.working_tree_dir or folder)))
    repo.git.set_persistent_git_options(c=NO_HOOKS)
    return repo


def _init_repository(folder: Path, name: str, *, shown: Path) -> None:
    """``git init`` in ``folder`` with the local identity, and the first commit; errors name ``shown``
    (the workspace being made, not its staging folder).

    Raises:
        DiskProblem: the disk refused a write (no space, quota, read-only): one line, exit 3.
        GitError: git failed otherwise (its last line of error output).
    """
    import git

    try:
        starter = git.Git(folder)
        starter.update_environment(**GIT_ENV)  # `git init` reads init.templateDir, whose hooks it would copy
        starter.execute(["git", "-c", NO_HOOKS, "init", "--quiet", "--initial-branch=main", str(folder)])
        repo = _repo(folder)
        with repo.config_writer() as cw:
            cw.set_value("user", "name", GIT_USER[0])
            cw.set_value("user", "email", GIT_USER[1])
            cw.set_value("commit", "gpgsign", "false")
        # one `git add` (GitPython's index.add runs `git hash-object` once per file)
        repo.git.add(
            "--",
            "kernel.py",
            "reference.py",
            "README.md",
            "test_kernel.py",
            ".gitignore",
            "memory/.gitkeep",
            "plans/.gitkeep",
            "profiles/.gitkeep",
        )
        repo.git.commit("-m", f"init: workspace {name} (kernel.py, reference.py, task card)")
        repo.close()
    except git.GitCommandError as exc:
        raise git_failure(f"git {exc.command[1] if len(exc.command) > 1 else ''}", str(exc.stderr), shown) from None


def _recorded_versions(folder: Path) -> int:
    """How many version records (``memory/v<N>.json``) a workspace folder holds (0 for none, or no such folder)."""
    memory = folder / "memory"
    return len(MemoryStore(memory).versions()) if memory.is_dir() else 0


def _free_name(path: Path) -> Path:
    """``path``, or ``path-2``, ``path-3`` ... the first that does not exist."""
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}-{n}")
    return candidate


def move_aside(folder: Path) -> Path:
    """Move a workspace that holds recorded versions out of its name's way, to ``<name>.replaced-<time>`` beside it
    (never deleted); returns where it went. ``Workspace.create(force=True)`` and a batch that runs a problem again
    whose files changed since its row both keep the old one so."""
    aside = _free_name(folder.with_name(f"{folder.name}.replaced-{time.strftime('%Y%m%d-%H%M%S')}"))
    folder.rename(aside)
    return aside


def _as_disk_problem(exc: OSError, target: Path) -> OSError | DiskProblem:
    """A disk error met while ``target`` is made, named by ``target`` (not its staging folder); any other
    ``OSError`` as it is."""
    problem = disk_problem(OSError(exc.errno, exc.strerror, str(target)))
    return exc if problem is None else problem


def git_failure(what: str, stderr: str, where: Path) -> DiskProblem | GitError:
    """The one-line error of a failed git command: a disk problem (exit 3) when git says so, else a
    :class:`GitError` with git's last line of error output."""
    problem = disk_problem_in(stderr, path=str(where))
    if problem is not None:
        return problem
    lock = _GIT_LOCK_RE.search(stderr)
    if lock is not None:  # git's last line, "remove the file manually to continue.", named no file (faults7, f4)
        return GitError(
            f"{what} failed in {where}: {lock.group(1)} exists: another git command works in the workspace, or one "
            "was killed and left it",
            hint="if no git command runs there, remove that file and run again",
        )
    lines = [line.strip() for line in stderr.strip().strip("'").splitlines() if line.strip()]
    return GitError(f"{what} failed in {where}: {lines[-1] if lines else 'no error output'}")


class Workspace:
    """An existing workspace folder.

    Args:
        root: the ``kernel_opt_<name>`` folder.

    Raises:
        WorkspaceError: the folder is not a workspace (no kernel.py / reference.py / git repository).
    """

    set_aside: Path | None = None
    """Where :meth:`create` moved the workspace of that name it replaced (``--force``), when it held versions."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():  # a file given for the workspace (status(workspace="src/kernel.py")) is said so
            said = "is a file, not a workspace folder" if self.root.exists() else "no such workspace"
            raise WorkspaceError(f"{self.root}: {said}")
        for required in ("kernel.py", "reference.py"):
            if (self.root / required).is_file():
                continue
            if has_workspace_state(self.root):  # a workspace whose file was deleted by hand: it was no workspace
                raise WorkspaceError(
                    f"{self.root}: {required} deleted from the workspace (its git history holds it)",
                    hint=f"restore it ({restore_line(self.root, {required: _last_held(self.root, required)})})",
                )
            raise WorkspaceError(f"{self.root}: not a kernelopt workspace (no {required})")
        # a folder of the user's own holding kernel.py and reference.py (their git repository too) is no workspace:
        # `profile`, `plan`, `implement` and `validate` wrote profiles/, plans/ and .kernelopt/ into a user's repository
        # and tuned its kernel.py in place; `init` makes the workspace, `optimize` and `tune` take such a folder
        make = (
            f"`kernelopt init NAME --kernel {shell_word(self.root / 'kernel.py')} --reference "
            f"{shell_word(self.root / 'reference.py')}` makes one from it (`kernelopt optimize` and `kernelopt tune` "
            "take the folder as it is)"
        )
        made = made_from(self.root, DEFAULT_ROOT)
        if made is not None:  # a kernel folder `optimize` ran on: its workspace is what the user means
            make = f"{make}; {made}"
        import git

        try:
            self._repo = _repo(self.root)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise WorkspaceError(f"{self.root}: not a kernelopt workspace (no git repository)", hint=make) from None
        if not self.memory_dir.is_dir():
            raise WorkspaceError(f"{self.root}: not a kernelopt workspace (no memory/ folder)", hint=make)
        self.memory = MemoryStore(self.memory_dir)

    # -- creation -------------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        name: str,
        *,
        kernel: Path,
        reference: Path,
        root: Path = DEFAULT_ROOT,
        task_card: Path | None = None,
        force: bool = False,
    ) -> Workspace:
        """Create ``<root>/kernel_opt_<name>/`` with the first commit.

        Args:
            name: workspace name (validated, see :func:`validate_name`).
            kernel: the user's kernel file (copied to ``kernel.py``).
            reference: the user's reference file (copied to ``reference.py``).
            root: parent folder (default ``/tmp`` as the spec says).
            task_card: a README.md with front matter to use as the task card (default: generated).
            force: replace an existing workspace of that name; one that holds recorded versions is moved aside
                to ``kernel_opt_<name>.replaced-<time>`` beside it (:attr:`set_aside`), never deleted.

        Raises:
            WorkspaceError: the workspace exists and ``force`` is False, or the name is invalid.
            InputFileError: kernel/reference missing or not matching the kernel contract.
        """
        validate_name(name)
        form = check_reference(Path(reference))
        check_kernel(Path(kernel), form)
        if task_card is not None and not Path(task_card).is_file():
            raise InputFileError(task_card, "no such file")
        card = TaskCard.load(Path(task_card)) if task_card else TaskCard()
        target = Path(root).expanduser().resolve() / f"{PREFIX}{name}"
        held = _recorded_versions(target)
        if target.exists() and not force:
            kept = f" (its {held} recorded version(s) are kept: the old workspace is moved aside)" if held else ""
            raise WorkspaceError(f"{target} already exists", hint=f"pass --force to replace it{kept}")
        if target.exists() and not is_workspace(target):
            raise WorkspaceError(
                f"{target} exists and is not a kernelopt workspace; refusing to delete it even with --force",
                hint="move it away or choose another name",
            )
        root_path = Path(root).expanduser()
        if root_path.exists() and not root_path.is_dir():
            raise WorkspaceError(f"--root {root_path} is not a folder")
        Path(root).expanduser().mkdir(parents=True, exist_ok=True)
        # Build in a sibling temp folder, then move into place: nothing half-made is left behind.
        try:
            staging = Path(tempfile.mkdtemp(prefix=f".{PREFIX}{name}.", dir=target.parent))
            staging.chmod(new_folder_mode())  # mkdtemp's 0700 would become the workspace's mode
        except OSError as exc:
            raise _as_disk_problem(exc, target) from None
        try:
            shutil.copyfile(kernel, staging / "kernel.py")
            shutil.copyfile(reference, staging / "reference.py")
            if card.name is None:
                card.name = name
            if card.framework is None:
                card.framework = detect_framework(Path(kernel))
            card.kernel_form = form.value
            if not card.body.strip():
                card.body = _template("README.md").format(name=name)
            (staging / "README.md").write_text(card.render(), encoding="utf-8")
            (staging / "test_kernel.py").write_text(_template("test_kernel.py"), encoding="utf-8")
            (staging / ".gitignore").write_text(_template("gitignore"), encoding="utf-8")
            for sub in ("memory", "plans", "profiles"):
                (staging / sub).mkdir()
                (staging / sub / ".gitkeep").touch()
            _init_repository(staging, name, shown=target)
            set_aside = None
            if target.exists() and held:  # recorded versions, plans, profiles and git history: never deleted
                set_aside = move_aside(target)
            elif target.exists():  # nothing recorded: the init commit alone
                shutil.rmtree(target)
            staging.rename(target)
        except OSError as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise _as_disk_problem(exc, target) from None
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        ws = cls(target)
        ws.set_aside = set_aside
        return ws

    # -- paths ----------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.root.name.removeprefix(PREFIX)

    @property
    def kernel_py(self) -> Path:
        return self.root / "kernel.py"

    @property
    def reference_py(self) -> Path:
        return self.root / "reference.py"

    @property
    def readme(self) -> Path:
        return self.root / "README.md"

    @property
    def test_kernel_py(self) -> Path:
        return self.root / "test_kernel.py"

    @property
    def baseline_report(self) -> Path:
        return self.root / "baseline_report.md"

    @property
    def memory_dir(self) -> Path:
        return self.root / "memory"

    @property
    def plans_dir(self) -> Path:
        return self.root / "plans"

    @property
    def profiles_dir(self) -> Path:
        return self.root / "profiles"

    @property
    def state_dir(self) -> Path:
        """``.kernelopt/``: untracked tool state (journal, caches)."""
        return self.root / STATE_DIR

    def plan_path(self, version: int) -> Path:
        return self.plans_dir / f"v{version}_plan.md"

    def profile_dir(self, version: int) -> Path:
        return self.profiles_dir / f"v{version}"

    def task_card(self) -> TaskCard:
        """The parsed README.md front matter (defaults when there is no README)."""
        return TaskCard.load(self.readme) if self.readme.is_file() else TaskCard()

    def kernel_form(self) -> KernelForm:
        return check_reference(self.reference_py)

    # -- versions -------------------------------------------------------------------------------

    def used_versions(self) -> set[int]:
        """Every version number that left a trace (record, plan or profile folder)."""
        used = set(self.memory.versions())
        for p in self.plans_dir.glob("v*_plan.md"):
            try:
                used.add(parse_version(p.name.split("_")[0]))
            except ValueError:
                pass
        for p in self.profiles_dir.glob("v*"):
            if p.is_dir():
                try:
                    used.add(parse_version(p.name))
                except ValueError:
                    pass
        return used

    def next_version(self) -> int:
        """The next unused version number (0 for a fresh workspace); numbers are never reused."""
        used = self.used_versions()
        return max(used) + 1 if used else 0

    def iteration_version(self) -> int:
        """The version a new iteration of the loop takes: the newest used number when only a profile folder holds it
        (no plan file, no record: a stand-alone ``kernelopt profile``, or a ``kernelopt plan`` that failed after taking
        Stage 1, and no Stage 2 took it; the loop's Stage 1 profiles it again), else :meth:`next_version` (late57
        l272: a failed stand-alone plan made the next ``optimize`` number its version V2, memory/ holding v0 and v2).
        """
        n = self.next_version() - 1
        if n > 0 and not self.memory.exists(n) and not self.plan_path(n).exists():
            return n
        return n + 1

    def writable_version(self, version: int, flag: str = "--version") -> int:
        """``version`` when a stage run by hand may write under it: a number already used, or the next one.

        Raises:
            UsageError: negative, or past the next: a ``profiles/v99/`` (or ``plans/v99_plan.md``) would number
                every later version after it (`profile --version 99` made the next plan "v99", then v100).
        """
        nxt = self.next_version()
        if not 0 <= version <= nxt:
            raise UsageError(
                f"{flag} {version}: this workspace's next version is V{nxt}",
                hint=f"give {nxt} or an earlier one"
                + (
                    f"; anything written for v{version} would number every later version after it"
                    if version > nxt
                    else ""
                ),
            )
        return version

    def latest_unmasked(self) -> int | None:
        """The highest version whose record is not masked, or ``None``."""
        rec = self.memory.latest()
        return rec.number if rec else None

    # -- git ------------------------------------------------------------------------------------

    @property
    def repo(self) -> git.Repo:
        return self._repo

    def _git(self, *args: str, exact: bool = False) -> str:
        import git

        for _ in range(2):  # a second time only after a stale lock of git's was removed
            try:
                # GitPython strips the last newline of the output unless told not to (file contents need it)
                return str(self._repo.git.execute(["git", "-c", NO_HOOKS, *args], strip_newline_in_stdout=not exact))
            except git.GitCommandError as exc:
                if not self._removed_stale_git_lock(str(exc.stderr)):
                    raise git_failure(f"git {' '.join(args)}", str(exc.stderr), self.root) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _removed_stale_git_lock(self, stderr: str) -> bool:
        """Remove the lock file git says it could not create (``Unable to create '.../.git/index.lock': File
        exists``) when it is stale: a git command killed with SIGKILL (a run killed with its process group) leaves
        it, and every git command after it failed. It is stale when this process holds the workspace's run lock (no
        kernelopt run works here) and no process has the file open (a git command holds its lock file open until
        it is done). True when it was removed (the command is run again).

        Before, a stale ``index.lock`` let ``optimize`` run a whole iteration, then fail at its commit with git's
        last line, ``remove the file manually to continue.`` (fault trial faults7, f4).
        """
        found = _GIT_LOCK_RE.search(stderr)
        if found is None:
            return False
        lock = Path(found.group(1))
        git_dir = (self.root / ".git").resolve()
        if not lock.is_absolute():
            lock = self.root / lock
        if git_dir not in lock.resolve().parents or not RunLock(self.root).held_here() or _open_anywhere(lock):
            return False
        try:
            lock.unlink()
        except FileNotFoundError:  # gone meanwhile: the command may run again all the same
            pass
        except OSError:
            return False
        return True

    def head(self) -> str:
        """The full hash of HEAD (read from .git by GitPython: a loop asks it dozens of times per version;
        ``git rev-parse`` says why when GitPython cannot tell, e.g. before the first commit)."""
        try:
            return str(self._repo.head.commit.hexsha)
        except Exception:  # whatever GitPython could not read, git itself answers (or says why not)
            return self._git("rev-parse", "HEAD").strip()

    def branch(self) -> str | None:
        """The branch ``.git/HEAD`` names (``refs/heads/master``); ``None`` when HEAD is detached. A repository whose
        refs are in a reftable keeps a placeholder in that file, and git itself is asked."""
        import git  # imported where used: GitPython runs `git version` when it is imported

        try:
            text = (Path(self._repo.git_dir) / "HEAD").read_bytes().decode("utf-8", errors="replace").strip()
        except FileNotFoundError:
            text = ""
        name = text.removeprefix("ref:").strip() if text.startswith("ref:") else None
        if name != "refs/heads/.invalid":
            return name
        try:
            return self._repo.git.symbolic_ref("-q", "HEAD").strip() or None
        except git.GitCommandError:
            return None

    def is_clean(self, *, paths: list[str] | None = None) -> bool:
        """True when tracked files (optionally only ``paths``) have no uncommitted change."""
        args = ["status", "--porcelain", "--untracked-files=no"]
        if paths:
            args += ["--", *paths]
        return self._git(*args).strip() == ""

    def deleted_records(self) -> dict[str, str]:
        """The records (``memory/v<N>.json``) a commit of HEAD's history holds that are gone from the folder, deleted by
        hand, each with the (short) hash of the last commit that holds it: the loop never deletes a committed record,
        and without one it takes that version for never run (the run's end put V0's kernel.py back as "the fastest
        passing version" when V1's record had been deleted). Deleted from the folder, by ``git rm`` or in a commit
        alike (break20 b35: ``git rm memory/v1.json``, committed or not, was not seen, and the run ended on V0)."""
        ever = self._git("log", "--format=", "--name-only", "HEAD", "--", "memory/").splitlines()
        gone = {rel for rel in ever if re.fullmatch(r"memory/v\d+\.json", rel) and not (self.root / rel).is_file()}
        return {rel: _last_held(self.root, rel) for rel in sorted(gone, key=lambda r: int(r[len("memory/v") : -5]))}

    def restore_records(self, deleted: Mapping[str, str]) -> str:
        """The command line that puts ``deleted`` (:meth:`deleted_records`) back as their last commits hold them."""
        return restore_line(self.root, deleted)

    def commit(self, paths: list[str | Path], message: str, *, amend: bool = False) -> str:
        """Stage ``paths`` and commit with ``message`` (passed through a message file); returns the hash."""
        rel = [str(Path(p).resolve().relative_to(self.root)) if Path(p).is_absolute() else str(p) for p in paths]
        if rel:
            self._git("add", "--", *rel)
        self.state_dir.mkdir(exist_ok=True)
        msg_file = self.state_dir / "COMMIT_MSG"
        atomic_write_text(msg_file, message.rstrip() + "\n")
        args = ["commit", "-F", str(msg_file), "--allow-empty"]
        if amend:
            args.append("--amend")
        self._git(*args)
        return self.head()

    def amend(self, paths: list[str | Path]) -> str:
        """Add ``paths`` to the last commit, keeping its message; returns the new hash."""
        rel = [str(Path(p).resolve().relative_to(self.root)) if Path(p).is_absolute() else str(p) for p in paths]
        if rel:
            self._git("add", "--", *rel)
        self._git("commit", "--amend", "--no-edit", "--allow-empty")
        return self.head()

    def reset_hard(self, paths: list[str] | None = None, *, ref: str = "HEAD") -> None:
        """Restore tracked files (all, or ``paths``) to ``ref``; untracked files are left alone."""
        if paths:
            self._git("checkout", ref, "--", *paths)
        else:
            self._git("reset", "--hard", ref)

    def file_at(self, ref: str, path: str) -> str:
        """The text of ``path`` at commit ``ref``, byte for byte (its final newline included; bytes that are not
        UTF-8 as ``surrogateescape`` characters: :meth:`bytes_at` gives them back)."""
        return self._git("show", f"{ref}:{path}", exact=True)

    def bytes_at(self, ref: str, path: str) -> bytes:
        """The bytes of ``path`` at commit ``ref``, exactly: a kernel.py in its own encoding (a latin-1 one stays
        latin-1 when it is put back)."""
        return self.file_at(ref, path).encode("utf-8", "surrogateescape")

    def paths_at(self, ref: str) -> list[str]:
        """Every file path commit ``ref`` holds (workspace-relative, ``/``-separated)."""
        return [line for line in self._git("ls-tree", "-r", "--name-only", ref).splitlines() if line]

    def is_link_at(self, ref: str, path: str) -> bool:
        """True when ``path`` at commit ``ref`` is a symbolic link: git holds the path it names, not a kernel."""
        return self._git("ls-tree", ref, "--", path).startswith("120000 ")

    def keep_kernel_bytes(self, version: int) -> None:
        """Where kernel.py is a link (the user's project file), keep the bytes it leads to as version ``version``'s
        (:data:`KERNEL_BYTES_REF`): its commit holds only the path the link names."""
        if self.kernel_py.is_symlink() and self.kernel_py.is_file():
            blob = self._git("hash-object", "-w", "--no-filters", "--", str(self.kernel_py.resolve()))
            self._git("update-ref", KERNEL_BYTES_REF.format(n=version), blob)

    def kernel_at(self, ref: str, version: int) -> bytes | None:
        """Version ``version``'s kernel.py as its commit ``ref`` holds it, in its own encoding; where that is a link,
        the bytes it led to when the version was committed (:meth:`keep_kernel_bytes`), None when none were kept:
        the path a link names is never a kernel (late21's z10).

        Raises:
            GitError: ``ref`` is not a commit, or holds no kernel.py.
        """
        text = self.bytes_at(ref, "kernel.py")
        if not self.is_link_at(ref, "kernel.py"):
            return text
        try:
            kept = self._git("cat-file", "blob", KERNEL_BYTES_REF.format(n=version), exact=True)
        except GitError:
            return None
        return kept.encode("utf-8", "surrogateescape")

    def log(self, max_count: int = 50) -> list[tuple[str, str]]:
        """(short hash, subject) of recent commits, newest first."""
        out = self._git("log", f"--max-count={max_count}", "--format=%h%x09%s")
        return [tuple(line.split("\t", 1)) for line in out.splitlines() if "\t" in line]  # type: ignore[misc]


def version_commit(version: int, commit_hash: str | None, log: list[tuple[str, str]]) -> tuple[str, str] | None:
    """(short hash, subject) of version ``version``'s commit as plain ``git log`` shows it, or None.

    By hash when ``commit_hash`` is in ``log``, else by the subject prefix ``V<N>:``. The hash a record
    holds (``git_commit_hash``) is written before the amend that adds it (spec, Stage 5), so it names
    the commit the amend replaced (kept reachable as ``refs/kernelopt/v<N>``); the subject prefix finds
    the amended commit, the one ``git log`` shows. Every hash the summary and the report print comes
    from here.

    Args:
        version: N.
        commit_hash: the record's ``git_commit_hash`` (full or short), when it has one.
        log: (short hash, subject) pairs, newest first (:meth:`Workspace.log`).
    """
    if commit_hash:
        for short, subject in log:
            if commit_hash.startswith(short) or short.startswith(commit_hash):
                return short, subject
    prefix = f"V{version}:"
    return next(((short, subject) for short, subject in log if subject.startswith(prefix)), None)


WORKSPACE_MARKS = ("kernel.py", "reference.py", "test_kernel.py", ".git")
"""What a folder holds to be a workspace, as :meth:`Workspace.create` makes one."""


def _last_held(root: Path, rel: str) -> str:
    """The (short) hash of the newest commit of HEAD's history that holds ``rel`` (adds or changes it): the first line
    of the whole log, as git 2.39's ``-n1`` counts commits before ``--diff-filter`` drops one; ``HEAD`` where none
    does."""
    import git

    try:
        out = git.Repo(root).git.log("--format=%h", "--diff-filter=ACMRT", "HEAD", "--", rel)
    except (git.GitCommandError, git.InvalidGitRepositoryError):
        return "HEAD"
    return out.split("\n", 1)[0].strip() or "HEAD"


def restore_line(root: Path, held: Mapping[str, str]) -> str:
    """The command line that puts each file of ``held`` (its path in the workspace -> a commit that holds it) back
    from that commit: deleted by hand, by ``git rm`` or in a commit alike (``git checkout -- FILE`` restores nothing
    ``git rm`` took; break20 b35, b38)."""
    by: dict[str, list[str]] = {}
    for rel, commit in held.items():
        by.setdefault(commit, []).append(rel)
    where = shell_word(root)
    return " && ".join(f"git -C {where} checkout {commit} -- {' '.join(rels)}" for commit, rels in by.items())


def has_workspace_state(folder: Path) -> bool:
    """True when ``folder`` holds what only a workspace has, its git repository and ``memory/`` (whatever else was
    deleted from it): a folder to restore, never a task folder to make a workspace from."""
    return (Path(folder) / ".git").is_dir() and (Path(folder) / "memory").is_dir()


def looks_like_workspace(folder: Path) -> bool:
    """True when ``folder`` holds every one of :data:`WORKSPACE_MARKS` (no git started: a cheap test for a path's
    every parent)."""
    return all((Path(folder) / f).exists() for f in WORKSPACE_MARKS)


def enclosing_workspace(path: Path) -> Path | None:
    """The workspace ``path`` lies in (``path`` itself, or the nearest parent that looks like one), or None.

    ``path`` is taken as given: resolve it first to follow links."""
    for folder in (path, *path.parents):
        if looks_like_workspace(folder):
            return folder
    return None


def workspaces_made_from(folder: Path, root: Path) -> list[Workspace]:
    """Every workspace under ``root`` that ``kernelopt optimize`` made from the kernel folder ``folder``, whatever its
    name (``--name``): its first commit holds ``folder``'s kernel.py and reference.py as they are now. ``status DIR``
    read only the one of ``folder``'s own name, and called a run into another name's stopped (late32, z96). A folder
    whose files changed since a run began is found by its name alone (the caller's rule)."""
    parent = Path(root).expanduser()
    folder = Path(folder).expanduser()
    try:
        reference, kernel = (folder / "reference.py").read_bytes(), (folder / "kernel.py").read_bytes()
        places = sorted(p for p in parent.iterdir() if p.name.startswith(PREFIX) and p.is_dir())
    except OSError:
        return []
    found: list[Workspace] = []
    for place in places:
        try:  # reference.py is the run's truth, never changed by it: the cheap test first, then one git read
            if (place / "reference.py").read_bytes() != reference or not is_workspace(place):
                continue
            ws = Workspace(place)
            first = ws._git("rev-list", "--max-parents=0", "HEAD").split()[-1]
            if ws.bytes_at(first, "kernel.py") == kernel:
                found.append(ws)
        except (OSError, GitError, WorkspaceError, IndexError):  # an unreadable folder or history: not its run
            continue
    return found


def is_workspace(folder: Path) -> bool:
    """True when ``folder`` opens as a :class:`Workspace` and has its ``memory/`` folder."""
    try:
        Workspace(folder)
    except WorkspaceError:
        return False
    return (Path(folder) / "memory").is_dir()
