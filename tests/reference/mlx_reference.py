"""MLX's bytes as mlx and mlx-lm hold them: the reference for vramfit's mlx-lm engine.

Run with mlx 0.32.4 (its Linux CPU wheel: `pip install "mlx[cpu]==0.32.4"`) and mlx-lm's source
at d78bf58 (2026-08-22, `git archive` of github.com/ml-explore/mlx-lm) on the path:

    MLX_LM_SRC=/path/to/mlx-lm python tests/reference/mlx_reference.py > tests/reference/mlx-reference.csv

Rows:
- `weights`: a model built by mlx-lm's own model class (random weights, never evaluated: an
  array's `nbytes` follows from its shape and dtype), cast to bf16, quantized with
  `nn.quantize` and mlx-lm's predicate (`mlx_lm.utils.quantize_model`: every module with
  `to_quantized` whose weight's last axis is whole groups), the sum of every parameter's
  `nbytes`.
- `kv`: one layer's `KVCache`, `RotatingKVCache(max_size, keep=4)` or the `QuantizedKVCache` it
  converts to, fed as `generate_step` feeds it (the prompt but its last token in steps of
  `prefill_step_size`, then one token at a time, `max_tokens` of them), with
  `maybe_quantize_kv_cache`'s conversion at `quantized_kv_start`; the largest room it held
  (tokens along its sequence axis) and, for the quantized cache, its bytes at the end.
"""

import os
import sys
import types

pkg = types.ModuleType("mlx_lm")
pkg.__path__ = [os.path.join(os.environ["MLX_LM_SRC"], "mlx_lm")]
sys.modules["mlx_lm"] = pkg

import mlx.core as mx  # noqa: E402
import mlx.nn as nn  # noqa: E402
from mlx.utils import tree_flatten  # noqa: E402
from mlx_lm.models import llama, qwen2, qwen3  # noqa: E402
from mlx_lm.models.cache import KVCache, QuantizedKVCache, RotatingKVCache  # noqa: E402

MODELS = {
    "meta-llama/Llama-3.1-8B": (llama, dict(model_type="llama", hidden_size=4096, num_hidden_layers=32,
        intermediate_size=14336, num_attention_heads=32, rms_norm_eps=1e-5, vocab_size=128256,
        num_key_value_heads=8, tie_word_embeddings=False, rope_theta=500000.0)),
    "Qwen/Qwen3-8B": (qwen3, dict(model_type="qwen3", hidden_size=4096, num_hidden_layers=36,
        intermediate_size=12288, num_attention_heads=32, rms_norm_eps=1e-6, vocab_size=151936,
        num_key_value_heads=8, max_position_embeddings=40960, rope_theta=1000000.0, head_dim=128,
        tie_word_embeddings=False)),
    "Qwen/Qwen2.5-0.5B": (qwen2, dict(model_type="qwen2", hidden_size=896, num_hidden_layers=24,
        intermediate_size=4864, num_attention_heads=14, rms_norm_eps=1e-6, vocab_size=151936,
        num_key_value_heads=2, rope_theta=1000000.0, tie_word_embeddings=True)),
}

FORMATS = [("none", None, None, None), ("affine", 64, 4, "mlx-4bit"), ("affine", 32, 4, "mlx-4bit-g32"),
           ("affine", 128, 4, "mlx-4bit-g128"), ("affine", 64, 8, "mlx-8bit"), ("affine", 64, 6, "mlx-6bit"),
           ("affine", 64, 3, "mlx-3bit"), ("affine", 64, 2, "mlx-2bit"), ("mxfp4", 32, 4, "mlx-mxfp4"),
           ("nvfp4", 16, 4, "mlx-nvfp4"), ("mxfp8", 32, 8, "mlx-mxfp8")]


def weights(model_id, mode, group, bits):
    module, args = MODELS[model_id]
    m = module.Model(module.ModelArgs.from_dict(args))
    m.set_dtype(mx.bfloat16)
    if group is not None:
        nn.quantize(m, group, bits, mode=mode,
                    class_predicate=lambda _p, mod: hasattr(mod, "to_quantized") and mod.weight.shape[-1] % group == 0)
    return sum(v.nbytes for _, v in tree_flatten(m.parameters()))


def feed(prompt, max_tokens, step, max_kv=None, kv_bits=None, kv_group=64, kv_start=5000):
    """One layer's cache (1 KV head of 64) fed as generate_step feeds it; the largest room."""
    cache = RotatingKVCache(max_size=max_kv, keep=4) if max_kv else KVCache()
    largest = 0

    def put(n):
        nonlocal cache, largest
        k = mx.zeros((1, 1, n, 64), dtype=mx.float16)
        cache.update_and_fetch(k, k)
        if kv_bits is not None and not isinstance(cache, QuantizedKVCache) and cache.offset >= kv_start:
            cache = cache.to_quantized(group_size=kv_group, bits=kv_bits)
        keys = cache.keys[0] if isinstance(cache, QuantizedKVCache) else cache.keys
        largest = max(largest, keys.shape[2])

    done = 0
    while prompt - done > 1:
        n = min(step, prompt - done - 1)
        put(n)
        done += n
    put(1)  # the prompt's last token
    for _ in range(max_tokens):
        put(1)
    nbytes = sum(x.nbytes for x in (cache.keys + cache.values)) if isinstance(cache, QuantizedKVCache) else 0
    return largest, nbytes, cache.offset


print("kind,model,format,prompt,max_tokens,prefill_step,max_kv_size,kv_bits,kv_group,kv_start,room,bytes")
for model_id in MODELS:
    for mode, group, bits, name in FORMATS:
        if name is None:
            name = "none"
        print(f"weights,{model_id},{name},,,,,,,,,{weights(model_id, mode, group, bits)}")
for prompt, max_tokens, step in [(1, 1, 2048), (100, 100, 2048), (255, 1, 2048), (256, 0, 2048),
                                 (3000, 500, 2048), (5000, 1000, 512), (4097, 300, 2048), (3000, 500, 1000),
                                 (1000, 10, 300)]:
    room, _, offset = feed(prompt, max_tokens, step)
    print(f"kv,,kvcache,{prompt},{max_tokens},{step},,,,,{room},")
for prompt, max_tokens, step, max_kv in [(100, 100, 2048, 512), (3000, 500, 2048, 1024), (600, 2000, 2048, 1000),
                                         (5000, 10, 512, 4096), (200, 10, 2048, 4096)]:
    room, _, _ = feed(prompt, max_tokens, step, max_kv=max_kv)
    print(f"kv,,rotating,{prompt},{max_tokens},{step},{max_kv},,,,{room},")
for prompt, max_tokens, step, bits, group, start in [(3000, 500, 2048, 8, 64, 0), (6000, 100, 2048, 4, 64, 5000),
                                                     (1000, 100, 2048, 4, 32, 5000), (3000, 3000, 2048, 8, 64, 5000)]:
    room, nbytes, _ = feed(prompt, max_tokens, step, kv_bits=bits, kv_group=group, kv_start=start)
    print(f"kv,,quantized,{prompt},{max_tokens},{step},,{bits},{group},{start},{room},{nbytes}")
