"""A far size's footprint: what the bench worker would hold to check a kernel at a size, read without building it.

The code net's ``far`` rungs (:func:`kernelopt.tuning.net._far`) go well past the largest ``SHAPES`` entry, each
within a share of the memory free (:data:`~kernelopt.tuning.net.FAR_ROOM_SHARE`). Reading a rung's bytes as the
primary entry's bytes an element times the rung's elements assumes every tensor grows as the sizes do; an output that
grows as their square (``torch.cdist(x, x)``: n x n from n x d) outgrew it: SHAPES n 64-256 climbed to n = 2112, 8.25
times the largest entry's elements and 68 times its output (late33 z100). Here each rung is read on PyTorch's meta
device (shapes and dtypes, no memory, no compute): ``get_inputs(**shape)`` with reference.py's module-level sizes set
as the rung sets them, a KernelBench ``Model``'s parameters, and the reference's outputs on those inputs, the bench
worker's bound :data:`~kernelopt.tuning.problem.BENCH_MEMORY_FACTOR` times their bytes, as the worker's own
(:attr:`~kernelopt.tuning.problem.MemoryNeed.bench_bound_bytes`). A reference the meta device cannot run (``.item()``,
numpy, an operation with no meta kernel) gives no footprint, and the net does not run that rung (said in one line).

Runs in the bench worker (the ``footprint`` request), where reference.py is importable; a rung's run costs an import of
reference.py with its sizes set (milliseconds) and the meta run.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kernelopt.kernelsource import input_list
from kernelopt.oneline import first_line
from kernelopt.tuning.checks import parameter_bytes
from kernelopt.tuning.problem import BENCH_MEMORY_FACTOR, ProblemShape


class FootprintRequest(BaseModel):
    """The bench service's ``footprint`` request: each shape's footprint, in order."""

    model_config = ConfigDict(extra="forbid")

    shapes: list[ProblemShape]


class FootprintReply(BaseModel):
    """Each shape's footprint in bytes (``None``: not read), and why not (``None`` where read)."""

    model_config = ConfigDict(extra="forbid")

    needs: list[int | None]
    why: list[str | None]


def footprint_at(reference_py: Path, shape: ProblemShape) -> tuple[int | None, str | None]:
    """The bench worker's bound at ``shape`` (:data:`BENCH_MEMORY_FACTOR` times its inputs, parameters and outputs, in
    bytes, read on the meta device), or ``None`` and why (the first line of what reference.py raised there)."""
    import torch

    from kernelopt.harness.inputs import get_inputs_kwargs, meta_model, nbytes
    from kernelopt.harness.loader import loaded_afresh

    try:
        with loaded_afresh(reference_py, shape.constants) as module, torch.device("meta"), torch.no_grad():
            kwargs = get_inputs_kwargs(module.get_inputs, dict(shape.kwargs), "meta", 0)
            inputs = input_list(module.get_inputs(**kwargs))
            # a tensor get_inputs put on a device itself is counted as it is, and run as a meta one
            meta = [t.to("meta") if isinstance(t, torch.Tensor) else t for t in inputs]
            model = meta_model(module)
            params = parameter_bytes(model) if model is not None else 0
            outputs = model(*meta) if model is not None else module.reference(*meta)
    except (Exception, SystemExit) as exc:  # reference.py's code the meta device cannot run
        return None, f"{type(exc).__name__}: {first_line(str(exc), 160)}".rstrip(": ")
    return BENCH_MEMORY_FACTOR * (nbytes(inputs) + params + nbytes(outputs)), None


def footprints(reference_py: Path, request: FootprintRequest) -> FootprintReply:
    """:func:`footprint_at` of each shape of ``request``."""
    read = [footprint_at(reference_py, shape) for shape in request.shapes]
    return FootprintReply(needs=[n for n, _ in read], why=[w for _, w in read])
