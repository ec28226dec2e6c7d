#!/usr/bin/env python3
"""What the safety rules cost in speed: today's legality rules applied to every configuration of each recorded
complete sweep.

For each recorded sweep that is complete (every configuration of its space recorded) and whose kernel source the
repository holds (the file whose sha256 the sweep's key names, from the git history where the file changed since;
a 2026-11-29 sweep, which recorded no digest, takes the file as committed that day), the folder is read as
``kernelopt tune`` reads it on the sweep's GPU (:func:`kernelopt.tuning.folder.prepare_folder`: discovery, each
knob's legality and floors, the fit rules, the values the guard can never write) and each configuration goes
through the session's own editor (:func:`kernelopt.tuning.folder.session_editor`: the edit, then the guard's refusal
of a write it cannot guard). Nothing of the rules is copied here: a configuration is *forbidden* when the space does
not hold it or the editor refuses it, and the rule named is the first that says why (:func:`forbidden_by`).

Printed per sweep: the kernel, the GPU, the sweep's size, how many configurations each rule forbids, the sweep's best
latency, the best admissible one, their ratio (the speed the rules give up) and whether the sweep's best is forbidden
(by which rule). The sweeps are in two tables: those a rule was designed or tested on (:data:`DESIGNED_ON`) and the
rest. The accuracy rule (``tuning.accuracy``: a candidate's ``rel_err`` against the original's at each entry) is not
replayed: a sweep file records a configuration's ``max_abs_err`` at one shape, not the ``rel_err``, worst element and
roundoff the rule reads (said in the output).

Usage (CPU, about a minute)::

    python benchmarks/safety_cost.py --markdown docs/gpu-runs/safety-cost/2026-12-07.md
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if (REPO / "src" / "kernelopt").is_dir():
    sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import git  # noqa: E402
from tune_replay import recorded_sweeps  # noqa: E402

from kernelopt.fileio import atomic_write_text  # noqa: E402
from kernelopt.tunables.knobs import LAUNCH_OPTIONS  # noqa: E402
from kernelopt.tuning.candidate import Config, Value  # noqa: E402
from kernelopt.tuning.folder import PreparedFolder, TuneRequest, prepare_folder, session_editor  # noqa: E402
from kernelopt.tuning.kernel_evaluator import UNWRITABLE, Refusal  # noqa: E402
from kernelopt.tuning.record import SweepEntry, SweepFile, read_sweeps  # noqa: E402

RUNS = REPO / "docs" / "gpu-runs"
#: The complete sweeps of 2026-12-03 that tune_replay does not read (the engine's sitting and a loop's): label -> file.
MORE = (
    ("12-03 engine", RUNS / "2026-12-03-engine" / "sweeps" / "bias_gelu_fp32.json"),
    ("12-03 engine", RUNS / "2026-12-03-engine" / "sweeps" / "online_softmax_fp32.json"),
    ("12-03 loop", RUNS / "2026-12-03-loop" / "rmsnorm_settings_bf16.json"),
)
#: Where an example's folder is.
FOLDERS = (REPO / "examples", REPO / "benchmarks" / "heldout")
#: Examples a safety rule was designed or tested on (docs/faults.md): examples/matmul is the case of the accuracy
#: rule's r33 and of the dot K floor's d44 (its pick BLOCK_K=16 made INVALID by wrongkernel27's floor).
DESIGNED_ON = ("matmul",)
READ_ONLY = "the kernel as the sweep ran it"


@dataclass(frozen=True)
class Held:
    """A recorded sweep with the folder its kernel ran from: ``label``, the ``sweep``, and ``kernel`` and
    ``reference`` (the files' text as the sweep ran them), ``readme`` (the task card's, or empty)."""

    label: str
    sweep: SweepFile
    kernel: str
    reference: str
    readme: str


@dataclass
class Cost:
    """One sweep's figures: ``forbidden`` (rule -> configurations it forbids, each counted once, under the first rule
    that says so) and ``forbidden_ok`` (those of them the sweep checked and timed), the sweep's best entry, the best
    admissible one, what forbade the best (``None``: allowed), and each rule's first reason."""

    label: str
    gpu: str
    size: int
    timed: int = 0
    forbidden: Counter[str] = field(default_factory=Counter)
    forbidden_ok: Counter[str] = field(default_factory=Counter)
    best: SweepEntry | None = None
    best_admissible: SweepEntry | None = None
    fastest_forbidden: SweepEntry | None = None
    best_rule: str | None = None
    best_reason: str | None = None
    reasons: dict[str, str] = field(default_factory=dict)
    edits: int = 0

    @property
    def ratio(self) -> float | None:
        """The best admissible latency over the sweep's best (1.0: the rules give up nothing)."""
        if self.best is None or self.best_admissible is None:
            return None
        assert self.best.latency_us is not None and self.best_admissible.latency_us is not None
        return self.best_admissible.latency_us / self.best.latency_us


def _blob_with(repo: git.Repo, path: Path, digest: str | None, day: str | None) -> str | None:
    """The text of ``path`` whose sha256 is ``digest`` in the working tree or the history; with no digest, the file
    as last committed on or before ``day`` (``YYYY-MM-DD``); ``None`` when the repository does not hold it."""
    rel = path.relative_to(REPO).as_posix()
    if digest is not None and path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == digest:
        return path.read_text()
    if digest is None:
        if day is None:
            return None
        commits = list(repo.iter_commits(paths=rel, until=f"{day} 23:59:59", max_count=1))
    else:
        commits = list(repo.iter_commits(paths=rel))
    for commit in commits:
        try:
            data = (commit.tree / rel).data_stream.read()
        except KeyError:
            continue
        if digest is None or hashlib.sha256(data).hexdigest() == digest:
            return data.decode()
    return None


def _day(label: str) -> str | None:
    """A 2026-11-29 sweep's day from its label (``layernorm (11-29 run5, ...)``)."""
    m = re.search(r"\((\d\d)-(\d\d) run", label)
    return f"2026-{m.group(1)}-{m.group(2)}" if m else None


def _kept_text(path: Path, digest: str | None) -> str | None:
    """``path``'s text (a file :func:`held_sweeps` was given in place of the history) when it exists and, where the
    sweep's key names a ``digest``, its sha256 is that digest; ``None`` otherwise."""
    if not path.is_file() or (digest is not None and hashlib.sha256(path.read_bytes()).hexdigest() != digest):
        return None
    return path.read_text()


def held_sweeps(only: Collection[str] = (), texts: Path | None = None) -> tuple[list[Held], list[str]]:
    """The complete recorded sweeps whose kernel the repository holds, and one line for each left out; ``only``: the
    sweeps of these kernels (every one when empty). ``texts``: a folder of ``<kernel>/kernel.py.txt`` and
    ``reference.py.txt``, the files as the sweeps ran them, read in place of the git history (for a copy of the
    repository without ``.git``, as a GPU session's is: docs/faults.md g10); a digest the sweep's key names is checked.

    Raises:
        git.exc.InvalidGitRepositoryError: no ``texts`` given and the repository has no git history.
    """
    found: list[tuple[str, SweepFile]] = [(label, sweep) for label, sweep, _ in recorded_sweeps()]
    for where, path in MORE:
        found += [(f"{s.name} ({where})", s) for s in read_sweeps(path)]
    found = [(label, sweep) for label, sweep in found if not only or sweep.name in only]
    repo = git.Repo(REPO) if texts is None else None
    held, left = [], []
    for label, sweep in found:
        if not sweep.complete:
            left.append(f"{label}: not complete ({len(sweep.timed())} timed): no ratio to its best")
            continue
        folder = next((f / sweep.name for f in FOLDERS if (f / sweep.name / "kernel.py").is_file()), None)
        if folder is None:
            left.append(f"{label}: no folder of {sweep.name} in the repository")
            continue
        key, day = sweep.key, _day(label)
        if repo is None:
            assert texts is not None
            kernel = _kept_text(texts / sweep.name / "kernel.py.txt", key.kernel_sha256)
            reference = _kept_text(texts / sweep.name / "reference.py.txt", key.reference_sha256)
        else:
            kernel = _blob_with(repo, folder / "kernel.py", key.kernel_sha256, day)
            reference = _blob_with(repo, folder / "reference.py", key.reference_sha256, day)
        if kernel is None or reference is None:
            left.append(f"{label}: the repository does not hold {READ_ONLY}")
            continue
        readme = (folder / "README.md").read_text() if (folder / "README.md").is_file() else ""
        held.append(Held(label, sweep, kernel, reference, readme))
    return held, left


def prepared_for(held: Held, workdir: Path) -> PreparedFolder:
    """``held``'s folder read as ``kernelopt tune --device cuda --gpu <the sweep's GPU>`` reads it."""
    folder = workdir / held.sweep.name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.py").write_text(held.kernel)
    (folder / "reference.py").write_text(held.reference)
    if held.readme:
        (folder / "README.md").write_text(held.readme)
    return prepare_folder(TuneRequest(folder=folder, device="cuda", gpu=held.sweep.key.gpu, out=workdir / "out"))


def config_of(prepared: PreparedFolder, values: Mapping[str, Value]) -> Config:
    """The sweep's configuration in the space's knobs: the space's current value for a knob the sweep held."""
    space = prepared.space
    current = space.current() or space.default()
    return current.with_values({k: v for k, v in values.items() if k in space.names})


def _unwritable(prepared: PreparedFolder, name: str, value: Value) -> str | None:
    """The writable-space rule (``cannot be written: NAME = v, ...``) that took ``value`` out of ``name``'s domain."""
    head = f"cannot be written: {name} = "
    for rule in prepared.space.fit_rules:
        if rule.startswith(head) and str(value) in rule[len(head) :].split(" (")[0].split(", "):
            return rule
    return None


def _out_of_domain(prepared: PreparedFolder, name: str, value: Value) -> tuple[str, str]:
    """Which rule keeps ``value`` out of knob ``name``'s values: the guard's unwritable value, a tunable's legality
    (the dot's K floor is one), or the knob's range (its floors: a cover bound, a quotient's or a dot's; its family's
    range)."""
    if (rule := _unwritable(prepared, name, value)) is not None:
        return "guard: unwritable value", rule
    origin = prepared.space.origins.get(name)
    keys = set(origin.keys) if origin is not None else set()
    for t in prepared.tunables:
        if t.key in keys and (problem := t.legality.problem(value)) is not None:
            src = f" ({t.legality.source})" if t.legality.source else ""
            kind = "dot K floor" if "dot" in f"{problem}{src}" else "legality"
            return kind, f"{name}={value}: {problem}{src}"
    values = next(k.values for k in prepared.space.knobs if k.name == name)
    notes = "; ".join(prepared.space.domain_notes)
    return "knob range", f"{name}={value} not among {list(values)}{f' ({notes})' if notes else ''}"


def _fit_rule(reason: str) -> str:
    """A fit problem's rule, in a few words."""
    text = reason.lower()
    if "shared memory" in text or "register" in text or "threads" in text:
        return "fit: resources"
    if "triton's limit" in text or "numel" in text:
        return "fit: tensor size"
    if "problem" in text or "larger than" in text:
        return "fit: tile <= problem"
    return "fit: other"


class TileEditor:
    """The session's editor (:func:`kernelopt.tuning.folder.session_editor`) asked once per configuration of the
    tiles: the edit's and the guard's refusals read the knobs that are no launch option (a tile that must divide a
    size, cover a row, stay under a count), the launch options' own limits are the fit rules' (checked for every
    configuration before it). A parse and a guard a configuration took 1.4 s on the loaded 2-core machine
    (2026-12-07), so the 768 of matmul's sweep would take 18 minutes; ``every`` asks it of each configuration (the CPU
    test checks the two agree on a sweep with launch options)."""

    def __init__(self, prepared: PreparedFolder, *, every: bool = False) -> None:
        self._apply = session_editor(prepared)
        self._every = every
        self._seen: dict[tuple[tuple[str, Value], ...], str | Refusal] = {}
        self.asked = 0

    def __call__(self, config: Config) -> str | Refusal:
        key = tuple(sorted((k, v) for k, v in config.items() if self._every or k not in LAUNCH_OPTIONS))
        if key not in self._seen:
            self.asked += 1
            self._seen[key] = self._apply(config)
        return self._seen[key]


def forbidden_by(prepared: PreparedFolder, editor: TileEditor, values: Mapping[str, Value]) -> tuple[str, str] | None:
    """``(rule, reason)`` of the first of today's rules that forbids the configuration ``values``, else ``None``: a
    value out of a knob's domain, then the fit rules, then the session's editor (the edit's refusal, the guard's)."""
    space = prepared.space
    for name, value in values.items():
        if name in space.names:
            knob = next(k for k in space.knobs if k.name == name)
            if value not in knob.values:
                return _out_of_domain(prepared, name, value)
    config = config_of(prepared, values)
    problems = space.fit_problems(config)
    if problems:
        return _fit_rule(problems[0]), problems[0]
    made = editor(config)
    if isinstance(made, Refusal):
        if made.reason.startswith(UNWRITABLE):
            return "guard: refused write", made.reason
        return "edit refused", made.reason
    return None


def cost_of(held: Held, workdir: Path, *, every: bool = False) -> Cost:
    """Today's rules over every configuration of ``held``'s sweep (``every``: the editor asked of each one)."""
    sweep = held.sweep
    prepared = prepared_for(held, workdir)
    missing = [n for n in sweep.space if n not in prepared.space.names]
    if missing:
        raise ValueError(f"{held.label}: the space of {sweep.name} today has no knob {', '.join(missing)}")
    editor = TileEditor(prepared, every=every)
    timed = [e for e in sweep.configs if e.status == "ok" and e.latency_us is not None]
    cost = Cost(label=held.label, gpu=sweep.key.gpu or "?", size=len(sweep.configs), timed=len(timed))
    cost.best = min(timed, key=_latency, default=None)
    ok = {id(e) for e in timed}
    for entry in sweep.configs:
        why = forbidden_by(prepared, editor, entry.config)
        if why is None:
            if id(entry) in ok and (cost.best_admissible is None or _latency(entry) < _latency(cost.best_admissible)):
                cost.best_admissible = entry
            continue
        rule, reason = why
        cost.forbidden[rule] += 1
        cost.forbidden_ok[rule] += id(entry) in ok
        if id(entry) in ok and (cost.fastest_forbidden is None or _latency(entry) < _latency(cost.fastest_forbidden)):
            cost.fastest_forbidden = entry
        cost.reasons.setdefault(rule, reason)
        if entry is cost.best:
            cost.best_rule, cost.best_reason = rule, reason
    cost.edits = editor.asked
    return cost


def _latency(entry: SweepEntry) -> float:
    return entry.latency_us if entry.latency_us is not None else float("inf")


def _config_text(entry: SweepEntry | None) -> str:
    return "-" if entry is None else ", ".join(f"{k}={v}" for k, v in entry.config.items())


HEAD = (
    "sweep",
    "GPU",
    "configs (timed)",
    "forbidden by rule: all (timed)",
    "best us",
    "best admissible us",
    "ratio",
    "best forbidden",
    "fastest forbidden timed / best",
)


def row(cost: Cost) -> list[str]:
    rules = ", ".join(f"{r} {n} ({cost.forbidden_ok[r]})" for r, n in sorted(cost.forbidden.items())) or "none"
    best = cost.best.latency_us if cost.best is not None else None
    admissible = cost.best_admissible.latency_us if cost.best_admissible is not None else None
    ratio = cost.ratio
    return [
        cost.label,
        cost.gpu,
        f"{cost.size} ({cost.timed})",
        rules,
        "-" if best is None else f"{best:.2f}",
        "-" if admissible is None else f"{admissible:.2f}",
        "-" if ratio is None else f"{ratio:.4f}",
        f"yes: {cost.best_rule} ({_config_text(cost.best)})" if cost.best_rule else "no",
        _fastest_forbidden(cost),
    ]


def _fastest_forbidden(cost: Cost) -> str:
    """The fastest configuration a rule forbids that the sweep timed, against the sweep's best: how near a rule came to
    costing speed (``-``: it forbids none that ran)."""
    f, best = cost.fastest_forbidden, cost.best
    if f is None or best is None or f.latency_us is None or best.latency_us is None:
        return "-"
    return f"{f.latency_us / best.latency_us:.3f} ({_config_text(f)})"


def markdown(rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def measure(held: Sequence[Held], *, every: bool = False) -> Iterator[Cost]:
    with tempfile.TemporaryDirectory(prefix="safety_cost_") as tmp:
        for h in held:
            yield cost_of(h, Path(tmp), every=every)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="", help="comma-separated sweep names (default: every held sweep)")
    p.add_argument("--markdown", type=Path, help="also write the tables to this file")
    p.add_argument("--every", action="store_true", help="ask the editor of every configuration (slow: 1 s each)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    only = {s for s in args.only.split(",") if s}
    started = time.monotonic()
    held, left = held_sweeps(only)
    tables: dict[bool, list[list[str]]] = {True: [], False: []}
    reasons: list[str] = []
    for cost in measure(held, every=args.every):
        tables[cost.label.split(" (")[0] in DESIGNED_ON].append(row(cost))
        reasons += [f"- {cost.label}, {rule}: {reason}" for rule, reason in sorted(cost.reasons.items())]
        print(f"{cost.label}: {dict(cost.forbidden)} ratio {cost.ratio}, {cost.edits} edits", file=sys.stderr)
    text = (
        "Today's rules (the space `tune` builds on the sweep's GPU, its editor's refusals) over every configuration of "
        "each complete recorded sweep whose kernel the repository holds. ratio = best admissible / sweep's best.\n\n"
        f"Sweeps a safety rule was designed or tested on:\n\n{markdown(tables[True])}\n\n"
        f"Held out of every rule's design:\n\n{markdown(tables[False])}\n\n"
        "First reason of each rule, per sweep:\n\n" + ("\n".join(reasons) or "- none") + "\n\n"
        "Left out:\n\n" + ("\n".join(f"- {line}" for line in left) or "- none") + "\n\n"
        "Not replayed: the accuracy rule (a sweep records max_abs_err at one shape, not the rel_err, worst element "
        f"and roundoff it reads). Time: {time.monotonic() - started:.0f} s.\n"
    )
    print(text)
    if args.markdown is not None:
        atomic_write_text(args.markdown, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
