"""Compile kernels of a file with Triton for an NVIDIA target, no GPU needed (tests/test_gpu_parity.py runs it in a
process of its own, TRITON_INTERPRET unset: Triton's compiler and its interpreter do not share a process).

stdin: JSON {"file": path, "cases": [{"kernel", "signature", "constexprs", "options", "arch"}, ...]} (a case's own
"file", where it has one, in place of the job's); stdout: JSON, a list of {"error": str | null, "shared": int | null}
in the cases' order.
"""

import importlib.util
import json
import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


def main() -> None:
    job = json.load(sys.stdin)
    modules = {}
    out = []
    for case in job["cases"]:
        file = case.get("file", job.get("file"))
        if file not in modules:
            spec = importlib.util.spec_from_file_location(f"compiled_kernels_{len(modules)}", file)
            modules[file] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(modules[file])
        src = ASTSource(getattr(modules[file], case["kernel"]), case["signature"], case["constexprs"])
        try:
            compiled = triton.compile(src, target=GPUTarget("cuda", case["arch"], 32), options=case["options"])
        except Exception as exc:  # the compile's refusal is the answer
            out.append({"error": f"{type(exc).__name__}: {exc}", "shared": None})
        else:
            out.append({"error": None, "shared": compiled.metadata.shared})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
