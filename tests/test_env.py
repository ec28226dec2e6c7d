"""The environment variables: one table, one reader, the documented table equal to the code's."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from kernelopt import env as env_mod
from kernelopt.env import VARIABLES, Direction, EnvSettings, render_table, variable
from kernelopt.errors import UsageError
from kernelopt.harness.settings import HarnessSettings

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "environment.md"
_NAME = re.compile(r"\bKERNELOPT_[A-Z0-9_]*[A-Z0-9]\b")


def test_the_documented_table_is_the_generated_one() -> None:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("-->\n", text.index("<!-- generated")) + 4
    end = text.index("<!-- end of generated table -->")
    assert text[start:end] == render_table(), "docs/environment.md: paste kernelopt.env.render_table() output"


def test_every_variable_the_code_names_is_in_the_table() -> None:
    known = {v.name for v in VARIABLES} | {n for v in VARIABLES for n in v.deprecated}
    named: dict[str, str] = {}
    for path in sorted((ROOT / "src" / "kernelopt").rglob("*.py")):
        for name in _NAME.findall(path.read_text(encoding="utf-8")):
            named.setdefault(name, str(path.relative_to(ROOT)))
    named.pop("KERNELOPT_DRIVER_ERROR", None)  # a line the profiling driver prints, not a variable
    assert {n: p for n, p in named.items() if n not in known} == {}
    fields = [v.field for v in VARIABLES if v.direction is Direction.READ]
    assert sorted(f for f in fields if f is not None) == sorted(EnvSettings.model_fields)
    assert all(v.field is None for v in VARIABLES if v.direction is Direction.SET)


def test_only_env_py_changes_this_process_environment() -> None:
    """Setting, updating or clearing ``os.environ`` is the environment's rule: env.py holds every such line
    (``interpret_here``, ``use_build_folders``, ``replace_environment``); a module elsewhere calls them."""
    changes = re.compile(r"os\.environ(\[[^\]]+\]\s*=(?!=)|\.(update|clear|pop|setdefault|__setitem__)\b)|os\.putenv")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "src" / "kernelopt").rglob("*.py"))
        if path.name != "env.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if changes.search(line)
    ]
    assert found == []
    assert changes.search('    os.environ[TRITON_INTERPRET] = "1"')  # the line interpret_here held elsewhere


def test_read_types_the_values_and_treats_empty_as_unset() -> None:
    s = EnvSettings.read(
        {
            "KERNELOPT_SEEDS": "2",
            "KERNELOPT_BENCH_S": "0.5",
            "KERNELOPT_DEVICE": " cpu ",
            "KERNELOPT_WIKI_DIRS": "/a::/b",
            "KERNELOPT_CACHE_DIR": "/tmp/c",
            "KERNELOPT_NCU": "",
            "KERNELOPT_GPU_TESTS": "1",
            "KERNELOPT_LLM_API_KEY": "secret",
        }
    )
    assert s.seeds == 2 and s.bench_s == 0.5 and s.device == "cpu" and s.ncu is None and s.gpu_tests
    assert s.wiki_dirs == (Path("/a"), Path("/b")) and s.cache_dir == Path("/tmp/c")
    assert s.llm_api_key is not None and "secret" not in repr(s)
    assert EnvSettings.read({}) == EnvSettings()


def test_a_bad_value_is_one_line_naming_the_variable() -> None:
    with pytest.raises(UsageError, match=r"^KERNELOPT_SEEDS='many' is not an integer$"):
        EnvSettings.read({"KERNELOPT_SEEDS": "many"})
    with pytest.raises(UsageError, match=r"^KERNELOPT_RUN_TIMEOUT_S='soon' is not a number$"):
        HarnessSettings.from_env({"KERNELOPT_RUN_TIMEOUT_S": "soon"})


def test_old_names_still_work_warn_once_and_lose_to_the_new(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(env_mod, "_warned", set())
    with pytest.warns(env_mod.DeprecatedVariable) as caught:
        s = HarnessSettings.from_env({"KERNELOPT_RUN_TIMEOUT_SEC": "7", "KERNELOPT_BENCH_SECONDS": "0.25"})
    assert [str(w.message) for w in caught] == [
        "KERNELOPT_RUN_TIMEOUT_SEC is deprecated: use KERNELOPT_RUN_TIMEOUT_S",
        "KERNELOPT_BENCH_SECONDS is deprecated: use KERNELOPT_BENCH_S",
    ]
    assert s.run_timeout_s == 7.0 and s.bench_seconds == 0.25
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second read does not warn again
        assert EnvSettings.read({"KERNELOPT_RUN_TIMEOUT_SEC": "7"}).run_timeout_s == 7.0
    both = {"KERNELOPT_COMPILE_TIMEOUT_S": "9", "KERNELOPT_COMPILE_TIMEOUT_SEC": "1"}
    assert EnvSettings.read(both).compile_timeout_s == 9.0
    assert variable("bench_s").deprecated == ("KERNELOPT_BENCH_SECONDS",)


def test_harness_defaults_are_unchanged_without_variables() -> None:
    assert HarnessSettings.from_env({}) == HarnessSettings()


def test_the_cli_prints_a_deprecated_name_as_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kernelopt.cli.app import _one_line_warnings

    monkeypatch.setattr(env_mod, "_warned", set())
    with _one_line_warnings():
        warnings.simplefilter("default")
        EnvSettings.read({"KERNELOPT_STARTUP_TIMEOUT_SEC": "30"})
    err = capsys.readouterr().err
    assert err == "kernelopt: warning: KERNELOPT_STARTUP_TIMEOUT_SEC is deprecated: use KERNELOPT_STARTUP_TIMEOUT_S\n"


@pytest.mark.parametrize(
    ("name", "value", "line"),
    [
        ("TEST_TIMEOUT_SEC", "abc", "TEST_TIMEOUT_SEC='abc' is not a number"),
        ("TEST_TIMEOUT_SEC", "0", "TEST_TIMEOUT_SEC='0' must be greater than 0"),
        # the fresh-clone trial of 2026-12-03: inf passed the check, then the baseline FAILed with a
        # pydantic URL from the worker and a "baseline check failed" commit
        ("TEST_TIMEOUT_SEC", "inf", "TEST_TIMEOUT_SEC='inf' is not a finite number"),
        ("KERNELOPT_BENCH_S", "1e400", "KERNELOPT_BENCH_S='1e400' is not a finite number"),
        ("KERNELOPT_BENCH_S", "nan", "KERNELOPT_BENCH_S='nan' is not a finite number"),
        ("KERNELOPT_SEEDS", "0", "KERNELOPT_SEEDS='0' must be at least 1"),
        ("KERNELOPT_SIZE_SCALE", "2", "KERNELOPT_SIZE_SCALE='2' must be at most 1"),
        ("KERNELOPT_COMPILE_REFERENCE", "maybe", "KERNELOPT_COMPILE_REFERENCE='maybe' is not 0 or 1"),
    ],
)
def test_a_bad_setting_stops_any_command_before_it_writes(
    add_workspace, name: str, value: str, line: str, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Issue 23: `TEST_TIMEOUT_SEC=abc kernelopt optimize` on a workspace committed V2-V4 as FAIL and
    exited 0; every setting is now checked before the first stage."""
    from kernelopt.cli.app import main

    commits = add_workspace.log()
    monkeypatch.setenv(name, value)
    assert main(["optimize", str(add_workspace.root), "--device", "cpu", "--max-iters", "1"]) == 2
    assert capsys.readouterr().err == f"kernelopt: error: {line}\n"
    assert add_workspace.log() == commits and not (add_workspace.state_dir / "loop_state.json").exists()
