"""``python -m kernelopt.child SERVICE``: the one entry point of kernelopt's worker processes.

The parent (:class:`kernelopt.worker.client.WorkerProcess`) starts it with the protocol's pipe pair
(``KERNELOPT_WORKER_FDS``); this module builds the service's handler and hands it to
:func:`kernelopt.worker.server.serve`. Each service's module is imported only here, when its service
is asked for (plain imports inside the dispatch), so a compile worker never loads the bench service.

Services (:class:`kernelopt.worker.messages.Service`):

- ``bench``: :class:`kernelopt.tuning.bench_worker.BenchService` (inputs once; check and time candidates);
- ``compile``: :class:`kernelopt.tuning.compile_pool.CompileService` (small shape, shared Triton cache);
- ``autotune``: :class:`kernelopt.tunables.autotune_worker.AutotuneService` (read ``@triton.autotune`` lists;
  :func:`kernelopt.tunables.evaluate.evaluate_autotune` is its client);
- ``gate`` and ``profile``: still their own entry points (``kernelopt.harness.worker``,
  ``kernelopt.profiling.driver``); asking for them here is a usage error (exit 2).

Top layer (beside ``__main__``): it may import any package. Importing it does nothing.
"""

from __future__ import annotations

import sys

from kernelopt.errors import EXIT_BAD_INPUT
from kernelopt.proc import exit_process
from kernelopt.worker.messages import Service
from kernelopt.worker.server import Handler, serve


class ServiceNotMoved(Exception):
    """The service still has its own entry point."""


def handler_for(service: Service) -> Handler:
    """A fresh handler of ``service``.

    Raises:
        ServiceNotMoved: ``gate`` or ``profile`` (not served by this entry point yet).
    """
    if service is Service.BENCH:
        from kernelopt.tuning.bench_worker import BenchService

        return BenchService()
    if service is Service.COMPILE:
        from kernelopt.tuning.compile_pool import CompileService

        return CompileService()
    if service is Service.AUTOTUNE:
        from kernelopt.harness.first_call import (
            adds_into,
            calls_differ,
            first_call_line,
            kept_outputs,
            watch_benchmarks,
        )
        from kernelopt.harness.interpreter import patch_interpreter
        from kernelopt.tunables.autotune_worker import AutotuneService, FirstCallWatch

        watch = FirstCallWatch(watch_benchmarks, kept_outputs, calls_differ, first_call_line, adds_into)
        return AutotuneService(on_cpu=patch_interpreter, first_call=watch)
    raise ServiceNotMoved(f"the {service.value} service still runs as its own module")


def main(argv: list[str]) -> int:
    """``python -m kernelopt.child SERVICE``; returns the exit status."""
    names = ", ".join(s.value for s in Service)
    if len(argv) != 1:
        sys.stderr.write(f"usage: python -m kernelopt.child SERVICE  (one of {names})\n")
        return EXIT_BAD_INPUT
    try:
        service = Service(argv[0])
        handler = handler_for(service)
    except ValueError:
        sys.stderr.write(f"kernelopt.child: unknown service {argv[0]!r} (one of {names})\n")
        return EXIT_BAD_INPUT
    except ServiceNotMoved as exc:
        sys.stderr.write(f"kernelopt.child: {exc}\n")
        return EXIT_BAD_INPUT
    return serve(service, handler)


if __name__ == "__main__":
    exit_process(main(sys.argv[1:]))
