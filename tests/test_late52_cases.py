"""late52: three fail-open writes review28 left (docs/faults.md, "review28's leftovers (late52, 2026-12-07)"). Each
test failed on main before its fix; none runs a kernel."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.test_review28_cases import _autotuned


def _pinned(
    monkeypatch: pytest.MonkeyPatch, configs: str, pick: dict[str, int], *, hook: str | None = None
) -> tuple[str, object, str | None]:
    """tune's write (``folder._config_edit``) of ``pick`` over head_scale's autotune list of ``configs``, the run at
    the entries standing in (the head's ``BD`` told 16 and 64 there); ``hook``: each config's ``pre_hook``, a
    function of the file by that name."""
    from kernelopt.tunables.analysis import analyze
    from kernelopt.tunables.model import AutotuneConfig, AutotuneSpace
    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.space import KnobOrigin

    text = _autotuned(configs)
    if hook is not None:
        text = text.replace("\n\n\n@triton.autotune", f"\n\n\ndef {hook}(nargs):\n    pass\n\n\n@triton.autotune")
    found = analyze(text, "kernel.py")[2]
    keys = tuple(t.key for t in found if t.name == "BLOCK" and ".configs[" in t.key)
    blocks = [int(b) for b in configs.split('{"BLOCK": ')[1:] for b in [b.split("}")[0]]]
    listed = AutotuneSpace(
        kernel="head_scale",
        line=6,
        configs=[AutotuneConfig(kwargs={"BLOCK": b}, pre_hook=hook is not None, pre_hook_name=hook) for b in blocks],
        key=["n"],
    )
    prepared = SimpleNamespace(
        base_source=text,
        space=SimpleNamespace(origins={"BLOCK": KnobOrigin(keys=keys, value=max(blocks))}),  # the pick at the entries
        listed=listed,
        problem=SimpleNamespace(kernel_py=Path("kernel.py")),
        evaluation=None,
        tunables=found,
        gpu=None,
    )
    monkeypatch.setattr(
        tf, "_told", lambda _prepared: lambda kernel, param: [16, 64] if param == "BD" else [], raising=False
    )
    edit, note = tf._config_edit(prepared, pick)  # type: ignore[arg-type]
    return text, edit, note


def test_l220_tune_s_pin_of_an_autotune_list_raising_a_tile_beside_a_size_takes_the_size_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """late44's Seen line, review28's r80: ``tune``'s own pin of an autotune list (``pin_config``, a list of one
    config, which Triton runs unbenched at every size) was written for every size where ``tunables --set`` bounds the
    same raise (v184): ``BLOCK = 128`` beside the head's ``BD`` (told up to 64 at the entries, up to 4096 past them) ran
    a footprint never compiled past the entries. It now goes through the same rule (``size_tiles.size_bounds``) against
    the least value the list held; a decorator's config has no launch to bound it at, so the pick is written as a
    heuristic under the list (late53 l230, :func:`test_l230_a_bounded_pin_is_a_heuristic_under_the_user_s_list`), and
    where that form cannot hold it (a config's ``pre_hook``, which the autotuner calls with the config's own values)
    it is not written and the note says why; a pin at or below that value is written as before."""
    _, edit, note = _pinned(
        monkeypatch, 'triton.Config({"BLOCK": 32}, num_warps=4, pre_hook=_zero)', {"BLOCK": 128}, hook="_zero"
    )
    assert edit is None and note is not None, note
    assert "BLOCK=128 raises a tile beside sizes of the problem" in note and note.endswith("not written"), note
    assert "a config of the list has a pre_hook" in note, note
    _, edit, note = _pinned(
        monkeypatch,
        'triton.Config({"BLOCK": 32}, num_warps=4), triton.Config({"BLOCK": 128}, num_warps=4)',
        {"BLOCK": 32},
    )
    assert edit is not None and note is None and '[triton.Config({"BLOCK": 32}' in edit.new_source


#: v158's launcher (``BLOCK = 256``, masked) with its check against ``1024`` (replaced below)
_V158_CHECK = '    assert BLOCK <= 1024, "the kernel keeps a block to 1024 lanes"\n'


@pytest.mark.parametrize(
    ("params", "check"),
    [
        ("x, allowed", "    assert BLOCK in allowed\n"),
        ("x, want", "    assert BLOCK == want\n"),
        ("x, allowed", "    if BLOCK not in allowed:\n        raise ValueError(BLOCK)\n"),
    ],
    ids=["in", "eq", "not-in-raise"],
)
def test_l221_a_check_against_a_parameter_with_no_default_holds_the_original(params: str, check: str) -> None:
    """review28's r85 Seen line: a host check comparing the tile against a launcher parameter with no default (``def
    run(x, allowed)``, ``assert BLOCK in allowed``) was left to the size rules, which read no ``in`` or ``==``, and
    ``BLOCK = 2048`` (or 128) was written plainly, failing wherever the caller's ``allowed`` holds 256 alone. Such a
    parameter may be a size, its value known to no rule, so only the original holds; a size in the tile's arithmetic
    (``assert n % BLOCK == 0``) is the size rules' still, guarded as before."""
    from kernelopt.tunables.guard import guard_edit
    from tests.test_wrongkernel30_cases import V158

    text = (V158 / "kernel.py").read_text(encoding="utf-8")
    base = text.replace("def run(x):", f"def run({params}):").replace(_V158_CHECK, check)
    for value in (128, 2048):
        refused = guard_edit(base, base.replace("    BLOCK = 256\n", f"    BLOCK = {value}\n"))
        assert refused.new_source is None, value
        assert f"BLOCK={value} may fail the check" in (refused.note or "") and "is not read" in (refused.note or "")
    size = text.replace(_V158_CHECK, "    assert n % BLOCK == 0\n")
    guarded = guard_edit(size, size.replace("    BLOCK = 256\n", "    BLOCK = 2048\n"))
    assert guarded.new_source is not None and "only where n % 2048 == 0" in (guarded.note or ""), guarded.note


def test_l222_a_raised_config_of_a_list_whose_key_leaves_out_the_size_is_refused(tmp_path: Path) -> None:
    """review28's r80 Seen line: a config raised in an autotune list that keeps another config is left to the
    autotuner, but with ``key=["n"]`` beside ``BD`` (from the head's ``d``) the autotuner's pick is cached per ``n``:
    ``BLOCK=128``, picked at a small head, ran unbenched at a large one, and ``tunables --set`` wrote it with no note.
    It is refused now, naming the key; with ``BD`` in the key, or the ``d`` the launcher computes it from, the autotuner
    times it at each size and it is written."""
    from kernelopt.tunables.edit import apply
    from kernelopt.tunables.model import TunableError

    kernel = tmp_path / "kernel.py"
    two = _autotuned('triton.Config({"BLOCK": 32}, num_warps=4), triton.Config({"BLOCK": 16}, num_warps=4)')
    kernel.write_text(two, encoding="utf-8")
    with pytest.raises(TunableError, match=r"beside BD, a size of the problem its autotune key \['n'\] leaves out"):
        apply(kernel, {"head_scale.configs[0].BLOCK": 128}, write=False)
    for key in ('key=["n", "BD"]', 'key=["n", "d"]'):  # BD itself, or the head's d that the launcher computes it from
        kernel.write_text(two.replace('key=["n"]', key), encoding="utf-8")
        result = apply(kernel, {"head_scale.configs[0].BLOCK": 128}, write=False)
        assert '[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 16}' in result.new_source, key
    kernel.write_text(two, encoding="utf-8")  # a smaller tile raises no footprint: left to the autotuner as before
    lowered = apply(kernel, {"head_scale.configs[0].BLOCK": 8}, write=False)
    assert '[triton.Config({"BLOCK": 8}, num_warps=4), triton.Config({"BLOCK": 16}' in lowered.new_source
