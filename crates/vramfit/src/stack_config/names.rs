//! The words the stacks share: Hugging Face's optimizer names (`optim`, `OptimizerNames` in
//! transformers' `training_args.py`), dtypes, attention implementations and LoRA's target
//! modules, each turned into the estimator's terms.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::tree::Map;
use crate::error::Result;
use crate::estimate::{AttentionImpl, Optimizer};

/// An optimizer as the estimator counts it, and whether its step is fused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Optim {
    pub(super) optimizer: Optimizer,
    pub(super) fused: bool,
}

const fn optim(optimizer: Optimizer, fused: bool) -> Option<Optim> {
    Some(Optim { optimizer, fused })
}

/// Hugging Face's `optim` names (transformers 5.25 `OptimizerNames`) and the optimizer each
/// runs (`trainer_optimizer.py`: bitsandbytes for `*_8bit`, `paged_*` and `ademamix*`, torchao
/// for `adamw_torch_4bit`/`adamw_torch_8bit`, galore-torch for `galore_*`, schedulefree for
/// `schedule_free_adamw`).
pub(super) fn hf_optim(name: &str) -> Option<Optim> {
    match name {
        "adamw_torch" | "adamw_hf" | "adamw_torch_xla" | "adamw_anyprecision" => {
            optim(Optimizer::Adamw, false)
        }
        "adamw_torch_fused" | "adamw_torch_npu_fused" | "adamw_apex_fused" => {
            optim(Optimizer::Adamw, true)
        }
        "adamw_bnb_8bit" | "adamw_8bit" | "ao_adamw_8bit" | "adamw_torch_8bit" => {
            optim(Optimizer::Adamw8bit, false)
        }
        "paged_adamw_8bit" => optim(Optimizer::PagedAdamw8bit, false),
        "paged_adamw_32bit" => optim(Optimizer::PagedAdamw, false),
        "adamw_torch_4bit" => optim(Optimizer::Adamw4bit, false),
        "ademamix" | "paged_ademamix_32bit" => optim(Optimizer::Ademamix, false),
        "ademamix_8bit" | "paged_ademamix_8bit" => optim(Optimizer::Ademamix8bit, false),
        "galore_adamw" => optim(Optimizer::GaloreAdamw, false),
        "galore_adamw_8bit" => optim(Optimizer::GaloreAdamw8bit, false),
        "schedule_free_adamw" => optim(Optimizer::ScheduleFreeAdamw, false),
        // axolotl's own names beside HF's (axolotl 0.19 `utils/schemas/enums.py`
        // `CustomSupportedOptimizers`): torchao's 4-bit AdamW and Muon.
        "ao_adamw_4bit" => optim(Optimizer::Adamw4bit, false),
        "muon" => optim(Optimizer::Muon, false),
        "adafactor" => optim(Optimizer::Adafactor, false),
        "sgd" => optim(Optimizer::Sgd, false),
        "lion_32bit" | "paged_lion_32bit" => optim(Optimizer::Lion, false),
        _ => None,
    }
}

/// The names [`hf_optim`] reads, for messages.
pub(super) const HF_OPTIM_NAMES: &str = "adamw_torch, adamw_torch_fused, adamw_bnb_8bit, adamw_8bit, paged_adamw_8bit, paged_adamw_32bit, ao_adamw_8bit, adamw_torch_8bit, adamw_torch_4bit, ademamix, ademamix_8bit, paged_ademamix_32bit, paged_ademamix_8bit, galore_adamw, galore_adamw_8bit, schedule_free_adamw, ao_adamw_4bit, muon, adafactor, sgd, lion_32bit, paged_lion_32bit";

/// `optim` (or another key holding an HF optimizer name) read from `m`.
pub(super) fn read_hf_optim(m: &Map<'_>, key: &str) -> Result<Option<Optim>> {
    let Some(name) = m.str(key)? else {
        return Ok(None);
    };
    hf_optim(&name).map(Some).ok_or_else(|| {
        let line = m.line(key);
        crate::input_error!(
            Unsupported,
            m.path_of(key),
            ["line {line}: `{name}` is not an optimizer vramfit counts"],
            ["第 {line} 行：`{name}` 不是 vramfit 计算的优化器"],
            [= HF_OPTIM_NAMES],
            [= HF_OPTIM_NAMES],
        )
    })
}

/// A dtype as configs write it (`bf16`, `bfloat16`, `torch.bfloat16`, `float32`…), as the
/// estimator's name (`bf16`, `fp16`, `fp32`); `auto` and unknown words are `None`.
pub(super) fn dtype(word: &str) -> Option<&'static str> {
    match word.trim_start_matches("torch.") {
        "bf16" | "bfloat16" => Some("bf16"),
        "fp16" | "float16" | "half" => Some("fp16"),
        "fp32" | "float32" | "float" => Some("fp32"),
        _ => None,
    }
}

/// `attn_implementation` (transformers) as the estimator's attention.
pub(super) fn attention(word: &str) -> Option<AttentionImpl> {
    match word {
        "eager" => Some(AttentionImpl::Eager),
        "sdpa" => Some(AttentionImpl::Sdpa),
        w if w.starts_with("flash_attention") || w == "fa2" || w == "fa3" => {
            Some(AttentionImpl::Flash)
        }
        _ => None,
    }
}

/// LoRA target modules as PEFT names them: `all-linear` (and LLaMA-Factory's `all`) for every
/// projection; torchtune's `output_proj` is `o_proj`.
pub(super) fn lora_targets(words: Vec<String>) -> Vec<String> {
    if words.iter().any(|w| w == "all" || w == "all-linear") {
        return alloc::vec!["all-linear".to_string()];
    }
    words
        .into_iter()
        .map(|w| match w.as_str() {
            "output_proj" => "o_proj".to_string(),
            "w1" => "gate_proj".to_string(),
            "w3" => "up_proj".to_string(),
            "w2" => "down_proj".to_string(),
            _ => w,
        })
        .collect()
}
