//! DeepSeek-V4's compressed attention (`deepseek_v4`): every layer attends over a sliding window
//! of its own keys (one shared key-value head, `head_dim` wide), and all but the first layers also
//! over compressed entries, each pooling `rate` tokens into one: every 4 tokens in the CSA layers
//! (compressed sparse attention, with a lightning indexer that keeps its own compressed keys and
//! picks `index_topk` entries per query) and every 128 in the HCA layers (heavily compressed
//! attention). Beside it, hyper-connections (`hc_mult` residual streams mixed before and after
//! each block), a grouped output projection (`o_groups`) and hash-routed MoE layers.
//!
//! Shapes as transformers 5.24.0 builds them (`modeling_deepseek_v4.py`: `DeepseekV4Attention`,
//! `DeepseekV4CSACompressor`, `DeepseekV4Indexer`, `DeepseekV4HCACompressor`,
//! `DeepseekV4HyperConnection`, `DeepseekV4HyperHead`, `DeepseekV4HashRouter`); checked against
//! its meta-device count in `tests/reference/compressed-reference.csv`. The layers are counted,
//! not placed: sliding ones first, then CSA, then HCA, as [`super::Hybrid`] counts its kinds.

use super::validate::in_range;
use super::{Architecture, MAX_DIM, Role};
use crate::error::{ErrorKind, InputError, Result};

/// DeepSeek-V4's compressed attention and the blocks around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Compressed {
    /// Layers with the sliding window alone (`compress_ratios` 0, `sliding_attention`).
    pub sliding_layers: u64,
    /// CSA layers (`compressed_sparse_attention`): compressed every `csa_rate` tokens, with an
    /// indexer.
    pub csa_layers: u64,
    /// HCA layers (`heavily_compressed_attention`): compressed every `hca_rate` tokens.
    pub hca_layers: u64,
    /// Tokens pooled into one CSA entry (`compress_rates.compressed_sparse_attention`, 4).
    pub csa_rate: u64,
    /// Tokens pooled into one HCA entry (`compress_rates.heavily_compressed_attention`, 128).
    pub hca_rate: u64,
    /// `q_lora_rank`: the query's low-rank width.
    pub q_lora_rank: u64,
    /// `o_groups`: head groups of the grouped output projection.
    pub o_groups: u64,
    /// `o_lora_rank`: each group's output width.
    pub o_lora_rank: u64,
    /// `hc_mult`: hyper-connection residual streams.
    pub hc_mult: u64,
    /// `index_n_heads`: the CSA indexer's query heads.
    pub index_heads: u64,
    /// `index_head_dim`: the width of the indexer's queries and compressed keys.
    pub index_head_dim: u64,
    /// `index_topk`: compressed entries each query attends to in a CSA layer.
    pub index_topk: u64,
    /// Leading layers routed by a frozen token-to-expert table (`num_hash_layers`, `hash_moe`).
    pub hash_layers: u64,
}

/// Which attention a block of a DeepSeek-V4 stack has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompressedKind {
    /// The sliding window alone.
    Sliding,
    /// Compressed sparse attention: window, entries every `csa_rate` tokens and an indexer.
    Csa,
    /// Heavily compressed attention: window and entries every `hca_rate` tokens.
    Hca,
}

impl Compressed {
    /// The kind of block `l` (sliding first, then CSA, then HCA).
    pub const fn kind(&self, l: u64) -> CompressedKind {
        if l < self.sliding_layers {
            CompressedKind::Sliding
        } else if l < self.sliding_layers + self.csa_layers {
            CompressedKind::Csa
        } else {
            CompressedKind::Hca
        }
    }

    /// Every layer.
    pub const fn layers(&self) -> u64 {
        self.sliding_layers + self.csa_layers + self.hca_layers
    }

    /// A stage of `layers` blocks out of `total`: its share of each kind, rounded up and capped
    /// by the stage (a pipeline stage or llama.cpp's split holds the busiest share).
    pub fn stage(&self, layers: u64, total: u64) -> (u64, u64, u64) {
        let n = total.max(1);
        let share = |k: u64| k.saturating_mul(layers).div_ceil(n).min(layers);
        (
            share(self.sliding_layers),
            share(self.csa_layers),
            share(self.hca_layers),
        )
    }
}

impl Architecture {
    /// Block `l`'s attention in a DeepSeek-V4 stack, its compressor and indexer, its two
    /// hyper-connections and its router's buffer (`e_score_correction_bias`, or the hash
    /// layers' `tid2eid` table of `experts_per_token` experts per vocabulary token, both held in
    /// the checkpoint).
    pub(super) fn compressed_block(
        &self,
        push: &mut impl FnMut(Role, Option<u64>, u64, u64, u64),
        l: u64,
    ) {
        let Some(c) = self.compressed else {
            return;
        };
        let (h, layer) = (self.hidden_size, Some(l));
        let (heads, hd) = (self.num_heads, self.head_dim);
        push(Role::QA, layer, h, c.q_lora_rank, 1);
        push(Role::Vector, layer, 1, c.q_lora_rank, 1); // q_a_norm
        push(Role::QB, layer, c.q_lora_rank, heads * hd, 1);
        push(Role::KvA, layer, h, hd, 1); // kv_proj: the one shared key-value head
        push(Role::Vector, layer, 1, hd, 1); // kv_norm
        let groups = c.o_groups.max(1);
        push(
            Role::O,
            layer,
            heads * hd / groups,
            groups * c.o_lora_rank,
            1,
        ); // o_a_proj
        push(Role::O, layer, groups * c.o_lora_rank, h, 1); // o_b_proj
        push(Role::Vector, layer, 1, heads, 1); // sinks
        match c.kind(l) {
            CompressedKind::Sliding => {}
            CompressedKind::Csa => {
                // Two overlapping series (Ca, Cb) per source token: kv and gate of 2 × head_dim,
                // a position bias per window slot, the entries' norm; the indexer the same at
                // its own width, with its query projection and its heads' weights.
                let ihd = c.index_head_dim;
                push(Role::Indexer, layer, h, 2 * hd, 2);
                push(Role::Vector, layer, 1, c.csa_rate * 2 * hd + hd, 1);
                push(Role::Indexer, layer, h, 2 * ihd, 2);
                push(Role::Vector, layer, 1, c.csa_rate * 2 * ihd + ihd, 1);
                push(Role::Indexer, layer, c.q_lora_rank, c.index_heads * ihd, 1);
                push(Role::Indexer, layer, h, c.index_heads, 1);
            }
            CompressedKind::Hca => {
                push(Role::Indexer, layer, h, hd, 2);
                push(Role::Vector, layer, 1, c.hca_rate * hd + hd, 1);
            }
        }
        // attn_hc and ffn_hc: `fn` maps the n streams to (2 + n) × n mixing weights, with a
        // bias of that width and three scales.
        let n = c.hc_mult;
        let mix = (2 + n) * n;
        push(Role::Vector, layer, n * h, mix, 2);
        push(Role::Vector, layer, 1, mix + 3, 2);
        // The router's buffer: the MoE block's router weight is pushed with its experts.
        if let Some(m) = self.moe {
            let rows = if l < c.hash_layers {
                self.vocab_size * m.experts_per_token
            } else {
                m.num_experts
            };
            push(Role::Vector, layer, 1, rows, 1);
        }
    }

    /// The final hyper-connection head that collapses the streams (`hc_fn`, `hc_base`,
    /// `hc_scale`); nothing without compressed attention.
    pub(super) fn hyper_head(&self, push: &mut impl FnMut(Role, Option<u64>, u64, u64, u64)) {
        if let Some(c) = self.compressed {
            let n = c.hc_mult;
            push(Role::Vector, None, n * self.hidden_size, n, 1);
            push(Role::Vector, None, 1, n + 1, 1);
        }
    }
}

impl Architecture {
    /// The compressed attention's fields against their ranges: the layers by kind add up to
    /// `num_layers`, the rates and widths are positive and the head groups divide the heads'
    /// output (`o_a_proj` splits `num_heads × head_dim` evenly).
    pub(super) fn validate_compressed(&self, field: &str, c: &Compressed) -> Result<()> {
        let check = |name: &str, v: u64, lo: u64, hi: u64| in_range(field, name, v, lo, hi);
        let layers = self.num_layers;
        check("compressed.sliding_layers", c.sliding_layers, 0, layers)?;
        check("compressed.csa_layers", c.csa_layers, 0, layers)?;
        check("compressed.hca_layers", c.hca_layers, 0, layers)?;
        check("compressed.csa_rate", c.csa_rate, 1, 1 << 16)?;
        check("compressed.hca_rate", c.hca_rate, 1, 1 << 16)?;
        check("compressed.q_lora_rank", c.q_lora_rank, 1, MAX_DIM)?;
        check("compressed.o_groups", c.o_groups, 1, self.num_heads)?;
        check("compressed.o_lora_rank", c.o_lora_rank, 1, MAX_DIM)?;
        check("compressed.hc_mult", c.hc_mult, 1, 64)?;
        check("compressed.index_heads", c.index_heads, 1, 1 << 14)?;
        check("compressed.index_head_dim", c.index_head_dim, 1, 1 << 14)?;
        check("compressed.index_topk", c.index_topk, 1, 1 << 26)?;
        check("compressed.hash_layers", c.hash_layers, 0, layers)?;
        if c.layers() != layers {
            return Err(InputError::new(
                ErrorKind::Conflict,
                alloc::format!("{field}.compressed"),
                alloc::format!(
                    "{} sliding + {} CSA + {} HCA layers for num_layers = {layers}",
                    c.sliding_layers,
                    c.csa_layers,
                    c.hca_layers
                ),
                "one kind per layer: the three counts add up to num_layers",
            ));
        }
        if !self.num_heads.is_multiple_of(c.o_groups) {
            return Err(InputError::new(
                ErrorKind::Conflict,
                alloc::format!("{field}.compressed.o_groups"),
                alloc::format!(
                    "{} does not divide num_heads = {}",
                    c.o_groups,
                    self.num_heads
                ),
                "a divisor of num_heads",
            ));
        }
        Ok(())
    }
}
