#!/usr/bin/env python3
"""A stand-in for ``rocprofv3`` that replays recorded outputs (tests only; no GPU, no ROCm).

It parses the options kernelopt passes (``--pmc``, ``--att``, ``--att-library-path``, ``--kernel-trace``,
``--output-format``, ``-d``, ``-o``, ``--kernel-include-regex``, ``--kernel-iteration-range``, ``--``),
logs its argv as one JSON line to ``$STUB_ROCPROF_LOG``, and writes what rocprofv3 would write:

* ``--kernel-trace``: ``<o>_kernel_trace.csv`` (vecCopy dispatches; the durations are the MI100 recording's
  24 800 / 18 880 / 18 880 ns, the MI300X recording lost its timestamps) and ``<o>_agent_info.csv``;
* ``--pmc C...``: ``<o>_counter_collection.csv`` in rocprofv3's long format, the values replayed from the
  real MI300X rocprof-compute recording (``amd_mi300x_vcopy_pmc_perf_rocprofv2.csv``);
* ``--att``: the real MI300X ATT decoder stats file, as ``stats_ui_output_agent_1_dispatch_3.csv``.

Without ``--output-format csv`` nothing is written (recent rocprofv3 defaults to a rocpd database).

``$STUB_ROCPROF_SCENARIO`` (comma-separated) reproduces failures:
``empty_trace`` (header-only ATT stats), ``missing_counter_file`` (PMC exits 0, no counter file),
``unsupported_counter=NAME`` (PMC fails naming NAME), ``decoder_mismatch`` (the decoder loader's
fatal log, then SIGABRT), ``att_segv`` (SIGSEGV during ATT), ``no_att`` (an rocprofv3 without --att),
``hang`` (sleeps until killed).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent
PMC_RECORDING = DATA / "amd_mi300x_vcopy_pmc_perf_rocprofv2.csv"
ATT_RECORDING = DATA / "amd_mi300x_att_stats_bmm_mfma_dispatch3.csv"
ATT_EMPTY = DATA / "amd_mi300x_att_stats_empty_dispatch3.csv"
AGENT_INFO = DATA / "stub" / "agent_info_mi300x.csv"
KERNEL = "vecCopy(double*, double*, double*, int, int)"
DURATIONS_NS = (24800, 18880, 18880)
T0 = 1410078545959517


def parse(argv: list[str]) -> dict[str, object]:
    opts: dict[str, object] = {"pmc": [], "program": []}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            opts["program"] = argv[i + 1 :]
            break
        if a == "--pmc":
            i += 1
            while i < len(argv) and not argv[i].startswith("-"):
                opts["pmc"].append(argv[i])  # type: ignore[union-attr]
                i += 1
            continue
        if a in ("--att", "--kernel-trace", "--version"):
            opts[a.lstrip("-")] = True
        elif a in (
            "-d",
            "-o",
            "--att-library-path",
            "--output-format",
            "--kernel-include-regex",
            "--kernel-iteration-range",
        ):
            opts[a.lstrip("-")] = argv[i + 1]
            i += 1
        else:
            print(f"rocprofv3: error: unrecognized arguments: {a}", file=sys.stderr)
            sys.exit(2)
        i += 1
    return opts


def scenario() -> dict[str, str]:
    out: dict[str, str] = {}
    for item in filter(None, os.environ.get("STUB_ROCPROF_SCENARIO", "").split(",")):
        key, _, value = item.partition("=")
        out[key.strip()] = value.strip()
    return out


def write_counters(path: Path, counters: list[str]) -> None:
    with PMC_RECORDING.open() as fh:
        recorded = list(csv.DictReader(fh))
    header = [
        "Correlation_Id", "Dispatch_Id", "Agent_Id", "Queue_Id", "Process_Id", "Thread_Id", "Grid_Size",
        "Kernel_Id", "Kernel_Name", "Workgroup_Size", "LDS_Block_Size", "Scratch_Size", "VGPR_Count",
        "Accum_VGPR_Count", "SGPR_Count", "Counter_Name", "Counter_Value", "Start_Timestamp", "End_Timestamp",
    ]  # fmt: skip
    with path.open("w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_NONNUMERIC)
        w.writerow(header)
        start = T0
        for n, (row, dur) in enumerate(zip(recorded, DURATIONS_NS, strict=False), start=1):
            for c in counters:
                value = float(row[c])
                w.writerow(
                    [
                        n,
                        n,
                        "Agent 1",
                        1,
                        4242,
                        4242,
                        1048576,
                        7,
                        KERNEL,
                        256,
                        0,
                        0,
                        4,
                        4,
                        16,
                        c,
                        value,
                        start,
                        start + dur,
                    ]
                )
            start += 100000


def write_trace(path: Path) -> None:
    header = [
        "Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name",
        "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size", "Scratch_Size", "VGPR_Count",
        "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z",
        "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z",
    ]  # fmt: skip
    with path.open("w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_NONNUMERIC)
        w.writerow(header)
        start = T0
        for n, dur in enumerate(DURATIONS_NS, start=1):
            w.writerow(
                [
                    "KERNEL_DISPATCH",
                    "Agent 1",
                    1,
                    0,
                    4242,
                    n,
                    7,
                    KERNEL,
                    n,
                    start,
                    start + dur,
                    0,
                    0,
                    4,
                    4,
                    16,
                    256,
                    1,
                    1,
                    1048576,
                    1,
                    1,
                ]
            )
            start += 100000


def main() -> int:
    opts = parse(sys.argv[1:])
    log = os.environ.get("STUB_ROCPROF_LOG")
    if log:
        with open(log, "a") as fh:
            fh.write(json.dumps(sys.argv[1:]) + "\n")
    if opts.get("version"):
        print("rocprofv3 version: 1.0.0 (kernelopt stub)")
        return 0
    sc = scenario()
    if "hang" in sc:
        time.sleep(600)
    out = Path(str(opts.get("d", ".")))
    name = str(opts.get("o", "run"))
    out.mkdir(parents=True, exist_ok=True)
    if opts.get("att"):
        if "no_att" in sc:
            print("usage: rocprofv3 [options] -- <application> [application options]", file=sys.stderr)
            print("rocprofv3: error: unrecognized arguments: --att --att-library-path", file=sys.stderr)
            return 2
        lib_dir = Path(str(opts.get("att-library-path", "/opt/rocm/lib")))
        if "decoder_mismatch" in sc or not any(lib_dir.glob("librocprof-trace-decoder.so*")):
            print("F20251129 10:00:00.000000 1 att_lib_wrapper.cpp:126] Error loading decoder: 37", file=sys.stderr)
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGABRT)
        if "att_segv" in sc:
            os.kill(os.getpid(), signal.SIGSEGV)
    if opts.get("output-format") != "csv":
        (out / f"{name}_results.db").write_bytes(b"SQLite format 3\x00")
        return 0
    shutil.copyfile(AGENT_INFO, out / f"{name}_agent_info.csv")
    if opts.get("att"):
        src = ATT_EMPTY if "empty_trace" in sc else ATT_RECORDING
        shutil.copyfile(src, out / "stats_ui_output_agent_1_dispatch_3.csv")
        return 0
    if opts.get("kernel-trace"):
        write_trace(out / f"{name}_kernel_trace.csv")
    counters = list(opts["pmc"])  # type: ignore[call-overload]
    if counters:
        bad = sc.get("unsupported_counter")
        if bad and bad in counters:
            print(f"[rocprofv3] Fatal error: Counter '{bad}' not found on agent gfx942", file=sys.stderr)
            return 1
        if "missing_counter_file" in sc:
            return 0
        write_counters(out / f"{name}_counter_collection.csv", counters)
    return 0


if __name__ == "__main__":
    sys.exit(main())
