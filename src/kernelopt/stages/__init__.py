"""The stage runner: Stage 2 (plan) and Stage 3 (implement) under the guard, for the commands and the loop.

``kernelopt plan``, ``kernelopt implement`` and ``kernelopt optimize`` all run a backend through this
package, so there is one way to build and call a backend, one allowance table (:mod:`.allowance`),
one guard (:mod:`.guard`: write guard, protected-file content, git state, secrets) and one
repeated-plan check (:mod:`.plan`).

Layering: ``cli -> loop -> stages -> features (planning, backends, harness, ...) -> foundation``. This
package imports feature packages, never ``kernelopt.loop`` or ``kernelopt.cli``.
"""
