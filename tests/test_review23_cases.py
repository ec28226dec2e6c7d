"""review23: the twenty-second session's riskier rules read as a reviewer would (docs/faults.md, "Review of the
twenty-second session"): r30 an index output judged only by an input its reference's indices truly order... Each
test is a case, on the CPU, in process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import check_in_process

DATA = Path(__file__).parent / "data" / "review23"


@pytest.mark.parametrize(
    ("problem", "said"),
    [
        ("mask_positions", "differs from the reference"),
        ("keyed_argsort", None),
        ("radix_bucket", "selects other values than the reference's indices from input 1 along dim 1"),
    ],
)
def test_r30_an_index_output_is_judged_by_every_input_its_reference_orders_and_no_other(
    tmp_path: Path, problem: str, said: str | None
) -> None:
    """r30: l30 read the reference's indices as a sort of any input whose values they gather as its k largest or
    smallest, and any permutation gathers all of a row's values. Position ids reversed (a mask summed from the row's
    end) passed as a sort of the all-ones mask; a valid dispatch ordering each expert's tokens otherwise FAILED as a
    sort of the router's scores. Now a permutation must sort the input and move something: the wrong kernel fails,
    the right one passes, and a radix sort's first pass alone still fails against the keys (fresh23's f10)."""
    result = check_in_process(Path(shutil.copytree(DATA / problem, tmp_path / problem)))
    if said is None:
        assert result.failure is None, result.failure
    else:
        assert result.failure is not None and said in result.failure.message, result.failure


def test_r31_an_agent_whose_api_fails_after_some_tool_calls_is_unavailable_not_unfinished(
    ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """r31: d33 read every timed-out run with a tool call as a model that keeps calling tools, ``agent_unfinished``,
    a FAIL with the lesson "give it more time", before looking at what the run said. A model that made two calls and
    then met an overloaded API (Claude Code's "API Error: 529 ... Retrying", until kernelopt's limit stopped it) is
    the agent's infrastructure failing: ``AGENT_UNAVAILABLE``, as any timeout was before d33, not a lesson."""
    import shlex
    import sys

    from kernelopt.backends.agent_cli import AgentCliImplementer
    from kernelopt.stages.implement import stage_context

    from .backends_support import AGENTS, make_plan, make_ws, write_plan
    from .backends_support import implement as run_implement

    ws = make_ws(ws_root)
    busy = {"command": f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENTS / 'busy.py'))}", "timeout_s": 1.0}
    plan = make_plan()
    write_plan(ws, plan)
    monkeypatch.setenv("BUSY_STALL", "2")
    report = run_implement(stage_context(ws, 1, plan=plan), AgentCliImplementer(busy))
    assert report.result.value == "AGENT_UNAVAILABLE", report
    assert "did not finish" not in (report.reason or ""), report.reason
