"""GLM-5-Next (`glm5_next`, transformers 5.24 `Glm5NextForConditionalGeneration`): Kimi Delta
Attention layers beside NoPE MLA layers with a pooled DSA indexer (`index_kpool`),
hyper-connection streams (`hc_mult`) and a GLM-4V-style vision tower.

No published config.json could be found at a citable path (the hub cannot be reached), so the
full-size row is `Glm5NextConfig()`'s class defaults (the docstring's zai-org/GLM-5.3-Flash:
45 layers, 34 KDA + 11 MLA, 288 experts, index_kpool 16, vision out_hidden_size 1536), counted on
the meta device (`state_dict` adds the buffers the checkpoint holds: the routers'
`e_score_correction_bias`). The tiny row is a random-weight bf16 model run on the CPU: a prefill of `seq`
tokens and one decode step, after which every tensor the cache holds is counted by its storage
(`untyped_storage().nbytes()`, each storage once), which is what stays alive on the device.

Checked by `crates/vramfit/src/config/glm5_next.rs`'s tests against `glm5-next-reference.csv`.
Run: /work/venv-ref/bin/python tests/reference/glm5_next_reference.py > tests/reference/glm5-next-reference.csv
"""

import sys

import torch
import transformers
from transformers import AutoConfig, AutoModelForImageTextToText

TINY_TEXT = dict(vocab_size=128, hidden_size=64, intermediate_size=96, moe_intermediate_size=32,
                 num_hidden_layers=5, num_attention_heads=4, num_key_value_heads=4,
                 n_routed_experts=4, num_experts_per_tok=2, kv_lora_rank=16, q_lora_rank=24,
                 qk_nope_head_dim=16, v_head_dim=16, index_topk=8, index_head_dim=16,
                 index_n_heads=4, index_kpool=4, linear_head_dim=16, linear_num_heads=2,
                 hc_mult=3, pad_token_id=0,
                 mlp_layer_types=["dense", "sparse", "sparse", "sparse", "sparse"],
                 layer_types=["linear_attention", "linear_attention", "linear_attention",
                              "indexed_attention", "indexed_attention"],
                 indexer_types=["full", "full", "full", "full", "shared"])
TINY_VISION = dict(depth=1, hidden_size=32, intermediate_size=48, num_heads=4, patch_size=4,
                   out_hidden_size=64, projection_intermediate_size=40)

CASES = {
    "glm5_next-defaults": (dict(), False),
    "glm5_next-tiny": (dict(text_config=TINY_TEXT, vision_config=TINY_VISION), True),
}


def build(cfg, meta):
    config = AutoConfig.for_model("glm5_next", **cfg)
    if meta:
        with torch.device("meta"):
            return AutoModelForImageTextToText.from_config(config)
    torch.manual_seed(0)
    return AutoModelForImageTextToText.from_config(config, dtype=torch.bfloat16)


def cache_storage(cache):
    """Bytes of every storage the cache's layers hold, each once, by kind."""
    seen = set()
    out = {"latent": 0, "indexer": 0, "conv": 0, "recurrent": 0}

    def add(kind, t):
        if isinstance(t, torch.Tensor) and t.numel() > 0:
            s = t.untyped_storage()
            if s.data_ptr() not in seen:
                seen.add(s.data_ptr())
                out[kind] += s.nbytes()

    for layer in cache.layers:
        for name, kind in (("keys", "latent"), ("values", "latent"), ("indexer_keys", "indexer")):
            add(kind, getattr(layer, name, None))
        for name, kind in (("conv_states", "conv"), ("recurrent_states", "recurrent")):
            for t in (getattr(layer, name, None) or {}).values():
                add(kind, t)
    return out


def main():
    print("case,params,state_dict,vision_params,batch,seq,latent_bytes,indexer_bytes,conv_bytes,"
          "recurrent_bytes,transformers,torch")
    for case, (cfg, run) in CASES.items():
        model = build(cfg, meta=True)
        params = sum(p.numel() for p in model.parameters())
        keys = set(model.state_dict().keys())
        # The routers' e_score_correction_bias: a buffer that the checkpoint holds.
        state_dict = params + sum(b.numel() for n, b in model.named_buffers() if n in keys)
        vision = sum(p.numel() for p in model.model.visual.parameters())
        batch, seq = (2, 9) if run else (0, 0)
        c = dict(latent=0, indexer=0, conv=0, recurrent=0)
        if run:
            m = build(cfg, meta=False)
            torch.manual_seed(1)
            ids = torch.randint(1, 128, (batch, seq))
            with torch.no_grad():
                out = m(input_ids=ids, use_cache=True)
                out = m(input_ids=torch.randint(1, 128, (batch, 1)), cache=out.past_key_values,
                        use_cache=True)
            c = cache_storage(out.past_key_values)
        print(f"{case},{params},{state_dict},{vision},{batch},{seq + 1 if run else 0},{c['latent']},"
              f"{c['indexer']},{c['conv']},{c['recurrent']},{transformers.__version__},"
              f"{torch.__version__.split('+')[0]}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
