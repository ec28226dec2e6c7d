"""The timed check's and the verdicts' edges (verdicts22, 2026-12-07): a graph whose later calls copy an earlier call's
result (x1), the order and the freeing of the graphs that check a timed one (x2). No GPU here: ``torch.cuda``'s graphs
are played by the CPU (tests/played_graph.py) and the timers' own graph code runs on them; the GPU proof is
tests/test_gpu_verdicts22.py (phase ``verdicts22``)."""

from __future__ import annotations

import contextlib
import ctypes
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from kernelopt.harness import timers
from kernelopt.harness.model import BenchSettings, TimingMethod

from .played_graph import PlayedGraph, play_cuda
from .test_timing21_cases import CALLS, _bench_played, _one_buffer, _sets

_KEPT: dict[int, torch.Tensor] = {}


def _copies_while_captured(x: torch.Tensor) -> torch.Tensor:
    """x1's cheat: while a graph is captured, the first call on an input computes its result and keeps it (by the
    input's pointer); every later call on that input returns a new copy of it, ``kept.clone()``, which records a copy,
    not the work. Every output its own storage, each right after any replay (both calls read the same values)."""
    if not torch.cuda.is_current_stream_capturing():
        return x * 2
    if x.data_ptr() not in _KEPT:
        _KEPT[x.data_ptr()] = x * 2
        return _KEPT[x.data_ptr()]
    return _KEPT[x.data_ptr()].clone()


def test_x1_a_graph_whose_later_calls_copy_an_earlier_call_s_result_is_not_the_timing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """x1: ``timers._prepare`` on a "cuda" device the CPU plays. The ``kept.clone()`` cheat returns every call its own
    tensor, right after a replay: neither ``replay_stale`` nor timing21's y1 (asked only where outputs share storage)
    told, and the graph was timed as 8 calls where it computes 3 (CUDA_GRAPH on main's code). Now every call reading a
    set an earlier call read is compared with that call in the check's graph, each visit of a set given other values:
    call 3's copy is call 0's where eager calls on their inputs differ, so the calls are timed back to back, said."""
    _KEPT.clear()
    play_cuda(monkeypatch, CALLS)
    sets = _sets()
    built = [s[0].clone() for s in sets]
    sampler = timers._prepare(_copies_while_captured, sets, "cuda", BenchSettings(), None)
    assert sampler.method is TimingMethod.CUDA_BATCH, sampler.warnings
    assert sampler.warnings == [
        "call 3 of the CUDA graph returned call 0's output as call 0 left it, where its own inputs held other values "
        "and a call on them computes another output: a replay does fewer calls than it is timed as (a kernel that "
        "keeps its result while a graph is captured, say); timing back-to-back launches, which includes launch overhead"
    ]
    assert all(torch.equal(s[0], b) for s, b in zip(sets, built, strict=True))


def test_x1_the_pairs_compared_are_each_call_s_storage_and_its_set_s_visit_before() -> None:
    """Which calls the check compares: a call returning storage an earlier call returned (y1) and a call reading the set
    the call ``sets`` before it read (x1), each pair once, in the order of the later call."""
    a, b, c = torch.zeros(2), torch.zeros(2), torch.zeros(2)
    assert timers.revisits([a, b, c, a, torch.zeros(2)], 2) == [(0, 3), (0, 2), (1, 3), (2, 4)]
    assert timers.revisits([a, b], 3) == []


@pytest.mark.parametrize("name", ["honest, an output a call", "honest, one output buffer"])
def test_x2_the_timed_graph_is_captured_first_and_its_checks_graphs_are_freed(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """x2: timing21's second graph (the check of y1, whose copies y3's probe read) was kept with the sampler, its copies
    and its sets' values (up to the graph's output cap and twice the rotation's) held in device memory while the
    samples were taken, and captured after the timed graph. Now the graph the samples replay is the first captured
    (``made[0]``), the check's is freed before ``_prepare`` returns, and where calls share storage the probe captures
    its own graph of every call, freed after it has read them. The probe still checks every call (each output
    right)."""
    kernel = _one_buffer if "buffer" in name else (lambda x: x * 2)
    play_cuda(monkeypatch, CALLS)
    sets = _sets()
    sampler = timers._prepare(kernel, sets, "cuda", BenchSettings(), None)
    assert sampler.method is TimingMethod.CUDA_GRAPH, sampler.warnings
    timed, check = (ref() for ref in PlayedGraph.made)
    assert timed is not None and check is None and sampler.keep[0] is timed  # main: the check's kept, in keep[2]
    assert all(item is not check for item in sampler.keep)
    probed = sampler.probe()
    assert all(torch.equal(out, sets[k][0] * 2) for k, out in probed)
    shared = "buffer" in name
    assert len(probed) == (1 + CALLS if shared else CALLS)
    assert len(PlayedGraph.made) == (3 if shared else 2) and all(ref() is None for ref in PlayedGraph.made[1:])


COPIES = """
import torch

_KEPT = {}


def run(x, y):
    if not torch.cuda.is_current_stream_capturing():
        return x + y
    if x.data_ptr() not in _KEPT:
        _KEPT[x.data_ptr()] = x + y
        return _KEPT[x.data_ptr()]
    return _KEPT[x.data_ptr()].clone()
"""


def test_x1_the_gate_times_the_copying_kernel_s_calls_back_to_back_and_passes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """x1 through the gate's timing in process (SEEDED_ADD's case, 3 sets, a played "cuda"): the copying kernel's
    timing is its calls back to back, which compute (it copies only while captured), its warning the line; it passes."""
    res = _bench_played(tmp_path, monkeypatch, COPIES)
    assert res.failure is None, res.failure
    timing = res.timings[0].versions[-1]
    assert timing.method is TimingMethod.CUDA_BATCH and timing.samples_us, timing
    assert any("a replay does fewer calls than it is timed as" in w for w in timing.warnings), timing.warnings


# ------------------------------------------------- x3: a float64 value past the dtype's largest is an overflow's trace

_SUMS = """import torch
from torch import nn


class {cls}(nn.Module):
    def forward(self, x):
        return {body}


def get_inputs():
    g = torch.Generator().manual_seed(0)
    x = (torch.rand(64, 256, generator=g) * 200).to(torch.float16)
    x[:8] = 400.0  # these rows sum to 102400 in float64: past fp16's 65504, inf in fp16, 65504 after nan_to_num
    return [x]


def get_init_inputs():
    return []
"""
_OWN_SUM = "torch.nan_to_num(x.sum(dim=1))"
SUMS = {  # the kernel, whether it passes
    "the reference's own code": (_OWN_SUM, True),
    "a float32 sum rounded once": ("torch.nan_to_num(x.float().sum(dim=1).half())", True),
    "a sum 10 % off": ("torch.nan_to_num((x.float().sum(dim=1) * 1.1).half())", False),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(SUMS))
def test_x3_a_reference_value_kept_at_fp16_s_largest_widens_no_tolerance(tmp_path: Path, name: str) -> None:
    """x3: late22's z12 took only the own run's exact 0 for an overflow's trace. A reference ``nan_to_num(x.sum(1))``
    in fp16 whose rows past 65504 are kept as 65504 (float64 102400) had that loss read as its rounding: "widened x200"
    (rtol 0.39), and a kernel 10 % off passed (main's code). A float64 value past the dtype's largest is an overflow's
    trace now, whatever the own run left there: the tolerance is the default, the 10 % kernel fails, and the
    reference's own code and a float32 sum (65504 there too, reproduced) pass."""
    from tests.conftest import check_in_process

    body, passes = SUMS[name]
    (tmp_path / "reference.py").write_text(_SUMS.format(cls="Model", body=_OWN_SUM))
    (tmp_path / "kernel.py").write_text(_SUMS.format(cls="ModelNew", body=body))
    result = check_in_process(tmp_path, "v1")
    assert (result.failure is None) is passes, result.failure
    assert result.cases[0].tolerance is not None and result.cases[0].tolerance.basis == "default", result.cases[0]
    if not passes:
        assert "differs from the reference beyond tolerance (56 of 64 elements" in result.failure.message


# ------------------------------------------------- x4: the re-time's own figure said nowhere beside the one claimed


def test_x4_a_claim_says_one_figure_not_the_re_time_s_beside_the_calibrated_one() -> None:
    """x4: late25's seen item. On skewed samples the gate says the medians' 60.6x where the ABBA blocks say 90.9x
    (late23 z21, late25 z30), and the re-time, read by the blocks alone, said "re-timed 90.9x" beside it: two figures
    for one question in the claim's words (the report's line, ``validate``, the headline) and the decision's detail.
    Now the words say that a re-time repeated the claim (its sign test's p in the detail), and the one figure is the
    one claimed."""
    from kernelopt.harness.decision import describe_speedup
    from kernelopt.harness.gate import _reference_speedup
    from kernelopt.harness.model import REFERENCE_LABEL
    from kernelopt.report.headline import eager_claim
    from tests.test_late23_cases import interleaved_case
    from tests.test_late25_cases import _skewed_timing

    before, kernel = _skewed_timing(24, (300.0, 100.0), (3.3, 1.1))
    case = interleaved_case(before, kernel, {REFERENCE_LABEL: before}, retimed=True)
    for s in (case.speedup, case.reference_speedup):
        assert s is not None and s.confirmed and s.speedup == pytest.approx(200 / 3.3), s
        assert s.retime_speedup == pytest.approx(300 / 3.3)  # kept in the record
        detail = describe_speedup(s)
        assert detail.startswith("60.606x") and "90.9" not in detail and "; re-timed, p " in detail, detail
    vs = _reference_speedup(case)
    assert vs is not None
    assert eager_claim(vs).endswith(", re-timed: improvement") and "90.9" not in eager_claim(vs), eager_claim(vs)


# ------------------------------------------------- x5: an integer output left unwritten in fewer elements than chance

M_PERTURB = -6  # glibc's mallopt parameter behind MALLOC_PERTURB_


@contextlib.contextmanager
def poisoned_host(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process's fresh host memory filled with the workers' poison byte (0x7F) while the block runs, as a worker's
    is (``MALLOC_PERTURB_``, through glibc's mallopt), and as it was after."""
    from kernelopt.harness.poison import MALLOC_PERTURB

    own = os.environ.get("MALLOC_PERTURB_", "")
    monkeypatch.setenv("MALLOC_PERTURB_", MALLOC_PERTURB)
    mallopt = ctypes.CDLL(None).mallopt
    assert mallopt(M_PERTURB, int(MALLOC_PERTURB)), "glibc's mallopt"
    try:
        yield
    finally:
        mallopt(M_PERTURB, int(own) if own.isdigit() else 0)


_INT16 = """import torch
from torch import nn


class {cls}(nn.Module):
    def forward(self, x):
{body}


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randint(-32768, 32767, (1 << 20,), dtype=torch.int16, generator=g)]


def get_init_inputs():
    return []
"""
_LEFT = """        out = torch.empty_like(x)
        out[3:] = x.flip(0)[3:]  # three elements never written
        return out"""
INT16 = {  # the reference's body, what the check says
    "three elements left unwritten": (_LEFT, "holds 3 of 1048576 elements it never wrote"),
    "every element written (r16's flip)": ("        return x.flip(0)", None),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(INT16))
def test_x5_an_integer_output_left_unwritten_in_fewer_elements_than_chance_is_the_reference_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """x5: review21's r16 let an integer output hold the poison pattern (32639 in int16) in up to the chance count of
    elements (46 of a million int16); a reference leaving three elements unwritten was checked, its garbage the answer
    (the reference's own code as the kernel PASS on main's code, the host's memory poisoned as the worker's is). Where
    the count is that low the reference runs once more, its fresh memory another byte (0x3C): an element holding each
    run's pattern was written by neither, the problem's ERROR; r16's flip, holding 32639 as values in both, passes."""
    from tests.conftest import check_in_process

    body, said = INT16[name]
    (tmp_path / "reference.py").write_text(_INT16.format(cls="Model", body=body))
    (tmp_path / "kernel.py").write_text(_INT16.format(cls="ModelNew", body=body))
    with poisoned_host(monkeypatch):
        result = check_in_process(tmp_path, "v1")
    if said is None:
        assert result.failure is None, result.failure
        return
    assert result.failure is not None and result.failure.error_class == "ReferenceNotWritten", result.failure
    assert said in result.failure.message, result.failure.message


# ------------------------------------------------- x6: bf16's largest value where the float64 run does not fit


@pytest.mark.timeout(60)
def test_x6_a_bf16_reference_at_its_largest_value_is_checked_where_its_float64_run_does_not_fit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """x6: late22's seen item. bf16's largest value is the poison pattern (0x7F7F); r17 and z13 told it from memory the
    reference never wrote by its float64 run, and where that run did not fit beside the problem the gate and ``tune``
    refused ``torch.nan_to_num(x / y)`` as "holds 256 of 4096 elements it never wrote" (main's code, the placement
    made to skip the run). The reference's second run, its fresh memory another byte, tells it now, no float64 copy
    needed: the gate passes the correct kernel and ``tune``'s setup builds it; a reference leaving half its output
    to the allocator is still refused by both."""
    import dataclasses

    from kernelopt.harness import worker
    from kernelopt.harness.inputs import ReferenceNotWritten
    from kernelopt.tuning.checks import LoadedProblem
    from kernelopt.tuning.problem import Problem, ProblemShape
    from tests.conftest import check_in_process
    from tests.test_review21_cases import _BF16, _EMPTY_HALF, _SATURATED

    placed = worker.place_check
    skipped = "the float64 run does not fit beside the problem (the test's placement)"
    monkeypatch.setattr(
        worker, "place_check", lambda fp: dataclasses.replace(placed(fp), high=False, high_skipped=skipped)
    )
    monkeypatch.setattr(LoadedProblem, "_placed_high", lambda self, ref: (None, skipped))
    for name, body, said in (("saturated", _SATURATED, None), ("half", _EMPTY_HALF, "holds 2048 of 4096 elements")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "reference.py").write_text(_BF16.format(cls="Model", body=body))
        (folder / "kernel.py").write_text(_BF16.format(cls="ModelNew", body=_SATURATED))
        with poisoned_host(monkeypatch):
            failure = check_in_process(folder, "v1").failure
            loaded = LoadedProblem.load(
                Problem(reference_py=folder / "reference.py", kernel_py=folder / "kernel.py"), "cpu"
            )
            if said is None:
                loaded.build(ProblemShape(kwargs={}))
            else:
                with pytest.raises(ReferenceNotWritten, match=said):
                    loaded.build(ProblemShape(kwargs={}))
        if said is None:
            assert failure is None, failure
        else:
            assert failure is not None and failure.error_class == "ReferenceNotWritten", failure
            assert said in failure.message, failure


# ------------------------------------------------- x7: a graph that missed part of the work re-times what it needs


def test_x7_a_graph_that_missed_part_of_a_correct_kernel_s_work_is_timed_again_alone_made_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """x7: timing21's y2 timed the case again whole when the current version's graph missed part of its work: every
    sampler made again (the reference's warm-up, estimate and graph capture too, beside the kernel's), the inputs built
    again. Now only the kernel's sampler is made again, without a graph, and every sampler (the reference's kept) takes
    the second timing's interleaved samples on the sets given back their values: the reference is warmed once, the
    kernel twice (three and two on main's code), and the kernel passes timed by calls back to back."""
    from kernelopt.harness.model import REFERENCE_LABEL

    from .bench_job import bench_job
    from .test_agents19_cases import SEEDED_ADD
    from .test_timing21_cases import PARTLY_UNCAPTURED

    warmed = counted_warmups(monkeypatch)
    play_cuda(monkeypatch, CALLS)
    prepare = timers._prepare
    monkeypatch.setattr(timers, "rotation_count", lambda *_: 3)
    monkeypatch.setattr(
        timers, "_prepare", lambda fn, sets, _device, settings, flusher: prepare(fn, sets, "cuda", settings, flusher)
    )
    res = bench_job(tmp_path, monkeypatch, SEEDED_ADD, PARTLY_UNCAPTURED, time_reference=True)
    assert res.failure is None, res.failure
    versions = {v.label: v for v in res.timings[0].versions}
    kernel, reference = versions["t"], versions[REFERENCE_LABEL]
    assert kernel.method is TimingMethod.CUDA_BATCH and kernel.samples_us, kernel
    assert reference.method is TimingMethod.CUDA_GRAPH and len(reference.samples_us) == len(kernel.samples_us)
    assert sorted(warmed.count(f) for f in set(warmed)) == [1, 2], warmed


def counted_warmups(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The callables the gate's timing warms up and makes a sampler of (``worker._warm_sampler``), one entry a time,
    each by its id: a test counts how often each was made."""
    from kernelopt.harness import worker

    warmed: list[int] = []
    warm = worker._warm_sampler

    def counted(ctx: object, fn: object, *args: object, **kwargs: object) -> object:
        warmed.append(id(fn))
        return warm(ctx, fn, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(worker, "_warm_sampler", counted)
    return warmed


def test_x5_a_second_run_that_does_not_fit_leaves_the_rule_before_it() -> None:
    """x5 and x6's second run of the reference may not fit where the first did (its outputs are still held): out of
    memory there, the rule is the one before it (an int16 output's few patterns are chance's, a bf16 output's are
    memory never written), never the reference's failure; where it runs, only the elements holding both patterns
    count."""
    from kernelopt.harness.inputs import unwritten_reference_line
    from kernelopt.harness.poison import OTHER_POISON_BYTE

    def no_room() -> None:
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 MiB")

    ints = torch.arange(1 << 12, dtype=torch.int16)
    ints[:3] = 0x7F7F
    brain = torch.ones(1 << 12, dtype=torch.bfloat16)
    brain.view(torch.int16)[:5] = 0x7F7F
    assert unwritten_reference_line(ints, None, no_room) is None
    assert "holds 5 of 4096 elements" in (unwritten_reference_line(brain, None, no_room) or "")
    again = ints.clone()
    again[1:3] = OTHER_POISON_BYTE * 0x101  # two of the three left to memory the second run filled otherwise
    assert "holds 2 of 4096 elements" in (unwritten_reference_line(ints, None, lambda: again) or "")


# ------------------------------------------------- x8: an overflow inside the reference whose outputs are in range

_OWN_QUOTIENT = "x / torch.nan_to_num(x.sum(dim=1, keepdim=True))"
QUOTIENTS = {  # the kernel, whether it passes
    "the reference's own code": (_OWN_QUOTIENT, True),
    "a float32 quotient rounded once": ("(x.float() / x.float().sum(dim=1, keepdim=True)).half()", True),
    "a quotient 10 % off": ("(x.float() / x.float().sum(dim=1, keepdim=True) * 1.1).half()", False),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(QUOTIENTS))
def test_x8_an_overflow_inside_the_reference_widens_no_tolerance_where_its_outputs_are_in_range(
    tmp_path: Path, name: str
) -> None:
    """x8: x3's seen item. ``x / nan_to_num(x.sum(1))`` in fp16: the rows whose sum passes 65504 are divided by 65504
    for 102400, every quotient in range and 1.56x its float64 value, and that loss read as the reference's rounding
    widened the tolerance x176: a kernel 10 % off passed (main's code before x8). The reference's run rounding as fp16
    does without its range (``highrun.run_rounded``) saw a sum past 65504, so its rounding is read from that run (the
    default tolerance here) and the own run's value is one answer: the 10 % kernel fails, the reference's own code and
    a float32 quotient pass; the check says why in a warning."""
    from tests.conftest import check_in_process

    body, passes = QUOTIENTS[name]
    (tmp_path / "reference.py").write_text(_SUMS.format(cls="Model", body=_OWN_QUOTIENT))
    (tmp_path / "kernel.py").write_text(_SUMS.format(cls="ModelNew", body=body))
    result = check_in_process(tmp_path, "v1")
    assert (result.failure is None) is passes, result.failure
    assert result.cases[0].tolerance is not None and result.cases[0].tolerance.basis == "default", result.cases[0]
    assert any("an operation of the reference overflowed float16's range" in w for w in result.warnings)
