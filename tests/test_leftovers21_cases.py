"""leftovers21: the twentieth session's closing note's "Left" items (docs/faults.md, "Leftovers (leftovers21,
2026-12-07)"): an autotune list changed through a call, an attribute or a class body (l10), ..."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"


def _found(source: str, evaluation: Any = None) -> dict[str, Any]:
    from kernelopt.tunables import discover_source

    return {t.key: t for t in discover_source(source, evaluation=evaluation)}


# ------------------------------------------------- l10: a list changed by a callee, an attribute or a class body

_CONFIGS = """CONFIGS = [
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}, num_warps=4, num_stages=2),
    triton.Config({"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 32}, num_warps=2, num_stages=2),
]
"""
_ADDED = 'triton.Config({"BLOCK_M": 64, "BLOCK_N": 32, "BLOCK_K": 32}, num_warps=2, num_stages=2)'
_GROW = f"def grow(cfgs):\n    cfgs.append({_ADDED})\n\n\n"


@pytest.mark.parametrize(
    ("change", "line"),
    [
        (f"{_GROW}grow(CONFIGS)", "line(s) 16 (passed to grow(), which changes it (line(s) 13))"),
        (
            f"{_GROW}def outer(c):\n    grow(c)\n\n\nouter(CONFIGS)",
            "line(s) 20 (passed to outer(), which passes it to grow() at line 17, which may change it)",
        ),
        (
            "from configs_util import extend_configs\nextend_configs(CONFIGS)",
            "line(s) 13 (passed to extend_configs(), whose body is not read here, so it may change it)",
        ),
        (f"import sys\nmod = sys.modules[__name__]\nmod.CONFIGS[0] = {_ADDED}", "line(s) 14 (through mod.CONFIGS)"),
        (f"class Tables:\n    CONFIGS.append({_ADDED})", "line(s) 13 (class Tables's body)"),
        (f"class Tables:\n    c = CONFIGS\n    c += [{_ADDED}]", "line(s) 14 (class Tables's body, through c)"),
        (
            "class Holder:\n    def __init__(self):\n        self.configs = CONFIGS\n\n    def more(self):\n"
            f"        self.configs.append({_ADDED})",
            "line(s) 17 (in more(), through self.configs)",
        ),
        (f"{_GROW}def setup():\n    grow(CONFIGS)", "line(s) 17 (in setup(), passed to grow(), which changes it"),
    ],
    ids=["grow", "passed-on", "imported", "module-attribute", "class-body", "class-alias", "self-attr", "in-setup"],
)
def test_l10_a_list_changed_by_a_call_an_attribute_or_a_class_body_is_refused_or_read_back(
    change: str, line: str
) -> None:
    """``configs=CONFIGS`` of a list a function it is passed to changes (directly or passing it on), an imported
    callee whose body is not read, a change through the module's own name for it or an attribute it is stored in, or
    a class body's: on main the literal's two configs were offered as the list, while the autotuner held three. Now
    it is refused statically with the line and how; with the import's read-back the three configs are read where the
    change runs at import (the module's lines, a class body), and it stays refused where a function changes it as it
    runs."""
    from kernelopt.tunables import AutotuneConfig, AutotuneEvaluation, AutotuneSpace

    text = (DATA / "breaker" / "mm_autotune" / "kernel.py").read_text()
    written = text[text.index("@triton.autotune(") : text.index("    key=")]
    source = text.replace(written, f"{_CONFIGS}{change}\n\n\n@triton.autotune(\n    configs=CONFIGS,\n")
    listed = _found(source)
    assert not any(".configs[" in k for k in listed), sorted(listed)
    refusal = listed["matmul_kernel.configs"].refused_reason or ""
    assert refusal.startswith("configs=CONFIGS: 'CONFIGS' is changed in place at ") and line in refusal, refusal
    held = [
        AutotuneConfig(kwargs={"BLOCK_M": m, "BLOCK_N": 32, "BLOCK_K": k}, num_warps=w, num_stages=2)
        for m, k, w in ((32, 16, 4), (16, 32, 2), (64, 32, 2))
    ]
    evaluation = AutotuneEvaluation(spaces={"matmul_kernel": AutotuneSpace(kernel="matmul_kernel", configs=held)})
    read = _found(source, evaluation)
    if "(in " in line:
        assert "as it runs, after the import's list is read back" in (
            read["matmul_kernel.configs"].refused_reason or ""
        )
        assert not any(".configs[" in k for k in read)
    else:
        assert read["matmul_kernel.configs[2].BLOCK_M"].value == 64


@pytest.mark.parametrize(
    "change",
    [
        "def count(cfgs):\n    return len(cfgs)\n\n\ncount(CONFIGS)",
        "N_CONFIGS = len(CONFIGS)\nCOPY = list(CONFIGS)\nCOPY.append(COPY[0])",
        "class Holder:\n    def __init__(self):\n        self.configs = list(CONFIGS)\n        self.configs.append(None)",
        "TILE = (16, 16)\nprint(TILE)",
    ],
    ids=["read-by-a-function", "copied", "copy-in-an-attribute", "a-tuple-passed"],
)
def test_l10_a_list_only_read_or_copied_keeps_its_knobs(change: str) -> None:
    """A function of the file that only reads the list, a copy changed (not the list), and a tuple passed to a call are
    no change: the list's configs stay knobs, as on main."""
    text = (DATA / "breaker" / "mm_autotune" / "kernel.py").read_text()
    written = text[text.index("@triton.autotune(") : text.index("    key=")]
    source = text.replace(written, f"{_CONFIGS}{change}\n\n\n@triton.autotune(\n    configs=CONFIGS,\n")
    found = _found(source)
    assert found["matmul_kernel.configs[1].BLOCK_M"].value == 16 and "matmul_kernel.configs" not in found
