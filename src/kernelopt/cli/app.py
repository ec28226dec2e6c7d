"""The ``kernelopt`` command: builds the Typer app and owns the one error boundary.

Every command module exposes ``register(app)``. Errors of kernelopt's own classes become one line on
stderr and their exit code; an unexpected exception leaves a crash log (versions + traceback) and
one line pointing at it, exit code 70.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import traceback
from datetime import UTC, datetime
from pathlib import Path

import typer

from kernelopt import __version__
from kernelopt.errors import KerneloptError

COMMAND_MODULES = (
    "kernelopt.cli.init",
    "kernelopt.cli.profile",
    "kernelopt.cli.evidence",
    "kernelopt.cli.plan",
    "kernelopt.cli.tunables",
    "kernelopt.cli.implement",
    "kernelopt.cli.prompt",
    "kernelopt.cli.validate",
    "kernelopt.cli.ceilings",
    "kernelopt.cli.memory",
    "kernelopt.cli.utilization",
    "kernelopt.cli.optimize",
    "kernelopt.cli.report",
    "kernelopt.cli.batch",
    "kernelopt.cli.wiki",
    "kernelopt.cli.schema",
    "kernelopt.cli.doctor",
)


def build_app() -> typer.Typer:
    """The Typer application with every command registered."""
    import importlib

    app = typer.Typer(
        name="kernelopt",
        help="Profile-driven GPU kernel optimization: profile, plan one change, prove it, record it.",
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

    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)
    return app


def _crash_log(exc: BaseException) -> Path:
    folder = Path(os.environ.get("KERNELOPT_CRASH_DIR", tempfile.gettempdir()))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"kernelopt-crash-{datetime.now(UTC):%Y%m%dT%H%M%S}-{os.getpid()}.log"
    path.write_text(
        f"kernelopt {__version__}\npython {sys.version}\nplatform {platform.platform()}\n"
        f"argv {sys.argv}\n\n" + "".join(traceback.format_exception(exc)),
        encoding="utf-8",
    )
    return path


def main(argv: list[str] | None = None) -> int:
    """Run the CLI with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    app = build_app()
    command = typer.main.get_command(app)
    from kernelopt.proc import signals_as_interrupt

    try:
        with signals_as_interrupt():
            rv = command.main(args=argv, prog_name="kernelopt", standalone_mode=False)
    except KerneloptError as exc:
        sys.stderr.write(f"kernelopt: error: {exc.one_line()}\n")
        return exc.exit_code
    except typer.Exit as exc:
        return int(getattr(exc, "exit_code", 0) or 0)
    except typer.Abort:
        sys.stderr.write("kernelopt: aborted\n")
        return 130
    except typer.TyperException as exc:  # usage errors of the (vendored) click inside typer
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            sys.stderr.write(f"kernelopt: error: {exc}\n")
        return int(getattr(exc, "exit_code", 2))
    except KeyboardInterrupt:
        sys.stderr.write("kernelopt: interrupted\n")
        return 130
    except Exception as exc:  # our bug: keep the evidence, print one line
        log = _crash_log(exc)
        sys.stderr.write(f"kernelopt: internal error: {type(exc).__name__}: {exc} (crash log: {log})\n")
        return 70
    return int(rv) if isinstance(rv, int) else 0


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
