"""DeepSeek-V4's compressed attention (issue 42): parameter counts and what transformers' cache
keeps alive, the reference that `config/compressed_tests.rs` checks (`compressed-reference.csv`).

Parameters: `DeepseekV4ForCausalLM` built on the meta device, every parameter counted;
`state_dict` adds the persistent buffers a checkpoint also holds (the routers'
`e_score_correction_bias` and the hash routers' `tid2eid` token-to-expert table).

Caches: a tiny model with real bf16 tensors on the CPU, one prefill of `batch` sequences of `seq`
tokens with `use_cache=True`, then one decode step of one token. After each, every tensor the cache
holds is read back (`DeepseekV4HCACache` / `DeepseekV4CSACache` in transformers 5.24.0
`modeling_deepseek_v4.py`: the sliding window's `keys` (= `values`, one tensor), the compressors'
`compressed_kv`, the `buffer_kv` / `buffer_gate` remainders and the CSA `overlap_kv` /
`overlap_gate`), each storage counted once (`untyped_storage().nbytes()`, deduplicated by its data
pointer): the window is a slice of the prompt's keys and the buffers are slices of the prompt's
`kv_proj` / `gate_proj` outputs, so after the prefill their storage is the whole prompt's; the
first decode step's `torch.cat` replaces them. `logical` is `numel x element size` of the same
tensors (the window counted once).

Run: python3 tests/reference/compressed_reference.py > tests/reference/compressed-reference.csv
(transformers 5.24.0, torch 2.15.0; CPU only, seconds).
"""
import torch
import transformers
from transformers import DeepseekV4Config, DeepseekV4ForCausalLM

# deepseek-ai/DeepSeek-V4-Flash config.json
# (https://huggingface.co/deepseek-ai/DeepSeek-V4-Flash/blob/main/config.json, as published
# 2026-04; transcribed byte for byte, with its sha256, in public test fixtures read 2026-12-07):
# 43 layers, `compress_ratios` [0, 0] + [4, 128] x 20 + [4] for them (the file's 46 entries go on
# with the MTP layer's; transformers keeps the first `num_hidden_layers`), 3 hash-routed layers.
DEEPSEEK_V4_FLASH = dict(
    vocab_size=129280, hidden_size=4096, moe_intermediate_size=2048, num_hidden_layers=43,
    num_attention_heads=64, num_key_value_heads=1, head_dim=512, qk_rope_head_dim=64,
    q_lora_rank=1024, o_lora_rank=1024, o_groups=8, num_experts_per_tok=6, n_routed_experts=256,
    n_shared_experts=1, index_n_heads=64, index_head_dim=128, index_topk=512, sliding_window=128,
    hc_mult=4, hc_sinkhorn_iters=20, num_hash_layers=3, num_nextn_predict_layers=1,
    max_position_embeddings=1048576, tie_word_embeddings=False,
    compress_ratios=[0, 0] + [4, 128] * 20 + [4, 0, 0, 0])

# A tiny model with the real compression rates (4 and 128) and window (128), so that a prompt of
# 300 tokens leaves 75 CSA entries, 2 HCA entries with 44 tokens in the HCA buffer, and a window
# of 127: one sliding, one CSA and one HCA layer after the two sliding ones.
TINY = dict(
    vocab_size=128, hidden_size=64, moe_intermediate_size=32, num_hidden_layers=5,
    num_attention_heads=4, num_key_value_heads=1, head_dim=32, qk_rope_head_dim=8,
    q_lora_rank=24, o_lora_rank=16, o_groups=2, num_experts_per_tok=2, n_routed_experts=4,
    n_shared_experts=1, index_n_heads=4, index_head_dim=16, index_topk=8, sliding_window=128,
    hc_mult=4, num_hash_layers=1, compress_ratios=[0, 0, 4, 128, 4],
    max_position_embeddings=4096, tie_word_embeddings=False)

CASES = {
    "deepseek_v4-flash": (DEEPSEEK_V4_FLASH, 0, 0),
    "deepseek_v4-defaults": (dict(), 0, 0),
    "deepseek_v4-tiny": (TINY, 2, 300),
    "deepseek_v4-tiny-aligned": (TINY, 2, 256),
}


def cache_tensors(layer):
    """Every tensor a V4 cache layer holds, by kind."""
    out = [("window", getattr(layer, "keys", None)), ("window", getattr(layer, "values", None))]
    for kind in ("compressed_kv", "buffer_kv", "buffer_gate", "overlap_kv", "overlap_gate"):
        for name, t in getattr(layer, kind, {}).items():
            out.append((f"{kind}.{name}", t))
    return [(k, t) for k, t in out if isinstance(t, torch.Tensor)]


def held(cache):
    """(storage bytes, logical bytes, per-layer storage) of the cache, each storage once."""
    seen = set()
    storage = logical = 0
    per_layer = []
    for layer in cache.layers:
        n = 0
        ptrs = set()
        for _, t in cache_tensors(layer):
            s = t.untyped_storage()
            if s.data_ptr() not in ptrs:
                ptrs.add(s.data_ptr())
                logical += t.numel() * t.element_size()
            if s.data_ptr() in seen:
                continue
            seen.add(s.data_ptr())
            n += s.nbytes()
        storage += n
        per_layer.append(str(n))
    return storage, logical, " ".join(per_layer)


def cache_bytes(model, batch, seq):
    torch.manual_seed(0)
    ids = torch.randint(0, model.config.vocab_size, (batch, seq))
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True)
        prefill = held(out.past_key_values)
        nxt = torch.randint(0, model.config.vocab_size, (batch, 1))
        out = model(input_ids=nxt, past_key_values=out.past_key_values, use_cache=True)
        decode = held(out.past_key_values)
    return prefill, decode


def main():
    print("case,params,state_dict,batch,seq,prefill_storage,prefill_logical,prefill_layers,"
          "decode_storage,decode_logical,decode_layers,transformers,torch")
    for name, (over, batch, seq) in CASES.items():
        cfg = DeepseekV4Config(**over)
        with torch.device("meta"):
            meta = DeepseekV4ForCausalLM(cfg)
        params = sum(p.numel() for p in meta.parameters())
        keys = set(meta.state_dict().keys())
        state_dict = params + sum(b.numel() for n, b in meta.named_buffers() if n in keys)
        p = d = (0, 0, "")
        if batch:
            torch.manual_seed(0)
            model = DeepseekV4ForCausalLM._from_config(cfg, dtype=torch.bfloat16).eval()
            p, d = cache_bytes(model, batch, seq)
        print(f"{name},{params},{state_dict},{batch},{seq},{p[0]},{p[1]},{p[2]},{d[0]},{d[1]},"
              f"{d[2]},{transformers.__version__},{torch.__version__.split('+')[0]}")


if __name__ == "__main__":
    main()
