"""Foundation: the words kernelopt compares, one enum each.

A GPU ``Vendor``, a kernel ``Framework``, a torch ``Device`` kind and an operand ``DType`` are written in
task cards, wiki records, spec sheets and command lines. Each word is defined here once, so a check
such as "is this an AMD GPU" or "is this a Triton kernel" reads ``Vendor.AMD`` or ``Framework.TRITON``
and cannot drift between modules. The members are ``StrEnum``: they compare equal to the lower-case
word and serialize as it, so records and files keep their plain strings.

This module imports nothing of kernelopt, so every layer may use it.
"""

from __future__ import annotations

from enum import StrEnum

COMPUTED = "computed"
"""A knob's value in the current configuration when kernel.py computes it from the problem (a settings helper,
``triton.next_power_of_2(n_cols)`` at the launch, a heuristic): the computation itself, whose value differs from
one size to the next. It is a point of its own, never equal to a literal candidate (a literal 16 is 16 at every
size; the computation is 16 at 10 columns and 128 at 100). The edit of a configuration leaves such a knob as it is
written (``kernelopt.tuning.kernel_evaluator.config_changes``); only the current configuration holds it."""


DOT_MIN_K = {8: 32}
"""The smallest K of a ``tl.dot`` a GPU compiles, by operand bit width (Triton 3.6's NVIDIA backend, ``min_dot_size``:
32 for 8-bit operands, else :data:`DOT_MIN_K_DEFAULT`; AMD's accepts any): the interpreter's refusal, the tuning
space's floor and a dot's K knob's legality (``kernelopt.tunables.analysis``) read it."""

DOT_MIN_K_DEFAULT = 16
"""The smallest K of a ``tl.dot`` of operands wider than 8 bits a GPU compiles (:data:`DOT_MIN_K`)."""


GRID_AXES_MOST = (2**31 - 1, 65535, 65535)
"""The most programs a CUDA launch takes on each grid axis (CUDA C++ Programming Guide, "Compute Capabilities":
maximum x-, y- and z-dimension of a grid of thread blocks). Triton passes its grid to the driver unchecked; the
interpreter refuses a launch past it as a GPU does, and a tuned tile must keep a grid's second and third axes under it.
"""


class Vendor(StrEnum):
    """A GPU vendor: the task card's ``platform``, a wiki record's ``scope.vendor``, a spec's ``vendor``."""

    NVIDIA = "nvidia"
    AMD = "amd"

    @classmethod
    def of_arch(cls, arch: str) -> Vendor | None:
        """The vendor of an architecture id (``sm_90`` -> NVIDIA, ``gfx942`` -> AMD), else ``None``."""
        if arch.startswith("sm_"):
            return cls.NVIDIA
        if arch.startswith("gfx"):
            return cls.AMD
        return None


class Framework(StrEnum):
    """What a kernel is written in: the task card's ``framework``, a wiki record's ``scope.framework``."""

    TRITON = "triton"
    CUDA = "cuda"
    HIP = "hip"
    TORCH = "torch"


SOURCE_FRAMEWORKS: tuple[Framework, ...] = (Framework.TRITON, Framework.CUDA, Framework.HIP)
"""The frameworks whose kernels are GPU source code (a wiki change is written per framework for these)."""


class Device(StrEnum):
    """The kind of torch device a kernel runs on (``cuda`` also covers ROCm GPUs under torch)."""

    CUDA = "cuda"
    CPU = "cpu"

    @classmethod
    def of(cls, name: str) -> Device | None:
        """The kind of a torch device name (``cpu``, ``cuda``, ``cuda:1``), ``None`` when it is neither."""
        if name == cls.CPU:
            return cls.CPU
        if name == cls.CUDA or name.startswith("cuda:"):
            return cls.CUDA
        return None


class DType(StrEnum):
    """An operand precision, as the spec sheets name their peak rates (``peak_tflops_<dtype>``)."""

    FP64 = "fp64"
    FP32 = "fp32"
    TF32 = "tf32"
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"


VENDORS: tuple[str, ...] = tuple(v.value for v in Vendor)
"""Every vendor word, for messages and validation (``("nvidia", "amd")``)."""

FRAMEWORKS: tuple[str, ...] = tuple(f.value for f in Framework)
"""Every framework word (``("triton", "cuda", "hip", "torch")``)."""

DTYPES: tuple[str, ...] = tuple(d.value for d in DType)
"""Every dtype word, widest first (``("fp64", "fp32", "tf32", "bf16", "fp16", "fp8")``)."""

DTYPE_ALIASES: dict[str, str] = {
    "float64": "fp64",
    "double": "fp64",
    "float32": "fp32",
    "float": "fp32",
    "tfloat32": "tf32",
    "bfloat16": "bf16",
    "float16": "fp16",
    "half": "fp16",
    "float8": "fp8",
    "e4m3": "fp8",
    "e5m2": "fp8",
    "float8_e4m3fn": "fp8",
    "float8_e5m2": "fp8",
    "fp64_tensor": "fp64_tensor",
}
"""Other spellings of a dtype (torch names, short names) -> its word. ``fp64_tensor`` names the FP64
tensor-core rate of a spec sheet, which is not an operand dtype of its own."""

#: How a setting is read from the environment with a default (``int(os.environ.get("X", "2"))``): discovery's knob is
#: the default, the guard judges a move of it as of the constant it is where the variable is unset (review30 r103).
ENVIRONMENT_READS = frozenset({"os.environ.get", "os.getenv", "environ.get", "getenv"})
