"""Plain decoders vramfit reads by name (olmo3, smollm3, seed_oss, glm4_moe, ernie4_5_moe,
minimax_m2, gpt_bigcode) and decoders it reads generically (model types it does not name:
ernie4_5, olmo2, glm4, exaone4): transformers' parameter counts, the reference that
`crates/vramfit/src/config/generic.rs`'s tests check.

Counted on the meta device (`torch.device("meta")`): `params` is every parameter;
`state_dict` is `params` and the persistent buffers a checkpoint also holds and the GPU keeps (the routers'
`e_score_correction_bias` of glm4_moe and minimax_m2); non-persistent buffers (rotary
frequencies, gpt_bigcode's causal mask) are not counted.

The configs hold the shapes of the named checkpoints' config.json (as the transformers config
classes' docstrings and defaults give them where the class is modelled on that checkpoint).

Run: python3 tests/reference/decoder_reference.py > tests/reference/decoder-reference.csv
(transformers 5.25.0, torch 2.15.0; CPU only, a few seconds).
"""
import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

CASES = {
    # allenai/Olmo-3-1025-7B shapes: 3 sliding layers of 4,096 then one full.
    "olmo3-7b": dict(model_type="olmo3", vocab_size=100278, hidden_size=4096,
        intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=32, max_position_embeddings=65536, sliding_window=4096,
        tie_word_embeddings=False),
    # HuggingFaceTB/SmolLM3-3B shapes.
    "smollm3-3b": dict(model_type="smollm3", vocab_size=128256, hidden_size=2048,
        intermediate_size=11008, num_hidden_layers=36, num_attention_heads=16,
        num_key_value_heads=4, max_position_embeddings=65536, tie_word_embeddings=True),
    # ByteDance-Seed/Seed-OSS-36B-Instruct shapes.
    "seed_oss-36b": dict(model_type="seed_oss", vocab_size=155136, hidden_size=5120,
        intermediate_size=27648, num_hidden_layers=64, num_attention_heads=80,
        num_key_value_heads=8, head_dim=128, attention_bias=True, attention_out_bias=False,
        max_position_embeddings=524288, tie_word_embeddings=False),
    # zai-org/GLM-4.5-Air shapes (Glm4MoeConfig's defaults); qkv bias, no qk norm.
    "glm4_moe-air": dict(model_type="glm4_moe", vocab_size=151552, hidden_size=4096,
        intermediate_size=10944, num_hidden_layers=46, num_attention_heads=96,
        num_key_value_heads=8, head_dim=128, moe_intermediate_size=1408, n_routed_experts=128,
        num_experts_per_tok=8, n_shared_experts=1, first_k_dense_replace=1,
        attention_bias=True, use_qk_norm=False, tie_word_embeddings=False),
    # zai-org/GLM-4.5 shapes: qk norm, 3 dense layers.
    "glm4_moe-355b": dict(model_type="glm4_moe", vocab_size=151552, hidden_size=5120,
        intermediate_size=12288, num_hidden_layers=92, num_attention_heads=96,
        num_key_value_heads=8, head_dim=128, moe_intermediate_size=1536, n_routed_experts=160,
        num_experts_per_tok=8, n_shared_experts=1, first_k_dense_replace=3,
        attention_bias=True, use_qk_norm=True, tie_word_embeddings=False),
    # baidu/ERNIE-4.5-21B-A3B-PT shapes (Ernie4_5_MoeConfig's defaults).
    "ernie4_5_moe-21b": dict(model_type="ernie4_5_moe", vocab_size=103424, hidden_size=2560,
        intermediate_size=12288, num_hidden_layers=28, num_attention_heads=20,
        num_key_value_heads=4, moe_intermediate_size=1536, moe_k=6, moe_num_experts=64,
        moe_num_shared_experts=2, moe_layer_start_index=1, moe_layer_end_index=27,
        moe_layer_interval=1, use_bias=False, tie_word_embeddings=True),
    # MiniMaxAI/MiniMax-M2 shapes (MiniMaxM2Config's defaults).
    "minimax_m2-230b": dict(model_type="minimax_m2", vocab_size=200064, hidden_size=3072,
        intermediate_size=1536, num_hidden_layers=62, num_attention_heads=48,
        num_key_value_heads=8, head_dim=128, num_local_experts=256, num_experts_per_tok=8,
        tie_word_embeddings=False),
    # bigcode/starcoder shapes: multi-query attention.
    "gpt_bigcode-15b": dict(model_type="gpt_bigcode", vocab_size=49152, bos_token_id=0, eos_token_id=0, n_embd=6144,
        n_head=48, n_layer=40, n_positions=8192, n_inner=24576, multi_query=True),
    # Read generically (model types vramfit does not name):
    # baidu/ERNIE-4.5-0.3B-PT shapes: Llama's layout.
    "ernie4_5-0.3b": dict(model_type="ernie4_5", vocab_size=103424, hidden_size=1024,
        intermediate_size=3072, num_hidden_layers=18, num_attention_heads=16,
        num_key_value_heads=2, head_dim=128, use_bias=False, tie_word_embeddings=True),
    # allenai/OLMo-2-1124-7B shapes: q/k norms over the whole projection.
    "olmo2-7b": dict(model_type="olmo2", vocab_size=100352, hidden_size=4096,
        intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=32, tie_word_embeddings=False),
    # zai-org/GLM-4-9B-0414 shapes: four norms a layer, qkv bias.
    "glm4-9b": dict(model_type="glm4", vocab_size=151552, hidden_size=4096,
        intermediate_size=13696, num_hidden_layers=40, num_attention_heads=32,
        num_key_value_heads=2, head_dim=128, attention_bias=True, tie_word_embeddings=False),
    # AriaTextConfig's defaults, and a tiny config: its own MoE keys (moe_num_experts, moe_topk,
    # moe_num_shared_experts).
    "aria_text-defaults": dict(model_type="aria_text"),
    "aria_text-tiny": dict(model_type="aria_text", vocab_size=1000, hidden_size=64,
        intermediate_size=96, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
        moe_num_experts=5, moe_topk=2, moe_num_shared_experts=3),
}


def main():
    print("case,params,state_dict,transformers,torch")
    for case, cfg in CASES.items():
        cfg = dict(cfg)
        config = AutoConfig.for_model(cfg.pop("model_type"), **cfg)
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(config)
        params = sum(p.numel() for p in model.parameters())
        names = {n for n, _ in model.named_parameters(remove_duplicate=False)}
        buffers = sum(t.numel() for k, t in model.state_dict().items() if k not in names)
        state = params + buffers
        print(f"{case},{params},{state},{transformers.__version__},{torch.__version__.split('+')[0]}")


if __name__ == "__main__":
    main()
