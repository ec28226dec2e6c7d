"""Ctrl-C at the edges of a ``kernelopt`` process (issue 35's leftovers): in its first second (Python importing the
CLI), in a command's own imports, and while it ends after its outcome is said. Each is one line (or none when
the outcome was said already) and the exit status of the outcome, never a traceback.

Each test runs a real ``python -m kernelopt`` with a ``sitecustomize`` of the test that holds the process at a
known point (an import, an ``atexit`` hook), writes a mark there, and the test sends the signal once the mark is
written.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
LOOP = Path(__file__).parent / "data" / "loop"

pytestmark = pytest.mark.timeout(60)

# Holds the import of HOLD_IMPORT, or the end of the process (an atexit hook registered first, so it runs
# last, after kernelopt's own), for HOLD_S seconds, after writing the mark "held" in HOLD_MARKS.
HOOK = """import atexit
import os
import sys
import time

_marks = os.environ.pop("HOLD_MARKS", "")
_module = os.environ.pop("HOLD_IMPORT", "")
_at_exit = os.environ.pop("HOLD_AT_EXIT", "")
_hold_s = float(os.environ.pop("HOLD_S", "30"))


def _held():
    open(os.path.join(_marks, "held"), "w").close()
    time.sleep(_hold_s)


if _module:

    class _Hold:
        def find_spec(self, name, path=None, target=None):
            if name == _module:
                sys.meta_path.remove(self)
                _held()
            return None

    sys.meta_path.insert(0, _Hold())
if _at_exit:
    atexit.register(_held)
"""


def start(tmp_path: Path, argv: list[str], **hold: str) -> tuple[subprocess.Popen[str], Path]:
    hook = tmp_path / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(HOOK)
    marks = tmp_path / "marks"
    marks.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": f"{hook}{os.pathsep}{SRC}", "HOLD_MARKS": str(marks), **hold}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kernelopt", *argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return proc, marks / "held"


def held(proc: subprocess.Popen[str], mark: Path, timeout_s: float = 40) -> None:
    deadline = time.monotonic() + timeout_s
    while not mark.exists():
        if proc.poll() is not None:
            raise AssertionError(f"ended ({proc.returncode}) before it was held: {proc.communicate()}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("never held")
        time.sleep(0.02)


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"did not end: {proc.communicate()}") from None
    return proc.returncode, out, err


@pytest.mark.parametrize(
    "module",
    ["typer", "kernelopt.tuning.bench_worker"],
    ids=["the CLI's first import (the first second)", "an import inside the tune command"],
)
def test_an_interrupt_while_the_cli_imports_is_one_line_and_exit_130(tmp_path: Path, module: str) -> None:
    """A Ctrl-C while Python imported the CLI printed a traceback (and ended by SIGINT); one inside a command's
    own imports printed nothing (typer turns it into a silent exit 130). Now both are one line, exit 130."""
    folder = tmp_path / "loop"
    folder.mkdir()
    for name in ("kernel.py", "reference.py"):
        (folder / name).write_bytes((LOOP / name).read_bytes())
    proc, mark = start(tmp_path, ["tune", str(folder), "--device", "cpu", "--budget", "1"], HOLD_IMPORT=module)
    held(proc, mark)
    proc.send_signal(signal.SIGINT)
    code, out, err = finish(proc)
    assert (code, out, err) == (130, "", "kernelopt: interrupted\n")
    assert (folder / "kernel.py").read_bytes() == (LOOP / "kernel.py").read_bytes()
    assert sorted(p.name for p in folder.iterdir()) == ["kernel.py", "reference.py"]


def test_two_interrupts_while_the_process_ends_change_neither_its_line_nor_its_status(tmp_path: Path) -> None:
    """Two SIGINTs once the outcome was said (the process ending: the fork servers' atexit hook) left an
    "Exception ignored in atexit callback" traceback. Now they are ignored: the one line, the outcome's status."""
    proc, mark = start(tmp_path, ["tune", str(tmp_path / "nowhere"), "--device", "cpu"], HOLD_AT_EXIT="1", HOLD_S="2")
    held(proc, mark)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    code, out, err = finish(proc)
    assert code == 2 and out == "", err
    assert (
        err
        == f"kernelopt: error: {tmp_path / 'nowhere'}: no such folder; PATH holds kernel.py and reference.py, as optimize takes\n"
    )


def test_a_child_of_the_tests_takes_sigint_as_a_terminal_s_process_does() -> None:
    """What every test here assumes: a child the tests start turns SIGINT into KeyboardInterrupt. A run started in the
    background by a shell without job control (``pytest &``, nohup) inherits SIGINT ignored, kept through fork and
    exec; tests/conftest.py restores it (without that, eight interrupt tests of the suite failed, each its own way)."""
    code = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["True"], "SIGINT is ignored in the tests' children: see tests/conftest.py"
