//! Megatron-Core's own saved activations: what its transformer layer (Transformer Engine's
//! fused norm + linear, flash attention, the fused SwiGLU, bias-dropout-add) keeps for
//! backward, per token, and its vocab-parallel cross-entropy.
//!
//! After Korthikanti et al. 2022 (arXiv 2205.05198, §4.1 and Table 2: `s b h (34 + 5 a s / h)`
//! per layer without recomputation, `34 s b h` with selective recomputation, every term `/ t`
//! with sequence parallelism, `10 s b h + 24 s b h / t` without it, `2 s b h` with full
//! recomputation), widened to today's Megatron-Core defaults as its code holds them
//! (NVIDIA/Megatron-LM core_v0.19.0, `megatron/core/transformer/`):
//!
//! - flash attention (`--attention-backend auto`): no `s²` term; the kernel keeps q, k, v, its
//!   output and an fp32 log-sum-exp per head. The fused QKV projection's output stays alive as a
//!   whole (v, and with `--qk-layernorm` the norms' inputs, are views of it); with RoPE the
//!   rotated q and k are new tensors beside it.
//! - SwiGLU: the gate and up projection's output `2 ffn` and the activation's output `ffn`
//!   (GeLU: `ffn` and `ffn`).
//! - the norms: each keeps its input and its output (the next linear's input): `4 h` per layer.
//! - dropout (`--hidden-dropout`, default 0.1): a 1-byte mask after attention and after the MLP,
//!   and one after the embedding. Runs that set it to 0 keep none (vramfit counts them: `h` B
//!   per token per mask, the safe side; e.g. +5 % of a Llama-8B layer).
//! - MoE layers (`--num-experts`, `--moe-router-topk k`): the router's fp32 logits, the `k`
//!   permuted copies of each token into the experts, their SwiGLU tensors, and the experts'
//!   outputs before they are weighted back; shared experts as a dense MLP.
//! - MLA: the query and key/value latents with their norms, the heads' q, k (nope + rope) and v.
//!
//! The cross-entropy (`megatron/core/tensor_parallel/cross_entropy.py`): the 16-bit logits and
//! their fp32 copy (softmax in place) in forward, the fp32 gradient (in place) and its 16-bit cast
//! in backward: `6 B` per token per vocabulary entry, `/ t`.

use crate::estimate::{RecomputeMethod, Run};
use crate::model::Architecture;

/// Megatron's activations of one layer, per token, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct LayerBytes {
    /// Kept whole on every tensor-parallel rank without sequence parallelism: the two norms'
    /// inputs and outputs and the dropout masks.
    pub(super) whole: u64,
    /// Split over the tensor-parallel ranks: attention and the MLP (or the experts).
    pub(super) split: u64,
}

/// Megatron's saved activations of a run on its busiest GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MegatronActs {
    /// Tokens of one micro-batch on this GPU: batch × seq / cp.
    pub(super) tokens: u64,
    /// A dense layer's bytes per token.
    pub(super) dense: LayerBytes,
    /// An MoE layer's bytes per token (equal to `dense` without experts).
    pub(super) moe: LayerBytes,
    /// Dense layers and MoE layers of the whole model (the first stage holds `layers / pp` of
    /// them for `pp` micro-batches in flight: the whole model's worth).
    pub(super) dense_layers: u64,
    pub(super) moe_layers: u64,
    /// The divisor of `whole`: tp with sequence parallelism, else 1.
    pub(super) whole_div: u64,
    /// Full recomputation: each checkpointed chunk's input kept, bytes per token (0 otherwise).
    pub(super) kept_per_token: u64,
    /// Full recomputation: the method, `--recompute-num-layers` and what they keep.
    pub(super) recompute: Option<(RecomputeMethod, u64, RecomputePlan)>,
    /// The embedding's dropout masks (× pp in flight) and the final norm's input and output,
    /// per token.
    pub(super) edges: u64,
    /// One micro-batch through every layer (the edges included).
    pub(super) total: u64,
    /// Full recomputation: the layer recomputed in backward (0 otherwise).
    pub(super) recomputed: u64,
    /// What the GPU holds: `pp` micro-batches' worth, × the interleaved schedule's factor, and
    /// the chunk recomputed in backward.
    pub(super) bytes: u64,
}

/// What full recomputation keeps over the whole model's worth of layers (the first stage's
/// `layers / pp` for `pp` micro-batches) and recomputes at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct RecomputePlan {
    /// Checkpointed chunks: each keeps its input.
    pub(super) inputs: u64,
    /// Layers run without checkpointing: each keeps every activation.
    pub(super) stored: u64,
    /// Layers recomputed at once in backward (one chunk).
    pub(super) recomputed: u64,
}

/// Megatron-Core's full recomputation of `layers` split into `chunks` model chunks (pp × vp:
/// a `TransformerBlock` each, of `layers / chunks` layers), `n` = `--recompute-num-layers`
/// (core_v0.19.0 `megatron/core/recompute.py`): `uniform` checkpoints every run of `n` layers
/// of a chunk (⌈per chunk / n⌉ inputs, `n` layers recomputed at once); `block` checkpoints the
/// first `n` layers of each chunk one by one and runs the rest plainly.
pub(super) fn recompute_plan(
    layers: u64,
    chunks: u64,
    method: RecomputeMethod,
    n: u64,
) -> RecomputePlan {
    let chunks = chunks.max(1);
    let per_chunk = layers.div_ceil(chunks).max(1);
    let n = n.clamp(1, per_chunk);
    match method {
        RecomputeMethod::Uniform => RecomputePlan {
            // One layer a chunk: every layer's input, as many as the model has.
            inputs: if n == 1 {
                layers
            } else {
                per_chunk.div_ceil(n).saturating_mul(chunks)
            },
            stored: 0,
            recomputed: n,
        },
        RecomputeMethod::Block => {
            let inputs = n.saturating_mul(chunks).min(layers);
            RecomputePlan {
                inputs,
                stored: layers - inputs,
                recomputed: 1,
            }
        }
    }
}

impl LayerBytes {
    /// Bytes per token on one GPU: `whole / whole_div + split / tp`.
    pub(super) fn on_gpu(self, whole_div: u64, tp: u64) -> u64 {
        self.whole
            .div_ceil(whole_div.max(1))
            .saturating_add(self.split.div_ceil(tp.max(1)))
    }
}

/// Whether vramfit counts the architecture with Megatron's layer: a decoder of attention
/// layers (dense, MoE or MLA). Hybrid, compressed and per-layer-shaped stacks keep
/// transformers' count (Megatron-Core builds them with other layer specs).
pub(super) fn counts(a: &Architecture) -> bool {
    a.is_detailed()
        && a.is_generative()
        && a.hybrid.is_none()
        && a.compressed.is_none()
        && a.layer_shapes.is_none()
        && a.encoder_layers == 0
        && a.num_layers > 0
}

/// One layer's bytes per token under 16-bit activations of `act` bytes; `moe` picks the
/// experts' MLP.
pub(super) fn layer_bytes(a: &Architecture, act: u64, moe: bool) -> LayerBytes {
    let h = a.hidden_size;
    // Two norms, their inputs and outputs; two dropout masks of 1 B.
    let whole = act.saturating_mul(4 * h).saturating_add(2 * h);
    let heads = a.num_heads;
    let attention = if let Some(m) = &a.mla {
        // q latent with its norm's output, kv latent (+ the rope key) with its norm's output,
        // then the heads' q and k (nope + rope) and v, the output, and the log-sum-exp.
        let qk = heads.saturating_mul(m.qk_nope_head_dim + m.qk_rope_head_dim);
        let v = heads.saturating_mul(m.v_head_dim);
        act.saturating_mul(
            2 * m.q_lora_rank + 2 * m.kv_lora_rank + m.qk_rope_head_dim + 2 * qk + 2 * v,
        )
    } else {
        let q = heads.saturating_mul(a.head_dim);
        let kv = a.num_kv_heads.saturating_mul(a.head_dim);
        // The fused QKV output (alive through the views of v and the qk norms' inputs), the
        // rotated q and k (RoPE makes new tensors), the output.
        let rotated = if a.learned_positions == 0 { q + kv } else { 0 };
        act.saturating_mul(q + 2 * kv + rotated + q)
    };
    let lse = 4 * heads;
    let mlp = |f: u64| act.saturating_mul(if a.gated_ffn { 3 * f } else { 2 * f });
    let ffn = match (&a.moe, moe) {
        (Some(m), true) => {
            let k = m.experts_per_token;
            // The router's fp32 logits; k permuted copies of the token in, their SwiGLU, k
            // expert outputs before the weighted sum; the shared experts as a dense MLP.
            (4 * m.num_experts)
                .saturating_add(act.saturating_mul(2 * k * h))
                .saturating_add(mlp(m.expert_intermediate_size).saturating_mul(k))
                .saturating_add(mlp(m.shared_intermediate_size))
        }
        _ => mlp(a.intermediate_size),
    };
    LayerBytes {
        whole,
        split: attention.saturating_add(lse).saturating_add(ffn),
    }
}

impl Run<'_> {
    /// Megatron's activations for this run, `None` for an architecture it is not counted on.
    pub(super) fn megatron_acts(
        &self,
        act: u64,
        sp: bool,
        cp: u64,
        vp: u64,
    ) -> Option<MegatronActs> {
        let a = &self.arch;
        if !counts(a) {
            return None;
        }
        let tp = self.tp.max(1);
        let tokens = self
            .batch
            .saturating_mul(self.main_seq())
            .div_ceil(cp.max(1));
        let whole_div = if sp { tp } else { 1 };
        let moe_layers = a
            .moe
            .as_ref()
            .map_or(0, |m| a.num_layers.saturating_sub(m.first_dense_layers));
        let dense_layers = a.num_layers - moe_layers;
        let dense = layer_bytes(a, act, false);
        let moe = layer_bytes(a, act, true);
        let per_token = |l: LayerBytes| l.on_gpu(whole_div, tp);
        let layers_per_token = per_token(dense)
            .saturating_mul(dense_layers)
            .saturating_add(per_token(moe).saturating_mul(moe_layers));
        // The embedding's dropout mask (1 B, for each of the pp micro-batches in flight on the
        // first stage) and the final norm's input and output.
        let h = a.hidden_size;
        let edges = h
            .saturating_mul(self.pp.max(1))
            .saturating_add(act.saturating_mul(2 * h))
            .div_ceil(whole_div);
        let full = self.checkpointing == crate::estimate::Checkpointing::Full;
        // Full recomputation (`megatron/core/recompute.py`): a checkpointed chunk keeps its
        // input (the residual stream, split under sequence parallelism) and is recomputed
        // whole in backward.
        let kept_per_token = if full {
            act.saturating_mul(h).div_ceil(whole_div)
        } else {
            0
        };
        let recompute = full.then(|| {
            let (method, n) = self
                .sharding
                .megatron
                .map_or((RecomputeMethod::Uniform, 1), |m| {
                    (m.recompute_method, m.recompute_layers)
                });
            let plan = recompute_plan(a.num_layers, self.pp.max(1) * vp.max(1), method, n);
            (method, n, plan)
        });
        let (kept_layers, recomputed) = match recompute {
            None => (layers_per_token, 0),
            Some((_, _, p)) => {
                // The layers that keep everything: the larger kind first (the safe side; the
                // chunk's last layers are MoE ones in a model whose first layers are dense).
                let (big, small) = if per_token(moe) >= per_token(dense) {
                    ((per_token(moe), moe_layers), per_token(dense))
                } else {
                    ((per_token(dense), dense_layers), per_token(moe))
                };
                let stored_big = p.stored.min(big.1);
                let stored = big
                    .0
                    .saturating_mul(stored_big)
                    .saturating_add(small.saturating_mul(p.stored - stored_big));
                (
                    kept_per_token
                        .saturating_mul(p.inputs)
                        .saturating_add(stored),
                    tokens.saturating_mul(big.0.max(small).saturating_mul(p.recomputed)),
                )
            }
        };
        let total = tokens.saturating_mul(kept_layers.saturating_add(edges));
        // 1F1B: the first stage holds pp micro-batches of its layers / pp: the whole model's
        // worth; the interleaved schedule 1 + (pp − 1) / (pp × vp) times that.
        // With full recomputation the chunk recomputed in backward counts with them (as
        // transformers' checkpointing counts its block): the peak's phases take the larger of
        // it and the loss's tensors, which are not alive together.
        let (num, den) = super::megatron::interleave_factor(self.pp, vp);
        let bytes = total
            .saturating_mul(num)
            .div_ceil(den)
            .saturating_add(recomputed);
        Some(MegatronActs {
            tokens,
            dense,
            moe,
            dense_layers,
            moe_layers,
            whole_div,
            kept_per_token,
            recompute,
            edges,
            total,
            recomputed,
            bytes,
        })
    }

    /// Megatron's cross-entropy on the logits: `tokens × vocab × 6 B / tp`.
    pub(super) fn megatron_logits(&self, tokens: u64) -> u64 {
        tokens
            .saturating_mul(self.arch.vocab_size)
            .saturating_mul(6)
            .div_ceil(self.tp.max(1))
    }
}
