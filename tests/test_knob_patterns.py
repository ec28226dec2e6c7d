"""Knob discovery for the ways people write launch settings (issue 32 item 1) and the edit forms that keep a
kernel as general as it was (item 2): one value where it is legal at every size, a size-bucketed table whose
fallback is the original computation. Pure: nothing is imported or run."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.tunables import (
    Bucket,
    TunableError,
    TunableKind,
    TunedTable,
    apply_source,
    discover,
    discover_source,
    write_config,
    write_table,
)

CORPUS = Path(__file__).parent / "data" / "tunables" / "corpus"

pytestmark = pytest.mark.timeout(60)

# file -> {key: (kind, value)} of the editable knobs, and the refused keys with a word of their one line
PATTERNS: dict[str, tuple[dict[str, tuple[TunableKind, object]], dict[str, str]]] = {
    # **LAUNCH_CONFIGS[x.dtype]: the entries differ and no run says which key is in use: said, not guessed
    "geglu_dtype_configs.py": (
        {"geglu_kernel:num_stages": (TunableKind.LAUNCH_KWARG, 2)},
        {"geglu_kernel:BLOCK": "known only from a run", "geglu_kernel:num_warps": "known only from a run"},
    ),
    # BLOCK_SIZE = 1024 then `if n_cols <= 4096: BLOCK_SIZE = ...`: the literal is the knob; UNROLL is never read
    "prefix_sum_block_override.py": (
        {
            "row_cumsum_kernel:BLOCK_SIZE": (TunableKind.LAUNCH_KWARG, 1024),
            "row_cumsum_kernel:num_warps": (TunableKind.LAUNCH_DEFAULT, 4),
            "row_cumsum_kernel:num_stages": (TunableKind.LAUNCH_DEFAULT, 3),
        },
        {},
    ),
    # min(MAX_FUSED_SIZE, next_power_of_2(n)) under a loop: the cap is the knob, and the block stays computed
    "kl_div_capped_block.py": (
        {
            "MAX_FUSED_SIZE": (TunableKind.MODULE_CONSTANT, 65536),
            "kl_div_kernel:num_warps": (TunableKind.COMPUTED_SETTING, None),
            "kl_div_kernel:num_stages": (TunableKind.LAUNCH_DEFAULT, 3),
        },
        {"kl_div_kernel:BLOCK_SIZE": "tuned through the cap"},
    ),
    # autograd.Function.forward, an alias of the kernel, a block read by a warps helper too
    "row_normalize_autograd.py": (
        {
            "row_normalize_kernel:BLOCK": (TunableKind.COMPUTED_SETTING, None),
            "row_normalize_kernel:num_warps": (TunableKind.COMPUTED_SETTING, None),
            "row_normalize_kernel:num_stages": (TunableKind.LAUNCH_DEFAULT, 3),
        },
        {},
    ),
    # marked constants in module-level if/else; a marker and a ** argument that cannot be read: one line each
    "scale_marked_per_backend.py": (
        {"BLOCK@10": (TunableKind.MARKED_CONSTANT, 512), "BLOCK@12": (TunableKind.MARKED_CONSTANT, 1024)},
        {"line30": "marker is not on a module-level assignment", "scale_kernel:**compile_options(x)": "cannot be read"},
    ),
    # both tile sizes computed inline at the launch: computed settings (tuned once the expression has a line)
    "row_sumsq_inline_launch.py": (
        {
            "row_sumsq_kernel:BLOCK_M": (TunableKind.COMPUTED_SETTING, None),
            "row_sumsq_kernel:BLOCK_N": (TunableKind.COMPUTED_SETTING, None),
            "row_sumsq_kernel:num_warps": (TunableKind.LAUNCH_DEFAULT, 4),
            "row_sumsq_kernel:num_stages": (TunableKind.LAUNCH_DEFAULT, 3),
        },
        {},
    ),
    # tile sizes the launch does not pass: a module-level tl.constexpr the body reads as a global, and the
    # default of a constexpr parameter (the grid's literal 64 moves with it)
    "scale_tiles_implicit_blocks.py": (
        {
            "BLOCK_M": (TunableKind.MODULE_CONSTANT, 8),
            "scale_tiles_kernel:BLOCK_N": (TunableKind.LAUNCH_KWARG, 64),
            "scale_tiles_kernel:num_warps": (TunableKind.LAUNCH_DEFAULT, 4),
            "scale_tiles_kernel:num_stages": (TunableKind.LAUNCH_DEFAULT, 3),
        },
        {},
    ),
    # BLOCK_SIZE, num_warps = calculate_settings(n_cols): both computed, tuned after the helper's call; the
    # helper raises above MAX_FUSED_SIZE, so that constant is a limit (a lower one makes handled sizes raise)
    "rmsnorm_calculate_settings.py": (
        {
            "rmsnorm_kernel:BLOCK_SIZE": (TunableKind.COMPUTED_SETTING, None),
            "rmsnorm_kernel:num_warps": (TunableKind.COMPUTED_SETTING, None),
            "rmsnorm_kernel:num_stages": (TunableKind.LAUNCH_DEFAULT, 3),
        },
        {"MAX_FUSED_SIZE": "is a limit, not a knob: calculate_settings() raises above it"},
    ),
    # the settings come back from a helper in a dict splatted at the launch (**settings): each is a computed
    # setting, tuned after the call; the helper's result the fallback
    "row_center_dict_settings.py": (
        {
            "row_center_kernel:BLOCK_SIZE": (TunableKind.COMPUTED_SETTING, None),
            "row_center_kernel:num_warps": (TunableKind.COMPUTED_SETTING, None),
            "row_center_kernel:num_stages": (TunableKind.LAUNCH_DEFAULT, 3),
        },
        {},
    ),
    # the settings helper is imported from a module beside the kernel: tuned at its call in this file, its
    # body not read (its limit is no knob of this file)
    "softmax_imported_settings.py": (
        {
            "softmax_row_kernel:BLOCK_SIZE": (TunableKind.COMPUTED_SETTING, None),
            "softmax_row_kernel:num_warps": (TunableKind.COMPUTED_SETTING, None),
            "softmax_row_kernel:num_stages": (TunableKind.LAUNCH_DEFAULT, 3),
        },
        {},
    ),
    # two launches of one function compute the block with the same expression: one knob, one hoisted line
    "add_then_scale_shared_block.py": (
        {
            "add_bias_kernel:BLOCK": (TunableKind.COMPUTED_SETTING, None),
            "add_bias_kernel:num_warps": (TunableKind.LAUNCH_DEFAULT, 4),
            "add_bias_kernel:num_stages": (TunableKind.LAUNCH_DEFAULT, 3),
            "scale_kernel:num_warps": (TunableKind.LAUNCH_DEFAULT, 4),
            "scale_kernel:num_stages": (TunableKind.LAUNCH_DEFAULT, 3),
        },
        {},
    ),
    # the settings helper caps the block with min(MAX_FUSED, ...) and the kernel loops over the row: the cap,
    # read inside the helper, is the knob; the block stays computed
    "row_logsumexp_helper_cap.py": (
        {
            "MAX_FUSED": (TunableKind.MODULE_CONSTANT, 128),
            "row_lse_kernel:num_warps": (TunableKind.COMPUTED_SETTING, None),
            "row_lse_kernel:num_stages": (TunableKind.LAUNCH_DEFAULT, 3),
        },
        {"row_lse_kernel:BLOCK": "tuned through the cap"},
    ),
}


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_each_pattern_is_found(name: str) -> None:
    found = discover(CORPUS / name)
    editable, refused = PATTERNS[name]
    assert {t.key: (t.kind, t.value) for t in found if t.editable} == editable
    assert {t.key for t in found if not t.editable} == set(refused)
    for t in found:
        if t.key in refused:
            assert refused[t.key] in t.refused_reason and "\n" not in t.refused_reason
        if t.kind is TunableKind.COMPUTED_SETTING and t.editable:
            assert t.computed and t.tuned_at and t.categories


_HELPER = """import triton
import triton.language as tl

MAX_FUSED = 65536


def settings(n):
{guard}    block = min(MAX_FUSED, triton.next_power_of_2(n))
    return block, 4


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
{body}

def run(x):
    n = x.numel()
    block, warps = settings(n)
    k[(1,)](x, n, BLOCK=block, num_warps=warps)
"""
_LOOP = """    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        tl.store(x_ptr + cols, 1.0, mask=cols < n)
"""
_ONE_BLOCK = """    cols = tl.arange(0, BLOCK)
    tl.store(x_ptr + cols, 1.0, mask=cols < n)
"""
_RAISES = """    if triton.next_power_of_2(n) > MAX_FUSED:
        raise RuntimeError("row too long")
"""


@pytest.mark.parametrize(
    ("guard", "body", "why"),
    [
        ("", _LOOP, None),  # min() in the helper, a loop over the row: any cap is correct, a knob
        # one block covers the row: a lower cap leaves the rest of a longer row undone
        ("", _ONE_BLOCK, "k loops over no BLOCK (one block covers what it handles)"),
        # the helper also raises above it: a lower cap makes sizes the original handled raise
        (_RAISES, _LOOP, "is a limit, not a knob: settings() raises above it"),
    ],
)
def test_a_cap_inside_a_settings_helper_is_a_knob_only_where_every_value_is_legal(
    guard: str, body: str, why: str | None
) -> None:
    found = {t.key: t for t in discover_source(_HELPER.format(guard=guard, body=body))}
    cap, block = found["MAX_FUSED"], found["k:BLOCK"]
    assert cap.kind is TunableKind.MODULE_CONSTANT and cap.value == 65536
    if why is None:
        assert cap.editable and cap.legality.power_of_two  # the legality of the block it caps
        assert not block.editable and "tuned through the cap" in block.refused_reason
    else:
        assert not cap.editable and why in cap.refused_reason and "\n" not in cap.refused_reason
        assert block.editable and block.kind is TunableKind.COMPUTED_SETTING  # a table that falls back on it
        with pytest.raises(TunableError, match="cannot be edited safely"):
            apply_source(_HELPER.format(guard=guard, body=body), {"MAX_FUSED": 1024})


@pytest.mark.parametrize(
    ("written", "value"),
    [("65536 // 4", 16384), ("64 * 1024", 65536), ("1 << 14", 16384), ("(2 ** 12)", 4096), ("65536 / 4", None)],
)
def test_a_cap_written_as_arithmetic_on_literals_is_its_value(written: str, value: int | None) -> None:
    """``MAX_FUSED_SIZE = 65536 // 4``, as kernel libraries write a cap: a knob at its value, and an edit writes
    the new value in place of the expression (a float division is no integer size: not offered)."""
    src = _HELPER.format(guard="", body=_LOOP).replace("MAX_FUSED = 65536", f"MAX_FUSED = {written}  # 64 KB")
    found = {t.key: t for t in discover_source(src)}
    if value is None:
        assert "MAX_FUSED" not in found and found["k:BLOCK"].editable
        return
    assert found["MAX_FUSED"].value == value and found["MAX_FUSED"].editable
    r = apply_source(src, {"MAX_FUSED": 1024})
    new = "(1024)" if written.startswith("(") else "1024"  # the parentheses stay
    assert r.new_source == src.replace(f"MAX_FUSED = {written}  #", f"MAX_FUSED = {new}  #")


def test_a_constexpr_default_is_no_knob_where_the_launch_passes_it_or_an_autotuner_sets_it() -> None:
    src = (CORPUS / "scale_tiles_implicit_blocks.py").read_text()
    passed = src.replace("x.stride(0), scale)", "x.stride(0), scale, BLOCK_N=32)")
    found = {t.key: t for t in discover_source(passed)}
    assert found["scale_tiles_kernel:BLOCK_N"].value == 32  # the launch's literal, not the default
    assert found["scale_tiles_kernel:BLOCK_N"].location.endswith(":25")
    tuned = src.replace(
        "@triton.jit\n", '@triton.autotune(configs=[triton.Config({"BLOCK_N": 32})], key=["n_cols"])\n@triton.jit\n'
    )
    keys = {t.key for t in discover_source(tuned)}
    assert "scale_tiles_kernel:BLOCK_N" not in keys and "scale_tiles_kernel.configs[0].BLOCK_N" in keys


def test_unread_constexpr_is_not_a_knob() -> None:
    keys = {t.key for t in discover(CORPUS / "prefix_sum_block_override.py")}
    assert not any("UNROLL" in k for k in keys)


@pytest.mark.parametrize(
    ("name", "change", "old_text", "new_text"),
    [
        # the literal with a conditional override: the literal moves, the override stays
        ("prefix_sum_block_override.py", {"BLOCK_SIZE": 256}, "1024", "256"),
        # the cap: the module constant moves
        ("kl_div_capped_block.py", {"MAX_FUSED_SIZE": 8192}, "65536", "8192"),
        # the cap read inside the settings helper: the module constant moves, the helper stays as written
        ("row_logsumexp_helper_cap.py", {"MAX_FUSED": 4096}, "128", "4096"),
        # a marked constant in one branch of a module-level if/else
        ("scale_marked_per_backend.py", {"BLOCK@12": 2048}, "1024", "2048"),
        # computed once, read by the warps helper too: tuned where it is computed, so both readers agree
        ("row_normalize_autograd.py", {"BLOCK": 256}, "", "block = 256  # kernelopt: tuned\n        "),
    ],
)
def test_pattern_edits_are_exact(name: str, change: dict, old_text: str, new_text: str) -> None:
    from .test_tunables import _only_change

    old = (CORPUS / name).read_text()
    r = apply_source(old, change, filename=name)
    assert _only_change(old, r.new_source) == (old_text, new_text)
    after = {t.key: t.value for t in discover_source(r.new_source, name)}
    (edit,) = r.edits
    assert after[edit.key] == edit.after


def test_the_block_is_tuned_before_the_helper_that_reads_it() -> None:
    old = (CORPUS / "row_normalize_autograd.py").read_text()
    new = apply_source(old, {"BLOCK": 256}, filename="k.py").new_source
    lines = [ln.strip() for ln in new.splitlines()]
    tuned = lines.index("block = 256  # kernelopt: tuned")
    assert lines[tuned - 1] == "block = launch_block(n_cols)" and lines[tuned + 1] == "warps = warps_for(block)"


def test_splat_entry_in_use_is_edited_after_a_run() -> None:
    from kernelopt.tunables import AutotuneEvaluation

    src = (CORPUS / "geglu_dtype_configs.py").read_text()
    # a run on float32 inputs: the launch received the float32 entry's settings, so that entry is the knob
    ran = AutotuneEvaluation(launch_values={"geglu_kernel": {"BLOCK": 1024, "num_warps": 4, "num_stages": 2}})
    found = {t.key: t for t in discover_source(src, evaluation=ran)}
    assert found["geglu_kernel:BLOCK"].editable and found["geglu_kernel:BLOCK"].value == 1024
    r = apply_source(src, {"BLOCK": 512, "num_warps": 2}, evaluation=ran)
    assert 'torch.float32: {"BLOCK": 512, "num_warps": 2, "num_stages": 2}' in r.new_source
    assert r.new_source.count('"BLOCK": 2048, "num_warps": 8') == 2  # the half-precision entries are untouched
    # entries that agree on a setting move together: every key gets the value, whichever is in use
    r = apply_source(src, {"num_stages": 3})
    assert r.new_source.count('"num_stages": 3') == 3 and '"num_stages": 2' not in r.new_source


def test_one_value_for_every_size_then_a_table_by_size() -> None:
    src = (CORPUS / "rmsnorm_calculate_settings.py").read_text()
    one = write_config(src, {"num_warps": 8})
    assert "    BLOCK_SIZE, num_warps = calculate_settings(n_cols)\n    num_warps = 8  # kernelopt: tuned\n" in (
        one.new_source
    )
    assert write_config(one.new_source, {"num_warps": 8}).edits == []  # already there: nothing written
    table = TunedTable(
        size="n_cols",
        buckets=[
            Bucket(upto=1024, values={"num_warps": 2, "BLOCK_SIZE": 1024}),
            Bucket(upto=4096, values={"num_warps": 4}),
        ],
    )
    r = write_table(one.new_source, table)
    assert (
        "    BLOCK_SIZE, num_warps = calculate_settings(n_cols)\n"
        "    if n_cols <= 1024:  # kernelopt: tuned\n"
        "        num_warps = 2\n"
        "        BLOCK_SIZE = 1024\n"
        "    elif n_cols <= 4096:  # kernelopt: tuned\n"
        "        num_warps = 4\n"
        "    rmsnorm_kernel[" in r.new_source
    )  # the one-value line gave way to the table; sizes above 4096 keep calculate_settings
    found = {t.key: t for t in discover_source(r.new_source)}
    warps = found["rmsnorm_kernel:num_warps"]
    assert warps.value is None and warps.tuned_table is not None
    assert [(b.upto, b.values) for b in warps.tuned_table.buckets] == [
        (1024, {"num_warps": 2}),
        (4096, {"num_warps": 4}),
    ]
    assert {e.key: e.table for e in r.edits}["rmsnorm_kernel:num_warps"] == [(1024, 2), (4096, 4)]
    # one value again: the table's rows of that knob go, the others stay
    back = apply_source(r.new_source, {"num_warps": 16}).new_source
    assert "num_warps = 16  # kernelopt: tuned" in back and "num_warps = 2\n" not in back
    assert "        BLOCK_SIZE = 1024\n" in back


@pytest.mark.parametrize(
    ("table", "match"),
    [
        (TunedTable(size="n_cols", buckets=[]), "increasing bounds"),
        (
            TunedTable(size="n_cols", buckets=[Bucket(upto=9, values={"num_warps": 2}), Bucket(upto=3, values={})]),
            "increasing bounds",
        ),
        (TunedTable(size="n_cols <=", buckets=[Bucket(upto=9, values={"num_warps": 2})]), "not a Python expression"),
        (TunedTable(size="n_cols", buckets=[Bucket(upto=9, values={"num_warps": 3})]), "illegal"),
        (TunedTable(size="n_cols", buckets=[Bucket(upto=9, values={"num_stages": 2})]), "computed from the problem"),
    ],
)
def test_bad_tables_are_one_line(table: TunedTable, match: str) -> None:
    src = (CORPUS / "rmsnorm_calculate_settings.py").read_text()
    with pytest.raises(TunableError, match=match):
        write_table(src, table)


def test_a_literal_overridden_at_every_size_run_is_tuned_where_it_is_computed() -> None:
    """``BLOCK_SIZE = 1024`` then ``if n_cols <= 256: BLOCK_SIZE = ...``: when at every SHAPES entry the run saw
    the override was in effect, moving the literal changes nothing the task times. The value in effect is tuned
    instead, where it is computed: after the overrides, as any computed setting (breaker6 j10, tuneleft7)."""
    from kernelopt.tunables import AutotuneEvaluation
    from kernelopt.tunables.model import ShapeSizes, TunableKind

    src = (CORPUS / "prefix_sum_block_override.py").read_text()

    def evaluation(received: int) -> AutotuneEvaluation:
        entry = ShapeSizes(shape={"cols": 200}, launch_values={"row_cumsum_kernel": {"BLOCK_SIZE": received}})
        return AutotuneEvaluation(shape_sizes=[entry])

    def block(received: int) -> object:
        found = discover_source(src, evaluation=evaluation(received))
        return next(t for t in found if t.key == "row_cumsum_kernel:BLOCK_SIZE")

    short = block(256)
    assert short.editable and short.kind is TunableKind.COMPUTED_SETTING, short
    assert short.tuned_at == "kernel.py:28"  # the if statement of the override
    new = apply_source(src, {"row_cumsum_kernel:BLOCK_SIZE": 64}, evaluation=evaluation(256)).new_source
    assert "        BLOCK_SIZE = triton.next_power_of_2(n_cols)\n    BLOCK_SIZE = 64  # kernelopt: tuned\n" in new
    literal = block(1024)  # a longer row: the literal is the block in effect, and it moves where it is
    assert literal.editable and literal.kind is TunableKind.LAUNCH_KWARG and literal.value == 1024


# -- settings helpers returning a dict, helpers from another module, one setting at two launches (issue 32) --

_DICT_HELPER = """import triton
import triton.language as tl

MAX_FUSED = 128


def settings(n_cols):
    block = min(MAX_FUSED, triton.next_power_of_2(n_cols))
    return {"BLOCK": block, "num_warps": 4 if block < 2048 else 8}


@triton.jit
def row_sum_kernel(out_ptr, x_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.sum(tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0), axis=0)
    tl.store(out_ptr + row, acc)


def run(x, out):
    n_rows, n_cols = x.shape
    cfg = settings(n_cols)
    row_sum_kernel[(n_rows,)](out, x, x.stride(0), n_cols, **cfg)
    return out
"""


def test_a_cap_inside_a_helper_s_dict_is_the_knob_as_in_a_tuple_helper() -> None:
    """``return {"BLOCK": block, ...}`` with ``block = min(MAX_FUSED, next_power_of_2(n_cols))`` over a kernel that
    loops over the row: the cap is the knob (any cap is correct at every size) and the block stays computed, the
    same rule as a tuple-unpacked helper's cap; the warp count is tuned after the call."""
    found = {t.key: t for t in discover_source(_DICT_HELPER)}
    assert found["MAX_FUSED"].editable and found["MAX_FUSED"].kind is TunableKind.MODULE_CONSTANT
    assert "tuned through the cap" in (found["row_sum_kernel:BLOCK"].refused_reason or "")
    warps = found["row_sum_kernel:num_warps"]
    assert warps.editable and warps.kind is TunableKind.COMPUTED_SETTING and warps.computed == "cfg = settings(n_cols)"
    new = write_config(_DICT_HELPER, {"num_warps": 2}).new_source
    copy = "    cfg = dict(cfg)  # kernelopt: tuned\n"  # the helper's dict copied before an entry is set (breaker5 i5)
    assert f'    cfg = settings(n_cols)\n{copy}    cfg["num_warps"] = 2  # kernelopt: tuned\n    row_sum_kernel[' in new
    # the dict changed by the edit's own line is still read (a user's change would make it unreadable)
    assert {t.key: t.value for t in discover_source(new)}["row_sum_kernel:num_warps"] == 2
    user = _DICT_HELPER.replace("    row_sum_kernel[", '    cfg["num_warps"] = 2\n    row_sum_kernel[')
    # a dict literal is the knob itself: a tuned line after it would hide a change, so it is not read past one
    literal = new.replace("cfg = settings(n_cols)", 'cfg = {"BLOCK": 64, "num_warps": 4}')
    assert "cannot be read" in {t.key: t for t in discover_source(literal)}["row_sum_kernel:**cfg"].refused_reason
    assert "cannot be read" in {t.key: t for t in discover_source(user)}["row_sum_kernel:**cfg"].refused_reason


def test_a_helper_dict_whose_keys_depend_on_the_size_is_one_line() -> None:
    src = _DICT_HELPER.replace(
        '    return {"BLOCK": block, "num_warps": 4 if block < 2048 else 8}',
        '    if n_cols > 4096:\n        return {"BLOCK": block, "num_warps": 8}\n    return {"BLOCK": block}',
    )
    (t,) = [t for t in discover_source(src) if t.key == "row_sum_kernel:**cfg"]
    assert not t.editable and "returns differ in their keys (BLOCK, num_warps / BLOCK)" in t.refused_reason


def test_a_dict_helper_imported_from_another_module_is_read_from_the_run() -> None:
    """``from .settings import settings`` (its body is not in the file an edit may write): which settings the
    dict passes is known from a run of the task (the keywords the launch received that it does not pass
    itself); without one, one line asks for the reference. Tuned after the call, in this file."""
    from kernelopt.tunables import AutotuneEvaluation

    body = _DICT_HELPER[_DICT_HELPER.index("def settings") : _DICT_HELPER.index("@triton.jit")]
    src = _DICT_HELPER.replace(body, "").replace("MAX_FUSED = 128\n", "from .settings import settings\n")
    (t,) = [t for t in discover_source(src) if t.key == "row_sum_kernel:**cfg"]
    assert not t.editable and t.refused_reason.endswith("known only from a run of the task (give the reference)")
    assert "imported from .settings" in t.refused_reason
    ran = AutotuneEvaluation(launch_values={"row_sum_kernel": {"BLOCK": 128, "num_warps": 4}})
    found = {t.key: t for t in discover_source(src, evaluation=ran)}
    block = found["row_sum_kernel:BLOCK"]
    assert block.editable and block.kind is TunableKind.COMPUTED_SETTING and block.value == 128
    assert block.helper_note is not None and "settings() comes from .settings, another module" in block.helper_note
    new = write_table(
        src, TunedTable(size="n_cols", buckets=[Bucket(upto=300, values={"BLOCK": 64})]), evaluation=ran
    ).new_source
    assert (
        '    cfg = settings(n_cols)\n    if n_cols <= 300:  # kernelopt: tuned\n        cfg = dict(cfg)\n        cfg["BLOCK"] = 64\n'
        in new
    )


def test_a_tuple_helper_imported_from_another_module_is_tuned_at_its_call_and_says_so() -> None:
    found = {t.key: t for t in discover(CORPUS / "softmax_imported_settings.py")}
    block = found["softmax_row_kernel:BLOCK_SIZE"]
    assert block.editable and block.tuned_at == "softmax_imported_settings.py:23"
    assert block.helper_note == (
        "pick_row_settings() comes from row_settings, another module: tuned at its call in "
        "softmax_imported_settings.py, its result the fallback; its body is not read, so a cap or limit inside it "
        "is no knob (an edit stays in softmax_imported_settings.py)"
    )
    # a helper of this file says nothing of the kind
    assert all(t.helper_note is None for t in discover(CORPUS / "rmsnorm_calculate_settings.py"))


def test_two_launches_computing_one_setting_inline_share_one_hoisted_line() -> None:
    """Two launches of one function with ``BLOCK=min(triton.next_power_of_2(n), 1024)`` each: one knob, whose
    expression moves onto one line before the first launch, both launches passing the variable (they agreed
    before the edit and still do); it reads back as the same one knob."""
    old = (CORPUS / "add_then_scale_shared_block.py").read_text()
    expr = "min(triton.next_power_of_2(n), 1024)"
    (knob,) = [t for t in discover_source(old) if t.name == "BLOCK"]
    assert knob.used_at == ["kernel.py:28", "kernel.py:29"] and len(knob.groups) == 2
    new = write_table(old, TunedTable(size="n", buckets=[Bucket(upto=2000, values={"BLOCK": 256})])).new_source
    assert (
        new.count(expr) == 1
        and (
            f"    BLOCK = {expr}\n    if n <= 2000:  # kernelopt: tuned\n        BLOCK = 256\n"
            "    add_bias_kernel[grid](x, tmp, 0.5, n, BLOCK=BLOCK)\n    scale_kernel[grid](tmp, out, 3.0, n, BLOCK=BLOCK)\n"
        )
        in new
    )
    (after,) = [t for t in discover_source(new) if t.name == "BLOCK"]
    assert after.key == knob.key and after.used_at == ["kernel.py:31", "kernel.py:32"] and after.tuned_table is not None


@pytest.mark.parametrize(
    ("second", "why"),
    [
        ("    scale_kernel[grid](tmp, out, 3.0, n, BLOCK=min(triton.next_power_of_2(n), 512))", "another expression"),
        ("    if n: scale_kernel[grid](tmp, out, 3.0, n, BLOCK=min(triton.next_power_of_2(n), 1024))", "moved out of"),
    ],
)
def test_two_launches_that_cannot_share_one_line_are_left_as_written(second: str, why: str) -> None:
    old = (CORPUS / "add_then_scale_shared_block.py").read_text()
    src = old.replace("    scale_kernel[grid](tmp, out, 3.0, n, BLOCK=min(triton.next_power_of_2(n), 1024))", second)
    found = [t for t in discover_source(src) if t.name == "BLOCK"]
    assert found and all(not t.editable and why in t.refused_reason for t in found), found


def test_a_name_the_shared_expression_reads_assigned_between_the_launches_keeps_them_apart() -> None:
    old = (CORPUS / "add_then_scale_shared_block.py").read_text()
    src = old.replace("    scale_kernel[grid]", "    n = n // 2\n    scale_kernel[grid]")
    found = [t for t in discover_source(src) if t.name == "BLOCK"]
    assert found and all("n is assigned between them" in t.refused_reason for t in found)


def test_one_setting_computed_inline_in_two_functions_is_two_knobs() -> None:
    """``forward()`` and ``backward()`` each launching with ``BLOCK=min(...)``: each function computes its own,
    from its own arguments; each is its own knob, hoisted in its own function (a forward's tuned block says
    nothing about the backward kernel's best)."""
    old = (CORPUS / "add_then_scale_shared_block.py").read_text()
    src = old.replace(
        "    add_bias_kernel[grid](x, tmp, 0.5, n, BLOCK=min(triton.next_power_of_2(n), 1024))\n",
        "    first(x, tmp, n, grid)\n",
    ).replace(
        "def run(x):",
        "def first(x, tmp, n, grid):\n    add_bias_kernel[grid](x, tmp, 0.5, n, BLOCK=min(triton.next_power_of_2(n), 1024))"
        "\n\n\ndef run(x):",
    )
    found = {t.key: t for t in discover_source(src) if t.name == "BLOCK"}
    assert set(found) == {"add_bias_kernel:BLOCK", "scale_kernel:BLOCK"} and all(t.editable for t in found.values())
    new = write_config(src, {"add_bias_kernel:BLOCK": 256}).new_source
    assert new.count("min(triton.next_power_of_2(n), 1024)") == 2 and new.count("BLOCK = 256  # kernelopt: tuned") == 1
