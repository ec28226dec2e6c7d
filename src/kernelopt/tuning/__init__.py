"""The tuning engine: the launch configuration of one kernel launch, searched jointly and measured.

See ``docs/tuning-engine.md``: the space and its knobs, the strategies (ask/tell), the evaluators (a
GPU or CPU kernel evaluator, and the replay of a recorded sweep), the session and its record.
"""
