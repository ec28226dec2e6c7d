"""``kernelopt plan WS [--version N] [--planner rules|agent-cli|llm-api] [--option K=V] [--json]``: Stage 2.

Exit status: 0 a plan written, 1 nothing new to plan (the reason printed, nothing written: :data:`EXIT_NO_PLAN`),
2 bad input or a refused plan, 3 the environment (the agent's infrastructure).

Runs :func:`kernelopt.stages.plan.run_plan`, the Stage 2 of the loop, with the backend built by
:func:`kernelopt.stages.backends.build_planner`: same options, same guard, same checks. A plan that
breaks a rule is moved out of ``plans/`` to ``.kernelopt/rejected/`` (kept for inspection, never used).
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from kernelopt.cli.bounds import VERSION
from kernelopt.cli.output import emit_json, info, warn
from kernelopt.env import EnvSettings
from kernelopt.errors import KerneloptError, UsageError
from kernelopt.workspace import Workspace, stage_lock

if TYPE_CHECKING:
    from kernelopt.stages.plan import PlanResult

REJECTED_DIR = "rejected"
EXIT_NO_PLAN = 1
"""Exit status when the planner has nothing new to plan (converged, no knob): no plan was written, so the next
stage cannot run; a script's ``kernelopt plan WS && kernelopt implement WS`` stops here, at the reason, not at
implement's "no plan to implement". 1, the "no" of a command that ran as asked (validate's FAIL, git commit with
nothing to commit); 2 and 3 stay errors of the input and the machine."""


def _reject(ws: Workspace, path: Path) -> Path:
    target = ws.state_dir / REJECTED_DIR / path.name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(path), target)
    return target


def register(app: typer.Typer) -> None:
    @app.command("plan")
    def plan(
        ctx: typer.Context,
        workspace: Path = typer.Argument(..., help="The workspace folder."),
        version: int | None = typer.Option(
            None, "--version", help="Iteration N to plan (default: the newest unrecorded profile).", **VERSION
        ),
        planner: str = typer.Option("rules", "--planner", help="rules, agent-cli, llm-api (or a plug-in)."),
        knob_only: bool | None = typer.Option(
            None,
            "--knob-only/--any-action",
            help="rules: plan only knob moves (what the rules implementer can apply), or any action "
            "(for a coding-agent or LLM implementer). Default: as the loop does for --implementer.",
        ),
        implementer: str = typer.Option(
            "rules", "--implementer", help="The Stage 3 backend that will apply the plan (sets the default above)."
        ),
        options: list[str] = typer.Option(
            [], "--option", "-o", help="Planner setting KEY=VALUE (e.g. command=..., timeout_s=600); repeatable."
        ),
        wiki: list[Path] = typer.Option([], "--wiki", help="rules: an extra gpu-wiki folder (repeatable)."),
        web_command: str | None = typer.Option(
            None,
            "--web-command",
            help="rules: web-search command, '{query}' replaced (default: $KERNELOPT_WEB_SEARCH_CMD; off when unset).",
        ),
        web_timeout_s: float = typer.Option(30.0, "--web-timeout", help="rules: web command time limit, s."),
        device: str | None = typer.Option(
            None, "--device", help="cpu: with no profile yet, take Stage 1's timing-only evidence on the CPU first."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """Stage 2: the knowledge search, one new action chosen, plans/v<N>_plan.md written (and nothing else)."""
        from kernelopt.backends.settings import parse_assignments
        from kernelopt.planning.plan import PlanError
        from kernelopt.stages.backends import build_planner
        from kernelopt.stages.guard import RunGuard
        from kernelopt.stages.implement import summary_of
        from kernelopt.stages.plan import PlanVerdict, cpu_evidence, default_version, run_plan

        if device not in (None, "cpu", "cuda"):  # a flag before the path, as validate checks it
            raise UsageError(f"unknown device {device!r}", hint="use cuda or cpu")
        ws = Workspace(workspace)
        ctx.with_resource(stage_lock(ws.root, "plan"))  # not beside a run on it: n28
        if version is not None:
            ws.writable_version(version)  # past the next: a plan (and a CPU profile) there would renumber the rest
        # the flags first: a misspelt --planner was told to run Stage 1, then, once it had, that it was unknown
        opts = _planner_options(planner, parse_assignments(list(options)), knob_only, wiki, web_command, web_timeout_s)
        backend = build_planner(planner, opts, implementer=implementer)
        n = cpu_evidence(ws, version) if device == "cpu" else default_version(ws) if version is None else version
        summary = summary_of(ws, n)
        if summary is None:
            raise PlanError(
                f"no Stage 1 evidence for v{n}: profiles/v{n}/summary.json not found",
                hint="run Stage 1 (kernelopt profile) first, or pass --device cpu to take it on the CPU",
            )
        result = run_plan(ws, n, backend, guard=RunGuard(ws), summary=summary, history=list(ws.memory.records()))
        if result.verdict is PlanVerdict.FAILED:
            raise _failure(ws, ws.plan_path(n), result)
        _show(n, ws.plan_path(n), result, as_json)
        if result.plan is None:
            raise typer.Exit(EXIT_NO_PLAN)


def _planner_options(
    planner: str,
    opts: dict[str, Any],
    knob_only: bool | None,
    wiki: list[Path],
    web_command: str | None,
    web_timeout_s: float,
) -> dict[str, Any]:
    """``--option`` settings plus the rules planner's own flags (the web command: the flag, else
    ``KERNELOPT_WEB_SEARCH_CMD``).

    Raises:
        UsageError: a rules flag given for another planner, or a web command that does not split.
    """
    if planner != "rules":
        if knob_only is not None or wiki or web_command:
            raise UsageError("--knob-only, --wiki and --web-command are options of the rules planner")
        return opts
    command = web_command if web_command is not None else EnvSettings.read().web_search_cmd
    if command:
        try:
            opts["web_command"] = shlex.split(command)
        except ValueError as exc:
            raise UsageError(f"--web-command: {exc}") from None
    if "web_command" in opts:
        opts["web_timeout_s"] = web_timeout_s
    if knob_only is not None:
        opts["knob_only"] = knob_only
    if wiki:
        opts["wiki_dirs"] = [str(w) for w in wiki]
    return opts


def _failure(ws: Workspace, path: Path, result: PlanResult) -> KerneloptError:
    """The error of a failed plan; a plan that broke a rule is moved to ``.kernelopt/rejected/``. The agent's
    infrastructure failing is an environment problem (exit 3, as ``optimize`` and ``validate`` give it), not
    a plan error (exit 2)."""
    from kernelopt.backends.protocol import AGENT_UNAVAILABLE
    from kernelopt.errors import EnvironmentProblem
    from kernelopt.planning.plan import PlanError

    reason = result.reason or "the planner failed"
    if result.error_type == AGENT_UNAVAILABLE:
        return EnvironmentProblem(f"planner '{result.planner}': {reason}")
    if result.error_type in ("invalid_plan", "repeated_plan") and path.is_file():
        moved = _reject(ws, path).relative_to(ws.root)
        reason = f"{result.path} rejected: {reason.removeprefix('invalid plan: ')} (moved to {moved})"
    return PlanError(f"planner '{result.planner}': {reason}")


def _show(n: int, path: Path, result: PlanResult, as_json: bool) -> None:
    """The plan written (its action, change and risk), or why there is none."""
    if as_json:
        emit_json(
            {
                "version": n,
                "planner": result.planner,
                "plan_path": str(path) if result.plan else None,
                "plan": result.plan,
                "reason": result.reason,
            }
        )
        return
    for note in result.notes:
        warn(note)
    if result.plan is None:
        info(f"v{n}: no plan: {result.reason}")
        return
    p = result.plan
    change = ", ".join(  # an agent's plan names no current value: the new one alone, never "BLOCK ? -> 2048" (f64)
        f"{k} {p.current_values[k]} -> {v}" if k in p.current_values else f"{k} = {v}" for k, v in p.parameters.items()
    )
    if not p.parameters and p.current_values:
        now = ", ".join(f"{k}={v}" for k, v in p.current_values.items())
        change = f"one tuning session from {now}"
    info(f"wrote {path}")
    info(f"v{n}: {p.action_category.value}" + (f" ({change})" if change else "") + f", risk {p.risk_level.value}")
    if result.reason:
        warn(result.reason)
