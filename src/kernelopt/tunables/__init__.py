"""Knobs of a kernel source file: discovery and literal edits through a concrete syntax tree (libcst).

A *tunable* is a literal the rule-based implementer may move without touching anything else:

- ``launch_kwarg``: a literal keyword (or positional ``tl.constexpr``) argument at a Triton launch
  site, ``kern[grid](x, BLOCK_SIZE=1024, num_warps=4)``; a name passed there is followed to the
  literal that defines it (a local assignment, a tuple assignment, a parameter default);
- ``module_constant``: a module-level constant that feeds a launch argument (``BLOCK_M = 128``), or an element of a
  module-level tuple unpacked or indexed (``bm, bn = TILE`` or ``bm = TILE[0]`` in ``run``: ``TILE[0]``, ``TILE[1]``;
  ``BLOCK_M, BLOCK_N = TILES`` at the module keeps the names), written back in the tuple;
- ``autotune_config``: a value inside the ``triton.Config`` list of an existing ``@triton.autotune``;
- ``marked_constant``: a module-level constant marked ``# kernelopt: tunable`` (a CUDA block size, a
  value fed into a ``#define``), optionally with ``category=... values=... min=... max=...``;
- ``launch_default``: ``num_warps`` / ``num_stages`` (and ``num_ctas`` where clusters exist) that a launch
  leaves out, at Triton's defaults, inserted on the first move;
- ``computed_setting``: a launch value the launching function computes (``calculate_settings(n)``, or
  ``8 if n > 4096 else 4`` inline at the launch), tuned where it is computed: ``# kernelopt: tuned`` lines
  after the computation (one value, or a size-bucketed table whose fallback is the computation); an inline
  expression first gets a line of its own;
- ``launch_override``: a launch value read from a parameter or a module name the launching function does not
  compute, that an edit overrides with a literal at the launch, keeping the original expression in the record;
- ``heuristic``: a value of ``@triton.heuristics``.

``**dict`` launches are read when the dict is built from literals in the same function or module.
Semantic parameters (flags, activation or mode selectors) are listed with ``semantic=True`` and never
edited. Autotune lists built by code are evaluated by importing the module in a worker
(:mod:`~kernelopt.tunables.evaluate`) and edited by replacing ``configs=`` with a literal list.

Edits replace only the characters of the literal (and of grid literals kept consistent with it), so
formatting and comments survive byte for byte. When a launch grid repeats a block-size literal
(``triton.cdiv(n, 1024)`` beside ``BLOCK_SIZE=1024``) the two are edited together; when the repeat
sits in an expression that cannot be rewritten safely, or could belong to two knobs, the knob is
refused with the reason.

Legal values come from Triton's and CUDA's documented limits (see :mod:`kernelopt.tunables.knobs`);
rough resource costs (shared memory of a pipelined GEMM tile, accumulator registers) reject
configurations that cannot fit (:func:`estimate_resources`).

Modules: :mod:`~kernelopt.tunables.model` (records), :mod:`~kernelopt.tunables.knobs` (names ->
categories, legality, resources, semantic names, launch defaults), :mod:`~kernelopt.tunables.analysis`
(discovery), :mod:`~kernelopt.tunables.edit` (edits and checks), :mod:`~kernelopt.tunables.guard` (what a tuned
value needs to stay correct at sizes never checked), :mod:`~kernelopt.tunables.blocks` (which blocks cover a size
with one block, the rule the guard and discovery read them by), :mod:`~kernelopt.tunables.inline_guard` (a launch
value written ``256 if n % 256 == 0 else 128``), :mod:`~kernelopt.tunables.evaluate` (the worker that imports the
module; not imported here).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from kernelopt.tunables.knobs import (
    ABSENT_OPTION_DEFAULTS,
    LAUNCH_OPTIONS,
    MAX_REGISTERS_PER_THREAD_NVIDIA,
    MAX_THREADS_PER_BLOCK,
    TRITON_DEFAULTS,
    TRITON_MAX_TENSOR_NUMEL,
    ResourceEstimate,
    ResourceLimits,
    absent_options,
    estimate_resources,
    knob_rule,
    resource_problems,
    semantic_reason,
)
from kernelopt.tunables.model import (
    AutotuneConfig,
    AutotuneEvaluation,
    AutotuneSpace,
    Bucket,
    Cover,
    EditResult,
    KnobEdit,
    Legality,
    Tunable,
    TunableError,
    TunableFitError,
    TunableKind,
    TunableSizesUntold,
    TunedTable,
    Value,
    covered_sizes,
)

if TYPE_CHECKING:
    from kernelopt.tunables.analysis import MARKER, discover, discover_source
    from kernelopt.tunables.edit import (
        apply,
        apply_source,
        edit_diff,
        knob_diff,
        pin_configs,
        plan_edits,
        render_configs,
        step,
        verify_only,
        write_config,
        write_table,
    )

_LIBCST_NAMES = {
    **dict.fromkeys(("MARKER", "discover", "discover_source"), "analysis"),
    **dict.fromkeys(
        (
            "apply",
            "apply_source",
            "edit_diff",
            "knob_diff",
            "pin_configs",
            "plan_edits",
            "render_configs",
            "step",
            "verify_only",
            "write_config",
            "write_table",
        ),
        "edit",
    ),
}
"""The names of the modules that parse with libcst, imported at their first use: the package also holds
the fork server's child-side :mod:`~kernelopt.tunables.autotune_worker`, and every fork server imported
libcst (0.2-0.3 s) for children that never parse anything."""


def __getattr__(name: str) -> object:
    module = _LIBCST_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "ABSENT_OPTION_DEFAULTS",
    "LAUNCH_OPTIONS",
    "MARKER",
    "MAX_REGISTERS_PER_THREAD_NVIDIA",
    "MAX_THREADS_PER_BLOCK",
    "TRITON_DEFAULTS",
    "TRITON_MAX_TENSOR_NUMEL",
    "AutotuneConfig",
    "AutotuneEvaluation",
    "AutotuneSpace",
    "Bucket",
    "Cover",
    "EditResult",
    "KnobEdit",
    "Legality",
    "ResourceEstimate",
    "ResourceLimits",
    "Tunable",
    "TunableError",
    "TunableFitError",
    "TunableKind",
    "TunableSizesUntold",
    "TunedTable",
    "Value",
    "absent_options",
    "apply",
    "apply_source",
    "covered_sizes",
    "discover",
    "discover_source",
    "edit_diff",
    "estimate_resources",
    "knob_diff",
    "knob_rule",
    "pin_configs",
    "plan_edits",
    "render_configs",
    "resource_problems",
    "semantic_reason",
    "step",
    "verify_only",
    "write_config",
    "write_table",
]
