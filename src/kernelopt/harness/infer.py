"""Fill in what a task card leaves out: the dtype from the reference's tensors, the GPU from the device.

- **dtype**: the floating-point dtype that holds the most elements among the reference's inputs
  (``get_inputs()``, the smallest entry of ``SHAPES``) and outputs (the reference run on PyTorch's ``meta``
  device, so nothing is computed and a large GEMM costs no time). An fp16 GEMM whose output is fp32
  is fp16: that is the data the kernel streams and the tensor-core peak that applies. A tie goes to the inputs'
  dtype: a quantizer's fp16 rows in and fp8 codes out are fp16.
- **gpu**: the name NVML gives for device 0 (no CUDA initialization, no torch).

Both run in a child process through :mod:`kernelopt.proc` with a timeout; a probe that fails leaves
the field empty with the reason, never a guess. Run as ``python -m kernelopt.harness.infer REFERENCE``
it prints one JSON object (the child side; imports torch).

Beside them, :func:`shapes_by_code`: a ``SHAPES`` reference.py builds by code, read from a child that imports it
(``python -m kernelopt.harness.infer --shapes REFERENCE CONSTANTS``, the constants as a Python literal) and
refused in one line when it names no case, before any command makes or runs anything (a literal one is read from
the text).
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernelopt import pyparse
from kernelopt.errors import InputFileError
from kernelopt.kernelsource import input_list
from kernelopt.oneline import first_line, last_line

PROBE_TIMEOUT_S = 120.0
REAL_RUN_MAX_ELEMENTS = 2**20
"""Our choice: a function-form reference whose inputs hold at most this many elements in all is run on them
as they are to see its outputs' dtypes (milliseconds); a larger one, and every ``Model``, on meta tensors
(no memory, no compute; but the first meta run imports ``torch._dynamo``, 1.5 s)."""


@dataclass
class Inferred:
    """A value the card did not give: ``value`` (or None) and where it came from (or why not)."""

    field: str
    value: str | None
    source: str
    trouble: str | None = None
    """What the probe saw go wrong besides (the reference raised on its inputs), said after the value."""

    def line(self) -> str:
        if self.value is None:
            text = f"{self.field}: not inferred ({self.source})"
        else:
            text = f"{self.field}: {self.value} (inferred from {self.source}; write it in README.md to override)"
        return f"{text}; but {self.trouble}" if self.trouble else text


def dtype_name(torch_dtype: str) -> str | None:
    """``torch.float16`` -> ``fp16``; None for a non-floating or unknown dtype."""
    from kernelopt.errors import UsageError
    from kernelopt.hardware.specs import normalize_dtype

    key = torch_dtype.removeprefix("torch.")
    if key.startswith("float8"):
        return "fp8"
    try:
        return normalize_dtype(key)
    except UsageError:
        return None


INT8 = "int8"
"""The operand dtype of an integer GEMM or quantized kernel (``torch.int8`` / ``torch.uint8`` tensors): counted by
:func:`dominant_dtype` beside the floating ones, so that vLLM's int8 ``scaled_mm`` is not called fp32 from its
scales and output (docs/faults.md, small11 s1); no task-card dtype names it (:data:`kernelopt.vocabulary.DTYPES`)."""


def dominant_dtype(counts: dict[str, int], inputs: dict[str, int] | None = None) -> str | None:
    """The dtype with the most elements (``{"torch.float16": 2 * 4096**2, ...}``, inputs and outputs); ties: the
    one holding more of the inputs' elements (``inputs``, the same form), then the narrower one. A quantizer's fp16
    rows in and fp8 codes out, one element each, are fp16: the data it loads, and the tolerance it is checked at
    (docs/faults.md, late56 l260). 8-bit integer tensors count as :data:`INT8`; other integer tensors (indices,
    counts) do not count."""
    order = (INT8, "fp8", "bf16", "fp16", "tf32", "fp32", "fp64")
    by_name, in_name = _by_name(counts), _by_name(inputs or {})
    if not by_name:
        return None
    return max(by_name, key=lambda d: (by_name[d], in_name.get(d, 0), -order.index(d) if d in order else -99))


def _by_name(counts: dict[str, int]) -> dict[str, int]:
    """Element counts by torch dtype (``"torch.float16"``) summed by card dtype name (:data:`INT8` included)."""
    by_name: dict[str, int] = {}
    for raw, n in counts.items():
        name = INT8 if raw.removeprefix("torch.") in ("int8", "uint8") else dtype_name(raw)
        if name is not None:
            by_name[name] = by_name.get(name, 0) + int(n)
    return by_name


def infer_dtype(reference_py: Path, *, device: str = "auto", timeout_s: float = PROBE_TIMEOUT_S) -> Inferred:
    """The reference's dtype (see the module docstring), from a child process: on the CPU (``device``, see
    :func:`~kernelopt.hardware.gpu.runs_on_cpu`) a child forked from this process's fork server for CPU runs,
    the one the gate's runs come from next (torch imported once), else a new interpreter. Mostly int8 tensors:
    not inferred (no card dtype names it), said so.

    Raises:
        InputFileError: the probe ran past ``timeout_s`` (reference.py hangs at import, in get_inputs, or
            in the reference itself).
    """
    data, why = _probe_data(reference_py, device=device, timeout_s=timeout_s)
    if data is None:
        return Inferred("dtype", None, f"the probe of {reference_py.name} failed: {why}")
    value = _dominant(data)
    if value is None:
        return Inferred("dtype", None, f"{reference_py.name}'s inputs and outputs hold no floating-point tensor")
    if value == INT8:
        return Inferred(
            "dtype",
            None,
            f"{reference_py.name}'s inputs and outputs are mostly int8, which no task-card dtype names "
            "(tuning sizes its tiles at 1 B an element)",
        )
    what = "inputs and outputs" if data.get("outputs_seen") else "inputs"
    raised = data.get("reference_error")
    trouble = (
        f"the reference raised {raised} on get_inputs({data.get('entry') or ''}) here: validate and optimize "
        "stop at V0 (a FAIL of reference.py) until it runs"
        if raised
        else None
    )
    return Inferred("dtype", value, f"{reference_py.name}'s {what}", trouble)


def operand_dtype(reference_py: Path, *, device: str = "auto") -> str | None:
    """What the reference's tensors mostly hold (:func:`dominant_dtype`, :data:`INT8` included): the operands a
    kernel's ``tl.dot`` multiplies when no task card names them, for the fit estimate's bytes an element and the
    TF32 line (:mod:`kernelopt.tuning.dot_precision`); ``None`` when the probe fails. One probe per file and process."""
    stat = reference_py.stat()
    key = (str(reference_py.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _OPERANDS:
        data, _ = _probe_data(reference_py, device=device, timeout_s=PROBE_TIMEOUT_S)
        _OPERANDS[key] = _dominant(data or {})
    return _OPERANDS[key]


def _dominant(data: dict[str, Any]) -> str | None:
    """:func:`dominant_dtype` of the probe's JSON object (:func:`_probe`): all its elements, ties by its inputs'."""
    counts = {str(k): int(v) for k, v in dict(data.get("elements", {})).items()}
    return dominant_dtype(counts, {str(k): int(v) for k, v in dict(data.get("input_elements", {})).items()})


_OPERANDS: dict[tuple[str, int, int], str | None] = {}
"""What :func:`operand_dtype` found, by reference.py's path, modification time and size."""


def _probe_data(reference_py: Path, *, device: str, timeout_s: float) -> tuple[dict[str, Any] | None, str]:
    """The child's JSON object (:func:`_probe`), or ``None`` and why not.

    Raises:
        InputFileError: the probe ran past ``timeout_s``.
    """
    from kernelopt.hardware.gpu import runs_on_cpu
    from kernelopt.harness.runner import worker_env
    from kernelopt.proc import run_command
    from kernelopt.worker.forkpool import run_forked

    argv = [sys.executable, "-m", "kernelopt.harness.infer", str(reference_py)]
    res = run_forked(argv, timeout_s=timeout_s, env=worker_env(device="cpu")) if runs_on_cpu(device) else None
    if res is None:
        res = run_command(argv, timeout_s=timeout_s, env=worker_env())
    if res.timed_out:
        # a reference that cannot build its inputs in this time hangs: said now, not after the gate's limits
        raise InputFileError(
            reference_py,
            f"importing it, building its smallest SHAPES entry (get_inputs) and running it once ran past "
            f"{timeout_s:g} s",
            hint="it hangs at import, in get_inputs() or in its reference; try `python -c 'import reference'` in "
            "its folder",
        )
    try:
        data = json.loads(res.stdout.strip().splitlines()[-1]) if res.ok and res.stdout.strip() else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        return None, last_line(res.stderr, 300) or f"exit {res.returncode}, no error output"
    return data, ""


_SHAPES_READ: dict[tuple[str, int, int, str], tuple[list[dict[str, Any]] | None, str | None]] = {}
"""What :func:`shapes_by_code` read, by reference.py's path, modification time, size and constants: one child per
file and process (``tune`` asks for the entries in several places)."""


def shapes_by_code(
    reference_py: Path,
    *,
    constants: Mapping[str, object] | None = None,
    device: str | None = None,
    plain: bool = False,
    timeout_s: float = PROBE_TIMEOUT_S,
) -> list[dict[str, Any]] | None:
    """The ``SHAPES`` reference.py's code builds (``[dict(n=n) for n in (...)]``, ``make_shapes()``), read from a
    child that imports it with ``constants`` set, and refused in one line when it names no case, or holds an entry
    ``get_inputs`` cannot take, by the rules a literal one meets at ``init``
    (:func:`~kernelopt.kernelsource.shapes_fault`, :func:`~kernelopt.kernelsource.entry_fault`: a code-built
    entry's wrong key reached the gate as get_inputs's TypeError, newuser21 n163), before any workspace, gate or
    bench worker uses it. On the CPU the child is forked from the fork server for CPU runs (torch imported once),
    else a new interpreter.

    Returns:
        The entries (lists of keyword arguments of ``get_inputs``); ``None`` when reference.py builds no ``SHAPES``
        by code (none, or a literal: :func:`~kernelopt.kernelsource.shapes_built_by_code`), or when the child
        could not tell: reference.py fails to import (the run that imports it says why, as it would have), or an
        entry holds a value other than a number or a string (a ``torch.dtype``: the gate's workers index the
        entries of the module they import, so ``validate`` and ``optimize``'s gate take it as it is).

    Raises:
        InputFileError: ``SHAPES`` is not a list of dicts, or is empty, or an entry is one ``get_inputs`` cannot take
            (one line, what to write instead);
            ``plain`` (a tuning session, whose bench workers take each entry as numbers and strings) and an entry
            holds another value; importing reference.py ran past ``timeout_s``.
    """
    from kernelopt.hardware.gpu import runs_on_cpu
    from kernelopt.kernelsource import OPAQUE_ENTRY_HINT, entry_fault, shapes_built_by_code
    from kernelopt.proc import run_command
    from kernelopt.worker.environment import worker_env
    from kernelopt.worker.forkpool import run_forked

    path = Path(reference_py)
    if not shapes_built_by_code(path):
        return None
    stat = path.stat()
    told = repr(dict(sorted((constants or {}).items())))  # the child reads it back with ast.literal_eval: tuples stay
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, told)
    if key not in _SHAPES_READ:
        argv = [sys.executable, "-m", "kernelopt.harness.infer", "--shapes", str(path), told]
        env = worker_env(device="cpu")
        res = run_forked(argv, timeout_s=timeout_s, env=env) if runs_on_cpu(device or "auto") else None
        if res is None:
            res = run_command(argv, timeout_s=timeout_s, env=env)
        if res.timed_out:
            raise InputFileError(
                path,
                f"importing it to read its SHAPES (built by code) ran past {timeout_s:g} s",
                hint="it hangs at import; try `python -c 'import reference'` in its folder",
            )
        try:
            data = json.loads(res.stdout.strip().splitlines()[-1]) if res.ok and res.stdout.strip() else None
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            _SHAPES_READ[key] = (data.get("shapes"), data.get("fault"), data.get("opaque"))
        else:  # reference.py does not import here: the run that imports it says why
            return None
    shapes, fault, opaque = _SHAPES_READ[key]
    if fault is not None:
        raise InputFileError(path, fault)
    if opaque is not None and plain:
        raise InputFileError(path, opaque, hint=OPAQUE_ENTRY_HINT)
    bad = entry_fault(path, shapes) if shapes else None  # as a literal entry is refused (n163)
    if bad is not None:
        raise InputFileError(path, bad[0], hint=bad[1])
    return shapes


_GPU_PROBE = """
from kernelopt.hardware.gpu import NvmlUnavailable, nvidia_gpus
try:
    gpus = nvidia_gpus()
except NvmlUnavailable as exc:
    print("|" + exc.message)
    raise SystemExit(0)
print((gpus[0].name if gpus else "") + "|" + ("" if gpus else "NVML sees no NVIDIA GPU"))
"""


def infer_gpu(device: str | None, *, timeout_s: float = 60.0) -> Inferred:
    """The GPU name of device 0 through NVML, or None with the reason (``--device cpu``: no GPU)."""
    if device == "cpu":
        return Inferred("gpu", None, "--device cpu")
    from kernelopt.harness.runner import worker_env
    from kernelopt.proc import run_command

    res = run_command([sys.executable, "-c", _GPU_PROBE], timeout_s=timeout_s, env=worker_env())
    if res.timed_out:
        return Inferred("gpu", None, f"the NVML probe ran past {timeout_s:g} s")
    name, _, why = (res.stdout.strip().splitlines() or ["|no output"])[-1].partition("|")
    if not res.ok or not name:
        return Inferred("gpu", None, why or res.stderr_tail(1).strip() or "the NVML probe failed")
    return Inferred("gpu", name, "NVML device 0")


# ------------------------------------------------------------------------------- child side (torch)


def _probe(reference_py: Path) -> dict[str, Any]:
    import torch

    from kernelopt.harness.inputs import tensors_in
    from kernelopt.harness.loader import load_module
    from kernelopt.kernelsource import smallest_shape_index

    ref = load_module(reference_py)
    shapes = getattr(ref, "SHAPES", None)
    entries = [e for e in shapes if isinstance(e, dict)] if isinstance(shapes, list | tuple) else []
    # the smallest entry: the dtype is the same at every size, and the main one may be 1 GB of host memory
    shape = entries[smallest_shape_index(entries)] if entries else {}
    torch.manual_seed(0)
    inputs = _sized_inputs(ref, shape)
    elements: dict[str, int] = {}
    for t in tensors_in(inputs):
        elements[str(t.dtype)] = elements.get(str(t.dtype), 0) + t.numel()
    input_elements = dict(elements)
    raised: list[str] = []
    out = _outputs(ref, inputs, raised)
    for t in tensors_in(out):
        elements[str(t.dtype)] = elements.get(str(t.dtype), 0) + t.numel()
    entry = ", ".join(f"{k}={v!r}" for k, v in shape.items())
    return {
        "elements": elements,
        "input_elements": input_elements,
        "outputs_seen": out is not None,
        "reference_error": next(iter(raised), None),
        "entry": entry,
    }


def _sized_inputs(ref: Any, shape: dict[str, Any]) -> list[Any]:
    """``get_inputs(**shape)`` for the probe: built for real while its factory calls stay small
    (:data:`REAL_RUN_MAX_ELEMENTS` elements of 8 bytes, :class:`~kernelopt.harness.inputs.HostBudget`), else on the
    meta device (shapes and dtypes, no memory). A full-size KernelBench problem has no ``SHAPES``: its default
    inputs are 6-16 GiB, which the probe built (and held) just to read their dtypes."""
    import torch

    from kernelopt.harness.hostmem import InputsDoNotFit
    from kernelopt.harness.inputs import HostBudget

    try:
        with HostBudget(REAL_RUN_MAX_ELEMENTS * 16, shape):
            return input_list(ref.get_inputs(**shape))
    except InputsDoNotFit:
        pass
    torch.manual_seed(0)
    try:
        with torch.device("meta"):
            return input_list(ref.get_inputs(**shape))
    except Exception:  # user code the meta device cannot run (.item(), .numpy()): built as it is
        torch.manual_seed(0)
        return input_list(ref.get_inputs(**shape))


def _outputs(ref: Any, inputs: list[Any], raised: list[str] | None = None) -> Any:
    """What the reference returns for ``inputs``: run on them as they are when it is a function and they
    are small (:data:`REAL_RUN_MAX_ELEMENTS`), else (or when that fails) on meta tensors; ``None`` when it
    cannot run either way (its inputs alone decide then). ``raised`` gets what the run on the real inputs raised
    (``RuntimeError: boom``): the gate will meet it too."""
    import torch

    from kernelopt.harness.inputs import tensors_in

    small = sum(t.numel() for t in tensors_in(inputs)) <= REAL_RUN_MAX_ELEMENTS
    if small and not hasattr(ref, "Model"):
        try:
            return ref.reference(*inputs)
        except Exception as exc:  # user code: said by the parent, then tried on meta tensors
            if raised is not None:
                raised.append(f"{type(exc).__name__}: {first_line(str(exc), 160)}".rstrip(": "))
    try:
        meta = [t.to("meta") if isinstance(t, torch.Tensor) else t for t in inputs]
        if hasattr(ref, "Model"):
            init = ref.get_init_inputs() if hasattr(ref, "get_init_inputs") else []
            with torch.device("meta"):
                model = ref.Model(*init)
            return model(*meta)
        return ref.reference(*meta)
    except Exception:
        return None


def _read_shapes(reference_py: Path, constants: dict[str, Any]) -> dict[str, Any]:
    """``SHAPES`` as reference.py's import leaves it (``constants`` set): the fault of one that names no case, and
    the entries when JSON can carry them."""
    from kernelopt.harness.loader import load_module
    from kernelopt.kernelsource import opaque_entry, shapes_fault

    shapes = getattr(load_module(reference_py, overrides=constants or None), "SHAPES", None)
    fault = shapes_fault(shapes)
    entries, opaque = None, None
    if fault is None and shapes is not None:
        opaque = opaque_entry(shapes)
        entries = None if opaque is not None else [dict(e) for e in shapes]
    return {"fault": fault, "shapes": entries, "opaque": opaque}


def main(argv: list[str]) -> int:
    """``python -m kernelopt.harness.infer REFERENCE``: print the probe's JSON object (a fork server's entry
    point too); ``--shapes REFERENCE CONSTANTS_JSON``: what reference.py's ``SHAPES`` holds once imported."""
    if argv and argv[0] == "--shapes":
        read = _read_shapes(Path(argv[1]), pyparse.literal(argv[2]) if len(argv) > 2 else {})
        sys.stdout.write("\n" + json.dumps(read) + "\n")
        return 0
    try:
        found = _probe(Path(argv[0]))
    except Exception as exc:  # reference.py's own code failed: the traceback, then its first line last
        # the parent reads the last line of stderr; a message of many lines (torch's "Overflow when unpacking
        # long long" carries a C++ backtrace) left only its closing quote there: 'the probe ... failed: "'
        traceback.print_exc()
        sys.stderr.write(f"\n{type(exc).__name__}: {first_line(str(exc), 300)}".rstrip(": ") + "\n")
        return 1
    sys.stdout.write("\n" + json.dumps(found) + "\n")  # its own line, whatever the reference printed
    return 0


if __name__ == "__main__":
    from kernelopt.proc import exit_process

    exit_process(main(sys.argv[1:]))
