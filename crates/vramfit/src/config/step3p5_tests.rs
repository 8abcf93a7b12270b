//! Step 3.5 and Step 3.7 against transformers 5.24 (`tests/reference/step3p5-reference.csv`,
//! from `tests/reference/step3p5_reference.py`): every parameter of Step-3.5-Flash and
//! Step-3.7-Flash counted on the meta device, and a tiny model's cache as its storage holds it.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::parse_config;
use crate::config::tests::run;
use crate::error::ErrorKind;
use crate::estimate::{ComponentKind, Engine, EstimateInput, Mode, ModelInput, RunInput, estimate};

const REFERENCE: &str = include_str!("../../../../tests/reference/step3p5-reference.csv");

/// The reference row of `case`, split at its commas.
fn row(case: &str) -> Vec<&'static str> {
    REFERENCE
        .lines()
        .find(|l| l.starts_with(&format!("{case},")))
        .unwrap_or_else(|| panic!("no row {case}"))
        .split(',')
        .collect()
}

fn n(case: &str, column: usize) -> u64 {
    row(case)[column].parse().unwrap()
}

/// A JSON list of `f(i)` for the 45 layers and the 3 MTP layers the hub file pads its lists with.
fn padded(f: impl Fn(u64) -> String) -> String {
    (0..48).map(f).collect::<Vec<_>>().join(", ")
}

/// stepfun-ai/Step-3.5-Flash's config.json (hub file as vendored in yevvonlim/Megatron-Bridge at
/// 2023060, `tests/unit_tests/models/step3p5/_reference/config.json`), its memory keys.
pub(crate) fn flash() -> String {
    let types = padded(|i| {
        String::from(if i % 4 == 0 {
            "\"full_attention\""
        } else {
            "\"sliding_attention\""
        })
    });
    let theta = padded(|i| String::from(if i % 4 == 0 { "5000000.0" } else { "10000.0" }));
    let moe = (3..45)
        .map(|i| format!("{i}"))
        .collect::<Vec<_>>()
        .join(",");
    format!(
        r#"{{"model_type": "step3p5", "architectures": ["Step3p5ForCausalLM"],
        "hidden_size": 4096, "intermediate_size": 11264, "num_hidden_layers": 45,
        "max_seq_len": 262144, "vocab_size": 128896, "torch_dtype": "bfloat16",
        "moe_layers_enum": "{moe}", "num_attention_heads": 64, "num_attention_groups": 8,
        "head_dim": 128, "use_moe": true, "moe_num_experts": 288, "moe_top_k": 8,
        "moe_intermediate_size": 1280, "share_expert_dim": 1280, "tie_word_embeddings": false,
        "rope_theta": [{theta}], "use_head_wise_attn_gate": true, "sliding_window": 512,
        "use_moe_router_bias": true, "layer_types": [{types}], "num_nextn_predict_layers": 3,
        "attention_other_setting": {{"attention_type": "sliding_attention",
            "num_attention_heads": 96, "num_attention_groups": 8, "head_dim": 128,
            "true_head_dim": 128}},
        "max_position_embeddings": 262144}}"#
    )
}

/// The reference's tiny model: 6 layers (0 and 4 full, 4 heads; the others sliding, window 8,
/// 6 heads), 2 KV heads of 16, experts from layer 2.
const TINY: &str = r#"{"model_type": "step3p5", "hidden_size": 64, "intermediate_size": 96,
    "num_hidden_layers": 6, "vocab_size": 128, "num_attention_heads": 4,
    "num_attention_groups": 2, "head_dim": 16, "moe_num_experts": 4, "moe_top_k": 2,
    "moe_intermediate_size": 32, "share_expert_dim": 32, "moe_layers_enum": "2,3,4,5",
    "sliding_window": 8,
    "layer_types": ["full_attention", "sliding_attention", "sliding_attention",
        "sliding_attention", "full_attention", "sliding_attention"],
    "attention_other_setting": {"num_attention_heads": 6, "num_attention_groups": 2}}"#;

fn step3p7(text: &str, vision: &str) -> String {
    format!(r#"{{"model_type": "step3p7", "text_config": {text}{vision}}}"#)
}

#[test]
fn step3p5_parameters_match_transformers_meta_count() {
    let a = parse_config(&flash()).unwrap().arch;
    assert_eq!(a.params(), n("step3p5-flash", 2));
    assert_eq!(
        (a.num_heads, a.num_kv_heads, a.head_dim, a.vocab_size),
        (96, 8, 128, 128_896)
    );
    assert_eq!((a.sliding_layers, a.sliding_window), (33, 512));
    assert_eq!((a.heads_of_layer(0), a.heads_of_layer(1)), (64, 96));
    assert_eq!(a.moe.unwrap().first_dense_layers, 3);
    // Step 3.7: the same text stack, the vision tower of the class defaults and its projector.
    let whole = parse_config(&step3p7(&flash(), "")).unwrap().arch;
    assert_eq!(whole.params(), n("step3p7-flash", 1));
    assert_eq!(whole.vision_params, n("step3p7-flash", 3));
    // The tiny model, text alone and with its tower.
    let tiny = parse_config(TINY).unwrap().arch;
    assert_eq!(tiny.params(), n("step3p5-tiny", 2));
    let vision = r#", "vision_config": {"hidden_size": 32, "intermediate_size": 64,
        "num_hidden_layers": 2, "num_attention_heads": 2, "image_size": 56, "patch_size": 14}"#;
    let tiny_vl = parse_config(&step3p7(TINY, vision)).unwrap().arch;
    assert_eq!(tiny_vl.params(), n("step3p5-tiny", 1));
}

/// Step-3.5-Flash by hand: embedding and head 2 × 128,896 × 4,096 = 1,055,916,032; attention of a
/// full layer q 4,096 × 64·128 + k, v 2 × 4,096 × 1,024 + o 8,192 × 4,096 + g_proj 4,096 × 64 plus
/// q/k norms 256 = 75,759,872, of a sliding layer (96 heads) 4,096 × 12,288 · 2 + 8,388,608 + 4,096
/// × 96 + 256 = 109,445,376; 12 full and 33 sliding: 4,521,013,248; dense FFNs 3 × 3 × 4,096 ×
/// 11,264 = 415,236,096; 42 MoE layers of router 4,096 × 288 + 288 experts × 3 × 4,096 × 1,280 +
/// shared 3 × 4,096 × 1,280 = 4,546,035,712 each, 190,933,499,904; norms 45 × 8,192 + 4,096 =
/// 372,736. Total 196,956,118,272, the reference's count.
#[test]
fn step3p5_flash_by_hand() {
    let full = 4096 * 64 * 128 + 2 * 4096 * 1024 + 8192 * 4096 + 4096 * 64 + 256;
    let sliding = 2 * 4096 * 12_288 + 2 * 4096 * 1024 + 4096 * 96 + 256;
    assert_eq!((full, sliding), (75_759_872u64, 109_445_376u64));
    let moe = 4096 * 288 + 288 * 3 * 4096 * 1280 + 3 * 4096 * 1280;
    let total = 2 * 128_896 * 4096
        + 12 * full
        + 33 * sliding
        + 3 * 3 * 4096 * 11_264
        + 42 * moe
        + 45 * 8192
        + 4096;
    assert_eq!(total, n("step3p5-flash", 2));
}

/// Step 3.7's tower by hand (h = 1536, 47 layers, FFN int(1536 × 8960/1536) = 8,960): patch
/// convolution 3·14²·1536 = 903,168, positions 52² × 1536 = 4,153,344, pre-norm 3,072; a layer
/// 4(1536² + 1536) + 2 · 1536 · 8960 + 8960 + 1536 + 6 · 1536 = 36,988,160, × 47 =
/// 1,738,443,520; downsamplers 3,072 · 1536 · 9 + 3,072 + 6,144 · 3,072 · 9 + 6,144 =
/// 212,345,856; projector 6,144 × 4,096 = 25,165,824. 1,981,014,784 in all, the reference's
/// `vision` column.
#[test]
fn step3p7_tower_by_hand() {
    let layer = 4 * (1536 * 1536 + 1536) + 2 * 1536 * 8960 + 8960 + 1536 + 6 * 1536;
    assert_eq!(layer, 36_988_160u64);
    let total = 903_168 + 4_153_344 + 3072 + 47 * layer + 212_345_856 + 25_165_824;
    assert_eq!(total, n("step3p7-flash", 3));
}

/// transformers (`--engine hf`): the tiny model's cache after the prefill of 2 × 24 tokens is
/// the reference's storage exactly, 36,864 B: each of the 6 layers holds the whole prompt
/// (2 × 24 × 2 KV heads × 16 × 2 B × K and V = 6,144 B; the sliding layers' windows are slices
/// of it until the first decode step).
#[test]
fn step3p5_cache_matches_transformers_storage() {
    let held: u64 = row("step3p5-tiny")[9]
        .split(' ')
        .map(|b| b.parse::<u64>().unwrap())
        .sum();
    assert_eq!(held, 6 * 2 * 24 * 2 * 16 * 2 * 2);
    assert_eq!(held, n("step3p5-tiny", 6));
    let e = run(Engine::Hf, TINY, 2.0, 24.0);
    assert_eq!(
        e.component_bytes(ComponentKind::KvCache),
        n("step3p5-tiny", 6)
    );
}

/// llama.cpp (`src/models/step35.cpp` at 08b8861: `LLAMA_SWA_TYPE_STANDARD`, an iSWA cache) by
/// hand for the tiny model, one sequence, -c 4096, ubatch 512: the 2 full layers 64 values ×
/// 4,096 cells, the 4 sliding ones 64 × (8 + 512 = 520 → 768 padded) cells; f16:
/// (524,288 + 196,608) × 2 = 1,441,792 B. vLLM's KV per token for Step-3.5-Flash by hand: every
/// one of the 45 layers caches 8 KV heads × 128 × K and V, 45 × 2,048 values, 184,320 B in bf16
/// (its sliding layers' pages are freed past the window of 512).
#[test]
fn step3p5_in_llamacpp_and_vllm_by_hand() {
    let kv = run(Engine::Llamacpp, TINY, 1.0, 512.0).component_bytes(ComponentKind::KvCache);
    assert_eq!(kv, (2 * 64 * 4096 + 4 * 64 * 768) * 2);
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(parse_config(&flash()).unwrap().arch),
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Vllm,
            mode: Mode::Serve,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(e.kv_bytes_per_token, 45 * 2 * 8 * 128 * 2);
    for engine in [Engine::Hf, Engine::Sglang] {
        let e = run(engine, TINY, 1.0, 512.0);
        assert!(e.component_bytes(ComponentKind::KvCache) > 0, "{engine:?}");
    }
}

/// The engines that do not run Step 3.5, or that vramfit has not checked, are refused naming
/// the engine and the family.
#[test]
fn step3p5_refused_by_unchecked_engines() {
    for engine in [Engine::Ollama, Engine::Trtllm, Engine::Mlx] {
        let e = estimate(&EstimateInput {
            model: ModelInput {
                arch: Some(parse_config(TINY).unwrap().arch),
                ..Default::default()
            },
            run: RunInput {
                engine,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.kind),
            ("engine", ErrorKind::Unsupported),
            "{engine:?}"
        );
        assert!(e.problem.contains("Step 3.5"), "{}", e.problem);
    }
}

#[test]
fn step3p5_bad_keys_name_their_field() {
    for (json, field, kind) in [
        (
            r#"{"model_type": "step3p5", "num_hidden_layers": 3, "layer_types": ["full_attention"]}"#,
            "config.json: layer_types",
            ErrorKind::Conflict,
        ),
        (
            r#"{"model_type": "step3p5", "num_hidden_layers": 3, "sliding_window": 8, "layer_types": ["sliding_attention", "full_attention", "sliding_attention"]}"#,
            "config.json: layer_types",
            ErrorKind::Unsupported,
        ),
        (
            r#"{"model_type": "step3p5", "num_hidden_layers": 5, "moe_layers_enum": "1,3"}"#,
            "config.json: moe_layers_enum",
            ErrorKind::Unsupported,
        ),
        (
            r#"{"model_type": "step3p5", "moe_layers_enum": "3,x"}"#,
            "config.json: moe_layers_enum",
            ErrorKind::ConfigJson,
        ),
        (
            r#"{"model_type": "step3p5", "attention_other_setting": {"num_attention_groups": 4}}"#,
            "config.json: attention_other_setting.num_attention_groups",
            ErrorKind::Unsupported,
        ),
        (
            r#"{"model_type": "step3p5", "gating": false}"#,
            "config.json: gating",
            ErrorKind::Unsupported,
        ),
        (
            r#"{"model_type": "step3p7", "text_config": {}, "vision_config": {"mlp_ratio": -1}}"#,
            "config.json: vision_config.mlp_ratio",
            ErrorKind::OutOfRange,
        ),
    ] {
        let e = parse_config(json).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.kind),
            (field, kind),
            "{json}: {}",
            e.problem
        );
    }
}

/// The preset is the hub config as `parse_config` reads it (a hand-written table, checked
/// against the reader, which is checked against transformers above).
#[test]
fn step3p5_preset_is_its_config() {
    let preset = crate::presets::find("stepfun-ai/Step-3.5-Flash").unwrap();
    assert_eq!(preset.arch, parse_config(&flash()).unwrap().arch);
    assert_eq!(preset.params, n("step3p5-flash", 2));
}
