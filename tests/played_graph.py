"""CUDA graphs played by the CPU: ``torch.cuda``'s graph, stream and capture calls stood in for, so that the timers'
own graph code (``timers._prepare``, ``_capture``, ``replay_stale``, ``replay_skips``, ``_graph_probe``) runs here.

A capture records every torch operation the callable runs while it lasts (a dispatch mode, as a stream capture records
the kernels launched on it); a replay runs the recorded operations again in order, each result copied into the tensor
the capture made (an operation that wrote into one of its arguments writes there again). What the capture did not see
is not replayed: a tensor a callable kept from before the capture and returns as it is, or work done under
:func:`uncaptured` (a launch on the legacy default stream, which a capture on torch's non-blocking stream does not
record: it runs once, at capture). ``torch.cuda.is_current_stream_capturing()`` says True inside a capture.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes

from kernelopt.harness.inputs import tensors_in

_CAPTURING: list[bool] = [False]


class _Recorder(TorchDispatchMode):
    def __init__(self, ops: list[tuple[Any, Any, Any, Any]]) -> None:
        super().__init__()
        self.ops = ops

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        self.ops.append((func, args, kwargs, out))
        return out


class PlayedGraph:
    """``torch.cuda.CUDAGraph`` on the CPU: the operations of its capture, run again by :meth:`replay`."""

    # every graph made, in order, held weakly: a test counts the captures, and tells which are still held (a graph
    # freed takes the tensors its operations made with it)
    made: ClassVar[list[weakref.ref[PlayedGraph]]] = []

    def __init__(self, keep_graph: bool = False) -> None:
        self.ops: list[tuple[Any, Any, Any, Any]] = []
        PlayedGraph.made.append(weakref.ref(self))

    def replay(self) -> None:
        with torch.no_grad():
            for func, args, kwargs, out in self.ops:
                again = func(*args, **kwargs)
                for old, new in zip(tensors_in(out), tensors_in(again), strict=False):
                    if old.data_ptr() != new.data_ptr():
                        old.copy_(new)


@contextlib.contextmanager
def _graph(graph: PlayedGraph, pool: Any = None, stream: Any = None, **_: Any) -> Iterator[None]:
    _CAPTURING[0] = True
    try:
        with _Recorder(graph.ops):
            yield
    finally:
        _CAPTURING[0] = False


class _Stream:
    def wait_stream(self, other: Any) -> None:
        pass


@contextlib.contextmanager
def _on(stream: Any) -> Iterator[None]:
    yield


@contextlib.contextmanager
def uncaptured() -> Iterator[None]:
    """Work a capture does not record (the legacy default stream's launch): it runs now, once."""
    with _disable_current_modes():
        yield


def play_cuda(monkeypatch: pytest.MonkeyPatch, calls: int) -> None:
    """``torch.cuda``'s graph calls played by the CPU, and the timers' GPU-only parts stood in for: the estimate (2 us a
    call on the GPU, 1 us of host work), ``calls`` calls a sample, and CUDA events read from the CPU's clock."""
    from kernelopt.harness import timers

    PlayedGraph.made.clear()
    monkeypatch.setattr(torch.cuda, "CUDAGraph", PlayedGraph)
    monkeypatch.setattr(torch.cuda, "graph", _graph)
    monkeypatch.setattr(torch.cuda, "Stream", _Stream)
    monkeypatch.setattr(torch.cuda, "stream", _on)
    monkeypatch.setattr(torch.cuda, "current_stream", _Stream)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *_: None)
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: _CAPTURING[0])
    monkeypatch.setattr(timers, "_gpu_batch_us", lambda fn, sets, n: (2.0, 1.0))
    monkeypatch.setattr(timers, "_calls_per_sample", lambda fn, sets, settings, gpu_us: calls)

    def take(work: Any, n: int, *, flush: Any, spin_us: float = timers.SPIN_US) -> Any:
        return timers._cpu_take(work, n)

    monkeypatch.setattr(timers, "_gpu_take", take)
