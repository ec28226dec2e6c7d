"""late42: two tune defects of the twenty-fourth session's H100 run (docs/gpu-runs/2026-12-07-h100-q, docs/faults.md
"Tune on the H100's kernels (late42, 2026-12-07)"): a count of pieces the knobs alone compute that a proposal makes 0
(l100), and the limit of a check of a file whose autotune list is still whole (l101)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kernelopt.tunables import discover_source
from kernelopt.tuning.candidate import Config
from kernelopt.tuning.launch import space_from_tunables
from kernelopt.tuning.space import Space

DATA = Path(__file__).parent / "data" / "breaker25"

#: A kernel whose counts of pieces the knobs compute in the body (``NUM_SUB``), in the launcher (``PARTS``) and in the
#: grid (``SUB // 8``), beside two that read a size (``n // BLOCK`` and ``triton.cdiv(n, BLOCK)``), which are 0 at
#: small ``n`` by design.
_SPLIT = """
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(X, Y, n, BLOCK: tl.constexpr, SUB: tl.constexpr, PARTS: tl.constexpr):
    pid = tl.program_id(0)
    NUM_SUB: tl.constexpr = BLOCK // SUB
    for j in tl.static_range(NUM_SUB):
        offs = pid * BLOCK + j * SUB + tl.arange(0, SUB)
        x = tl.load(X + offs, mask=offs < n, other=0.0)
        for k in range(PARTS - 1, -1, -1):
            x = x * 1.0
        for k in tl.static_range(BLOCK // (SUB * 2)):
            x = x * 1.0
        tl.store(Y + offs, x * 2.0, mask=offs < n)
    for t in range(n // BLOCK):
        pass


def scale(x):
    n = x.numel()
    y = torch.empty_like(x)
    BLOCK = {block}
    SUB = 16
    PARTS = BLOCK // (SUB * 2)
    scale_kernel[(triton.cdiv(n, BLOCK), SUB // 8)](x, y, n, BLOCK=BLOCK, SUB=SUB, PARTS=PARTS, num_warps=4)
    return y
"""


def _space(source: str, kernel: str | None = None) -> Space:
    return space_from_tunables(discover_source(source), kernel=kernel, held_options={}, source=source)


def _pairs(space: Space, a: str, b: str) -> set[tuple[int, int]]:
    return {(c[a], c[b]) for c in space.configs()}


def test_l100_la_nodecay_s_sub_block_above_its_block_is_never_proposed() -> None:
    """Seen on the H100 on 2026-12-07 (breaker25): la_nodecay's ``_bwd_inter_kernel`` is launched with ``NUM_CBLOCK =
    BLOCK // CBLOCK`` (backward()) and loops ``for j in range(NUM_CBLOCK)``; tune proposed ``CBLOCK=128`` over
    ``BLOCK=64`` and 32 over 16, where the count is 0 and the inter-block part is never computed: 2 of its 7
    evaluations were spent on candidates the check then caught ("1120 of 3200 elements", "2633 of 3200" off). The
    space held every (BLOCK, CBLOCK) pair before (8112 configurations, 13 x 13 x 6 x 8, where both started at 16);
    now only the pairs with ``CBLOCK <= BLOCK`` (91 of those 169), none with ``CBLOCK > BLOCK``. ``NUM_BLOCK = triton.cdiv(n, BLOCK)`` reads a size: no rule, every BLOCK
    stays."""
    source = (DATA / "la_nodecay" / "kernel.py").read_text()
    space = _space(source, "_bwd_inter_kernel")
    blocks, subs = space.knob("BLOCK").values, space.knob("CBLOCK").values
    kept = {(b, c) for b in blocks for c in subs if c <= b}
    assert len(kept) < len(blocks) * len(subs)
    assert space.size.count == space.raw_size * len(kept) // (len(blocks) * len(subs))
    assert _pairs(space, "BLOCK", "CBLOCK") == kept and (64, 32) in kept and (max(blocks), min(subs)) in kept
    (rule,) = (r for r in space.fit_rules if r.startswith("a count of pieces"))
    assert "NUM_CBLOCK = BLOCK // CBLOCK (range(NUM_CBLOCK) in _bwd_inter_kernel, passed by backward())" in rule
    assert "NUM_BLOCK" not in rule
    (why,) = space.fit_problems(Config.of({"BLOCK": 64, "CBLOCK": 128, "num_warps": 4, "num_stages": 3}))
    assert why == (
        "BLOCK=64, CBLOCK=128 make NUM_CBLOCK = BLOCK // CBLOCK 0: range(NUM_CBLOCK) in _bwd_inter_kernel, passed by "
        "backward() runs over nothing"
    )
    assert space.fits(space.current())


def test_l100_counts_in_the_body_the_launcher_and_the_grid_and_a_size_s_count_is_no_rule() -> None:
    """The rule in general: a count of the body (``NUM_SUB: tl.constexpr = BLOCK // SUB`` sizing ``tl.static_range``),
    one the launcher passes (``PARTS = BLOCK // (SUB * 2)``, walked back by ``range(PARTS - 1, -1, -1)``), the same
    quotient as a loop's argument (``tl.static_range(BLOCK // (SUB * 2))``) and a grid axis (``SUB // 8``) are each
    never 0; ``range(n // BLOCK)`` and the grid's ``triton.cdiv(n, BLOCK)`` read ``n``,
    are 0 at small sizes by design, and prune nothing: BLOCK=16 with SUB=16 (``n // 16`` is 0 below 16) stays. Where
    the file's own values already make a count 0 (BLOCK=16, SUB=16: ``PARTS`` = 16 // 32), the current configuration
    stays and one line says so, and no other configuration with a count of 0 is proposed."""
    space = _space(_SPLIT.format(block=64))
    rules = " ".join(space.fit_rules)
    for said in (
        "NUM_SUB = BLOCK // SUB (tl.static_range(NUM_SUB) in scale_kernel)",
        "PARTS = BLOCK // (SUB * 2) (range(PARTS) in scale_kernel, passed by scale())",
        "axis 1 = SUB // 8 (axis 1 of scale_kernel's grid in scale())",
        ": BLOCK // (SUB * 2) (tl.static_range(BLOCK // (SUB * 2)) in scale_kernel);",
    ):
        assert said in rules, rules
    assert "n //" not in rules and "cdiv" not in rules
    pairs = _pairs(space, "BLOCK", "SUB")
    assert pairs == {
        (b, s) for b in (1 << i for i in range(4, 17)) for s in (1 << i for i in range(4, 17)) if 2 * s <= b
    }
    assert space.size.count == len(pairs) * 48 and not space.domain_notes

    own = _space(_SPLIT.format(block=16))
    loop, passed = own.domain_notes  # the static_range's quotient and PARTS, each 16 // 32
    assert loop.startswith("as written, BLOCK=16, SUB=16 make BLOCK // (SUB * 2) 0, so tl.static_range("), loop
    assert passed.startswith("as written, BLOCK=16, SUB=16 make PARTS = BLOCK // (SUB * 2) 0, so range(PARTS)"), passed
    assert own.fits(own.current())
    assert _pairs(own, "BLOCK", "SUB") == {*pairs, (16, 16)}


def test_l101_a_keyed_list_judged_as_a_list_runs_its_current_pinned_on_a_gpu(tmp_path: Path) -> None:
    """Seen on the H100 on 2026-12-07 (breaker25): ``tune --device cuda`` on fla_matmul (eight literal configs keyed on
    ``M, N, K``) timed no candidate in its 60 s wall. The current configuration ran as the file is written, the whole
    list: its compile took 33.4 s, and its first check, where Triton's autotuner compiles and benchmarks all eight at
    the entry's new key, had the 25.6 s the wall had left (``min(60 s, the wall left)``: the arithmetic below) and no
    reply. Each of the eight is also seeded, checked and timed pinned, and the current latency at each shape is the
    fastest of them: the list as written is the same computation, its autotuner's pick among them. The session's
    editor now pins the current configuration on a GPU too where the list is judged as a list (one config, as every
    other candidate); it made the whole file (eight configs) before. A CPU holds no GPU: the folder is prepared for
    ``cuda`` (the task's run fails there, the literal list is read from the source) and no kernel runs."""
    from kernelopt.tuning.budget import Budget
    from kernelopt.tuning.folder import (
        TuneRequest,
        list_configs,
        pins_current,
        prepare_folder,
        session_editor,
        whole_list_configs,
    )
    from kernelopt.tuning.pace import CandidateLimit

    folder = Path(shutil.copytree(DATA / "fla_matmul", tmp_path / "fla_matmul"))
    prepared = prepare_folder(TuneRequest(folder=folder, device="cuda"))
    assert not prepared.problem.interpreted and len(list_configs(prepared)) == 8
    assert pins_current(prepared) and whole_list_configs(prepared) == 0
    current = session_editor(prepared)(prepared.space.current())
    assert isinstance(current, str) and current != prepared.base_source
    assert current.count("triton.Config(") == 1 and prepared.base_source.count("        triton.Config(") == 8
    assert 'configs=[triton.Config({"BM": 128, "BK": 64, "BN": 256, "G": 4}, num_warps=8, num_stages=3)]' in current

    # the H100's first check: the budget's clock at the current's compile (33.4 s) and its worker's start (1 s in)
    now = [0.0]
    limit = CandidateLimit(Budget(4800, lambda: now[0], 60.0))
    limit.budget.start()
    now[0] = 1.0 + 33.4313
    seconds = limit.seconds(60.0)
    assert seconds is not None and abs(seconds - 25.5687) < 1e-3
    assert limit.why(seconds, 60.0) == "cut at the end of the session's wall time (60 s), under the 60 s limit"


def test_l102_a_whole_list_s_requests_count_its_configs(tmp_path: Path) -> None:
    """l101's other side: a keyed list judged as one configuration (more distinct configs than ``list_most``: fla's
    list with its eight commented fp8 configs restored, sixteen, under a budget of 4) still runs whole as the current
    configuration on a GPU, and each of its requests compiled and benchmarked all sixteen at each new key under one
    candidate's own limit (60 s, ``--candidate-timeout-s``). Its requests now have that limit times its configs (960 s),
    the session's wall still bounding them; another candidate keeps 60 s."""
    from kernelopt.tuning.folder import TuneRequest, list_configs, pins_current, prepare_folder, whole_list_configs
    from kernelopt.tuning.kernel_evaluator import KernelEvaluator

    folder = Path(shutil.copytree(DATA / "fla_matmul", tmp_path / "fla_matmul"))
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text().replace("        # triton.Config(", "        triton.Config("))
    prepared = prepare_folder(TuneRequest(folder=folder, device="cuda", budget=4))
    current = prepared.space.current()
    assert current is not None and not list_configs(prepared) and not pins_current(prepared)
    assert whole_list_configs(prepared) == 16
    evaluator = KernelEvaluator(prepared.problem, prepared.base_source, lambda c: prepared.base_source,
                                session_dir=tmp_path / "session")  # fmt: skip
    evaluator.runs_whole_list(current.key(), whole_list_configs(prepared))
    assert evaluator.own_s([current.key()], 60.0) == 960.0
    assert evaluator.own_s(["BK=16"], 60.0) == 60.0


@pytest.mark.gpu
@pytest.mark.timeout(285)
def test_on_cuda_l101_fla_matmul_s_tune_times_its_current_and_its_list_pinned_in_a_60_s_wall(tmp_path: Path) -> None:
    """On an NVIDIA GPU (Triton compiled; scripts/gpu_late42.sh): the tune of breaker25's fla_matmul that timed nothing
    on the H100 of 2026-12-07 ("no reply within 25.5687 s"), ``tune --device cuda --json --dry-run`` with a 60 s wall
    as then. The current configuration is checked and timed pinned (no candidate's source is the file as written, the
    whole list), it is timed, and so is more than one candidate. What the tune said is printed (outcomes, pace, the
    run's wall, the verdict). l100 (la_nodecay) needs no GPU: its rule reads the source alone, the same on any device."""
    import csv
    import json
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    folder = Path(shutil.copytree(DATA / "fla_matmul", tmp_path / "fla_matmul"))
    out = tmp_path / "sessions"
    argv = [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cuda", "--json", "--dry-run",
            "--budget-wall-s", "60", "--out", str(out)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=275, env=env)
    assert done.stdout, done.stderr[-3000:]
    said = json.loads(done.stdout)
    print(f"late42 l101: rc {done.returncode}, outcomes {said['outcomes']}, pace {said['pace']}")
    print(f"late42 l101: run_wall {said['run_wall']}; {said['verdict']}")
    (session,) = (p for p in out.iterdir() if p.name != "triton-cache")  # discovery's, beside it (l186)
    rows = list(csv.DictReader((session / "candidates.csv").open()))
    sources = [p.read_text() for p in (session / "candidates").glob("*/kernel.py")]
    assert sources and (DATA / "fla_matmul" / "kernel.py").read_text() not in sources, "the whole list ran as written"
    timed = [r for r in rows if r["outcome"] == "ok"]
    assert rows[0]["outcome"] == "ok" and len(timed) > 1, rows[:4]
