"""Which sub-folders of a batch folder are problems, and why one is not. Parses files, never imports."""

from __future__ import annotations

from pathlib import Path

from kernelopt.errors import InputFileError
from kernelopt.kernelsource import check_kernel, check_reference


def problem_folders(directory: Path) -> list[Path]:
    """The sub-folders of ``directory`` that hold Python files, sorted by name (hidden ones skipped).

    Raises:
        InputFileError: ``directory`` is not a folder, or holds no problem folder (it may be one problem
            itself: the hint says so).
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise InputFileError(directory, "is not a folder", hint="give a folder whose sub-folders are problems")
    found = sorted(
        p for p in directory.iterdir() if p.is_dir() and not p.name.startswith((".", "_")) and any(p.glob("*.py"))
    )
    if found:
        return found
    if (directory / "reference.py").is_file():
        raise InputFileError(
            directory,
            "is one problem, not a folder of problems",
            hint=f"give its parent folder ({directory.resolve().parent}), or run `kernelopt optimize {directory}`",
        )
    raise InputFileError(
        directory, "holds no problem folder", hint="a batch is a folder whose sub-folders hold reference.py + kernel.py"
    )


def problem_defect(folder: Path) -> str | None:
    """Why ``folder`` is not a problem in either accepted form (one line), or ``None`` when it is one.

    Function form: reference.py with ``reference`` + ``get_inputs``, kernel.py with ``run``. KernelBench
    form: reference.py with ``Model`` + ``get_inputs`` + ``get_init_inputs``, kernel.py with ``ModelNew``.
    """
    for name in ("reference.py", "kernel.py"):
        if not (folder / name).is_file():
            return f"no {name} (a problem folder holds reference.py and kernel.py)"
    try:
        form = check_reference(folder / "reference.py")
        check_kernel(folder / "kernel.py", form)
    except InputFileError as exc:
        return exc.one_line().replace(str(folder) + "/", "")
    return None
