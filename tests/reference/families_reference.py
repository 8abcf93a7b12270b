"""The families of issue 42 read by their own rules (beside `attention_reference.py`'s kinds of
attention): Qwen3-VL and Qwen3-VL-MoE (Qwen3's text model with its vision tower and DeepStack
mergers), InternVL (InternViT, the pixel-shuffle projector and a language model of another
`model_type`), Kimi K2.5 (Kimi K2's text model as DeepSeek-V3, MoonViT and its projector),
Mistral 4 (DeepSeek-V3's latent attention and experts, without the router's bias)
alone and inside Mistral 3's wrapper. The reference that `config/families_tests.rs` checks
(`families-reference.csv`).

Parameters: the model built on the meta device, every parameter counted (for a multimodal
checkpoint the whole `...ForConditionalGeneration`, vision tower included); `state_dict` adds the
persistent buffers a checkpoint also holds. Caches: a tiny model built with real bf16 tensors on
the CPU, one prefill of `batch` sequences of `seq` tokens (text only) with `use_cache=True`; the
cache's tensors read back per layer, their bytes as stored (`numel x element size`), as
`hybrid_reference.py` does.

The full-size configs (each read 2026-12-06):
- Qwen/Qwen3-VL-4B-Instruct https://huggingface.co/Qwen/Qwen3-VL-4B-Instruct/blob/main/config.json
- Qwen/Qwen3-VL-8B-Instruct https://huggingface.co/Qwen/Qwen3-VL-8B-Instruct/blob/main/config.json
- Qwen/Qwen3-VL-30B-A3B-Instruct (transformers' `Qwen3VLMoeConfig` docstring checkpoint)
  https://huggingface.co/Qwen/Qwen3-VL-30B-A3B-Instruct/blob/main/config.json
- OpenGVLab/InternVL3-1B-hf (transformers' `InternVLConfig` docstring checkpoint) and
  OpenGVLab/InternVL3-8B-hf https://huggingface.co/OpenGVLab/InternVL3-8B-hf/blob/main/config.json
- moonshotai/Kimi-K2.5 https://huggingface.co/moonshotai/Kimi-K2.5/blob/main/config.json (its
  text_config; the vision tower at transformers' `Kimi_K25VisionConfig` defaults, the keys it reads)
- mistralai/Mistral-Small-4-119B-2603: its text model is `Mistral4Config`'s defaults (the class's
  docstring checkpoint), https://huggingface.co/mistralai/Mistral-Small-4-119B-2603

Run: python3 tests/reference/families_reference.py > tests/reference/families-reference.csv
(transformers 5.24.0, torch 2.15.0; CPU only, under a minute).
"""
import sys
import os
import torch
import transformers

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_reference import build as auto_build, tiny  # noqa: E402
from transformers import AutoConfig, Mistral4ForCausalLM

QWEN3_VL_4B_TEXT = dict(
    model_type="qwen3_vl_text", vocab_size=151936, hidden_size=2560, intermediate_size=9728,
    num_hidden_layers=36, num_attention_heads=32, num_key_value_heads=8, head_dim=128,
    max_position_embeddings=262144, tie_word_embeddings=True)
QWEN3_VL_SMALL_VISION = dict(
    depth=24, hidden_size=1024, intermediate_size=4096, num_heads=16, in_channels=3,
    patch_size=16, temporal_patch_size=2, spatial_merge_size=2, num_position_embeddings=2304,
    deepstack_visual_indexes=[5, 11, 17])
QWEN3_VL_8B_TEXT = dict(
    model_type="qwen3_vl_text", vocab_size=151936, hidden_size=4096, intermediate_size=12288,
    num_hidden_layers=36, num_attention_heads=32, num_key_value_heads=8, head_dim=128,
    max_position_embeddings=262144, tie_word_embeddings=False)
QWEN3_VL_VISION = dict(
    depth=27, hidden_size=1152, intermediate_size=4304, num_heads=16, in_channels=3,
    patch_size=16, temporal_patch_size=2, spatial_merge_size=2, num_position_embeddings=2304,
    deepstack_visual_indexes=[8, 16, 24])
QWEN3_VL_30B_TEXT = dict(
    model_type="qwen3_vl_moe_text", vocab_size=151936, hidden_size=2048, intermediate_size=6144,
    num_hidden_layers=48, num_attention_heads=32, num_key_value_heads=4, head_dim=128,
    num_experts=128, num_experts_per_tok=8, moe_intermediate_size=768, decoder_sparse_step=1,
    max_position_embeddings=262144, tie_word_embeddings=False)

# InternViT-300M as the -hf conversions write it (qkv with biases, LayerNorm, mean pooling).
INTERNVIT_300M = dict(
    hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
    attention_bias=True, use_qk_norm=False, norm_type="layer_norm", image_size=[448, 448],
    patch_size=[14, 14], num_channels=3, use_mean_pooling=True, layer_scale_init_value=0.1)
# Qwen2.5-0.5B's and Qwen2.5-7B's shapes, InternVL3's language models.
INTERNVL3_1B_TEXT = dict(
    model_type="qwen2", vocab_size=151674, hidden_size=896, intermediate_size=4864,
    num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2,
    max_position_embeddings=32768, tie_word_embeddings=True)
INTERNVL3_8B_TEXT = dict(
    model_type="qwen2", vocab_size=151674, hidden_size=3584, intermediate_size=18944,
    num_hidden_layers=28, num_attention_heads=28, num_key_value_heads=4,
    max_position_embeddings=32768, tie_word_embeddings=False)

MISTRAL_SMALL_4_TEXT = dict(
    model_type="mistral4", vocab_size=131072, hidden_size=4096, intermediate_size=12288,
    moe_intermediate_size=2048, num_hidden_layers=36, num_attention_heads=32,
    num_key_value_heads=32, n_shared_experts=1, n_routed_experts=128, kv_lora_rank=256,
    q_lora_rank=1024, qk_rope_head_dim=64, v_head_dim=128, qk_nope_head_dim=64,
    num_experts_per_tok=4, first_k_dense_replace=0, max_position_embeddings=1048576,
    tie_word_embeddings=False)

# moonshotai/Kimi-K2.5: Kimi K2's text model (DeepSeek-V3's layout, 384 experts) under
# `kimi_k25` with MoonViT (Kimi_K25VisionConfig's defaults, the keys transformers 5.24 reads).
KIMI_K2_TEXT = dict(
    model_type="deepseek_v3", vocab_size=163840, hidden_size=7168, intermediate_size=18432,
    moe_intermediate_size=2048, num_hidden_layers=61, num_attention_heads=64,
    num_key_value_heads=64, n_shared_experts=1, n_routed_experts=384, kv_lora_rank=512,
    q_lora_rank=1536, qk_rope_head_dim=64, v_head_dim=128, qk_nope_head_dim=128, n_group=1,
    topk_group=1, num_experts_per_tok=8, first_k_dense_replace=1, topk_method="noaux_tc",
    max_position_embeddings=262144, tie_word_embeddings=False)
MOONVIT = dict(patch_size=14, pos_emb_height=64, pos_emb_width=64, pos_emb_time=4,
               num_attention_heads=16, num_hidden_layers=27, hidden_size=1152,
               intermediate_size=4304, merge_kernel_size=[2, 2])


def vl(model_type, text, vision, tie):
    return dict(model_type=model_type, text_config=text,
                vision_config=dict(vision, out_hidden_size=text["hidden_size"]),
                tie_word_embeddings=tie)


def internvl(text, vision, tie):
    return dict(model_type="internvl", text_config=text, vision_config=vision,
                downsample_ratio=0.5, tie_word_embeddings=tie)


TINY_TEXT = dict(vocab_size=128, hidden_size=64, intermediate_size=96, num_hidden_layers=3,
                 num_attention_heads=4, num_key_value_heads=2, head_dim=16)
TINY_QWEN_VISION = dict(depth=3, hidden_size=32, intermediate_size=48, num_heads=4,
                        in_channels=3, patch_size=4, temporal_patch_size=2,
                        spatial_merge_size=2, num_position_embeddings=64,
                        deepstack_visual_indexes=[0, 2])
TINY_INTERNVIT = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=48, attention_bias=True, use_qk_norm=False,
                      norm_type="layer_norm", image_size=[32, 32], patch_size=[8, 8],
                      num_channels=3, use_mean_pooling=True)
# InternViT-6B's choices: RMSNorm, qk-norm, no biases on q/k/v, a final LayerNorm.
TINY_INTERNVIT_6B = dict(TINY_INTERNVIT, attention_bias=False, use_qk_norm=True,
                         norm_type="rms_norm", use_mean_pooling=False)
MLA_TINY = dict(vocab_size=128, hidden_size=64, intermediate_size=96, moe_intermediate_size=32,
                num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=4,
                n_routed_experts=4, num_experts_per_tok=2, kv_lora_rank=16, q_lora_rank=24,
                qk_rope_head_dim=8, v_head_dim=16, qk_nope_head_dim=16, n_group=1, topk_group=1,
                first_k_dense_replace=1)
TINY_PIXTRAL = dict(model_type="pixtral", hidden_size=32, intermediate_size=48,
                    num_hidden_layers=2, num_attention_heads=4, head_dim=8, patch_size=4,
                    image_size=32, num_channels=3)

CASES = {
    "qwen3_vl-4b": vl("qwen3_vl", QWEN3_VL_4B_TEXT, QWEN3_VL_SMALL_VISION, True),
    "qwen3_vl-8b": vl("qwen3_vl", QWEN3_VL_8B_TEXT, QWEN3_VL_VISION, False),
    "qwen3_vl_moe-30b-a3b": vl("qwen3_vl_moe", QWEN3_VL_30B_TEXT, QWEN3_VL_VISION, False),
    "qwen3_vl-tiny": vl("qwen3_vl", tiny(QWEN3_VL_8B_TEXT, **TINY_TEXT), TINY_QWEN_VISION, False),
    "qwen3_vl_moe-tiny": vl("qwen3_vl_moe",
                            tiny(QWEN3_VL_30B_TEXT, **TINY_TEXT, num_experts=4,
                                 num_experts_per_tok=2, moe_intermediate_size=32,
                                 decoder_sparse_step=2),
                            TINY_QWEN_VISION, False),
    "internvl3-1b": internvl(INTERNVL3_1B_TEXT, INTERNVIT_300M, True),
    "internvl3-8b": internvl(INTERNVL3_8B_TEXT, INTERNVIT_300M, False),
    "internvl-tiny": internvl(tiny(INTERNVL3_8B_TEXT, **TINY_TEXT), TINY_INTERNVIT, False),
    "internvl-qwen3-rms-tiny": internvl(dict(TINY_TEXT, model_type="qwen3"), TINY_INTERNVIT_6B,
                                        True),
    "kimi_k25-k2.5": dict(model_type="kimi_k25", text_config=KIMI_K2_TEXT, vision_config=MOONVIT,
                          projection_hidden_size=1152, tie_word_embeddings=False),
    "kimi_k25-tiny": dict(model_type="kimi_k25", text_config=tiny(KIMI_K2_TEXT, **MLA_TINY),
                          vision_config=dict(patch_size=4, pos_emb_height=8, pos_emb_width=8,
                                             num_attention_heads=4, num_hidden_layers=2,
                                             hidden_size=32, intermediate_size=48,
                                             merge_kernel_size=[2, 2]),
                          projection_hidden_size=32, tie_word_embeddings=False),
    "mistral4-small-4-text": MISTRAL_SMALL_4_TEXT,
    # A file that writes no key but model_type: the class defaults.
    "mistral4-defaults": dict(model_type="mistral4"),
    "mistral4-tiny": tiny(MISTRAL_SMALL_4_TEXT, **MLA_TINY),
    "mistral3-mistral4-tiny": dict(model_type="mistral3",
                                   text_config=tiny(MISTRAL_SMALL_4_TEXT, **MLA_TINY),
                                   vision_config=TINY_PIXTRAL, spatial_merge_size=2,
                                   tie_word_embeddings=False),
}


def build(cfg, meta):
    """As `attention_reference.build`; Mistral 4 has no auto causal-LM class, so its own."""
    if cfg["model_type"] != "mistral4":
        return auto_build(cfg, meta)
    c = dict(cfg)
    config = AutoConfig.for_model(c.pop("model_type"), **c)
    if meta:
        with torch.device("meta"):
            return Mistral4ForCausalLM(config)
    torch.manual_seed(0)
    return Mistral4ForCausalLM(config).to(torch.bfloat16)


def kv_bytes(model, batch, seq):
    """The K and V a prefill of `batch` x `seq` text tokens leaves in the cache, in bytes."""
    vocab = model.config.get_text_config().vocab_size
    ids = torch.randint(0, vocab, (batch, seq))
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True)
    kv, dtypes = 0, set()
    for layer in out.past_key_values.layers:
        for name in ("keys", "values"):
            t = getattr(layer, name, None)
            if isinstance(t, torch.Tensor) and t.numel() > 0:
                kv += t.numel() * t.element_size()
                dtypes.add(f"kv:{t.dtype}")
    return kv, ";".join(sorted(dtypes))


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    print("case,params,state_dict,batch,seq,kv_bytes,states,transformers,torch")
    for case, cfg in CASES.items():
        if only not in case:
            continue
        model = build(cfg, meta=True)
        params = sum(p.numel() for p in model.parameters())
        keys = set(model.state_dict().keys())
        state_dict = params + sum(b.numel() for n, b in model.named_buffers() if n in keys)
        batch, seq = (2, 5) if case.endswith("tiny") else (0, 0)
        kv = 0
        states = ""
        if batch:
            torch.manual_seed(1)
            kv, states = kv_bytes(build(cfg, meta=False), batch, seq)
        print(f"{case},{params},{state_dict},{batch},{seq},{kv},{states},"
              f"{transformers.__version__},{torch.__version__.split('+')[0]}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
