"""Faults put through a real ``kernelopt tune`` subprocess (issue 35: 1, 3, 4, 6, 8, 9, 15), and the tune
invariant of docs/tuning-engine.md: after any fault kernel.py is byte for byte what the user last wrote, or that
text with only the knob edit applied, and the exit code says which (0: the session's verdict holds; any other:
kernel.py untouched).

Each run tunes a copy of tests/data/loop on the CPU whose kernel marks what it does in a folder (``load.<pid>``
when a candidate is loaded, ``run<n>.<pid>`` per call on n elements), pauses while a ``pause`` file there
says so and holds one call while a ``hold`` file waits for its release (``Tune.hold``), so a signal or an edit
lands at a known moment: a candidate's load (the compile step of a torch kernel on the
CPU: no compile pool there), its timing, the final re-time, the write (a ``sitecustomize`` of the test holds
the swap of kernel.py, or its ``os.replace`` where names cannot be swapped, and can save the user's edit there),
the first heavy import (the same hook holds numpy's import half way). The runs
are few (each starts workers): one folder takes the signals in turn, each run resuming the last one's record.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.fileio import (
    HardLinkRefused,
    SourceChanged,
    atomic_write_text,
    read_source,
    remove_stale,
    replace_source,
    signals_held,
)
from tests.conftest import without_since
from tests.steady_timing import blocks, steady_timing

SRC = Path(__file__).resolve().parents[1] / "src"
LOOP = Path(__file__).parent / "data" / "loop"

KERNEL = '''"""tests/data/loop's kernel, marking what it does in $TUNE_MARKS and pausing while a pause file says so."""

import os
import time

import torch

BLOCK = 16  # kernelopt: tunable max=4096
MARKS = os.environ.get("TUNE_MARKS", "")


def _mark(what):
    if MARKS:
        with open(os.path.join(MARKS, f"{what}.{os.getpid()}"), "a") as fh:
            fh.write("x\\n")


def _pause(name):
    try:
        with open(os.path.join(MARKS, name)) as fh:
            time.sleep(float(fh.read() or 0))
    except (OSError, ValueError):
        pass


def _hold():
    # the one call that takes the hold file (a rename: one call of every process) waits for hold.go beside it
    try:
        os.rename(os.path.join(MARKS, "hold"), os.path.join(MARKS, f"held.{os.getpid()}"))
    except OSError:
        return
    deadline = time.monotonic() + 150
    while not os.path.exists(os.path.join(MARKS, "hold.go")) and time.monotonic() < deadline:
        time.sleep(0.01)


if "candidates" in __file__:
    _mark("load")
    _pause("pause-load")


def run(x, y):
    _mark(f"run{x.numel()}")
    if MARKS:
        _hold()
    _pause("pause")
    out = torch.empty_like(x)
    for start in range(0, x.numel(), BLOCK):
        end = start + BLOCK
        torch.add(x[start:end], y[start:end], out=out[start:end])
    return out
'''

# The test's hook in the tune process only (it takes its variables out of the environment, so no child sees
# them): "replace" holds the write of kernel.py (its swap, or os.replace where names cannot be swapped), "numpy"
# holds numpy's import half way; a hold lasts until the test writes "<what>.go" beside its mark or for TUNE_HOOK_PAUSE_S.
HOOK = """import os
import sys
import time

_marks = os.environ.pop("TUNE_HOOK_MARKS", "")
_what = os.environ.pop("TUNE_HOOK", "")
_pause_s = float(os.environ.pop("TUNE_HOOK_PAUSE_S", "30"))
_target = os.environ.pop("TUNE_HOOK_TARGET", "")
_pid = os.getpid()


def _held(what):
    open(os.path.join(_marks, what), "w").close()
    go, deadline = os.path.join(_marks, what + ".go"), time.monotonic() + _pause_s
    while not os.path.exists(go) and time.monotonic() < deadline:
        time.sleep(0.01)


if _what == "replace":
    _replace = os.replace

    def _slow_replace(src, dst, *args, **kwargs):
        # the tune process's write of the user's kernel.py only: a fork of it (a worker, the fork server, an
        # orphan of a killed run) may replace a candidate's kernel.py in its own folder
        if os.getpid() == _pid and os.path.realpath(dst) == _target:
            _held("replace")
        return _replace(src, dst, *args, **kwargs)

    os.replace = _slow_replace

    import kernelopt.exchange as _exchange  # the write swaps kernel.py in where names can be exchanged

    _swap = _exchange.swap

    def _slow_swap(a, b):
        if os.getpid() == _pid and os.path.realpath(b) == _target:
            _held("replace")
        return _swap(a, b)

    _exchange.swap = _slow_swap
elif _what == "numpy":

    class _HalfNumpy:
        def find_spec(self, name, path=None, target=None):
            if name in ("numpy._core.multiarray", "numpy.core.multiarray"):
                sys.meta_path.remove(self)
                _held("numpy")
            return None

    sys.meta_path.insert(0, _HalfNumpy())
"""

TIMEOUT_S = 90


class Tune:
    """A folder to tune (a copy of tests/data/loop with the marking kernel) and the runs on it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / "loop"
        shutil.copytree(LOOP, self.folder, ignore=shutil.ignore_patterns("make_summaries.py", "summary_*"))
        (self.folder / "kernel.py").write_text(KERNEL)
        self.marks = root / "marks"
        self.marks.mkdir()
        self.hook = root / "hook"
        self.hook.mkdir()
        (self.hook / "sitecustomize.py").write_text(HOOK)
        # a short temporary folder of its own (a fork server's socket path has ~100 bytes), to see what is left
        self.tmp = Path(tempfile.mkdtemp(prefix="ktw-", dir="/tmp"))

    @property
    def kernel_py(self) -> Path:
        return self.folder / "kernel.py"

    def start(self, *args: str, hook: str = "", hook_pause_s: float = 30, budget: int = 3) -> subprocess.Popen[str]:
        env = {
            **os.environ,
            "PYTHONPATH": f"{self.hook}{os.pathsep}{SRC}",
            "TMPDIR": str(self.tmp),
            "TUNE_MARKS": str(self.marks),
            "TUNE_HOOK_MARKS": str(self.marks),
            "TUNE_HOOK": hook,
            "TUNE_HOOK_PAUSE_S": str(hook_pause_s),
            "TUNE_HOOK_TARGET": os.path.realpath(self.kernel_py),
        }
        argv = [sys.executable, "-m", "kernelopt", "tune", str(self.folder), "--device", "cpu"]
        argv += ["--budget", str(budget), "--repetitions", "3", *args]
        return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def pause(self, name: str, seconds: float | None) -> None:
        """Make the kernel pause ``seconds`` at each ``name`` point (``pause``: a call; ``pause-load``: a load)."""
        path = self.marks / name
        if seconds is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(str(seconds))

    def hold(self) -> None:
        """Hold the kernel's next call, one call in any process, until :meth:`release` (at most 150 s): the session
        stands still there, whatever the machine's load, and every other call is timed as it runs."""
        (self.marks / "hold").touch()

    def held(self) -> bool:
        """Whether a call of the kernel is held (:meth:`hold`)."""
        return any(self.marks.glob("held.*"))

    def release(self) -> None:
        (self.marks / "hold.go").touch()

    def one_entry(self) -> None:
        """SHAPES of one entry, n=4096 (BLOCK=16 some 60x slower than the pick), for a test that needs the write to
        come: at n=1000 (8x) one slow median of three on a loaded run judged the pick slower there, so the current
        configuration stayed and no write came (exit 0: 2026-12-06 15:05 and 17:47; the signals test on a fresh
        clone at load 6, 2026-12-07 03:27)."""
        ref = self.folder / "reference.py"
        ref.write_text(ref.read_text().replace('SHAPES = [{"n": 4096}, {"n": 1000}]', 'SHAPES = [{"n": 4096}]'))
        assert 'SHAPES = [{"n": 4096}]' in ref.read_text()

    def marked(self, what: str) -> int:
        """How many ``what`` marks the kernel has made (every process, every run)."""
        return sum(len(p.read_text().splitlines()) for p in self.marks.glob(f"{what}.*"))

    def results(self) -> int:
        """Result lines of the session record (after its header); 0 before it exists."""
        records = list((self.folder / ".kernelopt" / "tune").glob("*/record.jsonl"))
        return sum(len(r.read_text().splitlines()) - 1 for r in records)

    def leftovers(self) -> list[str]:
        """Temporary names a run leaves: beside kernel.py, and in its temporary folder."""
        beside = [p.name for p in self.kernel_py.resolve().parent.glob(".kernel.py.*.tmp")]
        return sorted(beside + [p.name for p in self.tmp.iterdir() if p.name.startswith("kernelopt-")])


def wait_for(check: Callable[[], bool], proc: subprocess.Popen[str], what: str, timeout_s: float = 150) -> None:
    """Until ``check()``; the tune child's end or ``timeout_s`` is a failure. 150 s, not 60: at load 30 (2 cores,
    2026-12-05, four CPU hogs beside the other engineers' runs) a module import took 51 s of wall for 1.4 CPU-s,
    and the first wait, a child's start through its imports to a candidate's load, ran past 60 s: the load
    failure of this file seen once before (docs/faults.md, newuser7). A hang is still stopped by each test's own
    timeout."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"tune ended ({proc.returncode}) before {what}:\n{out}\n{err}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"no {what} in {timeout_s} s")
        time.sleep(0.05)


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"tune did not end:\n{out}\n{err}") from None
    return proc.returncode, out, err


def one_line(err: str) -> str:
    """The run's last stderr line (the progress notes come before it)."""
    return err.strip().splitlines()[-1]


@pytest.fixture
def tune(tmp_path: Path) -> Iterator[Tune]:
    t = Tune(tmp_path)
    try:
        yield t
    finally:
        shutil.rmtree(t.tmp, ignore_errors=True)


@pytest.mark.timeout(480)  # five tune runs, each through its imports: at load 30 the waits alone reach minutes
def test_signals_at_every_moment_leave_kernel_py_and_the_rerun_resumes(tune: Tune) -> None:
    """SIGINT at a candidate's load, SIGTERM while timing, SIGHUP in the final re-time: exit 130, one line,
    kernel.py untouched, the record kept; SIGKILL in the write: kernel.py untouched, a temporary file named for
    its owner left; the rerun serves every candidate, removes what the killed run left, and a Ctrl-C during its
    write lands after it: exit 0, saying what was written. kernel.py is a symbolic link to a CRLF file with a
    BOM: the write goes to the link's target, in its encoding and line endings."""
    real = tune.root / "real" / "kernel.py"
    real.parent.mkdir()
    original = b"\xef\xbb\xbf" + KERNEL.replace("\n", "\r\n").encode()
    real.write_bytes(original)
    tune.kernel_py.unlink()
    tune.kernel_py.symlink_to(real)
    tune.one_entry()  # the write must come whatever the load (see one_entry)

    tune.pause("pause-load", 30)  # a candidate's load: the compile step of a torch kernel on the CPU
    proc = tune.start()
    wait_for(lambda: tune.marked("load") > 0, proc, "a candidate's load")
    proc.send_signal(signal.SIGINT)
    code, out, err = finish(proc)
    assert code == 130 and out == "", err
    assert one_line(err) == "kernelopt: interrupted before any candidate finished; kernel.py unchanged", err
    assert "no candidate ran" not in err and "Traceback" not in err
    assert tune.kernel_py.read_bytes() == original
    tune.pause("pause-load", None)

    tune.pause("pause", 0.05)  # timing: SIGTERM once one candidate is in the record
    proc = tune.start()
    wait_for(lambda: tune.results() >= 1, proc, "a first result")
    calls = tune.marked("run4096")
    wait_for(lambda: tune.marked("run4096") > calls, proc, "the next candidate's timing")
    proc.send_signal(signal.SIGTERM)
    code, out, err = finish(proc)
    assert code == 130 and out == "", err
    line = one_line(err)
    assert line.startswith("kernelopt: interrupted by SIGTERM after ") and "kernel.py unchanged" in line, err
    assert "a rerun resumes from it" in line and "no candidate ran" not in err
    assert tune.kernel_py.read_bytes() == original
    recorded = tune.results()
    assert recorded >= 1

    proc = tune.start()  # the final re-time: SIGHUP once all three candidates are in the record
    wait_for(lambda: tune.results() >= 3, proc, "the third result")
    calls = tune.marked("run4096")
    wait_for(lambda: tune.marked("run4096") > calls + 2, proc, "the re-time")
    proc.send_signal(signal.SIGHUP)
    code, out, err = finish(proc)
    assert code == 130 and out == "", err
    line = one_line(err)
    assert f"after 3 candidate(s) ({recorded} from the record; best so far BLOCK=" in line, err
    assert "not re-timed); kernel.py unchanged" in line
    assert tune.kernel_py.read_bytes() == original
    assert tune.results() == 3  # the re-time was not recorded: it never ended
    tune.pause("pause", None)

    proc = tune.start(hook="replace")  # SIGKILL in the write (the swap of kernel.py held)
    wait_for(lambda: (tune.marks / "replace").exists(), proc, "the write")
    proc.kill()
    finish(proc)
    assert tune.kernel_py.read_bytes() == original
    left = tune.leftovers()
    assert f".kernel.py.kernelopt-{proc.pid}-" in " ".join(left), left  # the names say whose they are
    assert any(n.startswith(f"kernelopt-forks-{proc.pid}-") for n in left), left
    (tune.marks / "replace").unlink()
    retimed = tune.results() - 3  # the killed run's re-time ended before the write
    assert retimed >= 1

    proc = tune.start(hook="replace")  # the rerun; a Ctrl-C during its write
    wait_for(lambda: (tune.marks / "replace").exists(), proc, "the rerun's write")
    assert not [n for n in tune.leftovers() if str(proc.pid) not in n and f"-{proc.pid}-" not in n], (
        "the killed run's files outlived the rerun's start"
    )
    proc.send_signal(signal.SIGINT)
    (tune.marks / "replace.go").touch()  # the write goes on once the Ctrl-C is sent, not after a fixed 3 s
    deadline = time.monotonic() + TIMEOUT_S  # a second Ctrl-C once the write is made: it changes nothing
    while real.read_bytes() == original and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    code, out, err = finish(proc)
    assert code == 0, err
    assert "Traceback" not in err and len([x for x in err.splitlines() if x.startswith("kernelopt:")]) == 1, err
    line = one_line(err)
    assert line.startswith("kernelopt: interrupted after the write: kernel.py holds the session's best, BLOCK="), err
    best = line.rsplit("BLOCK=", 1)[1].split()[0]
    assert best != "16" and tune.kernel_py.is_symlink() and tune.kernel_py.resolve() == real
    assert real.read_bytes() == original.replace(b"BLOCK = 16 ", f"BLOCK = {best} ".encode(), 1)  # nothing else
    assert tune.results() == 3 + 2 * retimed  # nothing timed again: all three served; the re-time recorded
    assert [n for n in tune.leftovers() if n.startswith(".kernel.py.")] == []


@pytest.mark.timeout(120)
def test_an_edit_made_during_the_session_is_kept_and_a_second_tune_is_refused(
    tune: Tune, capsys: pytest.CaptureFixture[str]
) -> None:
    """The session is held in one call of the kernel until the edit is made, and runs at its own pace after it. The
    test before paused every call 1 s while it ran the second tune, a window as long as the machine's load makes
    it: the timings it covered tied (each the pause), so the verdict was the load's, and a session that judged
    nothing better exits 0 with no edit to check (seen once at load 13, docs/faults.md). The held call is under
    the test's limits, not a candidate's. One SHAPES entry (:meth:`Tune.one_entry`): the edit is checked only after
    a pick judged better, which n=1000's 8x let a loaded run's noise deny."""
    tune.one_entry()
    tune.hold()
    proc = tune.start("--candidate-timeout-s", "300")
    wait_for(tune.held, proc, "the first call")
    assert main(["tune", str(tune.folder), "--device", "cpu", "--budget", "3"]) == 2  # a second tune
    err = capsys.readouterr().err
    assert without_since(err) == (
        f"kernelopt: error: another kernelopt tune is running on {tune.folder} (pid {proc.pid}); wait for it or "
        "stop it (a stopped run resumes at its next start)\n"
    )
    edited = KERNEL + "\n\ndef helper():\n    return BLOCK\n"
    tune.kernel_py.write_text(edited)  # the user's edit, while the session runs
    tune.release()
    code, out, err = finish(proc)
    assert code == 2, err
    line = one_line(err)
    assert f"{tune.kernel_py} changed during the session: nothing written" in line, err
    assert "run again to tune the file as it is now" in line and err.count("kernelopt: error:") == 1
    assert "+BLOCK" not in out  # no diff of the old text
    assert tune.kernel_py.read_text() == edited
    assert tune.results() >= 1  # the record is kept


@pytest.mark.timeout(120)
def test_an_edit_saved_after_the_last_check_before_the_write_is_kept(
    tune: Tune, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window the second fault trial left (docs/faults.md): a save landing between tune's last check of
    kernel.py and its write was replaced by the tuned text. The save comes there, by a rename as editors do, in the
    swap that writes kernel.py (in this process: nothing of it is a process's own, and a
    ``tune`` process imported torch into a fork server of its own, suite25 s41)."""
    from kernelopt import exchange

    edited = KERNEL + "\n# saved in the instant before the write\n"
    tune.one_entry()
    target, swap, saved = os.path.realpath(tune.kernel_py), exchange.swap, []

    def save_then_swap(a: Path | str, b: Path | str) -> bool:
        if os.path.realpath(b) == target and not saved:  # after tune's last check
            Path(target + ".swp").write_text(edited)
            os.replace(target + ".swp", target)
            saved.append(b)
        return swap(a, b)

    monkeypatch.setattr(exchange, "swap", save_then_swap)
    monkeypatch.setenv("TUNE_MARKS", str(tune.marks))
    argv = ["tune", str(tune.folder), "--device", "cpu", "--budget", "3", "--repetitions", "3"]
    code = main(argv)
    out, err = capsys.readouterr()
    assert saved, err + out
    assert code == 2, err + out  # the verdict is on stdout: exit 0 once in a fresh clone's run (15:05, load 3-5)
    line = one_line(err)
    assert f"{tune.kernel_py} changed during the session: nothing written, the file is as you left it" in line, err
    assert tune.kernel_py.read_text() == edited and "+BLOCK" not in out
    assert [n for n in tune.leftovers() if n.startswith(".kernel.py.")] == []
    assert tune.results() >= 1  # the record is kept: the rerun serves it


@pytest.mark.timeout(60)
def test_a_hard_linked_kernel_is_refused_before_the_session(tune: Tune, capsys: pytest.CaptureFixture[str]) -> None:
    os.link(tune.kernel_py, tune.root / "other.py")
    assert main(["tune", str(tune.folder), "--device", "cpu"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and f"{tune.kernel_py}: has 2 hard links" in err
    assert tune.kernel_py.read_text() == KERNEL and tune.results() == 0


@pytest.mark.timeout(60)
def test_under_a_parent_it_cannot_write_the_lock_is_still_taken_and_nothing_is_left_inside(
    tune: Tune, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project folder in a folder of root's: its lock lies in the shared lock folder, not beside it nor inside it
    (late27, z50; inside, it was a `.kernelopt/` made in the user's folder), and still refuses a second tune."""
    from kernelopt.workspace import folder_lock

    lock = folder_lock(tune.folder, command="tune", hint="")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from kernelopt.workspace import folder_lock; "
            "folder_lock(Path(sys.argv[1]), command='tune', hint='').acquire(); input()",
            str(tune.folder),
        ],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        stdin=subprocess.PIPE,
    )
    try:
        wait_for(lambda: lock.holder() is not None, holder, "the holder's lock")  # type: ignore[arg-type]
        access = os.access
        monkeypatch.setattr(os, "access", lambda p, mode, **kw: Path(p) != tune.root and access(p, mode, **kw))
        assert main(["tune", str(tune.folder), "--device", "cpu"]) == 2
        assert f"another kernelopt tune is running on {tune.folder} (pid {holder.pid})" in capsys.readouterr().err
        assert not (tune.folder / ".kernelopt").exists()
    finally:
        holder.kill()
        holder.wait(timeout=30)


@pytest.mark.timeout(60)
def test_an_interrupt_in_the_first_numpy_import_is_an_interrupt(tune: Tune) -> None:
    """Was: the session swallowed it, kernel.py was written, then exit 70 or a false "matplotlib is not
    installed" from the half-imported numpy."""
    proc = tune.start(hook="numpy")
    wait_for(lambda: (tune.marks / "numpy").exists(), proc, "numpy's import")
    proc.send_signal(signal.SIGINT)
    code, out, err = finish(proc)
    assert code == 130 and out == "", err
    assert one_line(err) == "kernelopt: interrupted before any candidate finished; kernel.py unchanged", err
    assert "matplotlib" not in err and "Traceback" not in err and "internal error" not in err
    assert tune.kernel_py.read_text() == KERNEL


# ---------------------------------------------------------------------------------------------- the mechanism


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    return child.pid


@pytest.mark.timeout(30)
def test_a_source_is_written_only_over_the_bytes_it_was_read_with(tmp_path: Path) -> None:
    path = tmp_path / "kernel.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\r\nNAME = '\xe9'\r\nBLOCK = 64\r\n")
    source = read_source(path)
    assert source.encoding == "iso-8859-1" and "\r\n" in source.text
    replace_source(source, source.text.replace("64", "128"))
    assert path.read_bytes() == b"# -*- coding: latin-1 -*-\r\nNAME = '\xe9'\r\nBLOCK = 128\r\n"
    path.write_bytes(source.raw + b"# mine\r\n")
    with pytest.raises(SourceChanged, match="changed during the session; nothing written"):
        replace_source(source, source.text)
    path.unlink()
    with pytest.raises(SourceChanged, match="was deleted during the session"):
        replace_source(source, source.text)
    assert not path.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.timeout(30)
def test_writes_go_through_a_symlink_and_refuse_a_hard_link(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    atomic_write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    os.link(target, tmp_path / "hard.json")
    with pytest.raises(HardLinkRefused, match="has 2 hard links"):
        atomic_write_text(target, "newer")
    assert (tmp_path / "hard.json").read_text() == "new"


@pytest.mark.timeout(30)
def test_an_interrupt_during_a_held_write_lands_after_it(tmp_path: Path) -> None:
    path = tmp_path / "kernel.py"
    path.write_text("BLOCK = 64\n")
    written = False
    with pytest.raises(KeyboardInterrupt), signals_held():
        os.kill(os.getpid(), signal.SIGINT)  # delivered when the block ends, not inside it
        atomic_write_text(path, "BLOCK = 128\n")
        written = True
    assert written and path.read_text() == "BLOCK = 128\n"
    assert [p.name for p in tmp_path.iterdir()] == ["kernel.py"]


@pytest.mark.timeout(30)
def test_stale_temporary_names_of_a_dead_owner_go_and_a_living_ones_stay(tmp_path: Path) -> None:
    dead, alive = _dead_pid(), os.getpid()
    for pid in (dead, alive):
        (tmp_path / f".kernel.py.kernelopt-{pid}-abc.tmp").write_text("x")
        (tmp_path / f"kernelopt-forks-{pid}-abc").mkdir()
        (tmp_path / f"kernelopt-forks-{pid}-abc" / "server.log").write_text("x")
    (tmp_path / "kernelopt-forks-old").mkdir()  # a name of no owner: left alone
    assert remove_stale(tmp_path, ".kernel.py.kernelopt-", suffix=".tmp") == [
        tmp_path / f".kernel.py.kernelopt-{dead}-abc.tmp"
    ]
    assert remove_stale(tmp_path, "kernelopt-forks-") == [tmp_path / f"kernelopt-forks-{dead}-abc"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f".kernel.py.kernelopt-{alive}-abc.tmp", f"kernelopt-forks-{alive}-abc", "kernelopt-forks-old"]
    )
    (tmp_path / f".kernel.py.kernelopt-{dead}-def.tmp").write_text("x")
    atomic_write_text(tmp_path / "kernel.py", "BLOCK = 1\n")  # a write of kernel.py removes its dead ones
    assert not (tmp_path / f".kernel.py.kernelopt-{dead}-def.tmp").exists()


# ---------------------------------------------------------------------------------------------- the second trial


def _tune_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, bytes]:
    folder = tmp_path / "loop"
    shutil.copytree(LOOP, folder)
    return folder, (folder / "kernel.py").read_bytes()


@pytest.mark.timeout(120)
def test_a_disk_that_fills_while_the_plot_is_drawn_leaves_kernel_py_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second fault trial: the disk filled while search.png was written, after kernel.py had been; tune
    exited 3 and said nothing of the write. The plot is now drawn before the write."""
    import errno

    import kernelopt.fileio

    folder, before = _tune_copy(tmp_path, capsys)

    def full(path: Path, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(kernelopt.fileio, "atomic_write_bytes", full)
    code = main(["tune", str(folder), "--device", "cpu", "--budget", "3", "--repetitions", "3"])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "search.png" in err and (folder / "kernel.py").read_bytes() == before


@pytest.mark.timeout(120)
def test_a_reference_edited_during_the_session_stops_the_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second fault trial: a SHAPES entry added to reference.py during the session; the pick, checked on the
    old entries only, was written and was wrong on the new one. The pick must be judged better for the check before
    the write to be reached: the figures are the loop's chunks (``steady_timing``; a loaded run once judged the pick
    not better at n=1000 and ended in exit 0 with nothing to check)."""
    import kernelopt.tuning.folder as tuning_folder

    steady_timing(monkeypatch, blocks)
    folder, before = _tune_copy(tmp_path, capsys)
    original = tuning_folder.tune_folder

    def edited_meanwhile(*args: object, **kwargs: object) -> object:
        done = original(*args, **kwargs)  # type: ignore[arg-type]
        with (folder / "reference.py").open("a") as fh:
            fh.write("\n# a new SHAPES entry would go here\n")
        return done

    monkeypatch.setattr(tuning_folder, "tune_folder", edited_meanwhile)
    code = main(["tune", str(folder), "--device", "cpu", "--budget", "3", "--repetitions", "1"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "reference.py changed during the session: nothing written" in err
    assert (folder / "kernel.py").read_bytes() == before


def test_a_kernel_py_that_is_not_utf8_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The second fault trial: a latin-1 kernel.py ended in exit 70 (UnicodeDecodeError in detect_framework). With
    its coding line it is Python and is tuned (faults8, f13); without one Python would not import it: one line."""
    folder, _ = _tune_copy(tmp_path, capsys)
    text = (folder / "kernel.py").read_text()
    (folder / "kernel.py").write_bytes((text + "# caf\xe9\n").encode("latin-1"))
    code = main(["tune", str(folder), "--device", "cpu", "--budget", "2"])
    err = capsys.readouterr().err
    assert code == 2 and "not UTF-8 text" in err and "Traceback" not in err, err
