"""flash-linear-attention's KDA gate, forward (``fla/ops/kda/gate.py`` with ``fla/ops/utils/cache.py``,
``fla/ops/utils/op.py``, ``fla/ops/utils/softplus.py`` and ``fla/utils``, MIT; Moonshot AI's Kimi Delta Attention):
``g = -exp(A_log) * softplus(g + dt_bias)`` per head, one program ``BT`` tokens of one head. The launch settings come
from FLA's OWN AUTOTUNER: ``@fla_cache_autotune(configs=[comprehension of BT x num_warps x num_stages], key=["H",
"D"], **autotune_cache_kwargs)``, a ``triton.runtime.autotuner.Autotuner`` subclass (``CachedAutotuner``) whose
``run`` first looks the call's key (H, D and every tensor argument's dtype) up in a JSON FILE
``configs/<GPU name>/kda_gate_fwd_kernel.json`` beside the module (the GPU name from an ``lru_cache``d
``get_gpu_info()``: ``cpu`` off a GPU, ``NVIDIA_H100_80GB_HBM3`` ...), by the md5 of the key, then fuzzily (numbers
ignored), then the file's ``default_config``, by ``FLA_CACHE_MODE``; a found config is put in the autotuner's cache,
so Triton's own benchmark never runs for that key; else Triton autotunes the 24 configs. Over it
``@triton.heuristics`` of four flags from ``None`` arguments; ``@triton.jit(do_not_specialize=['T'])``; the program id
cast to int64 (``.to(tl.int64)``) before the offsets; ``BD=triton.next_power_of_2(K)`` and every argument by
keyword; a named ``def grid(meta)`` reading ``meta["BT"]``.

The trial's user runs with ``FLA_CACHE_MODE=full`` (set below, as a launcher's environment would) and ships tuned
files for the CPU, an H100 and an H200 (``configs/``). Cut to the forward and to what it reaches: FLA's ``dispatch``
/ ``input_guard`` / autocast decorators, the backward and the cumsum kernel left out; ``CachedAutotuner``'s lookup
kept as written, its hooks' None-safety and logging trimmed. ``IS_NVIDIA`` (which picks the inline-PTX softplus) is
off in Triton's interpreter, which cannot run inline assembly."""

import dataclasses
import enum
import hashlib
import json
import os
import re
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import torch
import triton
import triton.language as tl
from packaging import version
from triton.runtime.autotuner import Autotuner

os.environ.setdefault("FLA_CACHE_MODE", "full")

# ---------------------------------------------------------------------------------------- fla.utils

device_platform = "cuda" if torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1" else "cpu"
IS_AMD = device_platform == "hip"
IS_NVIDIA = device_platform == "cuda"
TRITON_ABOVE_3_5_1 = version.parse(triton.__version__) >= version.parse("3.5.1")
TRITON_ABOVE_3_4_0 = version.parse(triton.__version__) >= version.parse("3.4.0")
FLA_CACHE_RESULTS = os.getenv('FLA_CACHE_RESULTS', '1') == '1'
SUPPORTS_AUTOTUNE_CACHE = "cache_results" in __import__("inspect").signature(triton.autotune).parameters
autotune_cache_kwargs = {"cache_results": FLA_CACHE_RESULTS} if SUPPORTS_AUTOTUNE_CACHE else {}

# ---------------------------------------------------------------------------------------- fla.ops.utils.cache


class FlaCacheMode(enum.Enum):
    """How FLA reads kernel configs from its config files (FLA_CACHE_MODE).

    DISABLED    — no lookup, Triton autotunes (the default when FLA_CACHE_MODE is unset)
    STRICT      — the exact key only
    FUZZY       — the exact key, then a key alike but for its numbers
    FULL        — exact, fuzzy, then the file's default_config
    DEFAULT     — the file's default_config only
    ALWAYS      — DEFAULT, the file read again on every call
    """
    DISABLED = "disabled"
    STRICT = "strict"
    FUZZY = "fuzzy"
    FULL = "full"
    DEFAULT = "default"
    ALWAYS = "always"

    @classmethod
    def from_env(cls) -> "FlaCacheMode":
        mode_str = os.environ.get("FLA_CACHE_MODE", cls.DISABLED.value)
        try:
            return cls(mode_str)
        except ValueError:
            valid = [m.value for m in cls]
            raise ValueError(
                f"Invalid FLA_CACHE_MODE={mode_str!r}. Valid values: {valid}"
            ) from None


FLA_CACHE_MODE: FlaCacheMode = FlaCacheMode.from_env()


def sanitize_gpu_name(gpu_name: str) -> str:
    sanitized = re.sub(r"[^0-9A-Za-z]+", "_", gpu_name)
    sanitized = sanitized.strip("_")
    return sanitized or "unknown_gpu"


@lru_cache(maxsize=1)
def get_gpu_info():
    """The GPU's model as a file-name-safe string (FLA_GPU_NAME first, then the device, else "cpu")."""
    gpu_name = None
    if "FLA_GPU_NAME" in os.environ:
        gpu_name = os.environ["FLA_GPU_NAME"]
    elif torch.cuda.is_available():
        gpu_name = torch.cuda.get_device_name(0)
    elif hasattr(torch, 'xpu') and torch.xpu.is_available():
        gpu_name = torch.xpu.get_device_name(0)

    if gpu_name:
        return sanitize_gpu_name(gpu_name)

    return "cpu"


def get_fla_config_dir() -> Path:
    """FLA's configs directory: $FLA_CONFIG_DIR, else configs/{GPU}/ beside the package (here: beside this file)."""
    if "FLA_CONFIG_DIR" in os.environ:
        return Path(os.environ["FLA_CONFIG_DIR"])

    project_dir = Path(__file__).parent
    return project_dir / "configs" / get_gpu_info()


@dataclasses.dataclass(frozen=True)
class AutotuneKey:
    """Autotune key with exact/fuzzy matching, serialization, and construction helpers."""
    autotune_key: tuple[Any, ...]

    @staticmethod
    def normalize_autotune_key(value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [AutotuneKey.normalize_autotune_key(v) for v in value]
        if isinstance(value, dict):
            return {k: AutotuneKey.normalize_autotune_key(v) for k, v in value.items()}
        return value

    @staticmethod
    def serialize(key: Any) -> str:
        return json.dumps(AutotuneKey.normalize_autotune_key(key), separators=(",", ":"), sort_keys=True)

    @staticmethod
    def key_hash(key: Any) -> str:
        return hashlib.md5(AutotuneKey.serialize(key).encode()).hexdigest()

    @staticmethod
    def is_numeric(value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    @staticmethod
    def keys_fuzzy_match(cached_key: Any, requested_key: Any) -> bool:
        # numbers match any numbers (a config tuned at seq_len=1024 serves 2048); the structure must match
        if AutotuneKey.is_numeric(cached_key) and AutotuneKey.is_numeric(requested_key):
            return True
        if isinstance(cached_key, (list, tuple)) and isinstance(requested_key, (list, tuple)):
            return len(cached_key) == len(requested_key) and all(
                AutotuneKey.keys_fuzzy_match(c, r) for c, r in zip(cached_key, requested_key)
            )
        if isinstance(cached_key, dict) and isinstance(requested_key, dict):
            return cached_key.keys() == requested_key.keys() and all(
                AutotuneKey.keys_fuzzy_match(cached_key[k], requested_key[k]) for k in cached_key
            )
        return cached_key == requested_key

    @classmethod
    def build(
        cls,
        arg_names: list[str],
        key_names: list[str],
        positional_args: tuple[Any, ...],
        runtime_kwargs: dict[str, Any],
    ) -> "AutotuneKey":
        named_args = dict(zip(arg_names, positional_args))
        all_args = {**named_args, **runtime_kwargs}
        tracked_args = {k: v for (k, v) in all_args.items() if k in arg_names}
        tuning_key = [tracked_args[name] for name in key_names if name in tracked_args]
        for arg in tracked_args.values():
            if hasattr(arg, "dtype"):
                tuning_key.append(str(arg.dtype))
        return cls(autotune_key=tuple(tuning_key))

    def exact_matches(self, entry_key: Any) -> bool:
        return self.serialize(self.autotune_key) == self.serialize(entry_key)

    def fuzzy_matches(self, entry_key: Any) -> bool:
        self_normalized = self.normalize_autotune_key(self.autotune_key)
        entry_normalized = self.normalize_autotune_key(entry_key)
        return (
            isinstance(self_normalized, list)
            and isinstance(entry_normalized, list)
            and len(self_normalized) == len(entry_normalized)
            and AutotuneKey.keys_fuzzy_match(self_normalized, entry_normalized)
        )


@cache
def load_config_file(config_file: Path) -> dict[str, Any] | None:
    try:
        with open(config_file) as f:
            return json.load(f)
    except Exception:
        return None


def load_cached_config(kernel_name: str, autotune_key: AutotuneKey | None = None) -> dict[str, Any] | None:
    """The cached best config of a kernel from get_fla_config_dir()/{kernel_name}.json, by FLA_CACHE_MODE (an
    entry of the call's key, exact then fuzzy, then the file's default_config), or None: Triton autotunes."""
    if FLA_CACHE_MODE is FlaCacheMode.DISABLED:
        return None

    config_dir = get_fla_config_dir()
    config_file = config_dir / f"{kernel_name}.json"

    if not config_file.exists():
        return None

    config_data = load_config_file(config_file)
    if config_data is None:
        return None
    entries = config_data.get("autotune_entries")
    default_config = config_data.get("default_config")

    if FLA_CACHE_MODE is FlaCacheMode.DEFAULT or FLA_CACHE_MODE is FlaCacheMode.ALWAYS:
        return default_config

    if autotune_key is not None and entries is not None:
        entry = entries.get(AutotuneKey.key_hash(autotune_key.autotune_key))
        if entry is not None:
            return entry["config"]
        if FLA_CACHE_MODE is FlaCacheMode.STRICT:
            return None
        for entry in entries.values():
            if autotune_key.fuzzy_matches(entry.get("autotune_key")):
                return entry["config"]

    if FLA_CACHE_MODE is FlaCacheMode.FUZZY or FLA_CACHE_MODE is FlaCacheMode.STRICT:
        return None

    # FULL: the default_config, then a legacy file of one raw config
    if default_config is not None:
        return default_config
    if entries is not None:
        return None
    return config_data


class CachedAutotuner(Autotuner):
    """Triton's Autotuner, whose run first loads the best config from FLA's config directory."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs):
        super().__init__(fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs)
        self.kernel_name = fn.fn.__name__ if hasattr(fn, 'fn') else fn.__name__

    def should_check_fla_cache(self, key: AutotuneKey) -> bool:
        if FLA_CACHE_MODE is FlaCacheMode.DISABLED:
            return False
        if FLA_CACHE_MODE is FlaCacheMode.ALWAYS:
            return True
        return key.autotune_key not in self.cache

    def run(self, *args, **kwargs):
        key = AutotuneKey.build(self.arg_names, self.keys, args, kwargs)
        if self.should_check_fla_cache(key):
            self.maybe_load_cached_config(key)
        return super().run(*args, **kwargs)

    def maybe_load_cached_config(self, key: AutotuneKey):
        best_config = load_cached_config(self.kernel_name, key)

        if best_config is not None:
            kw = best_config["kwargs"]
            num_warps = best_config["num_warps"]
            num_stages = best_config["num_stages"]

            extra = {
                "num_ctas": best_config["num_ctas"],
                "maxnreg": best_config.get("maxnreg"),
                "pre_hook": None,
                "ir_override": best_config.get("ir_override"),
            } if TRITON_ABOVE_3_5_1 else {}
            cfg = triton.Config(kw, num_warps=num_warps, num_stages=num_stages, **extra)

            self.cache[key.autotune_key] = cfg


def fla_cache_autotune(configs, key=None, prune_configs_by=None, reset_to_zero=None, restore_value=None,
                       pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
                       do_bench=None, cache_results=False):
    """triton.autotune with FLA's config files (configs/{GPU}/{kernel_name}.json, by FLA_CACHE_MODE); Triton
    autotunes where no file gives the call's config."""
    if key is None:
        key = []

    def decorator(fn):
        kwargs = {}
        if TRITON_ABOVE_3_4_0:
            kwargs = {"cache_results": cache_results}

        return CachedAutotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                               pre_hook=pre_hook, post_hook=post_hook,
                               prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                               use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                               **kwargs,
                               )

    return decorator

# ---------------------------------------------------------------------------------------- fla.ops.utils


@triton.jit
def exp(x): return tl.exp(x.to(tl.float32))


def _generate_softplus(num_pack):
    template = """
        .reg .pred p;
        setp.gt.f32  p, ${in_reg}, 20.;
        @p  mov.f32  ${out_reg}, ${in_reg};
        @!p mul.f32            ${out_reg}, ${in_reg}, 1.4426950408889634;
        @!p ex2.approx.ftz.f32 ${out_reg}, ${out_reg};
        @!p add.f32            ${out_reg}, ${out_reg}, 1.0;
        @!p lg2.approx.ftz.f32 ${out_reg}, ${out_reg};
        @!p mul.f32            ${out_reg}, ${out_reg}, 0.6931471805599453;
    """
    out_str = ""

    for i in range(num_pack):
        inner_str = template.format(out_reg=i, in_reg=i + num_pack)
        out_str += "{" + inner_str + "}\n"
    # one line: torch.compile dislikes the newlines
    out_str = " ".join(out_str.split("\n"))
    return out_str


def _generate_constraints(num_pack):
    return ",".join("=r" for i in range(num_pack)) + "," + ",".join("r" for i in range(num_pack))


_NUM_REG = 1
s_softplus: tl.constexpr = tl.constexpr(_generate_softplus(_NUM_REG))
s_constraints: tl.constexpr = tl.constexpr(_generate_constraints(_NUM_REG))
NUM_REG: tl.constexpr = tl.constexpr(_NUM_REG)


@triton.jit
def softplus_nv(x):
    # tl.where(x < 20.0, tl.math.log(1 + tl.math.exp(x)), x), in PTX
    return tl.inline_asm_elementwise(
        asm=s_softplus,
        constraints=s_constraints,
        pack=NUM_REG,
        args=[
            x,
        ],
        dtype=tl.float32,
        is_pure=True,
    )


@triton.jit
def softplus_triton(x):
    return tl.where(x < 20.0, tl.math.log(1 + tl.math.exp(x)), x)


if IS_NVIDIA:
    softplus = softplus_nv
else:
    softplus = softplus_triton

# ---------------------------------------------------------------------------------------- fla.ops.kda.gate

BT_LIST_AUTOTUNE = [32, 64, 128]
NUM_WARPS_AUTOTUNE = [2, 4, 8, 16] if IS_AMD else [4, 8, 16, 32]


@triton.heuristics({
    "HAS_A": lambda args: args["A_log"] is not None,
    "HAS_BIAS": lambda args: args["dt_bias"] is not None,
    "HAS_BETA": lambda args: args["beta"] is not None,
    'USE_LOWER_BOUND': lambda args: args['lower_bound'] is not None,
})
@fla_cache_autotune(
    configs=[
        triton.Config({"BT": BT}, num_warps=num_warps, num_stages=num_stages)
        for BT in BT_LIST_AUTOTUNE
        for num_warps in NUM_WARPS_AUTOTUNE
        for num_stages in [2, 3]
    ],
    key=["H", "D"],
    **autotune_cache_kwargs,
)
@triton.jit(do_not_specialize=['T'])
def kda_gate_fwd_kernel(
    g,
    A_log,
    dt_bias,
    beta,
    yg,
    yb,
    lower_bound,
    T,
    H: tl.constexpr,
    D: tl.constexpr,
    BT: tl.constexpr,
    BD: tl.constexpr,
    HAS_A: tl.constexpr,
    HAS_BIAS: tl.constexpr,
    HAS_BETA: tl.constexpr,
    USE_LOWER_BOUND: tl.constexpr,
):
    i_t, i_h = tl.program_id(0).to(tl.int64), tl.program_id(1)

    b_A = tl.load(A_log + i_h).to(tl.float32) if HAS_A else 1.0

    o_t = i_t * BT + tl.arange(0, BT)
    o_d = tl.arange(0, BD)
    m_t = o_t < T
    m_g = m_t[:, None] & (o_d[None, :] < D)
    p_g = g + i_h * D + o_t[:, None] * (H * D) + o_d[None, :]
    p_yg = yg + i_h * D + o_t[:, None] * (H * D) + o_d[None, :]
    # [BT, BD]
    b_g = tl.load(p_g, mask=m_g, other=0.0).to(tl.float32)
    if HAS_BIAS:
        o_b = i_h * D + tl.arange(0, BD)
        b_g = b_g + tl.load(dt_bias + o_b, mask=o_b < H * D, other=0.0).to(tl.float32)
    if not USE_LOWER_BOUND:
        b_yg = -exp(b_A) * softplus(b_g)
    else:
        b_yg = lower_bound * tl.sigmoid((exp(b_A) if HAS_A else b_A) * b_g)
    tl.store(p_yg, b_yg.to(p_yg.dtype.element_ty), mask=m_g)

    if HAS_BETA:
        p_b = beta + i_h + o_t * H
        p_yb = yb + i_h + o_t * H
        b_yb = tl.sigmoid(tl.load(p_b, mask=m_t, other=0.0).to(tl.float32))
        tl.store(p_yb, b_yb.to(p_yb.dtype.element_ty), mask=m_t)


def kda_gate_fwd(
    g: torch.Tensor,
    A_log: torch.Tensor | None = None,
    dt_bias: torch.Tensor | None = None,
    lower_bound: float | None = None,
    output_dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    H, K = g.shape[-2:]
    T = g.numel() // (H * K)

    yg = torch.empty_like(g, dtype=output_dtype)

    def grid(meta):
        return (triton.cdiv(T, meta["BT"]), H)

    kda_gate_fwd_kernel[grid](
        g=g,
        A_log=A_log,
        dt_bias=dt_bias,
        beta=None,
        yg=yg,
        yb=None,
        T=T,
        H=H,
        D=K,
        BD=triton.next_power_of_2(K),
        lower_bound=lower_bound,
    )
    return yg


def run(g, A_log, dt_bias):
    """KDA's gate of a (B, T, H, K) input: -exp(A_log) * softplus(g + dt_bias), float32."""
    return kda_gate_fwd(g, A_log, dt_bias)
