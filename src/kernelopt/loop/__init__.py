"""The loop of ``kernelopt optimize``: the stage machine (Stage 1..6) with every collaborator injected.

- :mod:`.protocols`: the collaborator Protocols (profiler, plan reader, gate, ceilings, baseline
  renderer, progress) and :class:`~.protocols.Collaborators`; planners and implementers use
  :mod:`kernelopt.backends.protocol`.
- :mod:`.machine`: :class:`~.machine.OptimizeLoop`, the driver: start or resume, one stage after another.
- :mod:`.run`: :class:`~.run.LoopRun`, what the stages share (journal writes, events, the guard, the
  transition table, the workspace state they read).
- :mod:`.stage_profile`, :mod:`.stage_plan`, :mod:`.stage_implement`, :mod:`.stage_gate`,
  :mod:`.stage_record`, :mod:`.stage_stop`: the code of Stage 1..6, one module each (V0's gate in
  :mod:`.stage_gate`).
- :mod:`.resume`: an interruption parked, and its resume prepared.
- :mod:`.journal`: the resumable run state in ``.kernelopt/loop_state.json`` and the workspace lock.
- :mod:`.stop`: roofline bounds (measured ceilings and spec peak) and the Stage 6 decision (pure).
- :mod:`.commits`: Stage 5 commit messages (pure); :mod:`.record`: Stage 5's record content (pure).
- :mod:`.candidate`: Stage 3's kernel kept aside and put back; :mod:`.ending`: the best-kernel rule.
- :mod:`.baseline`: the built-in ``baseline_report.md`` renderer (pure).
- :mod:`.opening`: find or create the workspace for ``kernelopt optimize PATH``.
- :mod:`.summary`: the final summary.
- :mod:`.wiring`: the real stage implementations, imported lazily.
"""
