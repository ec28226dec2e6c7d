"""``kernelopt agent install``: the skill where each CLI finds it, said; ``--uninstall`` removes exactly that;
the shipped skill (package data) is the plugins' skill byte for byte, and the plugin manifests name it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kernelopt.agents.install import SKILL_NAME, skill_files
from kernelopt.cli.app import main

pytestmark = pytest.mark.timeout(60)

REPO = Path(__file__).resolve().parents[1]
PLUGIN = REPO / "plugins" / "kernelopt"
"""The plugin's own folder: what each CLI copies into its plugin cache (Codex copied the whole checkout, its .git
included, 98 MB, when the plugin was the repository's root)."""


def test_the_shipped_skill_is_the_plugins_skill_and_says_the_stage_order() -> None:
    shipped = skill_files()
    assert set(shipped) == {"SKILL.md"}
    assert shipped["SKILL.md"] == (PLUGIN / "skills" / SKILL_NAME / "SKILL.md").read_text(encoding="utf-8")
    text = shipped["SKILL.md"]
    front = yaml.safe_load(text.split("---")[1])
    assert front["name"] == SKILL_NAME and "kernel" in front["description"]
    body = text.split("---", 2)[2]
    stages = ["`init`", "`profile`", "`submit_plan`", "`validate`", "`record`", "`status`"]
    at = [body.index(s) for s in stages]
    assert at[:5] == sorted(at[:5])  # the stage table in the loop's order
    for rule in ("Evidence -> inference -> action", "One category per iteration", "evidence", "gate"):
        assert rule.lower() in body.lower()


def test_the_skills_plan_example_is_a_plan_the_planner_rules_read() -> None:
    from kernelopt.planning.markdown import parse_plan
    from kernelopt.planning.validate import check_action

    example = skill_files()["SKILL.md"].split("```markdown\n", 1)[1].split("```\n", 1)[0]
    plan = parse_plan(example)
    check_action(plan)  # one action of one category
    assert plan.action_category.value == "block_size" and plan.parameters == {"BLOCK_SIZE": 1024}
    assert len(plan.evidence) == 1 and plan.evidence[0].count("->") == 2


def test_plugin_manifests_point_at_the_skill() -> None:
    for manifest in (".claude-plugin/plugin.json", ".codex-plugin/plugin.json"):
        data = json.loads((PLUGIN / manifest).read_text())
        assert data["name"] == "kernelopt"
        assert (PLUGIN / data["skills"] / SKILL_NAME / "SKILL.md").is_file()
    claude = json.loads((REPO / ".claude-plugin/marketplace.json").read_text())
    assert (REPO / claude["plugins"][0]["source"]).resolve() == PLUGIN
    codex = json.loads((REPO / ".agents/plugins/marketplace.json").read_text())
    assert (REPO / codex["plugins"][0]["source"]["path"]).resolve() == PLUGIN
    # the plugin's folder holds the plugin only: a CLI copies it whole into its cache under HOME
    assert sorted(str(p.relative_to(PLUGIN)) for p in PLUGIN.rglob("*") if p.is_file()) == [
        ".claude-plugin/plugin.json",
        ".codex-plugin/plugin.json",
        f"skills/{SKILL_NAME}/SKILL.md",
    ]


@pytest.mark.parametrize(("cli", "folder"), [("claude", ".claude/skills"), ("codex", ".agents/skills")])
def test_project_install_says_where_and_uninstall_removes_exactly_that(
    cli: str, folder: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    (project / folder.split("/")[0] / "mine").mkdir(parents=True)  # the user's own: stays
    assert main(["agent", "install", cli, "--project", str(project)]) == 0
    out = capsys.readouterr().out
    skill = project / folder / SKILL_NAME / "SKILL.md"
    assert f"wrote {skill.resolve()}" in out
    assert skill.read_text(encoding="utf-8") == skill_files()["SKILL.md"]
    assert main(["agent", "install", cli, "--project", str(project)]) == 0
    assert "up to date" in capsys.readouterr().out
    assert main(["agent", "install", cli, "--project", str(project), "--uninstall", "--json"]) == 0
    removed = json.loads(capsys.readouterr().out)["removed"]
    assert removed == [str(skill.resolve())]
    left = sorted(p.relative_to(project).as_posix() for p in project.rglob("*"))
    assert left == [folder.split("/")[0], f"{folder.split('/')[0]}/mine"]


def test_user_install_goes_under_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["agent", "install", "claude", "--user"]) == 0
    assert main(["agent", "install", "codex", "--user"]) == 0
    assert (tmp_path / ".claude/skills" / SKILL_NAME / "SKILL.md").is_file()
    assert (tmp_path / ".agents/skills" / SKILL_NAME / "SKILL.md").is_file()


def test_bad_input_is_one_line_and_an_edited_skill_is_never_overwritten_or_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["agent", "install", "cursor", "--project", str(tmp_path)]) == 2
    assert main(["agent", "install", "claude", "--project", str(tmp_path / "nope")]) == 2
    assert main(["agent", "install", "claude", "--project", str(tmp_path), "--user"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 3 and "unknown agent CLI 'cursor'" in err and "no such folder" in err
    assert main(["agent", "install", "claude", "--project", str(tmp_path)]) == 0
    skill = tmp_path / ".claude/skills" / SKILL_NAME / "SKILL.md"
    skill.write_text("my own notes\n")
    capsys.readouterr()
    assert main(["agent", "install", "claude", "--project", str(tmp_path)]) == 2
    assert main(["agent", "install", "claude", "--project", str(tmp_path), "--uninstall"]) == 2
    assert skill.read_text() == "my own notes\n"
    assert "differs from kernelopt's skill" in capsys.readouterr().err


def test_a_path_in_the_way_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A fresh-user trial: `.claude` a file ended in exit 70 (NotADirectoryError); SKILL.md a folder was blamed
    on hard links; a --project that is a file was called missing."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / ".claude").write_text("a file\n")
    assert main(["agent", "install", "claude", "--project", str(tmp_path / "a")]) == 2
    (tmp_path / "b" / ".agents/skills" / SKILL_NAME / "SKILL.md").mkdir(parents=True)
    assert main(["agent", "install", "codex", "--project", str(tmp_path / "b")]) == 2
    (tmp_path / "c").write_text("a file\n")
    assert main(["agent", "install", "codex", "--project", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert ".claude is in the way: the skill needs a folder there" in err
    assert "SKILL.md is in the way: the skill needs a file there" in err
    assert f"--project {tmp_path / 'c'}: not a folder" in err and "Traceback" not in err
