//! Speculative decoding's speed: a drafter proposes k tokens one at a time, then the target
//! runs them and one more in a single pass and keeps the accepted prefix and its own next token.
//!
//! With each drafted token accepted with chance α, independently (Leviathan et al., "Fast
//! Inference from Transformers via Speculative Decoding", ICML 2023, arXiv:2211.17192, eq. 1),
//! a step yields (1 − α^(k+1)) / (1 − α) tokens on average; the step costs one target pass over
//! k + 1 tokens per sequence (reading the weights and each sequence's cache once) and k draft
//! passes of one token, which run inside the step (vLLM's proposer: no scheduling or sampling
//! of their own, so no fixed step time).

use super::inference::decode_step_s;
use super::{Device, InferenceInput};
use crate::error::Result;

/// Speculative decoding's speed for one batch: every figure finite and non-negative.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Speculation {
    /// Expected tokens per sequence per step: (1 − α^(k+1)) / (1 − α).
    pub tokens_per_step: f64,
    /// The target's pass over k + 1 tokens per sequence.
    pub verify_s: f64,
    /// One draft pass of one token per sequence, inside the step (0 for n-grams, drafted on
    /// the CPU).
    pub draft_s: f64,
    /// One step: the verification and k draft passes.
    pub step_s: f64,
    /// Tokens per second one sequence generates.
    pub decode_tokens_per_s_per_sequence: f64,
    /// Tokens per second the batch generates.
    pub decode_tokens_per_s: f64,
}

/// Expected tokens per step with `k` drafted tokens each accepted with chance `alpha`
/// (0 ≤ α < 1): 1 + α + … + α^k = (1 − α^(k+1)) / (1 − α).
pub fn tokens_per_step(k: u32, alpha: f64) -> f64 {
    // The sum term by term: exact at α = 0 and free of the division near α = 1.
    let mut sum = 0.0;
    let mut term = 1.0;
    for _ in 0..=k {
        sum += term;
        term *= alpha;
    }
    sum
}

/// The speed of `target` decoding with `k` tokens drafted by `draft` (`None`: n-grams, drafted
/// on the CPU at no GPU time) and accepted with chance `alpha`, on GPUs like `device`.
///
/// Errors name the field of an input the speed model refuses (as [`super::inference`]).
pub fn speculation(
    target: &InferenceInput,
    draft: Option<&InferenceInput>,
    k: u32,
    alpha: f64,
    device: &Device,
) -> Result<Speculation> {
    let verify_s = decode_step_s(target, device, k.saturating_add(1), false)?;
    let draft_s = match draft {
        Some(d) => decode_step_s(d, device, 1, true)?,
        None => 0.0,
    };
    let alpha = if alpha.is_finite() {
        alpha.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let tokens = tokens_per_step(k, alpha);
    let step_s = verify_s + f64::from(k) * draft_s;
    let per_sequence = tokens / step_s;
    Ok(Speculation {
        tokens_per_step: tokens,
        verify_s,
        draft_s,
        step_s,
        decode_tokens_per_s_per_sequence: per_sequence,
        decode_tokens_per_s: per_sequence * f64::from(target.batch),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::throughput::{Compute, Runtime, inference};

    /// The expected tokens per step by hand: α 0.8, k 3: (1 − 0.4096) / 0.2 = 2.952; α 0.5,
    /// k 4: (1 − 1/32) / 0.5 = 1.9375; α 0: 1 (only the target's own token); k 1, α 0.6: 1.6.
    #[test]
    fn expected_tokens_per_step_by_hand() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(tokens_per_step(3, 0.8), 2.952));
        assert!(close(tokens_per_step(4, 0.5), 1.9375));
        assert!(close(tokens_per_step(5, 0.0), 1.0));
        assert!(close(tokens_per_step(1, 0.6), 1.6));
    }

    /// A Llama-3.1-8B-shaped decode at batch 1 on an H100 (3.35 TB/s): the target's bf16
    /// weights (15.0 GB read) and an EAGLE head with the shared LM head (0.50 + 1.05 GB).
    fn target() -> InferenceInput {
        InferenceInput {
            runtime: Runtime::Batched,
            compute: Compute::Bits16,
            active_params: 7_504_924_672,
            dense_weight_bytes: 15_009_849_344,
            kv_bytes_per_token: 131_072,
            layers: 32,
            hidden: 4096,
            heads: 32,
            head_dim: 128,
            batch: 1,
            prompt_tokens: 1024,
            output_tokens: 256,
            tp: 1,
            pp: 1,
            ..InferenceInput::default()
        }
    }

    fn h100() -> Device {
        Device {
            bandwidth_bytes_per_s: 3.35e12,
            flops_16bit: 989e12,
            flops_fp8: 1979e12,
            link_bytes_per_s: 0.0,
            metal: false,
        }
    }

    /// The step is the verification and k draft passes; the tokens per second are the expected
    /// tokens over the step. At batch 1 the verification of 4 tokens reads the same weights as
    /// one decode step, so it costs within 5 % of it; with nothing accepted (α 0) n-grams give
    /// one token per verification, no faster than decoding without them.
    #[test]
    fn a_step_is_one_verification_and_k_drafts() {
        let t = target();
        let draft = InferenceInput {
            active_params: 251_670_528 + 525_336_576,
            dense_weight_bytes: 503_341_056 + 1_050_673_152,
            kv_bytes_per_token: 4096,
            layers: 1,
            ..t
        };
        let plain = inference(&t, &h100()).unwrap();
        let s = speculation(&t, Some(&draft), 3, 0.8, &h100()).unwrap();
        assert!((s.step_s - (s.verify_s + 3.0 * s.draft_s)).abs() < 1e-15);
        assert!((s.decode_tokens_per_s_per_sequence - 2.952 / s.step_s).abs() < 1e-9);
        let ratio = s.verify_s / plain.decode_step_s;
        assert!((1.0..1.05).contains(&ratio), "{ratio}");
        // The head's pass by hand, memory-bound: (1,554,014,208 B of weights + 4,096 B × 1,152
        // tokens of mean context) / (3.35 TB/s × 0.85) + one layer × 20 µs, no step time:
        // 1,558,732,800 / 2.8475e12 + 2e-5 = 0.567 ms (its FLOPs, 1.55 G at 0.5 × 989 T, 3 µs).
        let by_hand = 1_558_732_800.0 / 2.8475e12 + 20e-6;
        assert!((s.draft_s / by_hand - 1.0).abs() < 1e-9, "{}", s.draft_s);
        assert!(s.draft_s < plain.decode_step_s / 5.0);
        assert!(s.decode_tokens_per_s_per_sequence > 2.0 * plain.decode_tokens_per_s_per_sequence);
        let none = speculation(&t, None, 3, 0.0, &h100()).unwrap();
        assert!((none.decode_tokens_per_s_per_sequence - 1.0 / none.verify_s).abs() < 1e-9);
        assert!(none.decode_tokens_per_s_per_sequence <= plain.decode_tokens_per_s_per_sequence);
    }
}
