//! llama.cpp's KV cache split by sequence (`llamacpp_build.rs`, PR #14363), checked by hand:
//! gpt-oss-20b keeps K and V of 8 KV heads × 64 values in its 24 layers, 12 of them full
//! attention and 12 sliding over a window of 128 tokens: 2 × 8 × 64 = 1,024 values, 2,048 B in
//! f16, per token per layer.

use crate::estimate::{
    Engine, Estimate, EstimateInput, HardwareInput, ModelInput, RunInput, ServingInput, estimate,
};
use crate::precision::{GgufFileType, Quantization};

/// One token's K and V in one gpt-oss-20b layer, f16.
const PER_CELL: u64 = 2 * 8 * 64 * 2;

fn gpt_oss(ctx: f64, seqs: f64, build: &str, kv_unified: Option<bool>) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("openai/gpt-oss-20b".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            seq_len: 1.0,
            new_tokens: 0.0,
            batch: seqs,
            engine_version: Some(build.into()),
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(ctx),
            ubatch: 512.0,
            kv_unified,
            ..Default::default()
        },
        ..Default::default()
    }
}

fn kv(input: &EstimateInput) -> u64 {
    estimate(input).unwrap().kv_cache_bytes.get()
}

/// `llama-server -c 8192 -np 4 -ub 512`, f16 KV. Split (the default with -np given): each of
/// the 4 streams holds GGML_PAD(8,192 / 4, 256) = 2,048 cells in a full layer and
/// GGML_PAD(min(2,048, 128 + 512), 256) = 768 in a sliding one: 4 × (12 × 2,048 + 12 × 768) ×
/// 2,048 B = 276,824,064 B (264 MiB: 192 full, 72 sliding). With `--kv-unified`: 12 × 8,192 +
/// 12 × GGML_PAD(128 × 4 + 512, 256) = 1,024 cells, × 2,048 B = 226,492,416 B (216 MiB), as
/// every build before b5913 has it whatever the flag.
#[test]
fn four_streams_keep_a_window_each() {
    let split = 4 * (12 * 2048 + 12 * 768) * PER_CELL;
    assert_eq!(split, 276_824_064);
    let unified = (12 * 8192 + 12 * 1024) * PER_CELL;
    assert_eq!(unified, 226_492_416);
    assert_eq!(kv(&gpt_oss(8192.0, 4.0, "b10615", None)), split);
    assert_eq!(kv(&gpt_oss(8192.0, 4.0, "b10615", Some(false))), split);
    assert_eq!(kv(&gpt_oss(8192.0, 4.0, "b10615", Some(true))), unified);
    assert_eq!(kv(&gpt_oss(8192.0, 4.0, "b5912", None)), unified);
    assert_eq!(kv(&gpt_oss(8192.0, 4.0, "b5912", Some(false))), unified);
    assert_eq!(kv(&gpt_oss(8192.0, 4.0, "b5913", None)), split);
    // One sequence is one stream either way.
    assert_eq!(
        kv(&gpt_oss(8192.0, 1.0, "b10615", None)),
        kv(&gpt_oss(8192.0, 1.0, "b10615", Some(true)))
    );
}

/// A context that does not divide: `-c 10000 -np 3`. llama.cpp pads n_ctx to 10,240, gives
/// each stream GGML_PAD(10,240 / 3 = 3,413, 256) = 3,584 full-attention cells (10,752 in all,
/// 752 more than asked) and 768 sliding ones: 3 × (12 × 3,584 + 12 × 768) × 2,048 B =
/// 320,864,256 B (306 MiB). The formula says the streams.
#[test]
fn each_stream_is_padded_to_256_cells() {
    let split = 3 * (12 * 3584 + 12 * 768) * PER_CELL;
    assert_eq!(split, 320_864_256);
    let e: Estimate = estimate(&gpt_oss(10_000.0, 3.0, "b10615", None)).unwrap();
    assert_eq!(e.kv_cache_bytes.get(), split);
    let c = e
        .components
        .iter()
        .find(|c| c.key.kind == crate::estimate::ComponentKind::KvCache)
        .unwrap();
    #[cfg(feature = "en")]
    assert!(
        c.formula
            .starts_with("3 streams (one per sequence, without --kv-unified) × ")
            && c.formula.contains("3584 context"),
        "{}",
        c.formula
    );
    #[cfg(not(feature = "en"))]
    let _ = c;
}

/// Ollama from 0.30 starts `llama-server -c num_ctx×parallel -np parallel` without
/// `--kv-unified` (ollama/ollama `llm/llama_server.go`, `startLlamaServer`, at f427fa075): its KV
/// cache is split. num_ctx 8,192 × 2 parallel on an H100, Ollama's automatic ubatch 1,024
/// (context above 4,096): 2 streams × (12 × 8,192 + 12 × GGML_PAD(128 + 1,024, 256) = 1,280) ×
/// 2,048 B = 465,567,744 B (444 MiB). Its Go runner before 0.30 is counted as one cache:
/// 12 × 16,384 + 12 × GGML_PAD(128 × 2 + 512, 256) = 768, × 2,048 B = 421,527,552 B (402 MiB).
#[test]
fn ollama_from_0_30_splits_its_cache_by_sequence() {
    let ollama = |v: &str| {
        estimate(&EstimateInput {
            model: ModelInput {
                model: Some("openai/gpt-oss-20b".into()),
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Ollama,
                engine_version: Some(v.into()),
                batch: 2.0,
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
        .unwrap()
        .kv_cache_bytes
        .get()
    };
    let split = 2 * (12 * 8192 + 12 * 1280) * PER_CELL;
    assert_eq!(split, 465_567_744);
    assert_eq!(ollama("0.30.0"), split);
    assert_eq!(ollama("0.32.7"), split);
    let one = (12 * 16_384 + 12 * 768) * PER_CELL;
    assert_eq!(one, 421_527_552);
    assert_eq!(ollama("0.24.0"), one);
}

/// `kv_unified` is llama-server's flag: Ollama and the other engines refuse it, naming the field.
#[test]
fn kv_unified_is_llama_cpps_alone() {
    for engine in [Engine::Ollama, Engine::Vllm] {
        let e = estimate(&{
            let mut input = gpt_oss(8192.0, 2.0, "b10615", Some(true));
            input.run.engine = engine;
            input.run.engine_version = None;
            input.model.quantization = Quantization::None;
            input
        })
        .unwrap_err();
        assert_eq!(e.field, "kv_unified", "{engine:?}");
        assert_eq!(e.kind, crate::error::ErrorKind::Unsupported, "{engine:?}");
    }
}

/// `kv_unified_per_slot` without `max_model_len`, as llama-server's `--kv-unified-per-slot N`
/// without `-c` ("the shared KV pool is sized to n_parallel*N", `common/arg.cpp`,
/// ggml-org/llama.cpp#24124): 4 slots of 2,048 are the unified 8,192-token pool above,
/// 226,492,416 B; with `max_model_len` given it only caps each slot and the cache is `-c`'s.
#[test]
fn kv_unified_per_slot_sizes_the_pool_without_a_context() {
    let per_slot = |ctx: Option<f64>, n: f64| {
        let mut input = gpt_oss(0.0, 4.0, "b10615", Some(true));
        input.serving.max_model_len = ctx;
        input.serving.kv_unified_per_slot = Some(n);
        input
    };
    assert_eq!(kv(&per_slot(None, 2048.0)), 226_492_416);
    assert_eq!(
        kv(&per_slot(None, 2048.0)),
        kv(&gpt_oss(8192.0, 4.0, "b10615", Some(true)))
    );
    // With -c 16,384 a cap of 2,048 holds nothing: 12 × 16,384 + 12 × 1,024 cells × 2,048 B.
    assert_eq!(
        kv(&per_slot(Some(16_384.0), 2048.0)),
        (12 * 16_384 + 12 * 1_024) * PER_CELL
    );
}

/// `kv_unified_per_slot` checked: an integer from 1 (and from one sequence's `seq_len +
/// new_tokens`, which a capped slot must hold), a pool of at most 16 M tokens, llama.cpp's alone;
/// each error names the field.
#[test]
fn kv_unified_per_slot_is_checked() {
    use crate::error::ErrorKind::{Conflict, NotANumber, OutOfRange, Unsupported};
    let err = |input: EstimateInput| estimate(&input).unwrap_err();
    let with = |n: f64| {
        let mut input = gpt_oss(0.0, 4.0, "b10615", None);
        input.serving.max_model_len = None;
        input.serving.kv_unified_per_slot = Some(n);
        input
    };
    for (n, kind) in [
        (0.0, OutOfRange),
        (-1.0, OutOfRange),
        (1.5, NotANumber),
        (f64::NAN, NotANumber),
        (f64::INFINITY, NotANumber),
        // 4 slots of 8,388,608 tokens: 32 M, over the 16 M a context may be.
        (8_388_608.0, OutOfRange),
    ] {
        let e = err(with(n));
        assert_eq!(
            (e.field.as_str(), e.kind),
            ("kv_unified_per_slot", kind),
            "{n}"
        );
    }
    // A slot of 1,000 tokens holds no sequence of 1,024 + 512.
    let e = err({
        let mut input = with(1000.0);
        input.run.seq_len = 1024.0;
        input.run.new_tokens = 512.0;
        input
    });
    assert_eq!(
        (e.field.as_str(), e.kind),
        ("kv_unified_per_slot", Conflict)
    );
    assert!(alloc::format!("{e}").contains("1536"), "{e}");
    for engine in [Engine::Ollama, Engine::Vllm] {
        let e = err({
            let mut input = with(2048.0);
            input.run.engine = engine;
            input.run.engine_version = None;
            input.model.quantization = Quantization::None;
            input
        });
        assert_eq!(
            (e.field.as_str(), e.kind),
            ("kv_unified_per_slot", Unsupported),
            "{engine:?}"
        );
    }
}
