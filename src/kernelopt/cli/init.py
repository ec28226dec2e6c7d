"""``kernelopt init NAME --kernel K --reference R [--root DIR] [--task-card README] [--force]``."""

from __future__ import annotations

from pathlib import Path

import typer

from kernelopt.cli.output import emit_json, info, note, warn
from kernelopt.destination import outside_workspaces
from kernelopt.workspace import DEFAULT_ROOT, PREFIX, RunLock, Workspace, validate_name


def register(app: typer.Typer) -> None:
    @app.command("init")
    def init(
        name: str = typer.Argument(..., help="Workspace name; creates <root>/kernel_opt_<name>/."),
        kernel: Path = typer.Option(..., "--kernel", "-k", help="The kernel file (becomes kernel.py)."),
        reference: Path = typer.Option(..., "--reference", "-r", help="The reference (becomes reference.py)."),
        root: Path = typer.Option(DEFAULT_ROOT, "--root", help="Parent folder of the workspace."),
        task_card: Path | None = typer.Option(
            None, "--task-card", help="README.md with front matter (default: the README.md beside the kernel)."
        ),
        force: bool = typer.Option(False, "--force", help="Replace an existing workspace of that name."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """Create a workspace (kernel.py, reference.py, README.md, test_kernel.py, memory/, plans/, profiles/).

        A README.md beside the kernel is the task card unless --task-card names another; the dtype and the
        GPU it leaves out are inferred (from the reference's tensors, from the device) and said.
        """
        from kernelopt.harness.infer import shapes_by_code
        from kernelopt.loop.opening import card_beside, fill_new_card

        if task_card is None:
            task_card = card_beside(kernel)
            if task_card is not None:
                note(f"task card: {task_card} (beside the kernel)")
        outside_workspaces(root, "--root")  # a workspace made inside another is a write no stage of it allows
        target = Path(root).expanduser().resolve() / f"{PREFIX}{validate_name(name)}"
        if reference.is_file():  # a SHAPES built by code that names no case: one line before anything is made
            shapes_by_code(reference)
        with RunLock(target):  # the same lock as a run: no run starts on a half-made workspace
            ws = Workspace.create(name, kernel=kernel, reference=reference, root=root, task_card=task_card, force=force)
            if ws.set_aside is not None:
                note(f"the workspace it replaces, with its recorded versions, is kept at {ws.set_aside}")
            for found in fill_new_card(ws, device=None, announce=note):
                note(found.line())
        for problem in ws.task_card().warnings():
            warn(problem)
        if as_json:
            emit_json({"workspace": str(ws.root), "commit": ws.head(), "kernel_form": ws.kernel_form().value})
        else:
            info(f"created {ws.root} (commit {ws.head()[:12]})")
