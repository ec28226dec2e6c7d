"""Compile a kernel's launches for a GPU on a machine without one.

Triton's whole NVIDIA pipeline (TTIR, TTGIR, LLVM IR, PTX, ``ptxas`` to a cubin) runs on a CPU-only machine:
``triton.compile(ASTSource(fn, signature, constexprs, attrs), target=GPUTarget("cuda", 90, 32))``. What it needs is
what a launch on the GPU would give Triton's JIT: the signature (``*fp32``, ``i32``), the constexprs and the
specialization attributes (``tt.divisibility`` 16 of a pointer or an integer divisible by 16). A compile failure
that only the GPU's pipeline meets (on the H100, 2026-12-06, tests/data/variants/tile_lse_zero: Triton's
TritonGPUOptimizeThreadLocality pass fails once ``N``'s divisibility 16 is known) is then found here, before device
time is spent; the interpreter (``TRITON_INTERPRET=1``) never compiles, so it cannot.

:func:`target_launches` runs in a process of its own (:func:`compile_for_target` starts it): it imports kernel.py
with Triton's JIT (not the interpreter), replaces the launch of every ``@triton.jit`` function by a compile for the
target, and calls the kernel on the reference's inputs built on the CPU, so each launch's arguments are bound and
specialized by Triton's own code (``create_function_from_signature`` and ``JITFunction._pack_args`` with the target's
backend): the signature and attributes are those the GPU's JIT would compute, except for data pointers, whose
alignment is the CPU allocator's (64 bytes for torch's: divisible by 16, as a GPU allocation is). An autotuned
kernel compiles every config its prune keeps; a heuristic runs as it would. Nothing runs on a device: what the kernel
computes is not checked, and the outputs stay as allocated.

What the compile spills is read from the cubin (:func:`spilled`, Triton's ``n_spills``): a pick that spills more than
any configuration of kernel.py as it is at the same entry (the authors' largest) is refused before the write
(docs/faults.md leftovers15 l5). A launch whose loop's asynchronous wgmmas read a ring of shared tiles its copies
refill while they run (:mod:`kernelopt.harness.wgmma_race`, read from the TTGIR) races on the GPU: refused whatever
kernel.py as it is does (docs/faults.md kkt18). A session on a GPU without ``--target`` compiles its pick for the
GPU's own capability (:func:`own_target`) and refuses only the race and the wider vector (``asked=False``: what the
GPU's checks at the entries can pass; docs/faults.md target18).

It cannot catch what only a launch meets: shared memory or registers beyond the device at launch ("out of
resources": the compile succeeds, the launch fails), a kernel that faults at run time (an illegal address, a hang),
a wrong result, and what depends on the device's own values (a size read from a device array, a pointer's actual
alignment on the GPU).
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from kernelopt.harness.model import shown_shape
from kernelopt.harness.vector_hints import VectorAccess, hinted_vectors, wrapped_hints
from kernelopt.harness.wgmma_race import racing_tiles
from kernelopt.kernelsource import carry
from kernelopt.oneline import one_line

#: Triton's name of an NVIDIA target: ``sm_90`` -> ("cuda", 90, warp size 32).
WARP_SIZE = 32
#: What starts a report's line on the compile process's stdout (a line of anything else there is not one).
REPORT_MARK = "kernelopt-target-report: "
#: The limit of one folder's compiles, seconds (each launch compiles once per distinct specialization).
COMPILE_TIMEOUT_S = 300.0


class LaunchCompile(BaseModel):
    """One distinct launch compiled for the target.

    Attributes:
        kernel: the ``@triton.jit`` function's name.
        shape: the ``SHAPES`` entry whose inputs launched it.
        signature: argument -> Triton type (``*fp32``, ``i32``, ``constexpr``).
        constexprs: the constexpr arguments' values (a tile, a flag).
        divisible: the arguments Triton's JIT marks ``tt.divisibility`` 16.
        options: the compile options given (``num_warps``, ``num_stages``).
        error: the compile's failure in one line, ``None`` when it compiled to a cubin.
        also: the other ``SHAPES`` entries whose launch was this one (the same specialization: compiled once).
        spills: the registers its cubin spills, as Triton's ``n_spills`` reads them on a GPU (the local stack frame's
            bytes over 4, here read from the cubin by Triton's own ``cuobjdump -res-usage``: :func:`spilled`);
            ``None`` when not compiled or not read.
        hinted: the vector accesses its PTX builds on an offset the source hints aligned though a size wraps it
            (:func:`~kernelopt.harness.vector_hints.hinted_vectors`: ``tl.multiple_of(rm % M, BLOCK_M)``), each
            misaligned on the GPU where that size is no multiple of the vector (misalign17).
        races: the slots of each ring of shared tiles an asynchronous wgmma of a loop reads while the loop's copies
            refill it (:func:`~kernelopt.harness.wgmma_race.racing_tiles`: fewer slots than the loop's depth), a
            write-after-read race on the GPU at any size (fla's chunk kkt under Triton 3.6, kkt18).
        cached: its TTGIR, PTX and cubin were read from the Triton cache the compile was given (``triton_cache`` of
            :func:`compile_for_target`: a tuning session's, where its compile pool and bench workers compiled the pick
            on the GPU), not compiled again (leftovers19's l2).
    """

    model_config = ConfigDict(extra="forbid")

    kernel: str
    shape: dict[str, Any]
    signature: dict[str, str]
    constexprs: dict[str, Any]
    divisible: list[str]
    options: dict[str, Any]
    error: str | None = None
    also: list[dict[str, Any]] = []
    spills: int | None = None
    hinted: list[VectorAccess] = []
    races: list[int] = []
    cached: bool = False

    def entries(self) -> list[dict[str, Any]]:
        """Every ``SHAPES`` entry this launch stands for: its own (:attr:`shape`) and :attr:`also`."""
        return [self.shape, *self.also]


#: The compute capabilities of NVIDIA's GPUs (CUDA C++ Programming Guide, "Compute Capabilities"): a target outside
#: them is a typo (``sm_9`` for sm_90), which ptxas refuses only after a whole session (newuser9 n42).
CAPABILITIES = (50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 110, 120, 121)


def parse_target(target: str) -> int:
    """``sm_90`` (or ``90``, ``sm90``) -> the capability 90.

    Raises:
        ValueError: not an NVIDIA ``sm_NN`` target, or no GPU's capability (:data:`CAPABILITIES`).
    """
    text = target.strip().lower().removeprefix("sm_").removeprefix("sm")
    if not text.isdigit():
        raise ValueError(f"{target!r} is not an NVIDIA target: give sm_NN (sm_80, sm_90)")
    if int(text) not in CAPABILITIES:
        known = ", ".join(f"sm_{c}" for c in CAPABILITIES)
        raise ValueError(f"{target!r} is no NVIDIA GPU's compute capability: give one of {known}")
    return int(text)


def own_target(device: str | None) -> tuple[str | None, str | None]:
    """The target of the GPU a ``--device`` names (``cuda``, ``cuda:N``; ``None``: cuda when present), for the checks
    ``tune`` runs on its pick without ``--target`` (races, vector hints: wrong or faulting on that GPU at sizes its
    checks need not meet, kkt18, misalign17), read from torch (``torch.cuda.get_device_capability``: (9, 0) ->
    ``sm_90``). Returns ``(target, None)``; ``(None, None)`` where the session runs on no GPU (the CPU, or no GPU
    present); ``(None, line)`` where it runs on one these checks cannot read (ROCm's, or a capability no NVIDIA GPU
    has): why, in one line."""
    from kernelopt.vocabulary import Device

    if device is not None and Device.of(device) is not Device.CUDA:
        return None, None
    import torch  # here: a session on the CPU never imports it in tune's own process (2.3 s at load 7)

    if not torch.cuda.is_available():
        return None, None
    if getattr(torch.version, "hip", None):
        return None, (
            "not compiled for this GPU before the write: a ROCm GPU (the race and vector-hint checks read NVIDIA's "
            "TTGIR and PTX)"
        )
    index = int(device.partition(":")[2]) if device is not None and device.partition(":")[2].isdigit() else None
    major, minor = torch.cuda.get_device_capability(index)
    if major * 10 + minor not in CAPABILITIES:
        return None, (
            f"not compiled for this GPU before the write: compute capability {major}.{minor} is no NVIDIA GPU's "
            "this kernelopt knows"
        )
    return f"sm_{major}{minor}", None


def compiler_line(exc: BaseException) -> str:
    """The compiler's own word on a failed compile, in one line: ptxas's ``fatal`` / ``error`` line of a
    ``PTXASError`` (its message ends with the repro command), else the last line (a ``CompilationError`` quotes the
    kernel's source first)."""
    said = [ln.strip() for ln in str(exc).splitlines() if ln.strip()] or [""]
    ptxas = [ln for ln in said if ln.startswith("ptxas") and ("fatal" in ln or "error" in ln)]
    return one_line(f"{type(exc).__name__}: {(ptxas or said)[-1]}", 400)


class TargetReport(BaseModel):
    """One folder's launches compiled for the target, or why they could not be reached.

    Attributes:
        folder: the folder (its kernel.py and reference.py).
        launches: each distinct launch and its compile's verdict.
        problem: one line when kernel.py, reference.py or the inputs failed before any launch (not a compile
            failure: the folder's own fault, or a launch Triton's JIT refused to bind).
    """

    model_config = ConfigDict(extra="forbid")

    folder: str
    launches: list[LaunchCompile] = []
    problem: str | None = None

    @property
    def failed(self) -> list[LaunchCompile]:
        """The launches that did not compile."""
        return [x for x in self.launches if x.error is not None]


def compile_for_target(
    folders: Sequence[Path],
    target: str = "sm_90",
    *,
    timeout_s: float = COMPILE_TIMEOUT_S,
    triton_cache: Path | None = None,
) -> list[TargetReport]:
    """Each folder's launches compiled for ``target`` (``sm_90``), in one process of its own with Triton's JIT (its
    interpreter off), on a machine with or without a GPU (see the module docstring). ``triton_cache``: the Triton
    cache it reads and fills (a tuning session's: a launch the session compiled for this target is read from it,
    :attr:`LaunchCompile.cached`); else the environment's.

    Raises:
        ValueError: ``target`` is not ``sm_NN``.
        EnvironmentProblem: the process failed or ran past ``timeout_s`` (its last lines say why).
    """
    from kernelopt.env import TRITON_CACHE_DIR
    from kernelopt.errors import EnvironmentProblem
    from kernelopt.proc import run_command
    from kernelopt.worker.environment import worker_env

    parse_target(target)
    env = worker_env(device="cuda")  # compiled, never interpreted: TRITON_INTERPRET dropped; this kernelopt first
    if triton_cache is not None:
        env[TRITON_CACHE_DIR] = str(triton_cache)
    argv = [sys.executable, "-m", "kernelopt.harness.target_compile", target, *map(str, folders)]
    done = run_command(argv, timeout_s=timeout_s, env=env)
    if done.timed_out or done.returncode != 0:
        why = "ran past its limit" if done.timed_out else f"exited {done.returncode}"
        raise EnvironmentProblem(
            f"the compile for {target} {why}: {one_line(done.stderr[-600:] or done.stdout[-600:], 300)}"
        )
    return [
        TargetReport.model_validate_json(ln.removeprefix(REPORT_MARK))
        for ln in done.stdout.splitlines()
        if ln.startswith(REPORT_MARK)
    ]


class TargetCheck(BaseModel):
    """What the compile for ``--target`` said of the kernel.py about to be written, in one line for the user.

    Attributes:
        line: the refusal (``refused``), or what was compiled, or why nothing was (``tune`` prints it either way, and
            ``--json`` has it as ``target``: a check that compiled nothing must not read as one that passed, n43).
        refused: a launch does not compile for the target: nothing may be written.
    """

    model_config = ConfigDict(extra="forbid")

    line: str
    refused: bool = False


def target_check(
    source: str,
    reference_py: Path,
    work_dir: Path,
    target: str,
    original: str | None = None,
    *,
    asked: bool = True,
    triton_cache: Path | None = None,
) -> TargetCheck:
    """``source`` (a kernel.py about to be written) compiled for ``target`` on the reference's ``SHAPES`` entries.
    Refused when a launch does not compile at an entry where ``original`` (kernel.py as it is) compiles (the line
    names the kernel, its constexprs and the compiler's error); never for a failure the original shares at that
    entry (an int argument of 1 that Triton's JIT makes a constexpr: ``rnumel.to`` has none, H100 2026-12-06), the
    line naming the entry as the original's; not refused when every launch compiles,
    when no Triton kernel is launched (a torch kernel), or when no launch could be reached (the folder's own fault,
    which the session's checks say): the line says which.

    ``work_dir``: where the two files are written to be compiled (a folder of the session). ``asked``: ``False`` where
    ``target`` is the GPU the session ran on (:func:`own_target`, no ``--target``): only what that GPU's run of the
    entries can pass and still be wrong or fault elsewhere refuses (a race, a vector wider than the source's hints):
    a launch that does not compile here, or spills, is not refused (the GPU compiled and timed the pick itself), and
    the launches that compile are read all the same. ``triton_cache``: the session's Triton cache, where a launch its
    compile pool or bench workers compiled for this GPU is read instead of compiled again (leftovers19's l2: one
    compile, not two), the line saying how many were.

    Raises:
        ValueError, EnvironmentProblem: as :func:`compile_for_target`.
    """
    import shutil
    import time

    def compiled(text: str, name: str) -> TargetReport:
        folder = work_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "kernel.py").write_text(text, encoding="utf-8")
        shutil.copyfile(reference_py, folder / "reference.py")
        carry(reference_py.parent / "kernel.py", folder)  # tune's folder: the data kernel.py reads beside it
        return compile_for_target([folder], target, triton_cache=triton_cache)[0]

    started = time.monotonic()
    report = compiled(source, "written")
    if report.problem is not None:
        return TargetCheck(line=f"not compiled for {target}: the written kernel.py did not launch: {report.problem}")
    if not report.launches:
        return TargetCheck(
            line=f"not compiled for {target}: kernel.py launches no Triton kernel at the SHAPES entries (nothing to "
            "compile)"
        )

    def theirs() -> TargetReport | None:
        return compiled(original, "original") if original is not None else None

    if not report.failed or not asked:
        return _launches_read(report, theirs, target, asked, started)
    return _not_compiled(report, theirs(), target)


def _launches_read(
    report: TargetReport,
    theirs: Callable[[], TargetReport | None],
    target: str,
    asked: bool,
    started: float,
) -> TargetCheck:
    """The pick whose launches compiled for ``target`` (every one; on the GPU's own, ``asked`` false, those that did)
    read: refused for a race (:func:`_racing`), for spilling more than kernel.py as it is (``theirs``, compiled only
    where a launch spills or is hinted; spills only where ``asked``) or for a vector wider than its hints; else the
    line of what compiled, ``started`` the compile's start (:func:`time.monotonic`)."""
    import time

    raced = _racing(report.launches)
    if raced is not None:
        return TargetCheck(line=f"the pick {raced} on {target}; nothing written", refused=True)
    spills = [x for x in report.launches if x.spills] if asked else []
    hinted = [x for x in report.launches if x.hinted]
    before = theirs() if spills or hinted else None
    over = _spills_over(spills, before) or _wider_than_hinted(hinted, before)
    if over is not None:
        return TargetCheck(line=f"the pick {over} on {target}; nothing written", refused=True)
    kernels = ", ".join(dict.fromkeys(x.kernel for x in report.launches))
    own = "" if asked else " (this GPU's, no --target: its races and vector hints)"
    failed = f"; {len(report.failed)} did not compile here (the GPU ran the pick)" if report.failed else ""
    cached = sum(x.cached for x in report.launches)
    read = f", {cached} of them read from the session's own compiles" if cached else ""
    return TargetCheck(
        line=f"compiled for {target}{own} before the write: {len(report.launches)} distinct launch(es) of "
        f"{kernels} at the SHAPES entries{read}{failed} ({time.monotonic() - started:.1f} s)"
    )


def _not_compiled(report: TargetReport, before: TargetReport | None, target: str) -> TargetCheck:
    """The pick a launch of which did not compile for ``target``: refused at the first entry where kernel.py as it is
    (``before``) does not fail too (the line names the kernel, its constexprs and the compiler's error); a line and
    no refusal where every failure is at an entry the original cannot compile either."""
    cannot = _shapes_failed(before)
    own = [x for x in report.failed if any(_shape_key(at) not in cannot for at in x.entries())]
    if not own:  # every launch that fails is at an entry the original cannot compile either: not the pick's
        first = report.failed[0]
        rest = "; every other launch compiles" if len(report.launches) > len(report.failed) else ""
        return TargetCheck(
            line=f"compiled for {target} before the write: the pick does not compile at "
            f"{_entries(report.failed)} ({first.kernel}: {first.error}), nor does kernel.py as it is there (sizes "
            f"the original cannot run on {target}: not the pick's){rest}"
        )
    first = own[0]
    at = next(a for a in first.entries() if _shape_key(a) not in cannot)
    tiles = ", ".join(f"{k}={v}" for k, v in first.constexprs.items())
    same = ""
    if before is not None and before.problem is None:
        same = "; kernel.py as it is compiles there"
    return TargetCheck(
        line=f"the pick does not compile for {target}: {first.kernel} ({tiles}) at {shown_shape(at, 'get_inputs()')}: "
        f"{first.error}{same}; nothing written",
        refused=True,
    )


def _racing(launches: Sequence[LaunchCompile]) -> str | None:
    """Where a launch of the pick races (:attr:`LaunchCompile.races`), in words; ``None`` where none does. Refused
    whatever kernel.py as it is does: a race is wrong at any size, by timing, and the checks of the entries may miss it
    (fla's chunk kkt on the H100, 2026-12-06: 0.1 % of the elements, by the autotuner's pick; docs/faults.md kkt18)."""
    for x in launches:
        if x.races:
            stages = x.options.get("num_stages")
            return (
                f"races at {shown_shape(x.shape, 'get_inputs()')} ({x.kernel}: {_settings(x)}): its loop's "
                f"asynchronous wgmmas read a ring of {x.races[0]} shared tile(s) that the loop's copies, {stages} "
                "stages deep, refill while they run (a write-after-read race on shared memory: some elements wrong, "
                "by timing)"
            )
    return None


def _spills_over(spilling: Sequence[LaunchCompile], before: TargetReport | None) -> str | None:
    """Where a launch of the pick spills more registers than any launch of the same kernel in kernel.py as it is at
    the same entry (``before``: the authors' own configurations there, each config of an autotune list compiled), in
    words (docs/faults.md leftovers15 l5: fla_l2norm's kept BT = 256 on two warps spills 1766 where the authors'
    largest spills 1098); ``None`` where none does, or kernel.py as it is was not compiled."""
    if before is None or before.problem is not None:
        return None
    for x in spilling:
        entries = {_shape_key(at) for at in x.entries()}
        theirs = [
            y
            for y in before.launches
            if y.kernel == x.kernel and y.spills is not None and entries & {_shape_key(a) for a in y.entries()}
        ]
        if not theirs or x.spills is None:
            continue
        most = max(theirs, key=lambda y: y.spills or 0)
        if x.spills > (most.spills or 0):
            return (
                f"spills {x.spills} registers at {shown_shape(x.shape, 'get_inputs()')} ({x.kernel}: {_settings(x)}), "
                f"more than any configuration kernel.py as it is compiles there (the authors' largest: {most.spills}, "
                f"{_settings(most)})"
            )
    return None


def _wider_than_hinted(hinted: Sequence[LaunchCompile], before: TargetReport | None) -> str | None:
    """Where a launch of the pick loads or stores more elements at once, on an offset the source hints aligned though
    a size wraps it (:mod:`kernelopt.harness.vector_hints`: ``tl.multiple_of(rm % M, BLOCK_M)``), than any launch of
    the same kernel in kernel.py as it is (``before``: every configuration its list keeps, at every entry) at the same
    line, in words; ``None`` where none does or kernel.py as it is was not compiled. The wrapped run of ``v`` lanes
    starts at ``(-M) mod v``: the original, ``w`` lanes at most, runs where ``M`` is a multiple of ``w``; the pick
    faults (``misaligned address``, the CUDA context lost) at each such ``M`` that is no multiple of ``v`` (``w``
    times an odd number), sizes the original handles (breaker16's bnb_int8_mm on the H100, 2026-12-06: misalign17)."""
    if before is None or before.problem is not None:
        return None
    for x in hinted:
        for access in x.hinted:
            theirs = [
                a.elements
                for y in before.launches
                if y.kernel == x.kernel
                for a in y.hinted
                if a.line == access.line and a.hint == access.hint
            ]
            most = max(theirs, default=1)
            if access.elements > most:
                size = most * 3 if most > 1 else access.elements + 1
                return (
                    f"loads {access.elements} elements at once at `{access.line}` ({x.kernel}: {_settings(x)}), on "
                    f"{access.hint}, which the source hints aligned though % {access.modulus} wraps it: misaligned "
                    f"on the GPU (a CUDA fault) where {access.modulus} is no multiple of {access.elements}, as at "
                    f"{access.modulus}={size}, where kernel.py as it is ({most} at a time at most) runs"
                )
    return None


def _settings(launch: LaunchCompile) -> str:
    values = {**launch.constexprs, **{k: v for k, v in launch.options.items() if k in ("num_warps", "num_stages")}}
    return ", ".join(f"{k}={v}" for k, v in values.items())


def _shape_key(shape: dict[str, Any]) -> str:
    return json.dumps(shape, sort_keys=True, default=str)


def _shapes_failed(report: TargetReport | None) -> set[str]:
    """The entries (as :func:`_shape_key`) at which a launch of ``report`` does not compile: sizes the original cannot
    run on the target, where a pick failing too is never refused (docs/faults.md refblame14 r11)."""
    if report is None or report.problem is not None:
        return set()
    return {_shape_key(at) for x in report.failed for at in x.entries()}


def _entries(failed: Sequence[LaunchCompile]) -> str:
    return "; ".join(dict.fromkeys(shown_shape(at, "get_inputs()") for x in failed for at in x.entries()))


def target_launches(kernel_py: Path, reference_py: Path, capability: int) -> list[LaunchCompile]:
    """Every distinct launch of ``kernel_py`` on the reference's ``SHAPES`` entries, compiled for ``sm_<capability>``
    (see the module docstring). Patches Triton in this process: run it in a process of its own.

    Raises:
        Exception: importing the files or building the inputs failed (the caller reports it in one line).
    """
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction, create_function_from_signature

    from kernelopt.harness.inputs import build_inputs
    from kernelopt.harness.interpreter import patch_cuda_device
    from kernelopt.harness.loader import load_pair

    target = GPUTarget("cuda", capability, WARP_SIZE)
    backend = make_backend(target)
    done: dict[str, LaunchCompile] = {}
    shape: dict[str, Any] = {}
    hits = _heard_cache_hits()

    def compile_launch(self: JITFunction, *args: Any, grid: Any = None, warmup: bool = False, **kwargs: Any) -> None:
        kwargs.pop("debug", None)
        binder = create_function_from_signature(self.signature, self.params, backend)
        bound, specialization, options = binder(*args, **kwargs)
        options, signature, constexprs, attrs = self._pack_args(backend, kwargs, bound, specialization, options)
        names = [p.name for p in self.params]
        given = {k: v for k, v in options.__dict__.items() if k in ("num_warps", "num_stages", "num_ctas", "maxnreg")}
        launch = LaunchCompile(
            kernel=self.__name__,
            shape=dict(shape),
            signature={k: str(v) for k, v in signature.items()},
            constexprs={names[p[0]]: _plain(v) for p, v in constexprs.items() if len(p) == 1},
            divisible=[names[p[0]] for p, a in attrs.items() if len(p) == 1 and "tt.divisibility" in str(a)],
            options=given,
        )
        key = json.dumps([launch.kernel, launch.signature, launch.constexprs, launch.divisible, given], default=str)
        if key in done:
            if dict(shape) != done[key].shape and dict(shape) not in done[key].also:
                done[key].also.append(dict(shape))
            return
        hits.clear()
        try:
            made = triton.compile(
                ASTSource(self, signature, constexprs, attrs), target=target, options=options.__dict__
            )
        except Exception as exc:  # the compiler's failure of this launch is the result
            launch = launch.model_copy(update={"error": compiler_line(exc)})
        else:
            hinted = _hinted(self, made.asm.get("ptx") or "", launch.signature)
            races = racing_tiles(made.asm.get("ttgir") or "", int(options.num_stages))
            launch = launch.model_copy(update={"spills": spilled(made.asm.get("cubin")), "hinted": hinted,
                                               "races": races, "cached": any(hits)})  # fmt: skip
        done[key] = launch

    def every_config(self: Autotuner, *args: Any, **kwargs: Any) -> None:
        self.nargs = dict(zip(self.arg_names, args, strict=False))
        configs = self.prune_configs(kwargs) if len(self.configs) > 1 else self.configs
        for config in configs:
            full = {**self.nargs, **kwargs, **config.all_kwargs()}
            if config.pre_hook is not None:
                config.pre_hook(full)
            self.fn.run(*args, **kwargs, **config.all_kwargs())
        # what Triton's run sets once it has timed them: the host code that reads the pick after the launch (Mamba-2's
        # state-passing backward sums its partials by ``best_config.kwargs["BLOCK_SIZE"]``) runs on
        self.best_config = configs[0]
        self.nargs = None

    patch_cuda_device()  # ``with torch.cuda.device(x.device.index):`` around a launch (Mamba's): nothing on the CPU
    JITFunction.run = compile_launch  # type: ignore[method-assign]
    Autotuner.run = every_config  # type: ignore[method-assign]
    pair = load_pair(kernel_py, reference_py)
    for entry in pair.shapes:
        shape.clear()
        shape.update(entry)
        inputs = build_inputs(pair, dict(entry), "cpu", 0)
        pair.candidate("cpu")(*inputs)  # as the harness calls it (an autograd Function's forward may need grad)
    return list(done.values())


def _heard_cache_hits() -> list[bool]:
    """A list each ``triton.compile`` of this process appends to whether it read its kernel from Triton's cache
    (Triton's ``knobs.compilation.listener``; a Triton without it appends nothing: every launch reads as compiled)."""
    import triton

    hits: list[bool] = []
    compilation = getattr(getattr(triton, "knobs", None), "compilation", None)
    if compilation is not None and hasattr(compilation, "listener"):

        def heard(*, cache_hit: bool = False, **_: Any) -> None:
            hits.append(cache_hit)

        compilation.listener = heard
    return hits


def _hinted(fn: Any, ptx: str, signature: dict[str, str]) -> list[VectorAccess]:
    """The vector accesses ``fn``'s PTX builds on its file's wrapped hints (:mod:`kernelopt.harness.vector_hints`);
    ``[]`` where its file cannot be read or hints nothing."""
    path = getattr(getattr(fn, "fn", None), "__code__", None)
    if path is None:
        return []
    try:
        source = Path(path.co_filename).read_text(encoding="utf-8")
    except OSError:
        return []
    hints = wrapped_hints(source)
    return hinted_vectors(ptx, source, path.co_filename, signature, hints) if hints else []


def spilled(cubin: bytes | None) -> int | None:
    """The registers a cubin spills as Triton's ``n_spills`` counts them on a GPU (the driver's local size in bytes
    over 4): the stack frame ``cuobjdump -res-usage`` gives (Triton's bundled one), over 4; the largest of its
    functions. ``None`` without a cubin or a ``cuobjdump`` that reads it. Checked against the H100 (2026-12-06,
    docs/gpu-runs/2026-12-06-h100-i/tablebound13_registers.json): fla_l2norm at D = 128 reads 1098, 1766 and 2406 here
    (BT = 128 on one warp, 256 on two, 256 on one), the figures the GPU's driver gave."""
    import re
    import tempfile

    from kernelopt.proc import run_command

    if not cubin:
        return None
    try:
        import triton.knobs

        tool = triton.knobs.nvidia.cuobjdump.path
    except Exception:  # a Triton without NVIDIA's tools: nothing reads the cubin
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cubin)
        done = run_command([tool, "-res-usage", str(path)], timeout_s=60.0)
    stacks = [int(m) for m in re.findall(r"STACK:(\d+)", done.stdout)] if done.returncode == 0 else []
    return max(stacks) // 4 if stacks else None


def _plain(value: Any) -> Any:
    return value if isinstance(value, bool | int | float | str) or value is None else repr(value)


def main(argv: Sequence[str]) -> int:
    """``python -m kernelopt.harness.target_compile sm_90 FOLDER...``: one JSON line a folder (a
    :class:`TargetReport`)."""
    import contextlib

    target, *folders = argv
    capability = parse_target(target)
    for folder in map(Path, folders):
        try:
            # what the kernel's own code and Triton print goes to stderr (a ptxas failure prints the PTX, whose
            # lines include a bare "{"; a run() may print a dict): stdout holds the reports alone (n41)
            with contextlib.redirect_stdout(sys.stderr):
                launches = target_launches(folder / "kernel.py", folder / "reference.py", capability)
            report = TargetReport(folder=str(folder), launches=launches)
        except Exception as exc:  # the folder's own fault (an import, get_inputs): one line, the next folder
            last = traceback.extract_tb(exc.__traceback__)[-1]
            where = f"{Path(last.filename).name}:{last.lineno}"
            report = TargetReport(folder=str(folder), problem=one_line(f"{type(exc).__name__}: {exc} ({where})", 400))
        print(REPORT_MARK + report.model_dump_json(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
