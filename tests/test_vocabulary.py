"""The foundation's words: one enum each, equal to the plain strings that files and records carry."""

from __future__ import annotations

import pytest

from kernelopt.hardware.specs import normalize_dtype
from kernelopt.kernelsource import detect_framework
from kernelopt.vocabulary import DTYPES, FRAMEWORKS, VENDORS, Device, DType, Framework, Vendor


def test_words_are_the_plain_strings() -> None:
    assert VENDORS == ("nvidia", "amd")
    assert FRAMEWORKS == ("triton", "cuda", "hip", "torch")
    assert DTYPES == ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8")
    assert Vendor("amd") is Vendor.AMD and Vendor.AMD == "amd"
    assert DType(normalize_dtype("torch.bfloat16")) is DType.BF16


@pytest.mark.parametrize(
    ("arch", "vendor"), [("sm_90", Vendor.NVIDIA), ("sm_90a", Vendor.NVIDIA), ("gfx942", Vendor.AMD), ("h100", None)]
)
def test_vendor_of_arch(arch: str, vendor: Vendor | None) -> None:
    assert Vendor.of_arch(arch) is vendor


@pytest.mark.parametrize(
    ("name", "kind"),
    [("cpu", Device.CPU), ("cuda", Device.CUDA), ("cuda:1", Device.CUDA), ("cudax", None), ("mps", None), ("", None)],
)
def test_device_of(name: str, kind: Device | None) -> None:
    assert Device.of(name) is kind


def test_detect_framework_returns_the_enum(tmp_path) -> None:
    k = tmp_path / "kernel.py"
    k.write_text("import triton\n", encoding="utf-8")
    assert detect_framework(k) is Framework.TRITON
    k.write_text("import torch\n", encoding="utf-8")
    assert detect_framework(k) is Framework.TORCH
