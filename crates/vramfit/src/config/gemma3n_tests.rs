//! Gemma 3n against transformers 5.24 (`tests/reference/gemma3n-reference.csv`, from
//! `tests/reference/gemma3n_reference.py`): every parameter of the E2B and E4B checkpoints
//! counted on the meta device, and a tiny model's cache as its storage holds it.

use alloc::format;
use alloc::string::String;

use crate::config::parse_config;
use crate::config::tests::run;
use crate::error::ErrorKind;
use crate::estimate::{ComponentKind, Engine, EstimateInput, ModelInput, RunInput, estimate};

const REFERENCE: &str = include_str!("../../../../tests/reference/gemma3n-reference.csv");

/// The reference row of `case`, split at its commas.
fn row(case: &str) -> alloc::vec::Vec<&'static str> {
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

/// google/gemma-3n-E2B-it's text_config as the reference script builds it: the class defaults
/// (E4B) but 30 layers, FFN 8192 per layer, 10 shared layers, 10 sparse layers.
fn e2b_text() -> String {
    let widths = alloc::vec!["8192"; 30].join(", ");
    let sparsity = [alloc::vec!["0.95"; 10], alloc::vec!["0.0"; 20]]
        .concat()
        .join(", ");
    format!(
        r#"{{"model_type": "gemma3n_text", "num_hidden_layers": 30, "intermediate_size": [{widths}],
        "num_kv_shared_layers": 10, "activation_sparsity_pattern": [{sparsity}]}}"#
    )
}

fn wrapped(text: &str) -> String {
    format!(
        r#"{{"model_type": "gemma3n", "text_config": {text}, "vision_config": {{"architecture": "mobilenetv5_300m_enc"}}, "audio_config": {{}}}}"#
    )
}

#[test]
fn gemma3n_parameters_match_transformers_meta_count() {
    // Text stacks: the class defaults are the E4B's.
    let e4b_text = r#"{"model_type": "gemma3n_text"}"#;
    assert_eq!(
        parse_config(e4b_text).unwrap().arch.params(),
        n("gemma3n-e4b", 2)
    );
    assert_eq!(
        parse_config(&e2b_text()).unwrap().arch.params(),
        n("gemma3n-e2b", 2)
    );
    // Whole checkpoints: text, MobileNet-v5, the USM conformer and the two embedders.
    for (case, text) in [
        ("gemma3n-e4b", String::from(e4b_text)),
        ("gemma3n-e2b", e2b_text()),
    ] {
        let cfg = parse_config(&wrapped(&text)).unwrap();
        assert_eq!(cfg.arch.params(), n(case, 1), "{case}");
        let towers = n(case, 3) + n(case, 4) + n(case, 5);
        assert_eq!(cfg.arch.vision_params, towers, "{case}");
    }
    // A file with no encoder configs builds the default ones, as transformers does.
    let bare = parse_config(r#"{"model_type": "gemma3n", "text_config": {}}"#).unwrap();
    assert_eq!(bare.arch.params(), n("gemma3n-e4b", 1));
}

/// The audio tower by hand (h = 1536, 12 conformer blocks, 8 heads, kernel 5):
/// sub-sampling 128·9 + 128 + 32·128·9 + 32 + (32 channels × 32 frequencies)·1536 = 1,611,040;
/// a block 24·1536² + 9·1536 + 5·1536 + 192 = 56,644,800, ×12 = 679,737,600; 681,348,640 in all,
/// the reference's `audio` column. Embedders: (128 + 2 + 2048) × 2048 = 4,460,544 (vision) and
/// (128 + 2 + 2048) × 1536 = 3,345,408 (audio), 7,805,952, its `embedders` column.
#[test]
fn gemma3n_towers_by_hand() {
    assert_eq!(1_611_040 + 12 * 56_644_800, n("gemma3n-e4b", 4));
    assert_eq!(4_460_544 + 3_345_408, n("gemma3n-e4b", 5));
}

/// The tiny model: 10 layers of window 8 (every fifth full), 5 shared. transformers' cache after
/// a prefill of 2 × 24 tokens holds the whole prompt in each of the 5 layers with a cache
/// (2 × 24 × 2 KV heads × 16 × 2 B × K and V = 6,144 B each; the sliding layers' windows are
/// slices of it), none in the shared ones.
#[test]
fn gemma3n_tiny_reads_its_shapes() {
    let tiny = r#"{"model_type": "gemma3n_text", "vocab_size": 128,
        "vocab_size_per_layer_input": 128, "hidden_size": 64, "hidden_size_per_layer_input": 8,
        "intermediate_size": 96, "num_hidden_layers": 10, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 16, "sliding_window": 8,
        "num_kv_shared_layers": 5, "laurel_rank": 4, "altup_num_inputs": 4}"#;
    let cfg = parse_config(tiny).unwrap();
    assert_eq!(cfg.arch.params(), n("gemma3n-tiny", 2));
    let a = &cfg.arch;
    assert_eq!((a.sliding_layers, a.sliding_window), (8, 8));
    assert_eq!(a.kv_shared_layers(), (1, 4));
    let held: u64 = row("gemma3n-tiny")[11]
        .split(' ')
        .map(|b| b.parse::<u64>().unwrap())
        .sum();
    assert_eq!(held, n("gemma3n-tiny", 8));
    assert_eq!(held, 5 * 2 * 24 * 2 * 16 * 2 * 2);
}

#[test]
fn gemma3n_bad_keys_name_their_field() {
    for (json, field, kind) in [
        (
            r#"{"model_type": "gemma3n_text", "num_hidden_layers": 2, "intermediate_size": [8, 16]}"#,
            "config.json: intermediate_size",
            ErrorKind::Unsupported,
        ),
        (
            r#"{"model_type": "gemma3n_text", "num_hidden_layers": 3, "intermediate_size": [8, 8]}"#,
            "config.json: intermediate_size",
            ErrorKind::Conflict,
        ),
        (
            r#"{"model_type": "gemma3n_text", "num_hidden_layers": 33}"#,
            "config.json: num_hidden_layers",
            ErrorKind::Unsupported,
        ),
        (
            r#"{"model_type": "gemma3n_text", "num_kv_shared_layers": 35}"#,
            "config.json: num_kv_shared_layers",
            ErrorKind::Conflict,
        ),
        (
            r#"{"model_type": "gemma3n_text", "activation_sparsity_pattern": [0.95]}"#,
            "config.json: activation_sparsity_pattern",
            ErrorKind::Conflict,
        ),
        (
            r#"{"model_type": "gemma3n", "text_config": {}, "vision_config": {"architecture": "resnet50"}}"#,
            "config.json: vision_config.architecture",
            ErrorKind::Unsupported,
        ),
        (
            r#"{"model_type": "gemma3n", "text_config": {}, "audio_config": {"sscp_conv_kernel_size": [3, 3]}}"#,
            "config.json: audio_config.sscp_conv_kernel_size",
            ErrorKind::ConfigJson,
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

const TINY: &str = r#"{"model_type": "gemma3n_text", "vocab_size": 128,
    "vocab_size_per_layer_input": 128, "hidden_size": 64, "hidden_size_per_layer_input": 8,
    "intermediate_size": 96, "num_hidden_layers": 10, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "sliding_window": 8,
    "num_kv_shared_layers": 5, "laurel_rank": 4, "altup_num_inputs": 4}"#;

/// transformers (`--engine hf`): the tiny model's cache after the prefill of 2 × 24 tokens is
/// the reference's storage exactly, 30,720 B (the sliding layers hold the prompt's slice).
#[test]
fn gemma3n_cache_matches_transformers_storage() {
    let e = run(Engine::Hf, TINY, 2.0, 24.0);
    assert_eq!(
        e.component_bytes(ComponentKind::KvCache),
        n("gemma3n-tiny", 8)
    );
}

/// llama.cpp (`LLM_ARCH_GEMMA3N`, the KV-shared layers reuse earlier cells) by hand for the tiny
/// model, one sequence, -c 4096, ubatch 512: the one full layer with a cache 64 values × 4,096
/// cells, the 4 sliding ones 64 × min(4,096, 8 + 512 = 520 → 768 padded) cells; f16:
/// (262,144 + 196,608) × 2 = 917,504 B. vLLM's cache per token for E4B by hand: of 35 layers
/// the first 20 cache (4 full, 16 sliding), 2 KV heads × 256 × K and V each: 20 × 1,024 values,
/// 40,960 B in bf16.
#[test]
fn gemma3n_in_llamacpp_and_vllm_by_hand() {
    let kv = run(Engine::Llamacpp, TINY, 1.0, 512.0).component_bytes(ComponentKind::KvCache);
    assert_eq!(kv, (64 * 4096 + 4 * 64 * 768) * 2);
    let e4b = r#"{"model_type": "gemma3n_text"}"#;
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(parse_config(e4b).unwrap().arch),
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Vllm,
            mode: crate::estimate::Mode::Serve,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(e.kv_bytes_per_token, 20 * 2 * 2 * 256 * 2);
}

/// The engines vramfit has not checked for Gemma 3n are refused, naming the engine and family.
#[test]
fn gemma3n_refused_by_unchecked_engines() {
    for engine in [Engine::Ollama, Engine::Sglang, Engine::Trtllm] {
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
            ("engine", ErrorKind::Unsupported)
        );
        assert!(e.problem.contains("Gemma 3n"), "{}", e.problem);
    }
}

/// llama.cpp loads every Gemma 3n layer's k and v projections and k norm, the KV-shared layers'
/// too: `src/models/gemma3n.cpp` (ggml-org/llama.cpp at 3688fa8) creates `create_tensor_qkv(layer,
/// i, …, 0)` and `attn_k_norm` with flags 0 (required) for every layer, so the GGUF carries them.
/// E4B's 15 shared layers by hand: 2 × 2,048 × 2 KV heads × 256 plus a k norm of 256 = 2,097,408
/// each, 31,461,120 parameters, 62,922,240 B in bf16 beyond what transformers holds: in llama.cpp
/// the weights are those of the same model with no shared layers, in transformers they are that
/// much less.
#[test]
fn gemma3n_llamacpp_loads_the_shared_layers_kv_weights() {
    let weights = |engine, json: &str| {
        estimate(&EstimateInput {
            model: ModelInput {
                arch: Some(parse_config(json).unwrap().arch),
                ..Default::default()
            },
            run: RunInput {
                engine,
                dtype: Some(crate::precision::Dtype::Bf16),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
        .weights_bytes
        .get()
    };
    let (shared, none) = (
        r#"{"model_type": "gemma3n_text"}"#,
        r#"{"model_type": "gemma3n_text", "num_kv_shared_layers": 0}"#,
    );
    let per_shared = 2 * 2048 * 2 * 256 + 256;
    assert_eq!(15 * per_shared, 31_461_120);
    assert_eq!(
        weights(Engine::Hf, none) - weights(Engine::Hf, shared),
        15 * per_shared * 2
    );
    assert_eq!(
        weights(Engine::Llamacpp, none),
        weights(Engine::Llamacpp, shared)
    );
}

/// The presets are the configs as `parse_config` reads them (checked against transformers'
/// meta count above), with the whole checkpoint's count.
#[test]
fn gemma3n_presets_are_their_configs() {
    for (id, case, text) in [
        (
            "google/gemma-3n-E4B-it",
            "gemma3n-e4b",
            String::from(r#"{"model_type": "gemma3n_text"}"#),
        ),
        ("google/gemma-3n-E2B-it", "gemma3n-e2b", e2b_text()),
    ] {
        let preset = crate::presets::find(id).unwrap();
        assert_eq!(
            preset.arch,
            parse_config(&wrapped(&text)).unwrap().arch,
            "{id}"
        );
        assert_eq!(preset.params, n(case, 1), "{id}");
    }
}
