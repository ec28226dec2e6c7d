"""leftovers28: the reread leftovers of the twenty-fifth session's closing note (docs/faults.md, "The reread
leftovers (leftovers28, 2026-12-07)", l180-l186). CPU only; no kernel runs but l180's in-process check of a problem
whose get_inputs returns a meta tensor (refused before the reference runs)."""

from __future__ import annotations

import importlib.util
import re
import sys
import types
from pathlib import Path

import pytest

from kernelopt.digits import times
from kernelopt.kernelsource import input_list, unreadable_input
from kernelopt.memory.model import (
    Comparison,
    GateResult,
    IterationRecord,
    Performance,
    QualityGate,
    best_version,
    chain_speeds,
    unlinked_versions,
)

SRC = Path(__file__).parent.parent / "src" / "kernelopt"


# == l180: a value get_inputs returned that the harness cannot read is the user's, said in one line ==================


def test_l180_a_tensor_the_harness_cannot_read_is_refused_as_get_inputs_value() -> None:
    """A meta, sparse or nested tensor among the inputs raised in the harness's own calls on it (moving it, its
    fingerprint), and the row read "kernelopt's harness failed ... (a bug in kernelopt; please report)" for the
    user's value. ``make_inputs`` (where the inputs are built to be checked and timed) now refuses it in one line
    naming get_inputs, the input and what to return; every value the harness reads passes as before, and
    ``input_list`` still takes the meta inputs kernelopt's own probes build (card inference, the far footprint)."""
    import torch

    from kernelopt.harness.inputs import make_inputs

    cases = {
        "a meta tensor as input 1 (torch.float32 [4]): it holds no data": [
            torch.ones(2),
            torch.empty(4, device="meta"),
        ],
        "a sparse_coo tensor as input 0 (torch.float32 [2, 2]): the harness checks and times dense": [
            torch.eye(2).to_sparse()
        ],
        "a nested tensor as input 0[1] (torch.float32): the harness checks and times dense tensors; return its parts": [
            [torch.ones(2), torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])]
        ],
        "a sparse_csr tensor as input 0['w'] (torch.float32 [2, 2])": [{"w": torch.eye(2).to_sparse_csr()}],
    }
    for said, inputs in cases.items():
        with pytest.raises(TypeError) as caught:
            make_inputs(lambda inputs=inputs: inputs, {}, "cpu", 0)
        line = str(caught.value)
        assert line.startswith(f"get_inputs() returned {said}") and "\n" not in line, line
    dense = [torch.ones(2), 3, None, (torch.zeros(1), 0.5), {"k": torch.ones(1)}, "mode", object]
    made = make_inputs(lambda: dense, {}, "cpu", 0)
    assert made[1:] == dense[1:] and torch.equal(made[0], dense[0])
    assert unreadable_input(torch.ones(1), "input 0") is None
    with torch.device("meta"):  # kernelopt's own probe on the meta device: its inputs taken as built
        assert input_list([torch.empty(4)])[0].is_meta
    assert make_inputs(lambda: [torch.empty(4)], {}, "meta", 0)[0].is_meta  # the device itself (tests' stand-in)


def test_l180_the_meta_input_reads_as_the_problem_s_in_the_worker(tmp_path: Path) -> None:
    """Through the worker's check (in process): before, "case 0 (default): kernelopt's harness failed in its own code
    around reference.py get_inputs: NotImplementedError: Cannot copy out of meta tensor; no data! at
    kernelopt/harness/inputs.py:368 in make_inputs() (a bug in kernelopt; please report)", culprit checker."""
    from .conftest import check_in_process

    text = """import torch
from torch import nn


class {name}(nn.Module):
    def forward(self, x):
        return x * 2


def get_inputs():
    return [torch.empty(4, device="meta")]


def get_init_inputs():
    return []
"""
    (tmp_path / "reference.py").write_text(text.format(name="Model"))
    (tmp_path / "kernel.py").write_text(text.format(name="ModelNew"))
    failure = check_in_process(tmp_path).failure
    assert failure is not None and failure.culprit == "problem", failure
    assert failure.message.startswith(
        "case 0 (default): reference.py get_inputs raised TypeError: get_inputs() returned a meta tensor as input 0 "
        "(torch.float32 [4]): it holds no data to check or time"
    ), failure.message
    assert "a bug in kernelopt" not in failure.message


# == l181: one judgement of a library's code ==========================================================================


def _module(path: Path, text: str) -> types.ModuleType:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"l181_{path.parent.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ROWS = "class Rows:\n    def __iter__(self):\n        raise RuntimeError('no rows')\n"


def test_l181_own_fault_reads_libraries_as_the_traced_lines_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """own_fault kept its own list of library folders (sysconfig's four paths), beside branches' fuller one (any
    ``site-packages`` / ``dist-packages`` folder, the site folders, torch / triton / numpy wherever installed from).
    A library's frame under another site folder (a virtualenv's) or a source checkout of triton was read as the
    user's code, so kernelopt's own call into it was the problem's fault. Now both ask ``branches.library_file``."""
    from kernelopt.harness import own_fault
    from kernelopt.harness.branches import OwnCode

    assert not hasattr(own_fault, "_LIBRARIES")
    venv = _module(tmp_path / "venv" / "lib" / "site-packages" / "rowslib" / "rows.py", ROWS)
    checkout = _module(tmp_path / "checkout" / "triton" / "rows.py", ROWS)
    fake = types.ModuleType("triton")
    fake.__file__ = str(tmp_path / "checkout" / "triton" / "__init__.py")
    monkeypatch.setitem(sys.modules, "triton", fake)  # triton imported from a source checkout
    for lib in (venv, checkout):
        with pytest.raises(RuntimeError) as caught:
            input_list(lib.Rows())  # kernelopt's `list(inputs)` calls the library, which raises
        frame = own_fault.own_frame(caught.value)
        assert frame is not None and re.fullmatch(r"kernelopt/kernelsource\.py:\d+ in input_list\(\)", frame), frame
        assert lib.__file__ not in OwnCode(str(tmp_path / "reference.py"))  # the traced lines' judgement, the same
    user = _module(tmp_path / "mine" / "rows.py", ROWS)  # the user's own module beside reference.py: theirs
    with pytest.raises(RuntimeError) as caught:
        input_list(user.Rows())
    assert own_fault.own_frame(caught.value) is None


# == l182: one parser of discovery's launch labels ====================================================================


def test_l182_one_maker_and_parser_of_a_launch_site_s_label() -> None:
    """size_tiles read discovery's labels with a regex of its own (``_LAUNCH``), beside tuning.launch's
    ``removeprefix("launch ").split(" (")`` and the label made inline in analysis: now ``launches.launch_label``
    makes it and ``launch_key`` / ``launched_kernel`` read it, for size_tiles' kernels and ``--kernel``'s key."""
    from kernelopt.tunables import size_tiles
    from kernelopt.tunables.launches import NO_LAUNCH, launch_key, launch_label, launched_kernel
    from kernelopt.tunables.model import Tunable

    second = launch_label("_bwd_kernel#2", "kernel.py:80")
    assert second == "launch _bwd_kernel#2 (kernel.py:80)"
    assert (launch_key(second), launched_kernel(second)) == ("_bwd_kernel#2", "_bwd_kernel")
    spaced = launch_label("k", "my kernels (v2)/kernel.py:7")
    assert (launch_key(spaced), launched_kernel(spaced)) == ("k", "k")
    for other in ("k.configs", "k.heuristics (kernel.py:12)", NO_LAUNCH, "launch ? (kernel.py:3)"):
        assert launch_key(other) is None and launched_kernel(other) is None, other
    t = Tunable.model_construct(kernel="_intra", groups=[launch_label("_inter", "kernel.py:462"), second, "k.configs"])
    assert size_tiles._kernels(t) == ["_inter", "_bwd_kernel"]
    assert size_tiles._kernels(Tunable.model_construct(kernel="_intra", groups=["k.configs"])) == ["_intra"]
    assert not hasattr(size_tiles, "_LAUNCH")
    analysis = (SRC / "tunables" / "analysis.py").read_text()
    assert 'f"launch {launch_id} (' not in analysis and "launch_label(launch_id" in analysis


# == l183: one formatter of a ratio ===================================================================================


def test_l183_a_ratio_past_999_5x_is_written_out() -> None:
    """``f"{x:.3g}x"`` at nine sites wrote 2400 as ``2.4e+03x``; ``digits.times`` (``digits.sig``'s rule, three
    digits) writes it out, and no site formats a ratio on its own."""
    from kernelopt.harness.stats import SpeedupEstimate, Verdict, too_wide
    from kernelopt.tuning.candidate import Config
    from kernelopt.tuning.original_figure import OriginalFigure

    assert [times(x) for x in (2400.0, 1234.5, 999.7, 1.705, 0.03125)] == [
        "2400x",
        "1230x",
        "1000x",
        "1.71x",
        "0.0312x",
    ]
    figure = OriginalFigure(Config({"BLOCK": 1024}), {"a": 2400.0}, {"a": 1.0})
    assert figure.pace() == "2400x faster"
    wide = SpeedupEstimate(
        speedup=40.0, ci_low=2.0, ci_high=1500.0, n_blocks=8, min_gain_pct=2.0, verdict=Verdict.IMPROVEMENT
    )
    assert "its 95 % interval 2x..1500x spans a factor 750" in (too_wide(wide) or "")
    sites = [p for p in SRC.rglob("*.py") if re.search(r":\.3g\}x", p.read_text()) and p.name != "digits.py"]
    assert not sites, sites


# == l184: an old record without `against` is read, and what it lacks is said ========================================


def _timed(n: int, latency: float, speedup: float | None, against: str | None) -> IterationRecord:
    return IterationRecord(
        version=f"v{n}",
        performance=Performance(
            latency_us=latency, comparison_with_previous=Comparison(speedup=speedup, against=against)
        ),
        quality_gate=QualityGate(result=GateResult.PASS),
    )


def test_l184_a_record_without_against_is_chained_and_what_it_lacks_is_said() -> None:
    """Records written before l160 have no ``against``: the chain takes the best version below as the one they ran
    beside. Where the rule of their day (the least median) named another best, their gate may have timed them beside
    that one, and nothing said so; now ``unlinked_versions`` says it, and ``status``, the summary and the report's
    headline print it."""
    from kernelopt.cli.status import RunStanding, lines

    old = [
        _timed(0, 100.0, None, None),
        _timed(1, 120.0, 1.3, None),  # a loaded gate's median; 1.3x beside V0: the chain's best
        _timed(2, 95.0, 1.1, None),  # its gate then ran beside V0 (least median): the chain links it to V1
    ]
    as_json = [IterationRecord.model_validate_json(r.model_dump_json(exclude={"performance"})) for r in old]
    assert all(r.performance.comparison_with_previous.against is None for r in as_json)  # an old record still reads
    assert chain_speeds(old)[2] == pytest.approx(1.43) and best_version(old).version == "v2"  # type: ignore[union-attr]
    said = unlinked_versions(old)
    assert said == [
        "v2's record has no comparison_with_previous.against (written before late46's l160): its gate's 1.1x is "
        "chained to v1, the best version below it by the chain, though the rule of its day (the least median) named "
        "v0, which its gate may have timed it beside"
    ]
    standing = RunStanding(
        workspace="/w", run="stopped", versions=3, best="v2", best_latency_us=95.0, unlinked=said, next="n"
    )
    assert f"note: {said[0]}" in lines(standing)
    from kernelopt.report.model import ReportData, VersionEntry
    from kernelopt.report.sections import headline

    report = headline(ReportData(name="old", root="/w", versions=[VersionEntry(record=r) for r in old]))
    assert f"Note: {said[0]}" in report
    labelled = [old[0], old[1], _timed(2, 95.0, 1.1, "v1")]
    agreed = [old[0], _timed(1, 90.0, 1.1, None), _timed(2, 80.0, 1.1, None)]  # both rules name v1 below v2
    assert unlinked_versions(labelled) == [] and unlinked_versions(agreed) == []


# == l185: a path is quoted whole ======================================================================================


def test_l185_a_refusal_quotes_a_path_whole_and_cuts_only_what_no_path_can_be() -> None:
    """``destination`` cut a refused path at 200 characters and the MCP server an argument at 120: under a long TMPDIR
    (259 characters) the refusal named ``.../pytest-of-roo...``, and test_report_paths failed by where its temporary
    folder was. A text that can be a path (under PATH_MAX bytes) is now quoted whole; a longer one is still cut. The
    MCP server's cut (``_echo_shortened``, the same ``may_be_path``) is read by test_report_paths' MCP test and
    test_agentleft_cases' (importing the server costs about 3 CPU-s)."""
    from kernelopt.destination import PATH_MAX, SHOWN_CHARS, shown_path

    path = "/work/tmp/" + "a" * 80 + "/" + "b" * 80 + "/pytest-of-root/pytest-0/root/kernel_opt_add/kernel.py"
    assert len(path) > SHOWN_CHARS and shown_path(path) == path
    blob = "k" * PATH_MAX
    assert shown_path(blob).endswith("...") and len(shown_path(blob)) <= SHOWN_CHARS
    assert shown_path("\ud800" * 2000).endswith("...")  # a lone surrogate an agent's JSON may hold: counted, no raise


# == l186: what discovery's run compiled on a GPU is not compiled again by the session ===============================

FLA = Path(__file__).parent / "data" / "breaker25" / "fla_matmul"


def test_l186_discovery_s_compiles_are_linked_into_the_session_s_cache(tmp_path: Path) -> None:
    """``seed_cache`` links each kernel of discovery's Triton cache the session's lacks (an entry the session's cache
    holds stays its own; an interrupted seeding's partial folder is never read as an entry); nothing to link: 0."""
    import os

    from kernelopt.tuning.compile_pool import CACHE_DIR, seed_cache

    found = tmp_path / "out" / CACHE_DIR
    for key, files in {"KEYA": ("k.cubin", "__grp__k.json"), "KEYB": ("k.cubin",), ".tmp": ("x",)}.items():
        (found / key).mkdir(parents=True)
        for name in files:
            (found / key / name).write_text(f"{key}/{name}")
    session = tmp_path / "out" / "abc123"
    (session / CACHE_DIR / "KEYB").mkdir(parents=True)
    (session / CACHE_DIR / "KEYB" / "k.cubin").write_text("the session's own")
    (session / CACHE_DIR / ".KEYA.seeding").mkdir()  # an interrupted seeding's
    assert seed_cache(found, session) == 1 and seed_cache(found, session) == 0
    linked = session / CACHE_DIR / "KEYA" / "k.cubin"
    assert os.stat(linked).st_ino == os.stat(found / "KEYA" / "k.cubin").st_ino  # a link, no copy
    assert (session / CACHE_DIR / "KEYB" / "k.cubin").read_text() == "the session's own"
    assert sorted(p.name for p in (session / CACHE_DIR).iterdir()) == ["KEYA", "KEYB"]
    assert seed_cache(tmp_path / "none", session) == 0


def test_l186_on_a_gpu_discovery_compiles_into_the_output_folder_s_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fla_matmul's discovery on a GPU compiled its list of eight at the first entry in the user's Triton cache, and the
    session's workers compiled them again in the session's (late45's Seen line: "pinning the first run too, or sharing
    the cache, would save most of it"). ``prepare_folder`` now gives discovery's worker ``<out>/triton-cache``, which
    each session links in before its workers start; in Triton's interpreter (nothing compiles) nothing changes. Read
    up to discovery's call (no worker starts)."""
    from kernelopt.env import TRITON_CACHE_DIR
    from kernelopt.tuning import folder as folder_module
    from kernelopt.tuning.compile_pool import CACHE_DIR

    given: dict[str, dict[str, str]] = {}

    class Stop(Exception):
        pass

    def discover(kernel_py: Path, **kwargs: object) -> None:
        given[str(kwargs["device"])] = dict(kwargs["env"])  # type: ignore[call-overload]
        raise Stop

    monkeypatch.setattr(folder_module, "discover_evaluated", discover)
    monkeypatch.setattr(folder_module, "_gpu_name", lambda request, card: "NVIDIA H100 80GB HBM3")
    for device in ("cuda", "cpu"):
        with pytest.raises(Stop):
            folder_module.prepare_folder(folder_module.TuneRequest(folder=str(FLA), device=device, out=str(tmp_path)))
    assert given["cuda"][TRITON_CACHE_DIR] == str(tmp_path / CACHE_DIR)
    assert given["cpu"].get(TRITON_CACHE_DIR) != str(tmp_path / CACHE_DIR)
    assert not (FLA / ".kernelopt").exists()  # --out given: nothing written into the kernel's folder


@pytest.mark.gpu
@pytest.mark.timeout(285)
def test_on_cuda_l186_fla_matmul_s_session_starts_from_what_discovery_compiled(tmp_path: Path) -> None:
    """On an NVIDIA GPU (Triton compiled; scripts/gpu_leftovers28.sh): late42's tune of breaker25's fla_matmul
    (``tune --device cuda --json --dry-run --budget-wall-s 60``). Discovery's run compiled its list of eight at the first
    entry into ``<out>/triton-cache``, and the session's cache holds each of those kernels as a link before its workers
    start, so its compile and bench workers load them where they ask for the same compile. Printed: the entries
    discovery compiled, those linked into the session and those the session compiled itself, its pace (compile and
    check seconds, against 42.9 s and 40.6 s on the H100 of 2026-12-07 16:10) and its run wall. Since late54's l240 fla's
    discovery runs no task (its one list pinned, nothing read from the run; the pinned candidate's source is another
    Triton cache key anyway, its helpers' lines moved): asserted, nothing compiled by discovery, none linked, the
    session's cache its own."""
    import json
    import os
    import shutil
    import subprocess

    from kernelopt.tuning.compile_pool import CACHE_DIR

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    folder = Path(shutil.copytree(FLA, tmp_path / "fla_matmul"))
    out = tmp_path / "sessions"
    argv = [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cuda", "--json", "--dry-run",
            "--budget-wall-s", "60", "--out", str(out)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=275, env=env)
    assert done.stdout, done.stderr[-3000:]
    said = json.loads(done.stdout)
    found = {p.name for p in (out / CACHE_DIR).iterdir() if p.is_dir()} if (out / CACHE_DIR).is_dir() else set()
    (session,) = (p for p in out.iterdir() if p.name != CACHE_DIR)
    inodes = {f.stat().st_ino for f in (out / CACHE_DIR).rglob("*") if f.is_file()}
    linked, own = set(), set()
    for entry in (p for p in (session / CACHE_DIR).iterdir() if p.is_dir()):
        files = [f for f in entry.rglob("*") if f.is_file()]
        (linked if files and all(f.stat().st_ino in inodes for f in files) else own).add(entry.name)
    print(f"leftovers28 l186: rc {done.returncode}; discovery compiled {len(found)} entries, {len(linked)} linked into")
    print(f"leftovers28 l186: the session, {len(own)} compiled by the session; pace {said['pace']}")
    print(f"leftovers28 l186: run_wall {said['run_wall']}; outcomes {said['outcomes']}")
    # since late54's l240 discovery runs no task for fla (every list it would pin, none adding into an output): it
    # compiles nothing, the session compiles its own (l186's links serve a file whose discovery still runs)
    assert not found, found
    assert own and not linked, (sorted(linked), sorted(own))
