"""The public fixtures of shared/fixtures-public, read where they lie (beside the clone: ../shared).

tests/data holds copies of them (the .ncu-rep files gzipped); these tests check that the copies are
unchanged and that every public file is read, or refused with the message its kind deserves."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from kernelopt.errors import InputFileError
from kernelopt.profiling.reader import read_evidence

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"


def _public() -> Path | None:
    for base in (REPO.parent, *REPO.parents):
        candidate = base / "shared" / "fixtures-public"
        if candidate.is_dir():
            return candidate
    return None


PUBLIC = _public()
pytestmark = pytest.mark.skipif(PUBLIC is None, reason="shared/fixtures-public is not beside this clone (../shared)")


def _files(vendor: str) -> list[Path]:
    return sorted((PUBLIC / vendor).iterdir()) if PUBLIC is not None else []


@pytest.mark.parametrize("path", _files("amd") + _files("nvidia"), ids=lambda p: p.name)
def test_committed_copies_are_unchanged(path: Path) -> None:
    copy = DATA / path.parent.name / path.name
    if path.suffix == ".ncu-rep":
        copy = copy.with_name(path.name + ".gz")
        assert gzip.decompress(copy.read_bytes()) == path.read_bytes()
    else:
        assert copy.read_bytes() == path.read_bytes()


@pytest.mark.parametrize(
    "path", [p for p in _files("amd") + _files("nvidia") if p.suffix == ".csv"], ids=lambda p: p.name
)
def test_every_public_csv_is_read_or_refused_by_kind(path: Path) -> None:
    if path.name == "amd_gfx950_rocprofv3_agent_info.csv":
        with pytest.raises(InputFileError, match="machine description"):
            read_evidence(path)
        return
    summary = read_evidence(path)
    if path.name == "amd_mi300x_att_stats_empty_dispatch3.csv":
        assert summary.kernels == [] and any("no samples" in n for n in summary.notes)
        return
    assert summary.kernels, path.name
    for k in summary.kernels:
        assert k.launch_count >= 1 and k.no_data_reason is None
