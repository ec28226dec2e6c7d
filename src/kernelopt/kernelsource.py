"""Static checks of the user's kernel and reference files (the kernel contract of DESIGN.md).

The files are parsed, never imported: checking a contract must not run user code.

Function form: ``kernel.py`` defines ``run(*inputs)``; ``reference.py`` defines ``reference(*inputs)``
and ``get_inputs()``. KernelBench form: ``reference.py`` defines ``class Model``, ``get_inputs()`` and
``get_init_inputs()``; ``kernel.py`` defines ``class ModelNew``.
"""

from __future__ import annotations

import ast
import difflib
import importlib.machinery
import importlib.util
import math
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from kernelopt import pyparse
from kernelopt.errors import InputFileError
from kernelopt.fileio import read_python
from kernelopt.numeric import is_int, is_number
from kernelopt.vocabulary import Device, Framework


class KernelForm(StrEnum):
    FUNCTION = "function"
    KERNELBENCH = "kernelbench"

    @property
    def takes_gradients(self) -> bool:
        """Whether the kernel and the reference run with autograd on. The function form does: a backward kernel
        is tested the way its authors test it, through ``torch.autograd.grad`` in ``run`` and ``reference`` (inputs
        that do not require grad build no graph, so nothing is held). The KernelBench form runs under
        ``torch.no_grad()``, as KernelBench's own evaluation does (a ``Model``'s parameters would build one)."""
        return self is KernelForm.FUNCTION


def why_missing(path: Path, wanted: str = "file") -> str:
    """Why ``path`` is no ``wanted`` ("file" or "folder") to read, as a user who lists its folder sees it: a
    symbolic link to nothing, or a folder where a file goes, was "no such file" beside a name ``ls`` shows.

    Returns:
        "no such file", "is a folder, not a file", "is a file, not a folder", or "is a symbolic link to
        TARGET, which does not exist".
    """
    if path.is_symlink() and not path.exists():
        return f"is a symbolic link to {os.readlink(path)}, which does not exist"
    if not path.exists():
        return f"no such {wanted}"
    return "is a folder, not a file" if wanted == "file" else "is a file, not a folder"


def _top_level_names(path: Path) -> tuple[set[str], set[str], set[str]]:
    """(functions, classes, assigned names) defined at the top level of ``path``."""
    if not path.is_file():
        raise InputFileError(path, why_missing(path))
    try:
        tree = pyparse.parse(read_python(path), filename=str(path))
    except SyntaxError as exc:
        raise InputFileError(path, f"syntax error at line {exc.lineno}: {exc.msg}") from None
    funcs: set[str] = set()
    classes: set[str] = set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            funcs.add(node.name)
        elif isinstance(node, ast.ClassDef):
            classes.add(node.name)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    names.add(t.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
    return funcs, classes, names


def check_reference(path: Path) -> KernelForm:
    """Check ``reference.py`` and return its form.

    Raises:
        InputFileError: missing, unparsable, or lacking ``get_inputs`` / ``reference`` / ``Model``.
    """
    funcs, classes, names = _top_level_names(path)
    defined = funcs | classes | names
    if "get_inputs" not in defined:
        raise InputFileError(path, "defines no get_inputs()", hint="the reference must build the inputs")
    fault = _written_shapes_fault(path)
    if fault is not None:  # before a workspace is made (optimize made one and failed its baseline on it)
        raise InputFileError(path, fault)
    bad = entry_fault(path, written_entries(path))  # an entry get_inputs cannot take (tune refused it alone)
    if bad is not None:
        raise InputFileError(path, bad[0], hint=bad[1])
    if "Model" in classes:
        if "get_init_inputs" not in defined:
            raise InputFileError(path, "KernelBench form (class Model) needs get_init_inputs()")
        return KernelForm.KERNELBENCH
    if "reference" in defined:
        return KernelForm.FUNCTION
    raise InputFileError(path, "defines neither reference(*inputs) nor class Model")


def _written_shapes_fault(path: Path) -> str | None:
    """:func:`shapes_fault` of a ``SHAPES`` written as a literal that names no case (``{"n": 4096}``, ``5``, ``[]``,
    ``["n=4"]``); ``None`` for a good one or one built by code (``[dict(n=k) for k in ...]``: the run checks it)."""
    tree = pyparse.parse(read_python(path), filename=str(path))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SHAPES" for t in node.targets):
            value = node.value
            if isinstance(value, ast.List | ast.Tuple):  # an entry that is a constant, a list or a tuple is no dict
                loose = [v for e in value.elts for v in _literal_entry(e)]
                return shapes_fault(loose) if loose or not value.elts else None
            if isinstance(value, ast.Constant | ast.Dict | ast.Set):
                try:
                    return shapes_fault(pyparse.literal(value))
                except ValueError:  # a dict of arithmetic ({"n": 2**27}): the run says it
                    return None
    return None


def _literal_entry(node: ast.expr) -> list[object]:
    """A ``SHAPES`` entry written as a literal that is no dict (``4096``, ``None``, ``"n=4"``, ``[3000]``,
    ``(4, 40)``), as a list of that one value; ``[]`` for a dict, a call or arithmetic (the run reads those). fresh27
    f52: ``[{"n": 1000}, [3000]]`` was read as good here, so ``init`` and ``optimize`` made a workspace and committed
    V0's failure, and ``batch`` ran the reference, before the worker said "SHAPES must be a list of dicts"."""
    if not isinstance(node, ast.Constant | ast.List | ast.Tuple | ast.Set):
        return []
    try:
        return [pyparse.literal(node)]
    except ValueError:  # [2**10]: not a literal, the run says what it is
        return []


def written_entries(path: Path) -> list[dict[str, object]]:
    """The entries of a ``SHAPES`` written once at the top level as a literal list of dicts (integer arithmetic
    of literals allowed: ``{"n": 2**20}``); ``[]`` for one built by code, absent, or not a list of dicts."""
    tree = pyparse.parse(read_python(path), filename=str(path))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SHAPES" for t in node.targets):
            if not isinstance(node.value, ast.List | ast.Tuple):
                return []
            try:
                value = [literal_value(e) for e in node.value.elts]
            except (ValueError, TypeError, SyntaxError):
                return []
            ok = all(isinstance(e, dict) and all(isinstance(k, str) for k in e) for e in value)
            return [dict(e) for e in value] if ok else []  # type: ignore[call-overload]
    return []


def entry_text(entry: Mapping[str, object]) -> str:
    """``{'n': 256}`` as reference.py writes it (the messages name an entry so)."""
    return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in entry.items()) + "}"


def entry_fault(reference_py: Path, shapes: Sequence[Mapping[str, object]]) -> tuple[str, str] | None:
    """Why a ``SHAPES`` entry cannot be handed to ``get_inputs``, read from reference.py's text: (the fault, its
    fix), or ``None``. The one rule of ``init``, ``validate``, ``optimize``, ``batch`` and ``tune``.

    Checked: every key is a parameter of ``get_inputs`` (unless it takes ``**kwargs``), a value is not a
    string where the parameter's default is a number, nor a whole float (``4096.0``) where it is an integer, nor a
    bool where it is an integer other than a 0/1 flag's default (``True`` was read as a size of 1, said "too
    large" on the CPU: newuser11's n60; ``causal=True`` beside ``causal=0`` is a flag),
    nor any float, list, tuple or dict where the parameter is annotated ``int`` (``1000.5`` ended in torch's long
    line; ``[1000, 2]`` ran as a 1000 x 2 tensor, seen14). What
    only a call can tell (``get_inputs`` raising on an entry) is said by the worker that builds the entry.
    """
    signature = _get_inputs_signature(Path(reference_py))
    if signature is None:
        return None
    params, defaults, open_kwargs, annotated_int = signature
    for i, entry in enumerate(shapes):
        where = f"SHAPES[{i}] {entry_text(entry)}"
        for key, value in entry.items():
            if key not in params and not open_kwargs:  # the one it is spelt like, and where to fix it (n158)
                near = difflib.get_close_matches(key, [p for p in params if p not in entry], n=1)
                mean = f"did you mean {near[0]!r}? " if near else ""
                return (
                    f"{where} cannot be built: get_inputs takes no argument {key!r}",
                    f"{mean}fix that entry of reference.py's SHAPES (get_inputs's parameters: "
                    f"{', '.join(params) or 'none'})",
                )
            default = defaults.get(key)
            number = is_number(default)
            if isinstance(value, str) and number:
                return (
                    f"{where} cannot be built: {key} is the string {value!r}, get_inputs's default is the number "
                    f"{default!r}",
                    _number_hint(key, value, default),
                )
            integer = is_int(default)
            if _integral_float(value) and integer:
                return (
                    f"{where} cannot be built: {key} is the float {value!r}, get_inputs's default is the integer "
                    f"{default!r}",
                    f"write {key!r}: {int(value)} (or give get_inputs a float default where it takes one)",
                )
            flag = default in (0, 1) and not isinstance(default, float)  # a 0/1 default: an int used as a flag
            if isinstance(value, bool) and (integer or key in annotated_int) and not flag:
                return (
                    f"{where} cannot be built: {key} is the bool {value!r}, where get_inputs takes an integer",
                    f"write {key!r}: {int(value)} if that is the size meant",
                )
            if isinstance(value, list | tuple | dict) and key in annotated_int:  # torch took [1000, 2] as a shape
                kind = type(value).__name__
                return (
                    f"{where} cannot be built: {key} is the {kind} {value!r}, where get_inputs takes an integer "
                    f"({key}: int)",
                    f"write one integer for {key!r} (sizes of several dimensions need a parameter each)",
                )
            if isinstance(value, float) and key in annotated_int:
                return (
                    f"{where} cannot be built: {key} is the float {value!r}, where get_inputs takes an integer "
                    f"({key}: int)",
                    f"write {key!r} as an integer",
                )
    return None


def _integral_float(value: object) -> bool:
    """A float holding a whole number (``4096.0``, ``1e4``): where ``get_inputs`` takes an integer, torch refused it
    only in the session, in its own long line (newuser10; a fraction, ``0.5``, may be a scale and is left alone)."""
    return isinstance(value, float) and value.is_integer()


def _number_hint(key: str, value: str, default: object) -> str:
    """The fix of a string where ``get_inputs`` takes a number: the quotes dropped when the string is a number
    (``'4096'``), else a number as the default is one ("write n: big without quotes" for ``'big'``)."""
    try:
        number = float(value)
    except ValueError:
        return f"give a number, as get_inputs's default is ({key!r}: {default!r})"
    shown = int(number) if number.is_integer() and "." not in value else number
    return f"write {key!r}: {shown} without quotes"


def _get_inputs_signature(path: Path) -> tuple[list[str], dict[str, object], bool, set[str]] | None:
    """``get_inputs``'s parameter names, its literal defaults, whether it takes ``**kwargs`` and the parameters
    annotated ``int``; ``None`` when reference.py defines no such function at module level."""
    try:
        tree = pyparse.parse(read_python(path), filename=str(path))
    except FileNotFoundError:
        raise InputFileError(path, "no such file") from None
    except SyntaxError as exc:
        raise InputFileError(path, f"syntax error at line {exc.lineno}: {exc.msg}") from None
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_inputs"), None)
    if fn is None:
        return None
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    names = [p.arg for p in [*positional, *a.kwonlyargs]]
    defaults: dict[str, object] = {}
    pairs = list(zip(positional[len(positional) - len(a.defaults) :], a.defaults, strict=True))
    pairs += [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None]
    for p, d in pairs:
        try:
            defaults[p.arg] = pyparse.literal(d)
        except (ValueError, TypeError, SyntaxError):
            continue
    annotated_int = {
        p.arg for p in [*positional, *a.kwonlyargs] if isinstance(p.annotation, ast.Name) and p.annotation.id == "int"
    }
    return names, defaults, a.kwarg is not None, annotated_int


_OPERATORS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Pow: lambda a, b: a**b,
    ast.LShift: lambda a, b: a << b,
}


def literal_value(node: ast.expr) -> object:
    """A literal, or integer arithmetic of literals (``2**27``, ``1 << 14``, ``4 * 1024``); ValueError else."""
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        a, b = literal_value(node.left), literal_value(node.right)
        if is_int(a) and is_int(b):
            if isinstance(node.op, ast.Pow | ast.LShift) and not 0 <= b <= 64:
                raise ValueError("exponent out of range")
            if isinstance(node.op, ast.Pow) and abs(a) > 2**64:  # ((2**64)**64)**64 ... would run for ever
                raise ValueError("base out of range")
            return _OPERATORS[type(node.op)](a, b)
        raise ValueError("not integer arithmetic")
    if isinstance(node, ast.List):
        return [literal_value(e) for e in node.elts]
    if isinstance(node, ast.Dict) and all(k is not None for k in node.keys):
        return {literal_value(k): literal_value(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
    return pyparse.literal(node)


def shapes_built_by_code(path: Path) -> bool:
    """True when reference.py's ``SHAPES`` is built by code, so that only importing it tells what it holds:
    ``[dict(n=n) for n in (...)]``, ``make_shapes()``, an assignment under module-level control flow or more than
    one. False when it has no ``SHAPES`` or writes it once at the top level as a literal (integer arithmetic of
    literals included: ``{"n": 2**27}``), which is read from the text. Parses, imports nothing; False when the
    file does not parse (the form's check says so)."""
    try:
        tree = pyparse.parse(read_python(path), filename=str(path))
    except (OSError, SyntaxError, InputFileError, ValueError):
        return False
    found: list[tuple[ast.stmt, bool]] = []  # (assignment, at the top level)

    def visit(body: list[ast.stmt], top: bool) -> None:
        for node in body:
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = [t for target in node.targets for t in ast.walk(target)]
            elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                targets = [node.target]
            if any(isinstance(t, ast.Name) and t.id == "SHAPES" for t in targets):
                found.append((node, top))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            for field in ("body", "orelse", "finalbody"):
                visit(getattr(node, field, None) or [], False)
            for handler in getattr(node, "handlers", None) or []:
                visit(handler.body, False)

    visit(tree.body, True)
    if not found:
        return False
    if len(found) > 1:
        return True
    node, top = found[0]
    if not top or not isinstance(node, ast.Assign) or not isinstance(node.targets[0], ast.Name):
        return True
    try:
        literal_value(node.value)
    except (ValueError, TypeError, SyntaxError):
        return True
    return False


def folder_dependence(path: Path, *, carried: bool = False) -> InputFileError | None:
    """Why ``path`` (a kernel.py) cannot be loaded from a folder of its own, the refusal :func:`check_kernel` raises
    (it imports or reads a file beside it, which a workspace does not hold); ``None`` where it needs none. One
    rule for the refusal and for ``kernelopt tunables``, which lists such a kernel's knobs and says tune refuses it
    (fresh23: its settings read from a config.json beside it were listed as knobs, and tune then refused the file).

    ``carried``: the command links the data the kernel reads beside it into each folder it loads it from
    (:func:`carried_data`, ``tune``'s candidates), so only a source it builds, or a name no file answers, is refused;
    a workspace (``optimize``) holds kernel.py and reference.py alone and refuses any."""
    beside = folder_imports(path)
    if beside:
        absolute = [a for a in (absolute_import(path, name) for name in beside) if a is not None]
        return InputFileError(
            path,
            f"imports {', '.join(beside)} from its own folder; a workspace holds only kernel.py and reference.py, "
            "and tune loads each candidate from a folder of its own, so it could not load there",
            hint=(
                f"import {'it' if len(beside) == 1 else 'them'} by {'its' if len(beside) == 1 else 'their'} "
                f"absolute name ({', '.join(absolute)}: {absolute[0].split('.')[0]} is importable here), "
                "or define what it uses in kernel.py"
            )
            if len(absolute) == len(beside)
            else "define what it uses in kernel.py",
        )
    read = folder_files(path)
    if carried:
        data = set(_carried_of(path, read))
        read = [(name, line) for name, line in read if _top(name) not in data]
    if read:
        said = ", ".join(f"{name} (line {line})" for name, line in read)
        them = "it" if len(read) == 1 else "them"
        return InputFileError(
            path,
            f"reads {said} from its own folder; a workspace holds only kernel.py and reference.py, and tune loads "
            f"each candidate from a folder of its own, so it could not find {them} there",
            hint=f"put {them} in kernel.py ({_inlined(name for name, _ in read)}) or name {them} by "
            f"{'its' if len(read) == 1 else 'their'} absolute path",
        )
    return None


def check_kernel(path: Path, form: KernelForm, *, carried: bool = False) -> None:
    """Check that ``kernel.py`` matches the reference's form (``carried``: as :func:`folder_dependence`).

    Raises:
        InputFileError: missing, unparsable, or lacking ``run`` (function form) / ``ModelNew``.
    """
    funcs, classes, names = _top_level_names(path)
    outside = folder_dependence(path, carried=carried)
    if outside is not None:
        raise outside
    if form is KernelForm.KERNELBENCH and "ModelNew" not in classes | names:
        raise InputFileError(path, "defines no class ModelNew (the reference uses the KernelBench form)")
    if form is KernelForm.FUNCTION and "run" not in funcs | names:
        raise InputFileError(path, "defines no run(*inputs) (the reference uses the function form)")


#: the endings of the sources a kernel builds (``torch.utils.cpp_extension``); any other file is data it reads
BUILT_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".h", ".hpp")


def _top(name: str) -> str:
    """The entry beside the kernel a name it reads is in: ``configs`` of ``configs/gemm/x.json``."""
    return Path(name.lstrip("./")).parts[0]


def carried_data(kernel: Path) -> list[str]:
    """The entries beside ``kernel`` (a file, or a folder: vLLM's and AITER's ``configs/``, their JSON tables of
    settings keyed by the device and the shape) that it reads as data and that travel, unchanged, with each copy
    ``tune`` loads (:func:`carry`): every one named by :func:`folder_files` that exists and holds no source the kernel
    builds (:data:`BUILT_SOURCES`, refused as before: compiled once per folder, not copied). The tuned settings are
    written in kernel.py, never in these files, so the authors' entries stay the fallback at every other device and
    size (configs23). None where no kernel file is there to name any (a target's check of a folder that holds only
    the candidate's compile lines)."""
    if not kernel.is_file():
        return []
    return _carried_of(kernel, folder_files(kernel))


def _carried_of(kernel: Path, read: list[tuple[str, int]]) -> list[str]:
    """:func:`carried_data` from what :func:`folder_files` found ``kernel`` reads (parsed once where the caller has it
    already: :func:`folder_dependence`)."""
    out: list[str] = []
    for name, _ in read:
        top = _top(name)
        where = kernel.parent / top
        files = _files(where)
        if files and not any(f.suffix in BUILT_SOURCES for f in files) and top not in out:
            out.append(top)
    return out


def _files(where: Path) -> list[Path]:
    """The files an entry beside a kernel holds: itself, or those below it; none where it is missing."""
    if where.is_file():
        return [where]
    return sorted(f for f in where.rglob("*") if f.is_file()) if where.is_dir() else []


def carry(kernel: Path, folder: Path) -> None:
    """Link the data :func:`carried_data` names beside ``kernel`` into ``folder``, where a copy of it is loaded (a
    symbolic link: the authors' files themselves, read, never written); an entry already there is kept."""
    for name in carried_data(kernel):
        link = folder / name
        if not link.exists() and not link.is_symlink():
            link.symlink_to((kernel.parent / name).resolve(), target_is_directory=(kernel.parent / name).is_dir())


def carried_digest(kernel: Path) -> str:
    """The carried data's names and bytes, for a key of what a session measured (a JSON entry changed is another
    session)."""
    import hashlib

    digest = hashlib.sha256()
    for name in carried_data(kernel):
        where = kernel.parent / name
        for f in _files(where):
            digest.update(str(f.relative_to(kernel.parent)).encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()


def _inlined(names: Iterable[str]) -> str:
    """How the files a kernel reads beside it go into kernel.py: a source as a string built by ``load_inline``, data
    (vLLM's ``configs/...json`` tables of settings keyed by the device's name, breaker20's vllm_block_fp8) as a
    literal; a folder may hold either."""
    kinds = {"source" if Path(n).suffix in BUILT_SOURCES else "data" if Path(n).suffix else "either" for n in names}
    source = "a C++ or CUDA source as a string, built by torch.utils.cpp_extension.load_inline"
    data = "a table of settings it reads (JSON) as a dict literal"
    if kinds == {"source"}:
        return source
    if kinds == {"data"}:
        return data
    return f"{source}; {data}"


def missing_imports(path: Path) -> list[str]:
    """The top-level packages ``path`` imports at module level (not inside ``try`` or ``if``) that this
    Python cannot find; a module or package beside the file counts as found. Imports nothing.

    Raises:
        SyntaxError: the file does not parse (callers check the file's form first).
    """
    tree = pyparse.parse(read_python(path), filename=str(path))
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module.split(".")[0])
    missing = []
    for name in dict.fromkeys(names):
        if name in sys.builtin_module_names or name in sys.stdlib_module_names:
            continue
        if (path.parent / f"{name}.py").is_file() or (path.parent / name).is_dir():
            continue
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # an odd finder: leave the verdict to the worker's own import
            found = True
        if not found:
            missing.append(name)
    return missing


def check_pair(reference: Path, kernel: Path) -> KernelForm:
    """Check a kernel and its reference as a command that runs them here needs them (``tune``): the contract of
    both files (:func:`check_reference`, :func:`check_kernel`) and the packages they import at module level.

    Raises:
        InputFileError: one line naming the file: what the contract misses, or a package that is not installed.
    """
    form = check_reference(reference)
    check_kernel(kernel, form, carried=True)
    check_installed(reference, kernel)
    return form


def check_installed(*paths: Path) -> None:
    """Check that the packages each file imports at module level are importable here, where the gate, the tuning
    engine and a workspace's kernel.py import them (``tune`` and a new ``optimize``; newuser19 n139: ``optimize`` made
    the workspace and V0's gate failed "No module named 'acme'" for a project not installed).

    Raises:
        InputFileError: one line naming the file and the packages, and how a project's own package is made importable;
            or naming a file that does not parse (fresh27 f50: ``optimize`` checks the packages before the form, and
            a kernel.py with a syntax error was kernelopt's own crash, exit 70).
    """
    for path in paths:
        try:
            missing = missing_imports(path)
        except SyntaxError as exc:
            raise InputFileError(path, f"syntax error at line {exc.lineno}: {exc.msg}") from None
        if missing:
            verb = "is" if len(missing) == 1 else "are"
            raise InputFileError(
                path,
                f"imports {', '.join(missing)}, which {verb} not installed",
                hint="install it for this Python, or, for a package of your own project, `pip install -e` the project "
                "or put its source folder on PYTHONPATH (the checks and a workspace import it from wherever this "
                "Python finds it)",
            )


def folder_imports(path: Path) -> list[str]:
    """The modules a kernel file imports from its own folder at module level, as written: a relative import
    (``from .settings import ...``), or a module or package beside it (``from settings import ...`` with
    ``settings.py`` there). A workspace copies only kernel.py and reference.py (DESIGN.md, "Workspace"), so such
    a kernel could not load in one. Parses, imports nothing; ``[]`` when the file does not parse (the form's
    check says so)."""
    try:
        tree = pyparse.parse(read_python(path), filename=str(path))
    except (SyntaxError, InputFileError, ValueError):
        return []
    out: list[str] = []
    for node in tree.body:
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level and node.module:
            out.append("." * node.level + node.module)
        elif isinstance(node, ast.ImportFrom) and node.level:  # ``from . import launch``: the module .launch
            out += ["." * node.level + alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
        out += [module for module in modules if _beside(path.parent, module)]
    return list(dict.fromkeys(out))


def entry_imported(source: str) -> str | None:
    """Where a kernel file's entry point (``run``, or ``ModelNew``) comes from when the file imports it rather than
    defining it (``from acme.ops.scale import run``, ``from acme.ops import fused as run``, ``run = scale.run``):
    ``acme.ops.scale.run``; ``None`` when the file defines it, or does not parse. Tune and the loop edit kernel.py
    alone, so the knobs of a kernel so imported are out of their reach (newuser19 n133)."""
    try:
        tree = pyparse.parse(source)
    except (SyntaxError, ValueError):
        return None
    found: str | None = None
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if (alias.asname or alias.name) in ENTRY_POINTS:
                    found = f"{'.' * node.level}{node.module}.{alias.name}"
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in ENTRY_POINTS for t in node.targets
        ):
            found = ast.unparse(node.value) if isinstance(node.value, ast.Attribute) else None
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name in ENTRY_POINTS:
            found = None
    return found


#: The names a kernel file's entry point goes by (the function form's and the KernelBench form's).
ENTRY_POINTS = ("run", "ModelNew")


def absolute_import(path: Path, module: str) -> str | None:
    """The absolute name of ``module`` as ``path`` imports it relatively (``....utils`` from
    ``src/acme/kernels/norm/rms/kernel.py``, each folder up to ``acme`` a package: ``acme.utils``), where the top
    package is importable here without the kernel's folders (an installed project, or one on ``PYTHONPATH``), so a
    kernel.py copied into a workspace imports it by that name (newuser19 n132: the refusal said only "define what
    it uses in kernel.py"); ``None`` for an import that is not relative, a kernel.py in no package, a level above
    its top package, or a top package not importable."""
    level = len(module) - len(module.lstrip("."))
    if level == 0:
        return None
    parts: list[str] = []
    folder = path.resolve().parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    if level > len(parts):
        return None
    name = ".".join([*parts[: len(parts) - level + 1], *([module[level:]] if module[level:] else [])])
    return name if _installed(parts[0], path.resolve().parent) else None


def _beside(folder: Path, module: str) -> bool:
    """Whether ``module`` (``a.b.c``) is imported from ``folder``: a module or a package there, or a folder without
    ``__init__.py`` holding Python files, which Python 3 imports as a namespace package (newuser18's n120: ``from
    lib.act import fused_gelu`` with ``lib/act.py`` beside kernel.py was let through by ``init``, and V0's gate failed
    "No module named 'lib'")."""
    top, *rest = module.split(".")
    if (folder / f"{top}.py").is_file() or (folder / top / "__init__.py").is_file():
        return True
    inner = folder.joinpath(top, *rest)
    found = inner.with_name(inner.name + ".py").is_file() or _holds_python(inner)
    return found and not _installed(top, folder)  # a namespace portion: any module of the name elsewhere wins


def _installed(top: str, folder: Path) -> bool:
    """Whether ``top`` is a module Python finds outside ``folder`` (built in, or a module or regular package on
    ``sys.path``): a folder of that name beside the kernel is then only a namespace portion, which it never imports
    (a project's ``torch/`` folder of scripts beside ``import torch``)."""
    if top in sys.builtin_module_names:
        return True
    here = folder.resolve()
    paths = [p for p in sys.path if p and Path(p).resolve() != here]
    spec = importlib.machinery.PathFinder.find_spec(top, paths)
    return spec is not None and spec.loader is not None


def _holds_python(folder: Path) -> bool:
    """A folder with a Python file in it or one level down (``lib/act.py``, ``lib/ops/add.py``): a namespace package
    (a deeper search could walk a whole environment that sits beside a kernel)."""
    return folder.is_dir() and (any(folder.glob("*.py")) or any(folder.glob("*/*.py")))


def folder_files(path: Path) -> list[tuple[str, int]]:
    """The files a kernel file names in its own folder, with the line of each: a string in its code (not a
    docstring) that is the name of a file beside it (``"bias_gelu.cpp"``, ``os.path.join(here, "gelu.cu")``,
    ``"csrc/gelu.cu"``), or of a folder beside it joined to more (``Path(__file__).parent / "csrc" / "gelu.cu"``) or
    named after a folder computed at run time (``f"{this_dir}/configs"``).
    A workspace copies only kernel.py and reference.py, and a tuning candidate loads from a folder of its own, so
    such a kernel could not find them there (a C++ source given to ``torch.utils.cpp_extension.load``).
    kernel.py and reference.py themselves are in both. Parses, imports nothing; ``[]`` when the file does not
    parse (the form's check says so)."""
    try:
        tree = pyparse.parse(read_python(path), filename=str(path))
    except (SyntaxError, InputFileError, ValueError):
        return []
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    joined = {
        id(part)
        for node in ast.walk(tree)
        for part in (
            [node.left, node.right]
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
            else node.args
            if isinstance(node, ast.Call) and _called_name(node.func) == "join"
            else []
        )
    }
    tails = _after_a_folder(tree)
    out: dict[str, int] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in docstrings:
            continue
        name = node.value.strip()
        if id(node) in tails:  # "/gelu.cu" after a folder computed at run time: a name in that folder
            name = name.lstrip("/")
        elif (spliced := _SPLICED_FOLDER.match(name)) is not None:  # "%s/gelu.cu", "{}/gelu.cu"
            name = spliced.group(1)
        if not name or "\n" in name or name.strip("./") == "" or Path(name).is_absolute():
            continue
        if name in ("kernel.py", "reference.py", path.name):
            continue
        try:
            where = path.parent / name
            # a folder beside it, joined to more (``/``, ``os.path.join``) or after a folder computed at run time
            # (AITER's ``os.path.abspath(f"{this_dir}/configs")``, its JSON files read below it: breaker22's p2)
            beside = where.is_file() or ((id(node) in joined or id(node) in tails) and where.is_dir())
        except (OSError, ValueError):  # a name too long, a NUL: no file of the folder
            continue
        if beside:
            out.setdefault(name, node.lineno)
    return sorted(out.items(), key=lambda item: item[1])


_SPLICED_FOLDER = re.compile(r"^(?:%s|\{[^{}]*\})/([^%{}]+)$")
"""A format string that names a file in a folder spliced in (``"%s/gelu.cu" % here``, ``"{}/gelu.cu".format(here)``):
the file's name."""


def _after_a_folder(tree: ast.AST) -> set[int]:
    """The string constants that follow a value computed at run time in a path built by hand: the right of
    ``os.path.dirname(__file__) + "/gelu.cu"``, the part after the leading field of ``f"{here}/gelu.cu"`` (break19's
    b27: these escaped :func:`folder_files`, a leading ``/`` read as an absolute path)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and not isinstance(node.left, ast.Constant):
            out.add(id(node.right))
        elif (
            isinstance(node, ast.JoinedStr) and len(node.values) > 1 and isinstance(node.values[0], ast.FormattedValue)
        ):
            out.add(id(node.values[1]))  # f"{here}/gelu.cu": the part after the folder
    return out


def _called_name(func: ast.expr) -> str | None:
    """The name a call calls: ``join`` of ``os.path.join(...)`` and of ``join(...)``."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def detect_framework(path: Path) -> Framework:
    """``triton``, ``cuda`` (inline CUDA through torch extensions / cupy), or ``torch``, from imports.

    Raises:
        InputFileError: the file is not text in the encoding it declares (:func:`kernelopt.fileio.decode_python`).
    """
    return framework_of(read_python(path))


#: What makes a kernel.py CUDA code: a ``__global__`` kernel, cupy, a torch extension given CUDA sources
#: (``load_inline(cuda_sources=...)``, a ``.cu`` / ``.cuh`` file, ``CUDAExtension``), or a Python DSL or binding
#: that launches on an NVIDIA GPU alone, by its import: CuTe DSL and CUTLASS Python (``cutlass``), numba's CUDA
#: target (``numba.cuda``, ``from numba import cuda``), cuda-python (``cuda.core``, ``cuda.bindings``, ``from cuda
#: import ...``) and PyCUDA (newuser18's n110: a CuTe DSL kernel's card said ``framework: torch`` and ``--device cpu``
#: ran it into "No module named 'cutlass'"). An extension of C++ alone (``load_inline(cpp_sources=...,
#: functions=...)``) runs on torch's CPU tensors: the CPU path times it.
_CUDA_CODE = re.compile(
    r"__global__|\bcupy\b|\bcuda_sources\b|\bCUDAExtension\b|\.cuh?[\"']"
    r"|^[ \t]*(?:import|from)[ \t]+(?:cutlass|numba\.cuda|cuda|pycuda)\b"
    r"|^[ \t]*from[ \t]+numba[ \t]+import[ \t]+(?:[\w,\s(]*[\s,(])?cuda\b",
    re.MULTILINE,
)


def framework_of(text: str) -> Framework:
    """:func:`detect_framework` of a kernel.py's text already read (a session's, whatever the file holds now)."""
    if "import triton" in text or "from triton" in text:
        return Framework.TRITON
    if _CUDA_CODE.search(text):
        return Framework.CUDA
    return Framework.TORCH


#: Torch code that builds a kernel of its own all the same: an extension compiled from C++ (``load_inline``,
#: ``cpp_extension``) or a Helion kernel (``@helion.kernel``, which generates Triton).
_OWN_KERNEL = re.compile(r"\bload_inline\b|\bcpp_extension\b|^[ \t]*(?:import|from)[ \t]+helion\b", re.MULTILINE)


_TORCH = re.compile(r"^[ \t]*(?:import|from)[ \t]+torch\b", re.MULTILINE)


def plain_torch_note(source: str) -> str | None:
    """What ``tune`` and the rules loop can do with a kernel.py of PyTorch calls alone (a ``ModelNew`` of
    ``torch.addmm`` and ``F.gelu``): it launches no kernel of its own, so it has no launch configuration, and the one
    knob it can have is a constant marked tunable. ``None`` for any other file (Triton, CUDA, an extension, an entry
    imported from elsewhere). Before, both said "no launch literal, autotune config or ..." in Triton's words, to a
    user who wrote none of them (newuser20 n150)."""
    if framework_of(source) is not Framework.TORCH or not _TORCH.search(source):
        return None
    if _OWN_KERNEL.search(source) or entry_imported(source):
        return None
    return (
        "kernel.py is PyTorch calls with no kernel launch of its own (no Triton or CUDA kernel), so it has no launch "
        "configuration to tune; a constant of it marked `# kernelopt: tunable values=A,B` (a chunk size, a "
        "torch.compile mode) is searched, and a kernel of its own (Triton, CUDA) is a code change"
    )


def runs_in_interpreter(kernel_py: Path, device: str | None) -> bool:
    """True when ``kernel_py`` runs in Triton's interpreter: a Triton kernel (by its imports) on the CPU."""
    on_cpu = device is not None and Device.of(device) is Device.CPU
    return on_cpu and kernel_py.is_file() and detect_framework(kernel_py) is Framework.TRITON


def shapes_fault(shapes: object) -> str | None:
    """Why reference.py's ``SHAPES`` names no case, in one line (what to write instead); ``None`` when it is a
    non-empty list of dicts or absent (``None``). An empty one would fall back to ``get_inputs()``'s defaults,
    often the GPU-sized problem, without a word; a dict was read as its keys and an int failed in the worker."""
    if shapes is None:
        return None
    if not isinstance(shapes, list | tuple) or not all(isinstance(s, dict) for s in shapes):
        kind = _shapes_kind(shapes)
        return f"SHAPES must be a list of dicts (keyword arguments of get_inputs), one per case, not {kind}"
    if not shapes:
        return (
            "SHAPES is empty: give it one dict of get_inputs() keyword arguments per case, or remove it to run "
            "get_inputs() with its defaults"
        )
    return None


def input_list(inputs: object) -> list[Any]:
    """What ``get_inputs()`` returned, as the list of inputs ``reference(*inputs)`` and ``run(*inputs)`` are called
    with: a list, a tuple or another iterable of them.

    A dict, one tensor (or array) and a string are refused: ``list()`` of them is their keys, their rows or their
    characters, and every later line blamed the reference for it (newuser18's n114: ``return {"x": x, "scale": 0.5}``
    for a ``run(x, *, scale)`` said "the reference raised TypeError: reference() takes 1 positional argument but 2
    were given", and ``init`` "no floating-point tensor"). The inputs themselves are as built: kernelopt's own probes
    build them on the meta device (``harness.infer``, ``tuning.far_footprint``); where they are built to be checked and
    timed, :func:`unreadable_input` refuses a tensor with no data the harness can read (``harness.inputs.make_inputs``).

    Raises:
        TypeError: one line that says what it returned and what to return instead (raised inside the call that
            builds the inputs, so it is reference.py's fault wherever it is said).
    """
    if isinstance(inputs, Mapping):
        keys = ", ".join(str(k) for k in list(inputs)[:4]) + (", ..." if len(inputs) > 4 else "")
        raise TypeError(
            f"get_inputs() returned a dict (keys {keys}): return the inputs as a list, in the order reference() and "
            "run() take them positionally (a keyword-only argument keeps its default; give it a default in both, "
            "or make it positional)"
        )
    if hasattr(inputs, "shape") and hasattr(inputs, "dtype"):
        raise TypeError(
            f"get_inputs() returned one {type(inputs).__name__}, not a list of inputs: each of its rows would be an "
            "input of its own; return [x]"
        )
    if isinstance(inputs, str | bytes) or not isinstance(inputs, Iterable):
        raise TypeError(f"get_inputs() returned {type(inputs).__name__}, not a list of inputs; return [x, ...]")
    return list(inputs)


def unreadable_input(value: object, at: str, *, meta_device: bool = False) -> str | None:
    """Why a tensor ``get_inputs()`` returned at ``at`` (``input 1``; inside a list or dict of inputs ``input 0[2]``)
    cannot be checked or timed, in one line that names it and says what to return instead; ``None`` for every other
    value (a dense tensor with data, a number, an object the problem's code alone reads). The harness moves each
    tensor to the device, fingerprints it and compares it, all on dense (strided) tensors with data: a meta tensor
    has none ("Cannot copy out of meta tensor"), and a sparse, MKL-DNN or nested one has no ``any`` or
    ``contiguous`` there; each raised in kernelopt's own code, and the line read "a bug in kernelopt" for the user's
    value (leftovers28 l180). Asked where inputs are built to be checked and timed
    (:func:`~kernelopt.harness.inputs.make_inputs`), never of kernelopt's own meta probes. Duck-typed: torch is not
    imported here. ``meta_device``: the inputs are asked of the meta device itself (a test's stand-in for a device),
    where a meta tensor is the device's own; a sparse or nested one is refused there too (wrongkernel32, v192: the
    meta device skipped the whole rule)."""
    if isinstance(value, list | tuple):
        inner = (unreadable_input(v, f"{at}[{j}]", meta_device=meta_device) for j, v in enumerate(value))
    elif isinstance(value, Mapping):
        inner = (unreadable_input(v, f"{at}[{k!r}]", meta_device=meta_device) for k, v in value.items())
    else:
        inner = iter(())
    found = next((why for why in inner if why is not None), None)
    if found is not None or not all(hasattr(value, a) for a in ("is_meta", "is_nested", "layout", "dtype")):
        return found
    said = f"get_inputs() returned {{kind}} tensor as {at} ({value.dtype}{{shape}})"  # type: ignore[attr-defined]
    if value.is_nested:  # type: ignore[attr-defined]
        return (
            said.format(kind="a nested", shape="")
            + ": the harness checks and times dense tensors; return its parts (x.unbind()) or a padded tensor "
            "(x.to_padded_tensor(0.0)), and nest them inside run() and reference() if they need it"
        )
    shape = f" {list(value.shape)}"  # type: ignore[attr-defined]
    if value.is_meta and not meta_device:  # type: ignore[attr-defined]
        return said.format(kind="a meta", shape=shape) + (
            ': it holds no data to check or time; make it on a real device (no device="meta")'
        )
    layout = str(value.layout).removeprefix("torch.").lstrip("_")  # type: ignore[attr-defined]
    if layout != "strided":
        return said.format(kind=f"a {layout}", shape=shape) + (
            f": the harness checks and times dense (strided) tensors; return x.to_dense(), and make it {layout} "
            "inside run() and reference() if they need it"
        )
    return None


OPAQUE_ENTRY_HINT = (
    'name each value by numbers or a string (rows=4, cols=40; dtype="float16") and build the object in get_inputs '
    "(getattr(torch, dtype)); validate and optimize's gate take the entry as it is"
)
""":func:`opaque_entry`'s hint, what to write instead."""


def _int_tuple(value: object) -> bool:
    """A tuple (or list) of integers (``"shape": (4, 1000)``): handed to a bench worker as itself."""
    return isinstance(value, tuple | list) and all(is_int(v) for v in value)


def opaque_entry(shapes: Sequence[Mapping[Any, Any]]) -> str | None:
    """Why a tuning session cannot run reference.py's ``SHAPES`` (a list of dicts), in one line: an entry holds a
    value other than a number, a bool, a string or a tuple of integers (``(4, 0.5)``, ``torch.float16``), which its
    bench workers cannot be handed (they take each entry as numbers and strings, and crashed on it: "ValidationError
    ... ProblemShape"); ``None`` when every value is one (``(4, 40)`` since net11: the net moves its numbers). The
    gate's workers index the entries of the module they import, so ``validate`` and ``optimize``'s gate take any
    value."""
    for i, entry in enumerate(shapes):
        for key, value in entry.items():
            if not isinstance(key, str) or not (isinstance(value, int | float | bool | str) or _int_tuple(value)):
                kind = f"{type(value).__module__}.{type(value).__name__}".removeprefix("builtins.")
                return (
                    f"SHAPES[{i}] holds {key}={value!r} ({kind}): a tuning session hands each SHAPES entry to its "
                    "bench workers as numbers, strings and tuples of integers, so it cannot run this one"
                )
    return None


def _shapes_kind(shapes: object) -> str:
    if isinstance(shapes, list | tuple):
        wrong = next(s for s in shapes if not isinstance(s, dict))
        return f"{type(shapes).__name__} of {type(wrong).__name__} ({wrong!r:.40})"
    return f"{type(shapes).__name__} ({shapes!r:.40})"


def shape_size(shape: Mapping[str, Any]) -> float:
    """How large a ``SHAPES`` entry is: the product of its numbers, each counted as at least 1; infinite for
    an entry with no number (``get_inputs()``'s defaults: its size is not known, so it is never the small one)."""
    flat = [w for v in shape.values() for w in (v if isinstance(v, tuple | list) else (v,))]  # (4, 1000): its numbers
    numbers = [max(float(v), 1.0) for v in flat if is_number(v)]
    return math.prod(numbers) if numbers else math.inf


def smallest_shape_index(shapes: Sequence[Mapping[str, Any]]) -> int:
    """The position of the smallest ``SHAPES`` entry (:func:`shape_size`; the first of equals)."""
    return min(range(len(shapes)), key=lambda i: (shape_size(shapes[i]), i))


def timed_shape_index(shapes: Sequence[Mapping[str, Any]], *, interpreted: bool) -> int:
    """Which ``SHAPES`` entry is timed: the first (the main shape), except for a Triton kernel run by
    Triton's interpreter on the CPU (``interpreted``): the smallest. The interpreter runs one program at a
    time, and a main shape sized for a GPU (256 MiB and more) would take hours there. 0 when there is at
    most one entry."""
    return smallest_shape_index(shapes) if interpreted and len(shapes) > 1 else 0


INTERPRETER_MAX_SIZE = 2**22
"""Our choice: the largest ``SHAPES`` entry (:func:`shape_size`, the product of its numbers) Triton's interpreter
is given for a check; 4,194,304, a 2048 x 2048 matrix, runs in about a second on one core. An entry sized for a
GPU (32768 x 4096, 256 MiB and more) would take it minutes to hours."""
INTERPRETER_MAX_SIZE_TEXT = f"2**{INTERPRETER_MAX_SIZE.bit_length() - 1}"
""":data:`INTERPRETER_MAX_SIZE` as the messages write it."""


def interpreted_cases(shapes: Sequence[Mapping[str, Any]]) -> list[int]:
    """The ``SHAPES`` entries a Triton kernel is run on in Triton's interpreter: those of at most
    :data:`INTERPRETER_MAX_SIZE`, else the smallest one."""
    kept = [i for i, shape in enumerate(shapes) if shape_size(shape) <= INTERPRETER_MAX_SIZE]
    return kept or ([smallest_shape_index(shapes)] if shapes else [])


#: Calls that seed a random generator of their own (torch, numpy, random).
OWN_SEEDING = ("manual_seed", "seed", "default_rng", "RandomState")


def seeds_its_own_inputs(reference_py: Path) -> bool:
    """``get_inputs`` takes no ``seed`` argument and seeds a generator of its own (``torch.Generator().manual_seed(0)``,
    ``torch.manual_seed``, ``np.random.seed``, ...): then every correctness seed gets the same values, and the gate
    permutes the floating-point inputs of seeds 1+ along their first dimension
    (:func:`kernelopt.harness.inputs.rerandomize`), which may break a structure the kernel relies on (sorted
    boundaries). Read statically (a file that does not parse, or has no ``get_inputs``: ``False``)."""
    try:
        tree = pyparse.parse(read_python(reference_py))
    except (OSError, SyntaxError, InputFileError, ValueError):
        return False
    fn = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == "get_inputs"),
        None,
    )
    if fn is None:
        return False
    params = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
    if any(p.arg == "seed" for p in params) or fn.args.kwarg is not None:
        return False
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in OWN_SEEDING:
                return True
    return False


def triton_dots(kernel_py: Path) -> list[ast.Call]:
    """The ``tl.dot`` (``triton.language.dot``) calls of ``kernel_py``; none when it cannot be read."""
    try:
        tree = pyparse.parse(read_python(kernel_py))
    except (OSError, SyntaxError, InputFileError, ValueError):
        return []
    out: list[ast.Call] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _is_tl_dot(node):
            out.append(node)
    return out


def dots_default_precision(kernel_py: Path) -> bool:
    """Whether a ``tl.dot`` of ``kernel_py`` leaves ``input_precision`` (or the older ``allow_tf32``) to Triton's
    default, which multiplies fp32 operands in TF32 on NVIDIA GPUs: ten mantissa bits, so its fp32 results differ
    from an fp32 reference by about 1e-3 relative (a GEMM whose reference checks at 1e-3 fails as written)."""
    return any(
        not any(k.arg in ("input_precision", "allow_tf32") for k in node.keywords) for node in triton_dots(kernel_py)
    )


def dot_operand_casts(kernel_py: Path) -> list[str]:
    """The ``tl`` dtypes (``"float32"``, ``"float16"``, ...) a ``tl.dot`` of ``kernel_py`` is given its operands in,
    read where the text says: an operand cast at the call (``a.to(tl.float32)``, ``tl.cast(a, tl.float32)``), or a
    name the kernel assigns from such a cast (``w = (code.to(tl.float32) - zero) * scale``); every cast in the
    expression counts. An operand read otherwise (a load, a cast to ``C.dtype.element_ty``) says nothing; none when
    the file cannot be read. breaker29's int4_mm loads uint8 codes and float16 activations and multiplies both in
    float32: the reference's tensors (mostly int8) undercount what the dot stages (docs/faults.md, l200)."""
    try:
        tree = pyparse.parse(read_python(kernel_py))
    except (OSError, SyntaxError, InputFileError, ValueError):
        return []
    out: list[str] = []
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        assigned: dict[str, list[ast.expr]] = {}
        for node in ast.walk(func):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        assigned.setdefault(target.id, []).append(node.value)
        for node in ast.walk(func):
            if not (isinstance(node, ast.Call) and _is_tl_dot(node)):
                continue
            operands = list(node.args[:2]) + [k.value for k in node.keywords if k.arg in ("input", "other", "a", "b")]
            for operand in operands:
                exprs = assigned.get(operand.id, []) if isinstance(operand, ast.Name) else [operand]
                for expr in exprs:
                    out.extend(_tl_casts(expr))
    return out


def _is_tl_dot(node: ast.Call) -> bool:
    func = node.func  # tl.dot, triton.language.dot
    of = func.value if isinstance(func, ast.Attribute) and func.attr == "dot" else None
    return (isinstance(of, ast.Name) and of.id == "tl") or (isinstance(of, ast.Attribute) and of.attr == "language")


def _tl_casts(expr: ast.expr) -> list[str]:
    """The ``tl.<dtype>`` names ``expr`` casts to: ``x.to(tl.float32)``, ``x.to(dtype=tl.float32)``,
    ``tl.cast(x, tl.float32)``."""
    out: list[str] = []
    for node in ast.walk(expr):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        func = node.func
        if func.attr == "to":
            given = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "dtype")]
        elif func.attr == "cast" and isinstance(func.value, ast.Name) and func.value.id == "tl":
            given = [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "dtype")]
        else:
            continue
        for value in given:
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "tl":
                out.append(value.attr)
    return out
