//! llama.cpp over two cards that are not alike, against a published load log: llama.cpp PR #6122
//! (https://github.com/ggml-org/llama.cpp/pull/6122, a comment of April 2024), an RTX 4070 Ti
//! (CUDA0) and an RTX 3090 Ti (CUDA1) running Command-R (c4ai-command-r-v01: 40 blocks, hidden
//! 8,192, 64 heads and 64 KV heads, feed-forward 22,528, vocabulary 256,000, tied embeddings;
//! `freq_base = 8000000` in the log), all 41 positions offloaded, n_ctx 4096, n_ubatch 512, no
//! flash attention (not yet in that build), f16 cache, "pipeline parallelism enabled
//! (n_copies=4)". It prints:
//!
//! ```text
//! llama_kv_cache_init:      CUDA0 KV buffer size =  1536.00 MiB
//! llama_kv_cache_init:      CUDA1 KV buffer size =  3584.00 MiB
//! llama_new_context_with_model:      CUDA0 compute buffer size =   672.01 MiB
//! ```
//!
//! The log does not print the cards' free memory nor a `-ts`, and its model file's type is not
//! named, so the split is given as the one the KV buffers show (12 blocks of 128 MiB on CUDA0,
//! 28 on CUDA1: `-ts 12,29` puts il / 41 < 12 / 41 on CUDA0), and the model buffers are not held.
//! What is held: each card's KV buffer (its blocks' cache), and CUDA0's compute buffer with the
//! pipelined scheduler's copies of its inputs, to the 0.01 MiB printed.

use vramfit::config::parse_config;
use vramfit::estimate::{AttentionImpl, Engine, EstimateInput, estimate};
use vramfit::estimate::{HardwareInput, ModelInput, PlacementInput, RunInput, ServingInput};

/// CohereConfig's values for c4ai-command-r-v01 (transformers 5.24 `CohereConfig()` defaults,
/// which are that model's), with its rope base from the log.
const COMMAND_R: &str = r#"{
  "model_type": "cohere",
  "architectures": ["CohereForCausalLM"],
  "vocab_size": 256000,
  "hidden_size": 8192,
  "intermediate_size": 22528,
  "num_hidden_layers": 40,
  "num_attention_heads": 64,
  "num_key_value_heads": 64,
  "max_position_embeddings": 8192,
  "rope_theta": 8000000.0,
  "tie_word_embeddings": true,
  "torch_dtype": "float16"
}"#;

const MIB: f64 = 1_048_576.0;

#[test]
fn command_r_on_a_4070_ti_and_a_3090_ti_matches_the_printed_buffers() {
    let arch = parse_config(COMMAND_R).unwrap().arch;
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(arch),
            quantization: vramfit::precision::Quantization::Gguf {
                file_type: vramfit::precision::GgufFileType::Q4_K_M,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            attention: AttentionImpl::Eager,

            // A build of April 2024 (every build before b7438 has the same rules): it reserves a
            // micro-batch of outputs, before llama.cpp PR #23861.
            engine_version: Some("b2600".into()),
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(4096.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            // The catalog has no RTX 3090 Ti: the 24 GB RTX 3090 stands in for it, which changes
            // nothing held here (the split is given, and no buffer depends on the card).
            cards: vec!["rtx-4070-ti".into(), "rtx-3090".into()],
            ..Default::default()
        },
        placement: PlacementInput {
            tensor_split: vec![12.0, 29.0],
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let c = &e.cards;
    assert_eq!((c[0].layers, c[1].layers), (12, 28));
    assert!(c[1].output_layer);
    let mib = |b: vramfit::units::Bytes| (b.get() as f64 / MIB * 100.0).round() / 100.0;
    assert_eq!(mib(c[0].kv_cache_bytes), 1536.00);
    assert_eq!(mib(c[1].kv_cache_bytes), 3584.00);
    // 512 × 4,096 × (64 heads + mask) × 4 B + 4 × 512 × 8,192 × 4 B = 584 MiB, and the copies:
    // 4 × (512 × 8,192 × 4 + 512 × 4) + 3 × 512 × 4,096 × 4 B = 88.0078 MiB.
    assert_eq!(mib(c[0].compute_bytes), 672.01);
}
