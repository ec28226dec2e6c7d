"""late41: honest figures where a retune meets existing guards (docs/faults.md, "Honest figures (late41,
2026-12-07)"). A retune's session times kernel.py as it is as its current configuration (its guards and all) and
each candidate with the guards an earlier write left stripped (``knob_editor``); the figure ``tune`` states is the
written kernel's against what kernel.py runs now, and the per-shape line agrees with the per-shape figures."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from kernelopt.tuning.candidate import Outcome, Result
from tests.test_wrongkernel17_cases import VARIANTS

AT_8192, AT_4096, AT_3000 = "n_rows=4,n_cols=8192", "n_rows=4,n_cols=4096", "n_rows=2,n_cols=3000"
SHAPES = [{"n_rows": 4, "n_cols": 8192}, {"n_rows": 4, "n_cols": 4096}, {"n_rows": 2, "n_cols": 3000}]
NOW = {AT_8192: 1.0, AT_4096: 1.0, AT_3000: 2.0}  # the file as it is: 4096 where its guard holds, else the original
FALLBACK = "    BLOCK = 1024\n"
EARLIER = f"{FALLBACK}    if n_cols % 4096 == 0:  # kernelopt: tuned\n        BLOCK = 4096\n"


@pytest.fixture(scope="module")
def retune(tmp_path_factory: pytest.TempPathFactory):
    """v119 (pad_rows_helper) at 8192, 4096 and 3000 columns, its kernel.py holding the guard an earlier ``tune`` wrote
    (``BLOCK = 4096`` under ``n_cols % 4096 == 0``), prepared once."""
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folder = tmp_path_factory.mktemp("late41") / "v"
    shutil.copytree(VARIANTS / "pad_rows_helper", folder)
    ref = folder / "reference.py"
    line = next(x for x in ref.read_text().splitlines() if x.startswith("SHAPES = "))
    ref.write_text(ref.read_text().replace(line, f"SHAPES = {SHAPES!r}"))
    kernel = folder / "kernel.py"
    assert FALLBACK in kernel.read_text()
    kernel.write_text(kernel.read_text().replace(FALLBACK, EARLIER))
    return prepare_folder(TuneRequest(folder=folder, device="cpu"))


def _retuned(prepared, timed: dict[int, dict[str, float]]):
    """The session a retune records, replayed: the current ``BLOCK=1024`` timed as kernel.py is (``timed[1024]``:
    what the file runs at each entry), its guarded twin ``BLOCK=4096`` known from that result and never timed apart
    (``session._time_current_first``), the other candidates as timed, all re-timed in one round; judged, its edit
    made, and the edit judged as written. The tuning before :func:`judge_as_written` and after."""
    from kernelopt.tuning.folder import guarded_twin, judge_as_written, judge_session, shaped_edit
    from kernelopt.tuning.session import SessionResult, StopReason
    from kernelopt.tuning.shapes import total

    twin = guarded_twin(prepared)
    assert twin is not None and twin.as_dict() == {"BLOCK": 4096}
    retimed = [
        Result(config={"BLOCK": b}, outcome=Outcome.OK, latency_us=total(list(us.values())), latency_us_by_shape=us,
               retimed=True)
        for b, us in timed.items()
    ]  # fmt: skip
    retimed.append(retimed[0].model_copy(update={"config": twin.as_dict(), "recorded": True}))
    # the first round twice as slow: a figure read from it beside the re-time's is a mix of rounds
    first = [
        r.model_copy(update={"latency_us": 2 * (r.latency_us or 0.0), "retimed": False,
                             "latency_us_by_shape": {k: 2 * v for k, v in r.latency_us_by_shape.items()}})
        for r in retimed
    ]  # fmt: skip
    best = min(retimed, key=lambda r: r.latency_us or 0.0)
    result = SessionResult(
        best_config=best.config, best_latency_us=best.latency_us, current_config={"BLOCK": 1024},
        current_latency_us=retimed[0].latency_us, results=first, retimed=retimed, evaluations=len(first),
        served=0, budget=len(first), space_size=len(first), wall_s=1.0, stop=StopReason.CANDIDATES,
        strategy="exhaustive",
    )  # fmt: skip
    tuning = judge_session(prepared, result, guarded=twin)
    edit, note = shaped_edit(tuning)
    assert edit is not None, note
    before = replace(tuning, edit=edit, edit_made=True, edit_note=note)
    return before, judge_as_written(before)


def test_l90_a_retune_over_an_earlier_guard_states_its_gain_over_what_the_file_runs_now(retune) -> None:
    """kernel.py runs ``BLOCK = 4096`` at 8192 and 4096 columns (1.0 us each) and the original 1024 at 3000 (2.0 us);
    the retune finds 2048 at 0.5 us everywhere and writes it under ``n_cols % 2048 == 0``, which does not hold at
    3000. The session said 2.67x (its 0.5 x 3 against 4.0); as written the new file runs 0.5 + 0.5 + 2.0: 1.33x
    over what runs now, each side named, and the original computation named as not timed where the earlier guard
    holds."""
    before, after = _retuned(retune, {1024: NOW, 2048: dict.fromkeys(NOW, 0.5)})
    written = after.edit.new_source
    assert "    if n_cols % 2048 == 0:  # kernelopt: tuned\n        BLOCK = 2048\n" in written
    assert "n_cols % 4096" not in written  # the earlier row is replaced, not kept beside
    assert before.result.speedup == pytest.approx(4.0 / 1.5)
    assert after.result.speedup == pytest.approx(4.0 / 3.0)
    assert after.result.current_latency_us == pytest.approx(4.0) and after.judgement.better
    assert {s.shape: (s.chosen_latency_us, s.current_latency_us) for s in after.per_shape} == {
        AT_8192: (0.5, 1.0),
        AT_4096: (0.5, 1.0),
        AT_3000: (2.0, 2.0),
    }
    named = (
        f"measured against kernel.py as it runs now (BLOCK=4096 at {AT_8192}; BLOCK=4096 at {AT_4096}; the original "
        f"at {AT_3000}); the original computation its guards fall back to (BLOCK=1024) was not timed at {AT_8192}, "
        f"{AT_4096}, where they hold: no figure against it"
    )
    assert after.edit_note is not None and after.edit_note.endswith(named), after.edit_note
    assert after.judgement.reason.startswith(f"as written it runs BLOCK=2048 at {AT_8192}; BLOCK=2048 at {AT_4096}; ")
    # a pick that runs at every entry (512 under its grid's limit) is measured against the same, and says so
    before, after = _retuned(retune, {1024: NOW, 512: dict.fromkeys(NOW, 0.5)})
    assert "        BLOCK = 512\n" in after.edit.new_source and "n_cols % 4096" not in after.edit.new_source
    assert after.result.speedup == pytest.approx(4.0 / 1.5) and after.edit_note.endswith(named), after.edit_note


def test_l91_the_one_configuration_s_line_agrees_with_the_per_shape_figures_as_written(retune) -> None:
    """The same retune's per-shape figures are the written kernel's (3000 columns run the original, 2.0 us against
    that shape's own best 0.5: 300 % slower), and ``shape_choice.reason`` said "within 0.0 % of each shape's own
    best", the unguarded pick's figure: the line now says the pick's figure where it runs and names the entry its
    guard leaves to the original, with the per-shape figure there."""
    before, after = _retuned(retune, {1024: NOW, 2048: dict.fromkeys(NOW, 0.5)})
    assert before.choice.reason.startswith("one configuration for all 3 shapes: within 0.0 %"), before.choice.reason
    within = {s.shape: s.within_pct for s in after.per_shape}
    assert within == {AT_8192: pytest.approx(0.0), AT_4096: pytest.approx(0.0), AT_3000: pytest.approx(300.0)}
    assert after.choice.kind.value == "one"
    assert after.choice.reason == (
        "one configuration for 2 of the 3 shapes, where it runs: within 0.0 % of each shape's own best (at most 3 % "
        f"asked); as written its guards run the original at {AT_3000} (300.0 % slower than its own best)"
    )


def test_l92_a_retune_that_drops_an_earlier_row_is_not_judged_by_the_file_s_figure_there(retune) -> None:
    """8192 best at every entry (0.5 us, unguarded in its candidate), written under ``n_cols % 8192 == 0``: the new
    guard replaces the earlier ``n_cols % 4096 == 0`` row, so at 4096 columns the written file runs the original
    1024, which the session never timed there (the current's 1.0 us is the earlier row's 4096). It was written,
    "2.67x"; a figure never timed is no figure, and the write is refused, naming the entry."""
    before, after = _retuned(retune, {1024: NOW, 8192: dict.fromkeys(NOW, 0.5)})
    assert "    if n_cols % 8192 == 0:  # kernelopt: tuned\n        BLOCK = 8192\n" in before.edit.new_source
    assert before.result.speedup == pytest.approx(4.0 / 1.5) and before.judgement.better
    assert after.edit is None and not after.judgement.better, after.judgement
    # every figure of the re-time's round (the entry never timed left out of the round's choice: it read the first)
    figures = {s.shape: (s.chosen_latency_us, s.current_latency_us) for s in after.per_shape}
    assert figures == {AT_8192: (0.5, 1.0), AT_4096: (None, 1.0), AT_3000: (2.0, 2.0)}, figures
    assert after.edit_note == (
        f"as written it runs BLOCK=8192 at {AT_8192}; the original at {AT_4096}; the original at {AT_3000}: a "
        f"configuration never timed there ({AT_4096}): not written"
    )


def test_l94_the_file_as_it_is_as_a_shape_s_own_best_is_named_by_what_it_ran_there(retune) -> None:
    """The file's earlier row (``BLOCK = 4096``) fastest at 4096 columns: that shape's own best is the current
    configuration's result (or its guarded twin's, the same run), which the per-shape table and ``--json`` named
    ``BLOCK=1024``, a configuration that never ran there (the CPU's real session said so too). It is named by what the
    file ran there; at 3000, where the file runs the original, ``BLOCK=1024``."""
    from kernelopt.tuning.folder import per_shape_in_user_order, summarize

    now = {**NOW, AT_4096: 0.4}
    _, after = _retuned(retune, {1024: now, 2048: {AT_8192: 0.2, AT_4096: 0.5, AT_3000: 2.5}})
    bests = {s.shape: (s.best_config, s.best_latency_us) for s in per_shape_in_user_order(after)}
    assert bests == {
        AT_8192: ({"BLOCK": 2048}, 0.2),
        AT_4096: ({"BLOCK": 4096}, 0.4),
        AT_3000: ({"BLOCK": 1024}, 2.0),
    }, bests
    assert [s.best_config for s in summarize(after).per_shape] == [b for b, _ in bests.values()]


def test_r61_the_json_s_shape_choice_table_names_the_file_as_it_ran_as_per_shape_does(retune) -> None:
    """review26, r61: the CPU's real retune of v119 (``tune --device cpu --budget 4 --json`` a third time, 4096 and
    3000 columns) said ``per_shape`` BLOCK=4096 at 4096 columns (l94: the file's earlier row ran there) and
    ``shape_choice.table`` BLOCK=1024 there, the current configuration's nominal value, for the same run of the file.
    The summary's table names it as ``per_shape`` does; a configuration other than the file's stays as it is."""
    from kernelopt.tuning.folder import summarize

    now = {**NOW, AT_4096: 0.4}
    _, after = _retuned(retune, {1024: now, 2048: {AT_8192: 0.2, AT_4096: 0.5, AT_3000: 2.5}})
    said = summarize(after)
    bests = {s.shape: s.best_config for s in said.per_shape}
    assert said.shape_choice is not None and said.shape_choice.kind.value == "table", said.shape_choice
    assert (
        said.shape_choice.table
        == bests
        == {
            AT_8192: {"BLOCK": 2048},
            AT_4096: {"BLOCK": 4096},
            AT_3000: {"BLOCK": 1024},
        }
    ), said.shape_choice.table
    assert after.choice is not None and after.choice.table[AT_4096] == {"BLOCK": 1024}  # the session's own, unmoved


def test_l95_a_table_for_a_second_device_keeps_the_first_device_s_rows(tmp_path: Path) -> None:
    """configs24's Seen line: vLLM's fp8 GEMM keys its settings files by the device, and ``tune`` keys its rows so
    (``and get_device_name() == ...``); a session on a second GPU model rewrote the table for its own, and the first
    model's rows were gone (its entries back to the files). The table ``tune`` writes (``write_table``, then
    ``guard_edit`` over the file as it was, as ``_table_edit`` does) keeps another device's chain as written, before
    its own rows; a retune on the same device still replaces its own, and a user's comment among the rows is kept
    once. The written kernel is right on the CPU where its row serves and past it, and its table reads back as this
    device's."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.edit import write_table
    from kernelopt.tunables.guard import guard_edit
    from kernelopt.tunables.model import AutotuneEvaluation, Bucket, TunedTable
    from tests.test_configs24_cases import FP8, FP8_RUN, KEY_CPU, fp8_correct

    kernel, h100 = "_w8a8_triton_block_scaled_mm", 'get_device_name() == "NVIDIA H100 80GB HBM3"'
    run = AutotuneEvaluation(launch_values={kernel: FP8_RUN})

    def written(source: str, key: str, upto: int, block_m: int) -> str:
        table = TunedTable(size="M", buckets=[Bucket(upto=upto, values={"BLOCK_SIZE_M": block_m})], key=key)
        edit = write_table(source, table, kernel=kernel, evaluation=run)
        out = guard_edit(source, edit.new_source or "").new_source
        assert out is not None
        return out

    first = written((FP8 / "kernel.py").read_text(), h100, 256, 64)  # the H100's session
    h100_row = f"    if M <= 256 and {h100}:  # kernelopt: tuned\n        config = dict(config)\n"
    assert h100_row in first
    mine = "        # mine: 64 rows suit my H100\n"  # a user's comment among the rows: kept once (newuser8's n39)
    first = first.replace(h100_row, h100_row + mine, 1)
    second = written(first, KEY_CPU, 64, 32)  # the second device's
    assert second.count(h100_row) == 1, second
    ours = f"    if M <= 64 and {KEY_CPU}:  # kernelopt: tuned\n        config = dict(config)\n"
    assert second.index(h100_row) < second.index(ours), second
    own = "        # mine: 32 rows on my CPU\n"
    second = second.replace(ours, ours + own, 1)
    again = written(second, KEY_CPU, 128, 16)  # the same device again: its own rows replaced, the H100's kept
    assert again.count(h100_row) == 1 and ours not in again and f"if M <= 128 and {KEY_CPU}:" in again, again
    assert again.count(mine.strip()) == 1 and again.count(own.strip()) == 1, again
    table = {t.key: t for t in discover_source(again, evaluation=run)}[f"{kernel}:BLOCK_SIZE_M"].tuned_table
    assert table is not None and table.key == KEY_CPU and [b.upto for b in table.buckets] == [128], table
    fp8_correct(tmp_path, again, [{"M": 3, "N": 130, "K": 200}, {"M": 129, "N": 256, "K": 128}])


@pytest.mark.gpu
@pytest.mark.timeout(280)
def test_on_cuda_l95_two_devices_rows_compile_and_this_gpu_s_run_right_at_realistic_sizes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU: vLLM's fp8 GEMM holding another GPU model's keyed row (``BLOCK_SIZE_M = 128`` under
    ``M <= 4096`` for an H200 where this is not one, an H100 where it is), then this GPU's own table written after it
    as ``tune`` writes it (``write_table``, ``guard_edit``): both chains there, this GPU's rows in effect, compiled and
    right under its row (M=37 through the GPU's file, M=64 at 7168 x 16384 through the default dict) and past it
    (M=4096, and 16384 x 4096 x 16384: 256 MB of fp8 a side)."""
    import json

    from kernelopt.tunables.edit import write_table
    from kernelopt.tunables.guard import guard_edit
    from kernelopt.tunables.model import AutotuneEvaluation, Bucket, TunedTable
    from tests.conftest import load_fresh
    from tests.gpu_correct import assert_correct
    from tests.test_breaker7_cases import _outputs_checked
    from tests.test_configs24_cases import FP8, FP8_RUN, GPU_SIZES

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    kernel = "_w8a8_triton_block_scaled_mm"
    name = load_fresh(FP8 / "kernel.py", "_l95_name").get_device_name()
    other = "NVIDIA H100 80GB HBM3" if "H200" in name else "NVIDIA H200"
    run = AutotuneEvaluation(launch_values={kernel: FP8_RUN})
    source = (FP8 / "kernel.py").read_text()
    for device, rows in (
        (other, [Bucket(upto=4096, values={"BLOCK_SIZE_M": 128})]),
        (name, [Bucket(upto=64, values={"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 64, "GROUP_SIZE_M": 8})]),
    ):
        table = TunedTable(size="M", buckets=rows, key=f"get_device_name() == {json.dumps(device)}")
        edit = write_table(source, table, kernel=kernel, evaluation=run)
        written = guard_edit(source, edit.new_source or "").new_source
        assert written is not None
        source = written
    for device, bound in ((other, 4096), (name, 64)):
        assert f"    if M <= {bound} and get_device_name() == {json.dumps(device)}:  # kernelopt: tuned\n" in source
    print(f"this GPU: {name}; the other device's row kept: {other}")
    folder = Path(shutil.copytree(FP8, tmp_path / "fp8", ignore=shutil.ignore_patterns(".kernelopt")))
    (folder / "kernel.py").write_text(source)
    assert_correct(
        folder, [{"M": 37, "N": 2048, "K": 512}, {"M": 64, "N": 7168, "K": 16384}, *GPU_SIZES[3:]], _outputs_checked
    )
