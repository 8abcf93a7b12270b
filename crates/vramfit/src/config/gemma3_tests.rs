//! EmbeddingGemma (`google/embeddinggemma-300m`): a `gemma3_text` config with
//! `use_bidirectional_attention`, read as an encoder with Gemma 3's layers, against hand counts
//! and the engines' own rules (`config::gemma3`'s docs cite them).

use super::parse_config;
use crate::error::ErrorKind;
use crate::estimate::{
    ComponentKind, Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput, estimate,
};
use crate::precision::Dtype;

/// google/embeddinggemma-300m's config.json
/// (<https://huggingface.co/google/embeddinggemma-300m/blob/main/config.json>, read 2026-12-07
/// as copies of the hub file in public code give it: a Rust port's config test and an OpenVINO
/// conversion script's checks, which agree on every key both hold).
pub(crate) const EMBEDDINGGEMMA_300M: &str = r#"{"_sliding_window_pattern": 6, "architectures": ["Gemma3TextModel"], "attention_bias": false,
    "attention_dropout": 0.0, "attn_logit_softcapping": null, "bos_token_id": 2,
    "dtype": "float32", "eos_token_id": 1, "final_logit_softcapping": null, "head_dim": 256,
    "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 768, "initializer_range": 0.02,
    "intermediate_size": 1152, "layer_types": ["sliding_attention", "sliding_attention",
    "sliding_attention", "sliding_attention", "sliding_attention", "full_attention",
    "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
    "sliding_attention", "full_attention", "sliding_attention", "sliding_attention",
    "sliding_attention", "sliding_attention", "sliding_attention", "full_attention",
    "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
    "sliding_attention", "full_attention"], "max_position_embeddings": 2048,
    "model_type": "gemma3_text", "num_attention_heads": 3, "num_hidden_layers": 24,
    "num_key_value_heads": 1, "pad_token_id": 0, "query_pre_attn_scalar": 256,
    "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000.0, "rope_scaling": null,
    "rope_theta": 1000000.0, "sliding_window": 512, "transformers_version": "4.57.0.dev0",
    "use_bidirectional_attention": true, "use_cache": true, "vocab_size": 262144}"#;

/// The same config as a causal decoder: the flag left out.
fn causal() -> alloc::string::String {
    EMBEDDINGGEMMA_300M.replace(r#""use_bidirectional_attention": true, "#, "")
}

/// The parameters by hand: embeddings 262,144 × 768 = 201,326,592 (tied: no LM head); a layer
/// q 768 × (3 × 256) = 589,824, k and v 768 × 256 = 196,608 each, o 768 × 768 = 589,824, the q
/// and k norms 2 × 256, the gated MLP 3 × 768 × 1,152 = 2,654,208 and four norms 4 × 768:
/// 4,230,656, × 24 = 101,535,744; the final norm 768. 302,863,104 in all (the model card's
/// "308M" adds the sentence-transformers Dense projections, 2 × 768 × 3,072 = 4,718,592, kept
/// in 2_Dense/ and 3_Dense/ beside the config). The window: 512 halved to 257 each way.
#[test]
fn embeddinggemma_reads_as_a_bidirectional_encoder() {
    let cfg = parse_config(EMBEDDINGGEMMA_300M).unwrap();
    let a = cfg.arch;
    assert_eq!(a.params(), 302_863_104);
    assert!(a.bidirectional && !a.is_generative());
    assert_eq!((a.sliding_window, a.sliding_layers), (257, 20));
    assert_eq!(cfg.dtype, Some(Dtype::Fp32));
    assert!(
        cfg.notes
            .iter()
            .any(|n| n.contains("use_bidirectional_attention")),
        "{:?}",
        cfg.notes
    );
    assert_eq!(cfg.notes.len(), cfg.notes_zh.len());
    // Without the flag, the causal Gemma 3 it was: the same weights, its own window.
    let c = parse_config(&causal()).unwrap().arch;
    assert_eq!(c.params(), 302_863_104);
    assert!(!c.bidirectional && c.is_generative());
    assert_eq!(c.sliding_window, 512);
    // The flag is a boolean in Gemma3TextConfig: anything else is named.
    let e = parse_config(&EMBEDDINGGEMMA_300M.replace(
        r#""use_bidirectional_attention": true"#,
        r#""use_bidirectional_attention": "all""#,
    ))
    .unwrap_err();
    assert!(
        e.field.contains("use_bidirectional_attention"),
        "{}",
        e.field
    );
}

fn run(engine: Engine, mode: Mode, json: &str) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            arch: Some(parse_config(json).unwrap().arch),
            ..Default::default()
        },
        run: RunInput {
            engine,
            mode,
            dtype: Some(Dtype::Fp32),
            batch: 32.0,
            seq_len: 512.0,
            new_tokens: 256.0,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// vLLM: `is_causal = False` makes every layer `EncoderOnlyAttention`, which has no KV-cache
/// spec: no pool at all, where the causal config gets one; the run pools by default (the
/// generate runner is refused, naming `runner`). In fp32 (`--dtype float32`): 302,863,104 × 4 B
/// and its rotary cos/sin cache, 2,048 positions × 256 × 4 B: 1,213,549,568 B.
#[test]
fn embeddinggemma_in_vllm_has_no_kv_pool() {
    let e = estimate(&run(Engine::Vllm, Mode::Serve, EMBEDDINGGEMMA_300M)).unwrap();
    assert_eq!(e.component_bytes(ComponentKind::KvCache), 0);
    assert_eq!(e.kv_cache_tokens, Some(0));
    assert_eq!(
        e.component_bytes(ComponentKind::Weights),
        302_863_104 * 4 + 2048 * 256 * 4
    );
    let decoder = estimate(&run(Engine::Vllm, Mode::Serve, &causal())).unwrap();
    assert!(decoder.component_bytes(ComponentKind::KvCache) > 0);
    let generate = {
        let mut input = run(Engine::Vllm, Mode::Serve, EMBEDDINGGEMMA_300M);
        input.run.runner = Some(crate::estimate::RunnerType::Generate);
        input
    };
    let err = generate.resolve().err().unwrap();
    assert_eq!(
        (err.field.as_str(), err.kind),
        ("runner", ErrorKind::Conflict)
    );
}

/// transformers: `Gemma3TextModel.forward` fills the `DynamicCache` that `use_cache` (true in
/// the config) asks for, bidirectional or not; the sliding layers hold the prompt's storage.
/// By hand, fp32: 24 layers × 2 (K, V) × 1 KV head × 256 × 4 B = 49,152 B a token, × 32 × 512
/// prompt tokens = 805,306,368 B; nothing is generated (a pooling run) and no logits formed.
/// llama.cpp (`gemma-embedding`, non-causal: no memory module) keeps no KV cache; SGLang is
/// refused by name, as for any encoder.
#[test]
fn embeddinggemma_elsewhere_by_hand() {
    let hf = estimate(&run(Engine::Hf, Mode::Inference, EMBEDDINGGEMMA_300M)).unwrap();
    assert_eq!(hf.component_bytes(ComponentKind::KvCache), 805_306_368);
    assert_eq!(hf.kv_bytes_per_token, 49_152);
    assert_eq!(hf.component_bytes(ComponentKind::Logits), 0);
    assert_eq!(hf.component_bytes(ComponentKind::Weights), 302_863_104 * 4);
    let llama = estimate(&run(Engine::Llamacpp, Mode::Inference, EMBEDDINGGEMMA_300M)).unwrap();
    assert_eq!(llama.component_bytes(ComponentKind::KvCache), 0);
    assert_eq!(llama.kv_bytes_per_token, 0);
    let sglang = run(Engine::Sglang, Mode::Serve, EMBEDDINGGEMMA_300M)
        .resolve()
        .err()
        .unwrap();
    assert_eq!(
        (sglang.field.as_str(), sglang.kind),
        ("engine", ErrorKind::Unsupported)
    );
}

/// The preset is the config as read, with the Dense projections beside it.
#[test]
fn embeddinggemma_preset_is_its_config() {
    let p = crate::presets::find("google/embeddinggemma-300m").unwrap();
    let read = parse_config(EMBEDDINGGEMMA_300M).unwrap().arch;
    assert_eq!(
        crate::model::Architecture {
            extra_params: 0,
            ..p.arch
        },
        read
    );
    assert_eq!(p.params, read.params() + 768 * 3072 * 2);
    assert_eq!(p.arch.params(), p.params);
    assert!(p.pooling);
}

/// llama.cpp's `gemma-embedding` (`src/models/gemma-embedding.cpp` at ggml-org/llama.cpp
/// e062ff9c): non-causal, attending through `build_attn_inp_no_cache` (no KV cache, so each
/// input is one ubatch, as an encoder's), its graph ending at the output norm (`res->t_embd`)
/// with no output matrix. With -ub 512 and inputs of 512 tokens: no cache; no logits (a
/// decoder's output would reserve 512 × (262,144 + 768) × 4 B = 538,443,776 B); the compute
/// buffer is, by hand, the block's largest stage as for bge-m3 (`llamacpp_pooling_tests.rs`):
/// the feed-forward 512 × (3 × 768 + 3 × 1,152) × 4 B = 11,796,480 B, the mask over the ubatch
/// alone 512 × 512 × 2 B (f16, flash attention) = 524,288 B and the token embeddings 512 × 768
/// × 4 B = 1,572,864 B: 13,893,632 B, above the output's 512 × 768 × 4 B. Inputs of 1,024
/// tokens are refused at `ubatch`, naming -ub 1024.
#[test]
fn embeddinggemma_on_llamacpp_pools_in_one_ubatch() {
    let input = |seq_len: f64| {
        let mut input = run(Engine::Llamacpp, Mode::Serve, EMBEDDINGGEMMA_300M);
        input.run.batch = 1.0;
        input.run.seq_len = seq_len;
        input.run.new_tokens = 0.0;
        input.serving.ubatch = 512.0;
        input
    };
    let e = estimate(&input(512.0)).unwrap();
    assert_eq!(e.component_bytes(ComponentKind::KvCache), 0);
    assert_eq!(e.kv_bytes_per_token, 0);
    assert_eq!(
        e.component_bytes(ComponentKind::ComputeBuffer),
        512 * (3 * 768 + 3 * 1152) * 4 + 512 * 512 * 2 + 512 * 768 * 4
    );
    assert_eq!(e.component_bytes(ComponentKind::ComputeBuffer), 13_893_632);
    let note = e
        .notes
        .iter()
        .find(|n| n.key == "llamacpp_pooling")
        .unwrap();
    assert!(note.en.contains("gemma-embedding"), "{}", note.en);
    assert!(note.zh.contains("gemma-embedding"), "{}", note.zh);
    let err = input(1024.0).resolve().err().unwrap();
    assert_eq!(
        (err.field.as_str(), err.kind),
        ("ubatch", ErrorKind::Conflict)
    );
    assert!(err.accepted.contains("-ub 1024"), "{}", err.accepted);
}

/// TensorRT-LLM and mlx-lm serve generating decoders; EmbeddingGemma (like BERT) is refused
/// there at `engine`, whatever the runner, rather than sized as a generation run with no cache.
#[test]
fn embeddinggemma_on_trtllm_and_mlx_is_refused_by_engine() {
    for engine in [Engine::Trtllm, Engine::Mlx] {
        let err = run(engine, Mode::Serve, EMBEDDINGGEMMA_300M)
            .resolve()
            .err()
            .unwrap();
        assert_eq!(
            (err.field.as_str(), err.kind),
            ("engine", ErrorKind::Unsupported),
            "{engine:?}"
        );
        assert!(err.accepted.contains("llamacpp"), "{}", err.accepted);
    }
}

/// Ollama runs the model as llama-server `--embedding` (one sequence, `-ub` min(2,048,
/// num_ctx)): llama.cpp's `gemma-embedding` keeps no KV cache there either. Ollama's library
/// tag (`embeddinggemma`) is not modelled: no citable page of its sizes was found offline.
#[test]
fn embeddinggemma_on_ollama_keeps_no_cache() {
    let e = estimate(&{
        let mut input = run(Engine::Ollama, Mode::Serve, EMBEDDINGGEMMA_300M);
        input.run.batch = 1.0;
        input.run.seq_len = 512.0;
        input.run.new_tokens = 0.0;
        input
    })
    .unwrap();
    assert_eq!(e.component_bytes(ComponentKind::KvCache), 0);
    assert_eq!(e.kv_bytes_per_token, 0);
    assert!(e.notes.iter().any(|n| n.key == "llamacpp_pooling"));
}
