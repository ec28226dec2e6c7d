"""break19: this session's landings tried on a fresh clone by a hostile reviewer (docs/faults.md, "A fresh clone
broken, nineteenth trial"). Each test is a finding's case: b23, b24, ..."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.net import DerivedSize, SizeClass, cast
from kernelopt.tuning.problem import ProblemShape

# ------------------------------------------------------- b23: the original's no reply is no refusal of the size


@pytest.mark.parametrize("kind", [SizeClass.PAST, SizeClass.FLOOR, SizeClass.RESIDUE])
def test_b23_a_written_kernel_wrong_where_the_original_gave_no_reply_is_the_net_s_failure(kind: SizeClass) -> None:
    """The net runs the original only where the written kernel failed, to tell a size the original refuses from one it
    handles. On the loaded CPU (and a GPU's hung request) the original, with its smaller tiles the slower of the two,
    may give no reply within the request's limit there; that RUN_TIMEOUT was read as "the original fails there too",
    a size the original refuses: the written kernel's wrong result at it was passed over, no size was unchecked
    (gpufind19's g3 says none), and the pick was written wrong at a size the original may well run. A no reply is now
    no refusal: the written kernel's failure stands and names the original's silence; a real refusal (the original
    raises there too) still skips the size."""
    sizes = [DerivedSize(kind=kind, tries=(ProblemShape(kwargs={"n": 3072}), ProblemShape(kwargs={"n": 1536})))]
    asked: list[tuple[str, int]] = []

    def check_at(source: str, shape: ProblemShape, original_says: Outcome) -> tuple[Outcome, str | None]:
        asked.append((source, shape.kwargs["n"]))
        if source == "written":  # a grown tile without its mask: the rows past the last whole tile never written
            return Outcome.WRONG_RESULT, "output not written: 1024 of 3072 elements still hold the poison pattern"
        return original_says, "no reply within 60 s" if original_says is Outcome.RUN_TIMEOUT else "n % 1024 != 0"

    silent = cast(sizes, "original", "written", lambda s, p: check_at(s, p, Outcome.RUN_TIMEOUT))
    assert silent.failed is not None and silent.failed.shape.kwargs == {"n": 3072}, silent
    assert "where the original gave no reply within the limit (no reply within 60 s) and may run" in silent.line()
    assert "where the original passes" not in silent.line()
    assert asked == [("written", 3072), ("original", 3072)]

    asked.clear()
    refused = cast(sizes, "original", "written", lambda s, p: check_at(s, p, Outcome.RUN_ERROR))
    assert refused.failed is None and refused.unchecked == [], refused  # the original's own refusal: skipped
    assert "the original fails there too: run_error: n % 1024 != 0" in refused.line()


# ------------------------------------------------- b24: a size a request's limit left unchecked, and its cure


def test_b24_a_size_left_unchecked_by_a_request_s_limit_names_the_limit_not_the_wall() -> None:
    """gpufind19's g3 marks a net size unchecked for want of time, and the verdict of a kernel written beside it
    says "a longer --budget-wall-s (or none) checks them". A size whose request had no reply is unchecked too, but its
    limit is ``--candidate-timeout-s`` (each net request's, 60 s by default), which no wall lifts: the advice was
    untrue of it. The sizes cut by the wall and those cut by a request's limit are now told apart, each with its own
    cure; a net cut by its wall alone reads as before."""
    from kernelopt.tuning.budget import Budget, ManualClock
    from kernelopt.tuning.net import NetCap
    from kernelopt.tuning.tail_wall import TailWall

    sizes = [DerivedSize(kind=SizeClass.PAST, tries=(ProblemShape(kwargs={"n": 3072 + 2 * k}),)) for k in range(4)]

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        clock.advance(10.0)
        if source == "written" and shape.kwargs["n"] == 3072:  # its small tiles too slow in the interpreter
            return Outcome.RUN_TIMEOUT, "no reply within 60 s"
        return Outcome.OK, None

    clock = ManualClock()
    hung = cast(sizes[:2], "original", "written", check_at, clock=clock)
    assert [c.shape.kwargs["n"] for c in hung.unchecked] == [3072], hung.line()
    assert hung.unchecked_line() == (
        "the net did not check the written kernel at 1 of its 2 sizes with no reply within a request's limit "
        "(n=3072): it is unchecked there, where the original may run; a longer --candidate-timeout-s checks them"
    )

    budget = Budget(100, clock, wall_s=60.0)
    budget.start()
    clock.advance(25.0)  # the search's; of the net's 10 s requests, the last size's does not fit the wall's end
    both = cast(sizes, "original", "written", check_at, cap=NetCap.of(25.0, clock(), TailWall.of(budget)), clock=clock)
    line = both.unchecked_line()
    assert line is not None and line.startswith(
        "the net did not check the written kernel at 1 of its 4 sizes for want of time (n=3078) and at 1 "
        "with no reply within a request's limit (n=3072)"
    ), line
    assert line.endswith("a longer --budget-wall-s (or none) and a longer --candidate-timeout-s check them"), line


# ------------------------------------------ b25: a tuple's row read by a constant index written as an expression

TUPLE_RUN = Path(__file__).parent / "data" / "leftovers17" / "tuple_run" / "kernel.py"
ROWS = "TILE = ((16, 16), (32, 8))"


@pytest.mark.parametrize(
    ("read", "line"),
    [
        ("    bm, bn = TILE[-2]\n", "bm is read from TILE[-2], its index the constant -2 written as an expression"),
        ("    bm = TILE[0][-2]\n    bn = TILE[0][1]\n", "bm is read from TILE[0][-2], its index the constant -2"),
        ("    bm, bn = TILE[1 - 1]\n", "bm is read from TILE[1 - 1], its index the constant 1 - 1 written as an"),
        ("    T = ((16, 16), (32, 8))\n    bm, bn = T[-2]\n", "bm is read from T[-2], a tuple written in the function"),
        ("    i = 0\n    bm, bn = TILE[i]\n", "bm is read from TILE[i], a row picked by i at run time"),
        ("    i = 0\n    bm = TILE[0][i]\n    bn = 16\n", "bm is read from TILE[0][i], a row picked by i at run time"),
    ],
)
def test_b25_a_tuple_read_by_a_constant_index_expression_is_not_said_to_be_picked_at_run_time(
    read: str, line: str
) -> None:
    """leftovers19's l3 says why a tuple's element read by an index is no knob: "a row picked by i at run time". A
    row read as ``TILE[-2]`` (the first of two) or ``TILE[1 - 1]`` got that line too, "a row picked by -2 at run time:
    no one element of TILE is its value", both untrue: the index is a constant, and ``TILE[0]``'s elements are its
    value; ``TILE[0][-2]`` (a nested row's element) said nothing at all. Each now says what it is and how to make it a
    knob (a plain index from 0), a local tuple's the local line; a run-time index, a nested row's too, as before."""
    from kernelopt.tunables import discover_source

    source = TUPLE_RUN.read_text().replace("TILE = (16, 16)", ROWS).replace("    bm, bn = TILE\n", read)
    found = {t.key: t for t in discover_source(source)}
    knob = found["scale_kernel:BLOCK_M"]
    assert knob.kind.value == "computed_setting" and (knob.helper_note or "").startswith(line), knob.helper_note
    assert "at run time" not in (knob.helper_note or "") or "[i]" in read
    assert not any(k.startswith("TILE[0][0]") for k in found)


# ------------------------------------- b26: a git folder redirected to a repository of the agent's, its hooks there

REDIRECT = (
    "import os, shutil, subprocess; e = os.environ['ELSEWHERE']; shutil.copytree('.git', e); "
    "subprocess.run(['git', '--git-dir', e, 'config', 'core.fsmonitor', 'echo ran >> ' + os.environ['RAN_LOG']], "
    "check=True); open('.git/commondir', 'w').write(e + '\\n')"
)
"""An implementer's last act: the workspace's ``.git`` copied outside, ``core.fsmonitor`` (a command git runs at
``status``, ``add`` and ``commit``, whatever ``core.hooksPath`` says) set in the copy's config, and the copy named in
``.git/commondir``, which git honours in any git folder."""


def test_b26_a_git_folder_the_implementer_redirected_elsewhere_is_put_back_and_runs_nothing(
    ws_root: Path, tmp_path: Path
) -> None:
    """agents19's a3 keeps kernelopt's git from running hooks (``core.hooksPath=/dev/null``) and the guard puts
    ``.git/config``, the hooks and the refs back. A ``.git/commondir`` naming a copy of the repository holding a
    ``core.fsmonitor`` command changed none of them: Stage 3 passed with no violation (main at ``3914a429``), and
    kernelopt's next commit ran the agent's command three times with its whole environment (the API key the agent is
    never given among it) and wrote the workspace's history into the copy. The guard records the git folder's
    redirects and puts them back before its own git commands: the stage fails, and the next commit runs nothing and
    lands in the workspace's own repository."""
    from kernelopt.backends.agent_cli import AgentCliImplementer
    from kernelopt.stages.guard import RunGuard
    from kernelopt.stages.implement import run_implement

    from .backends_support import make_plan, make_ws, write_plan

    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    ran, elsewhere = tmp_path / "ran.log", tmp_path / "elsewhere"
    edit = "from pathlib import Path; k = Path('kernel.py'); k.write_text(k.read_text().replace('=4', '=8')); "
    backend = AgentCliImplementer(
        {
            "command": f"{shlex.quote(sys.executable)} -c {shlex.quote(edit + REDIRECT)}",
            "env": {"ELSEWHERE": str(elsewhere), "RAN_LOG": str(ran)},
        }
    )
    report = run_implement(ws, 1, make_plan(), backend, guard=RunGuard(ws), check=None, summary=None, history=[])
    assert not report.ok and report.error_type == "write_violation", report
    assert report.violations == ["git commondir added (the repository's config, refs and objects read from elsewhere)"]
    assert not (ws.root / ".git" / "commondir").exists() and elsewhere.is_dir()
    (ws.root / "notes.md").write_text("x\n")
    ws.commit(["notes.md"], "a commit after the stage")
    assert not ran.exists()  # the copy's fsmonitor never ran
    own = ws.repo.git.execute(["git", "--git-dir", str(ws.root / ".git"), "log", "-1", "--format=%s"])
    assert own == "a commit after the stage"


# --------------------------------------- b27: a file beside the kernel named by a path built by hand, not refused

SCALE_READ = "    with open({path}) as f:\n        assert float(f.read()) == 2.0\n    y = torch.empty_like(x)\n"


@pytest.mark.parametrize(
    "path",
    [
        'os.path.dirname(__file__) + "/scale.txt"',
        'f"{os.path.dirname(__file__)}/scale.txt"',
        '"%s/scale.txt" % os.path.dirname(__file__)',
        '"{}/scale.txt".format(os.path.dirname(__file__))',
    ],
)
def test_b27_a_file_beside_the_kernel_named_by_a_path_built_by_hand_is_refused_by_tune(
    path: str, tmp_path: Path
) -> None:
    """newuser16's n87 refuses a kernel that reads a file beside it (a workspace holds only kernel.py and
    reference.py, and tune loads each candidate from a folder of its own) where the file's name is a string of the
    code: ``os.path.join(here, "scale.txt")``. The common hand-built forms, ``os.path.dirname(__file__) +
    "/scale.txt"``, an f-string, ``%`` and ``format``, escaped it (the leading ``/`` read as an absolute path):
    ``tune --device cpu --budget 4`` of leftovers17's tuple_run reading its scale from scale.txt in ``run`` (main at
    ``c2b991b7``) failed its 4 candidates, "raised while running: FileNotFoundError", and said "no candidate ran". Each
    form is now refused before the session, by the file's name and line; an absolute path is still no read. Since
    configs23's c30 ``tune`` carries such data into each candidate's folder (``carried_data``), so only a workspace
    refuses it."""
    from kernelopt.errors import InputFileError
    from kernelopt.kernelsource import KernelForm, carried_data, check_kernel

    folder = tmp_path / "task"
    folder.mkdir()
    kernel = TUPLE_RUN.read_text().replace("import torch\n", "import os\n\nimport torch\n", 1)
    (folder / "kernel.py").write_text(kernel.replace("    y = torch.empty_like(x)\n", SCALE_READ.format(path=path)))
    (folder / "reference.py").write_text((TUPLE_RUN.parent / "reference.py").read_text())
    (folder / "scale.txt").write_text("2.0\n")
    with pytest.raises(InputFileError, match=r"reads scale\.txt \(line 24\) from its own folder; a workspace holds"):
        check_kernel(folder / "kernel.py", KernelForm.FUNCTION)
    assert carried_data(folder / "kernel.py") == ["scale.txt"]
    absolute = path.replace("os.path.dirname(__file__)", '"/nowhere"') if "+" in path else '"/nowhere/scale.txt"'
    (folder / "kernel.py").write_text(kernel.replace("    y = torch.empty_like(x)\n", SCALE_READ.format(path=absolute)))
    from kernelopt.kernelsource import folder_files

    assert folder_files(folder / "kernel.py") == []


# ---------------------------------------- b28: the loop's tuning wrote beside unchecked net sizes and said nothing


def test_b28_the_loop_s_tuning_says_the_net_sizes_a_kernel_was_written_beside_unchecked(tmp_path: Path) -> None:
    """gpufind19's g3 has ``tune`` say so where it writes a kernel beside net sizes left unchecked for want of time;
    the loop's Stage 3 (``optimize``'s launch tuning, ``backends/launch_tuning.apply_best``), whose session the loop's
    own wall time bounds, wrote the same kernel and recorded "tuned ...; fastest correct ..." with no word of them.
    Its description now carries the same line."""
    import shutil

    from kernelopt.backends.launch_tuning import apply_best
    from kernelopt.tuning.candidate import Result
    from kernelopt.tuning.folder import FolderTuning, TuneRequest, best_edit, prepare_folder
    from kernelopt.tuning.net import NetVerdict, SizeCheck
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain

    folder = tmp_path / "tuple_run"
    shutil.copytree(TUPLE_RUN.parent, folder)
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    best = Result(config={"BLOCK_M": 64, "BLOCK_N": 32}, outcome=Outcome.OK, latency_us=10.0)
    now = Result(config={"BLOCK_M": 16, "BLOCK_N": 16}, outcome=Outcome.OK, latency_us=40.0)
    result = SessionResult(
        best_config=best.config, best_latency_us=10.0, current_config=now.config, current_latency_us=40.0,
        results=[best, now], retimed=[], evaluations=2, served=0, budget=2, space_size=25, wall_s=30.0,
        stop=StopReason.WALL_TIME, strategy="local",
    )  # fmt: skip
    bare = FolderTuning(prepared, result, judge_gain(result))
    cut = SizeCheck(kind=SizeClass.PAST, shape=ProblemShape(kwargs={"M": 160, "N": 64}), passed=None, unchecked=True,
                    reason="M=160,N=64: not run, it would end past the session's wall time of 30 s")  # fmt: skip
    net = NetVerdict(checks=[SizeCheck(kind=SizeClass.PAST, shape=ProblemShape(kwargs={"M": 128, "N": 96}),
                                       passed=True, outcome=Outcome.OK), cut])  # fmt: skip
    tuning = FolderTuning(prepared, result, bare.judgement, edit=best_edit(bare), edit_made=True, net=net)
    outcome = apply_best(tuning)
    assert outcome.changed and "TILE = (64, 32)" in (folder / "kernel.py").read_text()
    assert outcome.description is not None and outcome.description.endswith(
        "; the net did not check the written kernel at 1 of its 2 sizes for want of time (M=160,N=64): it is "
        "unchecked there, where the original may run; a longer --budget-wall-s (or none) checks them)"
    ), outcome.description


def _gate(tmp_path: Path, reference: str, kernel: str) -> Any:
    """``kernelopt validate``'s gate (``check_files``, one seed on the CPU) of ``kernel`` against ``reference``."""
    (tmp_path / "problem").mkdir()
    return _gate_in(tmp_path, reference, kernel)


def _gate_in(tmp_path: Path, reference: str, kernel: str) -> Any:
    """:func:`_gate` in ``tmp_path / "problem"`` made already (with files of the test's own beside)."""
    from kernelopt.harness.gate import check_files
    from kernelopt.harness.settings import HarnessSettings

    folder = tmp_path / "problem"
    (folder / "reference.py").write_text(reference)
    (folder / "kernel.py").write_text(kernel)
    settings = HarnessSettings(device="cpu", case_timeout_s=30.0, seeds=1)
    return check_files(folder / "kernel.py", folder / "reference.py", tmp_path / "state", settings=settings)


def _judged(report: Any, failed: str | None) -> None:
    """The gate passed where ``failed`` is ``None``, else failed with a message starting so."""
    if failed is None:
        assert report.passed, report.message
    else:
        assert not report.passed and (report.message or "").startswith(failed), report.message


LOOP_REFERENCE = (Path(__file__).parent / "data" / "loop" / "reference.py").read_text()


# ------------------------------------------------------ b29: a kernel.py that patches reference.py's module

FIND_REFERENCE = """import sys

import torch

_ref = next(m for m in list(sys.modules.values()) if (getattr(m, "__file__", "") or "").endswith("reference.py"))
"""
PATCHES_OF_THE_REFERENCE = {
    "reference": ("_ref.reference = lambda x, y: torch.zeros_like(x)", "torch.zeros_like(x)", "reference"),
    "tolerance": ("_ref.ATOL = _ref.RTOL = 1e9", "x * 1.0", "ATOL, RTOL"),
    "honest": ("", "x + y", None),
}
"""How kernel.py changes reference.py's module at import (through ``sys.modules``), what ``run(x, y)`` returns for
the reference's ``x + y``, and the bindings the check names (``None``: an honest kernel, beside a reference that
rebinds a global of its own lazily and fills a default cache)."""


@pytest.mark.parametrize("how", sorted(PATCHES_OF_THE_REFERENCE))
def test_b29_a_kernel_that_patches_reference_py_s_module_fails_its_check(tmp_path: Path, how: str) -> None:
    """agents19's a12 and a13 snapshot kernelopt's callables and torch's operators before kernel.py is imported; the
    checker also reads the reference through reference.py's module after it, and a kernel.py found that module in
    ``sys.modules`` at import: one that set its ``reference`` to return zeros passed the quality gate returning zeros,
    one that set ``ATOL = RTOL = 1e9`` passed computing ``x`` for ``x + y`` ("2 case(s) x 1 seed(s) passed", main at
    ``82625612``). The bindings the checker reads are now snapshot too, and a change fails the case naming them; a
    reference's own lazily built global and default cache are no patch."""
    patch, result, named = PATCHES_OF_THE_REFERENCE[how]
    own = (
        "_BUILT = None\n\n\ndef reference(x, y, _cache={}):\n    global _BUILT\n    _BUILT = _cache.setdefault(1, x)\n"
    )
    reference = LOOP_REFERENCE.replace("def reference(x, y):\n", own) + "\nATOL = 1e-5\nRTOL = 1e-5\n"
    report = _gate(tmp_path, reference, f"{FIND_REFERENCE}{patch}\n\n\ndef run(x, y):\n    return {result}\n")
    said = f"case 0 (n=4096): kernel.py changed reference.py's {named}, which the check reads the reference through"
    _judged(report, said if named is not None else None)


# ------------------------------------------- b30: a kernel.py that patches torch.nn.Module.__call__ (KernelBench)

MODULE_CALL_PATCH = """

def _zeros(self, *args, **kwargs):
    return torch.zeros_like(args[0])


torch.nn.Module.__call__ = _zeros
"""
MODEL_NEW = """import torch
{patch}

class ModelNew(torch.nn.Module):
    def forward(self, x):
        return {result}
"""


@pytest.mark.parametrize("patched", [True, False], ids=["patched", "honest"])
def test_b30_a_kernel_that_patches_module_call_fails_a_kernelbench_check(tmp_path: Path, patched: bool) -> None:
    """A KernelBench problem's reference is ``Model(...)(x)``, run through ``torch.nn.Module.__call__``; the torch
    snapshot held ``torch.nn``'s public names (the class ``Module`` itself), not the class's members, so a kernel.py
    that set ``torch.nn.Module.__call__`` to return zeros and whose ``ModelNew`` returned zeros passed the gate on
    kernelbench_optimize's ReLU ("1 case(s) x 1 seed(s) passed on cpu, max rel_err 0", main at ``625af4c2``). The
    class's members are in the snapshot now, as ``torch.Tensor``'s are (a13); an honest ModelNew passes."""
    data = Path(__file__).parent / "data" / "kernelbench_optimize" / "relu_torch"
    patch, result = (MODULE_CALL_PATCH, "torch.zeros_like(x)") if patched else ("", "torch.relu(x)")
    report = _gate(tmp_path, (data / "reference.py").read_text(), MODEL_NEW.format(patch=patch, result=result))
    said = "case 0 (default): kernel.py replaced torch.nn.Module.__call__, which the reference calls too"
    _judged(report, said if patched else None)


# ------------------------------------------------ b31: a kernel.py that leaves a torch function mode active

ZEROING_MODE = """import torch
from torch.overrides import TorchFunctionMode


class _Mode(TorchFunctionMode):
    __module__ = "torch.nn"  # a name anyone may give: the code's file decides
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.add or func is torch.Tensor.__add__ or func is torch.add:
            return torch.zeros_like(args[0])
        return func(*args, **(kwargs or {}))


_Mode().__enter__()


def run(x, y):
    return torch.zeros_like(x)
"""
DEFAULT_DEVICE = 'import torch\n\ntorch.set_default_device("cpu")\n\n\ndef run(x, y):\n    return x + y\n'


@pytest.mark.parametrize(("kernel", "failed"), [(ZEROING_MODE, True), (DEFAULT_DEVICE, False)], ids=["mode", "device"])
def test_b31_a_kernel_that_leaves_a_torch_function_mode_active_fails_its_check(
    tmp_path: Path, kernel: str, failed: bool
) -> None:
    """A ``TorchFunctionMode`` entered at import intercepts every torch call after it, the reference's included,
    while every callable the snapshots hold stays as it was: a kernel.py answering zeros for ``Tensor.__add__`` so and
    returning zeros passed the gate on tests/data/loop's ``x + y`` ("2 case(s) x 1 seed(s) passed", main at
    ``443f30d7``). A mode of the user's active between a case's runs now fails the case naming it; torch's own
    (``torch.set_default_device``'s ``DeviceContext``) is no patch."""
    report = _gate(tmp_path, LOOP_REFERENCE, kernel)
    said = "case 0 (n=4096): kernel.py left torch mode _Mode active, which intercepts every torch call"
    _judged(report, said if failed else None)


# --------------------------------------------- b32: a kernel's output of a tensor subclass that answers for itself

LIAR = """import torch


class _Liar(torch.Tensor):
    __module__ = "torch.nn"  # a name anyone may give: the code's file decides
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        plain = [a for a in args if isinstance(a, torch.Tensor) and not isinstance(a, _Liar)]
        if plain:  # compared with a tensor: be that tensor
            args = tuple(plain[0] if isinstance(a, _Liar) else a for a in args)
        with torch._C.DisableTorchFunctionSubclass():
            out = func(*args, **(kwargs or {}))
        return out.as_subclass(_Liar) if isinstance(out, torch.Tensor) and not plain else out


def run(x, y):
    return (x * 3.0).as_subclass(_Liar)
"""


def test_b32_a_kernel_output_of_a_subclass_that_answers_its_comparisons_fails_its_check(tmp_path: Path) -> None:
    """A kernel.py returning ``x * 3`` for tests/data/loop's ``x + y`` as a ``torch.Tensor`` subclass whose
    ``__torch_function__`` puts the tensor it is compared with in its own place: every difference the check took was
    zero, "2 case(s) x 1 seed(s) passed on cpu, max rel_err 0" (main at ``f92b966f``). An output of a subclass of the
    kernel's own that answers torch calls itself now fails the case, naming it."""
    report = _gate(tmp_path, LOOP_REFERENCE, LIAR)
    _judged(report, "case 0 (n=4096): kernel.py returned a tensor of its own subclass _Liar, which answers the torch")


BOXED = """import torch


class Boxed(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs or {})
"""


@pytest.mark.parametrize("kernel_s", ["(x + y).as_subclass(Boxed)", "(x * 3.0).as_subclass(_Liar)"])
def test_b32_a_subclass_the_reference_returns_too_is_the_kernel_s_to_return(tmp_path: Path, kernel_s: str) -> None:
    """A library's tensor subclass with a ``__torch_function__`` of its own (a float8 or quantized tensor, say) that
    the reference returns too is what the kernel is asked to return: b32's check failed every such correct kernel
    (late19). A subclass of the kernel's own still fails beside it."""
    (tmp_path / "problem").mkdir()
    (tmp_path / "problem" / "boxed.py").write_text(BOXED)
    reference = LOOP_REFERENCE.replace("import torch\n", "import torch\nfrom boxed import Boxed\n", 1)
    reference = reference.replace("return x + y", "return (x + y).as_subclass(Boxed)")
    assert "as_subclass(Boxed)" in reference
    kernel = LIAR.replace("import torch\n", "import torch\nfrom boxed import Boxed\n", 1).replace(
        "return (x * 3.0).as_subclass(_Liar)", f"return {kernel_s}"
    )
    report = _gate_in(tmp_path, reference, kernel)
    _judged(report, None if "Boxed" in kernel_s else "case 0 (n=4096): kernel.py returned a tensor of its own subclass")
