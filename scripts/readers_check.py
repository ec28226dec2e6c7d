"""The check a change to tunables/bindings.py or tunables/readers.py owes (twins15): each module of an older tree
against this tree's, on every file of the corpus, in one process.

- bindings: ``bindings(fn)``, ``assigned_once(fn)`` and ``rebound(fn)`` of every function of every ``.py`` under
  tests/data, examples and src/kernelopt, name by name (each value the same node of the one parse);
- readers: ``computed_readers`` and ``chained_values`` of every knob static discovery finds in every kernel file (a
  `.py` under tests/data and examples that mentions triton, reference.py aside) and ``shrunk_covers`` of each integer
  knob doubled and halved alone.

Usage (repository root, CPU; about 6 minutes on 2 loaded cores):

    PYTHONPATH=src python3 scripts/readers_check.py OLD/src/kernelopt/tunables

OLD: a tree of the older version (``git archive REV | tar -x -C OLD``). Prints one line a difference and a summary;
exits 1 where anything differs.
"""

from __future__ import annotations

import importlib.util
import signal
import sys
import time
from pathlib import Path
from types import FrameType, ModuleType

import libcst as cst

from kernelopt.numeric import is_int
from kernelopt.tunables import bindings, discover_source, readers
from kernelopt.tunables.blocks import walk
from kernelopt.tunables.model import TunableKind

ROOT = Path(__file__).resolve().parents[1]
ALARM_S = 60


def _older(folder: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"older_{name}", folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a dataclass of the module (bindings.Binding) looks itself up there
    spec.loader.exec_module(module)
    return module


def _files(*folders: str, kernels: bool = False) -> list[Path]:
    found = [p for f in folders for p in sorted((ROOT / f).rglob("*.py"))]
    if kernels:
        found = [p for p in found if p.name != "reference.py" and "triton" in p.read_text(errors="ignore")]
    return found


def check_bindings(old: ModuleType) -> tuple[int, int]:
    functions = differ = 0
    for path in _files("tests/data", "examples", "src/kernelopt"):
        try:
            module = cst.parse_module(path.read_text(errors="ignore"))
        except cst.ParserSyntaxError:
            continue
        for fn in (n for n in walk(module) if isinstance(n, cst.FunctionDef)):
            functions += 1
            a, b = old.bindings(fn), bindings.bindings(fn)
            same = list(a) == list(b) and all(len(a[k]) == len(b[k]) and all(map(_same, a[k], b[k])) for k in a)
            same = same and old.assigned_once(fn) == bindings.assigned_once(fn)
            if not same or old.rebound(fn) != bindings.rebound(fn):
                differ += 1
                print(f"BINDINGS {path.relative_to(ROOT)} {fn.name.value}")
    return functions, differ


def _same(a: object, b: object) -> bool:
    return a is b


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise TimeoutError


def check_readers(old: ModuleType) -> tuple[int, int, int]:
    signal.signal(signal.SIGALRM, _alarm)
    files = calls = differ = 0
    for path in _files("tests/data", "examples", kernels=True):
        text = path.read_text(errors="ignore")
        signal.alarm(ALARM_S)
        try:
            found = discover_source(text, path.name)
        except TimeoutError:
            print(f"TIMEOUT {path.relative_to(ROOT)}")
            continue
        except Exception:  # a file discovery refuses has no knob to read
            continue
        finally:
            signal.alarm(0)
        files += 1
        for t in (t for t in found if t.kind is not TunableKind.COMPUTED_SETTING):
            a = [r.name for r in old.computed_readers(found, text, [t.name])]
            b = [r.name for r in readers.computed_readers(found, text, [t.name])]
            chains = old.chained_values(found, text, [t.name]), readers.chained_values(found, text, [t.name])
            calls += 2
            if a != b or chains[0] != chains[1]:
                differ += 1
                print(f"READERS {path.relative_to(ROOT)} {t.name}: {a} {chains[0]} -> {b} {chains[1]}")
            for value in (t.value * 2, max(t.value // 2, 1)) if is_int(t.value) else ():
                was = old.shrunk_covers(found, text, {t.name: value}, {t.name: t.value})
                now = readers.shrunk_covers(found, text, {t.name: value}, {t.name: t.value})
                calls += 1
                if was != now:
                    differ += 1
                    print(f"SHRUNK {path.relative_to(ROOT)} {t.name}={value}: {was} -> {now}")
    return files, calls, differ


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not (Path(argv[0]) / "readers.py").is_file():
        print("usage: readers_check.py OLD/src/kernelopt/tunables", file=sys.stderr)
        return 2
    folder = Path(argv[0])
    start = time.monotonic()
    functions, bind_differ = check_bindings(_older(folder, "bindings"))
    files, calls, read_differ = check_readers(_older(folder, "readers"))
    print(
        f"bindings: {functions} functions, {bind_differ} differ; readers: {files} kernel files, {calls} calls, "
        f"{read_differ} differ; {time.monotonic() - start:.0f} s"
    )
    return 1 if bind_differ or read_differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
