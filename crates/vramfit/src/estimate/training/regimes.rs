//! The stacks' memory savers as figures: the loss's form (full, chunked, fused), the optimizer
//! stepped inside backward, activation offload. Each replaces one figure of
//! [`figures`](super::figures); with every regime at its default none of them runs.

use super::figures::{Basis, GradientFigures};
use crate::estimate::{Checkpointing, Loss, Optimizer, Run, weights};
use crate::model::{Role, Tensor};

/// The loss's tensors at their peak, by the loss's form.
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
    /// Liger's fused linear cross-entropy: the hidden states' gradient (tokens × hidden), the
    /// head's gradient when the head trains, one chunk's logits.
    Fused {
        /// Liger's chunk: `next_power_of_2(⌈tokens / ⌈vocab / hidden⌉⌉)`, at most the tokens.
        chunk_tokens: u64,
        grad_input: u64,
        grad_weight: u64,
        chunk_logits: u64,
    },
}

/// Liger's chunk of tokens (`fused_linear_cross_entropy_forward`, linkedin/Liger-Kernel
/// src/liger_kernel/ops/fused_linear_cross_entropy.py at 00eba634): `inc_factor =
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
                let saved = tokens.saturating_mul(vocab).saturating_mul(4).div_ceil(tp);
                let transient = chunk_tokens
                    .saturating_mul(vocab)
                    .saturating_mul(8)
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
                let grad_weight = self
                    .head_params(basis)
                    .saturating_mul(basis.dtype.bits() as u64 / 8);
                let chunk_logits = chunk_tokens
                    .saturating_mul(vocab)
                    .saturating_mul(basis.act_bytes)
                    .div_ceil(tp);
                let bytes = grad_input
                    .saturating_add(grad_weight)
                    .saturating_add(chunk_logits);
                let f = LossFigures::Fused {
                    chunk_tokens,
                    grad_input,
                    grad_weight,
                    chunk_logits,
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
