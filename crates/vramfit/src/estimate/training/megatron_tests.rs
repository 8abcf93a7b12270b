//! Megatron-Core's activations and cross-entropy by hand (Llama-3.1-8B: h 4,096, 32 query
//! heads and 8 KV heads of 128, SwiGLU ffn 14,336, 32 layers, RoPE, vocabulary 128,256; bf16).

use crate::estimate::{
    Checkpointing, ComponentKind as K, Estimate, EstimateInput, Mode, Precision, estimate,
};

/// Per token per layer, tp 1: the two norms' inputs and outputs 4 × 2 × 4,096 = 32,768 and two
/// dropout masks 2 × 4,096 = 8,192 → whole 40,960; attention: the fused QKV output
/// 2 × (4,096 + 2 × 1,024) = 12,288, the rotated q and k 2 × (4,096 + 1,024) = 10,240, the
/// output 2 × 4,096 = 8,192, the log-sum-exp 4 × 32 = 128; SwiGLU 2 × 3 × 14,336 = 86,016 →
/// split 116,864.
const WHOLE: u64 = 40_960;
const SPLIT: u64 = 116_864;
/// The embedding's dropout mask 4,096 (× pp) and the final norm's input and output 16,384.
const MASK: u64 = 4_096;
const FINAL_NORM: u64 = 16_384;

fn run(tp: f64, pp: f64, gpus: f64, ckpt: Checkpointing) -> EstimateInput {
    EstimateInput {
        arch: Some(crate::model::tests::llama31_8b()),
        mode: Mode::Training,
        precision: Precision::AmpBf16,
        batch: 1.0,
        seq_len: 4096.0,
        tp,
        pp,
        gpus: Some(gpus),
        sequence_parallel: true,
        grad_checkpointing: ckpt,
        distributed_optimizer: true,
        ..EstimateInput::default()
    }
}

fn part(e: &Estimate, kind: K) -> u64 {
    e.components
        .iter()
        .filter(|c| c.key.kind == kind)
        .map(|c| c.bytes.get())
        .sum()
}

#[test]
fn llama8b_tp2_selective_sp_by_hand() {
    // tp 2 with sequence parallelism: every term / 2: (40,960 + 116,864) / 2 = 78,912 B per token
    // per layer (Korthikanti's 34 s b h / t, at 38.5 h here: GQA, RoPE's copies, SwiGLU's
    // three ffn-wide tensors); 32 layers 2,525,184; edges (4,096 + 16,384) / 2 = 10,240;
    // × 4,096 tokens = 10,385,096,704 B.
    let e = estimate(&run(2.0, 1.0, 2.0, Checkpointing::Selective)).unwrap();
    let per_token = (WHOLE + SPLIT) / 2 * 32 + (MASK + FINAL_NORM) / 2;
    assert_eq!(per_token, 2_535_424);
    assert_eq!(e.activations_bytes.get(), 4096 * per_token);
    assert_eq!(e.activations_bytes.get(), 10_385_096_704);
    // The cross-entropy: 4,096 tokens × 128,256 × 6 B / 2 = 1,575,960,576, which the estimate
    // rounds up to a 512 KiB multiple, 1,576,009,728 (1,503 MiB).
    assert_eq!(
        part(&e, K::Logits),
        1_575_960_576u64.next_multiple_of(1 << 19)
    );
}

#[test]
fn sequence_parallel_off_keeps_norms_and_masks_whole() {
    // Korthikanti's 10 s b h + 24 s b h / t: the whole part stays on every rank.
    let i = EstimateInput {
        sequence_parallel: false,
        // Another Megatron setting, so the run is Megatron's without sequence parallelism.
        ..run(2.0, 1.0, 2.0, Checkpointing::Selective)
    };
    let e = estimate(&i).unwrap();
    let per_token = (WHOLE + SPLIT / 2) * 32 + MASK + FINAL_NORM;
    assert_eq!(e.activations_bytes.get(), 4096 * per_token);
}

#[test]
fn full_recompute_keeps_layer_inputs_and_one_layer() {
    // `--recompute-granularity full --recompute-method uniform --recompute-num-layers 1`: each
    // layer's input 2 × 4,096 / 2 = 4,096 B per token × 32 + the edges 10,240 → 141,312 × 4,096
    // = 578,813,952 B kept; in backward one layer recomputed, 4,096 × 78,912 = 323,223,552.
    let e = estimate(&run(2.0, 1.0, 2.0, Checkpointing::Full)).unwrap();
    let kept = 4096 * (4096 * 32 + 10_240);
    assert_eq!(kept, 578_813_952);
    assert_eq!(e.activations_bytes.get(), kept);
    // The recomputed layer is alive only once the loss's tensors (1,575,960,576 B) are freed:
    // the end of forward holds the larger, the logits, and the total does not add the layer.
    let alive: u64 = e
        .components
        .iter()
        .filter(|c| c.key.at_peak && c.torch)
        .map(|c| c.bytes.get())
        .sum();
    assert!(alive >= e.peak_allocated_bytes.get());
}

#[test]
fn pipeline_holds_pp_micro_batches_and_interleaving_its_factor() {
    // pp 4, tp 1: the first stage's 8 layers × 4 micro-batches = 32 layers' worth, and 4
    // embedding masks: (157,824 × 32 + 4 × 4,096 + 16,384) × 4,096.
    let plain = estimate(&run(1.0, 4.0, 4.0, Checkpointing::Selective)).unwrap();
    let per_token = (WHOLE + SPLIT) * 32 + 4 * MASK + FINAL_NORM;
    assert_eq!(plain.activations_bytes.get(), 4096 * per_token);
    // vp 2: × (1 + 3/8) = 11/8 (Megatron's interleaved_schedule_memory_penalty).
    let vp = estimate(&EstimateInput {
        vp: Some(2.0),
        ..run(1.0, 4.0, 4.0, Checkpointing::Selective)
    })
    .unwrap();
    assert_eq!(
        vp.activations_bytes.get(),
        (4096 * per_token * 11).div_ceil(8)
    );
}

#[test]
fn context_parallel_halves_the_tokens() {
    let e = estimate(&EstimateInput {
        cp: Some(2.0),
        ..run(2.0, 1.0, 4.0, Checkpointing::Selective)
    })
    .unwrap();
    assert_eq!(e.activations_bytes.get(), 2048 * 2_535_424);
    assert_eq!(
        part(&e, K::Logits),
        (2048 * 128_256 * 6 / 2u64).next_multiple_of(1 << 19)
    );
}
