"""An agent that reads its prompt from stdin and leaves its first line as a comment in kernel.py."""

import sys
from pathlib import Path

first = sys.stdin.read().splitlines()[0]
k = Path("kernel.py")
k.write_text(k.read_text() + f"\n# prompt: {first}\n")
