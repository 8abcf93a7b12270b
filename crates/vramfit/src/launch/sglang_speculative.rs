//! SGLang's speculative flags (0.5.23, `arg_groups/fields/`: `--speculative-algorithm` — EAGLE,
//! EAGLE3, STANDALONE and NEXTN, the last without a draft path —,
//! `--speculative-draft-model-path`, `--speculative-num-steps`, `--speculative-eagle-topk`,
//! `--speculative-num-draft-tokens`): written from the run's speculative decoding and read back
//! into the estimate's input.

use alloc::string::ToString;

use super::flags::{Setting, SpecFlag};
use super::serve::Args;
use crate::error::Result;
use crate::estimate::{EstimateInput, SpecMethod, Speculative};

/// `s`'s flags onto `a`: the algorithm, the draft's path, `num_speculative_tokens` steps of one
/// token each (`--speculative-eagle-topk 1`), whose verify holds steps + 1 tokens (SGLang sets
/// `--speculative-num-draft-tokens` so with top-k 1, `_handle_eagle_family`).
pub(super) fn write(s: &Speculative, a: &mut Args<'_>) -> Result<()> {
    let Some(algorithm) = crate::estimate::sglang_speculative_algorithm(s.method) else {
        let name = s.method.name();
        return Err(crate::input_error!(
            Unsupported,
            "speculative_method",
            ["SGLang's {name} is not modelled"],
            ["未建模 SGLang 的 {name}"],
            "eagle, eagle3, draft_model or mtp",
            "eagle、eagle3、draft_model 或 mtp",
        ));
    };
    // NEXTN's draft is the target's own checkpoint: SGLang takes --model-path when no draft
    // path is given (`_handle_eagle_family`, for DeepSeek-V3/R1 and GLM-4.5).
    if s.method == SpecMethod::Mtp && s.model.is_none() {
        a.set(Setting::SglangSpeculative(SpecFlag::Algorithm), algorithm);
        write_steps(s, a);
        return Ok(());
    }
    let Some(path) = &s.model else {
        return Err(crate::input_error!(
            Missing,
            "draft_model",
            ["SGLang's {algorithm} needs the draft's path in --speculative-draft-model-path"],
            ["SGLang 的 {algorithm} 需要在 --speculative-draft-model-path 中给出草稿模型的路径"],
            "the draft's repository, e.g. yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
            "草稿模型的仓库，如 yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
        ));
    };
    a.set(Setting::SglangSpeculative(SpecFlag::Algorithm), algorithm);
    a.set(Setting::SglangSpeculative(SpecFlag::DraftPath), path);
    write_steps(s, a);
    Ok(())
}

/// The steps, top-k 1 and the verify's steps + 1 tokens.
fn write_steps(s: &Speculative, a: &mut Args<'_>) {
    a.set(Setting::SglangSpeculative(SpecFlag::Steps), s.tokens);
    a.set(Setting::SglangSpeculative(SpecFlag::Topk), 1);
    a.set(
        Setting::SglangSpeculative(SpecFlag::DraftTokens),
        s.tokens + 1,
    );
}

/// One of SGLang's speculative flags, `flag value`, onto `i`.
pub(super) fn read(which: SpecFlag, flag: &str, value: &str, i: &mut EstimateInput) -> Result<()> {
    match which {
        SpecFlag::Algorithm => {
            i.serving.speculative_method = Some(method(flag, value)?);
        }
        SpecFlag::DraftPath => i.serving.draft_model = Some(value.to_string()),
        SpecFlag::Steps => {
            i.serving.num_speculative_tokens = Some(super::read::number(flag, value)?)
        }
        SpecFlag::Topk => {
            // Tree drafting (top-k above 1) widens every step's buffers: not modelled.
            if value.trim() != "1" {
                return Err(crate::input_error!(
                    Unsupported,
                    "command",
                    ["{flag} {value}: tree drafting is not modelled"],
                    ["{flag} {value}：未对树状草拟建模"],
                    ["{flag} 1"],
                    ["{flag} 1"],
                ));
            }
        }
        // With top-k 1 (the only one taken) SGLang sets it to the steps + 1 itself
        // (`_handle_eagle_family`): it changes no figure.
        SpecFlag::DraftTokens => {}
    }
    Ok(())
}

/// `--speculative-algorithm`'s value as the estimate's method.
fn method(flag: &str, value: &str) -> Result<SpecMethod> {
    match value.trim().to_ascii_uppercase().as_str() {
        "EAGLE" => Ok(SpecMethod::Eagle),
        "EAGLE3" => Ok(SpecMethod::Eagle3),
        "STANDALONE" => Ok(SpecMethod::DraftModel),
        // SGLang 0.5.23 resolves NEXTN to EAGLE over the model's own MTP layers
        // (`_resolve_speculative_algorithm_alias`); it has no `MTP` spelling
        // (`spec_registry._RESERVED_ALIASES` holds NEXTN alone).
        "NEXTN" => Ok(SpecMethod::Mtp),
        "MTP" => Err(crate::input_error!(
            Unsupported,
            "speculative_method",
            [
                "{flag} {value}: SGLang 0.5.23 spells the model's own multi-token-prediction drafting NEXTN (MTP is not one of its algorithms)"
            ],
            [
                "{flag} {value}：SGLang 0.5.23 把用模型自带多 token 预测层草拟写作 NEXTN（MTP 不是其算法名）"
            ],
            ["{flag} NEXTN"],
            ["{flag} NEXTN"],
        )),
        _ => Err(crate::input_error!(
            Unsupported,
            "speculative_method",
            ["{flag} {value} is not modelled (NGRAM, DFLASH and the others are not)"],
            ["未建模 {flag} {value}（NGRAM、DFLASH 等均未建模）"],
            "EAGLE, EAGLE3, STANDALONE or NEXTN",
            "EAGLE、EAGLE3、STANDALONE 或 NEXTN",
        )),
    }
}

#[cfg(test)]
#[path = "sglang_speculative_tests.rs"]
mod tests;
