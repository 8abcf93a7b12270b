//! ggml's allocator replayed over a plain decoder's prompt graph (`llamacpp_alloc.rs`) against
//! the CUDA0 compute buffers five published llama.cpp loads print (`tests/data/llamacpp-
//! buffers.csv`, flash attention on, ubatch 512, the micro-batch of logits reserved). Shapes
//! from each model's config: hidden, heads × 128, K/V heads × 128, FFN width, vocabulary,
//! blocks.

use super::llamacpp_alloc::DenseGraph;

const MIB: f64 = 1_048_576.0;

#[allow(clippy::too_many_arguments)]
fn mib(hidden: u64, heads: u64, kv: u64, ffn: u64, vocab: u64, layers: u64, cells: u64) -> f64 {
    let g = DenseGraph {
        hidden,
        q_width: heads * 128,
        kv_width: kv * 128,
        ffn,
        vocab,
        layers,
        ubatch: 512,
        cells,
    };
    g.buffer() as f64 / MIB
}

/// The printed MiB, two decimals: the two that vramfit's output stage missed (Qwen2.5-7B at
/// b7780, `-c 32768`: 382.01 against 297.00 + 7.00 = 304.00; Mistral Nemo at b8133, `-c 4096`:
/// 304.01 against 256 + 10 = 266.00) and three it had.
#[test]
fn the_replay_prints_the_logged_buffers() {
    let cases = [
        // Kelsidavis/rusteze llama.log, b7780.
        (mib(3584, 28, 4, 18_944, 152_064, 28, 32_768), 382.01),
        // madcamp-2025w-week4/FSD, b7896, 4 unified slots.
        (mib(5120, 40, 8, 13_824, 152_064, 48, 32_768), 307.00),
        // Dahaka52/Nira-AI at f8d8d7a and 48e65bf, b8133.
        (mib(5120, 32, 8, 14_336, 131_072, 40, 8192), 266.00),
        (mib(5120, 32, 8, 14_336, 131_072, 40, 4096), 304.01),
        // chungers/motlie, Qwen3-4B.
        (mib(2560, 32, 8, 9728, 151_936, 36, 4096), 301.75),
    ];
    for (ours, logged) in cases {
        assert!((ours - logged).abs() < 0.005, "{ours:.3} against {logged}");
    }
}

/// The blocks repeat one layout, so fewer blocks give the same buffer; and the buffer is never
/// under the output stage alone, `ubatch × (n_vocab + hidden) × 4 B` (Nemo: 512 × 136,192 × 4 B
/// = 266 MiB), whatever the context.
#[test]
fn the_layout_repeats_and_never_undercuts_the_output() {
    let nemo = |layers, cells| mib(5120, 32, 8, 14_336, 131_072, layers, cells);
    assert_eq!(nemo(2, 4096), nemo(40, 4096));
    assert_eq!(nemo(2, 8192), nemo(40, 8192));
    for cells in [512, 1024, 4096, 8192, 32_768, 131_072] {
        let out = (512.0 * (131_072.0 + 5120.0) * 4.0) / MIB;
        assert!(nemo(3, cells) >= out, "{cells}");
    }
}

/// Through the estimate: b7780's Qwen2.5-7B Q8_0 load (`-c 32768 -ub 512`, flash attention,
/// every layer on the GPU) has the replayed 382.01 MiB compute buffer, its formula naming the
/// 78.01 MiB the allocator leaves below the output in both languages; at the latest build
/// (one output per sequence) nothing is replayed, and without flash attention neither.
#[test]
fn the_estimate_takes_the_replay_where_it_holds() {
    use crate::estimate::{
        AttentionImpl, ComponentKind, Engine, EstimateInput, ModelInput, RunInput, ServingInput,
        estimate,
    };
    use crate::precision::{GgufFileType, Quantization};
    let input = |build: &str, attention| EstimateInput {
        model: ModelInput {
            model: Some("Qwen/Qwen2.5-7B-Instruct".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q8_0,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            seq_len: 1.0,
            new_tokens: 0.0,
            attention,
            engine_version: Some(build.into()),
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(32_768.0),
            ubatch: 512.0,
            ..Default::default()
        },
        ..Default::default()
    };
    let compute = |i: &EstimateInput| {
        let e = estimate(i).unwrap();
        let c = e
            .components
            .into_iter()
            .find(|c| c.key.kind == ComponentKind::ComputeBuffer)
            .unwrap();
        (c.bytes.get() as f64 / MIB, c.formula, c.formula_zh)
    };
    let (mib, en, zh) = compute(&input("b7780", AttentionImpl::Flash));
    assert!((mib - 382.01).abs() < 0.005, "{mib}");
    assert!(en.contains("allocator") && en.contains("78.0"), "{en}");
    assert!(zh.contains("分配器") && zh.contains("78.0"), "{zh}");
    // 512 × (152,064 + 3,584) × 4 B = 304 MiB, the output stage alone.
    let (eager, en, _) = compute(&input("b7780", AttentionImpl::Eager));
    assert!(!en.contains("allocator"), "{en} {eager}");
    let (latest, en, _) = compute(&input("b10615", AttentionImpl::Flash));
    assert!(!en.contains("allocator"), "{en} {latest}");
}
