"""KernelBench's own layout: ``kernelopt batch LEVEL_DIR --kernels RUN_DIR``.

As KernelBench's scripts lay it out (``src/kernelbench/dataset.py``, ``scripts/generate_samples.py``,
``scripts/eval_from_generations.py``):

- LEVEL_DIR is a level folder (``KernelBench/level1``): one problem per ``<id>_<Name>.py`` file
  (``19_ReLU.py``), defining ``Model``, ``get_inputs`` and ``get_init_inputs``; the id is the number before
  the first ``_`` (files without one are not problems). The level is the number in the folder's name
  (``level1``), or ``--level``.
- RUN_DIR (``runs/<run_name>``) holds the generated kernels, ``level_<level>_problem_<id>_sample_<k>_kernel.py``,
  each defining ``ModelNew``; other files there (prompts, ``eval_results.json``, the generation config) and
  kernels of another level are left alone.

Each problem and sample is one item, paired by problem id. A runnable pair becomes a problem folder under
``OUT/kernelbench/level<L>/<id>_s<k>_<Name>/`` (reference.py: the problem file, kernel.py: the sample,
copied byte for byte), which the batch then runs like any other; a problem with no sample, a sample of a
problem the level lacks, and a file that cannot run (no ``ModelNew``, a package that is not installed)
are items with a one-line reason, their own ``INVALID`` rows.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kernelopt.batch.problems import PROBLEM_FILE, BatchItem, reference_fault, source_defect
from kernelopt.errors import InputFileError, UsageError
from kernelopt.fileio import atomic_write_code
from kernelopt.kernelsource import why_missing

LEVEL_NAME = re.compile(r"level_?(\d+)$")
SAMPLE_FILE = re.compile(r"^level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py$")
#: Room for ``kernel_opt_`` in front: a workspace name has at most 64 characters.
FOLDER_NAME_CHARS = 53


def sample_name(level: int, problem_id: int | str, sample: int | str) -> str:
    """The file KernelBench's generation scripts write for one sample. Pure."""
    return f"level_{level}_problem_{problem_id}_sample_{sample}_kernel.py"


def level_of(level_dir: Path) -> int | None:
    """The level in a level folder's name (``level1`` -> 1), ``None`` when the name has none. Pure."""
    match = LEVEL_NAME.search(Path(level_dir).name)
    return int(match.group(1)) if match else None


def problem_files(level_dir: Path) -> dict[int, Path]:
    """Problem id -> problem file of a level folder.

    Raises:
        InputFileError: ``level_dir`` is not a folder, has no problem file, or two files share an id.
    """
    level_dir = Path(level_dir)
    if not level_dir.is_dir():
        raise InputFileError(
            level_dir, why_missing(level_dir, "folder"), hint="give a KernelBench level folder (level1/)"
        )
    found: dict[int, Path] = {}
    for path in sorted(level_dir.glob("*.py")):
        match = PROBLEM_FILE.match(path.name)
        if not match:
            continue
        pid = int(match.group(1))
        if pid in found:
            raise InputFileError(level_dir, f"problem {pid} is both {found[pid].name} and {path.name}")
        found[pid] = path.resolve()
    if not found:
        raise InputFileError(level_dir, "holds no <id>_<Name>.py problem file", hint="give a KernelBench level folder")
    return dict(sorted(found.items()))


#: A runs file read the way a user means it: a leading zero (``problem_01``), no ``_sample_<k>`` (sample 0).
LOOSE_SAMPLE_FILE = re.compile(r"^level_(\d+)_problem_(\d+)(?:_sample_(\d+))?_kernel\.py$")


class RunsFolder(BaseModel):
    """What a runs folder holds for one level.

    Attributes:
        samples: problem id -> sample number -> generated kernel.
        unread: ``.py`` files that are not read as a kernel of the level, file -> why (one line): a name that is
            not ``level_<L>_problem_<id>_sample_<k>_kernel.py``, or a second file for one problem and sample.
            Kernels of another level and files that are not Python (prompts, ``eval_results.json``) are not here.
    """

    model_config = ConfigDict(frozen=True)

    samples: dict[int, dict[int, Path]]
    unread: dict[Path, str]


def _canonical(name: str) -> bool:
    """Whether a file name is exactly what KernelBench's scripts write (no leading zero, a sample). Pure."""
    match = SAMPLE_FILE.match(name)
    return match is not None and name == sample_name(*(int(g) for g in match.groups()))


def read_runs(run_dir: Path, level: int) -> RunsFolder:
    """The generated kernels of ``level`` in a runs folder, and the Python files there that are not read as one.

    KernelBench's scripts name a kernel ``level_<L>_problem_<id>_sample_<k>_kernel.py``. A name written as a
    user means it is read so: ``problem_01`` is problem 1, and a name without ``_sample_<k>`` is sample 0. A file
    that would be the same problem and sample as another (``problem_1`` and ``problem_01``) is not run, and
    neither is a ``.py`` file named otherwise; each is in ``unread`` with its reason, never left out in silence.

    Raises:
        InputFileError: ``run_dir`` is not a folder, or holds no generated kernel of ``level`` (a batch of
            nothing but "no generated kernel" rows is a wrong folder or level, said at once).
    """
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise InputFileError(
            run_dir, why_missing(run_dir, "folder"), hint="give the runs folder of the generated kernels"
        )
    found: dict[int, dict[int, Path]] = {}
    unread: dict[Path, str] = {}
    levels: set[int] = set()
    # KernelBench's own names first, so that a loosely named file is the one said to repeat a problem and sample
    paths = sorted((p for p in run_dir.iterdir() if p.is_file()), key=lambda p: (not _canonical(p.name), p.name))
    for path in paths:
        match = LOOSE_SAMPLE_FILE.match(path.name)
        if match is None:
            if path.suffix == ".py":
                unread[path.resolve()] = (
                    f"{path.name}: not named {sample_name(level, '<id>', '<k>')} (KernelBench's name of a "
                    "generated kernel): not run"
                )
            continue
        levels.add(int(match.group(1)))
        if int(match.group(1)) != level:
            continue
        pid, k = int(match.group(2)), int(match.group(3) or 0)
        held = found.setdefault(pid, {})
        if k in held:
            unread[path.resolve()] = (
                f"{path.name}: problem {pid} sample {k} is {held[k].name} already: not run "
                f"(name it {sample_name(level, pid, '<k>')} with another k)"
            )
            continue
        held[k] = path.resolve()
    if not found:
        held_levels = ", ".join(str(n) for n in sorted(levels))
        raise InputFileError(
            run_dir,
            f"holds no generated kernel of level {level} (level_{level}_problem_<id>_sample_<k>_kernel.py)",
            hint=f"it holds kernels of level {held_levels}: give --level or that level's folder"
            if levels
            else "give the runs folder the generated kernels were written to",
        )
    samples = {pid: dict(sorted(ks.items())) for pid, ks in sorted(found.items())}
    return RunsFolder(samples=samples, unread=dict(sorted(unread.items())))


def sample_files(run_dir: Path, level: int) -> dict[int, dict[int, Path]]:
    """Problem id -> sample number -> generated kernel of ``level`` in a runs folder (:func:`read_runs`).

    Raises:
        InputFileError: as :func:`read_runs`.
    """
    return read_runs(run_dir, level).samples


def folder_name(problem_file: Path, sample: int) -> str:
    """``19_s0_ReLU``: unique by its head (id and sample), cut to fit a workspace name. Pure."""
    match = PROBLEM_FILE.match(problem_file.name)
    pid, rest = (match.group(1), match.group(2)) if match else (problem_file.stem, "")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{pid}_s{sample}_{rest}").rstrip("._-")
    return name[:FOLDER_NAME_CHARS].rstrip("._-")


def _materialize(folder: Path, reference: Path, kernel: Path) -> Path:
    """The problem folder of one pair, written only where its files differ (a resumed batch reuses it)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in (("reference.py", reference), ("kernel.py", kernel)):
        text = source.read_text(encoding="utf-8")
        target = folder / name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            atomic_write_code(target, text)
    return folder.resolve()


def kernelbench_items(level_dir: Path, run_dir: Path, out_dir: Path, *, level: int | None = None) -> list[BatchItem]:
    """Every problem and sample of a level folder and a runs folder, in problem then sample order; runnable
    pairs get their problem folder under ``out_dir/kernelbench/level<L>/``.

    Raises:
        UsageError: the level is neither given nor in the folder's name.
        InputFileError: a folder is missing or the level folder holds no problem (or two with one id).
    """
    level = level if level is not None else level_of(level_dir)
    if level is None:
        raise UsageError(
            f"cannot tell the KernelBench level of {level_dir}", hint="name the folder level<N> or pass --level N"
        )
    problems = problem_files(level_dir)
    runs = read_runs(run_dir, level)
    samples = runs.samples
    base = Path(out_dir) / "kernelbench" / f"level{level}"
    items: list[BatchItem] = []
    for pid, reference in problems.items():
        name = reference.stem
        if pid not in samples:
            reason = f"no generated kernel: {Path(run_dir).name}/ has no {sample_name(level, pid, '<k>')}"
            items.append(BatchItem(problem=name, folder=reference, problem_id=pid, defect=reason))
            continue
        for k, kernel in samples[pid].items():
            fault = reference_fault(reference)  # the problem file's own defect: an ERROR row, not the kernel's
            defect = fault or source_defect(reference, kernel)
            folder = kernel if defect else _materialize(base / folder_name(reference, k), reference, kernel)
            items.append(
                BatchItem(
                    problem=name, folder=folder, problem_id=pid, sample=k, defect=defect, problem_fault=bool(fault)
                )
            )
    for pid in sorted(set(samples) - set(problems)):
        for k, kernel in samples[pid].items():
            reason = f"{kernel.name}: {Path(level_dir).name}/ has no problem {pid} (no {pid}_<Name>.py)"
            items.append(BatchItem(problem=f"problem_{pid}", folder=kernel, problem_id=pid, sample=k, defect=reason))
    for path, reason in runs.unread.items():  # each its own INVALID row: a file of the runs folder never vanishes
        items.append(BatchItem(problem=path.stem, folder=path, defect=reason))
    return items
