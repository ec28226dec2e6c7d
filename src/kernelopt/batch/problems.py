"""Which sub-folders of a batch folder are problems, and why one is not. Parses files, never imports."""

from __future__ import annotations

from pathlib import Path

from kernelopt.errors import InputFileError
from kernelopt.kernelsource import check_kernel, check_reference


def problem_folders(directory: Path) -> list[Path]:
    """The sub-folders of ``directory`` that hold Python files, sorted by name (hidden ones skipped).

    Raises:
        InputFileError: ``directory`` is not a folder.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise InputFileError(directory, "is not a folder", hint="give a folder whose sub-folders are problems")
    return sorted(
        p for p in directory.iterdir() if p.is_dir() and not p.name.startswith((".", "_")) and any(p.glob("*.py"))
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
