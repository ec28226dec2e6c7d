"""review28: this session's landings reread and tried as a user would (docs/faults.md, "Review, twenty-eighth
round"). Each test failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

#: rows of ``BLOCK`` by column chunks of ``BD`` (the head's size rounded up, capped at 4096: past any entry's 64)
_CHUNKED = """
@triton.jit
def head_scale(x_ptr, w_ptr, y_ptr, n, d, BD: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    for start in range(0, d, BD):
        cols = start + tl.arange(0, BD)
        mask = (rows[:, None] < n) & (cols[None, :] < d)
        x = tl.load(x_ptr + rows[:, None] * d + cols[None, :], mask=mask)
        w = tl.load(w_ptr + cols, mask=cols < d)
        tl.store(y_ptr + rows[:, None] * d + cols[None, :], x * w[None, :], mask=mask)


def run(x, w):
    n, d = x.shape
    y = torch.empty_like(x)
    BD = min(triton.next_power_of_2(d), 4096)
    head_scale[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, w, y, n, d, BD=BD)
    return y
"""


def _autotuned(configs: str) -> str:
    head = "import torch\nimport triton\nimport triton.language as tl\n\n\n"
    return f'{head}@triton.autotune(configs=[{configs}], key=["n"]){_CHUNKED}'


def test_r80_a_raised_tile_in_an_autotune_list_of_one_config_is_bounded_as_a_launch_s(tmp_path: Path) -> None:
    """fe012c21 left every autotune list's config out of v184's bound (``edit._size_bounded``: "tune pins it
    unbounded"), so ``tunables --set head_scale.configs[0].BLOCK=128`` over a list of one config, beside ``BD`` (the
    head's size, capped at 4096), was written for every size with no note: Triton runs a list of one config unbenched,
    so past the entries its footprint was never compiled (before fe012c21: refused). A list that keeps another config
    as it was is still left to its autotuner, which passes over a config that cannot run at a key."""
    from kernelopt.tunables.edit import apply
    from kernelopt.tunables.model import TunableError

    kernel = tmp_path / "kernel.py"
    kernel.write_text(_autotuned('triton.Config({"BLOCK": 32}, num_warps=4)'), encoding="utf-8")
    with pytest.raises(TunableError, match="raises a tile of head_scale beside BD, a size of the problem no run told"):
        apply(kernel, {"head_scale.configs[0].BLOCK": 128}, write=False)
    two = _autotuned('triton.Config({"BLOCK": 32}, num_warps=4), triton.Config({"BLOCK": 16}, num_warps=4)')
    kernel.write_text(two.replace('key=["n"]', 'key=["n", "BD"]'), encoding="utf-8")  # timed at each BD (l222)
    result = apply(kernel, {"head_scale.configs[0].BLOCK": 128}, write=False)
    assert '[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 16}' in result.new_source


#: v158's launcher (``BLOCK = 256``, masked) with its check against a module name in place of ``1024``
V158_CHECK = '    assert BLOCK <= 1024, "the kernel keeps a block to 1024 lanes"\n'


@pytest.mark.parametrize(
    ("module", "check"),
    [
        (
            "most = 1024\n\n\ndef configure():\n    global most\n    most = 256\n",
            "    configure()\n    assert BLOCK <= most\n",
        ),
        ("SUPPORTED = (128, 256, 512)\nfor SUPPORTED in [(256,)]:\n    pass\n", "    assert BLOCK in SUPPORTED\n"),
        ("SUPPORTED = (128, 256, 512)\nif (SUPPORTED := (256,)):\n    pass\n", "    assert BLOCK in SUPPORTED\n"),
    ],
    ids=["global", "loop", "walrus"],
)
def test_r81_a_module_name_another_binding_changes_is_no_constant_of_a_check(module: str, check: str) -> None:
    """v171/v181 read a host check's module name as a constant where the module assigns it once (``_module_bound``),
    blind to a function's ``global`` rebinding it and to a module-level loop's or walrus's target: over ``most =
    1024`` that ``configure()`` sets to 256 before ``assert BLOCK <= most``, ``BLOCK = 512`` was written plainly, the
    assert failing at every size where the original's 256 passed (alike past ``SUPPORTED`` rebound to ``(256,)``). Such
    a name is now no constant: the check is not read and only the original holds; a name assigned once still is."""
    from kernelopt.tunables.guard import guard_edit
    from tests.test_wrongkernel30_cases import V158

    text = (V158 / "kernel.py").read_text(encoding="utf-8")
    base = text.replace("\n\n@triton.jit", f"\n{module}\n\n@triton.jit", 1).replace(V158_CHECK, check)
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert refused.new_source is None and "BLOCK=512" in (refused.note or ""), refused.note
    once = text.replace("\n\n@triton.jit", "\nmost = 1024\n\n\n@triton.jit", 1).replace(
        V158_CHECK, "    assert BLOCK <= most\n"
    )
    written = once.replace("    BLOCK = 256\n", "    BLOCK = 512\n")
    assert guard_edit(once, written).new_source == written


def test_r82_a_check_against_a_value_not_read_is_not_said_to_fail_in_tune_s_space() -> None:
    """wrongkernel31's v185 cuts tune's space by the launcher's own checks on the tile (``guard.tile_checks``), and
    v181 holds a check against a value not read (``from kernel_sizes import SUPPORTED`` then ``assert BLOCK in
    SUPPORTED``) to the original alone: the space kept 256 and said every other value "fail[s] line 24 asserts BLOCK in
    SUPPORTED ..., at every size", where no value is known to fail it (128 and 512 may well pass). The note now says
    the value is not read, so no value but the current can be written; a check read still says they fail."""
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tuning.launch import space_from_tunables
    from tests.test_wrongkernel30_cases import V158

    text = (V158 / "kernel.py").read_text(encoding="utf-8")

    def notes(module: str) -> tuple[str, ...]:
        source = text.replace("\n\n@triton.jit", f"\n{module}\n\n@triton.jit", 1)
        source = source.replace(V158_CHECK, "    assert BLOCK in SUPPORTED\n")
        space = space_from_tunables(discover_source(source), source=source)
        assert next(k for k in space.knobs if k.name == "BLOCK").values[0] == (256 if "import" in module else 128)
        return space.domain_notes

    (unread,) = notes("from kernel_sizes import SUPPORTED\n")
    assert "they fail" not in unread and "at every size" not in unread, unread
    assert unread.endswith("and the value it is checked against is not read, so no value but 256 can be written")
    (read,) = notes("SUPPORTED = tuple(range(128, 1025, 128))\n")
    assert "BLOCK leaves out 16, 32, 64, 2048" in read and "they fail line" in read and read.endswith("at every size")


#: int4_mm's dequantized weight (breaker29): its masked-out lanes past K are 0.0, so the dot's ``0.0 * w`` is zero
INT4_W = "        w = (code.to(tl.float32) - zero) * scale\n"


@pytest.mark.parametrize(
    "weight",
    [
        "        w = tl.cast((code.to(tl.float32) - zero) / scale, tl.float32)\n",
        "        w = tl.broadcast_to((code.to(tl.float32) - zero) / scale, (BLOCK_K, BLOCK_N))\n",
        "        w = tl.multiple_of((code.to(tl.float32) - zero) / scale, 1)\n",
        "        w = ((code + 0xFF) << 23).to(tl.float32, bitcast=True) * scale\n",
        "        w = tl.cast(code | 0x7F800000, tl.float32, bitcast=True) * scale\n",
    ],
    ids=["cast", "broadcast_to", "multiple_of", "shift-bitcast", "or-bitcast"],
)
def test_r83_a_lane_through_a_module_function_or_a_bitcast_is_its_argument_s_bits(weight: str) -> None:
    """breaker29's int4_mm with its weight's masked-out lanes past K not zero: ``(0 - 0.0) / 0.0`` is NaN, and
    ``(0 + 0xFF) << 23`` read as a float is +inf, so the dot's ``0.0 * w`` is NaN there and BLOCK_K must divide every K
    the original's 64 handled. ``.to(...)`` read the same NaN and left BLOCK_K unchecked, but the module's functions
    ``tl.cast(x, ...)``, ``tl.broadcast_to(x, ...)``, ``tl.multiple_of(x, ...)`` read the lane of ``tl`` (a finite
    module value) in place of ``x``, and q95's finite integer kept its value through ``bitcast=True``: BLOCK_K was
    read as checked, so 128 could be written plainly. The function's value is its first argument's; a bitcast keeps
    only a zero. int4_mm as written stays checked (breaker29's q95 test)."""
    import libcst as cst

    from kernelopt.tunables.blocks import unchecked_blocks

    def blocks(text: str) -> set[str]:
        module = cst.parse_module(text)
        kernel = next(n for n in module.body if isinstance(n, cst.FunctionDef) and n.name.value == "_int4_mm")
        return unchecked_blocks(kernel)

    old = (Path(__file__).parent / "data" / "breaker29" / "int4_mm" / "kernel.py").read_text(encoding="utf-8")
    assert INT4_W in old  # as written, checked: breaker29's q95 test
    assert blocks(old.replace(INT4_W, weight)) == {"BLOCK_K"}


def test_r84_the_size_bound_paragraph_names_the_rule_where_it_is_and_who_writes_by_it() -> None:
    """docs/tuning-engine.md's "A raised tile beside a size of the problem" named ``folder._size_bounded`` (tune's
    caller) as the rule and said nothing of ``tunables --set`` writing by it (v184), of a size its computation caps
    (q92) or of an autotune list's config (fe012c21, r80). Each dotted name the paragraph cites is the package's own."""
    import importlib
    import re

    text = (Path(__file__).parent.parent / "docs" / "tuning-engine.md").read_text(encoding="utf-8")
    start = text.index("**A raised tile beside a size of the problem")
    paragraph = text[start : text.index("\n\n", start)]
    for said in ("`size_tiles.size_bounded`", "`tunables --set`", "`size_tiles.computed_most`", "autotune list"):
        assert said in paragraph, said
    assert "folder._size_bounded" not in paragraph  # tune's caller, not the rule
    for module, name in re.findall(r"`(?:tunables\.)?(size_tiles|guard)\.(\w+)`", paragraph):
        assert hasattr(importlib.import_module(f"kernelopt.tunables.{module}"), name), (module, name)


@pytest.mark.parametrize(
    ("check", "written", "refused"),
    [
        ("    allowed = (128, 256)\n    assert BLOCK in allowed\n", 128, (512, 2048)),
        ("    allowed = [128, 256]\n    if BLOCK not in allowed:\n        raise ValueError(BLOCK)\n", 128, (512, 2048)),
        ("    ok = range(128, 513, 128)\n    assert BLOCK in ok\n", 512, (2048,)),
        ("    want = 256\n    assert BLOCK == want\n", None, (128, 512)),
    ],
    ids=["tuple", "list-raise", "range", "equal"],
)
def test_r85_a_check_against_a_constant_of_the_launcher_s_own_is_read(
    check: str, written: int | None, refused: tuple[int, ...]
) -> None:
    """r73/v181 read a host check on the tile by itself, or against the module's constants, but left one against a name
    the launcher binds to the size rules (``assert n % BLOCK == 0`` is theirs), which read no ``in`` or ``==``: over
    ``allowed = (128, 256)`` then ``assert BLOCK in allowed`` (v158's masked scale, ``BLOCK = 256``), ``BLOCK = 2048``
    was written plainly, the assert failing at every size where the original's 256 passes (bf9388d4 the same). A
    local bound once to a value that reads nothing the launcher takes or binds is now read as that value; a parameter
    with such a default (a caller may pass another) is a value not read, so only the original holds."""
    from kernelopt.tunables.guard import guard_edit
    from tests.test_wrongkernel30_cases import V158

    base = (V158 / "kernel.py").read_text(encoding="utf-8").replace(V158_CHECK, check)

    def edit(value: int) -> str:
        return base.replace("    BLOCK = 256\n", f"    BLOCK = {value}\n")

    for value in refused:
        guarded = guard_edit(base, edit(value))
        assert guarded.new_source is None and "fails the check" in (guarded.note or ""), (value, guarded.note)
    if written is not None:
        assert guard_edit(base, edit(written)).new_source == edit(written)
    given = (V158 / "kernel.py").read_text(encoding="utf-8").replace(V158_CHECK, "    assert BLOCK in allowed\n")
    given = given.replace("def run(x):", "def run(x, allowed=(128, 256, 512)):")
    unread = guard_edit(given, given.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert unread.new_source is None and "may fail the check" in (unread.note or ""), unread.note


#: a row's max or sum over one masked load of ``BLOCK`` lanes (masked-out lanes 0.0, the load's fill left out)
_ROW = """
@triton.jit
def row(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    m = REDUCED
    tl.store(y_ptr, m)
"""


@pytest.mark.parametrize(
    ("reduced", "unchecked"),
    [
        ("x.max(0)", {"BLOCK"}),
        ("x.max(axis=0)", {"BLOCK"}),
        ("tl.exp(x).sum(0)", {"BLOCK"}),
        ("tl.max(x.reshape(BLOCK), 0)", {"BLOCK"}),
        ("tl.sum(x.reshape(BLOCK), 0)", set()),
    ],
    ids=["max-method", "max-axis-method", "exp-sum-method", "max-of-reshape", "sum-of-reshape"],
)
def test_r86_a_tensor_s_method_reads_its_lanes(reduced: str, unchecked: set[str]) -> None:
    """``blocks._Lanes`` read a call's arguments alone, so a tensor's method (``x.max(0)``, ``tl.exp(x).sum(axis=0)``,
    ``x.reshape(...)``) read the tensor as no lane: over masked-out lanes filled with 0.0 a max of negatives gives 0,
    and ``tl.exp(0.0)`` summed is 1 a lane, yet BLOCK was read as checked (only ``tl.max(x, 0)`` was judged). A
    reduction written as a method now leaves the block unchecked where it holds masked lanes; a reshape, a transpose or
    a broadcast by method carries the tensor's lanes, judged where they are reduced (a zero fill summed stays checked).
    The 679 ``@triton.jit`` kernels of tests/data read the same before and after."""
    import libcst as cst

    from kernelopt.tunables.blocks import unchecked_blocks

    kernel = cst.parse_module(_ROW.replace("REDUCED", reduced)).body[0]
    assert isinstance(kernel, cst.FunctionDef)
    assert unchecked_blocks(kernel) == unchecked
