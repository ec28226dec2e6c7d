"""Several workers of one service serving a list of requests, in the calling thread.

:class:`WorkerPool` starts its workers together (their start-ups overlap), then hands each request to
the next idle worker and waits on all of them at once (``select``), so a batch of N requests over K
workers takes about N / K request times. A worker whose request crashed or timed out is started again
before its next request (its Failure is that request's answer). Everything happens in the thread that
calls, so the workers outlive no thread of theirs (see :mod:`kernelopt.worker.client`).
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType

from kernelopt.worker.client import WorkerProcess, WorkerStartError
from kernelopt.worker.messages import Failure, FailureKind, JsonObject, Ready, Reply

POLL_S = 0.5
"""Longest wait between looks at the deadlines (a request's limit is kept to about this)."""

NOT_SENT = "not sent: the caller's limit left no time for it"
"""The reason of a request :meth:`WorkerPool.run` did not send."""


@dataclass(frozen=True)
class Job:
    """One request of a batch: its kind and payload."""

    kind: str
    payload: JsonObject


Answer = Reply | Failure
"""What a request gets: the service's Reply, or a Failure value."""


class WorkerPool:
    """Runs batches of requests over ``workers`` (all of one service).

    Args:
        workers: the workers; none need be started.
    """

    def __init__(self, workers: Sequence[WorkerProcess]) -> None:
        if not workers:
            raise ValueError("a pool needs at least one worker")
        self.workers = list(workers)

    def start(self) -> list[Ready]:
        """Start every worker, their start-ups overlapping; their Ready messages, in order.

        Raises:
            WorkerStartError: one of them could not start (the others are killed).
        """
        self.spawn()
        return self.await_ready()

    def spawn(self) -> None:
        """Start every worker without waiting for them (:meth:`await_ready` waits): a caller with several pools
        starts them all, so their start-ups overlap too."""
        for w in self.workers:
            w.spawn()

    def await_ready(self) -> list[Ready]:
        """The Ready messages of the start :meth:`spawn` made, in order.

        Raises:
            WorkerStartError: one of them could not start (the others are killed).
        """
        try:
            return [w.await_ready() for w in self.workers]
        except WorkerStartError:
            self.close()
            raise

    def grow(self, workers: Sequence[WorkerProcess]) -> list[Ready]:
        """Add ``workers`` and start them (their start-ups overlapping); their Ready messages.

        Raises:
            WorkerStartError: one of them could not start (the new ones are killed; the pool is unchanged).
        """
        for w in workers:
            w.spawn()
        try:
            readies = [w.await_ready() for w in workers]
        except WorkerStartError:
            for w in workers:
                w.close()
            raise
        self.workers.extend(workers)
        return readies

    def run(
        self,
        jobs: Sequence[Job],
        *,
        timeout_s: Callable[[], float | None],
        on_answer: Callable[[int, Answer, float, WorkerProcess], None] | None = None,
    ) -> list[Answer]:
        """Serve every job; one answer each, in ``jobs``' order.

        Args:
            jobs: the requests.
            timeout_s: the limit of the next request, asked when it is sent (an adaptive limit); ``None``: the caller
                has no time left for it, and it and those after it are not sent (their answer a ``NOT_SENT``
                Failure).
            on_answer: called with (job index, answer, seconds from send to answer, the worker) as each
                arrives (the caller may :meth:`~WorkerProcess.kill` a worker that asked to be started again).

        Raises:
            WorkerStartError: a worker could not be (re)started.
        """
        answers: dict[int, Answer] = {}
        waiting = list(range(len(jobs)))
        running: dict[int, tuple[int, float]] = {}  # worker index -> (job index, sent at)
        while waiting or running:
            for wi, worker in enumerate(self.workers):
                if waiting and wi not in running:
                    limit = timeout_s()
                    if limit is None:
                        for j in waiting:
                            answers[j] = Failure(id=0, outcome=FailureKind.NOT_SENT, reason=NOT_SENT)
                        waiting.clear()
                        break
                    j = waiting.pop(0)
                    worker.submit(jobs[j].kind, jobs[j].payload, limit)
                    running[wi] = (j, time.monotonic())
            if not running:
                break
            select.select([self.workers[wi].fileno() for wi in running], [], [], POLL_S)
            for wi in list(running):
                answer = self.workers[wi].poll(0.0)  # reads what came, judges the deadline
                if answer is None:
                    continue
                j, sent = running.pop(wi)
                answers[j] = answer
                if on_answer is not None:
                    on_answer(j, answer, time.monotonic() - sent, self.workers[wi])
        return [answers[j] for j in range(len(jobs))]

    @property
    def start_s(self) -> float:
        """The seconds its workers' starts took, summed (:attr:`WorkerProcess.start_s`; restarts included)."""
        return sum(w.start_s for w in self.workers)

    def close(self) -> None:
        """Shut every worker down (each given its grace, then killed with its group)."""
        for w in self.workers:
            w.close()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
