"""The workspace task card: ``README.md`` with YAML front matter, then free text.

Front matter keys (all optional): ``name``, ``platform`` (``nvidia``/``amd``), ``gpu``, ``framework``
(``triton``/``cuda``/``hip``/``torch``), ``kernel_type``, ``dtype``, ``reference_project`` (a local
folder or ``none``), ``stop_conditions`` and ``isa_targets`` (metric -> target such as ``">=128"``).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kernelopt import frontmatter
from kernelopt.errors import WorkspaceError


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

    model_config = ConfigDict(extra="forbid")

    roofline_utilization_pct: float = Field(default=90.0, gt=0, le=100)
    target_latency_us: float | None = Field(default=None, gt=0)
    target_speedup: float | None = Field(default=None, gt=0)
    target_speedup_vs_reference: float | None = Field(default=None, gt=0)
    max_iterations: int | None = Field(default=None, ge=0)
    max_wall_time_min: float | None = Field(default=None, gt=0)
    max_consecutive_failures: int = Field(default=3, ge=1)


class TaskCard(BaseModel):
    """The parsed front matter of a workspace README.md, plus its free text."""

    model_config = ConfigDict(extra="allow")

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
    body: str = Field(default="", exclude=True)

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
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"])
            raise WorkspaceError(f"{origin}: front matter '{loc}': {err['msg']}") from None
        card.body = body
        return card

    @classmethod
    def load(cls, path: Path) -> TaskCard:
        return cls.parse(path.read_text(encoding="utf-8"), origin=str(path))

    def render(self) -> str:
        """Front matter + body, the text of README.md."""
        return frontmatter.join(self.model_dump(mode="json", exclude_none=True), self.body)

    @property
    def reference_project_path(self) -> Path | None:
        """The reference project folder, or ``None`` when unset or ``none``."""
        if not self.reference_project or self.reference_project.strip().lower() == "none":
            return None
        return Path(self.reference_project).expanduser()
