"""A new user's first hour on a fresh clone, fourth trial (2026-12-05): bad input at each step, one test per fix
(docs/faults.md, "A new user's first hour, fourth trial")."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.workspace import Workspace

KERNEL = "import torch\n\n\ndef run(x, y):\n    return x + y\n"
REFERENCE = """import torch

SHAPES = {shapes}


def get_inputs(n: int = 4096, device: str = "cpu"):
    return [torch.randn(n, device=device), torch.randn(n, device=device)]


def reference(x, y):
    return x + y
"""


def _folder(tmp_path: Path, shapes: str) -> Path:
    folder = tmp_path / "k"
    folder.mkdir()
    (folder / "kernel.py").write_text(KERNEL)
    (folder / "reference.py").write_text(REFERENCE.format(shapes=shapes))
    return folder


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("shapes", "said"),
    [
        ('[{"n": 4096}, {"m": 5}]', "SHAPES[1] {'m': 5} cannot be built: get_inputs takes no argument 'm'"),
        ('[{"n": 4096}, {"n": "1k"}]', "SHAPES[1] {'n': '1k'} cannot be built: n is the string '1k'"),
        ('[{"n": 2**12}, {"n": "4096"}]', "write 'n': 4096 without quotes"),
    ],
)
@pytest.mark.parametrize("command", ["init", "optimize"])
def test_a_shapes_entry_get_inputs_cannot_take_is_refused_by_init_and_optimize_as_by_tune(
    tmp_path: Path, shapes: str, said: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """u1: `SHAPES = [{"n": 4096}, {"m": 5}]` (or `{"n": "1k"}`): `tune` refused it in one line before anything ran,
    but `init` made the workspace (printing only "dtype: not inferred (the probe of reference.py failed: ...)")
    and `validate` / `optimize` gated V0 into "FAIL of reference.py" after a warning that blamed the device
    ("get_inputs() raised TypeError with cpu as the default device ... built on the CPU and moved")."""
    folder = _folder(tmp_path, shapes)
    root = tmp_path / "root"
    root.mkdir()
    if command == "init":
        argv = ["init", "k", "--kernel", str(folder / "kernel.py"), "--reference", str(folder / "reference.py")]
    else:
        argv = ["optimize", str(folder), "--device", "cpu", "--max-iters", "0"]
    assert main([*argv, "--root", str(root)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and said in err, err
    assert list(root.iterdir()) == []  # no workspace made


@pytest.mark.timeout(60)
def test_the_device_note_is_said_only_when_the_inputs_were_built_on_the_cpu_and_moved() -> None:
    """u2: `SHAPES = [{"n": "1k"}]` under `validate --device cpu` warned "get_inputs() raised TypeError with cpu
    as the default device (...); its inputs are built on the CPU and moved, which is slow for large inputs": the
    second call raised too (the entry's own fault, said on the next line), and on the CPU nothing is moved."""
    import torch

    from kernelopt.harness.inputs import make_inputs

    def always(n: int) -> list[torch.Tensor]:
        return [torch.randn(n)]

    notes: list[str] = []
    with pytest.raises(RuntimeError, match="negative dimension"):
        make_inputs(always, {"n": -5}, "meta", 0, on_host=notes.append)
    assert notes == []  # the fault is get_inputs's at this entry, not the device's

    calls = []

    def first_fails(n: int) -> list[torch.Tensor]:  # a get_inputs that needs the CPU as its default device
        calls.append(n)
        if len(calls) % 2:
            raise TypeError("needs the CPU")
        return [torch.ones(n)]

    for device, said in (("cpu", 0), ("meta", 1)):
        notes.clear()
        (x,) = make_inputs(first_fails, {"n": 3}, device, 0, on_host=notes.append)
        assert x.device.type == device and len(notes) == said, notes
    assert "built on the CPU and moved" in notes[0]


@pytest.mark.timeout(60)
def test_the_roofline_figure_of_versions_timed_on_the_cpu_says_so_in_its_title() -> None:
    """u3: `kernelopt report` of the README's CPU demo writes `r.roofline.png` titled "loop: NVIDIA H200 SXM, fp32"
    with the CPU's points under the H200's roofs; the Markdown beside it said "the NVIDIA H200 SXM roofs below are
    not the roofs of that device", the image, a file of its own, did not."""
    from kernelopt.report.model import MeasuredDevice, ReportData
    from kernelopt.report.sections import plot_title

    cpu = [MeasuredDevice(name="cpu", timing_methods=["cpu_perf_counter"], versions=["V0", "V1"])]
    data = ReportData(name="loop", root="/x", gpu="H200", card_gpu="H200", gpu_spec="NVIDIA H200 SXM", dtype="fp32")
    assert plot_title(data) == "loop: NVIDIA H200 SXM, fp32"
    elsewhere = data.model_copy(update={"measured_on": cpu, "measured_elsewhere": True})
    title = plot_title(elsewhere)
    assert title.startswith("loop: timed on cpu, fp32") and "not that device's" in title, title


@pytest.mark.timeout(60)
def test_a_version_given_where_memory_takes_the_workspace_is_said_as_a_version(
    add_workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    """u4: `kernelopt memory read --workspace WS v7` (README: "memory create/read/... --workspace WS"): "two
    workspaces given: v7 and --workspace WS", of a version; now it is the version read (newuser7's n21: one spelling
    in every verb), and a verb that takes none says so."""
    ws = str(add_workspace.root)
    assert main(["memory", "read", "--workspace", ws, "v7"]) == 2
    assert capsys.readouterr().err.strip().endswith(f"no record v7.json in {ws}/memory")
    assert main(["memory", "summary", "-w", ws, "3"]) == 2
    assert "3 is a version, not a workspace" in capsys.readouterr().err
    # a folder named like a version is still a workspace given twice
    assert main(["memory", "read", ws, "-w", ws, "--version", "v0"]) == 2  # no record v0 yet: one line
    assert "two workspaces" not in capsys.readouterr().err


def _read_only_mount(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """``folder`` as on a read-only bind mount: statvfs says ST_RDONLY, and no file in it may be written."""
    statvfs, access = os.statvfs, os.access

    class _ReadOnly:
        def __init__(self, real: os.statvfs_result) -> None:
            self.f_flag = real.f_flag | os.ST_RDONLY

    def mounted(path: object) -> object:
        real = statvfs(path)  # type: ignore[arg-type]
        return _ReadOnly(real) if Path(str(path)).is_relative_to(folder) else real

    def writable(path: object, mode: int, **kw: object) -> bool:
        inside = Path(str(path)).is_relative_to(folder)
        return (not inside or not mode & os.W_OK) and access(path, mode, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "statvfs", mounted)
    monkeypatch.setattr(os, "access", writable)


@pytest.mark.timeout(60)
def test_tunables_set_on_a_read_only_mount_says_the_mount_not_chmod(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """u5: `kernelopt tunables ro/loop/kernel.py --set BLOCK=128` on a read-only bind mount: "read-only (mode
    0644), so nothing was written to it; make it writable (chmod u+w)": the file's mode was writable, and chmod
    cannot help on a read-only mount (tune said so since tunesafe2's t7; `tunables --set` writes through the
    lower rule, `fileio.write_target`)."""
    kernel = tmp_path / "kernel.py"
    before = "BLOCK = 64  # kernelopt: tunable max=4096\n\n\ndef run(x):\n    return x * BLOCK\n"
    kernel.write_text(before)
    _read_only_mount(monkeypatch, tmp_path)
    assert main(["tunables", str(kernel), "--set", "BLOCK=128"]) == 3
    err = capsys.readouterr().err
    assert err == (
        f"kernelopt: error: {kernel}: on a read-only file system, so nothing was written to it; work on a copy on a "
        "writable disk (or mount it read-write) and run again\n"
    )
    assert kernel.read_text() == before


@pytest.mark.timeout(60)
def test_batch_on_a_read_only_out_names_its_own_flag_not_the_workspace_s_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """u6: `kernelopt batch DIR --out RO/out` on a read-only mount: "... writing RO/.out.lock (errno 30); copy the
    workspace to a writable folder (or pass --root to create it elsewhere)": batch has no --root."""
    problems = tmp_path / "problems"
    problems.mkdir()
    ro = tmp_path / "ro"
    ro.mkdir()
    real_open = os.open

    def refuse(path: object, flags: int, *args: object, **kw: object) -> int:
        if Path(str(path)).is_relative_to(ro) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refuse)
    assert main(["batch", str(problems), "--device", "cpu", "--out", str(ro / "out")]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "(errno 30)" in err, err
    assert err.endswith("copy the batch's output to a writable folder (or pass --out to create it elsewhere)"), err


@pytest.mark.timeout(60)
def test_validate_s_timing_table_writes_its_interval_out_as_its_median(capsys: pytest.CaptureFixture[str]) -> None:
    """u7: `kernelopt validate WS --device cpu` of a Triton kernel in the interpreter: "median us 49020" beside
    "95% CI us 4.216e+04-5.702e+04": the interval kept the exponent the table's rule (`cli.output.fmt`) writes out."""
    from kernelopt.cli.validate import render_bench
    from kernelopt.harness.model import BenchReport, CaseBench, CorrectnessStatus, TimingMethod
    from kernelopt.harness.stats import summarize

    stats = summarize([42160.0 + 500.0 * k for k in range(30)])
    case = CaseBench(
        index=0,
        label="n=4",
        current=stats,
        method=TimingMethod.CPU_PERF_COUNTER,
        launches_per_sample=1,
        l2_flushed=False,
    )
    render_bench(BenchReport(ok=True, status=CorrectnessStatus.PASS, device="cpu", cases=[case]), show_warnings=False)
    out = capsys.readouterr().out
    assert "e+0" not in out, out
    low, high = (f"{v:.0f}" for v in (stats.ci_low, stats.ci_high))  # 5-digit order statistics, written out
    assert f"{low}-{high}" in out, (low, high, out)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("kernel", "said"),
    [
        (
            KERNEL.replace("def run(", "def runn("),
            "kernel.py: defines no run(*inputs) (the reference uses the function form)",
        ),
        (
            KERNEL.replace("import torch\n", "import torch\nimport not_a_module_xyz\n"),
            "kernel.py: imports not_a_module_xyz, which is not installed",
        ),
    ],
)
def test_tune_refuses_a_kernel_py_without_run_or_with_a_missing_package_before_any_candidate(
    tmp_path: Path, kernel: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """u8: `kernelopt tune FOLDER` of a kernel.py that defines no `run` (or imports a package that is not installed):
    `init` refused the first in one line, but tune ran every candidate, each failing "raised while building
    ModelNew: AttributeError: module 'kernelopt_user_kernel_1' has no..." (of a function-form kernel) or
    "compile_error ... ModuleNotFoundError", then "no candidate ran", exit 1."""
    folder = _folder(tmp_path, '[{"n": 64}]')
    (folder / "kernel.py").write_text(kernel)
    assert main(["tune", str(folder), "--device", "cpu", "--budget", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and said in err, err  # a missing package's line goes on with how (newuser19 n139)
    assert not (folder / ".kernelopt").exists()  # no session started


@pytest.mark.timeout(60)
def test_a_kernelbench_level_folder_given_alone_names_the_flag_it_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """u9: `kernelopt batch KernelBench/level1` (the folder a KernelBench user has, without --kernels): "holds no
    problem folder; a batch is a folder whose sub-folders hold reference.py + kernel.py": its 100 problem files were
    not named, nor the flag that runs them."""
    level = tmp_path / "level1"
    level.mkdir()
    for name in ("19_ReLU.py", "100_HingeLoss.py", "2_Matmul.py", "23_Softmax.py", "notes.py"):
        (level / name).write_text("import torch\n")
    assert main(["batch", str(level), "--device", "cpu", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "holds KernelBench problem files (2_Matmul.py, 19_ReLU.py, 23_Softmax.py, ... (4 in all))" in err, err
    assert "give --kernels RUN_DIR" in err, err


@pytest.mark.timeout(60)
def test_problems_that_name_none_say_the_ids_the_batch_has_not_a_range_it_lacks() -> None:
    """u10: `kernelopt batch level1 --kernels runs --problems 999` of problems 19, 23 and 36: "it has ids 19-36",
    a range that reads as 18 problems."""
    from kernelopt.batch.problems import BatchItem
    from kernelopt.batch.selection import id_ranges, select
    from kernelopt.errors import UsageError

    items = [BatchItem(problem=f"{i}_P", folder=Path(f"/x/{i}"), problem_id=i, sample=0) for i in (19, 23, 36)]
    with pytest.raises(UsageError) as said:
        select(items, "999", kernelbench=True)
    assert said.value.one_line() == "--problems 999 names none of the batch's problems; it has ids 19, 23, 36"
    assert id_ranges([19, 23, 36]) == "19, 23, 36"
    assert id_ranges([*range(1, 51), 52, 53, 97]) == "1-50, 52, 53, 97"
    assert id_ranges(list(range(1, 101))) == "1-100"


@pytest.mark.timeout(120)
def test_init_of_a_reference_that_raises_on_its_inputs_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """u11: `kernelopt init` of a reference.py whose `reference` raises: "dtype: fp32 (inferred from reference.py's
    inputs; ...)", "created ...", exit 0, nothing else; its probe had run the reference and seen it raise, and
    `validate` / `optimize` then stopped at V0 on it. The workspace is still made (the reference may need the GPU
    it will run on); the line says what the probe saw."""
    folder = _folder(tmp_path, '[{"n": 64}, {"n": 8}]')
    ref = folder / "reference.py"
    ref.write_text(ref.read_text().replace("    return x + y", '    raise RuntimeError("boom")'))
    root = tmp_path / "root"
    root.mkdir()
    argv = ["init", "k", "--kernel", str(folder / "kernel.py"), "--reference", str(ref), "--root", str(root)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    said = next(line for line in err.splitlines() if line.startswith("dtype: fp32"))
    assert said.endswith(
        "but the reference raised RuntimeError: boom on get_inputs(n=8) here: validate and optimize stop at V0 "
        "(a FAIL of reference.py) until it runs"
    ), said
    assert (root / "kernel_opt_k" / "reference.py").is_file()


@pytest.mark.timeout(60)
def test_tune_refuses_to_write_a_workspace_s_kernel_py(
    add_workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    """u12: `kernelopt tune WS --device cpu` on a workspace (docs/tuning-engine.md: "a workspace works too") wrote
    BLOCK=1024 into WS/kernel.py outside any version; `kernelopt optimize WS` then refused to run ("kernel.py has
    uncommitted changes; commit them ... or discard them"), and the MCP server's tune never writes there."""
    ws = add_workspace.root
    before = (ws / "kernel.py").read_bytes()
    assert main(["tune", str(ws), "--device", "cpu", "--budget", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith(
        f"kernelopt: error: {ws}: a kernelopt workspace, whose kernel.py only the loop's stages write"
    )
    assert f"`kernelopt optimize {ws}` runs this tuning session as its Stage 3" in err and "--dry-run" in err
    assert (ws / "kernel.py").read_bytes() == before and not (ws / ".kernelopt" / "tune").exists()


@pytest.mark.timeout(60)
def test_init_force_moves_a_workspace_with_recorded_versions_aside_instead_of_deleting_it(
    add_workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """u13: `kernelopt init loop ... --root R` over a workspace that held V0-V2 said "already exists; pass --force to
    replace it", and `--force` then deleted its records, plans, profiles and git history without a word."""
    ws = add_workspace
    ws.memory.create("v0")
    (ws.root / "plans" / "v1_plan.md").write_text("# plan\n")
    folder = _folder(tmp_path, '[{"n": 64}]')
    (folder / "README.md").write_text("---\ndtype: fp32\ngpu: H200\n---\n")
    argv = ["init", ws.name, "--kernel", str(folder / "kernel.py"), "--reference", str(folder / "reference.py")]
    argv += ["--root", str(ws.root.parent)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        "pass --force to replace it (its 1 recorded version(s) are kept: the old workspace is moved aside)"
    )
    assert main([*argv, "--force"]) == 0
    err = capsys.readouterr().err
    kept = [p for p in ws.root.parent.iterdir() if p.name.startswith(f"{ws.root.name}.replaced-")]
    assert len(kept) == 1 and f"is kept at {kept[0]}" in err, err
    assert (kept[0] / "memory" / "v0.json").is_file() and (kept[0] / "plans" / "v1_plan.md").is_file()
    assert Workspace(ws.root).memory.versions() == []  # the new one starts empty
    # a workspace with nothing recorded is replaced as before: nothing to keep
    assert main([*argv, "--force"]) == 0
    assert len([p for p in ws.root.parent.iterdir() if ".replaced-" in p.name]) == 1


@pytest.mark.timeout(60)
def test_the_search_plot_legend_writes_a_latency_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """u14: `search.png` of a tune in Triton's interpreter: its legend read "current 9.556e+05 us" beside the axis's
    "500000" (the figure rule of the tables, `digits.sig`, was not the legend's)."""
    from matplotlib.axes import Axes

    from kernelopt.report.search_plot import SearchPoint, search_plot

    labels: list[str] = []
    original = Axes.axhline

    def axhline(self: Axes, *args: object, **kwargs: object) -> object:
        labels.append(str(kwargs.get("label")))
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Axes, "axhline", axhline)
    points = [SearchPoint(evaluation=1, latency_us=503600.0, outcome="ok")]
    image = search_plot(points, title="t", current_latency_us=955600.0, sweep_best_us=12764.0)
    assert image.startswith(b"\x89PNG")
    assert "current 955600 us" in labels and "sweep best 12760 us" in labels, labels


@pytest.mark.timeout(60)
def test_an_error_whose_first_line_announces_a_list_keeps_the_list_s_first_item() -> None:
    """u15: `SHAPES = [{"n": 4096}, {"n": 1e3}]`, then `tune` / `optimize`: "reference.py: TypeError: randn() received
    an invalid combination of arguments - got (float, generator=torch._C.Generator), but expected one of:" and the
    line ended there, saying neither what was expected nor that it was cut (three copies of the rule: `oneline`,
    `tuning.checks.first_line`, `worker.server.first_line`; the last two now read the first)."""
    import torch

    from kernelopt.oneline import first_line
    from kernelopt.tuning.checks import first_line as exception_line
    from kernelopt.worker.server import first_line as server_line

    with pytest.raises(TypeError) as caught:
        torch.randn(1000.0, generator=torch.Generator())  # type: ignore[call-overload]
    said = first_line(str(caught.value), 300)
    assert "but expected one of: * (tuple of ints size" in said, said
    for line in (exception_line(caught.value), server_line(caught.value)):
        assert line.startswith("TypeError: ") and "expected one of: * (tuple of ints size" in line, line
    assert first_line("\n  plain: one line\nnext\n", 300) == "plain: one line"  # no colon at its end: alone
    assert first_line("a list:\n", 300) == "a list:"  # nothing follows: as it is


@pytest.mark.timeout(60)
def test_validate_shows_a_live_status_with_its_seconds_on_a_terminal_and_nothing_on_a_pipe(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """u16: `kernelopt validate WS` said nothing until the gate's end: 18 s for a torch softmax on the loaded CPU,
    longer for a Triton kernel in the interpreter, minutes on a GPU at full size (the loop and tune show theirs)."""
    import time

    from rich.console import Console

    from kernelopt.cli.validate import busy

    with busy("validate v0: checking"):
        time.sleep(0.1)
    assert capsys.readouterr().err == ""  # a pipe or a log: no status line
    monkeypatch.setattr(Console, "is_terminal", property(lambda self: True))
    with busy("validate v0: checking"):
        time.sleep(1.3)
    err = capsys.readouterr().err
    assert "validate v0: checking" in err and "validate v0: checking (1 s)" in err, err


@pytest.mark.timeout(60)
def test_tunables_refuses_a_reference_that_is_missing_or_is_no_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """u17: `kernelopt tunables kernel.py --reference nope.py` (a typo) listed the knobs and exit 0, the reference
    passed over in silence, as was `--reference kernel.py`: the computed knobs' values it was given to read were
    never read."""
    folder = _folder(tmp_path, '[{"n": 64}]')
    kernel = str(folder / "kernel.py")
    for given, said in (
        (tmp_path / "nope.py", f"--reference {tmp_path / 'nope.py'}: no such file; give the task's reference.py"),
        (folder, f"--reference {folder}: is a folder, not a file"),
        (folder / "kernel.py", f"{kernel}: defines no get_inputs()"),
    ):
        assert main(["tunables", kernel, "--reference", str(given)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and said in err, err


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", ["profile", "plan"])
def test_a_version_past_the_next_is_refused_before_its_folder_renumbers_the_workspace(
    add_workspace: Workspace, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """u18: `kernelopt profile WS --version 99 --device cpu` on a workspace at V2 wrote profiles/v99/, and from then
    `kernelopt plan WS` said "v99: ..." and the loop's next version was V100 (numbers are never reused)."""
    ws = add_workspace
    assert main([command, str(ws.root), "--version", "99", "--device", "cpu"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "kernelopt: error: --version 99: this workspace's next version is V0; give 0 or an earlier one; anything written for "
        "v99 would number every later version after it"
    ), err
    assert ws.next_version() == 0 and not (ws.root / "profiles" / "v99").exists()


@pytest.mark.timeout(60)
def test_memory_create_past_the_next_version_is_refused_and_a_bad_label_is_one_line(
    add_workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    """u18 for `kernelopt memory create WS --version v9` (the spec's memory_manager) on a workspace at V2: the record
    made V10 the loop's next version. And since the check: a label that is no version stays the store's one line."""
    ws = str(add_workspace.root)
    assert main(["memory", "create", ws, "--version", "v9"]) == 2
    assert "--version 9: this workspace's next version is V0" in capsys.readouterr().err
    assert main(["memory", "create", ws, "--version", "abc"]) == 2
    assert capsys.readouterr().err.strip() == "kernelopt: error: not a version label: 'abc' (expected v<N>, e.g. v3)"
    assert main(["memory", "create", ws, "--version", "v0"]) == 0
    assert add_workspace.memory.versions() == [0]


@pytest.mark.timeout(120)
def test_a_cpu_worker_runs_torch_on_one_thread_unless_the_user_says_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    """u19: `kernelopt validate WS --device cpu` of `torch.softmax` on 2 x 16 elements on the loaded 2-core machine:
    medians of 2.5 us, 4.2 us and 20,010 us in three runs (each call waiting a scheduler slice for torch's second
    OpenMP thread); `optimize` said the demo's V1 was "2.55x slower than the reference". With one thread, 1.15-1.28 us
    in four runs of 400 samples. A user's OMP_NUM_THREADS is kept."""
    import subprocess
    import sys

    from kernelopt.worker.environment import worker_env

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    env = worker_env(device="cpu")
    assert env["OMP_NUM_THREADS"] == "1" and "OMP_NUM_THREADS" not in worker_env(device="cuda")
    assert worker_env({"OMP_NUM_THREADS": "8"}, device="cpu")["OMP_NUM_THREADS"] == "8"
    probe = [sys.executable, "-c", "import torch; print(torch.get_num_threads())"]
    said = subprocess.run(probe, env=env, capture_output=True, text=True, timeout=100, check=True).stdout
    assert said.strip() == "1", said


@pytest.mark.timeout(60)
def test_a_workspace_name_with_a_letter_outside_ascii_says_ascii(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """u20: `kernelopt init ñame ...`: "invalid workspace name 'ñame'; use 1-64 letters, digits, ...": ñ is a letter;
    the rule is ASCII's."""
    folder = _folder(tmp_path, '[{"n": 64}]')
    argv = ["init", "ñame", "--kernel", str(folder / "kernel.py"), "--reference", str(folder / "reference.py")]
    assert main([*argv, "--root", str(tmp_path / "root")]) == 2
    err = capsys.readouterr().err.strip()
    assert "invalid workspace name 'ñame'; use 1-64 letters a-z or A-Z (ASCII), digits" in err, err


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("name", "text"), [("batch.csv", "problem,score\nfoo,1\n"), ("batch.json", '{"mine": 1}\n')])
@pytest.mark.parametrize("fresh", [False, True])
def test_batch_never_replaces_a_table_file_it_did_not_write(
    tmp_path: Path, name: str, text: str, fresh: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """u21: `kernelopt batch level1 --kernels runs --out myproj`, myproj holding the user's own batch.csv: replaced in
    silence by the table; a batch.json of theirs: "not a batch table; pass --fresh to start the batch again", and
    --fresh replaced it."""
    problems = tmp_path / "problems"
    (problems / "p1").mkdir(parents=True)
    (problems / "p1" / "kernel.py").write_text(KERNEL)
    (problems / "p1" / "reference.py").write_text(REFERENCE.format(shapes='[{"n": 64}]'))
    out = tmp_path / "myproj"
    out.mkdir()
    (out / name).write_text(text)
    argv = ["batch", str(problems), "--device", "cpu", "--out", str(out)] + (["--fresh"] if fresh else [])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"kernelopt: error: --out {out}: its {name} was not written by kernelopt batch, and a batch writes its table "
        "there; give another --out (a batch replaces only its own table)"
    ), err
    assert (out / name).read_text() == text and not (out / "workspaces").exists()


@pytest.mark.timeout(60)
def test_tune_s_bar_shows_the_budget_from_its_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """u22: `kernelopt tune` on a terminal: "tuning ━━━ 0/? 0:00:08 best n/a" for the first 8 s of the CPU demo's
    10 (the workers starting), then "4/9": the budget was known before the session began."""
    from rich.console import Console

    from kernelopt.cli.tune import _Bar
    from kernelopt.tuning.budget import BudgetRule

    assert [BudgetRule().candidates(9), BudgetRule(count=50).candidates(9), BudgetRule(fraction=0.5).candidates(9)] == [
        9,
        9,
        5,
    ]
    assert BudgetRule().candidates(1000) == 200  # the default rule: max(24, 1/5 of the space)
    monkeypatch.setattr(Console, "is_terminal", property(lambda self: True))
    with _Bar(9) as bar:
        assert bar.progress.tasks[0].total == 9
