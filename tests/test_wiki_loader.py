"""User wiki directories (flag, env, config file) and one-line errors for bad records."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from kernelopt.errors import KerneloptError
from kernelopt.wiki.lint import lint
from kernelopt.wiki.loader import configured_dirs, load_records, load_wiki, parse_record
from kernelopt.wiki.record import RecordKind, WikiError
from kernelopt.wiki.search import search

GOOD = textwrap.dedent(
    """\
    ---
    kind: technique
    id: team-unroll-k-loop
    title: Unroll the K loop of our int8 GEMV by 4
    scope:
      vendor: [nvidia]
      arch: [sm_90]
      framework: [triton]
    symptoms: [latency_bound]
    metrics: [smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio]
    action_category: software_pipelining
    change:
      triton: "tl.static_range over 4 K tiles per iteration"
    expected_impact: "10 % on our decode GEMV"
    risks: "more registers"
    sources:
      - {title: "Team notes on GEMV tuning", url: "https://example.org/gemv-notes"}
    ---
    Our int8 GEMV waits on long_scoreboard; four independent K tiles per iteration give the scheduler
    work while loads are in flight. Measured on the team's H100 in 2026.
    """
)

PITFALL = textwrap.dedent(
    """\
    ---
    kind: pitfall
    id: team-no-fp8-for-layernorm
    title: FP8 storage for layer-norm inputs broke accuracy
    scope: {vendor: [], arch: [], framework: [triton]}
    symptoms: [memory_bound_near_roof]
    tried: "Storing layer-norm inputs in fp8 to halve bytes"
    fails_when: "Activations have outliers above the fp8 range"
    why: "Saturation destroys the variance estimate"
    sources:
      - {title: "Team incident report", url: "https://example.org/incident-12"}
    ---
    A reminder written by the team after a failed iteration: statistics need more range than fp8 has.
    """
)


@pytest.fixture(autouse=True)
def _isolated_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("KERNELOPT_WIKI_DIRS", raising=False)
    monkeypatch.delenv("KERNELOPT_CONFIG", raising=False)


@pytest.fixture
def user_wiki(tmp_path: Path) -> Path:
    root = tmp_path / "team-wiki"
    (root / "nested").mkdir(parents=True)
    (root / "team-unroll-k-loop.md").write_text(GOOD, encoding="utf-8")
    (root / "nested" / "team-no-fp8-for-layernorm.md").write_text(PITFALL, encoding="utf-8")
    (root / "README.md").write_text("---\ntitle: not a record\n---\n# Team wiki\n", encoding="utf-8")
    (root / "notes.md").write_text("# plain notes without front matter\n", encoding="utf-8")
    return root


def _ids(records: list) -> set[str]:
    return {r.id for r in records}


def test_extra_dirs_are_loaded_with_the_builtin_wiki(user_wiki: Path) -> None:
    records = load_records([user_wiki])
    ids = _ids(records)
    assert {"team-unroll-k-loop", "team-no-fp8-for-layernorm", "neutral-split-k", "nvidia-h200-sxm"} <= ids
    mine = next(r for r in records if r.id == "team-unroll-k-loop")
    assert mine.path and mine.path.endswith("team-unroll-k-loop.md") and "long_scoreboard" in mine.body
    assert "team-unroll-k-loop" not in _ids(load_records())


def test_env_var_and_config_file(user_wiki: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELOPT_WIKI_DIRS", str(user_wiki))
    assert configured_dirs() == [user_wiki]
    assert "team-unroll-k-loop" in _ids(load_records())
    monkeypatch.delenv("KERNELOPT_WIKI_DIRS")
    cfg = tmp_path / "xdg" / "kernelopt" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(f'[wiki]\ndirs = ["{user_wiki}"]\n', encoding="utf-8")
    assert configured_dirs() == [user_wiki]
    assert "team-no-fp8-for-layernorm" in _ids(load_records())
    assert "team-no-fp8-for-layernorm" not in _ids(load_records(include_configured=False))
    cfg.write_text("[wiki\ndirs = 3", encoding="utf-8")
    with pytest.raises(WikiError, match="not valid TOML"):
        configured_dirs()
    cfg.write_text("[wiki]\ndirs = 3\n", encoding="utf-8")
    with pytest.raises(WikiError, match="list of paths"):
        configured_dirs()


def test_user_records_are_searched_with_the_same_priority(user_wiki: Path) -> None:
    hits = search("unroll K loop int8 GEMV", arch="h100", extra_dirs=[user_wiki], kinds=[RecordKind.TECHNIQUE])
    assert hits[0].record.id == "team-unroll-k-loop"
    # user records obey the same scope filter
    amd = search("unroll K loop int8 GEMV", arch="gfx942", extra_dirs=[user_wiki], limit=50)
    assert "team-unroll-k-loop" not in {h.record.id for h in amd}


def test_user_record_changes_rebuild_the_index(user_wiki: Path) -> None:
    assert search("zanzibar", extra_dirs=[user_wiki]) == []
    extra = GOOD.replace("team-unroll-k-loop", "team-zanzibar").replace("Unroll the K loop", "Zanzibar trick")
    (user_wiki / "team-zanzibar.md").write_text(extra, encoding="utf-8")
    assert search("zanzibar", extra_dirs=[user_wiki])[0].record.id == "team-zanzibar"


BAD_CASES = {
    "unclosed": ("---\nkind: technique\n", "never closed"),
    "yaml": ("---\nkind: [technique\n---\nbody\n", "not valid YAML"),
    "no-kind": ("---\nid: x\ntitle: y\n---\nbody\n", "no 'kind'"),
    "bad-kind": ("---\nkind: recipe\nid: x\ntitle: y\n---\nbody\n", "kind 'recipe' is not one of"),
    "symptom": (GOOD.replace("[latency_bound]", "[too_slow]"), "symptom 'too_slow' is not a Symptom id"),
    "category": (GOOD.replace("software_pipelining", "magic"), "action_category 'magic' is not an ActionCategory"),
    "vendor": (GOOD.replace("[nvidia]", "[nvdia]"), "scope.vendor 'nvdia'"),
    "arch": (GOOD.replace("[sm_90]", "[hopper]"), "scope.arch 'hopper' is not an sm_NN or gfxNNN target"),
    "framework": (GOOD.replace("[triton]", "[jax]"), "scope.framework 'jax'"),
    "no-change": (
        GOOD.replace('change:\n  triton: "tl.static_range over 4 K tiles per iteration"\n', ""),
        "needs change",
    ),
    "no-category": (GOOD.replace("action_category: software_pipelining\n", ""), "needs action_category"),
    "pitfall-why": (PITFALL.replace('why: "Saturation destroys the variance estimate"\n', ""), "a pitfall needs why"),
    "schema": (GOOD.replace("title: Unroll", "titel: Unroll"), "field"),
    "bad-id": (GOOD.replace("id: team-unroll-k-loop", "id: Team Unroll"), "field id"),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_records_give_one_line_errors(case: str) -> None:
    text, expected = BAD_CASES[case]
    with pytest.raises(WikiError) as exc:
        parse_record(text, "wiki/bad.md")
    message = exc.value.one_line()
    assert isinstance(exc.value, KerneloptError) and exc.value.exit_code == 2
    assert "\n" not in str(exc.value) and message.startswith("wiki/bad.md: "), message
    assert expected in message, message


def test_bad_record_in_a_user_dir_names_the_file(user_wiki: Path) -> None:
    (user_wiki / "broken.md").write_text(GOOD.replace("[latency_bound]", "[too_slow]"), encoding="utf-8")
    with pytest.raises(WikiError, match=r"broken\.md: symptom 'too_slow'"):
        load_records([user_wiki])
    issues = lint([user_wiki], include_builtin=False, include_configured=False)
    errors = {(i.rule, Path(i.path).name) for i in issues if i.severity.value == "error"}
    assert errors == {
        ("vocabulary", "broken.md"),
        ("filename", "broken.md"),
        ("duplicate_id", "team-unroll-k-loop.md"),
    }


def test_duplicate_ids_and_missing_dirs(user_wiki: Path, tmp_path: Path) -> None:
    clone = GOOD.replace("team-unroll-k-loop", "neutral-split-k")
    (user_wiki / "neutral-split-k.md").write_text(clone, encoding="utf-8")
    with pytest.raises(WikiError, match="duplicate record id 'neutral-split-k'"):
        load_records([user_wiki])
    with pytest.raises(WikiError, match="does not exist"):
        load_records([tmp_path / "nope"])


def test_user_hardware_sheet_is_used_by_spec_lookup(tmp_path: Path) -> None:
    d = tmp_path / "hw"
    d.mkdir()
    sheet = (Path(__file__).resolve().parents[1] / "src/kernelopt/wiki/records/hardware/nvidia-l40s.md").read_text()
    sheet = sheet.replace("id: nvidia-l40s", "id: team-l40s-lab").replace("name: NVIDIA L40S", "name: Lab L40S")
    sheet = sheet.replace("aliases: [l40s, nvidia l40s, nvidia-l40s, l40s-48gb, ad102-l40s]", "aliases: [lab-l40s]")
    (d / "team-l40s-lab.md").write_text(sheet, encoding="utf-8")
    wiki = load_wiki([d])
    assert "team-l40s-lab" in {s.id for s in wiki.specs}
    view = next(r for r in wiki.records if r.id == "team-l40s-lab")
    assert view.kind is RecordKind.HARDWARE_SPEC and "864" in view.body
    assert lint([d], include_builtin=False, include_configured=False) == []
