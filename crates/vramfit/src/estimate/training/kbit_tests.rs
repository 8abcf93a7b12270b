//! LoRA over a bitsandbytes int8 base, by hand (Llama-3.1-8B, the sources in [`super::kbit`]).
//!
//! The bug these fix: LoRA over `bnb-int8` (`load_in_8bit`, `qlora` off) got neither
//! `prepare_model_for_kbit_training`'s fp32 upcast nor the int8 matmul's buffers, both being
//! gated on `qlora`: 2.10 GB (1.96 GiB) plus a 16-bit weight copy too low for Llama-3.1-8B.

use crate::estimate::{
    ComponentKind as K, EstimateInput, Mode, ModelInput, RunInput, Stack, TrainingInput, estimate,
};
use crate::precision::Quantization;

/// Llama-3.1-8B's block linears: 32 × (4096 × (4096 + 2 × 1024 + 4096) + 3 × 4096 × 14336).
const BLOCK: u64 = 32 * (4096 * (4096 + 2 * 1024 + 4096) + 3 * 4096 * 14_336);
/// Its unquantized parameters: the embedding and the head (2 × 128256 × 4096), 65 norms of 4096.
const UNQUANTIZED: u64 = 2 * 128_256 * 4096 + 65 * 4096;
/// One fp32 `SCB` per output row: 32 × (4096 + 2 × 1024 + 4096 + 2 × 14336 + 4096).
const SCB: u64 = 32 * (4096 + 2 * 1024 + 4096 + 2 * 14_336 + 4096) * 4;

fn int8_lora(seq: f64, stack: Option<Stack>) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            arch: Some(crate::model::tests::llama31_8b()),
            quantization: Quantization::BnbInt8,
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 1.0,
            seq_len: seq,
            ..Default::default()
        },
        training: TrainingInput {
            lora_rank: 16.0,
            stack,
            ..Default::default()
        },
        ..Default::default()
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

fn lora_over(quantization: Quantization, stack: Option<Stack>, compile: bool) -> EstimateInput {
    {
        let mut input = int8_lora(512.0, stack);
        input.model.quantization = quantization;
        input.training.compile = compile;
        input
    }
}

/// torchao 0.18 `to_nf4` per matrix of n weights: n/2 + n/64 + n/16384 × 2 + 2 + 32 B; for
/// Llama-3.1-8B's MLP matrix 30,284,834 B, which `tests/reference/quantized_base_buffers.py`
/// reads off a real `NF4Tensor`. torchtune does not upcast the rest (bf16).
#[test]
fn torchao_nf4_base_by_hand() {
    let nf4 = |n: u64| n / 2 + n / 64 + n / 16_384 * 2 + 34;
    assert_eq!(nf4(4096 * 14_336), 30_284_834);
    let layer = 2 * nf4(4096 * 4096) + 2 * nf4(4096 * 1024) + 3 * nf4(4096 * 14_336);
    let e = estimate(&lora_over(
        Quantization::TorchaoNf4,
        Some(Stack::Torchtune),
        true,
    ))
    .unwrap();
    assert_eq!(
        part(&e, K::Weights),
        32 * layer + UNQUANTIZED * 2 + e.trainable_params * 4
    );
    // Compiled, the dequantization writes the 16-bit weight alone; eager, torchao's
    // get_original_weight holds 14 n + n/32 B (measured by the reference script).
    let n = 4096 * 14_336;
    assert_eq!(part(&e, K::DequantBuffer), n * 2);
    let eager = estimate(&lora_over(
        Quantization::TorchaoNf4,
        Some(Stack::Torchtune),
        false,
    ))
    .unwrap();
    assert_eq!(part(&eager, K::DequantBuffer), 14 * n + n / 32);
    assert_eq!(14 * n + n / 32, 823_918_592);
}

/// HQQ in groups of 64: codes (1, 2, 4 bits packed in bytes; 3 bits ten per int32, ⌈64/10⌉ = 7
/// per group; 5, 6, 8 bits a byte each) and a bf16 scale and zero per group: 4.5 bits per weight
/// at 4 bits, as the reference script reads off `HQQLinear`. PEFT does not upcast an HQQ base;
/// eager dequantization holds three 16-bit copies (6 B per weight).
#[test]
fn hqq_base_by_hand() {
    let hqq = |bits: u8| Quantization::Hqq {
        bits,
        group_size: 64,
    };
    let groups = BLOCK / 64;
    for (bits, codes) in [
        (1, BLOCK / 8),
        (2, BLOCK / 4),
        (3, groups * 7 * 4),
        (4, BLOCK / 2),
        (8, BLOCK),
    ] {
        let e = estimate(&lora_over(hqq(bits), None, false)).unwrap();
        assert_eq!(
            part(&e, K::Weights),
            codes + groups * 4 + UNQUANTIZED * 2 + e.trainable_params * 4,
            "{bits} bits"
        );
    }
    assert_eq!(BLOCK / 2 + groups * 4, BLOCK / 8 * 9 / 2);
    let n = 4096 * 14_336;
    let eager = estimate(&lora_over(hqq(4), None, false)).unwrap();
    assert_eq!(part(&eager, K::DequantBuffer), 6 * n);
    let compiled = estimate(&lora_over(hqq(4), None, true)).unwrap();
    assert_eq!(part(&compiled, K::DequantBuffer), 2 * n);
}

/// The formats' spellings and their checks.
#[test]
fn torchao_nf4_and_hqq_spellings() {
    let p = |s: &str| Quantization::parse("quantization", s);
    assert_eq!(p("torchao-nf4"), Ok(Quantization::TorchaoNf4));
    assert_eq!(
        p("hqq"),
        Ok(Quantization::Hqq {
            bits: 4,
            group_size: 64
        })
    );
    assert_eq!(
        p("hqq-3bit"),
        Ok(Quantization::Hqq {
            bits: 3,
            group_size: 64
        })
    );
    assert_eq!(
        p("hqq-7bit").map_err(|e| e.field),
        Err("quantization".into())
    );
    for q in [
        Quantization::TorchaoNf4,
        Quantization::Hqq {
            bits: 4,
            group_size: 64,
        },
        Quantization::Hqq {
            bits: 8,
            group_size: 64,
        },
    ] {
        assert_eq!(p(&q.name()), Ok(q));
    }
    let bad = Quantization::Hqq {
        bits: 4,
        group_size: 60,
    };
    assert_eq!(
        bad.validate("quantization").map_err(|e| e.field),
        Err("quantization.group_size".into())
    );
    let json: Quantization =
        serde_json::from_str(r#"{"format": "hqq", "bits": 2, "group_size": 128}"#).unwrap();
    assert_eq!(
        json,
        Quantization::Hqq {
            bits: 2,
            group_size: 128
        }
    );
    let json: Quantization = serde_json::from_str(r#"{"format": "torchao-nf4"}"#).unwrap();
    assert_eq!(json, Quantization::TorchaoNf4);
    assert_eq!(
        serde_json::to_string(&Quantization::TorchaoNf4).unwrap(),
        r#"{"format":"torchao-nf4"}"#
    );
}
