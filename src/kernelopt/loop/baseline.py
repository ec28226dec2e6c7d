"""The loop's default ``baseline_report.md`` renderer: the report package's, the one renderer of that file.

The loop falls back to it when no renderer is injected (``Collaborators.baseline_renderer`` is None).
"""

from __future__ import annotations

from kernelopt.report.baseline import BaselineRenderer as BuiltinBaselineRenderer

__all__ = ["BuiltinBaselineRenderer"]
