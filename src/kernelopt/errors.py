"""The one root of kernelopt's exceptions.

Exceptions are for a broken environment, bad input and our own bugs; a failing *candidate kernel* is
a result (see :mod:`kernelopt.harness`), never an exception. Each class carries structured fields so
the CLI's error boundary can print one line and choose an exit code.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass
from pathlib import Path

EXIT_BAD_INPUT = 2
"""Exit status of bad input: a wrong flag, name or file (:class:`UsageError` and its kind)."""
EXIT_ENVIRONMENT = 3
"""Exit status of a broken environment: a missing tool, a full disk, a read-only workspace."""


class KerneloptError(Exception):
    """Base class of every error kernelopt raises on purpose.

    Attributes:
        message: the one-line explanation shown to the user (no trailing period needed).
        hint: an optional fix, appended to the line after "; ".
        exit_code: process exit status the CLI uses (2 for bad input, 3 for environment problems).
    """

    exit_code: int = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """The message and hint on a single line, newlines folded."""
        text = self.message if not self.hint else f"{self.message}; {self.hint}"
        return " ".join(text.split())


class UsageError(KerneloptError):
    """The user asked for something that cannot be done as asked (bad name, bad flag value)."""

    exit_code = EXIT_BAD_INPUT


class InputFileError(UsageError):
    """A user-supplied file is missing, unreadable or lacks what the kernel contract requires."""

    def __init__(self, path: Path | str, message: str, *, hint: str | None = None) -> None:
        super().__init__(f"{path}: {message}", hint=hint)
        self.path = Path(path)


class WorkspaceError(KerneloptError):
    """A workspace is missing, malformed, or would be overwritten."""

    exit_code = EXIT_BAD_INPUT


class RecordError(KerneloptError):
    """A memory record (``memory/v<N>.json``) is missing, corrupt, or a change to it is invalid."""

    exit_code = EXIT_BAD_INPUT


class GitError(KerneloptError):
    """A git operation inside a workspace failed."""

    exit_code = EXIT_ENVIRONMENT


class EnvironmentProblem(KerneloptError):
    """A tool kernelopt needs (profiler, GPU, git) is missing or unusable."""

    exit_code = EXIT_ENVIRONMENT


CPU_DEVICE_FLAG = "--device cpu"
"""How the CLI asks for the CPU (the MCP server's tools take ``device="cpu"``: :meth:`NoGpu.said_to`)."""


class NoGpu(EnvironmentProblem):
    """No GPU where a command would run its kernel on one. The hint says what asking for the CPU does instead, in
    the caller's words: the CLI's ``--device cpu`` by default, another boundary's through :meth:`said_to` (the MCP
    server: ``device="cpu"``). The one place the no-GPU advice is worded.

    Args:
        message: what was found ("no NVIDIA GPU found: torch sees no CUDA device").
        on_cpu: what the CPU device does, after its name ("takes timing-only evidence on the CPU").
        doctor: the first advice, before the CPU's.
        cpu_device: how the caller asks for the CPU.
    """

    def __init__(
        self,
        message: str,
        *,
        on_cpu: str,
        doctor: str = "run `kernelopt doctor` to check the setup",
        cpu_device: str = CPU_DEVICE_FLAG,
    ) -> None:
        super().__init__(message, hint=f"{doctor}; {cpu_device} {on_cpu}")
        self.on_cpu = on_cpu
        self.doctor = doctor

    def said_to(self, cpu_device: str) -> NoGpu:
        """The same error, its advice naming the CPU as ``cpu_device`` (the caller's argument or setting)."""
        return NoGpu(self.message, on_cpu=self.on_cpu, doctor=self.doctor, cpu_device=cpu_device)


class CommandTimeout(KerneloptError):
    """An external command ran past its wall-clock limit and its process group was killed.

    Attributes:
        argv: the command that was run.
        timeout_s: the limit in seconds.
        stdout: what it printed before it was killed.
        stderr: what it wrote to stderr before it was killed.
    """

    exit_code = 4

    def __init__(self, argv: list[str], timeout_s: float, stdout: str = "", stderr: str = "") -> None:
        super().__init__(f"{argv[0]} ran past its {timeout_s:g} s limit and was killed")
        self.argv = argv
        self.timeout_s = timeout_s
        self.stdout = stdout
        self.stderr = stderr


class DiskProblem(EnvironmentProblem):
    """The file system refused a write: no space left, quota exceeded, read-only, or no permission.

    Attributes:
        path: the file the write was for, when the system said.
        errno: the system's error number (``errno.ENOSPC``, ``errno.EROFS``, ...).
    """

    def __init__(self, message: str, *, path: str | None, code: int, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.path = path
        self.errno = code


@dataclass(frozen=True)
class WritePlace:
    """Where a command writes, as its disk errors name it: what it is and the flag that moves it.

    Attributes:
        what: ``the workspace``, ``the session folder``.
        flag: the command's flag that puts it elsewhere (``--root``, ``--out``).
    """

    what: str
    flag: str | None


WORKSPACE = WritePlace("the workspace", "--root")
"""The place of ``init``, ``optimize`` and the commands on a workspace (the default of :func:`disk_problem`)."""
USER_FILE = WritePlace("the file", None)
"""A user's own file written where it lives (``tunables --set``): no flag moves it, and a refused write left it as
it was. A full disk there said "or pass --root to put the workspace elsewhere" (fault trial faults7, f6)."""

_IN_PLACE_HINTS: dict[int, str] = {
    errno.ENOSPC: "free some space and run again ({what} is as it was)",
    errno.EDQUOT: "free some space and run again ({what} is as it was)",
    errno.EROFS: "work on a copy on a writable disk ({what} is as it was)",
}
"""The hints of :data:`_DISK_ERRORS` for a place no flag moves (:data:`USER_FILE`)."""

_DISK_ERRORS: dict[int, tuple[str, str]] = {
    errno.ENOSPC: ("no space left on the device", "free some space (or pass {flag} to put {what} elsewhere)"),
    errno.EDQUOT: ("disk quota exceeded", "free some space (or pass {flag} to put {what} elsewhere)"),
    errno.EROFS: (
        "the file system is read-only",
        "copy {what} to a writable folder (or pass {flag} to create it elsewhere)",
    ),
    errno.EACCES: ("permission denied", "make {what} writable for this user"),
    errno.EPERM: ("operation not permitted", "make {what} writable for this user"),
}


def disk_problem(exc: OSError, *, place: WritePlace = WORKSPACE) -> DiskProblem | None:
    """The one-line environment error (exit 3) for an ``OSError`` the file system raised, or ``None``
    when ``exc`` is not one of the disk errors (ENOSPC, EDQUOT, EROFS, EACCES, EPERM). The hint names
    ``place``: the command's own flag (``tune`` has ``--out``, not ``--root``)."""
    known = _DISK_ERRORS.get(exc.errno) if exc.errno is not None else None
    if known is None:
        return None
    what, hint = known
    if place.flag is None:
        hint = _IN_PLACE_HINTS.get(exc.errno or 0, hint)
    target = exc.filename if exc.filename is not None else None
    where = f" writing {target}" if target is not None else ""
    return DiskProblem(
        f"{what}{where} (errno {exc.errno})",
        path=None if target is None else str(target),
        code=exc.errno or 0,
        hint=hint.format(what=place.what, flag=place.flag),
    )


def write_refusal(exc: OSError, *, place: WritePlace = WORKSPACE, hint: str | None = None) -> DiskProblem | None:
    """:func:`disk_problem`, or, for a write into a place the user named (a report file, a project folder), any
    refusal of the file system that names the file: a file system that makes no new file (``/proc``: ENOENT for a
    new file in a folder that exists) is the place's, never a crash log and exit 70. ``hint`` replaces the place's.
    ``None``: not a refusal of a named file."""
    problem = disk_problem(exc, place=place)
    if problem is None and exc.filename is not None:
        reason = exc.strerror or type(exc).__name__
        problem = DiskProblem(
            f"the file system refused writing {exc.filename} ({reason}, errno {exc.errno})",
            path=str(exc.filename),
            code=exc.errno or 0,
            hint="name a folder this user can write",
        )
    if problem is not None and hint is not None:
        problem = DiskProblem(problem.message, path=problem.path, code=problem.errno, hint=hint)
    return problem


_DISK_WORDS: dict[str, int] = {
    "No space left on device": errno.ENOSPC,
    "Disk quota exceeded": errno.EDQUOT,
    "Read-only file system": errno.EROFS,
    "Out of diskspace": errno.ENOSPC,  # git's own words when it cannot write the index (write_or_die)
}
"""The C library's words for the disk errors, as a child process (git) prints them, and git's own."""


def disk_problem_in(text: str, *, path: str | None = None) -> DiskProblem | None:
    """The one-line environment error (exit 3) for a child's error output that says the disk refused a
    write (``git``: "No space left on device"), or ``None``."""
    for words, code in _DISK_WORDS.items():
        if words in text:
            return disk_problem(OSError(code, words, path))
    return None
