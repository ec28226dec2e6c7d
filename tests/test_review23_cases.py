"""review23: the twenty-second session's riskier rules read as a reviewer would (docs/faults.md, "Review of the
twenty-second session"): r30 an index output judged only by an input its reference's indices truly order... Each
test is a case, on the CPU, in process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import check_in_process

DATA = Path(__file__).parent / "data" / "review23"


@pytest.mark.parametrize(
    ("problem", "said"),
    [
        ("mask_positions", "differs from the reference"),
        ("keyed_argsort", None),
        ("radix_bucket", "selects other values than the reference's indices from input 1 along dim 1"),
    ],
)
def test_r30_an_index_output_is_judged_by_every_input_its_reference_orders_and_no_other(
    tmp_path: Path, problem: str, said: str | None
) -> None:
    """r30: l30 read the reference's indices as a sort of any input whose values they gather as its k largest or
    smallest, and any permutation gathers all of a row's values. Position ids reversed (a mask summed from the row's
    end) passed as a sort of the all-ones mask; a valid dispatch ordering each expert's tokens otherwise FAILED as a
    sort of the router's scores. Now a permutation must sort the input and move something: the wrong kernel fails,
    the right one passes, and a radix sort's first pass alone still fails against the keys (fresh23's f10)."""
    result = check_in_process(Path(shutil.copytree(DATA / problem, tmp_path / problem)))
    if said is None:
        assert result.failure is None, result.failure
    else:
        assert result.failure is not None and said in result.failure.message, result.failure
