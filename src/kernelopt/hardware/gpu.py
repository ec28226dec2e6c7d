"""GPU identity through NVML (``libnvidia-ml.so.1``, loaded with ctypes: no extra dependency).

:func:`nvidia_gpus` returns the name, UUID, memory, compute capability and driver/CUDA versions of every
NVIDIA GPU the driver exposes, or raises :class:`NvmlUnavailable` with the reason (no driver, no GPU,
library missing). It starts no process and creates no CUDA context. :func:`gpu_driver_present` says
whether torch could see any GPU at all (an NVIDIA or a ROCm driver), without loading either, and
:func:`require_gpu` refuses a GPU device on a machine without one before any work starts.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kernelopt.errors import EnvironmentProblem, NoGpu
from kernelopt.vocabulary import Device

NVML_LIBRARIES = ("libnvidia-ml.so.1", "libnvidia-ml.so", "nvml.dll")
#: Device nodes of a GPU driver: NVIDIA's control node, ROCm's kernel fusion driver.
GPU_DEVICE_NODES = ("/dev/nvidiactl", "/dev/kfd")
_SUCCESS = 0


class NvmlUnavailable(EnvironmentProblem):
    """NVML could not be loaded or initialized (no NVIDIA driver or GPU)."""


@dataclass(frozen=True)
class GpuIdentity:
    """One NVIDIA GPU as NVML reports it.

    Attributes:
        index: NVML device index.
        name: product name (``NVIDIA H200``).
        uuid: GPU UUID.
        memory_total_bytes: device memory, bytes.
        compute_capability: ``(major, minor)``, when NVML reports it.
        driver_version: the NVIDIA driver version (``580.159.04``).
        cuda_driver_version: the CUDA version the driver supports (``13.0``).
    """

    index: int
    name: str
    uuid: str | None
    memory_total_bytes: int | None
    compute_capability: tuple[int, int] | None
    driver_version: str | None
    cuda_driver_version: str | None


class _Memory(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]


def gpu_driver_present() -> bool:
    """True when this machine has a GPU driver torch could use: an NVIDIA or ROCm device node, or NVIDIA's
    NVML library (installed with every NVIDIA driver, WSL's included) loads. ``False`` means torch sees no
    GPU, so ``auto`` is the CPU. Starts no process and creates no CUDA context."""
    if any(Path(node).exists() for node in GPU_DEVICE_NODES):
        return True
    try:
        _load()
    except NvmlUnavailable:
        return False
    return True


def runs_on_cpu(device: str) -> bool:
    """True when a run on ``device`` runs on the CPU: ``cpu``, or ``auto`` where torch can see no GPU (no GPU
    driver: :func:`gpu_driver_present`)."""
    return Device.of(device) is Device.CPU or (device == "auto" and not gpu_driver_present())


NO_GPU_DRIVER = "no GPU driver on this machine (no /dev/nvidiactl, no /dev/kfd, no NVML library)"
"""What :func:`require_gpu` found."""


def require_gpu(device: str | None, *, on_cpu: str) -> None:
    """Refuse a run on a GPU ``device`` (``None`` is the default, ``cuda``) where this machine has no GPU driver
    (:func:`gpu_driver_present`): one check of a few microseconds, before a caller gates or profiles anything.
    Without it the MCP server's ``profile`` gated V0 for 12-16 s before the profiler's driver found no CUDA device.

    Args:
        device: the device the work runs on.
        on_cpu: what the CPU device does instead, for the advice (:class:`~kernelopt.errors.NoGpu`).

    Raises:
        NoGpu: ``device`` is a GPU (``cuda``, ``cuda:N``; ``auto`` is the CPU where there is no driver) and there is
            no driver.
    """
    if not runs_on_cpu(device or Device.CUDA.value) and not gpu_driver_present():
        raise NoGpu(f"no GPU found: {NO_GPU_DRIVER}", on_cpu=on_cpu)


def _load() -> ctypes.CDLL:
    errors = []
    for name in NVML_LIBRARIES:
        try:
            return ctypes.CDLL(name)
        except OSError as exc:
            errors.append(str(exc))
    raise NvmlUnavailable("NVML (libnvidia-ml) not found: no NVIDIA driver on this machine", hint=errors[0])


def _string(fn: Callable[..., int], *args: object, size: int = 96) -> str | None:
    buf = ctypes.create_string_buffer(size)
    if fn(*args, buf, ctypes.c_uint(size)) != _SUCCESS:
        return None
    return buf.value.decode(errors="replace")


def nvidia_gpus() -> list[GpuIdentity]:
    """Every NVIDIA GPU NVML sees.

    Raises:
        NvmlUnavailable: the library is missing or ``nvmlInit`` fails (driver not loaded).
    """
    lib = _load()
    rc = lib.nvmlInit_v2()
    if rc != _SUCCESS:
        raise NvmlUnavailable(f"nvmlInit failed (NVML error {rc}): the NVIDIA driver is not usable")
    try:
        driver = _string(lib.nvmlSystemGetDriverVersion, size=80)
        cuda = ctypes.c_int()
        cuda_text = None
        if lib.nvmlSystemGetCudaDriverVersion_v2(ctypes.byref(cuda)) == _SUCCESS:
            cuda_text = f"{cuda.value // 1000}.{(cuda.value % 1000) // 10}"
        count = ctypes.c_uint()
        if lib.nvmlDeviceGetCount_v2(ctypes.byref(count)) != _SUCCESS:
            raise NvmlUnavailable("nvmlDeviceGetCount failed")
        gpus = []
        for i in range(count.value):
            handle = ctypes.c_void_p()
            if lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(i), ctypes.byref(handle)) != _SUCCESS:
                continue
            mem = _Memory()
            total = mem.total if lib.nvmlDeviceGetMemoryInfo(handle, ctypes.byref(mem)) == _SUCCESS else None
            major, minor = ctypes.c_int(), ctypes.c_int()
            cc = (
                (major.value, minor.value)
                if lib.nvmlDeviceGetCudaComputeCapability(handle, ctypes.byref(major), ctypes.byref(minor)) == _SUCCESS
                else None
            )
            gpus.append(
                GpuIdentity(
                    index=i,
                    name=_string(lib.nvmlDeviceGetName, handle) or "unknown",
                    uuid=_string(lib.nvmlDeviceGetUUID, handle),
                    memory_total_bytes=total,
                    compute_capability=cc,
                    driver_version=driver,
                    cuda_driver_version=cuda_text,
                )
            )
        return gpus
    finally:
        lib.nvmlShutdown()
