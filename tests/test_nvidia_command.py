"""The ncu command line (exact argv), version/pass parsing, and kernel-name discovery."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.profiling.kernel_names import cuda_kernel_names, kernel_names, triton_kernel_names
from kernelopt.profiling.ncu_command import (
    FAST_METRICS,
    FAST_SECTIONS,
    NcuOptions,
    build_ncu_argv,
    kernel_regex_for,
    parse_passes,
    parse_report_path,
    parse_version,
)

from .nvidia_data import OUTPUTS

PROGRAM = ["/usr/bin/python3", "-m", "kernelopt.profiling.driver", "--kernel", "k.py"]


def test_default_argv_is_the_full_set() -> None:
    argv = build_ncu_argv("ncu", NcuOptions(export=Path("/ws/profiles/v0/ncu")), PROGRAM)
    assert argv == [
        "ncu",
        "--set",
        "full",
        "--import-source",
        "yes",
        "--clock-control",
        "none",
        "--target-processes",
        "all",
        "--profile-from-start",
        "off",
        "--launch-skip",
        "0",
        "--launch-count",
        "1",
        "--force-overwrite",
        "--export",
        "/ws/profiles/v0/ncu",
        *PROGRAM,
    ]


def test_kernel_filter_and_launch_selection() -> None:
    opts = NcuOptions(
        export=Path("out/ncu"),
        kernel_regex="^(softmax_kernel)$",
        launch_skip=2,
        launch_count=3,
        launch_skip_before_match=5,
    )
    argv = build_ncu_argv("/usr/local/cuda/bin/ncu", opts, PROGRAM)
    i = argv.index("--kernel-name-base")
    assert argv[i : i + 10] == [
        "--kernel-name-base",
        "function",
        "--kernel-name",
        "regex:^(softmax_kernel)$",
        "--launch-skip-before-match",
        "5",
        "--launch-skip",
        "2",
        "--launch-count",
        "3",
    ]
    assert argv[-len(PROGRAM) :] == PROGRAM


def test_all_matching_launches_and_no_source() -> None:
    argv = build_ncu_argv("ncu", NcuOptions(export=Path("o"), launch_count=None, import_source=False), [])
    assert "--launch-count" not in argv
    assert argv[argv.index("--import-source") + 1] == "no"


def test_fast_argv_uses_sections_and_metrics() -> None:
    opts = NcuOptions(export=Path("o"), set_name=None, sections=FAST_SECTIONS, metrics=FAST_METRICS)
    argv = build_ncu_argv("ncu", opts, [])
    assert "--set" not in argv
    assert argv[1:7] == ["--section", "SpeedOfLight", "--section", "LaunchStats", "--section", "Occupancy"]
    assert argv[7] == "--metrics" and argv[8].split(",") == list(FAST_METRICS)
    assert "--clock-control" in argv and argv[argv.index("--clock-control") + 1] == "none"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"launch_skip": -1},
        {"launch_count": 0},
        {"launch_skip_before_match": -2},
        {"set_name": None},
        {"clock_control": "max"},
    ],
)
def test_invalid_options(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        NcuOptions(export=Path("o"), **kwargs)


def test_kernel_regex_for() -> None:
    assert kernel_regex_for(["softmax_kernel"]) == "^(softmax_kernel)$"
    assert kernel_regex_for(["a", "b", "a"]) == "^(a|b)$"
    assert kernel_regex_for([]) is None


def test_parse_version_and_passes() -> None:
    text = (OUTPUTS / "version.txt").read_text()
    assert parse_version(text) == (2025, 3, 1)
    assert parse_version("Version 2022.3.0.0 (build 1)") == (2022, 3, 0)
    assert parse_version("no version here") is None
    out = '==PROF== Profiling "softmax_kernel" - 0: 0%....50%....100% - 38 passes\n==PROF== Report: /x/ncu.ncu-rep\n'
    assert parse_passes(out) == [("softmax_kernel", 38)]
    assert parse_report_path(out) == "/x/ncu.ncu-rep"


def test_kernel_names_from_source() -> None:
    src = (Path(__file__).parents[1] / "scripts" / "nvidia_fixture_kernels" / "matmul_kernel.py").read_text()
    assert triton_kernel_names(src) == ["matmul_kernel"]
    gluon = (Path(__file__).parents[1] / "scripts" / "nvidia_fixture_kernels" / "bank_conflict_kernel.py").read_text()
    assert kernel_names(gluon) == ["transpose_naive_smem_kernel"]
    autotuned = """
import triton
@triton.autotune(configs=[], key=["n"])
@triton.jit
def tuned(x): pass
def helper(): pass
"""
    assert triton_kernel_names(autotuned) == ["tuned"]
    cuda = 'src = r"""__global__ void __launch_bounds__(256) add_kernel(float* x) {}\ntemplate <int N> __global__ void scale(float*){}"""'
    assert cuda_kernel_names(cuda) == ["add_kernel", "scale"]
    assert kernel_names("def run(x):\n    return x + 1\n") == []
    assert kernel_names("def broken(:\n") == []
