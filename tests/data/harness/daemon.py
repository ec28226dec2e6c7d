"""A correct add whose first call leaves processes behind: one in a session of its own (``setsid``) and
one orphaned by a double fork. Each writes its pid into $HYGIENE_DAEMON_DIR at once and, were it to
live 2 s, a file into that folder (as a stray writing into a workspace would)."""

import os
import subprocess
import sys
import time
from pathlib import Path

_started = False


def _leave_behind() -> None:
    folder = Path(os.environ["HYGIENE_DAEMON_DIR"])
    code = (
        "import os, time; from pathlib import Path; d = Path(%r); (d / f'pid.{os.getpid()}').touch(); "
        "time.sleep(2); (d / f'late.{os.getpid()}').touch()" % str(folder)
    )
    subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    fork = f"import subprocess, sys; subprocess.Popen([sys.executable, '-c', {code!r}], start_new_session=True)"
    subprocess.run([sys.executable, "-c", fork], check=True)
    deadline = time.monotonic() + 20
    while len(list(folder.glob("pid.*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)


def run(x, y):
    global _started
    if not _started:
        _started = True
        _leave_behind()
    return x + y
