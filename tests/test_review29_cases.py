"""review29: faults found reading the landings of 2026-12-07 (docs/faults.md, "Review of the twenty-sixth session's
landings (review29, 2026-12-07)"). Each test failed on main before its fix; none runs a kernel."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_review28_cases import _autotuned
from tests.test_wrongkernel30_cases import V158

#: v158's launcher check (``BLOCK = 256``, masked), replaced below by a bound from below
_V158_CHECK = '    assert BLOCK <= 1024, "the kernel keeps a block to 1024 lanes"\n'


@pytest.mark.parametrize(
    ("params", "check", "guard"),
    [
        ("x", "    assert BLOCK >= n\n", "if n <= 64:"),
        ("x", "    if n > BLOCK:\n        raise ValueError(n)\n", "if n <= 64:"),
        ("x", "    assert BLOCK > n\n", "if (n + 1) <= 64:"),
        ("x", "    assert BLOCK * 2 >= x.shape[-1]\n", "if x.shape[-1] <= 128:"),
        ("x, lo=256", "    assert BLOCK >= lo\n", "if lo <= 64:"),
    ],
    ids=["ge", "raise", "strict", "times", "param"],
)
def test_r90_a_tile_bounded_from_below_by_a_size_is_guarded_by_it(params: str, check: str, guard: str) -> None:
    """A host check bounding the tile from below by a value that is no integer (``assert BLOCK >= n``, ``if n >
    BLOCK: raise``) was read by no rule: ``_bounded_tiles`` reads a floor only where it is an integer. ``BLOCK = 64``
    over 256 was written plainly, failing the check at every ``n`` from 65 to 256, where the original ran. A smaller
    tile is now written only where the floor is within it; a larger one passes wherever the original did."""
    from kernelopt.tunables.guard import guard_edit

    text = (V158 / "kernel.py").read_text(encoding="utf-8")
    base = text.replace("def run(x):", f"def run({params}):").replace(_V158_CHECK, check)
    smaller = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 64\n"))
    assert smaller.new_source is not None, smaller.note
    assert f"    BLOCK = 256\n    {guard}  # kernelopt: tuned\n        BLOCK = 64\n" in smaller.new_source, smaller.note
    larger = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert larger.new_source is not None and "    BLOCK = 512\n" in larger.new_source and larger.note is None


def test_r90_a_floor_that_reads_another_tile_is_no_guard() -> None:
    """A floor that reads a tile (``assert BLOCK >= HALF * 2``, ``HALF`` a second setting) is no size a guard can
    test: a smaller tile is refused, saying so."""
    from kernelopt.tunables.guard import guard_edit

    text = (V158 / "kernel.py").read_text(encoding="utf-8")
    base = text.replace("    BLOCK = 256\n", "    BLOCK = 256\n    HALF = 128\n").replace(
        _V158_CHECK, "    assert BLOCK >= HALF * 2\n"
    )
    base = base.replace("BLOCK=BLOCK)", "BLOCK=BLOCK, HALF=HALF)").replace(
        "BLOCK: tl.constexpr):", "BLOCK: tl.constexpr, HALF: tl.constexpr):"
    )
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 64\n"))
    assert refused.new_source is None and "the bound reads a tile" in (refused.note or ""), refused.note


@pytest.mark.parametrize(
    ("given", "computed"),
    [
        ("x.shape[0], x.shape[1]", "min(triton.next_power_of_2(x.shape[1]), 4096)"),
        ("x.numel() // d, d", "min(triton.next_power_of_2(d), 4096)"),
    ],
    ids=["shape", "numel"],
)
def test_r91_a_key_sharing_a_name_with_the_size_does_not_key_it(tmp_path: Path, given: str, computed: str) -> None:
    """late52's l222 took a launch's ``BD`` for keyed where any name it read was a name of a key's value: with
    ``key=["n"]`` and ``n`` passed as ``x.shape[0]`` beside ``BD`` from ``x.shape[1]`` (or ``n`` as ``x.numel() //
    d``, which reads ``d``), ``tunables --set head_scale.configs[0].BLOCK=128`` was written: the autotuner's pick,
    cached per ``n``, ran unbenched at another head size. A value is keyed now only where what it reads stands inside
    a key's value (a name bound otherwise, ``n, d = x.shape``, is a size of its own)."""
    from kernelopt.tunables.edit import apply
    from kernelopt.tunables.model import TunableError

    two = _autotuned('triton.Config({"BLOCK": 32}, num_warps=4), triton.Config({"BLOCK": 16}, num_warps=4)')
    text = two.replace("min(triton.next_power_of_2(d), 4096)", computed).replace(
        "(x, w, y, n, d, BD=BD)", f"(x, w, y, {given}, BD=BD)"
    )
    assert text.count(given) == 1 and text.count(computed) == 1
    kernel = tmp_path / "kernel.py"
    kernel.write_text(text, encoding="utf-8")
    with pytest.raises(TunableError, match=r"beside BD, a size of the problem its autotune key \['n'\] leaves out"):
        apply(kernel, {"head_scale.configs[0].BLOCK": 128}, write=False)
    kernel.write_text(text.replace('key=["n"]', 'key=["n", "d"]'), encoding="utf-8")  # the head's size keyed
    result = apply(kernel, {"head_scale.configs[0].BLOCK": 128}, write=False)
    assert '[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 16}' in result.new_source


@pytest.mark.parametrize("check", ["    assert BLOCK <= cap\n", "    assert not BLOCK > cap\n"], ids=["le", "not-gt"])
def test_r92_a_tile_past_a_bound_not_read_may_fail_the_check(check: str) -> None:
    """A raise past a host bound from above that is not read (a launcher parameter, ``def run(x, cap)``) is refused,
    but the note said "BLOCK=512 does not divide every size the original BLOCK=256 handled (... a bound on BLOCK
    itself), and the bound is not read": no size is divided, and nothing is known to fail. It says "may fail the
    check" now, as a check against a value not read does (l221)."""
    from kernelopt.tunables.guard import guard_edit

    text = (V158 / "kernel.py").read_text(encoding="utf-8")
    base = text.replace("def run(x):", "def run(x, cap):").replace(_V158_CHECK, check)
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert refused.new_source is None, refused.note
    assert (refused.note or "").startswith(
        "BLOCK=512 may fail the check at every size the original BLOCK=256 handled (line 22 asserts"
    ), refused.note
    assert "does not divide" not in (refused.note or "") and "the bound is not read" in (refused.note or "")


@pytest.mark.parametrize(
    "helper", ["    _, m = x.shape[0], x.numel()\n", "    m = x.numel()\n    m = m + 0\n"], ids=["unpacked", "rebound"]
)
def test_r94_a_helper_s_own_name_is_not_the_launcher_s(helper: str) -> None:
    """review26's r60 reads a helper's assert in its launcher, the helper's parameters replaced by what the call
    passes and its locals bound once by their values; a name it binds otherwise (``_, m = ...``, ``m`` bound twice)
    was left as it was and read as the launcher's own: with ``m = 7`` in the launcher, ``assert block >= m`` (the
    helper's ``m``, the input's size) passed ``BLOCK = 64`` for every size by the integer 7, and 64 over 256 was
    written plainly, failing the helper's check from 65 elements to 256. The helper's name is its own now
    (``m_in_check``): nothing the launcher binds, so no guard tests it and a smaller tile is refused."""
    from kernelopt.tunables.guard import guard_edit

    text = (V158 / "kernel.py").read_text(encoding="utf-8")
    check = f"def check(x, block):\n{helper}    assert block >= m\n\n\ndef run(x):"
    base = text.replace(_V158_CHECK, "    m = 7\n    check(x, BLOCK)\n").replace("def run(x):", check)
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 64\n"))
    assert refused.new_source is None, refused.note
    assert "asserts BLOCK >= m_in_check" in (refused.note or ""), refused.note
    larger = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert larger.new_source is not None and larger.note is None


@pytest.mark.parametrize(
    "module",
    [
        "SUPPORTED = [128, 256, 512]\nSUPPORTED.remove(512)\n",
        "SUPPORTED = [128, 256, 512]\ndel SUPPORTED[-1]\n",
        "SUPPORTED = {128, 256, 512}\n\n\ndef _narrow():\n    SUPPORTED.discard(512)\n",
        "SUPPORTED = [128, 256, 512]\nSUPPORTED[2] = 64\n",
    ],
    ids=["remove", "del", "discard-in-a-function", "item"],
)
def test_r95_a_module_list_changed_in_place_is_no_constant(module: str) -> None:
    """wrongkernel31's v181 and review28's r81 read a module name as the value it was bound to unless another binding
    changes it (a ``global``, a loop, a walrus, v193's augmented assignments folded); a list or set changed in place
    (``SUPPORTED.remove(512)``, ``del SUPPORTED[-1]``, an item assigned, in a function too) binds nothing, so
    ``SUPPORTED`` read ``[128, 256, 512]`` and ``BLOCK = 512`` was written plainly past ``assert BLOCK in SUPPORTED``,
    failing it at every size. Such a name is a value not read now: only the original holds."""
    from kernelopt.tunables.guard import guard_edit

    text = (V158 / "kernel.py").read_text(encoding="utf-8")
    base = text.replace("import triton.language as tl\n", f"import triton.language as tl\n\n{module}", 1)
    base = base.replace(_V158_CHECK, "    assert BLOCK in SUPPORTED\n")
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert refused.new_source is None, refused.note
    assert "BLOCK=512 may fail the check" in (refused.note or "") and "is not read" in (refused.note or "")
    kept = base.split(module)[0] + "SUPPORTED = [128, 256, 512]\n" + base.split(module)[1]  # the control: unchanged
    written = guard_edit(kept, kept.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert written.new_source is not None and written.note is None, written.note


def test_r96_a_host_reading_the_pick_back_takes_no_heuristic_pin() -> None:
    """late53's l230 sets a bounded pick of an autotune list by a ``@triton.heuristics`` under it, the user's list
    kept: the kernel runs the heuristic's values, but ``kernel.best_config`` still names the cached config's own. A
    host reading the pick back after the launch (Mamba-2's state-passing backward sums ``cdiv(dim,
    best_config.kwargs["BLOCK_SIZE"])`` partials, breaker15's b4) then works with a block the kernel did not run:
    review28's head_scale with such a read was written so. That form is refused now, naming the read; the same file
    without it is written as l230 writes it."""
    from kernelopt.tunables.list_pin import heuristic_pin

    two = 'triton.Config({"BLOCK": 32}, num_warps=4), triton.Config({"BLOCK": 16}, num_warps=4)'
    text = _autotuned(two).replace('key=["n"]', 'key=["n", "BD"]')
    launch = '    head_scale[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, w, y, n, d, BD=BD)\n'
    read = launch + '    rows = head_scale.best_config.kwargs["BLOCK"]\n    assert rows >= 1\n'
    assert text.count(launch) == 1
    refused, why = heuristic_pin(text.replace(launch, read), "head_scale", {"BLOCK": 128}, 'args["BD"] <= 64')
    assert refused is None and why.startswith("the host reads head_scale.best_config (line 23)"), why
    written, note = heuristic_pin(text, "head_scale", {"BLOCK": 128}, 'args["BD"] <= 64')
    assert written is not None and 'lambda args: 128 if args["BD"] <= 64 else args["BLOCK"]' in written, note
