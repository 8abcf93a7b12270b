//! llama.cpp's embedding and reranking runs (`llama-server --embedding`, `--pooling
//! {none,mean,cls,last,rank}`, `--reranking`): what changes against a generation run.
//!
//! Read in llama.cpp's source as of 2026 (a tree with DeepSeek-V4 support, found by its text;
//! its commit is not known, so no line numbers are given) and in ggml-org/llama.cpp issue
//! #24713 (closed 2026: in embeddings mode the LM head runs on every architecture but `llama`):
//! - `llama_model::create_memory` (`src/llama-model.cpp`) returns no memory at all for the
//!   encoder architectures `LLM_ARCH_BERT` (BERT, RoBERTa and XLM-RoBERTa, bge-m3, convert to
//!   it), `JINA_BERT_V2/V3`, `NOMIC_BERT(_MOE)`, `NEO_BERT`, `EUROBERT`, `MODERN_BERT` and
//!   `GEMMA_EMBEDDING`: no KV cache. A decoder that pools (Qwen3-Embedding, a `qwen3` GGUF) takes
//!   the `default` branch: the same `llama_kv_cache` of `-c` cells as for generation.
//! - `server_n_outputs_max` (`tools/server/server-context.cpp`) returns `n_batch` when
//!   `params.embedding` or a pooling type is set, so the prompt graph is reserved with
//!   `n_outputs = min(n_ubatch, n_outputs_max)` = every token of the ubatch an output (pooling
//!   reads each token's embedding), not one per sequence.
//! - A decoder's graph still ends in its output matrix (`res->t_logits`, `build_pooling` only
//!   adds the pooled tensor beside `t_embd`): ubatch × (vocab + hidden) × 4 B at the output, as
//!   before llama.cpp PR #23861. An encoder's graph ends at `t_embd`: ubatch × hidden × 4 B.
//! - A non-causal model's input is one ubatch: llama-server answers a longer one "input (N
//!   tokens) is too large to process. increase the physical batch size", and sets `n_batch =
//!   n_ubatch` for it; with no cache its attention spans the ubatch alone (mask ubatch ×
//!   ubatch).

use super::{Parts, Run};
use crate::model::Family;

impl Run<'_> {
    /// Whether llama.cpp keeps no KV cache for this run: a pooling run of an encoder
    /// (`create_memory` returns none for its architecture), EmbeddingGemma's `gemma-embedding`
    /// included: its graph (`src/models/gemma-embedding.cpp` at e062ff9c) attends through
    /// `build_attn_inp_no_cache` and ends at `res->t_embd`, the output norm, with no output
    /// matrix.
    pub(super) fn llamacpp_cacheless(&self) -> bool {
        self.pooling && (self.arch.family == Family::Bert || self.arch.bidirectional)
    }

    /// The cells the graph attends over for a context of `ctx`: the ubatch itself where there
    /// is no cache (the input is one ubatch), else the context.
    pub(super) fn llamacpp_attended(&self, ctx: u64) -> u64 {
        if self.llamacpp_cacheless() {
            self.ubatch.min(ctx.max(1))
        } else {
            ctx
        }
    }

    /// The outputs the prompt graph is reserved for: every token of the ubatch in a pooling run
    /// (`server_n_outputs_max` is `n_batch` with `--embedding`), else `per_sequence`'s answer.
    pub(super) fn llamacpp_outputs(&self, ubatch: u64, per_sequence: bool) -> u64 {
        if per_sequence && !self.pooling {
            self.batch.clamp(1, ubatch)
        } else {
            ubatch
        }
    }

    /// The f32 values each output row holds at the graph's end: the logits and the hidden
    /// state, or an encoder's hidden state alone (it has no output matrix).
    pub(super) fn llamacpp_output_width(&self) -> u64 {
        let a = &self.arch;
        if self.llamacpp_cacheless() {
            a.hidden_size
        } else {
            a.vocab_size.saturating_add(a.hidden_size)
        }
    }

    /// The note of a pooling run: what llama-server keeps and why, in both languages.
    pub(super) fn llamacpp_pooling_note(&self, p: &mut Parts) {
        if !self.pooling {
            return;
        }
        let (ub, seq) = (self.ubatch, self.seq_len);
        if self.llamacpp_cacheless() {
            p.note(
                "llamacpp_pooling",
                en!(
                    "llama-server --embedding with an encoder: no KV cache (llama.cpp creates no memory for BERT-family architectures and EmbeddingGemma's gemma-embedding), every token of the ubatch an output, and each input in one ubatch (-ub {ub} ≥ {seq} tokens): -ub bounds the longest input."
                ),
                zh!(
                    "llama-server --embedding 运行编码器：没有 KV 缓存（llama.cpp 不为 BERT 系架构与 EmbeddingGemma 的 gemma-embedding 创建缓存），ubatch 中每个 token 都是输出，每条输入放在一个 ubatch 内（-ub {ub} ≥ {seq} 个 token）：-ub 决定最长的输入。"
                ),
            );
        } else {
            p.note(
                "llamacpp_pooling",
                en!(
                    "llama-server --embedding with a decoder: the KV cache of the whole context as for generation, every token of the ubatch an output, and the output matrix still in the graph (its logits counted, {ub} × vocabulary × 4 B)."
                ),
                zh!(
                    "llama-server --embedding 运行解码器：与生成相同，整个上下文的 KV 缓存；ubatch 中每个 token 都是输出，计算图中仍有输出矩阵（计入其 logits，{ub} × 词表 × 4 B）。"
                ),
            );
        }
    }
}
