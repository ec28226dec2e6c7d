"""``kernelopt agent install claude|codex [--project DIR | --user] [--uninstall]``: the skill for coding agents."""

from __future__ import annotations

from pathlib import Path

import typer

from kernelopt.cli.output import emit_json, info
from kernelopt.errors import UsageError, WritePlace, write_refusal

SKILL_FOLDER = WritePlace("the skill", "--project")
"""Where ``agent install`` writes, as its disk errors say it: a read-only project said "copy the workspace to a
writable folder (or pass --root ...)", and ``agent install`` has no --root (newuser5, n8)."""

AGENT = typer.Typer(help="The kernel-optimization skill for coding agents (Claude Code, Codex).", no_args_is_help=True)


@AGENT.command("install")
def install_cmd(
    cli: str = typer.Argument(..., help="claude or codex"),
    project: Path | None = typer.Option(
        None, "--project", help="Install into this project folder (default: the current folder)."
    ),
    user: bool = typer.Option(False, "--user", help="Install for the user (under your home folder)."),
    uninstall: bool = typer.Option(False, "--uninstall", help="Remove exactly what install wrote."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Put the kernel-optimization skill where Claude Code (.claude/skills) or Codex (.agents/skills) finds it."""
    from kernelopt.agents import install as skill

    try:
        agent = skill.AgentCli(cli)
    except ValueError:
        raise UsageError(f"unknown agent CLI {cli!r}", hint="use claude or codex") from None
    if user and project is not None:
        raise UsageError("--project and --user are exclusive")
    scope = skill.Scope.USER if user else skill.Scope.PROJECT
    try:
        result = (skill.uninstall if uninstall else skill.install)(agent, scope, project)
    except OSError as exc:  # the folder the skill goes to refused it: that place, named by this command's flag
        problem = write_refusal(exc, place=SKILL_FOLDER)
        if problem is None:
            raise
        raise problem from None
    if as_json:
        emit_json(
            {
                "cli": agent.value,
                "scope": scope.value,
                "skill_dir": str(result.skill_dir),
                "removed" if uninstall else "written": [str(p) for p in result.written],
                "unchanged": [str(p) for p in result.unchanged],
            }
        )
        return
    verb = "removed" if uninstall else "wrote"
    for path in result.written:
        info(f"{verb} {path}")
    if not result.written:
        info(f"nothing to do: {result.skill_dir} " + ("holds no kernelopt skill" if uninstall else "is up to date"))
    elif not uninstall:
        info(f"{agent.value} finds the skill '{result.skill_dir.name}' in {result.skill_dir.parent}")


def register(app: typer.Typer) -> None:
    app.add_typer(AGENT, name="agent")
