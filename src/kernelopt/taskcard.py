"""The workspace task card: ``README.md`` with YAML front matter, then free text.

Front matter keys (all optional): ``name``, ``platform`` (``nvidia``/``amd``), ``gpu``, ``framework``
(``triton``/``cuda``/``hip``/``torch``), ``kernel_form`` (``function``/``kernelbench``), ``kernel_type``,
``dtype`` (a dtype of :func:`kernelopt.hardware.specs.normalize_dtype`), ``reference_project`` (a local
folder or ``none``), ``stop_conditions``, ``isa_targets`` (metric -> target such as ``">=128"``),
``budget``, ``budget_fraction``, ``budget_wall_s`` (the tuning engine's budget of one session: a count of
candidates or a fraction of the fit-pruned space, and wall seconds; default max(24, 1/5 of the space) and
600 s; ``search_budget`` is the older name of ``budget``),
``compile_reference`` (also time ``torch.compile(reference)``), ``sizes`` (module-level size constants of
reference.py to override, name -> number) and ``size_scale`` (scale the other size constants down for a
quick run, ``0 < size_scale <= 1``).

A value outside its accepted range or vocabulary is an error when the card is read (one line naming the
file, the field, the value and what is accepted). Numbers are finite: YAML's ``.inf`` and ``.nan`` are
refused in every field (``budget_wall_s: .inf`` passed ``> 0`` and gave a session without a wall limit).
A ``gpu`` without a spec sheet is not an error: the loop runs on any GPU against the ceilings measured
there, and only the spec-peak half of the roofline is missing, so :meth:`TaskCard.warnings` says it and
the CLI shows it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import annotated_types
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import ErrorDetails

from kernelopt import frontmatter
from kernelopt.errors import KerneloptError, WorkspaceError
from kernelopt.hardware.specs import lookup, normalize_dtype
from kernelopt.kernelsource import KernelForm
from kernelopt.vocabulary import DTYPES, FRAMEWORKS, VENDORS


class StopConditions(BaseModel):
    """When Stage 6 stops the loop. The default is the spec's: 90 % of the roofline bound.

    Attributes:
        roofline_utilization_pct: stop when latency reaches this share of the roofline bound.
        target_latency_us: stop when the median latency is at or below this.
        target_speedup: stop when the speedup over V0 reaches this factor.
        target_speedup_vs_reference: stop when the speedup over the reference implementation reaches this.
        max_iterations: stop after this many iterations (V1..Vk).
        max_wall_time_min: stop after this many minutes of loop wall time.
        max_consecutive_failures: stop after this many failed iterations in a row.
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    roofline_utilization_pct: float = Field(default=90.0, gt=0, le=100)
    target_latency_us: float | None = Field(default=None, gt=0)
    target_speedup: float | None = Field(default=None, gt=0)
    target_speedup_vs_reference: float | None = Field(default=None, gt=0)
    max_iterations: int | None = Field(default=None, ge=0)
    max_wall_time_min: float | None = Field(default=None, gt=0)
    max_consecutive_failures: int = Field(default=3, ge=1)


_VOCABULARY: dict[str, tuple[str, ...]] = {
    "platform": VENDORS,
    "framework": FRAMEWORKS,
    "kernel_form": tuple(f.value for f in KernelForm),
}


def _accepted_range(model: type[BaseModel], loc: tuple[int | str, ...]) -> str | None:
    """``"> 0 and <= 100"`` from the numeric constraints of field ``loc`` of ``model``, or None."""
    field = None
    for part in loc:
        if field is not None:
            sub = field.annotation
            if not (isinstance(sub, type) and issubclass(sub, BaseModel)):
                return None
            model = sub
        field = model.model_fields.get(str(part))
        if field is None:
            return None
    if field is None:
        return None
    words = (
        (annotated_types.Gt, "gt", ">"),
        (annotated_types.Ge, "ge", ">="),
        (annotated_types.Lt, "lt", "<"),
        (annotated_types.Le, "le", "<="),
    )
    bounds = [
        f"{sign} {getattr(meta, attr)}"
        for meta in field.metadata
        for kind, attr, sign in words
        if isinstance(meta, kind)
    ]
    return " and ".join(bounds) or None


def _allowed_keys(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The keys the (sub-)model at ``loc`` accepts (``stop_conditions`` -> its conditions), or []."""
    for part in loc:
        field = model.model_fields.get(str(part))
        sub = field.annotation if field is not None else None
        if not (isinstance(sub, type) and issubclass(sub, BaseModel)):
            return []
        model = sub
    return sorted(model.model_fields)


def _problem(err: ErrorDetails) -> str:
    """``'stop_conditions.target_latency_us' = -5: must be > 0`` for one pydantic error of a task card."""
    loc = err["loc"]
    where = ".".join(str(p) for p in loc)
    value = f" = {err['input']!r}" if err["type"] not in ("missing", "extra_forbidden") else ""
    accepted = _accepted_range(TaskCard, loc)
    if accepted and err["type"] in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        return f"'{where}'{value}: must be {accepted}"
    if err["type"] == "finite_number":  # YAML's .inf / .nan
        return f"'{where}'{value}: must be a finite number" + (f" {accepted}" if accepted else "")
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        allowed = _allowed_keys(TaskCard, loc[:-1])
        if allowed:
            return f"'{where}': unknown key (allowed: {', '.join(allowed)})"
    return f"'{where}'{value}: {msg}" + (f" (accepted: {accepted})" if accepted else "")


class TaskCard(BaseModel):
    """The parsed front matter of a workspace README.md, plus its free text."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    name: str | None = None
    platform: str | None = None
    gpu: str | None = None
    framework: str | None = None
    kernel_form: str | None = None
    kernel_type: str | None = None
    dtype: str | None = None
    reference_project: str | None = None
    stop_conditions: StopConditions = Field(default_factory=StopConditions)
    isa_targets: dict[str, str | int | float] = Field(default_factory=dict)
    search_budget: int | None = Field(default=None, ge=1)
    budget: int | None = Field(default=None, ge=1)
    budget_fraction: float | None = Field(default=None, gt=0, le=1)
    budget_wall_s: float | None = Field(default=None, gt=0)
    compile_reference: bool = False
    sizes: dict[str, int | float] = Field(default_factory=dict)
    size_scale: float | None = Field(default=None, gt=0, le=1)
    body: str = Field(default="", exclude=True)

    @field_validator("search_budget", "budget", "budget_fraction", "budget_wall_s", "size_scale", mode="before")
    @classmethod
    def _a_number(cls, value: object) -> object:
        """A number is a number: YAML's ``true`` / ``false`` are not 1 and 0 (``budget: true`` ran a session of one
        candidate; second fault trial of tune)."""
        if isinstance(value, bool):
            raise ValueError(f"a number, not {str(value).lower()}")
        return value

    @field_validator("platform", "framework", "kernel_form")
    @classmethod
    def _known_word(cls, value: str | None, info: Any) -> str | None:
        """``platform``, ``framework`` and ``kernel_form`` are words of a fixed vocabulary (case ignored)."""
        if value is None:
            return None
        accepted = _VOCABULARY[info.field_name]
        word = value.strip().lower()
        if word not in accepted:
            raise ValueError(f"unknown {info.field_name} {value!r}; accepted: {', '.join(accepted)}")
        return word

    @field_validator("dtype")
    @classmethod
    def _known_dtype(cls, value: str | None) -> str | None:
        """A dtype :func:`~kernelopt.hardware.specs.normalize_dtype` knows (``fp16``, ``bfloat16`` ...), as written."""
        if value is None:
            return None
        try:
            normalize_dtype(value)
        except KerneloptError:
            raise ValueError(f"unknown dtype {value!r}; accepted: {', '.join(DTYPES)} or their torch names") from None
        return value

    def warnings(self) -> list[str]:
        """What is valid but will limit the run: a ``gpu`` with no spec sheet (no spec-peak roofline, and the
        tuning's fit pruning without the GPU's shared memory). A ``--gpu`` flag with such a name is an error
        (:func:`~kernelopt.hardware.specs.lookup`); a card's may be a GPU the machine names, so it is said."""
        out = []
        if self.gpu:
            try:
                lookup(self.gpu)
            except KerneloptError as exc:
                out.append(
                    f"task card gpu {self.gpu!r} has no spec sheet ({exc.hint or exc.one_line()}): the roofline "
                    "uses the measured ceilings only, and tuning prunes by the limits that need no spec sheet"
                )
        return out

    @classmethod
    def parse(cls, text: str, *, origin: str = "README.md") -> TaskCard:
        """Parse README text (front matter optional).

        Raises:
            WorkspaceError: the front matter is not valid YAML or has invalid values.
        """
        try:
            front, body = frontmatter.split(text)
        except frontmatter.FrontMatterError as exc:
            raise WorkspaceError(f"{origin}: {exc}") from None
        try:
            card = cls.model_validate(front)
        except ValidationError as exc:
            raise WorkspaceError(f"{origin}: front matter {_problem(exc.errors()[0])}") from None
        card.body = body
        return card

    @classmethod
    def load(cls, path: Path) -> TaskCard:
        """Read and parse the task card at ``path``.

        Raises:
            WorkspaceError: the file is not UTF-8 text, or :meth:`parse` rejects it.
        """
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise WorkspaceError(
                f"{path}: not UTF-8 text (byte {exc.start} is 0x{exc.object[exc.start]:02x})",
                hint="save the task card as UTF-8",
            ) from None
        return cls.parse(text, origin=str(path))

    def render(self) -> str:
        """Front matter + body, the text of README.md."""
        return frontmatter.join(self.model_dump(mode="json", exclude_none=True), self.body)

    @property
    def reference_project_path(self) -> Path | None:
        """The reference project folder, or ``None`` when unset or ``none``."""
        if not self.reference_project or self.reference_project.strip().lower() == "none":
            return None
        return Path(self.reference_project).expanduser()


def folder_framework(folder: Path) -> str | None:
    """What the kernel of a task folder or workspace is written in, as far as ``--device cpu`` asks: its task card's
    ``framework``; where the card names none (a plain folder, or a README.md that is no card), ``cuda`` when its
    kernel.py is CUDA code (:func:`~kernelopt.kernelsource.detect_framework`, the rule ``init`` writes the card by),
    else ``None`` (newuser18's n109: a CUDA extension in a plain folder was run on the CPU into "CUDA_HOME environment
    variable is not set")."""
    from kernelopt.kernelsource import Framework, detect_framework

    card = folder / "README.md"
    framework = TaskCard.load(card).framework if card.is_file() else None
    kernel = folder / "kernel.py"
    if framework is None and kernel.is_file() and detect_framework(kernel) is Framework.CUDA:
        return Framework.CUDA.value
    return framework


def cpu_refusal(framework: str | None) -> str | None:
    """The line that refuses ``--device cpu`` for a kernel written in ``framework`` (CUDA and HIP kernels launch on a
    GPU driver; the CPU path times torch's CPU ops and Triton in its interpreter), ``None`` for one it runs: said by
    ``optimize`` and ``tune`` (exit 2) and by a batch's row (``INVALID``) alike."""
    if framework in ("cuda", "hip"):
        return f"--device cpu cannot run this {framework} kernel: it launches on a GPU driver"
    return None
