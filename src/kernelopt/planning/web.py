"""The optional web-search hook (third knowledge source): an external command, and the figure filter.

Off by default. When configured, the command (an argv template; ``{query}`` is replaced by the query,
or the query is appended when there is no placeholder) runs through :func:`kernelopt.proc.run_command`
with a timeout. It prints results one per line, either JSON objects (``{"title": ..., "url": ...,
"snippet": ...}``) or ``title<TAB>url<TAB>snippet`` text, or plain lines (each a snippet).

Web results may suggest ideas, never hardware figures (spec, Stage 2: "Hardware spec values still
require gpu-wiki or explicit user confirmation"). :func:`strip_hardware_figures` removes every quantity
with a hardware unit (TB/s, GB/s, TFLOP/s, GHz, MB, W, SMs, ...) and every number in a sentence that
speaks of a hardware figure (bandwidth, peak, capacity, clock, ...), so no web number can reach a plan;
plan validation refuses a web search-log entry that still holds one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kernelopt.oneline import one_line
from kernelopt.proc import CommandResult, run_command

REMOVED = "[figure removed]"

_NUM = r"\d(?:[\d,]*\d)?(?:\.\d+)?"
_UNITS = (
    r"(?:[TGMKP]i?B/s|[TGMKP]B\s*/\s*s|[TGP]FLOP/?s|[TGP]FLOPS|[TGP]OPS|[TGP]?FLOP/s|GT/s|[GM]Hz|"
    r"[KMGT]i?B|bytes|W|watts?|SMs?|CUs?|XCDs?|compute units?|streaming multiprocessors?|cores?|"
    r"registers?|regs|warps?\s+per\s+SM|threads?\s+per\s+SM|KB/SM|nm)"
)
_FIGURE_RE = re.compile(rf"(?<![\w.]){_NUM}\s*(?:-|\s)?{_UNITS}(?![A-Za-z])", re.IGNORECASE)
_SPEC_WORDS_RE = re.compile(
    r"\b(bandwidth|peak|capacity|clock|boost|tflop|flops|hbm\w*|l2\s+cache|l1\s+cache|shared\s+memory\s+size|"
    r"memory\s+size|tdp|power|sm\s+count|cu\s+count|register\s+file|spec(?:ification)?s?)\b",
    re.IGNORECASE,
)
_BARE_NUM_RE = re.compile(rf"(?<![\w.]){_NUM}(?![\w])")
_SENTENCE_RE = re.compile(r"(?<=[.;!?])\s+")


def hardware_figures(text: str) -> list[str]:
    """Hardware figures stated in ``text`` (quantities with a hardware unit, numbers in spec sentences)."""
    found = [m.group(0) for m in _FIGURE_RE.finditer(text)]
    for sentence in _SENTENCE_RE.split(text):
        if _SPEC_WORDS_RE.search(sentence):
            rest = _FIGURE_RE.sub(" ", sentence)
            found += [m.group(0) for m in _BARE_NUM_RE.finditer(rest)]
    return found


def strip_hardware_figures(text: str) -> tuple[str, list[str]]:
    """``text`` with every hardware figure replaced by ``[figure removed]``, and the figures removed."""
    removed: list[str] = []

    def cut(m: re.Match[str]) -> str:
        removed.append(m.group(0))
        return REMOVED

    out = []
    for sentence in _SENTENCE_RE.split(text):
        sentence = _FIGURE_RE.sub(cut, sentence)
        if _SPEC_WORDS_RE.search(sentence):
            sentence = _BARE_NUM_RE.sub(cut, sentence)
        out.append(sentence)
    return " ".join(out), removed


@dataclass(frozen=True)
class WebSearchConfig:
    """The external web-search command.

    Attributes:
        argv: the command as an argv template; ``{query}`` in an element is replaced by the query.
        timeout_s: wall-clock limit of one search, seconds.
        max_results: results kept per query.
    """

    argv: tuple[str, ...]
    timeout_s: float = 30.0
    max_results: int = 5


@dataclass(frozen=True)
class WebResult:
    """One web result, with hardware figures already removed.

    Attributes:
        title: page title (figures removed).
        url: address, when given.
        snippet: text (figures removed).
        removed: the hardware figures that were cut out.
    """

    title: str
    url: str | None
    snippet: str
    removed: tuple[str, ...] = ()


def build_argv(config: WebSearchConfig, query: str) -> list[str]:
    """The argv of one search: ``{query}`` replaced, or the query appended when no element has it."""
    if any("{query}" in a for a in config.argv):
        return [a.replace("{query}", query) for a in config.argv]
    return [*config.argv, query]


def parse_output(stdout: str, max_results: int) -> list[WebResult]:
    """Results from the command's standard output (JSON lines, tab-separated, or plain lines)."""
    out: list[WebResult] = []
    for line in stdout.splitlines():
        line = line.strip()
        if not line:
            continue
        title, url, snippet = "", None, line
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                obj = None
            if isinstance(obj, dict):
                title = str(obj.get("title") or "")
                url = str(obj["url"]) if obj.get("url") else None
                snippet = str(obj.get("snippet") or obj.get("text") or "")
        elif "\t" in line:
            parts = line.split("\t")
            title, url, snippet = parts[0], (parts[1] or None) if len(parts) > 1 else None, " ".join(parts[2:])
        clean_title, r1 = strip_hardware_figures(title)
        clean_snippet, r2 = strip_hardware_figures(snippet)
        out.append(WebResult(clean_title, url, clean_snippet, tuple(r1 + r2)))
        if len(out) >= max_results:
            break
    return out


Runner = Callable[..., CommandResult]


def web_search(
    config: WebSearchConfig, query: str, *, runner: Runner = run_command
) -> tuple[list[WebResult], str | None]:
    """Run the web-search command for ``query``.

    Returns:
        (results with hardware figures removed, a note when the command failed). A failing, missing or
        hanging command is a note for the search log, never an exception: the web is an optional source.
    """
    argv: Sequence[str] = build_argv(config, query)
    try:
        result = runner(argv, timeout_s=config.timeout_s)
    except FileNotFoundError:
        return [], f"web command not found: {argv[0]}"
    if result.timed_out:
        return [], f"web command ran past its {config.timeout_s:g} s limit and was killed"
    if result.returncode != 0:
        tail = one_line(result.stderr_tail(3), 160)
        return [], f"web command exited {result.returncode}" + (f": {tail}" if tail else "")
    return parse_output(result.stdout, config.max_results), None
