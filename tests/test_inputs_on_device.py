"""Inputs built where they run (issue 34, the H200 run of KernelBench level 1): ``get_inputs()`` runs with the
device as torch's default device, so a 6.4 GB ``torch.rand`` is made on the GPU, not on the CPU and copied;
one that cannot run so is built on the CPU as before and moved, and the log says so once.

The device context is shown on PyTorch's ``meta`` device (a real device of every torch build: tensors with a
shape and no memory), where ``.numpy()`` raises as it does on a GPU."""

from __future__ import annotations

from typing import Any

import pytest


def _rand_inputs(n: int = 8) -> list[Any]:
    import torch

    return [torch.rand(n, 3), torch.randint(0, 5, (n,)), 2.5]


@pytest.mark.timeout(60)
def test_inputs_are_made_on_the_device_itself() -> None:
    import torch

    from kernelopt.harness.inputs import make_inputs

    seen: list[torch.device] = []

    def get_inputs() -> list[Any]:
        seen.append(torch.get_default_device())
        return _rand_inputs()

    notes: list[str] = []
    x, idx, scalar = make_inputs(get_inputs, {}, "meta", 0, on_host=notes.append)
    assert seen == [torch.device("meta")]  # the factory calls ran with the device as the default
    assert x.device.type == "meta" and idx.device.type == "meta" and scalar == 2.5
    assert notes == []  # nothing fell back


@pytest.mark.timeout(60)
def test_a_get_inputs_that_needs_the_cpu_falls_back_and_says_so() -> None:
    import torch

    from kernelopt.harness.inputs import make_inputs

    calls: list[torch.device] = []

    def get_inputs(n: int) -> list[Any]:
        calls.append(torch.get_default_device())
        x = torch.rand(n, 3)
        scale = float(x.numpy().max())  # host-only code: raises on a device tensor
        return [x * 0 + scale]

    notes: list[str] = []
    (x,) = make_inputs(get_inputs, {"n": 4}, "meta", 3, on_host=notes.append)
    assert calls == [torch.device("meta"), torch.device("cpu")]  # tried on the device, then built on the CPU
    assert x.device.type == "meta" and tuple(x.shape) == (4, 3)  # and moved to the device all the same
    assert len(notes) == 1 and "with meta as the default device" in notes[0] and "built on the CPU" in notes[0]

    def broken() -> list[Any]:
        raise ValueError("no such file: weights.pt")

    with pytest.raises(ValueError, match="weights.pt"):  # a get_inputs that fails on the CPU too: its own error
        make_inputs(broken, {}, "meta", 0)

    tries: list[int] = []

    def too_large() -> list[Any]:
        tries.append(1)
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 80.00 GiB")

    with pytest.raises(torch.OutOfMemoryError):  # built on the CPU they could not be moved either: no retry
        make_inputs(too_large, {}, "meta", 0, on_host=notes.append)
    assert tries == [1] and len(notes) == 1


@pytest.mark.timeout(60)
def test_cpu_inputs_and_seeds_are_unchanged() -> None:
    import torch

    from kernelopt.harness.inputs import make_inputs

    def plain(seed: int) -> list[Any]:  # what build_inputs made before: seeded, then get_inputs on the CPU
        torch.manual_seed(seed)
        return _rand_inputs()

    for seed in (0, 1):
        got = make_inputs(_rand_inputs, {}, "cpu", seed)
        want = plain(seed)
        assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1]) and got[2] == want[2]
    assert not torch.equal(make_inputs(_rand_inputs, {}, "cpu", 0)[0], make_inputs(_rand_inputs, {}, "cpu", 1)[0])


@pytest.mark.gpu
@pytest.mark.timeout(120)
def test_inputs_are_made_on_the_gpu_and_a_seed_fixes_them() -> None:
    import torch

    from kernelopt.harness.inputs import make_inputs

    seen: list[torch.device] = []

    def get_inputs() -> list[Any]:
        seen.append(torch.get_default_device())
        return _rand_inputs(1 << 20)

    first = make_inputs(get_inputs, {}, "cuda", 0)
    again = make_inputs(get_inputs, {}, "cuda", 0)
    other = make_inputs(get_inputs, {}, "cuda", 1)
    assert all(d.type == "cuda" for d in seen) and first[0].device.type == "cuda"
    assert torch.equal(first[0], again[0]) and torch.equal(first[1], again[1])  # the seed fixes them
    assert not torch.equal(first[0], other[0])

    def host_only() -> list[Any]:
        x = torch.rand(16)
        return [x * 0 + float(x.numpy().max())]

    notes: list[str] = []
    (x,) = make_inputs(host_only, {}, "cuda", 0, on_host=notes.append)
    assert x.device.type == "cuda" and len(notes) == 1
