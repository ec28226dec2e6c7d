"""The problem a tuning session measures: reference.py, its shapes, the device, the tolerance, its memory.

Parent side, no torch. A :class:`Problem` names the files (the function or KernelBench form of DESIGN.md,
"Kernel contract"), the device, the task card's dtype hint and problem sizes, and an optional tolerance
override. The workers turn it into tensors: the *primary shape* (what the candidates are timed on) is
``SHAPES[0]`` of reference.py (for Triton on the CPU its smallest entry) with the task card's ``sizes`` /
``size_scale`` applied to its module-level constants (:mod:`kernelopt.harness.sizes`); the *compile
shape* (:func:`compile_shape`) is the smallest ``SHAPES`` entry, or the primary shape shrunk along its
leading size so that Triton specializes the kernel the same way (integers keep their divisibility by
16), which the compile workers run.

The problem's memory need (:class:`MemoryNeed`: bytes of its inputs and outputs, measured by the bench
worker as it builds them) is checked against the device's free memory measured before, by
:func:`fit_problem`: a problem that cannot fit is one line (:class:`ProblemDoesNotFit`, exit 3) before any
candidate runs. The bench worker holds at most :data:`BENCH_MEMORY_FACTOR` times it.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kernelopt import pyparse
from kernelopt.digits import size_text
from kernelopt.errors import EXIT_BAD_INPUT, EXIT_ENVIRONMENT, InputFileError, KerneloptError
from kernelopt.fileio import read_python
from kernelopt.harness.sizes import SizeValue, effective_constants, module_sizes, size_constants
from kernelopt.kernelsource import (
    OPAQUE_ENTRY_HINT,
    entry_text,
    literal_value,
    opaque_entry,
    runs_in_interpreter,
    shapes_built_by_code,
    shapes_fault,
    smallest_shape_index,
    timed_shape_index,
)
from kernelopt.numeric import is_int
from kernelopt.taskcard import TaskCard

ShapeValue = int | float | bool | str | tuple[int, ...]
Number = int | float

BENCH_MEMORY_FACTOR = 4
"""The bench worker's peak is at most this many times (inputs + outputs) (issue 22; docs/tuning-engine.md,
"Memory"): inputs 1x, the reference output 1x, one candidate output 1x, poison and compare chunks."""
SHRINK_FACTOR = 64
"""The compile shape's leading size is the primary's divided by about this (our choice: a 16384-row
problem compiles on 256 rows)."""
SHRINK_ALIGN = 512
"""A shrunk size keeps its remainder modulo this, so its divisibility by every power of two up to 512 stays:
Triton's specialization (by 16) and a kernel's assumption that a tile up to 512 divides the size."""


class ProblemDoesNotFit(KerneloptError):
    """The problem needs more memory than the device has free (exit 3: this machine, not the input)."""

    exit_code = EXIT_ENVIRONMENT


class ProblemError(KerneloptError):
    """reference.py cannot build the problem (its ``get_inputs`` or reference raised): exit 2."""

    exit_code = EXIT_BAD_INPUT


AT_IMPORT = "reference.py raised at import"
"""How a worker's refusal begins when reference.py raised as it was imported (no SHAPES entry's fault)."""


class ReferenceDoesNotImport(ProblemError):
    """reference.py raised as it was imported: said once, never at a SHAPES entry (exit 2). Before it, ``tune`` said
    "the SHAPES entry n=4096: reference.py: RuntimeError: boom at import", as if that entry were at fault."""


class ProblemShape(BaseModel):
    """One shape of the problem.

    Attributes:
        kwargs: the keyword arguments of ``get_inputs(**kwargs)`` (a ``SHAPES`` entry).
        constants: module-level constants of reference.py set before anything is built (name -> value).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kwargs: dict[str, ShapeValue] = Field(default_factory=dict)
    constants: dict[str, SizeValue] = Field(default_factory=dict)

    def label(self) -> str:
        """``M=16384,N=8192`` (kwargs, then constants); ``default`` when both are empty."""
        parts = [f"{k}={v}" for k, v in {**self.kwargs, **self.constants}.items()]
        return ",".join(parts) or "default"


class MemoryNeed(BaseModel):
    """Bytes the problem's tensors take on the device.

    Attributes:
        inputs_bytes: every tensor ``get_inputs`` returns (and a KernelBench model's parameters).
        outputs_bytes: every tensor the reference returns.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    inputs_bytes: int = Field(ge=0)
    outputs_bytes: int = Field(ge=0)

    @property
    def total_bytes(self) -> int:
        return self.inputs_bytes + self.outputs_bytes

    @property
    def bench_bound_bytes(self) -> int:
        """What the bench worker may hold at its peak: :data:`BENCH_MEMORY_FACTOR` x (inputs + outputs)."""
        return BENCH_MEMORY_FACTOR * self.total_bytes


def fit_problem(need: MemoryNeed, free_bytes: int, *, device: str, workers: int = 1) -> None:
    """Check that ``workers`` bench workers of ``need`` fit in ``free_bytes`` of ``device``.

    Raises:
        ProblemDoesNotFit: they do not (one line with the figures).
    """
    want = workers * need.bench_bound_bytes
    if want <= free_bytes:
        return
    who = "the bench worker needs" if workers == 1 else f"{workers} bench workers need"
    raise ProblemDoesNotFit(
        f"the problem cannot fit on {device}: {who} {size_text(want)} ({workers * BENCH_MEMORY_FACTOR} x "
        f"(inputs {size_text(need.inputs_bytes)} + outputs {size_text(need.outputs_bytes)})) "
        f"but {size_text(free_bytes)} are free",
        hint="free the device, use a larger one, or lower the problem size (task card sizes / size_scale)",
    )


def workers_that_fit(need: MemoryNeed, free_bytes: int, wanted: int) -> int:
    """How many of ``wanted`` bench workers fit in ``free_bytes`` (at least 1: the first is checked by
    :func:`fit_problem`)."""
    if need.bench_bound_bytes <= 0:
        return max(1, wanted)
    return max(1, min(wanted, free_bytes // need.bench_bound_bytes))


def shrink(value: int) -> int:
    """``value`` divided by about :data:`SHRINK_FACTOR`, keeping its remainder modulo :data:`SHRINK_ALIGN`
    (``16384 -> 512``, ``100000 -> 1696``); a value that cannot shrink so is kept (``1000``)."""
    blocks = max(1, value // SHRINK_FACTOR // SHRINK_ALIGN)
    return min(value, blocks * SHRINK_ALIGN + value % SHRINK_ALIGN)


def _leading(values: Mapping[str, ShapeValue]) -> str | None:
    """The first integer of ``values`` (in order) that :func:`shrink` makes smaller, or ``None``."""
    for name, v in values.items():
        if is_int(v) and shrink(v) < v:
            return name
    return None


def compile_shape(
    primary: ProblemShape, shapes: Sequence[Mapping[str, ShapeValue]], module_constants: Mapping[str, Number]
) -> ProblemShape:
    """The shape the compile workers run: the smallest of several ``SHAPES`` entries, else ``primary``
    shrunk (:func:`shrink`) along its leading size: the first integer ``get_inputs`` argument that shrinks,
    else the first such module-level constant (the effective value: the task card's, else the file's).

    Args:
        primary: the primary shape.
        shapes: reference.py's ``SHAPES`` (``[]`` when absent).
        module_constants: reference.py's module-level number constants, in file order.
    """
    if len(shapes) > 1:
        return ProblemShape(kwargs=dict(shapes[smallest_shape_index(shapes)]), constants=primary.constants)
    name = _leading(primary.kwargs)
    if name is not None:
        value = primary.kwargs[name]
        assert isinstance(value, int)
        return ProblemShape(kwargs={**primary.kwargs, name: shrink(value)}, constants=primary.constants)
    effective: dict[str, SizeValue] = {**module_constants, **primary.constants}
    name = _leading({k: v for k in module_constants if not isinstance(v := effective[k], tuple)})
    if name is None:
        return primary
    leading = effective[name]
    assert isinstance(leading, int)
    return ProblemShape(kwargs=primary.kwargs, constants={**primary.constants, name: shrink(leading)})


def literal_shapes(reference_py: Path) -> list[dict[str, ShapeValue]] | None:
    """reference.py's ``SHAPES`` when it is a list of dicts of literals or integer arithmetic of literals
    (``{"n": 2**27}``; read, not imported); ``None`` when it is absent or computed (the workers read it then).

    Raises:
        InputFileError: the file is missing or is not valid Python.
    """
    try:
        tree = pyparse.parse(read_python(reference_py), filename=str(reference_py))
    except FileNotFoundError:
        raise InputFileError(reference_py, "no such file") from None
    except SyntaxError as exc:
        raise InputFileError(reference_py, f"syntax error at line {exc.lineno}: {exc.msg}") from None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SHAPES" for t in node.targets):
            try:
                value = literal_value(node.value)
            except (ValueError, TypeError, SyntaxError):
                return None
            fault = shapes_fault(value)
            if fault is not None:  # a literal that names no case: said before any worker starts
                raise InputFileError(reference_py, fault)
            if isinstance(value, list | tuple):
                return [dict(s) for s in value]
            return None
    return None


def reference_shapes(
    reference_py: Path, *, constants: Mapping[str, object] | None = None, device: str | None = None
) -> list[dict[str, ShapeValue]] | None:
    """reference.py's ``SHAPES`` as a run sees it: a literal read from the text (:func:`literal_shapes`), one built
    by code (:func:`~kernelopt.kernelsource.shapes_built_by_code`) read from a child that imports reference.py with
    ``constants`` set (:func:`kernelopt.harness.infer.shapes_by_code`); ``None`` when it has none, or when the
    child could not tell (the workers then read it, and say why).

    Raises:
        InputFileError: the file is missing or not valid Python; a ``SHAPES`` that names no case (one line,
            :func:`~kernelopt.kernelsource.shapes_fault`, the same rule for a literal and a built one); an entry
            holding a value a bench worker cannot be handed (a ``torch.dtype``: one line saying what to write);
            importing reference.py ran past its limit.
    """
    from kernelopt.harness.infer import shapes_by_code

    if shapes_built_by_code(reference_py):
        return _tuples(shapes_by_code(reference_py, constants=constants, device=device, plain=True))
    written = literal_shapes(reference_py)
    opaque = opaque_entry(written) if written is not None else None
    if opaque is not None:  # a tuple ({"size": (4, 40)}): the same line as for a built one
        raise InputFileError(reference_py, opaque, hint=OPAQUE_ENTRY_HINT)
    return _tuples(written)


def _tuples(entries: Sequence[Mapping[str, Any]] | None) -> list[dict[str, ShapeValue]] | None:
    """The entries with each list of integers a tuple (``{"shape": [4, 1000]}``, and a built tuple, which comes back
    from the child as JSON's list), as the bench workers' :class:`ProblemShape` holds it: the session keys its
    entries by their items, and a list there ended it in exit 70 ("unhashable type: 'list'", newuser10 n56)."""
    if entries is None:
        return None
    return [{k: tuple(v) if isinstance(v, list) else v for k, v in e.items()} for e in entries]


INTERPRETER_DEFAULT_MOST = 2**16
"""Our choice: the most elements the module-level sizes of a reference.py without ``SHAPES`` may hold before ``tune``
says, for a Triton kernel in the interpreter, to give it a small entry: ``N = 1 << 12`` tuned in seconds, and
``N = 1 << 20`` (16384 programs at a block of 64, one at a time) ran past 10 minutes (newuser10)."""


def default_size_hint(problem: Problem, shapes: Sequence[Mapping[str, object]]) -> str | None:
    """One line for a Triton kernel in the interpreter with no ``SHAPES`` (nor a shape named) whose module-level
    sizes (:func:`~kernelopt.harness.sizes.module_sizes`, as the run sees them) hold more than
    :data:`INTERPRETER_DEFAULT_MOST` elements: what runs is unchanged, and a GPU's run is never told."""
    if shapes or problem.shape is not None or not problem.interpreted:
        return None
    sizes = {k: v for k, v in module_sizes(problem.reference_py, problem.constants).items() if isinstance(v, int)}
    total = 1
    for v in sizes.values():
        total *= max(v, 1)
    if not sizes or total <= INTERPRETER_DEFAULT_MOST:
        return None
    named = ", ".join(f"{k}={v}" for k, v in sizes.items())
    return (
        f"no SHAPES: Triton's interpreter runs every program of {named} one at a time, "
        "which may take minutes a candidate; "
        f"give reference.py a small SHAPES entry for the CPU (at most 2**{INTERPRETER_DEFAULT_MOST.bit_length() - 1} "
        "elements), or scale the sizes (--size-scale)"
    )


def empty_entry_lines(reference_py: Path, shapes: Sequence[Mapping[str, object]]) -> list[str]:
    """One warning line for each ``SHAPES`` entry holding a zero for a key ``get_inputs`` builds a tensor dimension
    from (:func:`~kernelopt.harness.sizekeys.key_roles`, ``{"n": 0}``): that entry holds no work, so its timing is the
    launch overhead alone (fresh27: ``tune`` said "the current configuration is the best found (5.825 ms)" of an empty
    problem, the interpreter's overhead, without a word). Said, never refused: a user may want an empty input checked
    for correctness. A zero for a key that is no dimension (a seed, a flag, ``dim=0``) says nothing."""
    from kernelopt.harness.sizekeys import KeyRole, key_roles

    try:
        roles = key_roles(read_python(reference_py))
    except (OSError, ValueError):
        return []
    out = []
    for entry in shapes:
        empty = [
            k
            for k, v in entry.items()
            if k in roles
            and roles[k].role is KeyRole.SIZE
            and (v == 0 if is_int(v) else isinstance(v, tuple) and any(d == 0 for d in v))
        ]
        if empty:
            out.append(
                f"SHAPES entry {entry_text(entry)} holds no work ({', '.join(empty)} sizes a tensor get_inputs "
                "builds, and it is 0): its timing is the launch overhead alone, so a configuration tuned there is "
                "tuned on nothing; it is still checked for correctness"
            )
    return out


class Problem(BaseModel):
    """What a tuning session measures (parent side; the workers build its tensors).

    Attributes:
        reference_py: the reference (function or KernelBench form; ``SHAPES``, ``ATOL``/``RTOL`` optional).
        kernel_py: the base kernel; its folder is importable by every candidate (helper modules beside it).
        device: ``cuda``, ``cuda:N`` or ``cpu``; ``None`` lets the bench worker choose (``KERNELOPT_DEVICE``,
            else cuda when torch sees a GPU, else cpu).
        dtype_hint: the task card's ``dtype`` (``tf32`` relaxes fp32 outputs; :mod:`kernelopt.harness.tolerance`).
        constants: module-level constants of reference.py to set (the task card's sizes and size_scale).
        shape: ``get_inputs`` keyword arguments of the primary shape; ``None``: ``SHAPES[0]`` (or none).
        atol: absolute tolerance; ``None``: reference.py's ``ATOL``, else the dtype-aware default.
        rtol: relative tolerance; ``None``: reference.py's ``RTOL``, else the default.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    reference_py: Path
    kernel_py: Path
    device: str | None = None
    dtype_hint: str | None = None
    constants: dict[str, SizeValue] = Field(default_factory=dict)
    shape: dict[str, ShapeValue] | None = None
    atol: float | None = Field(default=None, ge=0)
    rtol: float | None = Field(default=None, ge=0)

    @classmethod
    def from_folder(
        cls, folder: Path, *, device: str | None = None, card: TaskCard | None = None, size_scale: float | None = None
    ) -> Problem:
        """The problem of a folder holding ``kernel.py``, ``reference.py`` and optionally ``README.md``.

        Args:
            folder: the problem folder (a workspace, or what ``kernelopt optimize`` takes).
            device: as :attr:`device`.
            card: the task card (default: ``README.md`` of the folder when present).
            size_scale: overrides the card's ``size_scale``.

        Raises:
            InputFileError: kernel.py or reference.py is missing or is not valid Python.
            UsageError: the card's ``sizes`` name a constant reference.py lacks, or a value is not positive.
            WorkspaceError: the task card is invalid.
        """
        folder = Path(folder).resolve()
        kernel_py, reference_py = folder / "kernel.py", folder / "reference.py"
        for path in (kernel_py, reference_py):
            if not path.is_file():
                raise InputFileError(path, "no such file")
        if card is None:
            readme = folder / "README.md"
            card = TaskCard.load(readme) if readme.is_file() else TaskCard()
        scale = size_scale if size_scale is not None else card.size_scale
        constants = effective_constants(reference_py, sizes=card.sizes, scale=scale)
        return cls(
            reference_py=reference_py, kernel_py=kernel_py, device=device, dtype_hint=card.dtype, constants=constants
        )

    @property
    def interpreted(self) -> bool:
        """A Triton kernel on the CPU: run by Triton's interpreter."""
        return runs_in_interpreter(self.kernel_py, self.device)

    def timed_index(self, shapes: Sequence[Mapping[str, ShapeValue]]) -> int:
        """Which ``SHAPES`` entry is timed: the first; for a Triton kernel on the CPU the smallest, unless the
        task card sets the sizes (:func:`kernelopt.kernelsource.timed_shape_index`)."""
        return timed_shape_index(shapes, interpreted=self.interpreted and not self.constants)

    def primary_shape(self, shapes: Sequence[Mapping[str, ShapeValue]]) -> ProblemShape:
        """The shape candidates are timed on: :attr:`shape`, else the timed ``SHAPES`` entry
        (:meth:`timed_index`), else no arguments."""
        if self.shape is not None:
            kwargs = dict(self.shape)
        elif shapes:
            kwargs = dict(shapes[self.timed_index(shapes)])
        else:
            kwargs = {}
        return ProblemShape(kwargs=kwargs, constants=dict(self.constants))

    def compile_shape(self, shapes: Sequence[Mapping[str, ShapeValue]], avoid: Collection[str] = ()) -> ProblemShape:
        """The shape the compile workers run (:func:`compile_shape`), chosen among the ``SHAPES`` entries whose label
        is not in ``avoid`` (entries a session set aside: the kernel as written cannot run them, docs/faults.md
        aside17). Once an entry is set aside the pool compiles on the smallest entry kept, the primary itself where it
        is the one left, never the primary shrunk: a size no entry names, where the kernel as written may fail too
        (break17 b17: ``n >= 8`` programs of 256, SHAPES 32768 and 700: 700 set aside, the pool moved to 512, where the
        original raised, and its failure there was the original's at 32768)."""
        kept = [s for s in shapes if ProblemShape(kwargs=dict(s), constants=dict(self.constants)).label() not in avoid]
        if kept and len(kept) < len(shapes):
            return ProblemShape(
                kwargs=dict(kept[smallest_shape_index(kept)]), constants=self.primary_shape(shapes).constants
            )
        return compile_shape(self.primary_shape(shapes), kept, size_constants(self.reference_py))
