"""A new user's first hour on a fresh clone, eighth trial (2026-12-06): what the last two sessions changed (per-shape
tables written into a user's kernel.py, autotune lists with filters, tune --json, the run lock, memory --version,
batch verdicts) and bad input of every kind; one test per fix (docs/faults.md, "A new user's first hour, eighth
trial")."""

from __future__ import annotations

import pytest

from kernelopt.tunables.list_filters import list_screen

#: An autotune list built by a comprehension with an ``if`` clause, then filtered under its own name, as a user
#: rewrites the fused-attention tutorial's ``list(filter(keep, configs))``.
REBOUND_LIST = """
import triton
import triton.language as tl

_BLOCKS = [64, 128, 256, 512, 1024]
configs = [
    triton.Config({"BLOCK": b}, num_warps=w)   # one config per pair
    for b in _BLOCKS
    for w in (1, 2, 4)
    if b // w <= 256      # keep the per-warp work small
]


def keep(conf):
    return not (conf.kwargs["BLOCK"] < 128 and conf.num_warps > 2)


configs = list(filter(keep, configs))


@triton.autotune(configs=configs, key=["n"])
@triton.jit
def _axpb(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    pass


configs = []  # a later rebinding is not the list the decorator read
"""


@pytest.mark.timeout(30)
def test_an_autotune_list_filtered_under_its_own_name_keeps_both_filters() -> None:
    """n32: `configs = [... if b // w <= 256]` then `configs = list(filter(keep, configs))`: the reader took a name
    bound twice for no list at all, so neither filter held a candidate and nothing said so; `tune` wrote BLOCK=8192
    at 4 warps, which the author's `b // w <= 256` rejects. A name is read as Python binds it where it is read: the
    last assignment before that statement."""
    screen = list_screen(REBOUND_LIST, "_axpb")
    assert screen is not None and not screen.unread
    assert [f.text for f in screen.filters] == ["filter(keep, ...)", "if b // w <= 256"]
    comp = screen.filters[1]
    assert comp.binds == {"b": "BLOCK", "w": "num_warps"} and comp.line == 10
    # the same list bound once, under two names, reads the same (the rule before the fix)
    once = REBOUND_LIST.replace("configs = list(filter(keep, configs))", "kept = list(filter(keep, configs))")
    once = once.replace("autotune(configs=configs", "autotune(configs=kept")
    assert list_screen(once, "_axpb") == screen
