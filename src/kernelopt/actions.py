"""The controlled vocabulary of optimization action categories.

One list shared by the evidence rules (candidate actions), the gpu-wiki (a technique's category),
plans (the one action of an iteration), memory records and the rule-based implementer. A category
names *what kind* of change an iteration makes, so that "one category per iteration" can be checked.
"""

from __future__ import annotations

from enum import StrEnum


class ActionCategory(StrEnum):
    """One kind of kernel change. Values are the snake_case words used in plans and wiki records."""

    BLOCK_SIZE = "block_size"
    NUM_WARPS = "num_warps"
    SOFTWARE_PIPELINING = "software_pipelining"
    VECTORIZED_ACCESS = "vectorized_access"
    COALESCING = "coalescing"
    TILING = "tiling"
    SMEM_SWIZZLE_PADDING = "smem_swizzle_padding"
    L2_RASTERIZATION = "l2_rasterization"
    PERSISTENT_KERNEL = "persistent_kernel"
    SPLIT_K = "split_k"
    REGISTER_PRESSURE = "register_pressure"
    OCCUPANCY = "occupancy"
    FUSION = "fusion"
    PRECISION = "precision"
    TENSOR_CORE_USE = "tensor_core_use"
    TMA_ASYNC_COPY = "tma_async_copy"
    WARP_SPECIALIZATION = "warp_specialization"
    LAUNCH_OVERHEAD = "launch_overhead"
    AUTOTUNE = "autotune"
    DIVERGENCE = "divergence"
    ATOMICS = "atomics"
    REDUCE_BYTES = "reduce_bytes"
    INSTRUCTION_MIX = "instruction_mix"
    LDS_LAYOUT = "lds_layout"
    MFMA_USE = "mfma_use"
    WAVE_OCCUPANCY = "wave_occupancy"


LAUNCH_CONFIGURATION = ActionCategory.AUTOTUNE
"""The category of a tuning session: one launch's whole configuration (tiles, warps, stages, group size,
autotune ``Config`` values, computed settings overridden at the launch) searched jointly, the way
``triton.autotune`` does (docs/tuning-engine.md). The rules backend's Stage 3 makes one such change per
version, so each version stays one category."""

SEARCH_NO_GAIN = "search_no_gain"
"""The ``error_type`` of an iteration whose tuning session ran and kept nothing (nothing faster than the current
configuration): the one outcome after which the launch configuration of that kernel.py has converged."""

SEARCH_TOO_NOISY = "search_too_noisy"
"""The ``error_type`` of an iteration whose tuning session ran but could not rank its candidates (their timing too
noisy, issue 32 item 7): nothing was written and nothing converged; the next version may tune again (on a quieter
machine), where an implementer's error is not repeated unchanged."""

SEARCH_LIMIT_SHORT = "search_limit_short"
"""The ``error_type`` of an iteration whose tuning session timed nothing because every candidate ran past its time
limit, the kernel as written among them (which its gate had timed): the limit is short for the machine's pace, no
verdict on the action nor on the kernel; a later version may tune again, given more time (``optimize -I
bench_timeout_s=SECONDS``; docs/faults.md, breaker29's q96, late50's l201)."""
