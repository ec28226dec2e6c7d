"""An agent that never finishes on its own: on SIGTERM it cleans up (writes .kernelopt/term_aware_cleaned) and
exits, unless TERM_AWARE_IGNORE=1, when it ignores SIGTERM (only SIGKILL ends it)."""

import os
import signal
import sys
import time
from pathlib import Path


def cleanup(signum: int, _frame: object) -> None:
    Path(".kernelopt/term_aware_cleaned").write_text("SIGTERM")
    sys.exit(0)


signal.signal(signal.SIGTERM, signal.SIG_IGN if os.environ.get("TERM_AWARE_IGNORE") == "1" else cleanup)
print("working...", flush=True)
time.sleep(300)
