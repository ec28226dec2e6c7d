"""``kernelopt prompt WS --stage plan|implement``: exactly the text an agent backend receives for a stage.

The context is built by :func:`kernelopt.stages.implement.stage_context`, the same one the stage runner
gives a backend in the loop and in ``kernelopt plan`` / ``implement`` (first attempt; a repair attempt
adds the previous failure). ``--out FILE`` writes a ``.md`` / ``.txt`` file outside every workspace, new or an
earlier prompt (:mod:`kernelopt.destination`).
"""

from __future__ import annotations

from pathlib import Path

import typer

from kernelopt.cli.bounds import VERSION
from kernelopt.cli.output import emit_json, warn
from kernelopt.errors import KerneloptError


def register(app: typer.Typer) -> None:
    @app.command("prompt")
    def prompt(
        workspace: Path = typer.Argument(..., help="The workspace folder."),
        stage: str = typer.Option(..., "--stage", help="plan (Stage 2) or implement (Stage 3)."),
        version: int | None = typer.Option(
            None,
            "--version",
            help="Iteration N (default: newest profile for plan, newest plan for implement).",
            **VERSION,
        ),
        channel: str = typer.Option(
            "agent", "--channel", help="agent (works in the workspace) or api (sees only the prompt)."
        ),
        out: Path | None = typer.Option(None, "--out", help="Write the prompt to this file instead of stdout."),
        device: str | None = typer.Option(
            None, "--device", help="cpu: with no profile yet, take Stage 1's timing-only evidence on the CPU first."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """Print the prompt a coding agent or chat model would get, for running your own agent by hand."""
        from kernelopt.backends.prompts import PROMPT_FILE, PromptChannel, render_prompt
        from kernelopt.destination import output_file
        from kernelopt.errors import UsageError
        from kernelopt.fileio import atomic_write_text
        from kernelopt.stagenames import BACKEND_STAGES, Stage
        from kernelopt.stages.implement import implement_version, read_plan, stage_context
        from kernelopt.stages.plan import cpu_evidence, default_version
        from kernelopt.workspace import Workspace

        if out is not None:  # a .md / .txt file outside every workspace, new or an earlier prompt (never kernel.py)
            out = output_file(out, "--out", PROMPT_FILE)
        try:
            st = Stage(stage)
            if st not in BACKEND_STAGES:
                raise ValueError(stage)
        except ValueError:
            raise UsageError(f"unknown stage {stage!r}", hint="use plan or implement") from None
        try:
            ch = PromptChannel(channel)
        except ValueError:
            raise UsageError(f"unknown channel {channel!r}", hint="use agent or api") from None
        if version is not None and version < 1:
            raise UsageError(f"--version {version}: prompts are for iterations 1 and later (V0 is the baseline)")
        ws = Workspace(workspace)
        if device not in (None, "cpu", "cuda"):
            raise UsageError(f"unknown device {device!r}", hint="use cuda or cpu")
        if device == "cpu" and st is Stage.PLAN:
            n = cpu_evidence(ws, version)
        else:
            n = version if version is not None else (default_version(ws) if st is Stage.PLAN else implement_version(ws))
        newest = ws.next_version()
        if n > newest:
            raise UsageError(
                f"--version {n}: the workspace's next iteration is v{newest}", hint=f"pass --version {newest} or lower"
            )
        plan = None
        if st is Stage.IMPLEMENT:
            try:
                plan = read_plan(ws, n)
            except KerneloptError as exc:
                if not ws.plan_path(n).is_file():
                    raise
                warn(f"plan not parsed ({exc.one_line()}); the prompt shows the plan file as written")
        text = render_prompt(stage_context(ws, n, plan=plan), st, ch)
        if out is not None:
            atomic_write_text(out, text)
        if as_json:
            emit_json({"stage": st.value, "version": n, "channel": ch.value, "prompt": text, "file": out})
        elif out is None:
            typer.echo(text, nl=False)
