"""late23: lines of results said true (docs/faults.md, "Results said true (late23, 2026-12-07)")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.mark.timeout(120)
def test_z22_no_knob_on_the_cpu_names_the_launch_options_a_gpu_tunes(tmp_path: Path) -> None:
    """Seen on 2026-12-07 (breaker21): vLLM's merge_attn_states, ``tune --device cpu`` exited 2 "no tunable knob:
    discovery lists only knobs it cannot edit: ...HEAD_SIZE (...), ...PADDED_HEAD_SIZE (...), ...OUTPUT_LSE (...)",
    the launch's num_warps / num_stages (discovery lists them, the CPU drops them) in no word: the line now says
    them and where they are tuned."""
    from kernelopt.errors import UsageError
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folder = tmp_path / "vllm_merge_states"
    shutil.copytree(DATA / "breaker21" / "vllm_merge_states", folder)
    before = (folder / "kernel.py").read_bytes()
    with pytest.raises(UsageError) as raised:
        prepare_folder(TuneRequest(folder=folder, device="cpu"))
    said = str(raised.value)
    assert said.startswith("no tunable knob: discovery lists only knobs it cannot edit: merge_attn_states_kernel:HEAD")
    assert said.endswith(
        "; on the CPU the launch options (num_stages, num_warps) are no knob either: Triton's interpreter ignores "
        "them (tune them on a GPU, --device cuda)"
    ), said
    assert "\n" not in said and (folder / "kernel.py").read_bytes() == before
