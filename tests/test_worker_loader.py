"""The one module loader (kernelopt.worker.loader): a kernel's helper modules beside it, imported plainly or
relatively (issue 32: a settings helper imported from another module of the kernel's folder)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kernelopt.worker.loader import load_module, unload

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize("line", ["from settings import pick\n", "from .settings import pick\n"])
def test_a_kernel_loads_a_settings_module_of_its_own_folder(line: str, tmp_path: Path) -> None:
    """``from .settings import pick`` failed with "attempted relative import with no known parent package" in
    every worker (the file was loaded as a top-level module): ``tune`` could not run a kernel written as in a
    package. The folder is now the file's package; the plain import keeps working as before."""
    (tmp_path / "settings.py").write_text("def pick(n):\n    return 512 if n >= 4096 else 128\n")
    kernel = tmp_path / "kernel.py"
    kernel.write_text(line + "\n\ndef run(n):\n    return pick(n)\n")
    first, second = load_module(kernel), load_module(kernel)
    try:
        assert (first.run(100), first.run(5000)) == (128, 512) and second.run(5000) == 512
        assert first.__name__ != second.__name__ and sys.modules[first.__name__] is first
    finally:
        unload(first)
        unload(second)
        sys.modules.pop("settings", None)  # the plain import's module: not left to the next test
        if str(tmp_path) in sys.path:
            sys.path.remove(str(tmp_path))
    assert first.__name__ not in sys.modules


def test_a_candidate_written_elsewhere_resolves_relative_imports_in_the_kernel_s_folder(tmp_path: Path) -> None:
    """A tuning candidate is a copy of kernel.py in the session's folder: its ``from .settings import pick``
    resolves in the base kernel's folder (``package=``), where the module is."""
    base, session = tmp_path / "task", tmp_path / "session"
    base.mkdir()
    session.mkdir()
    (base / "settings.py").write_text("def pick(n):\n    return 64\n")
    candidate = session / "candidate_1.py"
    candidate.write_text("from .settings import pick\n\n\ndef run(n):\n    return pick(n) * 2\n")
    module = load_module(candidate, package=base)
    try:
        assert module.run(10) == 128
    finally:
        unload(module)
    with pytest.raises(ImportError):
        load_module(candidate)  # its own folder holds no settings.py
