//! LoRA dropout (issue 40) by hand on Llama-3.1-8B (hidden 4096, 32 blocks): PEFT's
//! `lora_B(lora_A(dropout(x)))` keeps, per adapted module and token, `native_dropout`'s bool
//! mask (1 B per input element) and `lora_A`'s own copy of its input.

use crate::ErrorKind;
use crate::estimate::{
    ComponentKind as K, EstimateInput, Mode, ModelInput, Precision, RunInput, Stack, TrainingInput,
    estimate,
};

fn lora(precision: Precision, dropout: Option<f64>, stack: Option<Stack>) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            arch: Some(crate::model::tests::llama31_8b()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 1.0,
            seq_len: 512.0,
            ..Default::default()
        },
        training: TrainingInput {
            precision,
            lora_rank: 16.0,
            lora_targets: alloc::vec!["q_proj".into(), "v_proj".into()],
            lora_dropout: dropout,
            stack,
            ..Default::default()
        },
        ..Default::default()
    }
}

fn activations(i: &EstimateInput) -> u64 {
    let e = estimate(i).unwrap();
    e.components
        .iter()
        .filter(|c| c.key.kind == K::Activations)
        .map(|c| c.bytes.get())
        .sum()
}

/// Pure bf16 with PEFT's fp32 adapters: q and v each already keep their own fp32 cast of the
/// 4096-wide input (`_cast_input_dtype`); the dropout's output replaces that copy (same 4 B) and
/// adds its mask, 1 B × 4096. 2 modules × 4096 B × 32 blocks × 512 tokens = 134,217,728 B.
#[test]
fn pure_bf16_adds_one_mask_byte_per_adapted_input_element() {
    let with = activations(&lora(Precision::Bf16, Some(0.1), None));
    let without = activations(&lora(Precision::Bf16, Some(0.0), None));
    assert_eq!(with - without, 2 * 4096 * 32 * 512);
    assert_eq!(2 * 4096 * 32 * 512, 134_217_728);
}

/// Under bf16 autocast over a bf16 base: without dropout q and v save autocast's 16-bit cast of
/// their fp32 copy (2 B × 4096 each); with it the cast of the dropout's output (2 B) and the
/// mask (1 B): again 1 B × 4096 per module, 134,217,728 B. Any p above 0 keeps the same tensors.
#[test]
fn autocast_adds_the_mask_and_any_probability_keeps_the_same() {
    let base = activations(&lora(Precision::AmpBf16, Some(0.0), None));
    let p1 = activations(&lora(Precision::AmpBf16, Some(0.1), None));
    assert_eq!(p1 - base, 2 * 4096 * 32 * 512);
    assert_eq!(activations(&lora(Precision::AmpBf16, Some(0.5), None)), p1);
}

/// No `lora_dropout`: the stack's default. TRL's `ModelConfig.lora_dropout` is 0.05, said in the
/// stack's note; LLaMA-Factory's, PEFT's (no stack) and the others' 0.
#[test]
fn the_stacks_default_fills_it_and_trl_says_so() {
    let trl = lora(Precision::AmpBf16, None, Some(Stack::Trl));
    assert_eq!(
        activations(&trl),
        activations(&lora(Precision::AmpBf16, Some(0.05), Some(Stack::Trl)))
    );
    let e = estimate(&trl).unwrap();
    let note = e.notes.iter().find(|n| n.key == "stack_defaults").unwrap();
    assert!(note.en.contains("lora_dropout 0.05"), "{}", note.en);
    assert!(
        note.en.contains("ModelConfig.lora_dropout 0.05"),
        "{}",
        note.en
    );
    let stated = estimate(&lora(Precision::AmpBf16, Some(0.0), Some(Stack::Trl))).unwrap();
    assert!(!stated.notes.iter().any(|n| n.key == "stack_defaults"));
    for stack in [
        None,
        Some(Stack::Llamafactory),
        Some(Stack::Axolotl),
        Some(Stack::Torchtune),
    ] {
        assert_eq!(
            activations(&lora(Precision::AmpBf16, None, stack)),
            activations(&lora(Precision::AmpBf16, Some(0.0), stack)),
            "{stack:?}"
        );
    }
}

/// Full fine-tuning has no adapter to drop for: the probability changes nothing.
#[test]
fn full_fine_tuning_ignores_it() {
    let full = |p| {
        let mut input = lora(Precision::AmpBf16, p, None);
        input.training.lora_rank = 0.0;
        input
    };
    assert_eq!(activations(&full(Some(0.1))), activations(&full(None)));
}

/// Outside 0 ≤ p < 1, or not a number: refused, naming the field.
#[test]
fn out_of_range_is_refused() {
    for p in [1.0, -0.1, f64::NAN, f64::INFINITY, 2.0] {
        let e = estimate(&lora(Precision::AmpBf16, Some(p), None)).unwrap_err();
        assert_eq!(
            (e.kind, e.field.as_str()),
            (ErrorKind::OutOfRange, "lora_dropout")
        );
        assert!(e.accepted.contains("0 to 0.99"), "{}", e.accepted);
    }
}

/// The activations' formula names the dropout where it adds bytes, in both languages, and
/// nowhere else.
#[test]
fn the_formula_names_the_dropout() {
    let formula = |p| {
        let e = estimate(&lora(Precision::AmpBf16, Some(p), None)).unwrap();
        let c = e
            .components
            .into_iter()
            .find(|c| c.key.kind == K::Activations)
            .unwrap();
        (c.formula, c.formula_zh)
    };
    let (en, zh) = formula(0.1);
    assert!(
        en.contains("LoRA dropout 0.1: each adapted module's 1 B mask"),
        "{en}"
    );
    assert!(
        zh.contains("LoRA dropout 0.1：每个适配模块的 1 B 掩码"),
        "{zh}"
    );
    let (en, zh) = formula(0.0);
    assert!(!en.contains("dropout") && !zh.contains("dropout"), "{en}");
}
