"""A scripted Stage 2 agent: reads profiles/v<N>/summary.json and writes a valid code-change plan.

V1 plans a fusion (one pass instead of three), V2 a vectorized access, V3 a tiling: each a new action.
"""

from _agent import STAGE, VERSION, write_plan

assert STAGE == "plan", STAGE
category = ["fusion", "vectorized_access", "tiling", "coalescing"][(VERSION - 1) % 4]
write_plan(
    category,
    f"{category}: walk each row once instead of once per pass",
    "three passes over every row -> fuse the passes into one",
)
print(f"wrote plans/v{VERSION}_plan.md ({category})")
