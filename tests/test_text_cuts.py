"""Every text kernelopt shortens is cut by the one rule (``kernelopt.oneline``): at a word, with ``...``."""

from __future__ import annotations

import re
from pathlib import Path

from kernelopt.backends.launch_tuning import _failures
from kernelopt.tuning.candidate import Outcome, Result

SRC = Path(__file__).resolve().parents[1] / "src" / "kernelopt"
#: A slice of the first N characters of something (``text[:300]``, ``str(exc)[:80]``); 12 and 16 are
#: abbreviated commits and digests, not cut texts.
RAW_CUT = re.compile(r"[\w)\]]\[:\s*(?!1[26]\])\d{2,4}\]")
#: Slices that are not texts shown to anyone: names made into folder names (opening.py, batch/problems.py's
#: workspace name of its own, workspace.py's name of a folder's workspace and of its lock), bytes bounded before
#: they are decoded (and then cut by the rule), a binary check.
NOT_TEXT = ("loop/opening.py", "batch/problems.py", "workspace.py", ".decode(", 'b"\\x00" in')


def test_no_module_cuts_a_text_by_hand() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if RAW_CUT.search(line) and not any(x in rel or x in line for x in NOT_TEXT):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "cut with kernelopt.oneline.one_line instead:\n" + "\n".join(found)


def test_a_failure_reason_in_a_plan_is_cut_at_a_word_with_a_marker() -> None:
    reason = "PTXAS error: " + " ".join(f"entry{i} uses too much shared memory" for i in range(20))
    text = _failures([Result(config={"BLOCK_M": 256}, outcome=Outcome.COMPILE_ERROR, reason=reason)])
    cut = text.split(" (", 1)[1].removesuffix(")")
    assert cut.endswith("...") and len(cut) <= 80 and reason.startswith(cut.removesuffix("..."))
    assert reason[len(cut.removesuffix("...")) : len(cut.removesuffix("...")) + 1] == " "  # never inside a word
