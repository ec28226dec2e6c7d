"""A save of the user's at the worst moment of a write into their file: never lost, whatever the interleaving.

``fileio.replace_source`` (tune's write of kernel.py, ``tunables --set``) writes the new text over the bytes it
read. The check and a rename left 0.2 ms in which an editor's save was replaced unseen (second fault trial,
docs/faults.md). Now the names are exchanged (``kernelopt.exchange.swap``) with a read lease held on the file
replaced: each test holds that swap in a hook and saves there, as an editor saves (a rename, or a write in place
whose open is on its way), with no sleep deciding the order.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from kernelopt import exchange
from kernelopt.fileio import SourceChanged, read_source, replace_source

ORIGINAL = "BLOCK = 64\n"
TUNED = "BLOCK = 1024\n"
MINE = "BLOCK = 64\n# the user's edit\n"
LATER = "BLOCK = 64\n# the user's second edit\n"


def _rename_save(path: Path, text: str) -> None:
    """An editor's save: a new file renamed over the name."""
    new = path.with_name(".kernel.py.swp")
    new.write_text(text)
    os.replace(new, path)


def _hold_swaps(monkeypatch: pytest.MonkeyPatch, *steps: Callable[[Callable[[], bool]], bool]) -> list[int]:
    """Run ``steps[i]`` in place of the i-th swap; each gets the real swap to call. The calls are counted."""
    real, calls = exchange.swap, []

    def held(a: Path | str, b: Path | str) -> bool:
        calls.append(1)
        step = steps[len(calls) - 1] if len(calls) <= len(steps) else None
        return step(lambda: real(a, b)) if step is not None else real(a, b)

    monkeypatch.setattr(exchange, "swap", held)
    return calls


def _leases(tmp_path: Path) -> bool:
    probe = tmp_path / "probe"
    probe.write_text("x")
    fd = os.open(probe, os.O_RDONLY)
    try:
        return exchange.ReadLease(fd).held
    finally:
        os.close(fd)
        probe.unlink()


def _open_in_flight(path: Path, text: str) -> threading.Thread:
    """An editor's write in place whose ``open()`` reached the file now (its path looked up now) and is on its
    way: a non-blocking open for writing meets the lease (and tells it); the editor's own open then waits in a
    thread and writes ``text`` once it is let through."""
    looked_up = os.open(path, os.O_PATH)  # the path is looked up here, as an editor's open looks it up first
    via = f"/proc/self/fd/{looked_up}"
    with pytest.raises(BlockingIOError):
        os.open(via, os.O_WRONLY | os.O_NONBLOCK)

    def editor() -> None:
        fd = os.open(via, os.O_WRONLY | os.O_TRUNC)
        os.write(fd, text.encode())
        os.close(fd)
        os.close(looked_up)

    thread = threading.Thread(target=editor, daemon=True)
    thread.start()
    return thread


def _folder(tmp_path: Path) -> Path:
    path = tmp_path / "kernel.py"
    path.write_text(ORIGINAL)
    return path


@pytest.mark.timeout(30)
def test_a_save_renamed_in_just_before_the_swap_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _folder(tmp_path)
    source = read_source(path)

    def save_then_swap(swap: Callable[[], bool]) -> bool:
        _rename_save(path, MINE)  # after the last check, before the exchange: the old window
        return swap()

    calls = _hold_swaps(monkeypatch, save_then_swap)
    with pytest.raises(SourceChanged, match="changed while it was written; nothing written"):
        replace_source(source, TUNED)
    assert len(calls) == 2  # swapped in, then the user's file swapped back
    assert path.read_text() == MINE and sorted(p.name for p in tmp_path.iterdir()) == ["kernel.py"]


@pytest.mark.timeout(30)
def test_a_save_written_in_place_just_before_the_swap_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _folder(tmp_path)
    source = read_source(path)

    def save_then_swap(swap: Callable[[], bool]) -> bool:
        path.write_text(MINE)  # open(O_TRUNC), write, close
        return swap()

    # no lease (this process's own open would wait on it): the bytes brought back by the swap tell the save
    monkeypatch.setattr(exchange.ReadLease, "__init__", _no_lease)
    _hold_swaps(monkeypatch, save_then_swap)
    with pytest.raises(SourceChanged, match="changed while it was written"):
        replace_source(source, TUNED)
    assert path.read_text() == MINE and sorted(p.name for p in tmp_path.iterdir()) == ["kernel.py"]


def _no_lease(self: exchange.ReadLease, fd: int) -> None:
    self.fd, self.held = fd, False


@pytest.mark.timeout(30)
def test_an_editor_s_open_on_its_way_across_the_swap_writes_into_the_file_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window the check could not close: an editor that looked the path up before the swap and writes after
    it wrote into the file taken out of place, lost. The lease holds its open until the file is back."""
    if not _leases(tmp_path):
        pytest.skip("no file leases here (another owner, or leases disabled): the check and the bytes only")
    path = _folder(tmp_path)
    source = read_source(path)
    editors: list[threading.Thread] = []

    def open_then_swap(swap: Callable[[], bool]) -> bool:
        editors.append(_open_in_flight(path, MINE))
        return swap()

    _hold_swaps(monkeypatch, open_then_swap)
    with pytest.raises(SourceChanged, match="changed while it was written"):
        replace_source(source, TUNED)
    editors[0].join(timeout=20)
    assert not editors[0].is_alive()
    assert path.read_text() == MINE and sorted(p.name for p in tmp_path.iterdir()) == ["kernel.py"]


@pytest.mark.timeout(30)
def test_saves_landing_during_the_swap_back_leave_the_latest_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save before the swap, another between the swap and the swap back: the latest is in place, the one it
    replaced gone as its rename made it go, the new text gone."""
    path = _folder(tmp_path)
    source = read_source(path)

    def first(swap: Callable[[], bool]) -> bool:
        _rename_save(path, MINE)
        return swap()

    def second(swap: Callable[[], bool]) -> bool:
        _rename_save(path, LATER)  # over the new text, while it is in place
        return swap()

    calls = _hold_swaps(monkeypatch, first, second)
    with pytest.raises(SourceChanged, match="changed while it was written"):
        replace_source(source, TUNED)
    assert len(calls) == 3  # in, back (bringing the later save), the later save in place
    assert path.read_text() == LATER and sorted(p.name for p in tmp_path.iterdir()) == ["kernel.py"]


@pytest.mark.timeout(30)
def test_a_save_reaching_the_new_text_while_it_is_in_place_is_kept_beside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two saves inside one write: a rename before the swap, then an editor's open of the name (the new text,
    in place for that instant) before the swap back. The first is put back in place; the file the editor writes
    into is kept beside and named, not removed."""
    if not _leases(tmp_path):
        pytest.skip("no file leases here")
    path = _folder(tmp_path)
    source = read_source(path)
    editors: list[threading.Thread] = []

    def first(swap: Callable[[], bool]) -> bool:
        _rename_save(path, MINE)
        swapped = swap()
        editors.append(_open_in_flight(path, LATER))  # opens the new text, in place now
        return swapped

    _hold_swaps(monkeypatch, first)
    with pytest.raises(SourceChanged, match=r"a save that reached the new text is in .*kernel\.py\.kept-") as caught:
        replace_source(source, TUNED)
    editors[0].join(timeout=20)
    kept = caught.value.kept
    assert kept is not None and kept.read_text() == LATER and path.read_text() == MINE
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["kernel.py", kept.name])


@pytest.mark.timeout(30)
def test_a_quiet_write_swaps_in_and_leaves_nothing_behind(tmp_path: Path) -> None:
    real = tmp_path / "real.py"
    real.write_bytes(ORIGINAL.replace("\n", "\r\n").encode())
    path = tmp_path / "kernel.py"
    path.symlink_to(real)
    mode = 0o640
    real.chmod(mode)
    source = read_source(path)
    replace_source(source, source.text.replace("64", "1024"))
    assert path.is_symlink() and real.read_bytes() == b"BLOCK = 1024\r\n"
    assert real.stat().st_mode & 0o777 == mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kernel.py", "real.py"]


@pytest.mark.timeout(30)
def test_where_names_cannot_be_swapped_the_check_and_a_rename_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _folder(tmp_path)
    source = read_source(path)
    monkeypatch.setattr(exchange, "swap", lambda a, b: False)  # another system, or a file system refusing it
    replace_source(source, TUNED)
    assert path.read_text() == TUNED and sorted(p.name for p in tmp_path.iterdir()) == ["kernel.py"]
    source = read_source(path)
    path.write_text(MINE)
    with pytest.raises(SourceChanged, match="changed during the session"):
        replace_source(source, ORIGINAL)
    assert path.read_text() == MINE


@pytest.mark.timeout(30)
def test_swap_exchanges_two_names_and_says_when_a_name_is_missing(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("A")
    b.write_text("B")
    if not exchange.swap(a, b):
        pytest.skip("this system cannot exchange two names")
    assert (a.read_text(), b.read_text()) == ("B", "A")
    with pytest.raises(FileNotFoundError):
        exchange.swap(a, tmp_path / "missing")


@pytest.mark.timeout(30)
def test_tunables_set_keeps_a_save_made_before_its_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``kernelopt tunables --set`` writes the user's file too: the same write, the same guarantee."""
    from kernelopt.tunables.edit import apply

    path = tmp_path / "kernel.py"
    text = (
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n    tl.store(x + offs, tl.load(x + offs, mask=offs < n), mask=offs < n)\n\n\n"
        "def run(x):\n    k[(1,)](x, x.numel(), BLOCK=64)\n    return x\n"
    )
    path.write_bytes(text.replace("\n", "\r\n").encode())
    saved = text.replace("\n", "\r\n") + "# mine\r\n"

    def save_then_swap(swap: Callable[[], bool]) -> bool:
        _rename_save(path, saved)
        return swap()

    _hold_swaps(monkeypatch, save_then_swap)
    with pytest.raises(SourceChanged):
        apply(path, {"BLOCK": 128})
    assert path.read_bytes() == saved.encode()
    monkeypatch.undo()
    result = apply(path, {"BLOCK": 128})
    assert result.written and path.read_bytes() == saved.replace("BLOCK=64", "BLOCK=128").encode()  # CRLF kept
    from kernelopt.cli.app import main

    assert main(["tunables", str(path), "--set", "BLOCK=256", "--no-evaluate"]) == 0  # the command: the same write
    assert path.read_bytes() == saved.replace("BLOCK=64", "BLOCK=256").encode()
    assert main(["tunables", str(path), "--set", "BLOCK=128", "--no-evaluate"]) == 0  # a guard written (late32, z95)
    written = path.read_bytes()
    assert b"if x.numel() <= 128:  # kernelopt: tuned\r\n" in written and written.count(b"\n") == written.count(b"\r\n")


@pytest.mark.timeout(30)
def test_a_save_left_under_the_temporary_name_by_a_killed_write_is_kept_not_removed(tmp_path: Path) -> None:
    """A write killed (SIGKILL) between a swap that brought a save of the user's back and the swap back leaves that
    save under the write's temporary name. The name holds the inode of the new file it was made for
    (``-ino-<inode>``): the next write removes a dead writer's file only when it is that one, and moves any other
    beside kernel.py (``kernel.py.kept-<pid>``) rather than removing it."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    dead = child.pid
    path = _folder(tmp_path)
    ours = tmp_path / f".kernel.py.kernelopt-{dead}-ino-0.tmp"  # renamed below to the inode it holds
    ours.write_text(TUNED)
    named = tmp_path / f".kernel.py.kernelopt-{dead}-ino-{ours.stat().st_ino}.tmp"
    ours.rename(named)
    theirs = tmp_path / f".kernel.py.kernelopt-{dead}-ino-1.tmp"  # a file that is not the one the name was made for
    theirs.write_text(MINE)
    plain = tmp_path / f".kernel.py.kernelopt-{dead}-abc123_x.tmp"  # an older write's temporary file
    plain.write_text(TUNED)
    source = read_source(path)
    replace_source(source, TUNED)
    kept = tmp_path / f"kernel.py.kept-{os.getpid()}"
    assert path.read_text() == TUNED and kept.read_text() == MINE
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["kernel.py", kept.name])
