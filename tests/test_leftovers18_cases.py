"""leftovers18: the sixteenth session's leftovers (docs/faults.md, "leftovers18"): a pick refused at one entry by noise
re-timed there, vLLM's split count moved with its buffer, discovery's tuples and platform tests, and lines a user
reads. Each test is cheap: a scripted evaluator (no sleeps, no real timing), static discovery, or one line."""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.shape_evaluator import ShapesEvaluator
from kernelopt.tuning.shapes import total

DATA = Path(__file__).parent / "data"
CURRENT, PICK = {"BLOCK": 64}, {"BLOCK": 4096}


@pytest.fixture(scope="module")
def two_entries(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """tests/data/tuning/chunks (a literal ``BLOCK = 64``, torch on the CPU) with the SHAPES entries n=4096 and
    n=1024, prepared for tuning: a pick judged entry by entry is written as the one configuration (no table)."""
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folder = tmp_path_factory.mktemp("leftovers18") / "chunks"
    shutil.copytree(DATA / "tuning" / "chunks", folder)
    ref = folder / "reference.py"
    ref.write_text(ref.read_text().replace('SHAPES = [{"n": 4096}]', 'SHAPES = [{"n": 4096}, {"n": 1024}]'))
    yield prepare_folder(TuneRequest(folder=folder, device="cpu"))


class Scripted(ShapesEvaluator):
    """A session's evaluator across entries whose re-time at an entry gives the figures it is scripted with (config
    text -> microseconds), and records what it was asked: no worker, no timing."""

    def __init__(self, labels: Sequence[str], again: dict[str, float], ok: bool = True) -> None:
        self.labels, self.untimed, self.set_aside = list(labels), frozenset(), {}
        self.again, self.ok, self.asked = again, ok, []  # type: list[tuple[str, list[dict]]]

    def retime_at(self, label: str, batch: Sequence[Config]) -> list[Result]:
        self.asked.append((label, [c.as_dict() for c in batch]))
        out = []
        for c in batch:
            us = self.again[str(c.as_dict())]
            if not self.ok and c.as_dict() == PICK:
                out.append(Result.failed(c.as_dict(), Outcome.RUN_TIMEOUT, "no reply within 300 s"))
                continue
            out.append(Result(config=c.as_dict(), outcome=Outcome.OK, latency_us=us, latency_us_by_shape={label: us},
                              samples_us=[us] * 3, retimed=True))  # fmt: skip
        return out


def _session(
    prepared: Any, figures: dict[str, tuple[float, float]], first: dict[str, tuple[float, float]] | None = None
) -> Any:
    """A finished session on ``prepared`` whose re-timed round gave each configuration (its text) these medians on
    n=4096 and n=1024, the current configuration among them (``first``: the first round's, else the same)."""
    from kernelopt.tuning.session import SessionResult, StopReason

    big, small = (s.label() for s in prepared.shapes)

    def timed(config: dict, a: float, b: float) -> Result:
        return Result(config=config, outcome=Outcome.OK, latency_us=total([a, b]), samples_us=[a + b] * 3,
                      latency_us_by_shape={big: a, small: b}, retimed=True)  # fmt: skip

    results = [timed(eval(text), a, b) for text, (a, b) in figures.items()]
    best = min(results, key=lambda r: r.latency_us or 0.0)
    earlier = [timed(eval(text), a, b) for text, (a, b) in first.items()] if first is not None else results
    return SessionResult(
        best_config=best.config, best_latency_us=best.latency_us, current_config=CURRENT,
        current_latency_us=total(list(figures[str(CURRENT)])), results=earlier, retimed=results,
        evaluations=len(results), served=0, budget=4, space_size=7, wall_s=1.0, stop=StopReason.CANDIDATES,
        strategy="exhaustive",
    )  # fmt: skip


def test_n1_a_pick_refused_at_one_entry_by_noise_is_re_timed_there(two_entries: Any, tmp_path: Path) -> None:
    """BLOCK=4096 halves n=4096 (50 against 100 us) and its first median at n=1024 was 31.5 against the current's 30
    (one slow episode of three): judged entry by entry it was refused there, "4.8 % slower". Re-timed at n=1024 alone
    with the current, interleaved (28 against 30 us), it is judged again and written; the verdict names both rounds,
    and the record holds the re-time's two results beside the first round's."""
    from kernelopt.tuning.folder import judge_session, retimed_at_refusal
    from kernelopt.tuning.record import RecordHeader, SessionRecord

    prepared = two_entries
    big, small = (s.label() for s in prepared.shapes)
    result = _session(prepared, {str(CURRENT): (100.0, 30.0), str(PICK): (50.0, 31.5)})
    first = judge_session(prepared, result)
    assert not first.judgement.better and first.judgement.refused_at == (small, pytest.approx(100 * 1.5 / 31.5))
    assert f"is 4.8 % slower than the current configuration on {small}" in first.judgement.reason

    record = SessionRecord.open(tmp_path / "record.jsonl", RecordHeader.for_space(prepared.space, device="cpu"))
    scripted = Scripted([big, small], {str(PICK): 28.0, str(CURRENT): 30.0})
    done = retimed_at_refusal(first, scripted, partial(judge_session, prepared), record)
    assert scripted.asked == [(small, [PICK, CURRENT])]
    assert done.judgement.better and done.result.best_config == PICK, done.judgement
    assert done.judgement.reason.startswith(
        f"re-timed at {small} (3 samples each, interleaved with the current configuration): BLOCK=4096 28 us against "
        "the current 30 us (+7.1 %; judged on 31.5 us against 30 us, 4.8 % slower); "
    ), done.judgement.reason
    assert [(r.config, r.latency_us_by_shape, r.retimed) for r in record.results] == [
        (PICK, {small: 28.0}, True),
        (CURRENT, {small: 30.0}, True),
    ]
    shapes = {s.shape: (s.chosen_latency_us, s.current_latency_us) for s in done.per_shape}
    assert shapes == {big: (50.0, 100.0), small: (28.0, 30.0)}


def test_n1_a_refusal_the_re_time_confirms_or_cannot_time_stands(two_entries: Any) -> None:
    """The re-time confirms the pick slower at n=1024 (32 against 30 us): still refused, both rounds said. A re-time
    in which the pick does not time leaves the refusal as measured, saying why. A pick slower by more than the margin
    (15 %), or slower at both entries, is never re-timed."""
    from kernelopt.tuning.entry_retime import RETIME_SLOWER_PCT
    from kernelopt.tuning.folder import judge_session, retimed_at_refusal

    prepared = two_entries
    big, small = (s.label() for s in prepared.shapes)
    judge = partial(judge_session, prepared)
    first = judge_session(prepared, _session(prepared, {str(CURRENT): (100.0, 30.0), str(PICK): (50.0, 31.5)}))

    slower = Scripted([big, small], {str(PICK): 32.0, str(CURRENT): 30.0})
    kept = retimed_at_refusal(first, slower, judge)
    assert not kept.judgement.better
    assert kept.judgement.reason.startswith(f"re-timed at {small} (3 samples each, interleaved with the current "
                                            "configuration): BLOCK=4096 32 us against the current 30 us (-6.2 %; "
                                            "judged on 31.5 us against 30 us, 4.8 % slower); ")  # fmt: skip
    assert f"6.2 % slower than the current configuration on {small}" in kept.judgement.reason

    lost = retimed_at_refusal(first, Scripted([big, small], {str(PICK): 1.0, str(CURRENT): 30.0}, ok=False), judge)
    assert not lost.judgement.better and lost.result is first.result
    assert lost.judgement.reason.startswith(
        f"re-timed at {small} (interleaved with the current configuration): BLOCK=4096 did not time "
        "there (no reply within 300 s); the refusal stands (judged on 31.5 us against 30 us, 4.8 % slower); "
    ), lost.judgement.reason

    far = judge_session(prepared, _session(prepared, {str(CURRENT): (100.0, 30.0), str(PICK): (50.0, 34.5)}))
    assert far.judgement.refused_at is not None and far.judgement.refused_at[1] > RETIME_SLOWER_PCT
    never = Scripted([big, small], {})
    assert retimed_at_refusal(far, never, judge) is far and never.asked == []
    both = judge_session(prepared, _session(prepared, {str(CURRENT): (100.0, 30.0), str(PICK): (103.0, 31.5)}))
    assert both.judgement.refused_at is None and retimed_at_refusal(both, never, judge) is both


def test_claim20_an_entry_re_time_ten_times_the_round_judged_claims_no_gain(two_entries: Any) -> None:
    """claim20 (docs/faults.md, "Claims (claim20, 2026-12-06)"): the entry's re-time reading the current configuration
    at 310 us where the round judged read 30 us (as the H100's re-time read lmd_rms's kernel as written at 149.0 us
    against 3.76) turned n1's refusal into "+1007 %" and a write. Now one of the two measurements of one kernel is
    wrong by 10x or more, so the refusal stands, said with both figures; the same re-time at 28 against 30 us is n1's
    (written)."""
    from kernelopt.tuning.folder import judge_session, retimed_at_refusal

    prepared = two_entries
    big, small = (s.label() for s in prepared.shapes)
    first = judge_session(prepared, _session(prepared, {str(CURRENT): (100.0, 30.0), str(PICK): (50.0, 31.5)}))
    judge = partial(judge_session, prepared)
    far = retimed_at_refusal(first, Scripted([big, small], {str(PICK): 28.0, str(CURRENT): 310.0}), judge)
    assert not far.judgement.better and far.result is first.result
    assert far.judgement.reason.startswith(
        f"re-timed at {small} (3 samples each, interleaved with the current configuration): it read BLOCK=64 310 us "
        f"at {small} against 30 us in the round judged (10.3x): one of the two measurements of the same kernel is "
        "wrong by 10x or more; the refusal stands (judged on 31.5 us against 30 us, 4.8 % slower); "
    ), far.judgement.reason
    near = Scripted([big, small], {str(PICK): 28.0, str(CURRENT): 30.0})
    assert retimed_at_refusal(first, near, judge).judgement.better


def test_n1_a_refusal_the_session_s_two_rounds_disagree_on_is_re_timed_whatever_its_margin(two_entries: Any) -> None:
    """A real session (CPU, load 13, 2026-12-06, chunks with SHAPES n=4096 and n=1024, ``--repetitions 3``): BLOCK=1024
    at n=1024 was 11.5 us against the current's 164.3 in the first round and 587.4 against 163.1 in the re-time, one of
    its two samples 1.2 ms: refused "72.2 % slower", past the margin. The rounds disagree, so the entry is re-timed and
    the verdict gives both rounds; where both rounds had the pick slower there, the margin holds."""
    from kernelopt.tuning.folder import judge_session, retimed_at_refusal

    prepared = two_entries
    big, small = (s.label() for s in prepared.shapes)
    pick = {"BLOCK": 1024}
    first = {str(CURRENT): (650.2, 164.3), str(pick): (43.2, 11.5)}
    tuning = judge_session(
        prepared, _session(prepared, {str(CURRENT): (640.9, 163.1), str(pick): (51.3, 587.4)}, first)
    )
    assert tuning.judgement.refused_at == (small, pytest.approx(72.2, abs=0.05)), tuning.judgement
    scripted = Scripted([big, small], {str(pick): 12.0, str(CURRENT): 160.0})
    done = retimed_at_refusal(tuning, scripted, partial(judge_session, prepared))
    assert scripted.asked == [(small, [pick, CURRENT])] and done.judgement.better, done.judgement
    assert done.judgement.reason.startswith(
        f"re-timed at {small} (3 samples each, interleaved with the current configuration): BLOCK=1024 12 us against "
        "the current 160 us (+1233.3 %; judged on 587.4 us against 163.1 us, 72.2 % slower; the other round 11.5 us "
        "against 164.3 us); "
    ), done.judgement.reason
    agreed = {str(CURRENT): (650.2, 164.3), str(pick): (43.2, 590.0)}
    slow = judge_session(prepared, _session(prepared, {str(CURRENT): (640.9, 163.1), str(pick): (51.3, 587.4)}, agreed))
    never = Scripted([big, small], {})
    assert retimed_at_refusal(slow, never, partial(judge_session, prepared)) is slow and never.asked == []


# ------------------------------------------------------------------------------------- n2: a split count run() owns

BREAKER17 = DATA / "breaker17"


def _knobs(source: str) -> dict[str, Any]:
    from kernelopt.tunables import discover_source

    return {t.key: t for t in discover_source(source)}


@pytest.mark.timeout(180)
def test_n2_a_split_count_run_owns_and_sizes_its_buffer_with_is_its_assignment(tmp_path: Path) -> None:
    """breaker17's vllm_decode_att: ``run`` binds ``num_kv_splits = 8``, sizes ``attn_logits`` with it and hands both
    down to the two stages (``NUM_KV_SPLITS = num_kv_splits`` at each launch). discovery17 held the split ("change it
    where the buffer is sized"): but ``run`` is where it is sized, and an edit of that line moves both launches and the
    buffer together. The knob is that assignment, one for both launches; the written kernel is right with 32 splits at a
    size no entry names. Where ``run`` takes the split from its own caller (a parameter), the buffer's
    size comes from outside what ``tune`` edits: held, as before."""
    from kernelopt.tunables import apply_source
    from tests.test_breaker7_cases import _all_correct

    source = (BREAKER17 / "vllm_decode_att" / "kernel.py").read_text()
    found = _knobs(source)
    knob = found["_fwd_kernel_stage1:NUM_KV_SPLITS"]
    assert "_fwd_kernel_stage2:NUM_KV_SPLITS" not in found  # one knob, read at both launches
    assert (knob.value, knob.location, knob.refused_reason, knob.semantic) == (8, "kernel.py:265", None, False)
    assert knob.used_at == ["kernel.py:143", "kernel.py:238"], knob.used_at
    for splits in (2, 32):
        written = apply_source(source, {"_fwd_kernel_stage1:NUM_KV_SPLITS": splits}).new_source
        assert f"    num_kv_splits = {splits}  # vLLM's default split count\n" in written
        assert written.count("NUM_KV_SPLITS = num_kv_splits") == 2  # the launches read it as written
    # 32 splits of 37 keys: most splits hold one key or none, each written and merged in the buffer's 32
    folder = Path(shutil.copytree(BREAKER17 / "vllm_decode_att", tmp_path / "split32"))
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"B": 1, "L": 37, "H": 2, "KVH": 1, "D": 20, "DV": 9, "P": 3}])

    given = source.replace("def run(q, k_buffer, v_buffer, req_to_token, b_seq_len, page):", "def run(q, k_buffer, "
                           "v_buffer, req_to_token, b_seq_len, page, num_kv_splits=8):").replace(
        "    num_kv_splits = 8  # vLLM's default split count\n", "")  # fmt: skip
    assert given != source
    held = _knobs(given)
    for key in ("_fwd_kernel_stage1:NUM_KV_SPLITS", "_fwd_kernel_stage2:NUM_KV_SPLITS"):
        assert held[key].semantic and "run() also sizes 'attn_logits'" in (held[key].refused_reason or ""), held[key]


# ------------------------------------------------------------------------------------- n3: discovery's tuples, platforms

AT_LAUNCH = [
    ("    bm, bn = TILE\n", ""),
    ("(triton.cdiv(M, bm), triton.cdiv(N, bn))](x, y, M, N, BLOCK_M=bm, BLOCK_N=bn)",
     "(triton.cdiv(M, TILE[0]), triton.cdiv(N, TILE[1]))](x, y, M, N, BLOCK_M=TILE[0], BLOCK_N=TILE[1])"),
]  # fmt: skip
"""leftovers17's tuple_run with the tuple's elements read at the launch (``BLOCK_M=TILE[0]``), not unpacked first."""


@pytest.mark.timeout(180)
def test_n3_a_module_tuple_s_element_read_at_the_launch_is_a_knob_written_in_the_tuple(tmp_path: Path) -> None:
    """``BLOCK_M=TILE[0]`` at the launch (``TILE = (16, 16)`` at the module) was "value is computed at the launch:
    TILE[0]", a computed setting tuned by an override, one value for every size. Each literal-indexed element is a
    knob keyed ``TILE[0]``, written back in the tuple, as leftovers17's ``bm = TILE[0]`` is; right at sizes no entry
    names. Without masks (a grid of ``M // TILE[0]`` programs) a move that does not divide the original is refused
    (the guard reads the grid's ``TILE[0]``). A tuple indexed by a name, or nested, stays a computed setting."""
    from kernelopt.tunables import apply_source
    from kernelopt.tunables.guard import guard_edit
    from tests.test_break17_cases import TUPLE_NOMASK, _built
    from tests.test_breaker7_cases import _all_correct

    folder = _built(tmp_path, "leftovers17/tuple_run", "launch", AT_LAUNCH)
    source = (folder / "kernel.py").read_text()
    found = _knobs(source)
    for at in (0, 1):
        knob = found[f"TILE[{at}]"]
        assert (knob.kind.value, knob.value, knob.location, knob.refused_reason) == (
            "module_constant",
            16,
            "kernel.py:8",
            None,
        ), knob
    written = apply_source(source, {"TILE[0]": 64, "TILE[1]": 8}).new_source
    assert "TILE = (64, 8)\n" in written and written.count("TILE[0]") == 2, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 37, "N": 200}, {"M": 130, "N": 17}, {"M": 1, "N": 1}])

    bare = source
    for old, new in TUPLE_NOMASK[:2]:
        bare = bare.replace(old, new)
    bare = bare.replace("(triton.cdiv(M, TILE[0]), triton.cdiv(N, TILE[1]))", "(M // TILE[0], N // TILE[1])")
    refused = guard_edit(bare, bare.replace("TILE = (16, 16)", "TILE = (32, 16)"))
    assert refused.new_source is None and (refused.note or "").startswith(
        "TILE[0]=32 does not divide every size the original TILE[0]=16 handled (the grid at line 22 has M // TILE[0] "
        "programs)"
    ), refused.note

    by_name = source.replace("BLOCK_M=TILE[0]", "BLOCK_M=TILE[k]").replace("    M, N = x.shape\n", "    M, N = x.shape\n"
                                                                          "    k = 0\n")  # fmt: skip
    nested = source.replace("TILE = (16, 16)", "TILE = ((16, 16), 1)").replace("TILE[0]", "TILE[0][0]")
    nested = nested.replace("TILE[1]", "TILE[0][1]")
    knob = _knobs(by_name)["scale_kernel:BLOCK_M"]
    assert knob.kind.value == "computed_setting" and "TILE[k]" in (knob.computed or ""), knob
    # a nested tuple read by literal indices is a knob since leftovers19's l3 (tests/test_leftovers19_cases.py)
    assert (_knobs(nested)["TILE[0][0]"].kind.value, _knobs(nested)["TILE[0][0]"].value) == ("module_constant", 16)


PLATFORM = [
    ("    bm, bn = TILE\n", '    bm = 64 if x.is_cuda else 16\n    bn = 32 if x.device.type == "cuda" else 16\n'),
]
"""leftovers17's tuple_run with each tile chosen by the platform of the tensor (``x.is_cuda``, ``x.device.type``)."""


@pytest.mark.timeout(180)
def test_n3_a_tensor_s_device_test_picks_a_platform_s_branch(tmp_path: Path) -> None:
    """``bm = 64 if x.is_cuda else 16`` and ``bn = 32 if x.device.type == "cuda" else 16`` read the platform as
    vLLM's ``not is_hip_`` does (discovery17's l2), but ``x`` was read as a size: each was a computed setting whose
    other branch was taken for a rule by size. Now the branch the run took (the CPU's, 16) is the knob, edited in
    place, the other platform's kept; without a run the line says the branch is known only from one. A comparison
    with a number (``x.shape[0] > 64``) beside it still is a rule by size."""
    from tests.test_break17_cases import _built
    from tests.test_breaker7_cases import _all_correct
    from tests.test_breaker_cases import _tune_edit

    folder = _built(tmp_path, "leftovers17/tuple_run", "platform", PLATFORM)
    static = _knobs((folder / "kernel.py").read_text())
    assert "the branch in use (x.is_cuda) is known only from a run" in (static["scale_kernel:BLOCK_M"].refused_reason
                                                                         or "")  # fmt: skip
    assert 'the branch in use (x.device.type == "cuda") is known only' in (
        static["scale_kernel:BLOCK_N"].refused_reason or ""
    )
    written, note = _tune_edit(folder, {"BLOCK_M": 32, "BLOCK_N": 64})
    assert written is not None, note
    assert '    bm = 64 if x.is_cuda else 32\n    bn = 32 if x.device.type == "cuda" else 64\n' in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 37, "N": 200}, {"M": 1, "N": 1}])
    sized = (folder / "kernel.py").read_text().replace("if x.is_cuda else", "if x.is_cuda and x.shape[0] > 64 else")
    assert _knobs(sized)["scale_kernel:BLOCK_M"].computed is not None


# ------------------------------------------------------------------------------------- n4: lines a user reads


def test_n4_the_target_compile_s_lines_name_an_entry_as_every_other_line_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tune --target sm_90`` said "spills 1766 registers at {'B': 3, 'T': 130, 'D': 100}" and "does not compile at
    {'M': 20, 'N': 64}" where every other line says ``M=20,N=64``; a value of 10**300 was printed whole. Each line
    names the entry by its label, each value cut by one_line (the compiles stood in by their reports)."""
    from kernelopt.harness import target_compile as tc
    from tests.test_leftovers15_cases import stood_in_compiles

    def launch(shape: dict, bt: int, spills: int = 0, error: str | None = None) -> tc.LaunchCompile:
        return tc.LaunchCompile(kernel="l2norm_fwd_kernel", shape=shape, signature={}, constexprs={"BT": bt},
                                divisible=[], options={"num_warps": 4}, spills=spills, error=error)  # fmt: skip

    (tmp_path / "reference.py").write_text("SHAPES = []\n")
    huge = {"B": 3, "T": 10**300}
    monkeypatch.setattr(
        tc, "compile_for_target", stood_in_compiles([launch(huge, 256, 1766)], [launch(huge, 8, 10)], [])
    )
    checked = tc.target_check("written", tmp_path / "reference.py", tmp_path, "sm_90", "original")
    assert checked.line.startswith(
        "the pick spills 1766 registers at B=3,T=100000000000000000000... (l2norm_fwd_kernel: BT=256, num_warps=4), "
        "more than any configuration"
    ), checked.line
    failed = [launch({"M": 20, "N": 64}, 64, error="out of resource"), launch({"M": 33, "N": 128}, 64, error="x")]
    monkeypatch.setattr(tc, "compile_for_target", stood_in_compiles(failed, [launch({"M": 20, "N": 64}, 8)], []))
    refused = tc.target_check("written", tmp_path / "reference.py", tmp_path, "sm_90", "original")
    assert "(BT=64) at M=20,N=64: out of resource; kernel.py as it is compiles there" in refused.line, refused.line


@pytest.mark.timeout(60)
def test_n4_a_huge_shapes_value_is_cut_in_the_lines_that_name_it(tmp_path: Path) -> None:
    """A SHAPES entry of ``n=10**300`` was printed whole, 301 digits, in tune's "timed on" line and in the one-line
    error that the problem cannot fit (with 283 digits of TiB beside it): the value is cut by one_line, the size in
    powers of ten."""
    from kernelopt.cli.tune import _timed_shape
    from kernelopt.digits import size_text
    from kernelopt.harness.inputs import _call_label
    from kernelopt.tuning.problem import Problem

    shutil.copyfile(DATA / "tuning" / "tune_add" / "kernel.py", tmp_path / "kernel.py")  # a Triton kernel
    (tmp_path / "reference.py").write_text(
        'SHAPES = [{"n": 1024}, {"n": 10**300}]\n\n\ndef get_inputs(n=1024):\n    return []\n\n\n'
        "def reference(x):\n    return x\n"
    )
    problem = Problem.from_folder(tmp_path, device="cpu")
    assert _timed_shape(problem, []).endswith("(not in the interpreter, too large: n=100000000000000000000...)")
    assert _call_label({"n": 10**300, "dtype": "fp16"}) == "get_inputs(n=100000000000000000000..., dtype='fp16')"
    assert size_text(4 * 10**300) == "3.64e+288 TiB" and size_text(2**41) == "2.00 TiB"


def test_n4_json_target_says_why_no_pick_was_compiled_for_the_target(two_entries: Any) -> None:
    """``tune --target sm_90 --json`` where the session's own compile refused every pick for its spills gave
    ``"target": null`` beside the spills line in ``edit_note``: the target now says no pick reached the write, and
    why; without a target it stays null."""
    from dataclasses import replace

    from kernelopt.cli.tune import _target_unreached
    from kernelopt.tuning.folder import judge_session

    prepared = two_entries
    tuning = judge_session(prepared, _session(prepared, {str(CURRENT): (100.0, 30.0), str(PICK): (50.0, 20.0)}))
    assert _target_unreached(tuning) is None
    spilled = "the pick spills 1766 registers at n=4096 (add_kernel: BLOCK=4096), more than ... on sm_90: not written"
    request = prepared.request.model_copy(update={"target": "sm_90"})
    aimed = replace(tuning, prepared=replace(prepared, request=request), edit_note=spilled)
    assert _target_unreached(aimed) == f"nothing compiled for sm_90 before a write: no pick reached it ({spilled})"


@pytest.mark.timeout(120)
def test_n4_masked_lanes_are_said_only_of_a_kernel_that_masks(tmp_path: Path) -> None:
    """ "nothing to tune" ended "(tile <= problem: ...: a larger block only adds masked lanes)" of break17's b15 kernel,
    which has no masks. Said only where the kernel masks (the row norm's ``cols < n_cols``)."""
    from kernelopt.tuning.folder import NothingToTune, TuneRequest, prepare_folder
    from tests.test_break17_cases import TUPLE_NOMASK, _built
    from tests.test_knob_patterns_e2e import _task

    bare = _built(tmp_path, "leftovers17/tuple_run", "b15", TUPLE_NOMASK)
    with pytest.raises(NothingToTune) as unmasked:
        prepare_folder(TuneRequest(folder=bare, device="cpu"))
    assert str(unmasked.value).endswith(
        "and no larger value fits (tile <= problem: BLOCK_M <= 128, BLOCK_N <= 64), so there is nothing to tune; "
        "kernel.py unchanged"
    ), unmasked.value
    with pytest.raises(NothingToTune) as masked:
        prepare_folder(TuneRequest(folder=_task(tmp_path, "rmsnorm_calculate_settings"), device="cpu"))
    assert "(tile <= problem: BLOCK_SIZE <= 512: a larger block only adds masked lanes), so there" in str(masked.value)
