"""Row softmax as FlagGems writes its inner-dimension softmax: the launch settings come from named heuristic
functions looked up by op name in a config table (their runtime.get_heuristic_config), num_warps among them, and
the kernel sits under a libentry()-style decorator that caches the launch per argument signature. One tile covers
the row when the row fits (ONE_TILE_PER_CTA); longer rows are walked with an online max and sum. The caps are
the interpreter-sized versions of the library's 32K / 4096."""

import torch
import triton
import triton.language as tl


def heur_tile_n_inner(args):
    if args["N"] <= 256:
        return triton.next_power_of_2(args["N"])
    else:
        return 128


def heur_one_tile_per_cta(args):
    return args["TILE_N"] >= args["N"]


def heur_num_warps_inner(args):
    tile_size = args["TILE_N"]
    if tile_size < 2048:
        return 4
    elif tile_size < 4096:
        return 8
    else:
        return 16


HEURISTICS_CONFIGS = {
    "softmax_inner": {
        "TILE_N": heur_tile_n_inner,
        "ONE_TILE_PER_CTA": heur_one_tile_per_cta,
        "num_warps": heur_num_warps_inner,
    },
}


def get_heuristic_config(op_name):
    return HEURISTICS_CONFIGS[op_name]


class LibEntry:
    """A thin wrapper over a Triton kernel that remembers the signatures it has launched (the library's libentry
    skips Triton's argument binding on a cache hit; this keeps only the shape of that idea)."""

    def __init__(self, fn):
        self.fn = fn
        self.seen = set()

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self.seen.add(tuple(a.dtype if isinstance(a, torch.Tensor) else a for a in args))
            return self.fn[grid](*args, **kwargs)

        return launch


def libentry():
    def decorator(fn):
        return LibEntry(fn)

    return decorator


@libentry()
@triton.heuristics(get_heuristic_config("softmax_inner"))
@triton.jit
def softmax_kernel_inner(output_ptr, input_ptr, M, N, TILE_N: tl.constexpr, ONE_TILE_PER_CTA: tl.constexpr):
    pid_m = tl.program_id(0)
    if ONE_TILE_PER_CTA:
        n_offsets = tl.arange(0, TILE_N)
        offset = pid_m * N + n_offsets
        mask = n_offsets < N
        inp = tl.load(input_ptr + offset, mask=mask, other=-float("inf")).to(tl.float32)
        m = tl.max(inp, 0)
        e = tl.exp(inp - m)
        z = tl.sum(e, 0)
        tl.store(output_ptr + offset, e / z, mask=mask)
    else:
        m = tl.full([TILE_N], value=float("-inf"), dtype=tl.float32)
        z = tl.full([TILE_N], value=0.0, dtype=tl.float32)
        for start_n in range(0, N, TILE_N):
            n_offsets = start_n + tl.arange(0, TILE_N)
            mask = n_offsets < N
            inp = tl.load(input_ptr + pid_m * N + n_offsets, mask=mask, other=-float("inf")).to(tl.float32)
            m_new = tl.maximum(m, inp)
            all_neg_inf = m_new == float("-inf")
            z = tl.where(all_neg_inf, z, z * tl.exp(m - m_new) + tl.exp(inp - m_new))
            m = m_new
        m_reduced = tl.max(m, 0)
        z = tl.sum(z * tl.exp(m - m_reduced), 0)
        m = m_reduced
        for start_n in range(0, N, TILE_N):
            n_offsets = start_n + tl.arange(0, TILE_N)
            mask = n_offsets < N
            inp = tl.load(input_ptr + pid_m * N + n_offsets, mask=mask, other=-float("inf")).to(tl.float32)
            tl.store(output_ptr + pid_m * N + n_offsets, tl.exp(inp - m) / z, mask=mask)


def run(x):
    M, N = x.shape
    out = torch.empty_like(x)
    grid = (M, 1, 1)
    softmax_kernel_inner[grid](out, x, M, N)
    return out
