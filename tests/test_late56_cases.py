"""late56: leftovers of breaker30's trial (docs/faults.md, "breaker30's leftovers (late56, 2026-12-07)")."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)

DATA = Path(__file__).parent / "data" / "breaker30"


def test_l260_a_quantizer_s_fp16_rows_in_and_fp8_codes_out_are_fp16() -> None:
    """fp8_rowquant: fp16 rows in, fp8 codes and fp32 scales out, one code an element; ``optimize`` inferred the
    card's dtype fp8 (the tie of elements went to the narrower, the output's), so the fit estimate counted its fp16
    loads at 1 B. A tie goes to the inputs' dtype; with no tie, or no inputs told, as before."""
    from kernelopt.harness.infer import _dominant, _probe, dominant_dtype

    seen = _probe(DATA / "fp8_rowquant" / "reference.py")  # the probe's child side, here: no second interpreter
    assert seen["outputs_seen"] and seen["input_elements"] == {"torch.float16": 17 * 300}, seen
    assert _dominant(seen) == "fp16", seen
    rows = {"torch.float16": 60}
    assert dominant_dtype({"torch.float16": 60, "torch.float8_e4m3fn": 60, "torch.float32": 6}, rows) == "fp16"
    assert dominant_dtype({"torch.float16": 60, "torch.float8_e4m3fn": 61}, rows) == "fp8"  # more codes: no tie
    assert dominant_dtype({"torch.bfloat16": 10, "torch.float16": 10}) == "bf16"  # no inputs told: the narrower


def _set(folder: Path, text: str, value: int) -> tuple[str | None, str]:
    """``tunables kernel.py --set _jacobi5:BLOCK_H=value`` (the edit layer, not written) on stencil_cfg's kernel as
    ``text``: the edited source, or ``None``, and the one line of its refusal."""
    from kernelopt.tunables import apply
    from kernelopt.tunables.model import TunableError

    kernel = folder / "kernel.py"
    kernel.write_text(text)
    try:
        return apply(kernel, {"_jacobi5:BLOCK_H": value}, write=False).new_source, ""
    except TunableError as exc:
        return None, str(exc)


def test_l261_a_frozen_dataclass_field_no_builder_passes_is_the_value_a_literal_is_judged_against(
    tmp_path: Path,
) -> None:
    """stencil_cfg's ``cfg = StencilTiles.for_width(W)`` builds ``cls(BLOCK_W=...)``, so ``cfg.BLOCK_H`` is the frozen
    field's default 8 at every size; every literal ``BLOCK_H``, 8 included, was refused "over a computed value ...
    the grid's axis 1 ... at most 65535". 8 is written now (as would be a larger one), 4 still refused (more programs on axis 1 than
    the original's); a builder that passes the field, or a dataclass not frozen, keeps the refusal."""
    original = (DATA / "stencil_cfg" / "kernel.py").read_text()
    text, said = _set(tmp_path, original, 8)
    assert text is not None, said
    assert "BLOCK_H = cfg.BLOCK_H\n    BLOCK_H = 8  # kernelopt: tuned\n" in text and "cdiv(H, BLOCK_H)" in text
    text, said = _set(tmp_path, original, 4)
    assert text is None and "does not cover every size" in said
    passed = original.replace("cls(BLOCK_W=", "cls(BLOCK_H=8, BLOCK_W=")
    mutable = original.replace("@dataclass(frozen=True)", "@dataclass")
    assert passed != original and mutable != original
    for other in (passed, mutable):
        text, said = _set(tmp_path, other, 8)
        assert text is None and "over a computed value" in said


def test_l262_a_launch_through_jitfunction_run_is_said_not_passed_over() -> None:
    """fp8_rowquant launched through Triton's low-level ``_fp8_rows.run(..., BLOCK=512, num_warps=4, grid=(M,),
    warmup=False)``: discovery finds no launch and ``tunables`` said only "no tunable found (launch literals, ...)".
    The line says what it saw and what to change; a kernel's ``.run`` without ``grid=`` (no launch) says nothing."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.compile_cache import unread_launch_note
    from kernelopt.tuning.launch import seen_knobs

    source = (DATA / "fp8_rowquant" / "kernel.py").read_text()
    low = source.replace(
        "_fp8_rows[(M,)](x, y, scale, N, x.stride(0), y.stride(0), QMAX=FP8_MAX, BLOCK=tiles.block, num_warps=tiles.warps)",
        "_fp8_rows.run(x, y, scale, N, x.stride(0), y.stride(0), QMAX=FP8_MAX, BLOCK=512, num_warps=4, grid=(M,), "
        "warmup=False)",
    )
    assert low != source and discover_source(low) == []
    line = seen_knobs([], low)
    assert "_fp8_rows is launched through Triton's low-level _fp8_rows.run(" in line, line
    assert "BLOCK=..., num_warps=..., grid=...)" in line and "launch it as _fp8_rows[grid](" in line, line
    assert unread_launch_note(low.replace("grid=(M,), ", "")) is None
    assert unread_launch_note(source) is None


def test_l263_tunables_says_tune_leaves_a_setting_computed_from_no_size_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A setting computed from no size of the problem (``warps = torch.cuda.get_device_properties(...)...``):
    ``tunables`` said "it is tuned where it is computed ..., one value for every size", while ``tune`` leaves it alone
    (:func:`~kernelopt.tunables.knobs.sizeless_reason`, the planner's reading too). The listing says what tune does,
    and what ``--set`` writes."""
    from kernelopt.cli.app import main

    kernel = tmp_path / "kernel.py"
    kernel.write_text(
        "import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def _scale(X, Y, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    tl.store(Y + offs, tl.load(X + offs, mask=offs < n) * 2, mask=offs < n)\n\n\n"
        "def run(x):\n    y = torch.empty_like(x)\n    n = x.numel()\n"
        "    warps = torch.cuda.get_device_properties(x.device).multi_processor_count // 33\n"
        "    _scale[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024, num_warps=warps)\n    return y\n"
    )
    assert main(["tunables", str(kernel)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "_scale:num_warps is computed (warps = torch.cuda" in said, said
    assert "so it is left alone by tune" in said and "--set _scale:num_warps=VALUE writes one value" in said, said
    assert "it is tuned where it is computed" not in said, said


def test_l264_the_listing_of_a_literal_beside_a_size_says_the_table_needs_a_size_every_entry_gives(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ragged_moe's ``BLOCK_M = 32`` beside ``offsets`` (a tensor, read beside the tile by ``_tile_table(offsets,
    BLOCK_M)``): ``tunables`` promised "a table by size written after it", which ``tune`` refuses for a size no
    ``SHAPES`` entry gives (q103's line). The listing says the condition tune holds it to."""
    from kernelopt.cli.app import main

    assert main(["tunables", str(DATA / "ragged_moe" / "kernel.py"), "--no-evaluate"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert (
        "_ragged_gemm:BLOCK_M = 32 is a literal bound beside offsets (kernel.py:56): tune tunes it as one value for "
        "every size, or, where the entries' bests differ and offsets is a size every SHAPES entry gives (a number: no "
        "table buckets on a tensor), as a table by size written after it" in said
    ), said


def test_l265_a_literal_over_a_helper_returning_literals_is_judged_against_each_of_them(tmp_path: Path) -> None:
    """scatter_rows' ``BLOCK_R, BLOCK_C = _tiles(C)``, a ``match C:`` whose every case returns literals (64, 128, 256
    for ``BLOCK_C``): every literal ``BLOCK_C``, 256 and 512 too, was refused "over a computed value ... the grid's
    axis 1 ... at most 65535", so 19 of breaker30's 24 candidates were set aside untimed. The helper's returns are
    the values the computation gives: 256 is written (no more programs on axis 1 than the original's anywhere), 64
    still refused; a helper one of whose returns is computed keeps the refusal."""
    from kernelopt.tunables import apply
    from kernelopt.tunables.model import TunableError

    kernel = tmp_path / "kernel.py"
    original = (DATA / "scatter_rows" / "kernel.py").read_text()
    kernel.write_text(original)
    done = apply(kernel, {"_scatter_rows:BLOCK_C": 256}, write=False)
    assert "    BLOCK_R, BLOCK_C = _tiles(C)\n    BLOCK_C = 256  # kernelopt: tuned\n" in done.new_source, done.diff
    with pytest.raises(TunableError, match="BLOCK_C=64 does not cover every size the original handled"):
        apply(kernel, {"_scatter_rows:BLOCK_C": 64}, write=False)
    computed = original.replace("return 4, 256", "return 4, triton.next_power_of_2(c) // 4")
    assert computed != original
    kernel.write_text(computed)
    with pytest.raises(TunableError, match="BLOCK_C=256 over a computed value"):
        apply(kernel, {"_scatter_rows:BLOCK_C": 256}, write=False)


def test_l266_a_local_bound_to_a_module_settings_object_built_from_literals_reads_no_size() -> None:
    """stencil_cfg with its settings one module-level object (``CFG = StencilTiles()``, ``cfg = CFG`` in run()):
    ``tunables`` offered "a table by size, by cfg" and ``tune`` exited 2, "computed (cfg.BLOCK_W) from cfg, which no
    SHAPES entry names as a size". ``cfg`` reads no size now (the same object at every size), so the listing and
    tune say one thing: left alone by tune, ``--set`` writes one value. A module object built from a name, or
    changed in place, keeps ``cfg`` as before."""
    from kernelopt.tunables import discover_source

    source = (DATA / "stencil_cfg" / "kernel.py").read_text()
    held = source.replace("    cfg = StencilTiles.for_width(W)\n", "    cfg = CFG\n").replace(
        "def run(x", "CFG = StencilTiles()\n\n\ndef run(x"
    )
    assert held != source
    found = {t.key: t for t in discover_source(held)}
    assert found["_jacobi5:BLOCK_W"].size_names == [] and found["_jacobi5:num_warps"].size_names == []
    named = held.replace("CFG = StencilTiles()", "WIDTH = 64\nCFG = StencilTiles(BLOCK_W=WIDTH)")
    assert {t.key: t for t in discover_source(named)}["_jacobi5:BLOCK_W"].size_names == ["cfg"]
