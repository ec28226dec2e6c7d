"""break21: `kernelopt batch` on KernelBench-style problems, `kernelopt mcp` and the agent path tried as a hostile user
would (docs/faults.md, "Batch, MCP and agents broken, twenty-first trial"). Each test is a finding's case: b42, ..."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import check_in_process

DATA = Path(__file__).parent / "data" / "break21"

#: BatchNorm left out: right only where the running statistics (mean 0, variance 1 when built) are used.
BN_LEFT_OUT = """import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features)

    def forward(self, x):
        return x * self.bn.weight.view(1, -1, 1, 1) + self.bn.bias.view(1, -1, 1, 1)
"""


@pytest.mark.timeout(60)
def test_b42_a_model_runs_in_training_mode_as_kernelbench_runs_it(tmp_path: Path) -> None:
    """b42: the gate (and `tune`'s checks) put Model and ModelNew in eval mode, which KernelBench's eval never does:
    a BatchNorm2d reference normalized by its running statistics (0 and 1 when built), so a kernel normalizing by the
    batch's statistics, KernelBench's answer, failed "32764 of 32768 elements" beyond tolerance, and one that left the
    normalization out passed (``kernelopt batch --device cpu``, main at ``89ac948a``)."""
    right = Path(shutil.copytree(DATA / "batchnorm_train", tmp_path / "right"))
    assert check_in_process(right, "v1").failure is None
    wrong = Path(shutil.copytree(DATA / "batchnorm_train", tmp_path / "wrong"))
    (wrong / "kernel.py").write_text(BN_LEFT_OUT)
    failure = check_in_process(wrong, "v1").failure
    assert failure is not None and failure.error_class == "Mismatch", failure

    from kernelopt.tuning.checks import LoadedProblem
    from kernelopt.tuning.problem import Problem, ProblemShape

    loaded = LoadedProblem.load(Problem(reference_py=right / "reference.py", kernel_py=right / "kernel.py"), "cpu")
    loaded.build(ProblemShape(kwargs={}))  # no SHAPES: get_inputs() as written
    means = loaded.expected.mean(dim=(0, 2, 3))  # tune's reference output, normalized by the batch: mean 0 a channel
    assert float(means.abs().max()) < 1e-4, means
