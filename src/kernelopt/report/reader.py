"""Read a workspace into :class:`~kernelopt.report.model.ReportData` (the report's only I/O).

Sources: ``memory/v<N>.json`` through the memory store (masked records included and marked; a record
that cannot be read is listed, not fatal), ``plans/v<N>_plan.md`` (path and title),
``profiles/v<N>/summary.json`` through :func:`kernelopt.evidence.summary.read_summary`, the git log,
the task card, the GPU spec sheet (:mod:`kernelopt.hardware.specs`) and, when the harness has cached
them, the ceilings measured on the machine (``kernelopt ceilings``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kernelopt import frontmatter
from kernelopt.errors import KerneloptError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.evidence.summary import SUMMARY_JSON, read_summary
from kernelopt.hardware.ceilings import cached_ceilings
from kernelopt.hardware.specs import GpuSpec, lookup, normalize_dtype, normalize_name
from kernelopt.harness.roofline import Ceilings
from kernelopt.report.model import (
    CPU_DEVICE,
    Ceiling,
    CeilingKind,
    CeilingOrigin,
    MeasuredDevice,
    ReportData,
    VersionEntry,
)
from kernelopt.workspace import Workspace, version_commit

# The git history shown in a report: enough for any realistic run (one or two commits per version).
GIT_LOG_LIMIT = 500


class NotGiven:
    """Marker: the caller did not pass measured ceilings, so the harness cache is asked."""


NOT_GIVEN = NotGiven()


def spec_ceilings(gpu: str | None, dtype: str | None) -> tuple[GpuSpec | None, list[Ceiling], str | None]:
    """The spec sheet's compute roof for ``dtype`` and memory roof, each with its citation.

    Returns:
        (sheet or None, ceilings, problem): ``problem`` says why a roof is missing (no GPU named,
        unknown GPU, no dtype, figure unpublished); figures are never borrowed from a sibling GPU.
    """
    if not gpu:
        return None, [], "no GPU named in the task card or the records"
    try:
        spec = lookup(gpu)
    except KerneloptError as exc:
        return None, [], exc.one_line()
    out: list[Ceiling] = []
    problems: list[str] = []
    bw = spec.memory_bandwidth_gbps
    if bw:
        out.append(
            Ceiling(
                kind=CeilingKind.MEMORY,
                origin=CeilingOrigin.SPEC,
                label="HBM bandwidth",
                value=bw,
                unit="GB/s",
                source=spec.cite("memory_bandwidth_gbps"),
            )
        )
    else:
        problems.append(f"{spec.name} publishes no memory bandwidth")
    if dtype:
        figure = f"peak_tflops_{dtype}"
        peak = spec.figures[figure].value if figure in spec.figures else None
        if peak:
            out.append(
                Ceiling(
                    kind=CeilingKind.COMPUTE,
                    origin=CeilingOrigin.SPEC,
                    label=f"{dtype} peak",
                    value=peak,
                    unit="TFLOP/s",
                    source=spec.cite(figure),
                )
            )
        else:
            problems.append(f"{spec.name} publishes no dense {dtype} peak")
    else:
        problems.append("no dtype in the task card: no compute roof")
    return spec, out, "; ".join(problems) or None


def measured_ceilings(measured: Ceilings | None, dtype: str | None) -> list[Ceiling]:
    """Ceilings from a ``kernelopt ceilings`` measurement (fastest memory stream; matmul rate for ``dtype``)."""
    if measured is None:
        return []
    where = "measured on this machine by `kernelopt ceilings`"
    extra = [f"{k} {getattr(measured, k)}" for k in ("gpu_name", "driver", "measured_at") if getattr(measured, k, None)]
    if extra:
        where += " (" + ", ".join(extra) + ")"
    out = []
    if measured.memory_gbps:
        stream = str(measured.memory_stream or "memory")
        streams: Mapping[str, float] = getattr(measured, "stream_gbps", None) or {}
        each = ", ".join(f"{k} {v:.0f}" for k, v in streams.items())
        out.append(
            Ceiling(
                kind=CeilingKind.MEMORY,
                origin=CeilingOrigin.MEASURED,
                label=f"{stream} bandwidth",
                value=measured.memory_gbps,
                unit="GB/s",
                source=f"fastest measured stream ({stream}), bytes read + written"
                + (f"; streams GB/s: {each}" if each else "")
                + f"; {where}",
            )
        )
    rate = measured.matmul_tflops.get(dtype) if dtype else None
    if rate:
        out.append(
            Ceiling(
                kind=CeilingKind.COMPUTE,
                origin=CeilingOrigin.MEASURED,
                label=f"{dtype} matmul",
                value=rate,
                unit="TFLOP/s",
                source=f"dense {dtype} matmul; {where}",
            )
        )
    return out


def _same_gpu(measured: Ceilings, spec: GpuSpec) -> bool:
    """True when the measurement names a GPU whose spec sheet is ``spec`` (never a sibling's)."""
    name = getattr(measured, "gpu_name", None)
    if not name:
        return False
    try:
        return lookup(str(name)).id == spec.id
    except KerneloptError:
        return False


def cached_measured_ceilings(spec: GpuSpec | None, names: Sequence[str]) -> tuple[Ceilings | None, str | None]:
    """The harness's cached ceilings for the workspace's GPU, or ``(None, why not)``.

    The cache is keyed by the name the driver reports (``NVIDIA H200``), which the records and
    profiles carry; ``names`` are tried in order, then the GPU of this machine. A measurement counts
    only when its GPU has the same spec sheet as the workspace's. A report never measures anything.
    """
    if spec is None:
        return None, "no spec sheet to match a measurement to"
    for name in [*dict.fromkeys(names), None]:
        found = cached_ceilings(name)
        if found is not None and _same_gpu(found, spec):
            return found, None
    return None, f"no cached measurement for {spec.name} (run `kernelopt ceilings` on it)"


def measured_devices(versions: Sequence[VersionEntry]) -> list[MeasuredDevice]:
    """The devices the versions were timed on (``performance.gpu``), each with its timing methods and versions."""
    found: dict[str, MeasuredDevice] = {}
    for v in versions:
        p = v.record.performance
        if not p.gpu:
            continue
        device = found.setdefault(p.gpu, MeasuredDevice(name=p.gpu))
        method = (p.timing_method or "").split(",")[0].strip()
        if method and method not in device.timing_methods:
            device.timing_methods.append(method)
        device.versions.append(v.label)
    return list(found.values())


def same_gpu(a: str, b: str) -> bool:
    """True when names ``a`` and ``b`` are one GPU: the same spec sheet, or the same name (case, separators)."""
    if normalize_name(a) == normalize_name(b):
        return True
    try:
        return lookup(a).id == lookup(b).id
    except KerneloptError:
        return False


def _plan_title(text: str) -> str | None:
    try:
        _, body = frontmatter.split(text)
    except frontmatter.FrontMatterError:
        body = text
    for line in body.splitlines():
        if line.startswith("# "):
            return line[2:].strip() or None
    return None


def card_dtype(dtype: str | None) -> str | None:
    """The task card's ``dtype`` normalized (``bfloat16`` -> ``bf16``); None when unset or not a dtype."""
    if not dtype:
        return None
    try:
        return normalize_dtype(dtype)
    except KerneloptError:
        return None


def _summary_of(ws: Workspace, n: int) -> tuple[ProfileSummary | None, str | None]:
    """``profiles/v<n>/summary.json``, or why there is none."""
    summary_path = ws.profile_dir(n) / SUMMARY_JSON
    if not summary_path.is_file():
        return None, f"no profiles/v{n}/{SUMMARY_JSON}"
    try:
        return read_summary(summary_path), None
    except KerneloptError as exc:
        return None, exc.one_line()


def _versions(ws: Workspace, log: list[tuple[str, str]]) -> tuple[list[VersionEntry], list[str]]:
    """Every version's record, plan, summary and commit; and the records that could not be read."""
    versions: list[VersionEntry] = []
    unreadable: list[str] = []
    for n in ws.memory.versions():
        try:
            record = ws.memory.read(n)
        except KerneloptError as exc:
            unreadable.append(f"v{n}: {exc.one_line()}")
            continue
        plan = ws.plan_path(n)
        summary, problem = _summary_of(ws, n)
        found_commit = version_commit(n, record.git_commit_hash, log)
        versions.append(
            VersionEntry(
                record=record,
                plan_path=str(plan.relative_to(ws.root)) if plan.is_file() else None,
                plan_title=_plan_title(plan.read_text(encoding="utf-8")) if plan.is_file() else None,
                summary=summary,
                summary_problem=problem,
                commit=found_commit[0] if found_commit else None,
                commit_subject=found_commit[1] if found_commit else None,
            )
        )
    deleted = ws.deleted_records()
    for rel, commit in deleted.items():  # a version whose record was deleted by hand is said, never left in silence
        unreadable.append(
            f"{rel.removeprefix('memory/').removesuffix('.json')}: {ws.root / rel}: deleted since committed; "
            f"restore it ({ws.restore_records({rel: commit})})"
        )
    return versions, unreadable


def _report_gpu(card_gpu: str | None, versions: Sequence[VersionEntry]) -> str | None:
    """The task card's GPU, else the last one a record or a profile names; ``cpu`` (the CPU timing path's name) is
    no GPU: a workspace timed on the CPU alone was reported as "the cpu roofs below are not the roofs of that
    device" and "Spec roofs: unknown GPU 'cpu': no spec sheet; known: amd-mi300x, ...", a GPU the user never named."""
    if card_gpu:
        return card_gpu
    records = [v.record.performance.gpu for v in versions]
    profiles = [v.summary.gpu for v in versions if v.summary]
    for named in (records, profiles):
        gpu = next((n for n in reversed(named) if n and n.strip().lower() != CPU_DEVICE), None)
        if gpu is not None:
            return gpu
    return None


def collect(ws: Workspace, *, measured: Ceilings | NotGiven | None = NOT_GIVEN) -> ReportData:
    """Read everything a report shows from workspace ``ws``.

    Args:
        ws: the workspace.
        measured: measured ceilings to show; by default the harness's cache for the GPU is asked
            (none when it has no measurement); ``None`` shows spec roofs only.

    Raises:
        WorkspaceError: the task card's front matter is invalid.
        GitError: the git log cannot be read.
    """
    card = ws.task_card()
    log = ws.log(max_count=GIT_LOG_LIMIT)
    versions, unreadable = _versions(ws, log)
    gpu = _report_gpu(card.gpu, versions)
    dtype = card_dtype(card.dtype)
    spec, ceilings, spec_problem = spec_ceilings(gpu, dtype)
    if isinstance(measured, NotGiven):
        seen = [v.record.performance.gpu for v in versions] + [v.summary.gpu for v in versions if v.summary]
        found, measured_problem = cached_measured_ceilings(spec, [n for n in seen if n])
    else:
        found, measured_problem = measured, None if measured is not None else "not requested"
    ceilings += measured_ceilings(found, dtype)
    devices = measured_devices(versions)
    return ReportData(
        name=ws.name,
        root=str(ws.root),
        gpu=gpu,
        card_gpu=card.gpu,
        measured_on=devices,
        measured_elsewhere=any(d.is_cpu or gpu is None or not same_gpu(gpu, d.name) for d in devices),
        profiled_on=list(dict.fromkeys(v.summary.gpu for v in versions if v.summary and v.summary.gpu)),
        gpu_spec=spec.name if spec else None,
        spec_problem=spec_problem,
        dtype=dtype,
        kernel_type=card.kernel_type,
        framework=card.framework,
        stop_roofline_pct=card.stop_conditions.roofline_utilization_pct,
        max_iterations=card.stop_conditions.max_iterations,
        ceilings=ceilings,
        measured_problem=measured_problem,
        versions=versions,
        unreadable=unreadable,
        git_log=log,
        has_baseline_report=ws.baseline_report.is_file(),
    )
