"""The loop of ``kernelopt optimize``: the stage machine (Stage 1..6) with every collaborator injected.

- :mod:`.protocols`: the collaborator Protocols (profiler, plan reader, gate, ceilings, baseline
  renderer, progress) and :class:`~.protocols.Collaborators`; planners and implementers use
  :mod:`kernelopt.backends.protocol`.
- :mod:`.machine`: :class:`~.machine.OptimizeLoop`, the transition table and the "may write" table.
- :mod:`.journal`: the resumable run state in ``.kernelopt/loop_state.json`` and the workspace lock.
- :mod:`.stop`: roofline bounds (measured ceilings and spec peak) and the Stage 6 decision (pure).
- :mod:`.commits`: Stage 5 commit messages (pure).
- :mod:`.baseline`: the built-in ``baseline_report.md`` renderer (pure).
- :mod:`.opening`: find or create the workspace for ``kernelopt optimize PATH``.
- :mod:`.summary`: the final summary.
- :mod:`.wiring`: the real stage implementations, imported lazily.
"""
