"""Attention of every kind (issue 42): parameter counts and transformers' cache contents of the
families whose layers are read one by one: Qwen3.5 (Gated DeltaNet + gated attention, with its
vision tower), ... The reference that `config/hybrid.rs`'s and `config/attention.rs`'s tests
check (`attention-reference.csv`).

Parameters: the model built on the meta device, every parameter counted (for a multimodal
checkpoint the whole `...ForConditionalGeneration`, vision tower included).
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
from hybrid_reference import cache_bytes  # noqa: E402

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

CASES = {
    "qwen3_5-9b": multimodal("qwen3_5", QWEN3_5_9B_TEXT, QWEN3_5_VISION),
    "qwen3_5-9b-text": QWEN3_5_9B_TEXT,
    "qwen3_5_moe-35b-a3b": multimodal("qwen3_5_moe", QWEN3_5_35B_TEXT, QWEN3_5_VISION),
    "qwen3_5-tiny-vl": multimodal("qwen3_5", QWEN3_5_TINY_TEXT, TINY_VISION),
    "qwen3_5-tiny": QWEN3_5_TINY_TEXT,
    "qwen3_5_moe-tiny": QWEN3_5_MOE_TINY_TEXT,
}


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
    print("case,params,batch,seq,kv_bytes,conv_bytes,recurrent_bytes,states,transformers,torch")
    for case, cfg in CASES.items():
        if only not in case:
            continue
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
