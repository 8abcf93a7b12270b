//! LLaMA-Factory's training YAML (LLaMA-Factory 0.9.5, `src/llamafactory/hparams/`): its
//! `model_args`, `data_args` and `finetuning_args` keys beside the Trainer's. Its defaults:
//! `finetuning_type` lora, `lora_rank` 8, `lora_target` all, `cutoff_len` 2048, gradient
//! checkpointing on (`disable_gradient_checkpointing` false); under `bf16` the model is loaded
//! in bf16 and the trainable parameters cast to fp32 (`pure_bf16` keeps them in bf16).

use alloc::string::{String, ToString};

use super::tree::Map;
use super::{Reading, names};
use crate::error::Result;
use crate::estimate::{AttentionImpl, Checkpointing, Loss, Precision, Stack};
use crate::precision::Quantization;

/// Reads a LLaMA-Factory YAML.
pub(super) fn read(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    if let Some(id) = m.str("model_name_or_path")? {
        r.set_model(id);
    }
    r.input.training.stack = Some(Stack::Llamafactory);
    let stage = stage(m)?;
    method(m, r)?;
    if m.bool("enable_liger_kernel")?.unwrap_or(false) {
        r.input.training.loss = Some(Loss::Fused);
    }
    // `use_unsloth_gc`: Unsloth's checkpointing, its block inputs offloaded to CPU memory.
    if m.bool("use_unsloth_gc")?.unwrap_or(false) {
        r.input.training.activation_offload = Some(true);
    }
    let packing = m.bool("packing")?.unwrap_or(false);
    let neat = m.bool("neat_packing")?.unwrap_or(false);
    r.input.training.packing = packing || neat;
    r.input.run.batch = m.num("per_device_train_batch_size")?.unwrap_or(8.0);
    r.input.run.seq_len = m.num("cutoff_len")?.unwrap_or(2048.0);
    let pure = m.bool("pure_bf16")?.unwrap_or(false);
    let bf16 = m.bool("bf16")?.unwrap_or(false);
    let fp16 = m.bool("fp16")?.unwrap_or(false);
    r.input.training.precision = match (pure, bf16, fp16) {
        (true, ..) => Precision::Bf16,
        (_, true, _) => Precision::AmpBf16,
        (_, _, true) => Precision::AmpFp16,
        _ => Precision::Fp32,
    };
    r.input.training.grad_checkpointing =
        if m.bool("disable_gradient_checkpointing")?.unwrap_or(false) {
            Checkpointing::None
        } else {
            Checkpointing::Full
        };
    if let Some(a) = m.str("flash_attn")? {
        r.input.run.attention = match a.as_str() {
            "fa2" | "fa3" => AttentionImpl::Flash,
            "disabled" => AttentionImpl::Eager,
            _ => AttentionImpl::Sdpa,
        };
    }
    r.hf_optimizer(m, "optim")?;
    galore(m, r)?;
    if let Some(path) = m.str("deepspeed")? {
        r.name_file("deepspeed", path);
    }
    super::rl::read_llamafactory(m, r, &stage)
}

/// `stage`: supervised fine-tuning (`sft`), pre-training (`pt`) and reward modelling (`rm`)
/// train one model; `dpo` and `ppo` are RL runs (`rl.rs`); `kto`, whose reference and
/// unpaired batches vramfit does not count, is refused rather than under-counted.
fn stage(m: &Map<'_>) -> Result<String> {
    let stage = m.str("stage")?.unwrap_or_else(|| "sft".to_string());
    if matches!(stage.as_str(), "sft" | "pt" | "rm" | "dpo" | "ppo") {
        return Ok(stage);
    }
    let line = m.line("stage");
    Err(crate::input_error!(
        Unsupported,
        "stage",
        ["line {line}: stage `{stage}` holds more models than the one trained"],
        ["第 {line} 行：stage `{stage}` 除训练的模型外还有其他模型"],
        "sft, pt, rm, dpo or ppo",
        "sft、pt、rm、dpo 或 ppo",
    ))
}

/// `finetuning_type` with LoRA's keys and the base's quantization.
fn method(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    let kind = m
        .str("finetuning_type")?
        .unwrap_or_else(|| "lora".to_string());
    match kind.as_str() {
        "full" => return Ok(()),
        "freeze" => {
            r.assume(
                "freeze tuning counted as full fine-tuning: the frozen layers hold no gradients or states, so the GPU needs less than shown",
                "冻结微调按全参数微调计算：被冻结的层没有梯度和优化器状态，实际少于所示",
            );
            return Ok(());
        }
        "lora" => {}
        _ => {
            let line = m.line("finetuning_type");
            return Err(crate::input_error!(
                Unsupported,
                "finetuning_type",
                ["line {line}: `{kind}` is not a method vramfit counts"],
                ["第 {line} 行：`{kind}` 不是 vramfit 计算的方法"],
                "lora, full or freeze",
                "lora、full 或 freeze",
            ));
        }
    }
    r.input.training.lora_rank = m.num("lora_rank")?.unwrap_or(8.0);
    // `lora_dropout` 0.0 when absent (finetuning_args.py; the stack's default).
    r.input.training.lora_dropout = m.num("lora_dropout")?;
    r.input.training.lora_targets = names::lora_targets(
        m.strs("lora_target")?
            .unwrap_or_else(|| alloc::vec!["all".to_string()]),
    );
    let Some(bits) = m.num("quantization_bit")? else {
        return Ok(());
    };
    // `quantization_method` bnb (bitsandbytes) by default; `double_quantization` true.
    let method = m
        .str("quantization_method")?
        .unwrap_or_else(|| "bnb".to_string());
    let line = m.line("quantization_bit");
    match (method.as_str(), bits) {
        ("bnb" | "bitsandbytes", 4.0) => {
            r.input.training.qlora = true;
            let dq = m.bool("double_quantization")?.unwrap_or(true);
            r.input.model.quantization = Quantization::BnbNf4 { double_quant: dq };
        }
        ("bnb" | "bitsandbytes", 8.0) => {
            r.input.model.quantization = Quantization::parse("quantization_bit", "bnb-int8")?;
        }
        // LLaMA-Factory 0.9.5 `model/model_utils/quantization.py`: `HqqConfig(nbits=bits,
        // quant_zero=False, quant_scale=False, axis=0)`, the group of 64 transformers 5.25's
        // `HqqConfig` defaults to; LLaMA-Factory takes 1 to 8 bits but 7.
        ("hqq", 1.0 | 2.0 | 3.0 | 4.0 | 5.0 | 6.0 | 8.0) => {
            r.input.model.quantization = Quantization::Hqq {
                bits: bits as u8,
                group_size: 64,
            };
        }
        _ => {
            return Err(crate::input_error!(
                Unsupported,
                "quantization_bit",
                ["line {line}: {method} at {bits} bits is not a base vramfit counts"],
                ["第 {line} 行：{method} {bits} 位不是 vramfit 计算的基座格式"],
                "4 or 8 with quantization_method bnb; 1, 2, 3, 4, 5, 6 or 8 with hqq",
                "quantization_method 为 bnb 时为 4 或 8；为 hqq 时为 1、2、3、4、5、6 或 8",
            ));
        }
    }
    Ok(())
}

/// `use_galore` (LLaMA-Factory 0.9.5 `hparams/finetuning_args.py`: off; `galore_rank` 16,
/// `galore_target` `all`, every linear module of the blocks; `train/trainer_utils.py`
/// `_create_galore_optimizer`: `GaLoreAdamW` under `adamw_torch`, `GaLoreAdamW8bit` under the
/// 8-bit AdamWs, `GaLoreAdafactor` under `adafactor`). Refused where vramfit would count less
/// than runs: with LoRA (LLaMA-Factory refuses it too), GaLore over Adafactor (not counted),
/// targets fewer than `all` (the others keep full AdamW states). `galore_layerwise` steps each
/// parameter in backward: counted without it, the safe side, said.
fn galore(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    use crate::estimate::Optimizer;
    if !m.bool("use_galore")?.unwrap_or(false) {
        return Ok(());
    }
    let refuse = |key: &str, en: &str, zh: &str| {
        let line = m.line(key);
        crate::input_error!(
            Unsupported,
            m.path_of(key),
            ["line {line}: {en}"],
            ["第 {line} 行：{zh}"],
            "use_galore with finetuning_type full or freeze, optim adamw_torch or an 8-bit AdamW, galore_target all",
            "use_galore 搭配 finetuning_type full 或 freeze、optim 为 adamw_torch 或 8 位 AdamW、galore_target all",
        )
    };
    if r.input.training.lora_rank > 0.0 {
        return Err(refuse(
            "use_galore",
            "GaLore with LoRA (LLaMA-Factory refuses it: Cannot use LoRA with GaLore together)",
            "GaLore 与 LoRA 同用（LLaMA-Factory 也会拒绝）",
        ));
    }
    r.input.training.optimizer = match r.input.training.optimizer {
        Optimizer::Adamw => Optimizer::GaloreAdamw,
        Optimizer::Adamw8bit | Optimizer::PagedAdamw8bit => Optimizer::GaloreAdamw8bit,
        _ => {
            return Err(refuse(
                "use_galore",
                "GaLore over this optim (GaLoreAdafactor or another) is not counted",
                "不计算 GaLore 搭配该 optim（GaLoreAdafactor 或其他）",
            ));
        }
    };
    r.input.training.fused_optimizer = false;
    r.input.training.galore_rank = Some(m.num("galore_rank")?.unwrap_or(16.0));
    if let Some(t) = m.str("galore_target")?
        && t.trim() != "all"
    {
        return Err(refuse(
            "galore_target",
            "GaLore on fewer modules than all: the others keep AdamW's full states, which vramfit does not count",
            "GaLore 作用的模块少于 all：其余模块保留 AdamW 的完整状态，vramfit 不计算",
        ));
    }
    if m.bool("galore_layerwise")?.unwrap_or(false) {
        r.assume(
            "galore_layerwise counted as one optimizer step after backward: the per-layer step holds fewer gradients at once, so the GPU needs less than shown",
            "galore_layerwise 按反向后一次优化器步计算：逐层更新同时持有的梯度更少，实际少于所示",
        );
    }
    Ok(())
}
