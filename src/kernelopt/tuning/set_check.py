"""``kernelopt tunables --set --check``: an edit run beside the kernel as written before it is written (late35).

``--set`` writes an edit with static checks only (the rules, a guard, the tiles' fit): a knob that lengthens the chain
each program sums in reduced precision passes them and is wrong at a larger size the original handles (v116's fp16
lanes at ``SPLIT=1``; docs/faults.md, l44). With ``--check`` the kernel as written and the edit run at every ``SHAPES``
entry of the task's reference.py in bench workers, as ``tune`` runs a candidate (the original first, its error kept;
the edit checked against the reference and judged beside it by :mod:`kernelopt.tuning.accuracy`): an edit that fails
or is less accurate is not written, the line naming the entry. Opt-in: a check starts a bench worker for each entry
and runs the kernel twice there (about 20 s for v116 in Triton's interpreter), which ``--set`` alone never does.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from kernelopt.errors import KerneloptError
from kernelopt.tuning.bench_worker import BenchPlan
from kernelopt.tuning.candidate import Config, Value
from kernelopt.tuning.kernel_evaluator import EvaluatorSettings
from kernelopt.tuning.problem import Problem, reference_shapes
from kernelopt.tuning.shape_evaluator import ShapesEvaluator
from kernelopt.tuning.shapes import session_shapes
from kernelopt.worker.environment import worker_env

#: one untimed call past the check: the original's error is what is wanted, not its time
CHECK_PLAN = BenchPlan(warmup_calls=1, repetitions=1, retime_rounds=1, extra_rounds=0)


def set_checked(
    folder: Path, original: str, edited: str, changes: Mapping[str, Value], device: str | None
) -> str | None:
    """``None`` where ``edited`` (``original`` with ``changes``) passes its check at every ``SHAPES`` entry of
    ``folder``'s reference.py on ``device`` (cuda by default; cpu: Triton's interpreter) and is no less accurate than
    ``original`` there; else the line saying where and why.

    Raises:
        KerneloptError: the problem cannot be read or its workers cannot start, or the kernel as written fails its
            own check (nothing to compare the edit with).
    """
    problem = Problem.from_folder(folder, device=device)
    shapes = reference_shapes(problem.reference_py, device=problem.device) or [dict(problem.shape or {})]
    entries = session_shapes(problem, shapes)
    written = Config.of({"kernel.py": "as written"})
    env = worker_env(None, device=device)  # as tune's: Triton's interpreter on the CPU
    settings = EvaluatorSettings(plan=CHECK_PLAN)
    scratch = Path(tempfile.mkdtemp(prefix="kernelopt-set-check-"))
    said = ""  # the line that ends the check: the scratch folder stays where it names a log there (fresh24 f20)
    try:

        def source(config: Config) -> str:
            return original if config == written else edited

        with ShapesEvaluator(
            problem, entries, original, source, session_dir=scratch, settings=settings, env=env, original=written
        ) as ev:
            ev.never_cut([written.key()])
            theirs = ev.evaluate([written])[0]
            if not theirs.outcome.ok:
                raise KerneloptError(
                    f"--check: the kernel as written fails its own check ({theirs.outcome.value}: {theirs.reason}): "
                    "there is nothing to compare the edit with",
                    hint="make kernel.py pass first (kernelopt validate runs the same check), or --set without --check",
                )
            ours = ev.check_source(edited, Config.of(dict(changes)))
        said = "" if ours.outcome.ok else (ours.reason or "")
    except KerneloptError as exc:
        said = exc.one_line()
        raise
    finally:
        if str(scratch) not in said:
            shutil.rmtree(scratch, ignore_errors=True)
    if ours.outcome.ok:
        return None
    named = ours.failed_entry and "SHAPES entry" not in (ours.reason or "")
    where = f" on the SHAPES entry {ours.failed_entry}" if named else ""
    return f"the edit fails its check{where} ({ours.outcome.value}: {ours.reason})"
