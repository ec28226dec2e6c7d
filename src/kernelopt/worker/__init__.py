"""One worker protocol: every long-lived child process kernelopt starts talks it.

``python -m kernelopt.child SERVICE`` is the one child entry point. The parent
(:class:`~kernelopt.worker.client.WorkerProcess`, several at once in a
:class:`~kernelopt.worker.pool.WorkerPool`) and the child (:func:`~kernelopt.worker.server.serve`)
exchange typed JSON-line envelopes (:mod:`~kernelopt.worker.messages`) over a pipe pair
(:mod:`~kernelopt.worker.channel`), never over the child's stdout. User files are imported by the one
module loader (:mod:`~kernelopt.worker.loader`). See docs/tuning-engine.md, "The worker protocol".

Bottom of the features layer: imports only the foundation (``env``, ``errors``, ``proc``). Importing it
does nothing.
"""
