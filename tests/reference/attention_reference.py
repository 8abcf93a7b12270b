"""Attention of every kind (issue 42): parameter counts and transformers' cache contents of the
families whose layers are read one by one: Qwen3.5 (Gated DeltaNet + gated attention, with its
vision tower), DeepSeek-V3.2 and GLM-5 (MLA with DeepSeek Sparse Attention's indexer keys),
Kimi-Linear (Kimi Delta Attention + MLA), OLMo Hybrid (Gated DeltaNet + OLMo 3's attention). The reference that `config/hybrid.rs`'s and `config/attention.rs`'s tests
check (`attention-reference.csv`).

Parameters: the model built on the meta device, every parameter counted (for a multimodal
checkpoint the whole `...ForConditionalGeneration`, vision tower included); `state_dict` adds the
persistent buffers a checkpoint also holds (the routers' `e_score_correction_bias`).
Caches: a tiny text model built with real bf16 tensors on the CPU, one prefill of `batch`
sequences of `seq` tokens with `use_cache=True`; the cache's tensors read back per layer, their
bytes as stored (`numel x element size`), as `hybrid_reference.py` does.

Run: python3 tests/reference/attention_reference.py > tests/reference/attention-reference.csv
(transformers 5.24.0, torch 2.15.0; CPU only, under a minute).
"""
import sys
import os
import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hybrid_reference import cache_bytes as state_cache_bytes  # noqa: E402

# Qwen/Qwen3.5-9B config.json (text_config and vision_config; the vision keys the file leaves
# out take Qwen3_5VisionConfig's defaults, out_hidden_size the text width).
QWEN3_5_9B_TEXT = dict(
    model_type="qwen3_5_text", vocab_size=248320, hidden_size=4096, intermediate_size=12288,
    num_hidden_layers=32, num_attention_heads=16, num_key_value_heads=4, head_dim=256,
    linear_conv_kernel_dim=4, linear_key_head_dim=128, linear_value_head_dim=128,
    linear_num_key_heads=16, linear_num_value_heads=32, full_attention_interval=4,
    tie_word_embeddings=False, max_position_embeddings=262144)
QWEN3_5_VISION = dict(
    depth=27, hidden_size=1152, intermediate_size=4304, num_heads=16, in_channels=3,
    patch_size=16, temporal_patch_size=2, spatial_merge_size=2, num_position_embeddings=2304)
# Qwen/Qwen3.5-35B-A3B config.json (Qwen3.6-35B-A3B has the same shapes).
QWEN3_5_35B_TEXT = dict(
    model_type="qwen3_5_moe_text", vocab_size=248320, hidden_size=2048, num_hidden_layers=40,
    num_attention_heads=16, num_key_value_heads=2, head_dim=256, linear_conv_kernel_dim=4,
    linear_key_head_dim=128, linear_value_head_dim=128, linear_num_key_heads=16,
    linear_num_value_heads=32, full_attention_interval=4, num_experts=256, num_experts_per_tok=8,
    moe_intermediate_size=512, shared_expert_intermediate_size=512, tie_word_embeddings=False,
    max_position_embeddings=262144)


# deepseek-ai/DeepSeek-V3.2 config.json: DeepSeek-V3's shapes and the indexer's keys (the values
# of DeepseekV32Config's defaults, written from DeepSeek-V3.2-Exp's file).
DEEPSEEK_V32 = dict(
    model_type="deepseek_v32", vocab_size=129280, hidden_size=7168, intermediate_size=18432,
    moe_intermediate_size=2048, num_hidden_layers=61, num_attention_heads=128,
    num_key_value_heads=128, n_shared_experts=1, n_routed_experts=256, kv_lora_rank=512,
    q_lora_rank=1536, qk_rope_head_dim=64, v_head_dim=128, qk_nope_head_dim=128, n_group=8,
    topk_group=4, num_experts_per_tok=8, first_k_dense_replace=3, index_topk=2048,
    index_head_dim=128, index_n_heads=64, max_position_embeddings=163840,
    tie_word_embeddings=False)
# zai-org/GLM-5 config.json (the values of GlmMoeDsaConfig's defaults, written from it).
GLM_5 = dict(
    model_type="glm_moe_dsa", vocab_size=154880, hidden_size=6144, intermediate_size=12288,
    moe_intermediate_size=2048, num_hidden_layers=78, num_attention_heads=64,
    num_key_value_heads=64, n_shared_experts=1, n_routed_experts=256, kv_lora_rank=512,
    q_lora_rank=2048, qk_rope_head_dim=64, v_head_dim=256, qk_nope_head_dim=192, n_group=1,
    topk_group=1, num_experts_per_tok=8, first_k_dense_replace=3, index_topk=2048,
    index_head_dim=128, index_n_heads=32, max_position_embeddings=202752,
    tie_word_embeddings=False)


# moonshotai/Kimi-Linear-48B-A3B-Instruct config.json: 20 Kimi Delta Attention layers and 7 MLA
# layers (no rotary embedding; 1-indexed in linear_attn_config), 256 experts of 1024, top-8.
KIMI_LINEAR_48B = dict(
    model_type="kimi_linear", vocab_size=163840, hidden_size=2304, intermediate_size=9216,
    num_hidden_layers=27, num_attention_heads=32, num_key_value_heads=32, kv_lora_rank=512,
    q_lora_rank=None, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128,
    mla_use_nope=True, num_experts=256, num_experts_per_token=8, num_shared_experts=1,
    moe_intermediate_size=1024, first_k_dense_replace=1, moe_layer_freq=1,
    model_max_length=1048576, tie_word_embeddings=False,
    linear_attn_config=dict(
        kda_layers=[1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26],
        full_attn_layers=[4, 8, 12, 16, 20, 24, 27], num_heads=32, head_dim=128,
        short_conv_kernel_size=4))


# allenai/Olmo-Hybrid-7B: OlmoHybridConfig's defaults, which its docstring says are that
# checkpoint's (transformers 5.24.0 `configuration_olmo_hybrid.py`, read 2026-12-06): 3 Gated
# DeltaNet layers to 1 full-attention layer (every 4th), 30 query and KV heads, the linear
# heads 30 of key width 0.75 x 3840 / 30 = 96 and value width 192.
OLMO_HYBRID_7B = dict(
    model_type="olmo_hybrid", vocab_size=100352, hidden_size=3840, intermediate_size=11008,
    num_hidden_layers=32, num_attention_heads=30, num_key_value_heads=30,
    linear_num_key_heads=30, linear_num_value_heads=30, linear_key_head_dim=96,
    linear_value_head_dim=192, linear_conv_kernel_dim=4, max_position_embeddings=65536,
    tie_word_embeddings=False)


def tiny(real, **over):
    c = dict(real)
    c.update(over)
    return c


def multimodal(model_type, text, vision):
    return dict(model_type=model_type, text_config=text,
                vision_config=dict(vision, out_hidden_size=text["hidden_size"]),
                tie_word_embeddings=False)


QWEN3_5_TINY_TEXT = tiny(QWEN3_5_9B_TEXT, vocab_size=128, hidden_size=64, intermediate_size=96,
                         num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                         head_dim=16, linear_key_head_dim=8, linear_value_head_dim=16,
                         linear_num_key_heads=2, linear_num_value_heads=4,
                         full_attention_interval=2)
QWEN3_5_MOE_TINY_TEXT = tiny(QWEN3_5_35B_TEXT, vocab_size=128, hidden_size=64,
                             num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                             head_dim=16, linear_key_head_dim=8, linear_value_head_dim=16,
                             linear_num_key_heads=2, linear_num_value_heads=4,
                             moe_intermediate_size=32, shared_expert_intermediate_size=48,
                             num_experts=4, num_experts_per_tok=2, full_attention_interval=2)
TINY_VISION = dict(depth=2, hidden_size=32, intermediate_size=48, num_heads=4, in_channels=3,
                   patch_size=4, temporal_patch_size=2, spatial_merge_size=2,
                   num_position_embeddings=64)

DSA_TINY = dict(vocab_size=128, hidden_size=64, intermediate_size=96, moe_intermediate_size=32,
                num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=4,
                n_routed_experts=4, num_experts_per_tok=2, kv_lora_rank=16, q_lora_rank=24,
                qk_rope_head_dim=8, v_head_dim=16, qk_nope_head_dim=16, n_group=1, topk_group=1,
                first_k_dense_replace=1, index_topk=4, index_head_dim=16, index_n_heads=4)

CASES = {
    "qwen3_5-9b": multimodal("qwen3_5", QWEN3_5_9B_TEXT, QWEN3_5_VISION),
    "qwen3_5-9b-text": QWEN3_5_9B_TEXT,
    "qwen3_5_moe-35b-a3b": multimodal("qwen3_5_moe", QWEN3_5_35B_TEXT, QWEN3_5_VISION),
    "qwen3_5-tiny-vl": multimodal("qwen3_5", QWEN3_5_TINY_TEXT, TINY_VISION),
    "qwen3_5-tiny": QWEN3_5_TINY_TEXT,
    "qwen3_5_moe-tiny": QWEN3_5_MOE_TINY_TEXT,
    "deepseek_v32-671b": DEEPSEEK_V32,
    "glm_moe_dsa-glm-5": GLM_5,
    "deepseek_v32-tiny": tiny(DEEPSEEK_V32, **DSA_TINY),
    "glm_moe_dsa-tiny": tiny(GLM_5, **DSA_TINY),
    "kimi_linear-48b-a3b": KIMI_LINEAR_48B,
    "kimi_linear-tiny": tiny(KIMI_LINEAR_48B, vocab_size=128, hidden_size=64,
                             intermediate_size=96, num_hidden_layers=4, num_attention_heads=4,
                             num_key_value_heads=4, kv_lora_rank=16, qk_nope_head_dim=16,
                             qk_rope_head_dim=8, v_head_dim=16, num_experts=4,
                             num_experts_per_token=2, moe_intermediate_size=32,
                             pad_token_id=0, bos_token_id=1, eos_token_id=2,
                             linear_attn_config=dict(kda_layers=[1, 2, 4], full_attn_layers=[3],
                                                     num_heads=2, head_dim=16,
                                                     short_conv_kernel_size=4)),
    "glm_moe_dsa-shared-tiny": tiny(GLM_5, **DSA_TINY, indexer_types=["full", "shared", "full"]),
    "olmo_hybrid-7b": OLMO_HYBRID_7B,
    "olmo_hybrid-tiny": tiny(OLMO_HYBRID_7B, vocab_size=128, hidden_size=64, intermediate_size=96,
                             num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                             linear_num_key_heads=2, linear_num_value_heads=4,
                             linear_key_head_dim=8, linear_value_head_dim=16,
                             layer_types=["linear_attention", "full_attention",
                                          "linear_attention", "full_attention"],
                             pad_token_id=0, eos_token_id=1),
}


def cache_bytes(model, batch, seq):
    """The state cache's tensors as `hybrid_reference.py` reads them, and the DSA indexer keys."""
    torch.manual_seed(1)
    kv, conv, rec, states = state_cache_bytes(model, batch, seq)
    # Run again to read the indexer keys the same prefill leaves.
    ids = torch.randint(0, model.config.vocab_size, (batch, seq))
    with torch.no_grad():
        out = model(ids, use_cache=True)
    idx = 0
    for layer in out.past_key_values.layers:
        t = getattr(layer, "indexer_keys", None)
        if isinstance(t, torch.Tensor) and t.numel() > 0:
            idx += t.numel() * t.element_size()
    return kv, conv, rec, idx, states


def build(cfg, meta):
    c = dict(cfg)
    config = AutoConfig.for_model(c.pop("model_type"), **c)
    auto = AutoModelForImageTextToText if "vision_config" in cfg else AutoModelForCausalLM
    if meta:
        with torch.device("meta"):
            return auto.from_config(config)
    torch.manual_seed(0)
    return auto.from_config(config, dtype=torch.bfloat16)


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    print("case,params,state_dict,batch,seq,kv_bytes,conv_bytes,recurrent_bytes,indexer_bytes,states,"
          "transformers,torch")
    for case, cfg in CASES.items():
        if only not in case:
            continue
        model = build(cfg, meta=True)
        params = sum(p.numel() for p in model.parameters())
        keys = set(model.state_dict().keys())
        state_dict = params + sum(b.numel() for n, b in model.named_buffers() if n in keys)
        batch, seq = (2, 5) if case.endswith("tiny") else (0, 0)
        kv = conv = rec = idx = 0
        states = ""
        if batch:
            kv, conv, rec, idx, states = cache_bytes(build(cfg, meta=False), batch, seq)
        print(f"{case},{params},{state_dict},{batch},{seq},{kv},{conv},{rec},{idx},{states},"
              f"{transformers.__version__},{torch.__version__.split('+')[0]}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
