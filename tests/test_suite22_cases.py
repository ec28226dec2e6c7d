"""suite22: the CPU path's own cost (docs/faults.md, "The CPU path's own cost (suite22, 2026-12-07)"): work kernelopt
did on the CPU that nothing read, cut with every result kept (s10, ...)."""

from __future__ import annotations

from pathlib import Path

import pytest

# ------------------------------------------------- s10: the interpreter's overflow sanitizer that nothing asserts

_WRAPS = """
import torch
import triton
import triton.language as tl


@triton.jit
def wrap_kernel(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n, other=0)
    tl.store(y + offs, v * 65536 + v - 7, mask=offs < n)


def run(x):
    y = torch.empty_like(x)
    wrap_kernel[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)
    return y
"""


def test_s10_the_interpreter_computes_and_raises_the_same_without_the_overflow_check_it_never_asserted(
    tmp_path: Path,
) -> None:
    """Triton 3.6's interpreter sanitized every integer ``+``, ``-`` and ``*`` (int64 again, compared with the type's
    bounds) for a ``device_assert`` that its ``debug`` option, always off there, drops. With kernelopt's fixes the
    builder sanitizes only where it would assert: a kernel whose int32 products wrap returns the same bits with the
    sanitizer on (Triton's own) and off, raising nothing either way, and a builder in debug keeps it."""
    import dataclasses

    import torch

    from kernelopt.harness.interpreter import _unasserted, patch_interpreter
    from tests.conftest import load_fresh, triton_interpreted

    (tmp_path / "kernel.py").write_text(_WRAPS)
    with triton_interpreted():
        patch_interpreter()
        import triton.runtime.interpreter as interp

        builder = interp.interpreter_builder
        assert not builder.options.debug and not builder.options.sanitize_overflow
        assert not interp.InterpreterBuilder().options.sanitize_overflow
        debugging = dataclasses.replace(builder.options, debug=True, sanitize_overflow=True)
        assert _unasserted(debugging).sanitize_overflow
        module = load_fresh(tmp_path / "kernel.py", "suite22_s10_wraps")
        x = torch.tensor([0, 1, -1, 40000, 2**31 - 1, -(2**31), 12345678] * 20, dtype=torch.int32)
        unchecked = module.run(x)
        kept = builder.options
        builder.options = dataclasses.replace(kept, sanitize_overflow=True)
        try:
            sanitized = module.run(x)
        finally:
            builder.options = kept
    wrapped = ((x.long() * 65536 + x.long() - 7 + 2**31) % 2**32 - 2**31).int()
    assert torch.equal(sanitized, wrapped) and torch.equal(unchecked, wrapped)


# ------------------------------------------------- s11: a launch's helpers of triton.language.standard patch it once

DATA = Path(__file__).parent / "data" / "suite22"


def test_s11_a_launch_patches_the_language_of_its_helpers_once_whatever_it_calls_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``tl.max`` and ``tl.sum`` are helpers of triton.language.standard, whose module holds triton.language.core, not
    the triton.language the kernel's module holds: each of their calls in a launch read all of core again to patch
    it (``inspect.getmembers``), a third of a row kernel's CPU. Now the launch's first helper of that language patches
    it, and the later ones find it patched: a launch of 2 rows and one of 24 rows (12 times the helper calls) read the
    language alike, and the rows are the softmax torch computes, call after call."""
    import torch

    from kernelopt.harness.interpreter import patch_interpreter
    from tests.conftest import load_fresh, triton_interpreted

    with triton_interpreted():
        patch_interpreter()
        import triton.runtime.interpreter as interp

        module = load_fresh(DATA / "rows" / "kernel.py", "suite22_s11_rows")
        reads: list[object] = []
        patch_builtin = interp._patch_builtin
        monkeypatch.setattr(interp, "_patch_builtin", lambda pkg, *a: reads.append(pkg) or patch_builtin(pkg, *a))
        x = torch.randn(24, 100, generator=torch.Generator().manual_seed(11))
        first = module.run(x[:2])  # Triton's first rewrite of a helper copies its own names into the helper's module
        counts, outs = [], []
        for rows in (x[:2], x, x):
            reads.clear()
            outs.append(module.run(rows))
            counts.append(len(reads))
    assert counts[0] == counts[1] == counts[2] and counts[0] <= 12, counts
    assert torch.equal(outs[1], outs[2]) and torch.equal(outs[0], outs[1][:2]) and torch.equal(first, outs[0])
    torch.testing.assert_close(outs[1], torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)
