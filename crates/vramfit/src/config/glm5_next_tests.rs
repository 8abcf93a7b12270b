//! GLM-5-Next against `tests/reference/glm5-next-reference.csv` (transformers 5.24.0): the
//! parameters on the meta device with the routers' `e_score_correction_bias` the checkpoint
//! holds (`state_dict`), and a tiny random-weight model's cache storage after a prefill of 9
//! tokens and one decode step.

use super::super::parse_config;
use crate::error::ErrorKind;
use crate::estimate::{
    ComponentKind, Engine, EstimateInput, ModelInput, RunInput, ServingInput, estimate,
};
use crate::model::Architecture;

/// The reference's tiny model: 3 KDA layers, 2 MLA layers (the second's indexer "shared"),
/// a pool of 4, 3 streams, one vision block.
const TINY: &str = r#"{"model_type": "glm5_next", "text_config": {"vocab_size": 128,
    "hidden_size": 64, "intermediate_size": 96, "moe_intermediate_size": 32,
    "num_hidden_layers": 5, "num_attention_heads": 4, "num_key_value_heads": 4,
    "n_routed_experts": 4, "num_experts_per_tok": 2, "kv_lora_rank": 16, "q_lora_rank": 24,
    "qk_nope_head_dim": 16, "v_head_dim": 16, "index_topk": 8, "index_head_dim": 16,
    "index_n_heads": 4, "index_kpool": 4, "linear_head_dim": 16, "linear_num_heads": 2,
    "hc_mult": 3, "pad_token_id": 0,
    "mlp_layer_types": ["dense", "sparse", "sparse", "sparse", "sparse"],
    "layer_types": ["linear_attention", "linear_attention", "linear_attention",
                    "indexed_attention", "indexed_attention"],
    "indexer_types": ["full", "full", "full", "full", "shared"]},
    "vision_config": {"depth": 1, "hidden_size": 32, "intermediate_size": 48, "num_heads": 4,
    "patch_size": 4, "out_hidden_size": 64, "projection_intermediate_size": 40}}"#;

fn arch(json: &str) -> Architecture {
    parse_config(json).unwrap().arch
}

/// `Glm5NextConfig()`'s defaults: 313,786,901,310 in the state dict, of which the vision tower
/// and merger are 460,072,448 (by hand: patch embedding 3 × 2 × 14² × 1024 + 1024 = 1,205,248;
/// 24 blocks of 16,792,704; post-norm 1,024; downsample 1024 × 1536 × 4 + 1536 = 6,292,992;
/// merger 1536² + 2 × 1536 + 3 × 1536 × 10240 = 49,548,288).
#[test]
fn parameters_match_transformers_meta_count() {
    let a = arch(r#"{"model_type": "glm5_next"}"#);
    assert_eq!(a.vision_params, 460_072_448);
    assert_eq!(a.params(), 313_786_901_310);
    let h = a.hybrid.unwrap();
    assert_eq!((h.state_layers, h.attention_layers), (34, 11));
    let ix = a.indexer.unwrap();
    assert_eq!(
        (ix.layers, ix.pool, ix.head_dim, ix.heads),
        (11, 16, 128, 32)
    );
    assert_eq!(a.hyper_connections, 4);
    let t = arch(TINY);
    assert_eq!(t.vision_params, 32_336);
    assert_eq!(t.params(), 280_730);
    assert_eq!(t.indexer.unwrap().layers, 1);
}

/// The same text model in a flat file (`Glm5NextConfig` forwards the top-level keys to its
/// text config) counts the same, the default tower included.
#[test]
fn a_flat_file_reads_the_same() {
    let flat = r#"{"model_type": "glm5_next", "hidden_size": 4096, "num_hidden_layers": 45}"#;
    assert_eq!(arch(flat).params(), 313_786_901_310);
}

/// transformers' cache after 9 tokens and one decode step, batch 2, as its storage holds it:
/// the latent of 16 per token in 2 MLA layers (1,280 B), the one full indexer's key, gate score
/// and flag of 33 per token (1,320 B), and per KDA layer a bf16 convolution state of 3 × 32
/// channels over the kernel of 4 and an fp32 state of 2 heads × 16 × 16 (4,608 and 12,288 B
/// over 3 layers). Exact: nothing else stays alive.
#[test]
fn caches_match_transformers_storage() {
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(arch(TINY)),
            ..Default::default()
        },
        run: RunInput {
            batch: 2.0,
            seq_len: 10.0,
            new_tokens: 0.0,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(e.component_bytes(ComponentKind::KvCache), 1280 + 1320);
    assert_eq!(e.component_bytes(ComponentKind::StateCache), 4608 + 12_288);
}

/// SGLang, by hand: per token the bf16 latent 512 × 2 B in 11 layers and an fp8 indexer key
/// with its scale (128 + 4 B) in the 11 with an indexer, counted per token where SGLang pools 16
/// (the safe side: 11 × 132 × 15/16 = 1,361 B a token over, 9 % of the 12,716 B counted); per
/// request 34 KDA layers of 3 × 8192 channels × 3 inputs in bf16 and 64 × 128 × 128 in fp32.
#[test]
fn sglang_keeps_latent_indexer_keys_and_kda_states() {
    let a = arch(r#"{"model_type": "glm5_next"}"#);
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(a),
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Sglang,
            batch: 2.0,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(4096.0),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        e.component_bytes(ComponentKind::KvCache),
        2 * 4096 * 11 * (1024 + 132)
    );
    let per_request = 34 * (3 * 8192 * 3 * 2 + 64 * 128 * 128 * 4);
    assert_eq!(
        e.component_bytes(ComponentKind::StateCache),
        2 * per_request
    );
}

/// Every engine that does not run it is refused by name.
#[test]
fn engines_that_do_not_run_it_are_refused_by_name() {
    for engine in [
        Engine::Vllm,
        Engine::Llamacpp,
        Engine::Ollama,
        Engine::Trtllm,
        Engine::Mlx,
    ] {
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
        assert_eq!(e.kind, ErrorKind::Unsupported, "{engine:?}");
        assert!(
            e.problem.contains("GLM-5-Next"),
            "{engine:?}: {}",
            e.problem
        );
    }
}

/// A layer kind it does not know is refused at its key.
#[test]
fn an_unknown_layer_kind_names_layer_types() {
    let json = r#"{"model_type": "glm5_next", "text_config": {"num_hidden_layers": 2,
        "layer_types": ["linear_attention", "mamba"]}}"#;
    let e = parse_config(json).unwrap_err();
    assert_eq!(e.field, "config.json: text_config.layer_types");
}
