"""netcap20: the net's time cap, a request with no reply inside it, and a kernel written beside sizes left unchecked.

gpunet20's g1 (docs/faults.md): on an H100 the net's first size of v81's table took a whole request's 60 s limit with no
reply; the net's cap (30 s) was spent by that one check, every smaller size was priced at 60 s, every later size went
unchecked "past the net's time cap", and the table was written with every size unchecked. Now a request inside a
capped net gets at most half of what the cap has left (its estimate permitting), a request with no reply prices no
smaller size, and a written form whose net left a size unchecked where its code is not the original's is not written,
the verdict naming the sizes and the ``--budget-wall-s`` that checks them. CPU: stand-in checkers on a manual clock
(``net.cast``) and a stand-in evaluator under ``folder._checked_edit`` (v81's table over tests/data/variants).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kernelopt.tuning.budget import ManualClock
from kernelopt.tuning.candidate import Outcome, Result
from kernelopt.tuning.net import DerivedSize, EntryTimes, NetCap, SizeClass, cast
from kernelopt.tuning.problem import ProblemShape

VARIANTS = Path(__file__).parent / "data" / "variants"
REQUEST_S = 60.0  # tune's --candidate-timeout-s by default: each net request's limit


def _n(n: int) -> ProblemShape:
    return ProblemShape(kwargs={"n": n})


# -------------------------------------------------------------- one request with no reply does not spend the cap


def test_a_first_size_with_no_reply_leaves_the_cap_to_the_sizes_after_it() -> None:
    """gpunet20's g1 on a manual clock: the first size (1000 times the entries' elements: a fresh compile) gives no
    reply whatever its limit, each other size takes 1 s. Before, its request ran the whole 60 s limit past the 30 s cap
    and every size after it was "not run, it would end past the net's time cap" (each priced at that 60 s request, the
    costliest at or above its size: now only requests that replied price a size). Now its limit is half the cap's
    30 s; it is unchecked for want of time (not for the request's limit), and the eight sizes after it, no larger than
    the entries, are checked, each within its own limit of what is left."""
    clock = ManualClock()
    limits: list[tuple[int, float | None]] = []

    def check_at(source: str, shape: ProblemShape, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        limits.append((shape.kwargs["n"], limit_s))
        if shape.kwargs["n"] > 100000:  # the compile: no reply within any limit it is given
            waited = REQUEST_S if limit_s is None else limit_s
            clock.advance(waited)
            return Outcome.RUN_TIMEOUT, f"no reply within {waited:g} s"
        clock.advance(1.0)
        return Outcome.OK, None

    first = DerivedSize(kind=SizeClass.PAST, tries=(_n(2**24 + 1),), scales=(1000.0,))
    rest = [DerivedSize(kind=SizeClass.BELOW, tries=(_n(1001 + 2 * k),), scales=(0.5,)) for k in range(8)]
    entries = EntryTimes(check_s=1.0, kernel_s=0.001, count=2)

    def net(request_s: float | None) -> Any:
        return cast([first, *rest], "original", "written", check_at, cap=NetCap.of(1.0, clock()), entries=entries,
                    clock=clock, request_s=request_s)  # fmt: skip

    before = net(None)  # the callables' own limit, as before: the cap spent by the one request
    assert [c.passed for c in before.checks] == [None] * 9 and len(before.unchecked) == 9, before.line()
    assert before.checks[0].limit and "past the net's time cap of 30 s" in (before.checks[1].reason or ""), before
    limits.clear()
    now = net(REQUEST_S)
    hung = now.checks[0]
    assert hung.unchecked and not hung.limit and hung.need_s == 2 * REQUEST_S, hung  # its whole limit, at half left
    assert "no reply within the net's time left for it" in (hung.reason or ""), hung.reason
    assert [c.passed for c in now.checks[1:]] == [True] * 8, now.line()
    assert limits[0] == (2**24 + 1, 15.0), limits  # half the cap's 30 s
    assert all(limit is not None and limit <= 15.0 for _, limit in limits[1:]), limits
    line = now.unchecked_line() or ""
    assert line.startswith("the net did not check the written kernel at 1 of its 9 sizes for want of time"), line


# --------------------------------------------------------------- a table's net under folder._checked_edit


class _StandIn:
    """The session's evaluator for ``folder._checked_edit``: the entries' check passes (1 s), reference.py builds every
    size, and a kernel passes at each size but where ``hangs`` (of the size and the source) says it gives no reply,
    where it waits out the limit it is given on the net's clock (``offset``, added to the real one), or ``wrong``
    says it computes wrong."""

    ready = None  # no bench worker: no room for far sizes

    def __init__(self, hangs: Any, wrong: Any = None) -> None:
        self.hangs, self.wrong = hangs, wrong or (lambda n, source: False)
        self.offset = 0.0
        self.asked: list[int] = []
        self.request_s = REQUEST_S

    def clock(self) -> float:
        import time

        return time.monotonic() + self.offset

    def check_source(self, source: str, config: Any) -> Result:
        return Result(config=config.as_dict(), outcome=Outcome.OK, check_s=1.0)

    def build_at(self, shape: ProblemShape, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        return Outcome.OK, None

    def check_at(self, source: str, shape: ProblemShape, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        n = shape.kwargs["n"]
        self.asked.append(n)
        if self.wrong(n, source):
            self.offset += 0.5
            return Outcome.WRONG_RESULT, "max abs diff 1.0"
        if self.hangs(n, source):
            self.offset += limit_s or REQUEST_S
            return Outcome.RUN_TIMEOUT, f"no reply within {limit_s or REQUEST_S:g} s"
        self.offset += 0.5
        return Outcome.OK, None

    check_alone = check_at


@pytest.fixture(scope="module")
def v81(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """v81's folder prepared once (table_programs_rows: a table by n over SHAPES 16384 and 262144)."""
    from kernelopt.tuning import folder as tf

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TRITON_INTERPRET", "1")
        folder = Path(shutil.copytree(VARIANTS / "table_programs_rows", tmp_path_factory.mktemp("v81") / "v81"))
        yield tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))


def _table_checked(
    prepared: Any, monkeypatch: pytest.MonkeyPatch, hangs: Any, wrong: Any = None
) -> tuple[Any, _StandIn]:
    """v81's second table (512 up to 16384, 8192 up to 262144, the original's computation above) through
    ``_checked_edit`` with :class:`_StandIn` as the session's evaluator."""
    from kernelopt.tuning import folder as tf
    from tests.test_table14_cases import _table_session

    tuning = _table_session(prepared, {512: (5.0, 100.0), 8192: (1000.0, 40.0)})
    stand_in = _StandIn(hangs, wrong)
    cast_ = tf.cast
    monkeypatch.setattr(tf, "cast", lambda *a, **k: cast_(*a, **k, clock=stand_in.clock))
    return tf._checked_edit(tuning, stand_in), stand_in


def test_a_table_whose_net_left_a_row_s_size_unchecked_is_not_written_and_says_the_wall(
    v81: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The between size n=16385 (the second row's first size, where v81's table raised) gives no reply: before, the
    table was written, its line naming the size among those unchecked. Now the written code there is not the
    original's, so nothing is written; the verdict names the size and the wall whose net checks it (a quarter of it
    holds the net's seconds and twice the size's whole request limit: half of what is left is what a request gets)."""
    done, stand_in = _table_checked(v81, monkeypatch, lambda n, source: n == 16385)
    assert stand_in.asked[0] == 16385 and len(stand_in.asked) > 1, stand_in.asked  # the sizes after it still ran
    assert done.edit is None and not done.judgement.better, done.edit_note
    note = done.edit_note or ""
    assert note.startswith("not written: the net did not check the written kernel at 1 of its "), note
    assert (
        "sizes for want of time (n=16385): it is unchecked there, where the original may run; a --budget-wall-s of"
        in note
    )
    assert note.endswith("a kernel unchecked where it changes the original's code is not written"), note
    wall = int(note.split("a --budget-wall-s of ")[1].split(" s")[0])
    assert wall >= (done.net.seconds + 2 * REQUEST_S) / 0.25 and wall % 10 == 0, (wall, done.net.seconds)
    assert done.net is not None and [c.shape.label() for c in done.net.changed] == ["n=16385"]


def test_a_table_whose_unchecked_sizes_are_all_above_its_largest_entry_is_written_and_says_so(
    v81: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every size above the largest entry (262144, where the table runs the original's computation) gives no reply,
    as v81's past size did on the H100: the rows' own sizes run first and pass, those above go unchecked, each within
    half of what the cap has left; the table is written, its line saying the original's computation runs there."""
    from kernelopt.cli.tune import _unchecked

    done, stand_in = _table_checked(v81, monkeypatch, lambda n, source: n > 262144)
    first_above = next(i for i, n in enumerate(stand_in.asked) if n > 262144)
    assert first_above > 0 and all(n > 262144 for n in stand_in.asked[first_above:]), stand_in.asked  # rows first
    assert done.edit is not None, done.edit_note
    assert done.net is not None and done.net.unchecked and not done.net.changed, done.net.line()
    assert all(c.served for c in done.net.unchecked)
    line = _unchecked(done) or ""
    assert "sizes for want of time (" in line, line
    assert "the table runs the original's computation there (above its largest entry), unchanged" in line, line


def test_a_table_given_way_after_a_failure_whose_net_is_cut_names_the_failure_and_the_sizes(
    v81: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v81's first table fails at n=16385 (its row of 8192, as on the CPU), and its row gives way to the original's
    computation; the table so written gives no reply at n=8193. Nothing is written, and the verdict says both: the
    first table's failure and its row not written, then the sizes the next table was left unchecked at and the wall
    (the refusal named the sizes alone, as if of the first table)."""
    base = v81.base_source
    done, _ = _table_checked(
        v81, monkeypatch, lambda n, source: n == 8193 and source != base,
        wrong=lambda n, source: n == 16385 and "8192" in source,
    )  # fmt: skip
    note = done.edit_note or ""
    assert done.edit is None and note.startswith("not written: the written kernel fails at n=16385"), note
    assert (
        "the row n <= 262144: BLOCK=8192 not written; the table so written: the net did not check the written " in note
    )
    assert "(n=8193): it is unchecked there, where the original may run; a --budget-wall-s of" in note, note


# ------------------------------------------------------------------------------------- on a GPU


@pytest.mark.gpu
@pytest.mark.timeout(290)
def test_on_cuda_mamba_chunk_state_s_table_is_written_only_with_every_size_its_net_asks_checked(tmp_path: Path) -> None:
    """On an NVIDIA GPU: ``tune --device cuda --json --budget-wall-s 60`` on breaker16's mamba_chunk_state, whose
    keyed list's per-bucket table the H100 wrote on 2026-12-06 with 11 of its net's 52 sizes "unchecked for want of
    time" (its search ran to the wall; leftovers19's reserve keeps the net two checks). Its autotuner may run any row
    at any size, so every size of its net is one the written code changes: the table is written only with none of
    them unchecked; else nothing is written and the verdict names the wall (and the budget) that checks them, and a
    rerun with those, resumed from the session record, writes it with every size checked, or refuses it for a reason
    other than time."""
    import json
    import re
    import subprocess
    import sys
    import time

    started = time.monotonic()

    folder = Path(shutil.copytree(Path(__file__).parent / "data" / "breaker16" / "mamba_chunk_state", tmp_path / "m"))
    out = tmp_path / "sessions"

    def tune(*options: str, timeout: float) -> dict[str, Any]:
        argv = [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cuda", "--json", "--out", str(out),
                *options]  # fmt: skip
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout)

    first = tune("--budget-wall-s", "60", timeout=150)
    said = json.dumps(first)
    print(f"netcap20 first: written {first['written']}, net_unchecked {len(first['net_unchecked'])}, "
          f"evaluations {first['evaluations']}, stop {first['stop']}, edit_note {first['edit_note']!r}")  # fmt: skip
    if first["written"]:
        assert first["net_unchecked"] == [], first["net_unchecked"]
        return
    cure = re.search(r"a --budget-wall-s of (\d+) s or more(?: with --budget (\d+))?", said)
    if cure is None:  # not written for another reason: nothing unchecked was written beside it
        assert "for want of time" not in (first["edit_note"] or ""), first["edit_note"]
        return
    options = ["--budget-wall-s", cure.group(1), *(["--budget", cure.group(2)] if cure.group(2) else [])]
    again = tune(*options, timeout=285 - (time.monotonic() - started))  # served from the record: the net's time
    print(f"netcap20 rerun {options}: written {again['written']}, net_unchecked {again['net_unchecked']}, "
          f"net {again['net'][:300]!r}")  # fmt: skip
    assert "for want of time" not in (again["edit_note"] or "") and "for want of time" not in again["verdict"], again
    assert not again["written"] or again["net_unchecked"] == [], again["net_unchecked"]
