"""The eighth fault trial of the commands that write a user's file (docs/faults.md, "tune and optimize on a user's
file, eighth fault trial (faults8)", f13..) and the seventh trial's leftovers: each test injects one fault and
holds its fix.

The invariant is docs/tuning-engine.md's: after any fault a user's kernel.py (and any file of theirs) is byte for
byte what they last wrote, or that text with only the knob edit applied, and the exit code says which. The kernels
are tests/data/loop's torch add on the CPU.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.cli.app import main

LOOP = Path(__file__).parent / "data" / "loop"
SRC = str(Path(__file__).resolve().parents[1] / "src")

#: A latin-1 kernel.py as an older codebase keeps it: a coding line (PEP 263) and an accented comment and string.
LATIN1_HEAD = "# -*- coding: latin-1 -*-\n# Noyau écrit à Zürich\nNAME = 'addition élémentaire'\n"


def _folder(tmp_path: Path, head: str = "", encoding: str = "utf-8") -> tuple[Path, bytes]:
    folder = tmp_path / "loop"
    shutil.copytree(LOOP, folder, ignore=shutil.ignore_patterns("make_summaries.py", "summary_*"))
    kernel = folder / "kernel.py"
    if head:
        kernel.write_bytes((head + kernel.read_text(encoding="utf-8")).encode(encoding))
    return folder, kernel.read_bytes()


@pytest.mark.timeout(60)
def test_f13_a_latin1_kernel_with_its_coding_line_is_read_and_written_back_in_latin1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """f13: a latin-1 kernel.py with its coding line (Python imports it) was refused by `tunables`, `tune`, `init`
    and `optimize` as "not UTF-8 text". It is read by Python's rules (PEP 263) and written back in latin-1: only the
    knob's line changes, every other byte (the accents' single bytes) kept."""
    folder, before = _folder(tmp_path, LATIN1_HEAD, "latin-1")
    kernel = folder / "kernel.py"
    assert main(["tunables", str(kernel), "--no-evaluate"]) == 0
    assert "BLOCK" in capsys.readouterr().out
    assert main(["tunables", str(kernel), "--no-evaluate", "--set", "BLOCK=512"]) == 0, capsys.readouterr().err
    after = kernel.read_bytes()
    assert after == before.replace(b"BLOCK = 64 ", b"BLOCK = 512 ")
    assert "élémentaire".encode("latin-1") in after and "é".encode() not in after  # latin-1 still, not UTF-8

    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu", budget=2))  # tune's discovery and reading
    assert any(t.name == "BLOCK" for t in prepared.tunables)


@pytest.mark.timeout(60)
def test_f13_what_the_loop_writes_and_puts_back_keeps_the_kernel_s_encoding(tmp_path: Path) -> None:
    """f13, the loop: a candidate or an implementer's text is written in the encoding its coding line declares
    (``atomic_write_code``), and a kernel.py put back from a commit is its bytes (``Workspace.bytes_at``), never
    UTF-8 over a latin-1 coding line (Python would then read ``Ã©`` for ``é``)."""
    from kernelopt.fileio import atomic_write_code, read_python
    from kernelopt.workspace import Workspace

    text = LATIN1_HEAD + "BLOCK = 64\n"
    out = tmp_path / "candidate.py"
    atomic_write_code(out, text)
    assert out.read_bytes() == text.encode("latin-1") and read_python(out) == text
    atomic_write_code(out, "# no coding line: é\n")  # UTF-8 without one, as before
    assert out.read_bytes() == "# no coding line: é\n".encode()

    folder, before = _folder(tmp_path, LATIN1_HEAD, "latin-1")
    ws = Workspace.create("lat", kernel=folder / "kernel.py", reference=folder / "reference.py", root=tmp_path)
    assert (ws.kernel_py.read_bytes(), ws.bytes_at("HEAD", "kernel.py")) == (before, before)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", ["tunables", "set", "tune", "init"])
def test_f13_non_utf8_bytes_without_a_coding_line_are_one_line_naming_the_encoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """f13, the refusal: bytes that are not UTF-8 and no coding line (Python would not import the file either) are
    one line in every command, naming the encoding, the byte and what to do; nothing is made or written."""
    folder, before = _folder(tmp_path, "# Noyau écrit à Zürich\n", "latin-1")
    kernel = folder / "kernel.py"
    argv = {
        "tunables": ["tunables", str(kernel), "--no-evaluate"],
        "set": ["tunables", str(kernel), "--no-evaluate", "--set", "BLOCK=512"],
        "tune": ["tune", str(folder), "--device", "cpu"],
        "init": ["init", "lat", "-k", str(kernel), "-r", str(folder / "reference.py"), "--root", str(tmp_path)],
    }[command]
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == (
        f"kernelopt: error: {kernel}: not UTF-8 text (byte 8 is 0xe9) and no coding line names another encoding, so "
        "Python would not import it either; save it as UTF-8, or name its encoding on line 1 or 2 "
        "(# -*- coding: latin-1 -*-, PEP 263)"
    )
    assert kernel.read_bytes() == before
    assert not (folder / ".kernelopt").exists() and not (tmp_path / "kernel_opt_lat").exists()


@pytest.mark.timeout(30)
def test_f13_an_unknown_coding_line_or_bytes_it_cannot_decode_are_said_as_such(tmp_path: Path) -> None:
    """f13: a coding line naming no encoding Python knows, or bytes its declared encoding cannot decode, are one
    line naming that encoding (a file Python would refuse too)."""
    from kernelopt.errors import InputFileError
    from kernelopt.fileio import decode_python

    with pytest.raises(InputFileError, match=r"its coding line names 'klingon', an encoding Python does not know"):
        decode_python(b"# coding: klingon\nBLOCK = 64\n", "k.py")
    with pytest.raises(
        InputFileError, match=r"not ascii text, the encoding its coding line declares \(byte 18 is 0xe9\)"
    ):
        decode_python(b"# coding: ascii\n# \xe9\n", "k.py")
    assert decode_python(b"\xef\xbb\xbfBLOCK = 64\r\n", "k.py") == ("BLOCK = 64\r\n", "utf-8-sig")
    # a BOM and a latin-1 coding line: Python refuses the file ("encoding problem: iso-8859-1 with BOM"), so do we
    with pytest.raises(
        InputFileError, match=r"starts with a UTF-8 byte order mark but its coding line declares latin-1, so Python"
    ):
        decode_python(b"\xef\xbb\xbf# -*- coding: latin-1 -*-\nBLOCK = 64\n", "k.py")


@pytest.mark.timeout(60)
def test_f14_an_interrupt_inside_an_exec_at_start_up_ends_in_exit_130_not_killed_by_sigint(tmp_path: Path) -> None:
    """f14 (the seventh trial's leftover: 4 of 38 early interrupts said the line, then ended killed by SIGINT): a
    Ctrl-C inside an ``exec`` of a string (dataclasses and pydantic make methods so while the CLI is imported) sets
    CPython 3.11's "unhandled KeyboardInterrupt" flag even though the entry point catches it, and ``python -m`` then
    ends the process by SIGINT whatever ``sys.exit`` said. A real SIGINT raised in such an ``exec`` while
    ``kernelopt.cli.tune`` is imported."""
    import subprocess
    import sys
    import textwrap

    folder, before = _folder(tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        textwrap.dedent(
            """
            import sys

            class _Cut:  # the moment: a method being made by exec while kernelopt.cli.tune is imported
                def find_spec(self, name, path=None, target=None):
                    if name == "kernelopt.cli.tune":
                        sys.meta_path.remove(self)
                        exec("import signal\\nsignal.raise_signal(signal.SIGINT)\\n", {})
                    return None

            sys.meta_path.insert(0, _Cut())
            """
        ),
        encoding="utf-8",
    )
    import os

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), SRC])}
    done = subprocess.run(
        [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cpu"],
        capture_output=True,
        text=True,
        env=env,
        timeout=50,
    )
    assert (done.returncode, done.stderr) == (130, "kernelopt: interrupted\n"), (done.returncode, done.stderr)
    assert (folder / "kernel.py").read_bytes() == before


@pytest.mark.timeout(60)
def test_f14_an_interrupt_while_python_m_imports_the_entry_point_is_the_one_line(tmp_path: Path) -> None:
    """f14: a Ctrl-C while ``python -m kernelopt`` imported its entry point (``kernelopt.cli.start``, before its
    handling exists) was a traceback, ended by SIGINT. A real SIGINT raised at that import."""
    import os
    import subprocess
    import sys
    import textwrap

    folder, before = _folder(tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        textwrap.dedent(
            """
            import signal, sys

            class _Cut:
                def find_spec(self, name, path=None, target=None):
                    if name == "kernelopt.cli.start":
                        sys.meta_path.remove(self)
                        signal.raise_signal(signal.SIGINT)
                    return None

            sys.meta_path.insert(0, _Cut())
            """
        ),
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), SRC])}
    done = subprocess.run(
        [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cpu"],
        capture_output=True,
        text=True,
        env=env,
        timeout=50,
    )
    assert (done.returncode, done.stderr) == (130, "kernelopt: interrupted\n"), (done.returncode, done.stderr)
    assert (folder / "kernel.py").read_bytes() == before


@pytest.mark.timeout(60)
def test_f15_a_text_is_parsed_once_for_discovery_the_edit_and_the_guard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """f15 (the seventh trial's leftover: a large kernel.py was slow in libcst): discovery, an edit and its check,
    and the guard each parsed the same text again (a 380 kB kernel.py with 100 kernels: 73.6 CPU-s for
    ``tune --dry-run --budget 3``). One parse per text now serves them all."""
    import libcst as cst

    from kernelopt.tunables import apply_source, discover_source
    from kernelopt.tunables.guard import guard_edit

    source = (LOOP / "kernel.py").read_text(encoding="utf-8") + "\n# a text no other test parses: faults8 f15\n"
    made: list[int] = []
    real = cst.parse_module
    monkeypatch.setattr(cst, "parse_module", lambda text, *a, **k: made.append(len(text)) or real(text, *a, **k))
    for _ in range(3):  # tune's discovery reads its kernel.py three times before the session
        assert [t.name for t in discover_source(source)] == ["BLOCK"]
    result = apply_source(source, {"BLOCK": 256})
    assert result.new_source == source.replace("BLOCK = 64 ", "BLOCK = 256 ")
    for _ in range(2):  # the guard reads the original and the edited text, as each candidate's write does
        assert guard_edit(source, result.new_source).new_source == result.new_source
    assert made == [len(source), len(result.new_source)], made  # the original once, the edited text once


@pytest.mark.timeout(60)
def test_f15_a_text_is_analysed_once_per_arguments_and_each_caller_gets_its_own_knobs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """f15's leftover (leftovers9): after its one parse, a text was analysed again by every reader (14 analyses of
    four kinds in a `tune --dry-run --budget 3`, about 10 CPU-s each on a 20,000-line kernel.py). One analysis per
    text and arguments now, and a caller that marks its knob (the reference's fixed sizes) marks only its own."""
    from kernelopt.tunables import analysis, discover_source

    source = (LOOP / "kernel.py").read_text(encoding="utf-8") + "\n# a text no other test analyses: leftovers9\n"
    made: list[str] = []
    real = analysis._Analyzer.analyze
    monkeypatch.setattr(analysis._Analyzer, "analyze", lambda self: made.append(self.filename) or real(self))
    first = discover_source(source)
    first[0].refused_reason = "one caller's own mark"
    again = discover_source(source)
    assert [t.name for t in again] == ["BLOCK"] and again[0].refused_reason is None
    assert made == ["kernel.py"], made
    assert discover_source(source, "other.py")[0].location.startswith("other.py:")  # other arguments: its own
    assert made == ["kernel.py", "other.py"], made


@pytest.mark.timeout(30)
def test_f15_what_is_kept_of_parsed_texts_is_bounded_by_their_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """f15: a tree takes about 320 bytes a character (355 MB for a 1.1 MB kernel.py), and 64 of them were kept:
    the cache now keeps texts up to a number of characters, and always its two most recent."""
    from kernelopt.tunables import syntax

    monkeypatch.setattr(syntax, "CHARS_KEPT", 100)
    calls: list[str] = []

    @syntax.kept_by_text
    def length(text: str) -> int:
        calls.append(text)
        return len(text)

    big = ["a" * 80, "b" * 80, "c" * 80]
    assert [length(t) for t in big] == [80, 80, 80]
    assert length(big[2]) == 80 and length(big[1]) == 80 and len(calls) == 3  # the two most recent kept
    assert length(big[0]) == 80 and len(calls) == 4  # the oldest was let go
    small = ["x", "y", "z"]
    for t in small:
        length(t)
    for t in small:
        length(t)
    assert len(calls) == 7  # small texts stay kept


@pytest.mark.timeout(120)
def test_f16_an_interrupt_while_the_run_puts_the_best_version_back_leaves_kernel_py_whole(
    ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """f16: at the end of a run whose last versions were slower, kernel.py is put back to the best version's. It was
    written in place (``Path.write_text``: the file truncated, then written), so an interrupt between the two left
    the workspace's kernel.py empty or cut. Now it is a temporary file renamed into place with the signals held: a
    Ctrl-C while the new text is written (held here at its fsync) leaves kernel.py as it was, and the next run ends
    on the best version. Fake stages over a real workspace and git (tests/loop_fakes.py)."""
    import os

    from kernelopt import fileio
    from kernelopt.loop.machine import OptimizeLoop
    from kernelopt.loop.opening import open_or_create
    from kernelopt.loop.settings import LoopRequest
    from kernelopt.workspace import Workspace

    from .loop_fakes import DATA, block_of, make_fakes

    ws = open_or_create(DATA, name="loop", root=ws_root).workspace
    fakes = make_fakes()
    fakes.gate.latency_of = lambda b: {64: 100.0, 128: 101.5, 256: 103.0}.get(b, 110.0)  # V1 passes, slower; V2 fails
    real_fsync = os.fsync
    cut: list[int] = []

    def fsync(fd: int) -> None:
        if (
            not cut
            and os.readlink(f"/proc/self/fd/{fd}").endswith(".tmp")
            and ".kernel.py." in os.readlink(f"/proc/self/fd/{fd}")
        ):
            cut.append(fd)
            raise KeyboardInterrupt
        real_fsync(fd)

    OptimizeLoop(Workspace(ws.root), fakes.collaborators(), LoopRequest(max_iterations=2)).run()
    before = ws.kernel_py.read_bytes()
    assert block_of(ws) == 64  # the run already ended on V0; make it end there again from V1's kernel
    ws.kernel_py.write_bytes(before.replace(b"BLOCK = 64 ", b"BLOCK = 128 "))
    ws.commit(["kernel.py"], "the user's V1 kernel back in place")
    slower = ws.kernel_py.read_bytes()
    monkeypatch.setattr(fileio.os, "fsync", fsync)
    from kernelopt.loop.ending import end_on_best

    with pytest.raises(KeyboardInterrupt):
        end_on_best(ws, list(ws.memory.records()))
    assert cut and ws.kernel_py.read_bytes() == slower  # whole, as it was
    assert not [p for p in ws.root.iterdir() if p.name.startswith(".kernel.py.")]
    monkeypatch.setattr(fileio.os, "fsync", real_fsync)
    assert end_on_best(ws, list(ws.memory.records())) is not None and block_of(ws) == 64


@pytest.mark.timeout(60)
def test_f18_a_nul_byte_is_one_line_in_every_command_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """f18: a kernel.py holding a NUL byte (Python refuses it: "source code cannot contain null bytes") was listed
    and edited by ``tunables --set`` (libcst reads it), and refused by ``tune`` as "syntax error at line None". Now
    one line in both, naming the byte and its line; nothing written."""
    folder, _ = _folder(tmp_path)
    kernel = folder / "kernel.py"
    kernel.write_bytes(kernel.read_bytes() + b"# a stray \x00 byte\n")
    before = kernel.read_bytes()
    for argv in (
        ["tunables", str(kernel), "--no-evaluate", "--set", "BLOCK=128"],
        ["tune", str(folder), "--device", "cpu"],
    ):
        assert main(argv) == 2
        line = capsys.readouterr().err.splitlines()[-1]
        assert line == (
            f"kernelopt: error: {kernel}: holds a NUL byte (byte {before.index(0)}, line 17), so Python would not "
            "import it either; remove that byte (a binary file, or one cut short by a crash?)"
        )
        assert kernel.read_bytes() == before
