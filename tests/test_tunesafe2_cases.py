"""The second fault trial of ``kernelopt tune`` on a user's own file (docs/faults.md, "tune on a user's file,
second fault trial", t1..): each test injects one fault the trial found and holds its fix.

The invariant is docs/tuning-engine.md's: after any fault kernel.py is byte for byte what the user last wrote, or
that text with only the knob edit applied, and the exit code says which (0: the verdict holds; any other: kernel.py
untouched). The tunes run in this process on a copy of tests/data/loop (a torch kernel on the CPU, no compile
pool); the faults are a stdout that is closed or refuses what is printed, and a signal between two record lines.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.proc import TerminationSignal
from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Result
from kernelopt.tuning.record import RecordHeader, SessionRecord, read_sweeps
from kernelopt.tuning.replay import ReplayEvaluator, space_from_sweep
from kernelopt.tuning.session import StopReason, tune
from tests.conftest import without_since

LOOP = Path(__file__).parent / "data" / "loop"
SWEEPS = Path(__file__).resolve().parents[1] / "docs" / "gpu-runs" / "2026-12-01-sweeps"
TUNE = ["--device", "cpu", "--budget", "3", "--repetitions", "3"]


def _folder(tmp_path: Path) -> tuple[Path, bytes]:
    folder = tmp_path / "loop"
    shutil.copytree(LOOP, folder, ignore=shutil.ignore_patterns("make_summaries.py", "summary_*"))
    return folder, (folder / "kernel.py").read_bytes()


def _knob_edit_only(before: bytes, after: bytes) -> bool:
    """``after`` is ``before`` with the one ``BLOCK = ...`` line changed (the knob edit and nothing else)."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    return len(changed) == 1 and new[changed[0]].startswith(b"BLOCK = ")


def _better(monkeypatch: pytest.MonkeyPatch) -> None:
    """The session's verdict is "better" whatever the timing says: these tests are about what follows a verdict (a
    write, a check of the text to write), not about the verdict, which a loaded 2-core machine's noise can turn
    ("too noisy to rank": nothing to write), and one configuration is chosen for both SHAPES entries (noise between
    the entries can ask for a per-bucket table, whose own judgement would replace this verdict)."""
    import kernelopt.tuning.folder as tuning_folder
    from kernelopt.tuning.session import GainJudgement
    from kernelopt.tuning.shapes import ChoiceKind, ShapeChoice

    verdict = GainJudgement(better=True, gain_pct=100.0, min_gain_pct=2.0, reason="the test's verdict")
    one = ShapeChoice(kind=ChoiceKind.ONE, reason="the test's choice")
    monkeypatch.setattr(tuning_folder, "judge_gain", lambda *args, **kwargs: verdict)
    monkeypatch.setattr(tuning_folder, "choose", lambda *args, **kwargs: one)


class _Refusing(io.TextIOBase):
    """A stdout whose file refuses every write (a full disk, ``> /dev/full``)."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")


@pytest.mark.timeout(60)
def test_t1_a_closed_stdout_is_refused_before_anything_is_done(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """t1: ``tune --json >&-`` tuned, wrote kernel.py, then ended in exit 70 (AttributeError on ``None.write``)."""
    folder, before = _folder(tmp_path)
    capsys.readouterr()
    monkeypatch.setattr("sys.stdout", None)  # what Python gives a process started with descriptor 1 closed
    assert main(["tune", str(folder), *TUNE, "--json"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("kernelopt: error: stdout is closed or not open for writing (file descriptor 1)")
        and err.count("\n") == 1
    ), err
    assert (folder / "kernel.py").read_bytes() == before and not (folder / ".kernelopt").exists()


@pytest.mark.timeout(120)
def test_t2_a_stdout_that_refuses_the_result_says_what_kernel_py_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """t2: ``tune | true`` wrote kernel.py and ended in exit 1 with no word (rich's broken-pipe exit); ``tune --json
    > /dev/full`` wrote it and said "no space left on the device ... pass --out", exit 3. Now a reader that went away
    after the write is exit 0 and one line saying what kernel.py holds; a stdout that refuses a result with nothing
    written is exit 3 naming stdout."""
    folder, before = _folder(tmp_path)
    monkeypatch.setattr("sys.stdout", _Refusing())  # --dry-run: nothing is written, so stdout's refusal is exit 3
    code = main(["tune", str(folder), *TUNE, "--dry-run", "--json"])
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 3, err
    line = err.strip().splitlines()[-1]
    assert line.startswith("kernelopt: error: could not print to stdout: No space left on device (errno 28)"), err
    assert "--out" not in line and (folder / "kernel.py").read_bytes() == before

    read_end, write_end = os.pipe()  # the same session again (served from its record), written this time
    os.close(read_end)  # the reader went away (`| head -1` done, `| true`): every write is EPIPE
    with open(write_end, "w", encoding="utf-8") as gone:
        _better(monkeypatch)
        monkeypatch.setattr("sys.stdout", gone)
        code = main(["tune", str(folder), *TUNE])
        monkeypatch.undo()
    err = capsys.readouterr().err
    after = (folder / "kernel.py").read_bytes()
    assert code == 0, err
    assert _knob_edit_only(before, after)
    line = err.strip().splitlines()[-1]
    best = after.split(b"BLOCK = ", 1)[1].split()[0].decode()
    assert line == (
        f"kernelopt: kernel.py holds the session's best, BLOCK={best} (written); the summary could not be printed: "
        "stdout refused it (Broken pipe (errno 32))"
    ), err


class _CutRecord:
    """A session record that takes a signal while it writes its ``cut_at``-th line (after ``cut_at - 1`` whole
    lines): the moment a user's Ctrl-C lands between two lines of one round."""

    def __init__(self, record: SessionRecord, cut_at: int) -> None:
        self.record, self.cut_at, self.lines = record, cut_at, 0

    def served(self) -> dict[str, Result]:
        return self.record.served()

    def append(self, result: Result) -> None:
        self.lines += 1
        if self.lines == self.cut_at:
            raise KeyboardInterrupt
        self.record.append(result)


@pytest.mark.timeout(60)
def test_t3_an_interrupt_between_two_record_lines_keeps_what_was_recorded(tmp_path: Path) -> None:
    """t3: SIGINT/SIGTERM/SIGHUP as a round's results were recorded said "interrupted after 2 candidate(s) (none
    timed)" while the record held the two timed: the round's results joined the session only after its last line."""
    s = read_sweeps(SWEEPS / "layernorm.json")[0]
    space, clock = space_from_sweep(s), ManualClock()
    header = RecordHeader.for_space(space, device="cuda", gpu="NVIDIA H200", versions={"triton": "3.6.0"})
    record = _CutRecord(SessionRecord.open(tmp_path / "record.jsonl", header), cut_at=3)
    budget = Budget.default(space.size.count, clock)
    cut = tune(space, ReplayEvaluator(s, clock), budget=budget, record=record, rng_seed=7)  # type: ignore[arg-type]
    kept = SessionRecord.read(tmp_path / "record.jsonl").results
    assert cut.stop is StopReason.INTERRUPTED and len(kept) == 2
    assert [r.key for r in cut.results] == [r.key for r in kept] and cut.evaluations >= 2
    assert cut.best_latency_us == min(r.latency_us for r in kept if r.latency_us is not None)


@pytest.mark.timeout(120)
def test_t4_two_tunes_that_share_a_session_folder_are_one_at_a_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """t4: two copies of one kernel folder tuned at once with one ``--out`` shared the session folder (the key is the
    kernel, the reference and the problem, not the path): both timed under each other's load into one record, the
    second serving the first's measurements as they were made. The session folder is locked as the folder is."""
    import subprocess
    import sys

    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    first, before = _folder(tmp_path)
    second = tmp_path / "copy"
    shutil.copytree(first, second)
    out = tmp_path / "shared"
    session = prepare_folder(TuneRequest(folder=first, device="cpu", budget=3, out=out)).session_dir
    src = Path(__file__).resolve().parents[1] / "src"
    holder = subprocess.Popen(  # the first tune, holding its session folder's lock until told to go
        [
            sys.executable,
            "-c",
            f"from kernelopt.workspace import RunLock; RunLock({str(session)!r}, command='tune').acquire(); "
            "print('held', flush=True); input()",
        ],
        env={**os.environ, "PYTHONPATH": str(src)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"  # it holds the lock now
        capsys.readouterr()
        assert main(["tune", str(second), *TUNE, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert without_since(err.strip().splitlines()[-1]) == (
            f"kernelopt: error: another kernelopt tune is running on {session} (pid {holder.pid}); it tunes the "
            "same kernel and reference into the same --out; wait for it, or give this one another --out"
        ), err
        assert (second / "kernel.py").read_bytes() == before and not (session / "record.jsonl").exists()
    finally:
        holder.kill()
        holder.wait(timeout=30)


@pytest.mark.timeout(120)
def test_t5_an_interrupt_in_optimize_s_tuning_session_is_the_loop_s_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """t5: a Ctrl-C while Stage 3's tuning session ran ended the session, and the loop went on: V1 recorded (and
    committed) as FAIL "no candidate ran", exit 0, and the next ``optimize`` stopped with no_new_plan ("the tuning
    session of this kernel.py failed in v1"): one Ctrl-C ruled out the launch configuration for good. A session cut
    after its first round could write its best so far, never re-timed. Now the interrupt leaves Stage 3 as an
    interrupt: the loop rolls the stage back and says how to resume, kernel.py unchanged."""
    from kernelopt.actions import LAUNCH_CONFIGURATION
    from kernelopt.backends.protocol import StageContext
    from kernelopt.backends.rules import RuleImplementer, RulePlanner
    from kernelopt.loop.wiring import cpu_timing_summary
    from kernelopt.memory.model import GateResult, IterationRecord
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator
    from kernelopt.workspace import Workspace

    from .data.planning import fakes

    ws = Workspace.create(
        "cut", kernel=LOOP / "kernel.py", reference=LOOP / "reference.py", root=tmp_path, task_card=LOOP / "README.md"
    )
    v0 = IterationRecord(version="v0")
    v0.quality_gate.result = GateResult.PASS
    v0.performance.latency_us = 300.0
    ws.memory.write(v0)
    summary = cpu_timing_summary(ws, 1)
    planned = RulePlanner({"knob_only": True, "wiki_search": fakes.FakeWiki()}).plan(
        StageContext(workspace=ws, version=1, summary=summary, history=[v0])
    )
    assert planned.plan is not None and planned.plan.action_category is LAUNCH_CONFIGURATION
    before = ws.kernel_py.read_bytes()
    cut: list[int] = []

    def retime_cut(self: ShapesEvaluator, batch: object) -> object:
        cut.append(1)  # the candidates timed, the final re-time under way: the best so far was never re-timed
        raise KeyboardInterrupt

    monkeypatch.setattr(ShapesEvaluator, "retime", retime_cut)
    implementer = RuleImplementer({"device": "cpu", "bench_repetitions": 2, "budget": 3})
    with pytest.raises(KeyboardInterrupt):
        implementer.implement(StageContext(workspace=ws, version=1, summary=summary, plan=planned.plan))
    assert cut == [1] and ws.kernel_py.read_bytes() == before


CR_KERNEL = (
    "import torch\r\r"
    "BLOCK = 64  # kernelopt: tunable max=4096\r\r\r"
    "def run(x, y):\r"
    "    out = torch.empty_like(x)\r"
    "    for s in range(0, x.numel(), BLOCK):\r"
    "        torch.add(x[s : s + BLOCK], y[s : s + BLOCK], out=out[s : s + BLOCK])\r"
    "    return out\r"
)


@pytest.mark.timeout(60)
def test_t6_a_kernel_with_classic_mac_line_endings_is_read_and_edited_in_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """t6: a kernel.py whose lines end in a lone CR ended ``tune`` (and ``tunables``) in exit 70, an IndexError:
    discovery counted lines at LF only, the parser at CR too. Now the knob is found on its line and the edit
    changes that line alone, every CR kept."""
    import json

    from kernelopt.tunables.edit import apply_source

    path = tmp_path / "kernel.py"
    path.write_bytes(CR_KERNEL.encode())
    assert main(["tunables", str(path), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [(t["key"], t["value"], t["location"]) for t in found] == [("BLOCK", 64, "kernel.py:3")]
    edit = apply_source(CR_KERNEL, {"BLOCK": 1024})
    assert edit.new_source == CR_KERNEL.replace("BLOCK = 64 ", "BLOCK = 1024 ", 1)


@pytest.mark.timeout(60)
def test_t7_a_read_only_mount_or_folder_is_said_as_it_is_before_the_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """t7: on a read-only bind mount the kernel.py of mode 0644 was "read-only (mode 0644), so nothing was written to
    it; make it writable (chmod u+w)": chmod cannot help there. A folder that cannot be written (a file that can) was
    found only at the end of the session, when the temporary file could not be made. Both are said before the
    session now, in their own words (exit 3, nothing made)."""
    folder, before = _folder(tmp_path)
    statvfs = os.statvfs

    class _ReadOnly:
        def __init__(self, real: os.statvfs_result) -> None:
            self.f_flag = real.f_flag | os.ST_RDONLY

    def mounted_read_only(path: object) -> object:
        real = statvfs(path)  # type: ignore[arg-type]
        return _ReadOnly(real) if Path(str(path)) == folder else real

    monkeypatch.setattr(os, "statvfs", mounted_read_only)
    capsys.readouterr()
    assert main(["tune", str(folder), *TUNE]) == 3
    err = capsys.readouterr().err
    assert err == (
        f"kernelopt: error: {folder / 'kernel.py'}: on a read-only file system, so nothing was written to it; work on "
        "a copy on a writable disk (or mount it read-write) and run again\n"
    )
    monkeypatch.undo()

    access = os.access
    monkeypatch.setattr(  # the folder is not writable for this user (as root, every folder is)
        os, "access", lambda p, mode, **kw: (Path(p) != folder or not mode & os.W_OK) and access(p, mode, **kw)
    )
    assert main(["tune", str(folder), *TUNE]) == 3
    err = capsys.readouterr().err
    assert err == (
        f"kernelopt: error: {folder / 'kernel.py'}: its folder {folder} is not writable, and a write renames a new "
        "file into it, so nothing was written; make the folder writable (chmod u+w) and run again\n"
    )
    assert (folder / "kernel.py").read_bytes() == before and not (folder / ".kernelopt").exists()


@pytest.mark.timeout(60)
def test_t8_a_folder_named_in_characters_the_font_lacks_draws_its_plot_without_warnings() -> None:
    """t8: ``tune`` on ``my kernels/café ü 内核`` wrote kernel.py (exit 0) and put two lines of matplotlib's
    "UserWarning: Glyph 20869 (...) missing from font(s) DejaVu Sans." on stderr for each such character."""
    import warnings

    pytest.importorskip("matplotlib")
    from kernelopt.report.search_plot import SearchPoint, search_plot

    points = [
        SearchPoint(evaluation=i, latency_us=us, outcome="ok", recorded=False, by_shape={})
        for i, us in enumerate((30.0, 20.0, 25.0), start=1)
    ]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        image = search_plot(points, title="café ü 内核: module constants (local)", current_latency_us=30.0)
    assert image.startswith(b"\x89PNG") and [str(w.message) for w in seen] == []


@pytest.mark.timeout(120)
def test_t9_the_lines_of_an_interrupt_in_the_final_check_and_of_a_deleted_kernel_say_what_is_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """t9: a Ctrl-C in the check of the text to write (after the re-time) said the best was "not re-timed"; a
    kernel.py deleted during the session was told to "run again to tune the file as it is now"."""
    import kernelopt.tuning.folder as tuning_folder

    folder, before = _folder(tmp_path)

    def cut(*args: object, **kwargs: object) -> object:
        raise TerminationSignal(signal.SIGHUP)  # a closed terminal (t13: the line names it)

    _better(monkeypatch)
    monkeypatch.setattr(tuning_folder, "shaped_edit", cut)
    capsys.readouterr()
    assert main(["tune", str(folder), *TUNE]) == 130
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith("kernelopt: interrupted by SIGHUP after 3 candidate(s) (best so far BLOCK="), line
    assert "re-timed, its edit not yet checked); kernel.py unchanged" in line and "not re-timed" not in line
    assert (folder / "kernel.py").read_bytes() == before
    monkeypatch.undo()

    session = tuning_folder.tune_folder

    def deleted_meanwhile(*args: object, **kwargs: object) -> object:
        done = session(*args, **kwargs)  # type: ignore[arg-type]
        (folder / "kernel.py").unlink()
        return done

    _better(monkeypatch)
    monkeypatch.setattr(tuning_folder, "tune_folder", deleted_meanwhile)
    assert main(["tune", str(folder), *TUNE]) == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"{folder / 'kernel.py'} was deleted during the session: nothing written" in line, line
    assert line.endswith("; restore it and run again: the record serves what was measured")
    assert not (folder / "kernel.py").exists()


@pytest.mark.timeout(60)
def test_t10_a_stderr_or_stdout_open_for_reading_only_is_taken_as_closed(tmp_path: Path) -> None:
    """t10: under a pyenv shim, ``kernelopt tune ... 2>&-`` started Python with the shim script, open for reading, as
    descriptor 2: every line to stderr failed with EBADF, a tune ended in exit 1 with kernel.py unwritten, a usage
    error in exit 1 instead of 2. Descriptors 1 and 2 open for reading only are now /dev/null, as closed ones are:
    the exit status is the command's (stdout: refused up front, the line on stderr)."""
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    argv = [sys.executable, "-m", "kernelopt", "tune", str(tmp_path / "nosuch"), "--device", "cpu"]
    readable = tmp_path / "readable.txt"
    readable.write_text("")
    with readable.open() as reading_only:
        quiet = subprocess.run(argv, stderr=reading_only, stdout=subprocess.PIPE, env=env, timeout=50, check=False)
        refused = subprocess.run(argv, stdout=reading_only, stderr=subprocess.PIPE, env=env, timeout=50, check=False)
    assert quiet.returncode == 2 and quiet.stdout == b""  # the usage error's status; its line went to /dev/null
    assert refused.returncode == 2 and refused.stderr.decode().startswith(
        "kernelopt: error: stdout is closed or not open for writing (file descriptor 1)"
    )
    assert readable.read_text() == ""


@pytest.mark.timeout(120)
def test_t11_in_a_git_repository_the_session_folders_stay_out_of_git_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """t11: tuning a kernel in a git repository left ``?? .kernelopt/`` in ``git status`` (the records, candidates,
    logs and plots), one ``git add .`` from a commit. The default session folders' ``.kernelopt/`` ignores itself
    now; what the user changed stays theirs (an uncommitted edit of kernel.py is not touched by a --dry-run)."""
    import subprocess

    folder, before = _folder(tmp_path)
    git = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True, timeout=30)
    subprocess.run([*git, "add", "."], check=True, timeout=30)
    subprocess.run([*git, "commit", "-qm", "kernel"], check=True, timeout=30)
    (folder / "kernel.py").write_bytes(before + b"# not committed yet\n")
    assert main(["tune", str(folder), "--device", "cpu", "--budget", "1", "--repetitions", "3", "--dry-run"]) == 0
    status = subprocess.run(
        [*git, "status", "--porcelain", "--untracked-files=all"], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    assert status == " M kernel.py\n", status
    assert (folder / "kernel.py").read_bytes() == before + b"# not committed yet\n"
    assert list((folder / ".kernelopt" / "tune").glob("*/record.jsonl")), capsys.readouterr().err


@pytest.mark.timeout(30)
def test_t12_a_kernel_replaced_by_a_folder_during_the_session_is_a_change(tmp_path: Path) -> None:
    """t12: kernel.py replaced by a folder of that name during the session ended ``tune`` in exit 70
    (IsADirectoryError in the check before the write); reference.py so, the same. Both are a change now: nothing
    written, exit 2 (``tune`` turns :class:`SourceChanged` into its one line)."""
    from kernelopt.cli.tune import _bytes_of
    from kernelopt.fileio import SourceChanged, read_source, replace_source

    path = tmp_path / "kernel.py"
    path.write_text("BLOCK = 64\n")
    source = read_source(path)
    path.unlink()
    path.mkdir()
    with pytest.raises(SourceChanged, match="is a folder now; nothing written"):
        replace_source(source, "BLOCK = 128\n")
    assert path.is_dir() and list(path.iterdir()) == [] and _bytes_of(path) is None


class _Terminating(ReplayEvaluator):
    """A recorded sweep whose second round is cut by ``signum`` (SIGTERM, SIGHUP) or a Ctrl-C (``None``)."""

    def __init__(self, s: object, clock: ManualClock, signum: int | None) -> None:
        super().__init__(s, clock)  # type: ignore[arg-type]
        self.signum, self.rounds = signum, 0

    def evaluate(self, batch):  # type: ignore[no-untyped-def]
        self.rounds += 1
        if self.rounds == 2:
            raise KeyboardInterrupt if self.signum is None else TerminationSignal(self.signum)
        return super().evaluate(batch)


@pytest.mark.timeout(30)
def test_t13_a_session_interrupted_by_a_termination_signal_names_it() -> None:
    """t13: SIGTERM or SIGHUP at the baseline, in the candidates or the final check said "kernelopt: interrupted
    after ..." where one before the session said "interrupted by SIGTERM ...": the session kept no word of which.
    ``SessionResult.interrupted_by`` holds it (``None`` for Ctrl-C); ``tune``'s line says it (t9's test)."""
    s = read_sweeps(SWEEPS / "layernorm.json")[0]
    space = space_from_sweep(s)
    for signum, named in ((signal.SIGTERM, "SIGTERM"), (signal.SIGHUP, "SIGHUP"), (None, None)):
        clock = ManualClock()
        cut = tune(space, _Terminating(s, clock, signum), budget=Budget.default(space.size.count, clock), rng_seed=7)
        assert cut.stop is StopReason.INTERRUPTED and cut.interrupted_by == named and cut.results


@pytest.mark.timeout(30)
def test_t14_a_kernel_and_reference_with_a_utf8_bom_are_python(tmp_path: Path) -> None:
    """t14: ``optimize`` (and ``batch``, ``validate``) refused a kernel.py that starts with a UTF-8 BOM, "syntax error at
    line 1: invalid non-printable character U+FEFF", exit 2, where ``tune`` tuned it: Python reads a BOM (PEP 263).
    The files' checks read it as Python does; ``optimize --max-iters 1`` on it ran V1 to PASS (CPU, 2026-12-05)."""
    from kernelopt.harness.infer import shapes_by_code
    from kernelopt.kernelsource import KernelForm, check_kernel, check_reference

    bom = b"\xef\xbb\xbf"
    kernel, reference = tmp_path / "kernel.py", tmp_path / "reference.py"
    kernel.write_bytes(bom + (LOOP / "kernel.py").read_bytes())
    reference.write_bytes(bom + (LOOP / "reference.py").read_bytes())
    assert check_reference(reference) is KernelForm.FUNCTION
    check_kernel(kernel, KernelForm.FUNCTION)
    shapes_by_code(reference)  # what optimize checks before a workspace is made: a literal SHAPES, read


@pytest.mark.timeout(60)
def test_t15_a_task_card_budget_of_true_is_no_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """t15: ``budget: true`` in README.md's front matter was read as 1 (pydantic's lax int): a session of one
    candidate, exit 0, where ``budget: 0`` and ``budget: -2`` were refused. Now one line, exit 2, nothing made."""
    folder, before = _folder(tmp_path)
    card = folder / "README.md"
    card.write_text(card.read_text().replace("platform: nvidia\n", "platform: nvidia\nbudget: true\n", 1))
    capsys.readouterr()
    assert main(["tune", str(folder), "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "front matter 'budget' = True: a number, not true" in err, err
    assert (folder / "kernel.py").read_bytes() == before and not (folder / ".kernelopt").exists()
