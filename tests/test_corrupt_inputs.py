"""Corrupt or truncated files of every supported kind: one line on stderr, exit 2, nothing written."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from kernelopt.cli.app import main

DATA = Path(__file__).parent / "data"

# (file, where to cut as a fraction of its size): each cut lands inside a line or a binary structure.
CASES = [
    ("nvidia/h200_softmax_details.csv", 0.5),
    ("nvidia/h200_softmax_raw.csv", 0.5),
    ("nvidia/ncu_a10g_sgemm_metrics_raw.csv", 0.53),
    ("nvidia/h200_softmax.ncu-rep.gz", 0.5),
    ("amd/amd_mi300x_vcopy_pmc_perf_rocprofv2.csv", 0.5),
    ("amd/amd_mi100_vcopy_pmc_perf_rocprofv1.csv", 0.7),
    ("amd/amd_mi300x_vcopy_timestamps.csv", 0.6),
    ("amd/amd_mi300x_att_stats_bmm_mfma_dispatch3.csv", 0.5),
    ("amd/amd_gfx950_att_output_triton_gemm.csv", 0.5),
    ("amd/amd_gfx950_rocprofv3_agent_info.csv", 0.5),
    ("amd/amd_mi300x_bmm_pmc_kernel_top.csv", 0.5),
    ("amd/stub/sysinfo_mi300x.csv", 0.8),
    ("amd/asm/triton_gfx942_matmul_bf16_wide.amdgcn", 0.5),
    ("amd/asm/triton_gfx942_matmul_bf16_wide.amdgcn", 0.97),
    ("amd/asm/llvm_gfx942_multi_kernel.s", 0.6),
    ("h200_examples/softmax_v0_summary.json", 0.5),
]


@pytest.mark.parametrize(("rel", "frac"), CASES, ids=[f"{Path(r).name}@{f:g}" for r, f in CASES])
def test_truncated_input_is_one_line_exit_2(
    rel: str, frac: float, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = DATA / rel
    data = src.read_bytes()
    target = tmp_path / src.name
    target.write_bytes(data[: int(len(data) * frac)])
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["evidence", str(target)]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith("kernelopt: error:"), err
    assert any(word in err[0] for word in ("truncated", "malformed", "corrupt", "not a readable gzip")), err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing left behind


def test_truncated_ncu_report_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = gzip.decompress((DATA / "nvidia" / "h200_softmax.ncu-rep.gz").read_bytes())
    target = tmp_path / "cut.ncu-rep"
    target.write_bytes(raw[: int(len(raw) * 0.3)])
    assert main(["evidence", str(target)]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "truncated or corrupt" in err[0]
