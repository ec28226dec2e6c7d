"""A configuration, how its evaluation ended, and what was measured (pure; the engine's shared words).

A *configuration* is one value for every knob of one launch; a *candidate* is a configuration the engine
evaluates (compile, check, time). A candidate's failure is a :class:`Result` with an :class:`Outcome`,
never an exception (STYLE.md, convention 4).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.vocabulary import COMPUTED  # the word the planner's plans write too

Value = int | float | bool | str


def is_computed(value: object) -> bool:
    """``value`` is :data:`COMPUTED` (the computation of the current kernel, not a literal)."""
    return isinstance(value, str) and value == COMPUTED


@dataclass(frozen=True)
class Config(Mapping[str, Value]):
    """One value for every knob of a launch, immutable and hashable; knobs kept sorted by name."""

    items_: tuple[tuple[str, Value], ...]

    @classmethod
    def of(cls, values: Mapping[str, Value]) -> Config:
        """The configuration of ``values`` (knob name -> value)."""
        return cls(tuple(sorted(values.items())))

    def __getitem__(self, name: str) -> Value:
        for k, v in self.items_:
            if k == name:
                return v
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self.items_)

    def __len__(self) -> int:
        return len(self.items_)

    def with_values(self, changes: Mapping[str, Value]) -> Config:
        """A copy with the knobs in ``changes`` set."""
        return Config.of({**dict(self.items_), **changes})

    def as_dict(self) -> dict[str, Value]:
        return dict(self.items_)

    def key(self) -> str:
        """``BLOCK_M=64,num_warps=4``: the configuration's text, the key of records and sweep files."""
        return ",".join(f"{k}={v}" for k, v in self.items_)

    def __str__(self) -> str:
        return self.key()


def config_text(config: Mapping[str, Value] | None) -> str:
    """``BLOCK=1024, num_warps=4`` (``-`` for none): a configuration as the lines of a session name it."""
    return ", ".join(f"{k}={v}" for k, v in Config.of(config).items()) if config else "-"


class Outcome(StrEnum):
    """How one candidate's evaluation ended."""

    OK = "ok"  # compiled, correct, timed
    INVALID = "invalid"  # pruned before compiling: illegal value, cannot fit (shared memory, registers, tile > problem)
    COMPILE_ERROR = "compile_error"
    COMPILE_TIMEOUT = "compile_timeout"
    WRONG_RESULT = "wrong_result"  # a correctness check failed (mismatch, NaN, unwritten output, input mutated, ...)
    RUN_ERROR = "run_error"  # the kernel raised while running
    RUN_TIMEOUT = "run_timeout"  # the check or the timing passed its limit; the worker was killed
    OUT_OF_MEMORY = "out_of_memory"
    WORKER_CRASH = "worker_crash"  # the worker died (a signal, an exit without a reply)
    NOT_RUN_BUDGET = "not_run_budget"  # proposed but left when the budget ran out

    @property
    def ok(self) -> bool:
        return self is Outcome.OK

    @property
    def transient(self) -> bool:
        """The outcome may be the machine's, not the configuration's: a worker killed from outside, a run error
        or an out-of-memory the environment caused (another process on the device, a variable since unset).
        A session record does not serve it: a rerun measures the configuration again."""
        return self in _TRANSIENT


_TRANSIENT = frozenset({Outcome.WORKER_CRASH, Outcome.RUN_ERROR, Outcome.OUT_OF_MEMORY, Outcome.NOT_RUN_BUDGET})

#: Outcomes of a kernel that may be the machine's, not the kernel's: past the candidate limit on a loaded machine (its
#: first call compiles), a worker that died without a word, the host's memory refused (:func:`machine_outcome`). A run
#: error carries the kernel's own error (kstep's ``tl.dot`` with K = 8 as written): a pick that runs there is measured
#: against a kernel that does not, as after a compile error.
MACHINE_OUTCOMES = frozenset(
    {Outcome.RUN_TIMEOUT, Outcome.COMPILE_TIMEOUT, Outcome.WORKER_CRASH, Outcome.OUT_OF_MEMORY}
)

#: A device's out-of-memory in a candidate's reason (torch's ``OutOfMemoryError``, "CUDA out of memory"): the
#: kernel's own (a workspace a knob sizes), not the host's.
_DEVICE_OOM = ("OutOfMemoryError", "CUDA out of memory")


def machine_outcome(outcome: Outcome, reason: str | None) -> bool:
    """Whether a kernel's ``outcome`` (with its ``reason``) may be the machine's, not the kernel's: one of
    :data:`MACHINE_OUTCOMES`, an out-of-memory only where it is the host's (``MemoryError: std::bad_alloc`` of an 86 MB
    run on a loaded CPU, breaker18's l1), never a device's (:data:`_DEVICE_OOM`). The one rule of the session's
    baseline (``session.machine_failed``) and of the net's original (netsafe20: not a refusal of the size)."""
    if outcome not in MACHINE_OUTCOMES:
        return False
    return outcome is not Outcome.OUT_OF_MEMORY or not any(w in (reason or "") for w in _DEVICE_OOM)


class Result(BaseModel):
    """What one candidate's evaluation gave.

    Attributes:
        config: knob name -> value of the candidate.
        outcome: how it ended.
        reason: one line for a failure; ``None`` when it was timed.
        error_class: a wrong result's check name (``WrongDevice``, ``Mismatch``, ...), which decides the hints its
            line may carry (:func:`kernelopt.harness.hints.failure_class`); ``None`` otherwise.
        latency_us: median of ``samples_us`` on the primary shape, microseconds; ``None`` unless ``OK``. A
            candidate timed on several ``SHAPES`` entries: the sum of their medians
            (:func:`kernelopt.tuning.shapes.total`), so each shape weighs what it costs in the ranking.
        samples_us: the timing samples, microseconds; timed on several shapes, each round's sum over them where
            every shape has as many rounds, else the primary's (:func:`kernelopt.tuning.shapes.merge`).
        latency_us_by_shape: shape label (:meth:`ProblemShape.label`) -> the median on that shape,
            microseconds; empty when only one shape was timed.
        compile_s, check_s, bench_s: seconds spent compiling, checking and timing it (``None``: not done).
        entry_compile_s: on a GPU across ``SHAPES`` entries, the seconds of its first calls at the entries after the
            primary (loading it and the call that compiled it for each entry's own specialization), counted in
            ``check_s``: a re-time, which finds it compiled, does not spend them again (``None``: one entry, or the
            interpreter, where a first call is a run like any other).
        peak_bytes: the bench worker's peak device memory while it ran, bytes (``None``: not measured).
        retimed: the latency comes from the interleaved re-time of the top few.
        recorded: served from a record (a resumed session or a replayed sweep), not measured now.
        failed_entry: a session across ``SHAPES`` entries: the label of the entry the candidate failed (its check,
            or its timing there), ``None`` when it passed them all or one shape was run. Such a candidate was never
            timed where it failed, and is no candidate of the stall rule (:func:`kernelopt.tuning.budget.stalled`).
        cut_slow: its timing was cut early, far slower than the best so far
            (:data:`~kernelopt.tuning.bench_worker.CUT_FACTOR`): ``latency_us`` is the median of the samples it had
            (``reason`` says why), it passed its check, and it is never picked nor re-timed.
        grows_with_tiles: an ``INVALID`` refusal of a bound that only grows with the tiles (the shared memory its
            largest ``tl.dot``'s operand tiles take, measured in Triton's interpreter): every configuration whose
            block knobs are all at least this one's is refused too (:meth:`~kernelopt.tuning.space.Space.larger_tiles`;
            the session sets them aside untimed and the strategy never proposes them).
        shrinks_with_tiles: a ``RUN_ERROR`` of a bound smaller tiles break too (a ``tl.dot`` whose K is under the 16
            a GPU compile needs, :func:`kernelopt.harness.interpreter.dot_k_problem`): every configuration whose block
            knobs are all at most this one's fails it too, and is set aside and never proposed alike.

        timing: how its samples were taken (:attr:`~kernelopt.tuning.bench_worker.BenchReply.timing`: ``cuda_graph``,
            ``cuda_events``, ``cuda_batch``, ``cpu_perf_counter``); across ``SHAPES`` entries timed alike that one,
            else each entry's, ``B=2: cuda_events; B=1: cuda_graph`` (:func:`kernelopt.tuning.shapes.merge`); ``None``:
            not timed, or not said (a record from before claim20, a sweep). Two figures of one configuration timed
            by other methods are what claim20's outlier was likely made of.
        rel_err: its check's ``||out - ref|| / ||ref||`` at the entry it ran (an evaluator's own, one entry; ``None``:
            not measured, or merged over entries), which :mod:`kernelopt.tuning.accuracy` compares with the original's
            on the same inputs.
        worst_ratio: its check's largest ``|out - ref| / (atol + rtol |ref|)`` there (1 = at the tolerance).
        roundoff: the unit roundoff of that output's precision (2**-10 for fp16; ``None``: not measured).
    """

    model_config = ConfigDict(extra="forbid")

    config: dict[str, Value]
    outcome: Outcome
    reason: str | None = None
    error_class: str | None = None
    latency_us: float | None = Field(default=None, ge=0)
    samples_us: list[float] = Field(default_factory=list)
    latency_us_by_shape: dict[str, float] = Field(default_factory=dict)
    compile_s: float | None = Field(default=None, ge=0)
    check_s: float | None = Field(default=None, ge=0)
    bench_s: float | None = Field(default=None, ge=0)
    entry_compile_s: float | None = Field(default=None, ge=0)
    peak_bytes: int | None = Field(default=None, ge=0)
    retimed: bool = False
    recorded: bool = False
    failed_entry: str | None = None
    cut_slow: bool = False
    grows_with_tiles: bool = False
    shrinks_with_tiles: bool = False
    timing: str | None = None
    rel_err: float | None = Field(default=None, ge=0)
    worst_ratio: float | None = Field(default=None, ge=0)
    roundoff: float | None = Field(default=None, ge=0)

    @property
    def key(self) -> str:
        return Config.of(self.config).key()

    @classmethod
    def failed(cls, config: Mapping[str, Value], outcome: Outcome, reason: str) -> Result:
        """A failed candidate's result."""
        return cls(config=dict(config), outcome=outcome, reason=reason)
