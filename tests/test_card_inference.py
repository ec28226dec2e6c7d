"""init and optimize take the task card beside the kernel and infer what it leaves out (dtype, GPU), saying so."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.harness.infer import dominant_dtype, infer_dtype
from kernelopt.workspace import Workspace

pytestmark = pytest.mark.timeout(120)

FP16_GEMM_REFERENCE = """
import torch

SHAPES = [{"n": 4096}]


def get_inputs(n=64):
    return [torch.randn(n, n, dtype=torch.float16), torch.randn(n, n, dtype=torch.float16)]


def reference(a, b):
    return (a @ b).float()  # an fp32 output: the inputs still decide (more elements)
"""

KERNEL = "def run(a, b):\n    return (a @ b).float()\n"


def _task(folder: Path, *, card: str | None) -> Path:
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(KERNEL)
    (folder / "reference.py").write_text(FP16_GEMM_REFERENCE)
    if card is not None:
        (folder / "README.md").write_text(card)
    return folder


def test_dominant_dtype() -> None:
    assert dominant_dtype({"torch.float16": 2 * 64, "torch.float32": 64}) == "fp16"
    assert dominant_dtype({"torch.bfloat16": 10, "torch.float16": 10}) == "bf16"  # a tie: the narrower
    assert dominant_dtype({"torch.float8_e4m3fn": 100, "torch.float32": 1}) == "fp8"
    assert dominant_dtype({"torch.int64": 10}) is None


def test_dtype_of_a_large_fp16_gemm_comes_from_meta_tensors(tmp_path: Path) -> None:
    ref = _task(tmp_path / "t", card=None) / "reference.py"
    found = infer_dtype(ref)
    assert found.value == "fp16" and found.source == "reference.py's inputs and outputs"


def test_init_takes_the_card_beside_the_kernel_and_fills_in_the_dtype(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = _task(
        tmp_path / "gemm", card="---\nkernel_type: gemm\nstop_conditions:\n  max_iterations: 4\n---\n# My GEMM\n"
    )
    root = tmp_path / "root"
    argv = ["init", "gemm", "--kernel", str(task / "kernel.py"), "--reference", str(task / "reference.py")]
    assert main([*argv, "--root", str(root)]) == 0
    err = capsys.readouterr().err
    assert f"task card: {task / 'README.md'} (beside the kernel)" in err
    assert "dtype: fp16 (inferred from reference.py's inputs and outputs" in err
    assert "gpu: " in err  # inferred from NVML on a GPU machine, else the reason it was not
    ws = Workspace(root / "kernel_opt_gemm")
    card = ws.task_card()
    assert card.kernel_type == "gemm" and card.stop_conditions.max_iterations == 4 and "# My GEMM" in card.body
    assert card.dtype == "fp16"
    assert ws.is_clean() and "dtype fp16 (inferred)" in ws.log(max_count=1)[0][1]


def test_a_card_that_sets_the_dtype_is_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = _task(tmp_path / "gemm", card="---\ndtype: fp32\ngpu: H200\n---\n")
    argv = ["init", "g", "--kernel", str(task / "kernel.py"), "--reference", str(task / "reference.py")]
    assert main([*argv, "--root", str(tmp_path / "root")]) == 0
    assert "inferred" not in capsys.readouterr().err
    ws = Workspace(tmp_path / "root" / "kernel_opt_g")
    assert ws.task_card().dtype == "fp32" and ws.log(max_count=1)[0][1].startswith("init:")


def test_optimize_on_a_task_folder_infers_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil
    from typing import Any

    from .loop_fakes import DATA, make_fakes

    fakes = make_fakes()

    def build(ws: Workspace, settings: Any, *, progress: Any = None, **_: Any) -> Any:
        c = fakes.collaborators()
        c.progress = progress
        return c

    monkeypatch.setattr("kernelopt.loop.wiring.build_collaborators", build)
    task = tmp_path / "task"
    shutil.copytree(DATA, task)
    card = (task / "README.md").read_text()
    (task / "README.md").write_text("\n".join(x for x in card.splitlines() if not x.startswith(("dtype:", "gpu:"))))
    args = ["optimize", str(task), "--root", str(tmp_path / "root"), "--device", "cpu", "--max-iters", "1"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "dtype: fp32 (inferred from reference.py's inputs and outputs" in err
    assert "gpu: not inferred (--device cpu)" in err
    ws = Workspace(tmp_path / "root" / "kernel_opt_task")
    assert ws.task_card().dtype == "fp32" and ws.task_card().gpu is None


def test_a_probe_that_fails_says_why(tmp_path: Path) -> None:
    """The fresh-user trial of 2026-12-04 read 'the probe of reference.py failed: ' with nothing after it."""
    from kernelopt.harness.infer import infer_dtype

    ref = tmp_path / "reference.py"
    ref.write_text('import torch\nSHAPES = [{"n": "big"}]\n\ndef get_inputs(n=4):\n    return [torch.randn(n)]\n')
    found = infer_dtype(ref, device="cpu")
    assert found.value is None
    assert found.source.startswith("the probe of reference.py failed: TypeError: randn(): argument 'size'"), found


def test_the_probe_builds_the_smallest_shapes_entry(tmp_path: Path) -> None:
    """The fresh-user trial of 2026-12-04: `init` on elementwise peaked at 1.3 GB of host memory, building
    the main entry (2**28 fp16 elements) only to read its dtype."""
    from kernelopt.harness.infer import infer_dtype

    ref = tmp_path / "reference.py"
    ref.write_text(
        "import torch\n"
        'SHAPES = [{"n": 2**28}, {"n": 64}]\n\n'
        "def get_inputs(n):\n"
        "    if n > 64:\n"
        "        raise MemoryError('the probe built the main entry')\n"
        "    return [torch.randn(n, dtype=torch.float16)]\n"
    )
    assert infer_dtype(ref, device="cpu").value == "fp16"


def test_a_small_function_reference_runs_on_its_inputs_and_a_large_one_on_meta(tmp_path: Path) -> None:
    """A small function-form reference shows its outputs' dtypes by running (milliseconds); meta tensors
    are for large inputs and for a Model (its weights could be large), and cost the first run an import of
    torch._dynamo (1.5 s of every `init`)."""
    import torch

    from kernelopt.harness.infer import REAL_RUN_MAX_ELEMENTS, _outputs

    class Function:
        @staticmethod
        def reference(x: torch.Tensor) -> torch.Tensor:
            assert x.device.type == "cpu"  # run as built, not on meta
            return x.to(torch.bfloat16)

    small = [torch.zeros(64)]
    out = _outputs(Function, small)
    assert out.dtype == torch.bfloat16 and out.device.type == "cpu"
    large = [torch.empty(REAL_RUN_MAX_ELEMENTS + 1, device="meta")]  # nothing allocated
    assert _outputs(Function, large) is None  # only meta tensors reach it: its own assert refuses them

    class Net(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x.half()

    class WithModel:
        Model = Net

    out = _outputs(WithModel, small)
    assert out.dtype == torch.float16 and out.device.type == "meta"


def test_a_reference_that_prints_without_a_newline_still_gives_its_dtype(tmp_path: Path) -> None:
    """A fresh-user trial of 2026-12-04: `sys.stdout.write('x')` in reference() (a progress bar) ran into the
    probe's answer on the same line, and init said 'the probe failed: exit 0, no error output'."""
    ref = tmp_path / "reference.py"
    ref.write_text(
        "import sys\nimport torch\n"
        'SHAPES = [{"n": 64}]\n\n'
        "def get_inputs(n):\n    return [torch.randn(n)]\n\n"
        "def reference(x):\n    sys.stdout.write('working...')\n    return x.to(torch.bfloat16)\n"
    )
    found = infer_dtype(ref, device="cpu")  # 64 fp32 in, 64 bf16 out: a tie goes to the inputs' (late56 l260)
    assert found.value == "fp32" and found.source == "reference.py's inputs and outputs", found
