"""late23: lines of results said true (docs/faults.md, "Results said true (late23, 2026-12-07)")."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from kernelopt.harness.model import CaseBench

DATA = Path(__file__).parent / "data"


@pytest.mark.timeout(120)
def test_z22_no_knob_on_the_cpu_names_the_launch_options_a_gpu_tunes(tmp_path: Path) -> None:
    """Seen on 2026-12-07 (breaker21): vLLM's merge_attn_states, ``tune --device cpu`` exited 2 "no tunable knob:
    discovery lists only knobs it cannot edit: ...HEAD_SIZE (...), ...PADDED_HEAD_SIZE (...), ...OUTPUT_LSE (...)",
    the launch's num_warps / num_stages (discovery lists them, the CPU drops them) in no word: the line now says
    them and where they are tuned."""
    from kernelopt.errors import UsageError
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folder = tmp_path / "vllm_merge_states"
    shutil.copytree(DATA / "breaker21" / "vllm_merge_states", folder)
    before = (folder / "kernel.py").read_bytes()
    with pytest.raises(UsageError) as raised:
        prepare_folder(TuneRequest(folder=folder, device="cpu"))
    said = str(raised.value)
    assert said.startswith("no tunable knob: discovery lists only knobs it cannot edit: merge_attn_states_kernel:HEAD")
    assert said.endswith(
        "; on the CPU the launch options (num_stages, num_warps) are no knob either: Triton's interpreter ignores "
        "them (tune them on a GPU, --device cuda)"
    ), said
    assert "\n" not in said and (folder / "kernel.py").read_bytes() == before


@pytest.mark.timeout(120)
def test_z20_a_keyed_list_timed_on_one_shape_is_judged_against_the_figure_its_table_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seen on 2026-12-07 (breaker21): tb_streamk's keyed autotune list tuned on the CPU, one ``SHAPES`` entry timed:
    the table's "current" row said n/a while the verdict said "the best beats the current configuration by 2 %
    (+112.2 %)". With one shape there are no per-shape figures: the list was judged (``judge_table`` falling back to
    ``judge_gain``) against the session's current configuration, the list's first entry, then its latency set to
    the sum over no shapes, ``None``. Replayed: the list [1024, 8192] on n=30000, its first entry 2000 us, its
    autotuner's pick 8192 at 1000 us, the best found 990 us. The list is judged against its fastest entry, the
    figure the table says: +1.0 %, not enough."""
    from kernelopt.cli.tune import _render
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.folder import FolderTuning, TuneRequest, judge_against_list, list_configs, prepare_folder
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain
    from tests.test_newuser8_cases import AXPB_REFERENCE, KEYED_TABLE

    folder = tmp_path / "axpb"
    folder.mkdir()
    (folder / "kernel.py").write_text(KEYED_TABLE)
    (folder / "reference.py").write_text(AXPB_REFERENCE.replace('[{"n": 1000}, {"n": 30000}]', '[{"n": 30000}]'))
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    listed = list_configs(prepared)
    assert [c.as_dict() for c in listed] == [{"BLOCK": 1024}, {"BLOCK": 8192}] and len(prepared.shapes) == 1
    us = {1024: 2000.0, 8192: 1000.0, 2048: 990.0}
    results = [Result(config={"BLOCK": b}, outcome=Outcome.OK, latency_us=t, retimed=True) for b, t in us.items()]
    result = SessionResult(
        best_config={"BLOCK": 2048}, best_latency_us=990.0, current_config={"BLOCK": 1024}, current_latency_us=2000.0,
        results=results, retimed=results, evaluations=3, served=0, budget=3, space_size=10, wall_s=1.0,
        stop=StopReason.CANDIDATES, strategy="local",
    )  # fmt: skip
    before = FolderTuning(prepared, result, judge_gain(result))
    assert before.judgement.better and before.judgement.gain_pct == pytest.approx(102.0, abs=0.1)  # the first entry's
    judged = judge_against_list(before, listed)
    r, j = judged.result, judged.judgement
    assert r.current_latency_us == 1000.0 and j.gain_pct == pytest.approx((1000.0 / 990.0 - 1) * 100), j
    assert not j.better and j.reason == "the best does not beat the current configuration by the 2 % asked (+1.0 %)", j
    _render(judged, "", written=False, dry_run=False, plot=None)
    out = capsys.readouterr()
    said = " ".join((out.out + out.err).split())
    assert "n/a" not in said and "1000" in said, said
    assert "; the best found, BLOCK=2048 (990 us), beat it by +1.0 %, under the 2 % a" in said


def interleaved_case(
    prev: list[float], cur: list[float], against: dict[str, list[float]] | None = None, retimed: bool = False
) -> CaseBench:
    """The gate's case of an interleaved timing of v1 (``cur``) against v0 (``prev``), samples in ABBA order;
    ``against``: more versions timed beside them (the reference's labels), ``retimed``: each re-timed alike."""
    from kernelopt.harness.gate import _case_bench
    from kernelopt.harness.model import CaseTiming, TimingMethod, VersionTiming

    timed = {"v1": cur, "v0": prev, **(against or {})}

    timing = CaseTiming(
        index=0,
        label="n=4096",
        interleaved=True,
        bytes_moved=1e6,
        versions=[
            VersionTiming(
                label=label,
                samples_us=samples,
                retime_samples_us=samples if retimed else [],
                method=TimingMethod.CUDA_EVENTS,
                launches_per_sample=1,
            )
            for label, samples in timed.items()
        ],
    )
    return _case_bench(timing, "v1", "v0", 2.0)


def test_z21_the_gate_says_the_smaller_of_two_readings_of_skewed_samples_and_says_they_are_skewed() -> None:
    """Seen on 2026-12-07 (claims21's seen item): the README demo's V1 on the CPU said 90x (95 % CI 75.5-105x), the
    median of the ABBA blocks' ratios, while its two medians' ratio was 50x (and its re-time 50x): a figure the
    samples read another way do not hold. A constructed skewed timing: 24 blocks, each 90.9x but one, the load
    hitting both versions in the same blocks save one, so the blocks say 90.9x on a tight interval and the medians
    60.6x. The gate's case says 60.6x, its interval widened to hold it (so the decision, the record and every change
    derived from it read one figure), and a warning with both; a timing whose medians sit inside the interval is
    said as before."""
    from kernelopt.harness.gate import _performance
    from kernelopt.harness.model import BenchReport
    from kernelopt.harness.stats import compare_retimed
    from kernelopt.memory.model import CorrectnessStatus

    heavy_a, light_a, heavy_b, light_b = [300.0, 300.0], [100.0, 100.0], [3.3, 3.3], [1.1, 1.1]
    prev = [x for k in range(24) for x in (heavy_a if k < 12 else light_a)]
    cur = [x for k in range(24) for x in (heavy_b if k < 13 else light_b)]  # block 12: B loaded, A not
    case = interleaved_case(prev, cur)
    assert case.speedup is not None and case.previous is not None
    medians = case.previous.median / case.current.median
    blocks = compare_retimed(prev, cur, [], [], 2.0)  # the blocks' reading alone (no re-time: the claim is unkept)
    assert blocks.speedup == pytest.approx(300 / 3.3) and medians == pytest.approx(200 / 3.3)
    assert medians < blocks.ci_low, (blocks, medians)  # the two readings disagree by more than the interval
    s = case.speedup
    assert s.speedup == pytest.approx(medians) and s.ci_low == pytest.approx(medians)
    assert s.ci_high == pytest.approx(blocks.ci_high) and s.p_value == blocks.p_value
    bench = BenchReport(ok=True, status=CorrectnessStatus.PASS, cases=[case])
    c = _performance(bench, case, None, None, None, None, []).comparison_with_previous
    assert c.speedup == pytest.approx(medians) and c.latency_delta == pytest.approx(100.0 * (1 / medians - 1))
    assert c.bandwidth_delta == pytest.approx(100.0 * (medians - 1))
    said = [w for w in case.warnings if "skewed" in w]
    assert said == [
        f"case 0 (n=4096): the samples are skewed: the ABBA blocks' median ratio says 90.9x (95 % CI "
        f"{blocks.ci_low:.3g}-{blocks.ci_high:.3g}x), the ratio of the two versions' medians 60.6x, outside that "
        "interval; the smaller claim, 60.6x, is said (its interval widened to hold it)"
    ], case.warnings

    even = interleaved_case(prev, [x for k in range(24) for x in (heavy_b if k < 12 else light_b)])
    assert even.speedup is not None and even.previous is not None
    assert even.speedup.speedup == pytest.approx(300 / 3.3) and not [w for w in even.warnings if "skewed" in w]
