"""``kernelopt tunables FILE``: the knobs of a kernel file, and (with ``--set``) a checked edit of them."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from kernelopt.cli.output import StdoutLost, emit_json, info, note, printing, table, warn
from kernelopt.errors import USER_FILE, UsageError, disk_problem
from kernelopt.vocabulary import Device

if TYPE_CHECKING:  # the reader (libcst) is imported when the command runs, not at every kernelopt start
    from collections.abc import Mapping

    from kernelopt.tunables.knobs import ResourceLimits
    from kernelopt.tunables.model import AutotuneEvaluation, EditResult, Tunable, TunedTable
    from kernelopt.tuning.candidate import Value


def register(app: typer.Typer) -> None:
    @app.command("tunables")
    def tunables(
        file: Path = typer.Argument(..., help="A kernel file, or a folder holding kernel.py (a workspace)."),
        sets: list[str] = typer.Option(
            [], "--set", help="KNOB=VALUE to apply (value, x2, /2, +1, -1, up, down); repeatable."
        ),
        dry_run: bool = typer.Option(False, "--dry-run", help="With --set: show the diff, write nothing."),
        gpu: str | None = typer.Option(
            None,
            "--gpu",
            help="Target GPU: offers num_ctas where clusters exist; with --set, refuses configs that cannot fit it.",
        ),
        dtype: str | None = typer.Option(
            None, "--dtype", help="With --set: operand dtype for shared-memory estimates."
        ),
        evaluate: bool = typer.Option(
            True,
            "--evaluate/--no-evaluate",
            help="Import FILE in a worker process to read autotune configs built by code.",
        ),
        reference: Path | None = typer.Option(
            None,
            "--reference",
            help="The task's reference.py: run the task once (in a worker) to read the values computed knobs "
            "take at launch and the config each autotuner picks; with --set and --gpu, the fit of block pointer "
            "tiles at each SHAPES entry.",
        ),
        device: str | None = typer.Option(
            None, "--device", help="With --reference: where the task runs, cuda or cpu (Triton interpreted)."
        ),
        check: bool = typer.Option(
            False,
            "--check",
            help="With --set: run the edit and the kernel as written at every SHAPES entry of reference.py beside "
            "kernel.py (on --device) before writing; one that fails or is less accurate is not written.",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """List the knobs of FILE with their legal values; semantic parameters are listed, never edited.

        The knobs: launch literals, launch options left out, computed values, autotune configs, heuristics,
        marked constants.
        """
        if check and not sets:
            raise UsageError("--check runs an edit: it goes with --set", hint="add --set KNOB=VALUE")
        if device is not None and Device.of(device) is None:
            raise UsageError(f"unknown device {device!r}", hint="use cuda or cpu")
        if gpu is not None:
            from kernelopt.hardware.specs import lookup

            lookup(gpu)  # an unknown name is one line (exit 2) listing the known ones, as for every --gpu
        if file.is_dir() and (file / "kernel.py").is_file():
            file = file / "kernel.py"  # a workspace or task folder: its kernel
        if reference is not None:  # a missing one (or a kernel given for it) was run past in silence
            from kernelopt.kernelsource import check_reference

            if not reference.is_file():
                said = "is a folder, not a file" if reference.is_dir() else "no such file"
                raise UsageError(f"--reference {reference}: {said}", hint="give the task's reference.py")
            check_reference(reference)
        tiled = bool(sets) and reference is not None and _holds_block_tiles(file)
        found, evaluation = _discover(
            file, gpu=gpu, evaluate=evaluate, reference=reference, device=device, run_task=tiled
        )
        beside = _reference_beside(file, found) if reference is None and evaluate else None
        if beside is not None:  # tune's reading: the task's own run tells the entry it uses (late30 z80)
            note(f"{', '.join(beside[1])}: known only from a run of the task; running {beside[0]} once to tell it")
            found, evaluation = _discover(
                file, gpu=gpu, evaluate=evaluate, reference=beside[0], device=device, run_task=tiled
            )
        elif reference is None and (unknown := _run_told(found)):  # a lone kernel.py, or --no-evaluate (d30)
            note(_what_a_run_needs(file, unknown, evaluate=evaluate))
        refused = _tune_refuses(file) if found and not sets else None
        if refused is not None:
            note(refused)
        if sets:
            from kernelopt.backends.settings import parse_assignments
            from kernelopt.tunables import ResourceLimits, apply

            limits = ResourceLimits.for_gpu(gpu, dtype) if (gpu or dtype) else None
            changes = parse_assignments(list(sets))
            told = _sizes_told(file, changes, limits, gpu, evaluation) if reference is None and evaluate else None
            if told is not None:  # tune's reading: its run tells the sizes a raised tile is bounded by (v184)
                note(
                    f"{', '.join(changes)}: a raised tile beside a size of the problem is written only up to the "
                    f"sizes the SHAPES entries tell, as tune writes it; running {told} once to tell them"
                )
                found, evaluation = _discover(
                    file, gpu=gpu, evaluate=evaluate, reference=told, device=device, run_task=tiled
                )
            from kernelopt.fileio import read_source

            before = read_source(file).text  # as the edit reads it: line endings as they are (CRLF kept)
            with contextlib.ExitStack() as held:
                if not dry_run:  # one writer of a folder's kernel at a time: a running tune or optimize refuses it
                    from kernelopt.workspace import kernel_locks

                    held.enter_context(
                        kernel_locks(file, command="tunables --set", hint="wait for it to end, then set the knob")
                    )
                if check:  # the edit run beside the kernel as written before it is written (late35)
                    _checked_set(file, before, apply(file, changes, write=False, limits=limits, gpu=gpu,
                                                     evaluation=evaluation).new_source, changes, device,
                                reference)  # fmt: skip
                try:
                    result = apply(file, changes, write=not dry_run, limits=limits, gpu=gpu, evaluation=evaluation)
                except OSError as exc:  # a full disk: the file is as it was, and no --root moves it (f6)
                    problem = disk_problem(exc, place=USER_FILE)
                    if problem is None:
                        raise
                    raise problem from None
            done = "shown (--dry-run)" if dry_run else "written as asked"
            _say_guarded(before, result, dry_run=dry_run)
            _say_rows_replaced(found, result, dry_run=dry_run)
            _warn_computed_from(found, before, changes, done)
            _note_tiles_unestimated(found, before, changes, limits, evaluation, done)
            _say_edit(file, result, dry_run=dry_run, as_json=as_json)
        elif as_json:
            emit_json(found)
        else:
            _show_knobs(file, found)
            for line in cover_lines(found, evaluation):
                info(line)
            from kernelopt.tunables.analysis import read_source as read_kernel
            from kernelopt.tunables.inline_guard import unmarked_guards

            unmarked = unmarked_guards(read_kernel(file), file.name)  # read as discovery reads it (its encoding)
            if unmarked is not None:
                note(unmarked)


def _sizes_told(
    file: Path,
    changes: Mapping[str, Value],
    limits: ResourceLimits | None,
    gpu: str | None,
    evaluation: AutotuneEvaluation | None,
) -> Path | None:
    """The task's ``reference.py`` beside a ``kernel.py`` where the edit ``changes`` raises a tile beside a size of the
    problem that no run told (:class:`~kernelopt.tunables.model.TunableSizesUntold`): a run of it tells the sizes at
    its ``SHAPES`` entries, which bound the raise as ``tune`` bounds it; ``None`` otherwise (nothing to run, or the
    edit is said by its write, refused or not)."""
    from kernelopt.tunables import TunableError, TunableSizesUntold, apply

    reference = file.parent / "reference.py"
    if file.name != "kernel.py" or not reference.is_file():
        return None
    try:
        apply(file, changes, write=False, limits=limits, gpu=gpu, evaluation=evaluation)
    except TunableSizesUntold:
        return reference
    except TunableError:
        return None
    return None


def _checked_set(
    file: Path,
    before: str,
    edited: str | None,
    changes: Mapping[str, Value],
    device: str | None,
    reference: Path | None = None,
) -> None:
    """``--check``: the edit run beside the kernel as written at every ``SHAPES`` entry
    (:func:`kernelopt.tuning.set_check.set_checked`); one that fails is refused (exit 1), nothing written.

    Raises:
        UsageError: ``file`` is not a task folder's kernel.py (no reference.py beside it), or ``--reference`` names
            another file than the one the check runs (fresh24 f21: it was passed over in silence).
    """
    beside = file.parent / "reference.py"
    other = reference is not None and not (beside.is_file() and reference.resolve() == beside.resolve())
    given = f"--reference {reference} is read for the knobs only; " if other else ""
    if file.name != "kernel.py" or not beside.is_file():
        raise UsageError(
            f"--check: {file} has no reference.py beside it (the check runs the task folder's reference.py, "
            f"as tune does; {given}nothing written)",
            hint=f"give a task folder's kernel.py{', or copy that file to ' + str(beside) if other else ''}",
        )
    if other:
        raise UsageError(
            f"--check runs {beside} (the task folder's, as tune does), not --reference {reference}: "
            "the two differ, nothing written",
            hint=f"leave --reference out, or give it {beside}",
        )
    if edited is None or edited == before:
        return
    from kernelopt.errors import KerneloptError
    from kernelopt.tuning.set_check import set_checked

    refused = set_checked(file.parent, before, edited, changes, device)
    if refused is not None:
        raise KerneloptError(f"not written: {refused}", hint="a change kernelopt tune checks the same way")
    info("--check: the edit passes at every SHAPES entry, no less accurate than the kernel as written")


def _tune_refuses(file: Path) -> str | None:
    """The line that says tune and optimize refuse ``file`` as it stands, for a file that imports or reads another
    beside it (:func:`~kernelopt.kernelsource.folder_dependence`): its knobs were listed as tunable, and tune then
    refused the file (fresh23: settings read from a config.json beside kernel.py); ``None`` where they take it."""
    from kernelopt.kernelsource import folder_dependence

    refusal = folder_dependence(file)
    if refusal is None:
        return None
    if folder_dependence(file, carried=True) is None:  # tune carries the data it reads beside it (configs23 c30)
        carried = "optimize refuses this file as it stands (tune carries the data it reads beside it)"
        return f"{carried}: {refusal.one_line()}"
    return f"tune and optimize refuse this file as it stands, so none of these is tuned yet: {refusal.one_line()}"


def _reference_beside(file: Path, found: list[Tunable]) -> tuple[Path, list[str]] | None:
    """The task's ``reference.py`` beside a ``kernel.py``, and the knobs whose value at the launch only a run of the
    task tells (``**configs[dtype]`` of a dict whose entries differ: which entry the task's inputs reach), when there
    are any: ``tune`` reads them from that run, so the listing does too (breaker22: the bfloat16 entry's tiles were
    listed where the task, and ``tune``, run the float32 entry's)."""
    reference = file.parent / "reference.py"
    if file.name != "kernel.py" or not reference.is_file():
        return None
    unknown = _run_told(found)
    return (reference, unknown) if unknown else None


def _run_told(found: list[Tunable]) -> list[str]:
    """The keys of the knobs whose value at the launch only a run of the task tells (their refusal ends "(give the
    reference)")."""
    from kernelopt.tunables.analysis import GIVE_REFERENCE

    return [t.key for t in found if t.refused_reason is not None and t.refused_reason.endswith(GIVE_REFERENCE)]


def _what_a_run_needs(file: Path, unknown: list[str], *, evaluate: bool) -> str:
    """One line for knobs only a run of the task tells, listed without one: what that run needs. A lone kernel file
    (no ``reference.py`` beside it) listed the dict's first entry's tile (discovery23 d30) where a task folder's
    listing runs the task and lists the entry it takes."""
    which = f"{', '.join(unknown)}: only a run of the task tells {'its value' if len(unknown) == 1 else 'their values'}"
    if not evaluate:
        return f"{which} at the launch, and --no-evaluate runs nothing: drop it to list them"
    lacking = (
        f"{file.name} is not the kernel.py of a task folder"
        if (file.parent / "reference.py").is_file()
        else f"no reference.py lies beside {file.name} to run it"
    )
    return (
        f"{which} at the launch, and {lacking}: give --reference REFERENCE.py (the task's) to list the values it "
        "runs, as tune does, or list the task's folder"
    )


def _holds_block_tiles(file: Path) -> bool:
    """Whether a Triton kernel of ``file`` holds block pointer tiles (whose fit ``--set`` checks with a run of the
    task: newuser13's n74)."""
    from kernelopt.fileio import read_source
    from kernelopt.profiling.kernel_names import triton_kernel_names
    from kernelopt.tunables.block_tiles import block_tiles

    text = read_source(file).text
    return any(block_tiles(text, k) for k in triton_kernel_names(text))


def _discover(
    file: Path,
    *,
    gpu: str | None,
    evaluate: bool,
    reference: Path | None,
    device: str | None = None,
    run_task: bool = False,
) -> tuple[list[Tunable], AutotuneEvaluation | None]:
    """The knobs of ``file`` (read statically, or with its autotune lists evaluated in a worker); what
    the evaluation could not do, and each autotuner's pick, are said. ``run_task``: the task runs once with
    ``reference`` whatever static reading needs."""
    if not evaluate:
        from kernelopt.tunables import discover

        return discover(file, gpu=gpu), None
    from kernelopt.tunables.evaluate import discover_evaluated

    found, evaluation = discover_evaluated(
        file, gpu=gpu, reference=reference, device=device or "auto", run_task=run_task
    )
    if evaluation is None:
        return found, None
    if evaluation.interpreted and device is None:
        note("no GPU here: the task ran in Triton's interpreter (TRITON_INTERPRET=1), on the CPU")
    if evaluation.problem:
        warn(evaluation.problem)
    for space in evaluation.spaces.values():
        if space.best_config is not None:
            info(
                f"{space.kernel}: the autotuner picked {space.best_config.knob_values()} for the shape "
                f"{space.best_config_shape} (key {space.key})"
            )
    return found, evaluation


def cover_lines(found: list[Tunable], evaluation: AutotuneEvaluation | None) -> list[str]:
    """One line for each knob one block of which must cover a size (:attr:`Tunable.covers`): why ``tune``'s search
    of it starts where it does, and (a run of the task told the sizes: ``--reference``) where that is."""
    from kernelopt.tunables import covered_sizes

    shapes = [e.shape for e in evaluation.shape_sizes] if evaluation is not None else []
    out = []
    for t in found:
        if not t.editable or not t.covers:
            continue
        sizes = covered_sizes([t], evaluation, shapes)
        for c in t.covers:
            size = sizes.get((c.kernel, c.size))
            low = c.lowest(t.legal_values or [], size) if size is not None else None
            where = (
                f"here {c.size} is up to {size} at the SHAPES entries: {t.name} >= {low}"
                if low is not None
                else f"here {c.size} is up to {size} at the SHAPES entries"
                if size is not None
                else "--reference runs the task to tell it"
            )
            out.append(
                f"{t.key}: {c.rule()}, so a smaller {t.name} leaves part of a row undone: tune's search starts at the "
                f"smallest {t.name} that covers {c.size}'s largest value at the SHAPES entries it checks ({where})"
            )
    return out


def _say_guarded(before: str, result: EditResult, *, dry_run: bool) -> None:
    """One line where the value set leaves a size the original handled and the edit was written as ``kernelopt tune``
    writes it, the guard in (late32 z95: breaker2's warning said the guard and wrote the plain value, wrong there);
    else a warning where a guard an earlier tune (or the user, inline) wrote still sets the value where it holds."""
    from kernelopt.tunables.guard import strip_stale_guards

    if result.guard is not None:
        done = "shown (--dry-run)" if dry_run else "written"
        warn(f"not legal at every size the original handled: {done} as kernelopt tune writes it, {result.guard}")
    elif result.edits and strip_stale_guards(before, result.new_source) != result.new_source:
        done = "shown (--dry-run)" if dry_run else "written as asked"
        warn(f"a guard written by an earlier tune (or inline at the launch) still sets it where it holds; {done}")


def _warn_computed_from(found: list[Tunable], before: str, changes: Mapping[str, object], done: str) -> None:
    """A warning when a launch option set by hand is one the file computes a setting from (``num_warps = 2`` then
    ``BLOCK = num_warps * 32``): the setting moves too, at every size, and no rule on launch options checks that
    (newuser11's n61: ``num_warps=8`` made BLOCK 256 over ``n // BLOCK`` programs without masks, wrong at n=64);
    ``tune`` checks such a pick at sizes the SHAPES do not name, ``--set`` does not."""
    from kernelopt.tunables.knobs import LAUNCH_OPTIONS
    from kernelopt.tunables.readers import chained_values, computed_readers

    names = {t.name for t in found for key in changes if key in (t.key, t.name) and t.name in LAUNCH_OPTIONS}
    check = "(kernelopt validate checks the kernel; kernelopt tune checks such a pick at sizes the SHAPES do not name)"
    readers = computed_readers(found, before, names) if names else []
    for t in readers:
        warn(
            f"{t.key} is computed from {', '.join(sorted(set(t.size_names) & names) or sorted(names))} "
            f"({t.computed}): it moves too, at every size, and no rule here checks that move; {done} {check}"
        )
    chained = sorted(chained_values(found, before, names)) if names and not readers else []
    if chained:  # a name no computed setting holds (a module's BLOCK = NUM_WARPS * 32: newuser13's n69)
        one = len(chained) == 1
        warn(
            f"{', '.join(chained)} {'is' if one else 'are'} computed from {', '.join(sorted(names))} in kernel.py: "
            f"{'it moves' if one else 'they move'} too, at every size, and no rule here checks that move; "
            f"{done} {check}"
        )


def _note_tiles_unestimated(
    found: list[Tunable],
    before: str,
    changes: Mapping[str, object],
    limits: ResourceLimits | None,
    evaluation: AutotuneEvaluation | None,
    done: str,
) -> None:
    """A note when a knob set by hand belongs to a kernel holding block pointer tiles whose fit (tune's rule:
    :func:`~kernelopt.tunables.block_tiles.tile_problems`, refusing a tile that certainly spills) could not be
    estimated: it needs the registers of a GPU (``--gpu``) and the sizes a run of the task gives at its ``SHAPES``
    entries (``--reference``); with both, ``--set`` refuses such a tile as tune does."""
    from kernelopt.tunables.block_tiles import block_tiles, tile_entries
    from kernelopt.tunables.model import TunableKind

    kernels = sorted({t.kernel for t in found for key in changes if key in (t.key, t.name) and t.kernel is not None})
    for kernel in kernels:
        tiles = block_tiles(before, kernel)
        if not tiles:
            continue
        listed = any(t.kernel == kernel and t.kind is TunableKind.AUTOTUNE_CONFIG for t in found)
        missing = [] if limits is not None else ["--gpu (its registers)"]
        if not tile_entries(kernel, listed, evaluation):
            missing.append("--reference (a run of the task: the tiles' sides at its SHAPES entries)")
        if missing:
            shapes = "; ".join(f"({', '.join(map(str, t))})" for t in tiles)
            note(
                f"{kernel}'s block pointer tiles {shapes} were not checked against the registers, as tune checks "
                f"them (a tile that certainly spills is refused): that needs {' and '.join(missing)}; {done}"
            )


def _say_edit(file: Path, result: EditResult, *, dry_run: bool, as_json: bool) -> None:
    """:func:`_show_edit`, with a stdout that refuses it (``| head -1``, ``> /dev/full``) after the write said in one
    line on stderr, exit 0: the file holds the edit. It was exit 1 and not a word, the file written (fault trial
    faults7, f2); with nothing written it stays stdout's exit 3 (:class:`~kernelopt.cli.output.StdoutLost`).

    Raises:
        typer.Exit: exit 0, after the line, when the file was written and stdout refused the summary.
        StdoutLost: stdout refused the summary and nothing was written.
    """
    try:
        with printing():
            _show_edit(file, result, dry_run=dry_run, as_json=as_json)
    except StdoutLost as exc:
        if dry_run or not result.edits:
            raise
        edits = ", ".join(f"{e.key}: {e.before_said} -> {e.after}" for e in result.edits)
        sys.stderr.write(
            f"kernelopt: wrote {file} ({edits}); the summary could not be printed: stdout refused it ({exc.reason})\n"
        )
        raise typer.Exit(0) from None


def _show_edit(file: Path, result: EditResult, *, dry_run: bool, as_json: bool) -> None:
    """Each knob's edit, then the diff (``--dry-run``) or the file written."""
    if as_json:
        emit_json({**result.model_dump(mode="json"), "knob_changes": result.knob_changes})
        return
    for e in result.edits:
        linked = f" (grid kept consistent: {', '.join(e.linked)})" if e.linked else ""
        how = " (inserted)" if e.inserted else f" (overrides the computed {e.overrides})" if e.overrides else ""
        info(f"{e.key}: {e.before_said} -> {e.after} at {e.location}{how}{linked}")
    info(result.diff.rstrip() if dry_run else f"wrote {file}")


def _say_rows_replaced(found: list[Tunable], result: EditResult, *, dry_run: bool) -> None:
    """One line for each knob whose ``# kernelopt: tuned`` rows an earlier tune wrote the edit replaced: the rows went
    without a word (n169: ``--set BLOCK=128`` over ``if n_cols <= 1000:  # kernelopt: tuned`` / ``BLOCK = 1024``
    wrote ``BLOCK = 128`` at every size, the diff alone showing the rows gone)."""
    tables = {t.key: t.tuned_table for t in found if t.tuned_table is not None and t.tuned_table.buckets}
    edited = [e for e in result.edits if e.key in tables]
    if not edited:
        return
    from kernelopt.tunables.analysis import discover_source

    after = {t.key: t.tuned_table for t in discover_source(result.new_source)}
    done = "shown (--dry-run)" if dry_run else "written as asked"
    for e in edited:
        if after.get(e.key) != tables[e.key]:
            t = next(t for t in found if t.key == e.key)
            info(f"{e.key}: the edit replaces {_rows_text(t, tables[e.key])}; {done}")


def _rows_text(t: Tunable, table: TunedTable) -> str:
    """``the rows an earlier tune wrote after kernel.py:23 (`# kernelopt: tuned`), which ran BLOCK=1024 where n_cols <=
    1000``."""
    rows = "; ".join(
        f"{', '.join(f'{k}={v}' for k, v in b.values.items())} where {table.size} <= {b.upto}" for b in table.buckets
    )
    keyed = f" (on the device where {table.key})" if table.key else ""
    return f"the rows an earlier tune wrote after {t.tuned_at} (`# kernelopt: tuned`){keyed}, which ran {rows}"


def _earlier_rows(t: Tunable, table: TunedTable) -> str:
    """The rows an earlier tune wrote after ``t``'s computation, as they run (newuser22 n167: after a tune that wrote
    ``if n_cols <= 1000:  # kernelopt: tuned``, the listing said "computed" and how it would be tuned, as if it were
    not yet: the rows were in ``--json``'s ``tuned_table`` only)."""
    return (
        f"{t.key} is tuned already: {_rows_text(t, table)}; above {table.buckets[-1].upto}, the computation; a new "
        "tune is measured against them and writes its rows in their place"
    )


def _show_knobs(file: Path, found: list[Tunable]) -> None:
    """The knobs' table, then why a knob is not edited, or how a computed one is."""
    from kernelopt.tunables.knobs import sizeless_reason

    if not found:
        from kernelopt.tunables.compile_cache import unread_launch_note

        cached = unread_launch_note(file.read_text(errors="replace")) if file.is_file() else None
        said = f": {cached}" if cached else " (launch literals, autotune configs, `# kernelopt: tunable` constants)"
        info(f"{file}: no tunable found{said}")
        return
    table(
        f"tunables of {file}",
        ["key", "value", "kind", "location", "legal", "categories"],
        [
            [
                t.key,
                t.value if t.value is not None else ("computed" if t.computed else None),
                "semantic" if t.semantic else t.kind.value,
                t.location,
                ", ".join(t.constraints) or "-",
                ", ".join(c.value for c in t.categories) or "-",
            ]
            for t in found
        ],
    )
    for t in found:
        if t.semantic:
            warn(f"{t.key} is not a performance parameter: {t.refused_reason}")
        elif t.refused_reason:
            warn(f"{t.key} is not editable: {t.refused_reason}")
        elif (left := sizeless_reason(t)) is not None:  # as tune reads it (late56 l263): it said "tuned ..." here
            info(
                f"{t.key} is {left} by tune (its pick could only be a literal, less general than the computation); "
                f"--set {t.key}=VALUE writes one value for every size where it is computed ({t.tuned_at})"
            )
        elif t.kind.value == "computed_setting" and not t.size_names:
            info(
                f"{t.key} is computed ({t.computed}) from no size of the problem (a device, a dtype or constants): "
                f"it is tuned where it is computed ({t.tuned_at}), one value for every size (no table by size "
                "can fall back on it)"
            )
        elif t.kind.value == "computed_setting":
            sizes = f", by {', '.join(t.size_names)}" if t.size_names else ""
            info(
                f"{t.key} is computed ({t.computed}); it is tuned where it is computed ({t.tuned_at}): "
                f"one value for every size, or a table by size{sizes} that falls back on the computation"
            )
            if t.helper_note:
                info(f"{t.key}: {t.helper_note}")
            if t.tuned_table is not None and t.tuned_table.buckets:
                info(_earlier_rows(t, t.tuned_table))
            if len(t.groups) > 1:
                info(
                    f"{t.key} is one setting read by {len(t.groups)} launches ({'; '.join(t.groups)}): "
                    "each takes the tuned value"
                )
        elif t.kind.value == "heuristic" and t.computed and t.size_names:
            info(
                f"{t.key} is computed ({t.computed}); tune writes a table by {', '.join(t.size_names)} into the "
                f"lambda that falls back on it; --set {t.key}=VALUE overrides it with a literal"
            )
        elif t.computed and t.value is None:
            info(f"{t.key} is computed ({t.computed}); --set {t.key}=VALUE overrides it with a literal")
        elif t.kind.value == "launch_kwarg" and t.size_names:  # a literal local a table may hold (leftovers21 l9)
            info(
                f"{t.key} = {t.value} is a literal bound beside {', '.join(t.size_names)} ({t.location}): tune tunes "
                f"it as one value for every size, or, where the entries' bests differ and {' or '.join(t.size_names)} "
                "is a size every SHAPES entry gives (a number: no table buckets on a tensor), as a table by size "
                f"written after it that keeps the literal above its rows; --set {t.key}=VALUE moves the literal"
            )
            if t.helper_note:
                info(f"{t.key}: {t.helper_note}")
        elif t.helper_note:  # a literal conditional overrides may not be the value at the task's sizes
            info(f"{t.key}: {t.helper_note}")
