//! Gemma 4's text stack against transformers 5.24.0 (`tests/reference/gemma4_reference.py`,
//! `gemma4-reference.csv`): parameters of `Gemma4ForCausalLM` on the meta device, and the cache
//! a prefill of 2 sequences of 24 tokens left in a tiny model with real bf16 tensors, as stored.

use super::super::parse_config;
use crate::estimate::{
    ComponentKind, Engine, EstimateInput, ModelInput, RunInput, ServingInput, estimate,
};
use crate::model::Architecture;

const CSV: &str = include_str!("../../../../tests/reference/gemma4-reference.csv");

/// A column of a case's row.
fn reference(case: &str, column: &str) -> u64 {
    let mut lines = CSV.lines();
    let header: alloc::vec::Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == column).unwrap();
    let row = lines
        .find(|l| l.starts_with(&alloc::format!("{case},")))
        .unwrap();
    row.split(',').nth(at).unwrap().parse().unwrap()
}

fn arch(json: &str) -> Architecture {
    parse_config(json).unwrap().arch
}

/// `Gemma4TextConfig`'s defaults: every key left to the class.
const DEFAULTS: &str = r#"{"model_type": "gemma4_text"}"#;
/// The defaults with the last 10 layers sharing KV, double-wide MLPs there.
const SHARED: &str =
    r#"{"model_type": "gemma4_text", "num_kv_shared_layers": 10, "use_double_wide_mlp": true}"#;
/// Full layers of 2 KV heads whose keys are their values, 8 sliding KV heads, no PLE.
const K_EQ_V: &str = r#"{"model_type": "gemma4", "text_config": {"model_type": "gemma4_text",
    "hidden_size_per_layer_input": 0, "attention_k_eq_v": true,
    "num_global_key_value_heads": 2, "num_key_value_heads": 8, "num_hidden_layers": 12}}"#;
/// The tiny model whose cache was read with real tensors.
const TINY: &str = r#"{"model_type": "gemma4_text", "vocab_size": 128, "hidden_size": 64,
    "intermediate_size": 96, "num_hidden_layers": 8, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "global_head_dim": 32,
    "num_global_key_value_heads": 1, "attention_k_eq_v": true, "sliding_window": 8,
    "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention",
    "full_attention", "sliding_attention", "sliding_attention", "sliding_attention",
    "full_attention"], "num_kv_shared_layers": 3, "hidden_size_per_layer_input": 8,
    "vocab_size_per_layer_input": 128}"#;

/// Parameters exact against the meta-device counts.
#[test]
fn gemma4_params_match_transformers() {
    for (case, json) in [
        ("gemma4-defaults", DEFAULTS),
        ("gemma4-shared", SHARED),
        ("gemma4-k-eq-v", K_EQ_V),
        ("gemma4-tiny", TINY),
    ] {
        assert_eq!(arch(json).params(), reference(case, "params"), "{case}");
    }
}

/// The tiny model by hand: embeddings 128 × 64 = 8,192 (tied); PLE table 128 × 8 layers × 8 =
/// 8,192, its projection 64 × 64 = 4,096 and norm 8. A sliding layer of its own cache: q 64 ×
/// 64, k and v 64 × 32 each, o 64 × 64, q and k norms 16 each = 12,320; a full one (head 32, 1
/// KV head, keys as values): q 64 × 128, k 64 × 32, o 128 × 64, norms 32 each = 18,496; a shared
/// sliding layer q, o and q_norm = 8,208, a shared full one 16,416. Each layer's MLP 3 × 64 ×
/// 96 = 18,432, four norms 256, PLE gate and projection 2 × 64 × 8 and norm 64 = 1,088.
/// 4 × 12,320 + 18,496 + 2 × 8,208 + 16,416 = 100,608; 8 × (18,432 + 256 + 1,088) = 158,208;
/// final norm 64: 8,192 + 12,296 + 100,608 + 158,208 + 64 = 279,368, the meta count.
#[test]
fn gemma4_tiny_params_by_hand() {
    let sliding = 64 * 64 + 2 * 64 * 32 + 64 * 64 + 2 * 16;
    let full = 64 * 128 + 64 * 32 + 128 * 64 + 2 * 32;
    let (shared_sliding, shared_full) = (64 * 64 + 64 * 64 + 16, 64 * 128 + 128 * 64 + 32);
    assert_eq!(
        (sliding, full, shared_sliding, shared_full),
        (12_320, 18_496, 8_208, 16_416)
    );
    let attention = 4 * sliding + full + 2 * shared_sliding + shared_full;
    let rest = 8 * (3 * 64 * 96 + 4 * 64 + 2 * 64 * 8 + 64);
    let total = 128 * 64 + (128 * 64 + 64 * 64 + 8) + attention + rest + 64;
    assert_eq!(total, 279_368);
    assert_eq!(arch(TINY).params(), total);
}

/// transformers' cache after the prefill, as stored: the 4 sliding layers of their own cache
/// each hold the prompt's 24 tokens (a slice of it is the window, the storage is the prompt's:
/// 2 × 2 seq × 2 KV heads × 24 × 16 × 2 B = 6,144), the full layer 2 × 2 × 1 × 24 × 32 × 2 B =
/// 6,144, the 3 shared layers nothing: 30,720 B, where the window's logical size is 13,312 B.
#[test]
fn gemma4_cache_matches_transformers_storage() {
    assert_eq!(reference("gemma4-tiny", "storage_bytes"), 30_720);
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(arch(TINY)),
            ..Default::default()
        },
        run: RunInput {
            batch: 2.0,
            seq_len: 24.0,
            new_tokens: 0.0,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let kv = e.component_bytes(ComponentKind::KvCache);
    assert_eq!(kv, reference("gemma4-tiny", "storage_bytes"));
}

/// llama.cpp (`LLM_ARCH_GEMMA4`: the KV-shared layers reuse an earlier layer's cells) by hand
/// for the tiny model, one sequence, -c 4096, ubatch 512: the full layer 64 values × 4,096
/// cells; the 4 sliding layers 64 values × min(4,096, 8 × 1 + 512 → 768) cells; f16:
/// (262,144 + 196,608) × 2 = 917,504 B.
#[test]
fn gemma4_in_llamacpp_by_hand() {
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(arch(TINY)),
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
    let kv = e.component_bytes(ComponentKind::KvCache);
    assert_eq!(kv, (64 * 4096 + 4 * 64 * 768) * 2);
}

/// Ollama, TensorRT-LLM and SGLang are refused by the engine: how they hold Gemma 4's layers
/// is not checked (SGLang's `gemma4_causal.py` builds them, but whether its pools keep the
/// KV-shared layers and the two head widths is not read yet), naming it; the MoE block and an irregular
/// layer pattern are refused at their keys.
#[test]
fn gemma4_refusals_name_their_field() {
    for engine in [Engine::Ollama, Engine::Trtllm, Engine::Sglang] {
        let e = estimate(&EstimateInput {
            model: ModelInput {
                arch: Some(arch(TINY)),
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
        assert!(e.problem.contains("Gemma 4"), "{}", e.problem);
    }
    let moe = DEFAULTS.replace('}', r#", "enable_moe_block": true}"#);
    assert_eq!(
        parse_config(&moe).unwrap_err().field,
        "config.json: enable_moe_block"
    );
    let odd = TINY.replace(
        r#"["sliding_attention", "sliding_attention", "sliding_attention","#,
        r#"["full_attention", "sliding_attention", "sliding_attention","#,
    );
    assert_eq!(
        parse_config(&odd).unwrap_err().field,
        "config.json: layer_types"
    );
    let all = TINY.replace(
        r#""num_kv_shared_layers": 3"#,
        r#""num_kv_shared_layers": 8"#,
    );
    assert_eq!(
        parse_config(&all).unwrap_err().field,
        "config.json: num_kv_shared_layers"
    );
}

/// vLLM's `Gemma4Attention` builds one `QKVParallelLinear` per layer, the KV-shared layers' and
/// the keys-as-values layers' k and v slots too: over transformers' count of the tiny model by
/// 3 shared layers' k and v (2 sliding of 2 × 64 × 32 = 4,096, 1 full of 2 × 64 × 32) plus their
/// k norms (16, 16, 32) and the 1 unshared full layer's v (64 × 32): 12,288 + 64 + 2,048 = 14,400.
#[test]
fn gemma4_in_vllm_counts_every_qkv_slot() {
    let mut a = arch(TINY);
    a.layer_shapes.as_mut().unwrap().full_qkv = true;
    assert_eq!(a.params() - arch(TINY).params(), 14_400);
    let params = |engine| {
        estimate(&EstimateInput {
            model: ModelInput {
                arch: Some(arch(TINY)),
                ..Default::default()
            },
            run: RunInput {
                engine,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
        .params
    };
    assert_eq!(params(Engine::Vllm) - params(Engine::Hf), 14_400);
}

/// Activations are counted at the widest block: the tiny model's full layers' heads of 32 with
/// the sliding layers' 2 KV heads (q, k, v (4 + 2 × 2) × 32 = 256 wide where its sliding
/// layers are 128), and the defaults' shared layers' double-wide MLP, 2 × 9,216 = 18,432.
#[test]
fn gemma4_activations_take_the_widest_block() {
    assert_eq!(arch(TINY).widest_head(), (32, 2));
    assert_eq!(arch(SHARED).widest_ffn(), 18_432);
    assert_eq!(arch(DEFAULTS).widest_ffn(), 9216);
}

/// vLLM's cache per token for the defaults with 10 KV-shared layers, by hand: of the 5 full
/// layers (5, 11, 17, 23, 29) and 25 sliding ones, the last 10 (2 full, 8 sliding) keep none:
/// 3 × 2 × 4 × 512 + 17 × 2 × 4 × 256 = 47,104 values, 94,208 B in bf16.
#[test]
fn gemma4_in_vllm_caches_per_layer_type() {
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(arch(SHARED)),
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
    assert_eq!(
        e.kv_bytes_per_token,
        (3 * 2 * 4 * 512 + 17 * 2 * 4 * 256) * 2
    );
}

/// A pipeline stage's cache layers: the KV-shared layers are the last 10 of 30, so the first of
/// two stages (layers 0 to 14) caches all 15 of its layers (2 full, 13 sliding); its share is
/// taken of every layer, ⌈5 × 15 ÷ 30⌉ = 3 full and 15 in all, capped by the 20 that cache:
/// 3 full and 12 sliding, the wider full layers over by one, never under. The whole model: the
/// 3 full and 17 sliding layers that cache.
#[test]
fn gemma4_stages_count_the_caching_layers_safely() {
    let a = arch(SHARED);
    assert_eq!(a.stage_layers(15), (3, 12));
    assert_eq!(a.stage_layers(30), (3, 17));
}
