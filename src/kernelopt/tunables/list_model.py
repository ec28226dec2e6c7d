"""What an autotune list's author says a valid config is (:class:`ListScreen`), as the workers that screen candidates
read it: data only, no libcst, so a fork server's preload (the bench worker, :mod:`kernelopt.tuning.list_screen`)
does not import the parser that :mod:`kernelopt.tunables.list_filters` reads the filters with."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.tunables.model import AutotuneConfig

#: The options of a ``triton.Config`` beside its kwargs (a loop variable may feed one: ``num_warps=w``).
CONFIG_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")
#: A name bound to the candidate's ``triton.Config`` itself (``filter(keep, ...)``'s argument).
WHOLE_CONFIG = ""


class ListFilter(BaseModel):
    """One filter of an autotune list.

    Attributes:
        text: how the source writes it (``filter(keep, ...)``, ``if BM % BN == 0``), for the reason of a refusal.
        line: its line in kernel.py.
        expression: a Python expression, true for a config the filter keeps, evaluated in the module's namespace
            with ``binds`` set.
        binds: a name the expression reads -> the knob whose value it takes (a kwarg or an option of the
            config), or :data:`WHOLE_CONFIG` for the ``triton.Config`` itself.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    line: int
    expression: str
    binds: dict[str, str] = Field(default_factory=dict)


class ListScreen(BaseModel):
    """What an autotuned kernel's author says a valid config is.

    Attributes:
        kernel: the autotuned kernel's name.
        filters: the list's filters (every one must keep a config).
        prune: the decorator passes ``prune_configs_by`` with an ``early_config_prune``: called with the launch's
            arguments, in the worker, on the candidate's config.
        unread: filters that cannot be evaluated on a candidate, each with why (said once by the session).
        originals: the list as the autotuner holds it (the evaluation's read-back), beside which the prune judges a
            candidate: a prune that keeps none of what it is given falls back on its first (``kept or configs[:1]``),
            which with the candidate alone would always keep it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kernel: str
    filters: tuple[ListFilter, ...] = ()
    prune: bool = False
    unread: tuple[str, ...] = ()
    originals: tuple[AutotuneConfig, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.filters and not self.prune
