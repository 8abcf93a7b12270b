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
    assert_eq!(arch(QWEN3_5_9B).vision_params, 456_010_480);
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
        ("deepseek-ai/DeepSeek-V3.2", DEEPSEEK_V32),
        ("zai-org/GLM-5", GLM_5),
        ("moonshotai/Kimi-Linear-48B-A3B-Instruct", KIMI_LINEAR_48B),
        ("allenai/Olmo-Hybrid-7B", OLMO_HYBRID_7B),
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

/// deepseek-ai/DeepSeek-V3.2's config.json (DeepSeek-V3's shapes with the indexer's keys).
const DEEPSEEK_V32: &str = r#"{"model_type": "deepseek_v32", "vocab_size": 129280,
    "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
    "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
    "n_shared_experts": 1, "n_routed_experts": 256, "kv_lora_rank": 512, "q_lora_rank": 1536,
    "qk_rope_head_dim": 64, "v_head_dim": 128, "qk_nope_head_dim": 128, "n_group": 8,
    "topk_group": 4, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
    "topk_method": "noaux_tc", "index_topk": 2048, "index_head_dim": 128, "index_n_heads": 64,
    "num_nextn_predict_layers": 1, "max_position_embeddings": 163840,
    "tie_word_embeddings": false}"#;
/// zai-org/GLM-5's config.json.
const GLM_5: &str = r#"{"model_type": "glm_moe_dsa", "vocab_size": 154880,
    "hidden_size": 6144, "intermediate_size": 12288, "moe_intermediate_size": 2048,
    "num_hidden_layers": 78, "num_attention_heads": 64, "num_key_value_heads": 64,
    "n_shared_experts": 1, "n_routed_experts": 256, "kv_lora_rank": 512, "q_lora_rank": 2048,
    "qk_rope_head_dim": 64, "v_head_dim": 256, "qk_nope_head_dim": 192, "n_group": 1,
    "topk_group": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
    "topk_method": "noaux_tc", "index_topk": 2048, "index_head_dim": 128, "index_n_heads": 32,
    "num_nextn_predict_layers": 1, "max_position_embeddings": 202752,
    "tie_word_embeddings": false}"#;
/// The tiny DSA models of the reference (3 layers, the first dense), without and with GLM's
/// "shared" indexer layers.
const DSA_TINY: &str = r#"{"model_type": "deepseek_v32", "vocab_size": 128, "hidden_size": 64,
    "intermediate_size": 96, "moe_intermediate_size": 32, "num_hidden_layers": 3,
    "num_attention_heads": 4, "num_key_value_heads": 4, "n_shared_experts": 1,
    "n_routed_experts": 4, "num_experts_per_tok": 2, "kv_lora_rank": 16, "q_lora_rank": 24,
    "qk_rope_head_dim": 8, "v_head_dim": 16, "qk_nope_head_dim": 16, "n_group": 1,
    "topk_group": 1, "first_k_dense_replace": 1, "topk_method": "noaux_tc", "index_topk": 4,
    "index_head_dim": 16, "index_n_heads": 4, "tie_word_embeddings": false}"#;
const GLM_DSA_SHARED_TINY: &str = r#"{"model_type": "glm_moe_dsa", "vocab_size": 128,
    "hidden_size": 64, "intermediate_size": 96, "moe_intermediate_size": 32,
    "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 4,
    "n_shared_experts": 1, "n_routed_experts": 4, "num_experts_per_tok": 2, "kv_lora_rank": 16,
    "q_lora_rank": 24, "qk_rope_head_dim": 8, "v_head_dim": 16, "qk_nope_head_dim": 16,
    "n_group": 1, "topk_group": 1, "first_k_dense_replace": 1, "topk_method": "noaux_tc",
    "index_topk": 4, "index_head_dim": 16, "index_n_heads": 4,
    "indexer_types": ["full", "shared", "full"], "tie_word_embeddings": false}"#;

/// The parameters against transformers' `state_dict` (its parameters and the routers'
/// `e_score_correction_bias`, a buffer there and a tensor in the checkpoint).
#[test]
fn dsa_parameters_match_transformers_meta_count() {
    for (json, state_dict) in [
        (DEEPSEEK_V32, 671_877_944_064),
        (GLM_5, 743_911_218_432),
        (DSA_TINY, 140_448),
        (GLM_DSA_SHARED_TINY, 137_600),
    ] {
        assert_eq!(arch(json).params(), state_dict, "{json}");
    }
    // DeepSeek-V3.2 is DeepSeek-V3 (671,026,419,200 parameters) and an indexer per layer:
    // wq_b 1,536 × 64 × 128 + wk 7,168 × 128 + its LayerNorm 2 × 128 + weights_proj 7,168 × 64
    // = 13,959,424, × 61 = 851,524,864.
    assert_eq!(
        arch(DEEPSEEK_V32).params(),
        671_026_419_200 + 61 * (1536 * 64 * 128 + 7168 * 128 + 256 + 7168 * 64)
    );
}

/// transformers keeps a DSA layer's latent and rotary key compressed, and the indexer key, in
/// bf16: 2 sequences of 5 tokens left 1,440 B of latent and 960 B (640 with a shared layer) of
/// indexer keys in the reference.
#[test]
fn dsa_caches_match_transformers_tensors() {
    use crate::estimate::{ComponentKind, EstimateInput, ModelInput, RunInput, estimate};
    for (json, cache) in [(DSA_TINY, 1440 + 960), (GLM_DSA_SHARED_TINY, 1440 + 640)] {
        let e = estimate(&EstimateInput {
            model: ModelInput {
                arch: Some(arch(json)),
                ..Default::default()
            },
            run: RunInput {
                batch: 2.0,
                seq_len: 5.0,
                new_tokens: 0.0,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        let kv = e.component_bytes(ComponentKind::KvCache);
        assert_eq!(kv, cache, "{json}");
    }
    let ix = arch(GLM_DSA_SHARED_TINY).indexer.unwrap();
    assert_eq!((ix.layers, ix.head_dim, ix.heads, ix.topk), (2, 16, 4, 4));
}

#[test]
fn dsa_indexer_patterns_name_their_key() {
    let bad = GLM_DSA_SHARED_TINY.replace(r#""shared", "full"]"#, r#""shared"]"#);
    let e = parse_config(&bad).unwrap_err();
    assert_eq!(e.field, "config.json: indexer_types");
    let bad = GLM_DSA_SHARED_TINY.replace(r#""shared", "full"]"#, r#""sparse", "full"]"#);
    let e = parse_config(&bad).unwrap_err();
    assert!(e.problem.contains("sparse"), "{}", e.problem);
    // A width out of range names its config key.
    let zero = DSA_TINY.replace(r#""index_head_dim": 16"#, r#""index_head_dim": 0"#);
    let e = parse_config(&zero).unwrap_err();
    assert_eq!(e.field, "config.json: index_head_dim");
    // GLM's pattern string and its frequency schedule.
    let pattern = GLM_DSA_SHARED_TINY.replace(
        r#""indexer_types": ["full", "shared", "full"]"#,
        r#""index_topk_pattern": "FSS""#,
    );
    assert_eq!(arch(&pattern).indexer.unwrap().layers, 1);
    let freq = GLM_DSA_SHARED_TINY.replace(
        r#""indexer_types": ["full", "shared", "full"]"#,
        r#""index_topk_freq": 2, "index_skip_topk_offset": 1"#,
    );
    // Layer i has its own indexer when max(i - 1 + 1, 0) % 2 == 0: layers 0 and 2.
    assert_eq!(arch(&freq).indexer.unwrap().layers, 2);
}

/// moonshotai/Kimi-Linear-48B-A3B-Instruct's config.json: 20 KDA layers and 7 MLA layers
/// (1-indexed in linear_attn_config), 256 experts of 1024, top-8, one shared.
const KIMI_LINEAR_48B: &str = r#"{"model_type": "kimi_linear", "vocab_size": 163840,
    "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 27,
    "num_attention_heads": 32, "num_key_value_heads": 32, "kv_lora_rank": 512,
    "q_lora_rank": null, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "mla_use_nope": true, "num_experts": 256, "num_experts_per_token": 8,
    "num_shared_experts": 1, "moe_intermediate_size": 1024, "first_k_dense_replace": 1,
    "moe_layer_freq": 1, "model_max_length": 1048576, "tie_word_embeddings": false,
    "linear_attn_config": {"kda_layers": [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19,
    21, 22, 23, 25, 26], "full_attn_layers": [4, 8, 12, 16, 20, 24, 27], "num_heads": 32,
    "head_dim": 128, "short_conv_kernel_size": 4}}"#;
const KIMI_LINEAR_TINY: &str = r#"{"model_type": "kimi_linear", "vocab_size": 128,
    "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 4,
    "num_attention_heads": 4, "num_key_value_heads": 4, "kv_lora_rank": 16,
    "q_lora_rank": null, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16,
    "num_experts": 4, "num_experts_per_token": 2, "num_shared_experts": 1,
    "moe_intermediate_size": 32, "first_k_dense_replace": 1, "tie_word_embeddings": false,
    "linear_attn_config": {"kda_layers": [1, 2, 4], "full_attn_layers": [3], "num_heads": 2,
    "head_dim": 16, "short_conv_kernel_size": 4}}"#;

#[test]
fn kimi_linear_parameters_match_transformers_meta_count() {
    for (json, state_dict) in [
        (KIMI_LINEAR_48B, 49_122_681_728),
        (KIMI_LINEAR_TINY, 177_650),
    ] {
        assert_eq!(arch(json).params(), state_dict, "{json}");
    }
    // One KDA mixer of the tiny model by hand (width 64, 2 heads of 16, kernel 4): q, k, v
    // 64 × 96; conv 96 × 4; forget gate 64 × 16 + 16 × 32 + 32 + 2; b_proj 64 × 2; output gate
    // 64 × 16 + 16 × 32; its norm 16; o_proj 32 × 64 = 11,826.
    let kda = |json: &str| {
        let mut a = arch(json);
        let with = a.params();
        let h = a.hybrid.as_mut().unwrap();
        h.state_layers -= 1;
        with - a.params()
    };
    assert_eq!(kda(KIMI_LINEAR_TINY), 11_826);
}

/// transformers keeps the MLA layer's latent and rotary key compressed (480 B: 1 layer × 24 ×
/// 10 tokens × 2 B) and, per KDA layer, a bf16 convolution state of q, k and v over the whole
/// kernel and an fp32 state per head (4,608 and 12,288 B over the 3 KDA layers).
#[test]
fn kimi_linear_caches_match_transformers_tensors() {
    let a = arch(KIMI_LINEAR_TINY);
    assert_eq!(hf_state_cache(&a, 2, 5), (480, 4608, 12_288));
    use crate::estimate::{ComponentKind, EstimateInput, ModelInput, RunInput, estimate};
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(a),
            ..Default::default()
        },
        run: RunInput {
            batch: 2.0,
            seq_len: 5.0,
            new_tokens: 0.0,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let part = |kind| {
        e.components
            .iter()
            .find(|c| c.key.kind == kind)
            .map_or(0, |c| c.bytes.get())
    };
    assert_eq!(part(ComponentKind::KvCache), 480);
    assert_eq!(part(ComponentKind::StateCache), 4608 + 12_288);
    let h = arch(KIMI_LINEAR_48B).hybrid.unwrap();
    assert_eq!((h.attention_layers, h.state_layers), (7, 20));
}

#[test]
fn kimi_linear_layer_lists_name_their_key() {
    let bad = KIMI_LINEAR_TINY.replace(r#""kda_layers": [1, 2, 4]"#, r#""kda_layers": [1, 2, 5]"#);
    let e = parse_config(&bad).unwrap_err();
    assert_eq!(e.field, "config.json: linear_attn_config.kda_layers");
    let gap = KIMI_LINEAR_TINY.replace(r#""kda_layers": [1, 2, 4]"#, r#""kda_layers": [1, 2]"#);
    let e = parse_config(&gap).unwrap_err();
    assert!(e.problem.contains("layer 4"), "{}", e.problem);
    // Without the lists, every fourth layer from the fifth attends (KimiLinearConfig).
    let cut = KIMI_LINEAR_48B.find(r#""linear_attn_config""#).unwrap();
    let head = KIMI_LINEAR_48B[..cut].trim_end().trim_end_matches(',');
    let plain = alloc::format!("{head}}}");
    let h = arch(&plain).hybrid.unwrap();
    assert_eq!((h.attention_layers, h.state_layers), (6, 21));
}

/// Kimi-Linear-48B in llama.cpp, one sequence of 4,096 cells, by hand: the RS buffer keeps per
/// KDA layer 3 convolution inputs of 3 × 32 × 128 = 12,288 channels and 32 heads of 128 × 128,
/// all f32: 20 × (147,456 + 2,097,152) = 44,892,160 B; the KV buffer the 7 MLA layers' latent
/// and rotary key, 576 f16 values a cell: 7 × 4,096 × 576 × 2 = 33,030,144 B.
#[test]
fn kimi_linear_in_llamacpp_by_hand() {
    use crate::estimate::{
        ComponentKind, Engine, EstimateInput, ModelInput, RunInput, ServingInput, estimate,
    };
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(arch(KIMI_LINEAR_48B)),
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            batch: 1.0,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(4096.0),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let part = |kind| {
        e.components
            .iter()
            .find(|c| c.key.kind == kind)
            .map_or(0, |c| c.bytes.get())
    };
    assert_eq!(part(ComponentKind::StateCache), 44_892_160);
    assert_eq!(part(ComponentKind::KvCache), 33_030_144);
}

/// allenai/Olmo-Hybrid-7B: `OlmoHybridConfig`'s defaults, which its docstring gives as that
/// checkpoint's (transformers 5.24.0 `configuration_olmo_hybrid.py`, read 2026-12-06), written
/// out as its config.json writes them: 24 Gated DeltaNet layers and 8 full-attention layers
/// (every 4th), 30 query and KV heads of 128, 30 linear heads of key width 96, value 192.
const OLMO_HYBRID_7B: &str = r#"{"model_type": "olmo_hybrid", "vocab_size": 100352,
    "hidden_size": 3840, "intermediate_size": 11008, "num_hidden_layers": 32,
    "num_attention_heads": 30, "num_key_value_heads": 30, "linear_num_key_heads": 30,
    "linear_num_value_heads": 30, "linear_key_head_dim": 96, "linear_value_head_dim": 192,
    "linear_conv_kernel_dim": 4, "linear_allow_neg_eigval": true,
    "max_position_embeddings": 65536, "attention_bias": false, "tie_word_embeddings": false,
    "layer_types": ["linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention", "linear_attention", "linear_attention", "linear_attention",
    "full_attention"]}"#;
const OLMO_HYBRID_TINY: &str = r#"{"model_type": "olmo_hybrid", "vocab_size": 128,
    "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 4,
    "num_attention_heads": 4, "num_key_value_heads": 2, "linear_num_key_heads": 2,
    "linear_num_value_heads": 4, "linear_key_head_dim": 8, "linear_value_head_dim": 16,
    "linear_conv_kernel_dim": 4, "tie_word_embeddings": false,
    "layer_types": ["linear_attention", "full_attention", "linear_attention",
    "full_attention"]}"#;

#[test]
fn olmo_hybrid_parameters_match_transformers_meta_count() {
    for (json, params) in [(OLMO_HYBRID_7B, 7_430_870_688), (OLMO_HYBRID_TINY, 145_968)] {
        assert_eq!(arch(json).params(), params, "{json}");
    }
    // The tiny model by hand (width 64, FFN 96, vocabulary 128): embeddings and head 2 × 8,192
    // and the final norm 64; 4 SwiGLU FFNs of 18,432 and 2 norms of 64 each; 2 attention layers
    // of q 64 × 64, k and v 64 × 32, o 64 × 64 and q/k norms over the whole projection 64 + 32
    // (12,384 each); 2 Gated DeltaNet layers of q and k 64 × 16, v 64 × 64, a and b 64 × 4,
    // g 64 × 64, o 64 × 64, conv1d 96 × 4, A_log and dt_bias 4 each, the gated norm 16 (15,256).
    let by_hand = 2 * 8192 + 64 + 4 * (18_432 + 128) + 2 * 12_384 + 2 * 15_256;
    assert_eq!(arch(OLMO_HYBRID_TINY).params(), by_hand);
    assert_eq!(arch(OLMO_HYBRID_TINY).extra_params, 2 * (64 + 32));
}

/// transformers keeps 2 sequences of 5 tokens as 2,560 B of bf16 K and V (2 attention layers ×
/// 2 KV heads × 16 × 10 tokens × 2 × 2 B), a bf16 convolution state of 96 channels × 4 per
/// linear layer (3,072 B) and an fp32 state of 4 heads × 8 × 16 (8,192 B): the reference's
/// tensors, through the estimate's own parts.
#[test]
fn olmo_hybrid_caches_match_transformers_tensors() {
    let a = arch(OLMO_HYBRID_TINY);
    assert_eq!(hf_state_cache(&a, 2, 5), (2560, 3072, 8192));
    use crate::estimate::{ComponentKind, EstimateInput, ModelInput, RunInput, estimate};
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(a),
            ..Default::default()
        },
        run: RunInput {
            batch: 2.0,
            seq_len: 5.0,
            new_tokens: 0.0,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let part = |kind| {
        e.components
            .iter()
            .find(|c| c.key.kind == kind)
            .map_or(0, |c| c.bytes.get())
    };
    assert_eq!(part(ComponentKind::KvCache), 2560);
    assert_eq!(part(ComponentKind::StateCache), 3072 + 8192);
    let h = arch(OLMO_HYBRID_7B).hybrid.unwrap();
    assert_eq!((h.attention_layers, h.state_layers), (8, 24));
}

/// Without layer_types every 4th layer attends, the last one when fewer than 4 (as
/// `OlmoHybridConfig.__post_init__`); the linear widths default from the attention heads.
#[test]
fn olmo_hybrid_defaults_follow_its_config_class() {
    let cut = OLMO_HYBRID_7B.find(r#""layer_types""#).unwrap();
    let head = OLMO_HYBRID_7B[..cut].trim_end().trim_end_matches(',');
    let bare = alloc::format!("{head}}}");
    assert_eq!(arch(&bare), arch(OLMO_HYBRID_7B));
    let short = bare.replace(r#""num_hidden_layers": 32"#, r#""num_hidden_layers": 3"#);
    let h = arch(&short).hybrid.unwrap();
    assert_eq!((h.attention_layers, h.state_layers), (1, 2));
    // int(0.75 × 3840 / 30) = 96 and twice that, as the 7B writes them.
    let widths = bare
        .replace(
            r#""linear_key_head_dim": 96, "linear_value_head_dim": 192,"#,
            "",
        )
        .replace(r#""linear_num_key_heads": 30,"#, "")
        .replace(r#""linear_num_value_heads": 30,"#, "");
    assert_eq!(arch(&widths), arch(OLMO_HYBRID_7B));
}

#[test]
fn olmo_hybrid_refuses_a_stack_of_one_kind_naming_layer_types() {
    let all = OLMO_HYBRID_TINY.replace("linear_attention", "full_attention");
    let e = parse_config(&all).unwrap_err();
    assert_eq!(e.field, "config.json: layer_types");
    assert!(e.problem.contains("linear_attention"), "{}", e.problem);
    let sliding = OLMO_HYBRID_TINY.replacen("full_attention", "sliding_attention", 1);
    let e = parse_config(&sliding).unwrap_err();
    assert_eq!(e.field, "config.json: layer_types");
}

/// llama.cpp names no OLMo Hybrid architecture (`src/llama-arch.cpp` at 00395eb: olmo, olmo2,
/// olmoe; Gated DeltaNet only in qwen3next, qwen35, qwen35moe), so it and Ollama refuse the
/// model by the engine; transformers, vLLM and SGLang estimate it.
#[test]
fn olmo_hybrid_is_refused_where_no_graph_builds_it() {
    use crate::estimate::{Engine, EstimateInput, Mode, ModelInput, RunInput, estimate};
    for engine in [Engine::Llamacpp, Engine::Ollama] {
        let e = estimate(&EstimateInput {
            model: ModelInput {
                arch: Some(arch(OLMO_HYBRID_7B)),
                ..Default::default()
            },
            run: RunInput {
                engine,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(e.field, "engine", "{engine:?}");
        assert!(e.problem.contains("OLMo Hybrid"), "{}", e.problem);
        assert!(e.accepted.contains("vLLM"), "{}", e.accepted);
    }
    for engine in [Engine::Hf, Engine::Vllm, Engine::Sglang] {
        let input = EstimateInput {
            model: ModelInput {
                arch: Some(arch(OLMO_HYBRID_7B)),
                ..Default::default()
            },
            run: RunInput {
                engine,
                mode: Mode::Inference,
                ..Default::default()
            },
            ..Default::default()
        };
        assert!(estimate(&input).is_ok(), "{engine:?}");
    }
    // Qwen3.5's Gated DeltaNet beside gated attention runs in llama.cpp.
    let qwen = EstimateInput {
        model: ModelInput {
            arch: Some(arch(QWEN3_5_9B)),
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            ..Default::default()
        },
        ..Default::default()
    };
    assert!(estimate(&qwen).is_ok());
}

/// SGLang keeps a hybrid's states in a MambaPool beside the token pool: one request's state is
/// per Gated DeltaNet layer the convolution's 3 last inputs of 11,520 channels in bf16 (69,120
/// B) and 30 heads × 96 × 192 in fp32 (2,211,840 B), × 24 layers = 54,743,040 B. Without a card,
/// `batch` states; on a card `0.9 / 1.9` of the memory left after the weights in whole states
/// (`ModelRunner._handle_max_mamba_cache`, `mamba_full_memory_ratio` 0.9) and the tokens from
/// what is left, 8 layers × 30 KV heads × 128 × 2 × 2 B = 122,880 B each.
#[test]
fn olmo_hybrid_in_sglang_keeps_its_states_in_a_mamba_pool() {
    use crate::estimate::{
        ComponentKind, Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput,
        ServingInput, estimate,
    };
    let per_request = 24 * (11_520 * 3 * 2 + 30 * 96 * 192 * 4);
    assert_eq!(per_request, 54_743_040);
    let input = EstimateInput {
        model: ModelInput {
            arch: Some(arch(OLMO_HYBRID_7B)),
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Sglang,
            mode: Mode::Inference,
            batch: 4.0,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            ..Default::default()
        },
        ..Default::default()
    };
    let e = estimate(&input).unwrap();
    let part = |e: &crate::estimate::Estimate, kind| {
        e.components
            .iter()
            .find(|c| c.key.kind == kind)
            .map_or(0, |c| c.bytes.get())
    };
    assert_eq!(part(&e, ComponentKind::StateCache), 4 * per_request);
    assert_eq!(part(&e, ComponentKind::KvCache), 4 * 8192 * 122_880);
    // On an H100: the pool's rest (printed in its formula) split 0.9 : 1.
    let e = estimate(&EstimateInput {
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..input.hardware
        },
        ..input
    })
    .unwrap();
    let state = part(&e, ComponentKind::StateCache);
    let tokens = e.kv_cache_tokens.unwrap();
    let rest = state + tokens * 122_880;
    // Whole states of the 0.9 / 1.9 share, and whole tokens of what is left: each within one.
    let share = rest as f64 * 0.9 / 1.9;
    assert!(
        state as f64 <= share && share - (state as f64) < per_request as f64,
        "{state}"
    );
    assert_eq!(state % per_request, 0);
    assert!(tokens > 200_000, "{tokens}");
}
