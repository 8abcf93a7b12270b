//! llama.cpp's embedding and reranking runs (`llama-server --embedding`, issue 42), by hand
//! against the rules read in llama.cpp's source (`llamacpp_pooling.rs`): an encoder keeps no
//! KV cache and attends over its ubatch alone, every token of the ubatch is an output, a
//! decoder keeps its cache and its output matrix.

use super::{ComponentKind, Engine, EstimateInput, Mode, RunnerType, estimate};
use super::{HardwareInput, ModelInput, RunInput, ServingInput};
use crate::error::ErrorKind;
use crate::precision::{GgufFileType, Quantization};

/// `llama-server -m FILE-F16.gguf --embedding -ub UBATCH` on an H100, one sequence of
/// `seq_len` tokens.
fn llamacpp(model: &str, seq_len: f64, ubatch: f64, runner: Option<RunnerType>) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some(model.into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::F16,
            },
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Llamacpp,
            batch: 1.0,
            seq_len,
            new_tokens: 0.0,
            runner,
            ..Default::default()
        },
        serving: ServingInput {
            ubatch,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// bge-m3 (XLM-RoBERTa, llama.cpp's `bert` architecture) in F16, inputs of 512 tokens, -ub 512,
/// by hand:
/// - weights on the GPU: the 24 blocks, each q, k, v, o (4 × 1024²) and up, down (2 × 1024 ×
///   4096) in f16 = 25,165,824 B and its 13,312 bias and norm values in f32 = 53,248 B, so
///   24 × 25,219,072 = 605,257,728 B, and the output-side vectors (embedding norm 2,048 and the
///   pooler's bias 1,024, f32) 12,288 B: 605,270,016 B. The word, position and token-type
///   embeddings stay in CPU memory (llama.cpp's input layer);
/// - no KV cache (`create_memory` returns none for `LLM_ARCH_BERT`);
/// - compute buffer: the attention spans the ubatch alone, so the mask is 512 × 512 × 2 B
///   (f16, flash attention) = 524,288 B, the token embeddings 512 × 1024 × 4 B = 2,097,152 B,
///   and the feed-forward stage 512 × (3 × 1024 + 3 × 4096) × 4 B = 31,457,280 B: 34,078,720
///   B (32.5 MiB), above the output, every token's embedding 512 × 1024 × 4 B = 2 MiB (an
///   encoder has no output matrix: no logits).
#[test]
fn bge_m3_on_llamacpp_keeps_no_cache_by_hand() {
    let e = estimate(&llamacpp("BAAI/bge-m3", 512.0, 512.0, None)).unwrap();
    assert_eq!(e.component_bytes(ComponentKind::Weights), 605_270_016);
    assert_eq!(e.component_bytes(ComponentKind::KvCache), 0);
    assert_eq!(e.component_bytes(ComponentKind::ComputeBuffer), 34_078_720);
    // The encoder pools with no runner given, as on every engine that runs it.
    let given = estimate(&llamacpp(
        "BAAI/bge-m3",
        512.0,
        512.0,
        Some(RunnerType::Pooling),
    ))
    .unwrap();
    assert_eq!(given.total_bytes, e.total_bytes);
    assert!(e.notes.iter().any(|n| n.key == "llamacpp_pooling"));
}

/// An encoder's input is one ubatch: bge-m3's 8,192-token inputs are refused under -ub 512
/// (llama-server: "input is too large to process. increase the physical batch size"), named by
/// the `-ub` they need; under -ub 8192 the compute buffer is, by hand, the mask 8192 × 8192 ×
/// 2 B = 134,217,728 B, the token embeddings 8192 × 1024 × 4 B = 33,554,432 B and the
/// feed-forward stage 8192 × (3 × 1024 + 3 × 4096) × 4 B = 503,316,480 B: 671,088,640 B (640
/// MiB), the mask growing with the square of -ub.
#[test]
fn an_encoder_input_must_fit_one_ubatch() {
    let err = llamacpp("BAAI/bge-m3", 8192.0, 512.0, None)
        .resolve()
        .err()
        .unwrap();
    assert_eq!(
        (err.field.as_str(), err.kind),
        ("ubatch", ErrorKind::Conflict)
    );
    assert!(err.accepted.contains("-ub 8192"), "{}", err.accepted);
    let e = estimate(&llamacpp("BAAI/bge-m3", 8192.0, 8192.0, None)).unwrap();
    assert_eq!(e.component_bytes(ComponentKind::KvCache), 0);
    assert_eq!(e.component_bytes(ComponentKind::ComputeBuffer), 671_088_640);
}

/// Qwen3-Embedding-0.6B (a `qwen3` GGUF, a causal decoder) under `--embedding`, -c 512 -ub 512,
/// by hand:
/// - the KV cache as for generation: (8 KV heads × 128) × 2 values × 28 layers × 512 cells ×
///   2 B (f16) = 58,720,256 B (56 MiB);
/// - the compute buffer: every token of the ubatch an output (`server_n_outputs_max` is
///   `n_batch` with `--embedding`) and the output matrix still in the graph (llama.cpp issue
///   #24713: in embeddings mode the LM head runs on every architecture but llama), so 512 ×
///   (151,669 logits + 1024) × 4 B = 312,715,264 B (298.23 MiB), where generation reserves
///   one output per sequence: 1 × 152,693 × 4 B = 610,772 B, below its feed-forward stage,
///   (mask 512 × 512 × 2 B + embeddings 512 × 1024 × 4 B) + 512 × (3 × 1024 + 3 × 3072) × 4
///   B = 2,621,440 + 25,165,824 = 27,787,264 B.
#[test]
fn qwen3_embedding_on_llamacpp_keeps_its_cache_and_outputs_every_token() {
    let model = "Qwen/Qwen3-Embedding-0.6B";
    let pooled = estimate(&llamacpp(model, 512.0, 512.0, Some(RunnerType::Pooling))).unwrap();
    assert_eq!(pooled.component_bytes(ComponentKind::KvCache), 58_720_256);
    assert_eq!(
        pooled.component_bytes(ComponentKind::ComputeBuffer),
        312_715_264
    );
    // Not pooled unless told (`llama-server` generates without `--embedding`).
    let generated = estimate(&llamacpp(model, 512.0, 512.0, None)).unwrap();
    assert_eq!(
        generated.component_bytes(ComponentKind::KvCache),
        58_720_256
    );
    assert_eq!(
        generated.component_bytes(ComponentKind::ComputeBuffer),
        27_787_264
    );
    // A causal decoder reads its input over several ubatches: no ubatch check.
    assert!(
        llamacpp(model, 8192.0, 512.0, Some(RunnerType::Pooling))
            .resolve()
            .is_ok()
    );
}

/// llama.cpp's own flags read back (`--embedding`, `--embeddings`, `--reranking`, `--pooling`
/// with its types from `common/arg.cpp`), and the launch written for a pooling run: `-ub` and
/// `--embedding`, which reads back as the same run.
#[test]
fn llama_server_embedding_flags_read_and_written() {
    let runner = |line: &str| crate::launch::read_command(line).unwrap().input.run.runner;
    let pooling = Some(RunnerType::Pooling);
    for line in [
        "llama-server -m bge-m3-F16.gguf --embedding",
        "llama-server -m bge-m3-F16.gguf --embeddings --pooling cls",
        "llama-server -m bge-reranker-v2-m3-F16.gguf --reranking",
        "llama-server -m qwen3-embedding-0.6b-F16.gguf --pooling last",
        "llama-server -m bge-reranker-v2-m3-F16.gguf --pooling rank",
    ] {
        assert_eq!(runner(line), pooling, "{line}");
    }
    assert_eq!(
        runner("llama-server -m qwen3-0.6b.gguf --pooling none"),
        None
    );
    let bad = crate::launch::read_command("llama-server -m x.gguf --pooling max")
        .err()
        .unwrap();
    assert_eq!(bad.kind, ErrorKind::UnknownName);
    assert!(bad.accepted.contains("rank"), "{}", bad.accepted);

    let run = llamacpp("BAAI/bge-m3", 8192.0, 8192.0, None);
    let l = crate::launch::launch(&run.resolve().unwrap()).unwrap();
    let words = &l.commands[0];
    assert!(words.iter().any(|w| w == "--embedding"), "{words:?}");
    let ub = words.iter().position(|w| w == "-ub").unwrap();
    assert_eq!(words[ub + 1], "8192");
    let back = crate::launch::read_command(&words.join(" ")).unwrap().input;
    assert_eq!((back.run.runner, back.serving.ubatch), (pooling, 8192.0));
    // A generation run writes no `--embedding`.
    let generate = llamacpp("Qwen/Qwen3-Embedding-0.6B", 512.0, 512.0, None);
    let l = crate::launch::launch(&generate.resolve().unwrap()).unwrap();
    assert!(!l.commands[0].iter().any(|w| w == "--embedding"));
}

/// bge-m3 F16 on Ollama with `OLLAMA_NUM_PARALLEL=4` on an H100, by hand against Ollama
/// v0.33.0-rc2's source (`server/sched.go`: an embedding model loads with parallel 1;
/// `llm/llama_server.go`: llama-server `--embedding -b N -ub N`, N = min(2048, num_ctx)):
/// - num_ctx: the H100's 262,144 bound by the trained 8,192, for one sequence, so -ub 2048;
/// - what runs: the weights as on llama.cpp (605,270,016 B), no KV cache, and the compute
///   buffer of the vendored build Ollama's plan models, without flash attention (Ollama runs
///   it only when asked): attention over the ubatch alone 2048 × 2048 × (16 heads + mask) × 4
///   B = 285,212,672 B + 4 × 2048 × 1024 × 4 B = 33,554,432 B: 318,767,104 B (304 MiB), above
///   the feed-forward 2048 × (4 × 1024 + 2 × 4096) × 4 B = 100,663,296 B;
/// - Ollama's own plan (v0.12.5's `GraphSize`, `bert` has no formula): KV 2 × (64 × 16) × 24
///   layers × 8,192 × 2 B = 805,306,368 B, the fallback graph GQA 1 × KV / 6 = 134,217,728 B,
///   for a context of 8,192 (parallel 1, not the 4 asked);
/// - an input over the 2,048-token batch is refused by name (`seq_len`).
///
/// That is Ollama's Go runner (0.24 and before, `--engine-version 0.24.0`). From 0.30 Ollama
/// runs llama-server of a pinned llama.cpp build with flash attention `auto` (on) and one output
/// per sequence reserved (bge-m3 pools, so every token of the ubatch is one): the block's stage
/// leads, 2048 × (3 × 1024 + 3 × 4096) × 4 B = 125,829,120 B of feed-forward, beside the f16
/// mask over the ubatch alone 2048 × 2048 × 2 B = 8,388,608 B and the embeddings copied in
/// 2048 × 1024 × 4 B = 8,388,608 B: 142,606,336 B (136 MiB).
#[test]
fn bge_m3_on_ollama_by_hand() {
    let mut i = llamacpp("BAAI/bge-m3", 512.0, 512.0, None);
    i.run.engine = Engine::Ollama;
    i.run.batch = 4.0;
    let latest = estimate(&i).unwrap();
    assert_eq!(latest.component_bytes(ComponentKind::KvCache), 0);
    assert_eq!(
        latest.component_bytes(ComponentKind::ComputeBuffer),
        142_606_336
    );
    assert!(latest.notes.iter().any(|n| n.key == "ollama_embedding"));
    i.run.engine_version = Some("0.24.0".into());
    let e = estimate(&i).unwrap();
    assert_eq!(e.component_bytes(ComponentKind::Weights), 605_270_016);
    assert_eq!(e.component_bytes(ComponentKind::KvCache), 0);
    assert_eq!(e.component_bytes(ComponentKind::ComputeBuffer), 318_767_104);
    let plan = e.ollama.unwrap();
    assert_eq!(plan.kv_bytes.get(), 805_306_368);
    assert_eq!(plan.graph_bytes.get(), 134_217_728);
    assert_eq!(plan.context, 8192);
    assert!(e.notes.iter().any(|n| n.key == "ollama_embedding"));
    i.run.seq_len = 4096.0;
    let err = i.resolve().err().unwrap();
    assert_eq!(
        (err.field.as_str(), err.kind),
        ("seq_len", ErrorKind::Conflict)
    );
    assert!(err.accepted.contains("2048"), "{}", err.accepted);
}
