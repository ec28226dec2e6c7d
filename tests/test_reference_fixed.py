"""A chunk the reference fixes is one answer everywhere (issue 32's one discovery; breaker5 i6's leftover).

``chunk_cumsum`` (tests/data/breaker5) walks its sequence in chunks of ``BT=CHUNK``, and its reference walks it in
chunks of its own ``CHUNK = 16``: any other chunk is another operator. ``tune`` found that out by timing four wrong
candidates (48 s on the CPU) and refused in one line, while ``kernelopt tunables`` listed ``CHUNK`` as a knob.
Both now read it from the two sources before anything runs (``kernelopt.tunables.fixed``) and say the same.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.tunables import discover
from kernelopt.tunables.fixed import fixed_reason, reference_constants

CHUNK_CUMSUM = Path(__file__).parent / "data" / "breaker5" / "chunk_cumsum"
REASON = fixed_reason("CHUNK", 16)


@pytest.mark.timeout(60)
def test_tunables_lists_the_chunk_as_fixed_by_the_reference_with_tune_s_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tunables", str(CHUNK_CUMSUM), "--json"]) == 0
    listed = {t["key"]: t for t in json.loads(capsys.readouterr().out)}
    assert listed["CHUNK"]["value"] == 16 and listed["CHUNK"]["refused_reason"] == REASON
    assert listed["_chunk_gated_cumsum:num_warps"]["refused_reason"] is None  # the launch's own knobs stay
    assert main(["tunables", str(CHUNK_CUMSUM)]) == 0
    said = " ".join(capsys.readouterr().err.split())
    assert f"CHUNK is not editable: {REASON}" in said


@pytest.mark.timeout(60)
def test_tune_refuses_it_before_any_candidate_in_the_same_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "chunk_cumsum"
    shutil.copytree(CHUNK_CUMSUM, folder)
    before = (folder / "kernel.py").read_bytes()
    code = main(["tune", str(folder), "--device", "cpu", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2, err
    line = err.strip().splitlines()[-1]
    assert line == (
        f"kernelopt: error: no tunable knob: discovery lists only knobs it cannot edit: CHUNK ({REASON}); on the CPU "
        "the launch options (num_stages, num_warps) are no knob either: Triton's interpreter ignores them (tune them "
        "on a GPU, --device cuda)"
    )
    assert (folder / "kernel.py").read_bytes() == before
    assert not list((tmp_path / "out").rglob("record.jsonl"))  # no candidate ran


@pytest.mark.timeout(60)
def test_the_planner_s_knobs_leave_it_out(tmp_path: Path) -> None:
    from kernelopt.planning.rules import discover_knob_values

    knobs, _, why = discover_knob_values(CHUNK_CUMSUM / "kernel.py", "cpu")
    assert why is None and knobs is not None
    assert "CHUNK" not in {k.name for k in knobs} and "BT" not in {k.name for k in knobs}


@pytest.mark.timeout(30)
def test_only_a_constant_the_reference_assigns_alike_and_computes_with_is_fixed(tmp_path: Path) -> None:
    operator = "def reference(x):\n    return x.cumsum(0)[::CHUNK]\n"
    assert reference_constants("CHUNK = 16\n" + operator) == {"CHUNK": 16}
    assert reference_constants("CHUNK = 16\ndef get_inputs(n=CHUNK):\n    return [n]\n") == {}  # a size only
    assert reference_constants("from kernel import CHUNK\n" + operator) == {}  # it follows kernel.py
    assert reference_constants("CHUNK = 16\n") == {}  # never read
    assert reference_constants("def broken(:\n") == {}
    kernel = tmp_path / "kernel.py"
    shutil.copy(CHUNK_CUMSUM / "kernel.py", kernel)
    reference = tmp_path / "reference.py"
    reference.write_text("CHUNK = 32\n" + operator)  # another value: the kernel's own chunk is its knob
    assert next(t for t in discover(kernel) if t.key == "CHUNK").refused_reason is None
    reference.write_text("CHUNK = 16\n" + operator)
    assert next(t for t in discover(kernel) if t.key == "CHUNK").refused_reason == REASON
    other = tmp_path / "elsewhere.py"
    other.write_text("CHUNK = 32\n" + operator)  # a reference given by path is the one read
    assert next(t for t in discover(kernel, reference=other) if t.key == "CHUNK").refused_reason is None
