"""The worker-side checks in this process (torch CPU): the chunked, prepared comparison gives the harness's own
verdicts and messages, and the inputs' fingerprint sees a changed or a moved element."""

from __future__ import annotations

import pytest
import torch

from kernelopt.harness.compare import check_outputs, prepare_reference
from kernelopt.harness.inplace import fingerprint
from kernelopt.harness.poison import POISON_BYTE


def _outputs() -> dict[str, torch.Tensor]:
    torch.manual_seed(0)
    ref = torch.randn(64, 100)
    near = ref + 1e-7 * torch.randn_like(ref)
    wrong = ref.clone()
    wrong[40, 3] += 1.0
    wrong[50, 7] -= 2.0
    nan = ref.clone()
    nan[33, 1] = float("nan")
    inf = ref.clone()
    inf[20, 9] = float("inf")
    poisoned = ref.clone()
    poisoned[45:].view(torch.uint8).fill_(POISON_BYTE)
    return {
        "ref": ref,
        "near": near,
        "wrong": wrong,
        "nan": nan,
        "inf": inf,
        "poisoned": poisoned,
        "zeros": torch.zeros_like(ref),
        "constant": torch.full_like(ref, 0.5),
        "fp16": ref.half(),
    }


@pytest.mark.parametrize("name", ["near", "wrong", "nan", "inf", "poisoned", "zeros", "constant", "fp16"])
def test_chunked_and_prepared_checks_give_the_whole_tensor_verdict(name: str) -> None:
    outs = _outputs()
    ref, out = outs["ref"], outs[name]
    if name == "fp16":
        ref, out = ref.half(), (ref.double() * (1 + 1e-4)).half()
    whole = check_outputs(out, ref, ref)
    chunked = check_outputs(out, ref, ref, chunk_elems=700)
    prepared = check_outputs(out, ref, ref, chunk_elems=700, prepared=prepare_reference(ref, chunk_elems=700))
    assert (chunked.message, chunked.error_class) == (whole.message, whole.error_class)
    assert (prepared.message, prepared.error_class) == (whole.message, whole.error_class)
    for check in (chunked, prepared):  # the same tolerance, up to the order of a sum of squares
        assert check.tolerance is not None and whole.tolerance is not None
        assert check.tolerance.model_copy(update={"atol": whole.tolerance.atol}) == whole.tolerance
        assert check.tolerance.atol == pytest.approx(whole.tolerance.atol, rel=1e-12)
    assert chunked.rel_err == pytest.approx(whole.rel_err) and chunked.max_abs_err == pytest.approx(whole.max_abs_err)
    # the fast pass (float32 chunks) gives the errors of the full float64 scan
    assert prepared.rel_err == pytest.approx(whole.rel_err, rel=1e-3)
    assert prepared.max_abs_err == pytest.approx(whole.max_abs_err, rel=1e-3)
    if name != "near" and name != "fp16":
        assert whole.message is not None  # every adversarial output is caught
    else:
        assert whole.message is None


def test_the_messages_name_the_global_index_across_chunks() -> None:
    outs = _outputs()
    ref = outs["ref"]
    msg = check_outputs(outs["wrong"], ref, ref, chunk_elems=700, prepared=prepare_reference(ref)).message
    assert msg is not None and "2 of 6400 elements, first at index (40, 3)" in msg and "worst at (50, 7)" in msg
    unwritten = check_outputs(outs["poisoned"], ref, ref, chunk_elems=700).message
    assert unwritten is not None and "1900 of 6400 elements" in unwritten and "(first at index (45, 0))" in unwritten


def test_the_fingerprint_sees_a_changed_and_a_moved_element() -> None:
    x = torch.randn(3, 1 << 10)
    y = torch.arange(10, dtype=torch.int16)
    before = fingerprint([x, (y, 4)])
    assert fingerprint([x.clone(), (y.clone(), 4)]) == before
    changed = x.clone()
    changed[1, 5] = changed[1, 5] + 1
    assert fingerprint([changed, (y, 4)]) != before
    swapped = x.clone()
    swapped[0, 0], swapped[2, 7] = x[2, 7].item(), x[0, 0].item()
    assert fingerprint([swapped, (y, 4)]) != before
    assert fingerprint([x, (y.flip(0), 4)]) != before  # odd byte counts are read as bytes
    assert len(before) == 2 and before[1][0] == 20
