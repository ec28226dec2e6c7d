"""fresh27's cases: a fresh clone tried as a new user, with bad input (a kernel.py that does not parse, a ``run()``
that raises, a ``SHAPES`` entry of the wrong type) on the CPU (docs/faults.md, "A fresh clone, twenty-seventh
round")."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.cli.app import main

KERNEL = """
import torch
import triton
import triton.language as tl


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, a * tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def run(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    axpy_kernel[(triton.cdiv(n, 32),)](x, y, out, 2.0, n, BLOCK=32)
    return out
"""

REFERENCE = """
import torch

SHAPES = [{"n": 1000}, {"n": 3000}]


def get_inputs(n: int = 1000, device: str = "cpu"):
    return [torch.randn(n, device=device), torch.randn(n, device=device)]


def reference(x, y):
    return 2.0 * x + y
"""


def _folder(tmp_path: Path, kernel: str = KERNEL, reference: str = REFERENCE) -> Path:
    folder = tmp_path / "axpy"
    folder.mkdir()
    (folder / "kernel.py").write_text(kernel)
    (folder / "reference.py").write_text(reference)
    return folder


@pytest.mark.parametrize("broken", ["kernel.py", "reference.py"])
def test_f50_optimize_of_a_file_that_does_not_parse_is_one_line_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], broken: str
) -> None:
    """f50: ``optimize DIR --device cpu`` checks a new workspace's packages before the files' form, and a kernel.py
    (or reference.py) with a syntax error was kernelopt's own crash: "internal error: SyntaxError: '(' was never
    closed", exit 70 and a crash log. It is the one line ``tune`` and ``init`` say, exit 2, no workspace made."""
    folder = _folder(tmp_path)
    path = folder / broken
    path.write_text(path.read_text().replace("2.0 * x + y", "(2.0 * x + y").replace("empty_like(x)", "empty_like(x"))
    root = tmp_path / "root"
    code = main(["optimize", str(folder), "--device", "cpu", "--root", str(root)])
    err = capsys.readouterr().err
    assert code == 2, err
    line = 15 if broken == "kernel.py" else 12
    assert (
        err.strip().splitlines()[-1] == f"kernelopt: error: {path}: syntax error at line {line}: '(' was never closed"
    )
    assert not (root / "kernel_opt_axpy").exists()


def test_f51_tune_says_the_kernel_as_written_fails_where_no_candidate_passed() -> None:
    """f51: ``tune`` of a kernel whose ``run()`` raises whatever its knobs ran every candidate, the current one
    among them, and ended "no candidate ran (each one's outcome is in the session record)": each had run and raised.
    Where the current configuration failed by the kernel's own error, the line says the kernel fails as written and
    how; a current cut by its time limit (the machine's, maybe) and one not evaluated keep the old line."""
    from kernelopt.cli.tune import verdict_line
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain

    reason = "on the SHAPES entry n=1000: raised while running: ValueError: boom (kernel.py:17)"

    def session(*results: Result) -> SessionResult:
        return SessionResult(
            best_config=None,
            best_latency_us=None,
            current_config={"BLOCK": 32},
            current_latency_us=None,
            results=list(results),
            retimed=[],
            evaluations=len(results),
            served=0,
            budget=3,
            space_size=9,
            wall_s=50.0,
            stop=StopReason.CANDIDATES,
            strategy="local",
        )

    def line(result: SessionResult) -> str:
        return verdict_line(result, judge_gain(result), kernel_py="kernel.py", written=False, dry_run=False)

    def raised(block: int, outcome: Outcome = Outcome.RUN_ERROR) -> Result:
        return Result(config={"BLOCK": block}, outcome=outcome, reason=reason, failed_entry="n=1000")

    assert line(session(raised(32), raised(64), raised(1024))) == (
        f"no candidate passed: kernel.py fails as written (BLOCK=32, run_error: {reason}); fix it, then run again; "
        "kernel.py left unchanged"
    )
    old = "no candidate ran (each one's outcome is in the session record); kernel.py left unchanged"
    assert line(session(raised(32, Outcome.RUN_TIMEOUT), raised(64))) == old
    assert line(session(raised(64), raised(1024))) == old


@pytest.mark.parametrize("entry", ["[3000]", "(3000,)", '"n=3000"', "None"])
def test_f52_a_shapes_entry_written_as_a_list_is_refused_before_a_workspace_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: str
) -> None:
    """f52: ``SHAPES = [{"n": 1000}, [3000]]`` passed the written check (it read a constant entry alone), so
    ``init`` and ``optimize`` made a workspace and ``optimize`` committed V0's failure ("reference.py fails, not the
    kernel: ... SHAPES must be a list of dicts"), and ``batch`` ran the reference to say it. An entry written as a
    list or a tuple is refused in the one line, before anything is made, as a constant entry was."""
    folder = _folder(tmp_path, reference=REFERENCE.replace('{"n": 3000}', entry))
    root = tmp_path / "root"
    kernel, reference = str(folder / "kernel.py"), str(folder / "reference.py")
    code = main(["init", "axpy", "--kernel", kernel, "--reference", reference, "--root", str(root)])
    err = capsys.readouterr().err
    assert code == 2, err
    kind = {
        "[3000]": "list of list ([3000])",
        "(3000,)": "list of tuple ((3000,))",
        '"n=3000"': "list of str ('n=3000')",
        "None": "list of NoneType (None)",
    }
    assert err.strip().splitlines()[-1] == (
        f"kernelopt: error: {folder / 'reference.py'}: SHAPES must be a list of dicts (keyword arguments of "
        f"get_inputs), one per case, not {kind[entry]}"
    )
    assert not (root / "kernel_opt_axpy").exists()


def test_f53_batch_of_a_folder_that_is_not_there_says_no_such_folder(tmp_path: Path) -> None:
    """f53: ``kernelopt batch nonexist`` said "nonexist: is not a folder", as if something else were there; it says
    what ``tune`` and ``optimize`` say of a missing folder (``why_missing``), and a file keeps "is a file"."""
    from kernelopt.batch.kernelbench import problem_files
    from kernelopt.batch.problems import problem_folders
    from kernelopt.errors import InputFileError

    with pytest.raises(InputFileError, match=r"nonexist: no such folder$"):
        problem_folders(tmp_path / "nonexist")
    (tmp_path / "k.py").write_text("")
    with pytest.raises(InputFileError, match=r"k\.py: is a file, not a folder$"):
        problem_folders(tmp_path / "k.py")
    with pytest.raises(InputFileError, match=r"level1: no such folder$"):
        problem_files(tmp_path / "level1")


def test_f54_the_interpreter_s_timeout_hint_names_a_size_scale_optimize_takes() -> None:
    """f54: ``optimize``'s V0 past its limit in Triton's interpreter said "or scale the sizes (--size-scale)", an
    option ``optimize`` lacks (validate, tune and batch take it), and "of at most 2**22" beside a column mean of
    98,304 elements whose 8 x 16 tiles made it slow. The hint names the task card's ``size_scale`` beside the flag,
    and says the tiles count."""
    import typer.main

    from kernelopt.cli.app import build_app
    from kernelopt.harness.gate import INTERPRETER_HINT

    commands = typer.main.get_command(build_app()).commands  # type: ignore[attr-defined]
    flags = {name: {o for p in commands[name].params for o in p.opts} for name in ("optimize", "validate", "batch")}
    assert "--size-scale" not in flags["optimize"] and {"--size-scale"} <= flags["validate"] & flags["batch"]
    assert "(the task card's size_scale, or --size-scale)" in INTERPRETER_HINT
    assert "small tiles" in INTERPRETER_HINT
