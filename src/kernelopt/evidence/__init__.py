"""Stage 1 evidence: normalized metrics, rules, bottleneck classification and ISA facts.

The types in :mod:`kernelopt.evidence.model` are the contract between profilers (NVIDIA and AMD),
planners and reports.
"""
