//! Embedding, reranking and classification runs (`runner: pooling`): which engines run them,
//! and what a pooling run changes in the workload before any run shape reads it.

use crate::error::Result;
use crate::estimate::{EstimateInput, Runner, RunnerType};
use crate::model::{Architecture, Family};

impl EstimateInput {
    /// Whether the run pools: `runner` as given, else an encoder (BERT, RoBERTa, XLM-RoBERTa)
    /// on an engine that runs pooling models, or a preset that ships sentence-transformers'
    /// pooling config (Qwen3-Embedding) where the engine's own default pools it (vLLM). A pooling run where the engine runs none is
    /// refused by the engine's name, and `generate` with an encoder, which has no LM head. A
    /// pooling decoder loses its LM head where the engine does not build it (vLLM,
    /// transformers' `AutoModel`): `arch.tied_embeddings` is set, which leaves the head out of
    /// the tensors and nothing else a pooling run reads (no logits are formed).
    pub(super) fn resolve_pooling(&self, arch: &mut Architecture) -> Result<bool> {
        let runner = self.runner();
        // An encoder, or a decoder whose attention is bidirectional (EmbeddingGemma), which
        // the engines run as one.
        let encoder = arch.family == Family::Bert || arch.bidirectional;
        // TensorRT-LLM and mlx-lm serve decoders that generate: an encoder or EmbeddingGemma
        // there would be sized as a generation run with no cache, a run neither performs
        // (mlx-lm loads `gemma3_text` as a causal decoder; its embedding models are the
        // separate mlx-embeddings package). Refused by the engine, whatever the runner.
        if encoder && matches!(runner, Runner::Trtllm | Runner::Mlx) {
            let name = runner.rules().name;
            return Err(input_error!(
                Unsupported,
                "engine",
                [
                    "{name} is not modelled for embedding models (an encoder, or EmbeddingGemma's bidirectional decoder): it serves generating decoders"
                ],
                [
                    "{name} 未对嵌入模型（编码器，或 EmbeddingGemma 的双向解码器）建模：它服务生成式解码器"
                ],
                "engine vllm (--runner pooling), llamacpp (--embedding), ollama, tei or hf inference",
                "engine 用 vllm（--runner pooling）、llamacpp（--embedding）、ollama、tei 或 hf 推理",
            ));
        }
        let pooling = match self.run.runner {
            Some(RunnerType::Pooling) => true,
            Some(RunnerType::Generate) if encoder => {
                return Err(input_error!(
                    Conflict,
                    "runner",
                    "generate with an encoder (BERT, RoBERTa, XLM-RoBERTa): it has no LM head to generate with",
                    "编码器（BERT、RoBERTa、XLM-RoBERTa）不能用 generate：它没有可用于生成的 LM head",
                    "pooling, or no runner",
                    "pooling，或不设 runner",
                ));
            }
            Some(RunnerType::Generate) if runner.pooling().is_some_and(|how| how.only) => {
                let name = runner.rules().name;
                return Err(input_error!(
                    Unsupported,
                    "runner",
                    [
                        "{name} serves embedding, reranking and classification models alone: it generates no tokens"
                    ],
                    ["{name} 只服务嵌入、重排序与分类模型：不生成 token"],
                    "pooling, or no runner",
                    "pooling，或不设 runner",
                ));
            }
            Some(RunnerType::Generate) => false,
            // The preset is looked up (a second search) only where the engine's default pools a
            // decoder that ships a pooling config; an engine that runs pooling models alone (TEI)
            // pools whatever the model.
            None => runner.pooling().is_some_and(|how| {
                how.only
                    || encoder
                    || (how.auto
                        && self
                            .model
                            .model
                            .as_deref()
                            .and_then(|id| crate::presets::find(id.trim()))
                            .is_some_and(|p| p.pooling))
            }),
        };
        if !pooling {
            return Ok(false);
        }
        let Some(how) = runner.pooling() else {
            let name = runner.rules().name;
            return Err(input_error!(
                Unsupported,
                "runner",
                [
                    "pooling (embedding and reranking) runs are modelled for vLLM, SGLang, llama.cpp, Ollama, Text Embeddings Inference and transformers inference, not {name}"
                ],
                [
                    "池化（嵌入与重排序）运行仅对 vLLM、SGLang、llama.cpp、Ollama、Text Embeddings Inference 与 transformers 推理建模，不含 {name}"
                ],
                "runner generate with this engine; engine vllm (--runner pooling), sglang (--is-embedding), llamacpp (--embedding), ollama, tei or hf inference",
                "这个引擎下用 runner generate；或用 vllm（--runner pooling）、sglang（--is-embedding）、llamacpp（--embedding）、ollama、tei 或 hf 推理",
            ));
        };
        if encoder && !how.encoders {
            let name = runner.rules().name;
            return Err(input_error!(
                Unsupported,
                "engine",
                [
                    "{name} sizes its token pool for an encoder too (it only leaves it unwritten): not modelled, and an estimate without it would be short by the pool"
                ],
                [
                    "{name} 对编码器也按比例分配 token 池（只是不写入）：尚未建模，不计它的估算会少掉整个池"
                ],
                "engine vllm (--runner pooling) or hf inference for an encoder (BERT, RoBERTa, XLM-RoBERTa)",
                "编码器（BERT、RoBERTa、XLM-RoBERTa）用 vllm（--runner pooling）或 hf 推理",
            ));
        }
        if let Some(check) = how.check {
            check(self, arch)?;
        }
        if arch.family == Family::CausalLm && !how.lm_head {
            arch.tied_embeddings = true;
        }
        Ok(true)
    }
}

impl EstimateInput {
    /// llama.cpp runs a non-causal model's input (an encoder's) in one ubatch: llama-server
    /// answers a longer one "input (N tokens) is too large to process. increase the physical
    /// batch size" (and sets `n_batch = n_ubatch` for it). A pooling run of an encoder whose
    /// `seq_len` exceeds the ubatch is refused: on llama.cpp naming the `-ub` it needs; on
    /// Ollama, whose ubatch for an embedding model is min(2,048, `num_ctx`) (`context`, the
    /// trained context bounding it), naming the longest input it takes.
    pub(super) fn check_llamacpp_pooling(
        &self,
        pooling: bool,
        arch: &Architecture,
        seq_len: u64,
        ubatch: u64,
        context: u64,
    ) -> Result<()> {
        if !pooling || (arch.family != Family::Bert && !arch.bidirectional) {
            return Ok(());
        }
        match self.runner() {
            crate::estimate::Runner::Llamacpp if seq_len > ubatch => Err(input_error!(
                Conflict,
                "ubatch",
                [
                    "llama.cpp runs an encoder's input in one ubatch (-ub): {seq_len} tokens an input do not fit -ub {ubatch}, and llama-server refuses the input (\"input is too large to process. increase the physical batch size\")"
                ],
                [
                    "llama.cpp 把编码器的一条输入放在一个 ubatch（-ub）里运行：每条输入 {seq_len} 个 token 放不进 -ub {ubatch}，llama-server 会拒绝该输入（\"input is too large to process. increase the physical batch size\"）"
                ],
                ["{seq_len} to 65536 (-ub {seq_len}), or a seq_len of at most {ubatch}"],
                ["{seq_len} 到 65536（-ub {seq_len}），或 seq_len 不超过 {ubatch}"],
            )),
            crate::estimate::Runner::Ollama => {
                let trained = arch.max_position_embeddings;
                let num_ctx = if trained > 0 {
                    context.min(trained)
                } else {
                    context
                };
                let batch = crate::estimate::ollama_embedding_batch(num_ctx);
                if seq_len <= batch {
                    return Ok(());
                }
                Err(input_error!(
                    Conflict,
                    "seq_len",
                    [
                        "Ollama runs an embedding model with a batch of min(2048, num_ctx) = {batch} tokens, and an encoder's input must fit one: llama-server refuses {seq_len} tokens (\"input is too large to process\")"
                    ],
                    [
                        "Ollama 以 min(2048, num_ctx) = {batch} 个 token 的批运行嵌入模型，编码器的一条输入必须放进一个批：llama-server 会拒绝 {seq_len} 个 token（\"input is too large to process\"）"
                    ],
                    ["1 to {batch} tokens an input"],
                    ["每条输入 1 到 {batch} 个 token"],
                ))
            }
            _ => Ok(()),
        }
    }
}
