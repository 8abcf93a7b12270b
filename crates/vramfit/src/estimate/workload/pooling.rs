//! Embedding, reranking and classification runs (`runner: pooling`): which engines run them,
//! and what a pooling run changes in the workload before any run shape reads it.

use crate::error::Result;
use crate::estimate::{EstimateInput, RunnerType};
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
        let encoder = arch.family == Family::Bert;
        let pooling = match self.runner {
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
            Some(RunnerType::Generate) => false,
            // The preset is looked up (a second search) only where the engine's default pools a
            // decoder that ships a pooling config.
            None => runner.pooling().is_some_and(|how| {
                encoder
                    || (how.auto
                        && self
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
                    "pooling (embedding and reranking) runs are modelled for vLLM, SGLang and transformers inference, not {name}"
                ],
                ["池化（嵌入与重排序）运行仅对 vLLM、SGLang 与 transformers 推理建模，不含 {name}"],
                "runner generate with this engine; engine vllm (--runner pooling), sglang (--is-embedding) or hf inference",
                "这个引擎下用 runner generate；或用 vllm（--runner pooling）、sglang（--is-embedding）或 hf 推理",
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
        if arch.family == Family::CausalLm && !how.lm_head {
            arch.tied_embeddings = true;
        }
        Ok(true)
    }
}
