#!/usr/bin/env python3
"""A stand-in for ``ncu`` in CI: prints Nsight Compute's real texts and runs the profiled program.

Behaviour by $STUB_NCU_MODE:
  ok          run the program, copy $STUB_NCU_REPORT to the --export path, print the PROF lines
  perm        print the ERR_NVGPUCTRPERM error (real text) and exit 1 without running the program
  nokernels   print "No kernels were profiled." and the "Available Kernels:" list (ncu 2025 texts)
  device      print "Unknown Error on device 0." and exit 1
  noreport    run the program, exit 0, write no report
  apperror    print the output ncu 2025.3.1 gave on the H200 for a kernel.py that raises (recorded)
  hang        sleep for an hour (to test the timeout and the process-group kill)
  old         answer --version with an old release
$STUB_NCU_ARGV (optional): file to write the received argv to (JSON).
$STUB_NCU_RUN=0: do not run the profiled program (ok / noreport modes).
"""

import json
import os
import shutil
import subprocess
import sys
import time

VERSION = """NVIDIA (R) Nsight Compute Command Line Profiler
Copyright (c) 2018-2025 NVIDIA Corporation
Version 2025.3.1.0 (build 36398880) (public-release)
"""
OLD_VERSION = """NVIDIA (R) Nsight Compute Command Line Profiler
Copyright (c) 2018-2021 NVIDIA Corporation
Version 2021.1.1.0 (build 29735451) (public-release)
"""
PERM = (
    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters "
    "on the target device 0. For instructions on enabling permissions and to get more information see "
    "https://developer.nvidia.com/ERR_NVGPUCTRPERM"
)


def main() -> int:
    args = sys.argv[1:]
    mode = os.environ.get("STUB_NCU_MODE", "ok")
    if args == ["--version"]:
        print(OLD_VERSION if mode == "old" else VERSION, end="")
        return 0
    if os.environ.get("STUB_NCU_ARGV"):
        with open(os.environ["STUB_NCU_ARGV"], "w") as fh:
            json.dump(args, fh)
    export = args[args.index("--export") + 1] if "--export" in args else None
    prog = args.index("-m") - 1 if "-m" in args else len(args)
    program = args[prog:]
    if mode == "hang":
        time.sleep(3600)
        return 0
    if mode == "perm":
        print("==PROF== Connected to process 4242 (/usr/bin/python3.12)")
        print(PERM, file=sys.stderr)
        print("==PROF== Disconnected from process 4242")
        return 1
    if mode == "device":
        print("==PROF== Connected to process 4242 (/usr/bin/python3.12)")
        print("==ERROR== Unknown Error on device 0.", file=sys.stderr)
        print("==PROF== Disconnected from process 4242")
        return 1
    if mode == "apperror":
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "ncu_outputs", "user_program_failed.txt")) as fh:
            text = fh.read()
        out, _, err = text.partition("== stderr ==")
        print(out.split("== stdout ==", 1)[1].strip())
        print(err.strip(), file=sys.stderr)
        return 1
    if mode == "nokernels":
        print("==PROF== Connected to process 4242 (/usr/bin/python3.12)")
        print("==PROF== Disconnected from process 4242")
        print("==WARNING== No kernels were profiled.")
        print("Available Kernels:")
        print("1. softmax_kernel")
        print("2. vectorized_elementwise_kernel")
        return 0
    print("==PROF== Connected to process 4242 (/usr/bin/python3.12)")
    run = os.environ.get("STUB_NCU_RUN", "1") != "0"
    rc = subprocess.call(program) if program and run else 0
    if rc != 0:
        print(f"==ERROR== The application returned an error code ({rc}).", file=sys.stderr)
        print("==PROF== Disconnected from process 4242")
        return 1
    print('==PROF== Profiling "softmax_kernel" - 0: 0%....50%....100% - 38 passes')
    print("==PROF== Disconnected from process 4242")
    if mode == "noreport":
        return 0
    source = os.environ["STUB_NCU_REPORT"]
    if source.endswith(".gz"):
        import gzip

        with gzip.open(source, "rb") as src, open(export + ".ncu-rep", "wb") as dst:
            shutil.copyfileobj(src, dst)
    else:
        shutil.copyfile(source, export + ".ncu-rep")
    print(f"==PROF== Report: {export}.ncu-rep")
    return 0


if __name__ == "__main__":
    sys.exit(main())
