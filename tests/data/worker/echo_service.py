"""A service without torch for the worker-protocol tests: ``python echo_service.py``.

Requests: echo (the payload back), print (floods stdout, then answers), sleep (``s`` seconds), segv
(SIGSEGV to itself), exit (``os._exit(5)``), raise (an exception in the handler), spawn (starts a
``sleep 60`` grandchild and answers its pid), event (an Event, then sleeps ``s`` seconds and answers).
"""

import os
import signal
import subprocess
import sys
import time

from kernelopt.worker.messages import FailureKind, Service
from kernelopt.worker.server import SetupInfo, SetupRefused, serve


class EchoHandler:
    def setup(self, payload, events):
        if payload.get("fail"):
            raise ValueError("the setup was told to fail")
        if payload.get("refuse"):
            raise SetupRefused(FailureKind.NO_ROOM, "no room for 4 TB")
        time.sleep(float(payload.get("setup_s", 0)))
        return SetupInfo(device=None, versions={"python": sys.version.split()[0]}, info={"pid": os.getpid()})

    def handle(self, kind, payload, events):
        if kind == "echo":
            return dict(payload)
        if kind == "print":
            for i in range(2000):
                print(f"kernel says {i}", flush=True)
            sys.stdout.write("{\"type\": \"reply\", \"id\": 999}\n")  # a line that looks like a message
            return {"printed": 2000}
        if kind == "sleep":
            start = time.time()
            time.sleep(float(payload["s"]))
            return {"slept": payload["s"], "start": start, "end": time.time()}
        if kind == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        if kind == "exit":
            sys.stderr.write("about to exit with 5\n")
            os._exit(5)
        if kind == "raise":
            raise RuntimeError("the handler broke")
        if kind == "spawn":
            child = subprocess.Popen(["sleep", "60"])
            return {"pid": child.pid}
        if kind == "event":
            events.emit("compile_start")
            time.sleep(float(payload["s"]))
            return {"done": True}
        raise ValueError(f"unknown request kind {kind!r}")

    def close(self):
        pass


if __name__ == "__main__":
    sys.exit(serve(Service.COMPILE, EchoHandler()))
