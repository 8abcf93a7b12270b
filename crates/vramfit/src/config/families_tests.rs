//! The families of issue 42 read by their own rules: Qwen3-VL, Qwen3-VL-MoE, InternVL,
//! Kimi K2.5 and Mistral 4 (and those refused by name: DeepSeek-V4, Step 3.5), against what
//! transformers 5.24.0 counted (`tests/reference/families_reference.py`,
//! `families-reference.csv`): parameters on the meta device (the whole
//! `...ForConditionalGeneration` for a multimodal checkpoint, vision tower included) and, for
//! the tiny models, the cache a prefill of 2 sequences of 5 tokens left; and hand calculations
//! of the vision towers.

use super::parse_config;
use crate::model::Architecture;
use alloc::format;
use alloc::string::String;

/// Qwen/Qwen3-VL-4B-Instruct's config.json (text_config and vision_config, as the hub file
/// writes them).
const QWEN3_VL_4B: &str = r#"{"model_type": "qwen3_vl", "tie_word_embeddings": true,
    "text_config": {"model_type": "qwen3_vl_text", "vocab_size": 151936, "hidden_size": 2560,
    "intermediate_size": 9728, "num_hidden_layers": 36, "num_attention_heads": 32,
    "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 262144,
    "rope_scaling": {"mrope_interleaved": true, "mrope_section": [24, 20, 20],
    "rope_type": "default"}, "tie_word_embeddings": true, "dtype": "bfloat16"},
    "vision_config": {"deepstack_visual_indexes": [5, 11, 17], "depth": 24,
    "hidden_size": 1024, "in_channels": 3, "intermediate_size": 4096, "model_type": "qwen3_vl",
    "num_heads": 16, "num_position_embeddings": 2304, "out_hidden_size": 2560,
    "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2}}"#;
/// Qwen/Qwen3-VL-8B-Instruct's config.json.
const QWEN3_VL_8B: &str = r#"{"model_type": "qwen3_vl", "tie_word_embeddings": false,
    "text_config": {"model_type": "qwen3_vl_text", "vocab_size": 151936, "hidden_size": 4096,
    "intermediate_size": 12288, "num_hidden_layers": 36, "num_attention_heads": 32,
    "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 262144,
    "tie_word_embeddings": false, "dtype": "bfloat16"},
    "vision_config": {"deepstack_visual_indexes": [8, 16, 24], "depth": 27,
    "hidden_size": 1152, "in_channels": 3, "intermediate_size": 4304, "num_heads": 16,
    "num_position_embeddings": 2304, "out_hidden_size": 4096, "patch_size": 16,
    "spatial_merge_size": 2, "temporal_patch_size": 2}}"#;
/// Qwen/Qwen3-VL-30B-A3B-Instruct's config.json: 48 layers of 128 experts of 768, top-8.
const QWEN3_VL_30B_A3B: &str = r#"{"model_type": "qwen3_vl_moe", "tie_word_embeddings": false,
    "text_config": {"model_type": "qwen3_vl_moe_text", "vocab_size": 151936,
    "hidden_size": 2048, "intermediate_size": 6144, "num_hidden_layers": 48,
    "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128,
    "num_experts_per_tok": 8, "moe_intermediate_size": 768, "decoder_sparse_step": 1,
    "max_position_embeddings": 262144, "tie_word_embeddings": false, "dtype": "bfloat16"},
    "vision_config": {"deepstack_visual_indexes": [8, 16, 24], "depth": 27,
    "hidden_size": 1152, "in_channels": 3, "intermediate_size": 4304, "num_heads": 16,
    "num_position_embeddings": 2304, "out_hidden_size": 2048, "patch_size": 16,
    "spatial_merge_size": 2, "temporal_patch_size": 2}}"#;
const TINY_QWEN_VISION: &str = r#""vision_config": {"depth": 3, "hidden_size": 32,
    "intermediate_size": 48, "num_heads": 4, "in_channels": 3, "patch_size": 4,
    "temporal_patch_size": 2, "spatial_merge_size": 2, "num_position_embeddings": 64,
    "deepstack_visual_indexes": [0, 2], "out_hidden_size": 64}"#;
const TINY_TEXT: &str = r#""vocab_size": 128, "hidden_size": 64, "intermediate_size": 96,
    "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
    "head_dim": 16"#;

/// OpenGVLab/InternVL3-8B-hf's config.json: InternViT-300M and Qwen2.5-7B's shapes.
const INTERNVL3_8B: &str = r#"{"model_type": "internvl", "downsample_ratio": 0.5,
    "tie_word_embeddings": false,
    "text_config": {"model_type": "qwen2", "vocab_size": 151674, "hidden_size": 3584,
    "intermediate_size": 18944, "num_hidden_layers": 28, "num_attention_heads": 28,
    "num_key_value_heads": 4, "max_position_embeddings": 32768,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16"},
    "vision_config": {"model_type": "internvl_vision", "hidden_size": 1024,
    "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096,
    "attention_bias": true, "use_qk_norm": false, "norm_type": "layer_norm",
    "image_size": [448, 448], "patch_size": [14, 14], "num_channels": 3,
    "use_mean_pooling": true, "layer_scale_init_value": 0.1}}"#;
/// OpenGVLab/InternVL3-1B-hf's shapes (Qwen2.5-0.5B's, tied).
const INTERNVL3_1B: &str = r#"{"model_type": "internvl", "tie_word_embeddings": true,
    "text_config": {"model_type": "qwen2", "vocab_size": 151674, "hidden_size": 896,
    "intermediate_size": 4864, "num_hidden_layers": 24, "num_attention_heads": 14,
    "num_key_value_heads": 2, "max_position_embeddings": 32768},
    "vision_config": {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
    "intermediate_size": 4096, "attention_bias": true, "image_size": [448, 448],
    "patch_size": [14, 14]}}"#;
const TINY_INTERNVIT: &str = r#""hidden_size": 32, "num_hidden_layers": 2,
    "num_attention_heads": 4, "intermediate_size": 48, "num_channels": 3,
    "image_size": [32, 32], "patch_size": [8, 8]"#;

/// Mistral Small 4's text model: `Mistral4Config`'s defaults, written out.
const MISTRAL_SMALL_4_TEXT: &str = r#"{"model_type": "mistral4", "vocab_size": 131072,
    "hidden_size": 4096, "intermediate_size": 12288, "moe_intermediate_size": 2048,
    "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 32,
    "n_shared_experts": 1, "n_routed_experts": 128, "kv_lora_rank": 256, "q_lora_rank": 1024,
    "qk_rope_head_dim": 64, "v_head_dim": 128, "qk_nope_head_dim": 64,
    "num_experts_per_tok": 4, "first_k_dense_replace": 0, "max_position_embeddings": 1048576,
    "tie_word_embeddings": false}"#;
const MLA_TINY: &str = r#""vocab_size": 128, "hidden_size": 64, "intermediate_size": 96,
    "moe_intermediate_size": 32, "num_hidden_layers": 3, "num_attention_heads": 4,
    "num_key_value_heads": 4, "n_shared_experts": 1, "n_routed_experts": 4,
    "num_experts_per_tok": 2, "kv_lora_rank": 16, "q_lora_rank": 24, "qk_rope_head_dim": 8,
    "v_head_dim": 16, "qk_nope_head_dim": 16, "n_group": 1, "topk_group": 1,
    "first_k_dense_replace": 1, "tie_word_embeddings": false"#;

/// moonshotai/Kimi-K2.5: Kimi K2's text model (`kimi_k2`, DeepSeek-V3's layout with 384
/// experts) and MoonViT at `Kimi_K25VisionConfig`'s defaults (the keys transformers 5.24 reads).
const KIMI_K2_5: &str = r#"{"model_type": "kimi_k25", "tie_word_embeddings": false,
    "projection_hidden_size": 1152,
    "text_config": {"model_type": "kimi_k2", "vocab_size": 163840, "hidden_size": 7168,
    "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_hidden_layers": 61,
    "num_attention_heads": 64, "num_key_value_heads": 64, "n_shared_experts": 1,
    "n_routed_experts": 384, "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64,
    "v_head_dim": 128, "qk_nope_head_dim": 128, "n_group": 1, "topk_group": 1,
    "num_experts_per_tok": 8, "first_k_dense_replace": 1, "topk_method": "noaux_tc",
    "max_position_embeddings": 262144, "tie_word_embeddings": false},
    "vision_config": {"patch_size": 14, "pos_emb_height": 64, "pos_emb_width": 64,
    "pos_emb_time": 4, "num_attention_heads": 16, "num_hidden_layers": 27, "hidden_size": 1152,
    "intermediate_size": 4304, "merge_kernel_size": [2, 2]}}"#;

fn arch(json: &str) -> Architecture {
    parse_config(json).unwrap().arch
}

fn qwen3_vl_tiny() -> String {
    format!(
        r#"{{"model_type": "qwen3_vl", "tie_word_embeddings": false, "text_config":
        {{"model_type": "qwen3_vl_text", {TINY_TEXT}}}, {TINY_QWEN_VISION}}}"#
    )
}

fn qwen3_vl_moe_tiny() -> String {
    format!(
        r#"{{"model_type": "qwen3_vl_moe", "tie_word_embeddings": false, "text_config":
        {{"model_type": "qwen3_vl_moe_text", {TINY_TEXT}, "num_experts": 4,
        "num_experts_per_tok": 2, "moe_intermediate_size": 32, "decoder_sparse_step": 2}},
        {TINY_QWEN_VISION}}}"#
    )
}

fn internvl_tiny() -> String {
    format!(
        r#"{{"model_type": "internvl", "downsample_ratio": 0.5, "tie_word_embeddings": false,
        "text_config": {{"model_type": "qwen2", {TINY_TEXT}}},
        "vision_config": {{{TINY_INTERNVIT}, "attention_bias": true}}}}"#
    )
}

/// InternViT-6B's choices on the tiny tower (RMSNorm, q/k norms, no q/k/v biases, a final
/// LayerNorm) under a Qwen3 language model, tied by the outer flag's default (true).
fn internvl_qwen3_rms_tiny() -> String {
    format!(
        r#"{{"model_type": "internvl", "text_config": {{"model_type": "qwen3", {TINY_TEXT}}},
        "vision_config": {{{TINY_INTERNVIT}, "attention_bias": false, "use_qk_norm": true,
        "norm_type": "rms_norm", "use_mean_pooling": false}}}}"#
    )
}

fn kimi_k25_tiny() -> String {
    format!(
        r#"{{"model_type": "kimi_k25", "tie_word_embeddings": false,
        "projection_hidden_size": 32, "text_config": {{"model_type": "deepseek_v3", {MLA_TINY},
        "topk_method": "noaux_tc"}}, "vision_config": {{"patch_size": 4, "pos_emb_height": 8,
        "pos_emb_width": 8, "num_attention_heads": 4, "num_hidden_layers": 2, "hidden_size": 32,
        "intermediate_size": 48, "merge_kernel_size": [2, 2]}}}}"#
    )
}

fn mistral4_tiny() -> String {
    format!(r#"{{"model_type": "mistral4", {MLA_TINY}}}"#)
}

/// Mistral 3's wrapper around a Mistral 4 language model, with a tiny Pixtral tower.
fn mistral3_mistral4_tiny() -> String {
    format!(
        r#"{{"model_type": "mistral3", "spatial_merge_size": 2, "tie_word_embeddings": false,
        "text_config": {{"model_type": "mistral4", {MLA_TINY}}},
        "vision_config": {{"model_type": "pixtral", "hidden_size": 32, "intermediate_size": 48,
        "num_hidden_layers": 2, "num_attention_heads": 4, "head_dim": 8, "patch_size": 4,
        "image_size": 32, "num_channels": 3}}}}"#
    )
}

/// Every row of `families-reference.csv`: the meta-device count (the `state_dict` column is the
/// same: none of these keeps a persistent buffer).
#[test]
fn families_parameters_match_transformers_meta_count() {
    for (case, json, params) in [
        ("qwen3_vl-4b", QWEN3_VL_4B.into(), 4_437_815_808),
        ("qwen3_vl-8b", QWEN3_VL_8B.into(), 8_767_123_696),
        (
            "qwen3_vl_moe-30b-a3b",
            QWEN3_VL_30B_A3B.into(),
            31_070_754_032,
        ),
        ("qwen3_vl-tiny", qwen3_vl_tiny(), 211_632),
        ("qwen3_vl_moe-tiny", qwen3_vl_moe_tiny(), 218_032),
        ("internvl3-1b", INTERNVL3_1B.into(), 802_293_120),
        ("internvl3-8b", INTERNVL3_8B.into(), 7_944_373_760),
        ("internvl-tiny", internvl_tiny(), 143_936),
        (
            "internvl-qwen3-rms-tiny",
            internvl_qwen3_rms_tiny(),
            135_328,
        ),
        (
            "mistral4-small-4-text",
            MISTRAL_SMALL_4_TEXT.into(),
            118_972_826_624,
        ),
        ("mistral4-tiny", mistral4_tiny(), 131_896),
        ("mistral3-mistral4-tiny", mistral3_mistral4_tiny(), 161_272),
    ] {
        let json: String = json;
        assert_eq!(arch(&json).params(), params, "{case}");
    }
}

/// The towers by hand, independent of the reader's arithmetic.
#[test]
fn qwen3_vl_and_internvit_towers_by_hand() {
    // Qwen3-VL-8B: Qwen3.5's tower of the same shapes is 456,010,480 (config::kinds_tests);
    // each of the 3 DeepStack mergers normalises the merged 4 × 1152 = 4,608 (2 × 4,608),
    // then fc1 4,608² + 4,608 and fc2 4,608 × 4,096 + 4,096: 40,125,952 each.
    let deepstack = 2 * 4608 + (4608 * 4608 + 4608) + (4608 * 4096 + 4096);
    assert_eq!(deepstack, 40_125_952);
    assert_eq!(arch(QWEN3_VL_8B).vision_params, 456_010_480 + 3 * deepstack);
    // InternViT-300M: CLS 1,024; patch conv 3 × 14² × 1,024 + 1,024; positions
    // (32² + 1) × 1,024. A layer: q/k/v 3 × (1,024² + 1,024), projection 1,024² + 1,024,
    // MLP 2 × 1,024 × 4,096 + 4,096 + 1,024, two LayerNorms 4 × 1,024, two layer scales
    // 2 × 1,024. The projector: LayerNorm 2 × 4,096, 4,096 × 3,584 + 3,584, 3,584² + 3,584.
    let embed = 1024 + (3 * 14 * 14 * 1024 + 1024) + (32 * 32 + 1) * 1024;
    let layer = 3 * (1024 * 1024 + 1024)
        + (1024 * 1024 + 1024)
        + (2 * 1024 * 4096 + 4096 + 1024)
        + 4 * 1024
        + 2 * 1024;
    let projector = 2 * 4096 + (4096 * 3584 + 3584) + (3584 * 3584 + 3584);
    assert_eq!(
        arch(INTERNVL3_8B).vision_params,
        embed + 24 * layer + projector
    );
    // A missing vision_config builds the class defaults' tower (InternViT-300M at 448 / 14,
    // without q/k/v biases: 3 × 1,024 fewer a layer), as transformers does.
    let bare = r#"{"model_type": "internvl", "text_config": {"model_type": "qwen2",
        "vocab_size": 151674, "hidden_size": 3584, "intermediate_size": 18944,
        "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4}}"#;
    assert_eq!(
        arch(bare).vision_params,
        embed + 24 * (layer - 3 * 1024) + projector
    );
}

/// transformers caches full K and V per head for Qwen3-VL and InternVL's Qwen2 (3 layers ×
/// 2 × 10 tokens × 2 KV heads × 16 × 2 B = 3,840 B) and the compressed latent for Mistral 4
/// (3 layers × 10 tokens × (16 + 8) × 2 B = 1,440 B): the reference's tensors, matched exactly
/// by the transformers run shape.
#[test]
fn families_caches_match_transformers_tensors() {
    use crate::estimate::{ComponentKind, EstimateInput, ModelInput, RunInput, estimate};
    for (case, json, cache) in [
        ("qwen3_vl-tiny", qwen3_vl_tiny(), 3840),
        ("qwen3_vl_moe-tiny", qwen3_vl_moe_tiny(), 3840),
        ("internvl-tiny", internvl_tiny(), 3840),
        ("internvl-qwen3-rms-tiny", internvl_qwen3_rms_tiny(), 3840),
        ("kimi_k25-tiny", kimi_k25_tiny(), 1440),
        ("mistral4-tiny", mistral4_tiny(), 1440),
        ("mistral3-mistral4-tiny", mistral3_mistral4_tiny(), 1440),
    ] {
        let e = estimate(&EstimateInput {
            model: ModelInput {
                arch: Some(arch(&json)),
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
        assert_eq!(kv, cache, "{case}");
    }
}

/// What each reader takes from the family's rules: Qwen3's q/k norms, the MoE layers off the
/// sparse step, Mistral 4's latent widths and its router without a score-correction bias, the
/// outer flag's tying.
#[test]
fn families_read_by_their_own_rules() {
    let a = arch(QWEN3_VL_8B);
    assert!(a.qk_norm && !a.tied_embeddings && a.sliding_window == 0);
    let moe = arch(&qwen3_vl_moe_tiny()).moe.unwrap();
    // decoder_sparse_step 2 over 3 layers: layer 1 is MoE, layers 0 and 2 dense.
    assert_eq!((moe.first_dense_layers, moe.num_experts), (2, 4));
    let m = arch(MISTRAL_SMALL_4_TEXT);
    let mla = m.mla.unwrap();
    assert_eq!(
        (mla.kv_lora_rank, mla.q_lora_rank, mla.qk_rope_head_dim),
        (256, 1024, 64)
    );
    let moe = m.moe.unwrap();
    assert!(!moe.router_bias);
    assert_eq!((moe.num_experts, moe.shared_intermediate_size), (128, 2048));
    // topk_method does not give Mistral 4's router a bias.
    let noaux = MISTRAL_SMALL_4_TEXT.replace(
        r#""first_k_dense_replace": 0"#,
        r#""first_k_dense_replace": 0, "topk_method": "noaux_tc""#,
    );
    assert_eq!(arch(&noaux).params(), m.params());
    // A bare Qwen3-VL-MoE text config ties by its class default (true); inside the wrapper the
    // outer flag (default false) decides.
    let bare_moe = r#"{"model_type": "qwen3_vl_moe_text"}"#;
    assert!(arch(bare_moe).tied_embeddings);
    assert!(!arch(&qwen3_vl_moe_tiny()).tied_embeddings);
    // InternVL ties by its outer flag, default true.
    assert!(arch(&internvl_qwen3_rms_tiny()).tied_embeddings);
    assert!(!arch(INTERNVL3_8B).tied_embeddings);
}

/// MoonViT by hand: patch conv 3 × 14² × 1,152 + 1,152, positions 64 × 64 × 1,152; a layer
/// 4 × 1,152 (norms) + 4 × (1,152² + 1,152) (q, k, v, proj) + 2 × 1,152 × 4,304 + 4,304 + 1,152
/// (MLP); the final norm 2 × 1,152; the projector 2 × 1,152 + 4,608² + 4,608 + 4,608 × 7,168
/// + 7,168.
#[test]
fn kimi_k25_tower_by_hand_and_its_int4_experts_refused_by_name() {
    let h: u64 = 1152;
    let layer = 4 * h + 4 * (h * h + h) + (2 * h * 4304 + 4304 + h);
    let tower = 3 * 14 * 14 * h + h + 64 * 64 * h + 27 * layer + 2 * h;
    let projector = 2 * h + (4608 * 4608 + 4608) + (4608 * 7168 + 7168);
    assert_eq!(arch(KIMI_K2_5).vision_params, tower + projector);
    let a = arch(KIMI_K2_5);
    assert!(a.mla.is_some() && !a.tied_embeddings);
    // The released checkpoint's quantization: INT4 routed experts, attention and shared experts
    // left out (its ignore list); one format per checkpoint would be wrong either way.
    let int4 = KIMI_K2_5.replace(
        r#""tie_word_embeddings": false},"#,
        r#""tie_word_embeddings": false, "quantization_config": {"quant_method":
        "compressed-tensors", "format": "pack-quantized", "config_groups": {"group_0":
        {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "group_size": 32}}},
        "ignore": ["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*"]}},"#,
    );
    let e = parse_config(&int4).unwrap_err();
    assert_eq!(
        e.field,
        "config.json: text_config.quantization_config.ignore"
    );
    assert_eq!(e.kind, crate::error::ErrorKind::Unsupported);
}

#[test]
fn internvl_bad_vision_keys_name_their_field() {
    let bad = INTERNVL3_8B.replace(r#""downsample_ratio": 0.5"#, r#""downsample_ratio": 0"#);
    assert_eq!(
        parse_config(&bad).unwrap_err().field,
        "config.json: downsample_ratio"
    );
    let bad = INTERNVL3_8B.replace(r#""layer_norm""#, r#""group_norm""#);
    let e = parse_config(&bad).unwrap_err();
    assert_eq!(e.field, "config.json: vision_config.norm_type");
    assert!(e.problem.contains("group_norm"), "{}", e.problem);
    let bad = INTERNVL3_8B.replace("[448, 448]", "[448, 448, 3]");
    assert_eq!(
        parse_config(&bad).unwrap_err().field,
        "config.json: vision_config.image_size"
    );
    let bad = INTERNVL3_8B.replace(r#""patch_size": [14, 14]"#, r#""patch_size": 0"#);
    assert_eq!(
        parse_config(&bad).unwrap_err().field,
        "config.json: vision_config.patch_size"
    );
}

/// The presets (`data/models/*.toml`) hold what this reader reads from their configs.
#[test]
fn families_presets_carry_what_their_configs_say() {
    for (id, json) in [
        ("Qwen/Qwen3-VL-4B-Instruct", QWEN3_VL_4B),
        ("Qwen/Qwen3-VL-8B-Instruct", QWEN3_VL_8B),
        ("Qwen/Qwen3-VL-30B-A3B-Instruct", QWEN3_VL_30B_A3B),
        ("OpenGVLab/InternVL3-8B-hf", INTERNVL3_8B),
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

/// Each engine that serves these families estimates them from the config, each with a cache
/// (never a silent zero): transformers, vLLM and SGLang hold the tower in the weights (vLLM:
/// 8,767,123,696 × 2 B beside its rotary cos/sin cache, 262,144 × 128 × 2 B), llama.cpp the text
/// GGUF alone (the tower is its `--mmproj` file), so its weights equal those of the same language
/// model without it.
#[test]
fn families_estimate_in_every_engine() {
    use crate::estimate::{
        ComponentKind, Engine, EstimateInput, HardwareInput, ModelInput, PlacementInput, RunInput,
        ServingInput, estimate,
    };
    let configs = [
        QWEN3_VL_8B,
        QWEN3_VL_30B_A3B,
        INTERNVL3_8B,
        MISTRAL_SMALL_4_TEXT,
    ];
    // Four H100s: tensor parallel for the serving engines, whole layers split for llama.cpp and
    // Ollama (which refuse tp).
    let split = |engine: Engine| match engine {
        Engine::Llamacpp | Engine::Ollama => (1.0, Some(4.0)),
        _ => (4.0, None),
    };
    let run = |a: Architecture, engine: Engine| {
        let (tp, gpus) = split(engine);
        estimate(&EstimateInput {
            model: ModelInput {
                arch: Some(a),
                ..Default::default()
            },
            run: RunInput {
                engine,
                seq_len: 4096.0,
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(8192.0),
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("h100-sxm5-80gb".into()),
                ..Default::default()
            },
            placement: PlacementInput {
                tp,
                gpus,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
    };
    for json in configs {
        for engine in [
            Engine::Hf,
            Engine::Vllm,
            Engine::Sglang,
            Engine::Llamacpp,
            Engine::Ollama,
        ] {
            let e = run(arch(json), engine);
            let kv = e
                .components
                .iter()
                .filter(|c| c.key.kind == ComponentKind::KvCache)
                .map(|c| c.bytes.get())
                .sum::<u64>();
            assert!(kv > 0, "{engine:?} {json}");
        }
    }
    // On one card, the whole model's weights.
    let vllm = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(arch(QWEN3_VL_8B)),
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Vllm,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        vllm.weights_bytes.get(),
        8_767_123_696 * 2 + 262_144 * 128 * 2
    );
    let text_only = Architecture {
        vision_params: 0,
        ..arch(QWEN3_VL_8B)
    };
    assert_eq!(
        run(arch(QWEN3_VL_8B), Engine::Llamacpp).weights_bytes,
        run(text_only, Engine::Llamacpp).weights_bytes
    );
}

/// `Glm4MoeLiteConfig()` of transformers 5.25.0 (GLM-4.7-Flash's class, `glm4_moe_lite`, a type
/// vramfit does not name) as `save_pretrained` writes it: its `kv_lora_rank` routes it to
/// DeepSeek-V3's latent attention. By hand: embeddings and head 2 × 154,880 × 2,048 =
/// 634,388,480; a layer's attention q_a 2,048 × 768 + norm 768 + q_b 768 × 20 × 256 + kv_a
/// 2,048 × 576 + norm 512 + kv_b 512 × 20 × (192 + 256) + o 5,120 × 2,048 = 21,759,232, × 47;
/// the dense layer's MLP 3 × 2,048 × 10,240 = 62,914,560; a MoE layer's 64 experts and the
/// shared one 65 × 3 × 2,048 × 1,536, router 64 × 2,048 and its bias 64 = 613,548,096, × 46;
/// norms 2 × 2,048 × 47 + 2,048 = 194,560: 29,943,393,920 (GLM-4.7-Flash is "30B-A3B"). The
/// cache holds the 512 latent and the 64-wide rotary key, not 20 heads' full K and V.
#[test]
fn glm4_moe_lite_reads_as_latent_attention() {
    let json = r#"{"model_type": "glm4_moe_lite", "hidden_size": 2048, "intermediate_size": 10240,
        "kv_lora_rank": 512, "max_position_embeddings": 202752, "moe_intermediate_size": 1536,
        "mlp_layer_types": ["dense", "sparse", "sparse", "sparse", "sparse", "sparse", "sparse",
        "sparse", "sparse", "sparse", "sparse", "sparse", "sparse", "sparse", "sparse", "sparse",
        "sparse", "sparse", "sparse", "sparse", "sparse", "sparse", "sparse", "sparse", "sparse",
        "sparse", "sparse", "sparse", "sparse", "sparse", "sparse", "sparse", "sparse", "sparse",
        "sparse", "sparse", "sparse", "sparse", "sparse", "sparse", "sparse", "sparse", "sparse",
        "sparse", "sparse", "sparse", "sparse"],
        "n_group": 1, "n_routed_experts": 64, "n_shared_experts": 1, "norm_topk_prob": true,
        "num_attention_heads": 20, "num_experts_per_tok": 4, "num_hidden_layers": 47,
        "num_key_value_heads": 20, "q_lora_rank": 768, "qk_head_dim": 256,
        "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "routed_scaling_factor": 1.8,
        "tie_word_embeddings": false, "topk_group": 1, "v_head_dim": 256, "vocab_size": 154880}"#;
    let a = arch(json);
    let attention = 2048 * 768 + 768 + 768 * 20 * 256 + 2048 * 576 + 512 + 512 * 20 * 448;
    let attention = attention + 20 * 256 * 2048;
    assert_eq!(attention, 21_759_232);
    let moe = 65 * 3 * 2048 * 1536 + 64 * 2048 + 64;
    let total = 2 * 154_880 * 2048 + 47 * attention + 3 * 2048 * 10_240 + 46 * moe + 194_560;
    assert_eq!(total, 29_943_393_920);
    assert_eq!(a.params(), total);
    let mla = a.mla.expect("latent attention");
    assert_eq!((mla.kv_lora_rank, mla.qk_rope_head_dim), (512, 64));
    assert_eq!(a.moe.expect("experts").first_dense_layers, 1);
}

/// `SolarOpenConfig()` of transformers 5.25.0 (`solar_open`, Upstage's Solar Open, a type
/// vramfit does not name): every layer MoE, so the class names no dense `intermediate_size`
/// and the generic reader needs none. By hand: embeddings and head 2 × 196,608 × 4,096 =
/// 1,610,612,736; a layer's attention q 4,096 × 8,192, k and v 4,096 × 1,024 each, o 8,192 ×
/// 4,096 = 75,497,472; its 128 experts and the shared one 129 × 3 × 4,096 × 1,280 and the
/// router 128 × 4,096 = 2,028,994,560 + 524,288; two norms 8,192; × 48, and the final norm
/// 4,096: 102,651,793,408 (Solar Open is published as "102B"; a router bias, if it keeps one, is
/// 6,144 more, left out by the generic reader as its module note says).
#[test]
fn solar_open_reads_with_no_dense_width() {
    let json = r#"{"model_type": "solar_open", "attention_bias": false, "head_dim": 128,
        "hidden_size": 4096, "max_position_embeddings": 131072, "moe_intermediate_size": 1280,
        "n_group": 1, "n_routed_experts": 128, "n_shared_experts": 1, "norm_topk_prob": true,
        "num_attention_heads": 64, "num_experts_per_tok": 8, "num_hidden_layers": 48,
        "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "routed_scaling_factor": 1.0,
        "tie_word_embeddings": false, "topk_group": 1, "vocab_size": 196608}"#;
    let layer = 75_497_472 + 129 * 3 * 4096 * 1280 + 128 * 4096 + 2 * 4096;
    assert_eq!(2 * 196_608 * 4096 + 48 * layer + 4096, 102_651_793_408_u64);
    assert_eq!(arch(json).params(), 102_651_793_408);
    // A dense FFN width is still required where a layer is dense.
    let dense = json.replace(r#""n_group": 1,"#, r#""first_k_dense_replace": 1,"#);
    assert_eq!(
        parse_config(&dense).unwrap_err().field,
        "config.json: intermediate_size"
    );
}

/// transformers 5.x saves Qwen3-MoE's expert count as `num_local_experts` (`num_experts` an
/// alias there): both spellings give one model. A tiny one by hand: embeddings and head 2 ×
/// 128 × 64 = 16,384; a layer's attention q and o 64 × 64 each, k and v 64 × 32 each, q and k
/// norms 16 each = 12,320; 4 experts 4 × 3 × 64 × 32 = 24,576 and the router 4 × 64 = 256; two
/// norms 128: 37,280 a layer, × 2, and the final norm 64: 91,008.
#[test]
fn qwen3_moe_reads_num_local_experts() {
    let old = r#"{"model_type": "qwen3_moe", "vocab_size": 128, "hidden_size": 64,
        "intermediate_size": 96, "moe_intermediate_size": 32, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "num_experts": 4,
        "num_experts_per_tok": 2, "tie_word_embeddings": false}"#;
    let new = old.replace("\"num_experts\"", "\"num_local_experts\"");
    assert_eq!(arch(&new), arch(old));
    assert_eq!(arch(&new).params(), 16_384 + 2 * 37_280 + 64);
    assert_eq!(arch(&new).params(), 91_008);
}
