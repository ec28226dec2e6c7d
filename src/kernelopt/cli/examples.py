"""The examples each command's ``--help`` ends with: command lines a new user can run as written from the
repository's root, on the README's CPU demo (``tests/data/loop``) and the examples (``examples/``), each with what it
does. Before, no ``--help`` showed one (newuser20 n144): a user read the options of ``optimize`` or ``tune`` and had to
go back to the README for a line that runs. ``tests/test_newuser20_cases.py`` parses every line against its command's
own options and checks every repository path it names."""

from __future__ import annotations

WIDTH = 76
"""The longest command line: typer's help joins an epilog's lines and wraps them at the terminal's width, and a line
wrapped in two no longer runs when pasted; at 80 columns (two of padding) a line of 76 stays whole."""

EXAMPLES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "kernelopt": (
        (
            "start here: the loop on the CPU, no GPU needed",
            ("kernelopt optimize tests/data/loop --device cpu --max-iters 2",),
        ),
        ("what this machine has for the GPU path", ("kernelopt doctor",)),
        ("the help of optimize, tune, status, report and others ends with examples", ("kernelopt tune --help",)),
    ),
    "optimize": (
        ("the loop on the CPU, no GPU needed", ("kernelopt optimize tests/data/loop --device cpu --max-iters 2",)),
        ("on an NVIDIA GPU with ncu: profile, plan, tune, gate, record", ("kernelopt optimize examples/softmax",)),
        ("continue a run stopped by Ctrl-C", ("kernelopt optimize /tmp/kernel_opt_loop --resume",)),
    ),
    "tune": (
        (
            "tune a copy (kernel.py is edited in place)",
            # a fresh copy each time: a second `cp -r` into an existing /tmp/loop copied into /tmp/loop/loop (fresh27)
            ("rm -rf /tmp/loop && cp -r tests/data/loop /tmp/loop", "kernelopt tune /tmp/loop --device cpu"),
        ),
        ("the best found, kernel.py left unchanged", ("kernelopt tune /tmp/loop --device cpu --dry-run --json",)),
    ),
    "init": (
        (
            "make the workspace /tmp/kernel_opt_add",
            ("D=tests/data/loop", "kernelopt init add --kernel $D/kernel.py --reference $D/reference.py"),
        ),
    ),
    "validate": (
        ("the gate: the workspace's kernel against V0", ("kernelopt validate /tmp/kernel_opt_loop --device cpu",)),
    ),
    "status": (
        ("where the run stands and the command to run next", ("kernelopt status /tmp/kernel_opt_loop",)),
        ("the same, found from the kernel folder optimize was given", ("kernelopt status tests/data/loop",)),
    ),
    "report": (
        ("the run as Markdown on stdout", ("kernelopt report /tmp/kernel_opt_loop",)),
        (
            "one HTML page; the versions as a table for a spreadsheet",
            ("kernelopt report /tmp/kernel_opt_loop --html report.html --csv versions.csv",),
        ),
    ),
    "tunables": (("the knobs tune searches, and their values", ("kernelopt tunables examples/softmax/kernel.py",)),),
    "batch": (
        (
            "the KernelBench table of every problem, on the CPU at 1 % of their sizes",
            ("kernelopt batch examples/kernelbench --device cpu --size-scale 0.01",),
        ),
    ),
    "doctor": (("what this machine has: GPU, ncu, torch, triton", ("kernelopt doctor --no-probe",)),),
    "mcp": (  # a stdio server: its client starts it, so the line to run is the client's (fresh28 f67)
        (
            "Claude Code starts the server (stdio) for its agent; no GPU: --device cpu",
            ("claude mcp add kernelopt -- kernelopt mcp --root /tmp --device cpu",),
        ),
        ("Codex: mcp_servers.kernelopt in ~/.codex/config.toml (docs/agents.md)", ()),
    ),
    "agent install": (  # a command of the `agent` group (fresh28: its help had none; late57 l275)
        ("the skill for Claude Code in this project (.claude/skills)", ("kernelopt agent install claude",)),
        ("for Codex, in every project of yours (~/.agents/skills)", ("kernelopt agent install codex --user",)),
        ("remove exactly what install wrote", ("kernelopt agent install claude --uninstall",)),
    ),
}
"""Command (``kernelopt`` for the top-level help; ``GROUP COMMAND`` for a command of a group) -> (what it does, its
command lines), in the order shown."""


def epilog(command: str) -> str | None:
    """The examples of ``command`` as its help's epilog (``None`` for a command without any): a comment line saying
    what each does, then its lines, each a paragraph of its own (typer's help keeps paragraphs apart)."""
    shown = EXAMPLES.get(command)
    if not shown:
        return None
    parts = ["Examples, run from the repository's root:"]
    for what, lines in shown:
        parts += [f"# {what}", *lines]
    return "\n\n".join(parts)
