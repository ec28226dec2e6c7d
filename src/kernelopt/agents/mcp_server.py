"""``kernelopt mcp --root DIR``: an MCP server (stdio, the official ``mcp`` SDK) whose tools are the stages.

The agent drives; kernelopt enforces the stage rules (:mod:`.drive`: profile before plan, a plan that cites
the evidence, the agent's implementation checked by the guard, the gate, commits only through ``record``, a
FAIL reverted). Every result is a typed model, the same the commands print with ``--json``.

Every workspace, kernel, report and output path must lie under a ``--root`` (:class:`.roots.Roots`). A call
that breaks a rule or names a path outside is refused: a tool error of one line (no traceback), with
nothing written. The long tools (``profile``, ``validate``, ``tune``) send progress notifications (one per
loop event or tuning round) and can be cancelled: the cancellation takes effect at the next event or round,
where the loop rolls back the stage in flight exactly as after Ctrl-C (the tuning session keeps its best so
far), and the workspace stays resumable. The calls that write run one at a time; the ones that only read
(``status``, ``evidence``, ``compare``, ``wiki_search``, ``wiki_spec``, ``memory_summary``) answer beside them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent
from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, ValidationError, WithJsonSchema
from pydantic_core import PydanticCustomError

from kernelopt import __version__
from kernelopt.agents import drive
from kernelopt.agents.evidence_digest import DiffDigest, EvidenceDigest
from kernelopt.agents.report_digest import ReportDigest
from kernelopt.agents.roots import Roots
from kernelopt.destination import may_be_path
from kernelopt.errors import KerneloptError, NoGpu, UsageError, disk_problem
from kernelopt.evidence.diff import SummaryDiff
from kernelopt.evidence.model import ProfileSummary
from kernelopt.hardware.specs import GpuSpec
from kernelopt.loop.protocols import LoopEvent
from kernelopt.memory.summary import SummaryRow
from kernelopt.planning.plan import PLAN_CHARS
from kernelopt.redact import Redactor, redact
from kernelopt.redact import current as current_redactor
from kernelopt.report.markdown import Section
from kernelopt.report.model import ReportData
from kernelopt.tuning.folder import TuneSummary
from kernelopt.vocabulary import Device
from kernelopt.wiki.search import SearchHit
from kernelopt.workspace import PREFIX, RunLock, Workspace, folder_lock

T = TypeVar("T")

LINE_CHARS = 2_000
"""The longest one-line description ``validate`` takes (it goes into the record and the commit message)."""

WIKI_HITS = 20
"""The most records one ``wiki_search`` returns, each whole (about 2 kB): 50 came to 118 kB, past what Claude Code
keeps in the conversation."""

WIKI_DEFAULT_HITS = 5
"""The records ``wiki_search`` returns unless asked for more: 10 came to 17.5-20.5 kB, and Codex 0.171.0 kept about
12 kB of a tool's output (its head and tail, the middle cut), so the middle records were lost; 5 come to 8-10 kB."""

QUERY_CHARS = 10_000
"""The longest knowledge-search query (a 1.1 MB one took seconds and found what its first words found)."""

WS = Annotated[str, Field(description="The workspace folder (kernel_opt_<name>) under a root, or its name.")]


def _known_device(name: str | None) -> str | None:
    """``name`` when it is a device kernelopt runs on (``cuda``, ``cuda:N``, ``cpu``): ``device="tpu"`` ran a V0
    gate and then said "no NVIDIA GPU found" (6 s later)."""
    if name is not None and Device.of(name) is None:
        raise ValueError(f"unknown device {name!r}; use cuda or cpu")
    return name


DEVICE = Annotated[
    str | None,
    AfterValidator(_known_device),
    Field(description="cuda or cpu (default: the server's --device, else cuda)."),
]

INSTRUCTIONS = (
    "kernelopt: profile-driven GPU kernel optimization. Call status(workspace) to learn the next stage. "
    "Order: init -> profile -> (evidence, compare, wiki_search, wiki_spec, memory_summary) -> submit_plan "
    "(ONE action whose Input Evidence cites profiles/v<N>/: evidence -> inference -> action) -> edit kernel.py "
    "yourself -> validate (the gate) -> record (the commit; a FAIL reverts) -> status. "
    "Refusals are one line: fix what they name."
)


class Cancelled(KeyboardInterrupt):
    """The client cancelled the call: raised in the worker at the next event, where the loop rolls back."""


class InitResult(BaseModel):
    """A new workspace (``kernelopt init --json``)."""

    workspace: str
    commit: str
    kernel_form: str
    notes: list[str] = []


class EvidenceResult(BaseModel):
    """The evidence: by default its digest (each kernel's key metrics and top findings with their values and units,
    a few kB), the whole summary with ``full`` (as ``kernelopt evidence --json``: 35-90 kB for one real Nsight
    Compute report).

    Attributes:
        digest: the evidence in brief (``full`` false).
        summary: the whole evidence (``full`` true).
    """

    digest: EvidenceDigest | None = None
    summary: ProfileSummary | None = None


class CompareResult(BaseModel):
    """The change between two profiles: by default its digest (each kernel pair's key metrics and largest changes,
    a few kB), every metric's change with ``full`` (as ``kernelopt evidence A --diff B --json``: 18 kB for one
    kernel pair of two real reports).

    Attributes:
        digest: the change in brief (``full`` false).
        diff: every metric's change (``full`` true).
    """

    digest: DiffDigest | None = None
    diff: SummaryDiff | None = None


class WikiHits(BaseModel):
    hits: list[SearchHit]


class MemorySummary(BaseModel):
    workspace: str
    rows: list[SummaryRow]
    note: str | None = Field(
        default=None, description="why there is no row, and what to call (the tools' words for the CLI's line)"
    )


class WholeReport(StrEnum):
    """What ``report`` returns beyond one section of the Markdown report (:class:`Section`, the names ``report
    --section`` takes; its ``summary`` is the digest here): the whole Markdown (``full``), or the report's whole data
    (``data``, as ``kernelopt report --json``)."""

    FULL = "full"
    DATA = "data"


ReportPart = Section | WholeReport
"""What ``report`` returns: one section (the section names are the report's own, one source), or the whole."""

REPORT_PARTS: tuple[ReportPart, ...] = (*Section, *WholeReport)
"""Every part, in order: the sections as the report orders them, then ``full`` and ``data``."""


def _report_part(value: object) -> object:
    """``value`` as the part it names; a name no part has gets the one line a single enum gives (a union of two
    enums said each enum's list, with the place of each: ``section.Section: ...; section.WholeReport: ...``)."""
    for part in REPORT_PARTS:
        if value == part.value:
            return part
    if isinstance(value, Section | WholeReport):
        return value
    names = [f"'{p.value}'" for p in REPORT_PARTS]
    raise PydanticCustomError(
        "enum", "Input should be {expected}", {"expected": ", ".join(names[:-1]) + f" or {names[-1]}"}
    )


REPORT_FILE = "report.md"
"""The full Markdown report ``report`` writes into the workspace's ``.kernelopt/`` (untracked) at every call."""


class ReportResult(BaseModel):
    """The report's digest, one section, the whole Markdown or the whole data (``section``), and where the full
    report is.

    Attributes:
        section: what was asked for.
        summary: the digest (``section=summary``).
        markdown: the section's Markdown (a section, or ``full``).
        report: the report's whole data (``section=data``).
        full_report: the file holding the full Markdown report, written by this call (``None`` when the workspace
            could not be written: full, read-only; ``summary.more`` says why).
        written: the files written as asked (``markdown``, ``html``, their plots).
    """

    section: ReportPart
    summary: ReportDigest | None = None
    markdown: str | None = None
    report: ReportData | None = None
    full_report: str | None
    written: dict[str, str] = {}


class TuneResult(BaseModel):
    """One tuning session of a folder's launch configuration; ``kernel.py`` is never written (the plan and
    the agent's edit carry the winner into a version).

    Attributes:
        summary: the session (``better``: whether the pick beats the current configuration by the minimum gain).
        judgement: why it does or does not, one line: ``better: false`` beside a speedup of 106x, with no diff, said
            nothing of why (there: the re-time of the top few was too noisy to rank them, so the current
            configuration is kept).
        diff: the edit that writes the pick (empty when it is not better).
        kernel_py: the file the diff applies to.
        table: the session's ``candidates.csv`` (one row a candidate), as ``kernelopt tune`` writes it.
    """

    summary: TuneSummary
    judgement: str
    diff: str
    kernel_py: str
    table: str | None = None


CPU_ARGUMENT = 'device="cpu"'
"""How a tool with a ``device`` argument (profile, tune) is asked for the CPU: the no-GPU advice names it, not the
CLI's ``--device cpu``."""

CPU_SETTING = "the server's --device cpu (`kernelopt mcp --root DIR --device cpu`)"
"""How the other stage tools (validate, record, submit_plan) are given the CPU: they run on the server's device."""


def _refuse(exc: KerneloptError, *, device_argument: bool = False) -> Exception:
    """The tool error of ``exc``: one line; the no-GPU advice in the caller's words (:class:`NoGpu`)."""
    if isinstance(exc, NoGpu):
        exc = exc.said_to(CPU_ARGUMENT if device_argument else CPU_SETTING)
    return ToolError(exc.one_line())


async def _call(fn: Callable[[], T], *, lock: anyio.Lock) -> T:
    """Run ``fn`` in a worker thread, one call at a time; our errors become a one-line tool error."""
    async with lock:
        return await _read(fn)


async def _read(fn: Callable[[], T], *, settled: threading.Event | None = None) -> T:
    """Run ``fn``, which only reads, in a worker thread beside any call in flight (``status`` answers while a
    gate runs: every file the stages write is written whole, then renamed), once a cancelled call has rolled
    its stage back (``settled``: a read after a cancel sees the workspace as the cancel left it); our errors
    become one line."""
    if settled is not None and not settled.is_set():
        await anyio.to_thread.run_sync(settled.wait)
    try:
        return await anyio.to_thread.run_sync(fn)
    except KerneloptError as exc:
        raise _refuse(exc) from None


@dataclass
class _Said:
    """The progress a long tool has sent: how many notifications, the last line and when it was new."""

    count: int
    line: str
    at: float


class _Interrupt:
    """Raises :class:`Cancelled` in the thread that runs a long tool, at once, the way Ctrl-C reaches the CLI's
    main thread: the harness's and the tuner's waits poll, so a gate's measurement or a tuning round stops
    within a poll (its worker is killed as the block that started it is left) and the loop rolls the stage
    back, instead of the step running to its end first. A command waited for in one call (the profiler)
    still ends first. Only ever raised inside ``fn`` (:meth:`enter` .. :meth:`leave`); one pending past
    ``fn`` is withdrawn."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thread: int | None = None
        self._sent = False

    def enter(self) -> None:
        with self._lock:
            self._thread = threading.get_ident()

    def leave(self) -> None:
        """Called by the thread that ran ``fn``: a :class:`Cancelled` sent but not raised yet lands here and is
        dropped. Withdrawing it instead (``PyThreadState_SetAsyncExc(id, NULL)``) leaves CPython 3.11's
        interpreter-wide async-exception flag set for good, and every ``sys.settrace`` tracer in the process
        (the harness's LineTrace, a debugger, coverage) then spins forever at its next call."""
        with self._lock:
            thread, self._thread = self._thread, None
            pending = self._sent and thread is not None
        if pending:
            try:
                for _ in range(8):  # an asynchronous exception lands at a call or a backward jump
                    time.sleep(0)
            except Cancelled:
                pass

    def fire(self) -> None:
        if not self._lock.acquire(timeout=1.0):  # never block the event loop
            return
        try:
            if self._thread is not None and not self._sent:
                self._sent = True
                _raise_in(self._thread, Cancelled)
        finally:
            self._lock.release()


def _raise_in(thread: int, exc: type[BaseException]) -> None:
    """CPython's ``PyThreadState_SetAsyncExc``: ``exc`` raised in ``thread`` at its next bytecode (never used to
    withdraw one: see :meth:`_Interrupt.leave`)."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread), ctypes.py_object(exc))


HEARTBEAT_S = 5.0
"""Seconds between the progress notifications a long tool sends while one step runs (a gate, a profiler)."""


async def _long(
    ctx: Context | None,
    fn: Callable[[Callable[[str], None]], T],
    *,
    lock: anyio.Lock,
    settled: threading.Event | None = None,
    what: str = "the call",
    device_argument: bool = False,
    on_cancel: Callable[[float], None] | None = None,
) -> T:
    """A long tool: ``fn(report)`` in a worker thread, each ``report(line)`` a progress notification, and one
    every :data:`HEARTBEAT_S` seconds while nothing else is said (the last line, and for how long it runs).

    A cancelled call raises :class:`Cancelled` in the worker at once (:class:`_Interrupt`) and again at its
    next report; the loop rolls the stage back as after Ctrl-C. The call's cancellation waits for that,
    shielded, so the next call never starts while the worker still runs; then ``on_cancel(seconds)`` is told how
    long the call ran. ``device_argument``: the tool takes ``device`` (a no-GPU refusal names ``device="cpu"``).
    """
    cancelled = threading.Event()
    interrupt = _Interrupt()
    finished = threading.Event()
    live = ctx is not None and _in_request(ctx)  # an in-process call (no client) has nobody to notify
    token = anyio.lowlevel.current_token()
    sent = threading.Lock()
    state = _Said(count=0, line=f"{what}: started", at=time.monotonic())  # what a beat says before any line

    def notify(line: str, *, beat: bool = False) -> None:
        with sent:  # one sender at a time: the progress values increase
            if beat:
                if time.monotonic() - state.at < HEARTBEAT_S:
                    return  # something new was said meanwhile
                line = f"{state.line} (running for {time.monotonic() - state.at:.0f} s)"
            else:
                state.line, state.at = line, time.monotonic()
            state.count += 1
            if live:
                assert ctx is not None
                anyio.from_thread.run(ctx.report_progress, float(state.count), None, redact(line), token=token)

    def report(line: str) -> None:
        if cancelled.is_set():
            raise Cancelled()
        notify(line)

    def heartbeat() -> None:
        while not finished.wait(HEARTBEAT_S) and not cancelled.is_set():
            notify("", beat=True)

    def work() -> T:
        beats = threading.Thread(target=heartbeat, name="kernelopt-mcp-heartbeat", daemon=True)
        if live:
            beats.start()
        try:
            interrupt.enter()
            try:
                return fn(report)
            finally:
                interrupt.leave()
        finally:
            finished.set()
            if beats.is_alive():
                beats.join()

    async with lock:
        started = time.monotonic()
        try:
            return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            cancelled.set()
            if settled is not None:
                settled.clear()  # reads wait until the stage is rolled back
            interrupt.fire()
            try:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(finished.wait)
            finally:
                if on_cancel is not None:
                    on_cancel(time.monotonic() - started)
                if settled is not None:
                    settled.set()
            raise
        except KerneloptError as exc:
            raise _refuse(exc, device_argument=device_argument) from None


def _in_request(ctx: Context) -> bool:
    """Whether ``ctx`` belongs to a client's request (the SDK raises ValueError outside one)."""
    try:
        ctx.request_context  # noqa: B018 - the property raises outside a request
    except ValueError:
        return False
    return True


def _on_event(report: Callable[[str], None]) -> Callable[[LoopEvent], None]:
    def on_event(event: LoopEvent) -> None:
        report(drive.event_line(event))

    return on_event


class _Server(MCPServer):
    """The SDK's server, with arguments that fail a tool's schema refused in one line (the SDK's message is
    pydantic's several lines and a documentation link), a refusal's echo of a long argument shortened
    (:func:`_echo_shortened`), and everything a tool returns or refuses with
    redacted (:func:`kernelopt.redact.redact`, as every line the CLI prints): a refusal may quote what a
    kernel or a reference printed or raised, and either can read this server's environment
    (``/proc/<pid>/environ``)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        _known_arguments(self._tool_manager.get_tool(name), name, arguments)
        try:
            result = await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise  # the SDK's own "Error executing tool <name>": nothing of the exception in it
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(redact(f"{name}: bad arguments: {_arguments_said(exc.__cause__)}")) from None
            raise ToolError(redact(_echo_shortened(str(exc), arguments))) from None
        if isinstance(result, CallToolResult):
            redactor = current_redactor()
            for block in result.content:
                if isinstance(block, TextContent):
                    block.text = redactor(block.text)
            if result.structured_content is not None:
                result.structured_content = _redacted(result.structured_content, redactor)
        return result


def _known_arguments(tool: Any, name: str, arguments: dict[str, Any]) -> None:
    """Refuse an argument the tool does not take, in one line: the SDK drops it in silence, so ``tune(path=...,
    dry_run=true)`` or a misspelt ``validate(previuos=1)`` ran as if it were not there (newuser8, n38).

    Raises:
        ToolError: an argument no parameter of the tool's schema names (an unknown tool is the SDK's to say).
    """
    if tool is None:
        return
    takes = list((tool.parameters or {}).get("properties", {}))
    unknown = sorted(k for k in arguments or {} if k not in takes)
    if unknown:
        raise ToolError(
            redact(f"{name}: bad arguments: {', '.join(unknown)}: no such argument; {name} takes {', '.join(takes)}")
        )


ECHO_CHARS = 120
"""A refusal quotes at most this many characters of one argument too long to be a path: ``evidence(kernel=<200 kB>)``
was refused with a line of 200 kB ("no kernel matches '<the whole argument>'"), into the agent's context."""


def _echo_shortened(text: str, arguments: dict[str, Any]) -> str:
    """``text`` with each string argument that no path can be (:func:`~kernelopt.destination.may_be_path`)
    that it quotes cut to its first :data:`ECHO_CHARS` characters and its length (``'kkkk...' (200000 characters)``);
    the refusal's own words, and a path it names, are kept whole (a 259-character path was cut to its first 120,
    "... (259 characters)", and the refusal no longer said which file: leftovers28 l185)."""
    values = [v for v in _strings(arguments) if not may_be_path(v)]
    for value in sorted(values, key=len, reverse=True):
        text = text.replace(value, f"{value[:ECHO_CHARS]}... ({len(value)} characters)")
    return text


def _strings(value: Any) -> list[str]:
    """Every string in ``value`` (JSON arguments)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _redacted(value: Any, redactor: Redactor | None = None) -> Any:
    """``value`` (JSON data) with every string redacted (one redactor for the whole value: building it reads the
    environment, which per string made the report's data, thousands of strings, cost seconds)."""
    use = redactor or current_redactor()
    if isinstance(value, str):
        return use(value)
    if isinstance(value, dict):
        return {k: _redacted(v, use) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v, use) for v in value]
    return value


def _arguments_said(exc: ValidationError) -> str:
    """``before: input should be a valid integer; workspace: field required`` (each error's place and message)."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(x) for x in error["loc"]) or "arguments"
        parts.append(f"{where}: {error['msg'][:1].lower()}{error['msg'][1:]}")
    return "; ".join(parts)


CLIENT_TIMEOUTS = "Claude Code's MCP_TOOL_TIMEOUT (ms), Codex's tool_timeout_sec"
"""Where the two tested clients set how long they wait for one call (Claude Code 2.1.197, Codex 0.171.0): at that
limit each cancels the call (``notifications/cancelled``), and the server stops it."""


CANCELLED_LEFT = {
    "profile": "its stage was rolled back; the next profile runs it again",
    "validate": "its stage was rolled back; your edit is kept, and the next validate runs it again",
    "tune": "the session's record keeps the candidates it evaluated; the same tune again serves them",
}
"""What a cancelled call left, by tool (the loop rolls a stage back as after Ctrl-C; a tuning session keeps its
record)."""


class _Cancels:
    """The last call on each workspace (or tuned folder) that the client cancelled, for ``status``: at its tool
    timeout a client cancels the call and tells the model only "timed out" (Claude Code: "tool "profile" timed out
    after 4s"), so an agent whose timeout is shorter than V0's gate called ``profile`` again and again, each call
    rolled back, with nothing saying why. The next long call (profile, validate, tune) on the same folder drops the
    note when it starts."""

    def __init__(self) -> None:
        self._notes: dict[str, str] = {}
        self._lock = threading.Lock()

    def start(self, folder: Path) -> None:
        with self._lock:
            self._notes.pop(str(folder), None)

    def cancelled(self, folder: Path, tool: str, seconds: float) -> None:
        kept = CANCELLED_LEFT.get(tool, "it stopped where it was")
        note = (
            f"the last {tool} call was cancelled by the client after {seconds:.0f} s and stopped ({kept}); a client "
            f"cancels a call at its tool timeout ({CLIENT_TIMEOUTS}): if that was it, raise it past the call's "
            f"length and call {tool} again"
        )
        with self._lock:
            self._notes[str(folder)] = note

    def note(self, folder: Path) -> str | None:
        with self._lock:
            return self._notes.get(str(folder))


def build_server(roots: Roots, *, default_device: str | None = None) -> MCPServer:
    """The MCP server with every tool; ``default_device`` (``cpu``/``cuda``) is the default of the stage tools."""
    server = _Server(name="kernelopt", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    lock = anyio.Lock()
    settled = threading.Event()  # cleared while a cancelled call rolls its stage back
    settled.set()
    repairs: dict[tuple[str, int | None], int] = {}  # (workspace, version) -> edits sent back to the agent
    cancels = _Cancels()

    def noted(tool: str, folder: list[Path]) -> Callable[[float], None]:
        """The ``on_cancel`` of a long call on the folder it resolves (``folder``, filled once it is known)."""
        return lambda seconds: cancels.cancelled(folder[0], tool, seconds) if folder else None

    def folder_of(path: str, what: str) -> Path:
        """``path`` under a root; a name without its ``kernel_opt_`` prefix is the workspace of that name."""
        folder = roots.confine(path, what)
        if not (folder / "kernel.py").is_file() and not folder.name.startswith(PREFIX):
            named = roots.confine(Path(folder.parent) / f"{PREFIX}{folder.name}", what)
            folder = named if named.is_dir() else folder
        return folder

    def open_ws(path: str) -> Workspace:
        return drive.open_workspace(folder_of(path, "workspace"))

    @server.tool()
    async def init(
        name: Annotated[str, Field(description="Workspace name: creates <root>/kernel_opt_<name>/.")],
        kernel: Annotated[str, Field(description="The kernel file (becomes kernel.py).")],
        reference: Annotated[str, Field(description="The reference file (becomes reference.py).")],
        root: Annotated[str | None, Field(description="Parent folder (default: the first root).")] = None,
        task_card: Annotated[str | None, Field(description="README.md with front matter.")] = None,
    ) -> InitResult:
        """Stage 0: create a workspace (kernel.py, reference.py, README.md task card, test_kernel.py, git)."""

        def run() -> InitResult:
            from kernelopt.harness.infer import shapes_by_code
            from kernelopt.loop.opening import card_beside, fill_new_card
            from kernelopt.workspace import validate_name

            parent = roots.output(root or roots.folders[0], "root")
            k = roots.confine(kernel, "kernel")
            r = roots.confine(reference, "reference")
            card = roots.confine(task_card, "task card") if task_card else card_beside(k)
            target = parent / f"{PREFIX}{validate_name(name)}"
            if target.exists():  # the CLI's hint (--force) is no argument here
                raise UsageError(f"init: {target} already exists: choose another name, or continue it (status)")
            notes: list[str] = []
            if Path(r).is_file():  # a SHAPES built by code that names no case: refused before anything is made
                shapes_by_code(Path(r), device=default_device)
            with RunLock(target, command="mcp"):
                ws = Workspace.create(name, kernel=k, reference=r, root=parent, task_card=card)
                for found in fill_new_card(ws, device=default_device, announce=notes.append):
                    notes.append(found.line())
            notes += ws.task_card().warnings()
            return InitResult(workspace=str(ws.root), commit=ws.head(), kernel_form=ws.kernel_form().value, notes=notes)

        return await _call(run, lock=lock)

    @server.tool()
    async def status(workspace: WS) -> drive.StageStatus:
        """The next stage of the workspace and why (reads only)."""

        def run() -> drive.StageStatus:
            ws = open_ws(workspace)
            now = drive.status(ws)
            note = cancels.note(ws.root)
            return now.model_copy(update={"cancelled": note, "why": f"{note}; {now.why}"}) if note else now

        return await _read(run, settled=settled)

    @server.tool()
    async def profile(
        ctx: Context,
        workspace: Annotated[str | None, Field(description="The workspace to profile.")] = None,
        command: Annotated[
            list[str] | None, Field(description="Or: a command with its arguments to profile with Nsight Compute.")
        ] = None,
        out: Annotated[str | None, Field(description="With command: the folder for its report (under a root).")] = None,
        kernel_regex: Annotated[str | None, Field(description="With command: kernels to profile (regex).")] = None,
        launch_skip: Annotated[int, Field(ge=0, description="With command: matching launches to skip.")] = 0,
        launch_count: Annotated[int, Field(ge=1, description="With command: matching launches to profile.")] = 1,
        device: DEVICE = None,
    ) -> drive.StepResult:
        """Stage 1 of a workspace (V0 is gated and committed first), up to the plan; or profile a command."""
        if (workspace is None) == (command is None):
            raise _refuse(UsageError("profile: give a workspace, or a command with its arguments (one of them)"))

        def run(report: Callable[[str], None]) -> drive.StepResult:
            if command is not None:
                from kernelopt.agents.command_profile import profile_command
                from kernelopt.agents.evidence_digest import digest, whole_evidence

                if out is None:
                    raise UsageError("profile: a command needs out, the folder for its report (under a root)")
                target = roots.output(out, "out")
                summary = profile_command(
                    list(command), target, kernel_regex=kernel_regex, launch_skip=launch_skip, launch_count=launch_count
                )
                return drive.StepResult(profile=digest(summary, more=whole_evidence(target)), status=None)
            assert workspace is not None
            ws = open_ws(workspace)
            cancels.start(ws.root)
            folder.append(ws.root)
            return drive.profile(ws, device=device or default_device, on_event=_on_event(report))

        folder: list[Path] = []
        return await _long(
            ctx,
            run,
            lock=lock,
            settled=settled,
            what="profile",
            device_argument=True,
            on_cancel=noted("profile", folder),
        )

    @server.tool()
    async def evidence(
        path: Annotated[
            str, Field(description=".ncu-rep, ncu CSV, profiles/v<N>/ folder or summary.json (under a root).")
        ],
        kernel: Annotated[str | None, Field(description="Only kernels matching this name / regex / #ID.")] = None,
        full: Annotated[
            bool,
            Field(
                description="The whole evidence (every metric, finding, profiler rule and hotspot: tens of kB for a "
                "real report) instead of the digest (each kernel's key metrics and top findings with their values)."
            ),
        ] = False,
    ) -> EvidenceResult:
        """Read any report as evidence: per kernel the bottleneck, key metrics with units, top findings (evidence ->
        inference -> action), profiler rules and hotspots; full=true for everything."""
        from kernelopt.agents.evidence_digest import digest, whole_evidence
        from kernelopt.profiling import read_evidence

        def run() -> EvidenceResult:
            summary = read_evidence(roots.confine(path, "report"), kernel=kernel)
            if full:
                return EvidenceResult(summary=summary)
            return EvidenceResult(digest=digest(summary, more=whole_evidence(path, kernel=kernel)))

        return await _read(run, settled=settled)

    @server.tool()
    async def compare(
        workspace: Annotated[str | None, Field(description="With before/after versions.")] = None,
        before: Annotated[int | None, Field(ge=0, description="A version of the workspace (profiles/v<N>).")] = None,
        after: Annotated[int | None, Field(ge=0, description="Another version.")] = None,
        before_path: Annotated[str | None, Field(description="Or: a report or profile folder.")] = None,
        after_path: Annotated[str | None, Field(description="And the other report or profile folder.")] = None,
        kernel: Annotated[str | None, Field(description="Only kernels matching this.")] = None,
        full: Annotated[
            bool,
            Field(description="Every metric's change (tens of kB for real reports) instead of the digest."),
        ] = False,
    ) -> CompareResult:
        """The change between two versions or two reports: per kernel pair the bottleneck, the key metrics before and
        after, the largest changes and the symptoms gained or lost; full=true for every metric."""

        def run() -> CompareResult:
            from kernelopt.agents.evidence_digest import diff_digest
            from kernelopt.evidence.diff import diff_summaries
            from kernelopt.profiling import read_evidence

            if before_path is not None and after_path is not None:
                a, b = roots.confine(before_path, "report"), roots.confine(after_path, "report")
            elif workspace is not None and before is not None and after is not None:
                ws = open_ws(workspace)
                a, b = ws.profile_dir(before), ws.profile_dir(after)
                for n, folder in ((before, a), (after, b)):
                    if not folder.is_dir():
                        raise UsageError(f"compare: {ws.root.name} has no version {n} (no profiles/v{n}/)")
            else:
                raise UsageError("compare: give workspace with before and after, or before_path and after_path")
            diff = diff_summaries(
                read_evidence(a, kernel=kernel), read_evidence(b, kernel=kernel), before_name=str(a), after_name=str(b)
            )
            if full:
                return CompareResult(diff=diff)
            return CompareResult(digest=diff_digest(diff, more="every metric's change: the same call with full=true"))

        return await _read(run, settled=settled)

    @server.tool()
    async def wiki_search(
        query: Annotated[
            str, Field(max_length=QUERY_CHARS, description="Metric names, stall reasons, symptom ids, words.")
        ],
        arch: Annotated[str | None, Field(description="sm_90, gfx942, a family or a GPU.")] = None,
        vendor: Annotated[str | None, Field(description="nvidia or amd.")] = None,
        framework: Annotated[str | None, Field(description="triton, cuda, hip or torch.")] = None,
        limit: Annotated[
            int, Field(ge=1, le=WIKI_HITS, description="How many records (each whole, about 2 kB).")
        ] = WIKI_DEFAULT_HITS,
    ) -> WikiHits:
        """Search the gpu-wiki (the first source of every plan's Search Log)."""
        from kernelopt.wiki.search import search

        return await _read(
            lambda: WikiHits(hits=search(query, arch=arch, vendor=vendor, framework=framework, limit=limit))
        )

    @server.tool()
    async def wiki_spec(gpu: Annotated[str, Field(description="A GPU's id, name or alias (H200, MI300X).")]) -> GpuSpec:
        """A GPU's spec sheet with sources; an unknown GPU is refused, never a sibling's numbers."""
        from kernelopt.hardware.specs import lookup

        return await _read(lambda: lookup(gpu))

    @server.tool()
    async def submit_plan(
        workspace: WS,
        plan: Annotated[
            str, Field(max_length=PLAN_CHARS, description="The plan file's Markdown (front matter + sections).")
        ],
    ) -> drive.StepResult:
        """Stage 2: the plan, checked by the planner's rules (cites profiles/v<N>/, one action, new); refused
        with nothing written, or written to plans/v<N>_plan.md."""

        return await _call(lambda: drive.submit_plan(open_ws(workspace), plan, device=default_device), lock=lock)

    @server.tool()
    async def validate(
        ctx: Context,
        workspace: WS,
        description: Annotated[
            str | None,
            Field(max_length=LINE_CHARS, description="Your edit in one line (default: the plan's action)."),
        ] = None,
    ) -> drive.StepResult:
        """Stage 3's check of your edit (the guard: kernel.py and the plan's files only; correctness at once),
        then Stage 4, the gate: PASS, FAIL or TIMEOUT_FAIL."""

        def run(report: Callable[[str], None]) -> drive.StepResult:
            ws = open_ws(workspace)
            cancels.start(ws.root)
            folder.append(ws.root)
            key = (str(ws.root), drive.status(ws).version)
            try:
                return drive.validate(
                    ws,
                    device=default_device,
                    description=description,
                    on_event=_on_event(report),
                    repairs_used=repairs.get(key, 0),
                )
            except drive.EditFailsItsCheck:
                repairs[key] = repairs.get(key, 0) + 1
                raise

        folder: list[Path] = []
        return await _long(ctx, run, lock=lock, settled=settled, what="validate", on_cancel=noted("validate", folder))

    @server.tool()
    async def record(workspace: WS) -> drive.StepResult:
        """Stage 5: commit a PASS as V<N>; a failure restores kernel.py and commits a revert marker. Then Stage 6."""
        return await _call(lambda: drive.record(open_ws(workspace), device=default_device), lock=lock)

    @server.tool()
    async def tune(
        ctx: Context,
        path: Annotated[str, Field(description="A folder with kernel.py and reference.py (a workspace too).")],
        kernel: Annotated[str | None, Field(description="Which launch (default: the one with the most knobs).")] = None,
        budget: Annotated[int | None, Field(ge=1, description="Candidates to evaluate.")] = None,
        budget_wall_s: Annotated[float | None, Field(gt=0, description="Wall-time budget, seconds.")] = None,
        device: DEVICE = None,
    ) -> TuneResult:
        """The tuning engine on a launch configuration; kernel.py is not written: put the winner in a plan."""

        def run(report: Callable[[str], None]) -> TuneResult:
            from kernelopt.backends.session_files import write_table
            from kernelopt.kernelsource import why_missing
            from kernelopt.tuning.folder import TuneRequest, best_edit, prepare_folder, summarize, tune_folder

            folder = folder_of(path, "path")
            if not folder.is_dir():  # "nope holds no kernel.py" was said of a folder that is not there
                raise UsageError(f"tune: {path}: {why_missing(folder, 'folder')}")
            for name in ("kernel.py", "reference.py"):
                if not (folder / name).is_file():
                    said = f"{path} holds no {name}" if why_missing(folder / name) == "no such file" else None
                    raise UsageError(f"tune: {said or f'{folder / name}: {why_missing(folder / name)}'}")
            cancels.start(folder)
            tuned.append(folder)
            request = TuneRequest(
                folder=folder,
                device=device or default_device,
                kernel=kernel,
                budget=budget,
                budget_wall_s=budget_wall_s,
            )
            # the folder's run lock, as `kernelopt tune` takes it: a tune beside an optimize of the same workspace
            # read a kernel.py that run was editing, and each timed the other's noise (a task folder's in the shared
            # lock folder, as tune's: beside it, it showed in the user's `git status`; late27, z50)
            with folder_lock(folder, command="mcp tune", hint="wait for it or stop it"):
                prepared = prepare_folder(request)
                tuning = tune_folder(
                    prepared,
                    on_progress=lambda p: report(p.line()),
                )
            edit = best_edit(tuning) if tuning.judgement.better else None
            return TuneResult(
                summary=summarize(tuning),
                judgement=tuning.judgement.reason,
                diff=edit.diff if edit else "",
                kernel_py=str(prepared.problem.kernel_py),
                table=str(write_table(tuning)),
            )

        tuned: list[Path] = []
        return await _long(
            ctx, run, lock=lock, settled=settled, what="tune", device_argument=True, on_cancel=noted("tune", tuned)
        )

    @server.tool()
    async def memory_summary(
        workspace: WS,
        include_masked: bool = False,
    ) -> MemorySummary:
        """Every version's figures, verdict, action and commit (read before planning: no action twice)."""
        from kernelopt.memory.summary import summary_rows

        def run() -> MemorySummary:
            ws = open_ws(workspace)
            rows = summary_rows(list(ws.memory.records(include_masked=include_masked)))
            return MemorySummary(workspace=str(ws.root), rows=rows, note=None if rows else drive.no_rows(ws))

        return await _read(run, settled=settled)

    @server.tool()
    async def report(
        workspace: WS,
        section: Annotated[
            ReportPart,
            BeforeValidator(_report_part),
            WithJsonSchema({"type": "string", "enum": [p.value for p in REPORT_PARTS]}),  # one flat list for clients
            Field(
                description="summary (default: versions, speedups over V0 and the reference, gate results, where "
                "the full report is), one section ("
                + ", ".join(p.value for p in Section if p is not Section.SUMMARY)
                + "), full (the whole Markdown) or data (every figure as JSON)."
            ),
        ] = Section.SUMMARY,
        version: Annotated[
            int | None, Field(ge=0, description="With section=evidence: only this version's evidence.")
        ] = None,
        markdown: Annotated[
            str | None, Field(description="Also write the Markdown report here (a .md file outside any workspace).")
        ] = None,
        html: Annotated[
            str | None,
            Field(description="Also write a self-contained HTML report here (.html, outside any workspace)."),
        ] = None,
    ) -> ReportResult:
        """The workspace's report: by default a digest of a few kB; a section, the full text or the data on
        request. The full Markdown report is written to the workspace's .kernelopt/report.md at every call."""

        def run() -> ReportResult:
            from kernelopt.agents.report_digest import digest, missing_version
            from kernelopt.fileio import ReadOnlyRefused, atomic_write_text
            from kernelopt.loop.report_state import add_run_state
            from kernelopt.report import collect, write_reports
            from kernelopt.report.files import ReportFormat
            from kernelopt.report.markdown import markdown_report, markdown_section

            ws = open_ws(workspace)
            if version is not None and section is not Section.EVIDENCE:
                raise UsageError(f"report: version goes with section=evidence, not section={section.value}")
            md = roots.report(markdown, "markdown", ReportFormat.MARKDOWN) if markdown else None
            page = roots.report(html, "html", ReportFormat.HTML) if html else None
            data = collect(ws)
            if version is not None and (missing := missing_version(data, version)) is not None:
                raise UsageError(f"report: {ws.root.name} {missing}")  # was a success of "No record of V9." (n159)
            add_run_state(ws, data)
            written = write_reports(data, markdown=md, html=page)
            whole = markdown_report(data)
            full: Path | None = ws.state_dir / REPORT_FILE
            try:
                atomic_write_text(full, whole)
                where = f"the full report: {full} (read it), or call"
            except (OSError, ReadOnlyRefused) as exc:  # a full or read-only workspace is still reported on
                refused = exc if isinstance(exc, ReadOnlyRefused) else disk_problem(exc)
                if refused is None:
                    raise
                full, where = None, f"the full report was not written ({refused.one_line()}): call"
            result = ReportResult(
                section=section,
                full_report=str(full) if full else None,
                written={k: str(v) for k, v in written.items()},
            )
            if section is Section.SUMMARY:
                more = (
                    f"{where} report with section="
                    + "|".join(p.value for p in REPORT_PARTS if p is not Section.SUMMARY)
                    + " (evidence with version=N: one version's)"
                )
                result.summary = digest(data, more=more)
            elif section is WholeReport.FULL:
                result.markdown = whole
            elif section is WholeReport.DATA:
                result.report = data
            else:
                result.markdown = "\n".join(markdown_section(data, section, version=version)) + "\n"
            return result

        return await _call(run, lock=lock)

    return server


def serve(roots: Roots, *, device: str | None = None) -> None:
    """Run the server on stdin/stdout until the client closes it. The SDK logs warnings to stderr (the client's
    log of the server); its handlers pass nothing below that, since the knowledge search's index library sets
    its own logger to DEBUG (a line per search)."""
    import logging

    server = build_server(roots, default_device=device)  # the SDK's handlers are set up here
    for handler in logging.getLogger().handlers:
        handler.setLevel(logging.WARNING)
    server.run("stdio")
