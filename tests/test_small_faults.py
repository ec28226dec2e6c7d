"""The smaller faults of issue 23's fresh-user trial, one test each (see docs/faults.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.oneline import one_line

DATA = Path(__file__).parent / "data"


def test_a_reason_is_never_cut_inside_a_number() -> None:
    reason = "output not written: 1000 of 1000 elements still hold the poison pattern"
    assert one_line(reason, 36) == "output not written: 1000 of 1000..."  # was "...: 1000 of 100"
    assert one_line("a\n  b\tc", 80) == "a b c"
    assert one_line("x" * 50, 10) == "xxxxxxx..."  # one word longer than the limit: cut inside it


def test_rel_err_is_defined_when_the_reference_is_all_zeros() -> None:
    import torch

    from kernelopt.harness.compare import check_outputs

    zeros = torch.zeros(64)
    same = check_outputs(zeros.clone(), zeros, zeros.double())
    assert same.rel_err == 0.0 and same.message is None  # was nan
    off = check_outputs(torch.full((64,), 0.5), zeros, zeros.double())
    assert off.rel_err is None and off.message is not None
    assert "rel_err undefined (the reference is all zeros), max abs err 0.5" in off.message
    assert "nan" not in off.message


def test_backticks_become_code_and_labels_on_one_spot_are_one() -> None:
    from kernelopt.report.html import inline
    from kernelopt.report.roofline import label_groups

    assert inline("run `kernelopt report WS` <now>") == "run <code>kernelopt report WS</code> &lt;now&gt;"
    groups = label_groups([1.0, 1.02, 10.0, 1.0], [5.0, 5.05, 5.0, 50.0], ["v0", "v1", "v2", "v3"])
    assert groups == [(1.0, 5.0, "v0, v1"), (10.0, 5.0, "v2"), (1.0, 50.0, "v3")]


def test_tunables_on_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tunables", str(tmp_path), "--no-evaluate"]) == 2
    assert capsys.readouterr().err == (
        f"kernelopt: error: {tmp_path}: is a folder, not a kernel file; give a kernel file (e.g. its kernel.py)\n"
    )
    (tmp_path / "kernel.py").write_text((DATA / "tunables" / "add_launch_literal.py").read_text())
    assert main(["tunables", str(tmp_path), "--no-evaluate", "--json"]) == 0  # a workspace: its kernel.py
    assert "BLOCK" in capsys.readouterr().out


def test_a_flag_out_of_range_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["optimize", "x", "--max-iters", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("kernelopt: error: Invalid value for '--max-iters'")
    assert err.rstrip().endswith("see `kernelopt optimize --help`")


def test_a_reference_that_hangs_at_import_is_said_within_the_start_up_limit(tmp_path: Path) -> None:
    """Issue 23: 7 minutes without a word (the dtype probe's 120 s, then the gate's 300 s load limit)."""
    from kernelopt.errors import InputFileError
    from kernelopt.harness.infer import infer_dtype
    from kernelopt.harness.progress import Limits, Phase, Watchdog

    dog = Watchdog(limits=Limits(startup_s=120, compile_s=300, case_s=30, run_s=60), started_at=0.0)
    dog.feed({"t": 3.0, "event": "phase", "phase": Phase.REFERENCE.value})
    assert dog.check(100.0) is None
    late = dog.check(124.0)
    assert late is not None and late.message.startswith("importing reference.py ran past 120 s")
    hangs = tmp_path / "reference.py"
    hangs.write_text("import time\ntime.sleep(600)\n")
    with pytest.raises(InputFileError, match="ran past 2 s") as refused:
        infer_dtype(hangs, timeout_s=2.0)
    assert "it hangs at import, in get_inputs() or in its reference" in refused.value.one_line()


def test_a_report_without_speed_of_light_says_so_at_the_top() -> None:
    """The flash-attention raw page (public fixture) reads n/a for most metrics: said once, up front."""
    from kernelopt.evidence.summary import render_text
    from kernelopt.profiling.reader import read_evidence

    text = render_text(read_evidence(DATA / "nvidia" / "ncu_rtx5090_flashfwd_splitkv_raw.csv"))
    head = text.split("== kernel:")[0]
    assert "PARTIAL DATA: void flash_fwd_splitkv_kernel" in head
    assert "memory_throughput_pct not in this input (3 of 13 headline metrics are)" in head


def test_validate_says_when_reference_py_changed(add_workspace, capsys: pytest.CaptureFixture[str]) -> None:
    """The fresh-clone trial of 2026-12-03: with reference.py edited (x + y -> x - y), `kernelopt validate`
    and `kernelopt implement` ran against the edit without a word; validate blamed kernel.py (FAIL) and the
    tuning session found every candidate wrong. The loop refuses such a file; the commands now say it."""
    ws = add_workspace
    assert main(["validate", str(ws.root), "--device", "cpu"]) == 0
    assert "differs from" not in capsys.readouterr().err
    ws.reference_py.write_text(ws.reference_py.read_text().replace("return x + y", "return x - y"))
    assert main(["validate", str(ws.root), "--device", "cpu"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"warning: {ws.reference_py} differs from the committed one: this command checks")
    assert f"git -C {ws.root} diff HEAD -- reference.py" in err.replace("\n", " ")


def test_a_workspace_whose_dtype_probe_fails_is_removed_with_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The fresh-user trial of 2026-12-04: `init` on a reference that hangs at import said so in one line
    (exit 2), but left the workspace, and the same command then said it already exists."""
    import kernelopt.loop.opening as opening
    from kernelopt.cli.app import main
    from kernelopt.errors import InputFileError

    def hangs(reference_py: Path, **_: object) -> None:
        raise InputFileError(
            reference_py,
            "importing it, building its smallest SHAPES entry (get_inputs) and running it once ran past 120 s",
        )

    real = opening.infer_dtype
    monkeypatch.setattr(opening, "infer_dtype", hangs)
    kernels = Path(__file__).parent / "data" / "kernels"
    args = ["init", "hang", "-k", str(kernels / "add_kernel.py"), "-r", str(kernels / "add_reference.py")]
    args += ["--root", str(tmp_path)]
    assert main(args) == 2
    assert "ran past 120 s" in capsys.readouterr().err
    assert not (tmp_path / "kernel_opt_hang").exists()
    monkeypatch.setattr(opening, "infer_dtype", real)
    assert main(args) == 0  # the same command, once the reference is fixed
