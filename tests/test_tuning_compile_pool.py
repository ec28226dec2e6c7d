"""The compile pool on the CPU: candidates run once on the compile shape (never the full problem), a hang is
killed at the adaptive limit and its worker starts again, failures are results with their reasons."""

from __future__ import annotations

import os
import time
from pathlib import Path

from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.compile_pool import AdaptiveTimeout, CompilePool, CompileSettings, worker_cap
from kernelopt.tuning.problem import Problem

DATA = Path(__file__).parent / "data" / "tuning"
GIB = 1024**3


def test_the_adaptive_limit_starts_at_the_ceiling_then_follows_the_slowest_compile() -> None:
    limit = AdaptiveTimeout(floor_s=15.0, ceiling_s=300.0, factor=3.0)
    assert limit.current() == 300.0
    limit.observe(2.0)
    assert limit.current() == 15.0  # 3 x 2 s is under the floor
    limit.observe(40.0)
    assert limit.current() == 120.0
    limit.observe(500.0)
    assert limit.current() == 300.0


def test_worker_count_is_capped_by_host_and_device_memory() -> None:
    assert worker_cap(None, cpu_count=16, available_bytes=100 * GIB, device_cap=None) == 16
    assert worker_cap(None, cpu_count=16, available_bytes=9 * GIB, device_cap=None) == 4
    assert worker_cap(8, cpu_count=16, available_bytes=100 * GIB, device_cap=3) == 3
    assert worker_cap(None, cpu_count=2, available_bytes=GIB, device_cap=0) == 1


def test_compile_results_and_a_hang_killed_at_the_adaptive_limit(tmp_path: Path) -> None:
    problem = Problem.from_folder(DATA / "add", device="cpu")
    names = ["ok", "syntax_error", "wrong_small", "oom_raise", "hang", "ok"]
    paths = []
    for i, name in enumerate(names):
        path = tmp_path / "candidates" / f"{i}-{name}" / "kernel.py"
        path.parent.mkdir(parents=True)
        path.write_text((DATA / "candidates" / f"{name}.py").read_text())
        paths.append(path)
    triton = tmp_path / "candidates" / "triton" / "kernel.py"
    triton.parent.mkdir()
    triton.write_text((DATA / "add" / "kernel.py").read_text())
    settings = CompileSettings(workers=1, timeout_floor_s=1.5, timeout_ceiling_s=30.0)
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    pool = CompilePool(problem, session_dir=tmp_path, settings=settings, env=env)
    try:
        t0 = time.monotonic()
        results = pool.compile([*paths, triton])
        wall = time.monotonic() - t0
        assert pool.compile_shape == "n=512"  # 16384 shrunk along its leading size, remainder mod 512 kept
        assert pool.starts == 2  # started again after the hang, for the next candidate
    finally:
        pool.close()
    outcomes = [r.outcome for r in results]
    assert outcomes == [
        Outcome.OK,
        Outcome.COMPILE_ERROR,
        Outcome.WRONG_RESULT,
        Outcome.OUT_OF_MEMORY,
        Outcome.COMPILE_TIMEOUT,
        Outcome.OK,
        Outcome.OK,
    ], [r.reason for r in results]
    assert results[0].compile_s is not None and results[6].compile_s is not None
    assert results[1].reason == "loading failed: SyntaxError: invalid syntax (kernel.py, line 2) (kernel.py:2)"
    assert (results[2].reason or "").startswith("on the compile shape (n=512): output differs from the reference")
    hang = results[4].reason or ""
    assert hang.startswith("compiling: no reply within ") and hang.endswith("(the adaptive compile limit)")
    limit = float(hang.removeprefix("compiling: no reply within ").split(" s")[0])
    assert 1.5 <= limit < 30.0  # adapted from the compilations seen, not the ceiling
    print(f"\n{len(results)} candidates compiled in {wall:.1f} s (limit for the hang {limit:g} s)")


def test_sys_exit_in_reference_py_is_bad_input_and_the_parent_hears_where_reference_py_runs(tmp_path: Path) -> None:
    """The compile worker's setup took only an Exception from reference.py as bad input: ``sys.exit(4)`` in
    ``get_inputs`` ended the worker itself (exit 3, the environment). It also tells its parent where the user's
    code runs (``USER_CODE`` events), so a process that dies there is named as reference.py's fault."""
    import shutil

    import pytest

    from kernelopt.tuning.compile_pool import CompileInit, CompileService
    from kernelopt.worker.messages import USER_CODE, FailureKind
    from kernelopt.worker.server import EventSink, SetupRefused

    folder = Path(shutil.copytree(DATA / "add", tmp_path / "add"))
    reference = folder / "reference.py"
    reference.write_text(
        reference.read_text().replace("    return [torch.randn", "    raise SystemExit(4)\n    return [torch.randn")
    )
    heard: list[tuple[str, object]] = []

    class Heard(EventSink):
        def emit(self, name: str, **data: object) -> None:
            heard.append((name, data.get("where")))

    init = CompileInit(problem=Problem.from_folder(folder, device="cpu"), device="cpu")
    with pytest.raises(SetupRefused) as refused:
        CompileService().setup(init.model_dump(mode="json"), Heard(None))
    assert refused.value.kind is FailureKind.BAD_INPUT
    assert refused.value.reason == "reference.py called sys.exit(4) while the problem was built"
    assert heard == [
        (USER_CODE, "reference.py (its import)"),
        (USER_CODE, None),
        (USER_CODE, "reference.py's get_inputs()"),
        (USER_CODE, None),
    ]
