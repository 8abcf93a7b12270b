//! The weight tensors an architecture implies, block by block or with the blocks alike visited
//! once, and the parameter counts summed over them.

use alloc::vec::Vec;

use super::{Architecture, Family, Norm, Role, Tensor};

impl Architecture {
    /// Every weight tensor, in order, block by block. Empty for an opaque model.
    pub fn tensors(&self) -> Vec<Tensor> {
        let mut t = Vec::new();
        self.visit(false, &mut |tensor, _| t.push(tensor));
        t
    }

    /// Every weight tensor with the blocks that are alike visited once: `f(tensor, n)` stands for
    /// `n` blocks from `tensor.layer` on, each holding that tensor (`n` is 1 outside the blocks).
    /// The same tensors as [`Architecture::tensors`], a few dozen visits instead of one per block
    /// and tensor, for sums that do not depend on a block's index.
    pub fn visit_grouped(&self, mut f: impl FnMut(Tensor, u64)) {
        self.visit(true, &mut f);
    }

    /// How many blocks from block `l` (before `end`) have the same tensors as block `l`: a MoE
    /// model's dense blocks differ from its expert blocks, and every other block is like its
    /// neighbours.
    fn alike_from(&self, l: u64, end: u64) -> u64 {
        // Gemma 4's blocks differ by their type and sharing: visited one by one.
        if self.layer_shapes.is_some() || self.compressed.is_some() {
            return 1;
        }
        let end = self.hybrid_boundary(l, end);
        let end = match self.indexer {
            Some(ix) if l < ix.layers && ix.layers < end => ix.layers,
            _ => end,
        };
        match self.moe {
            Some(m) if l < m.first_dense_layers => m.first_dense_layers.min(end) - l,
            _ => end - l,
        }
    }

    /// Visits the tensors, grouped ([`Architecture::visit_grouped`]) or block by block (`n` = 1).
    fn visit(&self, grouped: bool, f: &mut dyn FnMut(Tensor, u64)) {
        let h = self.hidden_size;
        // The number of blocks the tensors pushed now stand for.
        let n = core::cell::Cell::new(1u64);
        let mut push = |role: Role, layer: Option<u64>, rows_in: u64, rows_out: u64, count: u64| {
            if rows_in > 0 && rows_out > 0 && count > 0 {
                let tensor = Tensor {
                    role,
                    layer,
                    rows_in,
                    rows_out,
                    count,
                };
                f(tensor, if layer.is_some() { n.get() } else { 1 });
            }
        };
        // The blocks from `start` to `end`: `(first block, blocks alike)`, one at a time unless
        // grouped.
        let runs = |start: u64, end: u64| {
            let mut l = start;
            core::iter::from_fn(move || {
                (l < end).then(|| {
                    let k = if grouped { self.alike_from(l, end) } else { 1 };
                    let run = (l, k);
                    l += k;
                    run
                })
            })
        };
        match self.family {
            Family::Opaque => return,
            Family::CausalLm => {
                push(Role::Embedding, None, self.vocab_size, h, 1);
                push(Role::Positions, None, self.learned_positions, h, 1);
                self.per_layer_embeddings(&mut push);
                for (l, k) in runs(0, self.num_layers) {
                    n.set(k);
                    self.decoder_block(&mut push, l);
                }
                push(Role::Vector, None, 1, h * norm_weights(self.norm), 1);
                self.hyper_head(&mut push);
                if !self.tied_embeddings {
                    push(Role::LmHead, None, h, self.vocab_size, 1);
                }
                if self.lm_head_bias {
                    push(Role::Vector, None, 1, self.vocab_size, 1);
                }
            }
            Family::Bert => {
                push(Role::Embedding, None, self.vocab_size, h, 1);
                push(Role::Positions, None, self.learned_positions, h, 1);
                push(Role::Other, None, self.num_labels, h, 1); // token types
                push(Role::Vector, None, 1, 2 * h, 1); // embedding LayerNorm
                for (l, k) in runs(0, self.num_layers) {
                    n.set(k);
                    self.attention(&mut push, l);
                    self.ffn(&mut push, l);
                    push(Role::Vector, Some(l), 1, 4 * h, 1); // two LayerNorms
                }
                push(Role::Other, None, h, h, 1); // pooler
                push(Role::Vector, None, 1, h, 1);
            }
            Family::Vit => {
                // Patch embedding: a conv of 3 × p × p inputs per patch, with bias; CLS token; positions.
                push(
                    Role::Other,
                    None,
                    3 * self.input_features * self.input_features,
                    h,
                    1,
                );
                push(Role::Vector, None, 1, 2 * h, 1); // conv bias + CLS token
                push(Role::Positions, None, self.encoder_positions, h, 1);
                for (l, k) in runs(0, self.num_layers) {
                    n.set(k);
                    self.attention(&mut push, l);
                    self.ffn(&mut push, l);
                    push(Role::Vector, Some(l), 1, 4 * h, 1);
                }
                push(Role::Vector, None, 1, 2 * h, 1); // final LayerNorm
                push(Role::Other, None, h, self.num_labels, 1); // classifier
                push(Role::Vector, None, 1, self.num_labels, 1);
            }
            Family::Whisper => {
                // Encoder: two convolutions (kernel 3) over mel features, sinusoidal positions stored as weights.
                push(Role::Other, None, 3 * self.input_features, h, 1);
                push(Role::Other, None, 3 * h, h, 1);
                push(Role::Vector, None, 1, 2 * h, 1);
                push(Role::Positions, None, self.encoder_positions, h, 1);
                for (l, k) in runs(0, self.encoder_layers) {
                    n.set(k);
                    // Encoder blocks are numbered after the decoder's so layers stay distinct.
                    let id = self.num_layers + l;
                    self.attention(&mut push, id);
                    self.ffn(&mut push, id);
                    push(Role::Vector, Some(id), 1, 4 * h, 1);
                }
                push(Role::Vector, None, 1, 2 * h, 1);
                // Decoder: tokens, learned positions, self- and cross-attention.
                push(Role::Embedding, None, self.vocab_size, h, 1);
                push(Role::Positions, None, self.learned_positions, h, 1);
                for (l, k) in runs(0, self.num_layers) {
                    n.set(k);
                    self.attention(&mut push, l);
                    self.attention(&mut push, l);
                    self.ffn(&mut push, l);
                    push(Role::Vector, Some(l), 1, 6 * h, 1);
                }
                push(Role::Vector, None, 1, 2 * h, 1);
            }
        }
        push(Role::Other, None, 1, self.extra_params, 1);
        push(Role::Vision, None, 1, self.vision_params, 1);
    }

    /// Gemma 3n's and Gemma 4's per-layer embeddings: one table of every layer's inputs, the
    /// model's projection to them and their norm; and Gemma 3n's AltUp projections.
    fn per_layer_embeddings(&self, push: &mut impl FnMut(Role, Option<u64>, u64, u64, u64)) {
        let h = self.hidden_size;
        if let Some(s) = self.layer_shapes {
            let packed = self.num_layers * s.per_layer_width;
            push(Role::Embedding, None, s.per_layer_vocab, packed, 1);
            push(Role::Other, None, h, packed, 1);
            push(Role::Vector, None, 1, s.per_layer_width, 1);
            // Gemma 3n's AltUp: the projections into and out of the extra streams.
            let streams = s.altup_inputs.saturating_sub(1);
            push(Role::Other, None, h, h, 2 * streams);
        }
    }

    /// Block `l` of a causal LM's decoder: its attention (Gemma 4's or DeepSeek-V4's block where
    /// the model has one), state mixer, feed-forward, hyper-connections and norms.
    fn decoder_block(&self, push: &mut impl FnMut(Role, Option<u64>, u64, u64, u64), l: u64) {
        let h = self.hidden_size;
        if self.layer_shapes.is_some() {
            self.gemma4_block(push, l);
        } else if self.compressed.is_some() {
            self.compressed_block(push, l);
        } else if self.has_attention(l) {
            self.attention(push, l);
        }
        if self.has_state_mixer(l) {
            self.state_mixer(push, l);
        }
        if self.has_ffn(l) && self.layer_shapes.is_none() {
            self.ffn(push, l);
        }
        if self.hyper_connections > 0 {
            // attn_hc and ffn_hc: `fn` maps the n streams to (2 + n) × n mixing
            // weights, with a bias of that width and three scales.
            let n = self.hyper_connections;
            let mix = (2 + n) * n;
            push(Role::Vector, Some(l), n * h, mix, 2);
            push(Role::Vector, Some(l), 1, mix + 3, 2);
        }
        push(
            Role::Vector,
            Some(l),
            1,
            h * norm_weights(self.norm) * self.norms_per_layer,
            1,
        );
    }

    fn attention(&self, push: &mut impl FnMut(Role, Option<u64>, u64, u64, u64), l: u64) {
        let h = self.hidden_size;
        let l = Some(l);
        let heads = self.num_heads;
        if let Some(m) = self.mla {
            let qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
            if m.q_lora_rank > 0 {
                push(Role::QA, l, h, m.q_lora_rank, 1);
                push(Role::Vector, l, 1, m.q_lora_rank, 1);
                push(Role::QB, l, m.q_lora_rank, heads * qk, 1);
            } else {
                push(Role::Q, l, h, heads * qk, 1);
            }
            push(Role::KvA, l, h, m.kv_lora_rank + m.qk_rope_head_dim, 1);
            push(Role::Vector, l, 1, m.kv_lora_rank, 1);
            push(
                Role::KvB,
                l,
                m.kv_lora_rank,
                heads * (m.qk_nope_head_dim + m.v_head_dim),
                1,
            );
            push(Role::O, l, heads * m.v_head_dim, h, 1);
            if let (Some(ix), Some(block)) = (self.indexer, l)
                && block < ix.layers
            {
                // wq_b from the query latent, wk, the key's LayerNorm, weights_proj.
                push(Role::Indexer, l, m.q_lora_rank, ix.heads * ix.head_dim, 1);
                push(Role::Indexer, l, h, ix.head_dim, 1);
                push(Role::Vector, l, 1, 2 * ix.head_dim, 1);
                push(Role::Indexer, l, h, ix.heads, 1);
                if ix.pool > 0 {
                    // GLM-5-Next's pooling: a position bias per pool slot, and the gate that
                    // scores each key channel from the hidden state.
                    push(Role::Vector, l, 1, ix.pool * ix.head_dim, 1);
                    push(Role::Indexer, l, h, ix.head_dim, 1);
                }
            }
            return;
        }
        let hd = self.head_dim;
        let q = heads * hd;
        let kv = self.num_kv_heads * hd;
        // Gated attention projects a gate beside each query element.
        let q_out = if self.gated_attention { 2 * q } else { q };
        push(Role::Q, l, h, q_out, 1);
        push(Role::K, l, h, kv, 1);
        push(Role::V, l, h, kv, 1);
        push(Role::O, l, q, h, 1);
        if self.qkv_bias {
            // Whisper's k_proj has no bias; every other family biases all three.
            let k_bias = if self.family == Family::Whisper {
                0
            } else {
                kv
            };
            push(Role::Vector, l, 1, q + k_bias + kv, 1);
        }
        if self.o_bias {
            push(Role::Vector, l, 1, h, 1);
        }
        if self.qk_norm {
            push(Role::Vector, l, 1, 2 * hd, 1);
        }
    }

    /// A Gemma 4, Gemma 3n or Step 3.5 block's attention, FFN, per-layer input and Gemma 3n's
    /// AltUp and LAuReL (its norms are pushed with every block's): `Gemma4TextAttention` at the
    /// layer's type, its k/v projections and norms only where it keeps its own cache, no
    /// `v_proj` on a full layer whose keys are its values; Step 3.5's layer's own query heads,
    /// its gate per head and its experts.
    fn gemma4_block(&self, push: &mut impl FnMut(Role, Option<u64>, u64, u64, u64), l: u64) {
        let Some(s) = self.layer_shapes else {
            return;
        };
        let h = self.hidden_size;
        let layer = Some(l);
        let full = self.is_full_layer(l);
        let shared = self.is_kv_shared_layer(l);
        let (hd, kv_heads) = if full {
            (s.full_head_dim, s.full_kv_heads)
        } else {
            (self.head_dim, self.num_kv_heads)
        };
        let heads = self.heads_of_layer(l);
        let q = heads * hd;
        push(Role::Q, layer, h, q, 1);
        push(Role::Vector, layer, 1, hd, 1); // q_norm
        if s.head_gate {
            // Step 3.5's `g_proj`: one sigmoid gate per head, sharded with the heads.
            push(Role::Q, layer, h, heads, 1);
        }
        if !shared || s.full_qkv {
            push(Role::K, layer, h, kv_heads * hd, 1);
            if !(full && s.full_k_eq_v) || s.full_qkv {
                push(Role::V, layer, h, kv_heads * hd, 1);
            }
            push(Role::Vector, layer, 1, hd, 1); // k_norm (v_norm has no weight)
        }
        push(Role::O, layer, q, h, 1);
        if self.moe.is_some() {
            // Step 3.5's experts (Gemma 4's are refused when its config is read).
            self.ffn(push, l);
        } else {
            let wide = if shared && s.double_wide_mlp { 2 } else { 1 };
            self.dense_ffn(push, l, wide * self.intermediate_size);
        }
        if s.per_layer_width > 0 {
            push(Role::Other, layer, h, s.per_layer_width, 1);
            push(Role::Other, layer, s.per_layer_width, h, 1);
            push(Role::Vector, layer, 1, h, 1);
        }
        if s.altup_inputs > 0 {
            // `Gemma3nTextAltUp`: the router (and its norm), the correction and prediction
            // coefficients over the streams, and the output scale.
            let n = s.altup_inputs;
            push(Role::Other, layer, h, n, 1);
            push(Role::Other, layer, n, n + n * n, 1);
            push(Role::Vector, layer, 1, 2 * h, 1);
        }
        if s.laurel_rank > 0 {
            // `Gemma3nTextLaurelBlock`: left and right projections through the rank, its norm.
            push(Role::Other, layer, h, s.laurel_rank, 1);
            push(Role::Other, layer, s.laurel_rank, h, 1);
            push(Role::Vector, layer, 1, h, 1);
        }
    }

    /// A dense FFN of width `i` in block `l` (a routed model's shared expert too).
    fn dense_ffn(&self, push: &mut impl FnMut(Role, Option<u64>, u64, u64, u64), l: u64, i: u64) {
        let h = self.hidden_size;
        let layer = Some(l);
        if self.gated_ffn {
            push(Role::Gate, layer, h, i, 1);
        }
        push(Role::Up, layer, h, i, 1);
        push(Role::Down, layer, i, h, 1);
        if self.mlp_bias {
            let gates = if self.gated_ffn { 2 } else { 1 };
            push(Role::Vector, layer, 1, gates * i + h, 1);
        }
    }

    fn ffn(&self, push: &mut impl FnMut(Role, Option<u64>, u64, u64, u64), l: u64) {
        let h = self.hidden_size;
        let layer = Some(l);
        match self.moe {
            Some(m) if l >= m.first_dense_layers && l < self.num_layers => {
                let e = m.num_experts;
                let i = m.expert_intermediate_size;
                push(Role::Router, layer, h, e, 1);
                if m.router_bias {
                    push(Role::Vector, layer, 1, e, 1);
                }
                if self.gated_ffn {
                    push(Role::ExpertGate, layer, h, i, e);
                }
                push(Role::ExpertUp, layer, h, i, e);
                push(Role::ExpertDown, layer, i, h, e);
                if m.expert_bias {
                    let gates = if self.gated_ffn { 2 } else { 1 };
                    push(Role::Vector, layer, 1, (gates * i + h) * e, 1);
                }
                if m.shared_intermediate_size > 0 {
                    self.dense_ffn(push, l, m.shared_intermediate_size);
                    if m.shared_expert_gate {
                        push(Role::Router, layer, h, 1, 1);
                    }
                }
            }
            _ => self.dense_ffn(push, l, self.intermediate_size),
        }
    }

    /// Total parameters.
    pub fn params(&self) -> u64 {
        if !self.is_detailed() {
            return self.opaque_params;
        }
        let mut sum = 0u64;
        self.visit_grouped(|t, n| sum = sum.saturating_add(t.numel().saturating_mul(n)));
        sum
    }

    /// Parameters active for one token: all but the routed experts not chosen.
    pub fn active_params(&self) -> u64 {
        let Some(m) = self.moe else {
            return self.params();
        };
        let mut sum = 0u64;
        self.visit_grouped(|t, n| {
            let active = if t.role.is_expert() {
                t.numel() / t.count.max(1) * m.experts_per_token
            } else {
                t.numel()
            };
            sum = sum.saturating_add(active.saturating_mul(n));
        });
        sum
    }
}

/// The weights of one norm per hidden unit: LayerNorm's weight and bias, RMSNorm's weight.
fn norm_weights(n: Norm) -> u64 {
    if n == Norm::Layer { 2 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::super::tests::llama31_8b;

    #[test]
    fn llama31_8b_params_by_hand() {
        // Hand: embed + head 2 × 128256 × 4096 = 1,050,673,152;
        // per layer q 4096² + k,v 2 × 4096 × 1024 + o 4096² = 41,943,040;
        // FFN 3 × 4096 × 14336 = 176,160,768; norms 2 × 4096 = 8,192 → 218,112,000 × 32 = 6,979,584,000;
        // final norm 4,096. Total 8,030,261,248 — the published count.
        assert_eq!(llama31_8b().params(), 8_030_261_248);
    }
}
