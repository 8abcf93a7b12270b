//! LoRA over a bitsandbytes int8 base, by hand (Llama-3.1-8B, the sources in [`super::kbit`]).
//!
//! The bug these fix: LoRA over `bnb-int8` (`load_in_8bit`, `qlora` off) got neither
//! `prepare_model_for_kbit_training`'s fp32 upcast nor the int8 matmul's buffers, both being
//! gated on `qlora`: 2.10 GB (1.96 GiB) plus a 16-bit weight copy too low for Llama-3.1-8B.

use crate::estimate::{ComponentKind as K, EstimateInput, Mode, Stack, estimate};
use crate::precision::Quantization;

/// Llama-3.1-8B's block linears: 32 × (4096 × (4096 + 2 × 1024 + 4096) + 3 × 4096 × 14336).
const BLOCK: u64 = 32 * (4096 * (4096 + 2 * 1024 + 4096) + 3 * 4096 * 14_336);
/// Its unquantized parameters: the embedding and the head (2 × 128256 × 4096), 65 norms of 4096.
const UNQUANTIZED: u64 = 2 * 128_256 * 4096 + 65 * 4096;
/// One fp32 `SCB` per output row: 32 × (4096 + 2 × 1024 + 4096 + 2 × 14336 + 4096).
const SCB: u64 = 32 * (4096 + 2 * 1024 + 4096 + 2 * 14_336 + 4096) * 4;

fn int8_lora(seq: f64, stack: Option<Stack>) -> EstimateInput {
    EstimateInput {
        mode: Mode::Training,
        arch: Some(crate::model::tests::llama31_8b()),
        quantization: Quantization::BnbInt8,
        lora_rank: 16.0,
        batch: 1.0,
        seq_len: seq,
        stack,
        ..EstimateInput::default()
    }
}

fn part(e: &crate::estimate::Estimate, kind: K) -> u64 {
    e.components
        .iter()
        .find(|c| c.key.kind == kind)
        .map_or(0, |c| c.bytes.get())
}

/// PEFT upcasts the embeddings, head and norms to fp32 (4 B each); the block linears are int8
/// with their scales; the adapters fp32.
#[test]
fn int8_lora_base_is_upcast_by_peft() {
    assert_eq!(BLOCK + UNQUANTIZED, 8_030_261_248);
    let e = estimate(&int8_lora(512.0, None)).unwrap();
    let adapters = e.trainable_params * 4;
    assert_eq!(
        part(&e, K::Weights),
        BLOCK + SCB + UNQUANTIZED * 4 + adapters
    );
    // torchtune calls no prepare_model_for_kbit_training: its unquantized parameters stay bf16
    // (its adapters in the regime's state dtype, fp32 under the default mixed precision).
    let t = estimate(&int8_lora(512.0, Some(Stack::Torchtune))).unwrap();
    assert_eq!(
        part(&t, K::Weights),
        BLOCK + SCB + UNQUANTIZED * 2 + t.trainable_params * 4
    );
}

/// Backward's 16-bit copy of the largest weight (gate/up: 4096 × 14336 × 2 B) against
/// forward's int8 input and int32 accumulator, tokens × (4096 + 4 × 14336).
#[test]
fn int8_matmul_buffer_by_hand() {
    let copy = 4096 * 14_336 * 2;
    let short = estimate(&int8_lora(512.0, None)).unwrap();
    assert_eq!(part(&short, K::DequantBuffer), copy);
    assert!(512 * (4096 + 4 * 14_336) < copy);
    let long = estimate(&int8_lora(2048.0, None)).unwrap();
    assert_eq!(part(&long, K::DequantBuffer), 2048 * (4096 + 4 * 14_336));
    assert_eq!(2048 * (4096 + 4 * 14_336), 125_829_120);
}
