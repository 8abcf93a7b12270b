//! FSDP's mixed-precision `reduce_dtype` against a hand calculation from PyTorch 2.15's
//! `torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py` (`foreach_reduce`: the unit's
//! unsharded gradients, in `param_dtype`, copied into a `reduce_scatter_input` allocated in
//! `reduce_dtype`, then cleared after the copy-in), through the JSON face.

use crate::estimate::{ComponentKind as K, Estimate, EstimateInput, Phase, estimate};

/// Llama-3.1-8B's root unit (embedding, final norm, untied head): 1,050,677,248 parameters;
/// a decoder layer 218,112,000.
const ROOT: u64 = 1_050_677_248;
const LAYER: u64 = 218_112_000;

fn fsdp2(extra: &str) -> Estimate {
    let text = alloc::format!(
        r#"{{"model": "meta-llama/Llama-3.1-8B", "mode": "training", "precision": "amp-bf16",
            "seq_len": 1024, "gpus": 8, "zero": 3, "fsdp_version": 2{extra}}}"#
    );
    let input: EstimateInput = serde_json::from_str(&text).unwrap();
    estimate(&input).unwrap()
}

/// FSDP's gathered units and gradient buffers at the end of backward.
fn backward_units(e: &Estimate) -> u64 {
    let moment = e.step.iter().find(|m| m.phase == Phase::Backward).unwrap();
    moment
        .parts
        .iter()
        .filter(|p| p.kind == K::ZeroBuffers)
        .map(|p| p.bytes.get())
        .sum()
}

#[test]
fn an_fp32_reduce_dtype_holds_the_reduce_scatter_input_in_fp32() {
    let bf16 = fsdp2("");
    let fp32 = fsdp2(r#", "reduce_dtype": "fp32""#);
    // bf16 param_dtype: the root unit gathered (2 B × ROOT = 2,101,354,496 B) and its
    // gradients in bf16 (the same); a layer 2 B × LAYER = 436,224,000 B.
    let (root, unit) = (2 * ROOT, 2 * LAYER);
    // The largest moment is the root's reduction at the end of backward: the first layer
    // still gathered, the root gathered, its bf16 gradients, and the reduce-scatter input in
    // reduce_dtype; less the root's fp32 shard gradient not yet there (counted with the
    // gradients: 4 B × ROOT / 8 = 525,338,624 B).
    let shard = 4 * ROOT / 8;
    // reduce_dtype bf16 (the default): 436,224,000 + 2,101,354,496 + 2,101,354,496
    // − 525,338,624 = 4,113,594,368 B.
    assert_eq!(backward_units(&bf16), unit + root + root - shard);
    // fp32: the input twice the size, 4 B × ROOT = 4,202,708,992 B:
    // 436,224,000 + 2,101,354,496 + 4,202,708,992 − 525,338,624 = 6,214,948,864 B.
    assert_eq!(backward_units(&fp32), 6_214_948_864);
    assert_eq!(backward_units(&fp32), unit + root + 2 * root - shard);
    // Nothing else moves: the shards and their gradients stay in the parameters' fp32.
    assert_eq!(fp32.weights_bytes, bf16.weights_bytes);
    assert_eq!(fp32.gradients_bytes, bf16.gradients_bytes);
    assert_eq!(fp32.optimizer_bytes, bf16.optimizer_bytes);
}

#[test]
fn reduce_dtype_is_fsdps_and_a_float() {
    let refused = |text: &str| {
        let input: EstimateInput = serde_json::from_str(text).unwrap();
        estimate(&input).unwrap_err().field
    };
    // DeepSpeed (no fsdp_version): no such knob.
    assert_eq!(
        refused(
            r#"{"model": "meta-llama/Llama-3.1-8B", "mode": "training", "gpus": 8, "zero": 3, "reduce_dtype": "fp32"}"#
        ),
        "reduce_dtype"
    );
    assert_eq!(
        refused(
            r#"{"model": "meta-llama/Llama-3.1-8B", "mode": "training", "gpus": 8, "zero": 3, "fsdp_version": 2, "reduce_dtype": "int8"}"#
        ),
        "reduce_dtype"
    );
}
