"""break20: this session's landings tried on a fresh clone by a hostile reviewer (docs/faults.md, "A fresh clone
broken, twentieth trial"). Each test is a finding's case: b33, b34, ..."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pytest

import tests.test_leftovers20_cases as l20
import tests.test_wrongkernel17_cases as wk17
from kernelopt.batch.model import ProblemRow, ProblemStatus
from kernelopt.batch.problems import BatchItem
from kernelopt.loop.opening import default_name
from kernelopt.tuning.net import SizeClass
from kernelopt.workspace import PREFIX
from tests.conftest import check_in_process

RELU = Path(__file__).parent / "data" / "kernelbench" / "relu"
DATA = Path(__file__).parent / "data" / "break20"

#: v83's layout_two_kernels with its sizes reference.py's module-level constants: the entries name the layout alone.
LAYOUT_ON_CONSTANTS = """import torch

N_ROWS = 16
N_COLS = 64
SHAPES = [{"transposed": 0}, {"transposed": 1}]


def get_inputs(transposed=0, device="cpu"):
    g = torch.Generator().manual_seed(7)
    if transposed:
        return [torch.randn(N_COLS, N_ROWS, generator=g).to(device).t()]
    return [torch.randn(N_ROWS, N_COLS, generator=g).to(device)]


def reference(x):
    return x.sum(dim=1)
"""


#: v83's layout_two_kernels whose get_inputs takes the layout through ``**opts``, which the text cannot follow.
LAYOUT_THROUGH_KWARGS = """import torch

SHAPES = [{"n_rows": 8, "n_cols": 64, "transposed": 0}, {"n_rows": 16, "n_cols": 32, "transposed": 1}]


def get_inputs(n_rows=8, n_cols=64, device="cpu", **opts):
    g = torch.Generator().manual_seed(n_rows * 7 + n_cols)
    if opts.get("transposed", 0):
        return [torch.randn(n_cols, n_rows, generator=g).to(device).t()]
    return [torch.randn(n_rows, n_cols, generator=g).to(device)]


def reference(x):
    return x.sum(dim=1)
"""

#: v83's layout_two_kernels whose row-major entry leaves ``transposed`` out, to ``get_inputs``' default.
LAYOUT_LEFT_OUT = """import torch

SHAPES = [{"n_rows": 8, "n_cols": 64}, {"n_rows": 16, "n_cols": 32, "transposed": 1}]


def get_inputs(n_rows=8, n_cols=64, transposed=0, device="cpu"):
    g = torch.Generator().manual_seed(n_rows * 7 + n_cols)
    if transposed:
        return [torch.randn(n_cols, n_rows, generator=g).to(device).t()]
    return [torch.randn(n_rows, n_cols, generator=g).to(device)]


def reference(x):
    return x.sum(dim=1)
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("reference", "kind", "label"),
    [
        (LAYOUT_ON_CONSTANTS, SizeClass.FLOOR, "transposed=1,N_ROWS=5,N_COLS=17"),
        (LAYOUT_THROUGH_KWARGS, SizeClass.BELOW, "n_rows=5,n_cols=17,transposed=1"),
        (LAYOUT_LEFT_OUT, SizeClass.BELOW, "n_rows=5,n_cols=17,transposed=1"),
    ],
    ids=["b33-module-level-sizes", "b37-through-kwargs", "b40-left-out-of-an-entry"],
)
def test_b33_b37_b40_a_layout_key_the_net_kept_is_a_layout_each_and_v83_s_wrong_pick_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference: str, kind: SizeClass, label: str
) -> None:
    """b33: wrongkernel20 split a kept key the entries give different values into a layout each only where the
    entries' keys are the sizes; with ``N_ROWS = 16`` and ``N_COLS = 64`` at module level and ``SHAPES`` naming
    ``transposed`` 0 and 1 alone, every size of the net ran row-major ("correct at transposed=0,N_ROWS=17,N_COLS=65,
    ...; kept transposed") and v83's ``BLOCK_K=32``, which sums a transposed row of 17 columns wrong, was written.
    b37: the same where ``get_inputs`` takes ``transposed`` through ``**opts`` (no reading of it: every size ran
    row-major, and the pick was written). b40: the same where the row-major entry leaves ``transposed`` out (the keys
    were read from the primary entry alone). Now each is taken in each layout and the pick fails a transposed size;
    nothing is written."""
    variants = tmp_path / "variants"
    folder = Path(shutil.copytree(wk17.VARIANTS / "layout_two_kernels", variants / "layout"))
    (folder / "reference.py").write_text(reference)
    monkeypatch.setattr(wk17, "VARIANTS", variants)
    done = wk17._checked(tmp_path, monkeypatch, "layout", {"BLOCK_K": 32})
    wk17._caught(done, kind, label)


@pytest.mark.parametrize(
    ("change", "found"),
    [
        ("\n\ndef small(limit):\n    cfgs = CONFIGS\n    cfgs = [c for c in cfgs if c.kwargs['BLOCK_M'] <= limit]\n"
         "    cfgs.sort(key=lambda c: c.kwargs['BLOCK_M'])\n    return cfgs", True),
        (f"ALL = CONFIGS\nALL = [*ALL]\nALL.append({l20._ADDED})", True),
        (f"\n\ndef more():\n    cfgs = CONFIGS\n    cfgs.append({l20._ADDED})\n    cfgs = []", False),
        (f"\n\ndef more(small):\n    cfgs = CONFIGS\n    if small:\n        cfgs = list(cfgs)\n    cfgs.append({l20._ADDED})",
         False),
        (f"\n\ndef more():\n    cfgs = []\n    for _ in range(2):\n        cfgs.append({l20._ADDED})\n        cfgs = CONFIGS",
         False),
    ],
    ids=["rebound-then-sorted", "module-copy-appended", "changed-then-rebound", "rebound-in-an-if", "bound-in-a-loop"],
)  # fmt: skip
def test_b34_a_list_changed_through_a_name_rebound_to_a_copy_first_is_found_not_refused(
    change: str, found: bool
) -> None:
    """b34: leftovers20's l5 took a name bound to ``CONFIGS`` anywhere in its scope for ``CONFIGS`` at every line, so
    a helper that rebinds it to a filtered copy before sorting it (``cfgs = CONFIGS; cfgs = [c for c in cfgs if ...];
    cfgs.sort(...)``) refused the autotune list "changed in place ... (in small(), through cfgs)", whose configs every
    earlier session found (and a module copy appended to was read back as changed). Now the name holds ``CONFIGS`` at
    the change only where its last binding before it is ``CONFIGS`` (or one an ``if`` may skip, or one a loop brings
    round): those still refused."""
    text = (l20.DATA / "breaker" / "mm_autotune" / "kernel.py").read_text()
    written = text[text.index("@triton.autotune(") : text.index("    key=")]
    listed = l20._found(text.replace(written, f"{l20._CONFIGS}{change}\n\n\n@triton.autotune(\n    configs=CONFIGS,\n"))
    if found:
        assert listed["matmul_kernel.configs[1].BLOCK_M"].value == 16 and "matmul_kernel.configs" not in listed
    else:
        refusal = listed["matmul_kernel.configs"].refused_reason or ""
        assert "'CONFIGS' is changed in place" in refusal and "through cfgs" in refusal, refusal


def test_b35_a_record_deleted_by_a_commit_is_refused_and_its_restore_line_puts_it_back(ws_root: Path) -> None:
    """b35: newuser17's n104 refused a committed record deleted from the folder (``git ls-files --deleted``), but a
    record deleted by ``git rm memory/v1.json``, or by that and a commit, is gone from the index too: the next run
    took V1 for never run and ended "end of run: kernel.py = V0, the fastest passing version", V1's kernel replaced.
    Now every record a commit of HEAD's history holds and the folder lacks is refused, and the line that restores it
    names the last commit that holds it (``git checkout -- memory/v1.json`` restores nothing git rm took)."""
    import subprocess

    from kernelopt.errors import WorkspaceError
    from kernelopt.loop.machine import OptimizeLoop
    from kernelopt.loop.opening import open_or_create
    from kernelopt.loop.settings import LoopRequest
    from kernelopt.report import collect

    from .loop_fakes import DATA, make_fakes, subjects

    ws = open_or_create(DATA, name="loop", root=ws_root).workspace
    fakes = make_fakes()
    OptimizeLoop(ws, fakes.collaborators(), LoopRequest(max_iterations=1)).run()
    subprocess.run(["git", "-C", str(ws.root), "rm", "-q", "memory/v1.json"], check=True)  # gone from the index too
    subprocess.run(["git", "-C", str(ws.root), "commit", "-qm", "drop v1"], check=True)
    kernel, loops = ws.kernel_py.read_bytes(), subjects(ws)
    with pytest.raises(WorkspaceError) as deleted:
        OptimizeLoop(ws, fakes.collaborators(), LoopRequest(max_iterations=1)).run()
    line = deleted.value.one_line()
    assert f"{ws.root}: memory/v1.json deleted since committed" in line, line
    assert ws.kernel_py.read_bytes() == kernel and subjects(ws) == loops  # nothing committed, kernel.py kept
    assert [u.split(": deleted since committed;")[0] for u in collect(ws).unreadable] == [f"v1: {ws.memory.path(1)}"]
    restore = line.split("restore it (", 1)[1].split("); to set", 1)[0]
    subprocess.run(["bash", "-c", restore], check=True, capture_output=True)
    assert ws.memory.read(1).quality_gate.result is not None and collect(ws).unreadable == []


class _NamingRunner:
    """A batch runner that runs nothing: each row names the workspace its item would take (as ``open_or_create``
    names it) and passes."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def run(self, item: BatchItem, upcoming: BatchItem | None = None) -> ProblemRow:
        name = item.workspace_name or default_name(item.folder)
        where = str(self.root / f"{PREFIX}{name}")
        return ProblemRow(problem=item.problem, folder=str(item.folder), status=ProblemStatus.PASS, workspace=where)

    def close(self) -> None:
        return None


def test_b36_a_folder_added_beside_one_whose_workspace_name_it_shares_takes_none_of_that_problem_s_workspace(
    tmp_path: Path,
) -> None:
    """b36: newuser17's n106 gives colliding folders a workspace each, the one named as its workspace keeping the
    plain name; but which collide is read from the folders there now. A batch of ``relu v1`` (its row's workspace
    ``kernel_opt_relu_v1``), resumed after the user added ``relu_v1``, ran ``relu_v1`` in ``kernel_opt_relu_v1``:
    ``relu v1``'s workspace was replaced by the newcomer's files and its row named them (``kernelopt batch --device
    cpu``, main at ``22290abc``). Now a workspace another problem's row names is that problem's: the newcomer gets
    one of its own, and a third batch skips both."""
    from kernelopt.batch.rows import BatchOptions
    from kernelopt.batch.runner import run_batch

    mix, out = tmp_path / "mix", tmp_path / "out"
    shutil.copytree(RELU, mix / "relu v1")
    options = BatchOptions(out_dir=out, device="cpu")
    run = functools.partial(run_batch, mix, options, runner=_NamingRunner(options.workspace_root))
    first = {r.problem: r.workspace for r in run().rows}
    shutil.copytree(RELU, mix / "relu_v1")
    events: list[str] = []
    second = {r.problem: r.workspace for r in run(on_event=lambda e: events.append(f"{e.kind} {e.problem}")).rows}
    assert second["relu v1"] == first["relu v1"] == str(options.workspace_root / "kernel_opt_relu_v1")
    assert second["relu_v1"] is not None and Path(second["relu_v1"]).name.startswith("kernel_opt_relu_v1_"), second
    assert "skipped relu v1" in events and "start relu_v1" in events, events
    again: list[str] = []
    assert {r.problem: r.workspace for r in run(on_event=lambda e: again.append(str(e.kind))).rows} == second
    assert again == ["resumed", "skipped", "skipped"], again  # late34 z112: the resume says its kept rows first


@pytest.mark.parametrize("commit", [False, True], ids=["git-rm", "git-rm-committed"])
def test_b38_a_kernel_py_taken_by_git_rm_is_said_with_a_restore_line_that_puts_it_back(
    ws_root: Path, capsys: pytest.CaptureFixture[str], commit: bool
) -> None:
    """b38: newuser17's n107 says a workspace's kernel.py deleted by hand and names ``git checkout -- kernel.py``,
    which restores nothing ``git rm kernel.py`` took ("pathspec 'kernel.py' did not match any file(s) known to git"),
    committed or not. Now the line names the newest commit that holds it, and run as written puts it back."""
    import subprocess

    from kernelopt.cli.app import main
    from kernelopt.workspace import Workspace
    from tests.conftest import KERNELS

    ws = Workspace.create("h9", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=ws_root)
    kernel = ws.kernel_py.read_bytes()
    subprocess.run(["git", "-C", str(ws.root), "rm", "-q", "kernel.py"], check=True)
    if commit:
        subprocess.run(["git", "-C", str(ws.root), "commit", "-qm", "drop kernel.py"], check=True)
    assert main(["validate", str(ws.root)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{ws.root}: kernel.py deleted from the workspace" in err, err
    restore = err.split("restore it (", 1)[1].split(")", 1)[0]
    subprocess.run(["bash", "-c", restore], check=True, capture_output=True)
    assert ws.kernel_py.read_bytes() == kernel


@pytest.mark.parametrize("problem", ["sorted_merge", "sorted_unique"])
def test_b39_a_kernel_relying_on_its_inputs_sorted_order_passes_every_seed(tmp_path: Path, problem: str) -> None:
    """b39: review20's r4 permuted every input where each is a vector in sorted order (so that a seed differs from
    seed 0), so a kernel that relies on that order beside a reference that does not failed seed 1: a merge of two
    sorted vectors "output not written: 2127 of 6144 elements still hold the poison pattern", a unique over one
    "output has shape (4091,); the reference's is (1007,)" (``kernelopt batch --device cpu``, main at ``000c2fd6``).
    Now such vectors are scaled by one power of two in the check's seeds 1+: in order, each seed its own values."""
    folder = Path(shutil.copytree(DATA / problem, tmp_path / problem))
    result = check_in_process(folder, "v1")
    assert result.failure is None, result.failure


@pytest.mark.timeout(120)
def test_b41_a_code_get_inputs_takes_through_kwargs_is_held_at_each_value_and_v85_s_pick_fails_op_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """b41: wrongkernel20's v85 holds a small integer code the entries give different values (``op`` 1 and 2) at each
    value below its largest, but took only a key with a reading of ``get_inputs``' text; with ``get_inputs(n_rows=20,
    n=128, device="cpu", **kw)`` reading ``kw.get("op", 1)`` (main at ``b3962c6f``), every net size but those below
    the entries ran at op 2, the power size 40 x 512 of op 1 (where ``BLOCK=256`` raises) never, and the pick was left
    for the time cap alone to refuse. Now such a key is read as one the text cannot follow, held at 1, and the pick
    fails there; nothing is written."""
    import tests.test_tuning_net as tn

    variants = tmp_path / "variants"
    folder = Path(shutil.copytree(wk17.VARIANTS / "op_code_reshape", variants / "op_through_kwargs"))
    text = (folder / "reference.py").read_text()
    signature = 'def get_inputs(n_rows=20, n=128, op=1, device="cpu"):'
    assert signature in text
    kwargs = 'def get_inputs(n_rows=20, n=128, device="cpu", **kw):\n    op = kw.get("op", 1)'
    (folder / "reference.py").write_text(text.replace(signature, kwargs))
    monkeypatch.setattr(tn, "VARIANTS", variants)
    done = tn.plain_pick_checked(tmp_path, monkeypatch, "op_through_kwargs", {"BLOCK": 256})
    wk17._caught(done, SizeClass.POWER, "n_rows=40,n=512,op=1")
