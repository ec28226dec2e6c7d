"""The envelopes of the one worker protocol (pure: pydantic models, no I/O).

A parent and a ``python -m kernelopt.child SERVICE`` child exchange JSON lines, one envelope each
(docs/tuning-engine.md, "The worker protocol")::

    parent -> child   Setup {payload}                      once, first: the service's own init model
    child -> parent   Ready {pid, service, device, versions, info}   after setup
    parent -> child   Request {id, kind, payload}          one at a time
    child -> parent   Event {id, name, data}               zero or more while a request runs
    child -> parent   Reply {id, payload} | Failure {id, outcome, reason}
    parent -> child   Shutdown

Payloads are JSON objects: each service validates them with its own pydantic models (the bench
service's ``BenchInit``, ``BenchRequest``, ``BenchReply``), on both sides. These envelopes know nothing of
the iteration record (``memory.model``) nor of the tuning engine's outcomes: a candidate's verdict is
part of a service's reply payload, and :class:`Failure` says only why a request got no reply.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

JsonObject = dict[str, Any]


class Service(StrEnum):
    """The services of ``python -m kernelopt.child SERVICE`` (:mod:`kernelopt.child` maps each to its module)."""

    BENCH = "bench"  # check and time candidates on the full problem, one worker per GPU (tuning.bench_worker)
    COMPILE = "compile"  # compile candidates on the small shape into the session's Triton cache (tuning.compile_pool)
    AUTOTUNE = "autotune"  # read a module's @triton.autotune lists (tunables.autotune_worker)
    GATE = "gate"  # Stage 4's check and timing (harness.worker): not moved yet
    PROFILE = "profile"  # the driver a profiler runs (profiling.driver): not moved yet


class FailureKind(StrEnum):
    """Why a request (or a worker's start) got no reply."""

    WORKER_CRASH = "worker_crash"  # the child died: a signal, or an exit without a reply
    RUN_TIMEOUT = "run_timeout"  # no reply within the request's limit; the child's group was killed
    START_TIMEOUT = "start_timeout"  # no Ready within the start-up limit; the child's group was killed
    SETUP_FAILED = "setup_failed"  # the service's setup raised (its reason says why)
    NO_ROOM = "no_room"  # the service's setup found the device without room for its problem
    BAD_INPUT = "bad_input"  # the service's setup was given inputs that do not work (reference.py raised)
    SERVICE_ERROR = "service_error"  # the service raised while handling the request (a bug, or a bad request)
    NOT_SENT = "not_sent"  # never sent: the caller's limit left no time for it (a session's wall time spent)


class _Envelope(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Setup(_Envelope):
    """The service's init payload; the first message a child reads."""

    type: Literal["setup"] = "setup"
    payload: JsonObject = Field(default_factory=dict)


class Ready(_Envelope):
    """The child finished its setup and serves requests.

    Attributes:
        pid: the child's process id.
        service: the service it runs.
        device: the device it set up on (``cuda:0``, ``cpu``), ``None`` for a service that uses none.
        versions: package -> version (python, torch, triton, kernelopt).
        info: what the service's setup measured (the bench service: memory need, free memory, shape).
    """

    type: Literal["ready"] = "ready"
    pid: int
    service: Service
    device: str | None = None
    versions: dict[str, str] = Field(default_factory=dict)
    info: JsonObject = Field(default_factory=dict)


class Request(_Envelope):
    """One piece of work; ``kind`` is one of the service's request kinds. A NaN or infinite float in the payload (a
    ``SHAPES`` entry's ``"clip": float("inf")`` in the net's size request) is written as JSON's ``NaN`` /
    ``Infinity`` and read back as itself (pydantic's default wrote ``null``, which the service refused: break11 x2)."""

    model_config = ConfigDict(ser_json_inf_nan="constants")

    type: Literal["request"] = "request"
    id: int
    kind: str
    payload: JsonObject = Field(default_factory=dict)


class Event(_Envelope):
    """Progress while a request runs (a phase began, a compilation started); the parent may extend its limit."""

    type: Literal["event"] = "event"
    id: int
    name: str
    data: JsonObject = Field(default_factory=dict)


class Reply(_Envelope):
    """The answer to request ``id``."""

    type: Literal["reply"] = "reply"
    id: int
    payload: JsonObject = Field(default_factory=dict)


class Failure(_Envelope):
    """Request ``id`` (``0``: the setup) got no reply, and why, in one line."""

    type: Literal["failure"] = "failure"
    id: int
    outcome: FailureKind
    reason: str


class Shutdown(_Envelope):
    """The parent is done: the child closes its service and exits 0."""

    type: Literal["shutdown"] = "shutdown"


Message = Annotated[Setup | Ready | Request | Event | Reply | Failure | Shutdown, Field(discriminator="type")]
MESSAGE: TypeAdapter[Message] = TypeAdapter(Message)
"""Validates one JSON line into its envelope (``kernelopt.jsontext.load_json(MESSAGE, line)``)."""

SETUP_ID = 0
"""The id a :class:`Failure` of the setup carries (requests are numbered from 1)."""

USER_CODE = "user_code"
"""The name of the setup :class:`Event` a service sends before it runs the user's code and after it returns:
``data = {"where": "reference.py's get_inputs()"}``, then ``{"where": None}``. A child that dies in between
died in the user's code (``os._exit`` in ``get_inputs``): the parent reports it as the user's file's fault
(``FailureKind.BAD_INPUT``), naming where, not as a worker that did not start."""
