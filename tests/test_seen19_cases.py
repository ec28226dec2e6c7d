"""This session's "seen, not changed" items a user meets (docs/faults.md, "This session's seen items (seen19)"):
each a test on real input, on the CPU."""

from __future__ import annotations

from pathlib import Path

from kernelopt.tunables.guard import guard_edit
from kernelopt.tunables.user_lines import in_user_lines, user_line

DATA = Path(__file__).parent / "data"


def test_s1_a_guard_note_names_the_line_as_the_user_s_file_has_it() -> None:
    """Seen on 2026-12-06 (breaker19's d5): the guard's note on flag_splitkv said "line 298", the line of the text the
    edit would write (one tuned line inserted above it); the user's kernel.py has it at 297. Every line a note names
    is the user's: a line the edit kept by its number there, a line the edit adds by the user's line above it."""
    base = (DATA / "breaker19" / "flag_splitkv" / "kernel.py").read_text()
    tiles = "        BLOCK_M, BLOCK_N, num_stages, num_warps = config\n"
    guarded = guard_edit(base, base.replace(tiles, tiles + "        BLOCK_N = 64  # kernelopt: tuned\n"))
    assert guarded.note is not None and "(line 297 counts triton.cdiv(N, BLOCK_N) whole tiles" in guarded.note
    assert "triton.cdiv(triton.cdiv(N, BLOCK_N), S)" in base.splitlines()[297 - 1]
    # a net's or a check's traceback line of the edited text (``checks.first_line``: "(kernel.py:N)")
    before = "a = 1\nb = 2\nc = 3\n"
    after = "a = 1\nif n <= 64:  # kernelopt: tuned\n    a = 2\nb = 20\nc = 3\n"
    assert [user_line(before, after, n) for n in range(1, 6)] == [1, None, None, 2, 3]
    said = in_user_lines("RuntimeError: boom (kernel.py:5); line 3 tests n", before, after)
    assert said == "RuntimeError: boom (kernel.py:3); a line the edit adds after line 1 tests n", said
    assert in_user_lines("IndexError (kernel.py:2)", before, after) == (
        "IndexError (kernel.py:1 (a line the edit adds below it))"
    )
    assert in_user_lines("line 3 is as it was", before, before) == "line 3 is as it was"


def test_s2_a_list_a_function_chooses_by_a_condition_is_not_pinned_over_its_other_branch() -> None:
    """Seen on 2026-12-06 (breaker19): the matmul tutorial's ``configs=get_autotune_config()`` returns the CUDA list
    ``if is_cuda():`` and the HIP list ``else:``; ``tune`` on the CPU pinned the list, and the written kernel.py ran
    the configs tuned for CUDA on AMD too, the HIP list gone. The list is not pinned (``folder._checked`` refuses the
    write with this line, as every rule's refusal); a literal list, or a helper that only builds one, still is."""
    from kernelopt.tunables.branched_list import branched_list

    source = (DATA / "breaker19" / "tut_matmul" / "kernel.py").read_text()
    why = branched_list(source, "matmul_kernel")
    assert why is not None and why.startswith(
        "matmul_kernel's autotune list is get_autotune_config() (line 59), which chooses its list by `if is_cuda():`"
        " (line 50): a pinned list would run the configs tuned here where that test chooses another list too"
    ), why
    assert source.splitlines()[50 - 1].strip() == "if is_cuda():"
    # one list for every platform: pinned as before (a loop's filter under an `if` returns nothing there)
    built = source.replace(
        "def get_autotune_config():\n    if is_cuda():\n        return get_cuda_autotune_config()\n    else:\n"
        "        return get_hip_autotune_config()\n",
        "def get_autotune_config():\n    out = []\n    for c in get_cuda_autotune_config():\n        if c.num_warps"
        " <= 8:\n            out.append(c)\n    return out\n",
    )
    assert built != source and branched_list(built, "matmul_kernel") is None
    literal = source.replace("configs=get_autotune_config(),", "configs=get_cuda_autotune_config(),")
    assert literal != source and branched_list(literal, "matmul_kernel") is None
