"""What the net behind the rules catches, what it refuses wrongly, and what it costs (kernelopt.tuning.net).

Usage::

    TRITON_INTERPRET=1 PYTHONPATH=src python benchmarks/net_catch.py cases [--rules off|on] [--only v1,v23]
    TRITON_INTERPRET=1 PYTHONPATH=src python benchmarks/net_catch.py corpus DIR [DIR ...]
    PYTHONPATH=src python benchmarks/net_catch.py sizes DIR [DIR ...]

``cases``: the variants of docs/faults.md (v1-v77, the folder and the pick that was written wrong), each pick
written as ``tune`` writes it (``--rules off``: ``guard_edit`` switched off, so every pick is written plainly, the
form each case wrote before its rule; ``on``: as main writes it), then checked as ``tune`` checks it before the
write (every ``SHAPES`` entry, then the net: :func:`kernelopt.tuning.folder._checked_edit`) in the session's own
workers on the CPU. One row a case: whether the written text differs from the original, passes the entries, and what
the net says, with its seconds.

``corpus``: every folder under the DIRs holding kernel.py and reference.py, each integer knob of the launch a session
tunes doubled and halved alone, written as ``tune`` writes it (rules on) and checked so. A net failure here is a
written kernel the rules let through: either a wrong kernel (a catch) or a false refusal (judge each by hand).
Prints one JSON line a pick and a summary.

``sizes``: every such folder whose net sizes (from its literal ``SHAPES``) differ between net10's value rule (every
integer key above 1 moved) and net11's reading of ``get_inputs`` and the module-level sizes; one JSON line a folder
that differs and a count. Reads the files only.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

REPO = Path(__file__).resolve().parents[1]
VARIANTS = REPO / "tests" / "data" / "variants"

HELPER_GRID = (
    '\n\ndef _grid(M, N, meta):\n    return (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))\n'
)
JIT_HELPERS = (
    "@triton.jit\ndef _load(ptr, offs):\n    return tl.load(ptr + offs)\n\n\n"
    "@triton.jit\ndef _store(ptr, offs, v):\n    tl.store(ptr + offs, v)\n\n\n"
)


def _helper_grid(source: str) -> str:
    local = '    def grid(meta):\n        return (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))\n\n'
    return (
        source.replace(local, "")
        .replace("import triton.language as tl\n", "import triton.language as tl\n" + HELPER_GRID, 1)
        .replace("transpose_kernel[grid](", "transpose_kernel[lambda meta: _grid(M, N, meta)](")
    )


def _jit_helpers(source: str) -> str:
    return (
        source.replace("@triton.jit\ndef bias_gelu_kernel", JIT_HELPERS + "@triton.jit\ndef bias_gelu_kernel")
        .replace("x = tl.load(x_ptr + offs)", "x = _load(x_ptr, offs)")
        .replace("b = tl.load(b_ptr + offs % n_cols)", "b = _load(b_ptr, offs % n_cols)")
        .replace("tl.store(y_ptr + offs, 0.5 * v * (1.0 + t))", "_store(y_ptr, offs, 0.5 * v * (1.0 + t))")
    )


def _ceiling_grid(source: str) -> str:
    return source.replace(
        '(triton.cdiv(n, meta["BLOCK_SIZE"]),)', '((n + meta["BLOCK_SIZE"] - 1) // meta["BLOCK_SIZE"],)'
    )


def _wide_chunk(source: str) -> str:
    """v65's chunks covered by a block of 1024, four times its 256: a pick of 256 wrong only past 256."""
    return source.replace("256", "1024")


Case = tuple[str, dict[str, int], Callable[[str], str] | None]
CASES: dict[str, Case] = {
    # case: (variant folder, the pick docs/faults.md names, the form's change of the folder's kernel.py)
    "v1": ("mm_evenk", {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 32}, None),
    "v2": ("transpose_rowmask", {"BLOCK_N": 32}, None),
    "v5": ("transpose_rowmask", {"BLOCK_N": 32}, _helper_grid),
    "v6": ("gelu_nomask", {"BLOCK_SIZE": 512}, _ceiling_grid),
    "v7": ("gelu_nomask", {"BLOCK_SIZE": 512}, _jit_helpers),
    "v8": ("transpose_helper_store", {"BLOCK_N": 32}, None),
    "v9": ("mm_flag_literal", {"BLOCK_K": 32}, None),
    "v10": ("mm_floor_count", {"BLOCK_K": 32}, None),
    "v11": ("mm_group_whole", {"GROUP_M": 4}, None),
    "v12": ("bp_helper_load", {"BLOCK_K": 64}, None),
    "v13": ("persist_grid_literal", {"NUM_SMS": 8}, None),
    "v14": ("softmax_helper_rows", {"BLOCK_SIZE": 128}, None),
    "v15": ("mm_group_autotune", {"GROUP_M": 4}, None),
    "v16": ("persist_autotune", {"NUM_SMS": 8}, None),
    "v17": ("splitk_grid_literal", {"SPLIT_K": 8}, None),
    "v18": ("sum_two_stage", {"BLOCK": 512}, None),
    "v19": ("pairs_one_block", {"BLOCK": 64}, None),
    "v20": ("row_max_fill", {"BLOCK": 256}, None),
    "v21": ("row_var_center", {"BLOCK": 256}, None),
    "v22": ("tile_lse_zero", {"BLOCK_N": 64}, None),
    "v23": ("grid_named_copy", {"BLOCK": 128}, None),
    "v24": ("hist_block", {"BLOCK": 512}, None),
    "v25": ("row_max_reduce", {"BLOCK": 256}, None),
    "v26": ("tile_sum_shared", {"BLOCK_M": 32}, None),
    "v27": ("splitk_parts", {"BLOCK_K": 8}, None),
    "v28": ("rows_one_block_atomic", {"BLOCK_M": 16}, None),
    "v29": ("rows_blockptr_one_block", {"BLOCK_N": 64}, None),
    # wrongkernel11 (v36, sort_pow2, is a table's row below every entry: one pick cannot show it; netgaps11's size
    # below the smallest entry fails it, tests/test_netgaps11_cases.py)
    "v37": ("flip_mirror", {"BLOCK": 256}, None),
    "v38": ("bp_inline", {"BLOCK_K": 64}, None),
    "v39": ("bp_rowmax", {"BLOCK_N": 128}, None),
    "v40": ("padded_rows", {"BLOCK_N": 256}, None),  # one row in every entry: caught at 3 rows (netgaps11)
    # wrongkernel12 (v41, v42, v44 and v46 went past the net before its quarter size)
    "v41": ("unroll_static", {"UNROLL": 6}, None),
    "v42": ("rowsum_unroll", {"BLOCK": 256}, None),
    "v43": ("chunks_row", {"CHUNKS": 2}, None),
    "v44": ("reshape_rows", {"BLOCK": 256}, None),
    "v45": ("pid_map_literal", {"BLOCK_N": 128}, None),
    "v46": ("splitk_range", {"BLOCK_K": 32}, None),
    # wrongkernel13 (v47-v50 are wrong only far past the largest entry: v47, v48 and v50 past four times it, v49 past
    # twice, its entries no powers of two; no size of the net reaches them, their rule keeps them out)
    "v47": ("parts_capped", {"BLOCK": 512}, None),
    "v48": ("parts_counted", {"BLOCK": 512}, None),  # v47 with the count computed in the second kernel
    "v49": ("last_tile_sum", {"BLOCK_N": 128}, None),  # a row's last program (its atomic count) covering the tiles
    "v50": ("parts_chunked", {"BLOCK": 512}, None),  # v47's partials summed in CHUNKS=4 blocks of PART=16
    # wrongkernel14 (the net's sizes sharing a factor with the pick's tile: no masks, the original's own block)
    "v51": ("block_literal_nomask", {"BLOCK": 256}, None),  # n61's form with a literal BLOCK
    "v52": ("tile2d_nomask", {"BLOCK_N": 8}, None),  # a 2-D tile, the columns' block grown from 4
    "v53": ("tile_two_knobs", {"TILE": 256}, None),  # TILE = BLOCK * UNROLL, computed from two settings
    "v54": ("row_module_size", {"BLOCK": 512}, None),  # the row a module-level HIDDEN = 1024 beside a rows key
    "v55": ("parts_unroll", {"UNROLL": 2}, None),  # v47 counted in tiles of BLOCK * UNROLL: no rule reads it
    # wrongkernel15 (a block over two keys' product: wrong only where both keys are off their multiples)
    "v56": ("flat2d_nomask", {"BLOCK": 64}, None),  # n61 over an M x N matrix read flat
    "v57": ("row_module_tuple", {"BLOCK": 512}, None),  # v54's row the last item of a module-level tuple
    "v58": ("pairs_split_nomask", {"BLOCK": 256}, None),  # n61's form through tl.reshape / tl.split / tl.join
    "v59": ("hist_bins_block", {"BINS": 128}, None),  # tl.histogram's bins a block every code must fall below
    # wrongkernel16 (a far size of a module-level size: the keys' far ladders never moved one)
    "v60": ("parts_module", {"BLOCK": 512}, None),  # v47's two stages over rows of a module-level HIDDEN = 4096
    "v61": ("moe_pow2_experts", {"BLOCK_E": 4}, None),  # a small key (2 and 4 experts) in one block, powers of two
    "v62": ("qknorm_heads", {"BLOCK_H": 8}, None),  # heads in one block: a key dividing hidden, a dimension itself
    "v63": ("hist_mod_bins", {"BINS": 128}, None),  # v59 with codes torch.arange(n) * 7919 % n_bins
    "v64": ("groupnorm_groups", {"BLOCK_G": 8}, None),  # a group norm's groups in one block, G handed to run()
    # wrongkernel17 (a plain integer handed to run(), kept by the net; no rule reads a scan's missing carry)
    "v65": ("chunk_cumsum_int", {"BLOCK": 64}, None),  # chunks scanned by blocks with no carry, the chunk an int
    "v66": ("scan_pow2_rows", {"BLOCK": 256}, None),  # v65's scan over rows 2 ** log_cols long, a key moved by one
    "v67": ("chunk_cumsum_int", {"BLOCK": 256}, _wide_chunk),  # v65 in a block of 1024: wrong past 4 times the entries
    "v68": ("chunk_cumsum_small", {"BLOCK": 4}, None),  # v65's chunk a power of two of at most 8 (a small key)
    # open: split 0 stores, the others add; right in the interpreter (programs in order), a race on a GPU
    "v69": ("splitk_store_first", {"SPLIT_K": 2}, None),
    # wrongkernel18 (a larger block asks more of the size: raises below the smallest entry, where the original runs)
    "v70": ("programs_floor", {"BLOCK": 1024}, None),  # b17: assert cdiv(n, BLOCK) >= 8, the net looked no lower than
    # half the smallest entry
    "v71": ("programs_module_size", {"BLOCK": 1024}, None),  # v70 over a module-level N = 32768, no SHAPES
    "v72": ("chunk_parts_seeded", {"BLOCK": 1024}, None),  # at least 4 programs a chunk; the chunk seeds and is passed
    "v73": ("rows_programs_floor", {"BLOCK_M": 128}, None),  # rows' floor where the columns' rungs are refused
    "v74": ("programs_pow2_floor", {"BLOCK": 1024}, None),  # v70 over 1 << log_n elements: an exponent's floor
    "v75": ("programs_vec8_floor", {"BLOCK": 1024}, None),  # v70 with n % 8 == 0 over entries of 100000, 200000
    "v76": ("programs_rgb_floor", {"BLOCK": 1024}, None),  # v70 with n % 3 == 0: the halvings keep the 3
    # floor18 (break18 b22's form past its stand-in: a modulus above 64 no halving nor rounding meets)
    "v77": ("programs_mod1000_floor", {"BLOCK": 512}, None),  # v70 with n % 1000 == 0: the entries' divisors
    # wrongkernel19 (the rest after whole blocks in one masked block of another knob: wrong where the rest is long)
    "v78": ("tail_block_knob", {"BLOCK": 256, "TAIL": 128}, None),  # the block grown past what TAIL covers
    "v79": ("tail_block_knob", {"BLOCK": 128, "TAIL": 64}, None),  # TAIL shrunk below what the block leaves
    # wrongkernel20 (a pick read only on the path of a key's other value: each size was taken at the primary's)
    "v83": ("layout_two_kernels", {"BLOCK_K": 32}, None),  # the transposed input's kernel (transposed 0 and 1)
    "v84": ("heads_one_path", {"BLOCK_D": 32}, None),  # one head's kernel (a divisor, heads 4 and 1)
    "v85": ("op_code_reshape", {"BLOCK": 256}, None),  # op 1's kernel (a small code handed to run(), op 1 and 2)
    "v86": ("op_code_tens", {"BLOCK": 256}, None),  # v85 with the codes 10 and 20, above the small key
    "v87": ("packed_budget", {"BLOCK": 32}, None),  # a shrunk block the short rows' path divides by (below the entries)
    # wrongkernel21 (a tile counted on a grid's second axis, at most 65535 programs on a GPU, read only as cdiv itself)
    "v88": ("grid_axis1_local", {"BLOCK": 256}, None),  # the count bound to a local first: now guarded
    "v89": ("grid_heads_product", {"BLOCK": 256}, None),  # the count times the heads: now not written
    "v90": ("grid_def_axis1", {"BLOCK": 256}, None),  # the grid a function the launcher defines: now guarded
    "v91": ("grid_floor_axis1", {"BLOCK": 256}, None),  # the count by floor, no masks: now guarded
    "v92": ("grid_unroll_axis1", {"BLOCK": 64}, None),  # the count of a product of settings: now guarded
    "v93": ("parts_workspace", {"BLOCK": 256}, None),  # a host assert bounding the count of partials: now refused
    "v94": ("grid_ceil_helper", {"BLOCK": 256}, None),  # the count by the module's own ceil_div: now guarded
}


def _plain(old: str, new: str, **_: Any) -> Any:
    from kernelopt.tunables.guard import Guarded

    return Guarded(new_source=new, note=None)


def checked_pick(folder: Path, pick: dict[str, Any], *, rules: bool = True) -> dict[str, Any]:
    """The edit ``tune`` writes when its session picks ``pick`` (:func:`kernelopt.tuning.folder._checked_edit`, the
    entries' check and the net, in the session's workers; the session as tests/test_tuning_net.py builds it), with
    ``guard_edit`` switched off unless ``rules``."""
    from tests.test_tuning_net import _evaluator, _session

    from kernelopt.tuning import folder as tf

    with mock.patch.object(tf, "guard_edit", tf.guard_edit if rules else _plain):
        prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
        current = prepared.space.current()
        tuning = _session(prepared, [(pick, 1.0)], (current.as_dict() if current is not None else {}, 2.0))
        plain, _ = tf.shaped_edit(tuning)
        with _evaluator(prepared) as evaluator:
            evaluator.start()
            t0 = time.perf_counter()
            done = tf._checked_edit(tuning, evaluator)
            wall = time.perf_counter() - t0
    net = done.net
    kinds = dict.fromkeys(c.kind.value for c in net.checks) if net is not None else {}
    return {
        "moved": plain is not None and plain.new_source != prepared.base_source,
        "written": done.edit is not None,
        "note": done.edit_note,
        "net": net.line() if net is not None else None,
        "net_failed": net is not None and net.failed is not None,
        "net_s": round(net.seconds, 2) if net is not None else None,
        "kinds_s": {k: round(sum(c.seconds for c in net.checks if c.kind == k), 2) for k in kinds},
        "check_s": round(wall, 2),
    }


def run_cases(rules: bool, only: list[str]) -> None:
    caught = 0
    for case, (name, pick, form) in CASES.items():
        if only and case not in only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(shutil.copytree(VARIANTS / name, Path(tmp) / name))
            if form is not None:
                kernel = folder / "kernel.py"
                kernel.write_text(form(kernel.read_text()))
            row = checked_pick(folder, pick, rules=rules)
        caught += row["net_failed"]
        print(json.dumps({"case": case, "variant": name, "pick": pick, "rules": rules, **row}), flush=True)
    print(json.dumps({"net_failed": caught}))


def _picks(folder: Path, label: str = "") -> list[dict[str, int]]:
    """Each integer knob of the launch a session tunes, doubled and halved alone (legal values only), less those the
    kernel's autotune list's own filter rejects (:func:`_screened`: a session sets them aside untimed, never a pick)."""
    from kernelopt.numeric import is_int
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    current = prepared.space.current()
    out = []
    for knob in prepared.space.knobs:
        value = current.get(knob.name) if current is not None else None
        if not is_int(value):
            continue
        for moved in (value * 2, value // 2):
            if moved != value and moved in knob.values:
                pick = {knob.name: moved}
                why = _screened(folder, prepared.screen, {**(current.as_dict() if current else {}), **pick})
                if why is None:
                    out.append(pick)
                else:
                    print(json.dumps({"folder": label or str(folder), "pick": pick, "screened": why}), flush=True)
    return out


def _screened(folder: Path, screen: Any, config: dict[str, Any]) -> str | None:
    """Why the autotune list's own filters (``screen``: :attr:`kernelopt.tuning.folder.PreparedFolder.screen`) reject
    ``config``, as the bench worker judges a candidate (:func:`kernelopt.tuning.list_screen.screen_loaded`), on
    kernel.py's module with its autotuner holding that config alone; ``None`` when they keep it (or there are none).
    breaker8's fa2_causal: ``BLOCK_M=32, BLOCK_N=64`` fails its ``keep`` (``BLOCK_M % BLOCK_N == 0``)."""
    if screen is None or not screen.filters:
        return None
    import importlib.util

    import triton

    from kernelopt.tuning.list_screen import _autotuner, screen_loaded

    spec = importlib.util.spec_from_file_location(f"net_catch_{folder.name}", folder / "kernel.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tuner = _autotuner(module, screen.kernel)
    if tuner is None:
        return None
    options = {k: config[k] for k in ("num_warps", "num_stages") if isinstance(config.get(k), int)}
    tuner.configs = [triton.Config({k: v for k, v in config.items() if k not in options}, **options)]
    return screen_loaded(module, screen)


def run_corpus(dirs: list[Path]) -> None:
    from kernelopt.errors import KerneloptError

    folders = sorted({k.parent for d in dirs for k in d.rglob("kernel.py") if (k.parent / "reference.py").is_file()})
    rows: list[dict[str, Any]] = []
    for src in folders:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(shutil.copytree(src, Path(tmp) / src.name))
            try:
                picks = _picks(folder, str(src))
            except (KerneloptError, Exception) as exc:  # a folder tune refuses: not the net's
                print(json.dumps({"folder": str(src), "skipped": f"{type(exc).__name__}: {exc}"[:200]}), flush=True)
                continue
            for pick in picks:
                try:
                    row = checked_pick(folder, pick)
                except (KerneloptError, Exception) as exc:
                    row = {"error": f"{type(exc).__name__}: {exc}"[:200]}
                rows.append({"folder": str(src), "pick": pick, **row})
                print(json.dumps(rows[-1]), flush=True)
    netted = [r for r in rows if r.get("net_s") is not None]
    summary = {
        "folders": len(folders),
        "picks": len(rows),
        "written_before_net": sum(1 for r in rows if r.get("written") or r.get("net_failed")),
        "net_cast": len(netted),
        "net_failed": sum(1 for r in rows if r.get("net_failed")),
        "net_s_median": sorted(r["net_s"] for r in netted)[len(netted) // 2] if netted else None,
        "net_s_max": max((r["net_s"] for r in netted), default=None),
    }
    print(json.dumps(summary))


def run_sizes(dirs: list[Path]) -> None:
    from kernelopt.harness.sizekeys import key_roles
    from kernelopt.harness.sizes import module_sizes
    from kernelopt.tuning.net import derived_sizes
    from kernelopt.tuning.problem import ProblemShape, literal_shapes

    def labels(sizes: list[Any]) -> list[tuple[str, list[str]]]:
        return [(s.kind.value, [t.label() for t in s.tries]) for s in sizes]

    folders = sorted({k.parent for d in dirs for k in d.rglob("kernel.py") if (k.parent / "reference.py").is_file()})
    changed = 0
    for folder in folders:
        reference = folder / "reference.py"
        try:
            entries = literal_shapes(reference) or [{}]
            shapes = [ProblemShape(kwargs=e) for e in entries]
        except Exception:  # a SHAPES tune refuses (not the net's)
            continue
        old = labels(derived_sizes(shapes))
        new = labels(derived_sizes(shapes, (), key_roles(reference.read_text()), module_sizes(reference)))
        if old != new:
            changed += 1
            print(json.dumps({"folder": str(folder), "value_rule": old, "read": new}), flush=True)
    print(json.dumps({"folders": len(folders), "changed": changed}))


def main() -> None:
    sys.path.insert(0, str(REPO))  # tests.test_tuning_net's session and evaluator
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    cases = sub.add_parser("cases")
    cases.add_argument("--rules", choices=["off", "on"], default="off")
    cases.add_argument("--only", default="")
    corpus = sub.add_parser("corpus")
    corpus.add_argument("dirs", nargs="+", type=Path)
    sizes = sub.add_parser("sizes")
    sizes.add_argument("dirs", nargs="+", type=Path)
    args = parser.parse_args()
    if args.what == "cases":
        run_cases(args.rules == "on", [c for c in args.only.split(",") if c])
    elif args.what == "sizes":
        run_sizes(args.dirs)
    else:
        run_corpus(args.dirs)


if __name__ == "__main__":
    sys.exit(main())
