"""A kernel checked against its reference, compiled for the GPU, at sizes its ``SHAPES`` need not name: the one loop
of the trials' GPU tests (tests/test_breaker5_cases.py, test_breaker6_cases.py, test_breaker7_cases.py,
test_variants_cases.py), each with its own judgement of an output (:data:`Judge`), and the pick written and checked
(:func:`written_pick`), or written by ``kernelopt tune`` itself on the GPU (:func:`tuned_on_device`).

Each file kept a near-copy of the loop (``_correct_on_cuda``) and of the pick/edit/check one (leftovers10). The loop
runs the kernel on copies of the inputs (or on what ``prepare`` makes of them: NaN around each) and the reference on
other copies, so an input either changes in place is compared too where the judgement asks.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from kernelopt.tuning.folder import PreparedFolder

#: The opt-in of the trials' costly CPU checks of their GPU picks (:func:`written_files` and :func:`written_hold`: a
#: folder preparation in a worker each pick, the written kernels run in Triton's interpreter at odd sizes): set to 1
#: before a GPU session (scripts/cpu_rehearsal.sh does; docs/gpu-session.md), off in the default run (suite26:
#: breaker20-26's checks took 5-16 CPU-s and 10-35 s wall each there)
GPU_PICKS_ENV = "KERNELOPT_GPU_PICKS"

#: A test's mark that runs it only under :data:`GPU_PICKS_ENV` (the one rule: tests/test_gpu_picks.py's costly check
#: and each trial's ``test_the_gpu_picks_are_written_on_the_cpu``)
costly_picks = pytest.mark.skipif(
    os.environ.get(GPU_PICKS_ENV) != "1",
    reason=f"a trial's GPU picks written and run on the CPU (a worker's preparation each): set {GPU_PICKS_ENV}=1 "
    "(before a GPU session: scripts/cpu_rehearsal.sh)",
)

#: Where the GPU tests run their kernels (a test of this module runs the loop on the CPU in Triton's interpreter).
DEVICE = "cuda"


@dataclass
class Ran:
    """One size's run: ``ref`` the reference module, ``got`` and ``want`` the kernel's and the reference's outputs,
    ``mine`` and ``theirs`` the inputs each was given (after the run), ``inputs`` the inputs as built."""

    ref: ModuleType
    got: Any
    want: Any
    mine: list[Any]
    theirs: list[Any]
    inputs: list[Any]


Judge = Callable[[Ran], "bool | str"]
"""A run -> ``True`` when correct, else ``False`` or what was wrong."""


def _clone(t: Any) -> Any:
    return t.clone() if hasattr(t, "clone") else t


def correct_on_device(
    folder: Path,
    shapes: Sequence[dict[str, int]],
    judge: Judge,
    *,
    kernel_py: Path | None = None,
    prepare: Callable[[Any], Any] = _clone,
) -> dict[str, object]:
    """The kernel of ``folder`` (or ``kernel_py``) against ``folder``'s reference on :data:`DEVICE` at each of
    ``shapes`` (seed 0): {label: ``judge``'s verdict, or the error the run raised (a kernel that raises at a size is
    wrong there)}."""
    import torch

    from kernelopt.oneline import one_line
    from kernelopt.tuning.checks import STICKY_CUDA_ERRORS
    from tests.conftest import load_fresh

    ref = load_fresh(folder / "reference.py", f"_gpu_ref_{folder.name}")
    ker = load_fresh(kernel_py or folder / "kernel.py", f"_gpu_ker_{folder.name}")
    out: dict[str, object] = {}
    for shape in shapes:
        label = ",".join(f"{k}={v}" for k, v in shape.items())
        try:
            torch.manual_seed(0)
            inputs = ref.get_inputs(**shape, device=DEVICE)
            mine, theirs = [prepare(t) for t in inputs], [_clone(t) for t in inputs]
            got = ker.run(*mine)
            if DEVICE.startswith("cuda"):
                torch.cuda.synchronize()
            want = ref.reference(*theirs)
            out[label] = judge(Ran(ref, got, want, mine, theirs, inputs))
        except Exception as exc:  # a kernel that raises at a size is wrong there
            out[label] = one_line(f"{type(exc).__name__}: {exc}", 200)
            if any(word in str(exc) for word in STICKY_CUDA_ERRORS):
                raise StickyFault(folder, kernel_py, label, out) from exc
    return out


class StickyFault(AssertionError):
    """A CUDA error after which the process's context is unusable (:data:`~kernelopt.tuning.checks.
    STICKY_CUDA_ERRORS`: a misaligned address, an illegal access): every later call in the process raises it again,
    at whatever line comes next (breaker16's GPU test, H100 2026-12-06: raised at the next size's
    ``torch.manual_seed``, the failing original and size not named). The loop stops at it, naming the folder, the
    kernel file and the size; no later size or folder of the process can run."""

    def __init__(self, folder: Path, kernel_py: Path | None, label: str, out: dict[str, object]) -> None:
        where = f"{folder.name}" + (f" ({kernel_py.name})" if kernel_py is not None else "")
        super().__init__(f"{where} at {label}: {out[label]} (a sticky CUDA error: nothing after it ran); {out}")
        self.label = label
        self.out = out


def assert_correct(folder: Path, shapes: Sequence[dict[str, int]], judge: Judge, **options: Any) -> None:
    """:func:`correct_on_device` (``options``: its ``kernel_py`` and ``prepare``) holds at every size (the failing
    sizes in the message)."""
    got = correct_on_device(folder, shapes, judge, **options)
    assert all(v is True for v in got.values()), (folder.name, options.get("kernel_py"), got)


def original_and_written(
    folder: Path, written: str, size: dict[str, Any], tmp_path: Path, judge: Judge | None = None
) -> tuple[object, object]:
    """The verdicts of ``folder``'s original kernel and of the text ``written`` at ``size`` in Triton's interpreter on
    the CPU (kernelopt's patches on: its ``min_dot_size`` check among them): ``judge``'s (default ``torch.allclose``
    of out and the reference), or the error the run raised."""
    import torch

    from tests.conftest import triton_interpreted

    global DEVICE
    device, DEVICE = DEVICE, "cpu"
    (tmp_path / "written.py").write_text(written)
    label = ",".join(f"{k}={v}" for k, v in size.items())
    verdicts = []
    try:
        with triton_interpreted():
            for kernel_py in (None, tmp_path / "written.py"):
                got = correct_on_device(
                    folder, [size], judge or (lambda ran: bool(torch.allclose(ran.got, ran.want))), kernel_py=kernel_py
                )
                verdicts.append(got[label])
    finally:
        DEVICE = device
    return verdicts[0], verdicts[1]


def tuned_on_device(folder: Path, wall_s: int = 120) -> None:
    """``kernelopt tune folder --device cuda`` run as a user runs it (a process of its own, Triton's interpreter off,
    a ``wall_s`` wall), its output printed; it must succeed. The kernel.py it leaves is then checked at sizes no
    entry names (:func:`assert_correct`)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run(
        [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", DEVICE, "--budget-wall-s", str(wall_s)],
        capture_output=True, text=True, timeout=380, env=env,
    )  # fmt: skip
    print(done.stdout[-3000:], done.stderr[-2000:])
    assert done.returncode == 0, done.stderr[-2000:]


def written_pick(folder: Path, pick: dict[str, int], form: str) -> Path:
    """``folder``'s kernel.py replaced by what ``kernelopt tune`` writes when its session picks ``pick``
    (:func:`tests.test_breaker_cases._tune_edit`), checked to hold ``form`` (the guard or line the fix writes)."""
    from tests.test_breaker_cases import _tune_edit

    written, _ = _tune_edit(folder, pick)
    assert written is not None and form in written, (folder.name, written)
    (folder / "kernel.py").write_text(written)
    return folder


def written_files(data: Path, picks: dict[str, dict[str, int]], tmp_path: Path) -> dict[str, Path]:
    """{name: the kernel.py ``kernelopt tune`` writes for ``data / name`` when its session picks ``picks[name]``},
    each written beside the copies as ``<name>_written.py`` (the trials' GPU tests run it against the folder's own
    reference)."""
    import shutil

    from kernelopt.tuning.folder import TuneRequest, prepare_folder
    from tests.test_breaker_cases import _tune_edit

    written: dict[str, Path] = {}
    for name, pick in picks.items():
        folder = Path(shutil.copytree(data / name, tmp_path / name))
        prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
        text, note = _tune_edit(folder, pick, prepared=prepared)
        origins = prepared.space.origins
        if (
            text is None
            and prepared.listed is not None
            and all(n in origins and origins[n].value == v for n, v in pick.items())
        ):  # this run's autotuner picked ``pick`` itself (it times its list): the list pinned to it all the same
            text, note = _pinned(prepared, pick), "the autotuner's own pick, pinned"
        assert text is not None, (name, note)
        written[name] = tmp_path / f"{name}_written.py"
        written[name].write_text(text)
    return written


def _pinned(prepared: PreparedFolder, pick: dict[str, int]) -> str | None:
    """What ``tune`` writes for ``pick`` on ``prepared``'s autotune list had its autotuner picked another config
    (breaker24's CI flake: the interpreter's autotuner times its list, and picked fla_global_cumsum's ``BT=64`` itself
    under load): the list pinned to ``pick``, its tiles guarded (:func:`kernelopt.tunables.guard.guard_edit`)."""
    from kernelopt.tunables.guard import guard_edit
    from kernelopt.tuning.kernel_evaluator import pin_config

    p = prepared
    pinned = pin_config(
        p.base_source, pick, p.listed, p.space.origins, filename=p.problem.kernel_py.name, evaluation=p.evaluation,
        force=True,
    )  # fmt: skip
    assert pinned is not None and pinned.new_source is not None
    return guard_edit(p.base_source, pinned.new_source).new_source


def written_hold(
    data: Path,
    written: dict[str, Path],
    sizes: dict[str, list[dict[str, int]]],
    tmp_path: Path,
    check: Callable[[Path, list[dict[str, int]]], None],
) -> None:
    """Each written kernel of ``written`` (:func:`written_files`) in a copy of its folder of ``data``, ``check``ed
    there at ``sizes[name]`` (the trials' CPU test of their GPU picks: ``_all_correct`` in the interpreter)."""
    import shutil

    for name, shapes in sizes.items():
        folder = Path(shutil.copytree(data / name, tmp_path / f"{name}_check"))
        shutil.copy(written[name], folder / "kernel.py")
        check(folder, shapes)


def trial_holds(
    data: Path,
    sizes: dict[str, list[dict[str, int]]],
    picks: dict[str, dict[str, int]],
    written_sizes: dict[str, list[dict[str, int]]],
    judge: Judge,
    tmp_path: Path,
) -> None:
    """A held-out trial's GPU check: each original of ``data`` correct at its ``sizes`` and each form ``tune``
    writes for ``picks`` (:func:`written_files`) at its ``written_sizes`` (:func:`assert_correct`)."""
    written = written_files(data, picks, tmp_path)
    for name, shapes in sizes.items():
        assert_correct(data / name, shapes, judge)
    for name, shapes in written_sizes.items():
        assert_correct(data / name, shapes, judge, kernel_py=written[name])
