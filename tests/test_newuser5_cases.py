"""A new user's first hour on a fresh clone, fifth trial (2026-12-05): bad input at each step, the agent path, and
the fourth trial's leftovers; one test per fix (docs/faults.md, "A new user's first hour, fifth trial")."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from kernelopt.cli.app import main


@pytest.mark.timeout(60)
def test_inputs_that_cannot_fit_the_host_are_refused_before_any_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """n1: a full-size KernelBench level-1 problem on the CPU (45_Average_Pooling_2D: `torch.rand(16, 64, 2048,
    2048)`, 16 GiB; the gate's float64 reference check holds 32 GiB more) was built as it stood: on a 23 GiB machine
    the kernel's out-of-memory killer, not a line. The inputs are sized on the meta device first and refused in one
    line with the figures; a get_inputs the meta device cannot run is built as before."""
    import torch

    from kernelopt.harness import inputs as inputs_mod
    from kernelopt.harness.hostmem import InputsDoNotFit
    from kernelopt.harness.inputs import make_inputs, meta_reference

    monkeypatch.setattr(inputs_mod, "host_available_bytes", lambda: 20 * 2**30)

    def full_size(batch: int = 16, side: int = 2048) -> list[torch.Tensor]:
        return [torch.rand(batch, 64, side, side)]

    with pytest.raises(InputsDoNotFit) as caught:
        make_inputs(full_size, {}, "cpu", 0)
    said = str(caught.value)
    assert "\n" not in said
    assert "get_inputs() asks for 16.00 GiB of tensors, and checking them needs 48.00 GiB" in said, said
    assert "20.00 GiB of memory available, so nothing was built" in said and "--size-scale" in said, said
    assert isinstance(caught.value, MemoryError)  # the tuning engine's out-of-memory rule takes it
    assert make_inputs(full_size, {"batch": 1, "side": 64}, "cpu", 0)[0].shape == (1, 64, 64, 64)  # fits: built

    class Model(torch.nn.Module):  # as KernelBench's 19_ReLU (6 GiB of inputs, 18 GiB with their float64 copy)
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x.clone()  # elementwise; its meta kernel imports nothing (relu's imports torch._dynamo: seconds)

    relu = SimpleNamespace(Model=Model, get_init_inputs=lambda: [], get_inputs=lambda: [torch.rand(5 * 2**20)])
    monkeypatch.setattr(inputs_mod, "host_available_bytes", lambda: 100 * 2**20)  # 20 MiB of inputs fit alone...
    with pytest.raises(InputsDoNotFit) as caught:  # ...but not with its output, its float64 copy and the kernel's
        make_inputs(relu.get_inputs, {}, "cpu", 0, reference=meta_reference(relu))
    assert "makes 20.0 MiB of inputs and 20.0 MiB of outputs, and checking them needs 140.0 MiB" in str(caught.value)

    def needs_values(n: int = 8) -> list[torch.Tensor]:  # .item() cannot run on the meta device: no estimate
        k = int(torch.randint(1, 4, (1,)).item())
        return [torch.rand(n * k)]

    assert make_inputs(needs_values, {}, "cpu", 0)[0].numel() in (8, 16, 24)


@pytest.mark.timeout(120)
def test_validate_of_a_shapes_entry_past_the_host_s_memory_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n1, end to end: `SHAPES = [{"n": 2**38}]` (1 TiB of fp32) under `validate --device cpu` said torch's
    allocator's "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you
    tried to allocate 1099511627776 bytes. Error code 12"; any size between the free memory and what the kernel
    refuses at once was built and swapped or killed. Now: what it needs and what there is, exit 2."""
    folder = tmp_path / "huge"
    folder.mkdir()
    (folder / "kernel.py").write_text("def run(x):\n    return x * 2\n")
    (folder / "reference.py").write_text(
        "import torch\n\nSHAPES = [{'n': 2**38}]\n\n\ndef get_inputs(n=1024):\n    return [torch.rand(n)]\n\n\n"
        "def reference(x):\n    return x * 2\n"
    )
    from kernelopt.workspace import Workspace

    ws = Workspace.create("huge", kernel=folder / "kernel.py", reference=folder / "reference.py", root=tmp_path)
    capsys.readouterr()
    assert main(["validate", str(ws.root), "--device", "cpu"]) == 3  # this machine, as tune says it (newuser6's n10)
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "get_inputs(n=274877906944) asks for 1.00 TiB of tensors, and checking them needs 3.00 TiB" in err, err
    assert "nothing was built" in err, err
    assert "alloc_cpu" not in err


@pytest.mark.timeout(60)
def test_a_significant_test_without_a_claim_says_which_rule_withheld_it() -> None:
    """n2: a 2.4x slowdown timed beside three long samples (a preemption) gave "p 0.00049, d -0.04: no significant
    change" (newuser4 saw "no significant change" beside p 4.6e-05 in a batch row): the interval 0.29-0.69x and the
    p say it changed; Cohen's d, which the long samples make small, is what withheld the claim. The words now say
    so, and a test that is not significant keeps its words."""
    import random

    from kernelopt.harness.stats import Verdict, claim_text, compare_interleaved

    rng = random.Random(3)
    a = [100 * (1 + rng.random() * 0.05) for _ in range(80)]
    b = [240 * (1 + rng.random() * 0.05) for _ in range(80)]
    for k in (5, 31, 60):
        a[k], b[k + 1] = 20000.0, 20000.0
    slower = compare_interleaved(a, b, 2.0)
    assert slower.verdict is Verdict.NO_CHANGE and slower.ci_high < 0.7 and slower.p_value is not None
    assert slower.p_value < 0.001 and slower.effect_size_d is not None and abs(slower.effect_size_d) < 0.2
    said = claim_text(slower.verdict.value, slower.p_value, slower.effect_size_d)
    assert (
        said
        == "p 0.00049, d -0.04: no claim: Cohen's d -0.04 is not over 0.2 (the samples spread too widely: a few long ones)"
    )
    assert "no significant change" not in said
    assert claim_text("no significant change", 0.3, 0.05) == "p 0.3, d 0.05: no significant change"
    assert claim_text("no significant change", 0.01, 0.9) == (
        "p 0.01, d 0.90: no claim: its interval does not clear the margin, or no re-time was made"
    )


@pytest.mark.timeout(120)
def test_plan_with_nothing_to_plan_exits_1_with_its_reason_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n3: `kernelopt plan WS --device cpu` of a kernel.py with no knob printed "v1: no plan: the rules backend has
    nothing it can move in v1: kernel.py has no tunable knob ..." and exited 0, so `plan && implement` went on to
    implement's "no plans/v<N>_plan.md to implement; run Stage 2 (kernelopt plan) first", which had just run. No
    plan written is now exit 1 (the stage's "no", as validate's FAIL), its reason printed, `--json` too."""
    import json

    folder = tmp_path / "noknob"
    folder.mkdir()
    (folder / "kernel.py").write_text("def run(x):\n    return x * 2\n")
    (folder / "reference.py").write_text(
        "import torch\n\nSHAPES = [{'n': 1024}]\n\n\ndef get_inputs(n=1024):\n    return [torch.rand(n)]\n\n\n"
        "def reference(x):\n    return x * 2\n"
    )
    from kernelopt.workspace import Workspace

    ws = Workspace.create("noknob", kernel=folder / "kernel.py", reference=folder / "reference.py", root=tmp_path).root
    capsys.readouterr()
    assert main(["plan", str(ws), "--device", "cpu"]) == 1
    out = capsys.readouterr().out.strip()
    assert out.startswith("v0: no plan: ") and "kernel.py has no tunable knob" in out, out
    assert main(["plan", str(ws), "--device", "cpu", "--json"]) == 1
    said = json.loads(capsys.readouterr().out)
    assert said["plan"] is None and "no tunable knob" in said["reason"]
    assert not list((ws / "plans").glob("*.md"))


@pytest.mark.timeout(120)
def test_init_s_probe_of_a_reference_whose_error_spans_lines_says_its_first_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n4: `SHAPES = [{"n": 2**70}]` (an odd size) under `init` said 'dtype: not inferred (the probe of reference.py
    failed: ")': torch's message ("... with error \\"Overflow when unpacking long long" and a C++ backtrace) spans
    lines, and the parent reads the last line of the probe's stderr. The probe now ends its stderr with the error's
    first line."""
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "kernel.py").write_text("def run(x):\n    return x * 2\n")
    (folder / "reference.py").write_text(
        "import torch\n\nSHAPES = [{'n': 2**70}]\n\n\ndef get_inputs(n=1024):\n    return [torch.rand(n)]\n\n\n"
        "def reference(x):\n    return x * 2\n"
    )
    root = tmp_path / "root"
    ref, ker = str(folder / "reference.py"), str(folder / "kernel.py")
    assert main(["init", "odd", "--kernel", ker, "--reference", ref, "--root", str(root)]) == 0
    said = capsys.readouterr()
    line = next(x for x in (said.out + said.err).splitlines() if x.startswith("dtype: not inferred"))
    assert "the probe of reference.py failed: TypeError: rand(): argument 'size' failed to unpack" in line, line
    assert "Overflow when unpacking long long" in line and "frame #" not in line, line


@pytest.mark.timeout(60)
def test_init_s_dtype_probe_reads_a_full_size_problem_s_dtypes_without_building_it(tmp_path: Path) -> None:
    """n1, the probe: `init` of KernelBench's 19_ReLU (no SHAPES: `torch.rand(4096, 393216)`, 6 GiB) built its
    inputs for real to read their dtype (and 16 GiB for 45_Average_Pooling_2D); it sizes them on the meta device
    first, and builds only small ones (where it runs the reference to see that it runs)."""
    from kernelopt.harness.infer import _probe
    from kernelopt.tuning.checks import reset_resident_peak, resident_bytes

    (tmp_path / "reference.py").write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    def forward(self, x):\n"
        "        return torch.relu(x)\n\n\ndef get_inputs(n=4096):\n    return [torch.rand(n, 393216)]\n\n\n"
        "def get_init_inputs():\n    return []\n"
    )
    if not reset_resident_peak():
        pytest.skip("this kernel does not reset a process's peak resident size (clear_refs)")
    found = _probe(tmp_path / "reference.py")
    assert found["elements"] == {"torch.float32": 2 * 4096 * 393216} and found["outputs_seen"], found
    peak = resident_bytes("VmHWM")
    assert peak is not None and peak < 2 * 2**30, peak  # 6 GiB of inputs were never built
    (tmp_path / "reference.py").write_text(
        "import torch\n\n\ndef get_inputs(n=8):\n    return [torch.rand(n)]\n\n\ndef reference(x):\n"
        "    raise RuntimeError('boom')\n"
    )
    assert _probe(tmp_path / "reference.py")["reference_error"] == "RuntimeError: boom"  # small: run for real


@pytest.mark.timeout(60)
def test_a_report_onto_a_file_system_that_takes_no_file_is_one_line_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n5: `kernelopt report WS --html /proc/x.html` (a folder that exists, on a file system that makes no new file)
    was "kernelopt: internal error: FileNotFoundError: [Errno 2] No such file or directory:
    '/proc/.x.html.kernelopt-...tmp' (crash log: ...)", exit 70; the report's writer now says the place, exit 3."""
    from tests.backends_support import make_ws

    ws = make_ws(tmp_path)
    if not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    assert main(["report", str(ws.root), "--html", "/proc/x.html"]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "internal error" not in err, err
    assert err.startswith("kernelopt: error: the file system refused writing /proc/.x.html") and "errno 2" in err, err


@pytest.mark.timeout(60)
def test_implement_refuses_the_plan_of_a_recorded_version_and_flags_come_before_the_workspace_s_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """n6: `kernelopt implement WS` after the README's CPU demo (V2 converged and recorded as FAIL) took
    plans/v2_plan.md again: it re-ran v2's whole tuning session (9 candidates) into kernel.py, outside any version.
    n7: `plan WS --planner nope` said "no profiles/v<N>/summary.json to plan from; run Stage 1 ... first" and
    `implement WS --implementer nope` "no plans/v<N>_plan.md ...; run Stage 2 ... first": after doing so, the user
    learnt that the flag was misspelt."""
    from tests.backends_support import make_ws

    ws = make_ws(tmp_path)
    assert main(["plan", str(ws.root), "--planner", "nope"]) == 2
    assert "unknown planner backend 'nope'" in capsys.readouterr().err
    assert main(["implement", str(ws.root), "--implementer", "nope"]) == 2
    assert "unknown implementer backend 'nope'" in capsys.readouterr().err
    ws.memory.create("v2")
    (ws.plans_dir / "v2_plan.md").write_text("the plan of a version the loop recorded\n")
    before = (ws.root / "kernel.py").read_bytes()
    assert main(["implement", str(ws.root)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "the newest plan, plans/v2_plan.md, belongs to a recorded version (memory/v2.json)" in err, err
    assert "plan the next version first (kernelopt plan), or pass --version 2" in err, err
    assert (ws.root / "kernel.py").read_bytes() == before


@pytest.mark.timeout(60)
def test_agent_install_where_no_file_can_be_written_names_its_own_flag_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """n8: `kernelopt agent install claude --project RO` (a read-only mount) said "...; copy the workspace to a
    writable folder (or pass --root to create it elsewhere)": agent install has neither; `--project /proc` was a
    crash log and exit 70 ("FileNotFoundError: ... '/proc/.agents'"). Both are the place's, in its own words."""
    import errno

    from kernelopt.cli.agent import SKILL_FOLDER
    from kernelopt.errors import write_refusal

    said = write_refusal(OSError(errno.EROFS, "Read-only file system", "/ro/.claude"), place=SKILL_FOLDER)
    assert said is not None and said.exit_code == 3
    assert said.one_line() == (
        "the file system is read-only writing /ro/.claude (errno 30); copy the skill to a writable folder (or pass "
        "--project to create it elsewhere)"
    )
    if not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    assert main(["agent", "install", "codex", "--project", "/proc"]) == 3
    err = capsys.readouterr().err.strip()
    assert err == (
        "kernelopt: error: the file system refused writing /proc/.agents (No such file or directory, errno 2); name "
        "a folder this user can write"
    ), err


@pytest.mark.timeout(60)
def test_the_headline_against_the_reference_writes_a_large_factor_out() -> None:
    """n9: `kernelopt optimize examples/softmax --device cpu --max-iters 1` (a Triton kernel in the interpreter
    against torch on the CPU) ended "best: v0 at 260500 us ... 3.39e+03x slower than the reference (PyTorch eager)":
    the one rule for a figure in text (`digits.sig`) writes it out below 1e7, as the latency beside it."""
    from kernelopt.report.headline import interval_text, speedup_words

    assert (
        speedup_words(1 / 3391.2, "the reference (PyTorch eager)") == "3390x slower than the reference (PyTorch eager)"
    )
    said = interval_text(1 / 3391.2, 0.000173, 0.000808, "the reference")
    assert said.startswith("3390x slower than the reference, not reliable: its 95 % interval 1240-5780x slower"), said
    assert speedup_words(41.14, "V0") == "41.1x over V0"
