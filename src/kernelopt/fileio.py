"""Foundation: writing files so that a reader never sees half of one.

Every persisted file of kernelopt (iteration records, summaries, plans, journals, reports, the
kernel edits of Stage 3) is written through :func:`atomic_write_text`: a temporary file in the same
folder, fsync, then ``os.replace``. A failed or interrupted write leaves the previous file intact.
An append-only record (a tuning session's JSONL) grows by :func:`append_line`: one whole line per write.
Every text is redacted on the way (:func:`kernelopt.redact.redact`): no kept file holds a secret. Code is
the exception: a kernel, a candidate or a reference is written as given (:func:`atomic_write_code`), since a
redacted program is another program.
A rewritten file keeps its mode; a new one gets the mode ``open()`` would give it (``0666 & ~umask``),
never ``mkstemp``'s private 0600 (:func:`new_file_mode`; :func:`new_folder_mode` for a staged folder).
:func:`redact_file` and :func:`redact_tree` clean files a child process wrote.

A user's file is written where it lives: a symbolic link is written through (its target gets the new text, the
link stays a link); a file with more than one hard link is refused (:class:`HardLinkRefused`), since a rename
would leave the other names on the old text. Its bytes are read once (:func:`read_source`: the encoding a
Python source declares, its line endings left as they are, CRLF included), and written back the same way
(:func:`replace_source`) only when the file still holds those bytes (:class:`SourceChanged` otherwise: an
edit made meanwhile is never lost). SIGINT, SIGTERM and SIGHUP wait while the temporary file is renamed into
place (:func:`signals_held`): an interrupt lands before the write or after it, never in between.

Temporary files and folders say whose they are: ``.<name>.kernelopt-<pid>-<random>.tmp`` beside a file,
``kernelopt-<kind>-<pid>-<random>`` in the temporary folder (:func:`owned_temp_dir`). A process killed with
SIGKILL cannot remove them; the next write of the same file, or the next folder of that kind, removes those
whose owner process is gone (:func:`remove_stale`). This module imports nothing of kernelopt but the
redactor and the error classes, so every layer may use it.
"""

from __future__ import annotations

import codecs
import os
import re
import shutil
import signal
import stat
import tempfile
import threading
import tokenize
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from kernelopt import exchange
from kernelopt.errors import EnvironmentProblem, InputFileError, UsageError
from kernelopt.redact import redact

#: The tag of every temporary name kernelopt makes (followed by the owner's PID).
OWNER_TAG = "kernelopt"
#: The signals held while a file is renamed into place (a terminal's Ctrl-C, a job's cancel, a closed terminal).
HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class HardLinkRefused(UsageError):
    """The file has other hard links: replacing it would leave them on the old text (exit 2)."""


class ReadOnlyRefused(EnvironmentProblem):
    """The file is read-only (no write bit, or not writable by this user): a rename would replace it anyway
    (exit 3, as no permission)."""


class SourceChanged(UsageError):
    """The file no longer holds the bytes it was read with: it was edited, replaced or deleted (exit 2).

    Attributes:
        kept: a file kept beside it (a save that reached the new text while it was in place), else None.
    """

    def __init__(self, message: str, *, hint: str | None = None, kept: Path | None = None) -> None:
        super().__init__(message, hint=hint)
        self.kept = kept


def umask() -> int:
    """The process's umask, read without changing it where Linux tells it (``/proc/self/status``)."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and put back (the only portable way to read it)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: ``0666 & ~umask`` (0644 under umask 022)."""
    return 0o666 & ~umask()


def new_folder_mode() -> int:
    """The mode ``mkdir`` gives a new folder: ``0777 & ~umask`` (0755 under umask 022); for a folder built
    in a ``mkdtemp`` staging folder (0700) and moved into place."""
    return 0o777 & ~umask()


def link_target(path: Path) -> str | None:
    """Where the symbolic link ``path`` points, as the link writes it (``os.readlink``); ``None`` where ``path`` is no
    link (a file, a folder, nothing). The one reading of a link of the guard and the stages (leftovers20's l8)."""
    try:
        return os.readlink(path)
    except OSError:  # not a link (EINVAL), or no such path
        return None


def made_a_link(path: Path, was: str | None) -> bool:
    """Whether ``path`` is now a symbolic link it was not as a stage began (``was``: where it pointed then, ``None``:
    no link): a file made a link, or a link pointed elsewhere. A link the user made that the stage wrote through (a
    workspace's kernel.py kept as a link to their project's file) is the stage's edit of that file, not a link it made
    (late19 z5 in the guard; leftovers20's l7 in Stage 3's own check and the agent-cli implementer's)."""
    now = link_target(path)
    return now is not None and now != was


def file_in_the_way(folder: Path) -> Path | None:
    """The first of ``folder`` and the folders above it that exists and is not a folder (a file where a folder of
    the path goes, so nothing can be made there), or ``None``."""
    return next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text``, redacted (:func:`kernelopt.redact.redact`), to ``path`` atomically (temp file in
    the same folder, fsync, rename), as UTF-8 with its line endings as given.

    Creates the parent folders. An existing file keeps its mode (a ``kernel.py`` of 0644 stays 0644); a
    new one gets :func:`new_file_mode`. A symbolic link is written through. On any error the temporary file
    is removed and ``path`` keeps its previous content (or stays absent).

    Raises:
        HardLinkRefused: ``path`` has other hard links.
    """
    with naming(path):
        # surrogateescape: a path an ASCII locale decoded (caf\udcc3\udca9) is written as its own bytes
        _write_bytes(path, redact(text).encode("utf-8", "surrogateescape"))


def atomic_write_code(path: Path, text: str) -> None:
    """Write source code to ``path`` as :func:`atomic_write_text` does, but exactly as given: never redacted, and
    in the encoding its coding line declares (:func:`encode_code`; UTF-8 without one).

    Redacting code changes the program: with ``BUILD_KEY=empty_like`` in the environment, ``torch.empty_like``
    became ``torch.[redacted]`` in every candidate of a tuning session (issue 35). A kernel, a candidate and a
    reference are code; a secret that code holds is the guard's to refuse (:mod:`kernelopt.stages.guard`),
    not the writer's to hide.
    """
    data = encode_code(text, path)  # in the encoding its coding line declares (UTF-8 without one)
    with naming(path):
        _write_bytes(path, data)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` (an image, an archive) to ``path`` as :func:`atomic_write_text` writes text: a temporary
    file, fsync, rename; on any error the temporary file is removed and the error names ``path``."""
    with naming(path):
        _write_bytes(path, data)


@contextmanager
def naming(path: Path) -> Iterator[None]:
    """An ``OSError`` without a file name (a write or fsync refused for want of space: ENOSPC names no path)
    leaves with ``path`` as its file name, so its one-line error says which file the disk refused."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise type(exc)(exc.errno, exc.strerror, str(path)) from exc


READ_ONLY_MOUNT = "{path}: on a read-only file system, so nothing was written to it"
READ_ONLY_MOUNT_HINT = "work on a copy on a writable disk (or mount it read-write) and run again"


def _mounted_read_only(folder: Path) -> bool:
    """True when ``folder`` lies on a file system mounted read-only (False when it does not exist yet)."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:  # no such folder (yet): the write says what is missing
        return False


def write_target(path: Path) -> Path:
    """The file a write of ``path`` replaces: the end of its symbolic links (``path`` itself otherwise).

    Raises:
        UsageError: ``path`` is a folder.
        ReadOnlyRefused: that file is read-only (its mode has no write bit, or this user may not write it).
        HardLinkRefused: that file has other hard links (a rename would split them from the new text).
    """
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        info = target.stat()
    except OSError:
        return target
    if stat.S_ISDIR(info.st_mode):  # a folder's link count is its subfolders: never "hard links"
        raise UsageError(f"{path}: is a folder, not a file; name a file to write")
    if not stat.S_IMODE(info.st_mode) & 0o222 or not os.access(target, os.W_OK):
        if _mounted_read_only(target.parent):  # chmod cannot help there (`tunables --set` said "mode 0644; chmod")
            raise ReadOnlyRefused(READ_ONLY_MOUNT.format(path=path), hint=READ_ONLY_MOUNT_HINT)
        raise ReadOnlyRefused(  # a rename into its folder would replace it all the same
            f"{path}: read-only (mode {stat.S_IMODE(info.st_mode):04o}), so nothing was written to it",
            hint="make it writable (chmod u+w) and run again",
        )
    links = info.st_nlink
    if links > 1:
        raise HardLinkRefused(
            f"{path}: has {links} hard links; kernelopt replaces a file by renaming a new one into place, "
            "which would leave the other names on the old text",
            hint="make it a single file (or a symbolic link to one) and run again",
        )
    return target


def source_target(path: Path) -> Path:
    """:func:`write_target` of a user's source, with what the rename into its folder needs besides: a file system
    mounted read-write, and a folder this user may write. Asked before a session, so a file that cannot be written
    is said before any candidate runs, in words that name what to change (on a read-only mount, a file of mode
    0644 was "read-only (mode 0644) ...; make it writable (chmod u+w)": second fault trial, t7).

    Raises:
        ReadOnlyRefused: a read-only file system, a folder this user may not write, or a read-only file.
        HardLinkRefused: the file has other hard links.
    """
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    folder = target.parent
    if _mounted_read_only(folder):
        raise ReadOnlyRefused(READ_ONLY_MOUNT.format(path=path), hint=READ_ONLY_MOUNT_HINT)
    if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
        raise ReadOnlyRefused(
            f"{path}: its folder {folder} is not writable, and a write renames a new file into it, so nothing "
            "was written",
            hint="make the folder writable (chmod u+w) and run again",
        )
    return write_target(path)


def _write_bytes(path: Path, data: bytes, *, expected: bytes | None = None) -> None:
    """``data`` into ``path`` (through its links) by a temporary file, fsync and rename, with the signals
    held around the rename; with ``expected``, only when the file still holds those bytes."""
    target = write_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        mode = new_file_mode()
    prefix = f".{target.name}.{OWNER_TAG}-"
    remove_stale(target.parent, prefix, suffix=".tmp", kept=target.with_name(f"{target.name}.kept-{os.getpid()}"))
    fd, tmp = tempfile.mkstemp(prefix=f"{prefix}{os.getpid()}-", suffix=".tmp", dir=target.parent)
    if expected is not None:  # a user's source: the name says which file is the new one (a swap may bring theirs)
        named = str(target.parent / f"{prefix}{os.getpid()}-ino-{os.fstat(fd).st_ino}.tmp")
        os.rename(tmp, named)
        tmp = named
    ours: os.stat_result | None = None  # None: the write failed before the swap (a full disk): the file is ours
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), mode)  # mkstemp's file is 0600 whatever the umask
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        ours = os.stat(tmp)
        with signals_held():
            if expected is None:
                os.replace(tmp, target)
            else:
                _swap_in(Path(tmp), target, path, expected)
    except BaseException:
        with suppress(OSError):  # the temporary name may hold a file of the user's after a swap: never theirs
            if ours is None or _same(os.lstat(tmp), ours):
                os.unlink(tmp)
        raise


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _read_all(fd: int) -> bytes:
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


#: How many saves landing during one write the swap back follows before it stops (each is a rename by the user).
MAX_SWAPS = 64


def _swap_in(tmp: Path, target: Path, path: Path, expected: bytes) -> None:
    """Put the new file ``tmp`` in ``target``'s place only over the bytes ``expected``, with no window in which
    a save of the user's can be lost (the exchange and the lease of :mod:`kernelopt.exchange`).

    The file the name holds (X) is opened and leased, and checked; the names are exchanged; what came back under
    ``tmp`` is X, still ``expected``, and no writer waits on it: written, X goes. Anything else means the user
    saved during the write (a rename put another file in place, or an editor's open for writing waits on X):
    the user's file is swapped back, following any later save, and the new file goes; an editor waiting on X
    then writes into the file in place. Where the exchange is not available: the check and ``os.replace``.

    Raises:
        SourceChanged: the user's file changed (before or during the write); it is in place, nothing written.
    """
    _check_unchanged(path, expected)
    x_fd = os.open(target, os.O_RDONLY)
    try:
        x_lease = exchange.ReadLease(x_fd)  # from here an open of X for writing waits, and is seen
        if _read_all(x_fd) != expected:
            raise _changed(path)
        t_fd = os.open(tmp, os.O_RDONLY)
        try:
            t_lease = exchange.ReadLease(t_fd)  # a save reaching the new file while it is in place is seen too
            if not exchange.swap(tmp, target):
                _check_unchanged(path, expected)
                os.replace(tmp, target)
                return
            back = os.lstat(tmp)
            if _same(back, os.fstat(x_fd)) and not x_lease.broken() and _read_all(x_fd) == expected:
                os.unlink(tmp)  # X: what the session read, which nobody can write any more
                return
            kept = _swap_back(tmp, target, ours=os.fstat(t_fd), back=back, reached=t_lease.broken)
        finally:
            os.close(t_fd)
    finally:
        os.close(x_fd)  # the lease goes: an editor's open waiting on X goes on, into the file in place
    raise SourceChanged(
        f"{path} changed while it was written; nothing written (the edit made meanwhile is kept"
        + (f"; a save that reached the new text is in {kept})" if kept is not None else ")"),
        hint="run again: the session record serves what was measured",
        kept=kept,
    )


def _swap_back(
    tmp: Path, target: Path, *, ours: os.stat_result, back: os.stat_result, reached: Callable[[], bool]
) -> Path | None:
    """After a swap that brought back a file of the user's (``back``, under ``tmp``): the user's latest file in
    ``target``'s place again, the new file (``ours``) gone; the path of a file kept beside, if any.

    Each exchange puts the file under ``tmp`` in place and brings back what ``target`` held; when that is not
    what the previous exchange put there, another save landed meanwhile (a newer file): it goes in place next.
    What is left under ``tmp`` at the end is the new file, or a save the user's later one replaced (as its rename
    would have). The new file is kept beside rather than removed when a writer may have reached it while it was
    in place (its lease broken)."""
    previous, placed = ours, back
    try:
        for _ in range(MAX_SWAPS):
            exchange.swap(tmp, target)
            got = os.lstat(tmp)
            if _same(got, previous):
                break
            previous, placed = placed, got
        else:
            return _keep_beside(tmp, target)
    except OSError:  # the user's file stays where it is, under a name that says so
        return _keep_beside(tmp, target)
    if _same(previous, ours) and reached():
        return _keep_beside(tmp, target)
    os.unlink(tmp)
    return None


def _keep_beside(tmp: Path, target: Path) -> Path:
    kept = target.with_name(f"{target.name}.kept-{os.getpid()}")
    os.replace(tmp, kept)
    return kept


def _changed(path: Path) -> SourceChanged:
    return SourceChanged(
        f"{path} changed during the session; nothing written (the edit made meanwhile is kept)",
        hint="run again: the session record serves what was measured",
    )


# ---------------------------------------------------------------------------------------------- a user's source


@dataclass(frozen=True)
class SourceText:
    """A source file as read: its bytes, its text and the encoding that turns one into the other.

    Attributes:
        path: the file (a symbolic link stays the link's path).
        raw: its bytes.
        text: its text, line endings as they are in the file (CRLF stays CRLF).
        encoding: the encoding its bytes declare (:func:`tokenize.detect_encoding`: a BOM, a coding line,
            else UTF-8); ``utf-8-sig`` keeps a BOM.
    """

    path: Path
    raw: bytes
    text: str
    encoding: str


def decode_python(raw: bytes, path: Path | str) -> tuple[str, str]:
    """The text of a Python source's bytes and its encoding, by Python's own rules (PEP 263, as
    :func:`tokenize.open` reads a file): a UTF-8 BOM, else a coding line on line 1 or 2
    (``# -*- coding: latin-1 -*-``), else UTF-8. Line endings are left as they are (CRLF stays CRLF).

    A latin-1 kernel.py with its coding line is Python that imports, so it is read, and written back in its
    encoding (:func:`replace_source`, :func:`atomic_write_code`); it was refused as "not UTF-8 text" (faults8).

    Raises:
        InputFileError: the bytes are not text in the encoding they declare (or, with no coding line, not
            UTF-8, which Python would not import either), the coding line names an encoding Python does
            not know, or they hold a NUL byte: one line naming ``path``, the encoding and the first byte that does
            not decode.
    """
    if (nul := raw.find(b"\0")) >= 0:  # Python refuses it ("source code cannot contain null bytes"); libcst did not
        line = raw.count(b"\n", 0, nul) + 1
        raise InputFileError(
            path,
            f"holds a NUL byte (byte {nul}, line {line}), so Python would not import it either",
            hint="remove that byte (a binary file, or one cut short by a crash?)",
        )
    lines = iter(raw.splitlines(keepends=True))
    try:
        encoding, _ = tokenize.detect_encoding(lambda: next(lines, b""))
    except SyntaxError as exc:  # a first line that is not UTF-8 and names no encoding, or an unknown name
        if str(exc.msg).startswith("unknown encoding"):
            named = str(exc.msg).rsplit(": ", 1)[-1]
            raise InputFileError(
                path,
                f"its coding line names {named!r}, an encoding Python does not know, so Python would not import it "
                "either",
                hint="correct its coding line (PEP 263), e.g. # -*- coding: latin-1 -*-",
            ) from None
        if str(exc.msg).startswith("encoding problem"):  # a UTF-8 BOM, and a coding line naming another encoding
            declared = next(
                (m.group(1).decode("ascii", "replace") for m in map(_CODING.match, raw[3:].splitlines()[:2]) if m),
                "another",
            )
            raise InputFileError(
                path,
                f"starts with a UTF-8 byte order mark but its coding line declares {declared}, so Python would not "
                "import it either",
                hint="drop the byte order mark or the coding line, whichever is wrong (PEP 263)",
            ) from None
        encoding = "utf-8-sig" if raw.startswith(codecs.BOM_UTF8) else "utf-8"
    try:
        return raw.decode(encoding), encoding
    except UnicodeDecodeError as exc:
        where = f"byte {exc.start} is 0x{raw[exc.start]:02x}"
        if encoding in ("utf-8", "utf-8-sig") and not _declares(raw):
            raise InputFileError(
                path,
                f"not UTF-8 text ({where}) and no coding line names another encoding, so Python would not import it "
                "either",
                hint="save it as UTF-8, or name its encoding on line 1 or 2 (# -*- coding: latin-1 -*-, PEP 263)",
            ) from None
        raise InputFileError(
            path,
            f"not {encoding} text, the encoding its coding line declares ({where}), so Python would not import it "
            "either",
            hint="save it in that encoding, or correct its coding line (PEP 263)",
        ) from None


def _declares(raw: bytes) -> bool:
    """True when line 1 or 2 of a source is a coding line (PEP 263)."""
    return any(_CODING.match(line) for line in raw.splitlines()[:2])


#: PEP 263's coding line, as the tokenizer matches it.
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def code_encoding(text: str) -> str:
    """The encoding a Python source's text is written in: the one its coding line declares (PEP 263), else UTF-8
    (a BOM is a character of the text, written as UTF-8 as it came)."""
    head = text.encode("utf-8", "surrogateescape").splitlines(keepends=True)[:2]
    lines = iter(head)
    try:
        encoding, _ = tokenize.detect_encoding(lambda: next(lines, b""))
    except SyntaxError:  # a BOM with another coding line, an unknown name: Python reads such a file as UTF-8 or not
        return "utf-8"
    return "utf-8" if encoding in ("utf-8", "utf-8-sig") else encoding


def encode_code(text: str, path: Path | str) -> bytes:
    """``text`` as the bytes of a Python source: in the encoding its coding line declares (:func:`code_encoding`),
    so that Python reads back the same text (a latin-1 kernel's candidates and edits stay latin-1).

    Raises:
        InputFileError: the text holds a character its declared encoding cannot hold.
    """
    encoding = code_encoding(text)
    if encoding == "utf-8":
        return text.encode("utf-8", "surrogateescape")
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise InputFileError(
            path,
            f"holds {exc.object[exc.start]!r}, which {encoding}, the encoding its coding line declares, cannot hold; "
            "nothing was written",
            hint="write that character as an escape, or save the file as UTF-8 (and drop its coding line)",
        ) from None


def read_python(path: Path | str) -> str:
    """The text of the Python source ``path`` by :func:`decode_python` (line endings as they are): for a parser
    (``ast.parse``, libcst) of a kernel.py or a reference.py.

    Raises:
        OSError: it cannot be read.
        InputFileError: its bytes are not text in the encoding they declare.
    """
    return decode_python(Path(path).read_bytes(), path)[0]


def read_source(path: Path) -> SourceText:
    """``path``'s bytes and text (:class:`SourceText`), decoded by :func:`decode_python`.

    Raises:
        OSError: it cannot be read.
        InputFileError: its bytes are not text in the encoding they declare (:func:`decode_python`).
    """
    raw = path.read_bytes()
    text, encoding = decode_python(raw, path)
    return SourceText(path=path, raw=raw, text=text, encoding=encoding)


def replace_source(source: SourceText, text: str) -> None:
    """Write ``text`` over the file ``source`` was read from, in its encoding, only while the file still
    holds ``source.raw`` (checked again with the signals held, just before the rename). The text is written
    as given: a source is code, never redacted.

    Raises:
        SourceChanged: the file was edited, replaced or deleted since it was read (nothing is written).
        HardLinkRefused: the file has other hard links.
        InputFileError: ``text`` has a character the file's encoding cannot hold (nothing is written).
    """
    _check_unchanged(source.path, source.raw)
    try:
        data = text.encode(source.encoding)
    except UnicodeEncodeError as exc:
        raise InputFileError(
            source.path,
            f"the new text holds {exc.object[exc.start]!r}, which {source.encoding}, the file's encoding, cannot "
            "hold; nothing was written",
            hint="save the file as UTF-8 (and drop its coding line) and run again",
        ) from None
    with naming(source.path):
        _write_bytes(source.path, data, expected=source.raw)


def _check_unchanged(path: Path, expected: bytes) -> None:
    try:
        now = path.read_bytes()
    except FileNotFoundError:
        raise SourceChanged(
            f"{path} was deleted during the session; nothing written", hint="restore it and run again"
        ) from None
    except IsADirectoryError:  # replaced by a folder: changed like any edit (it was exit 70; second trial, t12)
        raise SourceChanged(f"{path} is a folder now; nothing written", hint="restore the file and run again") from None
    if now != expected:
        raise _changed(path)


@contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP wait until the block ends, then take their course (the handler they had
    runs: Ctrl-C raises there, after the block): for a rename that must happen whole or not at all.

    The handlers are swapped for ones that only note the signal, not the signal mask: a mask holds one thread
    only, and the kernel hands a process's signal to any thread that does not block it (a progress bar's, a
    worker pool's keeper). In a thread other than the main one (where no handler can be set), or where a
    handler was set outside Python (it could not be put back), a no-op.
    """
    if threading.current_thread() is not threading.main_thread() or any(
        signal.getsignal(sig) is None
        for sig in HELD_SIGNALS  # a handler set outside Python: left alone
    ):
        yield
        return
    noted: list[int] = []

    def note(signum: int, _frame: object) -> None:
        noted.append(signum)

    previous = {sig: signal.signal(sig, note) for sig in HELD_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if noted:
            signal.raise_signal(noted[0])


# ---------------------------------------------------------------------------------------------- owned names


def pid_alive(pid: int) -> bool:
    """True while process ``pid`` exists (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale(folder: Path, prefix: str, *, suffix: str = "", kept: Path | None = None) -> list[Path]:
    """Remove the entries of ``folder`` named ``<prefix><pid>-...<suffix>`` whose process ``pid`` is gone
    (files, and folders with what they hold); the ones removed. Names of another form, of a living process,
    or that cannot be removed, stay.

    A name ``<prefix><pid>-ino-<inode><suffix>`` is the new text of a user's source (:func:`replace_source`): when the
    file under it is another (a swap brought the user's file back there and the writer was killed before the
    swap back), it is the user's, and is moved to ``kept`` (when given), never removed."""
    removed: list[Path] = []
    try:
        names = [n for n in os.listdir(folder) if n.startswith(prefix) and n.endswith(suffix)]
    except OSError:
        return removed
    for name in names:
        head, _, rest = name[len(prefix) : len(name) - len(suffix)].partition("-")
        if not head.isdigit() or pid_alive(int(head)):
            continue
        entry = folder / name
        try:
            ino = rest.removeprefix("ino-")  # mkstemp's own names hold no "-"
            if ino != rest and ino.isdigit() and entry.lstat().st_ino != int(ino):
                if kept is not None and not kept.exists():
                    os.rename(entry, kept)
                continue  # a file of the user's: kept where it is when it cannot be moved
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        except OSError:
            continue
        removed.append(entry)
    return removed


def owned_temp_dir(kind: str) -> Path:
    """A new folder ``kernelopt-<kind>-<pid>-<random>`` in the temporary folder (0700), after removing the
    ones of that kind whose owner process is gone (a run killed with SIGKILL)."""
    prefix = f"{OWNER_TAG}-{kind}-"
    remove_stale(Path(tempfile.gettempdir()), prefix)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))


def append_line(path: Path, line: str) -> None:
    """Append ``line`` and a newline to ``path`` in one write, then fsync (a JSONL record's one entry).

    A line is written whole or, if the process dies mid-write, left as a last line without its newline,
    which readers of such records ignore. ``path`` must exist (its header is written with
    :func:`atomic_write_text`); ``line`` must hold no newline.

    Raises:
        ValueError: ``line`` holds a newline.
    """
    if "\n" in line:
        raise ValueError("a record line holds no newline")
    with naming(path), path.open("a", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write(redact(line) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def redact_file(path: Path) -> bool:
    """Redact a text file in place (one a child process wrote); True when it changed.

    A missing file, a folder or a file that is not UTF-8 text is left alone; the rewrite is atomic.
    """
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if redact(text) == text:
        return False
    atomic_write_text(path, text)
    return True


def redact_tree(folder: Path) -> list[Path]:
    """Redact every text file under ``folder`` in place; the files that changed."""
    if not folder.is_dir():
        return []
    return [p for p in sorted(folder.rglob("*")) if p.is_file() and redact_file(p)]
