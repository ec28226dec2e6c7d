"""An index output judged by what it selects (worker side; imports torch): issue 32's rule that a correct kernel
passes.

A sort, an argsort, a top-k, an argmax or an argmin of an input gives indices, and where the input holds equal keys
several index outputs are right: ``torch.sort`` is not stable, a kernel's sort may order equal keys otherwise, a
parallel argmax may keep another of two equal maxima. Index equality failed every such kernel (leftovers23 l30:
``torch.sort`` of fp16 rows with many equal values beside a valid sort in reverse tie order, "15269 of 16384
elements" beyond an exact tolerance). So where the value comparison refuses an integer output, this module asks
whether the reference's indices are an order selection of an input along one dimension (the values they gather from
it are that input's k largest or k smallest there, k the indices' extent: a sort, an argsort, a top-k, an argmax, an
argmin, ``max(dim)``'s indices; sorted where k is the whole extent, since any permutation gathers all the values; and
not what the first k indices gather already, since an identity or any order of equal values orders nothing: r30);
where they are, the kernel's indices are judged by what they select from every such input: each in range, gathering
the values the reference's gather at the same place (NaN equal to NaN), and distinct along the dimension where the
reference's are (a sort's are a permutation, a top-k's distinct). A wrong sort still fails, with the element it
selects wrongly named.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class Selection:
    """The verdict on an index output read as a selection from an input.

    Attributes:
        key: the input and dimension the reference's indices select from (``input 0 along dim 1``).
        fault: why the kernel's indices select otherwise, in one line; ``None`` when they select what the
            reference's do.
    """

    key: str
    fault: str | None


def judge_selection(name: str, out: torch.Tensor, ref: torch.Tensor, inputs: Sequence[Any]) -> Selection | None:
    """``out``, an integer output the value comparison refused, judged by what it selects from each input the
    reference's indices ``ref`` order (:func:`_keys`); ``None`` where they order none of ``inputs`` (the value
    comparison's verdict stands, as it does where the input's sort finds no room on the device)."""
    if tuple(out.shape) != tuple(ref.shape) or ref.numel() == 0:
        return None
    try:
        return _judged(name, out, ref, inputs)
    except torch.OutOfMemoryError:  # no room for the input's sort beside the problem: the values' verdict stands
        return None


def _judged(name: str, out: torch.Tensor, ref: torch.Tensor, inputs: Sequence[Any]) -> Selection | None:
    """The kernel's indices judged under every key the reference's order, the first fault said. The reference's
    indices may order more than one (input, dimension): an argmax of a square input whose maximum repeats orders its
    rows and its columns, and a constant input (a buffer of zeros passed beside the keys) is ordered by any indices
    in range. Judged by the first alone, a wrong argmax passed as a column's and a wrong sort as the buffer's (fresh23
    f10); each key is a reading of the reference, so a kernel passes only where it selects right under each."""
    readings = []
    for position, x, dim, kept in _keys(ref, inputs):
        r = ref.detach().to(x.device, torch.int64).reshape(kept)
        if _orders(x, dim, r):
            flat = x.dim() != inputs[position].dim()
            readings.append(
                (f"input {position} flat" if flat else f"input {position} along dim {dim}", x, dim, kept, r)
            )
    keys = [key for key, *_ in readings]
    for key, x, dim, kept, r in readings:
        o = out.detach().to(x.device, torch.int64).reshape(kept)
        fault = _fault(name, key, x, dim, o, r, tuple(out.shape))
        if fault is not None and len(keys) > 1:  # a right kernel of one reading may fail another: say there are two
            fault += f" (the reference's indices order {' and '.join(keys)} alike: each reading is judged)"
        if fault is not None:
            return Selection(key, fault)
    return Selection(" and ".join(keys), None) if keys else None


def _keys(ref: torch.Tensor, inputs: Sequence[Any]) -> Iterator[tuple[int, torch.Tensor, int, tuple[int, ...]]]:
    """Each (input's position, the input as indexed, dimension, the indices' shape with that dimension kept) whose
    shape ``ref``'s can index: the input's shape with the dimension's extent at most its own (keepdim, a sort, a
    top-k), the input's shape without it (an argmax's ``keepdim=False``), or one index into the flattened input (an
    argmax over all)."""
    shape_r = tuple(ref.shape)
    for position, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor) or x.dim() == 0 or x.dtype == torch.bool or x.is_complex():
            continue
        shape = tuple(x.shape)
        for dim, extent in enumerate(shape):
            rest = shape[:dim] + shape[dim + 1 :]
            same_rank = len(shape_r) == len(shape)
            if same_rank and shape_r[:dim] + shape_r[dim + 1 :] == rest and 1 <= shape_r[dim] <= extent:
                yield position, x, dim, shape_r
            elif shape_r == rest:
                yield position, x, dim, (*shape[:dim], 1, *shape[dim + 1 :])
        if x.dim() > 1 and shape_r == ():
            yield position, x.reshape(-1), 0, (1,)


def _same(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Elementwise equality, NaN equal to NaN."""
    return (a == b) | (torch.isnan(a) & torch.isnan(b)) if a.is_floating_point() else a == b


def _orders(x: torch.Tensor, dim: int, r: torch.Tensor) -> bool:
    """Whether the reference's indices ``r`` order ``x`` along ``dim``: every index in range, the values they gather
    ``x``'s k largest or k smallest (k ``r``'s extent there; in any order where k is short of the extent, an unsorted
    top-k's; sorted where it is not, since any permutation gathers all the values), and not the values the first k
    indices gather already (r30: an identity, or any permutation of a row of equal values, orders nothing: the
    position ids of an all-ones mask are no sort of it)."""
    extent = x.shape[dim]
    if int(r.min().item()) < 0 or int(r.max().item()) >= extent:
        return False
    got, k = x.gather(dim, r), r.shape[dim]
    if bool(_same(got, x.narrow(dim, 0, k)).all().item()):
        return False
    for largest in (True, False):
        want = torch.topk(x, k, dim=dim, largest=largest, sorted=True).values
        seen = got if k == extent else torch.sort(got, dim=dim, descending=largest).values
        if bool(_same(seen, want).all().item()):
            return True
    return False


def _fault(
    name: str, key: str, x: torch.Tensor, dim: int, o: torch.Tensor, r: torch.Tensor, shape: tuple[int, ...]
) -> str | None:
    """Why the kernel's indices ``o`` do not select what the reference's ``r`` do from ``x`` along ``dim``: an index
    out of range, another value gathered, or an index repeated where the reference's are distinct; ``None``."""
    from kernelopt.harness.compare import _index_of

    n, extent = o.numel(), x.shape[dim]
    outside = (o < 0) | (o >= extent)
    if bool(outside.any().item()):
        first = int(torch.nonzero(outside.reshape(-1))[0].item())
        return (
            f"{name} holds index {int(o.reshape(-1)[first].item())} at {_index_of(first, shape)}, outside "
            f"0..{extent - 1} of {key} ({int(outside.sum().item())} of {n} elements)"
        )
    got, want = x.gather(dim, o), x.gather(dim, r)
    other = ~_same(got, want)
    if bool(other.any().item()):
        first = int(torch.nonzero(other.reshape(-1))[0].item())
        return (
            f"{name} selects other values than the reference's indices from {key} ({int(other.sum().item())} of {n} "
            f"elements, first at {_index_of(first, shape)}: index {int(o.reshape(-1)[first].item())} selects "
            f"{float(got.reshape(-1)[first].item()):.6g}, the reference's {int(r.reshape(-1)[first].item())} "
            f"{float(want.reshape(-1)[first].item()):.6g}; equal keys in another order would pass)"
        )
    if o.shape[dim] > 1 and _distinct(r, dim) and not _distinct(o, dim):
        what = "a permutation" if o.shape[dim] == extent else "distinct"
        return (
            f"{name} repeats an index along dim {dim} where the reference's indices from {key} are {what} (each "
            f"value it selects is right, but an element is selected twice and another never)"
        )
    return None


def _distinct(t: torch.Tensor, dim: int) -> bool:
    """Whether ``t``'s values are distinct along ``dim`` in every row."""
    ordered = torch.sort(t, dim=dim).values
    return not bool((ordered.diff(dim=dim) == 0).any().item())
