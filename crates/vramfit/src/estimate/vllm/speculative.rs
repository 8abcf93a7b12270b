//! vLLM's speculative decoding (`--speculative-config`): the drafter's weights loaded beside the
//! target, its attention layers in the target's one KV pool, and the proposer's buffers.
//!
//! Read from vLLM's source (`vllm/v1/spec_decode/`): `draft_model.py` (commit 01dd981d)
//! `DraftModelProposer.load_model` loads the draft whole with `get_model`, and every attention
//! layer it adds is a draft layer of the pool; `llm_base_proposer.py` (commit 00c4f22d)
//! `SpecDecodeBaseProposer.load_model` takes the layers the drafter added to the forward
//! context as its KV layers, `_maybe_share_embeddings` and `_maybe_share_lm_head` give an EAGLE
//! head without its own embedding or LM head the target's (an EAGLE-3 head keeps its own LM
//! head), and `__init__` allocates the persistent buffers counted here: `input_ids` (int32),
//! `positions` (int64), `hidden_states` and `inputs_embeds` (max_num_batched_tokens × the
//! drafter's hidden size, in the model's dtype), `arange` (int32), `_slot_mapping_buffer`
//! (int64), and for a draft model two bool masks; n-gram drafting runs on the CPU.

use super::super::{ComponentKind, Formula, Parts, Run, b, thousands};
use crate::estimate::{SpecMethod, Speculative};
use crate::precision::Quantization;

/// What the drafter holds on one GPU.
#[derive(Clone, Copy)]
pub(in crate::estimate) struct DrafterFigures {
    /// The method.
    pub(in crate::estimate) method: SpecMethod,
    /// The drafter's parameters on this GPU (0 for n-grams).
    pub(in crate::estimate) params: u64,
    /// Its weights' bytes on this GPU.
    pub(in crate::estimate) weights: u64,
    /// The proposer's persistent buffers.
    pub(in crate::estimate) buffers: u64,
    /// Its attention layers, each in the target's pool.
    pub(in crate::estimate) kv_layers: u64,
    /// KV bytes per token of one of them on this GPU.
    pub(in crate::estimate) kv_per_layer: u64,
    /// The drafter's hidden size (its buffers' width).
    pub(in crate::estimate) hidden: u64,
    /// Bytes per batched token of the integer and bool buffers.
    pub(in crate::estimate) index_bytes: u64,
}

impl DrafterFigures {
    /// What comes out of the pool's budget before the pool: the weights and the buffers.
    pub(super) fn bytes(&self) -> u64 {
        self.weights.saturating_add(self.buffers)
    }
}

/// The draft vocabulary most EAGLE-3 heads are trained with (`draft_vocab_size` in their
/// config.json): a note says what such a head holds less than the count.
const EAGLE3_DRAFT_VOCAB: u64 = 32_000;

/// Bytes per batched token of the proposer's integer buffers: `input_ids` 4, `positions` 8,
/// `arange` 4, `_slot_mapping_buffer` 8.
const INDEX_BYTES_PER_TOKEN: u64 = 24;

impl Run<'_> {
    /// The drafter's parameters on one GPU when its layers are split over `tp` GPUs, its
    /// attention layers, their KV bytes per token on this GPU and its hidden size.
    pub(in crate::estimate) fn drafter_shape(
        &self,
        s: &Speculative,
        tp: u64,
    ) -> Option<(u64, u64, u64, u64)> {
        let a = &self.arch;
        let h = a.hidden_size;
        let q = a.num_heads.saturating_mul(a.head_dim);
        let kv = a.num_kv_heads.saturating_mul(a.head_dim);
        let mlp = if a.gated_ffn { 3 } else { 2 } * h.saturating_mul(a.intermediate_size);
        let bias = if a.qkv_bias { q + 2 * kv } else { 0 };
        // An EAGLE layer: the attention (its input `input` wide), the MLP and its norms over tp;
        // `fc` replicated on every GPU (the safe side where vLLM shards it).
        let layer = |input: u64, norms: u64, fc: u64| {
            (input * (q + 2 * kv) + q * h + mlp + bias).div_ceil(tp) + norms * h + fc * h * h
        };
        let target_kv = self.target_kv_per_layer(a.num_kv_heads, a.head_dim);
        Some(match s.method {
            SpecMethod::Ngram => (0, 0, 0, 0),
            // The model's own MTP layers: SGLang's NEXTN alone (`sglang/speculative.rs`), refused
            // for vLLM when the workload is resolved.
            SpecMethod::Mtp => return None,
            SpecMethod::DraftModel => {
                let d = s.draft.as_ref()?;
                let bytes = crate::estimate::per_gpu_weight_bytes(
                    d,
                    self.dtype,
                    &Quantization::None,
                    tp,
                    1,
                );
                (
                    bytes / self.act_bytes(),
                    d.num_layers,
                    self.target_kv_per_layer(d.num_kv_heads, d.head_dim),
                    d.hidden_size,
                )
            }
            // One layer of the target's shape, `fc` 2 × hidden → hidden (with its bias, h).
            SpecMethod::Eagle => (layer(h, 2, 2) + h, 1, target_kv, h),
            // The attention reads [embedding; hidden] (2 × hidden), `fc` fuses three of the
            // target's layers (3 × hidden → hidden), four norms, its own LM head over the
            // target's vocabulary (the safe side of a smaller draft vocabulary).
            SpecMethod::Eagle3 => (
                layer(2 * h, 4, 3) + a.vocab_size.saturating_mul(h).div_ceil(tp),
                1,
                target_kv,
                h,
            ),
        })
    }

    /// The drafter on this GPU, `None` without speculative decoding.
    pub(in crate::estimate) fn vllm_drafter(&self) -> Option<DrafterFigures> {
        // A build without the `speculative` feature refuses its settings: no run has a drafter.
        if !cfg!(feature = "speculative") {
            return None;
        }
        let s: &Speculative = self.speculative.as_ref()?;
        let db = self.act_bytes();
        let (params, kv_layers, kv_per_layer, hidden) = self.drafter_shape(s, self.tp.max(1))?;
        let weights = params.saturating_mul(db);
        // A draft model also keeps two bool masks of the batched tokens.
        let index_bytes = INDEX_BYTES_PER_TOKEN
            + if s.method == SpecMethod::DraftModel {
                2
            } else {
                0
            };
        let buffers = if s.method == SpecMethod::Ngram {
            0
        } else {
            self.max_num_batched_tokens
                .saturating_mul(index_bytes + 2 * hidden * db)
                .saturating_add(4 * self.max_num_seqs)
        };
        Some(DrafterFigures {
            method: s.method,
            params,
            weights,
            buffers,
            kv_layers,
            kv_per_layer,
            hidden,
            index_bytes,
        })
    }

    /// KV bytes per token of one attention layer with `kv_heads` heads of `head_dim` on this
    /// GPU, in the run's KV dtype.
    fn target_kv_per_layer(&self, kv_heads: u64, head_dim: u64) -> u64 {
        let split = self.tp.min(kv_heads.max(1));
        let elems = (2 * kv_heads * head_dim) / split;
        self.kv_dtype.bytes_for(elems, self.act_kv_dtype())
    }

    /// The drafter's formula.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn vllm_drafter_text(&self, d: &DrafterFigures) -> Formula {
        formula!(self.text;
            let (method, params, db, weights) = (d.method.name(), thousands(d.params), self.act_bytes(), b(d.weights));
            let (tokens, hidden, index, seqs, buffers, size) = (thousands(self.max_num_batched_tokens), thousands(d.hidden), d.index_bytes, thousands(self.max_num_seqs), b(d.buffers), b(d.bytes()));
            ["{method}: {params} parameters × {db} B = {weights}; + the proposer's buffers {tokens} batched tokens × (2 × {hidden} hidden × {db} B + {index} B of indices) + {seqs} sequences × 4 B = {buffers}; {size}"],
            ["{method}：{params} 个参数 × {db} B = {weights}；+ 提议器缓冲 {tokens} 个批处理 token × (2 × {hidden} 隐藏维度 × {db} B + {index} B 索引) + {seqs} 个序列 × 4 B = {buffers}；{size}"]
        )
    }

    /// The drafter's component and the notes on what speculative decoding adds.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn vllm_drafter_components(&self, d: &DrafterFigures, p: &mut Parts) {
        if d.method != SpecMethod::Ngram {
            p.add(
                ComponentKind::Drafter,
                d.bytes(),
                true,
                self.vllm_drafter_text(d),
                en_str!("The speculative drafter's weights and buffers (--speculative-config), loaded beside the target out of the pool's budget."),
                zh_str!("投机解码草稿器的权重与缓冲（--speculative-config），与目标模型一同加载，从 KV 池预算中扣除。"),
            );
        }
        let Some(s) = self.speculative.as_ref() else {
            return;
        };
        let (k, verify, layers, per) = (
            s.tokens,
            s.tokens + 1,
            d.kv_layers,
            thousands(d.kv_per_layer),
        );
        let method = d.method.name();
        self.vllm_drafter_notes(s, d, p);
        if d.method == SpecMethod::Ngram {
            p.note(
                "vllm_speculative",
                en!("Speculative decoding (ngram, {k} tokens): n-grams of the context are drafted on the CPU, with no weights and no KV on the GPU; each step the target verifies {verify} tokens per running sequence inside max_num_batched_tokens, whose profile run is counted."),
                zh!("投机解码（ngram，{k} 个 token）：在 CPU 上从上下文的 n-gram 草拟，GPU 上没有权重也没有 KV；每步目标模型为每个运行中的序列验证 {verify} 个 token，计入 max_num_batched_tokens，其剖析运行已计入。"),
            );
            return;
        }
        p.note(
            "vllm_speculative",
            en!("Speculative decoding ({method}, {k} tokens): the drafter's {layers} attention layer(s) take their KV from the same pool ({per} B per token each), so the pool holds fewer tokens; each step the target verifies {verify} tokens per running sequence inside max_num_batched_tokens, whose profile run is counted. An EAGLE head's fc is counted on every GPU, and an EAGLE-3 head's LM head over the target's whole vocabulary: the safe side."),
            zh!("投机解码（{method}，{k} 个 token）：草稿器的 {layers} 个注意力层从同一个 KV 池取缓存（每层每 token {per} B），池中可容纳的 token 因此减少；每步目标模型为每个运行中的序列验证 {verify} 个 token，计入 max_num_batched_tokens，其剖析运行已计入。EAGLE 头的 fc 按每张 GPU 各一份计入，EAGLE-3 头的输出层按目标模型的完整词表计入：偏安全的一侧。"),
        );
    }

    /// What the drafter's count leaves out, in bytes: a smaller EAGLE-3 vocabulary, and the
    /// whole drafter on every GPU with vLLM's `draft_tensor_parallel_size` 1.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    fn vllm_drafter_notes(&self, s: &Speculative, d: &DrafterFigures, p: &mut Parts) {
        let (tp, db) = (self.tp.max(1), self.act_bytes());
        // EAGLE-3 heads mostly draft from a 32,000-token vocabulary (`draft_vocab_size`).
        let vocab = self.arch.vocab_size;
        if s.method == SpecMethod::Eagle3 && vocab > EAGLE3_DRAFT_VOCAB {
            let rows = vocab - EAGLE3_DRAFT_VOCAB;
            let less = b(rows
                .saturating_mul(self.arch.hidden_size)
                .div_ceil(tp)
                .saturating_mul(db));
            let (vocab, draft) = (thousands(vocab), thousands(EAGLE3_DRAFT_VOCAB));
            p.note(
                "vllm_eagle3_vocab",
                en!("The EAGLE-3 head's LM head is counted over the target's {vocab} tokens; a head with draft_vocab_size {draft} in its config.json holds {less} less per GPU."),
                zh!("EAGLE-3 头的输出层按目标模型的 {vocab} 个 token 计入；config.json 中 draft_vocab_size 为 {draft} 的头每张 GPU 少占 {less}。"),
            );
        }
        // vLLM's draft_tensor_parallel_size 1 keeps the whole drafter on every GPU.
        let whole = self.drafter_shape(s, 1).map_or(0, |w| w.0);
        if tp > 1 && whole > d.params {
            let more = b(whole.saturating_sub(d.params).saturating_mul(db));
            p.note(
                "vllm_speculative_tp",
                en!("The drafter is counted split over the {tp} GPUs as the target is (draft_tensor_parallel_size {tp}); with draft_tensor_parallel_size 1 in --speculative-config every GPU holds all of it: {more} more per GPU, out of the pool."),
                zh!("草稿器按与目标模型相同的方式切分到 {tp} 张 GPU 上计算（draft_tensor_parallel_size {tp}）；若 --speculative-config 中 draft_tensor_parallel_size 为 1，每张 GPU 都持有完整的草稿器：每张 GPU 多 {more}，从 KV 池中扣除。"),
            );
        }
    }

    /// The drafter's KV bytes per token on this GPU (0 without one): what each token of the
    /// pool holds beside the target's.
    pub(in crate::estimate) fn drafter_kv_per_token(&self) -> u64 {
        self.vllm_drafter()
            .map_or(0, |d| d.kv_layers.saturating_mul(d.kv_per_layer))
    }
}

#[cfg(test)]
#[path = "speculative_tests.rs"]
mod tests;
