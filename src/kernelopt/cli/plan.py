"""``kernelopt plan WS [--version N] [--planner rules|agent-cli|llm-api] [--json]``: Stage 2."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

import typer

from kernelopt.cli.output import emit_json, info, warn
from kernelopt.errors import UsageError
from kernelopt.workspace import Workspace

WEB_ENV = "KERNELOPT_WEB_SEARCH_CMD"


def register(app: typer.Typer) -> None:
    @app.command("plan")
    def plan(
        workspace: Path = typer.Argument(..., help="The workspace folder."),
        version: int | None = typer.Option(
            None, "--version", min=0, help="Iteration N to plan (default: the newest unrecorded profile)."
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
        wiki: list[Path] = typer.Option([], "--wiki", help="rules: an extra gpu-wiki folder (repeatable)."),
        web_command: str | None = typer.Option(
            None,
            "--web-command",
            help=f"rules: web-search command, '{{query}}' replaced (default: ${WEB_ENV}; off when unset).",
        ),
        web_timeout_s: float = typer.Option(30.0, "--web-timeout", help="rules: web command time limit, s."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """Stage 2: search knowledge, choose one new action, write plans/v<N>_plan.md (and nothing else)."""
        from kernelopt.backends.registry import implementer_class, planner_class
        from kernelopt.planning.stage import default_version, run_stage2

        try:
            implementer_class(implementer)  # the name must be a backend: it decides what may be planned
        except ImportError as exc:
            raise UsageError(f"implementer backend {implementer!r} is not installed ({exc})") from None
        ws = Workspace(workspace)
        n = version if version is not None else default_version(ws)
        options: dict[str, Any] = {}
        if planner == "rules":
            command = web_command if web_command is not None else os.environ.get(WEB_ENV)
            if command:
                try:
                    options["web_command"] = shlex.split(command)
                except ValueError as exc:
                    raise UsageError(f"--web-command: {exc}") from None
                options["web_timeout_s"] = web_timeout_s
            # as the loop wires it: the rules implementer only moves knobs, so ask for knob moves only
            options["knob_only"] = knob_only if knob_only is not None else implementer == "rules"
            options["wiki_dirs"] = [str(w) for w in wiki]
        elif knob_only is not None or wiki or web_command:
            raise UsageError("--knob-only, --wiki and --web-command are options of the rules planner")
        try:
            cls = planner_class(planner)
        except ImportError as exc:
            raise UsageError(f"planner backend {planner!r} is not installed ({exc})") from None
        backend = cls(options)
        result = run_stage2(ws, n, backend)
        if as_json:
            emit_json(
                {
                    "version": n,
                    "planner": result.planner,
                    "plan_path": str(result.path) if result.path else None,
                    "plan": result.plan,
                    "reason": result.reason,
                }
            )
            return
        if result.plan is None:
            info(f"v{n}: no plan: {result.reason}")
            return
        p = result.plan
        change = ", ".join(f"{k} {p.current_values.get(k, '?')} -> {v}" for k, v in p.parameters.items())
        if p.candidates:
            now = ", ".join(f"{k}={v}" for k, v in p.current_values.items())
            change = f"{len(p.candidates)} candidates around {now}, budget {p.candidate_budget}"
        info(f"wrote {result.path}")
        info(f"v{n}: {p.action_category.value}" + (f" ({change})" if change else "") + f", risk {p.risk_level.value}")
        if result.reason:
            warn(result.reason)
