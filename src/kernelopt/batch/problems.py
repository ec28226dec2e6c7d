"""What a batch runs: its items (one row each), which sub-folders are problems, and why one is not.

Parses files and looks modules up (``importlib.util.find_spec``); never imports user code.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kernelopt.batch.model import row_key
from kernelopt.errors import InputFileError, KerneloptError
from kernelopt.harness.infer import shapes_by_code
from kernelopt.kernelsource import check_kernel, check_reference, missing_imports, why_missing
from kernelopt.oneline import shell_word
from kernelopt.taskcard import cpu_refusal, folder_framework
from kernelopt.workspace import PREFIX, default_name

#: A problem file of KernelBench's layout: ``<id>_<Name>.py`` (``19_ReLU.py``) in a level folder.
PROBLEM_FILE = re.compile(r"^(\d+)_(.*)\.py$")


class BatchItem(BaseModel):
    """One row's worth of work: a problem folder to run, or the reason there is nothing to run.

    Attributes:
        problem: the row's problem name (the folder's name; KernelBench layout: ``19_ReLU``).
        folder: the folder that runs (reference.py + kernel.py); when nothing runs, the problem's file or folder.
        problem_id: KernelBench layout: the problem's number.
        sample: KernelBench layout: the sample's number (``None`` for a problem without one).
        defect: why it cannot run (one line; its row is ``INVALID``), ``None`` when it can.
        problem_fault: the defect is the problem's own, not the kernel's: its reference does not parse, imports a
            package that is not installed or lacks what its form needs (``get_inputs``, ``get_init_inputs``,
            ``Model`` or ``reference``): its row is ``ERROR``, counted apart from the kernels.
        workspace_name: the name of its workspace under the batch's output folder when the one its folder's name
            gives (:func:`~kernelopt.workspace.default_name`) is another problem's too (``relu v1`` and
            ``relu_v1`` are both ``relu_v1``); ``None``: that one.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    problem: str
    folder: Path
    problem_id: int | None = None
    sample: int | None = None
    defect: str | None = None
    problem_fault: bool = False
    workspace_name: str | None = None

    @property
    def key(self) -> str:
        return row_key(self.problem, self.sample)

    def sources(self) -> dict[str, str]:
        """The sha256 of each of its files as they are now (:attr:`~kernelopt.batch.model.ProblemRow.sources`):
        those of :data:`SOURCE_FILES` its folder holds, or, when its folder is a file (a problem that cannot run),
        that file."""
        paths = [self.folder / name for name in SOURCE_FILES] if self.folder.is_dir() else [self.folder]
        digests: dict[str, str] = {}
        for path in paths:
            try:
                digests[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:  # absent, or unreadable: as absent
                continue
        return digests


#: The files of a problem folder whose change since its row makes a resumed batch run the problem again.
SOURCE_FILES = ("reference.py", "kernel.py", "README.md")


def changed_sources(before: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """The files whose digest differs between a row's ``sources`` and the item's now (added or removed included)."""
    return sorted(name for name in {*before, *now} if before.get(name) != now.get(name))


def problem_folders(directory: Path) -> list[Path]:
    """The sub-folders of ``directory`` that hold Python files, sorted by name (hidden ones skipped).

    Raises:
        InputFileError: ``directory`` is not a folder, or holds no problem folder (it may be one problem
            itself: the hint says so).
    """
    directory = Path(directory)
    if not directory.is_dir():
        # "no such folder" where nothing is there (fresh27 f53: a typo read "is not a folder")
        raise InputFileError(
            directory, why_missing(directory, "folder"), hint="give a folder whose sub-folders are problems"
        )
    found = sorted(
        p for p in directory.iterdir() if p.is_dir() and not p.name.startswith((".", "_")) and any(p.glob("*.py"))
    )
    if found:
        return found
    if (directory / "reference.py").is_file():
        raise InputFileError(
            directory,
            "is one problem, not a folder of problems",
            hint=f"give its parent folder ({directory.resolve().parent}), or run "
            f"`kernelopt optimize {shell_word(directory)}`",
        )
    files = sorted(
        (p.name for p in directory.glob("*.py") if PROBLEM_FILE.match(p.name)), key=lambda n: int(n.split("_")[0])
    )
    if files:  # a KernelBench level folder given alone (`kernelopt batch KernelBench/level1`)
        shown = ", ".join(files[:3]) + (f", ... ({len(files)} in all)" if len(files) > 3 else "")
        raise InputFileError(
            directory,
            f"holds KernelBench problem files ({shown}), not problem folders",
            hint="KernelBench's layout pairs them with the generated kernels: give --kernels RUN_DIR (its "
            "level_<L>_problem_<id>_sample_<k>_kernel.py files)",
        )
    raise InputFileError(
        directory, "holds no problem folder", hint="a batch is a folder whose sub-folders hold reference.py + kernel.py"
    )


def folder_items(directory: Path) -> list[BatchItem]:
    """The items of a folder of problem folders (this project's layout), in folder order.

    Raises:
        InputFileError: ``directory`` is not a folder.
    """
    folders = problem_folders(directory)
    names = [default_name(f) for f in folders]
    items = []
    for f, name in zip(folders, names, strict=True):
        defect = problem_defect(f)
        fault = defect is not None and reference_fault(f / "reference.py") is not None
        # two folders one workspace name ("relu v1", "relu_v1"): each would take the other's workspace (the one
        # prepared ahead replaced the one being checked, and a correct kernel failed "validation changed kernel.py")
        own = names.count(name) > 1 and f.name != name
        items.append(
            BatchItem(
                problem=f.name,
                folder=f.resolve(),
                defect=defect,
                problem_fault=fault,
                workspace_name=own_workspace_name(name, f.name) if own else None,
            )
        )
    return items


def own_workspace_name(name: str, folder_name: str) -> str:
    """A workspace name of its own for a problem folder whose name gives ``name``, another problem's too: ``name``
    and 8 hex digits of the folder's name's hash."""
    return f"{name[:55]}_{hashlib.sha256(folder_name.encode()).hexdigest()[:8]}"


def held_elsewhere(items: list[BatchItem], rows: Mapping[str, str], root: Path) -> list[BatchItem]:
    """``items``, each whose workspace (under ``root``) a row of another problem names (``rows``: workspace path ->
    the row's key) given one of its own (:func:`own_workspace_name`): a folder added beside one whose workspace name it
    shares (``relu_v1`` beside ``relu v1``, whose row holds ``kernel_opt_relu_v1``) would replace that problem's
    workspace and leave its row naming the newcomer's files (break20 b36)."""
    out = []
    for item in items:
        name = item.workspace_name or default_name(item.folder)
        holder = rows.get(str((root / f"{PREFIX}{name}").resolve()))
        if holder is not None and holder != item.key:
            item = item.model_copy(update={"workspace_name": own_workspace_name(name, item.folder.name)})
        out.append(item)
    return out


def refused_on_cpu(item: BatchItem) -> BatchItem:
    """``item`` as ``--device cpu`` takes it: ``INVALID`` where its kernel launches on a GPU driver alone (its task
    card's framework, or its kernel.py's CUDA code: :func:`~kernelopt.taskcard.folder_framework`), in the line
    ``optimize`` and ``tune`` refuse it with (newuser18's n121: a CUDA extension's row was a FAIL, "correctness:
    loading: kernel.py raised OSError: CUDA_HOME environment variable is not set", the kernel blamed for the
    machine); unchanged otherwise, and where its card cannot be read (its run says why)."""
    if item.defect is not None:
        return item
    try:
        refusal = cpu_refusal(folder_framework(item.folder))
    except KerneloptError:
        return item
    return item if refusal is None else item.model_copy(update={"defect": refusal})


def reference_fault(reference: Path) -> str | None:
    """Why ``reference`` cannot be imported or used, read without importing it (one line naming the file): it
    does not parse, imports a package that is not installed, or lacks what its form needs; ``None`` otherwise
    (a missing file is not this)."""
    if not reference.is_file():
        return None
    try:
        missing = missing_imports(reference)
    except SyntaxError as exc:
        return f"{reference.name}: syntax error at line {exc.lineno}: {exc.msg}"
    except UnicodeDecodeError:
        return f"{reference.name}: not UTF-8 text"
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        return f"{reference.name} imports {', '.join(missing)}, which {verb} not installed"
    try:  # a problem file lacking get_inputs, get_init_inputs, Model or reference is the problem's defect too
        check_reference(reference)
        shapes_by_code(reference)  # a SHAPES built by code that names no case, as a literal one
    except InputFileError as exc:
        return exc.one_line().replace(str(reference.parent) + "/", "")
    return None


def source_defect(reference: Path, kernel: Path) -> str | None:
    """Why ``kernel`` against ``reference`` cannot run (one line naming the file), or ``None``.

    Function form: reference with ``reference`` + ``get_inputs``, kernel with ``run``. KernelBench form:
    reference with ``Model`` + ``get_inputs`` + ``get_init_inputs``, kernel with ``ModelNew``. Either file
    importing a package that is not installed is a defect too.
    """
    try:
        form = check_reference(reference)
        check_kernel(kernel, form)
        shapes_by_code(reference)  # a SHAPES built by code that names no case, as a literal one
    except InputFileError as exc:
        return exc.one_line().replace(str(reference.parent) + "/", "").replace(str(kernel.parent) + "/", "")
    for path in (reference, kernel):
        missing = missing_imports(path)
        if missing:
            verb = "is" if len(missing) == 1 else "are"
            return f"{path.name} imports {', '.join(missing)}, which {verb} not installed"
    return None


def problem_defect(folder: Path) -> str | None:
    """Why ``folder`` is not a problem in either accepted form (one line), or ``None`` when it is one."""
    for name in ("reference.py", "kernel.py"):
        if not (folder / name).is_file():
            return f"no {name} (a problem folder holds reference.py and kernel.py)"
    return source_defect(folder / "reference.py", folder / "kernel.py")
