"""breaker22's seen items (docs/faults.md, "breaker22's seen items (late30, 2026-12-07)"): what ``kernelopt tunables``
lists, what ``tune`` times and credits and what ``optimize`` plans must be what the task runs. Each on the trial's own
kernels (tests/data/breaker22) at their smallest sizes, in process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "breaker22"


@pytest.mark.timeout(180)
def test_z80_tunables_lists_the_dict_entry_the_task_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """breaker22 saw ``kernelopt tunables`` list the batch-invariant GEMM's ``**configs[dtype]`` tiles from the dict's
    first entry (bfloat16's, line 183: ``BLOCK_SIZE_K`` 64) where the task, and ``tune``, run float32's (32, line
    201). Given the task's folder, the listing reads the entry as ``tune`` does, from one run of the task with the
    ``reference.py`` beside it; without a run, a setting the entries differ in names each entry's value by its key."""
    from kernelopt.cli.app import main
    from kernelopt.tunables.analysis import discover_source

    text = (DATA / "mg_bi_matmul" / "kernel.py").read_text()
    unrun = {t.key: t for t in discover_source(text)}["matmul_kernel_persistent:BLOCK_SIZE_K"]
    assert not unrun.editable and (
        "(torch.bfloat16: 64, torch.float16: 64, torch.float32: 32)" in (unrun.refused_reason or "")
    ), unrun.refused_reason

    assert main(["tunables", str(DATA / "mg_bi_matmul"), "--json", "--device", "cpu"]) == 0
    out, err = capsys.readouterr()
    listed = {t["key"]: t for t in json.loads(out)}
    block_k = listed["matmul_kernel_persistent:BLOCK_SIZE_K"]
    assert (block_k["value"], block_k["location"], block_k["refused_reason"]) == (32, "kernel.py:201", None)
    assert listed["matmul_kernel_persistent:BLOCK_SIZE_M"]["location"] == "kernel.py:199"
    assert "running" in err and "reference.py once to tell it" in err


@pytest.mark.timeout(300)
def test_z81_a_launch_an_entry_never_reaches_is_timed_only_where_it_runs(tmp_path: Path) -> None:
    """breaker22 saw ``tune`` time AITER's split-K reduce kernel (launched only under ``if config["NUM_KSPLIT"] >
    1:``, which its JSON file sets at one of the three entries) at all three, and read the noise at an entry where it
    never ran as that entry's "own best", 44 % faster. No run of the task was made (its tiles are literals: nothing
    computed to read), so the engine could not tell where the launch runs. A launch under an ``if`` is one only a run
    places: the task runs once, and the entries where the reduce kernel was not launched are idle for its knobs
    (``idle_shapes``: checked there, never timed or credited)."""
    import shutil

    from kernelopt.tunables.evaluate import discover_evaluated
    from kernelopt.tunables.launches import branch_kernels
    from kernelopt.tuning.folder import idle_shapes
    from kernelopt.tuning.problem import ProblemShape

    folder = shutil.copytree(DATA / "aiter_gemm", tmp_path / "aiter_gemm")
    assert branch_kernels((folder / "kernel.py").read_text()) == {"_gemm_splitk_reduce_kernel"}
    _, evaluation = discover_evaluated(
        folder / "kernel.py", reference=folder / "reference.py", device="cpu", first_call=True
    )
    assert evaluation is not None and evaluation.shape_sizes, evaluation
    # the file keys its settings by get_arch() (read from the text by this process, suite29 s100); the worker answers it
    assert evaluation.device_key == ("get_arch()", "cpu"), evaluation.device_key
    shapes = [ProblemShape(kwargs=e.shape) for e in evaluation.shape_sizes]
    idle = idle_shapes(evaluation, "_gemm_splitk_reduce_kernel", shapes)
    # the first entry's (N, K) = (96, 200) has a file of its own splitting K by 4; the other two are unsplit
    assert [s.kwargs for s in shapes] == [
        {"M": 40, "N": 96, "K": 200},
        {"M": 7, "N": 130, "K": 72},
        {"M": 300, "N": 64, "K": 48},
    ]
    assert idle == (shapes[1].label(), shapes[2].label()), [list(e.launch_values) for e in evaluation.shape_sizes]


@pytest.mark.timeout(180)
def test_z82_a_plan_targets_only_knobs_its_session_can_move() -> None:
    """breaker22 saw ``optimize mg_bi_matmul``'s plan name ``NUM_SMS`` among its targets ("NUM_SMS=computed (NUM_SMS
    = get_compute_units(); 1 at the first SHAPES entry)") where its tuning session then left it alone ("computed from
    no size of the problem ... a table that falls back on the computation needs one"). The planner's discovery now
    applies the engine's rule (``tunables.knobs.sizeless_reason``, which the engine's ``_unbucketable`` says in the
    same words): the plan's knobs are the tiles of the float32 entry the task runs, and no ``NUM_SMS``."""
    from kernelopt.planning.rules import discover_knobs, discover_tunables
    from kernelopt.tunables.knobs import sizeless_reason

    kernel_py = DATA / "mg_bi_matmul" / "kernel.py"
    found, _ = discover_tunables(kernel_py, "cpu")
    assert found is not None
    sms = next(t for t in found if t.name == "NUM_SMS")
    assert sms.refused_reason == sizeless_reason(sms.model_copy(update={"refused_reason": None}))
    assert "from no size of the problem" in (sms.refused_reason or "")
    knobs, why = discover_knobs(kernel_py, "cpu")
    assert why is None and knobs is not None
    assert [(k.name, k.value) for k in knobs] == [
        ("BLOCK_SIZE_M", 128),
        ("BLOCK_SIZE_N", 128),
        ("BLOCK_SIZE_K", 32),
        ("GROUP_SIZE_M", 8),
        ("num_stages", 3),
        ("num_warps", 8),
    ]


@pytest.mark.timeout(180)
def test_z83_no_table_by_size_in_a_kernel_that_says_it_is_batch_invariant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """breaker22 saw that a table by size written into Megatron's batch-invariant GEMM (a ``BLOCK_SIZE_K`` by ``M``)
    would give each row another reduction order at another batch size, breaking the property the kernel exists for,
    which no reference checks. breaker11's vLLM ``scaled_mm`` (tiles computed from ``M``: a table can hold a pick)
    gets one as it is; the same file saying it is batch-invariant gets none, and says why (one configuration for every
    size is judged in its place, which keeps the property)."""
    import shutil

    from kernelopt.tuning.folder import TuneRequest, batch_invariant, prepare_folder, size_table_unheld

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = shutil.copytree(Path(__file__).parent / "data" / "breaker11" / "scaled_mm", tmp_path / "scaled_mm")
    kernel_py = folder / "kernel.py"
    kernel_py.write_text(
        '"""A batch-invariant GEMM: every row\'s result is the same at any M."""\n' + kernel_py.read_text()
    )
    tiles = {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 256}
    why = size_table_unheld(prepare_folder(TuneRequest(folder=folder, device="cpu")), tiles)
    assert why == (
        "kernel.py says it is batch-invariant (line 1): a table by size would give a row another reduction order at "
        "another batch size, the property it exists for"
    )
    said = batch_invariant((DATA / "mg_bi_matmul" / "kernel.py").read_text())
    assert said is not None and said.startswith("kernel.py says it is batch-invariant (line 1)"), said
    assert batch_invariant((DATA / "aiter_gemm" / "kernel.py").read_text()) is None
