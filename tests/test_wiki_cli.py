"""``kernelopt wiki search|show|list|lint`` end to end (``wiki spec`` is in test_wiki_specs.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.cli.app import main


@pytest.fixture(autouse=True)
def _no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("KERNELOPT_WIKI_DIRS", raising=False)
    monkeypatch.delenv("KERNELOPT_CONFIG", raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "wiki",
        "search",
        "shared memory bank conflicts",
        "--arch",
        "h200",
        "--symptom",
        "smem_bank_conflicts",
        "--json",
    )
    assert code == 0, err
    hits = json.loads(out)
    assert hits[0]["record"]["action_category"] == "smem_swizzle_padding"
    assert hits[0]["matched_symptoms"] == ["smem_bank_conflicts"]
    assert all("amd" not in h["record"]["scope"]["vendor"] for h in hits)
    assert {"score", "neutral", "record"} <= set(hits[0]) and hits[0]["record"]["body"]


def test_search_table_and_filters(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "wiki", "search", "LDS bank conflict", "--arch", "gfx942", "--framework", "hip")
    assert code == 0 and "amd-lds" in out and "nv-" not in out
    code, out, _ = run(capsys, "wiki", "search", "split-K", "--kind", "pitfall", "--limit", "2")
    assert code == 0 and "pitfall" in out
    code, _, err = run(capsys, "wiki", "search", "x", "--kind", "recipe")
    assert code == 2 and "unknown record kind" in err
    code, _, err = run(capsys, "wiki", "search", "x", "--symptom", "slow")
    assert code == 2 and "unknown symptom id 'slow'" in err and err.count("\n") == 1
    code, _, err = run(capsys, "wiki", "search", "x", "--arch", "sm_90", "--vendor", "amd")
    assert code == 2 and "contradicts" in err
    code, out, _ = run(capsys, "wiki", "search", "qwertyuiop")
    assert code == 0 and "no matching record" in out


def test_show_and_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "wiki", "show", "neutral-split-k")
    assert code == 0 and "action category: split_k" in out and "source:" in out and "https://" in out
    code, out, _ = run(capsys, "wiki", "show", "pitfall-split-k-when-grid-is-full", "--json")
    data = json.loads(out)
    assert data["kind"] == "pitfall" and data["tried"] and data["why"] and data["body"]
    code, _, err = run(capsys, "wiki", "show", "neutral-split")
    assert code == 2 and "did you mean neutral-split-k" in err
    code, out, _ = run(capsys, "wiki", "list", "--kind", "hardware_spec", "--json")
    assert code == 0 and len(json.loads(out)) == 9
    code, out, _ = run(capsys, "wiki", "list")
    assert code == 0 and "records" in out


def test_lint_clean_and_failing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "wiki", "lint")
    assert code == 0 and "no issues" in out
    code, out, _ = run(capsys, "wiki", "lint", "--json")
    assert code == 0 and json.loads(out) == {"ok": True, "errors": 0, "issues": []}
    bad = tmp_path / "bad-wiki"
    bad.mkdir()
    (bad / "x.md").write_text(
        "---\nkind: technique\nid: y\ntitle: t\nsymptoms: [latency_bound]\naction_category: num_warps\n"
        "change: {triton: 'num_warps=8'}\n---\nshort\n",
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "wiki", "lint", "--wiki", str(bad), "--json")
    report = json.loads(out)
    assert code == 1 and not report["ok"]
    rules = {i["rule"] for i in report["issues"]}
    assert {"sources", "metrics", "required", "body", "filename"} <= rules
    code, _, err = run(capsys, "wiki", "lint", "--wiki", str(bad))
    assert code == 1 and "lint errors" in err
