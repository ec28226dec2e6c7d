"""The tunable records: a knob, its legal values, and the result of an edit."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.actions import ActionCategory
from kernelopt.errors import KerneloptError
from kernelopt.numeric import is_int, is_number

Value = int | float | bool | str


PLAN_KNOB_CATEGORIES: dict[ActionCategory, frozenset[ActionCategory]] = {
    ActionCategory.BLOCK_SIZE: frozenset({ActionCategory.BLOCK_SIZE}),
    ActionCategory.NUM_WARPS: frozenset({ActionCategory.NUM_WARPS}),
    ActionCategory.SOFTWARE_PIPELINING: frozenset({ActionCategory.SOFTWARE_PIPELINING}),
    # A tile is searched with the warps that compute it and the pipeline depth that feeds it (issue 13:
    # tile M/N/K with num_warps and num_stages are one joint configuration, as in Triton's matmul configs).
    ActionCategory.TILING: frozenset(
        {ActionCategory.TILING, ActionCategory.NUM_WARPS, ActionCategory.SOFTWARE_PIPELINING}
    ),
    # In a Triton program each thread holds BLOCK_SIZE / (32 * num_warps) contiguous elements, which the
    # compiler loads with one vector instruction when they fit 16 bytes (Triton language docs, "Layouts";
    # seen on the H200 on 2026-11-29: 32-bit loads at BLOCK_SIZE 256 with 4 warps in examples/layernorm):
    # a larger block or fewer warps is the knob form of a wider access.
    ActionCategory.VECTORIZED_ACCESS: frozenset(
        {ActionCategory.VECTORIZED_ACCESS, ActionCategory.BLOCK_SIZE, ActionCategory.NUM_WARPS}
    ),
    ActionCategory.L2_RASTERIZATION: frozenset({ActionCategory.L2_RASTERIZATION}),
    ActionCategory.SPLIT_K: frozenset({ActionCategory.SPLIT_K}),
    ActionCategory.PERSISTENT_KERNEL: frozenset({ActionCategory.PERSISTENT_KERNEL}),
    ActionCategory.WAVE_OCCUPANCY: frozenset({ActionCategory.WAVE_OCCUPANCY}),
    ActionCategory.MFMA_USE: frozenset({ActionCategory.MFMA_USE}),
    ActionCategory.OCCUPANCY: frozenset(
        {
            ActionCategory.OCCUPANCY,
            ActionCategory.NUM_WARPS,
            ActionCategory.BLOCK_SIZE,
            ActionCategory.TILING,
            ActionCategory.SOFTWARE_PIPELINING,
        }
    ),
    ActionCategory.REGISTER_PRESSURE: frozenset(
        {
            ActionCategory.REGISTER_PRESSURE,
            ActionCategory.NUM_WARPS,
            ActionCategory.BLOCK_SIZE,
            ActionCategory.TILING,
            ActionCategory.SOFTWARE_PIPELINING,
        }
    ),
}

"""Plan category -> the knob categories that may express it: a knob qualifies for a plan of category C
when one of its :attr:`Tunable.categories` is in ``PLAN_KNOB_CATEGORIES[C]``. The rule-based planner and
the rule-based implementer both read this table, so a planned knob move is always one the implementer
accepts."""


def expresses(plan_category: ActionCategory, knob_categories: Iterable[ActionCategory]) -> bool:
    """True when a knob of ``knob_categories`` may carry out a plan of ``plan_category``."""
    return bool(PLAN_KNOB_CATEGORIES.get(plan_category, frozenset()) & set(knob_categories))


class TunableError(KerneloptError):
    """A knob cannot be found, is refused, or the requested value is illegal or ambiguous."""

    exit_code = 2


class TunableFitError(TunableError):
    """The requested configuration cannot fit the GPU's block limits (shared memory, registers, threads)."""


class TunableSizesUntold(TunableError):
    """The edit raises a tile beside a size of the problem, written only up to the sizes a run of the task tells at
    its ``SHAPES`` entries, and no run told them (:func:`kernelopt.tunables.edit.apply`)."""


class TunableKind(StrEnum):
    """Where the edited literal lives."""

    LAUNCH_KWARG = "launch_kwarg"
    AUTOTUNE_CONFIG = "autotune_config"
    MODULE_CONSTANT = "module_constant"
    MARKED_CONSTANT = "marked_constant"
    #: a launch option the launch leaves out, offered at Triton's default and inserted on the first move
    LAUNCH_DEFAULT = "launch_default"
    #: a launch argument whose value is computed (a helper, an expression, a name assigned twice): an
    #: edit overrides it at the launch with a literal
    LAUNCH_OVERRIDE = "launch_override"
    #: a value of ``@triton.heuristics``: a literal, or a lambda whose body an edit overrides with a literal
    HEURISTIC = "heuristic"
    #: a setting computed in the launching function (a settings helper, tuple-unpacked or not, a value
    #: read in several places): tuned where it is computed, by ``# kernelopt: tuned`` lines right after the
    #: computation (one value for every size, or a size-bucketed table whose fallback is the computation),
    #: so every reader of the name agrees and the computation stays
    COMPUTED_SETTING = "computed_setting"


class Legality(BaseModel):
    """The legal values of one knob.

    Attributes:
        values: the explicit set of legal values, when finite.
        power_of_two: the value must be a power of two.
        minimum: smallest legal value (inclusive).
        maximum: largest legal value (inclusive).
        multiple_of: the value must be a multiple of this.
        source: where the rule comes from (documentation or API contract).
    """

    model_config = ConfigDict(extra="forbid")

    values: list[Value] | None = None
    power_of_two: bool = False
    minimum: float | None = None
    maximum: float | None = None
    multiple_of: int | None = None
    source: str | None = None

    def problem(self, value: Value) -> str | None:
        """Why ``value`` is illegal, or ``None`` when it is legal."""
        if self.values is not None:
            return None if value in self.values else f"must be one of {self.values}"
        if not is_number(value):
            return None
        if self.minimum is not None and value < self.minimum:
            return f"must be >= {_num(self.minimum)}"
        if self.maximum is not None and value > self.maximum:
            return f"must be <= {_num(self.maximum)}"
        if self.power_of_two and not (isinstance(value, int) and value > 0 and value & (value - 1) == 0):
            return "must be a power of two"
        if self.multiple_of and (not isinstance(value, int) or value % self.multiple_of):
            return f"must be a multiple of {self.multiple_of}"
        return None

    def enumerate(self) -> list[int] | None:
        """Every legal integer value when the set is finite and small (<= 32 values), else ``None``."""
        if self.values is not None:
            return [v for v in self.values if isinstance(v, int)] or None
        if self.minimum is None or self.maximum is None:
            return None
        lo, hi = math.ceil(self.minimum), int(self.maximum)
        if self.power_of_two:
            out = [1 << i for i in range(0, 40) if lo <= (1 << i) <= hi]
        else:
            step = self.multiple_of or 1
            start = lo + (-lo) % step
            out = list(range(start, hi + 1, step))
        if self.multiple_of:
            out = [v for v in out if v % self.multiple_of == 0]
        return out if len(out) <= 32 else None

    def describe(self) -> list[str]:
        """Human-readable constraints, one per line."""
        if self.values is not None:
            return [f"one of {self.values}"]
        out = []
        if self.power_of_two:
            out.append("power of two")
        if self.minimum is not None:
            out.append(f">= {_num(self.minimum)}")
        if self.maximum is not None:
            out.append(f"<= {_num(self.maximum)}")
        if self.multiple_of:
            out.append(f"multiple of {self.multiple_of}")
        return out


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


class Cover(BaseModel):
    """A knob whose block one program spans a size of the kernel with, nothing looping over it: a
    ``tl.arange(0, BLOCK)`` compared with the kernel parameter ``size`` (``cols < N``), and no loop, program offset
    or ``tl.cdiv`` stepping by the block (:func:`kernelopt.tunables.blocks.one_block`, the rule the guard reads
    blocks by). One program then handles ``size`` up to what the range reaches and masks the rest, so a block
    that reaches less than ``size`` at some entry leaves the rest of that row undone, silently: the block must be
    at least the size (a softmax or a per-token quantization with ``BLOCK = next_power_of_2(N)``, one program a
    row).

    Attributes:
        kernel: the ``@triton.jit`` kernel.
        block: the kernel parameter (or global) the knob feeds, whose range covers the size.
        size: the kernel parameter the range is compared with (``N``, ``n_cols``).
        test: the comparison as written (``cols < N``).
        mul, div: a range derived from the block reaches ``block * mul // div`` (``HALF = BLOCK // 2``: 1, 2).
        held: the knob is a setting no guard by a size can be written for (a module-level constant, a literal the
            kernel's body binds, ``RBLOCK: tl.constexpr = 64``): it may grow, never shrink below its value.
    """

    model_config = ConfigDict(extra="forbid")

    kernel: str
    block: str
    size: str
    test: str
    mul: int = 1
    div: int = 1
    held: bool = False

    def reach(self, value: int) -> int:
        """The largest size one block of ``value`` covers."""
        return value * self.mul // self.div

    def lowest(self, values: Iterable[Value], size: int) -> int | None:
        """The smallest of ``values`` whose block covers ``size``; ``None`` when none does."""
        ints = [v for v in values if is_int(v) and self.reach(v) >= size]
        return min(ints) if ints else None

    def rule(self) -> str:
        """``_quant covers N with one block of BLOCK (cols < N) and loops over no N``."""
        if (self.mul, self.div) == (1, 1):
            of = f"one block of {self.block}"
        else:
            length = self.block if self.mul == 1 else f"{self.block} * {self.mul}"
            of = f"a range of {length if self.div == 1 else f'{length} // {self.div}'}"
        # a bound the kernel reaches through its locals (vLLM's ``offset < num_tokens``, ``num_tokens`` the difference
        # of two loads of ``cu_num_tokens_ptr``) is a size read from the parameter, not the parameter itself
        covered = self.size if self.size in self.test else f"a size it reads from {self.size}"
        return f"{self.kernel} covers {covered} with {of} ({self.test}) and loops over no {self.size}"


class Tunable(BaseModel):
    """One knob of a kernel file.

    Attributes:
        key: unique handle for :func:`apply` (``BLOCK_M`` for a constant, ``add_kernel:num_warps`` for a
            launch literal, ``matmul_kernel.configs[2].BLOCK_K`` inside an autotune list).
        name: the knob as the kernel sees it (``BLOCK_SIZE``, ``num_warps``).
        value: its current value.
        kind: where the literal lives.
        location: ``file:line`` of the literal that an edit rewrites.
        kernel: the Triton kernel it feeds, when known.
        feeds: every kernel parameter / launch option this literal feeds (a constant may feed several).
        used_at: ``file:line`` of the launch sites or configs that use it.
        groups: the launch sites / autotune configs it belongs to (resource estimates are per group).
        launch_ids: for each of its groups that is a launch site, the launch's identity, the same in every
            version of the file (``launch _ln_bwd_dx in run()``: no line number; the loop matches its sessions by
            it, :mod:`kernelopt.tunables.launches`).
        linked: ``file:line`` of grid literals kept consistent with it on edit.
        legality: the legal values.
        legal_values: the finite set of legal values, when small enough to list.
        constraints: human-readable legality constraints.
        categories: the action categories that move it, primary first.
        refused_reason: why it cannot be edited safely; ``None`` when it can.
        computed: the source expression the value comes from when it is computed (``calculate_settings(n)``,
            ``8 if n > 4096 else 4``, a heuristics lambda, an autotune list built by code); an edit replaces
            it with a literal (absolute values only when ``value`` is unknown), and the edit records it.
        semantic: a parameter that changes what the kernel computes (a boolean flag, an activation or
            mode selector, ``HAS_*``, ``RETURN_*``): listed, never editable, never a performance knob.
        value_source: where ``value`` comes from when it is not a literal of the file (Triton's default
            for an absent launch option, the evaluated autotune configs).
        size_names: the names the computation of a computed setting reads that are in scope where it is
            computed (``n_cols`` in ``BLOCK, warps = launch_settings(n_cols)``): the size expressions a tuned
            table (:class:`TunedTable`) may bucket on.
        tuned_at: ``file:line`` of the computation after which a computed setting's tuned lines are written.
        tuned_table: the size-bucketed table already written for it, when there is one.
        helper_note: for a computed setting a settings helper imported from another module gives, one line:
            where it comes from, that it is tuned at its call in this file (the helper's result the fallback),
            and that the helper's body is not read (a cap or limit inside it is no knob of this file). For a
            literal that conditions override (``GROUP_SIZE_M = 64`` then ``if N <= 8192: GROUP_SIZE_M = 96``) and no
            run told which is in effect: where the overrides are.
        overridden: a literal that conditions override after its binding (the same ``GROUP_SIZE_M = 64``), each
            override replacing it (none reads it, as ``BLOCK = min(BLOCK, cap)`` would), in effect at some
            ``SHAPES`` entry: at an entry where the launch got another value, moving it changes nothing (tune checks
            candidates there and times them only where the literal is in effect).
        override_lines: the lines of those overrides in kernel.py: an entry whose run executed one had the literal
            replaced, even where the override gave the literal's own value (:attr:`ShapeSizes.ran_lines`).
        loop_option: for a ``constexpr`` the kernel body reads only as an option of its ``tl.range`` loops
            (``num_stages=NUM_STAGES``), that option: like the launch's ``num_stages``, Triton's interpreter
            ignores it.
        covers: the sizes one block of it must cover (:class:`Cover`): a smaller value leaves part of a row
            undone, so the search starts where the block covers each size checked.
    """

    model_config = ConfigDict(extra="forbid")

    key: str
    name: str
    value: Value | None
    kind: TunableKind
    location: str
    kernel: str | None = None
    feeds: list[str] = Field(default_factory=list)
    used_at: list[str] = Field(default_factory=list)
    groups: list[str] = Field(default_factory=list)
    launch_ids: dict[str, str] = Field(default_factory=dict)
    linked: list[str] = Field(default_factory=list)
    legality: Legality = Field(default_factory=Legality)
    legal_values: list[Value] | None = None
    constraints: list[str] = Field(default_factory=list)
    categories: list[ActionCategory] = Field(default_factory=list)
    refused_reason: str | None = None
    computed: str | None = None
    semantic: bool = False
    value_source: str | None = None
    size_names: list[str] = Field(default_factory=list)
    tuned_at: str | None = None
    tuned_table: TunedTable | None = None
    helper_note: str | None = None
    overridden: bool = False
    override_lines: list[int] = Field(default_factory=list)
    loop_option: str | None = None
    covers: list[Cover] = Field(default_factory=list)

    @property
    def editable(self) -> bool:
        return self.refused_reason is None and (self.value is not None or self.computed is not None)

    @property
    def category(self) -> ActionCategory | None:
        """The primary action category that moves this knob."""
        return self.categories[0] if self.categories else None


class Bucket(BaseModel):
    """One row of a tuned table: the knob values for the sizes up to ``upto`` (inclusive).

    Attributes:
        upto: the largest value of the table's size expression this row serves (rows are checked in order,
            the first whose bound holds wins).
        values: knob name (as :attr:`Tunable.name`, ``BLOCK_SIZE``, ``num_warps``) -> value.
    """

    model_config = ConfigDict(extra="forbid")

    upto: int
    values: dict[str, Value]


class TunedTable(BaseModel):
    """A size-bucketed table of computed settings, written as Triton users write it::

        BLOCK, warps = launch_settings(n_cols)
        if n_cols <= 1024:  # kernelopt: tuned
            warps = 2
        elif n_cols <= 4096:  # kernelopt: tuned
            warps = 4

    Sizes above the last bucket keep the original computation (the fallback), so the kernel stays as general
    as it was.

    Attributes:
        size: the size expression the buckets compare (a name the computation reads, see
            :attr:`Tunable.size_names`, or an expression of names in scope there).
        buckets: the rows, by increasing ``upto``.
    """

    model_config = ConfigDict(extra="forbid")

    size: str
    buckets: list[Bucket] = Field(default_factory=list)
    #: a test every row holds besides its bound: the device the rows were timed on, as the kernel keys its settings
    #: files (``get_arch() == 90``; :attr:`AutotuneEvaluation.device_key`), so another device keeps their entries
    key: str | None = None

    def knobs(self) -> list[str]:
        """Every knob name the table sets, in first-seen order."""
        return list(dict.fromkeys(k for b in self.buckets for k in b.values))


Tunable.model_rebuild()  # its ``tuned_table`` field names TunedTable, defined after it


class KnobEdit(BaseModel):
    """One knob moved by :func:`apply`."""

    model_config = ConfigDict(extra="forbid")

    key: str
    name: str
    before: Value | None
    after: Value
    location: str
    linked: list[str] = Field(default_factory=list)
    overrides: str | None = Field(
        default=None, description="the computed expression the new literal replaces (kept for the record)"
    )
    inserted: bool = Field(default=False, description="the option was absent and the edit inserted it")
    table: list[tuple[int, Value]] | None = Field(
        default=None,
        description="a tuned table's rows for this knob, (upto, value), by increasing size; ``after`` is the "
        "last row's value",
    )

    @property
    def before_said(self) -> Value | str | None:
        """:attr:`before` as a line says it: a computed one's is "computed" (newuser22 n169: ``tunables --set
        _rowsq_kernel:BLOCK=128`` said "_rowsq_kernel:BLOCK: None -> 128")."""
        return "computed" if self.before is None and self.overrides else self.before


class EditResult(BaseModel):
    """The outcome of :func:`apply`.

    Attributes:
        path: the edited file.
        edits: the knobs moved, in source order.
        diff: unified diff of the file (empty when nothing changed).
        written: True when the new text was written to ``path``.
        new_source: the edited text.
        table: the edit is a table by size (``if n_cols <= 1000: BLOCK = 1024``, in a launcher or a heuristic):
            the net checks it with each dimension at 1 too (:func:`kernelopt.tuning.net.derived_sizes`' ``least``).
        guard: where the value set is not legal at every size the original handled, the guard written with it (as
            ``kernelopt tune`` writes it: the value where it holds, the original elsewhere); else ``None``.
    """

    model_config = ConfigDict(extra="forbid")

    path: str
    edits: list[KnobEdit]
    diff: str
    written: bool = False
    new_source: str = Field(default="", exclude=True, repr=False)
    table: bool = Field(default=False, exclude=True, repr=False)
    guard: str | None = None

    @property
    def knob_changes(self) -> dict[str, tuple[Value | None, Value]]:
        """Knob -> (before, after): by name when a name was edited at one place, else by key."""
        counts: dict[str, int] = {}
        for e in self.edits:
            counts[e.name] = counts.get(e.name, 0) + 1
        return {(e.name if counts[e.name] == 1 else e.key): (e.before, e.after) for e in self.edits}

    @property
    def overridden(self) -> dict[str, str]:
        """Knob key -> the computed expression its new literal replaces (only the overrides)."""
        return {e.key: e.overrides for e in self.edits if e.overrides is not None}

    @property
    def knob_overrides(self) -> dict[str, str]:
        """:attr:`overridden` named like :attr:`knob_changes` (by name when unique, else by key)."""
        counts: dict[str, int] = {}
        for e in self.edits:
            counts[e.name] = counts.get(e.name, 0) + 1
        return {(e.name if counts[e.name] == 1 else e.key): e.overrides for e in self.edits if e.overrides is not None}


class AutotuneConfig(BaseModel):
    """One ``triton.Config`` as the autotuner holds it (read back from the imported module).

    Attributes:
        kwargs: the meta-parameters (``{"BLOCK_M": 128, ...}``).
        num_warps, num_stages, num_ctas, maxnreg: the compile options of the config.
        pre_hook: the config carries a ``pre_hook``.
        pre_hook_name: the module-level name of that hook in the kernel's file (a literal list written there
            carries it as ``pre_hook=NAME``), or the call of a module-level factory there that rebuilds it
            (``init_to_zero('C11')``); ``None`` for a lambda or another closure, which a literal list cannot carry.
    """

    model_config = ConfigDict(extra="forbid")

    kwargs: dict[str, Value] = Field(default_factory=dict)
    num_warps: int = 4
    num_stages: int = 3
    num_ctas: int = 1
    maxnreg: int | None = None
    pre_hook: bool = False
    pre_hook_name: str | None = None

    def knob_values(self) -> dict[str, Value]:
        """Every knob of the config by name: the meta-parameters, then the options it sets."""
        out: dict[str, Value] = {**self.kwargs, "num_warps": self.num_warps, "num_stages": self.num_stages}
        if self.num_ctas != 1:
            out["num_ctas"] = self.num_ctas
        if self.maxnreg is not None:
            out["maxnreg"] = self.maxnreg
        return out

    def with_values(self, values: dict[str, Value]) -> AutotuneConfig:
        """A copy with the knobs in ``values`` (meta-parameters or options) set."""
        kwargs = dict(self.kwargs)
        opts: dict[str, Value] = {}
        for k, v in values.items():
            if k in ("num_warps", "num_stages", "num_ctas", "maxnreg"):
                opts[k] = v
            else:
                kwargs[k] = v
        return self.model_copy(update={"kwargs": kwargs, **opts})


class AutotuneSpace(BaseModel):
    """The configs, key and hooks of one ``@triton.autotune`` kernel, read back from the imported module.

    Attributes:
        kernel: the decorated function's name.
        line: line of the decorated function in its file.
        configs: the configs as the autotuner holds them (after the decorator's own code ran).
        key: the argument names whose values select a config (``key=[...]``).
        reset_to_zero: arguments zeroed before each benchmark run.
        restore_value: arguments restored after each benchmark run.
        prune: the pruning hooks set (``early_config_prune``, ``perf_model``, ``top_k``).
        best_config: the config the autotuner picked for the task's first shape, when a run was made.
        best_config_shape: that shape (the task's ``SHAPES`` entry).
    """

    model_config = ConfigDict(extra="forbid")

    kernel: str
    line: int | None = None
    configs: list[AutotuneConfig] = Field(default_factory=list)
    key: list[str] = Field(default_factory=list)
    reset_to_zero: list[str] = Field(default_factory=list)
    restore_value: list[str] = Field(default_factory=list)
    prune: list[str] = Field(default_factory=list)
    best_config: AutotuneConfig | None = None
    best_config_shape: dict[str, Value] | None = None


class AutotuneEvaluation(BaseModel):
    """What importing a kernel file (and, when asked, running the task once) told about its knobs.

    Attributes:
        spaces: kernel name -> its autotune space.
        problem: one line (``file:line: reason``) when the configs could not be evaluated; the kernels
            then have no autotune knobs from evaluation.
        launch_values: kernel -> keyword -> value at its first launch in the task run.
        shape: the task shape of that run.
        interpreted: the task ran in Triton's interpreter (``TRITON_INTERPRET=1``), the machine having no GPU.
        run_failed: the task was run and failed (``problem`` says why).
        first_call: the kernel as written is wrong on its first call at a new autotune key (its autotuner benchmarked
            configs on the call's own tensors, and the next call on the same inputs gave another output): the line
            naming the cause and the fix; ``None`` when it was not seen.
    """

    model_config = ConfigDict(extra="forbid")

    spaces: dict[str, AutotuneSpace] = Field(default_factory=dict)
    problem: str | None = None
    interpreted: bool = False
    run_failed: bool = False
    first_call: str | None = None
    launch_values: dict[str, dict[str, Value]] = Field(
        default_factory=dict,
        description="kernel -> keyword -> the value its first launch received in the task run (computed settings, "
        "heuristics, the picked autotune config)",
    )
    shape: dict[str, Value] | None = Field(default=None, description="the task shape of that run")
    shape_sizes: list[ShapeSizes] = Field(
        default_factory=list,
        description="for each SHAPES entry the device runs, the integer locals of each kernel's launching function",
    )
    device_key: tuple[str, Value] | None = Field(
        default=None,
        description="the call by which kernel.py keys the settings it reads from files by the device (get_arch()) "
        "and its value in the run ('cpu' in Triton's interpreter, 90 on an H100): a tuned table is written under it",
    )

    def size_value(self, kernel: str, expression: str, shape: dict[str, Value]) -> int | None:
        """The value of the size name ``expression`` (one of :attr:`Tunable.size_names`) where ``kernel`` is
        launched, at the ``SHAPES`` entry ``shape``; ``None`` when that entry did not run or the name is not
        an integer there. Tuned tables bucket on it (:class:`TunedTable`)."""
        argument = _ARGUMENT.match(expression)  # a heuristic's ``nargs["n"]`` is the launch's argument n
        key = argument_key(argument.group(2)) if argument else expression
        for entry in self.shape_sizes:
            if entry.shape == shape:
                return entry.sizes.get(kernel, {}).get(key)
        return None


_ARGUMENT = re.compile(r"""^\w+\[(["'])(\w+)\1\]$""")
"""A kernel argument as a ``@triton.heuristics`` lambda reads it (``args["n_cols"]``)."""


def argument_key(name: str) -> str:
    """The launch argument ``name`` as a ``@triton.heuristics`` lambda reads it (``args["n_cols"]``): the key a run of
    the task records its value under (:attr:`ShapeSizes.sizes`), and a table in a heuristic's lambda buckets on."""
    return f'args["{name}"]'


def argument_name(expression: str) -> str | None:
    """The launch argument a ``@triton.heuristics`` lambda's ``expression`` reads (``n_cols`` for
    ``args["n_cols"]`` or ``nargs['n_cols']``); ``None`` for any other expression."""
    found = _ARGUMENT.match(expression.strip())
    return found.group(2) if found else None


def size_name(expression: str) -> str:
    """The name a size expression gives its size: a heuristic's ``args["dstate"]`` and a launcher's ``dstate`` are
    both ``dstate`` (the same size where the launcher passes its ``dstate`` as that argument)."""
    return argument_name(expression) or expression.strip()


def argument_as(expression: str, name: str) -> str:
    """The launch argument ``name`` spelled as ``expression`` spells one (``args["N"]`` for ``args["R"]``)."""
    found = _ARGUMENT.match(expression.strip())
    if found is None:
        raise ValueError(f"{expression!r} reads no launch argument")
    head = expression.strip()[: found.start(1) - 1]
    return f"{head}[{found.group(1)}{name}{found.group(1)}]"


class ShapeSizes(BaseModel):
    """The integer locals of each kernel's launching function at one ``SHAPES`` entry, the values its launch
    received there, and the config each autotuner picked there (its own benchmark at that key, on the device the
    task ran on: Triton's ``do_bench`` on a GPU, one interpreted call a config on the CPU)."""

    model_config = ConfigDict(extra="forbid")

    shape: dict[str, Value]
    sizes: dict[str, dict[str, int]] = Field(default_factory=dict)
    launch_values: dict[str, dict[str, Value]] = Field(
        default_factory=dict, description="kernel -> keyword -> the value its launch received at this entry"
    )
    picks: dict[str, AutotuneConfig] = Field(
        default_factory=dict,
        description="kernel -> the config its autotuner picked at this entry: the list as written, run at this key",
    )
    ran_lines: list[int] = Field(
        default_factory=list,
        description="the lines of kernel.py's host code the run executed at this entry (which branches were taken)",
    )


AutotuneEvaluation.model_rebuild()


def covered_sizes(
    tunables: Iterable[Tunable], evaluation: AutotuneEvaluation | None, shapes: Iterable[Mapping[str, Value]]
) -> dict[tuple[str, str], int]:
    """(kernel, size parameter) -> the largest value the parameter takes at ``shapes`` (the ``SHAPES`` entries every
    candidate is checked on), for each size a knob's block must cover (:attr:`Tunable.covers`): the value the run of
    the task saw where the kernel was launched (:meth:`AutotuneEvaluation.size_value`), else the entry's own when it
    names the parameter. A shape at which the kernel was not launched, or whose value no run told, adds nothing:
    the bound is the largest size known, so a value it leaves out fails the check at that size."""
    out: dict[tuple[str, str], int] = {}
    entries = list(shapes)
    for cover in (c for t in tunables for c in t.covers):
        for shape in entries:
            at = evaluation.size_value(cover.kernel, argument_key(cover.size), dict(shape)) if evaluation else None
            own = shape.get(cover.size)
            if at is None and is_int(own):
                at = own  # no run told it: the entry's own value of that name
            key = (cover.kernel, cover.size)
            if at is not None and at > out.get(key, 0):
                out[key] = at
    return out
