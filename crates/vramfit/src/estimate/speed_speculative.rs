//! Speculative decoding's speed on the run's card: the drafter's pass as the speed model's input
//! (its weights read per pass, its KV layers), and the decode speed with and without drafting
//! ([`crate::throughput::speculation`]). Compiled with the crate's `speed` feature only.

use super::{Difference, Run, SpecMethod};
use crate::throughput::{self, Device, InferenceInput, Speculation};
use crate::units::{four_figures, short};
use alloc::string::String;

fn u32_of(x: u64) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

impl Run<'_> {
    /// The decode speed with speculative decoding, when the run drafts and its acceptance rate
    /// is given; `target` is the target's input to the speed model.
    pub(super) fn speculative_speed(
        &self,
        target: &InferenceInput,
        device: &Device,
    ) -> Option<(Speculation, u64)> {
        let s = self.speculative.as_ref()?;
        let alpha = s.acceptance?;
        let d = self.vllm_drafter()?;
        let a = &self.arch;
        let draft = match s.method {
            SpecMethod::Ngram => None,
            method => {
                // An EAGLE head computes its logits with the target's LM head: each pass reads it.
                let shared_head = if method == SpecMethod::Eagle {
                    a.vocab_size.saturating_mul(a.hidden_size).div_ceil(self.tp)
                } else {
                    0
                };
                let (heads, head_dim) = match &s.draft {
                    Some(arch) => (arch.num_heads, arch.head_dim),
                    None => (a.num_heads, a.head_dim),
                };
                Some(InferenceInput {
                    active_params: d.params.saturating_add(shared_head).saturating_mul(self.tp),
                    dense_weight_bytes: d
                        .weights
                        .saturating_add(shared_head.saturating_mul(self.act_bytes())),
                    expert_weight_bytes: 0,
                    experts: 0,
                    experts_per_token: 0,
                    kv_bytes_per_token: d.kv_layers.saturating_mul(d.kv_per_layer),
                    windowed_kv_bytes_per_token: 0,
                    window: 0,
                    state_bytes_per_sequence: 0,
                    layers: u32_of(d.kv_layers.max(1)),
                    windowed_layers: 0,
                    hidden: u32_of(d.hidden),
                    heads: u32_of(heads),
                    head_dim: u32_of(head_dim),
                    ..*target
                })
            }
        };
        let k = u32_of(s.tokens);
        let spec = throughput::speculation(target, draft.as_ref(), k, alpha, device).ok()?;
        Some((spec, s.tokens))
    }

    /// The speculative decode speed's formula, beside the speed without drafting.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn speculative_formula(&self, s: &Speculation, k: u64, plain: f64) -> Difference {
        let f = |x: f64| short(four_figures(x));
        let alpha = short(
            self.speculative
                .as_ref()
                .and_then(|x| x.acceptance)
                .unwrap_or(0.0),
        );
        let (e, verify, draft, step, per_seq) = (
            f(s.tokens_per_step),
            f(s.verify_s * 1e3),
            f(s.draft_s * 1e3),
            f(s.step_s * 1e3),
            f(s.decode_tokens_per_s_per_sequence),
        );
        let (plain, tokens) = (f(plain), f(s.decode_tokens_per_s));
        let (verify_n, batch) = (k + 1, self.batch);
        #[cfg(feature = "en")]
        let en = alloc::format!(
            "(1 − {alpha}^{verify_n}) / (1 − {alpha}) = {e} tokens per step ÷ (verification {verify} ms of {verify_n} tokens per sequence + {k} drafts × {draft} ms = {step} ms) = {per_seq} tokens/s per sequence (without drafting {plain}); × {batch} sequence(s) = {tokens} tokens/s"
        );
        #[cfg(not(feature = "en"))]
        let en = String::new();
        #[cfg(feature = "zh")]
        let zh = alloc::format!(
            "(1 − {alpha}^{verify_n}) / (1 − {alpha}) = 每步 {e} 个 token ÷ (验证 {verify} ms，每序列 {verify_n} 个 token + {k} 次草拟 × {draft} ms = {step} ms) = 每序列 {per_seq} token/s（不用草拟 {plain}）；× {batch} 条序列 = {tokens} token/s"
        );
        #[cfg(not(feature = "zh"))]
        let zh = String::new();
        Difference {
            key: String::from("speculative_decode_tokens_per_s"),
            en,
            zh,
        }
    }
}
