"""vLLM's Triton ``reshape_and_cache_flash`` (vllm/attention/ops/triton_reshape_and_cache_flash.py): each token's
key and value rows written IN PLACE into a paged cache (num_blocks, block_size, heads, head_size) at the slot
``slot_mapping`` names, a negative slot a padding token left out (an early ``return``); strides annotated
``tl.int64`` in the signature; "heuristics instead of autotuning": ``TILE_SIZE = min(2048, next_power_of_2(n))``,
capped at 512 on a GPU older than sm_90, ``num_warps = 16`` and ``num_stages = 10`` on CUDA (``8`` and ``4`` on ROCm
or XPU); the grid ``lambda meta: (int(num_tokens), cdiv(n, meta["TILE_SIZE"]))``; ``FP8_KV_CACHE`` a constexpr flag
of the cache's dtype (off here: ``kv_cache_dtype="auto"``)."""

import torch
import triton
import triton.language as tl


def _is_rocm_or_xpu():
    return torch.version.hip is not None or (hasattr(torch, "xpu") and torch.xpu.is_available())


@triton.jit
def reshape_and_cache_kernel_flash(
    key_ptr,  # [num_tokens, num_heads, head_size]
    value_ptr,  # [num_tokens, num_heads, head_size]
    key_cache_ptr,  # [num_blocks, block_size, num_heads, head_size]
    value_cache_ptr,  # [num_blocks, block_size, num_heads, head_size]
    slot_mapping_ptr,  # [num_tokens]
    k_scale,  # float32
    v_scale,  # float32
    # strides
    key_stride: tl.int64,
    value_stride: tl.int64,
    block_stride: tl.int64,
    page_stride: tl.int64,
    num_heads: tl.constexpr,
    head_size: tl.constexpr,
    block_size: tl.constexpr,
    # FP8 flags
    FP8_KV_CACHE: tl.constexpr,
    # tune parameters
    TILE_SIZE: tl.constexpr,
):
    token_idx = tl.program_id(axis=0)
    slot_idx = tl.load(slot_mapping_ptr + token_idx).to(tl.int64)
    if slot_idx < 0:
        # Padding token that should be ignored.
        return

    tile_i = tl.program_id(axis=1)
    tile_offs = tl.arange(0, TILE_SIZE)
    tile_pos = tile_i * TILE_SIZE + tile_offs

    block_idx = slot_idx // block_size
    block_offset = slot_idx % block_size

    src_key_idx = token_idx * key_stride
    src_value_idx = token_idx * value_stride

    tgt_idx = block_idx * block_stride + block_offset * page_stride

    # [TILE_SIZE]
    key_load = tl.load(key_ptr + src_key_idx + tile_pos, mask=tile_pos < (num_heads * head_size))
    if FP8_KV_CACHE:
        key_tile = key_load / tl.load(k_scale)
    else:
        key_tile = key_load

    # [TILE_SIZE]
    value_load = tl.load(value_ptr + src_value_idx + tile_pos, mask=tile_pos < (num_heads * head_size))
    if FP8_KV_CACHE:
        value_tile = value_load / tl.load(v_scale)
    else:
        value_tile = value_load

    tl.store(key_cache_ptr + tgt_idx + tile_pos, key_tile, mask=tile_pos < (num_heads * head_size))
    tl.store(value_cache_ptr + tgt_idx + tile_pos, value_tile, mask=tile_pos < (num_heads * head_size))


def triton_reshape_and_cache_flash(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype, k_scale, v_scale):
    num_tokens = key.shape[0]
    num_heads = key.shape[1]
    head_size = key.shape[2]
    block_size = key_cache.shape[1]
    n = num_heads * head_size

    key_stride = key.stride()[0]
    value_stride = value.stride()[0]
    block_stride = key_cache.stride()[0]
    page_stride = key_cache.stride()[1]

    head_stride = key_cache.stride()[2]
    assert head_stride == head_size, "only continous heads are supported"

    assert kv_cache_dtype == "auto" or kv_cache_dtype.startswith("fp8"), f"unsupported kv_cache_dtype {kv_cache_dtype}"
    FP8_KV_CACHE = kv_cache_dtype != "auto"

    # heuristics instead of autotuning
    TILE_SIZE = min(2048, triton.next_power_of_2(n))
    if _is_rocm_or_xpu():
        num_stages = 4
        num_warps = 8
    else:  # cuda
        num_stages = 10
        num_warps = 16
        if key.device.type == "cuda" and torch.cuda.get_device_capability(key.device)[0] < 9:
            TILE_SIZE = min(512, TILE_SIZE)

    # TODO(ngl): maybe replace with static launch grid to avoid overhead if
    #   using cudagraphs
    grid = lambda meta: (int(num_tokens), triton.cdiv(n, meta["TILE_SIZE"]))  # noqa: E731

    reshape_and_cache_kernel_flash[grid](
        key_ptr=key,
        value_ptr=value,
        key_cache_ptr=key_cache,
        value_cache_ptr=value_cache,
        slot_mapping_ptr=slot_mapping,
        k_scale=k_scale,
        v_scale=v_scale,
        # strides
        key_stride=key_stride,
        value_stride=value_stride,
        block_stride=block_stride,
        page_stride=page_stride,
        num_heads=num_heads,
        head_size=head_size,
        block_size=block_size,
        # FP8 flags
        FP8_KV_CACHE=FP8_KV_CACHE,
        # autotune parameters
        TILE_SIZE=TILE_SIZE,
        num_warps=num_warps,
        num_stages=num_stages,
    )


def run(key, value, key_cache, value_cache, slot_mapping, k_scale, v_scale):
    triton_reshape_and_cache_flash(key, value, key_cache, value_cache, slot_mapping, "auto", k_scale, v_scale)
    return key_cache, value_cache
