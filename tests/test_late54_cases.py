"""late54 (docs/faults.md, "fla_matmul's seconds before its GPU session"): on the H100 of 2026-12-07 21:59 fla_matmul's
``tune --device cuda --budget-wall-s 60`` still spent 45 s in discovery (52 s with the workers' start) before its
session, after late49's l190 pinned its keyed list to its first config there: the run compiled that config, a
128 x 256 x 64 float32 tile, for each of its two launches at each ``SHAPES`` entry's specialization, one after another,
to read nothing the session needs (no pick is kept from a pinned list; static reading needs no value). CPU only: no
worker starts here (the worker's factory is replaced by one that fails the test)."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
FLA = DATA / "breaker25" / "fla_matmul"


class _Started(Exception):
    """Raised where discovery asked for a worker."""


def _no_worker(*args: object, **kwargs: object) -> None:
    raise _Started


def test_l240_a_file_whose_every_list_discovery_pins_is_read_without_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """l240: ``runs_pinned`` (static, the worker's ``pinned_lists`` rule read from the text): fla's literal list of eight
    keyed on ``M, N, K`` is pinned under 8 and not under 4; a list its kernel adds into (newuser12's ``tl.atomic_add``
    beside a literal list of two), a list built by code (leftovers13's comprehension) and an unkeyed one run whole.
    ``discover_evaluated`` as ``tune`` calls it on a GPU (``pin_lists`` 8, the first-call rule given) starts no worker
    for fla and reads its eight configs (without the rule, the loop's and ``tunables``' calls, nothing changes)."""
    from kernelopt.harness.first_call import writes_by_program
    from kernelopt.tunables import evaluate
    from kernelopt.tunables.evaluate import discover_evaluated, runs_pinned

    fla = (FLA / "kernel.py").read_text()
    assert runs_pinned(fla, 8, writes_by_program) and not runs_pinned(fla, 4, writes_by_program)
    assert not runs_pinned(fla.replace("key=['M', 'N', 'K']", "key=[]"), 8, writes_by_program)
    adding = (DATA / "newuser12" / "first_call_literal" / "kernel.py").read_text()
    assert runs_pinned(adding, 8, lambda kernel, keys: False) and not runs_pinned(adding, 8, writes_by_program)
    assert not runs_pinned((DATA / "leftovers13" / "first_call" / "kernel.py").read_text(), 8, writes_by_program)
    own = fla.replace("@triton.heuristics({", "@cached_autotune(cache='x')\n@triton.heuristics({")
    assert not runs_pinned(own, 8, writes_by_program)  # a project's own autotuner over the kernel: read at run time

    monkeypatch.setattr(evaluate, "evaluate_autotune", _no_worker)
    kwargs = dict(reference=FLA / "reference.py", device="cuda", first_call=True, pin_lists=8)
    found, evaluation = discover_evaluated(FLA / "kernel.py", adds_into=writes_by_program, **kwargs)  # type: ignore[arg-type]
    assert evaluation is None
    assert len({t.key.split("].")[0] for t in found if t.key.startswith("matmul_kernel.configs[")}) == 8


def test_l240_tune_on_a_gpu_gives_discovery_the_first_call_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``prepare_folder`` for ``cuda`` passes ``pin_lists`` 8 and the first-call check's own rule (``writes_by_program``,
    the one the worker's ``pinned_lists`` keeps a list whole by), with which fla's discovery starts no worker (the test
    above). Read up to discovery's call (no worker starts)."""
    from kernelopt.harness.first_call import writes_by_program
    from kernelopt.tuning import folder as folder_module

    given: dict[str, object] = {}

    class Stop(Exception):
        pass

    def discover(kernel_py: Path, **kwargs: object) -> None:
        given.update(kwargs)
        raise Stop

    monkeypatch.setattr(folder_module, "discover_evaluated", discover)
    with pytest.raises(Stop):
        folder_module.prepare_folder(folder_module.TuneRequest(folder=str(FLA), device="cuda", out=str(tmp_path)))
    assert given["pin_lists"] == folder_module.LIST_CURRENT_MOST and given["adds_into"] is writes_by_program


def test_l240_the_line_before_the_session_says_what_discovery_did() -> None:
    """The line before a GPU session said "a worker imports it and runs the task at its SHAPES entries" for any
    discovery: since l240 fla's starts no worker, and the line says its text was read; an import alone and a run are
    said as such (a failed run too)."""
    from kernelopt.tunables.model import AutotuneEvaluation
    from kernelopt.tuning.pace import before_line, discovery_work

    assert discovery_work(None) == "its text read, no worker started"
    assert discovery_work(AutotuneEvaluation()) == "a worker imports it to read its autotune lists"
    assert discovery_work(AutotuneEvaluation(shape={"n": 4})) == discovery_work(AutotuneEvaluation(run_failed=True))
    assert before_line(4.0, 60.0, discovery_work(None)) == (
        "4.0 s before the session: kernel.py's discovery (its text read, no worker started); the 60 s wall counts it: "
        "56.0 s left for the session, its workers' start included"
    )
