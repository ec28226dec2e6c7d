"""A scripted Stage 3 agent that makes the kernel slower (every pass four times): correct, so the gate decides."""

from pathlib import Path

from _agent import STAGE, slower, write_kernel

assert STAGE == "implement", STAGE
write_kernel(slower(Path("kernel.py").read_text()))
print("ran every pass four times")
