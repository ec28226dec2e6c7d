"""An agent that leaves binary (non-UTF-8) bytes in kernel.py and exits 0."""

from pathlib import Path

Path("kernel.py").write_bytes(b"\x7fELF\x02\x01\x01\x00\xff\xfe kernel \x80\x81\n")
print("compiled kernel.py")
