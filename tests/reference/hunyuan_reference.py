"""Hunyuan-MoE (issue 42): parameter counts of `HunYuanMoEV1ForCausalLM` on the meta device and
a tiny model's real KV cache, the reference that `config/hunyuan_tests.rs` checks
(`hunyuan-reference.csv`).

Cases:
- hunyuan-a13b: tencent/Hunyuan-A13B-Instruct's config, as the mock hub's fixture holds it
  (tests/hub/fixtures/tencent/hunyuan-a13b-instruct/config.json).
- hunyuan-tiny: a tiny config with a top-k per layer (`moe_topk` [2, 3]) and untied head.
- hunyuan-tiny-cache-bytes-per-token: the tiny model run on the CPU in fp32 over 10 random
  tokens; its DynamicCache's K and V tensors' bytes, divided by the tokens.

Run: python3 tests/reference/hunyuan_reference.py > tests/reference/hunyuan-reference.csv
(transformers 5.25.0, torch 2.15.0; CPU only, seconds).
"""
import json
import os

import torch
import transformers
from transformers import HunYuanMoEV1Config, HunYuanMoEV1ForCausalLM

HERE = os.path.dirname(os.path.abspath(__file__))
A13B = os.path.join(HERE, "..", "hub", "fixtures", "tencent", "hunyuan-a13b-instruct", "config.json")
TINY = {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100,
        "num_experts": 4, "moe_topk": [2, 3], "tie_word_embeddings": False}


def config(d):
    d = {k: v for k, v in d.items() if k != "model_type"}
    return HunYuanMoEV1Config(**d)


def meta_params(c):
    with torch.device("meta"):
        m = HunYuanMoEV1ForCausalLM(c)
    return sum(p.numel() for p in m.parameters())


print("case,value")
with open(A13B) as f:
    print(f"hunyuan-a13b,{meta_params(config(json.load(f)))}")
tiny = config(TINY)
print(f"hunyuan-tiny,{meta_params(tiny)}")
torch.manual_seed(0)
model = HunYuanMoEV1ForCausalLM(tiny).eval()
tokens = 10
with torch.no_grad():
    out = model(torch.randint(0, 100, (1, tokens)), use_cache=True)
cache = out.past_key_values
size = 0
for layer in cache.layers:
    size += layer.keys.numel() * layer.keys.element_size()
    size += layer.values.numel() * layer.values.element_size()
print(f"hunyuan-tiny-cache-bytes-per-token,{size // tokens}")
print(f"transformers {transformers.__version__} torch {torch.__version__}".replace(" ", "_") + ",0")
