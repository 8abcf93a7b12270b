//! The guide's quick estimate (§2.1, §2.2, §3.1): parameter count, precision, batch and sequence
//! only, with its stated rules, reproduced as printed.

use alloc::format;
use alloc::string::String;

use super::{Formula, Mode, Optimizer};
use crate::model::Architecture;
use crate::precision::{Dtype, Quantization};
use crate::units::{Bytes, GB, fixed, short};

/// The guide's quick estimate.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Quick {
    /// `P × b` (§2.1).
    pub weights_bytes: Bytes,
    /// `2 × batch × seq × hidden × layers × dtype` (§2.1); zero when only the parameter count is known.
    pub kv_cache_bytes: Bytes,
    /// Inference: 20 % of the weights (the middle of the guide's 10–30 %); training: 0.2–0.5 ×,
    /// taken as 0.35 ×.
    pub activations_bytes: Bytes,
    /// Training: gradients = weights (§2.2).
    pub gradients_bytes: Bytes,
    /// Training: Adam = 2 × weights (§2.2).
    pub optimizer_bytes: Bytes,
    /// `M_theory`: for inference the sum above; for training the guide's rule `3.5 × weights`
    /// (§2.2, §6 Q1), which is not the sum of its own components (see `components_sum_bytes`).
    pub theory_bytes: Bytes,
    /// Training: the sum of the guide's own components (`4.2–4.5 × weights`).
    pub components_sum_bytes: Bytes,
    /// `M_rec = 1.2 × (M_theory + 2 GB)` (§3.1 stage 2).
    pub recommended_bytes: Bytes,
    /// The rule applied, with the values in it, in English.
    pub formula: String,
    /// The rule applied, with the values in it, in Chinese: the same numbers.
    pub formula_zh: String,
}

/// The guide's bytes per parameter `b` for the chosen precision: fp32 4, fp16/bf16 2, int8 1,
/// int4 0.5 (§2.1); real quantization formats map to the nearest of these.
pub fn guide_bytes_per_param(dtype: Dtype, q: &Quantization) -> f64 {
    use crate::precision::GgufFileType as F;
    match q {
        Quantization::None => dtype.bytes(),
        Quantization::Fp8 | Quantization::W8a8 | Quantization::BnbInt8 => 1.0,
        Quantization::Gguf { file_type: F::F16 } => 2.0,
        Quantization::Gguf {
            file_type: F::Q8_0 | F::Q6_K,
        } => 1.0,
        Quantization::Gptq { bits: 8, .. }
        | Quantization::Hqq { bits: 8, .. }
        | Quantization::Mlx { bits: 6 | 8, .. } => 1.0,
        _ => 0.5,
    }
}

/// `M_rec = 1.2 × (M + 2 GB)`.
pub fn m_rec(theory: Bytes) -> Bytes {
    Bytes::from_f64(1.2 * (theory.get() as f64 + 2.0 * GB as f64))
}

/// The quick estimate for `params` parameters. Its arguments are exactly the guide's stage-one
/// inputs (§3.1): parameters, precision, batch, sequence, training or inference, optimizer.
#[allow(clippy::too_many_arguments)]
pub fn quick(
    text: bool,
    params: u64,
    arch: &Architecture,
    mode: Mode,
    dtype: Dtype,
    q: &Quantization,
    optimizer: Optimizer,
    batch: u64,
    seq: u64,
) -> Quick {
    let b = guide_bytes_per_param(dtype, q);
    let w = params as f64 * b;
    let gb = |x: f64| x / GB as f64;
    let g2 = |x: f64| fixed(x, 2);
    if mode == Mode::Training {
        // Adam keeps two states (2 × weights); SGD with momentum and Lion one; SGD none. 8-bit
        // Adam and Adafactor are not in the guide: counted as half a state and none.
        let states = match optimizer {
            Optimizer::Adamw => 2.0,
            Optimizer::SgdMomentum | Optimizer::Lion => 1.0,
            Optimizer::Adamw8bit | Optimizer::PagedAdamw8bit => 0.5,
            // Not in the guide either: two states for the AdamW-like (GaLore and Muon at most
            // that), a quarter for 4-bit, three for AdEMAMix.
            Optimizer::PagedAdamw
            | Optimizer::ScheduleFreeAdamw
            | Optimizer::GaloreAdamw
            | Optimizer::Muon => 2.0,
            Optimizer::GaloreAdamw8bit => 0.5,
            Optimizer::Adamw4bit => 0.25,
            Optimizer::Ademamix => 3.0,
            Optimizer::Ademamix8bit => 0.75,
            Optimizer::Sgd | Optimizer::Adafactor => 0.0,
        };
        let act = 0.35 * w;
        let rule = 1.5 + states; // 3.5 for Adam, as §6 Q1 uses it (§2.2: 3.2–3.7).
        let theory = rule * w;
        let sum = w + w + states * w + act;
        let (formula, formula_zh) = formula!(text;
            let bs = short(b);
            [
                "weights = {params} × {bs} B = {} GB; M_train ≈ {} × weights = {} GB (guide §2.2, §6 Q1); its own components sum to weights + grads + {} × weights + 0.2–0.5 × weights = {}–{} GB; M_rec = 1.2 × ({} + 2) = {} GB",
                g2(gb(w)),
                short(rule),
                g2(gb(theory)),
                short(states),
                g2(gb(w * (2.2 + states))),
                g2(gb(w * (2.5 + states))),
                g2(gb(theory)),
                g2(1.2 * (gb(theory) + 2.0))
            ],
            [
                "权重 = {params} × {bs} B = {} GB；M_train ≈ {} × 权重 = {} GB（指南 §2.2、§6 Q1）；指南自身各项之和为 权重 + 梯度 + {} × 权重 + 0.2–0.5 × 权重 = {}–{} GB；M_rec = 1.2 × ({} + 2) = {} GB",
                g2(gb(w)),
                short(rule),
                g2(gb(theory)),
                short(states),
                g2(gb(w * (2.2 + states))),
                g2(gb(w * (2.5 + states))),
                g2(gb(theory)),
                g2(1.2 * (gb(theory) + 2.0))
            ]
        )
        .into_texts();
        return Quick {
            weights_bytes: Bytes::from_f64(w),
            kv_cache_bytes: Bytes::ZERO,
            activations_bytes: Bytes::from_f64(act),
            gradients_bytes: Bytes::from_f64(w),
            optimizer_bytes: Bytes::from_f64(states * w),
            theory_bytes: Bytes::from_f64(theory),
            components_sum_bytes: Bytes::from_f64(sum),
            recommended_bytes: m_rec(Bytes::from_f64(theory)),
            formula,
            formula_zh,
        };
    }
    let kv = if arch.is_detailed() && arch.is_generative() {
        2.0 * batch as f64
            * seq as f64
            * arch.hidden_size as f64
            * arch.num_layers as f64
            * dtype.bytes()
    } else {
        0.0
    };
    let act = 0.2 * w;
    let theory = w + kv + act;
    let kv_text = if kv > 0.0 && text {
        Formula::same(format!(
            "KV = 2 × {batch} × {seq} × {} × {} × {} B = {} GB",
            arch.hidden_size,
            arch.num_layers,
            short(dtype.bytes()),
            g2(gb(kv))
        ))
    } else {
        formula!(text; text "KV = 0 (needs hidden size and layers: give a preset or config.json)", "KV = 0（需要隐藏维度与层数：请选择预设模型或 config.json）")
    };
    let (formula, formula_zh) = formula!(text;
        let bs = short(b);
        [
            "weights = {params} × {bs} B = {} GB; {}; activations ≈ 0.2 × weights (10–30 %) = {} GB; M_theory = {} GB; M_rec = 1.2 × ({} + 2) = {} GB",
            g2(gb(w)),
            kv_text.en,
            g2(gb(act)),
            g2(gb(theory)),
            g2(gb(theory)),
            g2(1.2 * (gb(theory) + 2.0))
        ],
        [
            "权重 = {params} × {bs} B = {} GB；{}；激活值 ≈ 0.2 × 权重（10–30 %）= {} GB；M_theory = {} GB；M_rec = 1.2 × ({} + 2) = {} GB",
            g2(gb(w)),
            kv_text.zh,
            g2(gb(act)),
            g2(gb(theory)),
            g2(gb(theory)),
            g2(1.2 * (gb(theory) + 2.0))
        ]
    )
    .into_texts();
    Quick {
        weights_bytes: Bytes::from_f64(w),
        kv_cache_bytes: Bytes::from_f64(kv),
        activations_bytes: Bytes::from_f64(act),
        gradients_bytes: Bytes::ZERO,
        optimizer_bytes: Bytes::ZERO,
        theory_bytes: Bytes::from_f64(theory),
        components_sum_bytes: Bytes::from_f64(theory),
        recommended_bytes: m_rec(Bytes::from_f64(theory)),
        formula,
        formula_zh,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P7B: u64 = 7_000_000_000;

    #[test]
    fn guide_worked_examples_come_out_as_printed() {
        let a = Architecture::opaque(P7B);
        // §2.1: LLaMA 2 7B in FP16: 7 × 10^9 × 2 = 14 GB.
        let q = quick(
            true,
            P7B,
            &a,
            Mode::Inference,
            Dtype::Fp16,
            &Quantization::None,
            Optimizer::Adamw,
            1,
            1,
        );
        assert_eq!(q.weights_bytes.get(), 14 * GB);
        // §5.1: 4-bit 7B ≈ 4 GB: 7e9 × 0.5 = 3.5 GB.
        let q4 = quick(
            true,
            P7B,
            &a,
            Mode::Inference,
            Dtype::Fp16,
            &Quantization::Gptq {
                bits: 4,
                group_size: 128,
            },
            Optimizer::Adamw,
            1,
            1,
        );
        assert_eq!(q4.weights_bytes.get(), 3_500_000_000);
        // §6 Q1: 7B training ≈ 14 × 3.5 = 49 GB, beyond a 40 GB A100.
        let t = quick(
            true,
            P7B,
            &a,
            Mode::Training,
            Dtype::Fp16,
            &Quantization::None,
            Optimizer::Adamw,
            1,
            1,
        );
        assert_eq!(t.theory_bytes.get(), 49 * GB);
        // §2.2's own components: 14 + 14 + 28 + 0.35 × 14 = 60.9 GB (the guide's "60 GB 以上").
        assert_eq!(t.components_sum_bytes.get(), 60_900_000_000);
        // §3.1: M_rec = 1.2 × (49 + 2) = 61.2 GB.
        assert_eq!(t.recommended_bytes.get(), 61_200_000_000);
    }

    #[test]
    fn guide_kv_formula_is_mha() {
        // Llama-2-7B: hidden 4096, 32 layers; batch 1, 4096 tokens, fp16:
        // 2 × 1 × 4096 × 4096 × 32 × 2 = 2,147,483,648 B.
        let a = Architecture {
            family: crate::model::Family::CausalLm,
            hidden_size: 4096,
            num_layers: 32,
            ..Architecture::default()
        };
        let q = quick(
            true,
            6_738_415_616,
            &a,
            Mode::Inference,
            Dtype::Fp16,
            &Quantization::None,
            Optimizer::Adamw,
            1,
            4096,
        );
        assert_eq!(q.kv_cache_bytes.get(), 2_147_483_648);
    }

    /// The numbers of a formula, in order (digits and decimal points).
    fn numbers(s: &str) -> alloc::vec::Vec<&str> {
        s.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map(|x| x.trim_matches('.'))
            .filter(|x| !x.is_empty())
            .collect()
    }

    #[test]
    fn the_chinese_formula_has_the_same_numbers() {
        let opaque = Architecture::opaque(P7B);
        let llama = Architecture {
            family: crate::model::Family::CausalLm,
            hidden_size: 4096,
            num_layers: 32,
            ..Architecture::default()
        };
        // §6 Q1 in Chinese: 7e9 × 2 B = 14.00 GB, 3.5 × 14 = 49.00 GB, M_rec = 1.2 × 51 = 61.20 GB.
        let t = quick(
            true,
            P7B,
            &opaque,
            Mode::Training,
            Dtype::Fp16,
            &Quantization::None,
            Optimizer::Adamw,
            1,
            1,
        );
        assert_eq!(
            t.formula_zh,
            "权重 = 7000000000 × 2 B = 14.00 GB；M_train ≈ 3.5 × 权重 = 49.00 GB（指南 §2.2、§6 Q1）；指南自身各项之和为 权重 + 梯度 + 2 × 权重 + 0.2–0.5 × 权重 = 58.80–63.00 GB；M_rec = 1.2 × (49.00 + 2) = 61.20 GB"
        );
        for (arch, mode) in [
            (&opaque, Mode::Training),
            (&opaque, Mode::Inference),
            (&llama, Mode::Inference),
        ] {
            let q = quick(
                true,
                P7B,
                arch,
                mode,
                Dtype::Bf16,
                &Quantization::None,
                Optimizer::Adamw,
                2,
                4096,
            );
            let zh = &q.formula_zh;
            assert_eq!(numbers(&q.formula), numbers(zh), "{}\n{zh}", q.formula);
            assert!(zh.contains("权重"));
            // Every English word is translated; what stays is notation.
            let english: alloc::vec::Vec<&str> = zh
                .split(|c: char| !c.is_ascii_alphabetic())
                .filter(|w| {
                    w.len() > 1
                        && !["GB", "KV", "config", "json", "train", "theory", "rec"].contains(w)
                })
                .collect();
            assert!(english.is_empty(), "{english:?} in {zh}");
        }
    }
}
