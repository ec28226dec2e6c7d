"""late51: what fresh27's clone left (docs/faults.md, "fresh27's leftovers (late51, 2026-12-07)")."""

from __future__ import annotations

from pathlib import Path

import pytest


def _summary(base_us: float, best_us: float, over: float) -> object:
    from kernelopt.loop.summary import LoopSummary

    values: dict[str, object] = {name: None for name in LoopSummary.model_fields}
    values.update(workspace="ws", versions=[], best_version="v1", baseline_latency_us=base_us)
    values.update(best_latency_us=best_us, speedup_vs_baseline=over, iterations=1, failures=0, elapsed_s=1.0)
    values.update(stage_seconds={}, candidates_evaluated=0)
    return LoopSummary.model_construct(**values)  # type: ignore[arg-type]


def test_l210_a_best_line_whose_speedup_the_table_s_medians_contradict_says_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """fresh27's softmax run ended "best: v1 at 107700 us (2.2x over V0)" under a V0 row of 94910 us: the figure is
    the gates' side-by-side timings chained from V0, each row one gate run's median. The line now says so where the
    two point different ways, and stays as it was where they agree."""
    from kernelopt.cli.optimize import _render

    _render(_summary(94910.0, 107700.0, 2.2))  # type: ignore[arg-type]
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "best: v1 at 107700 us (2.2x over V0; that is the gates' side-by-side timings chained from V0, where the"
        " table's us are each gate run's own median (V0's 94910 us), which drift apart with the host's load)"
    ) in out
    _render(_summary(94910.0, 50000.0, 2.2))  # type: ignore[arg-type]
    out = " ".join(capsys.readouterr().out.split())
    assert "best: v1 at 50000 us (2.2x over V0)" in out and "drift apart" not in out


def test_l211_an_entry_of_no_work_is_said_with_its_name(tmp_path: Path) -> None:
    """fresh27's ``SHAPES = [{"n": 0}]``: ``tune`` timed an empty problem (the grid ``cdiv(0, 32)`` launches nothing)
    and said "the current configuration is the best found (5.825 ms)", the overhead alone. One warning line names the
    entry (still checked, never refused); a zero for a key that sizes nothing (a seed, a dim) says nothing."""
    from kernelopt.tuning.problem import empty_entry_lines

    ref = tmp_path / "reference.py"
    ref.write_text(
        "import torch\n\n"
        "def get_inputs(n: int = 4096, seed: int = 0, dim: int = 0):\n"
        "    torch.manual_seed(seed)\n"
        "    return [torch.randn(n, 8), dim]\n"
    )
    lines = empty_entry_lines(ref, [{"n": 4096}, {"n": 0}, {"n": 64, "seed": 0, "dim": 0}])
    from kernelopt.cli.optimize import _empty_entries

    ref.write_text(ref.read_text() + '\nSHAPES = [{"n": 4096}, {"n": 0}]\n')
    assert _empty_entries(ref) == lines  # optimize says it too, before V0's gate
    assert lines == [
        "SHAPES entry {'n': 0} holds no work (n sizes a tensor get_inputs builds, and it is 0): its timing is the "
        "launch overhead alone, so a configuration tuned there is tuned on nothing; it is still checked for "
        "correctness"
    ]


def test_l212_a_documented_copy_into_tmp_is_fresh_each_time() -> None:
    """README's and ``tune --help``'s ``cp -r tests/data/loop /tmp/loop && kernelopt tune /tmp/loop ...``, run a second
    time, copied into ``/tmp/loop/loop`` and tuned the first run's written kernel (fresh27). Every documented ``cp -r``
    into a folder (the README, docs/ but the faults record, each command's examples) removes it first."""
    import re

    from kernelopt.cli.examples import EXAMPLES

    root = Path(__file__).resolve().parents[1]
    texts = [(root / "README.md").read_text(encoding="utf-8")]
    texts += [p.read_text(encoding="utf-8") for p in sorted((root / "docs").glob("*.md")) if p.name != "faults.md"]
    texts += [" && ".join(lines) for shown in EXAMPLES.values() for _, lines in shown]
    copies = [
        (m.group(0), m.group(1), text[: m.start()]) for text in texts for m in re.finditer(r"cp -r \S+ (\S+)", text)
    ]
    assert copies, "the README's copy of tests/data/loop is gone: read this test again"
    stale = [cp for cp, dest, before in copies if not before.rstrip().endswith(f"rm -rf {dest} &&")]
    assert stale == []


def test_l213_a_write_timed_in_the_interpreter_says_it_is_no_gpu_s_evidence() -> None:
    """fresh27's ``tune --device cpu --budget 4`` of a clip-and-scale's two-config ``@triton.autotune`` list wrote a
    list of one, ``BLOCK=1024``, on the interpreter's timing (the fewest programs win there) without a word. The write
    stays; its verdict says what it rests on, and that the list's autotuner no longer chooses on a GPU."""
    from kernelopt.cli.tune import interpreted_word, verdict_line
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain

    listed = [{"BLOCK": 128, "num_warps": 4}, {"BLOCK": 256, "num_warps": 8}]
    pick = {"BLOCK": 1024, "num_warps": 4}
    word = interpreted_word(interpreted=True, current_list=listed, best_config=pick, per_bucket=False)
    assert word == (
        "timed in Triton's interpreter on the CPU, which says nothing of a GPU's speed (it favours the fewest "
        "programs): time it on a GPU (--device cuda) before keeping it; the autotune list of 2 configs becomes "
        "BLOCK=1024, num_warps=4 alone, so a GPU's autotuner no longer chooses among them (the diff shows the list "
        "it had)"
    )
    literal = interpreted_word(interpreted=True, current_list=[], best_config=pick, per_bucket=False)
    assert literal is not None and word.startswith(literal) and "autotune list" not in literal
    assert interpreted_word(interpreted=False, current_list=listed, best_config=pick, per_bucket=False) is None
    assert interpreted_word(interpreted=True, current_list=listed, best_config=pick, per_bucket=True) == literal
    result = SessionResult(
        best_config=pick, best_latency_us=10.0, current_config=listed[0], current_latency_us=27.0, results=[],
        retimed=[], evaluations=4, served=0, budget=4, space_size=10, wall_s=30.0, stop=StopReason.CANDIDATES,
        strategy="local",
    )  # fmt: skip
    judgement = judge_gain(result)
    written = verdict_line(result, judgement, kernel_py="kernel.py", written=True, dry_run=False, interpreted=word)
    assert written.endswith(f"; {word}; written to kernel.py")  # the write's words stay the end
    kept = verdict_line(result, judgement, kernel_py="kernel.py", written=False, dry_run=False, interpreted=word)
    assert word not in kept  # nothing written, nothing to say of it
