"""A new user's first hour on a fresh clone, sixth trial (2026-12-05): the CLI, batch and the agent path, the fifth
trial's leftovers (one exit code for a case too big for the host; inputs built through numpy or ``torch.tensor``
counted before they are copied); one test per fix (docs/faults.md, "A new user's first hour, sixth trial")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.cli.app import main

TOO_BIG = (
    "import torch\n\nSHAPES = [{'n': 2**38}]\n\n\ndef get_inputs(n=1024):\n    return [torch.rand(n)]\n\n\n"
    "def reference(x):\n    return x * 2\n"
)
"""reference.py of a case no host holds: 1 TiB of fp32 (sized before it is built, never allocated)."""

KNOB_KERNEL = "BLOCK = 64  # kernelopt: tunable\n\n\ndef run(x):\n    return x * 2 if BLOCK else x\n"
"""kernel.py with one knob (a module constant marked tunable, read by the body): enough for `tune` to start."""


def _problem(folder: Path, reference: str = TOO_BIG) -> Path:
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(KNOB_KERNEL)
    (folder / "reference.py").write_text(reference)
    return folder


@pytest.mark.timeout(240)
def test_a_case_too_big_for_the_host_is_exit_3_in_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n10: `SHAPES = [{"n": 2**38}]` on the CPU: `validate` said "FAIL of reference.py, not of the kernel" with our
    own refusal's traceback and exit 2, `optimize` "reference.py fails, not the kernel" exit 2, `tune` "the problem
    cannot fit on cpu" exit 3: one condition, two codes. Now the check that cannot run on this machine is the
    checker's (`Culprit.CHECKER`) in the gate, and every command exits 3 (the environment) with the figures; a batch
    counts its ERROR row as a check that does not fit, not as the problem's own failure."""
    folder = _problem(tmp_path / "too big")
    ws_root = tmp_path / "ws"
    assert main(["init", "big", "--kernel", str(folder / "kernel.py"), "--reference", str(folder / "reference.py"),
                 "--root", str(ws_root)]) == 0  # fmt: skip
    capsys.readouterr()
    ws = ws_root / "kernel_opt_big"
    lines = {}
    for name, argv in (
        ("validate", ["validate", str(ws), "--device", "cpu"]),
        ("optimize", ["optimize", str(ws), "--device", "cpu", "--max-iters", "0"]),
        ("tune", ["tune", str(folder), "--device", "cpu", "--dry-run"]),
    ):
        assert main(argv) == 3, name
        out, err = capsys.readouterr()
        lines[name] = out + err
        assert "Traceback" not in out + err, name
        assert "reference.py fails" not in out + err and "of reference.py" not in out + err, name
        assert "asks for 1.00 TiB of tensors" in out + err and "nothing was built" in out + err, name
        assert err.rstrip().endswith("or run it on a GPU"), (name, err)  # the line whole, its remedy last
    assert "kernelopt: error: correctness: case 0" in lines["validate"]
    assert "the check could not run on this machine, not the kernel's fault" in lines["validate"]
    assert "the check of the baseline could not run here, not the kernel's fault" in lines["optimize"]
    assert "kernelopt: error: the problem cannot fit on cpu" in lines["tune"]
    record = json.loads((ws / ".kernelopt" / "validate" / "v0.json").read_text())
    assert record["quality_gate"]["culprit"] == "checker"

    (folder.parent / "batch").mkdir()
    (folder).rename(folder.parent / "batch" / "too big")
    assert main(["batch", str(tmp_path / "batch"), "--device", "cpu", "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    row = json.loads((tmp_path / "out" / "batch.json").read_text())["rows"][0]
    assert row["status"] == "ERROR" and "nothing was built" in row["reason"], row
    assert "the problem's reference failed" not in row["reason"]
    assert "1 ERROR row(s), a check that does not fit the device's or the host's memory, counted apart" in " ".join(
        out.split()
    ), out


@pytest.mark.timeout(60)
def test_inputs_torch_takes_from_numpy_or_lists_are_counted_before_the_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """n11: the host check counted the factories that take a size (`torch.rand(n)`); `torch.tensor(array)`,
    `torch.as_tensor`, `torch.tensor([...])`, `arange`, `linspace`, `randperm` and `eye` allocated uncounted, and a
    numpy-built case whose reference the meta device cannot run was never counted at all. Now each is sized from its
    data or arguments before torch copies it; what numpy itself allocates (outside torch) is counted when torch takes
    it, and the built inputs as a whole before the check's copies. A tensor passed through `as_tensor` is counted
    once (no false refusal), and a case that fits is built."""
    import numpy as np
    import torch

    from kernelopt.harness import inputs as inputs_mod
    from kernelopt.harness.hostmem import InputsDoNotFit
    from kernelopt.harness.inputs import make_inputs

    mib = 2**20
    monkeypatch.setattr(inputs_mod, "host_available_bytes", lambda: 64 * mib)
    array = np.ones(4 * mib, dtype=np.float32)  # 16 MiB made by numpy: seen only when torch takes it

    def copied() -> list[torch.Tensor]:
        return [torch.tensor(array), torch.tensor(array)]  # 32 MiB, 96 MiB with the float64 copies

    with pytest.raises(InputsDoNotFit) as caught:
        make_inputs(copied, {}, "cpu", 0)
    said = str(caught.value)
    assert "get_inputs() asks for 32.0 MiB of tensors, and checking them needs 96.0 MiB" in said, said
    assert "nothing was built" in said and "\n" not in said

    for build, asked in (
        (lambda: [torch.as_tensor(array), torch.tensor(array, dtype=torch.float64)], "48.0 MiB"),
        (lambda: [torch.arange(12 * mib, dtype=torch.float32)], "48.0 MiB"),
        (lambda: [torch.linspace(0, 1, 12 * mib)], "48.0 MiB"),
        (lambda: [torch.randperm(9 * mib)], "72.0 MiB"),  # int64: no float64 copy, 72 MiB alone is past 64
        (lambda: [torch.eye(3 * 1024, 4 * 1024)], "48.0 MiB"),
    ):
        with pytest.raises(InputsDoNotFit) as caught:
            make_inputs(build, {}, "cpu", 0)
        assert f"asks for {asked} of tensors" in str(caught.value), str(caught.value)

    small = make_inputs(
        lambda: [torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.as_tensor(torch.rand(mib))], {}, "cpu", 0
    )
    assert small[0].shape == (2, 2) and small[1].numel() == mib  # as_tensor of a tensor: counted once, it fits

    def numpy_only(n: int = 6 * mib) -> list[torch.Tensor]:  # no torch function sees numpy's allocation
        return [torch.from_numpy(np.ones(n, dtype=np.float32))]

    def raises_on_meta(inputs: list[object]) -> object:  # a reference the meta device cannot run (.item(), ...)
        raise NotImplementedError("no meta kernel")

    with pytest.raises(InputsDoNotFit) as caught:  # 24 MiB and its 48 MiB float64 copy: counted once built
        make_inputs(numpy_only, {}, "cpu", 0, reference=raises_on_meta)
    assert "makes 24.0 MiB of inputs (its outputs not sized), and checking them needs 72.0 MiB" in str(caught.value)
    assert "nothing was checked" in str(caught.value)
    assert make_inputs(numpy_only, {"n": mib}, "cpu", 0, reference=raises_on_meta)[0].numel() == mib  # fits: built


@pytest.mark.timeout(120)
def test_a_path_given_with_a_tilde_is_the_home_folder_in_every_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """n12: `~` reaches kernelopt unexpanded when quoted ("~/my k/reference.py"), after `=` (`--root=~/ws`) or from
    an agent's subprocess. `init --kernel "~/my k/kernel.py"` found the kernel but `--reference` in the same form
    said "~/my k/reference.py: no such file"; `tunables`, `tune PATH`, `evidence PATH --diff` said "no such file or
    folder" too. Every path argument and option now expands a leading `~` at the CLI's boundary (`cli.paths`)."""
    import shutil

    monkeypatch.setenv("HOME", str(tmp_path))
    folder = tmp_path / "my k"
    shutil.copytree(Path(__file__).parent / "data" / "loop", folder)
    assert main(["tunables", "~/my k"]) == 0
    assert "BLOCK" in capsys.readouterr().out
    assert main(["evidence", "~/my k/summary_timing_only.json", "--diff", "~/my k/summary_memory_bound.json"]) == 0
    capsys.readouterr()
    assert main(["tune", "~/my k", "--device", "cpu", "--within", "~/my k/none.json"]) == 2
    assert f"--within {folder / 'none.json'}: no such file" in capsys.readouterr().err
    assert main(["tune", "~/gone", "--device", "cpu"]) == 2
    assert f"{tmp_path / 'gone'}: no such folder" in capsys.readouterr().err
    argv = ["init", "t", "--kernel", "~/my k/kernel.py", "--reference", "~/my k/reference.py", "--root=~/ws"]
    assert main([*argv, "--task-card", "~/my k/README.md"]) == 0, capsys.readouterr().err
    assert (tmp_path / "ws" / "kernel_opt_t" / "reference.py").is_file()
    assert not (Path.cwd() / "~").exists()


@pytest.mark.timeout(60)
def test_an_option_left_without_its_value_points_at_its_own_command_s_help(capsys: pytest.CaptureFixture[str]) -> None:
    """n13: `kernelopt optimize . --max-iters` (the value forgotten at the end), `tune . --budget`, `memory list
    --workspace`: "Option '--max-iters' requires an argument; see `kernelopt --help`", the top-level help that does
    not list the option (click raises that error before it makes the command's context). Now the line names the
    command the arguments began with, sub-command included; a misspelt option still points at its command."""
    for argv, path in (
        (["optimize", ".", "--max-iters"], "kernelopt optimize"),
        (["tune", ".", "--budget"], "kernelopt tune"),
        (["memory", "list", "--workspace"], "kernelopt memory list"),
        (["optimize", ".", "--max-iter", "3"], "kernelopt optimize"),
        (["--nope"], "kernelopt"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.endswith(f"; see `{path} --help`\n") and len(err.splitlines()) == 1, err


@pytest.mark.timeout(60)
def test_a_batch_interrupted_before_its_first_row_names_no_table_it_did_not_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """n14: Ctrl-C during a batch's first problem (`kernelopt batch "kb batch" --out ../bo3`, 9 s in): "kernelopt:
    interrupted; the rows so far are in .../bo3/batch.json: the same command resumes the batch", exit 130, and no
    batch.json was there (a row is written when a problem ends). Now the line names the table only when it exists."""
    import shutil

    from kernelopt.batch import runner

    batch = tmp_path / "kb batch"
    shutil.copytree(Path(__file__).parent / "data" / "loop", batch / "one")
    out = tmp_path / "out"

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_batch", interrupted)
    assert main(["batch", str(batch), "--device", "cpu", "--out", str(out)]) == 130
    err = capsys.readouterr().err
    assert "no problem had finished, so no table was written" in err and "batch.json" not in err, err
    assert not (out / "batch.json").exists()
    out.mkdir(exist_ok=True)
    (out / "batch.json").write_text("{}")  # a row kept by an earlier problem
    assert main(["batch", str(batch), "--device", "cpu", "--out", str(out)]) == 130
    assert f"the rows so far are in {out / 'batch.json'}" in capsys.readouterr().err


@pytest.mark.timeout(60)
def test_a_command_a_message_tells_to_run_keeps_a_path_with_a_space_one_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n15: Ctrl-C of `optimize` on a workspace under "my dir": "the run is saved: `kernelopt optimize
    /work/tmp/newuser6/my dir/wsc/kernel_opt_ctc --resume` continues it": pasted, that is two words ("my" and
    "dir/...") and a refusal. Every command a message gives to copy (`--resume`, `--max-iters 0`, `kernelopt report`,
    `tune`'s and `batch`'s hints to `optimize`) now writes its path as one shell word (`oneline.shell_word`,
    quoted only when it must be)."""
    import shlex
    import shutil

    from kernelopt.oneline import shell_word

    folder = tmp_path / "my dir"
    shutil.copytree(Path(__file__).parent / "data" / "loop", folder / "k")
    argv = ["init", "e", "--kernel", str(folder / "k" / "kernel.py"), "--reference", str(folder / "k" / "reference.py")]
    assert main([*argv, "--root", str(folder)]) == 0
    ws = folder / "kernel_opt_e"
    capsys.readouterr()
    assert main(["memory", "list", str(ws)]) == 0
    said = capsys.readouterr()
    command = (said.out + said.err).split("`")[1]
    assert shlex.split(command) == ["kernelopt", "optimize", str(ws), "--max-iters", "0"], command
    assert main(["tune", str(ws), "--device", "cpu"]) == 2
    command = capsys.readouterr().err.split("`")[1]
    assert shlex.split(command) == ["kernelopt", "optimize", str(ws)], command
    assert shell_word("/tmp/kernel_opt_x") == "/tmp/kernel_opt_x"  # a plain path stays as it was


@pytest.mark.timeout(60)
def test_a_case_too_big_for_the_host_names_the_size_scale_optimize_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    """n16: `optimize "kb batch/19_ReLU" --device cpu` (KernelBench's full size: 6 GiB of inputs, 42 GiB checked) said
    "give a smaller SHAPES entry (a batch: --size-scale), or run it on a GPU": `optimize` has no --size-scale and a
    KernelBench problem no SHAPES. The line now names the task card's `size_scale`, which `optimize` reads (a card
    of `size_scale: 0.01` ran V0 in 2 s), beside the flag of validate, tune and batch."""
    import torch

    from kernelopt.harness import inputs as inputs_mod
    from kernelopt.harness.hostmem import InputsDoNotFit
    from kernelopt.harness.inputs import make_inputs

    monkeypatch.setattr(inputs_mod, "host_available_bytes", lambda: 2**20)
    with pytest.raises(InputsDoNotFit) as caught:
        make_inputs(lambda: [torch.rand(2**20)], {}, "cpu", 0)
    said = str(caught.value)
    remedy = (
        "give a smaller SHAPES entry or a size scale (the task card's size_scale, or --size-scale), or run it on a GPU"
    )
    assert said.endswith(remedy), said


@pytest.mark.timeout(60)
def test_a_relative_trace_decoder_folder_reaches_rocprofv3_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """n17: `kernelopt profile WS --vendor amd --att-library-path "./rocm lib"` (relative to the user's folder): the
    folder was found here, then passed as written to rocprofv3, which runs in the workspace, where it names nothing
    (the lead's `tune --out` fault, in another command). It is made absolute where it is looked up, before rocprofv3
    is given it (`profiling.amd.find_trace_decoder`); relative folders in the decoder's variables too."""
    from kernelopt.profiling import amd

    lib = tmp_path / "rocm lib"
    lib.mkdir()
    (lib / "librocprof-trace-decoder.so.0.1.4").write_bytes(b"\x7fELF")
    monkeypatch.chdir(tmp_path)
    found = amd.find_trace_decoder(Path("rocm lib"), {})
    assert found.directory == lib and found.directory.is_absolute()
    argv = amd.att_argv(
        rocprofv3="rocprofv3", decoder_dir=found.directory, out_dir=tmp_path / "ws" / "att", program=["python3"],
        kernel_regex=None, iteration="1",
    )  # fmt: skip
    assert argv[argv.index("--att-library-path") + 1] == str(lib)
    found = amd.find_trace_decoder(None, {amd.DECODER_ENV: "rocm lib", "ROCM_PATH": str(tmp_path / "none")})
    assert found.directory == lib


NUMPY_TOO_BIG = (
    "import numpy as np\nimport torch\n\nSHAPES = [{'n': 2**40}]\n\n\ndef get_inputs(n=1024):\n"
    "    return [torch.from_numpy(np.empty(n, dtype=np.float32))]\n\n\ndef reference(x):\n    return x * 2\n"
)
"""reference.py whose numpy refuses 4 TiB (``MemoryError: Unable to allocate 4.00 TiB``) before torch sees it."""


@pytest.mark.timeout(180)
def test_inputs_numpy_cannot_allocate_are_the_machine_s_exit_3_as_tune_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n18: a case numpy builds, too large for the host (`np.empty(2**40)`: no torch call to count before it):
    `validate` said "reference.py fails, not the kernel: ... reference.py get_inputs raised MemoryError: Unable to
    allocate ...", exit 2, where `tune` said "the problem cannot fit on cpu: building its inputs ... ran out of
    memory", exit 3. An out-of-memory error while a case's inputs are built is now the checker's, as the host's
    refusal is (n10): "the check does not fit in the device's memory: reference.py get_inputs ran out of it
    (MemoryError: ...); give a smaller SHAPES entry or a size scale ...", exit 3 in both (`harness.hostmem.
    is_out_of_memory`, the one rule `tune` used, moved where the gate reads it)."""
    folder = _problem(tmp_path / "np", NUMPY_TOO_BIG)
    from kernelopt.workspace import Workspace

    ws = Workspace.create("np", kernel=folder / "kernel.py", reference=folder / "reference.py", root=tmp_path)
    capsys.readouterr()
    assert main(["validate", str(ws.root), "--device", "cpu"]) == 3
    out, err = capsys.readouterr()
    assert (
        "kernelopt: error: correctness: case 0 (n=1099511627776): the check does not fit in the device's memory: "
        in err
    )
    assert "reference.py get_inputs ran out of it (MemoryError: Unable to allocate" in err, err
    assert "reference.py fails" not in out + err and "give a smaller SHAPES entry or a size scale" in err
    assert main(["tune", str(folder), "--device", "cpu", "--dry-run"]) == 3
    assert "the problem cannot fit on cpu" in capsys.readouterr().err


@pytest.mark.timeout(60)
def test_resume_with_no_workspace_yet_is_refused_before_one_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n19: `kernelopt optimize ctc --device cpu --root wsflags --resume` with no run ever started: "created
    .../wsflags/kernel_opt_ctc", then "nothing to resume in .../kernel_opt_ctc; run without --resume to start", exit
    2, and the workspace it had just made left behind. Now refused first, nothing made, not even --root."""
    import shutil

    shutil.copytree(Path(__file__).parent / "data" / "loop", tmp_path / "ctc")
    root = tmp_path / "ws"
    assert main(["optimize", str(tmp_path / "ctc"), "--device", "cpu", "--root", str(root), "--resume"]) == 2
    out, err = capsys.readouterr()
    assert "created" not in out + err
    assert err == (
        f"kernelopt: error: nothing to resume: {root / 'kernel_opt_ctc'} does not exist; run without --resume to "
        "start\n"
    )
    assert not root.exists()  # neither the workspace nor its --root


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_a_gpu_inputs_past_the_device_s_memory_are_exit_3_in_validate_and_tune(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n18 on a GPU (owed to the lead's GPU run): `torch.empty(2**40)` (4 TiB of fp32) built on the device raises
    CUDA's OutOfMemoryError at once; `validate --device cuda` said "reference.py fails", exit 2, and `tune` "the
    problem cannot fit on cuda", exit 3. Both now exit 3, the gate's line "the check does not fit in the device's
    memory: reference.py get_inputs ran out of it (OutOfMemoryError: ...)"."""
    reference = (
        "import torch\n\nSHAPES = [{'n': 2**40}]\n\n\ndef get_inputs(n=1024):\n    return [torch.empty(n)]\n\n\n"
        "def reference(x):\n    return x * 2\n"
    )
    folder = _problem(tmp_path / "gpu", reference)
    from kernelopt.workspace import Workspace

    ws = Workspace.create("gpu", kernel=folder / "kernel.py", reference=folder / "reference.py", root=tmp_path)
    capsys.readouterr()
    assert main(["validate", str(ws.root), "--device", "cuda"]) == 3
    err = capsys.readouterr().err
    assert "the check does not fit in the device's memory: reference.py get_inputs ran out of it" in err, err
    assert main(["tune", str(folder), "--device", "cuda", "--dry-run"]) == 3
    assert "the problem cannot fit on cuda" in capsys.readouterr().err


@pytest.mark.timeout(60)
def test_an_init_interrupted_in_its_probe_leaves_no_workspace_and_runs_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """n20: Ctrl-C of `kernelopt init ci --kernel ... --reference ...` while "dtype: probing reference.py's inputs
    and outputs" (3 s in, a KernelBench reference): exit 130, but the workspace was already made and committed,
    its card without the dtype, and the same command then said "... already exists; pass --force to replace it".
    The half-made workspace goes with the interrupt, as it goes with the probe's errors (`loop.opening.
    fill_new_card`)."""
    import shutil

    from kernelopt.loop import opening

    shutil.copytree(Path(__file__).parent / "data" / "loop", tmp_path / "k")
    argv = [
        "init",
        "ci",
        "--kernel",
        str(tmp_path / "k" / "kernel.py"),
        "--reference",
        str(tmp_path / "k" / "reference.py"),
    ]
    argv += ["--root", str(tmp_path / "ws")]

    def cut(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(opening, "fill_card", cut)
        assert main(argv) == 130
    assert not (tmp_path / "ws" / "kernel_opt_ci").exists()
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err  # the same command runs again
    assert (tmp_path / "ws" / "kernel_opt_ci" / "kernel.py").is_file()
