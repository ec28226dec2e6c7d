"""An agent that deletes kernel.py and exits 0."""

from pathlib import Path

Path("kernel.py").unlink()
print("removed the old kernel")
