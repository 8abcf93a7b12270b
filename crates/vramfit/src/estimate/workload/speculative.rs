//! Speculative decoding's settings (vLLM `--speculative-config`: `method`, `model`,
//! `num_speculative_tokens`) and the acceptance rate the speed reads, checked into a
//! [`Speculative`].

use super::{ModelLookup, int};
use crate::error::Result;
use crate::estimate::{EstimateInput, SpecMethod};
use crate::model::Architecture;
use crate::precision::Quantization;
use alloc::string::{String, ToString};

/// The most tokens drafted per step that vramfit takes (vLLM sets no bound; beyond 16 the
/// expected tokens per step grow by less than α^16 each).
pub const MAX_SPECULATIVE_TOKENS: u64 = 16;

/// The largest acceptance rate taken: at 1 every drafted token would be accepted and the
/// expected tokens per step, (1 − α^(k+1)) / (1 − α), is k + 1.
pub const MAX_ACCEPTANCE: f64 = 0.99;

/// Speculative decoding as the run does it.
#[derive(Clone, Debug, PartialEq)]
pub struct Speculative {
    /// vLLM's method.
    pub method: SpecMethod,
    /// `--speculative-config`'s `model`: the draft's preset id, or an EAGLE head's repository
    /// (what the command names; the head's shape is the target's).
    pub model: Option<String>,
    /// `draft_model`'s architecture (the other methods have none). Boxed: an architecture is
    /// large (some 750 bytes), and every run's workload, which holds this, moves whole from
    /// step to step of its resolution and out of it; without the box it would carry one more
    /// architecture's room that all but a draft model leave empty.
    pub draft: Option<alloc::boxed::Box<Architecture>>,
    /// `num_speculative_tokens`: k, the tokens drafted per step.
    pub tokens: u64,
    /// α, the chance the target accepts one drafted token, when given.
    pub acceptance: Option<f64>,
}

impl EstimateInput {
    /// `speculative_method` and its settings (with the `speculative` feature): vLLM and SGLang
    /// serving (SGLang's limits in `speculative_sglang.rs`); `draft_model` for the
    /// `draft_model` method alone, a 16-bit preset with the target's vocabulary; an EAGLE head
    /// beside a dense decoder with full attention, whose shape it takes.
    pub(super) fn resolve_speculative(
        &self,
        arch: &Architecture,
        models: ModelLookup<'_>,
        sglang: crate::estimate::SglangVersion,
    ) -> Result<Option<Speculative>> {
        // A build without the `speculative` feature reads none of them, and refuses the first
        // given ([`super::checks::not_built`]).
        if !cfg!(feature = "speculative") {
            let given = [
                (
                    "speculative_method",
                    self.serving.speculative_method.is_some(),
                ),
                ("draft_model", self.serving.draft_model.is_some()),
                (
                    "num_speculative_tokens",
                    self.serving.num_speculative_tokens.is_some(),
                ),
                ("acceptance_rate", self.serving.acceptance_rate.is_some()),
            ];
            return match given.iter().find(|(_, g)| *g) {
                Some((field, _)) => Err(super::checks::not_built(field)),
                None => Ok(None),
            };
        }
        let Some(method) = self.serving.speculative_method else {
            for (field, given) in [
                ("draft_model", self.serving.draft_model.is_some()),
                (
                    "num_speculative_tokens",
                    self.serving.num_speculative_tokens.is_some(),
                ),
                ("acceptance_rate", self.serving.acceptance_rate.is_some()),
            ] {
                if given {
                    return Err(input_error!(
                        Conflict,
                        field,
                        ["{field} is read with speculative_method only"],
                        ["{field} 仅在设置 speculative_method 时读取"],
                        "speculative_method (vLLM --speculative-config's method), or no speculative setting",
                        "设置 speculative_method（vLLM --speculative-config 的 method），或不设投机解码参数",
                    ));
                }
            }
            return Ok(None);
        };
        if !self.runner().serves_speculative() {
            let name = self.runner().rules().name;
            return Err(input_error!(
                Unsupported,
                "speculative_method",
                ["speculative decoding is modelled for vLLM and SGLang serving only, not {name}"],
                ["投机解码仅对 vLLM 与 SGLang 服务部署建模，不含 {name}"],
                "mode serve with engine vllm or sglang, or no speculative_method",
                "serve 模式并选 vllm 或 sglang 引擎，或不设 speculative_method",
            ));
        }
        if self.runner() == crate::estimate::Runner::Sglang {
            super::speculative_sglang::check(
                method,
                arch,
                sglang,
                self.serving.disaggregation_mode.is_some(),
            )?;
        }
        let tokens = match self.serving.num_speculative_tokens {
            Some(v) => int("num_speculative_tokens", v, 1, MAX_SPECULATIVE_TOKENS)?,
            None => {
                return Err(input_error!(
                    Missing,
                    "num_speculative_tokens",
                    "speculative decoding needs the tokens drafted per step",
                    "投机解码需要每步草拟的 token 数",
                    "1 to 16 (vLLM --speculative-config's num_speculative_tokens)",
                    "1 到 16（vLLM --speculative-config 的 num_speculative_tokens）",
                ));
            }
        };
        let acceptance = match self.serving.acceptance_rate {
            Some(a) if a.is_finite() && (0.0..=MAX_ACCEPTANCE).contains(&a) => Some(a),
            Some(a) => {
                // As error messages write numbers: core's float formatter stays out of the
                // modules that format no other float.
                let a = crate::units::number_text(a);
                return Err(input_error!(
                    OutOfRange,
                    "acceptance_rate",
                    ["{a} is not a chance below 1"],
                    ["{a} 不是小于 1 的概率"],
                    "0 to 0.99",
                    "0 到 0.99",
                ));
            }
            None => None,
        };
        let model = self
            .serving
            .draft_model
            .as_ref()
            .map(|m| m.trim().to_string());
        let draft = match (method, &model) {
            (SpecMethod::DraftModel, Some(id)) => {
                Some(alloc::boxed::Box::new(draft_preset(id, arch, models)?))
            }
            (SpecMethod::DraftModel, None) => {
                return Err(input_error!(
                    Missing,
                    "draft_model",
                    "the draft_model method needs the draft's preset",
                    "draft_model 方法需要草稿模型的预设",
                    "a preset id with the target's vocabulary, e.g. meta-llama/Llama-3.2-1B-Instruct",
                    "与目标模型词表相同的预设模型 id，如 meta-llama/Llama-3.2-1B-Instruct",
                ));
            }
            (SpecMethod::Ngram, Some(_)) => {
                return Err(input_error!(
                    Conflict,
                    "draft_model",
                    "ngram drafts from the context, without a model",
                    "ngram 从上下文草拟，不使用模型",
                    "no draft_model with ngram; a preset with draft_model, an EAGLE head's repository with eagle or eagle3",
                    "ngram 不给 draft_model；draft_model 方法给预设，eagle 或 eagle3 给 EAGLE 头的仓库",
                ));
            }
            // An EAGLE head's repository: named in the command, its shape the target's.
            (_, Some(_)) | (_, None) => None,
        };
        if method == SpecMethod::Mtp {
            mtp_target(arch, self.runner())?;
        }
        if matches!(method, SpecMethod::Eagle | SpecMethod::Eagle3) && !plain_decoder(arch) {
            return Err(input_error!(
                Unsupported,
                "speculative_method",
                "EAGLE heads are modelled beside dense decoders with full attention (one layer of the target's shape): this model has routed experts, MLA, state layers, sliding windows, an encoder, or no known layers",
                "EAGLE 头仅对全注意力的稠密解码器建模（一层与目标模型同形）：此模型含路由专家、MLA、状态层、滑动窗口、编码器，或层结构未知",
                "a dense decoder, or speculative_method ngram or draft_model",
                "稠密解码器，或 speculative_method 为 ngram 或 draft_model",
            ));
        }
        Ok(Some(Speculative {
            method,
            model,
            draft,
            tokens,
            acceptance,
        }))
    }
}

/// The `mtp` method: SGLang's NEXTN, drafting with the target's own multi-token-prediction
/// layers (`Architecture::mtp_layers`, from `num_nextn_predict_layers`), each a routed-expert
/// decoder layer as SGLang's NextN models build it (`DeepseekV2DecoderLayer` and
/// `Glm4MoeDecoderLayer` with `is_nextn=True`, sglang 0.5.23). vLLM's `mtp` is not modelled.
fn mtp_target(arch: &Architecture, runner: crate::estimate::Runner) -> Result<()> {
    if runner != crate::estimate::Runner::Sglang {
        return Err(input_error!(
            Unsupported,
            "speculative_method",
            "mtp (the model's own multi-token-prediction layers) is modelled for SGLang's --speculative-algorithm NEXTN only, not vLLM's mtp",
            "mtp（模型自带的多 token 预测层）仅对 SGLang 的 --speculative-algorithm NEXTN 建模，不含 vLLM 的 mtp",
            "engine sglang, or speculative_method ngram, draft_model, eagle or eagle3",
            "sglang 引擎，或 speculative_method 为 ngram、draft_model、eagle 或 eagle3",
        ));
    }
    if arch.mtp_layers == 0 || !arch.is_detailed() {
        return Err(input_error!(
            Unsupported,
            "speculative_method",
            "mtp drafts with the checkpoint's multi-token-prediction layers (num_nextn_predict_layers in its config.json): this model has none",
            "mtp 用检查点自带的多 token 预测层草拟（config.json 中的 num_nextn_predict_layers）：此模型没有",
            "a model with num_nextn_predict_layers (DeepSeek-V3/R1, GLM-4.5), or another speculative_method",
            "含 num_nextn_predict_layers 的模型（DeepSeek-V3/R1、GLM-4.5），或其他 speculative_method",
        ));
    }
    if arch.moe.is_none() {
        return Err(input_error!(
            Unsupported,
            "speculative_method",
            "mtp is modelled for the routed-expert models whose NextN layer SGLang builds as a decoder layer of their own (DeepSeek-V3/R1, GLM-4.5): this model has no routed experts",
            "mtp 仅对 SGLang 将其 NextN 层按自身解码层构建的路由专家模型建模（DeepSeek-V3/R1、GLM-4.5）：此模型没有路由专家",
            "a routed-expert model with num_nextn_predict_layers, or another speculative_method",
            "含 num_nextn_predict_layers 的路由专家模型，或其他 speculative_method",
        ));
    }
    Ok(())
}

/// A dense decoder whose every layer attends to the whole context: the shape an EAGLE head
/// copies.
fn plain_decoder(a: &Architecture) -> bool {
    a.is_detailed()
        && a.is_generative()
        && a.encoder_layers == 0
        && a.moe.is_none()
        && a.mla.is_none()
        && a.hybrid.is_none()
        && a.indexer.is_none()
        && a.sliding_window == 0
}

/// The draft's preset: known, a 16-bit checkpoint, a decoder with full attention, and the
/// target's vocabulary (vLLM verifies drafted ids against the target's logits).
fn draft_preset(id: &str, target: &Architecture, models: ModelLookup<'_>) -> Result<Architecture> {
    let Some((_, draft, shipped)) = models(id) else {
        return Err(input_error!(
            UnknownModel,
            "draft_model",
            ["no preset named `{id}`"],
            ["没有这个预设模型：`{id}`"],
            "a preset id with the target's vocabulary, e.g. meta-llama/Llama-3.2-1B-Instruct",
            "与目标模型词表相同的预设模型 id，如 meta-llama/Llama-3.2-1B-Instruct",
        ));
    };
    if shipped != Quantization::None || !plain_decoder(&draft) {
        return Err(input_error!(
            Unsupported,
            "draft_model",
            ["`{id}` is not a 16-bit dense decoder with full attention"],
            ["`{id}` 不是 16 位、全注意力的稠密解码器"],
            "a 16-bit dense decoder preset, e.g. meta-llama/Llama-3.2-1B-Instruct",
            "16 位稠密解码器预设，如 meta-llama/Llama-3.2-1B-Instruct",
        ));
    }
    if draft.vocab_size != target.vocab_size {
        let (d, t) = (draft.vocab_size, target.vocab_size);
        return Err(input_error!(
            Conflict,
            "draft_model",
            ["`{id}` has {d} tokens in its vocabulary, the target {t}"],
            ["`{id}` 的词表有 {d} 个 token，目标模型有 {t} 个"],
            "a draft with the target's vocabulary (the same tokenizer)",
            "与目标模型词表相同（同一分词器）的草稿模型",
        ));
    }
    Ok(draft)
}
