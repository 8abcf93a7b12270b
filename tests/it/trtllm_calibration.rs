//! TensorRT-LLM against its published start-up logs (`tests/data/trtllm-startup.csv`; where each
//! row comes from, and what was read of it, in `trtllm-startup.notes.md`).
//!
//! Two checks. The pool rule alone: from the free memory and the fraction a log prints, the
//! tokens it allocated (`free_gpu_memory_fraction × free ÷ bytes per token`, rounded up to whole
//! blocks). And the whole estimate, where a log names the model, the card and every setting:
//! the pool vramfit promises is never larger than the one TensorRT-LLM gave, and short of it by
//! at most 3 %.

use vramfit::estimate::{
    ComponentKind, Engine, EstimateInput, Mode, TRTLLM_TOKENS_PER_BLOCK, estimate,
    trtllm_pool_tokens,
};
use vramfit::estimate::{HardwareInput, ModelInput, RunInput, ServingInput};
use vramfit::precision::{KvDtype, Quantization};

const CSV: &str = include_str!("../data/trtllm-startup.csv");
const GIB: f64 = (1u64 << 30) as f64;

/// A logged pool: its CSV row's source, the free memory and fraction it printed, the bytes of a
/// token's keys and values, the block size, and the tokens it allocated.
struct LoggedPool {
    source: &'static str,
    free_gib: f64,
    fraction: f64,
    per_token: u64,
    tokens_per_block: u64,
    tokens: u64,
}

/// The rows that print both the free memory and the pool. Free memory is printed to 0.01 GiB, so
/// the budget is known to ±0.005 GiB × fraction: the pool must come out within one block.
const POOLS: &[LoggedPool] = &[
    // memory.md FAQ, H100, 8-bit KV of a 7B (262,144 B a token), 4,060 blocks of 64.
    LoggedPool {
        source: "docs/source/reference/memory.md",
        free_gib: 70.48,
        fraction: 0.9,
        per_token: 262_144,
        tokens_per_block: 64,
        tokens: 4060 * 64,
    },
    // Issue 2268: Qwen1.5-7B, fp16 KV (2 × 32 × 32 × 128 × 2 B), 631 blocks of 64.
    LoggedPool {
        source: "issues/2268",
        free_gib: 21.89,
        fraction: 0.9,
        per_token: 524_288,
        tokens_per_block: 64,
        tokens: 631 * 64,
    },
    // tensorrtllm_backend's multimodal doc: LLaVA, fp8 KV at tp 2 (2 × 32 × 32 × 128 × 1 B / 2).
    LoggedPool {
        source: "tensorrtllm_backend/blob/05ceae03c28c855c8520ba8429659b9d01c5f783/docs/multimodal.md",
        free_gib: 85.57,
        fraction: 0.9,
        per_token: 262_144,
        tokens_per_block: 32,
        tokens: 315_488,
    },
];

#[test]
fn the_pool_rule_gives_the_logged_pools() {
    for p in POOLS {
        assert!(CSV.contains(p.source), "{} is a row of the CSV", p.source);
        let budget = |gib: f64| (gib * GIB * p.fraction) as u64;
        let lo = trtllm_pool_tokens(budget(p.free_gib - 0.005), p.per_token, p.tokens_per_block);
        let hi = trtllm_pool_tokens(budget(p.free_gib + 0.005), p.per_token, p.tokens_per_block);
        assert!(
            (lo..=hi).contains(&p.tokens),
            "{}: {lo} to {hi} tokens, logged {}",
            p.source,
            p.tokens
        );
    }
}

/// Issue 6294 (TensorRT-LLM 0.20.0, PyTorch backend): Llama-3.1-8B-Instruct-FP8 on an H100 at
/// `free_gpu_memory_fraction` 0.8, `max_num_tokens` 23,552, `max_batch_size` 4,096,
/// `max_seq_len` 157, its fp8 KV cache from the checkpoint: 860,320 tokens (52.51 GiB).
#[test]
fn the_pool_is_never_larger_than_trtllms_own() {
    assert!(CSV.contains("issues/6294") && CSV.contains("860320 tokens"));
    let e = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            quantization: Quantization::Fp8,
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Trtllm,
            kv_dtype: KvDtype::Fp8,
            ..Default::default()
        },
        serving: ServingInput {
            free_gpu_memory_fraction: Some(0.8),
            max_num_batched_tokens: Some(23_552.0),
            max_num_seqs: Some(4096.0),
            max_model_len: Some(157.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let logged = 860_320;
    let ours = e.kv_cache_tokens.unwrap();
    assert!(
        ours <= logged,
        "{ours} tokens promised, TensorRT-LLM gave {logged}"
    );
    assert!(
        ours as f64 >= 0.97 * logged as f64,
        "{ours} against {logged}"
    );
    assert_eq!(ours % TRTLLM_TOKENS_PER_BLOCK, 0);
    // The weights as the log prints them: "Rank 0 uses 8.46 GB for model weights".
    let weights = e
        .components
        .iter()
        .find(|c| c.key == ComponentKind::Weights)
        .unwrap()
        .bytes;
    assert_eq!(format!("{:.2}", weights.get() as f64 / GIB), "8.46");
}
