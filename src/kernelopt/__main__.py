"""``python -m kernelopt`` runs the CLI.

The entry point's own import is the one moment before its interrupt handling exists: a Ctrl-C there is said as
any other (the one line, exit 130), not a traceback ended by SIGINT (faults8, f14).
"""

import sys

try:
    from kernelopt.cli.start import run
except KeyboardInterrupt:
    sys.stderr.write("kernelopt: interrupted\n")
    raise SystemExit(130) from None

if __name__ == "__main__":
    run()
