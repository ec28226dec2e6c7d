"""An agent that never finishes, with a child process that must die with it."""

import subprocess
import sys
import time
from pathlib import Path

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
Path(".kernelopt").mkdir(exist_ok=True)
Path(".kernelopt/hang_child.pid").write_text(str(child.pid))
print("thinking...", flush=True)
time.sleep(300)
