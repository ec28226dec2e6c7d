"""JSON lines over a pipe pair: one envelope per line, read with a timeout.

Both ends use :class:`Channel`. The parent makes the two pipes (:func:`pipe_pair`), keeps its ends and
passes the child's ends down (``pass_fds``, their numbers in ``KERNELOPT_WORKER_FDS=r,w``). The child
never talks over its standard output: :func:`child_channel` points fd 1 at its stderr (the worker's
log), so whatever a kernel prints cannot break a message.
"""

from __future__ import annotations

import os
import select
import sys
import time

from pydantic import BaseModel, ValidationError

from kernelopt.env import read_worker_fds
from kernelopt.jsontext import dump_json, load_json
from kernelopt.oneline import one_line
from kernelopt.worker.messages import MESSAGE, Message

READ_CHUNK_BYTES = 1 << 16
MAX_LINE_BYTES = 64 * 1024 * 1024
"""A line longer than this is a broken channel, not a message (our bound; replies are small)."""


class ChannelClosed(Exception):
    """The other end closed its side (the process died or exited), or sent something that is not a message."""


class Channel:
    """One end of the protocol: reads envelopes from ``read_fd`` and writes them to ``write_fd``."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd
        self._buffer = bytearray()
        self._closed = False

    def fileno(self) -> int:
        """The descriptor to wait on (``select``) for the next message."""
        return self.read_fd

    def send(self, message: BaseModel) -> None:
        """Write ``message`` as one JSON line.

        Raises:
            ChannelClosed: the other end is gone (``EPIPE``).
        """
        data = dump_json(message).encode("utf-8") + b"\n"
        view = memoryview(data)
        try:
            while view:
                written = os.write(self.write_fd, view)
                view = view[written:]
        except (BrokenPipeError, OSError) as exc:
            raise ChannelClosed(f"the other end is gone ({exc})") from exc

    def pending(self) -> bool:
        """True when a whole line is buffered already (no wait needed)."""
        return b"\n" in self._buffer

    def receive(self, timeout_s: float | None) -> Message | None:
        """The next envelope, waiting at most ``timeout_s`` seconds (``None``: no limit).

        Returns:
            The envelope, or ``None`` when none arrived in time.

        Raises:
            ChannelClosed: the other end closed its side, or sent a line that is not an envelope.
        """
        deadline = None if timeout_s is None else time.monotonic() + max(0.0, timeout_s)
        while b"\n" not in self._buffer:
            if self._closed:
                raise ChannelClosed("the other end closed the channel")
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.read_fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.read_fd, READ_CHUNK_BYTES)
            if not chunk:
                self._closed = True
                continue
            self._buffer.extend(chunk)
            if len(self._buffer) > MAX_LINE_BYTES and b"\n" not in self._buffer:
                raise ChannelClosed(f"a line longer than {MAX_LINE_BYTES} bytes")
        end = self._buffer.index(b"\n")
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        try:
            return load_json(MESSAGE, line)
        except ValidationError as exc:
            raise ChannelClosed(
                f"not a message: {one_line(line[:400].decode(errors='replace'), 120)!r} ({exc.errors()[0]['msg']})"
            ) from None

    def close(self) -> None:
        """Close both descriptors (harmless twice)."""
        for fd in {self.read_fd, self.write_fd}:
            try:
                os.close(fd)
            except OSError:
                pass


def pipe_pair() -> tuple[tuple[int, int], tuple[int, int]]:
    """``((parent_read, parent_write), (child_read, child_write))``: two pipes, the child's ends inheritable."""
    to_parent_r, to_parent_w = os.pipe()
    to_child_r, to_child_w = os.pipe()
    for fd in (to_child_r, to_parent_w):
        os.set_inheritable(fd, True)
    return (to_parent_r, to_child_w), (to_child_r, to_parent_w)


def child_channel() -> Channel:
    """The child's end, from ``KERNELOPT_WORKER_FDS``; fd 1 is pointed at stderr first.

    Raises:
        ChannelClosed: the variable is unset (the process was not started as a worker).
    """
    fds = read_worker_fds()
    if fds is None:
        raise ChannelClosed("not started as a kernelopt worker (KERNELOPT_WORKER_FDS is unset)")
    sys.stdout.flush()
    os.dup2(2, 1)  # a kernel's print() goes to the log, never into the channel
    return Channel(*fds)
