//! DeepSeek-V4 (`deepseek_v4`) against what transformers 5.24.0 counted
//! (`tests/reference/compressed_reference.py`, `compressed-reference.csv`): the meta-device
//! state dict (parameters and the routers' persistent buffers) of DeepSeek-V4-Flash's config,
//! of `DeepseekV4Config`'s defaults and of the tiny model whose cache the reference reads.

use super::parse_config;
use crate::model::{Compressed, CompressedKind};

/// deepseek-ai/DeepSeek-V4-Flash config.json
/// (<https://huggingface.co/deepseek-ai/DeepSeek-V4-Flash/blob/main/config.json>, read
/// 2026-12-07 as transcribed in public test fixtures): 43 layers and 46 `compress_ratios` (the
/// last three the MTP layers'), FP8 with FP4 experts.
pub(crate) const DEEPSEEK_V4_FLASH: &str = r#"{"architectures": ["DeepseekV4ForCausalLM"],
    "model_type": "deepseek_v4", "expert_dtype": "fp4", "hc_eps": 1e-06, "hc_mult": 4,
    "hc_sinkhorn_iters": 20, "head_dim": 512, "hidden_act": "silu", "hidden_size": 4096,
    "index_head_dim": 128, "index_n_heads": 64, "index_topk": 512,
    "max_position_embeddings": 1048576, "moe_intermediate_size": 2048, "n_routed_experts": 256,
    "n_shared_experts": 1, "norm_topk_prob": true, "num_attention_heads": 64,
    "num_experts_per_tok": 6, "num_hidden_layers": 43, "num_hash_layers": 3,
    "num_key_value_heads": 1, "num_nextn_predict_layers": 1, "o_groups": 8, "o_lora_rank": 1024,
    "q_lora_rank": 1024, "qk_rope_head_dim": 64,
    "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
    "scale_fmt": "ue8m0", "weight_block_size": [128, 128]}, "rms_norm_eps": 1e-06,
    "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 16,
    "original_max_position_embeddings": 65536, "type": "yarn"}, "rope_theta": 10000,
    "routed_scaling_factor": 1.5, "scoring_func": "sqrtsoftplus", "sliding_window": 128,
    "swiglu_limit": 10.0, "tie_word_embeddings": false, "topk_method": "noaux_tc",
    "torch_dtype": "bfloat16", "vocab_size": 129280, "compress_rope_theta": 160000,
    "compress_ratios": [0, 0, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128,
    4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4,
    128, 4, 0, 0, 0]}"#;

/// The reference's tiny model: the real rates (4, 128) and window (128), five layers.
pub(crate) const DEEPSEEK_V4_TINY: &str = r#"{"model_type": "deepseek_v4", "vocab_size": 128,
    "hidden_size": 64, "moe_intermediate_size": 32, "num_hidden_layers": 5,
    "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 32, "qk_rope_head_dim": 8,
    "q_lora_rank": 24, "o_lora_rank": 16, "o_groups": 2, "num_experts_per_tok": 2,
    "n_routed_experts": 4, "n_shared_experts": 1, "index_n_heads": 4, "index_head_dim": 16,
    "index_topk": 8, "sliding_window": 128, "hc_mult": 4, "num_hash_layers": 1,
    "compress_ratios": [0, 0, 4, 128, 4], "max_position_embeddings": 4096,
    "tie_word_embeddings": false}"#;

#[test]
fn deepseek_v4_parameters_match_transformers_meta_count() {
    // compressed-reference.csv's state_dict column: the parameters and the routers' buffers
    // (DeepSeek-V4-Flash: 284,332,230,231 parameters, 40 × 256 e_score_correction_bias and
    // 3 × 129,280 × 6 tid2eid entries = 2,337,280).
    for (json, state_dict) in [
        (DEEPSEEK_V4_FLASH, 284_334_567_511u64),
        (r#"{"model_type": "deepseek_v4"}"#, 284_328_206_295),
        (DEEPSEEK_V4_TINY, 326_287),
    ] {
        let p = parse_config(json).unwrap();
        assert_eq!(p.arch.params(), state_dict, "{json}");
    }
}

#[test]
fn deepseek_v4_read_by_its_own_rules() {
    let p = parse_config(DEEPSEEK_V4_FLASH).unwrap();
    let c: Compressed = p.arch.compressed.unwrap();
    // The first 43 of 46 ratios: 2 zeros, 21 fours and 20 × 128.
    assert_eq!((c.sliding_layers, c.csa_layers, c.hca_layers), (2, 21, 20));
    assert_eq!((c.csa_rate, c.hca_rate, c.hash_layers), (4, 128, 3));
    assert_eq!(
        (p.arch.num_kv_heads, p.arch.head_dim, p.arch.sliding_window),
        (1, 512, 128)
    );
    assert_eq!(c.kind(1), CompressedKind::Sliding);
    assert_eq!(c.kind(2), CompressedKind::Csa);
    assert_eq!(c.kind(42), CompressedKind::Hca);
    // FP4 experts beside FP8: counted as MXFP4 experts, the rest in the model dtype.
    assert_eq!(p.quantization, Some(crate::precision::Quantization::Mxfp4));
    // DeepseekV4Config's default schedule: 2 HCA, then HCA and CSA in turn (41 → 20 CSA).
    let d = parse_config(r#"{"model_type": "deepseek_v4"}"#).unwrap();
    let c = d.arch.compressed.unwrap();
    assert_eq!((c.sliding_layers, c.csa_layers, c.hca_layers), (0, 20, 23));
    // layer_types is read before compress_ratios; an unknown kind or ratio names its field.
    let e = parse_config(
        r#"{"model_type": "deepseek_v4", "num_hidden_layers": 2,
        "compress_ratios": [0, 16]}"#,
    )
    .unwrap_err();
    assert_eq!(e.field, "config.json: compress_ratios");
    let e = parse_config(
        r#"{"model_type": "deepseek_v4", "num_hidden_layers": 2,
        "layer_types": ["sliding_attention"]}"#,
    )
    .unwrap_err();
    assert_eq!(e.field, "config.json: layer_types");
    let e = parse_config(r#"{"model_type": "deepseek_v4", "o_groups": 7}"#).unwrap_err();
    assert_eq!(e.field, "config.json: compressed.o_groups");
}
