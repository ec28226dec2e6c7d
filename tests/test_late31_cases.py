"""review22's seen items (late31, 2026-12-07): each case's one rule, proved in process on the CPU."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

DATA = Path(__file__).parent / "data"


def test_z90_a_kernel_py_saved_during_the_run_is_not_called_as_left_nor_given_a_cp(tmp_path: Path) -> None:
    """n127's last line said DIR/kernel.py "is as you left it" and gave `cp BEST MINE` from its bytes differing from
    the best's alone: a save of the user's during the run was called as they left it, and the cp replaced it. Now the
    bytes the run started from are read: a save is named and only the diff is given; an untouched file keeps n127's
    line."""
    from kernelopt.cli.optimize import take_back
    from kernelopt.loop.summary import LoopSummary

    folder, ws = tmp_path / "my dir", tmp_path / "kernel_opt_k"
    folder.mkdir()
    ws.mkdir()
    (ws / "kernel.py").write_text("BLOCK = 4096\n")
    (folder / "kernel.py").write_text("BLOCK = 128  # my save during the run\n")
    values: dict[str, object] = {name: None for name in LoopSummary.model_fields}
    values.update(workspace=str(ws), best_version="v2")
    summary = LoopSummary.model_construct(**values)  # type: ignore[arg-type]
    line = take_back(folder, summary, b"BLOCK = 128\n")
    assert line is not None and "saved during the run" in line and "as you left it" not in line, line
    commands = re.findall(r"`([^`]+)`", line)
    assert [c.split()[0] for c in commands] == ["diff"], line  # never a cp that loses the save
    diff = subprocess.run(commands[0], shell=True, capture_output=True, text=True, check=False)
    assert diff.returncode == 1 and "-BLOCK = 128  # my save during the run" in diff.stdout
    assert (folder / "kernel.py").read_text() == "BLOCK = 128  # my save during the run\n"
    untouched = take_back(folder, summary, (folder / "kernel.py").read_bytes())
    assert untouched is not None and "as you left it" in untouched and "`cp " in untouched


_ROWS = """import torch
import triton
import triton.language as tl


@triton.jit
def double_rows(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * N + cols[None, :]
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    y = torch.empty_like(x)
    BLOCK_M = 1
    M, N = x.shape
    BLOCK_N = triton.next_power_of_2(N)
    double_rows[(triton.cdiv(M, BLOCK_M),)](x, y, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y
"""


def test_z91_tunables_set_refuses_an_edit_tune_refuses_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tune writes a pick only where the guard gives a text for it (``guard_edit``); `tunables --set` wrote any edit
    and said the guard's refusal as a warning, "written as asked". A row kernel whose ``BLOCK_N`` is
    ``next_power_of_2(N)`` (up to 2^20 where the original's one row a program runs): ``--set BLOCK_M=16`` wrote tiles
    of 16 x 2^20 values, past Triton's limit at sizes the original handles (exit 0). Now --set (and --dry-run) refuse
    it in one line by the guard's own refusal, the file as it was; a grid counted by a helper not handed the tile
    is refused too (review22's l22 form, a grid bound apart reading cfg[0], is written since breaker30's q100, the
    grid reading the tile); a setting the guard passes is still written. (``BLOCK_M`` is set before ``N`` is known:
    the guard ``if N <= 65536`` that keeps 16 rows within the limit, written since refusals23, cannot be placed.)"""
    from kernelopt.cli.app import main
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit, unproven_edit

    kernel = tmp_path / "kernel.py"
    kernel.write_text(_ROWS)
    edited = apply_source(_ROWS, {"BLOCK_M": 16}).new_source
    assert guard_edit(_ROWS, edited).new_source is None  # tune's pick: not written
    argv = ["tunables", str(kernel), "--no-evaluate", "--set"]
    for extra in ([], ["--dry-run"]):
        assert main([*argv, "BLOCK_M=16", *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "holds at most 1048576 values in Triton" in err, err
        assert err.count("not written") == 1 and unproven_edit(_ROWS, edited) in err
        assert kernel.read_text() == _ROWS
    assert main([*argv, "num_warps=8"]) == 0  # no tile moves: written
    assert "num_warps=8" in kernel.read_text() and "warning" not in capsys.readouterr().err

    source = (DATA / "leftovers22" / "grid_class" / "kernel.py").read_text()  # a grid the tile is not handed to
    kernel.write_text(source)
    assert main([*argv, "BLOCK=512"]) == 2 and kernel.read_text() == source
    assert "and the launch does not hand it BLOCK" in capsys.readouterr().err

    source = (DATA / "leftovers22" / "cfg_index" / "kernel.py").read_text()  # review22's seen l22 form
    launch = "    scale_kernel[(triton.cdiv(n, cfg[0]),)]("
    assert launch in source
    source = source.replace(launch, "    grid = (triton.cdiv(n, cfg[0]),)\n    scale_kernel[grid](")
    kernel.write_text(source)  # since breaker30's q100 the hoisted line goes above the grid, which reads it: written
    assert main([*argv, "BLOCK=512"]) == 0
    assert "BLOCK = 512  # kernelopt: tuned\n    grid = (triton.cdiv(n, BLOCK),)\n" in kernel.read_text()


def net_workspace(root: Path, v0: dict[str, bytes]) -> SimpleNamespace:
    """What ``HarnessGate._net`` reads of a workspace at ``root`` whose V0 commit held the sources ``v0``."""
    return SimpleNamespace(
        root=root,
        kernel_py=root / "kernel.py",
        state_dir=root / ".kernelopt",
        memory=SimpleNamespace(read=lambda _v: SimpleNamespace(git_commit_hash="v0")),
        kernel_at=lambda _ref, _v: v0["kernel.py"],
        paths_at=lambda _ref: sorted(v0),
        bytes_at=lambda _ref, name: v0[name],
    )


_DOUBLE = """import torch

SHAPES = [{"n": 64}]


def get_inputs(n: int = 64, device: str = "cpu"):
    return [torch.randn(n, generator=torch.Generator().manual_seed(0)).to(device)]


def reference(x):
    return x * 2
"""
_SCALED = "from helper import scale_of\n\n\ndef run(x):\n    return x * scale_of(x.numel())\n"


def test_z92_a_rewrite_of_a_helper_alone_is_netted_its_original_beside_v0_s_helper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review22's seen r21 item: an agent's rewrite that changes only a helper module (kernel.py's bytes as V0's) was
    not netted at all (the net's "did the kernel change" read kernel.py's text: ``original == written``), so a helper
    wrong at a size SHAPES does not name passed at the entries alone. Now the change is read from the digest of every
    source (the rule the verdict is kept by): the net is cast, the written kernel beside the changed helper and the
    original beside V0's (a folder of V0's sources), and the one check call the net makes is routed by side even
    where the two kernel.py texts are equal."""
    from kernelopt.loop import wiring
    from kernelopt.tuning.code_net import check_code_change as real_check

    root = tmp_path / "ws"
    root.mkdir()
    (root / "kernel.py").write_text("from helper import scale\n")
    (root / "reference.py").write_text("SHAPES = [{'n': 4}]\n")
    (root / "helper.py").write_text("scale = 2\n")
    v0 = {name: (root / name).read_bytes() for name in ("kernel.py", "reference.py", "helper.py")}
    cast: list[tuple[str, str | None]] = []

    def check_code_change(folder: Path, original: str, written: str, **kw: object) -> SimpleNamespace:
        theirs = kw.get("original_root")
        mine = (folder / "helper.py").read_text()
        cast.append((mine, (Path(str(theirs)) / "helper.py").read_text() if theirs is not None else None))
        said = "the written kernel fails at n=5" if mine != "scale = 2\n" else "checked at sizes SHAPES do not name"
        return SimpleNamespace(failed=said if "fails" in said else None, checks=[said], line=lambda: said)

    monkeypatch.setattr(wiring, "check_code_change", check_code_change)
    workspace = net_workspace(root, v0)
    gate = wiring.HarnessGate(device="cpu", net=True)
    assert gate._net(workspace, None).failed is None and cast == []  # type: ignore[arg-type]  # V0 itself: no net
    (root / "helper.py").write_text("scale = 3\n")  # the rewrite: the helper alone
    read = gate._net(workspace, None)  # type: ignore[arg-type]
    assert read.failed is not None and read.failed.startswith("correct at the timed sizes only"), read
    assert cast == [("scale = 3\n", "scale = 2\n")]  # the written beside its helper, the original beside V0's
    # the net itself, on the CPU: V0's helper scales by 2 at every n; the rewrite's by 3 past the one entry (n=64)
    folders = {"now": tmp_path / "now", "v0": tmp_path / "v0"}
    for side, helper in (("now", "2.0 if n <= 64 else 3.0"), ("v0", "2.0")):
        folders[side].mkdir()
        (folders[side] / "reference.py").write_text(_DOUBLE)
        (folders[side] / "kernel.py").write_text(_SCALED)
        (folders[side] / "helper.py").write_text(f"def scale_of(n):\n    return {helper}\n")
    written = "".join([_SCALED[:5], _SCALED[5:]])  # the same text, another object: each is run on its own side
    kw = {"device": "cpu", "session_dir": tmp_path / "net", "original_root": folders["v0"]}
    net = real_check(folders["now"], _SCALED, written, **kw)  # type: ignore[arg-type]
    assert net.failed is not None and "fails at n=65" in net.line() and "where the original passes" in net.line()
