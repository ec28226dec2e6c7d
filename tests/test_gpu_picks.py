"""Each held-out trial's ``GPU_PICKS`` (the forms its GPU test has ``tune`` write and then runs compiled) checked on the
CPU, so that test data gone stale is seen before a GPU session spends a phase on it (gpunet20: breaker19's GPU test
could not write its dao_rotary pick on the H100's host; docs/faults.md g2).

Two checks. The cheap one, in the default run, reads each trial's file (``GPU_PICKS`` and ``DATA``, never importing
it): each pick names a folder of the trial's data holding kernel.py and reference.py, and each knob it sets is a name
kernel.py still writes. The costly one writes every pick as the GPU test does (``tests/gpu_correct.py``'s
``written_files``: a preparation of the folder in a worker, the task run at each ``SHAPES`` entry in Triton's
interpreter): 41 picks over 8 trials took 63.7 CPU-s (157 s wall, the process tree, load about 6, 2026-12-06), so
it runs only with ``KERNELOPT_GPU_PICKS=1``, before a GPU session (docs/gpu-session.md). Neither sees what only the
GPU host's own torch or Triton does differently (g2 was torch 2.11 there): the GPU test itself is the proof of that.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from tests.gpu_correct import costly_picks

TESTS = Path(__file__).parent

#: the trials whose GPU test writes ``GPU_PICKS`` (a module-level dict literal of their file), by file stem
TRIALS = sorted(p.stem for p in TESTS.glob("test_*_cases.py") if "\nGPU_PICKS = {" in p.read_text(encoding="utf-8"))

#: Triton's launch options: ``tune`` writes them at a launch that never named them (breaker20's titan_indices and
#: fla_mean_pool picks set ``num_warps`` and ``num_stages`` their kernel.py leaves at Triton's defaults)
LAUNCH_OPTIONS = frozenset({"num_warps", "num_stages", "num_ctas", "maxnreg"})

_DATA = re.compile(r'^DATA = Path\(__file__\)\.parent / "data" / "(\w+)"$', re.MULTILINE)


def _read(trial: str) -> tuple[Path, dict[str, dict[str, object]]]:
    """A trial's data folder and its ``GPU_PICKS``, read from its file's text."""
    text = (TESTS / f"{trial}.py").read_text(encoding="utf-8")
    data = _DATA.search(text)
    assert data is not None, f"{trial}: no DATA = Path(__file__).parent / 'data' / NAME"
    [picks] = [
        ast.literal_eval(node.value)
        for node in ast.parse(text).body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "GPU_PICKS" for t in node.targets)
    ]
    return TESTS / "data" / data.group(1), picks


def test_each_trial_s_gpu_picks_name_its_folders_and_knobs_kernel_py_still_writes() -> None:
    """The trials found hold the eight held-out trials with a GPU test of written forms (breaker12-19); each pick's
    folder holds kernel.py and reference.py, and each knob it sets, a launch option aside, is a word of kernel.py (a knob renamed or a folder
    moved in the data leaves the GPU test's pick stale)."""
    assert {f"test_breaker{n}_cases" for n in range(12, 20)} <= set(TRIALS), TRIALS
    stale = []
    for trial in TRIALS:
        data, picks = _read(trial)
        for name, pick in picks.items():
            kernel = data / name / "kernel.py"
            if not kernel.is_file() or not (data / name / "reference.py").is_file():
                stale.append(f"{trial}: {name}: no kernel.py and reference.py in {data / name}")
                continue
            text = kernel.read_text(encoding="utf-8")
            stale += [
                f"{trial}: {name}: {k} is not in kernel.py"
                for k in pick
                if k not in LAUNCH_OPTIONS and not re.search(rf"\b{k}\b", text)
            ]
    assert not stale, stale


@costly_picks
@pytest.mark.timeout(900)
@pytest.mark.parametrize("trial", TRIALS)
def test_every_pick_a_trial_s_gpu_test_writes_is_written_on_the_cpu(trial: str, tmp_path: Path) -> None:
    """``written_files`` over the trial's ``GPU_PICKS``, as its GPU test calls it first: each pick is written (the
    note of the first refused says why)."""
    from tests.gpu_correct import written_files

    module = importlib.import_module(f"tests.{trial}")
    assert sorted(written_files(module.DATA, module.GPU_PICKS, tmp_path)) == sorted(module.GPU_PICKS)


def test_each_costly_pick_check_of_the_default_run_waits_for_the_one_opt_in() -> None:
    """Every test that writes picks on the CPU (``written_files``, ``written_hold``, ``trial_holds``: a folder
    preparation in a worker each, the written kernels in the interpreter) is marked gpu or ``costly_picks``
    (suite26: breaker20-26's each ran in the default run, 5-16 CPU-s apiece), and the marks find them so that
    scripts/cpu_rehearsal.sh runs them (``-k gpu_picks``: the name the trials' checks share)."""
    costly = {"written_files", "written_hold", "trial_holds"}
    loose, unnamed = [], []
    for path in sorted(TESTS.glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if not any(name in text for name in (*costly, "costly_picks")):
            continue  # no such call or mark can be in its tree: parsed, the 350 files took 1 CPU-s (suite28 s91)
        for node in ast.parse(text).body:
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_"):
                continue
            calls = {getattr(n.func, "id", None) for n in ast.walk(node) if isinstance(n, ast.Call)}
            marks = {ast.unparse(d) for d in node.decorator_list}
            if calls & costly and not marks & {"pytest.mark.gpu", "costly_picks"}:
                loose.append(f"{path.name}::{node.name}")
            if "costly_picks" in marks and "gpu_picks" not in f"{path.stem}::{node.name}":
                unnamed.append(f"{path.name}::{node.name}")
    assert not loose, loose
    assert not unnamed, unnamed
