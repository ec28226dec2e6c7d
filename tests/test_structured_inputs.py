"""Inputs the kernel is entitled to (issue 32 item 5): extra correctness seeds keep the structure
``get_inputs`` builds. A RoPE kernel that reads only half of each cos/sin row (the halves are equal in
tables built the usual way) passes V0 in ``optimize`` and ``batch``, as it does in ``tune``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .conftest import DATA

ROPE = DATA / "tunables" / "tasks" / "rope_half_tables"
CPU_SEEDS = {"KERNELOPT_SEEDS": "3", "KERNELOPT_BENCH_S": "0.05", "TRITON_INTERPRET": "1"}


@pytest.mark.timeout(60)
def test_extra_seeds_permute_whole_rows() -> None:
    import torch

    from kernelopt.harness.inputs import rerandomize, same_values

    freqs = torch.outer(torch.arange(8).float(), torch.rand(4))
    table = torch.cat([freqs, freqs], dim=-1).cos()
    probs = torch.rand(6, 5).softmax(-1)
    scalar = torch.tensor(3.0)
    out = rerandomize([table, probs, scalar, torch.arange(4)], seed=1)
    assert not same_values(out[:2], [table, probs])  # new inputs: a cached result is still caught
    assert torch.equal(out[0][:, :4], out[0][:, 4:])  # each row keeps its two equal halves
    assert torch.allclose(out[1].sum(-1), torch.ones(6))  # each probability row keeps its sum
    assert sorted(map(tuple, out[0].tolist())) == sorted(map(tuple, table.tolist()))  # the same rows, moved
    assert torch.equal(out[2], scalar) and torch.equal(out[3], torch.arange(4))


@pytest.mark.timeout(60)
def test_get_inputs_that_takes_a_seed_gets_it() -> None:
    from kernelopt.harness.inputs import get_inputs_kwargs

    def seeded(n: int, seed: int = 0, device: str = "cpu") -> list[int]:
        return [n, seed]

    def plain(n: int) -> list[int]:
        return [n]

    assert get_inputs_kwargs(seeded, {"n": 4}, "cpu", 2) == {"n": 4, "seed": 2, "device": "cpu"}
    assert get_inputs_kwargs(seeded, {"n": 4, "seed": 9}, "cpu", 2)["seed"] == 9  # the entry's own wins
    assert get_inputs_kwargs(plain, {"n": 4}, "cpu", 2) == {"n": 4}


@pytest.mark.timeout(240)
def test_rope_half_tables_pass_v0_in_optimize_and_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kernelopt.cli.app import main

    for k, v in CPU_SEEDS.items():
        monkeypatch.setenv(k, v)
    problems = tmp_path / "problems"
    shutil.copytree(ROPE, problems / "rope")
    args = ["optimize", str(problems / "rope"), "--root", str(tmp_path / "ws"), "--device", "cpu"]
    assert main([*args, "--max-iters", "0", "--json"]) == 0, capsys.readouterr().err
    data = json.loads(capsys.readouterr().out)
    (v0,) = data["versions"]
    assert v0["result"] == "PASS" and v0["failure_reason"] is None, v0
    monkeypatch.setenv("KERNELOPT_DEVICE", "cpu")
    main(["batch", str(problems), "--out", str(tmp_path / "out"), "--device", "cpu"])
    (row,) = json.loads((tmp_path / "out" / "batch.json").read_text())["rows"]
    assert row["status"] == "PASS" and row["correct"] is True, row["reason"]


@pytest.mark.timeout(120)
def test_a_check_that_fails_on_permuted_inputs_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A kernel that depends on more than a row's structure (here: positions in order) fails on the permuted
    seeds, and the one line says the inputs were permuted, which seed, and which check failed."""
    from kernelopt.cli.app import main

    for k, v in CPU_SEEDS.items():
        monkeypatch.setenv(k, v)
    task = tmp_path / "rope_positions"
    shutil.copytree(ROPE, task)
    kernel = (task / "kernel.py").read_text()
    # the angles recomputed from the position: correct only while row p of the tables is position p
    kernel = kernel.replace(
        "    c = tl.load(cos_ptr + pos * head_dim + offs)\n    s = tl.load(sin_ptr + pos * head_dim + offs)\n",
        "    inv = tl.exp(-(offs * 2.0 / head_dim) * 9.210340371976184)\n"
        "    c = tl.cos(pos * inv)\n    s = tl.sin(pos * inv)\n",
    )
    (task / "kernel.py").write_text(kernel)
    code = main(["optimize", str(task), "--root", str(tmp_path / "ws"), "--device", "cpu", "--max-iters", "0"])
    err = " ".join(capsys.readouterr().err.split())
    assert code != 0
    assert "seed 1: output differs from the reference" in err, err
    assert "get_inputs() takes no seed (give it one where rows must agree across inputs), so this seed's" in err
    assert "with their rows permuted" in err
