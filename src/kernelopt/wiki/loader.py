"""Finding and reading gpu-wiki records: the built-in wiki plus the user's own directories.

Where records come from, all searched with the same priority:

1. the built-in wiki shipped in the package (``kernelopt/wiki/records/{techniques,pitfalls,hardware}``);
2. directories named in ``KERNELOPT_WIKI_DIRS`` (separated by ``os.pathsep``, ``:`` on Linux);
3. directories listed in the config file ``$XDG_CONFIG_HOME/kernelopt/config.toml`` (default
   ``~/.config/kernelopt/config.toml``; ``KERNELOPT_CONFIG`` names another file)::

       [wiki]
       dirs = ["~/my-gpu-wiki", "/shared/team-wiki"]

4. directories given on the command line (``--wiki DIR``) or as ``extra_dirs``.

In a user directory every ``*.md`` file (searched recursively) whose YAML front matter has a ``kind``
is a record; files without front matter, and ``README.md`` files, are documentation and are skipped.
A record file that cannot be used is an error, reported on one line with its path. Two records with
the same id are an error too (ids are how plans and memory cite records).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from kernelopt import frontmatter
from kernelopt.env import EnvSettings
from kernelopt.hardware.specs import GpuSpec, builtin_specs, parse_sheet
from kernelopt.wiki.record import RecordKind, RecordSource, Scope, WikiError, WikiRecord
from kernelopt.wiki.rules import validate_record

BUILTIN_ORIGIN = "kernelopt/wiki/records"


@dataclass(frozen=True)
class RecordFile:
    """The text of one candidate record file and where it came from (for messages)."""

    origin: str
    text: str
    builtin: bool


def builtin_root() -> Traversable:
    """The package folder holding the built-in records."""
    return resources.files("kernelopt.wiki").joinpath("records")


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """The config file: ``$KERNELOPT_CONFIG``, else ``$XDG_CONFIG_HOME/kernelopt/config.toml``."""
    read = EnvSettings.read(env)
    if read.config is not None:
        return read.config
    return (read.xdg_config_home or Path.home() / ".config") / "kernelopt" / "config.toml"


def configured_dirs(env: Mapping[str, str] | None = None) -> list[Path]:
    """User wiki directories from ``KERNELOPT_WIKI_DIRS`` and the config file's ``[wiki] dirs``.

    Raises:
        WikiError: the config file is not valid TOML or ``[wiki] dirs`` is not a list of strings.
    """
    dirs = list(EnvSettings.read(env).wiki_dirs)
    cfg = config_path(env)
    if EnvSettings.read(env).config is not None and not cfg.is_file():  # named, so meant: not passed over in silence
        raise WikiError(
            f"KERNELOPT_CONFIG={cfg}: no such file (the config file holds [wiki] dirs); "
            "point it at one, or unset it for ~/.config/kernelopt/config.toml"
        )
    if cfg.is_file():
        try:
            data = tomllib.loads(cfg.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise WikiError(f"{cfg}: not valid TOML ({' '.join(str(exc).split())})") from None
        _known_settings(cfg, data)
        listed = (data.get("wiki") or {}).get("dirs", [])
        if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
            raise WikiError(f"{cfg}: [wiki] dirs must be a list of paths")
        base = cfg.parent
        dirs += [
            (base / Path(p).expanduser()) if not Path(p).expanduser().is_absolute() else Path(p).expanduser()
            for p in listed
        ]
    return dirs


CONFIG_SETTINGS = ("wiki.dirs",)
"""Every setting the config file holds, as ``table.key``."""


def _known_settings(cfg: Path, data: Mapping[str, Any]) -> None:
    """Refuse a setting the config file does not hold (``[wiki] dir``, ``[harness] seeds``): read by nothing, a typo
    or a wish would otherwise be passed over in silence (newuser20 n147).

    Raises:
        WikiError: naming the setting, the one it is spelt like, and what the file holds.
    """
    import difflib

    found = [f"{t}.{k}" for t, v in data.items() for k in (v if isinstance(v, dict) else {"": None})]
    for name in found:
        if name in CONFIG_SETTINGS:
            continue
        near = difflib.get_close_matches(name, CONFIG_SETTINGS, n=1, cutoff=0.75)
        like = f" (did you mean {near[0]}?)" if near else ""
        raise WikiError(
            f"{cfg}: {name.rstrip('.')} is not a setting of the config file{like}; it holds [wiki] dirs alone "
            "(every other setting is an environment variable: docs/environment.md)"
        )


def wiki_dirs(extra_dirs: Sequence[Path] = (), *, include_configured: bool = True) -> list[Path]:
    """The user directories to read, configured ones first, each once.

    Raises:
        WikiError: a directory does not exist.
    """
    seen: set[Path] = set()
    out: list[Path] = []
    for d in [*(configured_dirs() if include_configured else []), *extra_dirs]:
        d = Path(d).expanduser()
        if not d.is_dir():
            raise WikiError(f"wiki directory {d} does not exist or is not a directory")
        key = d.resolve()
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _walk_builtin(node: Traversable, prefix: str) -> Iterator[RecordFile]:
    for entry in sorted(node.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            yield from _walk_builtin(entry, f"{prefix}/{entry.name}")
        elif entry.name.endswith(".md"):
            yield RecordFile(f"{prefix}/{entry.name}", entry.read_text(encoding="utf-8"), True)


def builtin_files() -> list[RecordFile]:
    """Every built-in record file (all of them must be records)."""
    return list(_walk_builtin(builtin_root(), BUILTIN_ORIGIN))


def user_files(directory: Path) -> list[RecordFile]:
    """Record files of a user directory: ``*.md`` with front matter, ``README.md`` excluded.

    Raises:
        WikiError: a file cannot be read as UTF-8 text.
    """
    out = []
    for path in sorted(directory.rglob("*.md")):
        if path.name.lower() == "readme.md" or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise WikiError(f"{path}: cannot read ({' '.join(str(exc).split())})") from None
        if text.lstrip("\ufeff").startswith("---"):
            out.append(RecordFile(str(path), text, False))
    return out


def dir_signature(directory: Path) -> tuple[tuple[str, int, int], ...]:
    """(path, mtime_ns, size) of each ``*.md`` below ``directory``: changes when a record changes."""
    sig = []
    for path in sorted(directory.rglob("*.md")):
        st = path.stat()
        sig.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(sig)


def split_front(text: str, origin: str) -> tuple[dict[str, Any], str]:
    """Front matter and body of a record file.

    Raises:
        WikiError: (one line) no front matter, or it is not valid YAML / not a mapping.
    """
    try:
        front, body = frontmatter.split(text.lstrip("\ufeff"))
    except frontmatter.FrontMatterError as exc:
        raise WikiError(f"{origin}: {' '.join(str(exc).split())}") from None
    if not front:
        raise WikiError(f"{origin}: no YAML front matter (a record starts with a '---' fenced block)")
    return front, body


def sheet_record(spec: GpuSpec, origin: str | None = None) -> WikiRecord:
    """A read-only :class:`WikiRecord` view of a hardware sheet, for the knowledge search and ``wiki show``.

    The figures are rendered into ``body`` (value, unit, source title); the sheet file stays the one
    copy of each number.
    """
    lines = [spec.body.strip(), "", f"{spec.name} ({spec.architecture or spec.arch}, {spec.arch}) figures:"]
    for key, fig in spec.figures.items():
        shown = "unknown" if fig.value is None else f"{fig.value:g} {fig.unit}"
        lines.append(f"- {key}: {shown}" + (f" ({fig.note})" if fig.note else ""))
    return WikiRecord(
        kind=RecordKind.HARDWARE_SPEC,
        id=spec.id,
        title=f"{spec.name} spec sheet",
        scope=Scope(vendor=[spec.vendor], arch=[spec.arch]),
        sources=[RecordSource(title=s.title, url=s.url) for s in spec.sources.values()],
        body="\n".join(lines).strip(),
        path=origin,
    )


def _parse(text: str, origin: str) -> WikiRecord | GpuSpec:
    front, body = split_front(text, origin)
    if front.get("kind") == RecordKind.HARDWARE_SPEC.value:
        try:
            return parse_sheet(text.lstrip("\ufeff"), origin)
        except ValueError as exc:
            raise WikiError(" ".join(str(exc).split())) from None
    record, problems = validate_record(front, body)
    blocking = [p for p in problems if p.blocking]
    if record is None or blocking:
        first = blocking[0]
        more = f" (+{len(blocking) - 1} more; run `kernelopt wiki lint`)" if len(blocking) > 1 else ""
        raise WikiError(f"{origin}: {first.message}{more}")
    record.path = origin
    return record


def parse_record(text: str, origin: str) -> WikiRecord:
    """Parse one record file (technique, pitfall, or a hardware sheet's record view).

    Args:
        text: the whole file, front matter and body.
        origin: the path or name used in error messages and stored as ``record.path``.

    Raises:
        WikiError: one line naming ``origin`` and the first problem that makes the record unusable
            (no/invalid front matter, unknown kind/symptom/category/vendor/framework/arch, schema error,
            a technique without action_category or change, a pitfall without tried/fails_when/why).
    """
    parsed = _parse(text, origin)
    return sheet_record(parsed, origin) if isinstance(parsed, GpuSpec) else parsed


@dataclass(frozen=True)
class Wiki:
    """Everything read from the built-in wiki and the user directories."""

    records: tuple[WikiRecord, ...]
    specs: tuple[GpuSpec, ...]
    dirs: tuple[Path, ...]


@cache
def _builtin() -> tuple[tuple[WikiRecord, ...], tuple[GpuSpec, ...]]:
    records: list[WikiRecord] = []
    for f in builtin_files():
        if f.origin.startswith(f"{BUILTIN_ORIGIN}/hardware/"):
            continue  # sheets are read (once) by kernelopt.hardware.specs.builtin_specs
        parsed = _parse(f.text, f.origin)
        if isinstance(parsed, WikiRecord):
            records.append(parsed)
    specs = builtin_specs()
    records += [sheet_record(s, f"{BUILTIN_ORIGIN}/hardware/{s.id}.md") for s in specs]
    return tuple(records), specs


def load_wiki(extra_dirs: Sequence[Path] = (), *, include_configured: bool = True) -> Wiki:
    """Read the built-in wiki and the user directories.

    Raises:
        WikiError: a directory is missing, a record file is unusable, or two records share an id.
    """
    dirs = wiki_dirs(extra_dirs, include_configured=include_configured)
    records, specs = _builtin()
    all_records = list(records)
    all_specs = list(specs)
    for d in dirs:
        for f in user_files(d):
            parsed = _parse(f.text, f.origin)
            if isinstance(parsed, GpuSpec):
                all_specs.append(parsed)
                all_records.append(sheet_record(parsed, f.origin))
            else:
                all_records.append(parsed)
    by_id: dict[str, WikiRecord] = {}
    for r in all_records:
        if r.id in by_id:
            raise WikiError(f"duplicate record id {r.id!r} in {by_id[r.id].path} and {r.path}")
        by_id[r.id] = r
    return Wiki(tuple(all_records), tuple(all_specs), tuple(dirs))


def load_records(extra_dirs: Sequence[Path] = (), *, include_configured: bool = True) -> list[WikiRecord]:
    """Technique and pitfall records (and hardware-sheet views) of the built-in wiki plus user dirs.

    Args:
        extra_dirs: more user wiki directories (``--wiki DIR``), after the configured ones.
        include_configured: also read ``KERNELOPT_WIKI_DIRS`` and the config file (default).

    Raises:
        WikiError: see :func:`load_wiki`.
    """
    return list(load_wiki(extra_dirs, include_configured=include_configured).records)
