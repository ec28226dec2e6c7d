"""An agent whose infrastructure fails: it prints what a CLI prints then (UNAVAILABLE_SAYS, default Claude
Code's "Not logged in") and exits with status 1, having done nothing."""

import os
import sys

print(os.environ.get("UNAVAILABLE_SAYS", "Not logged in · Please run /login"), flush=True)
sys.exit(1)
