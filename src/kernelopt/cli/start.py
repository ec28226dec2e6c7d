"""The process's entry point (the ``kernelopt`` console script and ``python -m kernelopt``).

It imports the CLI inside its own interrupt handling: the first second of a run is Python importing typer,
rich, pydantic and the commands (about 0.8 s on the 2-core CI machine), and a Ctrl-C there printed a
traceback. Now it is the one line and exit 130 of any other interrupt. Once ``main`` has returned, the
outcome is said: SIGINT, SIGTERM and SIGHUP are ignored while the process ends (the ``atexit`` hook that
stops the fork servers takes up to 5 s), so a second Ctrl-C neither prints a traceback nor changes the exit
status. A signal that lands before Python has set its own handler (the interpreter's first milliseconds)
still ends the process as the signal's default does: killed by SIGINT, nothing printed (the shell's 130).

Only the standard library is imported at the top: everything else is imported under the handler.
"""

from __future__ import annotations

import sys


def run() -> None:
    """Run the CLI on ``sys.argv[1:]`` and end the process with its exit status."""
    code: int | None = None
    _fill_closed_descriptors()
    try:
        from kernelopt.cli.app import main

        code = main()
    except KeyboardInterrupt:  # before main's own handling (the imports), or just after main returned
        ignore_interrupts()
        if code is None:
            code = _say_interrupted()
    except Exception as exc:  # an interrupt that an import's machinery wrapped (faults7, f1)
        if not cut_by_interrupt(exc):
            raise
        ignore_interrupts()
        code = _say_interrupted()
    ignore_interrupts()
    _forget_caught_interrupts()
    proc = sys.modules.get("kernelopt.proc")  # imported by the CLI; never imported again after an interrupt cut
    if proc is not None and hasattr(proc, "exit_process"):  # it short (nor anything it imports, twice)
        proc.exit_process(code)
    sys.exit(code)


def json_asked(args: list[str]) -> bool:
    """``--json`` among the command line's options (before a ``--``): the one rule of whether a refused or interrupted
    command owes stdout one JSON object (:func:`kernelopt.cli.app.main` asks it too, with the command built)."""
    return "--json" in (args[: args.index("--")] if "--" in args else args)


def _say_interrupted() -> int:
    """An interrupt before the CLI was imported (or as it was): the one line on stderr and, under ``--json``, the
    one object on stdout that every refused or interrupted command prints (a script parsing stdout got nothing:
    newuser21 n154); the exit status, 130."""
    sys.stderr.write("kernelopt: interrupted\n")
    if sys.stdout is not None and json_asked(sys.argv[1:]):
        try:
            import json  # the signals are ignored by now: nothing cuts this import

            sys.stdout.write(json.dumps({"error": {"code": 130, "message": "interrupted"}}, indent=2) + "\n")
            sys.stdout.flush()
        except (OSError, ValueError):  # stdout closed, or its reader gone
            pass
    return 130


def _forget_caught_interrupts() -> None:
    """The exit status is :func:`run`'s to decide: clear CPython's "unhandled KeyboardInterrupt" flag.

    CPython 3.11 sets that flag when a KeyboardInterrupt leaves code run by ``exec`` or ``eval`` of a string
    (dataclasses and pydantic make their methods so while the CLI is imported), even when the interrupt is then
    caught; under ``python -m`` the process then ends killed by SIGINT, whatever ``sys.exit`` said. A Ctrl-C in the
    first second of ``tune`` said ``kernelopt: interrupted`` and then ended by SIGINT in 4 runs of 38 (faults7's
    leftover; faults8, f14). Where the flag is not there (another Python), nothing to do.
    """
    if sys.implementation.name != "cpython":
        return
    try:
        import ctypes

        ctypes.c_int.in_dll(ctypes.pythonapi, "_Py_UnhandledKeyboardInterrupt").value = 0
    except (ImportError, AttributeError, ValueError, OSError):  # not CPython, or a build that does not export it
        pass


def cut_by_interrupt(exc: BaseException) -> bool:
    """True when ``exc`` was raised because an interrupt cut its work short: a ``KeyboardInterrupt`` (a Ctrl-C, or
    SIGTERM/SIGHUP turned into one) is among its causes. Python 3.11 wraps an exception raised in a class's
    ``__set_name__`` in a ``RuntimeError`` ("Error calling __set_name__ on 'Field' instance ..."): a Ctrl-C while
    pydantic built a model at import ended ``tune`` in exit 1 and a traceback (fault trial faults7, f1)."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def _fill_closed_descriptors() -> None:
    """Descriptors 0, 1 and 2 that the process started without (``<&-``, ``>&-``, ``2>&-``), or with 1 and 2 open
    for reading only, get /dev/null; ``sys.stdout`` is then ``None`` (:func:`kernelopt.cli.app.main` refuses to
    run with nowhere to print) and a missing ``sys.stderr`` writes to /dev/null.

    A closed descriptor is taken by the next file the process opens: a lock or a record that became descriptor 1
    or 2 would receive what the run or a worker prints. A launcher can leave its own file there: under a pyenv
    shim, ``2>&-`` gave Python the shim script, open for reading, as descriptor 2, and every line to stderr
    failed with EBADF (a tune ended in exit 1 with kernel.py unwritten; second fault trial, t10).
    """
    import fcntl
    import os

    for fd in (0, 1, 2):
        try:
            usable = fd == 0 or fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY
        except OSError:
            usable = False
        if usable:
            continue
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        if fd == 1:
            sys.stdout = None  # type: ignore[assignment]  # nothing printed reaches anyone: the CLI refuses
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (the process's stderr, open until it ends)


def ignore_interrupts() -> None:
    """The outcome is decided and said (an interrupt was reported, or the command returned): from here SIGINT,
    SIGTERM and SIGHUP are ignored, so a second Ctrl-C while the process unwinds and ends (worker groups
    killed, the fork servers stopped by their ``atexit`` hook) neither prints a traceback nor changes the exit
    status or its one line. Inside :func:`kernelopt.proc.signals_as_interrupt` (all of ``main``) the handlers
    come back at its end, so a process that goes on (a test calling ``main``) is not left deaf; :func:`run`
    ignores them again for the process's end. Standard library only (it runs where an interrupt may have cut
    an import short). Main thread only (elsewhere a no-op).
    """
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)


def interrupt_said() -> bool:
    """True when an interrupt's line was said in this command: whoever says it calls :func:`ignore_interrupts`
    first, and :func:`kernelopt.proc.signals_as_interrupt` puts the handlers back only when ``main`` returns."""
    import signal

    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN
