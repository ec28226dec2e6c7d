"""Stage 2: the Plan model and file format (plans/v<N>_plan.md), knowledge search order, planners."""
