"""Tune the launch configuration of a kernel folder: the one glue of the engine (``kernelopt tune PATH``, the
rules backend's Stage 3, ``benchmarks/sweep_compare.py``).

A *folder* is what ``kernelopt optimize`` takes: ``kernel.py``, ``reference.py`` and optionally ``README.md``
(the task card). :func:`prepare_folder` reads it the way every user of knobs does:

1. discovery (:func:`kernelopt.tunables.evaluate.discover_evaluated`: autotune lists built by code and
   computed settings are read by importing kernel.py in a worker), so every knob ``kernelopt tunables``
   lists is a knob here;
2. the space of one launch (:func:`~kernelopt.tuning.launch.space_from_tunables`) with the GPU's
   :class:`ResourceLimits` and the
   problem's sizes; a kernel with no knob, or a space the fit rules leave empty, is one line (``UsageError``,
   exit 2) naming what discovery sees;
3. the problem (:meth:`Problem.from_folder`) and the budget rule (task-card keys ``budget``,
   ``budget_fraction``, ``budget_wall_s``; the request overrides them).

:func:`tune_folder` runs one session on it: seeds (the current configuration, then what Stage 1's evidence
favours), :class:`KernelEvaluator` with :func:`knob_editor`, :func:`kernelopt.tuning.session.tune` with a
session record, so a session run again on the same kernel serves what it recorded instead of timing it
again. :func:`best_edit` is the checked literal edit that writes the best configuration into kernel.py
(the caller writes it, or not: ``--dry-run``).

The session folder is ``<out>/<key>/`` (default ``out``: ``<folder>/.kernelopt/tune``), where ``key`` is a
digest of kernel.py apart from its knob values and comments, reference.py, the problem, the device, the GPU, the
variables that decide a result (:data:`KEY_VARIABLES`) and the space (so a
session from another configuration of the same kernel, after a winner was written, serves the measurements
of the earlier one): ``record.jsonl`` (the session
record), ``candidates/`` (one file per candidate source), ``logs/`` (the workers'), the Triton cache.
"""

from __future__ import annotations

import functools
import hashlib
import io
import itertools
import json
import math
import re
import shutil
import time
import tokenize
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kernelopt import __version__
from kernelopt.digits import sig
from kernelopt.errors import EnvironmentProblem, InputFileError, KerneloptError, UsageError
from kernelopt.evidence.model import KernelEvidence
from kernelopt.fileio import SourceText, atomic_write_text, file_in_the_way, read_python, read_source
from kernelopt.harness.first_call import writes_by_program
from kernelopt.harness.runner import release_build_locks
from kernelopt.harness.settings import DEFAULT_MIN_GAIN_PCT
from kernelopt.harness.sizekeys import KeyReading, KeyRole, key_roles
from kernelopt.harness.sizes import SizeValue, module_sizes, size_constants
from kernelopt.harness.target_compile import TargetCheck, own_target, target_check
from kernelopt.kernelsource import Framework, carried_digest, check_pair, framework_of
from kernelopt.numeric import is_int, plain_int
from kernelopt.oneline import one_line
from kernelopt.proc import interrupt_signal
from kernelopt.taskcard import TaskCard
from kernelopt.tunables import (
    AutotuneConfig,
    AutotuneEvaluation,
    AutotuneSpace,
    Bucket,
    EditResult,
    ResourceLimits,
    Tunable,
    TunableKind,
    TunedTable,
    apply_source,
    covered_sizes,
    discover_source,
    edit_diff,
    pin_configs,
    write_config,
    write_table,
)
from kernelopt.tunables.branched_list import branched_list
from kernelopt.tunables.edit import keep_newlines, keep_pruned_fallback, literal_autotune_key, unkeyed_raise
from kernelopt.tunables.evaluate import discover_evaluated
from kernelopt.tunables.guard import Guarded, bound_moves, guard_edit, guarded_values, kernel_masks, option_defaults
from kernelopt.tunables.guard_blocks import one_block_per_condition
from kernelopt.tunables.guard_holds import (
    GuardRun,
    dead_rows,
    guard_run,
    guard_tests,
    read_at_launch,
    tuned_ifs,
    unread_at_launch,
)
from kernelopt.tunables.inline_guard import TUNED
from kernelopt.tunables.knobs import (
    LAUNCH_OPTIONS,
    NO_SIZE,
    left_reason,
    loop_option_note,
    table_computed,
)
from kernelopt.tunables.launch_value import UnreadSize
from kernelopt.tunables.launches import launches, loop_kernels, profiled_launch
from kernelopt.tunables.list_filters import ListScreen, list_screen
from kernelopt.tunables.list_pin import heuristic_pin, pin_settings
from kernelopt.tunables.model import ShapeSizes, argument_as, argument_key, argument_name, size_name
from kernelopt.tunables.readers import chained_values, computed_readers, shrunk_covers
from kernelopt.tunables.size_tiles import bound_test, size_bounded, size_bounds
from kernelopt.tunables.user_lines import in_user_lines
from kernelopt.tuning.accuracy import EntryError, entry_values
from kernelopt.tuning.budget import DEFAULT_WALL_S, BudgetRule, check_wall_s
from kernelopt.tuning.candidate import COMPUTED, Config, Outcome, Result, Value, config_text, is_computed
from kernelopt.tuning.compile_pool import CACHE_DIR, EXTENSIONS_DIR, discovery_env, seed_cache
from kernelopt.tuning.dot_precision import operands_dtype
from kernelopt.tuning.entry_retime import retime_refusal
from kernelopt.tuning.exclusion import Exclusion, excluder
from kernelopt.tuning.kernel_evaluator import (
    CONFIG_OPTIONS,
    Apply,
    EvaluatorSettings,
    KernelEvaluator,
    Refusal,
    autotune_list,
    config_changes,
    current_values,
    is_list_space,
    knob_editor,
    pin_base,
    pin_config,
    same_value,
)
from kernelopt.tuning.launch import seen_knobs, space_from_tunables, written_options
from kernelopt.tuning.net import (
    EntryTimes,
    FarRoom,
    NetCap,
    NetVerdict,
    SizeCheck,
    cast,
    derived_sizes,
    layout_keys,
)
from kernelopt.tuning.net_accuracy import AtNet, judged_at_net
from kernelopt.tuning.new_session import key_of, new_session_line, part_digests
from kernelopt.tuning.original_figure import OriginalFigure, time_against_original
from kernelopt.tuning.pace import SessionPace
from kernelopt.tuning.problem import Problem, ProblemShape, ShapeValue, reference_shapes
from kernelopt.tuning.record import RecordHeader, SessionRecord, latest_beside, read_sweeps
from kernelopt.tuning.replay import restrict_to_sweep, space_from_sweep
from kernelopt.tuning.seeds import seeds as evidence_seeds
from kernelopt.tuning.session import (
    DEFAULT_BATCH,
    RETIME_TOP,
    GainJudgement,
    Progress,
    SessionResult,
    StopReason,
    judge_gain,
    judge_table,
    lost_to_the_machine,
    no_figure_line,
    tune,
)
from kernelopt.tuning.shape_evaluator import ShapesEvaluator
from kernelopt.tuning.shapes import (
    ChoiceKind,
    ShapeBest,
    ShapeChoice,
    as_written,
    check_entries,
    choose,
    in_entry_order,
    per_shape,
    retime_round,
    same_round,
    session_shapes,
    shared_best,
    timed_in_part,
    total,
    unheld,
    within_pct,
)
from kernelopt.tuning.space import Space
from kernelopt.tuning.strategies import DEFAULT_STRATEGY
from kernelopt.tuning.tail_wall import TailCost, TailWall, WallSpent
from kernelopt.tuning.writable import writable_space
from kernelopt.vocabulary import Device
from kernelopt.worker.environment import worker_env

#: The session folders' parent inside a folder by default (``kernelopt tune PATH`` without ``--out``).
DEFAULT_OUT = Path(".kernelopt") / "tune"
RECORD_FILE = "record.jsonl"
#: The workers' variables that decide a candidate's result or latency, part of the session key: Triton's
#: interpreter on or off, which devices a worker sees, how many threads a CPU kernel gets.
KEY_VARIABLES = (
    "TRITON_INTERPRET",
    "CUDA_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
)


class TuneRequest(BaseModel):
    """What to tune and how (the flags of ``kernelopt tune``, the rules backend's settings).

    Attributes:
        folder: the folder (kernel.py, reference.py, optional README.md).
        device: ``cuda``, ``cuda:N`` or ``cpu`` (Triton through its interpreter); ``None``: cuda when present.
        kernel: which launch (a group label as ``kernelopt tunables`` prints it, a kernel name or a prefix);
            ``None``: the launch of ``profiled_kernel``, else the launch with the most knobs.
        profiled_kernel: the kernel a profiler saw run most (Stage 1's primary kernel; a compiled name may
            carry a suffix): its launch is tuned when it is a kernel of the file.
        budget, budget_fraction, budget_wall_s: the budget (override the task card's keys of the same names).
        wall_cap_s: a ceiling on the session's wall seconds whatever the rule gives (the loop's time left).
        strategy: a registered strategy's name; rng_seed: its seed.
        out: the session folders' parent (default ``<folder>/.kernelopt/tune``).
        gpu, dtype: for the resource limits of fit pruning (default: the task card's; the GPU's name).
        size_scale: overrides the task card's ``size_scale``.
        check_resources: prune configurations that cannot fit the GPU's block limits.
        evaluator: the evaluator's limits, workers and bench plan.
        min_gain_pct: the gain over the current configuration that counts as better, percent.
        batch_size, retime_top: the session's candidates per round and re-timed top few.
        exclude: regions left out (winners an earlier version's gate rejected, :mod:`kernelopt.tuning.exclusion`).
        within: a recorded sweep of this launch: the space is cut to the sweep's values
            (:func:`~kernelopt.tuning.replay.restrict_to_sweep`), so the result compares with its best.
        written_latency_us: the gate's latency of the kernel as written (the loop's version being tuned) by
            ``SHAPES`` label, microseconds: the primary shape's is the slow-candidate cut's first best
            (:attr:`EvaluatorSettings.first_best_us`).
        target: a GPU to compile each pick for before it is written (``sm_90``, ``tune --target``): a pick its
            compile refuses (a launch that does not compile where kernel.py as it is does, or that spills more
            registers than the authors' largest configuration there) gives way to the next-best (:func:`_checked`).
    """

    model_config = ConfigDict(extra="forbid")

    folder: Path
    device: str | None = None
    kernel: str | None = None
    profiled_kernel: str | None = None
    budget: int | None = Field(default=None, ge=1)
    budget_fraction: float | None = Field(default=None, gt=0, le=1)
    budget_wall_s: float | None = Field(default=None, gt=0)
    wall_cap_s: float | None = Field(default=None, gt=0)
    strategy: str = DEFAULT_STRATEGY
    rng_seed: int = 0
    out: Path | None = None
    gpu: str | None = None
    dtype: str | None = None
    size_scale: float | None = None  # checked where it is applied (harness.sizes: one line, exit 2)
    check_resources: bool = True
    evaluator: EvaluatorSettings = Field(default_factory=EvaluatorSettings)
    min_gain_pct: float = Field(default=DEFAULT_MIN_GAIN_PCT, ge=0)
    within: Path | None = None
    batch_size: int = Field(default=DEFAULT_BATCH, ge=1)
    retime_top: int = Field(default=RETIME_TOP, ge=0)
    exclude: list[Exclusion] = Field(default_factory=list)
    written_latency_us: dict[str, float] = Field(default_factory=dict)
    target: str | None = None


@dataclass(frozen=True)
class PreparedFolder:
    """A folder read and its space built, before any candidate runs.

    Attributes:
        request: what was asked.
        card: the task card (empty when the folder has none).
        problem: the problem the candidates are measured on.
        tunables, evaluation: what discovery lists (and what importing kernel.py told).
        space: the space of the chosen launch.
        limits: the resource limits of fit pruning (``None``: not checked); gpu: the GPU they are for.
        base_source: kernel.py's text, which every candidate edits.
        source: kernel.py as read (its bytes and encoding): the best is written only over those bytes.
        budget: the budget rule (request over task card).
        session_dir: this session's folder (the record, candidates, logs).
        env: the workers' environment.
        shapes: the shapes every candidate is checked and timed on, the primary first
            (:func:`~kernelopt.tuning.shapes.session_shapes`).
        entries: reference.py's ``SHAPES`` entries as it lists them: the order every output says the shapes in
            (:meth:`in_user_order`).
        within: the recorded sweep the space is cut to (``--within``), and what its best is.
        idle: labels of the shapes the launch tuned does not run at (``run()`` launches another kernel there,
            :func:`idle_shapes`): every candidate is checked there, and timed only where the launch runs.
        screen: the tuned kernel's autotune list's own filters (:func:`~kernelopt.tunables.list_filters.list_screen`),
            which the workers apply to every candidate: one they reject is set aside untimed.
        discovery_cache: on a GPU, the Triton cache discovery's run of the task compiled into (the output folder's
            own, :func:`~kernelopt.tuning.compile_pool.discovery_env`), linked into the session's cache before its
            workers start; ``None`` in the interpreter (nothing compiles).
    """

    request: TuneRequest
    card: TaskCard
    problem: Problem
    tunables: list[Tunable]
    evaluation: AutotuneEvaluation | None
    space: Space
    limits: ResourceLimits | None
    gpu: str | None
    base_source: str
    source: SourceText
    budget: BudgetRule
    session_dir: Path
    env: dict[str, str]
    shapes: tuple[ProblemShape, ...] = ()
    entries: tuple[dict[str, ShapeValue], ...] = ()
    within: WithinSweep | None = None
    idle: tuple[str, ...] = ()
    screen: ListScreen | None = None
    key_parts: Mapping[str, str] = field(default_factory=dict)
    discovery_cache: Path | None = None

    @property
    def record_path(self) -> Path:
        return self.session_dir / RECORD_FILE

    def in_user_order(self, labels: Iterable[str]) -> list[str]:
        """Shape labels in reference.py's ``SHAPES`` order (:func:`~kernelopt.tuning.shapes.in_entry_order`)."""
        return in_entry_order(self.problem, self.entries, labels)

    @property
    def user_shapes(self) -> list[ProblemShape]:
        """:attr:`shapes` in reference.py's ``SHAPES`` order, as every output lists them."""
        order = self.in_user_order(s.label() for s in self.shapes)
        return sorted(self.shapes, key=lambda s: order.index(s.label()))

    # What the session reads of the folder again and again, worked out once a PreparedFolder (a ``replace`` of it
    # starts afresh): the screen, the session, the list's current configurations and each edit asked for the
    # autotune list, each time through a whole analysis of kernel.py (libcst); a table's sizes walked the
    # tunables and the run's values anew at every shape.

    @cached_property
    def found(self) -> list[Tunable]:
        """Every knob of :attr:`base_source` as discovery reads it (:func:`discover_source`: literals a CPU session's
        space leaves out included), unlike :attr:`tunables`, the launch's as the session tunes them. Read it, do not
        change it."""
        return discover_source(self.base_source, self.problem.kernel_py.name, gpu=self.gpu, evaluation=self.evaluation)

    @cached_property
    def ran_shapes(self) -> list[ProblemShape]:
        """The ``SHAPES`` entries where the launch tuned runs (not :attr:`idle`): the ones a table's rows are for."""
        return [s for s in self.shapes if s.label() not in self.idle]

    @cached_property
    def listed(self) -> AutotuneSpace | None:
        """The autotune list of the launch tuned as its autotuner holds it (:func:`autotune_list` over
        :attr:`found`); ``None`` unless the space is an autotune list's."""
        if not is_list_space(self.space.origins):
            return None
        return autotune_list(self.space.kernel, self.evaluation, self.found)

    @cached_property
    def keyed_list(self) -> AutotuneSpace | None:
        """:attr:`listed` when it is keyed on the problem (``key=["n"]``: its autotuner picks a config per key at
        run time, and a session's per-shape bests are written as its table); ``None`` otherwise."""
        listed = self.listed
        if listed is not None and not listed.key:  # a literal list, not imported: its key as the file writes it
            listed = listed.model_copy(update={"key": literal_autotune_key(self.base_source, listed.kernel)})
        return listed if listed is not None and listed.key else None

    @cached_property
    def tabled(self) -> dict[str, Tunable]:
        """Knob name -> the tunable of each setting of the launch tuned that the kernel computes (:func:`_computed`):
        what a tuned table holds."""
        return {t.name: t for t in self.tunables if t.kernel == self.space.kernel and _computed(t)}

    @cached_property
    def literal_tabled(self) -> dict[str, Tunable]:
        """Knob name -> the tunable of each literal of the launch tuned bound once to a local of its launching function
        beside a size (:func:`_table_literal`): what a per-bucket table holds where the session's choice is one and no
        computed setting is in the pick, the literal its fallback (leftovers21 l9)."""
        return {t.name: t for t in self.tunables if t.kernel == self.space.kernel and _table_literal(t)}

    @cached_property
    def by_shape(self) -> dict[str, dict[str, Value]]:
        """:func:`computed_by_shape` (read it, do not change it)."""
        return _computation_values(self.space, self.evaluation, self.shapes)

    @cached_property
    def table_plans(self) -> dict[tuple[Config | None, bool], tuple[list[str], str] | None]:
        """The table plans made so far, by the configuration a table would hold (:func:`_table_plan`: the choice's
        words, its judgement and the write each ask it of the one best)."""
        return {}

    @cached_property
    def pins(self) -> dict[Config, EditResult | None]:
        """The autotune list pinned to each configuration asked so far (:func:`_pinned_one`: the choice's words, the
        judgement, the write and the keyed table's edit each ask it of the one best); read it, do not change it."""
        return {}

    @cached_property
    def moves(self) -> dict[Config, tuple[dict[str, Value], dict[str, Value]]]:
        """The knobs' values as written and each configuration's changes from them, by configuration
        (:func:`pick_moves`: the write, the cover rule and the net each read them of the one pick); read them, do not
        change them."""
        return {}

    @cached_property
    def size_readings(self) -> tuple[dict[str, KeyReading], dict[str, SizeValue]]:
        """What the net reads of reference.py to derive its sizes, once for every pick it checks: which ``SHAPES``
        keys are sizes (:func:`kernelopt.harness.sizekeys.key_roles` of ``get_inputs``) and its module-level sizes
        (:func:`kernelopt.harness.sizes.module_sizes`); both empty when the file cannot be read (read when the
        session started: gone since, the value rule)."""
        reference = self.problem.reference_py
        try:
            roles = key_roles(read_python(reference))
            constants = module_sizes(reference, self.shapes[0].constants if self.shapes else None)
        except (OSError, InputFileError, ValueError):
            return {}, {}
        return roles, constants

    @cached_property
    def bounds(self) -> dict[str, str]:
        """A heuristic's computation that bounds a table (:func:`_over_computation`) -> the knob it computes (the
        first such knob of :attr:`tabled`)."""
        out: dict[str, str] = {}
        for name, t in self.tabled.items():
            if t.kind is TunableKind.HEURISTIC and t.computed is not None and _over_computation(self, [name]):
                out.setdefault(t.computed, name)
        return out


@dataclass(frozen=True)
class FolderTuning:
    """One session on a folder: what was prepared, what the session found, the verdict on the gain, (timed on
    several shapes) what it found on each and whether one configuration serves them all, (kernel.py holding a
    guard an earlier write left) the configuration the guard runs (:func:`guarded_twin`), and what the bench workers
    said of the check (``check_notes``: the float64 run for an integer output skipped for the device's room), and
    (kernel.py running a keyed autotune list of a few configurations) those configurations (``current_list``:
    :func:`judge_against_list`)."""

    prepared: PreparedFolder
    result: SessionResult
    judgement: GainJudgement
    per_shape: tuple[ShapeBest, ...] = ()
    choice: ShapeChoice | None = None
    edit: EditResult | None = None
    edit_made: bool = False
    edit_note: str | None = None
    guarded: dict[str, Value] | None = None
    check_notes: tuple[str, ...] = ()
    net: NetVerdict | None = None
    current_list: tuple[dict[str, Value], ...] = ()
    list_as_written: str | None = None
    """Where the keyed list's autotuner, run as written, picked another configuration than the fastest pinned at a
    shape: the line that says so (:func:`list_as_written`)."""
    against_original: OriginalFigure | None = None
    """A written retune's figure against the original computation its earlier guards fall back to, re-timed beside
    the written kernel after the session, or why there is none (:func:`_against_original`, leftovers27 l131)."""
    set_aside: tuple[tuple[str, str], ...] = ()
    """``SHAPES`` entries the kernel as written cannot run, set aside by the session ((label, the line that says so):
    :class:`~kernelopt.tuning.shape_evaluator.ShapesEvaluator`)."""
    failed_rows: tuple[tuple[str, Config], ...] = ()
    """(shape label, the row's values) of a per-bucket table's rows whose written kernel failed its check: those
    values serve that shape in no later table (:func:`_next_table`)."""
    literals_held: bool = True
    """Whether a per-bucket table may hold the pick's literals (:attr:`PreparedFolder.literal_tabled`, leftovers21 l9);
    ``False`` where such a table was judged not better and one configuration, judged as before l9, is (n82: a noisy
    re-time's sign test writes one configuration where the table is "too noisy to rank")."""
    record_aside: str | None = None
    """Why a saved record was not served: the session folder's was made under other check rules, and is kept beside the
    new one (:meth:`~kernelopt.tuning.record.SessionRecord.aside_line`), or a new session folder was started and the
    last one beside it was for another kernel.py, reference.py, problem, ... (:func:`~kernelopt.tuning.new_session.
    new_session_line`); ``None`` when neither."""
    timed_on: str | None = None
    """Where the candidates were timed, as the bench worker named its device (``NVIDIA H100 80GB HBM3``, ``cpu``,
    ``cpu (Triton's interpreter)``): what the search plot's title says (newuser18's n113); ``None`` when no worker
    started."""


def budget_rule(request: TuneRequest, card: TaskCard) -> BudgetRule:
    """The budget: the request's count or fraction, else the task card's (``budget``, ``budget_fraction``;
    the older ``search_budget`` is a count), else the default rule; the wall seconds likewise, never over
    the request's ``wall_cap_s``.

    Raises:
        UsageError: a count and a fraction from the same source; a wall time under
            :data:`~kernelopt.tuning.budget.MIN_WALL_S` (the request's or the card's; never the cap).
    """
    if request.budget is not None and request.budget_fraction is not None:
        raise UsageError("give a budget count or a budget fraction, not both")
    count, fraction = request.budget, request.budget_fraction
    if count is None and fraction is None:
        count = card.budget if card.budget is not None else card.search_budget
        fraction = card.budget_fraction
        if count is not None and fraction is not None:
            raise UsageError("the task card gives both budget and budget_fraction: keep one")
    if request.budget_wall_s is not None:
        check_wall_s(request.budget_wall_s, name="budget_wall_s")
        wall_s = request.budget_wall_s
    elif card.budget_wall_s is not None:
        check_wall_s(card.budget_wall_s, name=f"{request.folder / 'README.md'}: front matter 'budget_wall_s'")
        wall_s = card.budget_wall_s
    else:
        wall_s = DEFAULT_WALL_S
    if request.wall_cap_s is not None:
        wall_s = min(wall_s, request.wall_cap_s)
    return BudgetRule(count=count, fraction=fraction, wall_s=wall_s)


def _gpu_name(request: TuneRequest, card: TaskCard) -> str | None:
    """The GPU the space is pruned for: the request's, the task card's, else the first NVIDIA GPU's name
    (not on the CPU; ``None`` when NVML cannot tell)."""
    if request.gpu or card.gpu:
        return request.gpu or card.gpu
    if request.device is not None and Device.of(request.device) is Device.CPU:
        return None
    from kernelopt.hardware.gpu import NvmlUnavailable, nvidia_gpus

    try:
        gpus = nvidia_gpus()
    except NvmlUnavailable:
        return None
    return gpus[0].name if gpus else None


def problem_sizes(problem: Problem, timed: Sequence[ProblemShape] = ()) -> dict[str, int]:
    """The problem's integer sizes for the rule "a tile is no larger than the problem": reference.py's
    module-level constants (with the task card's sizes applied), then the primary shape's keyword arguments
    (read from a literal ``SHAPES``; a computed one gives none); with the shapes a session times, each size's
    largest over them (a 256-wide block is legal when one shape has 256 columns)."""
    numbers: dict[str, SizeValue] = {**size_constants(problem.reference_py), **problem.constants}
    shapes = reference_shapes(problem.reference_py, constants=problem.constants, device=problem.device) or []
    numbers.update({k: v for k, v in problem.primary_shape(shapes).kwargs.items() if isinstance(v, int | float)})
    for shape in timed:
        for k, v in shape.kwargs.items():
            if is_int(v) and isinstance(numbers.get(k), int):
                numbers[k] = max(v, numbers[k])  # type: ignore[type-var]
    return {k: v for k, v in numbers.items() if is_int(v) and v > 0}


def prepare_folder(request: TuneRequest) -> PreparedFolder:
    """Read the folder, discover its knobs and build the space (no candidate runs).

    Raises:
        InputFileError: kernel.py or reference.py is missing or not valid Python.
        UsageError: no tunable knob, no launch of that name, or a space the fit rules leave empty (one line
            naming what discovery sees); an invalid budget.
        TunableError: kernel.py does not parse.
        WorkspaceError: the task card is invalid.
    """
    session_folders = Path(request.folder).resolve() / DEFAULT_OUT.parent
    made_here = request.out is None and not session_folders.exists()
    try:
        return _prepared_folder(request)
    except BaseException:  # a refusal (no knob, an empty space) or an interrupt leaves nothing half-made beside it
        if made_here and session_folders.is_dir():
            shutil.rmtree(session_folders, ignore_errors=True)  # discovery's GPU cache and its .gitignore
        raise


def _prepared_folder(request: TuneRequest) -> PreparedFolder:
    """:func:`prepare_folder`'s reading, discovery and space."""
    folder = Path(request.folder).resolve()
    card_path = folder / "README.md"
    card = TaskCard.load(card_path) if card_path.is_file() else TaskCard()
    budget = budget_rule(request, card)  # an invalid budget is one line before anything is made beside the kernel
    problem = Problem.from_folder(folder, device=request.device, card=card, size_scale=request.size_scale)
    # the files' contract and imports, before any candidate: a kernel.py without run() or importing a package
    # that is not installed failed every candidate ("raised while building ModelNew", "compile_error")
    check_pair(problem.reference_py, problem.kernel_py)
    entries = reference_shapes(problem.reference_py, constants=problem.constants, device=problem.device) or []
    check_entries(problem.reference_py, entries)  # an entry get_inputs cannot take: one line, before anything runs
    shapes = session_shapes(problem, entries)
    env = worker_env(None, device=request.device)
    gpu = _gpu_name(request, card)
    out = Path(request.out) if request.out is not None else folder / DEFAULT_OUT
    # on a GPU, what discovery's run compiles goes where each session's workers find it (seed_cache, l186)
    # a file where the session folders go is the session lock's one line (faults7, f11), not a crash here
    discovery_cache = None if problem.interpreted or file_in_the_way(out) is not None else out / CACHE_DIR
    if discovery_cache is not None and request.out is None:
        _ignored_by_git(folder / DEFAULT_OUT.parent)
    tunables, evaluation = discover_evaluated(
        problem.kernel_py,
        gpu=gpu,
        reference=problem.reference_py,
        device=request.device or "auto",
        env=env if discovery_cache is None else discovery_env(env, out),
        first_call=True,
        # a keyed list a session times entry by entry, pinned (l101), is not benchmarked whole at any entry's key
        # before it: every run pinned to its first config (leftovers27 l133 after the first, late49 l190 the first)
        pin_lists=0 if problem.interpreted else LIST_CURRENT_MOST,
        # where every list is so pinned and none adds into an output, no run at all: it reads nothing the session
        # needs, and its compiles were fla_matmul's 45 s before its session on the H100 (late54's l240)
        adds_into=writes_by_program,
    )
    held_options: dict[str, dict[str, Value]] = {}
    if problem.interpreted:
        tunables, held_options = _interpreted_knobs(problem, tunables)
    tunables = [_unbucketable(t, evaluation, shapes) for t in tunables]
    limits = None
    if request.check_resources:  # no GPU named (the CPU): what fits every NVIDIA GPU of the spec sheets, as written
        dtype = operands_dtype(problem, request.dtype or card.dtype)
        limits = ResourceLimits.for_target(gpu, dtype)
    kernel = request.kernel or profiled_launch(request.profiled_kernel, tunables)
    source = read_source(problem.kernel_py)  # its bytes: the write checks them, and keeps its encoding and CRLF
    base = source.text
    space = space_from_tunables(
        tunables,
        kernel=kernel,
        limits=limits,
        problem_sizes=problem_sizes(problem, shapes),
        evaluation=evaluation,
        looped=loop_kernels(base),
        held_options=held_options,
        covered=covered_sizes(tunables, evaluation, [dict(s.kwargs) for s in shapes]),
        source=base,
    )
    within = None
    if request.within is not None:
        space, within = _within(
            space, request.within, evaluation, shapes, problem.kernel_py.name, interpreted=problem.interpreted
        )
    # a value the guard refuses to write beside any other leaves the space before the strategy proposes it; the
    # editors share one discovery of kernel.py
    found = discover_source(base, problem.kernel_py.name, gpu=gpu, evaluation=evaluation)
    edits = functools.partial(knob_editor, base, limits=limits, gpu=gpu, evaluation=evaluation, found=found)
    space = writable_space(space, edits(kernel=space.kernel, origins=space.origins, writable=True), tunables)
    editor = edits(kernel=space.kernel, origins=space.origins, pin_current=problem.interpreted)
    parts = session_parts(canonical_source(space, base, editor), problem, space, env=env, gpu=gpu, shapes=shapes)
    prepared = PreparedFolder(
        request=request,
        card=card,
        problem=problem,
        tunables=tunables,
        evaluation=evaluation,
        space=space,
        limits=limits,
        gpu=gpu,
        base_source=base,
        source=source,
        budget=budget,
        session_dir=out / key_of(parts),
        key_parts=part_digests(parts),
        env=env,
        shapes=tuple(shapes),
        entries=tuple(dict(e) for e in entries),
        within=within,
        idle=_untimed(
            idle_shapes(evaluation, space.kernel, shapes),
            overridden_shapes(evaluation, space, tunables, shapes),
            shapes,
        ),
        screen=_screen(base, space.kernel, evaluation, tunables),
        discovery_cache=discovery_cache,
    )
    pinned = pinned_line(prepared) or only_current_line(prepared)
    if pinned is not None:
        raise NothingToTune(pinned)
    return prepared


def _interpreted_knobs(problem: Problem, tunables: list[Tunable]) -> tuple[list[Tunable], dict[str, dict[str, Value]]]:
    """The knobs a session on the CPU tunes, and the launch options it holds at their written values (launch ->
    option -> value): Triton's interpreter runs one program at a time and ignores the launch options (num_warps,
    num_stages, ...), so their timing there is noise; a loop's option (``tl.range(..., num_stages=)``) is refused
    with its reason.

    Raises:
        UsageError: an autotune list of launch options only, and nothing else to tune on the CPU.
    """
    held_options = written_options(tunables)  # still what a GPU would run: the fit estimates with them
    # an autotune list's launch options: the space the kernel's authors declared, which only a GPU can search
    dropped = [t for t in tunables if t.name in LAUNCH_OPTIONS and t.editable]
    options = [t for t in dropped if t.kind is TunableKind.AUTOTUNE_CONFIG]
    tunables = [t for t in tunables if t.name not in LAUNCH_OPTIONS]
    if dropped and not options and not launches(tunables, loop_kernels(read_source(problem.kernel_py).text)):
        # vLLM's merge_attn_states (breaker21): "no tunable knob" named the head sizes it refused and not the
        # launch's num_warps, which the interpreter drops and a GPU session searches
        names = ", ".join(sorted({t.name for t in dropped}))
        raise UsageError(
            f"no tunable knob: discovery lists {seen_knobs(tunables)}; on the CPU the launch options ({names}) are "
            "no knob either: Triton's interpreter ignores them (tune them on a GPU, --device cuda)"
        )
    if options and not launches(tunables, loop_kernels(read_source(problem.kernel_py).text)):
        # bitsandbytes' autotune list of num_warps / num_stages only (breaker10): "no tunable knob ... only
        # knobs it cannot edit" named neither the knobs nor where they can be tuned
        names = sorted({t.name for t in options})
        raise UsageError(
            "no tunable knob on the CPU: the kernel's autotune list holds launch options only "
            f"({', '.join(names)}: {len(options)} of them, first {options[0].key}), which Triton's interpreter "
            "ignores",
            hint="tune them on a GPU (--device cuda)",
        )
    tunables = [
        t.model_copy(update={"refused_reason": loop_option_note(t.loop_option)})
        if t.loop_option is not None and t.editable
        else t
        for t in tunables
    ]
    return tunables, held_options


class NothingToTune(UsageError):
    """Every configuration of the space runs as the kernel as written (:func:`pinned_line`): bad input for ``tune``
    (exit 2), a converged launch configuration for the loop."""


def pinned_line(prepared: PreparedFolder) -> str | None:
    """The one line for a space whose every configuration runs as the kernel as written, because a block that must
    cover a row starts where the problem ends (:attr:`Space.domain_notes`: the smallest block covering the largest
    size checked is also the largest the problem leaves, and the kernel already computes it, or is written with
    it): nothing to tune, said before any candidate runs (issue 32, "Bad input": a kernel whose knobs would all
    change its results is one line that names them). ``None`` when something can move, or no cover bound applied
    (a session then finds out, :func:`~kernelopt.tuning.session.knobs_changing_results`)."""
    space = prepared.space
    current = space.current()
    if not space.domain_notes or current is None or space.size.count > len(space.knobs) + 2:
        return None
    same = {current, *_twins(prepared)}
    if any(c not in same for c in space.configs()):
        return None
    names, kernel = ", ".join(space.names), prepared.problem.kernel_py.name
    tile = [r for r in space.fit_rules if r.startswith("tile <= problem")]
    # said of a kernel that masks (break17: "only adds masked lanes" of b15's kernel, which has no masks)
    masks = kernel_masks(prepared.base_source, space.kernel) is True
    larger = f" ({'; '.join(tile)}{': a larger block only adds masked lanes' if masks else ''})" if tile else ""
    return (
        f"{names} cannot move without changing what {kernel} computes: {'; '.join(space.domain_notes)}; and no "
        f"larger value fits{larger}, so there is nothing to tune; {kernel} unchanged"
    )


def only_current_line(prepared: PreparedFolder) -> str | None:
    """The one line for a space that holds the current configuration alone: a session would time it, find it "the
    best found" and say so, a claim over one (newuser18's n116: a string constant marked ``# kernelopt: tunable``,
    ``MODE = "default"``, its space ``MODE: one of ['default']``, 8 s of timing and "the current configuration is
    the best found (60.2 us)"). ``None`` when the space holds another configuration."""
    space = prepared.space
    current = space.current()
    if current is None or space.size.count != 1 or any(c != current for c in space.configs()):
        return None
    marked = [t for t in prepared.tunables if t.kind is TunableKind.MARKED_CONSTANT and t.name in space.names]
    hint = (
        "; a marked constant's values to try go in its marker (# kernelopt: tunable values=A,B)"
        if marked and not any(t.legality.values for t in marked)
        else ""
    )
    alone = config_text(current.as_dict())
    return (
        f"{', '.join(space.names)}: the space holds the current configuration alone ({alone}), so there is nothing "
        f"to tune; {prepared.problem.kernel_py.name} unchanged{hint}"
    )


def idle_shapes(
    evaluation: AutotuneEvaluation | None, kernel: str | None, shapes: Sequence[ProblemShape]
) -> tuple[str, ...]:
    """Labels of the ``shapes`` at which the run of the task launched other kernels and not ``kernel`` (a
    ``run()`` that picks a kernel by size, the variants trial's dispatch_size), or no kernel at all (a torch
    fallback for small sizes: the fused-softmax tutorial's ``if n_cols < 16: return torch.softmax(x, -1)``, breaker18
    d2): timing a candidate there measures other code, whose noise would rank this launch's candidates, and a table
    is never read there. An entry the run told nothing of (its run failed) is not idle. Empty when no run told (or
    every shape would be idle: then the run says nothing usable)."""
    if evaluation is None or kernel is None or len(shapes) < 2:
        return ()
    idle = []
    for shape in shapes:
        entry = next((e for e in evaluation.shape_sizes if e.shape == dict(shape.kwargs)), None)
        if entry is not None and kernel not in entry.launch_values:
            idle.append(shape.label())
    return tuple(idle) if len(idle) < len(shapes) else ()


def _untimed(idle: tuple[str, ...], overridden: tuple[str, ...], shapes: Sequence[ProblemShape]) -> tuple[str, ...]:
    """The shapes a session checks and does not time: where the launch does not run, and where the literals it
    tunes are overridden; none when that would be every shape."""
    out = tuple(dict.fromkeys((*idle, *overridden)))
    return out if len(out) < len(shapes) else ()


def _overridden_there(
    evaluation: AutotuneEvaluation, space: Space, tunables: Sequence[Tunable], shape: ProblemShape
) -> dict[str, Value]:
    """The value the launch got at ``shape`` for each knob of ``space``, where every knob is a literal that a
    conditional override replaced there (:attr:`Tunable.overridden`, the launch's value not the literal's); ``{}``
    where one knob is in effect (or the run told nothing of the shape)."""
    kernel = space.kernel
    entry = next((e for e in evaluation.shape_sizes if e.shape == dict(shape.kwargs)), None)
    launched = entry.launch_values.get(kernel, {}) if entry is not None and kernel is not None else {}
    by_key = {t.key: t for t in tunables}
    got: dict[str, Value] = {}
    for name, origin in space.origins.items():
        knobs = [by_key[k] for k in origin.keys if k in by_key]
        feed = origin.feeds[0] if origin.feeds else name
        if not knobs or not all(t.overridden for t in knobs) or feed not in launched:
            return {}
        if launched[feed] == knobs[0].value and not _an_override_ran(entry, knobs):
            return {}
        got[feed] = launched[feed]
    return got


def _an_override_ran(entry: ShapeSizes | None, knobs: Sequence[Tunable]) -> bool:
    """Whether the run at ``entry`` executed an override of every knob's literal: one that gave the literal's own
    value there (``BLOCK_SIZE = 256`` then ``elif n < 256: BLOCK_SIZE = triton.next_power_of_2(n)`` at n=200) still
    replaced it, so no candidate changes the kernel there (fresh26 f40)."""
    ran = set(entry.ran_lines) if entry is not None else set()
    return bool(ran) and all(set(t.override_lines) & ran for t in knobs)


def overridden_shapes(
    evaluation: AutotuneEvaluation | None, space: Space, tunables: Sequence[Tunable], shapes: Sequence[ProblemShape]
) -> tuple[str, ...]:
    """Labels of the ``shapes`` where every knob tuned is a literal a conditional override replaced
    (:func:`_overridden_there`: ``BLOCK = 1024`` then ``if n_cols <= 2048: BLOCK = next_power_of_2(n_cols)``, at
    300 columns): every candidate is the kernel as written there, so its timing is noise that would rank the
    candidates and be reported as a gain (fresh25 f30: "+26.6 %" at an entry whose kernel no candidate changed).
    They are checked, as :func:`idle_shapes`' are, and timed only where the literal is in effect."""
    if evaluation is None or len(shapes) < 2:
        return ()
    out = tuple(s.label() for s in shapes if _overridden_there(evaluation, space, tunables, s))
    return out if len(out) < len(shapes) else ()


def idle_line(prepared: PreparedFolder) -> str | None:
    """One line naming the shapes the launch tuned does not run at (:attr:`PreparedFolder.idle`) and what runs
    there instead; ``None`` when there are none."""
    evaluation = prepared.evaluation
    if not prepared.idle or evaluation is None:
        return None
    held = {
        s.label(): got
        for s in prepared.shapes
        if s.label() in prepared.idle and (got := _overridden_there(evaluation, prepared.space, prepared.tunables, s))
    }
    idle = [label for label in prepared.idle if label not in held]
    instead = sorted(
        {
            k
            for e in evaluation.shape_sizes
            for s in prepared.shapes
            if s.label() in idle and e.shape == dict(s.kwargs)
            for k in e.launch_values
        }
    )
    ran = f"launched {', '.join(instead)} there" if instead else "launched no kernel there"
    parts = [f"launch {prepared.space.kernel} does not run at {'; '.join(idle)} (the task's run {ran})"] if idle else []
    if held:
        names = ", ".join(prepared.space.names)
        got = [f"{config_text(values)} at {label}" for label, values in held.items()]
        there = f"{config_text(next(iter(held.values())))} there" if len(held) == 1 else "; ".join(got)
        parts.append(
            f"the literal {names} is overridden at {'; '.join(held)} (the launch got {there}; a SHAPES entry past "
            "the override's condition times it at another size)"
        )
    where = "the launch runs with the literal in effect" if held else "the launch runs"
    return f"{' and '.join(parts)}: every candidate is checked there, and timed only where {where}"


def _screen(
    base: str, kernel: str | None, evaluation: AutotuneEvaluation | None, tunables: Sequence[Tunable]
) -> ListScreen | None:
    """The autotune list's own filters of ``kernel`` (:func:`list_screen`), with the list as the autotuner holds it
    (:func:`autotune_list`: the evaluation's read-back, else its literal configs) when it is pruned (its prune judges a
    candidate beside it)."""
    screen = list_screen(base, kernel) if kernel is not None else None
    if screen is None or not screen.prune:
        return screen
    listed = autotune_list(kernel, evaluation, tunables)
    return screen.model_copy(update={"originals": tuple(listed.configs)}) if listed is not None else screen


def screen_lines(prepared: PreparedFolder) -> list[str]:
    """The lines saying which of the autotune list's own filters every candidate is held to, and which cannot be
    (:attr:`PreparedFolder.screen`); none when the list has none."""
    screen = prepared.screen
    if screen is None:
        return []
    held = [f"`{f.text}` (kernel.py:{f.line})" for f in screen.filters]
    if screen.prune:
        held.append("its early_config_prune, at each launch")
    out = list(screen.unread)
    if held:
        keyed = len(prepared.shapes) > 1 and prepared.keyed_list is not None
        where = "; at one SHAPES entry, it is timed at the others (the list is keyed by size)" if keyed else ""
        out.insert(
            0,
            f"the autotune list's own filters hold every candidate: {', '.join(held)}; a configuration they reject "
            f"is set aside untimed{where}",
        )
    return out


def _computed(t: Tunable) -> bool:
    """:func:`~kernelopt.tunables.knobs.table_computed`: a pick written as a table that falls back on it."""
    return table_computed(t)


def _table_literal(t: Tunable) -> bool:
    """A literal bound once to a local of its launching function beside the sizes read with it (``BLOCK_SIZE: int =
    4096`` before ``divmod(vocab_size, BLOCK_SIZE)``: discovery's ``size_names`` and ``tuned_at`` of a launch
    literal): a per-bucket table over one of those sizes can hold it, the literal the fallback above the sizes
    checked (issue 32's per-shape tuning that keeps the original computation; leftovers21 l9)."""
    return t.kind is TunableKind.LAUNCH_KWARG and bool(t.size_names) and t.tuned_at is not None and t.editable


def _original(prepared: PreparedFolder, name: str) -> Value:
    """What a table's knob ``name`` runs above the table: its computation (:data:`COMPUTED`), or a literal's own
    value (:attr:`PreparedFolder.literal_tabled`)."""
    literal = prepared.literal_tabled.get(name) if name not in prepared.tabled else None
    return literal.value if literal is not None and literal.value is not None else COMPUTED


def _is_original(prepared: PreparedFolder, name: str, value: object) -> bool:
    """Whether ``value`` of the table's knob ``name`` is what the original runs (:func:`_original`)."""
    return is_computed(value) or (not is_computed(original := _original(prepared, name)) and value == original)


def _unbucketable(t: Tunable, evaluation: AutotuneEvaluation | None, shapes: Sequence[ProblemShape]) -> Tunable:
    """``t``, refused when it is computed from the problem but reads no size known at every ``SHAPES`` entry
    in the run of the task (``next_power_of_2(x.shape[1])``): its pick could only be a literal, less general than
    the computation, and a table needs a size to bucket on, so it is left alone and says so (no session is spent
    on it). The entries where ``run()`` launches another kernel (:func:`idle_shapes`: unsloth's cross-entropy,
    one kernel below ``MAX_FUSED_SIZE`` and a chunked one above) need none: the table is read only where its
    kernel runs (breaker7 k6)."""
    if not _computed(t) or not t.editable or t.kernel is None or evaluation is None or not evaluation.shape_sizes:
        return t  # no run told the sizes: the edit says what it could not write
    idle = idle_shapes(evaluation, t.kernel, shapes)  # where run() launches another kernel, no size is needed
    ran = [s for s in shapes if s.label() not in idle]
    for name in t.size_names:
        if all(_size_of(evaluation, t.kernel, name, s) is not None for s in ran):
            return t
    return t.model_copy(update={"refused_reason": left_reason(t, ", ".join(t.size_names) or NO_SIZE)})


def _size_of(evaluation: AutotuneEvaluation | None, kernel: str, size: str, shape: ProblemShape) -> int | None:
    """The value of the size name ``size`` at a ``SHAPES`` entry: the value the name took where ``kernel`` was
    launched when the evaluation ran that entry (``n_cols`` from ``cols``), else the entry's own. The launch's comes
    first: a table is written over the launching function's name, which may hold another value than the entry's of
    the same name (FlagGems' argmax: ``M = inp.numel()``, 1200 where the entry says ``M=3``; a table "up to M=13"
    never ran, breaker17 d2)."""
    recorded = evaluation.size_value(kernel, size, dict(shape.kwargs)) if evaluation is not None else None
    if is_int(recorded):
        return recorded
    value = shape.kwargs.get(size)
    return value if is_int(value) else None


class WithinSweep(BaseModel):
    """The recorded sweep a session's space is cut to (``kernelopt tune --within SWEEP``) and what its best is.

    Attributes:
        sweep: the sweep's example name; path: its file.
        complete: every configuration of the sweep's space was recorded (its best is the exhaustive best of the
            space); else the sweep was cut short and its best is only the best of ``timed``.
        timed: configurations the sweep timed (pruned ones left out); configurations: its space's size.
        best_latency_us: its best recorded latency (``None``: none was timed).
        best_label: ``exhaustive best`` or ``best of N timed``: what a ratio to it may be called.
        shape: the problem the sweep was recorded on.
        mapped: knob -> the literal a knob the kernel computes was mapped to (its value on every shape timed):
            sweeps hold literals only.
    """

    model_config = ConfigDict(extra="forbid")

    sweep: str
    path: str
    complete: bool
    timed: int
    configurations: int
    best_latency_us: float | None
    best_label: str
    shape: dict[str, Value] = Field(default_factory=dict)
    mapped: dict[str, Value] = Field(default_factory=dict)

    def line(self) -> str:
        """One line for people: what the space was cut to and what its best may be called."""
        best = f"{sig(self.best_latency_us)} us" if self.best_latency_us is not None else "none timed"
        if self.complete:
            head = (
                f"within the sweep of {self.sweep} (complete, {self.timed} timed of {self.configurations}): its best, "
                f"{best}, is the exhaustive best of this space"
            )
        else:
            head = (
                f"within the sweep of {self.sweep}, cut short ({self.timed} timed of {self.configurations}): its best, "
                f"{best}, is the {self.best_label}, not the exhaustive best; a ratio to it is to the {self.best_label}"
            )
        if self.mapped:
            knobs = ", ".join(f"{k} computed -> {v}" for k, v in self.mapped.items())
            head += f"; {knobs} (its value on every shape timed: the sweep holds literals only)"
        return head


def _within(
    space: Space,
    path: Path,
    evaluation: AutotuneEvaluation | None,
    shapes: Sequence[ProblemShape],
    kernel_py: str = "kernel.py",
    *,
    interpreted: bool = False,
) -> tuple[Space, WithinSweep]:
    """``space`` cut to the values of the one sweep recorded at ``path``, and that sweep's summary (``interpreted``:
    the kernel runs in Triton's interpreter, which holds the launch options, so a sweep of them is said to need a GPU).

    A sweep holds literals only: a knob the kernel computes from the problem maps to the literal its computation
    gives on every shape the session times (as the run told, or discovery's value on one shape); a computation of
    several values over them is no point of the sweep's space, and is refused in one line rather than ranked
    against the sweep's best (a ratio over other spaces).

    Raises:
        InputFileError: not a sweep file.
        UsageError: a file of several sweeps, a sweep of other knobs, a computed knob of several values over the
            shapes timed, or a current configuration outside the sweep's space.
    """
    sweeps = read_sweeps(path)
    if len(sweeps) != 1:
        raise UsageError(f"{path}: holds {len(sweeps)} sweeps; --within takes a file of one sweep")
    sweep = sweeps[0]
    told = _computation_values(space, evaluation, shapes)
    labels = [s.label() for s in shapes]
    mapped: dict[str, Value] = {}
    for name in space.names:
        if not space.computed(name):
            continue
        values = [told.get(label, {}).get(name) for label in labels]
        if len(labels) <= 1 and not any(v is not None for v in values):
            values = [space.origins[name].value]  # one shape: the value discovery's run read
        if values and all(v is not None for v in values) and len({repr(v) for v in values}) == 1:
            mapped[name] = values[0]  # type: ignore[assignment]
            continue
        gives = ", ".join(f"{v} at {label}" for v, label in zip(values, labels, strict=False) if v is not None)
        raise UsageError(
            f"--within {path}: {name} is computed by {kernel_py} ({space.origins[name].computed}), "
            f"{gives or 'its value unknown'}; the sweep of {sweep.name} holds literals only, so the computation is "
            "no one point of its space and a ratio to its best would be over another space",
            hint="tune without --within, or time one shape (the sweep's) so the computation gives one value",
        )
    held = sorted(set(space_from_sweep(sweep).names) - set(space.names))
    if interpreted and held and set(held) <= set(LAUNCH_OPTIONS):
        # the launch has them (num_warps=4 as written): the interpreter holds them, where "this launch has no knob
        # for" was said (newuser11's n63)
        raise UsageError(
            f"--within {path}: the sweep of {sweep.name} varies {held}, which Triton's interpreter holds at their "
            "values (it runs one program at a time): --device cpu searches none of them",
            hint="run --within on the GPU the sweep was recorded on",
        )
    try:
        restricted = restrict_to_sweep(space, sweep, computed=mapped)
    except ValueError as exc:
        raise UsageError(f"--within {path}: {exc}") from None
    best = sweep.best()
    timed = len(sweep.timed())
    summary = WithinSweep(
        sweep=sweep.name,
        path=str(path),
        complete=sweep.complete,
        timed=timed,
        configurations=math.prod(len(v) for v in sweep.space.values()),
        best_latency_us=best.latency_us if best is not None else None,
        best_label="exhaustive best" if sweep.complete else f"best of {timed} timed",
        shape=dict(sweep.key.shape),
        mapped=mapped,
    )
    return restricted, summary


def canonical_source(space: Space, base_source: str, editor: Apply) -> str:
    """kernel.py with every knob of ``space`` at the first fitting configuration: the kernel's text apart from
    its knob values, so a session started from another configuration of the same kernel (the next version,
    after the loop wrote a winner) serves what the earlier one measured. ``base_source`` when the edit is
    refused."""
    first = next(iter(space.configs()), None)
    made = editor(first) if first is not None else base_source
    return made if isinstance(made, str) else base_source


def _first_best(
    settings: EvaluatorSettings, written_us: float | None, record: SessionRecord, current: Config | None
) -> EvaluatorSettings:
    """``settings`` with the cut's first best (:attr:`EvaluatorSettings.first_best_us`): the settings' own, else
    ``written_us`` (the gate's latency of the version being tuned, on the primary shape), else the current
    configuration's latency a resumed session's record serves (it is not timed again, so without it the first
    candidate timed would have no best to be cut against)."""
    if settings.first_best_us is not None:
        return settings
    if written_us is not None and written_us > 0:
        return settings.model_copy(update={"first_best_us": written_us})
    if current is None:
        return settings
    held = record.served().get(current.key())
    if held is None or held.outcome is not Outcome.OK or held.cut_slow or held.latency_us is None:
        return settings
    return settings.model_copy(update={"first_best_us": held.latency_us})


def session_parts(
    source: str,
    problem: Problem,
    space: Space,
    *,
    env: Mapping[str, str] | None = None,
    gpu: str | None = None,
    shapes: Sequence[ProblemShape] = (),
) -> dict[str, Any]:
    """What a session's measurements depend on, part by part (:data:`~kernelopt.tuning.new_session.PART_WORDS`):
    kernel.py's code apart from its knob values (:func:`canonical_source`) and its comments (:func:`_code_of`),
    reference.py's text, the problem (device, sizes, shape, tolerance), the space (knobs and fit rules), the shapes
    checked and timed, the GPU's name and the workers' variables that decide a result (:data:`KEY_VARIABLES` of
    ``env``: the interpreter setting, the visible devices, the CPU threads). Their digest is the session key
    (:func:`~kernelopt.tuning.new_session.key_of`, the session folder's name): a session run again with all of it
    unchanged serves what its record holds; anything else starts a new record."""
    return {
        "shapes": [s.label() for s in shapes],
        "kernel": hashlib.sha256(_code_of(source).encode("utf-8")).hexdigest(),
        "reference": hashlib.sha256(problem.reference_py.read_bytes()).hexdigest(),
        "carried": carried_digest(problem.kernel_py),
        "problem": problem.model_dump(mode="json", exclude={"kernel_py", "reference_py"}),
        "space": space.fingerprint,
        "launch": space.launch,
        "gpu": gpu,
        "environment": {k: (env or {}).get(k) for k in KEY_VARIABLES},
    }


def _code_of(source: str) -> str:
    """``source``'s tokens less its comments and blank lines (a ``# kernelopt:`` marker kept, a line in its own
    words): a note the user wrote into kernel.py while a tune ran, which that tune keeps, started a new session on
    the rerun after a Ctrl-C, every candidate timed again, where the interrupted tune had said "a rerun resumes from
    it" (newuser21 n161). Source that does not tokenize is taken whole."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source
    kept = [
        f"{t.type}:{t.string}"
        for t in tokens
        if t.type != tokenize.NL
        and (t.type != tokenize.COMMENT or t.string.lstrip("#").strip().startswith("kernelopt:"))
    ]
    return "\n".join(kept)


def tune_folder(
    prepared: PreparedFolder,
    *,
    evidence: KernelEvidence | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    began_s: float | None = None,
) -> FolderTuning:
    """Run one tuning session on ``prepared`` (see the module docstring).

    Args:
        prepared: from :func:`prepare_folder`.
        evidence: Stage 1's evidence of the kernel: its favoured configurations are seeds.
        on_progress: called after each round (a progress bar).
        began_s: the ``time.monotonic()`` second the command began its work (``kernelopt tune``): the budget's wall
            counts what came before the session, discovery and the workers' start, as spent (late49's l191);
            ``None``: the wall is the session's own.

    Raises:
        ProblemDoesNotFit: the problem does not fit on the device (exit 3), before any candidate runs.
        ProblemError: reference.py fails on the problem (exit 2).
        WorkerStartError: a worker could not start (exit 3).
        RecordError: the session folder holds a record of another space.
    """
    req, space = prepared.request, prepared.space
    prepared.session_dir.mkdir(parents=True, exist_ok=True)
    # no worker of this session runs yet, and its run lock keeps any other off: a build lock there is an interrupted
    # session's, which every candidate of the rerun waited on until its limit (n97)
    release_build_locks(prepared.session_dir / EXTENSIONS_DIR)
    if prepared.discovery_cache is not None:  # what discovery's run compiled, not compiled again (l186)
        seed_cache(prepared.discovery_cache, prepared.session_dir)
    if req.out is None:
        _ignored_by_git(Path(req.folder) / DEFAULT_OUT.parent)
    header = RecordHeader.for_space(
        space,
        device=req.device,
        gpu=prepared.gpu,
        versions={"kernelopt": __version__},
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        key_parts=dict(prepared.key_parts),
        folder=str(Path(req.folder).resolve()),
    )
    earlier = None if prepared.record_path.exists() else latest_beside(prepared.record_path, header.folder)
    record = SessionRecord.open(prepared.record_path, header)
    editor = _remembered(session_editor(prepared))
    evaluator = _session_evaluator(prepared, editor, record)
    # a literal that runs as the kernel as written on every shape timed (a computation of one value over them, or
    # the values of a guard an earlier write left): the current point, not timed twice
    guarded = guarded_twin(prepared)
    twins = _twins(prepared) or ([guarded] if guarded is not None else [])
    listed_now = list_configs(prepared)  # a keyed list runs each of them somewhere: each one is timed
    # the kernel as written is what the cut's best is measured against: never cut itself
    evaluator.never_cut(c.key() for c in (space.current(), *twins, *listed_now) if c is not None)
    if (whole := whole_list_configs(prepared)) and (current := space.current()) is not None:
        evaluator.runs_whole_list(current.key(), whole)  # its requests' limits count the list it runs (l102)
    budget = prepared.budget.build(space.size.count, time.monotonic)
    if began_s is not None:
        budget.count_before(time.monotonic() - began_s)
    with evaluator:
        if isinstance(evaluator, ShapesEvaluator) and _served_on_fewer(record, space.current(), evaluator):
            evaluator.seek_set_aside()  # resumed: the entries the original cannot run, set aside as the record's were
        result = tune(
            space,
            evaluator,
            budget=budget,
            seeds=[*listed_now, *evidence_seeds(space, evidence)],
            strategy=req.strategy,
            record=record,
            rng_seed=req.rng_seed,
            on_progress=on_progress,
            batch_size=req.batch_size,
            retime_top=req.retime_top,
            excluded=excluder(req.exclude),
            twins=twins,
            screen=lambda c: refusal.reason if isinstance(refusal := editor(c), Refusal) else None,
            originals=listed_now,
            tail=session_tail(prepared, budget.wall_s).need_s,  # the checks below keep their time (leftovers19's l1)
        )
        judged = _judged(prepared, result, evaluator, guarded, listed_now, record, TailWall.of(budget))
        return replace(judged, record_aside=record.aside_line() or new_session_line(earlier, prepared.key_parts))


def session_tail(prepared: PreparedFolder, wall_s: float) -> TailCost:
    """How the checks after ``prepared``'s search are estimated (:class:`~kernelopt.tuning.tail_wall.TailCost`): its
    ``SHAPES`` entries, and whether its pick is compiled for a target (:func:`session_target`)."""
    return TailCost(entries=len(prepared.shapes), target=session_target(prepared)[0] is not None, wall_s=wall_s)


def _served_on_fewer(record: SessionRecord, current: Config | None, evaluator: ShapesEvaluator) -> bool:
    """Whether the record serves the kernel as written timed on fewer entries than ``evaluator`` times: an earlier run
    set aside an entry it cannot run (:meth:`ShapesEvaluator.seek_set_aside` finds it again before the rounds, where
    it costs one check of the original; a record that set none aside costs nothing)."""
    served = record.served().get(current.key()) if current is not None else None
    if served is None or not served.outcome.ok:
        return False
    timed = set(served.latency_us_by_shape) or {evaluator.labels[0]}
    return bool(set(evaluator.labels) - evaluator.untimed - timed)


def _session_evaluator(
    prepared: PreparedFolder, editor: Apply, record: SessionRecord
) -> KernelEvaluator | ShapesEvaluator:
    """The session's evaluator: one bench worker's (:class:`KernelEvaluator`), or one per ``SHAPES`` entry
    (:class:`ShapesEvaluator`), its settings the request's with the first best the record or the caller knows, the
    fit's shared memory as the bound of a ``tl.dot``'s operands, and the author's screen."""
    req, space = prepared.request, prepared.space
    primary = ",".join(f"{k}={v}" for k, v in prepared.shapes[0].kwargs.items()) if prepared.shapes else "default"
    settings = _first_best(req.evaluator, req.written_latency_us.get(primary or "default"), record, space.current())
    if prepared.limits is not None and prepared.limits.shared_memory_bytes and settings.dot_bytes_limit is None:
        settings = settings.model_copy(update={"dot_bytes_limit": prepared.limits.shared_memory_bytes})
    if prepared.screen is not None and not prepared.screen.empty and settings.screen is None:
        settings = settings.model_copy(update={"screen": prepared.screen})
    if len(prepared.shapes) > 1:
        return ShapesEvaluator(
            prepared.problem,
            prepared.shapes,
            prepared.base_source,
            editor,
            session_dir=prepared.session_dir,
            settings=settings,
            env=prepared.env,
            untimed=prepared.idle,
            per_entry=prepared.keyed_list is not None,  # a config the autotuner skips at one key serves the others
            original=space.current(),  # an entry the kernel as written cannot run is set aside
        )
    return KernelEvaluator(
        prepared.problem,
        prepared.base_source,
        editor,
        session_dir=prepared.session_dir,
        settings=settings,
        env=prepared.env,
    )


def _judged(
    prepared: PreparedFolder,
    result: SessionResult,
    evaluator: KernelEvaluator | ShapesEvaluator,
    guarded: Config | None,
    listed_now: Sequence[Config],
    record: SessionRecord | None = None,
    wall: TailWall | None = None,
) -> FolderTuning:
    """The session judged (:func:`judge_session`), a pick refused at one entry alone judged again once re-timed there
    (:func:`retimed_at_refusal`), and a better pick's edit checked on the entries and by the net
    (:func:`_checked_edit`, with ``evaluator``'s workers still up); each within the session's stated wall time
    (``wall``: a phase it cannot fit is not run, and the verdict says so, :mod:`kernelopt.tuning.tail_wall`)."""
    # only a ShapesEvaluator sets entries aside (a KernelEvaluator times one entry)
    set_aside = evaluator.aside_lines() if isinstance(evaluator, ShapesEvaluator) else ()

    def judged(result: SessionResult) -> FolderTuning:
        return judge_session(
            prepared,
            result,
            guarded=guarded,
            listed_now=listed_now,
            check_notes=tuple(evaluator.check_notes),
            set_aside=set_aside,
        )

    tuning = judged(result)
    if isinstance(evaluator, ShapesEvaluator) and not listed_now and result.stop is not StopReason.INTERRUPTED:
        tuning = retimed_at_refusal(tuning, evaluator, judged, record, wall)
    if tuning.judgement.better and result.stop is not StopReason.INTERRUPTED:
        checked = _checked_edit(tuning, evaluator, wall)
        tuning = judge_as_written(checked)
        if (against := _against_original(tuning, evaluator, wall)) is not None:
            tuning = replace(judge_as_written(checked, against), against_original=against)
    return replace(tuning, timed_on=_timed_on(prepared, evaluator))


def _against_original(
    tuning: FolderTuning, evaluator: KernelEvaluator | ShapesEvaluator, wall: TailWall | None
) -> OriginalFigure | None:
    """A written retune's figure against the original computation its earlier guards fall back to, where they hold
    at an entry the session timed (:mod:`kernelopt.tuning.original_figure`, leftovers27 l131): the original and the
    text to be written re-timed side by side at each entry; ``None`` where nothing is written or the file runs the
    original at every entry (the session's figures are against it already)."""
    prepared, result, edit = tuning.prepared, tuning.result, tuning.edit
    if edit is None or edit.new_source is None or result.best_config is None or result.current_config is None:
        return None
    current = Config.of(result.current_config)
    now_runs = _runs_now(prepared, current)
    if now_runs is None or all(c == current for c in now_runs.values()):
        return None
    aside = evaluator.set_aside if isinstance(evaluator, ShapesEvaluator) else {}
    labels = prepared.in_user_order(s.label() for s in prepared.ran_shapes if s.label() not in aside)
    best = next((r for r in result.retimed if r.config == result.best_config and r.outcome.ok), None)
    need_s = 2 * ((best.bench_s or 0.0) if best is not None else 0.0)
    pick = Config.of(result.best_config)
    return time_against_original(evaluator, labels, prepared.base_source, edit.new_source, current, pick, wall, need_s)


def judge_as_written(tuning: FolderTuning, against: OriginalFigure | None = None) -> FolderTuning:
    """The session's figures as the written kernel's: where the edit's tuned guards (a pick's guard, a table's rows
    with the tests the guard joined to them) do not hold at a ``SHAPES`` entry, the written kernel runs the original
    there, and that entry's figure is the original's (:func:`~kernelopt.tunables.guard_holds.guard_run`, each test
    evaluated with the entry's launch values, :func:`_size_at`); the headline (the sum over the entries, the
    session's) and the judgement are of what the text runs at each entry, both in one round (:func:`same_round`). A
    write that runs the original at every entry timed is not written ("the guard holds at none of the sizes timed"),
    nor one no longer better so judged. Unchanged where nothing is written, the guards hold wherever the judgement
    had the pick run, or a test or a row cannot be read at an entry (late37: v119's "2.01x faster" of a guard
    ``n_cols % 8192 == 0`` holding at neither entry); a row whose test reads a size rebound after it otherwise than
    as that rebinding is named in the edit's note (late40's l75).

    A retune (kernel.py holds tuned guards already) is judged against what kernel.py runs now at each entry
    (:func:`_runs_now`: the session's current configuration ran as the file is, its guards and all), never against
    the original computation the guards fall back to, which the session did not time where they hold; where the two
    differ, the note names both (late41's l90: a retune's "3.00x" of ``BLOCK = 2048`` under ``n_cols % 2048 ==
    0``, where the file it replaced already ran ``BLOCK = 4096`` at 4096 columns, was 1.2x as written), with the
    written kernel's figure against the original computation where ``against`` holds it (re-timed side by side after
    the session, :func:`_against_original`; leftovers27 l131), else that there is none and why."""
    prepared, result, edit = tuning.prepared, tuning.result, tuning.edit
    if edit is None or result.best_config is None or result.current_config is None:
        return tuning
    current, table = Config.of(result.current_config), tuning.judgement.table
    now_runs = _runs_now(prepared, current)
    if now_runs is None:
        return tuning
    ifs = tuned_ifs(edit.new_source)
    if not ifs:  # the pick runs everywhere: the session's figures are the written kernel's
        return _noted(tuning, _retune_note(prepared, current, now_runs, against))
    plan = _table_plan(prepared, result.best_config, literal=_table_chosen(tuning)) if table else None
    if table and plan is None:  # one configuration where a table was judged: its figures are the session's
        return _noted(tuning, _retune_note(prepared, current, now_runs, against))
    served = _serving(tuning, *plan, _rows(tuning, *plan)) if plan is not None else {}
    judged: dict[str, Config] = {}
    runs: dict[str, Config] = {}
    for shape in prepared.ran_shapes:
        label = shape.label()
        ran = guard_run(edit.new_source, lambda name, shape=shape: _size_at(prepared, name, shape))
        if ran is None and (unread := unread_at_launch(edit.new_source)):  # said, not judged (l75)
            said = f"{tuning.edit_note}; " if tuning.edit_note else ""
            rows = "; ".join(unread)
            return replace(tuning, edit_note=f"{said}not checked as written: {rows} reads a size rebound after it")
        if ran is None or (table and label not in served):
            return tuning
        judged[label] = served.get(label, Config.of(result.best_config))
        runs[label] = _as_run(judged[label], ran, current)
    now_runs = {label: now_runs[label] for label in prepared.in_user_order(runs)}
    runs = {label: runs[label] for label in now_runs}
    retune = _retune_note(prepared, current, now_runs, against)
    if runs == judged:  # the pick runs wherever it was judged: the session's figures are the written kernel's
        return _noted(tuning, retune)
    if all(c == current for c in runs.values()):
        note = (  # the guard named, and what would let it be timed (fresh24 f23)
            f"the guard ({'; '.join(guard_tests(ifs))}) holds at none of the sizes timed ({', '.join(runs)}): not "
            "written; add a SHAPES entry where it holds to have it timed there"
        )
        judgement = tuning.judgement.model_copy(update={"better": False, "reason": note})
        return replace(tuning, judgement=judgement, edit=None, edit_note=note)
    # what ran as the file is (the current configuration and its guarded twin) is read where the file runs it alone
    as_is = {current, *([Config.of(tuning.guarded)] if tuning.guarded else [])}
    ran_as = {label: _ran_as(c, judged[label], now_runs[label], current, as_is) for label, c in runs.items()}
    pool = same_round(
        result.results, result.retimed, {*(c for c in ran_as.values() if c not in {*as_is, None}), current}
    )
    now = pool.get(current)

    def timed(label: str, config: Config | None) -> float | None:
        mine = now if config == current else pool.get(config) if config is not None else None
        return mine.latency_us_by_shape.get(label) if mine is not None else None

    by_shape = {label: (timed(label, c), timed(label, current)) for label, c in ran_as.items()}
    words = _said(runs, current)
    head = f"as written it runs {'; '.join(f'{c} at {label}' for label, c in words.items())}"
    shapes = tuple(_table_latency(s, by_shape.get(s.shape, (s.chosen_latency_us, None))[0]) for s in tuning.per_shape)
    elsewhere = {label: words[label] for label, c in runs.items() if c != judged[label]}
    choice = as_written(tuning.choice, shapes, elsewhere) if tuning.choice is not None else None
    mine_us = [m for m, _ in by_shape.values()]
    now_us = [n for _, n in by_shape.values()]
    min_gain = tuning.judgement.min_gain_pct
    if table:
        judgement = judge_table(by_shape, result, min_gain_pct=min_gain)
    elif any(m is None for m in mine_us) or any(n is None for n in now_us):
        untimed = ", ".join(label for label, (m, n) in by_shape.items() if m is None or n is None)
        judgement = GainJudgement(
            better=False, gain_pct=None, min_gain_pct=min_gain, reason=f"a configuration never timed there ({untimed})"
        )
    else:
        update = {"best_latency_us": total(mine_us), "current_latency_us": total(now_us)}  # type: ignore[arg-type]
        result = result.model_copy(update=update)
        judgement = judge_gain(result, min_gain_pct=min_gain)
    judgement = judgement.model_copy(update={"reason": f"{head}: {judgement.reason}"})
    tuning = replace(tuning, result=result, judgement=judgement, per_shape=shapes, choice=choice)
    if not judgement.better:
        return replace(tuning, edit=None, edit_note=f"{judgement.reason}: not written")
    return _noted(tuning, retune)


def _as_run(config: Config, ran: GuardRun, current: Config) -> Config:
    """``config`` as a text whose tuned guards are ``ran`` runs it at one entry: each name a guard sets at the value
    the guard that holds there gives it, else at ``current``'s (the literal the guards fall back to)."""
    values = {}
    for key, value in config.items():
        name = key.rpartition(":")[2]
        values[key] = ran.held.get(name, current.get(key, value)) if name in ran.guarded else value
    return Config.of(values)


def _ran_as(runs: Config, judged: Config, now: Config, current: Config, as_is: Collection[Config]) -> Config | None:
    """The configuration of the session whose result is what a written text runs at one entry (``runs``): the
    current one where the file as it is runs the same there (``now``); the one judged there, a candidate, where
    ``runs`` sets every knob it moves as it does (its candidate ran the earlier guards the text keeps over the knobs
    it leaves, ``knob_editor`` stripping only those over the knobs it moves); else ``runs`` itself where a candidate
    was timed as it; ``None`` where only the file as it is ran it (``as_is``: the current configuration and its
    guarded twin ran the file's guards, not the configuration they name)."""
    if runs == now:
        return current
    moved = [k for k, v in judged.items() if current.get(k) != v]
    if judged not in as_is and all(runs.get(k) == judged[k] for k in moved):
        return judged
    return None if runs in as_is else runs


def _runs_now(prepared: PreparedFolder, current: Config) -> dict[str, Config] | None:
    """What kernel.py as it is runs at each entry timed: ``current`` where it holds no tuned guard, else ``current``
    as its guards set it there (the session timed the file as it is as the current configuration); ``None`` where
    a guard of it cannot be read at an entry."""
    if not tuned_ifs(prepared.base_source):
        return {shape.label(): current for shape in prepared.ran_shapes}
    runs = {}
    for shape in prepared.ran_shapes:
        ran = guard_run(prepared.base_source, lambda name, shape=shape: _size_at(prepared, name, shape))
        if ran is None:
            return None
        runs[shape.label()] = _as_run(current, ran, current)
    return runs


def _retune_note(
    prepared: PreparedFolder, current: Config, now_runs: Mapping[str, Config], against: OriginalFigure | None = None
) -> str | None:
    """Of a retune whose file runs other than the original computation at some entry: what the figures are measured
    against (kernel.py as it runs now, named), and the written kernel's figure against the original the guards fall
    back to (``against``, re-timed beside it after the session), or, which the session timed only where the guards do
    not hold, that there is no figure against it (and why); ``None`` where the file runs the original everywhere."""
    guarded = [label for label, c in now_runs.items() if c != current]
    if not guarded:
        return None
    name = prepared.problem.kernel_py.name
    said = _said(now_runs, current)
    where = "; ".join(f"{said[label]} at {label}" for label in prepared.in_user_order(said))
    figure = against if against is not None else OriginalFigure(current)
    return f"measured against {name} as it runs now ({where}); {figure.clause(guarded)}"


def _said(runs: Mapping[str, Config], current: Config) -> dict[str, str]:
    """What a text runs at each entry, in words: "the original" where it runs ``current``, else the configuration."""
    return {label: "the original" if c == current else config_text(c.as_dict()) for label, c in runs.items()}


def _noted(tuning: FolderTuning, note: str | None) -> FolderTuning:
    """``tuning`` with ``note`` after its edit's note and its judgement's reason (neither changed without one)."""
    if note is None:
        return tuning
    said = f"{tuning.edit_note}; " if tuning.edit_note else ""
    judgement = tuning.judgement.model_copy(update={"reason": f"{tuning.judgement.reason}; {note}"})
    return replace(tuning, edit_note=f"{said}{note}", judgement=judgement)


def _primary_evaluator(evaluator: KernelEvaluator | ShapesEvaluator) -> KernelEvaluator:
    """The primary entry's evaluator: the one whose bench worker timed first and checks every size of the net."""
    return evaluator.evaluators[0] if isinstance(evaluator, ShapesEvaluator) else evaluator


def _timed_on(prepared: PreparedFolder, evaluator: KernelEvaluator | ShapesEvaluator) -> str | None:
    """The device the session's bench worker timed on, by the name it gave (:attr:`FolderTuning.timed_on`)."""
    first = _primary_evaluator(evaluator)
    ready = first.ready
    if ready is None:
        return None
    return f"{ready.device_name} (Triton's interpreter)" if prepared.problem.interpreted else ready.device_name


def retimed_at_refusal(
    tuning: FolderTuning,
    evaluator: ShapesEvaluator,
    judged: Callable[[SessionResult], FolderTuning],
    record: SessionRecord | None = None,
    wall: TailWall | None = None,
) -> FolderTuning:
    """``tuning`` judged again (``judged``) once the pick and the current configuration are re-timed at the one entry
    that alone refused the pick, by a small margin or where the session's two rounds disagree there
    (:func:`~kernelopt.tuning.entry_retime.retime_refusal`: the pick there is the configuration that serves it,
    :func:`_judged_at`), its reason led by what the re-time measured; unchanged where no such re-time applies. Not
    re-timed where ``wall`` (the session's stated wall time) is spent: the refusal stands, its reason saying so."""
    refused = tuning.judgement.refused_at
    if refused is None:
        return tuning
    cut = None if wall is None else functools.partial(wall.cut, f"the re-time at {refused[0]}")
    again = retime_refusal(tuning.result, tuning.judgement, _judged_at(tuning, refused[0]), evaluator, record, cut)
    if again is None:
        return tuning
    result, said = again
    redone = judged(result) if result is not tuning.result else tuning
    return replace(
        redone, judgement=redone.judgement.model_copy(update={"reason": f"{said}; {redone.judgement.reason}"})
    )


def _judged_at(tuning: FolderTuning, label: str) -> dict[str, Value] | None:
    """The configuration judged at the shape ``label``: a keyed list's table row there (that shape's own best,
    :func:`judge_keyed_table`), the row a per-bucket table runs there (:func:`judge_choice`'s :func:`_serving`), else
    the one configuration judged (:func:`judge_one`)."""
    choice, prepared = tuning.choice, tuning.prepared
    if not (tuning.judgement.per_bucket and choice is not None and choice.kind is ChoiceKind.TABLE):
        return tuning.result.best_config
    if is_list_space(prepared.space.origins):
        return choice.table.get(label)
    plan = _table_plan(prepared, tuning.result.best_config, literal=_table_chosen(tuning))
    if plan is None:
        return None
    names, size = plan
    served = _serving(tuning, names, size, _rows(tuning, names, size)).get(label)
    return served.as_dict() if served is not None else None


def judge_session(
    prepared: PreparedFolder,
    result: SessionResult,
    *,
    guarded: Config | None = None,
    listed_now: Sequence[Config] = (),
    check_notes: tuple[str, ...] = (),
    set_aside: tuple[tuple[str, str], ...] = (),
) -> FolderTuning:
    """The session judged (module docstring), before its edit is made: per shape, one configuration or a per-bucket
    table in one round (:func:`shaped_choice`); a table that can be written judged as the table (:func:`judge_choice`,
    a keyed list's by its rows: :func:`judge_keyed_table`), one that cannot as the one configuration written in its
    place (:func:`judge_one`), one configuration by what its edit runs (:func:`judge_written`); against a keyed list
    where the kernel runs one (:func:`judge_against_list`). Pure: a recorded session's results replay through it."""
    tuning = FolderTuning(
        prepared,
        result,
        judge_gain(result, min_gain_pct=prepared.request.min_gain_pct),
        guarded=guarded.as_dict() if guarded is not None else None,
        check_notes=check_notes,
        set_aside=set_aside,
    )
    tuning = shaped_choice(tuning, result.retimed)
    tuning = replace(tuning, judgement=judge_gain(tuning.result, min_gain_pct=prepared.request.min_gain_pct))
    if tuning.choice is not None and tuning.choice.kind is ChoiceKind.TABLE:
        if table_unheld(tuning) is not None:
            tuning = judge_one(tuning)
        elif is_list_space(prepared.space.origins):
            tuning = judge_keyed_table(tuning)
        else:
            tuning = _table_or_one(tuning)
    else:
        tuning = judge_written(tuning)
    if listed_now:
        tuning = judge_against_list(tuning, listed_now)
    return tuning


def _table_or_one(tuning: FolderTuning) -> FolderTuning:
    """The per-bucket table judged (:func:`judge_choice`); where it holds the pick's literals (l9) and is not better,
    the one configuration judged as before l9 (:func:`judge_one`, the choice's line saying why no table), where that
    one is better: a table over literals adds a way to write the pick, never takes one away."""
    tabled = judge_choice(tuning)
    plan = _table_plan(tuning.prepared, tuning.result.best_config, literal=True)
    if tabled.judgement.better or plan is None or any(n in tuning.prepared.tabled for n in plan[0]):
        return tabled
    why = f"the per-bucket table over {', '.join(plan[0])} is not better ({tabled.judgement.reason})"
    assert tuning.choice is not None
    one = judge_one(replace(tuning, literals_held=False, choice=unheld(tuning.choice, why)))
    return one if one.judgement.better else tabled


def shaped_choice(tuning: FolderTuning, retimed: Sequence[Result]) -> FolderTuning:
    """``tuning`` with its per-shape figures and its choice between one configuration and a per-bucket table, both in
    one round of measurements (``retimed`` where it is the round, else the first: :func:`per_shape`). Where every
    shape's own best is one configuration timed on every shape in that round and the pick is another, that
    configuration is the pick, at its latency there (a table whose rows are all one configuration is one
    configuration: H100, 2026-12-06, ao_mx_dequant's keyed list judged in the first round beside the re-time's
    pick, "a per-bucket table" of ROW_TILE_SIZE=16, COL_TILE_SIZE=32, num_warps=16 at all three shapes was judged
    +8.9 % and the re-time's pick, 24 % slower than the list in that round, written in its place). A table no text
    can hold says so (:func:`table_unheld`, :func:`~kernelopt.tuning.shapes.unheld`)."""
    result = tuning.result
    if result.best_config is None:
        return replace(tuning, per_shape=tuple(per_shape(result.results, retimed, None, result.current_config)))
    shapes = per_shape(result.results, retimed, result.best_config, result.current_config)
    one = shared_best(shapes)
    # its latency in the round the current configuration's is read in (a current the re-time left out is compared
    # by the first round's figures: session._current_left_out)
    now = [Config.of(result.current_config)] if result.current_config is not None else []
    mine = same_round(result.results, retimed, now).get(Config.of(one)) if one is not None else None
    if mine is not None and mine.latency_us is not None and Config.of(one) != Config.of(result.best_config):
        result = result.model_copy(update={"best_config": mine.config, "best_latency_us": mine.latency_us})
        shapes = per_shape(result.results, retimed, result.best_config, result.current_config)
    tuning = replace(tuning, result=result, per_shape=tuple(shapes), choice=choose(shapes))
    why = table_unheld(tuning)
    if why is not None and tuning.choice is not None:
        tuning = replace(tuning, choice=unheld(tuning.choice, why))
    return tuning


def judge_one(tuning: FolderTuning, against: str = "the current configuration") -> FolderTuning:
    """The one configuration written where the session's per-bucket table cannot be (:func:`table_unheld`), judged on
    its own shape by shape against ``against`` (:func:`~kernelopt.tuning.session.judge_table`: by the minimum gain on
    some shape, slower by no more than that on any), from its own figures in :attr:`FolderTuning.per_shape`. A re-time
    too noisy to rank the fastest few is judged so only where the pick also beats the current configuration in enough
    re-timed rounds (:func:`~kernelopt.tuning.session.judge_gain`'s sign test), as one configuration judged alone is
    (n82: a pick 13x faster than BLOCK=256 was kept out, "the current configuration stays: too noisy to rank")."""
    result = tuning.result
    by_shape = {s.shape: (s.chosen_latency_us, s.current_latency_us) for s in tuning.per_shape}
    beaten = judge_gain(result, min_gain_pct=tuning.judgement.min_gain_pct) if result.noisy is not None else None
    if beaten is not None and beaten.better:  # the fastest few tie, yet the pick beats the kernel as written (n82)
        result = result.model_copy(update={"noisy": None})
    judgement = judge_table(
        by_shape,
        result,
        min_gain_pct=tuning.judgement.min_gain_pct,
        what=config_text(result.best_config),
        against=against,
    )
    if beaten is not None and beaten.better and judgement.better:
        judgement = judgement.model_copy(update={"reason": f"{judgement.reason}; {beaten.reason}"})
    return replace(tuning, judgement=judgement)


def judge_keyed_table(tuning: FolderTuning) -> FolderTuning:
    """A keyed autotune list's per-bucket table (the list pinned to the shapes' own bests: :func:`_keyed_list_edit`)
    judged shape by shape against the current configuration, each shape's row its own best there
    (:func:`~kernelopt.tuning.session.judge_table`), and :attr:`FolderTuning.per_shape` giving the rows' figures as the
    chosen ones; :func:`judge_against_list` judges it against the list's pick at each key where the session timed the
    whole list (a longer list is judged as its one entry: :func:`list_note`). Before, such a table was judged by the
    one best configuration's total and written as the table."""
    by_shape = {s.shape: (s.best_latency_us, s.current_latency_us) for s in tuning.per_shape}
    judgement = judge_table(by_shape, tuning.result, min_gain_pct=tuning.judgement.min_gain_pct)
    shapes = tuple(_table_latency(s, s.best_latency_us) for s in tuning.per_shape)
    return replace(tuning, judgement=judgement, per_shape=shapes)


def _ignored_by_git(folder: Path) -> None:
    """A ``.gitignore`` of ``*`` in ``folder`` (the default session folders' ``.kernelopt/`` beside a user's kernel),
    unless one is there: in a git repository the records, candidates, logs and plots showed as ``?? .kernelopt/``,
    one ``git add .`` from a commit (second fault trial, t11; pytest's and ruff's caches do the same)."""
    ignore = folder / ".gitignore"
    if not ignore.exists():
        atomic_write_text(ignore, "# kernelopt's session folders (records, candidates, logs, plots): not for git\n*\n")


def guarded_twin(prepared: PreparedFolder) -> Config | None:
    """The configuration kernel.py runs where the guards an earlier write left hold (``if N % 64 == 0:  #
    kernelopt: tuned`` / ``BLOCK_N = 64``: the current configuration with ``BLOCK_N=64``), when writing it gives
    kernel.py as it is; ``None`` when kernel.py holds no such guard.

    A session on the written file knows it from the current configuration's result and never times it apart: the
    two are one kernel, and two timings of one kernel differ only by noise (a retune of mm_nomask claimed that
    noise as a gain and wrote the same guard again). Discovery reads the literal above a guard as the knob's
    value, so the current configuration says the fallback."""
    space = prepared.space
    current = space.current()
    values = guarded_values(prepared.base_source)
    if current is None or not values or not space.literal(current):
        return None
    moved = {n: v for n, v in values.items() if n in space.names}
    twin = current.with_values(moved)
    if not moved or twin == current or space.problems(twin):
        return None
    try:
        edit, _ = _config_edit(prepared, twin)
    except KerneloptError:  # an edit the tunables refuse: no twin to know
        return None
    if edit is None or keep_newlines(prepared.base_source, edit.new_source) != prepared.base_source:
        return None
    return twin


def _remembered(apply: Apply) -> Apply:
    """``apply`` that makes each configuration's source once: the session's screen (a refusal is set aside before
    it is timed) and the evaluator ask for the same one."""
    made: dict[Config, str | Refusal] = {}

    def remembered(config: Config) -> str | Refusal:
        if config not in made:
            made[config] = apply(config)
        return made[config]

    return remembered


def _twins(prepared: PreparedFolder) -> list[Config]:
    """The configurations that run as the kernel as written on every shape the session times: some or all of its
    computed knobs at the literal their computation gives there, the same on each (one shape timed, or a
    computation that gives one value over them), as the run told, the others at their computation (breaker19 d3:
    FlagAttention's ``BLOCK_M, BLOCK_N, ... = get_fwd_config(...)``, 16 and 128 at every entry, timed
    ``BLOCK_M=16`` beside ``BLOCK_N`` computed as a second sample of the original, 1.21x "faster" by noise and
    written); none when no knob is computed, a run did not tell, or no computation gives one value over them."""
    space = prepared.space
    current = space.current()
    if current is None or space.literal(current):
        return []
    names = [n for n, v in current.items() if is_computed(v)]
    by_shape = computed_by_shape(prepared)
    told = [by_shape.get(s.label()) for s in prepared.shapes]
    if len(prepared.shapes) == 1 and told[0] is None:  # one shape: the value the run gave (its only shape)
        told = [{n: space.origins[n].value for n in names if space.origins[n].value is not None}]
    known = [t for t in told if t is not None]
    if not known or len(known) != len(told):
        return []
    first = known[0]
    one = {n: first[n] for n in names if n in first and all(n in t and t[n] == first[n] for t in known)}
    return [
        twin
        for k in range(len(one), 0, -1)  # the whole literal configuration first
        for chosen in itertools.combinations(one, k)
        if not space.problems(twin := current.with_values({n: one[n] for n in chosen}))
    ]


def judge_choice(tuning: FolderTuning) -> FolderTuning:
    """A session whose choice is a per-bucket table is judged by the table it writes (:func:`judge_table`): at
    each shape, the measured latency of the configuration its size runs once the table is written
    (:func:`_serving`) against the current configuration's there, both from one round of measurements
    (:func:`~kernelopt.tuning.shapes.same_round`); what runs at a shape and was never timed there judges the table
    "not timed". Unchanged when no table can be written (no setting computed from the size, an autotune list, a
    size the entries do not name: one configuration, or nothing, is written, :func:`shaped_edit`)."""
    prepared, result = tuning.prepared, tuning.result
    plan = _table_plan(prepared, result.best_config, literal=_table_chosen(tuning))
    if plan is None:
        return tuning
    names, size = plan
    table = _rows(tuning, names, size)
    served = _serving(tuning, names, size, table)
    current = Config.of(result.current_config) if result.current_config is not None else None
    pool = same_round(result.results, result.retimed, [c for c in (*served.values(), current) if c is not None])
    now = pool.get(current) if current is not None else None
    same = _runs_the_computation(tuning, names, size, table[0])
    by_shape: dict[str, tuple[float | None, float | None]] = {}
    for label, config in served.items():
        mine = now if label in same else pool.get(config)
        by_shape[label] = (
            mine.latency_us_by_shape.get(label) if mine is not None else None,
            now.latency_us_by_shape.get(label) if now is not None else None,
        )
    shapes = tuple(_table_latency(s, by_shape.get(s.shape, (None, None))[0]) for s in tuning.per_shape)
    tuning = replace(tuning, per_shape=shapes)
    if served and len(same) == len(served) and now is not None:
        judgement = GainJudgement(
            better=False,
            gain_pct=0.0,
            min_gain_pct=tuning.judgement.min_gain_pct,
            reason="the per-bucket table gives every shape checked the values the computation gives there: the "
            "same kernel, nothing to gain (a difference in their timings is noise)",
            table=True,
        )
        return replace(tuning, judgement=judgement)
    judgement = judge_table(by_shape, result, min_gain_pct=tuning.judgement.min_gain_pct)
    untimed: dict[Config, list[str]] = {}
    for label, (row_us, _) in by_shape.items():
        if row_us is None:
            untimed.setdefault(served[label], []).append(label)
    if untimed and not judgement.better and result.noisy is None and result.best_latency_us is not None:
        runs = "; ".join(f"{config_text(c)} at {', '.join(labels)}" for c, labels in untimed.items())
        why = f"the per-bucket table would run {runs}, never timed there: no latency is claimed for it"
        judgement = judgement.model_copy(update={"reason": why})
    return replace(tuning, judgement=judgement)


def judge_written(tuning: FolderTuning) -> FolderTuning:
    """One configuration judged by what its edit runs. A pick that moves a computed setting no table over the size
    holds (num_warps computed from BLOCK_SIZE beside a table over N stays at its computation, :func:`shaped_edit`)
    is written without that move: another configuration, judged by its own timing in one round with the current's
    (it becomes the pick) where the session timed it, else not better and no latency claimed (honest12: the H100's
    pick of 32 warps for xformers' RMS norm, written as the computation's). Unchanged when the edit writes the pick
    as it is."""
    prepared, result = tuning.prepared, tuning.result
    best = result.best_config
    plan = _table_plan(prepared, best) if best is not None else None
    if best is None or plan is None:
        return tuning
    names, size = plan
    written = Config.of({**best, **_written_others(tuning, names)})
    if written == Config.of(best):
        return tuning
    dropped = [k for k in prepared.tabled if k in best and k not in names and not is_computed(best[k])]
    if _same_where_timed(prepared, best, names, dropped):
        return tuning
    reads = sorted({r for k in dropped for r in prepared.tabled[k].size_names}) or ["no size"]
    head = (
        f"{config_text(best)} is written as {config_text(written)} ({', '.join(dropped)} kept at its computation: it "
        f"reads {', '.join(reads)}, not {size})"
    )
    current = Config.of(result.current_config) if result.current_config is not None else None
    pool = same_round(result.results, result.retimed, [c for c in (written, current) if c is not None])
    mine = pool.get(written)
    min_gain = tuning.judgement.min_gain_pct
    if mine is None or mine.latency_us is None:
        why = f"{head}, a configuration never timed: no latency is claimed for it"
        return replace(tuning, judgement=GainJudgement(better=False, gain_pct=None, min_gain_pct=min_gain, reason=why))
    now = pool.get(current) if current is not None else None
    now_us = now.latency_us if now is not None else result.current_latency_us
    alt = _picked(tuning, written.as_dict(), mine.latency_us, now_us, min_gain)
    return replace(alt, judgement=alt.judgement.model_copy(update={"reason": f"{head}; {alt.judgement.reason}"}))


def _picked(
    tuning: FolderTuning, config: dict[str, Value], latency_us: float | None, current_us: float | None, min_gain: float
) -> FolderTuning:
    """``tuning`` as if its session had picked ``config`` at ``latency_us`` against the current configuration's
    ``current_us`` (both of one round): judged against it (:func:`judge_gain`), and its shapes' figures."""
    update = {"best_config": config, "best_latency_us": latency_us, "current_latency_us": current_us}
    alt = tuning.result.model_copy(update=update)
    shapes = per_shape(alt.results, alt.retimed, alt.best_config, alt.current_config)
    return replace(tuning, result=alt, judgement=judge_gain(alt, min_gain_pct=min_gain), per_shape=tuple(shapes))


def _same_where_timed(
    prepared: PreparedFolder, best: Mapping[str, Value], names: Sequence[str], dropped: Sequence[str]
) -> bool:
    """Whether the pick with ``dropped`` at their computation runs the pick itself at every shape the session ran:
    there the computation gave the pick's values of ``dropped`` (the run told them), and where it reads one of the
    table's ``names`` (num_warps from BLOCK_SIZE), from the values the pick gives them (computed, or the same
    literal). Then the pick's timing is the written kernel's (a literal the session timed as the computation's
    twin)."""
    ran = computed_by_shape(prepared)
    reads = {n for k in dropped for n in names if n in prepared.tabled[k].size_names}
    for shape in prepared.ran_shapes:
        told = ran.get(shape.label(), {})
        if not all(is_computed(best[n]) or same_value(best[n], told.get(n)) for n in reads if n in best):
            return False
        if not all(same_value(best[k], told.get(k)) for k in dropped):
            return False
    return bool(prepared.ran_shapes)


#: The most configurations a keyed autotune list may hold for a session to time each of them as the kernel as
#: written whatever its budget: a per-bucket table ``tune`` writes holds one per shape; a longer list is timed
#: whole when the session's candidate budget holds it (:func:`list_most`).
LIST_CURRENT_MOST = 8


def list_most(prepared: PreparedFolder) -> int:
    """The most distinct configurations of a keyed autotune list a session times each of as the kernel as written:
    :data:`LIST_CURRENT_MOST`, or the session's candidate budget where it holds more (each entry is seeded and
    never cut, so a list longer than the budget would spend it all on the list)."""
    return max(LIST_CURRENT_MOST, prepared.budget.candidates(prepared.space.size.count))


def list_configs(prepared: PreparedFolder) -> list[Config]:
    """The configurations of the keyed autotune list the kernel runs now (:attr:`PreparedFolder.keyed_list`), as
    the space's (an option the interpreter ignores left out), when it holds 2 to :func:`list_most` distinct ones and
    each is a configuration of the space; ``[]`` otherwise.

    Its autotuner picks one of them at each key, so the kernel as written is no one configuration: a per-bucket
    table ``tune`` wrote (``configs=[BLOCK 1024, BLOCK 8192], key=["n"]``) ran 8192 on the large shape, where the
    next session's current configuration, the list's first entry, was timed at 1024 on every shape and a table
    differing by noise was written as "3.7x faster than the current"."""
    out = _list_entries(prepared)
    return out if 2 <= len(out) <= list_most(prepared) else []


def session_editor(prepared: PreparedFolder) -> Apply:
    """What makes each configuration's source in ``prepared``'s session (:func:`knob_editor`): a write the guard
    refuses is refused, and the current configuration pinned where :func:`pins_current` says."""
    space = prepared.space
    return knob_editor(
        prepared.base_source,
        limits=prepared.limits,
        kernel=space.kernel,
        gpu=prepared.gpu,
        evaluation=prepared.evaluation,
        origins=space.origins,
        pin_current=pins_current(prepared),
        writable=True,
        found=prepared.found,
    )


def pins_current(prepared: PreparedFolder) -> bool:
    """Whether the session runs its current configuration as the others, its autotune list pinned to that one
    configuration: in Triton's interpreter (the list as written cannot run there), and where the keyed list is judged as
    a list (:func:`list_configs`): each of its configurations is then seeded, checked and timed pinned on every shape,
    and the current latency at each shape is the fastest of them (:func:`judge_against_list`), so the list as written
    is the same computation, its autotuner's pick among those. Run whole on a GPU, each of its requests compiled and
    benchmarked every configuration at each new key under one candidate's limit: fla's eight-config matmul's first check
    had no reply in the 25.6 s its 60 s wall had left after the current's own compile of 33.4 s (the H100, 2026-12-07;
    docs/faults.md l101), and its figure was the autotuner's pick, not the pinned configuration
    :func:`list_as_written` compares it with. A list judged as one configuration (longer than :func:`list_most`)
    still runs as written on a GPU: its current is the list, not one of its entries."""
    return prepared.problem.interpreted or bool(list_configs(prepared))


def whole_list_configs(prepared: PreparedFolder) -> int:
    """How many configs the current configuration's source runs whole, the autotune list as written, where the session
    does not pin it (:func:`pins_current`: a list on a GPU judged as one configuration) and it holds several: Triton
    compiles and benchmarks each at every new key, so its requests' limits count them
    (:meth:`~kernelopt.tuning.kernel_evaluator.KernelEvaluator.runs_whole_list`; docs/faults.md l102); 0 otherwise."""
    listed = prepared.listed
    if listed is None or len(listed.configs) < 2 or pins_current(prepared):
        return 0
    return len(listed.configs)


def list_note(prepared: PreparedFolder) -> str | None:
    """The line that says a keyed autotune list is judged as one configuration: it holds more distinct
    configurations than :func:`list_most`, so the current configuration is one entry on every shape (its
    autotuner's pick at the first shape, else its first), not what the autotuner picks at each key (tunegaps11);
    else the line naming the list's configurations the fit leaves out of the current (:func:`list_unfit`); ``None``
    otherwise."""
    out = _list_entries(prepared)
    most = list_most(prepared)
    if len(out) <= most:
        return list_unfit(prepared)
    return (
        f"the keyed autotune list holds {len(out)} distinct configurations, more than the {most} a session of this "
        "budget times as the kernel as written: the current configuration is one entry (its autotuner's pick at the "
        f"first shape, else its first) on every shape, not what the autotuner picks at each key, and a gain is over "
        f"that entry (--budget {len(out)} or more times "
        "the whole list and judges against its pick at each shape)"
    )


def _list_entries(prepared: PreparedFolder) -> list[Config]:
    """The distinct configurations of the keyed autotune list the kernel runs (:func:`list_configs`), in the list's
    order; ``[]`` when there is none or one of them is no configuration of the space's knobs. One the space's fit
    refuses (a tile larger than every entry's problem, one past the GPU's resources) is left out, as the session
    never times it (:func:`list_unfit`): Megatron's MLA RoPE lists ``BLOCK_H`` 1 to 128, and at entries of 2 to 16
    heads its 128 was no configuration of the space, so the whole list was judged as its first entry, "the current
    BLOCK_H=1" at 4.16 s where the list as written runs 16 at about 0.1 s (breaker22's p6)."""
    listed = prepared.keyed_list
    if listed is None:
        return []
    space = prepared.space
    out: list[Config] = []
    for entry in listed.configs:
        values = entry.knob_values()
        if any(n not in values for n in space.names):
            return []
        config = Config.of({n: values[n] for n in space.names})
        if space.illegal(config):
            return []
        if config not in out and not space.fit_problems(config):
            out.append(config)
    return out


def list_unfit(prepared: PreparedFolder) -> str | None:
    """The line naming the keyed list's configurations the space's fit refuses, which the current latency (the
    fastest of the others at each shape) leaves out (:func:`_list_entries`); ``None`` where there is none or the list
    is not judged as a list."""
    listed = prepared.keyed_list
    if listed is None or not list_configs(prepared):
        return None
    space = prepared.space
    unfit: dict[Config, tuple[str, ...]] = {}
    for entry in listed.configs:
        values = entry.knob_values()
        config = Config.of({n: values[n] for n in space.names if n in values})
        why = space.fit_problems(config) if not space.illegal(config) else ()
        if why and config not in unfit:
            unfit[config] = why
    if not unfit:
        return None
    said = "; ".join(f"{config_text(c.as_dict())} ({why[0]})" for c, why in unfit.items())
    return (
        f"the keyed list's {said}: never timed here, so the current latency at each shape is the fastest of its "
        "other configurations'"
    )


def _list_count(prepared: PreparedFolder | None, distinct: int) -> str:
    """``its 6 configs``: how many configurations the keyed list holds, as its author wrote it and, where fewer are
    distinct in the knobs searched, how many are (newuser18's n112: a list of 24, six tiles times four ``num_warps``,
    was "its 6 configs" in Triton's interpreter, which ignores the launch options)."""
    listed = prepared.keyed_list if prepared is not None else None
    written = len(listed.configs) if listed is not None else distinct
    if written <= distinct:
        return f"its {distinct} configs"
    assert prepared is not None  # written > distinct: a list was read
    why = (
        " on the CPU, where Triton's interpreter ignores num_warps and num_stages"
        if prepared.problem.interpreted
        else " in the knobs searched"
    )
    return f"its {written} configs, {distinct} distinct{why},"


def _failed_throughout(results: Sequence[Result], config: Config) -> bool:
    """Whether ``config`` ran in the session and failed to compile wherever it ran (a compile a GPU refuses, the
    kernel's own ``tl.static_assert``, a fit it cannot make), as its autotuner skips it: never timed on any shape.
    One that ran and failed otherwise (no reply in time under load) is no such config: the kernel as written may run
    it."""
    ran = [r for r in results if Config.of(r.config) == config and r.outcome is not Outcome.NOT_RUN_BUDGET]
    return bool(ran) and all(r.outcome in _UNCOMPILED and not timed_in_part(r) for r in ran)


#: the outcomes of a config its autotuner skips (Triton's ``OutOfResources``, ``CompileTimeAssertionFailure``)
_UNCOMPILED = frozenset({Outcome.COMPILE_ERROR, Outcome.INVALID})


def judge_against_list(tuning: FolderTuning, configs: Sequence[Config]) -> FolderTuning:
    """``tuning`` judged shape by shape against the keyed list the kernel runs now (:func:`list_configs`): at each
    shape the current latency is the fastest of the list's configurations there (its autotuner's pick), and what
    would be written (each shape's own best for a table, else the one best) is judged against it
    (:func:`~kernelopt.tuning.session.judge_table`). Unchanged when a configuration of the list was not timed on
    every shape; one its author's screen set aside at a shape is left out there, as the autotuner skips it
    (leftovers10), and so is one that failed wherever it ran (newuser14's n76: a list of BLOCK 16, 32 and 512 whose 32
    fails the kernel's ``tl.static_assert`` was judged against its first entry, 16, "the current BLOCK=16", where the
    kernel as written runs 512). Both sides from one round (:func:`~kernelopt.tuning.shapes.same_round`): where the
    re-time did not take every configuration of the list, the first measurements, the shapes' own bests among them
    too."""
    result = tuning.result
    listed = tuple(c.as_dict() for c in configs)
    failed = [c for c in configs if _failed_throughout(result.results, c)]
    configs = [c for c in configs if c not in failed]
    if result.best_config is None or not configs:
        return tuning
    retimed = retime_round(result.retimed, configs, partly=True)
    pool = same_round(result.results, retimed, partly=True)
    per, choice = tuning.per_shape, tuning.choice
    if not retimed:
        # the first round throughout: the shapes' bests, the choice between one configuration and a table (its
        # rows, its line), and the best's latency beside the list's (newuser11's n59: the re-time's choice said
        # 512 for 100 columns and "11.0 % slower" beside a first-round table of 256 and "+8.0 %", and the best's
        # re-timed 41 ms stood beside the list's first 89 ms)
        first = pool.get(Config.of(result.best_config))
        if first is not None:
            result = result.model_copy(update={"best_latency_us": first.latency_us})
        # the pick where every shape's own best is one configuration, and the choice's line: the first round's too
        redone = shaped_choice(replace(tuning, result=result), ())
        result, per = redone.result, redone.per_shape
        choice = redone.choice if choice is not None else None
    # a table no keyed list can hold is one configuration written in its place: judged as itself (honest15)
    table = table_unheld(replace(tuning, result=result, per_shape=per, choice=choice)) is None
    table = table and choice is not None and choice.kind is ChoiceKind.TABLE
    by_shape: dict[str, tuple[float | None, float | None]] = {}
    shapes = []
    lost = _lost_to_the_machine(result, [c for c in configs if c not in pool])
    if lost is not None:  # an entry the kernel as written runs has no figure: nothing is judged over the list
        return replace(tuning, judgement=tuning.judgement.model_copy(update={"better": False, "reason": lost}))
    if not per:
        return _one_shape_against_list(tuning, result, configs, listed)
    for shape in per:
        ran = [pool[c].latency_us_by_shape.get(shape.shape) if c in pool else None for c in configs]
        skipped = [c in pool and timed_in_part(pool[c]) for c in configs]  # where it has no latency, it was set aside
        if any(at is None and not aside for at, aside in zip(ran, skipped, strict=True)) or all(a is None for a in ran):
            return tuning
        now = min(at for at in ran if at is not None)
        by_shape[shape.shape] = (shape.best_latency_us if table else shape.chosen_latency_us, now)
        # a table's figure at each shape is its row's, that shape's own best (what the pinned list runs there)
        mine = _table_latency(shape, shape.best_latency_us) if table else shape
        shapes.append(mine.model_copy(update={"current_latency_us": now}))
    nows = [s.current_latency_us or 0.0 for s in shapes]
    labels = [s.shape for s in shapes]
    as_written = list_as_written(tuning.prepared, configs, pool, labels) if tuning.prepared is not None else None
    judgement = judge_table(
        by_shape,
        result,
        min_gain_pct=tuning.judgement.min_gain_pct,
        what=None if table else config_text(result.best_config),
        against=f"the current autotune list (its autotuner's pick of {_list_count(tuning.prepared, len(listed))} at "
        "each key"
        + (
            f"; {' | '.join(config_text(c) for c in failed)} failed here and "
            f"{'is' if len(failed) == 1 else 'are'} left out, as its autotuner skips a config that fails to compile)"
            if failed
            else ")"
        ),
    )
    result = result.model_copy(update={"current_latency_us": total(nows) or None})
    return replace(
        tuning,
        result=result,
        per_shape=tuple(shapes),
        choice=choice,
        judgement=judgement,
        current_list=listed,
        list_as_written=as_written,
    )


def _one_shape_against_list(
    tuning: FolderTuning, result: SessionResult, configs: Sequence[Config], listed: tuple[dict[str, Value], ...]
) -> FolderTuning:
    """:func:`judge_against_list` of a session that timed one shape (no per-shape figures, so no
    :func:`~kernelopt.tuning.shapes.same_round` pool): the current latency is the fastest of the list's
    configurations (its autotuner's pick) and the best is judged against it (:func:`judge_gain`), both from one
    round, the re-time where it took every one of them and the best, else the first measurements: the figures the
    table's rows say. Unchanged when one of them has no figure. (late23 z20: tb_streamk's list on the CPU was
    judged against its first entry, "+112.2 %", while the table's "current" said n/a, the sum over no shapes.)"""
    assert result.best_config is not None  # judge_against_list returned before
    best = Config.of(result.best_config)

    def timed(results: Sequence[Result]) -> dict[Config, float]:
        return {Config.of(r.config): r.latency_us for r in results if r.outcome.ok and r.latency_us is not None}

    pool = timed(result.retimed)
    if any(c not in pool for c in (*configs, best)):
        pool = timed(result.results)
    if any(c not in pool for c in (*configs, best)):
        return tuning
    update = {"best_latency_us": pool[best], "current_latency_us": min(pool[c] for c in configs)}
    result = result.model_copy(update=update)
    min_gain = tuning.judgement.min_gain_pct
    judgement = judge_gain(result, min_gain_pct=min_gain)
    return replace(tuning, result=result, judgement=judgement, current_list=listed, list_as_written=None)


def _lost_to_the_machine(result: SessionResult, untimed: Sequence[Config]) -> str | None:
    """Why nothing may be written over a keyed list one of whose entries (``untimed``, no figure in the round judged)
    failed for the machine's reason and again when timed alone (:func:`~kernelopt.tuning.session.lost_to_the_machine`,
    ``session._time_baseline``): the list's pick at each key is unknown, as :func:`untimed_current` says of one
    configuration, in its words (:func:`~kernelopt.tuning.session.no_figure_line`; honest18: vllm_add_rms_op's
    ``ROWS=1`` lost to the host's ``std::bad_alloc``); ``None`` otherwise."""
    for config in untimed:
        failed = lost_to_the_machine(result, config)
        if failed is not None:
            return no_figure_line(failed, "the current autotune list", config_text(config.as_dict()))
    return None


def list_as_written(
    prepared: PreparedFolder, configs: Sequence[Config], pool: Mapping[Config, Result], labels: Sequence[str]
) -> str | None:
    """Where the keyed list's own autotuner, run as written at a shape's key (discovery's run of the task at each
    ``SHAPES`` entry: :attr:`~kernelopt.tunables.model.ShapeSizes.picks`), picked another of its configurations than
    the fastest of them timed pinned alone there (``pool``), the line that says so: the session judges the list by
    its fastest configuration at each shape (:func:`judge_against_list`), which the list as written runs only where
    its autotuner's own benchmark picks it. ``None`` where every pick is the fastest, or no pick is known: on a GPU
    discovery runs a list of at most ``LIST_CURRENT_MOST`` configs pinned to its first (late49's l190), so none is
    known there unless its kernel adds into an output (its first run whole, for the first-call check)."""
    listed, evaluation = prepared.keyed_list, prepared.evaluation
    if listed is None or evaluation is None:
        return None
    names = prepared.space.names
    differ = []
    for label in labels:
        shape = next((s for s in prepared.shapes if s.label() == label), None)
        entry = next((e for e in evaluation.shape_sizes if shape is not None and e.shape == dict(shape.kwargs)), None)
        pick = entry.picks.get(listed.kernel) if entry is not None else None
        values = pick.knob_values() if pick is not None else {}
        if any(n not in values for n in names):
            continue
        picked = Config.of({n: values[n] for n in names})
        timed = {c: pool[c].latency_us_by_shape.get(label) for c in configs if c in pool}
        ran = {c: at for c, at in timed.items() if at is not None}
        if picked not in ran or not ran:
            continue
        fastest = min(ran, key=lambda c: ran[c])
        if picked != fastest:
            differ.append(
                f"at {label} its autotuner picked {config_text(picked.as_dict())} ({sig(ran[picked])} us pinned), the "
                f"fastest pinned is {config_text(fastest.as_dict())} ({sig(ran[fastest])} us)"
            )
    if not differ:
        return None
    return (
        f"the autotune list as written (its autotuner's own pick at each key, in discovery's run of the task on "
        f"{prepared.problem.device}): {'; '.join(differ)}; the current latency at each shape is the fastest pinned "
        "configuration's, which the list as written runs only where its autotuner picks it"
    )


def _table_latency(shape: ShapeBest, at: float | None) -> ShapeBest:
    """``shape`` with the chosen latency of what the table gives its size (``at``, as measured), in place of the
    one configuration's, which the table replaced (the comparison with a sweep reads it)."""
    return shape.model_copy(update={"chosen_latency_us": at, "within_pct": within_pct(at, shape.best_latency_us)})


def _runs_the_computation(tuning: FolderTuning, names: list[str], size: str, rows: list[Bucket]) -> set[str]:
    """The shapes at which the table's row gives the values the computation gives there (the run told them): the
    table runs the current kernel there, so its timing is the current configuration's, not a second sample of it
    that noise can set apart."""
    prepared = tuning.prepared
    ran = computed_by_shape(prepared)
    others = _written_others(tuning, names)
    current = tuning.result.current_config or {}
    if any(not same_value(current.get(k), v) for k, v in others.items()):
        return set()  # the pick moves another knob: no shape runs the current kernel
    out: set[str] = set()
    for shape in prepared.shapes:
        at = _size_at(prepared, size, shape)
        row = next((b for b in rows if at is not None and at <= b.upto), None)
        label = shape.label()
        if row is None or (label in ran and all(same_value(ran[label].get(n), row.values.get(n)) for n in names)):
            out.add(label)
    return out


def _checked_edit(
    tuning: FolderTuning, evaluator: KernelEvaluator | ShapesEvaluator, wall: TailWall | None = None
) -> FolderTuning:
    """The edit to write (:func:`shaped_edit`), checked once more on every shape the session ran (the written
    text is not a candidate when it holds a table) and by the net at sizes the ``SHAPES`` entries do not name
    (:mod:`kernelopt.tuning.net`); a failing or impossible edit keeps kernel.py as it is and says why (the judgement
    turns to "not better"). A pick whose edit fails its check on the entries (a table or a guard writes text the
    session did not time) or the net, or that a guard or a rule refuses to write (rounds13: pid_map_literal's
    ``BLOCK_N=32`` beside the kernel's own ``tl.cdiv(N, 64)``, where ``BLOCK_M=64`` beat the current and could be
    written), gives way to the next-best that still beats the current configuration (:func:`_next_picks`), checked
    on the entries and by the net alike, or nothing is written, the line naming the entry, the size or the rule. A
    per-bucket table whose text fails gives way row by row, the row serving the size it failed at (table14), or
    each entry's in turn where a guard or a rule refused it (seen14), to its bucket's next-best, and a table so
    written that fails again gives way by the same rule (:func:`_table_fallback`, leftovers15). Every check and the
    net within ``wall``, the session's stated wall time: a check it cannot fit is not run, and nothing is written
    (:class:`~kernelopt.tuning.tail_wall.WallSpent`, the line saying which), the net cut at it as at its own cap."""
    known: dict[str, tuple[Outcome, str | None]] = {}  # the original's outcomes at the net's sizes, found once
    # one time cap over every pick the net checks (moved past the accuracy comparison's runs: _past_compared)
    cap: NetCap | None = NetCap.of(tuning.result.wall_s, time.monotonic(), wall)
    try:
        edit, note, net, failed, at = _checked(tuning, evaluator, known, cap, wall)
        cap = _past_compared(cap, net, wall)
        # a guard or a rule refused the pick's edit: the next-best writable pick that beats the current instead
        refused = note.removesuffix(": not written") if edit is None and failed is None and note else None
        line = failed if failed is not None else refused
        for alt in _next_picks(tuning) if line is not None else []:
            # a next-best that fails too leaves the net the note names: the pick's (break18 b19)
            picked = f"{line}: {config_text(tuning.result.best_config)} not written"
            said = f"{picked}; the next-best, {config_text(alt.result.best_config)}"
            edit, _, alt_net, _, _ = _after(said, alt, evaluator, known, cap, wall)
            cap = _past_compared(cap, alt_net, wall)
            if edit is not None:
                net = alt_net
                note = f"{said}, passes: written instead"
                tuning = alt
                break
        if edit is None and line is not None:  # a table's rows give way (a single pick's next-best came above)
            tuning, edit, note, net = _table_fallback(tuning, evaluator, known, cap, (note, net, line, at), wall)
        # a table refused (not one whose text failed a check: the pick shares its rows' values) and none of its rows'
        # fallbacks written: the session's pick itself, one configuration for every size (q94)
        one = _as_one(tuning) if edit is None and failed is None and refused is not None else None
        if one is not None:
            pick = config_text(one.result.best_config)
            said = f"{line}: the per-bucket table not written; the pick for every size, {pick}"
            alt_edit, alt_note, alt_net, _, _ = _after(said, one, evaluator, known, cap, wall)
            cap = _past_compared(cap, alt_net, wall)
            if alt_edit is not None:
                tuning, edit, net = one, alt_edit, alt_net
                note = f"{said}, passes: written instead" + (f" ({alt_note})" if alt_note else "")
        if edit is None and failed is not None:
            note = f"{failed}: nothing written"
    except WallSpent as exc:  # a check the wall time left cannot fit: nothing is written unchecked
        note = f"not written: {exc}"
        judgement = tuning.judgement.model_copy(update={"better": False, "reason": note})
        cut = exc.net if isinstance(exc, NetUnchecked) else None  # the net that ran, for the verdict and --json
        return replace(tuning, judgement=judgement, edit=None, edit_made=True, edit_note=note, net=cut)
    except KeyboardInterrupt as exc:  # the session is unfinished: nothing is written
        update = {"stop": StopReason.INTERRUPTED, "interrupted_by": interrupt_signal(exc)}
        result = tuning.result.model_copy(update=update)
        return replace(tuning, result=result, edit=None, edit_made=True, edit_note="interrupted")
    judgement = tuning.judgement
    if edit is not None and keep_newlines(tuning.prepared.base_source, edit.new_source) == tuning.prepared.base_source:
        # the pick's write is kernel.py as it is (a guard an earlier write left already runs it): nothing to write
        best = config_text(tuning.result.best_config)
        edit, note = None, f"already tuned: writing {best} gives kernel.py as it is"
    if edit is None and note is not None:
        judgement = judgement.model_copy(update={"better": False, "reason": note})
    return replace(tuning, judgement=judgement, edit=edit, edit_made=True, edit_note=note, net=net)


NEXT_PICKS = 2
"""Picks after the first the net checks when the first fails it (each is a shaped edit, a check on the ``SHAPES``
entries and the net's sizes again: the original's outcomes there are known by then); of a per-bucket table, the
tables after the first, each with one more row given way to its bucket's next-best (:func:`_table_fallback`)."""


def _table_fallback(
    tuning: FolderTuning,
    evaluator: KernelEvaluator | ShapesEvaluator,
    known: dict[str, tuple[Outcome, str | None]],
    cap: NetCap | None,
    failure: tuple[str | None, NetVerdict | None, str, ProblemShape | None],
    wall: TailWall | None = None,
) -> tuple[FolderTuning, EditResult | None, str | None, NetVerdict | None]:
    """A per-bucket table that failed, however it came to be (the session's pick, or a table written after an earlier
    row gave way): ``failure`` is the note and net as they were, the failure's line and the size it failed at (a
    ``SHAPES`` entry's or the net's), ``None`` where it names none (a guard or a rule refused the text, seen14). One
    rule: a failure at a size gives way the row that serves it; one naming no size, the row serving each entry in turn,
    each from the table that failed; each row to its bucket's next-best timed configuration, else the original's
    computation (:func:`_next_table`). Every table then written is checked on the entries and by the net, and one
    that fails again gives way by the same rule (leftovers15: a table written after a refusal that failed its check
    was dropped), at most :data:`NEXT_PICKS` checks in all (a refused text runs no kernel: a try costs its reading
    alone), while the table still beats the current configuration; the tuning, edit, note and net of the table
    that passed, else the first's, nothing written (table14: a single pick gave way to its next-best where a table was
    dropped whole)."""
    note, net, line, at = failure
    first = (tuning, None, note, net)
    pending: list[tuple[FolderTuning, str, ProblemShape | None, list[str]]] = [(tuning, line, at, [])]
    seen: set[frozenset[tuple[str, Config]]] = set()
    checks = 0
    while pending:
        failed, line, at, said = pending.pop(0)
        for shape in [at] if at is not None else failed.prepared.ran_shapes:
            step = _next_table(failed, shape)
            if step is None or frozenset(step[0].failed_rows) in seen:
                continue
            alt, row = step
            seen.add(frozenset(alt.failed_rows))
            lines = [*said, f"{line}: the row {row} not written"]
            so = f"{'; '.join(lines)}; the table so written"
            edit, alt_note, alt_net, failed_again, where = _after(so, alt, evaluator, known, cap, wall)
            cap = _past_compared(cap, alt_net, wall)
            if edit is not None:
                return alt, edit, f"{'; '.join(lines)}; {_next_best_passed(alt_note)}", alt_net
            if failed_again is not None:  # written, and failed its check: its rows give way in turn
                checks += 1
                if checks >= NEXT_PICKS:
                    return first
                pending.append((alt, failed_again, where, lines))
            elif alt_note:  # refused again: the rows it still holds give way in turn
                pending.append((alt, alt_note.removesuffix(": not written"), None, lines))
    return first


def _next_best_passed(note: str | None) -> str:
    """The end of a table fallback's line where the table with a row given way passed (its own note after it)."""
    return f"its bucket's next-best passes: {note}" if note else "its bucket's next-best passes"


def _next_table(tuning: FolderTuning, at: ProblemShape) -> tuple[FolderTuning, str] | None:
    """The session with the per-bucket table's row that serves the size of ``at`` (a shape its written kernel failed
    at) set aside at every ``SHAPES`` entry it serves (:attr:`FolderTuning.failed_rows`): each takes its next-fastest
    configuration the table can write, timed in the same round, else the original's computation (:func:`_rows`),
    judged again (:func:`judge_choice`); and the row's text. ``None`` when the session's choice is no table, no row
    serves that size (the original's computation does: nothing to give way), the table is then the same or no
    longer beats the current configuration."""
    prepared = tuning.prepared
    plan = _table_plan(prepared, tuning.result.best_config, literal=_table_chosen(tuning))
    if tuning.choice is None or tuning.choice.kind is not ChoiceKind.TABLE or plan is None:
        return None
    names, size = plan
    rows, _ = _rows(tuning, names, size)
    value = _size_at(prepared, size, at)
    row = next((b for b in rows if value is not None and value <= b.upto), None)
    if row is None:
        return None
    below = max((b.upto for b in rows if b.upto < row.upto), default=None)
    served = [
        s.label()
        for s in prepared.ran_shapes
        if (v := _size_at(prepared, size, s)) is not None and v <= row.upto and (below is None or v > below)
    ]
    values = Config.of(row.values)
    alt = replace(tuning, failed_rows=(*tuning.failed_rows, *((label, values) for label in served)))
    if _rows(alt, names, size)[0] == rows:
        return None
    alt = judge_choice(alt)
    if not alt.judgement.better:
        return None
    return alt, f"{size} <= {row.upto}: {config_text(row.values)}"


_Checked = tuple[EditResult | None, str | None, NetVerdict | None, str | None, ProblemShape | None]
"""What :func:`_checked` gives: the edit, its note, the net, the line of a failed check, and the size it failed at."""


def _checked(
    tuning: FolderTuning,
    evaluator: KernelEvaluator | ShapesEvaluator,
    known: dict[str, tuple[Outcome, str | None]],
    cap: NetCap | None = None,
    wall: TailWall | None = None,
) -> tuple[EditResult | None, str | None, NetVerdict | None, str | None, ProblemShape | None]:
    """The pick's edit and note after its check on the ``SHAPES`` entries and the net (``None`` when it was not
    cast: no edit, or kernel.py as it is), the line of the check it failed (on the entries, or the net's; ``None``
    when it failed none), and the size it failed at (the entry's, or the net's): one path for both, the next-best
    pick taken after either (net12), or a table's row (:func:`_table_fallback`).

    Raises:
        WallSpent: ``wall`` (the session's stated wall time) cannot fit the check on the entries (at the seconds the
            pick's check took in the session), or leaves the net no time at all."""
    edit, note = shaped_edit(tuning)
    if edit is not None and tuning.judgement.table:  # written because the table beats the current kernel
        note = f"{note}; {tuning.judgement.reason}" if note else tuning.judgement.reason
    base = tuning.prepared.base_source
    if edit is None or keep_newlines(base, edit.new_source) == base:
        return edit, note, None, None, None
    listed = tuning.prepared.listed
    branched = branched_list(base, listed.kernel) if listed is not None else None
    if branched is not None:  # the list's other branch (the tutorial's HIP list) is the user's: never dropped (s2)
        return None, f"{branched}: not written", None, None, None
    shrunk = _shrunk_covers(tuning)
    if shrunk:  # a rule refuses it: the next-best instead (no size to fail at: the net's sizes may all pass it)
        return None, f"{shrunk[0]}: not written", None, None, None
    compiled = in_user_lines(_target_refusal(tuning, edit.new_source), base, edit.new_source)
    if compiled is not None:  # the target GPU's compile refuses it (a failure, or spills past the authors'): the same
        return None, f"{compiled}: not written", None, None, None
    # the seconds the written kernel's check took on every entry together (else the pick's as the session ran it) and
    # the pick's calls there: what the net's first size is estimated by (net12)
    check_s = next((r.check_s for r in tuning.result.results if r.config == tuning.result.best_config), None)
    if len(tuning.prepared.shapes) > 1:
        if wall is not None:
            wall.check("the written edit's check on the SHAPES entries", check_s or 0.0)
        checked = evaluator.check_source(edit.new_source, Config.of(tuning.result.best_config or {}))
        if not checked.outcome.ok:
            failed = f"the edit to write failed its check ({checked.outcome.value}: {checked.reason})"
            failed = in_user_lines(failed, base, edit.new_source) or failed  # its traceback's line, as the user has it
            at = next((s for s in tuning.prepared.shapes if s.label() == checked.failed_entry), None)
            return None, failed, None, failed, at
        check_s = checked.check_s if checked.check_s is not None else check_s
    kernel_us, count = tuning.result.best_latency_us, len(tuning.prepared.shapes)
    entries = EntryTimes(check_s=check_s, kernel_s=kernel_us / 1e6, count=count) if check_s and kernel_us else None
    if wall is not None:
        wall.check("the net (the written kernel at sizes the SHAPES entries do not name)")
    rows = _keyed_table_rows(tuning)
    if rows:  # a keyed list's table: its autotuner may run any row at any key, so each row is netted alone
        return _keyed_rows_checked(tuning, evaluator, edit, note, rows, known, cap, entries, wall)
    net = _cast_net(tuning, evaluator, edit.new_source, known, cap, least=edit.table, entries=entries)
    if net.failed is not None:
        return None, note, net, in_user_lines(net.line(), base, edit.new_source), net.failed.shape
    if edit.table:  # the sizes above the table's largest entry run the original's computation: they may stay unchecked
        net = _served_marked(tuning, net)
    _refuse_unchecked(tuning, net, cap)
    compared = _accurate_at_net(tuning, evaluator, edit.new_source, net, wall)
    net = net.model_copy(update={"compared": compared.said(), "compared_s": compared.seconds})
    if compared.refused:  # less accurate at the net's largest size: as a net failure there (the next pick, or none)
        return None, note, net, compared.line, compared.shape
    return edit, note, net, None, None


def _past_compared(cap: NetCap | None, net: NetVerdict | None, wall: TailWall | None) -> NetCap | None:
    """``cap`` with its deadline moved past the seconds the original's runs for the accuracy comparison took
    (:attr:`NetVerdict.compared_s`), never past ``wall``'s: those runs are paid from the session's wall, and a next
    pick's net keeps its time (late35: a 60 s session's next pick, unchecked at two sizes for want of time)."""
    if cap is None or net is None or not net.compared_s:
        return cap
    deadline = cap.deadline + net.compared_s
    return cap.model_copy(update={"deadline": min(deadline, wall.deadline) if wall is not None else deadline})


def _accurate_at_net(
    tuning: FolderTuning,
    evaluator: KernelEvaluator | ShapesEvaluator,
    written: str,
    net: NetVerdict,
    wall: TailWall | None,
    row: Mapping[str, Value] | None = None,
) -> AtNet:
    """The written kernel's errors at the entries and at the net's largest size, each beside the original's
    (:func:`kernelopt.tuning.net_accuracy.judged_at_net`): the entries' as the edit's check on them found them (a
    session of one entry: the pick's own check there, the written text being the pick's; a keyed list's ``row``: its
    checks there in the session, :meth:`ShapesEvaluator.config_errors`)."""
    prepared = tuning.prepared
    primary = prepared.shapes[0]
    first = _primary_evaluator(evaluator)
    error_at, original_err = getattr(evaluator, "error_at", None), getattr(first, "original_err", None)
    if error_at is None:  # a test's fake evaluator keeps no errors
        return AtNet()
    entries = evaluator.entry_errors(written) if isinstance(evaluator, ShapesEvaluator) else []
    if not entries and row is not None and isinstance(evaluator, ShapesEvaluator):
        entries = evaluator.config_errors(row)
    best = next((r for r in tuning.result.results if r.config == tuning.result.best_config and r.outcome.ok), None)
    if not entries and len(prepared.shapes) == 1 and best is not None and original_err:
        values = entry_values({**primary.kwargs, **primary.constants})
        entries = [EntryError(primary.label(), best, original_err, values)]
    base = prepared.base_source
    return judged_at_net(
        entries, net, base, written, constants=primary.constants, check_at=evaluator.check_at, error_at=error_at,
        wall=wall,
    )  # fmt: skip


def _keyed_rows_checked(
    tuning: FolderTuning,
    evaluator: KernelEvaluator | ShapesEvaluator,
    edit: EditResult,
    note: str | None,
    rows: list[dict[str, Value]],
    known: dict[str, tuple[Outcome, str | None]],
    cap: NetCap | None,
    entries: EntryTimes | None,
    wall: TailWall | None = None,
) -> tuple[EditResult | None, str | None, NetVerdict | None, str | None, ProblemShape | None]:
    """:func:`_checked`'s net for a keyed list's table: each row that moves a knob pinned alone (:func:`_pinned_one`)
    and netted as a pick of its own (its sizes by its own moves), in place of the list's net, whose every size checked
    only the row the interpreter's autotuner picked there (:func:`_keyed_table_rows`); the first row failing is named,
    and nothing is written, nor where a row cannot be pinned alone. Each row's error at the net's largest sizes it
    passed is compared with the original's there, as a single pick's is (:func:`_accurate_at_net`; leftovers26, l112:
    a row less accurate is the table's net failure). The rows' checks together are the table's net."""
    checks: list[SizeCheck] = []
    kept: list[str] = []
    said: list[str] = []
    seconds, not_cast, compared_s = 0.0, None, 0.0
    for row in rows:
        alone = replace(tuning, result=tuning.result.model_copy(update={"best_config": row}))
        pinned = _pinned_one(alone)
        if pinned is None or pinned.new_source is None:  # un-netted, it could run wrong at any key (netsafe20)
            unpinned = f"the keyed list's row {config_text(row)} cannot be pinned alone to be checked: not written"
            return None, unpinned, None, None, None
        net = _cast_net(alone, evaluator, pinned.new_source, known, cap, entries=entries)
        if net.failed is not None:
            said = in_user_lines(net.line(), tuning.prepared.base_source, pinned.new_source)
            line = f"the keyed list's row {config_text(row)}, which its autotuner may pick at any key: {said}"
            return None, note, net, line, net.failed.shape
        compared = _accurate_at_net(alone, evaluator, pinned.new_source, net, wall, row=row)
        compared_s += compared.seconds
        if compared.refused:  # less accurate at the net's largest sizes: the table's net failure there
            line = f"the keyed list's row {config_text(row)}, which its autotuner may pick at any key: {compared.line}"
            return None, note, net.model_copy(update={"compared_s": compared_s}), line, compared.shape
        said += [f"row {config_text(row)}: {clause}"] if (clause := compared.said()) else []
        cap = _past_compared(cap, net.model_copy(update={"compared_s": compared.seconds}), wall)
        checks += [c.model_copy(update={"row": config_text(row)}) for c in net.checks]  # the line names each row's
        seconds, kept, not_cast = seconds + net.seconds, kept or net.kept, not_cast or net.not_cast
    together = NetVerdict(
        checks=checks, kept=kept, seconds=seconds, not_cast=None if checks else not_cast,
        compared="; ".join(said) or None, compared_s=compared_s,
    )  # fmt: skip
    _refuse_unchecked(tuning, together, cap)  # its autotuner may run any row at any size: every size is one it changes
    return edit, note, together, None, None


def _after(
    said: str,
    alt: FolderTuning,
    evaluator: KernelEvaluator | ShapesEvaluator,
    known: dict[str, tuple[Outcome, str | None]],
    cap: NetCap | None,
    wall: TailWall | None,
) -> _Checked:
    """:func:`_checked` of ``alt``, a pick tried after another was not written (``said``: why, and which ``alt`` is): a
    net that leaves it unchecked (:class:`NetUnchecked`) says what came before it, not only the sizes (the line named
    the sizes alone, as if of the first pick)."""
    try:
        return _checked(alt, evaluator, known, cap, wall)
    except NetUnchecked as exc:
        raise NetUnchecked(f"{said}: {exc}", exc.net) from None


class NetUnchecked(WallSpent):
    """The net left sizes unchecked where the written code is not the original's (:attr:`NetVerdict.changed`): the
    kernel is not written (netcap20, the brief's rule: a tuner that writes a kernel that is wrong at any size the
    original handled is worse than none). Final, as a spent wall is: a next-best would meet the same spent cap.

    Attributes:
        net: the net's verdict, kept for the verdict's line and ``tune --json``.
    """

    def __init__(self, line: str, net: NetVerdict) -> None:
        super().__init__(line)
        self.net = net


def _refuse_unchecked(tuning: FolderTuning, net: NetVerdict, cap: NetCap | None) -> None:
    """Refuse the write where ``net`` left a size unchecked at which the written code is not the original's.

    Raises:
        NetUnchecked: the line names those sizes, why each went unchecked, and each cure: for want of time, the
            ``--budget-wall-s`` whose net would check them (:meth:`NetCap.wall_for` of :attr:`NetVerdict.need_s`),
            with ``--budget`` of the candidates evaluated where the search ran to its wall (a longer wall alone
            lengthens the search, and the net is left what the search keeps it: leftovers19's reserve).
    """
    changed = net.changed
    if not changed:
        return
    longer = None
    if cap is not None and any(c in net.for_time for c in changed):
        result = tuning.result
        longer = f"a --budget-wall-s of {cap.wall_for(net.need_s)} s or more"
        if result.stop is StopReason.WALL_TIME:
            longer += f" with --budget {result.evaluations} (the candidates this search evaluated before its wall)"
    line = net.unchecked_line(changed, longer) or ""
    raise NetUnchecked(f"{line}; a kernel unchecked where it changes the original's code is not written", net)


def _served_marked(tuning: FolderTuning, net: NetVerdict) -> NetVerdict:
    """``net`` with its sizes that a table by size leaves to the original's computation marked
    (:attr:`SizeCheck.served`): those whose value of the table's size is above its largest row. That value is read
    at a net size only where the table's size is a ``SHAPES`` key that every entry's launch saw as given (the same
    value at each entry); else no size is marked (whether a row serves it is not known: it counts as changed)."""
    prepared = tuning.prepared
    plan = _table_plan(prepared, tuning.result.best_config, literal=_table_chosen(tuning))
    if plan is None or not net.unchecked:
        return net
    names, size = plan
    rows, _ = _rows(tuning, names, size)
    if not rows or any(_size_at(prepared, size, s) != s.kwargs.get(size) for s in prepared.shapes):
        return net
    top = max(b.upto for b in rows)

    def above(c: SizeCheck) -> bool:
        value = c.shape.kwargs.get(size)
        # a ladder checked up to a try names that try: the tries past it are larger still
        return is_int(value) and value > top

    checks = [c.model_copy(update={"served": True}) if c.unchecked and above(c) else c for c in net.checks]
    return net.model_copy(update={"checks": checks})


def _keyed_table_rows(tuning: FolderTuning) -> list[dict[str, Value]]:
    """The rows of the keyed autotune list's per-bucket table the pick writes (:func:`_keyed_list_edit`) that move a
    knob from kernel.py as it is; none for any other edit. Triton's autotuner benchmarks every config of the list at
    each new key and runs the fastest there: a row is not held to the sizes of its bucket as a table's ``if n <=
    ...`` row is, and a net of the whole list checked only the config the interpreter's timing picked at each size
    (wrongkernel19's v82: ``BLOCK=64, TAIL=32`` beside the original ``128, 128``, wrong where a row's rest after
    its blocks of 64 is longer than 32, passed every size of the net as the list, the interpreter picking the
    original there)."""
    prepared = tuning.prepared
    choice = tuning.choice
    if choice is None or choice.kind is not ChoiceKind.TABLE or prepared.keyed_list is None:
        return []
    if not is_list_space(prepared.space.origins) or table_unheld(tuning) is not None:
        return []
    if _keyed_list_unheld(tuning) is not None:
        return []
    return [row for row in _shape_bests(tuning) if pick_moves(prepared, row)[1]]


def _target_refusal(tuning: FolderTuning, written: str) -> str | None:
    """Why the compile for the request's ``target`` refuses ``written`` (:func:`~kernelopt.harness.target_compile.
    target_check`: a launch that does not compile where kernel.py as it is compiles, or one spilling more registers
    than the authors' largest configuration there, leftovers15's l5), ``None`` where it passes or no target is
    named; a refused pick gives way to the next-best like one a rule refuses."""
    checked = target_checked(tuning.prepared, written)
    return checked.line.removesuffix("; nothing written") if checked is not None and checked.refused else None


def target_checked(prepared: PreparedFolder, written: str) -> TargetCheck | None:
    """``written`` compiled for the session's target (:func:`session_target`; :func:`~kernelopt.harness.
    target_compile.target_check` against kernel.py as it is), once per text: the session's check of a pick and
    ``tune``'s line of the kernel it writes are one compile; a GPU it cannot compile for (ROCm's) is that line;
    ``None`` where there is no target. A compile process that fails or runs past its limit stops the session under
    ``--target`` (what was asked cannot be done) and is a line on the GPU's own (a check the user never asked for
    does not stop the tune: the pick is checked as before it)."""
    target, asked, skipped = session_target(prepared)
    if target is None:
        return TargetCheck(line=skipped) if skipped is not None else None
    try:
        return _compiled_for(written, prepared.problem.reference_py, prepared.session_dir / "target", target,
                             prepared.base_source, asked, prepared.session_dir / CACHE_DIR)  # fmt: skip
    except EnvironmentProblem as exc:
        if asked:
            raise
        return TargetCheck(line=one_line(f"not compiled for {target} (this GPU's) before the write: {exc}", 400))


def session_target(prepared: PreparedFolder) -> tuple[str | None, bool, str | None]:
    """The GPU target a session compiles its pick for before the write, whether ``--target`` asked for it, and why
    none where it is a GPU's that cannot be compiled for. The request's ``target``; without one, a session on an
    NVIDIA GPU (``tune --device cuda``, the loop's launch-tuning stage) compiles for that GPU's own
    (:func:`~kernelopt.harness.target_compile.own_target`: ``sm_90`` on an H100), ``asked`` false: only a race or a
    vector wider than the source's hints refuses there (target18: what its checks at the entries can pass, wrong or
    faulting at other sizes). ``(None, False, None)`` on the CPU (Triton's interpreter: no GPU's code), on no GPU, or
    for a kernel.py not Triton's (nothing to compile: no process for every tune of a torch kernel)."""
    if prepared.request.target is not None:
        return prepared.request.target, True, None
    if framework_of(prepared.base_source) is not Framework.TRITON:  # the session's text: the file may be gone (t9)
        return None, False, None
    target, skipped = own_target(prepared.request.device)
    return target, False, skipped


@functools.lru_cache(maxsize=8)
def _compiled_for(
    written: str,
    reference_py: Path,
    work: Path,
    target: str,
    original: str,
    asked: bool = True,
    triton_cache: Path | None = None,
) -> TargetCheck:
    """:func:`~kernelopt.harness.target_compile.target_check` with the session's Triton cache (``triton_cache``): a
    launch its compile pool or bench workers compiled for ``target`` (the GPU's own) is read, not compiled again, and
    kernel.py as it is compiles once for every pick checked (leftovers19's l2)."""
    return target_check(written, reference_py, work, target, original, asked=asked, triton_cache=triton_cache)


def _shrunk_covers(tuning: FolderTuning) -> list[str]:
    """Why the pick's launch options shrink a computed block that covers a size with one block
    (:func:`kernelopt.tunables.readers.shrunk_covers`): the cover's rule, a smaller block never proposed, read
    through the computation an option moves (newuser12's n64)."""
    prepared = tuning.prepared
    current, changes = pick_moves(prepared, tuning.result.best_config)
    moved = {k: v for k, v in changes.items() if k in LAUNCH_OPTIONS}
    return shrunk_covers(prepared.tunables, prepared.base_source, moved, current) if moved else []


def _read_by_computations(prepared: PreparedFolder, options: Collection[str]) -> list[str]:
    """The settings the kernel computes from a name one of the launch ``options`` moved binds
    (:func:`kernelopt.tunables.readers.computed_readers`): the option then moves a block too, and what the kernel
    computes can change with it (newuser11's n61: a pick of ``num_warps=32`` moved BLOCK to 1024 over a grid of
    ``n // BLOCK`` programs without masks, said to "change no result at any size", wrong at n=64)."""
    return [t.name for t in computed_readers(prepared.tunables, prepared.base_source, options)]


def _grown_through(prepared: PreparedFolder, computed: Collection[str], aside: Collection[str] = ()) -> list[int]:
    """What the net's half size steps by for settings a moved launch option computes (:func:`_read_by_computations`):
    twice the least value they take at the entries (none set ``aside``), the least a block grown through them can be,
    so the half size steps by the original's own block, a size the original handles and no larger block divides (the
    H100, 2026-12-06 10:05: n61's pick of ``num_warps=8`` moved BLOCK from 64 to 256; the net stepped by the entries'
    1024 and passed it at 8448 and 8704, and it was written, wrong at n=64 and n=1088)."""
    by_shape = computed_by_shape(prepared)
    values = [v for label, by in by_shape.items() if label not in aside for k, v in by.items() if k in computed]
    least = min((v for v in values if isinstance(v, int) and v > 0), default=None)
    return [2 * least] if least is not None else []


def _grown_through_chain(chained: Mapping[str, object]) -> list[int]:
    """What the net's half size steps by for names a moved launch option computes that no computed setting holds
    (:func:`kernelopt.tunables.readers.chained_values`): twice the least of their values as written, the original's
    own block where one of them is (newuser13's n69: a module's ``BLOCK = NUM_WARPS * 32``, 64, moved to 1024 by a
    pick of ``NUM_WARPS = 32``; the entries' common 1024 hid it)."""
    least = min((v for v in chained.values() if is_int(v) and v > 0), default=None)
    return [2 * least] if least is not None else []


def _far_room(evaluator: KernelEvaluator | ShapesEvaluator) -> FarRoom | None:
    """The room of the net's ``far`` sizes and power tries (:class:`kernelopt.tuning.net.FarRoom`): the primary entry's
    bench peak and the memory free when its worker started, and each size's own footprint read on the meta device,
    from the worker that checks every size of the net (refusals24 u42: the tune net read a far rung's bytes as the
    primary's bytes an element, and never handed :func:`cast` the room, so no rung was read by its footprint)."""
    first = _primary_evaluator(evaluator)
    return FarRoom.of(first.ready, footprints=first.footprints) if first.ready is not None else None


def _cast_net(
    tuning: FolderTuning,
    evaluator: KernelEvaluator | ShapesEvaluator,
    written: str,
    known: dict[str, tuple[Outcome, str | None]],
    cap: NetCap | None = None,
    *,
    least: bool = False,
    entries: EntryTimes | None = None,
) -> NetVerdict:
    """The net's verdict on ``written`` (:func:`kernelopt.tuning.net.cast`; ``entries``: its check's and calls' seconds
    on the entries, what the first size is estimated by); not cast when the pick moves only
    launch options (``num_warps``, ``num_stages``: what the kernel computes is the same at every size) or the
    entries give no size to move. Which keys are sizes is read from ``get_inputs``
    (:func:`kernelopt.harness.sizekeys.key_roles`); without one, reference.py's module-level sizes move
    (:func:`kernelopt.harness.sizes.module_sizes`). ``least``: the edit is a table by size
    (:attr:`EditResult.table`): each dimension is checked at 1 too."""
    prepared = tuning.prepared
    current, changes = pick_moves(prepared, tuning.result.best_config)
    options = [k for k in changes if k in LAUNCH_OPTIONS]
    computed = _read_by_computations(prepared, options)
    # a name the file computes from a moved option that no computed setting holds (a module's BLOCK = NUM_WARPS * 32)
    chained = chained_values(prepared.tunables, prepared.base_source, options) if options else {}
    if changes and set(changes) <= set(LAUNCH_OPTIONS) and not computed and not chained:
        return NetVerdict(not_cast=f"only {', '.join(changes)} moved, which change no result at any size")
    # a literal's move, from what it was (a launch option is no tile: it moves one only through a computation)
    moves = {
        k: (v, old)
        for k, v in changes.items()
        if k not in LAUNCH_OPTIONS and isinstance(v, int) and isinstance(old := current.get(k), int)
    }
    # a literal a table holds (leftovers21 l9): each row's value is a move of its own, not only the pick's
    moves |= {f"{k}@{v}": (v, old) for k, v, old in _literal_rows(tuning) if least}
    grown = [v for v, old in moves.values() if v > old]
    # an entry the original cannot run (set aside) is no evidence about the pick: no size is derived from it
    aside = dict(tuning.set_aside)
    shapes = [s for s in prepared.shapes if s.label() not in aside]
    grown += _grown_through(prepared, computed, aside) or _grown_through_chain(chained)
    roles, constants = prepared.size_readings
    keys = {k for s in prepared.shapes for k in s.kwargs}
    laid = layout_keys(shapes, roles, constants)  # kept, but each of the entries' values taken in turn (v83)
    kept = [
        f"{k} ({r.why}, at each entry's value)" if k in laid else f"{k} ({r.why})"
        for k, r in roles.items()
        if r.role is KeyRole.KEPT and k in keys and r.why
    ]
    kept += [f"{k} ({r.why}: moved by one)" for k, r in roles.items() if r.role is KeyRole.EXPONENT and k in keys]
    # a tile or a count a pick shrinks: a fixed count of them reaches less far than the original's (v47-v50)
    shrunk = computed or [k for k, (v, old) in moves.items() if v < old]
    room = _far_room(evaluator)  # the far sizes' (a pick that shrinks) and the power size's tries' (u42, u43)
    far = room if shrunk else None
    # a tile grown, or one the kernel computes moved: a missing mask shows at a multiple of the original's block only
    residue = bool(grown) or any(k not in LAUNCH_OPTIONS and not isinstance(current.get(k), int) for k in changes)
    # the floor size descends to the original's smallest grown tile (a literal's; one computed: down to 1)
    block = min((old for v, old in moves.values() if v > old), default=None)
    sizes = derived_sizes(shapes, grown, roles, constants, least=least, residue=residue, block=block, far=far)
    if not sizes:
        return NetVerdict(not_cast="reference.py gives no size to move (SHAPES keys or module-level sizes)", kept=kept)
    net = cast(
        sizes,
        prepared.base_source,
        written,
        evaluator.check_at,
        build_at=evaluator.build_at,
        known=known,
        cap=cap,
        entries=entries,
        check_alone=evaluator.check_alone,  # a size likely to fault: its own worker (seen19's s4)
        request_s=evaluator.request_s,  # each request within what the cap has left (netcap20)
        far=room,  # each far rung and power try where its own footprint fits (refusals24 u42, u43)
    )
    return net.model_copy(update={"kept": kept})


def _literal_rows(tuning: FolderTuning) -> list[tuple[str, int, int]]:
    """Each (knob, row value, the literal's own) of the per-bucket table over literals the pick writes (l9): the net
    weighs every row's move, a row that grows the literal where the pick shrinks it included, as a computed
    setting's table is weighed against its computation at every size."""
    plan = _table_plan(tuning.prepared, tuning.result.best_config, literal=_table_chosen(tuning))
    if plan is None:
        return []
    names, size = plan
    out = []
    for row in _rows(tuning, names, size)[0]:
        for k, v in row.values.items():
            old = _original(tuning.prepared, k)
            if k not in tuning.prepared.tabled and isinstance(v, int) and isinstance(old, int) and v != old:
                out.append((k, v, old))
    return list(dict.fromkeys(out))


def _next_picks(tuning: FolderTuning) -> list[FolderTuning]:
    """The session as if it had picked each of the next-fastest configurations that passed (the re-timed first, then
    the others by their latency), while each still beats the current configuration (:func:`judge_gain`) as timed in
    its own round (a first measurement against the current's first, never against its re-time); a round that did not
    time the current configuration, where another did, offers none (rounds13: a re-timed pick was judged against
    nothing when the current's re-time failed, and came out better); at most :data:`NEXT_PICKS`, none when the pick
    is a per-bucket table."""
    result = tuning.result
    if tuning.choice is not None and tuning.choice.kind is ChoiceKind.TABLE:
        return []
    skip = {Config.of(c) for c in (result.best_config, result.current_config) if c is not None}
    current = Config.of(result.current_config) if result.current_config is not None else None
    ranked: list[tuple[Result, float | None]] = []
    firsts = _latency_in(result.results, current)
    for pool in (result.retimed, result.results):
        now = _latency_in(pool, current)
        if now is None and firsts is not None:  # the current not timed in this round: none of it is judged
            continue
        passed = [r for r in pool if r.outcome.ok and not r.cut_slow and r.latency_us is not None]
        for r in sorted(passed, key=lambda r: r.latency_us or 0.0):
            if Config.of(r.config) not in skip:
                skip.add(Config.of(r.config))
                ranked.append((r, now))
    out: list[FolderTuning] = []
    min_gain = tuning.prepared.request.min_gain_pct
    for r, now in ranked[:NEXT_PICKS]:
        alt = _picked(tuning, r.config, r.latency_us, now, min_gain)
        if not alt.judgement.better:
            break
        out.append(alt)
    return out


def _as_one(tuning: FolderTuning) -> FolderTuning | None:
    """The session whose per-bucket table was not written (its text refused, its rows' fallbacks too) as if
    it had chosen its pick as one configuration for every size, judged as itself against the current configuration in
    one round (:func:`_picked`), where it beats it; ``None`` for any other session. breaker29's q94: ln_bwd's table
    over N could not carry ``ROWS_PER_PROG=32`` (a module constant), and the pick itself, the row block computed and
    32 rows a band, 1.75x faster on the entries together and faster at each, was never offered."""
    result = tuning.result
    if tuning.choice is None or tuning.choice.kind is not ChoiceKind.TABLE or result.best_config is None:
        return None
    if result.current_config is None or Config.of(result.best_config) == Config.of(result.current_config):
        return None
    pool = result.retimed if _latency_in(result.retimed, Config.of(result.best_config)) is not None else result.results
    mine = _latency_in(pool, Config.of(result.best_config))
    now = _latency_in(pool, Config.of(result.current_config))
    if mine is None or now is None:
        return None
    alt = _picked(tuning, dict(result.best_config), mine, now, tuning.prepared.request.min_gain_pct)
    reason = "the per-bucket table was not written: the pick itself, one configuration for every size"
    alt = replace(alt, choice=ShapeChoice(kind=ChoiceKind.ONE, reason=reason))
    return alt if alt.judgement.better else None


def _latency_in(pool: Sequence[Result], config: Config | None) -> float | None:
    """``config``'s latency in one round's ``pool`` (cut slow too: the figure it was compared by), else ``None``."""
    if config is None:
        return None
    return next((r.latency_us for r in pool if r.outcome.ok and Config.of(r.config) == config), None)


def device_row_key(evaluation: AutotuneEvaluation | None) -> str | None:
    """The test each row of a tuned table holds besides its bound where kernel.py keys the settings it reads from
    files by the device (``get_arch() == "cpu"``, ``get_device_name() == "NVIDIA H100 80GB HBM3"``: the call and what
    it answered in the run, :attr:`AutotuneEvaluation.device_key`): the session timed its picks on this device alone,
    and on another the authors' entries stay (configs24); ``None`` for any other kernel."""
    if evaluation is None or evaluation.device_key is None:
        return None
    call, value = evaluation.device_key
    return f"{call} == {json.dumps(value)}"


def shaped_edit(tuning: FolderTuning) -> tuple[EditResult | None, str | None]:
    """The edit that writes the session's pick in a form correct at every size the original handled (DESIGN.md,
    "Shapes"), and a note when it is not the plain one.

    Literal knobs get the pick's values. Knobs the kernel computes from the problem (computed settings: a
    settings helper, a value read in several places) keep their computation: the pick's values go into a
    size-bucketed table (:func:`kernelopt.tunables.write_table`) over the size the computation reads,
    bounded by the sizes the session checked, the original computation the fallback above them. One row when
    one configuration serves every shape (``shape_choice`` ``one``); a row per shape with its own best for
    its size when it does not (``table``; each row is a configuration checked on every shape). A table needs
    the size in the ``SHAPES`` entries: when they do not name it, nothing is written, and the note says why.
    The lines it inserts take the file's line endings.
    """
    edit, note = _shaped_edit(tuning)
    if edit is None:
        return None, note
    base = tuning.prepared.base_source
    kept = None
    if edit.new_source is not None and is_list_space(tuning.prepared.space.origins):
        kept = keep_pruned_fallback(base, edit.new_source, tuning.prepared.space.kernel)
    if kept is not None:  # a user's prune may keep none of the pinned configs at another size
        fn = tuning.prepared.problem.kernel_py.name
        edit = edit.model_copy(update={"new_source": kept[0], "diff": edit_diff(base, kept[0], fn)})
        note = f"{note}; {kept[1]}" if note else kept[1]
    return edit.model_copy(update={"new_source": keep_newlines(base, edit.new_source)}), note


def _shaped_edit(tuning: FolderTuning) -> tuple[EditResult | None, str | None]:
    """:func:`shaped_edit`'s text before its file's forms are kept: a keyed list's pinned configs, one configuration
    where no setting the pick moved is computed (or no table can hold it), else the table over the size its
    computation reads, the literals the pick moved beside it set under the table's bound, its tuned tiles guarded;
    the note says how, or why nothing is written."""
    prepared, result = tuning.prepared, tuning.result
    best = result.best_config
    if best is None:
        return None, None
    computed = prepared.tabled
    changes = pick_moves(prepared, best)[1]
    moved = {k: v for k, v in changes.items() if k in computed}
    table_wanted = tuning.choice is not None and tuning.choice.kind is ChoiceKind.TABLE
    listed = is_list_space(prepared.space.origins)
    why = table_unheld(tuning)
    if table_wanted and listed and why is None:
        keyed = _keyed_list_edit(tuning)
        if keyed is not None:
            return keyed
    names = [n for n in computed if n in best]
    if (
        not names and table_wanted and not listed and why is None and tuning.literals_held
    ):  # literals a table holds (l9)
        names = [n for n in prepared.literal_tabled if n in best]
    if not names or (not moved and not table_wanted) or listed:
        # no computed setting in the space (a cap the block is computed under, a literal), or a list no key picks
        # from: one configuration, judged as itself (judge_one)
        edit, note = _config_edit(prepared, best)
        if table_wanted and edit is not None:
            need = why if listed and why else "a per-bucket table needs a setting computed from the size"
            one = f"one configuration written: {need}"
            note = f"{one}; {note}" if note else one
        return edit, note
    plan = _table_plan(prepared, best, literal=table_wanted and tuning.literals_held)
    if plan is None:
        reads = ", ".join(computed[names[0]].size_names) or "the problem"
        return None, (
            f"{', '.join(names)} computed from {reads}, which the SHAPES entries do not name{_sizes_unread(prepared)}: "
            "a table bounded by the sizes checked cannot be written"
        )
    # only the settings whose computation reads the size go in its table (breaker10: a one-block BLOCK_N =
    # next_power_of_2(N) beside a BLOCK_M computed from M was written 'if M <= 100: BLOCK_N = 128', wrong at
    # N = 1000); the others stay at their computation, as _table_plan says and judge_choice judged
    left = [n for n in names if n not in plan[0]]
    names, size = plan
    rows, sources = _rows(tuning, names, size)
    if not rows:
        return _config_edit(prepared, {k: v for k, v in best.items() if k not in computed} or None)
    others = {k: v for k, v in changes.items() if k not in computed and k not in names}
    return _table_edit(tuning, names, size, (rows, sources), others, left)


def _table_edit(
    tuning: FolderTuning,
    names: list[str],
    size: str,
    table_rows: tuple[list[Bucket], dict[int, Config]],
    others: dict[str, Value],
    left: list[str],
) -> tuple[EditResult | None, str | None]:
    """The per-bucket table of ``names`` over ``size`` written (``table_rows``: :func:`_rows`), the literals the pick
    moved beside it (``others``) set under the table's bound or joined to its rows, its tuned tiles guarded; the note
    says how, and names the computed settings ``left`` at their computation (they do not read ``size``)."""
    prepared = tuning.prepared
    computed = prepared.tabled
    rows, sources = table_rows
    fn = prepared.problem.kernel_py.name
    joined = _joined_settings(prepared, others, size, names)
    if joined:
        rows = [b.model_copy(update={"values": {**b.values, **joined}}) for b in rows]
        others = {k: v for k, v in others.items() if k not in joined}
    opts = {
        "limits": prepared.limits,
        "kernel": prepared.space.kernel,
        "gpu": prepared.gpu,
        "evaluation": prepared.evaluation,
    }
    first = write_config(prepared.base_source, others, filename=fn, **opts) if others else None  # type: ignore[arg-type]
    source = first.new_source if first is not None else prepared.base_source
    held: str | None = None  # how the moved literals are bounded
    key = device_row_key(prepared.evaluation)  # the device test each row holds, and the moved literals' bound
    if source != prepared.base_source:
        # the pick is one configuration: above the sizes checked, where the table falls back on the computation, the
        # literals it moved fall back too (extend_attn: six stages beside the original tiles at D=65, never timed,
        # needed 458752 B of shared memory of 232448 on an H100)
        checked = max(v for s in prepared.ran_shapes if (v := _size_at(prepared, size, s)) is not None)
        bound = f"{size} <= {checked}{f' and {key}' if key else ''}"
        bounded = bound_moves(prepared.base_source, source, bound, option_defaults(prepared.gpu), at_launch=True)
        if bounded.new_source is None:
            return _table_alone(tuning, names, size, others, bounded.note or "")
        source, held = bounded.new_source, bounded.note
    ran = [b.upto for b in rows if all(_is_original(prepared, n, sources[b.upto].get(n)) for n in names)]  # original's
    keyed = TunedTable(size=size, buckets=rows, key=key)
    try:
        table = write_table(source, keyed, filename=fn, ran=ran, **opts)  # type: ignore[arg-type]
    except UnreadSize as e:  # its rows cannot test the size the launch reads (l73)
        return None, str(e)
    masked = _ran_masked(tuning, names, size)
    kept = guard_edit(prepared.base_source, table.new_source, ran_masked=masked)
    if kept.new_source is None:  # a tuned tile a size must divide: legal only where the computation's was
        return None, kept.note
    # a tuned line over a literal tile comes back with its divisibility test (lostpicks13 l3): that text is written,
    # less the rows that test leaves holding at no size of their bucket (dead text, late37)
    live, dead = dead_rows(kept.new_source, size)
    if dead and not tuned_ifs(live):
        return None, f"the table's rows hold at no size of their buckets ({'; '.join(dead)}): not written"
    table = table.model_copy(update={"new_source": live})
    edits = [*(first.edits if first is not None else []), *table.edits]
    diff = edit_diff(prepared.base_source, table.new_source, fn)
    bound = max(b.upto for b in rows)
    literals = [f"{n} = {original}" for n in names if not is_computed(original := _original(prepared, n))]
    above = f"the original's {', '.join(literals)}" if literals else "the original computation"
    tuned = ", ".join([*names, *joined])
    note = f"{tuned} tuned in a table over {size} up to {bound} (the sizes checked); above it, {above}"
    if held is not None:
        note += f"; {held}"
    if kept.note is not None:
        note += f"; {kept.note}"
    if dead:
        note += f"; the rows {'; '.join(dead)} hold at no size of their buckets: not written"
    for name in left:
        reads = ", ".join(computed[name].size_names) or "no size"
        note += f"; {name} kept at its computation (it reads {reads}, not {size})"
    return EditResult(path=fn, edits=edits, diff=diff, new_source=table.new_source, table=True), note


def _joined_settings(
    prepared: PreparedFolder, others: Mapping[str, Value], size: str, names: Sequence[str]
) -> dict[str, Value]:
    """The integer values of ``others`` (settings the pick moved beside a table of ``names`` over ``size``) that the
    kernel computes from the same size and the space left out (a CPU session's ``num_warps`` from the helper that
    gives the tiles), or from the table's own settings alone (flash-attention's cross-entropy: ``num_warps = 4 if
    BLOCK_SIZE < 2048 else ...`` after ``BLOCK_SIZE = min(next_power_of_2(n_cols), MAX_BLOCK_SIZE)``): they join the
    table's rows, so above its bound they fall back with them (tablebound11, breaker19 d2)."""
    return {
        k: v
        for k, v in others.items()
        for t in prepared.found
        if t.name == k and t.kind is TunableKind.COMPUTED_SETTING and t.editable
        if size in t.size_names or (t.size_names and set(t.size_names) <= set(names))
        if t.kernel in (prepared.space.kernel, None) and is_int(v)
    }


def _ran_masked(tuning: FolderTuning, names: Sequence[str], size: str) -> set[tuple[str, str]]:
    """The (knob, size) pairs of a table's computed blocks whose original ran wider than ``size`` at an entry where
    the launch runs and the session's run of the original passed its check: masked-out lanes there, evidently
    harmless to the kernel's result (Unsloth's cross-entropy, ``calculate_settings(vocab_size)``: 56 lanes masked at
    V = 200 in a block of 256), so :func:`~kernelopt.tunables.guard.guard_edit` does not ask a row over the block to
    fill its size. None where every entry's block fills its size (variants v36, sort_pow2: rows a power of two, a
    sort over a zero fill), where the original's run is not known to have passed, or where the table is bounded by
    a computation rather than a size."""
    prepared, result = tuning.prepared, tuning.result
    if size in prepared.bounds or result.current_config is None:
        return set()
    current = Config.of(result.current_config)
    ran = same_round(result.results, result.retimed, [current]).get(current)
    if ran is None or ran.outcome is not Outcome.OK:
        return set()
    out: set[tuple[str, str]] = set()
    for shape in prepared.ran_shapes:
        label = shape.label()
        at = _size_at(prepared, size, shape)
        if label not in ran.latency_us_by_shape or at is None:
            continue
        given = prepared.by_shape.get(label, {})
        out |= {(n, size) for n in names if is_int(v := given.get(n)) and v > at}
    return out


def _table_alone(
    tuning: FolderTuning, names: list[str], size: str, others: Mapping[str, Value], why: str
) -> tuple[EditResult | None, str | None]:
    """The table of ``names`` written with the literals ``others`` at the original's values, when the moved literals
    cannot be set under the table's bound (``why``, :func:`~kernelopt.tunables.guard.bound_moves`) and the session
    timed that combination on every shape; else nothing, and the line saying why: the pick's literals for every
    size beside the computation above the table is a combination no session timed or checked."""
    result = tuning.result
    best = result.best_config or {}
    prepared = tuning.prepared
    now = prepared.space.current()
    # every literal of the file (a CPU session leaves num_warps out of its space)
    current = {
        **current_values(prepared.found),
        **(result.current_config or (now.as_dict() if now is not None else {})),
    }
    alone = {k: current[k] if k in others and k in current else v for k, v in best.items()}
    timed = same_round(result.results, result.retimed, [Config.of(alone)]).get(Config.of(alone))
    mixed = (
        f"{', '.join(names)} tuned in a table over {size}, beside {config_text(others)} for every size, would run "
        f"the original {', '.join(names)} with {config_text(others)} above the sizes checked, a combination never "
        f"timed, and {why}"
    )
    if alone == best or any(k not in current for k in others) or timed is None or timed.latency_us is None:
        return None, f"{mixed}: not written"
    kept = config_text({k: alone[k] for k in others})
    # the table so written is judged by what it runs, its rows timed beside the original's literals (breaker29's
    # q90: the session's table was judged with the pick's ROWS=32 beside it, then written with the original's
    # ROWS=8, the same kernel as the original at every entry, and the pick's +150 % claimed for it)
    judged = judge_choice(replace(tuning, result=result.model_copy(update={"best_config": alone})))
    if not judged.judgement.better:
        return (
            None,
            f"{mixed}; the table alone, {kept} as the original has them: {judged.judgement.reason}: not written",
        )
    edit, note = _shaped_edit(judged)
    if edit is None:
        return None, f"{mixed}: not written" + (f" ({note})" if note else "")
    return (
        edit,
        f"{note}; {mixed}: the table written alone, {kept} as the original has them ({timed.latency_us:.1f} us)",
    )


def _keyed_list_edit(tuning: FolderTuning) -> tuple[EditResult | None, str | None] | None:
    """The per-bucket table of an autotune list keyed on the problem (``key=["n"]``): the list pinned to each
    shape's own best, so the autotuner picks one per key at run time, as Triton users keep a table; ``None``
    when no keyed list can hold it (:func:`_keyed_list_unheld`: then one configuration is written, judged as
    itself). The edits name the pick's moves; a tile a size must divide goes through the guard."""
    if _keyed_list_unheld(tuning) is not None:
        return None
    prepared, result = tuning.prepared, tuning.result
    listed, bests = prepared.keyed_list, _shape_bests(tuning)
    assert listed is not None and result.best_config is not None
    fn = prepared.problem.kernel_py.name
    one = _pinned_one(tuning)
    assert one is not None
    configs = [
        (base := pin_base(listed, c)).model_copy(
            update={
                "kwargs": {**base.kwargs, **{k: v for k, v in c.items() if k not in CONFIG_OPTIONS}},
                **{k: v for k, v in c.items() if k in CONFIG_OPTIONS},
            }
        )
        for c in bests
    ]
    unkeyed = _unkeyed_rows(prepared, listed, configs)
    if unkeyed is not None:  # a raised row the autotuner would run unbenched at a size its key leaves out (v198)
        return None, unkeyed
    table = pin_configs(prepared.base_source, listed.kernel, configs, filename=fn, evaluation=prepared.evaluation)
    kept = guard_edit(prepared.base_source, table.new_source)
    if kept.new_source is None:
        return None, kept.note
    if kept.new_source != table.new_source:  # a test the guard would add: not this writer's form, nothing written
        return None, f"{kept.note}: a keyed list's table is written only as it is, not written"
    note = (
        f"a per-bucket table as the autotuner keeps one: its list pinned to the {len(configs)} shapes' own bests, "
        f"one picked per key ({', '.join(listed.key)}) at run time"
    )
    held = _options_held(listed, configs) if prepared.problem.interpreted else None
    return table.model_copy(update={"edits": one.edits}), f"{note}; {held}" if held else note


def _unkeyed_rows(prepared: PreparedFolder, listed: AutotuneSpace, rows: Sequence[AutotuneConfig]) -> str | None:
    """Why a keyed list's table (``rows``, :func:`_keyed_list_edit`) is not written, where a row raises a setting
    past every value the list held beside a size of the problem its key leaves out (the one rule,
    :func:`~kernelopt.tunables.edit.unkeyed_raise`): its autotuner times the rows once per key and caches the pick, so
    the raised row, picked where it fits, runs unbenched at another value of that size (wrongkernel32, v198); ``None``
    where no row does."""
    origins = prepared.space.origins
    moved: dict[str, tuple[Sequence[str], object, object]] = {}
    for name, origin in origins.items():
        held = [c.kwargs[name] for c in listed.configs if is_int(c.kwargs.get(name))]
        new = [r.kwargs[name] for r in rows if is_int(r.kwargs.get(name))]
        if held and new and max(new) > max(held):
            moved[name] = (origin.keys, max(held), max(new))
    if not moved:
        return None
    said = config_text({n: v[2] for n, v in moved.items()})
    refused = unkeyed_raise(prepared.base_source, moved, prepared.tunables, lambda _kernel: list(listed.key), said)
    return None if refused is None else f"the keyed list's table of the shapes' own bests: {refused[0]} ({refused[1]})"


def _options_held(listed: AutotuneSpace, rows: Sequence[AutotuneConfig]) -> str | None:
    """On the CPU, where the author's keyed list varies a launch option (``num_warps`` 1, 2, 4, 8 for each tile): the
    one value each row of the table keeps, which no timing chose (Triton's interpreter ignores the options; the row's
    tile's own entry in the list gives it, else the entry the interpreter's autotuner picked), said beside the table
    (newuser18's n124: the 24-config scale's table was written with ``num_warps=1`` for BLOCK 4096 and 8192, the
    author's four warps per tile gone, and nothing said it); ``None`` where the list holds each option at one value."""
    varied = [o for o in CONFIG_OPTIONS if len({getattr(c, o) for c in listed.configs}) > 1]
    if not varied:
        return None
    kept = "; ".join(f"{config_text(row.kwargs)}: {config_text({o: getattr(row, o) for o in varied})}" for row in rows)
    values = ", ".join(f"{o} {sorted({getattr(c, o) for c in listed.configs})}" for o in varied)
    return (
        f"the list varies {values}, which Triton's interpreter ignores: each row keeps one ({kept}) that no timing "
        "chose; a session on a GPU chooses them"
    )


def _shape_bests(tuning: FolderTuning) -> list[dict[str, Value]]:
    """The shapes' own best configurations, each once, in the shapes' order: the rows of a keyed list's table."""
    bests: list[dict[str, Value]] = []
    for shape in tuning.per_shape:
        if shape.best_config is not None and shape.best_config not in bests:
            bests.append(dict(shape.best_config))
    return bests


def _pinned_one(tuning: FolderTuning) -> EditResult | None:
    """The autotune list pinned to the session's pick alone (its edits name the pick's moves), or ``None`` where the
    list cannot be read."""
    prepared, best = tuning.prepared, tuning.result.best_config
    listed = prepared.keyed_list
    if listed is None or best is None:
        return None
    key = Config.of(best)
    if key not in prepared.pins:  # a parse of kernel.py: once a pick (:attr:`PreparedFolder.pins`)
        prepared.pins[key] = pin_config(
            prepared.base_source, best, listed, prepared.space.origins, filename=prepared.problem.kernel_py.name,
            evaluation=prepared.evaluation, force=True,
        )  # fmt: skip
    return prepared.pins[key]


def pick_moves(prepared: PreparedFolder, best: Mapping[str, Value] | None) -> tuple[dict[str, Value], dict[str, Value]]:
    """The knobs' values as kernel.py writes them and ``best``'s changes from them (:func:`config_changes`), worked
    out once a configuration (:attr:`PreparedFolder.moves`); read them, do not change them."""
    key = Config.of(best or {})
    if key not in prepared.moves:
        current = current_values(prepared.tunables)
        prepared.moves[key] = current, config_changes(best or {}, current, prepared.space.origins)
    return prepared.moves[key]


def _keyed_list_unheld(tuning: FolderTuning) -> str | None:
    """Why the autotune list the kernel runs cannot hold the session's per-bucket table (a list pinned to the shapes'
    own bests, one picked per key at run time: :func:`_keyed_list_edit`), ``None`` where it can: a list keyed on
    nothing picks once for every size, and a list that cannot be read cannot be pinned."""
    prepared = tuning.prepared
    if len(_shape_bests(tuning)) < 2:
        return "the shapes' own bests are one configuration"
    if prepared.keyed_list is None:
        return "the autotune list is keyed on no size (its autotuner picks once for every size)"
    if _pinned_one(tuning) is None:
        return "the autotune list cannot be read to pin a configuration for each key"
    return None


def table_unheld(tuning: FolderTuning) -> str | None:
    """Why the session's per-bucket table cannot be written, where it chose one (then one configuration, or nothing,
    is written in its place: :func:`shaped_edit`, judged as itself: :func:`judge_one`); ``None`` where it can, or
    the choice is no table. The one rule the choice's line, the judgement and the edit read."""
    choice = tuning.choice
    if choice is None or choice.kind is not ChoiceKind.TABLE or tuning.prepared is None:
        return None  # no table, or no folder to write one into (a replay of the judgement alone)
    if is_list_space(tuning.prepared.space.origins):
        return _keyed_list_unheld(tuning)
    return size_table_unheld(tuning.prepared, tuning.result.best_config, literal=tuning.literals_held)


def _sizes_unread(prepared: PreparedFolder) -> str:
    """Why the entries' sizes may be unknown, where discovery's run of the task said why (its worker could not import
    kernel.py, or the task failed there): ``" (discovery read no sizes: ...)"``, else ``""``. A first draft of
    breaker20's unsloth_xent failed to import only in that worker, and ``tune`` said its size was one "the SHAPES
    entries do not name" (e5)."""
    evaluation = prepared.evaluation
    if evaluation is None or evaluation.problem is None or evaluation.shape_sizes:
        return ""
    return f" (discovery read no sizes: {one_line(evaluation.problem, 200)})"


def size_table_unheld(
    prepared: PreparedFolder, best: Mapping[str, Value] | None, *, literal: bool = True
) -> str | None:
    """Why no per-bucket table over a size can hold ``best`` (:func:`shaped_edit` writes one configuration, or
    nothing): no knob of the space is computed from a size (a literal, a module-level cap), or the size its
    computation reads is one the entries do not name; ``None`` when a table can be written, or an autotune list may
    hold one (:func:`table_unheld` asks :func:`_keyed_list_unheld` there)."""
    if best is None or is_list_space(prepared.space.origins):
        return None
    if _table_plan(prepared, best, literal=literal) is not None:
        return batch_invariant(prepared.base_source)
    names = [n for n in prepared.tabled if n in best]
    if names:
        reads = ", ".join(prepared.tabled[names[0]].size_names) or "the problem"
        verb = "is" if len(names) == 1 else "are"
        return f"{', '.join(names)} {verb} computed from {reads}, which the SHAPES entries do not name" + _sizes_unread(
            prepared
        )
    knobs = [n for n in prepared.space.names if n in best]
    beside = [n for n in knobs if n in prepared.literal_tabled]
    if beside:  # literals a table may hold after their lines (leftovers21 l9), as `tunables` says: why not this one
        each = "; ".join(f"{n} beside {', '.join(prepared.literal_tabled[n].size_names)}" for n in beside)
        return (
            f"{', '.join(knobs)} are literals; a table holds literals bound beside a size that every SHAPES entry "
            f"gives and each of them reads ({each}), and none is both" + _sizes_unread(prepared)
        )
    verb = "is" if len(knobs) == 1 else "are"
    return f"{', '.join(knobs)} {verb} not computed from a size (a literal or a cap), which no table can hold"


#: a kernel file that calls itself batch-invariant (Megatron's and Thinking Machines Lab's GEMMs: "batch-invariant",
#: ``batch_invariant_kernels.py``, "batch invariant")
_BATCH_INVARIANT = re.compile(r"batch[\s_-]?invarian(?:t|ce)", re.IGNORECASE)


def batch_invariant(source: str) -> str | None:
    """Why no per-bucket table is written into a kernel file that says it is batch-invariant (breaker22's seen item,
    late30 z83): its authors fix every setting for every size so that a row's result, its reduction order, is the same
    whatever the batch holds; a table by a size (a ``BLOCK_SIZE_K`` by ``M``) gives a row another order at another
    batch size, which no reference checks. Which size is the batch's is not told by the file, so a table by any size
    is refused and one configuration for every size judged in its place; ``None`` for any other file."""
    found = _BATCH_INVARIANT.search(source)
    if found is None:
        return None
    line = source.count("\n", 0, found.start()) + 1
    return (
        f"kernel.py says it is {found.group(0)} (line {line}): a table by size would give a row another reduction "
        "order at another batch size, the property it exists for"
    )


def _table_plan(
    prepared: PreparedFolder, best: Mapping[str, Value] | None, *, literal: bool = False
) -> tuple[list[str], str] | None:
    """The computed knobs of ``best`` a table holds and the size it buckets on; ``None`` when no table can be
    written (no computed knob, an autotune list, no size every shape names). ``literal``: where the session chose a
    per-bucket table, ``best``'s literals a table can hold (:attr:`PreparedFolder.literal_tabled`) are held where no
    computed knob is in it (leftovers21 l9); one configuration moves a literal for every size, as before. Made once
    per configuration (:attr:`PreparedFolder.table_plans`); read it, do not change it."""
    key = (Config.of(best) if best is not None else None, literal)
    if key not in prepared.table_plans:
        prepared.table_plans[key] = _planned_table(prepared, best, literal)
    return prepared.table_plans[key]


def _table_chosen(tuning: FolderTuning) -> bool:
    """Whether the session chose a per-bucket table (its literals may then be held by one: :func:`_table_plan`)."""
    return tuning.choice is not None and tuning.choice.kind is ChoiceKind.TABLE and tuning.literals_held


def _planned_table(
    prepared: PreparedFolder, best: Mapping[str, Value] | None, literal: bool = False
) -> tuple[list[str], str] | None:
    """:func:`_table_plan`, made.

    The size is a name their computation reads that every shape gives, the one that tells the shapes apart
    first: a name whose value differs at every entry, then one whose value differs between some entries or is a
    size an entry names (``n_cols`` from ``cols``), before one that holds one value at every entry that no entry
    names. ``min(MAX_FUSED_SIZE,
    next_power_of_2(n_cols))`` with ``MAX_FUSED_SIZE = 65536 // x.element_size()`` buckets on ``n_cols``: a
    table over the cap (16384 for every float32 row) would hold the pick at every row length, a one-block
    kernel's block too small above the sizes checked."""
    computed = prepared.tabled
    names = [n for n in computed if best is not None and n in best]
    literals = literal and not names
    if literals:  # literals bound beside a size: a table over a size that tells the shapes apart, the literal above
        computed = prepared.literal_tabled
        names = [n for n in computed if best is not None and n in best]
    if not names or is_list_space(prepared.space.origins):
        return None
    known: list[tuple[bool, int, str]] = []
    ran = prepared.ran_shapes  # the rows are for these (:func:`_rows`)
    # a size every knob's computation reads first: attorch's BLOCK_SIZE_FEAT (next_power_of_2(feat_dim), the whole
    # row one block) was tabled by batch_dim beside BLOCK_SIZE_BATCH, 256 "up to 200 rows", wrong at 1000 features
    # (breaker9 w2)
    reads = [computed[n].size_names for n in names if computed[n].size_names]
    common = [x for x in computed[names[0]].size_names if all(_reads(prepared, r, x) for r in reads)]
    for i, x in enumerate(common or computed[names[0]].size_names):
        values = [_size_at(prepared, x, s) for s in ran]
        if any(v is None for v in values):
            continue
        varies = len(set(values)) > 1
        named = all(v in _entry_sizes(s) for v, s in zip(values, ran, strict=True))
        if literals and not varies:
            continue  # a literal's rows over a size every shape gives alike would hold one value for all of them
        # one that tells every shape apart first, each its own row: FlagAttention's get_fwd_config(B, H, M, N, D,
        # causal) was tabled over B (1, 2, 1), two shapes with other bests in one row (breaker28's q83)
        apart = varies and len(set(values)) == len(values)
        known.append((0 if apart else 1 if varies or named else 2, i, x))
    if not known:
        return None
    size = min(known)[2]
    # a knob whose computation reads sizes but not this one stays at its computation
    held = [n for n in names if not computed[n].size_names or _reads(prepared, computed[n].size_names, size)]
    if literals:  # every literal of the pick in the table, or none: one left would move for every size
        return (held, size) if held == names else None
    held += _joined_options(prepared, best, names, held)
    spans = _covered_size(prepared, held)
    if spans is not None:
        return held, spans
    whole = _over_computation(prepared, held)
    return (held, whole) if whole is not None else (held, size)


def _joined_options(
    prepared: PreparedFolder, best: Mapping[str, Value] | None, names: Sequence[str], held: Sequence[str]
) -> list[str]:
    """The launch options of ``names`` (``num_warps``, ``num_stages``) computed from the table's own knobs alone
    (``num_warps = min(max(BLOCK_SIZE // 256, 1), 8)`` beside a table of ``BLOCK_SIZE`` over N) that ``best`` gives a
    literal: they join the table's rows, each row holding them as timed, the computation the fallback above the
    table (tablewarps12, H100, 2026-12-06: xformers' RMS norm ran 4.18 us at D=9000 with BLOCK_SIZE 4096 and 16
    warps, 5.42 as written, and a table that could not hold the warps wrote nothing). None where ``held`` is empty
    or ``best`` leaves them at their computation (the computation then reads the row's values, as it did when
    timed), or gives a knob of ``held`` its computation: one row cannot hold a block computed per shape beside 32
    warps (honest12's one-configuration pick is written with the computation's warps, and judged so)."""
    if not held or best is None or any(is_computed(best.get(n)) for n in held):
        return []
    return [
        n
        for n in names
        if n not in held and not is_computed(best.get(n))
        if _option_computed_from(prepared, n, held) and prepared.tabled[n].editable
    ]


def _option_computed_from(prepared: PreparedFolder, name: str, knobs: Sequence[str]) -> bool:
    """Whether ``name`` is a launch option (``num_warps``, ``num_stages``) the kernel computes from ``knobs`` alone
    (``num_warps = min(max(BLOCK_SIZE // 256, 1), 8)`` beside ``BLOCK_SIZE``): what a table of ``knobs`` holds beside
    them (:func:`_joined_options`, :func:`_whole_rows`)."""
    if name not in LAUNCH_OPTIONS:
        return False
    tunable = prepared.tabled.get(name)
    reads = tunable.size_names if tunable is not None else []
    return bool(reads) and set(reads) <= set(knobs)


def _reads(prepared: PreparedFolder, names: Sequence[str], size: str) -> bool:
    """Whether a computation reading the sizes ``names`` reads ``size``, however either is spelled: a heuristic's
    ``args["dstate"]`` is the launcher's ``dstate`` where the launching function passes its ``dstate`` as that
    argument, the two the same value at every shape run (Mamba's ``BLOCK_SIZE_DSTATE`` heuristic and its
    launcher's ``BLOCK_SIZE_M`` from ``dstate``: one size, one table; tunegaps11)."""
    if size in names:
        return True
    ran = prepared.ran_shapes
    named = size_name(size)
    return any(
        size_name(x) == named
        and bool(ran)
        and all((at := _size_at(prepared, size, s)) is not None and at == _size_at(prepared, x, s) for s in ran)
        for x in names
    )


def _covered_size(prepared: PreparedFolder, names: list[str]) -> str | None:
    """The size the one computed knob ``names`` holds covers with one block (``cols < N``), spelled as its
    computation reads sizes (``args["N"]`` in a heuristic's lambda; ``N`` in the launching function, where its
    ``N`` is the argument the kernel gets as ``N`` at every shape run), when its computation does not read that
    size and every shape run gives it: its table is bounded by that size. A block computed from another size
    (``4096 // next_power_of_2(args["R"])``, a budget the rows share, falling as the batch grows) covers N only
    where the computation gave at least N; a row over R (``128 if args["R"] <= 32``) leaves wider rows at fewer
    rows undone, and a row over the computation's value holds only a block at least that value, never the smaller
    block the session found (128 where 16 rows gave 256): ``128 if args["N"] <= 100`` covers every row it serves
    (tunegaps11). ``None`` for any other table."""
    tunable = prepared.tabled.get(names[0]) if len(names) == 1 else None
    if tunable is None or not tunable.covers or not tunable.size_names:
        return None
    covered = {c.size for c in tunable.covers}
    if len(covered) != 1 or covered & {size_name(n) for n in tunable.size_names}:
        return None
    name = covered.pop()
    if tunable.kind is TunableKind.HEURISTIC and argument_name(tunable.size_names[0]) is not None:
        size = argument_as(tunable.size_names[0], name)
    elif tunable.kind is TunableKind.COMPUTED_SETTING and argument_name(tunable.size_names[0]) is None:
        size = name  # the launcher's own name: one size with the argument only where their values agree
        if not _reads(prepared, [argument_key(name)], size):
            return None
    else:
        return None
    ran = prepared.ran_shapes
    return size if ran and all(_size_at(prepared, size, s) is not None for s in ran) else None


def _over_computation(prepared: PreparedFolder, names: list[str]) -> str | None:
    """The computation of the one heuristic ``names`` holds, where it reads several sizes and gave an integer at
    every shape run: its table is bounded by the computation's value, not by one size it reads (break10 b2:
    ``next_power_of_2(args["C"] * args["G"])``, the row one block, tabled as ``128 if args["C"] <= 50`` was
    wrong at C=30, G=5; ``128 if _block(args) <= 128`` holds where the computation gives at most what it gave
    at a size checked). ``None`` for any other table."""
    tunable = prepared.tabled.get(names[0]) if len(names) == 1 else None
    if tunable is None or tunable.kind is not TunableKind.HEURISTIC or tunable.computed is None:
        return None
    if len(set(tunable.size_names)) < 2 or " if " in tunable.computed or "\n" in tunable.computed:
        return None
    ran = prepared.ran_shapes
    given = computed_by_shape(prepared)
    values = [given.get(s.label(), {}).get(names[0]) for s in ran]
    if not ran or not all(is_int(v) for v in values):
        return None
    return tunable.computed


def _entry_sizes(shape: ProblemShape) -> set[int]:
    """The integer sizes a ``SHAPES`` entry names (its keyword arguments' values)."""
    return {v for v in shape.kwargs.values() if is_int(v)}


def _size_at(prepared: PreparedFolder, size: str, shape: ProblemShape) -> int | None:
    """The value of the size name ``size`` at a ``SHAPES`` entry (:func:`_size_of`) for the launch tuned, or of
    the heuristic's computation a table is bounded by (:func:`_over_computation`)."""
    name = prepared.bounds.get(size)
    if name is not None:
        value = prepared.by_shape.get(shape.label(), {}).get(name)
        return plain_int(value)
    if prepared.space.kernel is None:
        value = shape.kwargs.get(size)
        return plain_int(value)
    return _size_of(prepared.evaluation, prepared.space.kernel, size, shape)


def _rows(tuning: FolderTuning, names: list[str], size: str) -> tuple[list[Bucket], dict[int, Config]]:
    """The table's rows by increasing size, and for each row (by its ``upto``) the configuration whose
    measurement stands for it.

    One row at the largest size checked with the pick's values, or (``shape_choice`` ``table``) per shape its
    own best (``per_shape``) when its other knobs are as the edit writes them (:func:`_written_others`), else its
    fastest among the configurations whose other knobs are, in one round of measurements
    (:func:`~kernelopt.tuning.shapes.same_round`); no row when none was timed there. A row holds the knobs its
    configuration gives literals; one at the computation (:data:`~kernelopt.tuning.candidate.COMPUTED`) stays
    computed in that row. A shape whose best is the computation itself (the current configuration) gets the values
    the computation gave there (what it ran), when the run told them; else no row (a larger row, checked there
    too, or the fallback serves it). Rows that repeat the next one's values are merged into it.

    Each row's configuration is one the table writes as it is (honest12, H100, 2026-12-06: xformers' RMS norm
    wrote ``BLOCK_SIZE = 64`` for 100 columns from a candidate timed with 32 warps and 6 stages, where the written
    kernel runs the computation's 1 warp, a configuration never timed, and claimed the candidate's latency).
    """
    prepared, result = tuning.prepared, tuning.result
    best = result.best_config or {}
    sizes = {s.label(): _size_at(prepared, size, s) for s in prepared.ran_shapes}
    ran = computed_by_shape(prepared)

    whole = _whole_rows(prepared, names)
    top = max(sizes, key=lambda k: sizes[k] or 0) if sizes else None

    def moved(config: Mapping[str, Value], label: str | None = None) -> dict[str, Value]:
        out = {n: config[n] for n in names if n in config and not is_computed(config[n])}
        if whole and len(out) == len(names):
            return out  # every knob a literal: the row is the configuration, whatever the run told
        at = label if label is not None else top
        if at is not None and (whole or label is not None) and all(n in ran.get(at, {}) for n in names):
            if not out:
                return {n: ran[at][n] for n in names}  # the computation's values at that shape (what it ran)
            if whole and _fillable(prepared, names, out):  # every row holds every knob, as that shape ran it
                return {n: out.get(n, ran[at][n]) for n in names}
        return {} if whole else out

    wanted: dict[int, tuple[dict[str, Value], Config]] = {}
    others = _written_others(tuning, names)
    if tuning.choice is not None and tuning.choice.kind is ChoiceKind.TABLE:
        pool = same_round(result.results, result.retimed)
        same = {c: r for c, r in pool.items() if all(same_value(r.config.get(k), v) for k, v in others.items())}
        if whole:  # a configuration no row can write as it ran (warps computed from a block the row moves)
            same = {c: r for c, r in same.items() if _fillable(prepared, names, r.config)}
        own = {s.shape: Config.of(s.best_config) for s in tuning.per_shape if s.best_config is not None}
        for label, value in sorted(sizes.items(), key=lambda kv: kv[1]):  # type: ignore[arg-type, return-value]
            failed = {values for at, values in tuning.failed_rows if at == label}  # a row its written kernel failed
            mine = same.get(own[label]) if label in own else None
            if mine is not None and Config.of(moved(mine.config, label)) in failed:
                mine = None
            if mine is None:
                timed = [
                    r
                    for r in same.values()
                    if label in r.latency_us_by_shape and Config.of(moved(r.config, label)) not in failed
                ]
                mine = min(timed, key=lambda r: r.latency_us_by_shape[label]) if timed else None
            if mine is None:
                continue  # nothing the table writes as it is was timed here: a larger row or the fallback serves it
            wanted.setdefault(int(value), (moved(mine.config, label), Config.of(mine.config)))  # type: ignore[arg-type]
    else:
        wanted[int(max(sizes.values()))] = (moved(best), Config.of({**best, **others}))  # type: ignore[type-var]
    return _merged_rows(prepared, names, wanted)


def _merged_rows(
    prepared: PreparedFolder, names: Sequence[str], wanted: Mapping[int, tuple[dict[str, Value], Config]]
) -> tuple[list[Bucket], dict[int, Config]]:
    """:func:`_rows`' rows from each size's values and the configuration that stands for them (``wanted``, by the
    row's ``upto``): none where the computation serves the size, a row that repeats the next one's values merged
    into it, and no largest row that is only the computation's values at its shape (unless an earlier tune wrote
    the table: its lines are replaced)."""
    rows: list[Bucket] = []
    sources: dict[int, Config] = {}
    for upto in sorted(wanted):
        values, source = wanted[upto]
        if not values:
            continue  # the computation serves this size: a larger row (checked here too) or the fallback
        if rows and rows[-1].values == values:
            kept = sources.pop(rows[-1].upto)
            source = kept if prepared.space.literal(kept) else source  # a literal ran these values at every size
            rows[-1] = Bucket(upto=upto, values=values)
        else:
            rows.append(Bucket(upto=upto, values=values))
        sources[upto] = source
    # the lines an earlier tune wrote are replaced by these rows: the computation the fallback runs is then not the
    # one the session timed (its rows gave 4096 at 20000 columns, the computation alone 256), so no row of it goes
    rewritten = TUNED in prepared.base_source
    while rows and not rewritten and all(_is_original(prepared, n, sources[rows[-1].upto].get(n)) for n in names):
        if len(rows) == 1 and all(is_computed(sources[rows[-1].upto].get(n)) for n in names):
            break  # a computation's one row stays (its values at the largest shape, what the pick ran there)
        # the largest row is the computation's values at its shape: above the row before it the fallback (the same
        # computation) serves, and a size between gets what the computation gives there, not that shape's literals
        # (H200, 2026-12-05: BLOCK_SIZE = 32768 for every row from 8193 to 32768 columns, 16384 computed at 12000)
        del sources[rows.pop().upto]
    return rows, sources


def _whole_rows(prepared: PreparedFolder, names: Sequence[str]) -> bool:
    """Whether the table of ``names`` holds a launch option computed from its other knobs
    (:func:`_joined_options`): its knobs are then written in separate tables over the same size, so every row
    holds every knob, or a row missing one would take a smaller row's value there."""
    return any(_option_computed_from(prepared, n, names) for n in names)


def _fillable(prepared: PreparedFolder, names: Sequence[str], config: Mapping[str, Value]) -> bool:
    """Whether a row can give the knobs of ``names`` that ``config`` leaves at their computation the values the
    computation gave at a shape: none of them reads a knob ``config`` sets (``num_warps`` computed from a
    ``BLOCK_SIZE`` of 4096 is not the warps the computed block gave)."""
    computed = prepared.tabled
    literal = {n for n in names if n in config and not is_computed(config[n])}
    return not any(set(computed[n].size_names) & literal for n in names if n not in literal and n in computed)


def _serving(
    tuning: FolderTuning, names: list[str], size: str, table: tuple[list[Bucket], dict[int, Config]]
) -> dict[str, Config]:
    """Shape label -> the configuration that shape runs once the table (:func:`_rows`) is written: the row at or
    above its size (a row that writes the computation's values at a larger shape runs those values here, not the
    computation), else the computation; the other knobs as the edit writes them (:func:`_written_others`). The
    configuration of every knob, to look up among those timed: one no candidate ran was never measured there."""
    prepared = tuning.prepared
    rows, sources = table
    others = _written_others(tuning, names)
    ran = computed_by_shape(prepared)
    out: dict[str, Config] = {}
    for shape in prepared.shapes:
        at = _size_at(prepared, size, shape)
        label = shape.label()
        row = next((b for b in rows if at is not None and at <= b.upto), None)
        if row is None:
            out[label] = Config.of({**others, **{n: _original(prepared, n) for n in names}})
            continue
        source = sources[row.upto]
        pinned = {n: v for n, v in row.values.items() if is_computed(source.get(n))}
        if any(not same_value(ran.get(label, {}).get(n), v) for n, v in pinned.items()):
            source = Config.of({**source.as_dict(), **pinned})
        out[label] = source
    return out


def _written_others(tuning: FolderTuning, names: Sequence[str]) -> dict[str, Value]:
    """The pick's knobs other than the table's ``names`` as :func:`shaped_edit` writes them at every size checked:
    a computed setting the table does not hold stays at its computation (:data:`COMPUTED`, whatever the pick gave
    it: num_warps computed from BLOCK_SIZE beside a table over N), every other knob the pick's value."""
    computed = tuning.prepared.tabled
    best = tuning.result.best_config or {}
    return {k: COMPUTED if k in computed else v for k, v in best.items() if k not in names}


def best_edit(tuning: FolderTuning) -> EditResult | None:
    """The checked edit that sets kernel.py to the best configuration (its text in ``new_source``); ``None``
    when no candidate ran, the best is the current configuration, or the edit across shapes could not be
    made or failed its check (:attr:`FolderTuning.edit_note` says why). The edit :func:`tune_folder` made
    and checked on every shape when there is one.

    Raises:
        TunableError: the tunables refuse the edit (a bug: the same edit made the candidate's source).
    """
    if tuning.edit_made:
        return tuning.edit
    return _config_edit(tuning.prepared, tuning.result.best_config)[0]


def _config_edit(prepared: PreparedFolder, best: Mapping[str, Value] | None) -> tuple[EditResult | None, str | None]:
    """The edit of one configuration for every size (a literal's literal, a computed setting's tuned line), a
    tile that must divide a size guarded by it where the new value is not legal at every size the original
    handled (:func:`kernelopt.tunables.guard.guard_edit`), and a note when a tile was guarded or the edit could
    not be written."""
    if best is None:
        return None, None
    origins = prepared.space.origins
    listed = prepared.listed
    if listed is not None:
        pinned = pin_config(
            prepared.base_source,
            best,
            listed,
            origins,
            filename=prepared.problem.kernel_py.name,
            evaluation=prepared.evaluation,
        )
        if pinned is None:
            return None, None
        sized, sized_note = _pin_bounded(prepared, listed, best, pinned.new_source)
        if sized is None:
            return None, sized_note  # a pinned tile raised beside a size of the problem, no bound can be written
        kept = guard_edit(prepared.base_source, pinned.new_source)  # the pick's tiles, wherever it runs
        if kept.new_source is None:
            return None, kept.note  # a pinned tile no longer divides a size the original handled
        if sized != pinned.new_source:
            diff = edit_diff(prepared.base_source, sized, prepared.problem.kernel_py.name)
            return pinned.model_copy(update={"new_source": sized, "diff": diff}), sized_note
        return pinned, None
    changes = pick_moves(prepared, best)[1]
    if not changes:
        return None, None
    fn = prepared.problem.kernel_py.name
    edit = apply_source(
        prepared.base_source,
        changes,
        filename=fn,
        limits=prepared.limits,
        kernel=prepared.space.kernel,
        gpu=prepared.gpu,
        evaluation=prepared.evaluation,
    )
    sized, sized_note = _size_bounded(prepared, changes, edit.new_source)
    if sized is None:
        return None, sized_note
    guarded = guard_edit(prepared.base_source, sized)
    if guarded.new_source is None:
        return None, guarded.note
    if sized_note is not None:  # the pick set under the sizes checked: its settings fall back together already
        source = one_block_per_condition(guarded.new_source)
        note = sized_note if guarded.new_source == sized else f"{sized_note}; {guarded.note}"
        return edit.model_copy(update={"new_source": source, "diff": edit_diff(prepared.base_source, source, fn)}), note
    if guarded.new_source == edit.new_source:
        return edit, None
    guarded = _with_guard(prepared, changes, guarded)
    if guarded.new_source is None:
        return None, guarded.note
    source = one_block_per_condition(guarded.new_source)  # the settings beside a guarded tile in its block
    diff = edit_diff(prepared.base_source, source, fn)
    return edit.model_copy(update={"new_source": source, "diff": diff}), guarded.note


def _size_bounded(
    prepared: PreparedFolder, changes: Mapping[str, Value], new: str | None
) -> tuple[str | None, str | None]:
    """``new`` (the pick ``changes`` written plainly) set under the sizes the ``SHAPES`` entries this session ran
    told (:func:`~kernelopt.tunables.size_tiles.size_bounded`, the rule ``tunables --set`` writes by too)."""
    if new is None:
        return None, None
    origins = prepared.space.origins
    moved = {k: (origins[k].keys, origins[k].value, v) for k, v in changes.items() if k in origins}

    defaults = option_defaults(prepared.gpu)
    said = config_text(dict(changes))
    told = _told(prepared)
    return size_bounded(prepared.base_source, new, moved, prepared.tunables, told, defaults=defaults, said=said)


def _told(prepared: PreparedFolder) -> Callable[[str, str], list[int]]:
    """``told(kernel, param)``: the values of the size ``param`` where ``kernel`` was launched at the ``SHAPES``
    entries this session ran (:func:`~kernelopt.tunables.size_tiles.size_bounded`'s question)."""

    def told(kernel: str, param: str) -> list[int]:
        sizes = (_size_of(prepared.evaluation, kernel, argument_key(param), s) for s in prepared.ran_shapes)
        return [v for v in sizes if v is not None]

    return told


def _pin_bounded(
    prepared: PreparedFolder, listed: AutotuneSpace, best: Mapping[str, Value], new: str | None
) -> tuple[str | None, str | None]:
    """``new`` (the autotune list pinned to ``best`` alone, :func:`~kernelopt.tuning.kernel_evaluator.pin_config`)
    where the pick raises no tile beside a size of the problem; else the pick set under the sizes the ``SHAPES``
    entries told (:func:`~kernelopt.tunables.size_tiles.size_bounds`, the rule :func:`_size_bounded` writes a launch's
    pick by). A list of one config Triton runs unbenched at every size, so each tile of the pin is judged against the
    least value the list held (where its other configs were, the autotuner passed over one that could not run at a
    key, review28 r80; late52 l220). A decorator's config has no launch to set a bound at, so the bounded pick is
    written as a ``@triton.heuristics`` under the list's ``@triton.autotune`` (:func:`~kernelopt.tunables.list_pin.
    heuristic_pin`): the pick within the bound, the user's whole list, autotuned as before, past it (late53 l230: the
    six trial picks l220 refused). No text, and why, where that form cannot hold the pick."""
    if new is None:
        return None, None
    origins = prepared.space.origins
    moved: dict[str, tuple[Sequence[str], object, object]] = {}
    for name, value in best.items():
        held = [c.kwargs[name] for c in listed.configs if is_int(c.kwargs.get(name))]
        if name in origins and is_int(value) and held:
            moved[name] = (origins[name].keys, min(held), value)

    said = config_text({n: best[n] for n in moved}) if moved else ""
    bounds = size_bounds(prepared.base_source, moved, prepared.tunables, _told(prepared), said=said)
    if isinstance(bounds, str):
        return None, bounds
    if not bounds:
        return new, None
    test = bound_test(bounds)
    pick = pin_base(listed, best).with_values(dict(best))
    settings, why = pin_settings(pick, listed.configs)
    text, note = (None, why) if settings is None else heuristic_pin(prepared.base_source, listed.kernel, settings, test)
    if text is None:
        return None, (
            f"{said} raises a tile beside sizes of the problem, set only up to the SHAPES entries' ({test}), and "
            f"{note}: not written"
        )
    grows = ", ".join(f"{p} up to {v}" for p, v in bounds.items())
    return text, f"{note}: the raised tile's footprint grows with {grows} checked (l140)"


def _with_guard(prepared: PreparedFolder, changes: Mapping[str, Value], guarded: Guarded) -> Guarded:
    """``guarded`` (the pick ``changes`` with its tiles guarded by the sizes they must divide or cover) with the
    other settings the pick moved (``num_warps``, ``num_stages``, a tile legal at every size with its grid's copies)
    set under the same guard
    (:func:`~kernelopt.tunables.guard.bound_moves`): where the guard fails, the original's values of every knob, not
    the original tile with the pick's ``num_stages``, a combination never timed (on a GPU, a deeper pipeline of the
    original's larger tiles can need more shared memory than the device has). No text, and why, when they cannot be
    set under it (guards of different conditions, an option the launch does not pass, a literal no size is known
    at)."""
    assert guarded.new_source is not None
    tiles = set(guarded_values(guarded.new_source))  # the names a guard sets (the pick's own, as guarded)
    # every setting the pick moved beside the guarded tiles falls back with them: a tile the guard judged legal at
    # every size too, its grid's copies named (tablebound13: tile_lse_zero's BLOCK_M=32 beside a guarded BLOCK_N ran
    # 32 rows a program with the original BLOCK_N where N % 64 != 0, a combination never timed); where no bound
    # holds such a tile, it stays as the guard writes it, legal at every size, and the launch options alone fall back
    beside = {k: v for k, v in changes.items() if k.rpartition(":")[2] not in tiles}
    options = {k: v for k, v in beside.items() if k.rpartition(":")[2] in CONFIG_OPTIONS}
    if not beside or not guarded.tests:  # nothing moved beside them, or no guard written (an earlier one taken out)
        return guarded
    if beside != options:
        bounded = _guard_beside(prepared, changes, guarded, beside)
        if bounded.new_source is not None or not options:
            return bounded if bounded.new_source is not None else guarded
    return _guard_beside(prepared, changes, guarded, options) if options else guarded


def _guard_beside(
    prepared: PreparedFolder, changes: Mapping[str, Value], guarded: Guarded, others: Mapping[str, Value]
) -> Guarded:
    """:func:`_with_guard`'s text with the settings ``others`` (of the pick ``changes``) set under the guard."""
    base, fn = prepared.base_source, prepared.problem.kernel_py.name
    tests = sorted(set(guarded.tests))
    mixed = f"{guarded.note}; {config_text(others)} for every size would run with the original tiles where"
    if len(tests) != 1:
        return Guarded(None, f"{mixed} a guard fails ({'; '.join(tests)}), a combination never timed: not written")
    opts = {"filename": fn, "limits": prepared.limits, "kernel": prepared.space.kernel, "gpu": prepared.gpu}
    # the tiles alone, the text the guard is read from: no configuration that runs (the original's other settings
    # beside the pick's tiles, never timed), so no fit is asked of it (breaker21's q4: applied-ai's split-K pick
    # block_m=128 with block_k=64 was set beside the original's block_k=512 here, "cannot fit: 589824 B" raised, and
    # tune exited 2 after its session, nothing written); the pick itself is fitted where write_config sets the rest
    tiled = apply_source(
        base,
        {k: v for k, v in changes.items() if k not in others},
        evaluation=prepared.evaluation,
        **{**opts, "limits": None},
    )  # type: ignore[arg-type]
    first = guard_edit(base, tiled.new_source)
    if first.new_source is None or set(first.tests) != set(tests):
        return Guarded(None, f"{mixed} {tests[0]} fails, a combination never timed: not written")
    moved = write_config(first.new_source, others, evaluation=prepared.evaluation, **opts)  # type: ignore[arg-type]
    # the guard is written at its tile; a setting moved past a size rebound after the tile reads it from its own place
    # (late40's l77: over the launch's values, then as each setting's statement reads them)
    launch = read_at_launch(first.new_source, tests[0])
    bound = tests[0] if launch is None else launch
    defaults = option_defaults(prepared.gpu)
    bounded = bound_moves(first.new_source, moved.new_source, bound, defaults, at_launch=launch is not None)
    if bounded.new_source is None:
        return Guarded(None, f"{mixed} {tests[0]} fails, a combination never timed, and {bounded.note}: not written")
    return Guarded(bounded.new_source, f"{first.note}; {bounded.note}", first.tests)


class TuneSummary(BaseModel):
    """What ``kernelopt tune --json`` prints.

    Attributes:
        best_config: knob name -> value of the best configuration (``None``: no candidate ran).
        best_latency_us, current_latency_us: their latencies (re-timed together when both ran), microseconds.
        current_config: the configuration kernel.py ran before.
        speedup: current / best latency (:func:`judged_speedup`: ``None`` where a per-bucket table was judged);
            gain_pct and better: the judgement against the minimum gain.
        evaluations: candidates measured now; served: served from the session record.
        space_size: the fit-pruned space's size; raw_size: before the fit rules; knobs: knob -> legal values.
        budget: candidates the budget allowed; budget_rule: how it was set; wall_s: the session's seconds.
        stop: why the session ended; strategy: the strategy.
        outcomes: outcome -> how many candidates ended so.
        launch, kernel: the launch tuned; session_dir, record: where the session keeps its files.
        record_aside: why a saved record was not served (the session folder's made under other check rules, kept
            beside; or the last session folder's made for another kernel, reference, problem, ...), else ``None``.
        shapes: the shapes every candidate was checked and timed on (labels, the primary first).
        set_aside: the ``SHAPES`` entries the kernel as written cannot run, which the session set aside (label -> the
            line that says so, as ``tune`` warns it); ``{}`` when none.
        per_shape: for each shape timed (several): its own best configuration and latency, and the chosen
            configuration's latency there (``[]`` when one shape was timed).
        shape_choice: one configuration for every shape, or a per-bucket table, and why (``None``: none ran).
        edit_note: how the pick was written when it was not a plain literal edit (a table over a size), or why
            it was not written (``None``: neither).
        computed: knob -> the expression kernel.py computes it from (the knobs at ``"computed"`` in
            ``current_config``: the computation, whose value depends on the size).
        computed_by_shape: shape label -> knob -> the value that computation gave there, where the run told.
        guarded: the configuration a guard an earlier write left in kernel.py runs where it holds (the current
            configuration there, timed once as it: :func:`guarded_twin`); ``None`` without such a guard.
        speedup_over_original: where such a guard holds at an entry and the retune writes, the original
            computation's latency over the written kernel's, the two re-timed side by side after the session (the
            sums over the entries; ``speedup`` is over kernel.py as it runs now); ``None`` otherwise (the edit's note
            says why where none was measured; leftovers27 l131).
        current_list: the configurations of the keyed autotune list kernel.py runs, one picked per key at run time
            (:func:`judge_against_list`; ``current_config`` is its first): ``current_latency_us`` and each shape's
            ``current_latency_us`` are the fastest of them there; ``[]`` otherwise.
        list_note: why a keyed autotune list was judged as one entry (more configurations than the session times
            as the kernel as written: :func:`list_note`), else ``None``.
        list_as_written: where the keyed list's own autotuner, run as written at a shape's key, picked another of its
            configurations than the fastest timed pinned there (:func:`list_as_written`), else ``None``.
        unretimed: why the top few were not all re-timed (the wall time left could not fit it), else ``None``.
        within: the sweep the space was cut to (``--within``): complete or cut short, and what its best is called.
        check_notes: what the checks' setup said of them, as ``tune`` warns it on stderr (the reference's float64
            run for its integer outputs skipped for the device's room: :attr:`KernelEvaluator.check_notes`).
        net: the net's line on the written kernel at sizes the ``SHAPES`` entries do not name
            (:meth:`~kernelopt.tuning.net.NetVerdict.line`; ``None``: no edit was checked).
        net_unchecked: the net's sizes the written kernel was not checked at for want of time (the cap, the session's
            wall, a request's limit, the original's run failing for the machine's reason, reference.py not building a
            size again: :attr:`~kernelopt.tuning.net.NetVerdict.unchecked`), their labels (``past n=3072, checked up
            to it`` for a ladder stopped after a passing try); the verdict names them where a kernel is written beside
            them (gpufind19's g3).
        pace: where the session's wall went (:class:`~kernelopt.tuning.pace.SessionPace`).
        first_call: the kernel as written is wrong on its first call at a new autotune key, as discovery's run of
            the task saw (:attr:`~kernelopt.tunables.model.AutotuneEvaluation.first_call`), else ``None``.
        timed_on: where the candidates were timed, as the bench worker named its device (:attr:`FolderTuning.timed_on`).
    """

    model_config = ConfigDict(extra="forbid")

    best_config: dict[str, Value] | None
    best_latency_us: float | None
    current_config: dict[str, Value] | None
    current_latency_us: float | None
    speedup: float | None
    gain_pct: float | None
    better: bool
    evaluations: int
    served: int
    space_size: int
    raw_size: int
    knobs: dict[str, list[Value]]
    budget: int
    budget_rule: str
    wall_s: float
    stop: str
    strategy: str
    outcomes: dict[str, int]
    launch: str | None
    kernel: str | None
    session_dir: str
    record: str
    record_aside: str | None = None
    shapes: list[str] = Field(default_factory=list)
    set_aside: dict[str, str] = Field(default_factory=dict)
    per_shape: list[ShapeBest] = Field(default_factory=list)
    shape_choice: ShapeChoice | None = None
    edit_note: str | None = None
    computed: dict[str, str] = Field(default_factory=dict)
    computed_by_shape: dict[str, dict[str, Value]] = Field(default_factory=dict)
    guarded: dict[str, Value] | None = None
    speedup_over_original: float | None = None
    current_list: list[dict[str, Value]] = Field(default_factory=list)
    list_note: str | None = None
    list_as_written: str | None = None
    unretimed: str | None = None
    within: WithinSweep | None = None
    check_notes: list[str] = Field(default_factory=list)
    net: str | None = None
    net_unchecked: list[str] = Field(default_factory=list)
    pace: SessionPace | None = None
    first_call: str | None = None
    timed_on: str | None = None


def computed_knobs(prepared: PreparedFolder) -> dict[str, str]:
    """Knob name -> the expression it is computed from, for each knob of the space the kernel computes from the
    problem (its value in the current configuration is :data:`~kernelopt.tuning.candidate.COMPUTED`)."""
    return {n: o.computed for n, o in prepared.space.origins.items() if o.from_problem and o.computed is not None}


def computed_by_shape(prepared: PreparedFolder) -> dict[str, dict[str, Value]]:
    """Shape label -> knob -> the value the kernel's computation gave there, for the knobs it computes from the
    problem and the shapes whose run told (discovery's evaluation; empty when it did not run them). Worked out once a
    PreparedFolder: read it, do not change it."""
    return prepared.by_shape


def _computation_values(
    space: Space, evaluation: AutotuneEvaluation | None, shapes: Sequence[ProblemShape]
) -> dict[str, dict[str, Value]]:
    names = [n for n, o in space.origins.items() if o.from_problem and o.computed is not None]
    kernel = space.kernel
    if not names or evaluation is None or kernel is None:
        return {}
    out: dict[str, dict[str, Value]] = {}
    for shape in shapes:
        entry = next((e for e in evaluation.shape_sizes if e.shape == dict(shape.kwargs)), None)
        launched = entry.launch_values.get(kernel, {}) if entry is not None else {}
        feeds = {n: space.origins[n].feeds[0] if space.origins[n].feeds else n for n in names}
        values = {n: launched[f] for n, f in feeds.items() if f in launched}
        # a kernel launched twice a run: the largest value its launching function computed, as its sizes are the
        # largest (breaker19 d4: LMDeploy's RMS norm at H=64 told BLOCK_N=16, its heads' launch, beside sizes up
        # to 64, and a table row 'feat_size <= 64: BLOCK_N = 16' was written for the original there)
        local = entry.sizes.get(kernel, {}) if entry is not None else {}
        values |= {n: v for n in names if is_int(v := local.get(n)) and not (is_int(w := values.get(n)) and w >= v)}
        if values:
            out[shape.label()] = values
    return out


def per_shape_in_user_order(tuning: FolderTuning) -> list[ShapeBest]:
    """The session's per-shape bests in reference.py's ``SHAPES`` order (the table and the JSON alike), each own best
    that is kernel.py as it is (the current configuration's result, or its guarded twin's: one run) named by what
    the file ran at that shape (:func:`_runs_now`: a retune's "its own best BLOCK=1024" at 4096 columns, where the
    file's earlier guard ran ``BLOCK = 4096``, late41)."""
    order = tuning.prepared.in_user_order(s.shape for s in tuning.per_shape)
    shapes = sorted(tuning.per_shape, key=lambda s: order.index(s.shape))
    named = _named_as_ran(tuning)
    return [
        s.model_copy(update={"best_config": named(s.shape, s.best_config)}) if s.best_config is not None else s
        for s in shapes
    ]


def _named_as_ran(tuning: FolderTuning) -> Callable[[str, dict[str, Value]], dict[str, Value]]:
    """What names a configuration at a shape's label as the file ran it there: the file as it is (the current
    configuration, or its guarded twin: one run) by what its guards ran at that shape (:func:`_runs_now`), any other
    as it is."""
    current = tuning.result.current_config
    ran: dict[str, Config] = {}
    if tuning.guarded and current is not None:
        ran = _runs_now(tuning.prepared, Config.of(current)) or {}
    as_is = {Config.of(current), Config.of(tuning.guarded)} if ran else set()

    def named(label: str, config: dict[str, Value]) -> dict[str, Value]:
        return ran[label].as_dict() if label in ran and Config.of(config) in as_is else config

    return named


def choice_as_ran(tuning: FolderTuning) -> ShapeChoice | None:
    """The session's choice across shapes for the summary, its table's configurations named as
    :func:`per_shape_in_user_order` names the per-shape bests (review26, r61: a retune's ``--json`` said
    ``shape_choice.table`` BLOCK=1024 at 4096 columns beside ``per_shape``'s BLOCK=4096 there, the file's earlier
    row, for one run of the file)."""
    choice = tuning.choice
    if choice is None or not choice.table:
        return choice
    named = _named_as_ran(tuning)
    return choice.model_copy(update={"table": {label: named(label, c) for label, c in choice.table.items()}})


def summarize(tuning: FolderTuning) -> TuneSummary:
    """The summary of a session on a folder."""
    r, p = tuning.result, tuning.prepared
    return TuneSummary(
        best_config=r.best_config,
        best_latency_us=r.best_latency_us,
        current_config=r.current_config,
        current_latency_us=r.current_latency_us,
        speedup=judged_speedup(r, tuning.judgement),
        gain_pct=tuning.judgement.gain_pct,
        better=tuning.judgement.better,
        evaluations=r.evaluations,
        served=r.served,
        space_size=r.space_size,
        raw_size=p.space.raw_size,
        knobs={k.name: list(k.values) for k in p.space.knobs},
        budget=r.budget,
        budget_rule=p.budget.describe(),
        wall_s=r.wall_s,
        stop=r.stop.value,
        strategy=r.strategy,
        outcomes=outcome_counts(r),
        launch=p.space.launch,
        kernel=p.space.kernel,
        session_dir=str(p.session_dir),
        record=str(p.record_path),
        record_aside=tuning.record_aside,
        shapes=[s.label() for s in p.user_shapes if s.label() not in dict(tuning.set_aside)],
        set_aside=dict(tuning.set_aside),
        per_shape=per_shape_in_user_order(tuning),
        shape_choice=choice_as_ran(tuning),
        edit_note=tuning.edit_note,
        computed=computed_knobs(p),
        computed_by_shape=computed_by_shape(p),
        guarded=tuning.guarded,
        speedup_over_original=tuning.against_original.speedup if tuning.against_original is not None else None,
        current_list=list(tuning.current_list),
        list_note=list_note(p),
        list_as_written=tuning.list_as_written,
        unretimed=r.unretimed,
        within=p.within,
        check_notes=list(tuning.check_notes),
        net=tuning.net.line() if tuning.net is not None else None,
        net_unchecked=[c.unchecked_label() for c in tuning.net.unchecked] if tuning.net is not None else [],
        pace=r.pace,
        first_call=p.evaluation.first_call if p.evaluation is not None else None,
        timed_on=tuning.timed_on,
    )


def judged_speedup(result: SessionResult, judgement: GainJudgement) -> float | None:
    """The best's speedup over the current configuration, where the best alone is what was judged; ``None`` where a
    per-bucket table was (b2: a table written and ``better`` beside the one best configuration's 0.0995, ten times
    slower than the current, where the table's gain is per shape: ``gain_pct``)."""
    return None if judgement.table else result.speedup


def outcome_counts(result: SessionResult) -> dict[str, int]:
    """Outcome -> candidates that ended so (first results only)."""
    out: dict[str, int] = {}
    for r in result.results:
        out[r.outcome.value] = out.get(r.outcome.value, 0) + 1
    return out


__all__ = [
    "DEFAULT_OUT",
    "FolderTuning",
    "PreparedFolder",
    "TuneRequest",
    "TuneSummary",
    "WithinSweep",
    "best_edit",
    "budget_rule",
    "canonical_source",
    "computed_by_shape",
    "computed_knobs",
    "config_text",
    "outcome_counts",
    "prepare_folder",
    "problem_sizes",
    "profiled_launch",
    "session_parts",
    "summarize",
    "tune_folder",
]
