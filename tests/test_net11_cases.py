"""net11: the net's leftovers (docs/faults.md, "net11"; :mod:`kernelopt.tuning.net`).

Which ``SHAPES`` keys are sizes is read from ``get_inputs`` (:mod:`kernelopt.harness.sizekeys`), a string key and
module-level sizes move too, the net's time has a cap, and a size is built in a request of its own so that a hang is
pinned on reference.py or on the kernel. The real-engine cases run grid_named_copy (v23, ``BLOCK=128`` wrong above
128 elements, its rule switched off) in the session's own workers under Triton's interpreter.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness.sizekeys import KeyReading, KeyRole, key_roles
from kernelopt.tunables.guard import Guarded
from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.net import NET_FLOOR_S, NetCap, cast, derived_sizes
from kernelopt.tuning.problem import ProblemShape
from tests.test_break11_cases import ACT_REFERENCE, ACT_RUN

VARIANTS = Path(__file__).parent / "data" / "variants"


def _roles(source: str) -> dict[str, tuple[str, str | None]]:
    return {k: (r.role.value, r.why) for k, r in key_roles(source).items()}


def test_a_key_is_a_size_by_its_use_in_get_inputs_not_by_its_value() -> None:
    """Seeds, exponents, divisors, multipliers and codes are read as such, whatever their value; a size handed to a
    helper of the module is followed, one handed to another module's function is not read."""
    assert _roles("def get_inputs(n=100, seed=42):\n    torch.manual_seed(seed)\n    return [torch.randn(n)]\n") == {
        "n": ("size", None),
        "seed": ("kept", "a seed"),
    }
    exponent = "def get_inputs(log_n=17, device='cpu'):\n    n = 1 << log_n\n    return [torch.randn(n, device=device)]"
    assert _roles(exponent)["log_n"] == ("exponent", "a dimension is a power of it")
    heads = "def get_inputs(B=2, S=64, hidden=512, heads=16):\n    return [torch.randn(B, heads, S, hidden // heads)]\n"
    assert _roles(heads) == {
        "B": ("size", None),
        "S": ("size", None),
        "hidden": ("size", None),
        "heads": ("kept", "divides a dimension"),
    }
    mult = "def get_inputs(n_rows=4, n_cols=100, k=3, act=12):\n    return [torch.randn(n_rows, n_cols) * k, act]\n"
    assert _roles(mult)["k"] == ("kept", "no tensor dimension in get_inputs")
    assert _roles(mult)["act"] == ("passed", "handed to run() as a plain value")  # wrongkernel17's v65
    # a size that also seeds the generator is a size (breaker9's kv_indices: manual_seed(B * 1000 + L))
    seeded = "def get_inputs(B=5, L=13):\n    g = torch.Generator().manual_seed(B * 1000 + L)\n    return [torch.randn(B, L)]"
    assert _roles(seeded) == {"B": ("size", None), "L": ("size", None)}
    text = "def get_inputs(shape='4x1000'):\n    rows, cols = map(int, shape.split('x'))\n    return [torch.randn(rows, cols)]"
    assert _roles(text) == {"shape": ("size", None)}
    helper = "def _make(m, k):\n    return torch.empty((m, k))\n\ndef get_inputs(M=4, K=64, G=4):\n    return [_make(M, K * G)]"
    assert _roles(helper) == {"M": ("size", None), "K": ("size", None), "G": ("size", None)}
    grouped = "def get_inputs(M=96, N=32):\n    out = []\n    for m, n in [(M, N), (2 * M, N)]:\n        out.append(torch.randn(m, n))\n    return out"
    assert _roles(grouped) == {"M": ("size", None), "N": ("size", None)}
    assert _roles("from helpers import make\n\ndef get_inputs(n=100):\n    return make(n)\n") == {
        "n": ("unknown", None)
    }
    # a count of a sequence made a tensor, a slice's bound: dimensions (breaker11's moe_align: randperm(E)[:TOPK]);
    # a 0-d tensor's value is handed to run() (its BLOCK_SIZE_M, the output's format): moved, kept last
    listed = (
        "def get_inputs(b=4, d=64, n=9):\n    return [torch.stack([torch.randn(d) for _ in range(b)]), torch.tensor(n)]"
    )
    assert _roles(listed) == {
        "b": ("size", None),
        "d": ("size", None),
        "n": ("passed", "handed to run() as a plain value"),  # wrongkernel17: a block may cover it there
    }
    sliced = "def get_inputs(E=4, K=2, T=9):\n    return [torch.tensor([list(range(0, T, 2))]), torch.randperm(E)[:K]]"
    assert _roles(sliced) == {"E": ("size", None), "K": ("size", None), "T": ("size", None)}
    assert _roles("def get_inputs(n=1000, block=128):\n    return [torch.zeros(triton.cdiv(n, block))]")["block"] == (
        "kept",
        "divides a dimension",
    )
    assert key_roles("x = (") == {} and key_roles("SHAPES = []") == {}


def _labels(entries: list[dict[str, Any]], **kw: Any) -> list[tuple[str, list[str]]]:
    return [
        (s.kind.value, [t.label() for t in s.tries])
        for s in derived_sizes([ProblemShape(kwargs=e) for e in entries], **kw)
    ]


def test_keys_that_are_not_sizes_stay_an_exponent_moves_by_one_and_strings_and_module_sizes_move() -> None:
    size, kept = KeyReading(KeyRole.SIZE), KeyReading(KeyRole.KEPT, "a seed")
    # before net11 seed=42 moved to 65 and 43 with the sizes; a code of 10 to 17 (the original refuses it: skipped)
    assert _labels([{"n": 100, "seed": 42}, {"n": 60, "seed": 42}], roles={"n": size, "seed": kept}) == [
        ("past", ["n=129,seed=42"]),
        ("half", ["n=102,seed=42"]),
        ("below", ["n=31,seed=42", "n=30,seed=42"]),  # netgaps11: a size below the smallest entry
    ]
    # an exponent: 2 ** 18, twice the largest entry, not 2 ** 33 (which the host check refused: nothing checked)
    exponent = {"log_n": KeyReading(KeyRole.EXPONENT, "a dimension is a power of it")}
    # the power size (wrongkernel13): four times the largest entry, 2 ** 19; twice is the past size's
    assert _labels([{"log_n": 17}, {"log_n": 12}], roles=exponent) == [("past", ["log_n=18"]), ("power", ["log_n=19"])]
    # a string key that is a size moves each of its numbers; one not read as a size stays
    assert _labels([{"shape": "4x1000"}, {"shape": "8x512"}], roles={"shape": size}) == [
        ("past", ["shape=9x1025", "shape=8x1025"]),
        ("half", ["shape=10x1004", "shape=8x1004"]),
        ("below", ["shape=3x257", "shape=2x256"]),
        ("below_one", ["shape=3x1000", "shape=2x1000"]),  # net12: one dimension below, the rest at their largest
        ("below_one", ["shape=8x257", "shape=8x256"]),
        ("power", ["shape=32x1000", "shape=16x1000"]),  # a small dimension, cast where odd sizes are refused (v61)
    ]
    assert _labels([{"shape": "4x1000"}, {"shape": "8x512"}]) == []
    assert _labels([{"shape": "4x1000"}, {"shape": "8,512"}], roles={"shape": size}) == []  # two forms: not moved
    # a tuple of integers (tune took none before net11): each of its numbers, as an integer key's
    assert _labels([{"shape": (4, 25)}, {"shape": (4, 32)}]) == [
        ("past", ["shape=(5, 33)", "shape=(4, 33)"]),
        ("half", ["shape=(6, 32)"]),
    ]
    assert _labels([{"shape": (4, 25)}, {"shape": (4, 32, 2)}]) == []  # of other lengths: not moved
    # no SHAPES key: the module-level sizes move (a KernelBench problem's, a tuple's numbers one by one)
    assert _labels([{}], constants={"batch_size": 16, "input_shape": (4, 1000)}) == [
        ("past", ["batch_size=17,input_shape=(5, 1025)", "batch_size=17,input_shape=(4, 1025)"]),  # 4 <= SMALL_KEY
        ("half", ["batch_size=24,input_shape=(6, 1004)", "batch_size=24,input_shape=(4, 1004)"]),
    ]
    assert _labels([{"n": 100}], constants={"batch_size": 16}) == [("past", ["n=129"]), ("half", ["n=102"])]


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_net_s_time_is_capped_and_a_try_started_ends_with_the_original_s_verdict() -> None:
    """grouped_gemm's 23-64 s (each size run whole by both kernels, the original failing too) is bounded: no try
    starts past the cap, nor one the longest request says would end past it; the line names what was not run.
    A try whose written kernel failed runs the original past the cap: never a wrong kernel for want of it."""
    clock = _Clock()
    sizes = derived_sizes([ProblemShape(kwargs={"M": 32, "K": 32}), ProblemShape(kwargs={"M": 96, "K": 64})])
    ran: list[tuple[str, str]] = []

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        ran.append((source, shape.label()))
        clock.now += 16.0  # a grouped GEMM in the interpreter, loaded
        return Outcome.WRONG_RESULT, "output 0 contains NaN where the reference has none"

    cap = NetCap.of(1.0, clock())
    assert cap.seconds == NET_FLOOR_S and NetCap.of(400.0, 0.0).seconds == 100.0
    verdict = cast(sizes, "original", "written", check_at, cap=cap, clock=clock)
    assert ran == [("written", "M=129,K=65"), ("original", "M=129,K=65")]  # the original ran past the cap: 32 s
    assert [c.passed for c in verdict.checks] == [None, None, None] and verdict.failed is None  # K's power size too
    assert "M=112,K=80: not run, it would end past the net's time cap of 30 s (the larger of 30 s and 25% of the " in (
        verdict.line()
    )
    # the cap is one for every pick the net checks: a second pick starts with the cap spent
    ran.clear()
    assert [c.passed for c in cast(sizes, "original", "other", check_at, cap=cap, clock=clock).checks] == [None] * 3
    assert ran == []


def test_a_size_is_built_in_a_request_of_its_own_so_a_hang_names_reference_py_or_the_kernel() -> None:
    """break11 x3 left "the written kernel, or reference.py building the size": one request built the size and ran
    the kernel. Now reference.py builds it first: its hang or refusal is its own (no kernel runs there), and a
    timeout after the build is the kernel's."""
    sizes = derived_sizes([ProblemShape(kwargs={"n": 3000}), ProblemShape(kwargs={"n": 1000})])
    ran: list[str] = []

    def built(outcome: Outcome, reason: str | None) -> Any:
        def build_at(shape: ProblemShape) -> tuple[Outcome, str | None]:
            ran.append(f"build {shape.label()}")
            return outcome, reason

        return build_at

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        ran.append(f"{source} {shape.label()}")
        return Outcome.RUN_TIMEOUT, "checking: no reply within 60 s"

    hang = cast(sizes, "original", "written", check_at, build_at=built(Outcome.RUN_TIMEOUT, "building: 60 s"))
    assert ran == ["build n=4097", "build n=3004"]  # one limit a size, no kernel run
    assert "n=4097: reference.py did not build it within the limit: building: 60 s" in hang.line()
    ran.clear()
    refused = cast(sizes, "original", "written", check_at, build_at=built(Outcome.RUN_ERROR, "reference.py cannot"))
    assert ran == ["build n=4097", "build n=3004"] and "n=4097: reference.py cannot" in refused.line()
    ran.clear()
    slow = cast(sizes, "original", "written", check_at, build_at=built(Outcome.OK, None))
    assert ran == ["build n=4097", "written n=4097", "build n=3004", "written n=3004"]
    assert "n=4097: no reply within the limit (the written kernel): checking: no reply within 60 s" in slow.line()


def _code_ten(text: str) -> str:
    """break11's activation-code case (x1) with a code of 10 or 20 for 1 or 2: above ``SMALL_KEY``, so no try of
    the value rule kept it."""
    return text.replace("(1, 2)", "(10, 20)").replace('"act": 2', '"act": 10').replace("act=2", "act=10")


CODE_RUN, CODE_REFERENCE = _code_ten(ACT_RUN), _code_ten(ACT_REFERENCE)
MODULE_RUN = "".join((VARIANTS / "grid_named_copy" / "kernel.py").read_text().partition("\ndef run(")[1:])
"""grid_named_copy's own run(), unchanged."""

MODULE_REFERENCE = """import torch

N = 128
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(device="cpu"):
    return [torch.randn(N, device=device)]


def reference(x):
    return x * 2.0
"""


TUPLE_REFERENCE = """import torch

SHAPES = [{"shape": (4, 25)}, {"shape": (4, 32)}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(shape=(4, 50), device="cpu"):
    return [torch.randn(*shape, device=device)]


def reference(x):
    return x * 2.0
"""


def _wrong_pick(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: str, reference: str) -> Any:
    from tests.test_break11_cases import _wrong_pick_checked

    return _wrong_pick_checked(tmp_path, monkeypatch, run, reference)


@pytest.mark.timeout(120)
def test_a_code_key_above_8_stays_put_and_the_net_catches_the_wrong_pick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ``act`` of 10 that run() asserts is 10 or 20: the net moved it to 17 (above SMALL_KEY, so no try kept it),
    the original refused every try, and v23's wrong ``BLOCK=128`` was written. get_inputs hands it to run() as a plain
    value: moved first (wrongkernel17's v65), then kept at its largest in a size's last try, and the net finds the
    pick wrong at n=129."""
    done = _wrong_pick(tmp_path, monkeypatch, CODE_RUN, CODE_REFERENCE)
    assert done.edit is None and done.edit_note is not None, done.edit_note
    assert done.edit_note.startswith("the written kernel fails at n=129,act=10 (one past the power of two"), (
        done.edit_note
    )


@pytest.mark.timeout(120)
def test_a_problem_without_shapes_keys_is_netted_at_its_module_level_sizes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No SHAPES, ``N = 128`` at module level (as KernelBench problems declare their sizes): the net said "no integer
    size to move" and v23's wrong ``BLOCK=128`` was written. Now N moves (129), substituted as reference.py runs."""
    done = _wrong_pick(tmp_path, monkeypatch, MODULE_RUN, MODULE_REFERENCE)
    assert done.edit is None and done.edit_note is not None, done.edit_note
    assert done.edit_note.startswith("the written kernel fails at N=129 (one past the power of two"), done.edit_note


@pytest.mark.timeout(120)
def test_a_tuple_shapes_entry_is_tuned_and_netted_at_each_of_its_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``SHAPES = [{"shape": (4, 25)}, {"shape": (4, 32)}]``: tune refused the tuple ("SHAPES[0] holds shape=(4, 25)
    (tuple): a tuning session hands each SHAPES entry to its bench workers as numbers and strings"); now it is handed
    on as itself and the net moves its numbers: v23's wrong ``BLOCK=128`` (128 elements at most) fails at 5 x 33."""
    done = _wrong_pick(tmp_path, monkeypatch, MODULE_RUN, TUPLE_REFERENCE)
    assert done.edit is None and done.edit_note is not None, done.edit_note
    assert done.edit_note.startswith("the written kernel fails at shape=(5, 33) (one past the power"), done.edit_note


# ------------------------------------------------------------------------------------------------ on a GPU


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_the_net_moves_module_level_sizes_and_keeps_a_code_key_at_realistic_sizes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a GPU, compiled: grid_named_copy (v23, its rule switched off) with a module-level ``N = 2**20`` and no
    SHAPES (one entry, the session's own: the plain ``BLOCK=128`` is not checked there again and reaches the net),
    and with SHAPES of 100 and 128 elements beside an ``act`` code of 10. The net fails ``BLOCK=128`` at 2**20 + 1
    elements (N moved) and at 129 (n moved; act kept), where the original passes, and the next-best ``BLOCK=512``
    (its programs overlap: correct everywhere) passes there and is written instead. (On 2026-12-06 the code case had
    SHAPES of 2**19 and 2**20: ``BLOCK=128``, wrong above 128 elements, failed the edit's own check at the entries
    before the net ran, so that case proved nothing about the net; docs/gpu-runs/2026-12-06-h100-e.)"""
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setattr(tf, "guard_edit", lambda old, new: Guarded(new_source=new, note=None))
    module = MODULE_REFERENCE.replace("N = 128", "N = 1 << 20")
    for name, run, reference, where in (
        ("module", MODULE_RUN, module, "N=1048577"),
        ("code", CODE_RUN, CODE_REFERENCE, "n=129,act=10"),
    ):
        folder = Path(shutil.copytree(VARIANTS / "grid_named_copy", tmp_path / name))
        kernel = (folder / "kernel.py").read_text()
        (folder / "kernel.py").write_text(kernel[: kernel.index("\ndef run(")] + run)
        (folder / "reference.py").write_text(reference)
        prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cuda"))
        with _evaluator(prepared) as evaluator:
            picks = [({"BLOCK": 128}, 10.0), ({"BLOCK": 512}, 11.0)]
            done = tf._checked_edit(_session(prepared, picks, ({"BLOCK": 256}, 20.0)), evaluator)
        assert done.edit is not None and done.result.best_config == {"BLOCK": 512}, (name, done.edit_note)
        assert done.edit_note is not None and done.edit_note.startswith(f"the written kernel fails at {where} ("), (
            done.edit_note
        )
        assert done.net is not None and done.net.failed is None and where in done.net.line(), done.net.line()


def test_an_fp8_output_s_fence_falls_back_to_nan_and_an_empty_tensor_is_not_fenced() -> None:
    """breaker11's fp8_block_gemm: since the net fences a tensor's ``new_empty`` (newuser9 n47), Triton's interpreter
    staging each argument in ``arg.new_empty(0)`` got a fence of -1234.5 in float8_e4m3fn (at most 448): "value
    cannot be converted to type c10::Float8_e4m3fn without overflow", the original failed at every size and the net
    checked nothing there. Now an empty tensor is not fenced and a fill the dtype cannot hold falls back to NaN."""
    import torch

    from kernelopt.harness.fences import OUTPUT_FILL, fenced_outputs, padded, trespassed

    fences: list[Any] = []
    x = padded(torch.ones(4).to(torch.float8_e4m3fn), fences, OUTPUT_FILL)
    assert x.dtype == torch.float8_e4m3fn and torch.equal(x.float(), torch.ones(4)) and not trespassed(fences)
    with fenced_outputs(fences, OUTPUT_FILL):
        staged = x.new_empty(0, device="cpu")
        out = x.new_empty(3, dtype=torch.float8_e4m3fn)
    assert len(fences) == 2 and staged.numel() == 0 and out.numel() == 3
    out.as_strided((4,), (1,)).fill_(1.0)  # a store one past the end: into the NaN fence, seen
    assert trespassed(fences)
