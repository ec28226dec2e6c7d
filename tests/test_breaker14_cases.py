"""The fourteenth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``,
held out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of
tests/data/breaker14 is a public Triton kernel written for the trial in a form the first thirteen trials did not try
(its README lists them). What tuning writes is judged as a user would: the written kernel against the reference at
every ``SHAPES`` entry and at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty``
outputs in the middle of NaN (tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's
interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.tunables import discover_source
from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker14"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _source(name: str) -> str:
    return (DATA / name / "kernel.py").read_text()


# ------------------------------------------------------------------------------------- V0 on the CPU


@pytest.mark.timeout(60)
def test_a_language_builtin_bound_to_a_module_name_runs_in_the_interpreter() -> None:
    """Seen on 2026-12-06: fla_softmax, flash-linear-attention's ``softmax_fwd``, binds ``exp = tl.exp`` at module
    level (fla's fast-ops switch) and calls ``exp(...)`` in the kernel. ``validate --device cpu`` judged the correct
    original FAILED: "the kernel raised InterpreterError: ValueError('Did you forget to add @triton.jit ?')" (the
    interpreter patches ``tl.exp`` on the module, never a name bound to it before). Such a name is patched in the
    kernel's module as libdevice's imported functions are; the kernel is right at its entries and at D = 1."""
    _all_correct(DATA / "fla_softmax", [{"B": 2, "T": 9, "D": 100}, {"B": 1, "T": 3, "D": 1}])


# ------------------------------------------------------------------------------------- knobs found


def test_an_autotune_list_whose_block_a_helper_names_is_read_as_built() -> None:
    """Seen on 2026-12-06: attorch_glu, attorch's GLU forward, autotunes over ``element_wise_kernel_configs()``,
    whose entries name the block by the helper's parameter (``triton.Config({block_name: 64}, num_warps=2)``,
    ``block_name: str = "BLOCK_SIZE"``). Read as a literal list, each entry showed its ``num_warps`` only, the block
    (the knob attorch's users tune) was lost, and ``tune --device cpu`` exited 2 "no tunable knob on the CPU: the
    kernel's autotune list holds launch options only". A list an entry of which names a setting by code is a list
    built by code: read from the module as built, BLOCK_SIZE 64..1024 with it."""
    from kernelopt.tunables.evaluate import discover_evaluated

    (static,) = [t for t in discover_source(_source("attorch_glu")) if t.kind.value == "autotune_config"]
    assert static.key == "glu_forward_kernel.configs" and "built by code" in (static.refused_reason or "")
    found, _ = discover_evaluated(DATA / "attorch_glu" / "kernel.py", device="cpu")
    blocks = {t.key: t.value for t in found if t.name == "BLOCK_SIZE" and t.refused_reason is None}
    assert blocks == {f"glu_forward_kernel.configs[{i}].BLOCK_SIZE": 64 << i for i in range(5)}, blocks


def test_a_constexpr_read_only_as_a_divisor_is_no_knob() -> None:
    """Seen on 2026-12-06: ds_residual, DeepSpeed's ``residual_add_bias``, passes the model-parallel size as a
    ``tl.constexpr`` (``mp_size``, an int literal of the launch) that the body reads only as ``(...) / mp_size``.
    ``tune`` searched it beside the block (``BLOCK_SIZE=16, mp_size=8``); every such candidate changed the sums and
    failed its check, spending the budget. A constexpr read only under a true division scales values, never an index
    or a shape: it is held as what the kernel computes, and the search moves the block alone."""
    from kernelopt.tuning.launch import space_from_tunables

    found = {t.key: t for t in discover_source(_source("ds_residual"))}
    mp = found["residual_add_bias_kernel:mp_size"]
    assert mp.semantic and "only as an operand of a true division" in (mp.refused_reason or ""), mp.refused_reason
    assert not found["residual_add_bias_kernel:BLOCK_SIZE"].semantic
    space = space_from_tunables(list(found.values()), held_options={})
    assert [k.name for k in space.knobs if k.name not in ("num_warps", "num_stages")] == ["BLOCK_SIZE"]
