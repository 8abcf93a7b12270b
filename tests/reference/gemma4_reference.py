"""Gemma 4's text stack (issue 42): parameter counts and transformers' cache contents, the
reference that `config/gemma4.rs`'s tests check (`gemma4-reference.csv`).

Parameters: `Gemma4ForCausalLM` (the text stack alone) built on the meta device, every parameter
counted. The configs exercise what departs from Gemma 3: full-attention layers of
`global_head_dim` (and `num_global_key_value_heads` with `attention_k_eq_v`, which drops their
`v_proj`), per-layer embeddings (`hidden_size_per_layer_input`), the last `num_kv_shared_layers`
layers without k/v projections, and `use_double_wide_mlp` on those layers.

Caches: a tiny model with real bf16 tensors on the CPU, one prefill of `batch` sequences of `seq`
tokens with `use_cache=True`; each layer's key and value tensors read back with the bytes their
storage holds (`untyped_storage().nbytes()`): a sliding layer's keys are a slice of the prompt's,
so until the first decode step it holds the whole prompt (`storage_bytes`) where its logical size
is the window's (`logical_bytes`).

Run: python3 tests/reference/gemma4_reference.py > tests/reference/gemma4-reference.csv
(transformers 5.24.0, torch 2.15.0; CPU only, seconds).
"""
import torch
import transformers
from transformers import Gemma4ForCausalLM, Gemma4TextConfig

# Gemma4TextConfig's defaults (transformers 5.24.0 configuration_gemma4.py): 30 layers, 5 sliding
# to 1 full, head_dim 256 and global_head_dim 512, 4 KV heads, PLE of 256 per layer.
DEFAULTS = dict()
# The same with the last 10 layers reading earlier layers' KV and double-wide MLPs there.
SHARED = dict(num_kv_shared_layers=10, use_double_wide_mlp=True)
# Full layers of 2 KV heads whose keys are their values (no v_proj), no PLE.
K_EQ_V = dict(hidden_size_per_layer_input=0, attention_k_eq_v=True, num_global_key_value_heads=2,
              num_key_value_heads=8, num_hidden_layers=12)
TINY = dict(vocab_size=128, hidden_size=64, intermediate_size=96, num_hidden_layers=8,
            num_attention_heads=4, num_key_value_heads=2, head_dim=16, global_head_dim=32,
            num_global_key_value_heads=1, attention_k_eq_v=True, sliding_window=8,
            layer_types=["sliding_attention"] * 3 + ["full_attention"]
            + ["sliding_attention"] * 3 + ["full_attention"],
            num_kv_shared_layers=3, hidden_size_per_layer_input=8, vocab_size_per_layer_input=128)

CASES = {
    "gemma4-defaults": (DEFAULTS, 0, 0),
    "gemma4-shared": (SHARED, 0, 0),
    "gemma4-k-eq-v": (K_EQ_V, 0, 0),
    "gemma4-tiny": (TINY, 2, 24),
}


def cache_bytes(model, batch, seq):
    torch.manual_seed(0)
    ids = torch.randint(0, model.config.vocab_size, (batch, seq))
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True)
    storage = logical = 0
    held = []
    for layer in out.cache.layers if hasattr(out, "cache") else out.past_key_values.layers:
        keys, values = getattr(layer, "keys", None), getattr(layer, "values", None)
        if keys is None or keys.numel() == 0:
            held.append("0")
            continue
        n = 0
        for t in (keys, values):
            logical += t.numel() * t.element_size()
            n += t.untyped_storage().nbytes()
        storage += n
        held.append(str(n))
    return storage, logical, " ".join(held)


def main():
    print("case,params,batch,seq,storage_bytes,logical_bytes,layers,transformers,torch")
    for name, (over, batch, seq) in CASES.items():
        cfg = Gemma4TextConfig(**over)
        with torch.device("meta"):
            meta = Gemma4ForCausalLM(cfg)
        params = sum(p.numel() for p in meta.parameters())
        storage = logical = 0
        held = ""
        if batch:
            torch.manual_seed(0)
            model = Gemma4ForCausalLM(cfg).to(torch.bfloat16).eval()
            storage, logical, held = cache_bytes(model, batch, seq)
        print(f"{name},{params},{batch},{seq},{storage},{logical},{held},"
              f"{transformers.__version__},{torch.__version__.split('+')[0]}")


if __name__ == "__main__":
    main()
