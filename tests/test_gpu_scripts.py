"""The GPU session scripts (scripts/*.sh), checked on the CPU before a GPU sees them: a GPU session's device time is
spent on one call, and a typo in a script that has never run wastes all of it.

Every script parses (``bash -n``) and finds its sourced header; every repository file a script names exists; every
``python3 -m kernelopt CMD --flag`` a script runs names a command and flags the CLI has (the Typer app, in process),
with no more positional arguments than the command takes; every ``benchmarks/x.py --flag`` and ``scripts/x.py
--flag`` names flags its argparse parser has (the parser is caught as the script's ``main`` builds it, before any
work); every phase of ``gpu_session.sh``'s plans exists with its script; every test file in a ``GPU_TESTS`` (the
owed plan's, the scripts', the docs') exists and holds tests marked gpu."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((REPO / "scripts").glob("*.sh"))
GPU_SCRIPTS = [p for p in SCRIPTS if p.name.startswith("gpu_") and p.name != "gpu_env.sh"]
TOP_DIRS = ("src", "tests", "benchmarks", "scripts", "examples", "docs")
PYTHONS = {"$PY", "python", "python3", "${PYTHON:-python}", "${PYTHON:-python3}"}
PUNCT = set("();<>|&")


# ---- reading the scripts' commands -------------------------------------------------------------------------------


def logical_lines(text: str) -> Iterator[str]:
    """The script's lines with continuations joined and here-document bodies left out (they are Python, not shell)."""
    pending, heredoc = "", None
    for raw in text.splitlines():
        if heredoc is not None:
            if raw.strip() == heredoc:
                heredoc = None
            continue
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        line, pending = pending + raw, ""
        if match := re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line):
            heredoc = match.group(1)
        yield line


def words(line: str) -> list[str]:
    """The line's words as the shell splits them (quotes removed, variables kept as written), operators apart."""
    line = re.sub(r"(?<=\s)\d(?=>)", "", line)  # the 2 of 2> is no word
    lexer = shlex.shlex(line, posix=True, punctuation_chars="();<>|&")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:  # a quote left open on this line: bash -n judges the script
        return []


def arguments(ws: list[str], start: int) -> list[str]:
    """The words of one command from ``start`` up to its first operator or redirection; ``${X:+--flag $X}`` is the
    flag alone."""
    out: list[str] = []
    i = start
    while i < len(ws):
        w = ws[i]
        if set(w) <= PUNCT:
            break
        if re.match(r"\$\{\w+:\+-", w):  # ${X:+--flag $X}: the words inside the braces
            out.append(w.split(":+", 1)[1])
            while not ws[i].endswith("}") and i + 1 < len(ws):
                i += 1
                out.append(ws[i].removesuffix("}"))
        else:
            out.append(w)
        i += 1
    return out


@dataclass(frozen=True)
class Call:
    script: str
    target: str  # "kernelopt" or a repository path of a Python script
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.script}: {self.target} {' '.join(self.args)}"


def calls(script: Path) -> Iterator[Call]:
    yield from calls_in_text(script.name, script.read_text())


def calls_in_text(name: str, text: str) -> Iterator[Call]:
    for line in logical_lines(text):
        ws = words(line)
        for i, w in enumerate(ws):
            if w == "-m" and i + 1 < len(ws) and ws[i + 1] == "kernelopt":
                yield Call(name, "kernelopt", tuple(arguments(ws, i + 2)))
            elif re.fullmatch(r"(benchmarks|scripts)/\w+\.py", w) and i > 0 and ws[i - 1] in PYTHONS:
                yield Call(name, w, tuple(arguments(ws, i + 1)))


def loop_values(text: str) -> dict[str, list[str]]:
    """Each ``for VAR in ...`` variable's values where the script says them: literal words, or a list variable's
    default (``LIST=${LIST-"a b"}``, ``${LIST:-"a b"}``)."""
    defaults = {
        m.group(1): m.group(3).split()
        for m in re.finditer(r"^\s*(\w+)=\$\{(\w+):?-\"?([^\"}$]*)\"?\}", text, flags=re.M)
    }
    values: dict[str, list[str]] = {}
    for m in re.finditer(r"\bfor (\w+) in ([^;\n]+); do", text):
        var, spec = m.group(1), m.group(2).strip()
        ref = re.fullmatch(r"\$\{?(\w+)\}?", spec)
        if ref and ref.group(1) in defaults:
            values[var] = defaults[ref.group(1)]
        elif "$" not in spec:
            values[var] = spec.split()
    return values


def named_paths(script: Path) -> Iterator[str]:
    """The repository paths the script names, each loop variable expanded over its values."""
    text = script.read_text()
    loops = loop_values(text)
    for line in logical_lines(text):
        for w in words(line):
            w = w.split("=", 1)[1] if re.match(r"--[\w-]+=", w) else w
            if not w.startswith(tuple(d + "/" for d in TOP_DIRS)):
                continue
            refs = re.findall(r"\$\{?(\w+)\}?", w)
            if not refs:
                yield w
            elif len(set(refs)) == 1 and refs[0] in loops:
                yield from (re.sub(r"\$\{?" + refs[0] + r"\}?", v, w) for v in loops[refs[0]])
            else:  # a path of a variable the script does not list: the folder before it must exist
                yield w.split("$", 1)[0].rsplit("/", 1)[0] + "/"


def python_heredocs(script: Path) -> Iterator[tuple[int, str]]:
    """Each here-document the script hands to Python (``$PY - ... <<'EOF'``) or writes to a .py file: its line, its
    text."""
    lines = script.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = re.search(r"<<-?\s*'?(\w+)'?", lines[i])
        if m and re.search(r"(\$PY|\bpython3?)\s+-(\s|$)|>\s*\S+\.py\b", lines[i]):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == m.group(1))
            yield i + 1, "\n".join(lines[i + 1 : end]) + "\n"
            i = end
        i += 1


# ---- what the programs accept ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cli():
    import typer

    from kernelopt.cli.app import build_app

    return typer.main.get_command(build_app())


def check_kernelopt(cli, call: Call) -> list[str]:
    args = [a for a in call.args if a not in ("$@", "$*")]  # a wrapper's own arguments: read where it is called
    if not args:
        return []
    cmd, path = cli, ["kernelopt"]
    while hasattr(cmd, "commands"):  # a group (Typer carries its own click: no isinstance)
        if not args or args[0] not in cmd.commands:
            return [f"{call}: {' '.join(path)} has no command {args[0] if args else '(none given)'}"]
        path.append(args[0])
        cmd = cmd.commands[args.pop(0)]
    options = {o: p for p in cmd.params if p.param_type_name == "option" for o in (*p.opts, *p.secondary_opts)}
    takes = [p.nargs for p in cmd.params if p.param_type_name == "argument"]
    errors, positional = [], 0
    while args:
        a = args.pop(0)
        if a.startswith("-") and a != "-":
            flag = a.split("=", 1)[0]
            if flag not in options:
                errors.append(f"{call}: `{' '.join(path)}` has no option {flag}")
            elif not options[flag].is_flag and not options[flag].count and "=" not in a and args:
                args.pop(0)
        else:
            positional += 1
    if -1 not in takes and positional > sum(takes):
        errors.append(f"{call}: `{' '.join(path)}` takes {sum(takes)} positional arguments, given {positional}")
    return errors


class _Parser(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser


def argparse_parser(script: str, monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    """The parser ``script``'s main builds, caught when main asks it to parse: nothing after that runs."""

    def catch(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        raise _Parser(self)

    path = REPO / script
    spec = importlib.util.spec_from_file_location(f"gpu_scripts_{path.stem}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    with monkeypatch.context() as m:
        m.syspath_prepend(str(path.parent))
        m.setattr(argparse.ArgumentParser, "parse_args", catch)
        m.setattr(argparse.ArgumentParser, "parse_known_args", catch)
        m.setattr(sys, "argv", [str(path)])
        m.setitem(sys.modules, spec.name, module)  # dataclasses look their module up there
        spec.loader.exec_module(module)
        try:
            module.main()
        except _Parser as caught:
            return caught.parser
    raise AssertionError(f"{script}: main() never parsed its arguments")


def check_argparse(parser: argparse.ArgumentParser, call: Call) -> list[str]:
    args, errors = list(call.args), []
    options = parser._option_string_actions
    while args:
        a = args.pop(0)
        if not a.startswith("-") or a == "-":
            continue
        flag = a.split("=", 1)[0]
        action = options.get(flag)
        if action is None:
            errors.append(f"{call}: {call.target} has no option {flag}")
            continue
        if action.nargs == 0 or "=" in a or not args:
            continue
        value = args.pop(0)
        if action.choices is not None and "$" not in value and value not in action.choices:
            errors.append(f"{call}: {flag} {value} is not one of {list(action.choices)}")
    return errors


# ---- the tests ---------------------------------------------------------------------------------------------------


@pytest.mark.timeout(60)
def test_every_script_parses() -> None:
    bad = {}
    for script in SCRIPTS:
        done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, timeout=30)
        if done.returncode:
            bad[script.name] = done.stderr.strip()
    assert not bad, bad


@pytest.mark.timeout(60)
def test_every_gpu_script_finds_its_header_and_stops_in_one_line_without_out(tmp_path: Path) -> None:
    """Run from the repository root without OUT, each script sources scripts/gpu_env.sh and stops at `set OUT`
    before it runs anything (gpu_session.sh, which takes OUT only to collect, lists its phases)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GPU_DIR": str(tmp_path / "gpu")}
    for script in GPU_SCRIPTS:
        text = script.read_text()
        if re.search(r"\bgpu_(out|header|src_path|pip_target|ncu_python)\b|\bprogress ", text):
            assert '. "${BASH_SOURCE%/*}/gpu_env.sh"' in text, f"{script.name} uses gpu_env.sh without sourcing it"
        argv = ["bash", f"scripts/{script.name}"] + (["list"] if script.name == "gpu_session.sh" else [])
        done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=30)
        if script.name == "gpu_session.sh":
            assert done.returncode == 0 and "plan owed" in done.stdout, done.stderr
        else:
            assert done.returncode != 0 and "set OUT" in done.stderr, (script.name, done.stderr)
            assert "command not found" not in done.stderr and "No such file" not in done.stderr, done.stderr


@pytest.mark.timeout(30)
def test_no_script_drops_the_pythonpath_it_was_given() -> None:
    """gpu_session.sh puts the carried wheels (/tmp/site) and ncu's python folder on PYTHONPATH; a step that sets
    ``PYTHONPATH=src`` loses them, and on the GPU image kernelopt no longer imports (pydantic is in /tmp/site):
    gpu_shape_failures.sh did, and passed on every CPU machine, where pydantic is installed."""
    bad = []
    for script in SCRIPTS:
        for line in logical_lines(script.read_text()):
            for w in words(line):
                kept = "$PYTHONPATH" in w or "${PYTHONPATH" in w or w.startswith("PYTHONPATH=/tmp/site:")
                if w.startswith("PYTHONPATH=") and not kept:
                    bad.append(f"{script.name}: {w}")
    assert not bad, bad


@pytest.mark.timeout(60)
def test_every_file_a_script_names_exists() -> None:
    missing = []
    for script in SCRIPTS:
        for name in named_paths(script):
            if any(c in name for c in "*?["):
                if not list(REPO.glob(name)):
                    missing.append(f"{script.name}: {name} matches nothing")
            elif not (REPO / name).exists():
                missing.append(f"{script.name}: {name}")
    assert not missing, missing


@pytest.mark.timeout(30)
def test_the_command_reader_sees_flags_behind_continuations_and_redirections() -> None:
    """What the reader makes of the forms the scripts use: continuations, ``2>``, ``${X:+--flag $X}``, heredocs."""
    text = (
        'timeout 9 $PY -m kernelopt tune "$ws" --device cuda \\\n    --json > "$R/x.json" 2> "$R/x.txt"\n'
        '$PY -m kernelopt optimize "examples/$ex" ${MAX_ITERS:+--max-iters $MAX_ITERS} --max-wall-min 3 2>&1\n'
        "$PY - <<'EOF'\nprint('python -m kernelopt nothing --here')\nEOF\n"
        '"$PY" benchmarks/sweep_compare.py --example "$(csv "$2")" --no-sweep | tee x\n'
    )
    found = [(c.target, c.args) for c in calls_in_text("t", text)]
    assert found == [
        ("kernelopt", ("tune", "$ws", "--device", "cuda", "--json")),
        ("kernelopt", ("optimize", "examples/$ex", "--max-iters", "$MAX_ITERS", "--max-wall-min", "3")),
        ("benchmarks/sweep_compare.py", ("--example", "$(csv $2)", "--no-sweep")),
    ]


@pytest.mark.timeout(120)
def test_every_kernelopt_command_a_script_runs_has_those_flags(cli) -> None:
    found = [c for s in SCRIPTS for c in calls(s) if c.target == "kernelopt"]
    assert len(found) > 20  # the reader still sees the scripts' commands
    errors = [e for c in found for e in check_kernelopt(cli, c)]
    assert not errors, errors


@pytest.mark.timeout(120)
def test_every_python_script_a_script_runs_has_those_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    found = [c for s in SCRIPTS for c in calls(s) if c.target != "kernelopt"]
    assert {c.target for c in found} >= {"benchmarks/sweep_compare.py", "benchmarks/shape_failures.py"}
    parsers: dict[str, argparse.ArgumentParser] = {}
    errors = []
    for c in found:
        if c.target not in parsers:
            parsers[c.target] = argparse_parser(c.target, monkeypatch)
        errors += check_argparse(parsers[c.target], c)
    assert not errors, errors


def session_listing() -> tuple[dict[str, tuple[int, str]], dict[str, list[str]], list[str]]:
    done = subprocess.run(
        ["bash", "scripts/gpu_session.sh", "list"], cwd=REPO, capture_output=True, text=True, timeout=30,
        env={"PATH": "/usr/bin:/bin", "GPU_DIR": "/nonexistent/gpu"},
    )  # fmt: skip
    phases, plans, tests = {}, {}, []
    for line in done.stdout.splitlines():
        kind, name, *rest = line.split()
        if kind == "phase":
            phases[name] = (int(rest[0]), rest[1])
        elif kind == "plan":
            plans[name] = rest
        elif kind == "owed_gpu_tests":
            tests = [name, *rest]
    return phases, plans, tests


@pytest.mark.timeout(60)
def test_every_phase_of_a_plan_exists_with_its_script_and_the_plan_fits_its_wall() -> None:
    phases, plans, _ = session_listing()
    assert plans.get("owed", [])[:1] == ["parity"]  # what a CPU tune writes compiles on a GPU, first
    for plan, names in plans.items():
        assert all(n in phases for n in names), (plan, names)
    for name, (limit, script) in phases.items():
        assert limit > 0 and (script == "-" or (REPO / script).is_file()), (name, script)
    header = (REPO / "scripts/gpu_session.sh").read_text().split("# Phases", 1)[1].split("set -u", 1)[0]
    documented = re.findall(r"^#   (\w+) +scripts/gpu_\w+\.sh", header, re.M)
    assert set(documented) <= set(phases), set(documented) - set(phases)
    commands = _doc_session_commands()
    assert commands, "the docs name no gpu_session.sh start command"
    for words_ in commands:
        assert all(w in phases or w in plans for w in words_), words_


def _doc_session_commands() -> list[list[str]]:
    """The phases of each ``gpu_session.sh start ...`` in the docs' GPU procedure and the open list."""
    text = (REPO / "docs/gpu-session.md").read_text()
    results = (REPO / "docs/results.md").read_text()
    text += results[results.find("## Open, and the next GPU session") :]
    found = []
    for m in re.finditer(r"gpu_session\.sh start ([\w ]+?)(?:[`;&\n]|$)", text):
        found.append(m.group(1).split())
    return found


def _gpu_tests_lists() -> list[tuple[str, list[str]]]:
    _, _, owed = session_listing()
    lists = [("gpu_session.sh OWED_GPU_TESTS", owed)]
    text = (REPO / "docs/gpu-session.md").read_text()
    results = (REPO / "docs/results.md").read_text()
    text += results[results.find("## Open, and the next GPU session") :]
    for script in SCRIPTS:
        text += script.read_text()
    for m in re.finditer(r"GPU_TESTS=\"([^\"]+)\"", text):
        if "$" not in m.group(1):
            lists.append(("GPU_TESTS=", m.group(1).split()))
    return lists


@pytest.mark.timeout(60)
def test_every_test_file_a_gpu_session_runs_exists_and_holds_gpu_tests() -> None:
    lists = _gpu_tests_lists()
    assert lists[0][1], "gpu_session.sh lists no owed GPU tests"
    pytest_files, selections = [], []
    for s in SCRIPTS:
        for line in logical_lines(s.read_text()):
            ws = words(line)
            runner = next((w for w in ("pytest", "gpu_tests", "gpu_trial") if w in ws), None)  # gpu_env.sh's two
            if runner is None:
                continue
            files = [w for w in ws if re.fullmatch(r"tests/test_\w+\.py", w)]
            pytest_files += [(s.name, [f]) for f in files]
            after = ws[ws.index(runner) :]
            if "-k" in after:  # `-k gpu`: a test of the file must carry each word, or pytest may select none (exit 5)
                expression = after[after.index("-k") + 1]
                chosen = [w for w in expression.split() if w not in ("or", "and", "not")]
                selections += [(s.name, f, w) for f in files for w in chosen]
    bad = []
    for where, files in lists + pytest_files:
        for f in files:
            path = REPO / f
            if path.is_dir():
                continue
            if not path.is_file():
                bad.append(f"{where}: {f} does not exist")
            elif not re.search(r"pytest\.mark\.gpu|pytestmark = .*gpu", path.read_text()):
                bad.append(f"{where}: {f} holds no test marked gpu")
    for where, f, word in selections:
        if not re.search(rf"def test_\w*{re.escape(word)}", (REPO / f).read_text()):
            bad.append(f"{where}: no test of {f} matches -k {word}")
    assert not bad, bad


@pytest.mark.timeout(60)
def test_a_start_naming_an_unknown_phase_stops_in_one_line_before_it_installs_or_starts_anything(
    tmp_path: Path,
) -> None:
    gpu = tmp_path / "gpu"
    done = subprocess.run(
        ["bash", "scripts/gpu_session.sh", "start", "owed", "shapefails"], cwd=REPO, capture_output=True, text=True,
        timeout=30, env={"PATH": "/usr/bin:/bin", "GPU_DIR": str(gpu)},
    )  # fmt: skip
    assert done.returncode == 2 and done.stderr.strip() == (
        "unknown phase or plan: shapefails (bash scripts/gpu_session.sh list)"
    )
    assert list(gpu.iterdir()) == []


@pytest.mark.timeout(60)
def test_a_plan_from_one_of_its_phases_keeps_the_plan_s_settings_and_a_phase_it_lacks_is_one_line() -> None:
    """After a machine is taken back mid-plan, ``owed:PHASE`` runs the rest with the plan's GPU tests and walls."""

    def phases(*names: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "scripts/gpu_session.sh", "phases", *names], cwd=REPO, capture_output=True, text=True,
            timeout=30, env={"PATH": "/usr/bin:/bin", "GPU_DIR": "/nonexistent/gpu"},
        )  # fmt: skip

    _, plans, owed_tests = session_listing()
    middle = plans["owed"][len(plans["owed"]) // 2]  # where a second call of a 20-minute plan starts
    done = phases(f"owed:{middle}")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "phases: " + " ".join(plans["owed"][plans["owed"].index(middle) :])
    assert lines[1].startswith(f"GPU_TESTS={' '.join(owed_tests)} TUNE_WALL_S=240 SWEEP_WALL_S=120 PLAN_WALL_S=1200")
    assert phases("owed").stdout.splitlines()[0] == "phases: " + " ".join(plans["owed"])
    bad = phases("owed:shapefails")
    assert bad.returncode == 2 and bad.stderr.startswith("plan owed has no phase shapefails: "), bad.stderr


@pytest.mark.timeout(30)
def test_the_python_a_script_carries_compiles() -> None:
    """``bash -n`` reads a here-document as text: the Python inside is compiled here."""
    found, bad = 0, []
    for script in SCRIPTS:
        for line, text in python_heredocs(script):
            found += 1
            try:
                compile(text, f"{script.name}:{line}", "exec")
            except SyntaxError as exc:
                bad.append(f"{script.name}:{line}: {exc}")
    assert found >= 5 and not bad, (found, bad)


@pytest.mark.timeout(60)
def test_the_shapes_comparison_reads_the_tune_and_sweep_files_a_gpu_run_writes(tmp_path: Path) -> None:
    """gpu_shapes.sh's last step (compare.md) on the files its 2026-12-05 run wrote (the 32768 sweep was cut: a row
    says it has none)."""
    runs = REPO / "docs/gpu-runs/2026-12-05-h200-b"
    (tmp_path / "tune.json").write_text((runs / "shapes_tune.json").read_text())
    for cols in ("2048", "8192"):
        (tmp_path / f"sweep_{cols}.json").write_text((runs / f"sweep_{cols}.json").read_text())
    compare = [
        text for _, text in python_heredocs(REPO / "scripts/gpu_shapes.sh") if "compare" in text or "R =" in text
    ]
    done = subprocess.run(
        [sys.executable, "-", str(tmp_path)], input=compare[-1], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| n_rows=")]
    assert len(rows) == 3 and "(no sweep)" in rows[2], done.stdout
    # chosen / sweep best at 2048 and 8192 columns, as docs/results.md reports them (139.01 / 130.45, 134.14 / 133.47)
    assert [r.split(" | ")[5] for r in rows[:2]] == ["1.066", "1.005"], rows


@pytest.mark.timeout(60)
def test_a_phase_gets_the_plan_s_time_left_when_shorter_than_its_limit_and_is_skipped_under_a_minute(
    tmp_path: Path,
) -> None:
    """run_phase itself (gpu_session.sh sourced, a phase table of one quick script): the plan's wall caps a phase's
    limit, a phase with under 60 s left is skipped, and progress.txt says which."""
    (tmp_path / "quick.sh").write_text('echo "ran under $OUT"\n')
    script = f"""
        . scripts/gpu_session.sh list > /dev/null
        phase_table() {{ echo "quick 500 {tmp_path}/quick.sh"; }}
        PLAN_DEADLINE=$(( $(date +%s) + 200 )) run_phase quick
        PLAN_DEADLINE=$(( $(date +%s) + 30 )) run_phase quick
        PLAN_DEADLINE= run_phase quick
    """
    env = {"PATH": "/usr/bin:/bin", "GPU_DIR": str(tmp_path / "gpu")}
    done = subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=30, env=env)
    assert done.returncode == 0, done.stderr
    steps = [line.split(" ", 1)[1] for line in (tmp_path / "gpu/progress.txt").read_text().splitlines()]
    assert steps[0] in ("start quick (limit 200 s)", "start quick (limit 199 s)"), steps
    assert steps[2] in (
        "skip quick: 30 s left of the plan's PLAN_WALL_S",
        "skip quick: 29 s left of the plan's PLAN_WALL_S",
    )
    assert [steps[1], *steps[3:]] == ["end quick rc=0", "start quick (limit 500 s)", "end quick rc=0"], steps
    assert (tmp_path / "gpu/quick/stdout.txt").read_text() == f"ran under {tmp_path}/gpu/quick\n"


def _running(pid: int) -> bool:
    """The process is there and not a zombie (its state in /proc/PID/stat is not Z)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.timeout(60)
def test_a_phase_s_limit_ends_every_process_it_started_in_any_group_or_session(tmp_path: Path) -> None:
    """run_phase under a 2 s limit on a phase that starts what the scripts start: a child under its own `timeout`
    (gpu_tests' pytest: a process group of its own, which the phase's `timeout` did not reach, 2026-12-06) and one in
    a session of its own (setsid, as kernelopt's workers): none survives the phase's end, and progress.txt says what
    was killed."""
    (tmp_path / "sleepy.sh").write_text(
        "timeout 900 sh -c 'echo $$ > \"$OUT/grouped.pid\"; exec sleep 300' &\n"
        "setsid sh -c 'echo $$ > \"$OUT/session.pid\"; exec sleep 300' &\n"
        "wait\n"
    )
    script = f"""
        . scripts/gpu_session.sh list > /dev/null
        phase_table() {{ echo "sleepy 2 {tmp_path}/sleepy.sh"; }}
        PLAN_DEADLINE= run_phase sleepy
    """
    env = {"PATH": "/usr/bin:/bin", "GPU_DIR": str(tmp_path / "gpu")}
    out = tmp_path / "gpu/sleepy"
    done = subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=30, env=env)
    pids = [int((out / f"{name}.pid").read_text()) for name in ("grouped", "session")]
    survivors = [pid for pid in pids if _running(pid)]
    for pid in survivors:  # this test's own sleepers, by their ids
        os.kill(pid, signal.SIGKILL)
    assert done.returncode == 0, done.stderr
    assert not survivors, survivors
    end = (tmp_path / "gpu/progress.txt").read_text().splitlines()[-1].split(" ", 1)[1]
    assert end.startswith("end sleepy rc=124; killed what it left: "), end
    assert sorted(end.split(": ", 1)[1].split()) == ["sleep", "sleep", "timeout"], end


FAKE_PYTHON = """#!/bin/sh
echo "$*" >> "$FAKE_CALLS"
for a in "$@"; do [ "$a" = "-" ] && cat > /dev/null; done
exit 0
"""
FAKE_SMI = """#!/bin/sh
case "$*" in *noheader*) ;; *) echo "name, driver_version" ;; esac
echo "FAKE GPU, 0"
"""


@pytest.mark.timeout(120)
def test_every_gpu_script_runs_to_its_end_with_python_and_the_gpu_tools_faked(tmp_path: Path) -> None:
    """Each scripts/gpu_*.sh (gpu_session.sh and gpu_suite.sh, background jobs, aside) with python, python3,
    nvidia-smi and ncu replaced by stubs that record their arguments: the shell around the Python runs whole, every
    loop and copy included, with no unbound variable, missing file or command, and its work asked of kernelopt, pytest or a benchmark."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for name, text in (("python3", FAKE_PYTHON), ("python", FAKE_PYTHON), ("nvidia-smi", FAKE_SMI), ("ncu", "")):
        (bin_ / name).write_text(text or "#!/bin/sh\necho 'Version 2025.3.1.0 (fake)'\n")
        (bin_ / name).chmod(0o755)
    (tmp_path / "level1").mkdir()
    expected_rc = {"gpu_engine_suite.sh": 1, "gpu_ray_batch.sh": 3}  # no compare_*.md to print; no Ray wheel parts
    bad = {}
    for script in GPU_SCRIPTS:
        if script.name in ("gpu_session.sh", "gpu_suite.sh"):
            continue
        run = tmp_path / script.stem
        calls = run / "calls.txt"
        env = {
            "PATH": f"{bin_}:/usr/bin:/bin", "HOME": str(tmp_path), "FAKE_CALLS": str(calls), "OUT": str(run / "out"),
            "WORK": str(run / "work"), "WS_ROOT": str(run / "ws"), "TASKS_ROOT": str(run / "tasks"),
            "LEVEL": str(tmp_path / "level1"), "PART1": str(tmp_path / "no_ray_part1"),
        }  # fmt: skip
        done = subprocess.run(
            ["bash", f"scripts/{script.name}"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
        )
        errors = [
            line
            for line in done.stderr.splitlines()
            if re.search(r"unbound variable|No such file|command not found|syntax error", line)
            and "no_ray_part1/WHEEL_NAME" not in line
        ]
        asked = calls.read_text() if calls.exists() else ""
        if done.returncode != expected_rc.get(script.name, 0) or errors:
            bad[script.name] = (done.returncode, errors, done.stderr[-300:])
        elif script.name != "gpu_ray_batch.sh" and not re.search(r"-m (kernelopt|pytest) |\w+/\w+\.py ", asked):
            bad[script.name] = ("no kernelopt, pytest or benchmark asked", asked[:300])
    assert not bad, bad


OWED_SCRIPT = re.compile(r"owed to the next GPU session \(`(scripts/gpu_\w+\.sh)`\)")


def test_a_gpu_script_the_readme_calls_owed_is_in_the_plan_owed() -> None:
    """fresh20 (2026-12-07): the README still said `tune --within`'s H200 run was owed to the next GPU session
    (`scripts/gpu_heldout.sh`), two days after it ran on 2026-12-05, and heldout is in no plan: a new user read a
    done proof as owed. A script the README calls owed is a phase of the plan `owed`."""
    phases, plans, _ = session_listing()
    planned = {phases[name][1] for name in plans["owed"] if name in phases}
    readme = " ".join((REPO / "README.md").read_text().split())
    assert not set(OWED_SCRIPT.findall(readme)) - planned, set(OWED_SCRIPT.findall(readme)) - planned
    stale = "values; its H200 run is owed to the next GPU session (`scripts/gpu_heldout.sh`). On four kernels"
    assert OWED_SCRIPT.findall(stale) == ["scripts/gpu_heldout.sh"] and "scripts/gpu_heldout.sh" not in planned


def test_the_header_names_the_exported_commit_where_the_copy_has_no_git(tmp_path: Path) -> None:
    """fresh20 (2026-12-07): docs/gpu-session.md's call exports KERNELOPT_COMMIT=<main>, but nothing read it, and the
    device's copy has no .git, so env.txt of every run named no commit (2026-12-06-h100-n's among them): which code
    a GPU result came from was only in the lead's notes. Outside git, the header names the exported commit."""
    header = tmp_path / "env.txt"
    script = f'. "{REPO}/scripts/gpu_env.sh"; gpu_header "{header}"'
    env = {"PATH": "/usr/bin:/bin", "PYTHON": "true", "GIT_CEILING_DIRECTORIES": str(tmp_path.parent)}
    for commit, said in (("9a9b5ca6", "kernelopt commit 9a9b5ca6"), (None, "unknown (no .git")):
        run_env = env | ({"KERNELOPT_COMMIT": commit} if commit else {})
        subprocess.run(["bash", "-c", script], cwd=tmp_path, env=run_env, timeout=30, check=True)
        assert said in header.read_text(), header.read_text()


def test_g13_a_phase_s_crash_log_comes_back_with_it(tmp_path: Path) -> None:
    """The H100 of 2026-12-07 22:11: breaker28's tune of lmd_fill_fp8 ended "internal error: ZeroDivisionError: integer
    modulo by zero (crash log: /tmp/kernelopt-crash-20261207T221112-3762.log)", and the log, the traceback, stayed on
    the device. Every phase's header points ``KERNELOPT_CRASH_DIR`` (read by the CLI's crash log) into its own folder,
    which the session packs."""
    out = tmp_path / "phase"
    script = f'. "{REPO}/scripts/gpu_env.sh"; gpu_out; echo "$KERNELOPT_CRASH_DIR"'
    done = subprocess.run(["bash", "-c", script], env={"PATH": "/usr/bin:/bin", "OUT": str(out)}, capture_output=True,
                          text=True, timeout=30, check=True)  # fmt: skip
    assert done.stdout.strip() == str(out / "crash") and out.is_dir()
