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

from kernelopt.batch.problems import BatchItem, reference_fault, source_defect
from kernelopt.errors import InputFileError, UsageError
from kernelopt.fileio import atomic_write_code

LEVEL_NAME = re.compile(r"level_?(\d+)$")
PROBLEM_FILE = re.compile(r"^(\d+)_(.*)\.py$")
SAMPLE_FILE = re.compile(r"^level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py$")
#: Room for ``kernel_opt_`` in front: a workspace name has at most 64 characters.
FOLDER_NAME_CHARS = 53


def sample_name(level: int, problem_id: int, sample: int | str) -> str:
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
        raise InputFileError(level_dir, "is not a folder", hint="give a KernelBench level folder (level1/)")
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


def sample_files(run_dir: Path, level: int) -> dict[int, dict[int, Path]]:
    """Problem id -> sample number -> generated kernel of ``level`` in a runs folder.

    Raises:
        InputFileError: ``run_dir`` is not a folder, or holds no generated kernel of ``level`` (a batch of
            nothing but "no generated kernel" rows is a wrong folder or level, said at once).
    """
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise InputFileError(run_dir, "is not a folder", hint="give the runs folder of the generated kernels")
    found: dict[int, dict[int, Path]] = {}
    levels: set[int] = set()
    for path in run_dir.iterdir():
        match = SAMPLE_FILE.match(path.name)
        if match and path.is_file():
            levels.add(int(match.group(1)))
            if int(match.group(1)) == level:
                found.setdefault(int(match.group(2)), {})[int(match.group(3))] = path.resolve()
    if not found:
        held = ", ".join(str(n) for n in sorted(levels))
        raise InputFileError(
            run_dir,
            f"holds no generated kernel of level {level} (level_{level}_problem_<id>_sample_<k>_kernel.py)",
            hint=f"it holds kernels of level {held}: give --level or that level's folder"
            if levels
            else "give the runs folder the generated kernels were written to",
        )
    return {pid: dict(sorted(samples.items())) for pid, samples in sorted(found.items())}


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
    samples = sample_files(run_dir, level)
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
    return items
