"""A well-behaved agent: does exactly the stage's job (Stage 2: a plan the orchestrator accepts, n165)."""

from pathlib import Path

from _agent import PROMPT, STAGE, write_plan

assert "kernelopt Stage" in PROMPT, "the prompt file was not passed"

if STAGE == "plan":
    plan = write_plan("num_warps", "raise num_warps to 8", "latency bound -> more warps", {"num_warps": 8})
    print(f"wrote {plan}")
else:
    k = Path("kernel.py")
    k.write_text(k.read_text().replace("num_warps=4", "num_warps=8"))
    print("raised num_warps from 4 to 8; python test_kernel.py passed")
