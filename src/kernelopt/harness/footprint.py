"""The checker's memory on the device: where each copy a check keeps lives while the kernel runs. Pure.

A check of one seed keeps, besides the inputs and whatever the kernel allocates: the reference's outputs in
their own dtype, the reference's float64 outputs (twice their bytes), a copy of the inputs (to catch a kernel
that writes into them) and, for a moment before the kernel's call, poisoned buffers of the outputs' size. On
an 80 GB GPU a KernelBench level-1 problem with 6-8 GiB inputs does not fit all of that beside an identical
kernel (H100 80GB, 2026-12-05: 8 of 100 problems out of memory in the checker, judged FAIL). The worker
measures the device's free memory after the reference's own-dtype run (``torch.cuda.mem_get_info``, the
caching allocator emptied first), the bytes of the inputs and of the outputs, and the reference's own peak,
and asks :func:`place_check` what to keep where; the answer depends on the figures only, never on a
problem's name.

What gives way first, as room runs short (each step loses the least):

1. the copy of the inputs becomes a checksum (:class:`~kernelopt.harness.inplace.InputPrints`): a changed
   input is still caught, its changed elements are no longer counted;
2. the float64 outputs, then the own-dtype outputs, wait on the host while the kernel runs (compared chunk by
   chunk afterwards: slower, same verdict);
3. the poisoned buffers are not made (a warning says unwritten outputs may then pass);
4. the float64 reference is not run at all when its run cannot fit beside what the check must keep: the kernel
   is compared with the reference in its own dtype, at the dtype's default tolerance, and the line says why.

The kernel is given what the reference's own run needed beyond its inputs (:attr:`CheckFootprint.kernel_bytes`:
an identical kernel needs exactly that), plus :func:`margin_bytes`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

GIB = 1 << 30
MARGIN_MIN_BYTES = 512 << 20
"""Our choice: the least room left free beside the kernel's expected need (the CUDA caching allocator rounds
large blocks up to 2 MiB, cuBLAS and cuDNN take workspaces of tens of MiB)."""
MARGIN_SHARE = 0.05
"""Our choice: the room left free beside the kernel's expected need, as a share of the device's free memory
(fragmentation of the caching allocator between the checker's blocks and the kernel's)."""
HIGH_BYTES_PER_ELEMENT = 8
"""float64: what the high-precision reference costs per floating element."""


class Keep(StrEnum):
    """Where a copy of the check lives while the kernel runs."""

    DEVICE = "device"
    HOST = "host"


class Snapshot(StrEnum):
    """How the inputs are kept to see whether the kernel wrote into them."""

    COPY = "copy"
    """A copy on the device: a change is counted by element."""
    CHECKSUM = "checksum"
    """A checksum of each input (:func:`kernelopt.harness.inplace.fingerprint`): no copy; a change is not counted."""


@dataclass(frozen=True)
class CheckFootprint:
    """What one seed's check weighs, in bytes, measured after the reference's own-dtype run.

    Attributes:
        free_bytes: device memory free now (``mem_get_info`` after ``empty_cache``), the inputs and the
            reference's outputs already held; ``None`` on the CPU (nothing is decided: everything stays).
        input_bytes: the inputs' tensors.
        output_bytes: the reference's outputs in their own dtype.
        high_output_bytes: the reference's outputs in float64.
        high_run_bytes: what the float64 run needs while it runs: the inputs upcast plus its working set
            (the own-dtype run's peak, scaled to 8-byte elements).
        kernel_bytes: what the kernel is given room for: the own-dtype run's peak above the inputs it was
            given (the outputs and the temporaries an identical kernel makes).
    """

    free_bytes: int | None
    input_bytes: int
    output_bytes: int
    high_output_bytes: int
    high_run_bytes: int
    kernel_bytes: int


@dataclass(frozen=True)
class CheckPlacement:
    """Where :func:`place_check` puts each copy of one seed's check, and why the float64 run is skipped.

    Attributes:
        high: run the reference in float64 on the device.
        high_skipped: why it is not run (``None`` when it is).
        high_output: where its outputs wait while the kernel runs.
        outputs: where the reference's own-dtype outputs wait while the kernel runs.
        snapshot: how the inputs are kept.
        poison: fill the outputs' size of freed memory with the poison pattern before the kernel's call.
    """

    high: bool = True
    high_skipped: str | None = None
    high_output: Keep = Keep.DEVICE
    outputs: Keep = Keep.DEVICE
    snapshot: Snapshot = Snapshot.COPY
    poison: bool = True

    @property
    def shrunk(self) -> bool:
        """Anything moved off the device, or not made."""
        return self != CheckPlacement(high=self.high, high_skipped=self.high_skipped)


EVERYTHING = CheckPlacement()
"""Every copy on the device (the CPU, or a device with room for all)."""
MINIMUM = CheckPlacement(high_output=Keep.HOST, outputs=Keep.HOST, snapshot=Snapshot.CHECKSUM, poison=False)
"""The least the checker keeps on the device while the kernel runs: nothing but the inputs."""


def size_text(n_bytes: float) -> str:
    """``12.0 GiB``, ``512 MiB``: bytes as the CUDA allocator's messages say them."""
    return f"{n_bytes / GIB:.1f} GiB" if n_bytes >= GIB else f"{n_bytes / (1 << 20):.0f} MiB"


def margin_bytes(free_bytes: int) -> int:
    """Room kept free beside the kernel's expected need (:data:`MARGIN_MIN_BYTES`, :data:`MARGIN_SHARE`)."""
    return max(MARGIN_MIN_BYTES, int(MARGIN_SHARE * free_bytes))


def place_check(fp: CheckFootprint) -> CheckPlacement:
    """Where each copy of one seed's check lives (module docstring: what gives way first).

    Every copy stays on the device while the kernel still has :attr:`CheckFootprint.kernel_bytes` plus
    :func:`margin_bytes` beside them; otherwise the snapshot, the float64 outputs, the own-dtype outputs and the
    poison give way in that order, until it has. The float64 run is skipped when it cannot run beside what the
    device holds now, or when its outputs could neither stay beside the kernel nor leave for the host in time
    (they are made on the device either way).
    """
    if fp.free_bytes is None:
        return EVERYTHING
    free = fp.free_bytes
    margin = margin_bytes(free)
    high, skipped = True, None
    if fp.high_run_bytes + margin > free:
        high = False
        skipped = (
            f"the float64 reference needs about {size_text(fp.high_run_bytes)} and {size_text(free)} of the device "
            "is free beside the inputs and the reference's outputs"
        )
    room = free - fp.kernel_bytes - margin  # what the checker may keep beside the kernel
    held = fp.high_output_bytes if high else 0  # made on the device; the own-dtype outputs are held already
    room_now = room - held  # the own-dtype outputs and the inputs are in ``free`` already
    snapshot, high_output, outputs = Snapshot.COPY, Keep.DEVICE, Keep.DEVICE
    if room_now < fp.input_bytes:
        snapshot = Snapshot.CHECKSUM
    else:
        room_now -= fp.input_bytes
    if room_now < 0 and high:
        high_output, room_now = Keep.HOST, room_now + fp.high_output_bytes
    if room_now < 0:
        outputs, room_now = Keep.HOST, room_now + fp.output_bytes
    # the poison buffers are freed before the kernel's call: they only need to fit now, beside what stays
    avail = (
        free
        - (fp.high_output_bytes if high and high_output is Keep.DEVICE else 0)
        - (fp.input_bytes if snapshot is Snapshot.COPY else 0)
        + (fp.output_bytes if outputs is Keep.HOST else 0)
    )
    poison = 2 * fp.output_bytes + margin <= avail
    return CheckPlacement(
        high=high, high_skipped=skipped, high_output=high_output, outputs=outputs, snapshot=snapshot, poison=poison
    )
