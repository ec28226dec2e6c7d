"""A new user's first hour on a fresh clone, seventh trial (2026-12-05): the CLI, bad input of every kind, the sixth
trial's leftovers (one spelling of a memory record's version); one test per fix (docs/faults.md, "A new user's first
hour, seventh trial")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.cli.app import main

KERNEL = "def run(x):\n    return x * 2\n"
REFERENCE = (
    "import torch\n\nSHAPES = [{'n': 64}]\n\n\ndef get_inputs(n=64):\n    return [torch.rand(n)]\n\n\n"
    "def reference(x):\n    return x * 2\n"
)


def _problem(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(KERNEL)
    (folder / "reference.py").write_text(REFERENCE)
    return folder


@pytest.mark.timeout(60)
def test_a_memory_version_is_one_spelling_in_every_verb(add_workspace, capsys: pytest.CaptureFixture[str]) -> None:
    """n21: `memory read WS --version v1` but `memory mask WS v1`: an option in one verb, a positional in the other,
    and each refused the other's spelling ("Got unexpected extra argument", "No such option: --version"). Now
    `--version v<N>` (the spec's) is taken by every verb that names a version, and a version written after the
    workspace is the same version."""
    ws = str(add_workspace.root)
    assert main(["memory", "create", ws, "v0"]) == 0  # positional, as mask takes it
    assert main(["memory", "update", "-w", ws, "v0", "--set", "git_commit_hash=0012345"]) == 0
    capsys.readouterr()
    for argv in (
        ["memory", "read", ws, "v0"],
        ["memory", "read", "-w", ws, "v0"],
        ["memory", "read", ws, "--version", "v0"],
        ["memory", "read", ws, "V0", "--version", "0"],  # one version, two spellings
    ):
        assert main([*argv, "--field", "git_commit_hash"]) == 0, argv
        assert json.loads(capsys.readouterr().out) == "0012345", argv
    assert main(["memory", "mask", ws, "--version", "v0"]) == 0
    assert main(["memory", "read", ws, "v0"]) == 2  # masked now
    assert main(["memory", "unmask", "--version", "v0", "-w", ws]) == 0
    capsys.readouterr()
    assert main(["memory", "mask", ws, "v0", "--version", "v0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"masked": ["v0"]}
    for argv, said in (
        (["memory", "read", ws, "v0", "--version", "v1"], "two versions given: v1 and v0"),
        (["memory", "unmask", ws], "no version to unmask"),
        (["memory", "create", ws], "no version to create"),
        (["memory", "read", ws, "nope"], "nope: neither a version (v<N>) nor the workspace"),
        (["memory", "summary", "-w", ws, "3"], "3 is a version, not a workspace"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and said in err, (argv, err)


@pytest.mark.timeout(60)
def test_a_dangling_link_or_a_folder_named_kernel_py_is_said_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n22: a task folder whose kernel.py is a symbolic link to nothing, or a folder: `optimize` said "has no
    kernel.py", `tune` "no kernel.py", `tunables` "no such file", beside a kernel.py that `ls` lists; a folder given
    as a link to nothing was "no such folder". Now each says what is there (`kernelsource.why_missing`)."""
    linked = _problem(tmp_path / "linked")
    (linked / "kernel.py").unlink()
    (linked / "kernel.py").symlink_to(tmp_path / "gone.py")
    boxed = _problem(tmp_path / "boxed")
    (boxed / "kernel.py").unlink()
    (boxed / "kernel.py").mkdir()
    (tmp_path / "nowhere").symlink_to(tmp_path / "gone")
    dangling = f"is a symbolic link to {tmp_path / 'gone.py'}, which does not exist"
    root = str(tmp_path / "ws")
    for argv, said in (
        (["optimize", str(linked), "--device", "cpu", "--root", root], f"{linked / 'kernel.py'}: {dangling}"),
        (["tune", str(linked), "--device", "cpu"], f"{linked / 'kernel.py'}: {dangling}"),
        (["tunables", str(linked / "kernel.py")], f"{linked / 'kernel.py'}: {dangling}"),
        (["optimize", str(boxed), "--device", "cpu", "--root", root], "kernel.py: is a folder, not a file"),
        (["tune", str(boxed), "--device", "cpu"], "kernel.py: is a folder, not a file"),
        (["optimize", str(tmp_path / "nowhere"), "--device", "cpu", "--root", root], "nowhere: is a symbolic link"),
        (["tune", str(tmp_path / "nowhere"), "--device", "cpu"], "nowhere: is a symbolic link to"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and said in err, (argv, err)
    assert not (tmp_path / "ws").exists()  # nothing made


@pytest.mark.timeout(60)
def test_validate_refuses_a_negative_previous_version(add_workspace, capsys: pytest.CaptureFixture[str]) -> None:
    """n23: `kernelopt validate WS --previous -2`: taken, and kernel.py at HEAD timed as "v-2" (no record v-2, so the
    gate's fallback), PASS, exit 0. Now a negative version is refused as `--version -1` is: one line, exit 2."""
    assert main(["validate", str(add_workspace.root), "--device", "cpu", "--previous", "-2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("kernelopt: error: Invalid value for '--previous': version must be >= 0, got -2"), err


@pytest.mark.timeout(60)
def test_utilization_refuses_a_latency_or_count_that_is_not_finite(capsys: pytest.CaptureFixture[str]) -> None:
    """n24: `kernelopt utilization --latency-us nan` printed a table of nan, exit 0; `--latency-us inf --json` a
    JSON with `Infinity`, which no JSON reader takes. Now each is refused in one line, exit 2."""
    common = ["--gpu", "h100", "--dtype", "fp16"]
    for given, said in (
        (["--latency-us", "nan", "--flops", "1", "--bytes", "1"], "latency must be positive and finite, got nan us"),
        (
            ["--latency-us", "inf", "--flops", "1", "--bytes", "1", "--json"],
            "latency must be positive and finite, got inf us",
        ),
        (["--latency-us", "1", "--flops", "nan", "--bytes", "1"], "flops must be a finite number >= 0, got nan"),
        (["--latency-us", "1", "--flops", "1", "--bytes", "1e400"], "bytes must be a finite number >= 0, got inf"),
    ):
        assert main(["utilization", *given, *common]) == 2, given
        out, err = capsys.readouterr()
        assert err.strip() == f"kernelopt: error: {said}", (given, err)
        # --json: the same line as JSON on stdout (late34 z110); nothing on stdout without it
        assert (json.loads(out) == {"error": {"code": 2, "message": said}}) if "--json" in given else out == ""


@pytest.mark.timeout(120)
def test_a_reference_flops_that_is_no_count_is_reference_py_s_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n25: reference.py's `flops()` returning -1: `validate` said "kernelopt: error: flops must be >= 0, got -1.0"
    (which flops?), exit 2; returning NaN: PASS with a utilization of nan. Now either is reference.py's failure, as a
    `flops()` that raises is (a FAIL "of reference.py, not of the kernel", exit 2), and says what it returned."""
    folder = _problem(tmp_path / "prob")
    with (folder / "reference.py").open("a") as fh:
        fh.write("\n\ndef flops(x):\n    return float('nan')\n")
    assert main(["init", "fl", "--kernel", str(folder / "kernel.py"), "--reference", str(folder / "reference.py"),
                 "--root", str(tmp_path / "ws")]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["validate", str(tmp_path / "ws" / "kernel_opt_fl"), "--device", "cpu"]) == 2
    out, err = capsys.readouterr()
    assert "FAIL of reference.py, not of the kernel" in out, out
    assert (
        err.strip()
        .splitlines()[-1]
        .endswith(
            "reference.py flops()/bytes_moved() raised ValueError: flops() returned nan; a count per launch is a finite "
            "number >= 0"
        )
    ), err


@pytest.mark.timeout(60)
def test_the_mcp_tune_tool_says_what_is_at_the_path(tmp_path: Path) -> None:
    """n26: the MCP tool `tune(path="nope")` said "tune: nope holds no kernel.py and reference.py" of a folder that
    is not there, and so of a kernel.py that is a link to nothing. Now each is said as `kernelopt tune` says it."""
    import anyio
    from mcp.server.mcpserver.exceptions import ToolError

    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots

    linked = _problem(tmp_path / "linked")
    (linked / "kernel.py").unlink()
    (linked / "kernel.py").symlink_to(tmp_path / "gone.py")
    server = build_server(Roots([tmp_path]), default_device="cpu")
    for path, said in (
        ("nope", "tune: nope: no such folder"),
        ("linked", f"tune: {linked / 'kernel.py'}: is a symbolic link to {tmp_path / 'gone.py'}, which does not"),
    ):

        async def call(path: str = path) -> None:
            await server.call_tool("tune", {"path": path})

        with pytest.raises(ToolError) as caught:
            anyio.run(call)
        assert said in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


def test_cpu_timing_evidence_is_not_said_to_be_cuda_events() -> None:
    """n27: `kernelopt profile WS --device cpu`, then `kernelopt evidence WS/profiles/v0` (the skill's commands, read
    literally): "duration_us = 3.782e+04 us [driver.json: median of 20 CUDA-event timed calls]" of a kernel timed
    by time.perf_counter on a machine with no GPU. Now the source names the CPU's timer; a GPU's stays CUDA events."""
    from kernelopt.profiling.driver import DriverResult
    from kernelopt.profiling.timing_only import timing_only_summary

    def source(device: str) -> str | None:
        result = DriverResult(mode="time", device=device, samples_us=[20.0, 22.0, 21.0], median_us=21.0)
        summary = timing_only_summary(
            result, reason="no GPU", version="v0", sass_text={}, artifact="driver.json", artifacts=["driver.json"]
        )
        return summary.kernels[0].metrics["duration_us"].source

    assert source("cpu") == "driver.json: median of 3 calls timed by time.perf_counter on the CPU"
    assert source("NVIDIA H200") == "driver.json: median of 3 CUDA-event timed calls"


@pytest.mark.timeout(120)
def test_a_stage_run_by_hand_beside_a_run_on_its_workspace_is_refused(
    add_workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    """n28: `kernelopt profile WS --device cpu` beside a running `kernelopt optimize WS` wrote profiles/v4/ while V3
    was gated, and the guard failed V3 ("the gate wrote outside memory/v3.json: profiles/v4/driver.json (added)") and
    reverted it; `validate`, `plan`, `implement` and the memory verbs that write ran beside it too. Now each takes the
    workspace's run lock, as `optimize`, `tune` and `kernelopt mcp` do: one line naming the run, exit 2, nothing
    written. The verbs that read (`memory read`, `summary`) still answer."""
    import subprocess
    import sys

    ws = add_workspace.root
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom kernelopt.workspace import RunLock\n"
         f"with RunLock({str(ws)!r}):\n    print('held', flush=True)\n    sys.stdin.read()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        for argv in (
            ["profile", str(ws), "--device", "cpu"],
            ["validate", str(ws), "--device", "cpu"],
            ["plan", str(ws), "--device", "cpu"],
            ["implement", str(ws)],
            ["memory", "create", str(ws), "v0"],
        ):
            assert main(argv) == 2, argv
            err = capsys.readouterr().err.strip()
            assert err.startswith(f"kernelopt: error: another kernelopt optimize is running on {ws} (pid "), err
            assert len(err.splitlines()) == 1, err
        assert not (ws / "profiles" / "v0").exists() and not (ws / "memory" / "v0.json").exists()
        assert main(["memory", "summary", str(ws)]) == 0  # reading is not refused
    finally:
        holder.communicate("", timeout=30)
    capsys.readouterr()
    assert main(["memory", "create", str(ws), "v0"]) == 0  # the run ended: the lock is free


LOOP_KERNEL = """import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def run(x):
    y = torch.empty_like(x)
    _scale[(1,)](x, y, x.numel(), BLOCK=16)
    return y
"""
"""A Triton kernel whose loop runs over a runtime ``n`` (``range(0, n, BLOCK)``), as examples/softmax's does."""


@pytest.mark.timeout(180)
def test_the_readme_s_cpu_walk_through_plans_and_implements_a_triton_loop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n29, n30: the README's step by step on the CPU with a Triton kernel like examples/softmax (a main `SHAPES`
    entry sized for a GPU, a `range(0, n, BLOCK)` loop): `kernelopt plan WS --device cpu` failed in Stage 1's driver,
    "InterpreterError: TypeError('only 0-dimensional arrays can be converted to Python scalars')": the driver ran the
    first entry, and without the gate's fixes to Triton's interpreter; `kernelopt implement WS` then ran every
    candidate outside the interpreter ("0 active drivers") and found none correct. Now the driver times the entry the
    gate times there with the gate's fixes, and `implement` with no GPU driver tunes on the CPU and says so. The CPU
    entry is 300 elements (19 steps of the original's BLOCK=16): at 100 (7 steps) the blocks a tune tries differ by
    a step or two, and at load 7-16 the session was too noisy to rank them in 2 of 3 runs (2026-12-06)."""
    folder = tmp_path / "prob"
    folder.mkdir()
    (folder / "kernel.py").write_text(LOOP_KERNEL)
    (folder / "reference.py").write_text(
        "import torch\n\nSHAPES = [{'n': 2**23}, {'n': 300}]\n\n\ndef get_inputs(n=300):\n    return [torch.rand(n)]"
        "\n\n\ndef reference(x):\n    return x * 2\n"
    )
    ws = tmp_path / "ws" / "kernel_opt_lp"
    assert main(["init", "lp", "--kernel", str(folder / "kernel.py"), "--reference", str(folder / "reference.py"),
                 "--root", str(ws.parent)]) == 0  # fmt: skip
    assert main(["plan", str(ws), "--device", "cpu"]) == 0, capsys.readouterr().err
    driver = json.loads((ws / "profiles" / "v0" / "driver.json").read_text())
    assert driver["shape"] == {"n": 300}, driver["shape"]
    assert "SHAPES[0] is sized for a GPU (over 2**22): timed SHAPES[1] on the CPU" in " ".join(driver["notes"])
    capsys.readouterr()
    code = main(["implement", str(ws), "-o", "budget=3"])
    out, err = capsys.readouterr()
    assert "the tuning session runs on the CPU" in err and "0 active drivers" not in out + err, out + err
    if code == 1 and "kept nothing: too noisy to rank" in err:
        # a loaded machine (load 8, newuser8): the candidates ran on the CPU and were correct, the re-time's spread
        # (584 % of its median) ranks none of them; what n30 asks is that they ran
        assert "candidate(s) evaluated" in err and "0 candidate(s) evaluated" not in err, err
        return
    assert code == 0, err
    assert "BLOCK=16" not in (ws / "kernel.py").read_text()  # a larger block: the loop runs fewer steps


@pytest.mark.timeout(60)
def test_an_infinite_time_limit_is_refused_in_one_line(
    add_workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n31: `kernelopt profile WS --timeout inf`: "kernelopt: internal error: OverflowError: cannot convert float
    infinity to integer", exit 70 and a crash log (the command gateway turns the limit into milliseconds);
    `doctor --probe-timeout inf` (or `1e400`) and `batch --problem-timeout-s inf` were taken, a limit of forever.
    Now each is one line, exit 2, nothing made."""
    for argv, said in (
        (
            ["profile", str(add_workspace.root), "--device", "cpu", "--timeout", "inf"],
            "Input should be a finite number",
        ),
        (["doctor", "--probe-timeout", "1e400"], "--probe-timeout must be a finite number of seconds, not inf"),
        (["batch", str(tmp_path), "--out", str(tmp_path / "o"), "--problem-timeout-s", "inf"], "not inf"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and said in err and "internal error" not in err, (argv, err)
    assert not (add_workspace.root / "profiles" / "v0").exists() and not (tmp_path / "o").exists()
