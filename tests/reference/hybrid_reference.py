"""Hybrid (linear-attention, state-space, short-convolution) models: parameter counts and
transformers' cache contents, the reference that `tests/it/hybrid_reference.rs` checks.

Parameters: the model built on the meta device (`torch.device("meta")`), every parameter counted.
Caches: a tiny model of each type built with real bf16 tensors on the CPU, one prefill of
`batch` sequences of `seq` tokens with `use_cache=True`; the cache's tensors read back per layer
(keys, values, conv_states, recurrent_states), their bytes as stored (`numel × element size`).

Run: python3 tests/reference/hybrid_reference.py > tests/reference/hybrid-reference.csv
(transformers 5.25.0, torch 2.15.0; CPU only, a few seconds).
"""
import sys
import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

QWEN3_NEXT_80B = dict(  # Qwen/Qwen3-Next-80B-A3B-Instruct config.json
    model_type="qwen3_next", vocab_size=151936, hidden_size=2048, intermediate_size=5120,
    num_hidden_layers=48, num_attention_heads=16, num_key_value_heads=2, head_dim=256,
    linear_conv_kernel_dim=4, linear_key_head_dim=128, linear_value_head_dim=128,
    linear_num_key_heads=16, linear_num_value_heads=32, moe_intermediate_size=512,
    shared_expert_intermediate_size=512, num_experts=512, num_experts_per_tok=10,
    full_attention_interval=4, decoder_sparse_step=1, mlp_only_layers=[],
    tie_word_embeddings=False, max_position_embeddings=262144)
NEMOTRON_H_8B = dict(  # nvidia/Nemotron-H-8B-Base-8K (shapes from NVIDIA's Megatron-Bridge page)
    model_type="nemotron_h", vocab_size=131072, hidden_size=4096, intermediate_size=21504,
    num_attention_heads=32, num_key_value_heads=8, head_dim=128, mamba_num_heads=128,
    mamba_head_dim=64, ssm_state_size=128, n_groups=8, conv_kernel=4,
    hybrid_override_pattern="M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
    tie_word_embeddings=False, max_position_embeddings=8192)
GRANITE_4_H_TINY = dict(  # ibm-granite/granite-4.0-h-tiny shapes
    model_type="granitemoehybrid", vocab_size=100352, hidden_size=1536, intermediate_size=512,
    num_hidden_layers=40, num_attention_heads=12, num_key_value_heads=4,
    num_local_experts=64, num_experts_per_tok=6, shared_intermediate_size=1024,
    mamba_n_heads=48, mamba_n_groups=1, mamba_d_state=128, mamba_d_head=64, mamba_d_conv=4,
    mamba_expand=2, layer_types=["mamba"] * 5 + ["attention"] + ["mamba"] * 9 + ["attention"]
    + ["mamba"] * 9 + ["attention"] + ["mamba"] * 9 + ["attention"] + ["mamba"] * 4,
    tie_word_embeddings=True, max_position_embeddings=131072)
FALCON_H1_0_5B = dict(  # tiiuae/Falcon-H1-0.5B shapes (transformers' model doc table)
    model_type="falcon_h1", vocab_size=32784, hidden_size=1024, intermediate_size=2048,
    num_hidden_layers=36, num_attention_heads=8, num_key_value_heads=2, head_dim=64,
    mamba_d_ssm=1536, mamba_n_heads=24, mamba_d_head=64, mamba_n_groups=1, mamba_d_state=128,
    mamba_d_conv=4, mamba_expand=2, tie_word_embeddings=False, max_position_embeddings=16384)
LFM2_1_2B = dict(  # LiquidAI/LFM2-1.2B config.json shapes
    model_type="lfm2", vocab_size=65536, hidden_size=2048, intermediate_size=12288,
    num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8, conv_L_cache=3,
    block_multiple_of=256, block_ffn_dim_multiplier=1.0, block_auto_adjust_ff_dim=True,
    full_attn_idxs=[2, 5, 8, 10, 12, 14], tie_word_embeddings=True,
    max_position_embeddings=128000)


def tiny(real, **over):
    c = dict(real)
    c.update(over)
    return c


CASES = {
    "qwen3_next-80b": QWEN3_NEXT_80B,
    "qwen3_next-tiny": tiny(QWEN3_NEXT_80B, vocab_size=128, hidden_size=64, intermediate_size=96,
                             num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                             head_dim=16, linear_key_head_dim=8, linear_value_head_dim=16,
                             linear_num_key_heads=2, linear_num_value_heads=4,
                             moe_intermediate_size=32, shared_expert_intermediate_size=48,
                             num_experts=4, num_experts_per_tok=2, full_attention_interval=2),
    "nemotron_h-8b": NEMOTRON_H_8B,
    "nemotron_h-tiny": tiny(NEMOTRON_H_8B, vocab_size=128, hidden_size=64, intermediate_size=96,
                            num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                            mamba_num_heads=8, mamba_head_dim=8, ssm_state_size=16, n_groups=2,
                            hybrid_override_pattern="M-M*-M", chunk_size=8),
    "granitemoehybrid-h-tiny": GRANITE_4_H_TINY,
    "granitemoehybrid-tiny": tiny(GRANITE_4_H_TINY, vocab_size=128, hidden_size=64,
                                  intermediate_size=32, num_hidden_layers=4,
                                  num_attention_heads=4, num_key_value_heads=2,
                                  num_local_experts=4, num_experts_per_tok=2,
                                  shared_intermediate_size=48, mamba_n_heads=8, mamba_d_head=16,
                                  mamba_d_state=16, mamba_chunk_size=8,
                                  layer_types=["mamba", "attention", "mamba", "mamba"]),
    "falcon_h1-0.5b": FALCON_H1_0_5B,
    "falcon_h1-tiny": tiny(FALCON_H1_0_5B, vocab_size=128, hidden_size=64, intermediate_size=96,
                           num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                           head_dim=16, mamba_d_ssm=64, mamba_n_heads=8, mamba_d_head=8,
                           mamba_d_state=16, mamba_chunk_size=8),
    "lfm2-1.2b": LFM2_1_2B,
    "lfm2-tiny": tiny(LFM2_1_2B, vocab_size=128, hidden_size=64, intermediate_size=192,
                      num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                      block_multiple_of=32, full_attn_idxs=[1, 3]),
}


def build(cfg, meta):
    c = dict(cfg)
    config = AutoConfig.for_model(c.pop("model_type"), **c)
    if meta:
        with torch.device("meta"):
            return AutoModelForCausalLM.from_config(config)
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)


def cache_bytes(model, batch, seq):
    ids = torch.randint(0, model.config.vocab_size, (batch, seq))
    with torch.no_grad():
        out = model(ids, use_cache=True)
    kv = conv = rec = 0
    dtypes = set()
    for layer in out.past_key_values.layers:
        for name in ("keys", "values"):
            t = getattr(layer, name, None)
            if isinstance(t, torch.Tensor) and t.numel() > 0:
                kv += t.numel() * t.element_size()
                dtypes.add(f"kv:{t.dtype}")
        for name, acc in (("conv_states", "conv"), ("recurrent_states", "rec")):
            states = getattr(layer, name, None) or {}
            for t in states.values():
                if isinstance(t, torch.Tensor):
                    if acc == "conv":
                        conv += t.numel() * t.element_size()
                    else:
                        rec += t.numel() * t.element_size()
                    dtypes.add(f"{acc}:{t.dtype}:{tuple(t.shape)}")
    return kv, conv, rec, ";".join(sorted(dtypes))


def main():
    print("case,params,batch,seq,kv_bytes,conv_bytes,recurrent_bytes,states,transformers,torch")
    for case, cfg in CASES.items():
        params = sum(p.numel() for p in build(cfg, meta=True).parameters())
        batch, seq = (2, 5) if case.endswith("tiny") else (0, 0)
        kv = conv = rec = 0
        states = ""
        if batch:
            kv, conv, rec, states = cache_bytes(build(cfg, meta=False), batch, seq)
        print(f"{case},{params},{batch},{seq},{kv},{conv},{rec},{states},"
              f"{transformers.__version__},{torch.__version__.split('+')[0]}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
