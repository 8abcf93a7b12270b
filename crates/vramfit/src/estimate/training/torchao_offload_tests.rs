//! torchao's `CPUOffloadOptimizer` under torchtune on one GPU, and torchtune's distributed
//! recipes' FSDP2 by default, against hand calculations from the sources cited in
//! `torchao_offload.rs` and `workload/gpus.rs`, through the JSON face.

use crate::estimate::{ComponentKind as K, Estimate, EstimateInput, estimate};

/// Llama-3.1-8B: 8,030,261,248 parameters; its largest, the embedding and the untied head,
/// 128,256 × 4,096 = 525,336,576 each; its smallest, the RMSNorm weights, 4,096 each, not under
/// torchao's `minimal_size` of 4,096 (the test is `numel() < minimal_size`): every parameter is
/// offloaded.
const P: u64 = 8_030_261_248;
const EMBED: u64 = 128_256 * 4_096;

/// torchtune's full fine-tune of Llama-3.1-8B in pure bf16 (`dtype: bf16`), AdamW, with `extra`
/// JSON keys.
fn run(extra: &str) -> Estimate {
    let text = alloc::format!(
        r#"{{"model": "meta-llama/Llama-3.1-8B", "mode": "training", "stack": "torchtune",
            "precision": "bf16", "seq_len": 1024, "batch": 1{extra}}}"#
    );
    let input: EstimateInput = serde_json::from_str(&text).unwrap();
    estimate(&input).unwrap()
}

fn part(e: &Estimate, kind: K) -> u64 {
    e.components
        .iter()
        .filter(|c| c.key.kind == kind)
        .map(|c| c.bytes.get())
        .sum()
}

#[test]
fn torchao_offload_keeps_the_parameters_and_gradients_on_the_gpu() {
    let plain = run("");
    let e = run(r#", "offload": "optimizer-cpu""#);
    // The bf16 parameters stay: 8,030,261,248 × 2 B = 16,060,522,496 B; so do the gradients
    // (offload_gradients False: every gradient until zero_grad), bf16 as the parameters.
    assert_eq!(e.weights_bytes.get(), 16_060_522_496);
    assert_eq!(e.gradients_bytes.get(), 16_060_522_496);
    assert_eq!(e.weights_bytes, plain.weights_bytes);
    assert_eq!(e.gradients_bytes, plain.gradients_bytes);
    // AdamW's two bf16 moments, 4 B × P = 32,121,044,992 B, leave the GPU, and with them the
    // step (fused AdamW on the CPU).
    assert_eq!(plain.optimizer_bytes.get(), 4 * P);
    assert_eq!(e.optimizer_bytes.get(), 0);
    assert_eq!(part(&e, K::StepTemporaries), 0);
    // CPU memory: the pinned copy (2 B) and gradient (2 B) of each parameter and the moments
    // (4 B): 8 B × P = 64,242,089,984 B.
    assert_eq!(e.cpu_bytes.get(), 8 * P);
    assert!(e.total_bytes < plain.total_bytes);
}

#[test]
fn torchao_offload_gradients_keeps_two_gradients() {
    let e = run(r#", "offload": "cpu""#);
    // offload_gradients=True: the gradient built and the one being copied, the largest two
    // being the embedding's and the head's size: 2 × 525,336,576 × 2 B = 2,101,346,304 B.
    assert_eq!(e.gradients_bytes.get(), 2 * EMBED * 2);
    assert_eq!(e.weights_bytes.get(), 2 * P);
    assert_eq!(e.optimizer_bytes.get(), 0);
    assert_eq!(e.cpu_bytes.get(), 8 * P);
}

#[test]
fn offload_without_zero_is_refused_outside_torchtune_on_one_gpu() {
    // transformers' Trainer (no stack): the refusal names torchao's way.
    let text = r#"{"model": "meta-llama/Llama-3.1-8B", "mode": "training",
        "offload": "optimizer-cpu"}"#;
    let input: EstimateInput = serde_json::from_str(text).unwrap();
    let err = estimate(&input).unwrap_err();
    assert_eq!(err.field, "offload");
    #[cfg(any(feature = "en", not(feature = "zh")))]
    assert!(err.accepted.contains("CPUOffloadOptimizer"), "{err:?}");
    // torchtune on several GPUs shards with FSDP2, which has no optimizer-only offload.
    let text = r#"{"model": "meta-llama/Llama-3.1-8B", "mode": "training", "stack": "torchtune",
        "gpus": 8, "offload": "optimizer-cpu"}"#;
    let input: EstimateInput = serde_json::from_str(text).unwrap();
    assert_eq!(estimate(&input).unwrap_err().field, "offload");
}

#[test]
fn torchtune_on_several_gpus_shards_with_fsdp2_by_default() {
    let default = run(r#", "gpus": 8"#);
    let named = run(r#", "gpus": 8, "zero": 3, "fsdp_version": 2"#);
    // The same run as FSDP2's full shard named outright.
    assert_eq!(default.total_bytes, named.total_bytes);
    assert_eq!(default.components.len(), named.components.len());
    // By hand: every Llama-3.1-8B dim 0 (128,256, 4,096, 1,024, 14,336) divides by 8, so no
    // padding: weights and gradients 8,030,261,248 × 2 B / 8 = 2,007,565,312 B each, AdamW's
    // two bf16 moments 4 B × P / 8 = 4,015,130,624 B.
    assert_eq!(default.weights_bytes.get(), 2 * P / 8);
    assert_eq!(default.gradients_bytes.get(), 2 * P / 8);
    assert_eq!(default.optimizer_bytes.get(), 4 * P / 8);
    // Beside them the gathered units: at least the root (embedding, final norm, head:
    // 1,050,677,248 × 2 B) and one decoder layer (218,112,000 × 2 B) in bf16.
    let units = part(&default, K::ZeroBuffers);
    assert!(units >= (1_050_677_248 + 218_112_000) * 2, "{units}");
    // Whole copies (the count before) held 2 + 2 + 4 B × P of model states on every GPU.
    let states =
        default.weights_bytes.get() + default.gradients_bytes.get() + default.optimizer_bytes.get();
    assert_eq!(states, 8 * P / 8);
    // One GPU: torchtune's single-device recipe, nothing sharded.
    let one = run("");
    assert_eq!(one.weights_bytes.get(), 2 * P);
    assert_eq!(part(&one, K::ZeroBuffers), 0);
}
