//! The families whose attention is read layer by layer beyond the first hybrids (issue 42):
//! their configs, and what transformers counted there (`tests/reference/attention_reference.py`,
//! `attention-reference.csv`, transformers 5.24.0): parameters on the meta device (for a
//! multimodal checkpoint the whole model, its vision tower included) and, for the tiny models,
//! the cache a prefill of 2 sequences of 5 tokens left.

use super::parse_config;
use crate::model::Architecture;

/// Qwen/Qwen3.5-9B's config.json: its text_config and its vision_config (the keys it leaves
/// out take `Qwen3_5VisionConfig`'s defaults).
const QWEN3_5_9B: &str = r#"{"model_type": "qwen3_5", "tie_word_embeddings": false,
    "text_config": {"model_type": "qwen3_5_text", "vocab_size": 248320, "hidden_size": 4096,
    "intermediate_size": 12288, "num_hidden_layers": 32, "num_attention_heads": 16,
    "num_key_value_heads": 4, "head_dim": 256, "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_num_key_heads": 16,
    "linear_num_value_heads": 32, "full_attention_interval": 4, "mtp_num_hidden_layers": 1,
    "layer_types": ["linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention"], "tie_word_embeddings": false, "max_position_embeddings": 262144},
    "vision_config": {"model_type": "qwen3_5", "depth": 27, "hidden_size": 1152,
    "intermediate_size": 4304, "num_heads": 16, "in_channels": 3, "patch_size": 16,
    "temporal_patch_size": 2, "spatial_merge_size": 2, "num_position_embeddings": 2304,
    "out_hidden_size": 4096}}"#;
/// Qwen/Qwen3.5-35B-A3B's config.json (Qwen3.6-35B-A3B's has the same shapes).
const QWEN3_5_35B_A3B: &str = r#"{"model_type": "qwen3_5_moe", "tie_word_embeddings": false,
    "text_config": {"model_type": "qwen3_5_moe_text", "vocab_size": 248320,
    "hidden_size": 2048, "num_hidden_layers": 40, "num_attention_heads": 16,
    "num_key_value_heads": 2, "head_dim": 256, "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_num_key_heads": 16,
    "linear_num_value_heads": 32, "full_attention_interval": 4, "num_experts": 256,
    "num_experts_per_tok": 8, "moe_intermediate_size": 512,
    "shared_expert_intermediate_size": 512, "mtp_num_hidden_layers": 1,
    "tie_word_embeddings": false, "max_position_embeddings": 262144},
    "vision_config": {"depth": 27, "hidden_size": 1152, "intermediate_size": 4304,
    "num_heads": 16, "patch_size": 16, "temporal_patch_size": 2, "spatial_merge_size": 2,
    "num_position_embeddings": 2304, "out_hidden_size": 2048}}"#;
const QWEN3_5_TINY: &str = r#"{"model_type": "qwen3_5_text", "vocab_size": 128,
    "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 4,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
    "linear_conv_kernel_dim": 4, "linear_key_head_dim": 8, "linear_value_head_dim": 16,
    "linear_num_key_heads": 2, "linear_num_value_heads": 4, "full_attention_interval": 2,
    "tie_word_embeddings": false}"#;
const QWEN3_5_TINY_VL: &str = r#"{"model_type": "qwen3_5", "text_config": {
    "model_type": "qwen3_5_text", "vocab_size": 128, "hidden_size": 64,
    "intermediate_size": 96, "num_hidden_layers": 4, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 8, "linear_value_head_dim": 16, "linear_num_key_heads": 2,
    "linear_num_value_heads": 4, "full_attention_interval": 2},
    "vision_config": {"depth": 2, "hidden_size": 32, "intermediate_size": 48, "num_heads": 4,
    "in_channels": 3, "patch_size": 4, "temporal_patch_size": 2, "spatial_merge_size": 2,
    "num_position_embeddings": 64, "out_hidden_size": 64}}"#;
const QWEN3_5_MOE_TINY: &str = r#"{"model_type": "qwen3_5_moe_text", "vocab_size": 128,
    "hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 8, "linear_value_head_dim": 16, "linear_num_key_heads": 2,
    "linear_num_value_heads": 4, "full_attention_interval": 2, "num_experts": 4,
    "num_experts_per_tok": 2, "moe_intermediate_size": 32,
    "shared_expert_intermediate_size": 48, "tie_word_embeddings": false}"#;

fn arch(json: &str) -> Architecture {
    parse_config(json).unwrap().arch
}

/// The cache of `batch` sequences of `seq` tokens as transformers keeps a Gated DeltaNet
/// hybrid: bf16 K and V in the attention layers; per state layer a bf16 convolution state of
/// the whole kernel and an fp32 recurrent state. `(kv, conv, recurrent)` bytes.
fn hf_state_cache(a: &Architecture, batch: u64, seq: u64) -> (u64, u64, u64) {
    let kv = a.attention_layers() * a.kv_elements_per_token_layer() * seq * batch * 2;
    let s = a.hybrid.unwrap().state_elements(a.hidden_size);
    let layers = a.state_layers();
    (
        kv,
        layers * s.conv * batch * 2,
        layers * s.recurrent * batch * 4,
    )
}

#[test]
fn qwen3_5_parameters_match_transformers_meta_count() {
    for (json, params) in [
        (QWEN3_5_9B, 9_409_813_744),
        (QWEN3_5_35B_A3B, 35_107_181_936),
        (QWEN3_5_TINY, 154_032),
        (QWEN3_5_TINY_VL, 199_024),
        (QWEN3_5_MOE_TINY, 216_752),
    ] {
        assert_eq!(arch(json).params(), params, "{json}");
    }
    // The 9B's vision tower by hand: patch conv 3 × 2 × 16² × 1152 + 1152, positions
    // 2304 × 1152 = 4,424,832; 27 blocks of 4 × 1152 (norms) + 3 × 1152² + 3 × 1152 (qkv)
    // + 1152² + 1152 (proj) + 2 × 1152 × 4304 + 4304 + 1152 (MLP) = 15,239,504 each; the
    // merger 2 × 1152 + 4608² + 4608 + 4608 × 4096 + 4096 = 40,119,040. 456,010,480 in all,
    // what transformers counts beside the 8,953,803,264 of the text model alone.
    assert_eq!(arch(QWEN3_5_9B).extra_params, 456_010_480);
}

#[test]
fn qwen3_5_caches_match_transformers_tensors() {
    for json in [QWEN3_5_TINY, QWEN3_5_MOE_TINY] {
        assert_eq!(
            hf_state_cache(&arch(json), 2, 5),
            (2560, 3072, 8192),
            "{json}"
        );
    }
    let h = arch(QWEN3_5_35B_A3B).hybrid.unwrap();
    assert_eq!((h.attention_layers, h.state_layers), (10, 30));
}

/// The presets (`data/models/*.toml`) hold what this reader reads from their configs.
#[test]
fn presets_carry_what_their_configs_say() {
    for (id, json) in [
        ("Qwen/Qwen3.5-9B", QWEN3_5_9B),
        ("Qwen/Qwen3.5-35B-A3B", QWEN3_5_35B_A3B),
    ] {
        let preset = crate::presets::presets()
            .iter()
            .find(|p| p.id == id)
            .unwrap();
        let read = arch(json);
        assert_eq!(preset.arch, read, "{id}");
        assert_eq!(preset.params, read.params(), "{id}");
    }
}
