"""An autotune list's own filters applied to a candidate, in the worker that loaded it.

The filters are read from the source by :func:`kernelopt.tunables.list_filters.list_screen` (``filter(keep, ...)``,
a comprehension's ``if`` clauses, ``early_config_prune``). A candidate's source pins the list to the configuration
tried, so its module still defines what the filters name (``keep``, ``configs``) while its autotuner holds the
candidate's config(s). :func:`screen_loaded` evaluates each filter on each config the candidate's autotuner holds and
says which one rejects it; :func:`watch_prune` makes the autotuner call its ``early_config_prune`` at the launch (with
one config, Triton's autotuner never does), raising :class:`ScreenedConfig` when it drops the config. Either is an
``INVALID`` result (:func:`kernelopt.tuning.checks.classify`): set aside untimed, not charged, never written.

Runs user code: only worker processes call these functions.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from kernelopt.oneline import one_line
from kernelopt.tunables.autotune_worker import autotuners, base_fn
from kernelopt.tunables.list_model import CONFIG_OPTIONS, WHOLE_CONFIG, ListFilter, ListScreen


class ScreenedConfig(Exception):
    """The candidate's config is one its autotune list's own filter rejects; ``reason`` says which."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _autotuner(module: ModuleType, kernel: str) -> Any | None:
    return next((at for at in autotuners(module) if getattr(base_fn(at), "__name__", None) == kernel), None)


def _config_text(config: Any) -> str:
    kwargs = dict(getattr(config, "kwargs", {}) or {})
    return ", ".join(f"{k}={v}" for k, v in kwargs.items())


def _bound(f: ListFilter, config: Any) -> dict[str, Any] | None:
    """The names ``f`` reads, bound to ``config``'s values; ``None`` when the config holds no value of one."""
    kwargs = dict(getattr(config, "kwargs", {}) or {})
    out: dict[str, Any] = {}
    for name, knob in f.binds.items():
        if knob == WHOLE_CONFIG:
            out[name] = config
        elif knob in kwargs:
            out[name] = kwargs[knob]
        elif knob in CONFIG_OPTIONS and getattr(config, knob, None) is not None:
            out[name] = getattr(config, knob)
        else:
            return None
    return out


def screen_loaded(module: ModuleType, screen: ListScreen) -> str | None:
    """Why a filter of ``screen`` rejects a config the candidate's autotuner holds (``None``: every filter keeps
    every config, or the module holds no autotuner of the kernel)."""
    at = _autotuner(module, screen.kernel)
    if at is None:
        return None
    for config in at.configs:
        for f in screen.filters:
            bound = _bound(f, config)
            if bound is None:
                continue
            try:
                kept = bool(eval(f.expression, {**vars(module), **bound}))
            except NameError:  # a name the source reading took for the module's is not there: no verdict
                continue
            except Exception as exc:  # the filter fails on this config: the list as written could not hold it
                error = one_line(f"{type(exc).__name__}: {exc}", 160)
                return f"the autotune list's own filter `{f.text}` (kernel.py:{f.line}) raised on it ({error})"
            if not kept:
                return (
                    f"the autotune list's own filter `{f.text}` (kernel.py:{f.line}) rejects {_config_text(config)}: "
                    "its author's statement of what is valid"
                )
    return None


def watch_prune(module: ModuleType, screen: ListScreen) -> None:
    """Make the candidate's autotuner call its ``early_config_prune`` at each launch when it holds one config
    (Triton's calls it only to choose among several); a launch whose config it drops raises :class:`ScreenedConfig`.

    The prune is asked about the config alone, then beside the original list (:attr:`ListScreen.originals`, after
    them): one that drops it either way rejects it. A prune that keeps none of what it is given and falls back on its
    first config (``kept or configs[:1]``) would keep a lone config whatever it is; beside the originals its verdict is
    the author's. Judged by its kwargs (a prune may give a config back with other stages)."""
    if not screen.prune:
        return
    at = _autotuner(module, screen.kernel)
    prune = getattr(at, "early_config_prune", None) if at is not None else None
    if at is None or prune is None or len(at.configs) != 1:
        return
    launch = at.run
    name = getattr(prune, "__name__", "early_config_prune")
    originals = _configs(screen)

    def run(*args: Any, **kwargs: Any) -> Any:
        nargs = dict(zip(at.arg_names, args, strict=False))
        mine = at.configs[0]
        for given in ([mine], [*originals, mine]) if originals else ([mine],):
            kept = prune(list(given), nargs, **kwargs) or []
            if not any(k is mine or dict(getattr(k, "kwargs", {}) or {}) == dict(mine.kwargs) for k in kept):
                beside = " beside the original configs" if len(given) > 1 else ""
                raise ScreenedConfig(
                    f"the autotune list's own early_config_prune `{name}` drops {_config_text(mine)}{beside} at this "
                    "launch: its author's statement of what is valid"
                )
        return launch(*args, **kwargs)

    at.run = run


def _configs(screen: ListScreen) -> list[Any]:
    """The original list as ``triton.Config`` objects (empty when Triton cannot build one of them)."""
    import triton

    try:
        return [
            triton.Config(dict(c.kwargs), num_warps=c.num_warps, num_stages=c.num_stages, num_ctas=c.num_ctas)
            for c in screen.originals
        ]
    except (TypeError, ValueError):
        return []
