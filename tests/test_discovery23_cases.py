"""discovery23's cases (docs/faults.md, "Discovery and agents, twenty-third round (discovery23, 2026-12-07)"): knob
discovery for the patterns people write (a lone kernel file, AITER's ``**config`` read from JSON, a compile cache)
and the agent path's last two items. Each on the CPU, in process where it can be."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def test_d30_a_lone_kernel_py_lists_no_entry_as_the_launch_s_and_says_what_a_run_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lone kernel.py (no reference.py beside it) of Megatron's GEMM, whose ``**configs[dtype]`` entries differ in
    ``BLOCK_SIZE_K``: the listing gave the first entry's 64 at its line (kernel.py:185) where the task runs float32's
    32. Without a run no entry is the launch's: the value is unset, the place the launch's, and one line says what a
    run needs (the task's reference.py); the settings every entry shares are listed as before."""
    from kernelopt.cli.app import main

    lone = tmp_path / "kernel.py"
    shutil.copyfile(DATA / "breaker22" / "mg_bi_matmul" / "kernel.py", lone)
    assert main(["tunables", str(lone), "--json"]) == 0
    out, err = capsys.readouterr()
    listed = {t["key"]: t for t in json.loads(out)}
    block_k = listed["matmul_kernel_persistent:BLOCK_SIZE_K"]
    assert (block_k["value"], block_k["location"]) == (None, "kernel.py:207"), block_k
    assert "torch.float32: 32" in block_k["refused_reason"] and "run of the task" in block_k["value_source"]
    assert listed["matmul_kernel_persistent:BLOCK_SIZE_M"]["value"] == 128  # every entry's 128: moved together
    assert (
        "matmul_kernel_persistent:BLOCK_SIZE_N, matmul_kernel_persistent:BLOCK_SIZE_K: only a run of the task tells "
        "their values at the launch, and no reference.py lies beside kernel.py to run it: give --reference" in err
    ), err
    assert main(["tunables", str(lone), "--no-evaluate"]) == 0
    assert "--no-evaluate runs nothing: drop it" in capsys.readouterr().err
    other = lone.rename(tmp_path / "gemm.py")
    (tmp_path / "reference.py").write_text("")  # a reference beside a file no task runs
    assert main(["tunables", str(other)]) == 0
    assert "and gemm.py is not the kernel.py of a task folder: give --reference" in capsys.readouterr().err


SCALE = """
import functools, json, os
import torch, triton, triton.language as tl

@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2, mask=m)
"""


def test_d31_settings_splatted_from_a_json_file_name_where_they_come_from() -> None:
    """AITER's GEMM (tests/data/breaker22/aiter_gemm, its authors' form) splats ``**config`` that ``_get_config``
    reads from JSON files by device and shape, through ``lru_cache``d getters, a deep copy and ``compute_splitk_params``
    (which changes the dict): refused as "built by code or changed after it is built", naming no file. The refusal
    now follows the chain to the read and says what would make them knobs; a getter of a JSON file that a run can
    read says its file too; a module dict and an ``lru_cache``d getter returning a literal stay knobs."""
    from kernelopt.tunables import apply_source
    from kernelopt.tunables.analysis import discover_source

    aiter = {t.key: t for t in discover_source((DATA / "breaker22" / "aiter_gemm" / "kernel.py").read_text())}
    assert aiter["_gemm_a16_w16_kernel:**config"].refused_reason == (
        "the argument **config is what _get_config() returns, read from a JSON file (_get_config() -> "
        "compute_splitk_params() -> get_gemm_config() -> _get_gemm_config_cached() -> load_config_json(): json.load, "
        "line 60): SPLITK_BLOCK_SIZE, NUM_KSPLIT and BLOCK_SIZE_K are computed from one another in "
        "compute_splitk_params() (line 170), so none of them may be set alone after the call; which settings it "
        "passes is known only from a run of the task (give the reference)"
    )  # the derived settings by name since configs23's c33; a run makes the others knobs since configs24's c42
    launch = """
    y = torch.empty_like(x); n = x.numel()
    _scale[(triton.cdiv(n, config["BLOCK"]),)](x, y, n, **config)
    return y
"""
    getter = (
        """
@functools.lru_cache(maxsize=None)
def load_config():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "config.json")) as f:
        return json.load(f)

def run(x):
    config = load_config()"""
        + launch
    )
    unread = {t.key: t for t in discover_source(SCALE + getter)}["_scale:**config"]
    assert "**config is what load_config() returns, read from a JSON file (load_config(): json.load, line 14): " in (
        unread.refused_reason or ""
    ), unread.refused_reason
    literal = getter.replace(
        'with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "config.json")) as f:\n        return '
        "json.load(f)",
        'return {"BLOCK": 256, "num_warps": 4}',
    )
    module = 'CONFIG = {"BLOCK": 256, "num_warps": 4}\n\ndef run(x):\n    config = CONFIG' + launch
    # AITER's getter form with a literal inside: a copy of what an lru_cache'd getter returns
    copied = "import copy\n" + literal.replace("def load_config():", "def _load_config():")
    copied += "\ndef load_config():\n    return copy.deepcopy(_load_config())\n"
    for text in (literal, module, copied):
        found = {t.key: t for t in discover_source(SCALE + text)}
        assert found["_scale:BLOCK"].editable and found["_scale:num_warps"].editable, found
    written = apply_source(SCALE + copied, {"_scale:BLOCK": 128}).new_source
    assert (
        '    config = load_config()\n    config = dict(config)  # kernelopt: tuned\n    config["BLOCK"] = 128'
        in written
    )


def test_d32_a_launch_from_a_compile_cache_says_why_it_is_not_tuned() -> None:
    """wrongkernel22's v98 (tests/data/variants/gelu_cached_compile: compiled once a dtype into ``_compiled[x.dtype]``
    and launched from there) was refused with "discovery does not read it as a launch", which said nothing of
    whether tuning it would be safe. Decided: not tuned, and the line says why: no reader takes a compiled kernel's
    launch for one (and Triton's interpreter answers ``warmup`` with ``None``), and a key that does not name a
    setting would run the first call's compile at a later size; a key naming every setting is said so."""
    from kernelopt.tunables.compile_cache import cached_launch_note

    source = (DATA / "variants" / "gelu_cached_compile" / "kernel.py").read_text()
    said = cached_launch_note(source) or ""
    assert (
        "its settings are not tuned, since a launch of a compiled kernel is no launch discovery reads (Triton's "
        "interpreter answers warmup with None: no candidate could be checked on the CPU), and its key (x.dtype) does "
        "not name BLOCK_SIZE or num_warps: a value tuned by a size the key does not read would run the first call's "
        "compile at every later call of the same key" in said
    ), said
    by_shape = source.replace("_compiled[x.dtype]", "_compiled[x.dtype, n, BLOCK_SIZE]")
    assert "its key (x.dtype, n, BLOCK_SIZE) does not name num_warps:" in (cached_launch_note(by_shape) or "")
    every = source.replace("_compiled[x.dtype]", "_compiled[x.dtype, BLOCK_SIZE]").replace(
        "num_warps=4, grid", "num_warps=BLOCK_SIZE // 32, grid"
    )
    assert "though its key (x.dtype, BLOCK_SIZE) names every setting it is given" in (cached_launch_note(every) or "")


def test_d33_a_model_calling_tools_until_its_limit_is_unfinished_not_unavailable(
    ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model that kept calling tools until the agent's limit (211 tool calls in 15 s, late29's seen line) read
    ``AGENT_UNAVAILABLE`` with "make the agent available (login, API key ..., time limit)", as a model that never
    answers: the loop stopped with exit 3, a setup problem. The scripted agent busy.py (Claude Code's stream-json, one
    tool call after another): at kernelopt's time limit, the implementer's attempt is its own outcome,
    ``agent_unfinished``, a FAIL naming the calls; at Claude Code's turn limit the planner's is too."""
    import shlex
    import sys

    from kernelopt.backends.agent_cli import AgentCliImplementer, AgentCliPlanner
    from kernelopt.stages.implement import stage_context

    from .backends_support import AGENTS, make_plan, make_ws, plan_stage, write_plan
    from .backends_support import implement as run_implement

    ws = make_ws(ws_root)
    busy = {"command": f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENTS / 'busy.py'))}", "timeout_s": 1.0}
    plan = make_plan()
    write_plan(ws, plan)
    report = run_implement(stage_context(ws, 1, plan=plan), AgentCliImplementer(busy))
    assert (report.error_type, report.result.value) == ("agent_unfinished", "FAIL"), report
    assert "the agent answered but did not finish in its 1 s limit; its process group was stopped: " in report.reason
    assert "tool calls, the last tool call Bash" in report.reason and "unavailable" not in report.reason

    monkeypatch.setenv("BUSY_MAX_TURNS", "3")
    res = plan_stage(ws, 2, AgentCliPlanner({**busy, "timeout_s": 20}))
    assert res.error_type == "agent_unfinished", res
    assert "did not finish in 3 turns (its turn limit): 3 tool calls" in (res.reason or ""), res.reason
    from kernelopt.loop.record import _lesson

    assert _lesson("agent_unfinished", " (tiling)", planned=True) == (
        "the agent answered but did not finish this action (tiling) in its limit (it kept calling tools, or stalled): "
        "give it more time, or a smaller step"
    )


CHILD = """
import fcntl, json, os, sys
from kernelopt.workspace import RunLock

lock = RunLock(sys.argv[1], command="optimize")
other = os.open(lock.path, os.O_RDWR)  # a tune WS of its own: a file descriptor of its own
try:
    fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    window = "free"
except BlockingIOError:
    window = "held"
lock.acquire()  # optimize WS's own take: the lock handed over, not refused
print(json.dumps({"window": window, "record": open(lock.path).read().split()[2:]}))
lock.release()
"""


def test_d34_batch_hands_a_problem_s_workspace_lock_to_its_child_with_no_moment_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """late29's seen line: between ``batch``'s opening of a problem's workspace (under its lock, z73) and its child
    ``optimize WS``'s start, the lock was free, and a ``tune WS`` could take it: the child was refused. The batch now
    keeps the lock past the opening and hands it to the child (``RunLock.handed_to_child``: the open lock file passed
    to it, named in its environment), whose own take adopts it. A child standing in for ``optimize WS`` finds the lock
    held against any other taker before its take, and takes it itself; after the child, the lock is free again."""
    import fcntl
    import os
    import sys

    import kernelopt.batch.cold as cold
    from kernelopt.batch.problems import BatchItem
    from kernelopt.batch.rows import BatchOptions
    from kernelopt.workspace import RunLock

    monkeypatch.setattr(cold, "child_argv", lambda ws, _options: [sys.executable, "-c", CHILD, str(ws.root)])
    folder = tmp_path / "add"
    shutil.copytree(DATA / "loop", folder)
    options = BatchOptions(out_dir=tmp_path / "out", device="cpu")
    row = cold.run_problem(BatchItem(problem="add", folder=folder), options)
    said = json.loads((options.out_dir / "logs" / "add.out").read_text() or "{}")
    assert said == {"window": "held", "record": ["optimize"]}, (said, row.reason)
    after = RunLock(Path(row.workspace or ""))
    fd = os.open(after.path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released once the child and the batch are done
    finally:
        os.close(fd)
        after.path.unlink(missing_ok=True)
