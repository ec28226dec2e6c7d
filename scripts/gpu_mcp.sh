#!/usr/bin/env bash
# kernelopt mcp on one NVIDIA GPU (issue 33): Nsight Compute on a command with its arguments through the MCP
# `profile` tool, and a whole iteration of examples/softmax driven through the SDK's stdio client (init,
# profile with ncu, evidence, submit_plan citing a measured metric, the agent's edit BLOCK_SIZE 128 -> 1024,
# validate, record). Never changes GPU clocks or settings.
#
#   OUT=/some/folder bash scripts/gpu_mcp.sh        # from the repository root
#
# Bounded: 15 minutes in all (typically 2-4). Writes under $OUT:
#   env.txt      GPU, driver, torch, triton, mcp versions
#   pytest.txt   the two tests' output (the seconds of profile and validate, the gate's verdict, the commits)
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$OUT/env.txt" name,driver_version
"$PY" -c "import importlib.metadata as m; print('mcp', m.version('mcp'))" >> "$OUT/env.txt" 2>&1
KERNELOPT_GPU_TESTS=1 timeout -k 10 900 "$PY" -m pytest -q -s -o addopts="-ra -p no:hypothesispytest -p no:benchmark" \
  tests/test_mcp_gpu.py > "$OUT/pytest.txt" 2>&1
echo "exit $?" >> "$OUT/pytest.txt"
tail -5 "$OUT/pytest.txt"
