"""newuser18: a new user's first hour on a fresh clone, eighteenth trial (docs/faults.md, "newuser18").

Each case is a fault the user met with kernels that are not one Triton launch: a CUDA extension and a CuTe DSL
kernel in plain folders, a Triton kernel under an autotune list of 24 configs, replayed on the CPU with the real
files and the real commands (tests/data/newuser18)."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "newuser18"


@pytest.mark.parametrize("kernel", ["cu", "cute"])
@pytest.mark.parametrize("command", ["optimize", "tune"])
def test_n109_n110_a_gpu_only_kernel_in_a_plain_folder_is_refused_on_the_cpu_before_anything_runs(
    kernel: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n109: the user's add as a CUDA extension (`load_inline(cuda_sources=...)`) in a folder of kernel.py and
    reference.py, no task card: `kernelopt optimize cu --device cpu` made a workspace and V0's gate failed "loading:
    kernel.py raised OSError: CUDA_HOME environment variable is not set" (the refusal read the folder's task card
    alone, and a plain folder has none). n110: the same add in CuTe DSL (`import cutlass.cute as cute`) was `framework:
    torch` on the card `init` wrote, and `--device cpu` ran it into "No module named 'cutlass'". Now both are CUDA
    kernels, refused in one line before a workspace or a session is made."""
    from kernelopt.cli.app import main

    folder = Path(shutil.copytree(DATA / kernel, tmp_path / kernel))
    root = tmp_path / "root"
    root.mkdir()
    args = ["--root", str(root)] if command == "optimize" else []
    assert main([command, str(folder), "--device", "cpu", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kernelopt: error: --device cpu cannot run this cuda kernel: it launches on a GPU driver;")
    assert err.count("\n") == 1
    assert list(root.iterdir()) == [] and sorted(p.name for p in folder.iterdir()) == ["kernel.py", "reference.py"]


def test_n110_python_dsls_that_launch_on_an_nvidia_gpu_alone_are_cuda_and_torch_s_own_cuda_is_not(
    tmp_path: Path,
) -> None:
    """n110: the task card's framework, read from kernel.py's imports: CuTe DSL and CUTLASS Python, numba's CUDA target,
    cuda-python and PyCUDA launch on an NVIDIA GPU alone; `torch.cuda`, a module whose name begins with cuda and a
    comment naming one are no such import. `init` writes the word into the card."""
    from kernelopt.kernelsource import Framework, framework_of
    from kernelopt.workspace import Workspace

    cuda = [
        "import cutlass\nimport cutlass.cute as cute\n",
        "from cutlass.cute.runtime import from_dlpack\n",
        "from numba import cuda\n",
        "from numba import (njit,\n    cuda)\n",
        "import numba.cuda\n",
        "from cuda.core import Device, Program\n",
        "from cuda import cuda, nvrtc\n",
        "    from cuda.bindings import driver\n",
        "import pycuda.autoinit\n",
    ]
    torch = [
        "import torch\nok = torch.cuda.is_available()\n",
        "from torch import cuda\n",
        "import cuda_helpers\n",
        "from numba import njit\n",
        "# import cutlass once it is installed\nimport torch\n",
    ]
    assert [framework_of(t) for t in cuda] == [Framework.CUDA] * len(cuda)
    assert [framework_of(t) for t in torch] == [Framework.TORCH] * len(torch)
    root = tmp_path / "root"
    root.mkdir()
    ws = Workspace.create(
        "cute", kernel=DATA / "cute" / "kernel.py", reference=DATA / "cute" / "reference.py", root=root
    )
    assert "framework: cuda" in (ws.root / "README.md").read_text()


@pytest.fixture(scope="module")
def at_prepared(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The user's autotuned scale (24 configs, six BLOCKs times four num_warps, keyed by n) prepared for a session
    on the CPU, once for the file: discovery imports kernel.py in a worker (its list is built by a helper), no
    candidate runs."""
    from kernelopt.tuning import folder as tf

    folder = Path(shutil.copytree(DATA / "at", tmp_path_factory.mktemp("newuser18") / "at"))
    return tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))


def test_n111_n112_n113_an_autotuned_kernel_s_table_lines_and_plot_say_what_was_checked_and_where(
    at_prepared: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's `@triton.autotune(configs=_configs(), key=["n"])` of 24 configs, tuned on the CPU (`kernelopt tune at
    --device cpu`), a per-bucket table of BLOCK 4096 and 8192 written.

    n111: the net's line said "correct at n=16385, n=10008, n=2049, n=65, n=16383, n=16385, n=10008, ...": each row of
    the table is netted alone at the same sizes, and the line said every size twice, no row named. Now each row's
    sizes are said under it. n112: the verdict judged the table against "its autotuner's pick of its 6 configs at
    each key", where the user wrote 24 (the interpreter ignores num_warps, so six are distinct there). n113: the
    session's search.png, its latencies the interpreter's milliseconds, was titled "at: scale_kernel.configs (local)",
    nothing of where it was timed (the report's roofline figure says so since n98)."""
    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.net import NetVerdict, SizeCheck, SizeClass
    from kernelopt.tuning.problem import ProblemShape
    from tests.test_wrongkernel19_cases import _keyed_table_session

    prepared = at_prepared
    listed = tf.list_configs(prepared)  # type: ignore[arg-type]
    assert [c.as_dict() for c in listed] == [{"BLOCK": b} for b in (64, 128, 256, 512, 1024, 2048)]
    assert tf._list_count(prepared, len(listed)) == (  # type: ignore[arg-type]
        "its 24 configs, 6 distinct on the CPU, where Triton's interpreter ignores num_warps and num_stages,"
    )
    assert tf._list_count(None, 6) == "its 6 configs"

    # n111: a table of two rows, each netted alone (the net's runs stood in for: each row passes at two sizes)
    tuning = _keyed_table_session(
        prepared,
        [({"BLOCK": 2048}, (10.0, 20.0)), ({"BLOCK": 4096}, (5.0, 30.0)), ({"BLOCK": 8192}, (12.0, 9.0))],
    )
    rows = tf._keyed_table_rows(tuning)
    assert rows == [{"BLOCK": 4096}, {"BLOCK": 8192}], rows
    edit, _ = tf.shaped_edit(tuning)
    assert edit is not None
    sizes = [ProblemShape(kwargs={"n": n}) for n in (16385, 65)]
    netted = NetVerdict(checks=[SizeCheck(kind=SizeClass.PAST, shape=s, passed=True) for s in sizes], seconds=0.1)
    monkeypatch.setattr(tf, "_cast_net", lambda *_, **__: netted)
    done = tf._keyed_rows_checked(tuning, None, edit, None, rows, {}, None, None)  # type: ignore[arg-type]
    net = done[2]
    assert net is not None and done[0] is edit
    assert net.line() == (
        "checked at sizes the SHAPES entries do not name (0.2 s): each row of the table alone: BLOCK=4096 correct at "
        "n=16385, n=65; BLOCK=8192 correct at n=16385, n=65"
    )
    assert netted.line() == "checked at sizes the SHAPES entries do not name (0.1 s): correct at n=16385, n=65"

    # n113: the plot's title says where the bench worker timed the candidates
    worker = SimpleNamespace(ready=SimpleNamespace(device_name="cpu"))
    assert tf._timed_on(prepared, worker) == "cpu (Triton's interpreter)"  # type: ignore[arg-type]
    titles: list[str] = []

    def drawn(points: object, *, title: str, **_: object) -> bytes:
        titles.append(title)
        return b"png"

    monkeypatch.setattr("kernelopt.report.search_plot.search_plot", drawn)
    from kernelopt.cli.tune import _draw

    assert _draw(replace(tuning, timed_on=tf._timed_on(prepared, worker)), None) is not None  # type: ignore[arg-type]
    assert titles == ["at: scale_kernel.configs (exhaustive)\ntimed on cpu (Triton's interpreter)"]


def test_n113_the_report_s_session_plot_title_names_where_its_candidates_were_timed(tmp_path: Path) -> None:
    """n113 in the report: a version's search plot (`report --markdown`'s `r.v1.search.png`) said "loopsrc V1: tuning
    session, 9 candidates, 2 SHAPES entries", its latencies the CPU's. Now the title names the device its gate timed
    on (the interpreter for a Triton kernel on the CPU), as the roofline figure does."""
    from kernelopt.report import collect
    from kernelopt.report.sessions import session_title
    from tests.test_report_render import build_report_workspace

    ws = build_report_workspace(tmp_path / "ws")
    record = ws.memory.read(1)
    record.performance.gpu = "cpu"
    ws.memory.write(record)
    data = collect(ws)
    assert data.framework == "triton"
    v0, v1 = data.versions[0], data.versions[1]
    assert session_title(data, v0) == "softmax V0: tuning session, 0 candidates, timed on NVIDIA H200"
    assert session_title(data, v1) == "softmax V1: tuning session, 0 candidates, timed on cpu (Triton's interpreter)"
    data = data.model_copy(update={"framework": "torch"})
    assert session_title(data, v1) == "softmax V1: tuning session, 0 candidates, timed on cpu"


@pytest.mark.parametrize(
    ("returned", "said"),
    [
        (
            lambda n=8: {"x": torch.randn(n), "scale": 0.5},
            "get_inputs() returned a dict (keys x, scale): return the inputs as a list, in the order reference() and "
            "run() take them positionally",
        ),
        (
            lambda n=8: torch.randn(n),
            "get_inputs() returned one Tensor, not a list of inputs: each of its rows would be an input of its own; "
            "return [x]",
        ),
        (lambda n=8: "x", "get_inputs() returned str, not a list of inputs; return [x, ...]"),
    ],
    ids=["dict", "tensor", "str"],
)
def test_n114_get_inputs_returning_a_dict_or_one_tensor_is_said_as_such_not_as_the_reference_s_arguments(
    returned: object, said: str, tmp_path: Path
) -> None:
    """The user's `run(x, *, scale=1.0)`, its keyword given by `get_inputs` as `return {"x": x, "scale": 0.5}`: `init`
    said "dtype: not inferred (reference.py's inputs and outputs hold no floating-point tensor)" and `validate` "the
    reference raised TypeError: reference() takes 1 positional argument but 2 were given" (the dict was taken as
    its keys, the strings "x" and "scale"); `return torch.randn(n)` made 1024 inputs of its rows, "takes 1
    positional argument but 1024 were given". Now the inputs' builders (the gate's, the tuning engine's, the probe's,
    the profiler driver's) say what get_inputs returned and what to return; a list, a tuple and a generator are the
    inputs as before."""
    from kernelopt.harness.inputs import make_inputs
    from kernelopt.harness.loader import load_pair
    from kernelopt.kernelsource import input_list

    with pytest.raises(TypeError) as caught:
        make_inputs(returned, {"n": 8}, "cpu", 0)  # type: ignore[arg-type]
    assert str(caught.value).startswith(said)
    x = torch.randn(3)
    assert input_list([x, 2]) == [x, 2] and input_list((x,)) == [x] and input_list(t for t in (x,)) == [x]

    folder = tmp_path / "kwd"
    folder.mkdir()
    (folder / "kernel.py").write_text("def run(x, *, scale=1.0):\n    return x * scale\n")
    (folder / "reference.py").write_text(
        "import torch\n\n\ndef get_inputs(n=8):\n    return {'x': torch.randn(n), 'scale': 0.5}\n\n\n"
        "def reference(x, *, scale=1.0):\n    return x * scale\n"
    )
    pair = load_pair(folder / "kernel.py", folder / "reference.py")
    with pytest.raises(TypeError, match=r"^get_inputs\(\) returned a dict \(keys x, scale\)"):
        pair.build_inputs({})


def test_n115_n116_a_string_constant_marked_tunable_is_searched_over_its_marker_s_values_or_refused(
    tmp_path: Path,
) -> None:
    """The user's SwiGLU through `torch.compile(_swiglu, mode=MODE)`, `MODE = "default"  # kernelopt: tunable
    values=default,max-autotune-no-cudagraphs` (docs/backends.md gives `values=` as the marker's option): `tune mode
    --device cpu` searched "MODE: one of ['default']" (the space took the marker's integers alone), timed the one
    configuration 8 s and said "the current configuration is the best found (57.35 us)". n115: the marker's values,
    strings among them, are the knob's domain (`tune` then wrote `MODE = "max-autotune-no-cudagraphs"`, 1.02x, on the
    CPU). n116: a space that holds the current configuration alone (the marker without values) is refused before a
    session, in one line that says where the values go, as a space the problem pins is."""
    from kernelopt.tuning import folder as tf

    folder = Path(shutil.copytree(DATA / "mode", tmp_path / "mode"))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    assert [(k.name, list(k.values)) for k in prepared.space.knobs] == [
        ("MODE", ["default", "max-autotune-no-cudagraphs"])
    ]
    assert prepared.space.size.count == 2
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text().replace(" values=default,max-autotune-no-cudagraphs", ""))
    with pytest.raises(tf.NothingToTune) as caught:
        tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    assert caught.value.one_line() == (
        "MODE: the space holds the current configuration alone (MODE=default), so there is nothing to tune; kernel.py "
        "unchanged; a marked constant's values to try go in its marker (# kernelopt: tunable values=A,B)"
    )


class _TwoEntries:
    """A recorded sweep (rmsnorm_bf16 on an H200) timed as if on two SHAPES entries: each result's latency is the sum
    of its two entries', as a session over several entries sums them."""

    def __init__(self, sweep: object, clock: object) -> None:
        from kernelopt.tuning.replay import ReplayEvaluator

        self.inner = ReplayEvaluator(sweep, clock)  # type: ignore[arg-type]

    def _two(self, results: list[object]) -> list[object]:
        out = []
        for r in results:
            lat = r.latency_us  # type: ignore[attr-defined]
            by = {"T=2,D=1030": lat / 4, "T=64,D=4096": 3 * lat / 4} if lat is not None else {}
            out.append(r.model_copy(update={"latency_us_by_shape": by, "recorded": False}))  # type: ignore[attr-defined]
        return out

    def evaluate(self, batch: list[object]) -> list[object]:
        return self._two(self.inner.evaluate(batch))  # type: ignore[arg-type]

    def retime(self, batch: list[object]) -> list[object]:
        return self._two(self.inner.retime(batch))  # type: ignore[arg-type]

    def close(self) -> None:
        pass


def test_n117_a_session_s_progress_line_says_its_best_sums_its_shapes() -> None:
    """The user's two-launch softmax in the loop (`optimize two2 --device cpu`, two SHAPES entries): "[0:02:10] V1
    implement best 121200 us (n/a of roofline) | V1 tuning: 4 of 5 candidates, best 282500 us (BLOCK_N=256)", the
    header V0's latency on its first entry, the note the session's sum over both: read together, a session 2.3x slower
    than V0. Now the session's one progress line (the loop's note, `tune` off a terminal, the MCP tool's) says a sum
    is one: "best 282500 us for its 2 shapes together (BLOCK_N=256)"; one entry's line is as before."""
    from kernelopt.tuning.budget import Budget, ManualClock
    from kernelopt.tuning.record import read_sweeps
    from kernelopt.tuning.replay import space_from_sweep
    from kernelopt.tuning.session import Progress, tune

    [sweep] = read_sweeps(ROOT / "docs" / "gpu-runs" / "2026-12-01-sweeps" / "rmsnorm_bf16.json")
    space, clock = space_from_sweep(sweep), ManualClock()
    lines: list[str] = []
    tune(
        space,
        _TwoEntries(sweep, clock),  # type: ignore[arg-type]
        budget=Budget(8, clock, 600.0),
        rng_seed=7,
        on_progress=lambda p: lines.append(p.line()),
    )
    timed = [line for line in lines if "best" in line and "none timed" not in line]
    assert timed and all(
        re.match(r"\d+ of 8 candidates, first-round best \S+ us for its 2 shapes together \(", t) for t in timed
    )
    one = Progress(candidates=4, budget=7, evaluations=4, best_latency_us=490700.0, best_config={"B": 1}, batch=())
    assert one.line() == "4 of 7 candidates, first-round best 490700 us (B=1)"


def test_n118_a_kernel_writing_an_out_buffer_its_reference_leaves_alone_is_told_both_ways_out() -> None:
    """The user's `run(x, out)`, `torch.mul(x, 2.0, out=out)`, beside a reference returning `x * 2.0`: "kernel
    modified input 1 in place (1024 of 1024 elements changed); inputs must be left untouched". Not so: an input the
    reference writes may be written (docs/harness.md, the in-place rule), and the user's same kernel passed once the
    reference wrote `out` too. Now the line says the reference leaves it alone and both ways out; the same rule as the
    gate's, run here on the user's two functions."""
    from kernelopt.harness.inplace import InPlaceContract, InputCopy, input_fault, modified_inputs

    def run(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        torch.mul(x, 2.0, out=out)
        return out

    def reference(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        return x * 2.0

    def fault(ref: object) -> str | None:
        inputs = [torch.randn(1024), torch.zeros(1024)]
        ref_inputs = [t.clone() for t in inputs]
        ref(*ref_inputs)  # type: ignore[operator]
        contract = InPlaceContract(left=modified_inputs(inputs, ref_inputs))
        before = InputCopy.of(inputs)
        run(*inputs)
        found = input_fault(before, inputs, contract, dtype_hint=None, atol=None, rtol=None)
        return found.message if found is not None else None

    assert fault(reference) == (
        "kernel modified input 1 in place (1024 of 1024 elements changed), which the reference leaves as it was: leave "
        "it so, or, for an output buffer passed in (out=), have the reference write it too"
    )
    assert fault(run) is None  # the reference writing `out` as the kernel does: the user's kernel passes


def test_n119_tune_writes_its_candidates_as_a_table_a_spreadsheet_or_pandas_opens(
    at_prepared: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user wanted the session of the 24-config scale in a spreadsheet, as `report --csv` gives the loop's
    versions (newuser17's n103): `tune` wrote `record.jsonl` (each candidate a nested object with its 20 raw samples)
    and `search.png` alone. Now it writes `candidates.csv` beside the plot: one row a candidate in the order evaluated,
    a column a knob, each SHAPES entry's latency, the re-timed latency the pick was made on, served and cut said; the
    session's last line and `--json` (`table`) name it."""
    import csv

    from kernelopt.backends.session_files import write_table
    from kernelopt.cli.tune import _render
    from kernelopt.tuning.candidate import Outcome
    from tests.test_wrongkernel19_cases import _keyed_table_session

    prepared = at_prepared
    tuning = _keyed_table_session(
        prepared,
        [({"BLOCK": 2048}, (10.0, 20.0)), ({"BLOCK": 4096}, (5.0, 30.0)), ({"BLOCK": 8192}, (12.0, 9.0))],
    )
    r = tuning.result
    cut = r.results[2].model_copy(update={"retimed": False, "cut_slow": True, "reason": "cut: a lower bound"})
    failed = r.results[0].model_copy(
        update={"config": {"BLOCK": 16}, "outcome": Outcome.WRONG_RESULT, "latency_us": None,
                "latency_us_by_shape": {}, "reason": "=HYPERLINK(...)"}
    )  # fmt: skip
    tuning = replace(tuning, result=r.model_copy(update={"results": [*r.results[:2], cut, failed]}))
    prepared.session_dir.mkdir(parents=True, exist_ok=True)
    path = write_table(tuning)
    rows = list(csv.DictReader(path.read_text().splitlines()))
    assert path.name == "candidates.csv" and list(rows[0]) == [
        "evaluation", "BLOCK", "outcome", "latency_us", "latency_us n=4096", "latency_us n=10000",
        "retimed_latency_us", "from_record", "cut_lower_bound", "reason",
    ]  # fmt: skip
    assert [(x["evaluation"], x["BLOCK"], x["outcome"], x["latency_us"]) for x in rows] == [
        ("1", "2048", "ok", "30.0"), ("2", "4096", "ok", "35.0"), ("3", "8192", "ok", "21.0"),
        ("4", "16", "wrong_result", ""),
    ]  # fmt: skip
    assert (rows[1]["latency_us n=4096"], rows[1]["retimed_latency_us"]) == ("5.0", "35.0")
    assert (rows[2]["cut_lower_bound"], rows[2]["retimed_latency_us"]) == ("True", "21.0")
    assert rows[3]["reason"] == "'=HYPERLINK(...)"  # a spreadsheet would run it: written as text
    _render(tuning, "", written=False, dry_run=True, plot=None, table_path=path)
    assert capsys.readouterr().out.rstrip().endswith(f"; table: {path}")


def _gpu_folder(tmp_path: Path, name: str, shapes: str) -> Path:
    """The user's folder ``name`` with its reference building its inputs on the device it is given, at ``shapes``
    (GPU sizes: 256 MiB to 1 GiB a tensor)."""
    folder = Path(shutil.copytree(DATA / name, tmp_path / name))
    ref = folder / "reference.py"
    text = ref.read_text()
    text = re.sub(r"^SHAPES = .*$", f"SHAPES = {shapes}", text, flags=re.MULTILINE)
    text = re.sub(r"def get_inputs\(([^)]*)\):", r"def get_inputs(\1, device='cpu'):", text)
    text = text.replace("torch.randn(n)]", "torch.randn(n, device=device)]").replace(
        "torch.randn(m, 2 * d)]", "torch.randn(m, 2 * d, device=device)]"
    )
    assert "device=device" in text, text
    ref.write_text(text)
    return folder


def _tuned_on_gpu(folder: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[dict[str, Any], str]:
    """``kernelopt tune FOLDER --device cuda --json ARGS``: its JSON and its stderr, kept under $OUT when set."""
    import json
    import os

    from kernelopt.cli.app import main

    code = main(["tune", str(folder), "--device", "cuda", "--json", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err[-3000:]
    out = json.loads(captured.out)
    if os.environ.get("OUT"):
        keep = Path(os.environ["OUT"]) / f"newuser18_{folder.name}"
        keep.mkdir(parents=True, exist_ok=True)
        (keep / "tune.json").write_text(captured.out)
        (keep / "stderr.txt").write_text(captured.err)
        for made in (out.get("table"), out.get("plot")):
            if made:
                shutil.copy(made, keep)
        shutil.copy(folder / "kernel.py", keep / "kernel_after.py")
    return out, captured.err


@pytest.mark.gpu
@pytest.mark.timeout(420)
def test_n111_n112_n113_n117_n119_on_a_gpu_the_autotuned_scale_s_session_says_where_what_and_sums(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On an NVIDIA GPU, where the session searches num_warps: `tune --device cuda` (a 120 s wall) on the user's
    24-config scale at 256 MiB a tensor (n = 2**26 and 2**26 + 4099). The JSON names the GPU the bench worker timed on
    (n113's `timed_on`, the plot's title), the progress lines off a terminal say the best sums the two entries (n117),
    the verdict never counts 6 configs of 24 (n112), `candidates.csv` holds a row for each candidate with its BLOCK and
    num_warps (n119), and the kernel.py it leaves is right at sizes no entry names."""
    import csv

    import torch

    from tests.gpu_correct import correct_on_device

    folder = _gpu_folder(tmp_path, "at", "[dict(n=1 << 26), dict(n=(1 << 26) + 4099)]")
    out, err = _tuned_on_gpu(folder, capsys, "--budget-wall-s", "120")
    assert str(out["timed_on"]).startswith("NVIDIA"), out["timed_on"]
    assert re.search(r"tuning: \d+ of \d+ candidates, first-round best \S+ us for its 2 shapes together \(", err), err[
        -2000:
    ]
    assert "its 6 configs" not in out["verdict"], out["verdict"]
    if "autotuner's pick of its" in out["verdict"]:
        assert "its 24 configs" in out["verdict"], out["verdict"]
    rows = list(csv.DictReader(Path(out["table"]).read_text().splitlines()))
    assert len(rows) == out["evaluations"] + out["served"], (len(rows), out["evaluations"], out["served"])
    assert {"BLOCK", "num_warps", "latency_us n=67108864"} <= set(rows[0]), list(rows[0])
    sizes = [{"n": 65}, {"n": 4097}, {"n": (1 << 20) + 1}, {"n": 12345679}]
    got = correct_on_device(folder, sizes, lambda r: bool(torch.allclose(r.got, r.want)))
    assert all(v is True for v in got.values()), got


@pytest.mark.gpu
@pytest.mark.timeout(500)
def test_n115_on_a_gpu_a_torch_compile_mode_marked_tunable_is_searched_and_each_mode_timed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On an NVIDIA GPU: `tune --device cuda` on the user's SwiGLU through `torch.compile(mode=MODE)`, `MODE =
    "default"  # kernelopt: tunable values=default,max-autotune-no-cudagraphs`, at 16384 x 16384 fp32 in (1 GiB) and
    16384 x 8192 out: both modes compiled (their compiles paused off the case clock, newuser16's n100) and timed,
    none failing; the pick is one of the two."""
    folder = _gpu_folder(tmp_path, "mode", "[dict(m=16384, d=8192)]")
    out, _ = _tuned_on_gpu(folder, capsys, "--budget-wall-s", "240", "--candidate-timeout-s", "300")
    assert out["knobs"] == {"MODE": ["default", "max-autotune-no-cudagraphs"]}, out["knobs"]
    assert out["outcomes"] == {"ok": 2}, out["outcomes"]
    assert out["best_config"]["MODE"] in ("default", "max-autotune-no-cudagraphs")
    assert str(out["timed_on"]).startswith("NVIDIA"), out["timed_on"]


@pytest.mark.parametrize(
    ("kernel", "beside", "said"),
    [
        ("from lib.act import fused_gelu\n", {"lib/act.py": ""}, "imports lib.act from its own folder"),
        ("from lib import act\nfused_gelu = act.fused_gelu\n", {"lib/act.py": ""}, "imports lib from its own folder"),
        ("import lib.act as act\nfused_gelu = act.fused_gelu\n", {"lib/act/x.py": ""}, "imports lib.act from its own"),
    ],
    ids=["from_module", "from_package", "import_subpackage"],
)
def test_n120_a_helper_in_a_folder_without_init_py_is_refused_as_a_module_beside_kernel_py_is(
    kernel: str, beside: dict[str, str], said: str, tmp_path: Path
) -> None:
    """The user's kernel with its helper in a folder beside it, `lib/act.py` (no `__init__.py`: Python 3 imports such
    a folder as a namespace package), `from lib.act import fused_gelu`: `init` said "created", and V0's gate failed
    "loading: kernel.py raised ModuleNotFoundError: No module named 'lib'" (`tune` said "no tunable knob"); a module
    beside kernel.py, or a package with `__init__.py`, was refused in one line (folder_imports). Now such a folder is
    too; a folder of that name holding no Python file, or named as an installed package (which Python imports
    first), is not the kernel's."""
    from kernelopt.errors import InputFileError
    from kernelopt.workspace import Workspace

    folder = tmp_path / "task"
    for name, text in beside.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    (folder / "kernel.py").write_text(f"import torch\n{kernel}\n\ndef run(x):\n    return fused_gelu(x)\n")
    shutil.copy(DATA / "cu" / "reference.py", folder / "reference.py")
    root = tmp_path / "root"
    root.mkdir()
    with pytest.raises(InputFileError, match=re.escape(said)):
        Workspace.create("x", kernel=folder / "kernel.py", reference=folder / "reference.py", root=root)
    assert list(root.iterdir()) == []
    for made in beside:
        (folder / made).unlink()
    (folder / "lib" / "notes.txt").write_text("")  # a folder named lib with no Python in it: `lib` is another's
    (folder / "torch").mkdir()  # a project's folder of scripts named as an installed package: `import torch` is torch
    (folder / "torch" / "ops.py").write_text("")
    Workspace.create("y", kernel=folder / "kernel.py", reference=folder / "reference.py", root=root)


def test_n121_a_batch_on_the_cpu_lists_a_cuda_kernel_as_invalid_not_as_a_failed_kernel(tmp_path: Path) -> None:
    """`kernelopt batch bcu --device cpu` of the user's folder (the CUDA extension `cu`, the CuTe DSL `cute`, and a
    problem that runs): `cu`'s row was FAIL, "correctness: loading: kernel.py raised OSError: CUDA_HOME environment
    variable is not set", a kernel counted wrong for the machine it was given (n109's refusal is optimize's and
    tune's). Now a batch on the CPU lists it INVALID with the line they refuse it with; on a GPU it runs; `cute`'s
    row says what it says already (cutlass not installed here)."""
    from kernelopt.batch.rows import BatchOptions
    from kernelopt.batch.runner import prepare

    batch = tmp_path / "bcu"
    for name in ("cu", "cute", "at"):
        shutil.copytree(DATA / name, batch / name)
    _, items = prepare(batch, BatchOptions(out_dir=tmp_path / "out", device="cpu"), fresh=True)
    said = {item.problem: item.defect for item in items}
    assert said["cu"] == "--device cpu cannot run this cuda kernel: it launches on a GPU driver"
    assert said["at"] is None and said["cute"] is not None
    _, items = prepare(batch, BatchOptions(out_dir=tmp_path / "out2", device="cuda"), fresh=True)
    assert {item.problem: item.defect for item in items}["cu"] is None


def test_n122_a_kernel_output_on_the_meta_device_is_said_by_its_device_not_a_worker_crash() -> None:
    """The user's kernel that returned `(x * 2).to("meta")` (a tensor with no data, as `torch.empty(...,
    device="meta")` makes by mistake): `validate --device cpu` said "the worker exited with code 1 without a result:
    RuntimeError: Tensor.item() cannot be called on meta tensors": the checksum the gate takes of each output before
    comparing it (`harness.inplace.fingerprint`, the cached-result check) summed its bytes. Now a meta tensor's
    checksum is its size alone, and the output check says "output is on meta; the reference's is on cpu" (the gate's
    line, as the user's rerun showed)."""
    from kernelopt.harness.compare import check_outputs
    from kernelopt.harness.inplace import fingerprint

    want = torch.randn(1024) * 2
    got = want.to("meta")
    assert fingerprint([got]) == [(4096, 0, 0)]
    assert fingerprint([want])[0][0] == 4096
    chk = check_outputs(got, want, want, dtype_hint=None, atol=None, rtol=None, device_type="cpu")
    assert chk.message == "output is on meta; the reference's is on cpu"


def test_n123_tune_off_a_terminal_says_the_wall_its_seconds_run_against(capsys: pytest.CaptureFixture[str]) -> None:
    """The user's 24-config scale tuned with its output to a log (`tune at --device cpu --budget-wall-s 120 > log`):
    "tuning: 4 of 10 candidates, best 5303 us (BLOCK=2048), 7 s in", and nothing of how long the work may take (the
    header's "120 s" was many lines up; a session of the default budget may take 600 s). Now each line says the wall
    its seconds run against: "..., 7 s in of its 120 s wall"; a bar made without one is as before."""
    from kernelopt.cli.tune import _Bar
    from kernelopt.tuning.session import Progress

    best = Progress(
        candidates=4, budget=10, evaluations=4, best_latency_us=5303.0, best_config={"BLOCK": 2048}, batch=()
    )
    with _Bar(10, 120.0) as bar:
        bar.update(best)
    with _Bar(10) as bar:
        bar.update(best)
    first, second = capsys.readouterr().err.splitlines()
    assert re.fullmatch(
        r"tuning: 4 of 10 candidates, first-round best 5303 us \(BLOCK=2048\), \d+ s in of its 120 s wall", first
    )
    assert re.fullmatch(r"tuning: 4 of 10 candidates, first-round best 5303 us \(BLOCK=2048\), \d+ s in", second)


def test_n124_a_keyed_table_written_on_the_cpu_says_the_launch_options_no_timing_chose(at_prepared: Any) -> None:
    """The 24-config scale's table written on the CPU: `triton.Config({"BLOCK": 4096}, num_warps=1, num_stages=1)`
    and the same for 8192, where the author's list gave each tile four num_warps for a GPU's autotuner to choose
    from; the verdict said only "a per-bucket table as the autotuner keeps one ...". The interpreter ignores num_warps,
    so no timing chose the 1 (the entry its autotuner picked here gave it). Now the note says which options each row
    keeps and that a GPU session chooses them."""
    from kernelopt.tuning import folder as tf
    from tests.test_wrongkernel19_cases import _keyed_table_session

    prepared = at_prepared
    tuning = _keyed_table_session(
        prepared,
        [({"BLOCK": 2048}, (10.0, 20.0)), ({"BLOCK": 4096}, (5.0, 30.0)), ({"BLOCK": 8192}, (12.0, 9.0))],
    )
    edit, note = tf.shaped_edit(tuning)
    assert edit is not None and edit.new_source is not None and note is not None
    assert 'triton.Config({"BLOCK": 4096}, num_warps=1, num_stages=1)' in edit.new_source
    assert note.endswith(
        "; the list varies num_warps [1, 2, 4, 8], which Triton's interpreter ignores: each row keeps one (BLOCK=4096: "
        "num_warps=1; BLOCK=8192: num_warps=1) that no timing chose; a session on a GPU chooses them"
    ), note


def test_z41_each_loop_version_s_session_table_survives_the_next_version_s_session(at_prepared: Any) -> None:
    """late26 z41 (fresh21's seen item): `optimize`'s V1 and V2 tune one kernel.py in one session folder, and V2's
    session rewrote the `candidates.csv` V1's progress line named (V1's measured table left in `record.jsonl`
    alone). Now the loop's table is named for its version: V2 writes `candidates_v2.csv` beside V1's, each line names
    its own, and `kernelopt tune` keeps `candidates.csv`."""
    import csv

    from kernelopt.backends.launch_tuning import _table
    from tests.test_wrongkernel19_cases import _keyed_table_session

    prepared = at_prepared
    prepared.session_dir.mkdir(parents=True, exist_ok=True)
    v1 = _keyed_table_session(prepared, [({"BLOCK": 2048}, (10.0, 20.0)), ({"BLOCK": 4096}, (5.0, 30.0))])
    v2 = _keyed_table_session(prepared, [({"BLOCK": 4096}, (5.0, 30.0)), ({"BLOCK": 8192}, (12.0, 9.0))])
    lines: list[str] = []
    _table(v1, "v1", lines.append)
    _table(v2, "v2", lines.append)
    first, second = prepared.session_dir / "candidates_v1.csv", prepared.session_dir / "candidates_v2.csv"
    assert lines == [f"tuning: the session's candidates as a table: {p}" for p in (first, second)]
    blocks = {p.name: [r["BLOCK"] for r in csv.DictReader(p.read_text().splitlines())] for p in (first, second)}
    assert blocks == {"candidates_v1.csv": ["2048", "4096"], "candidates_v2.csv": ["4096", "8192"]}
