//! axolotl's YAML (axolotl 0.19.0, `src/axolotl/utils/schemas/`): `base_model`, `adapter`
//! (lora, qlora), `micro_batch_size` (1 by default), `sequence_len` (512), `optimizer`
//! (`adamw_torch_fused`), `bf16` (`auto`: on where the card has it), `gradient_checkpointing`.
//! axolotl loads the model in the dtype `bf16`/`fp16` pick (`utils/config/__init__.py` sets
//! `torch_dtype`), so a full fine-tune under bf16 steps in bf16.

use alloc::string::ToString;

use super::tree::Map;
use super::{Reading, names};
use crate::error::Result;
use crate::estimate::{AttentionImpl, Checkpointing, Loss, Offload, Precision, Stack};
use crate::precision::Quantization;

/// Reads an axolotl YAML.
pub(super) fn read(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    if let Some(id) = m.str("base_model")? {
        r.set_model(id);
    }
    r.input.training.stack = Some(Stack::Axolotl);
    adapter(m, r)?;
    r.input.training.packing = m.bool("sample_packing")?.unwrap_or(false);
    r.input.training.compile = m.bool("torch_compile")?.unwrap_or(false);
    // Liger's plugin (`liger_fused_linear_cross_entropy`) and Apple's Cut Cross-Entropy
    // (`cut_cross_entropy`) never hold the full logits.
    let liger = m.bool("liger_fused_linear_cross_entropy")?.unwrap_or(false);
    let cce = m.bool("cut_cross_entropy")?.unwrap_or(false);
    if liger || cce {
        r.input.training.loss = Some(Loss::Fused);
        // The plugins that bring those losses.
        let _ = m.get("plugins");
    }
    r.input.run.batch = m.num("micro_batch_size")?.unwrap_or(1.0);
    r.input.run.seq_len = m.num("sequence_len")?.unwrap_or(512.0);
    // `bf16: auto` is on for the cards that run bf16: the ones people fine-tune on.
    let bf16 = !matches!(m.str("bf16")?.as_deref(), Some("false"));
    let fp16 = m.bool("fp16")?.unwrap_or(false);
    r.input.training.precision = match (fp16, bf16) {
        (true, _) => Precision::AmpFp16,
        (false, true) => Precision::Bf16,
        (false, false) => Precision::Fp32,
    };
    checkpointing(m, r)?;
    // axolotl 0.19's `attn_implementation` first; its deprecated booleans after.
    if let Some(a) = m.str("attn_implementation")?
        && let Some(a) = names::attention(&a)
    {
        r.input.run.attention = a;
    } else if m.bool("flash_attention")?.unwrap_or(false) {
        r.input.run.attention = AttentionImpl::Flash;
    } else if m.bool("sdp_attention")?.unwrap_or(false) {
        r.input.run.attention = AttentionImpl::Sdpa;
    }
    r.hf_optimizer(m, "optimizer")?;
    galore_rank(m, r)?;
    if let Some(path) = m.str("deepspeed")? {
        r.name_file("deepspeed", path);
    }
    fsdp(m, r)
}

/// `adapter` with LoRA's keys; no adapter is full fine-tuning.
fn adapter(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    let Some(kind) = m.str("adapter")? else {
        return Ok(());
    };
    let qlora = kind == "qlora";
    // axolotl has no default rank (`lora_r` is required with an adapter); 8 as PEFT's.
    r.input.training.lora_rank = m.num("lora_r")?.unwrap_or(8.0);
    // `lora_dropout` 0.0 when absent with an adapter (schemas/peft.py; the stack's default).
    r.input.training.lora_dropout = m.num("lora_dropout")?;
    if m.bool("lora_target_linear")?.unwrap_or(false) {
        r.input.training.lora_targets = names::lora_targets(alloc::vec!["all-linear".to_string()]);
    } else if let Some(t) = m.strs("lora_target_modules")? {
        r.input.training.lora_targets = names::lora_targets(t);
    }
    let four = m.bool("load_in_4bit")?.unwrap_or(false);
    let eight = m.bool("load_in_8bit")?.unwrap_or(false);
    if qlora || four {
        r.input.training.qlora = true;
        let dq = m.bool("bnb_4bit_use_double_quant")?.unwrap_or(true);
        r.input.model.quantization = Quantization::BnbNf4 { double_quant: dq };
    } else if eight {
        r.input.model.quantization = Quantization::parse("load_in_8bit", "bnb-int8")?;
    }
    Ok(())
}

/// `gradient_checkpointing`: true, or `offload` / `offload_disk` (the checkpoints in CPU
/// memory, or on disk: counted as offloaded to CPU memory).
fn checkpointing(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    let on = match m.str("gradient_checkpointing")?.as_deref() {
        Some("true") => true,
        Some("offload" | "offload_disk") => {
            r.input.training.activation_offload = Some(true);
            true
        }
        _ => false,
    };
    r.input.training.grad_checkpointing = if on {
        Checkpointing::Full
    } else {
        Checkpointing::None
    };
    // `activation_offloading` (axolotl 0.19 `utils/schemas/config.py`: `Literal["legacy",
    // "disk"] | bool | None = False`): the saved activations in CPU memory (`disk`: on disk),
    // what the GPU keeps being the same.
    if matches!(
        m.str("activation_offloading")?.as_deref(),
        Some("true" | "legacy" | "disk")
    ) {
        r.input.training.activation_offload = Some(true);
    }
    Ok(())
}

/// `fsdp_config` (with `fsdp_version`): a full shard, and its parameters' offload.
fn fsdp(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    let Some(c) = m.map("fsdp_config")? else {
        return Ok(());
    };
    // axolotl: `fsdp_version` at the top (or in `fsdp_config`), 1 when neither says.
    let version = match m.num("fsdp_version")? {
        Some(v) => v,
        None => c.num("fsdp_version")?.unwrap_or(1.0),
    };
    r.input.placement.fsdp_version = Some(version);
    r.input.placement.zero = 3.0;
    // The wrap policy as written (`auto_wrap_policy`, older `fsdp_auto_wrap_policy`), which
    // axolotl hands to accelerate; one that is not per-layer is refused. Where the file names
    // none, counted per layer as axolotl's examples write it.
    for key in ["auto_wrap_policy", "fsdp_auto_wrap_policy"] {
        if c.has(key) {
            super::fsdp::wrap_policy(&c, key, "TRANSFORMER_BASED_WRAP")?;
        }
    }
    if version >= 2.0
        && let Some(b) = c.bool("reshard_after_forward")?
    {
        r.input.placement.reshard_after_forward = Some(b);
    }
    let offload = match c.bool("offload_params")? {
        Some(b) => b,
        None => c.bool("fsdp_offload_params")?.unwrap_or(false),
    };
    if offload {
        r.input.placement.offload = Offload::Cpu;
    }
    Ok(())
}

/// GaLore's rank from `optim_args`, which axolotl hands to transformers' `TrainingArguments`
/// (axolotl 0.19 `utils/schemas/training.py`: `optim_args: str | dict[str, Any] | None`): the
/// Trainer's string (`"rank=64, update_proj_gap=200"`) or a mapping with `rank`.
fn galore_rank(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    use crate::estimate::Optimizer;
    if !matches!(
        r.input.training.optimizer,
        Optimizer::GaloreAdamw | Optimizer::GaloreAdamw8bit
    ) || !m.has("optim_args")
    {
        return Ok(());
    }
    if m.str("optim_args").is_ok() {
        return super::trainer::galore_rank(m, r);
    }
    if let Some(a) = m.map("optim_args")?
        && let Some(rank) = a.num("rank")?
    {
        r.input.training.galore_rank = Some(rank);
    }
    Ok(())
}
