"""The ``kernelopt`` command: builds the Typer app and owns the one error boundary.

Every command module exposes ``register(app)``; a command line imports only the module of the command it
runs (:data:`COMMANDS`). Errors of kernelopt's own classes become one line on stderr and their exit code;
an unexpected exception leaves a crash log (versions + traceback) and one line pointing at it, exit code 70.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import platform
import sys
import tempfile
import traceback
import warnings
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import typer

from kernelopt import __version__
from kernelopt.cli.examples import epilog
from kernelopt.cli.output import emit_json_error, forget_said, plain_flags, say_stop
from kernelopt.cli.paths import expand_home
from kernelopt.cli.start import cut_by_interrupt, ignore_interrupts, interrupt_said, json_asked
from kernelopt.env import DeprecatedVariable, EnvSettings, misspelt, raw_value
from kernelopt.errors import KerneloptError, disk_problem
from kernelopt.fileio import atomic_write_text
from kernelopt.proc import signals_as_interrupt
from kernelopt.redact import redact

COMMANDS: tuple[str, ...] = (
    "init",
    "profile",
    "evidence",
    "plan",
    "tunables",
    "tune",
    "implement",
    "prompt",
    "validate",
    "ceilings",
    "memory",
    "utilization",
    "optimize",
    "status",
    "report",
    "batch",
    "wiki",
    "schema",
    "doctor",
    "agent",
    "mcp",
)
"""Every command, in the order of ``kernelopt --help``. The command ``NAME`` lives in the module
``kernelopt.cli.NAME``, which exposes ``register(app)``; a module is imported only when its command may run
(:func:`command_modules`)."""


def command_modules(args: Sequence[str] | None = None) -> tuple[ModuleType, ...]:
    """The command modules a command line ``args`` needs, imported: the one module of the command its first
    argument names; every module for anything else (no arguments, ``--help``, ``--version``, a misspelt
    command, which click answers with the list of them). Importing all of them costs a CLI process about
    0.2 CPU-s more than importing one (2026-12-05)."""
    names = [args[0]] if args and args[0] in COMMANDS else list(COMMANDS)
    return tuple(importlib.import_module(f"kernelopt.cli.{name}") for name in names)


def build_app(args: Sequence[str] | None = None) -> typer.Typer:
    """The Typer application with the commands that the command line ``args`` may run registered (every
    command when ``args`` is None; :func:`command_modules`)."""
    app = typer.Typer(
        name="kernelopt",
        help="Profile-driven GPU kernel optimization: profile, plan one change, prove it, record it.",
        epilog=epilog("kernelopt"),
        no_args_is_help=True,
        invoke_without_command=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )

    @app.callback()
    def _root(
        ctx: typer.Context,
        version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True),
    ) -> None:
        if version:
            typer.echo(f"kernelopt {__version__}")
            raise typer.Exit(0)
        if ctx.invoked_subcommand is None:
            typer.echo(ctx.get_help())
            raise typer.Exit(0)
        # Every setting of the environment is checked before any command starts (exit 2, nothing
        # written): a malformed value must not surface mid-run as failed versions.
        EnvSettings.read()
        for line in misspelt():  # a typo'd variable is otherwise ignored in silence (newuser20 n141)
            sys.stderr.write(f"kernelopt: warning: {line}\n")

    for module in command_modules(args):
        module.register(app)
    for info in app.registered_commands:  # each command's help ends with lines that run (newuser20 n144)
        info.epilog = info.epilog or epilog(info.name or "")
    for group in app.registered_groups:  # and each command of a group (`agent install`: l275)
        for info in group.typer_instance.registered_commands if group.typer_instance is not None else ():
            info.epilog = info.epilog or epilog(f"{group.name} {info.name}")
    return app


def _crash_log(exc: BaseException) -> Path:
    """The crash log of an unexpected error (redacted, as every kept text), in ``KERNELOPT_CRASH_DIR``."""
    configured = raw_value("crash_dir")  # unvalidated: the crash may be another setting's
    folder = Path(configured).expanduser() if configured else Path(tempfile.gettempdir())
    path = folder / f"kernelopt-crash-{datetime.now(UTC):%Y%m%dT%H%M%S}-{os.getpid()}.log"
    atomic_write_text(
        path,
        f"kernelopt {__version__}\npython {sys.version}\nplatform {platform.platform()}\n"
        f"argv {sys.argv}\n\n" + "".join(traceback.format_exception(exc)),
    )
    return path


def _say(line: str) -> None:
    """``kernelopt: LINE`` on stderr (newlines folded), redacted (an error may quote what a child printed)."""
    say_stop(" ".join(redact(line).split()))


def _wants_json(command: Any, args: Sequence[str]) -> bool:
    """``--json`` given to a command that offers it (the command ``args`` name; any, where none was built)."""
    if not json_asked(list(args)):
        return False
    given = list(args)[: list(args).index("--")] if "--" in args else list(args)
    for arg in given:
        sub = getattr(command, "commands", {}).get(arg)
        if sub is None:
            break
        command = sub
    if command is None:
        return True
    params = command.get_params(command.context_class(command))
    return any("--json" in getattr(p, "opts", ()) for p in params)


@contextlib.contextmanager
def _one_line_warnings() -> Iterator[None]:
    """Our own warnings (a deprecated environment variable) as one ``kernelopt: warning:`` line."""
    with warnings.catch_warnings():
        shown = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
            if issubclass(category, DeprecatedVariable):
                sys.stderr.write(f"kernelopt: warning: {message}\n")
            else:
                shown(message, category, *args, **kwargs)

        warnings.showwarning = show
        yield


def _command_path(command: Any, args: Sequence[str]) -> str:
    """``kernelopt`` and the (sub-)commands ``args`` begins with (``kernelopt memory list``): what a usage error
    raised before click made a context (an option's value missing, ``--max-iters`` at the end) points at."""
    path = ["kernelopt"]
    for arg in args:
        sub = getattr(command, "commands", {}).get(arg)
        if sub is None:
            break
        path.append(arg)
        command = sub
    return " ".join(path)


def _usage_line(exc: Exception, command: Any = None, args: Sequence[str] = ()) -> str:
    """A usage error of the command line as one line (``--max-iters -1``), with where to read more (the command's
    own ``--help``, also when click raised it without a context); never click's multi-line usage box."""
    format_message = getattr(exc, "format_message", None)
    message = format_message() if callable(format_message) else str(exc)
    message = message.replace(": Value error, ", ": ")  # pydantic's prefix of an enum argument's refusal
    ctx = getattr(exc, "ctx", None)
    path = getattr(ctx, "command_path", None) or _command_path(command, args)
    return f"{message.rstrip('.')}; see `{path} --help`"


def _printable_streams() -> None:
    """stdout and stderr print any text: a character their encoding lacks (a non-ASCII folder name under
    ``PYTHONIOENCODING=ascii``, a surrogate that an ASCII locale decoded a path to) is written as its
    backslash escape, never a UnicodeEncodeError (an exit 70 after kernel.py was written, issue 35)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if callable(reconfigure) and getattr(stream, "errors", None) == "strict":
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI with ``argv`` (default ``sys.argv[1:]``); return the exit code.

    SIGTERM and SIGHUP are interrupts while it runs; once an interrupt is said, further signals are ignored
    until it returns (one line, one exit status), and the handlers it found are put back then.
    """
    with signals_as_interrupt():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    if sys.stdout is None:  # started with descriptor 1 closed (`>&-`) or read-only: nothing done that cannot be said
        _say(
            "error: stdout is closed or not open for writing (file descriptor 1), so the result could "
            "not be printed; nothing was done; give it somewhere to go (`> FILE`, `> /dev/null`)"
        )
        return 2
    _printable_streams()
    args = sys.argv[1:] if argv is None else argv
    forget_said()
    built: list[Any] = []
    code = _run_command(argv, args, built)
    if _wants_json(built[0] if built else None, args):  # an agent parsing stdout gets one object (late34 z110)
        emit_json_error(code)
    return code


def _run_command(argv: list[str] | None, args: list[str], built: list[Any]) -> int:
    """The command's exit code; ``built`` gets the click command once built."""
    command: Any = None
    try:
        app = build_app(args)  # imports the command: an interrupt may cut it
        command = typer.main.get_command(app)
        built.append(command)
        plain_flags(command)
        expand_home(command)
        with _one_line_warnings():
            rv = command.main(args=argv, prog_name="kernelopt", standalone_mode=False)
    except KerneloptError as exc:
        _say(f"error: {exc.one_line()}")
        return exc.exit_code
    except typer.Exit as exc:
        return int(getattr(exc, "exit_code", 0) or 0)
    except typer.Abort:
        ignore_interrupts()
        say_stop("aborted")
        return 130
    except typer.TyperException as exc:  # usage errors of the (vendored) click inside typer
        if type(exc).__name__ == "NoArgsIsHelpError":  # as typer tells it (the class is private)
            # `kernelopt` or `kernelopt memory` alone: the help is printed (on stdout) and that is the answer;
            # click's usage error for it has no message ("kernelopt: error: ; see ...", exit 2, before)
            return 0
        _say(f"error: {_usage_line(exc, command, args)}")
        return int(getattr(exc, "exit_code", 2))
    except KeyboardInterrupt:
        ignore_interrupts()  # a second Ctrl-C while it unwinds says nothing more
        say_stop("interrupted")
        return 130
    except OSError as exc:  # a full disk or a read-only workspace is the environment, not our bug
        problem = disk_problem(exc)
        if problem is None:
            log = _crash_log(exc)
            _say(f"internal error: {type(exc).__name__}: {exc} (crash log: {log})")
            return 70
        _say(f"error: {problem.one_line()}")
        return problem.exit_code
    except Exception as exc:  # our bug: keep the evidence, print one line
        if cut_by_interrupt(exc):  # an interrupt an import wrapped (a RuntimeError from __set_name__): no bug
            ignore_interrupts()
            say_stop("interrupted")
            return 130
        log = _crash_log(exc)
        _say(f"internal error: {type(exc).__name__}: {exc} (crash log: {log})")
        return 70
    code = int(rv) if isinstance(rv, int) else 0
    if code == 130 and not interrupt_said():
        # typer turns a KeyboardInterrupt that leaves a command (one in its imports, say) into a silent 130
        ignore_interrupts()
        say_stop("interrupted")
    return code


def run() -> None:
    """The former console-script entry point (an install made before :mod:`kernelopt.cli.start` calls it)."""
    from kernelopt.cli.start import run as start

    start()
