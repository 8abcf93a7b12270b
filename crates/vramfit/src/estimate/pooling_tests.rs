//! Embedding and reranking runs (`runner: pooling`, issue 42), by hand and against vLLM
//! 0.33.0's and SGLang 0.5.23's source: an encoder (bge-m3) keeps no KV cache anywhere and has
//! no sampler; a pooling decoder (Qwen3-Embedding) keeps vLLM's KV pool, loses the sampler and,
//! in vLLM and transformers, its LM head.

use super::{ComponentKind, Engine, EstimateInput, Mode, RunnerType, estimate};
use super::{HardwareInput, ModelInput, RunInput};
use crate::config::encoder_tests::BGE_M3;
use crate::config::parse_config;
use crate::error::ErrorKind;
use crate::precision::Dtype;

/// Qwen/Qwen3-Embedding-8B's config.json (https://huggingface.co/Qwen/Qwen3-Embedding-8B,
/// `config.json` on the hub's main branch, June 2025 release): Qwen3-8B's shape with
/// `Qwen3ForCausalLM` named and untied embeddings, vocabulary 151,665.
const QWEN3_EMBEDDING_8B: &str = r#"{"architectures": ["Qwen3ForCausalLM"],
    "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151643, "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096,
    "initializer_range": 0.02, "intermediate_size": 12288, "max_position_embeddings": 40960,
    "max_window_layers": 36, "model_type": "qwen3", "num_attention_heads": 32,
    "num_hidden_layers": 36, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
    "rope_scaling": null, "rope_theta": 1000000, "sliding_window": null,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "use_cache": true,
    "use_sliding_window": false, "vocab_size": 151665}"#;

fn run(json: &str, engine: Engine, mode: Mode, runner: Option<RunnerType>) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            arch: Some(parse_config(json).unwrap().arch),
            ..Default::default()
        },
        run: RunInput {
            mode,
            engine,
            dtype: Some(Dtype::Fp16),
            batch: 32.0,
            seq_len: 512.0,
            new_tokens: 256.0,
            runner,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// bge-m3 in transformers (sentence-transformers' `encode`: `XLMRobertaModel`'s forward), 32 ×
/// 512 tokens in fp16, by hand:
/// - weights 567,754,752 × 2 B = 1,135,509,504 B;
/// - no KV cache (an encoder), no logits (the pooled hidden state), nothing generated (the 256
///   new tokens asked are taken as 0);
/// - one block's widest op per token: the residual and the LayerNorm's output 2 × 1024 × 2 B,
///   the FFN's up and GELU outputs 2 × 4096 × 2 B (wider than q, k, v and the attention output,
///   4 × 1024), and the norm's fp32 temporaries 2 × 1024 × 4 B: 4,096 + 16,384 + 8,192 =
///   28,672 B; × 16,384 tokens = 469,762,048 B (448 MiB; SDPA, no scores kept).
#[test]
fn bge_m3_in_transformers_by_hand() {
    let e = estimate(&run(BGE_M3, Engine::Hf, Mode::Inference, None)).unwrap();
    assert_eq!(e.component_bytes(ComponentKind::Weights), 1_135_509_504);
    assert_eq!(e.component_bytes(ComponentKind::KvCache), 0);
    assert_eq!(e.component_bytes(ComponentKind::Logits), 0);
    assert_eq!(e.component_bytes(ComponentKind::Activations), 469_762_048);
    // Nothing is decoded: the speed has a prefill and no decode figures.
    let t = e.throughput.unwrap();
    assert!(t.prefill_tokens_per_s.is_some());
    assert_eq!(t.decode_tokens_per_s, None);
    assert_eq!(t.decode_tokens_per_s_per_sequence, None);
}

/// bge-m3 under vLLM: `EncoderOnlyAttention` has no KV-cache spec (`Attention.get_kv_cache_spec`
/// returns None for ENCODER_ONLY, vllm/model_executor/layers/attention/attention.py lines
/// 619-620 at 0.33.0), so the engine sizes no pool (`has_kv_cache` false, vllm/v1/engine/core.py
/// lines 298-314); no sampler (`_dummy_pooler_run`); the steps cannot be chunked, so the
/// batched tokens are at least max_model_len. By hand: the forward per token is 28,672 − 8 ×
/// 1024 + 2 × 2 × 1024 = 24,576 B, × 8,192 batched tokens = 201,326,592 B; with max_model_len
/// 8,192 on a card whose default is 2,048 the step is still 8,192 tokens.
#[test]
fn bge_m3_in_vllm_has_no_pool_and_no_sampler() {
    let e = estimate(&run(BGE_M3, Engine::Vllm, Mode::Serve, None)).unwrap();
    assert_eq!(e.component_bytes(ComponentKind::KvCache), 0);
    assert_eq!(e.kv_cache_tokens, Some(0));
    assert_eq!(e.component_bytes(ComponentKind::Activations), 201_326_592);
    // The same run as a generate model would have held the sampler's logits: 1,024 sequences
    // × 250,002 entries × 4 B × 3.78 copies = 3.6 GiB.
    let small = estimate(&{
        let mut input = run(BGE_M3, Engine::Vllm, Mode::Serve, None);
        input.hardware.gpu = Some("rtx-4090".into());
        input.serving.max_model_len = Some(8192.0);
        input
    })
    .unwrap();
    assert_eq!(
        small.component_bytes(ComponentKind::Activations),
        201_326_592
    );
}

/// Qwen3-Embedding-8B: the base model is 7,567,295,488 parameters (transformers 5.24's
/// meta-device count of `Qwen3Model`; by hand 151,665 × 4096 = 621,219,840 embedding, 36 ×
/// 192,946,432 per layer (q 4096², k and v 2 × 4096 × 1024, o 4096², q/k norms 2 × 128, FFN 3
/// × 4096 × 12,288, two norms 2 × 4096) = 6,946,071,552, final norm 4,096). vLLM's pooling
/// adapter and transformers' `AutoModel` build no LM head; SGLang's `--is-embedding` keeps it
/// (151,665 × 4096 = 621,219,840 more: 8,188,515,328, the `Qwen3ForCausalLM` count). vLLM
/// keeps its KV pool (causal attention has a spec) and drops the sampler.
#[test]
fn qwen3_embedding_drops_the_head_where_the_engine_does() {
    let vllm = run(QWEN3_EMBEDDING_8B, Engine::Vllm, Mode::Serve, None);
    let pooled = {
        let mut input = vllm.clone();
        input.run.runner = Some(RunnerType::Pooling);
        input
    };
    let (generating, pool) = (estimate(&vllm).unwrap(), estimate(&pooled).unwrap());
    assert_eq!(generating.params, 8_188_515_328);
    assert_eq!(pool.params, 7_567_295_488);
    // The weights in fp16 and vLLM's rotary cos/sin cache, 40,960 positions × 128 × 2 B.
    assert_eq!(
        pool.component_bytes(ComponentKind::Weights),
        2 * 7_567_295_488 + 40_960 * 128 * 2
    );
    assert!(pool.component_bytes(ComponentKind::KvCache) > 0);
    // No sampler: the profile is the forward alone, smaller than the generate run's.
    assert!(
        pool.component_bytes(ComponentKind::Activations)
            < generating.component_bytes(ComponentKind::Activations)
    );
    let sglang = {
        let mut input = pooled.clone();
        input.run.engine = Engine::Sglang;
        input
    };
    assert_eq!(estimate(&sglang).unwrap().params, 8_188_515_328);
    let hf = EstimateInput {
        run: RunInput {
            engine: Engine::Hf,
            mode: Mode::Inference,
            ..pooled.run
        },
        ..pooled
    };
    let hf = estimate(&hf).unwrap();
    assert_eq!(hf.params, 7_567_295_488);
    assert_eq!(hf.component_bytes(ComponentKind::Logits), 0);
    // transformers' base model still builds a DynamicCache of the batch's keys and values:
    // `use_cache` comes from the config (True) and `Qwen3Model.forward` makes the cache
    // (transformers 5.24.0 models/qwen3/modeling_qwen3.py lines 377-378), alive until the
    // output is dropped. By hand: 36 layers × 2 × 8 heads × 128 × 2 B = 147,456 B per token,
    // × 32 × 512 tokens = 2,415,919,104 B.
    assert_eq!(hf.component_bytes(ComponentKind::KvCache), 2_415_919_104);
}

/// Refused by name: a pooling run where the engine runs none modelled, and `generate` with an
/// encoder.
#[test]
fn pooling_is_refused_where_not_modelled() {
    let err = |i: EstimateInput| i.resolve().err().unwrap();
    let trtllm = err(run(
        QWEN3_EMBEDDING_8B,
        Engine::Trtllm,
        Mode::Serve,
        Some(RunnerType::Pooling),
    ));
    assert_eq!(
        (trtllm.field.as_str(), trtllm.kind),
        ("runner", ErrorKind::Unsupported)
    );
    assert!(
        trtllm.problem.contains("TensorRT-LLM"),
        "{}",
        trtllm.problem
    );
    let generate = err(run(
        BGE_M3,
        Engine::Vllm,
        Mode::Serve,
        Some(RunnerType::Generate),
    ));
    assert_eq!(
        (generate.field.as_str(), generate.kind),
        ("runner", ErrorKind::Conflict)
    );
    // SGLang sizes a token pool for an encoder as for any model (it only leaves it
    // unwritten): refused rather than estimated without it, the unsafe side.
    let sglang = err(run(BGE_M3, Engine::Sglang, Mode::Serve, None));
    assert_eq!(
        (sglang.field.as_str(), sglang.kind),
        ("engine", ErrorKind::Unsupported)
    );
    assert!(sglang.problem.contains("SGLang"), "{}", sglang.problem);
}

/// The engines' own flags read back from a command line: vLLM `--runner pooling` (and its older
/// `--task embed`, `--convert embed`), SGLang `--is-embedding`.
#[test]
fn pooling_read_from_the_engines_flags() {
    let runner = |line: &str| crate::launch::read_command(line).unwrap().input.run.runner;
    let pooling = Some(RunnerType::Pooling);
    assert_eq!(runner("vllm serve BAAI/bge-m3 --runner pooling"), pooling);
    assert_eq!(runner("vllm serve BAAI/bge-m3 --task embed"), pooling);
    assert_eq!(
        runner("vllm serve Qwen/Qwen3-Embedding-8B --convert embed"),
        pooling
    );
    assert_eq!(
        runner("vllm serve Qwen/Qwen3-8B --runner generate"),
        Some(RunnerType::Generate)
    );
    assert_eq!(runner("vllm serve Qwen/Qwen3-8B"), None);
    assert_eq!(
        runner(
            "python -m sglang.launch_server --model-path Qwen/Qwen3-Embedding-8B --is-embedding"
        ),
        pooling
    );
}

/// The Qwen3-Embedding presets (issue 42). Their counts are transformers 5.25.0's meta-device
/// counts of their configs, and by hand from the Qwen3 presets of the same shape less the
/// vocabulary rows they drop: 0.6B 596,049,920 − (151,936 − 151,669) × 1024 = 595,776,512;
/// 4B 4,022,468,096 − (151,936 − 151,665) × 2560 = 4,021,774,336 (both heads tied). The 8B
/// preset estimates as its config.json does, and under vLLM's pooling runner the 0.6B is its
/// weights in bf16 and vLLM's rotary cos/sin cache (32,768 positions × 128 × 2 B), beside a KV
/// pool (a causal decoder keeps its cache, see `qwen3_embedding_drops_the_head_where_the_engine_does`).
#[test]
fn qwen3_embedding_presets_estimate_as_their_configs() {
    let preset = |id: &str| {
        let mut input = run(QWEN3_EMBEDDING_8B, Engine::Vllm, Mode::Serve, None);
        input.model.model = Some(id.into());
        input.model.arch = None;
        input.run.dtype = None;
        input.run.runner = Some(RunnerType::Pooling);
        input
    };
    let small = estimate(&preset("Qwen/Qwen3-Embedding-0.6B")).unwrap();
    assert_eq!(small.params, 595_776_512);
    assert_eq!(
        small.component_bytes(ComponentKind::Weights),
        2 * 595_776_512 + 32_768 * 128 * 2
    );
    assert!(small.component_bytes(ComponentKind::KvCache) > 0);
    assert_eq!(
        estimate(&preset("Qwen/Qwen3-Embedding-4B")).unwrap().params,
        4_021_774_336
    );
    let from_config = {
        let mut input = run(QWEN3_EMBEDDING_8B, Engine::Vllm, Mode::Serve, None);
        input.run.dtype = None;
        input.model.checkpoint_dtype = Some(Dtype::Bf16);
        input.run.runner = Some(RunnerType::Pooling);
        input
    };
    let (big, config) = (
        estimate(&preset("Qwen/Qwen3-Embedding-8B")).unwrap(),
        estimate(&from_config).unwrap(),
    );
    assert_eq!(big.params, 7_567_295_488);
    assert_eq!(big.components, config.components);
    assert_eq!(big.required_bytes, config.required_bytes);
}

/// A Qwen3-Embedding preset ships sentence-transformers' `modules.json`, so vLLM's `--runner
/// auto` pools it (`_get_default_runner_type`: "Some Sentence Transformers models use
/// *ForCausalLM archs", vllm/config/model.py at commit 18ec662): without `runner` it estimates
/// as `--runner pooling` does (595,776,512 parameters, no head). SGLang pools only with
/// `--is-embedding`, and Qwen3-8B (no pooling config) generates.
#[test]
fn vllm_pools_a_preset_that_ships_a_pooling_config_by_default() {
    let preset = |id: &str, engine: Engine, runner: Option<RunnerType>| {
        let mut input = run(QWEN3_EMBEDDING_8B, Engine::Vllm, Mode::Serve, None);
        input.model.model = Some(id.into());
        input.model.arch = None;
        input.run.engine = engine;
        input.run.runner = runner;
        input
    };
    let id = "Qwen/Qwen3-Embedding-0.6B";
    let auto = estimate(&preset(id, Engine::Vllm, None)).unwrap();
    let told = estimate(&preset(id, Engine::Vllm, Some(RunnerType::Pooling))).unwrap();
    assert_eq!(auto.components, told.components);
    assert_eq!(auto.throughput.unwrap().decode_tokens_per_s, None);
    let sglang = estimate(&preset(id, Engine::Sglang, None)).unwrap();
    assert!(sglang.throughput.unwrap().decode_tokens_per_s.is_some());
    let qwen3 = estimate(&preset("Qwen/Qwen3-8B", Engine::Vllm, None)).unwrap();
    assert!(qwen3.throughput.unwrap().decode_tokens_per_s.is_some());
}
