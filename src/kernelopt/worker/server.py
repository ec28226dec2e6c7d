"""The child side of the worker protocol: set the service up, then answer requests until Shutdown.

:func:`serve` is what ``python -m kernelopt.child SERVICE`` runs once it has built the service's
handler. A handler is anything with the :class:`Handler` shape; it raises :class:`SetupRefused` when it
cannot serve on this machine (no room for its problem) and may raise anything else from
:meth:`Handler.handle` (a bug, a bad request): that request then gets a ``SERVICE_ERROR`` failure with
the exception's first line, the traceback goes to the log, and the child goes on. A candidate kernel's
failure is not an exception here: the service turns it into its reply.

If the parent goes away (its end of the channel closes), the child exits; ``die_with_parent`` also
ends it when the parent is killed outright.
"""

from __future__ import annotations

import os
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any, Protocol

from kernelopt.oneline import first_line as oneline_first
from kernelopt.proc import die_with_parent
from kernelopt.worker.channel import Channel, ChannelClosed, child_channel
from kernelopt.worker.messages import (
    SETUP_ID,
    Event,
    Failure,
    FailureKind,
    JsonObject,
    Ready,
    Reply,
    Request,
    Service,
    Setup,
    Shutdown,
)

EXIT_OK = 0
EXIT_SETUP_FAILED = 3
EXIT_CHANNEL = 4


@dataclass
class SetupInfo:
    """What a handler's setup reports in :class:`~kernelopt.worker.messages.Ready`."""

    device: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    info: JsonObject = field(default_factory=dict)


class SetupRefused(Exception):
    """The service cannot be set up here; ``kind`` is ``NO_ROOM``, ``BAD_INPUT`` or ``SETUP_FAILED``, ``reason``
    one line."""

    def __init__(self, kind: FailureKind, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


class Handler(Protocol):
    """A service's handler, built by :mod:`kernelopt.child` (one per process)."""

    def setup(self, payload: JsonObject, events: EventSink) -> SetupInfo:
        """Get ready to serve (build inputs, load modules); raises :class:`SetupRefused` when it cannot."""
        ...

    def handle(self, kind: str, payload: JsonObject, events: EventSink) -> JsonObject:
        """Serve one request of ``kind``; returns the reply payload."""
        ...

    def close(self) -> None:
        """Release what setup took (the process exits next)."""
        ...


class EventSink:
    """Sends :class:`~kernelopt.worker.messages.Event`s for the request being served."""

    def __init__(self, channel: Channel | None) -> None:
        self._channel = channel
        self.request_id = SETUP_ID

    def emit(self, name: str, **data: Any) -> None:
        """Tell the parent ``name`` happened (``compile_start``, a phase); a no-op without a channel."""
        if self._channel is not None:
            self._channel.send(Event(id=self.request_id, name=name, data=data))


def first_line(exc: BaseException) -> str:
    """``TypeName: first line of the message`` (at most 300 characters)."""
    text = oneline_first(str(exc), 300)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _setup(channel: Channel, service: Service, handler: Handler, events: EventSink) -> bool:
    message = channel.receive(None)
    if not isinstance(message, Setup):
        raise ChannelClosed(f"expected Setup, got {type(message).__name__}")
    try:
        info = handler.setup(message.payload, events)
    except SetupRefused as refused:
        channel.send(Failure(id=SETUP_ID, outcome=refused.kind, reason=refused.reason))
        return False
    except Exception as exc:  # the service could not start: its reason goes to the parent, the trace to the log
        traceback.print_exc()
        channel.send(Failure(id=SETUP_ID, outcome=FailureKind.SETUP_FAILED, reason=first_line(exc)))
        return False
    channel.send(Ready(pid=os.getpid(), service=service, device=info.device, versions=info.versions, info=info.info))
    return True


def serve(service: Service, handler: Handler, channel: Channel | None = None) -> int:
    """Run ``handler`` as ``service`` over ``channel`` (default: the one the parent passed down).

    Returns:
        The exit status: 0 after Shutdown or when the parent closed the channel, 3 when setup failed,
        4 when the channel was unusable from the start.
    """
    die_with_parent()
    try:
        channel = channel or child_channel()
    except ChannelClosed as exc:
        sys.stderr.write(f"kernelopt worker: {exc}\n")
        return EXIT_CHANNEL
    events = EventSink(channel)
    try:
        if not _setup(channel, service, handler, events):
            return EXIT_SETUP_FAILED
        while True:
            message = channel.receive(None)
            if isinstance(message, Shutdown):
                return EXIT_OK
            if not isinstance(message, Request):
                raise ChannelClosed(f"expected Request, got {type(message).__name__}")
            events.request_id = message.id
            try:
                payload = handler.handle(message.kind, message.payload, events)
            except Exception as exc:  # a bug or a bad request: that request fails, the service goes on
                traceback.print_exc()
                channel.send(Failure(id=message.id, outcome=FailureKind.SERVICE_ERROR, reason=first_line(exc)))
            else:
                channel.send(Reply(id=message.id, payload=payload))
    except ChannelClosed:
        return EXIT_OK  # the parent is gone or done
    finally:
        handler.close()
        sys.stderr.flush()
