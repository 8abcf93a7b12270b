//! The stacks' memory savers as figures: the loss's form (full, chunked, fused), the optimizer
//! stepped inside backward, activation offload. Each replaces one figure of
//! [`figures`](super::figures); with every regime at its default none of them runs.

use super::figures::{Basis, GradientFigures};
use crate::estimate::{Checkpointing, Loss, Optimizer, Run, weights};
use crate::model::{Role, Tensor};

/// The loss's tensors at their peak, by the loss's form.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum LossFigures {
    /// transformers' loss: tokens × vocab × 12 B (see `training_logits`).
    Full,
    /// torchtune's `LinearCrossEntropyLoss`: every chunk's fp32 log-softmax saved for backward
    /// (tokens × vocab × 4 B) and each chunk's gathered hidden states (a copy of the tokens ×
    /// hidden, saved by the head); then the larger of two moments of backward: its start (one
    /// chunk's NLL gradient and log-softmax gradient, two fp32 chunk × vocab, beside every saved
    /// chunk) and, when the head trains, the head's gradient accumulating over the chunks (the
    /// sum so far, the chunk's and their sum: 3 × vocab × hidden) beside the chunks not yet
    /// reached (all but two).
    Chunked {
        chunks: u64,
        /// Bytes per saved token × vocab: fp32 (4), or compiled the compute dtype's.
        saved_per: u64,
        /// Bytes per token × vocab of a chunk's backward: two fp32 gradients (8), or compiled
        /// one (4).
        transient_per: u64,
        /// Tokens per chunk: ⌈tokens / chunks⌉.
        chunk_tokens: u64,
        saved: u64,
        transient: u64,
        /// The head's gradients while they accumulate (0 when the head is frozen).
        head_grads: u64,
        gathered: u64,
        /// Whether the accumulation's moment is the larger.
        accumulating: bool,
    },
    /// Liger's fused linear cross-entropy inside its chunk loop (Liger-Kernel v0.8.2): the hidden
    /// states' gradient (tokens × hidden), the head's gradient when the head trains, two chunks'
    /// logits (each chunk's `_input_chunk @ weight.t()` is a new tensor, made while the previous
    /// chunk's is still bound), and the head gradient's per-chunk product where Liger forms one.
    Fused {
        /// Liger's chunk: `next_power_of_2(⌈tokens / ⌈vocab / hidden⌉⌉)`, at most the tokens.
        chunk_tokens: u64,
        grad_input: u64,
        grad_weight: u64,
        /// One chunk's logits; two are alive.
        chunk_logits: u64,
        /// `grad_weight += torch.mm(grad_logits_chunk.t(), _input_chunk).float()`: the vocab ×
        /// hidden product in the logits' dtype and its fp32 copy (one tensor when the logits are
        /// fp32 already); 0 when the head is frozen or when the head's gradient is fp32 and the
        /// logits half precision, which Liger accumulates by `addmm(out_dtype=float32)` in place.
        head_product: u64,
    },
}

/// Liger's chunk of tokens (`fused_linear_cross_entropy_forward`, linkedin/Liger-Kernel
/// src/liger_kernel/ops/fused_linear_cross_entropy.py at 000be609, tag v0.8.2): `inc_factor =
/// ⌈V / H⌉`, `chunk_size = next_power_of_2(⌈BT / inc_factor⌉)`, at most BT, so that one chunk's
/// logits stay near BT × H elements.
pub(super) fn liger_chunk(tokens: u64, vocab: u64, hidden: u64) -> u64 {
    let inc = vocab.div_ceil(hidden.max(1)).max(1);
    tokens
        .div_ceil(inc)
        .max(1)
        .checked_next_power_of_two()
        .unwrap_or(u64::MAX)
        .min(tokens)
}

impl Run<'_> {
    /// The loss's figures and its bytes at the peak, by the loss's form.
    pub(super) fn loss_figures(
        &self,
        basis: &Basis,
        grad_bytes: u64,
        tokens: u64,
        full: u64,
    ) -> (LossFigures, u64) {
        let a = &self.arch;
        if full == 0 || !basis.detailed {
            return (LossFigures::Full, full);
        }
        let (vocab, hidden, tp) = (a.vocab_size, a.hidden_size, self.tp);
        match self.regimes.loss {
            Loss::Full => (LossFigures::Full, full),
            Loss::Chunked => {
                let chunks = self.regimes.loss_chunks.max(1);
                let chunk_tokens = tokens.div_ceil(chunks);
                let (saved_per, transient_per) = if self.regimes.compile {
                    (basis.act_bytes, 4)
                } else {
                    (4, 8)
                };
                let saved = tokens
                    .saturating_mul(vocab)
                    .saturating_mul(saved_per)
                    .div_ceil(tp);
                let transient = chunk_tokens
                    .saturating_mul(vocab)
                    .saturating_mul(transient_per)
                    .div_ceil(tp);
                let gathered = tokens
                    .saturating_mul(hidden)
                    .saturating_mul(basis.compute.resid);
                let head_grads = self
                    .head_params(basis)
                    .saturating_mul(grad_bytes)
                    .saturating_mul(3);
                let start = saved.saturating_add(transient);
                let later = (saved / chunks)
                    .saturating_mul(chunks.saturating_sub(2))
                    .saturating_add(head_grads);
                let accumulating = head_grads > 0 && later > start;
                let bytes = start.max(later).saturating_add(gathered);
                let f = LossFigures::Chunked {
                    chunks,
                    saved_per,
                    transient_per,
                    chunk_tokens,
                    saved,
                    transient,
                    head_grads,
                    gathered,
                    accumulating,
                };
                (f, bytes)
            }
            Loss::Fused => {
                let chunk_tokens = liger_chunk(tokens, vocab, hidden);
                let grad_input = tokens
                    .saturating_mul(hidden)
                    .saturating_mul(basis.compute.resid);
                // The head's gradient, built in forward, when the head trains (not under LoRA):
                // in the weight's dtype (Liger's default `accum_dtype=None`).
                let head = self.head_params(basis);
                let weight_bytes = basis.dtype.bits() as u64 / 8;
                let grad_weight = head.saturating_mul(weight_bytes);
                let chunk_logits = chunk_tokens
                    .saturating_mul(vocab)
                    .saturating_mul(basis.act_bytes)
                    .div_ceil(tp);
                let product = if weight_bytes == 4 && basis.act_bytes == 2 {
                    0 // the fp32 gradient takes the half-precision product in place
                } else if basis.act_bytes == 4 {
                    basis.act_bytes // `.float()` of an fp32 product is the product itself
                } else {
                    basis.act_bytes + 4
                };
                let head_product = head.saturating_mul(product);
                let bytes = grad_input
                    .saturating_add(grad_weight)
                    .saturating_add(chunk_logits.saturating_mul(2))
                    .saturating_add(head_product);
                let f = LossFigures::Fused {
                    chunk_tokens,
                    grad_input,
                    grad_weight,
                    chunk_logits,
                    head_product,
                };
                (f, bytes)
            }
        }
    }

    /// The output head's parameters on this GPU when it trains (0 under LoRA, whose head is
    /// frozen): the embedding when tied.
    fn head_params(&self, basis: &Basis) -> u64 {
        if basis.lora {
            return 0;
        }
        let a = &self.arch;
        let head = |t: &Tensor| {
            let head = t.role == Role::LmHead || a.tied_embeddings && t.role == Role::Embedding;
            if head { t.numel() } else { 0 }
        };
        weights::largest(a, head).div_ceil(self.tp)
    }

    /// The largest trainable tensor on this GPU, in elements: under the optimizer in backward
    /// the one gradient alive at a time.
    pub(super) fn largest_trainable(&self, basis: &Basis) -> u64 {
        let a = &self.arch;
        if !basis.detailed {
            return basis.shard;
        }
        let trainable = |t: &Tensor| {
            if basis.lora {
                if self.lora_rank > 0
                    && t.role.is_block_linear()
                    && self.lora_mask & crate::estimate::role_bit(t.role) != 0
                {
                    self.lora_rank.saturating_mul(t.rows_in.max(t.rows_out))
                } else {
                    0
                }
            } else {
                t.numel().div_ceil(weights::tp_divisor(a, t, self.tp))
            }
        };
        weights::largest(a, trainable).min(basis.shard)
    }

    /// The optimizer in backward: one gradient alive at a time (the largest), each freed after
    /// its step.
    pub(super) fn in_backward_gradients(
        &self,
        basis: &Basis,
        g: GradientFigures,
    ) -> GradientFigures {
        if !self.regimes.optimizer_in_backward {
            return g;
        }
        GradientFigures {
            bytes: self.largest_trainable(basis).saturating_mul(g.bytes_per),
            ..g
        }
    }

    /// The foreach temporary of the step: a state-sized list over every trainable tensor, or with
    /// the optimizer in backward one tensor's; none for the per-tensor loop.
    pub(super) fn foreach_elements(&self, basis: &Basis) -> u64 {
        if self.regimes.optimizer_in_backward {
            self.largest_trainable(basis)
        } else {
            basis.shard
        }
    }

    /// Whether the optimizer's step takes the foreach path.
    pub(super) fn foreach_step(&self) -> bool {
        self.regimes.foreach && matches!(self.optimizer, Optimizer::Adamw | Optimizer::Lion)
    }

    /// Activation offload: what the GPU keeps of the saved activations while the rest is in CPU
    /// memory, and the bytes in CPU memory. torchtune's forward stash keeps the last 5
    /// offloaded tensors on the GPU (`max_fwd_stash_size`): 5 block inputs under checkpointing
    /// (whose recomputed block stays on the GPU), one block's saved tensors without; never more
    /// than there is.
    pub(super) fn offloaded_activations(
        &self,
        basis: &Basis,
        tokens: u64,
        total: u64,
        recomputed: u64,
    ) -> (u64, u64) {
        if !self.regimes.activation_offload {
            return (total, 0);
        }
        let layers = self.arch.num_layers.max(1);
        let offloadable = total.saturating_sub(recomputed);
        let in_flight = if self.checkpointing == Checkpointing::Full {
            tokens
                .saturating_mul(self.arch.hidden_size)
                .saturating_mul(basis.compute.resid)
                .saturating_mul(5.min(layers))
        } else {
            offloadable.div_ceil(layers)
        };
        let kept = in_flight.min(offloadable);
        (kept.saturating_add(recomputed), offloadable - kept)
    }
}

#[cfg(test)]
mod tests {
    use super::LossFigures;
    use crate::estimate::{
        EstimateInput, Loss, Mode, ModelInput, Precision, Run, RunInput, TrainingInput,
    };

    fn fused(precision: Precision, lora_rank: f64) -> LossFigures {
        let i = EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.2-1B".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Training,
                batch: 2.0,
                seq_len: 2048.0,
                ..Default::default()
            },
            training: TrainingInput {
                precision,
                loss: Some(Loss::Fused),
                lora_rank,
                ..Default::default()
            },
            ..Default::default()
        };
        let w = i.resolve().unwrap();
        Run::new(&w, false).training_figures().loss
    }

    /// Liger v0.8.2's loop by hand, Llama-3.2-1B (vocab 128,256, hidden 2,048, the head tied to
    /// the embedding: 262,668,288 parameters), batch 2 × 2,048 = 4,096 tokens:
    /// chunk = next_power_of_2(⌈4096 / ⌈128256 / 2048⌉⌉) = next_power_of_2(⌈4096 / 63⌉ = 66) = 128;
    /// one chunk's logits 128 × 128,256 × 2 B = 32,833,536 (two alive);
    /// grad_input 4,096 × 2,048 × 2 B = 16,777,216; in pure bf16 grad_weight 262,668,288 × 2 B =
    /// 525,336,576 and the head gradient's product in bf16 and its fp32 copy 262,668,288 × 6 B =
    /// 1,576,009,728; under AMP the residual stream, so grad_input, is fp32 (4,096 × 2,048 × 4 B
    /// = 33,554,432), grad_weight is fp32 (× 4 B = 1,050,673,152) and the bf16 product goes into
    /// it in place (0); under LoRA the head is frozen (both 0).
    #[test]
    fn liger_loop_by_hand() {
        let chunk_logits = 128 * 128_256 * 2;
        assert_eq!(
            fused(Precision::Bf16, 0.0),
            LossFigures::Fused {
                chunk_tokens: 128,
                grad_input: 16_777_216,
                grad_weight: 525_336_576,
                chunk_logits,
                head_product: 1_576_009_728,
            }
        );
        assert_eq!(
            fused(Precision::AmpBf16, 0.0),
            LossFigures::Fused {
                chunk_tokens: 128,
                grad_input: 33_554_432,
                grad_weight: 1_050_673_152,
                chunk_logits,
                head_product: 0,
            }
        );
        assert_eq!(
            fused(Precision::Bf16, 16.0),
            LossFigures::Fused {
                chunk_tokens: 128,
                grad_input: 16_777_216,
                grad_weight: 0,
                chunk_logits,
                head_product: 0,
            }
        );
    }
}
