"""The memory store: validation, typed --set conversion, atomic writes, masking."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.errors import RecordError
from kernelopt.memory.model import IterationRecord, parse_version
from kernelopt.memory.schema import render_schema, shipped_schema
from kernelopt.memory.store import MemoryStore


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    (tmp_path / "memory").mkdir()
    return MemoryStore(tmp_path / "memory")


def test_create_and_read_round_trip(store: MemoryStore) -> None:
    store.create("v0")
    rec = store.read(0)
    assert rec.version == "v0" and rec.masked is False
    assert rec.correctness.status.value == "NOT_RUN"
    with pytest.raises(RecordError, match="already exists"):
        store.create("v0")
    store.create("v0", force=True)


@pytest.mark.parametrize("hash_text", ["12e4567", "0012345", "1234567", "deadbeefcafe"])
def test_hash_like_strings_stay_strings(store: MemoryStore, hash_text: str) -> None:
    store.create(1)
    rec = store.update("v1", [f"git_commit_hash={hash_text}"])
    assert rec.git_commit_hash == hash_text
    assert json.loads(store.path(1).read_text())["git_commit_hash"] == hash_text


def test_typed_conversion_numbers_nulls_lists(store: MemoryStore) -> None:
    store.create(2)
    rec = store.update(
        2,
        [
            "performance.latency_us=201.7",
            "performance.tflops=681.4",
            "optimization.action_category=num_warps",
            "optimization.action_description=4 -> 8 warps",
            'open_directions=["try split_k", "try persistent"]',
            'search_log=[{"source": "gpu-wiki", "query": "long_scoreboard", "finding": "x", "actionability": "high"}]',
            "quality_gate.result=PASS",
        ],
    )
    assert rec.performance.latency_us == pytest.approx(201.7)
    assert rec.open_directions == ["try split_k", "try persistent"]
    assert rec.search_log[0].source == "gpu-wiki"
    rec = store.update(
        2,
        [
            "performance.tflops=null",
            'search_log.1={"source": "s", "query": "q", "finding": "f", "actionability": "low"}',
        ],
    )
    assert rec.performance.tflops is None
    assert len(rec.search_log) == 2
    # a string field given a number-looking value keeps the text
    rec = store.update(2, ["optimization.action_description=128"])
    assert rec.optimization.action_description == "128"


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("performance.no_such_field=1", "no field 'performance.no_such_field'"),
        ("performance.latency_us=fast", "invalid value for 'performance.latency_us'"),
        ("performance.latency_us=-3", "invalid value for 'performance.latency_us'"),
        ("optimization.action_category=make_it_fast", "invalid value for 'optimization.action_category'"),
        ("masked=null", "cannot be null"),
        ("quality_gate.result=MAYBE", "quality_gate.result"),
        ("git_commit_hash=not-a-hash", "git_commit_hash"),
        ("noequals", "key.path=value"),
    ],
)
def test_invalid_set_is_refused_and_file_untouched(store: MemoryStore, assignment: str, message: str) -> None:
    store.create(3)
    before = store.path(3).read_bytes()
    with pytest.raises(RecordError, match=message.replace(".", r"\.").replace("(", r"\(")):
        store.update(3, ["performance.latency_us=5", assignment])
    assert store.path(3).read_bytes() == before


def test_corrupt_json_is_a_clear_error(store: MemoryStore) -> None:
    store.path(4).write_text("{not json")
    with pytest.raises(RecordError, match="corrupt JSON"):
        store.read(4)
    store.path(5).write_text(json.dumps({"version": "v5", "performance": {"latency_us": "x"}}))
    with pytest.raises(RecordError, match="does not match the schema at 'performance.latency_us'"):
        store.read(5)


def test_failed_write_leaves_old_file(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    store.create(6)
    store.update(6, ["performance.latency_us=10"])
    before = store.path(6).read_bytes()

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("kernelopt.fileio.os.replace", boom)
    with pytest.raises(OSError, match="disk full"):
        store.update(6, ["performance.latency_us=20"])
    assert store.path(6).read_bytes() == before
    assert not list(store.memory_dir.glob(".*.tmp")), "temporary file left behind"


def test_masking_hides_records_from_latest(store: MemoryStore) -> None:
    for v in range(3):
        store.create(v)
    assert store.latest().version == "v2"
    store.set_masked(2, True)
    assert store.latest().version == "v1"
    assert [r.version for r in store.records()] == ["v0", "v1"]
    assert [r.version for r in store.records(include_masked=True)] == ["v0", "v1", "v2"]
    assert store.latest(include_masked=True).version == "v2"


def test_shipped_schema_matches_model() -> None:
    assert shipped_schema() == render_schema(), (
        "run: kernelopt schema memory > src/kernelopt/memory/iteration.schema.json"
    )
    schema = json.loads(shipped_schema())
    assert "performance" in schema["properties"] and "quality_gate" in schema["properties"]


def test_version_labels() -> None:
    assert parse_version("v12") == 12 and parse_version("V3") == 3 and parse_version(4) == 4
    with pytest.raises(ValueError):
        parse_version("version3")
    assert IterationRecord(version="7").version == "v7"


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("version=v7", "read-only"),
        ("schema_version=99", "read-only"),
        ("performance.latency_us=inf", "performance.latency_us"),
        ("performance.latency_us=NaN", "performance.latency_us"),
        ("performance.tflops=1e400", "performance.tflops"),
    ],
)
def test_identity_is_read_only_and_numbers_finite(store: MemoryStore, assignment: str, message: str) -> None:
    store.create(1)
    before = store.path(1).read_bytes()
    with pytest.raises(RecordError, match=message):
        store.update(1, [assignment])
    assert store.path(1).read_bytes() == before
    assert store.versions() == [1]


def test_bad_version_label_is_a_record_error(store: MemoryStore) -> None:
    with pytest.raises(RecordError, match="not a version label"):
        store.create("v-1")
    with pytest.raises(RecordError, match="not a version label"):
        store.read("v1/../../x")
