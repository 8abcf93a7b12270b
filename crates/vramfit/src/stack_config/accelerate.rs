//! accelerate's config YAML (`accelerate config`; accelerate 1.16.0, `commands/config/`):
//! `distributed_type`, `num_processes` (the GPUs), `mixed_precision`, and the FSDP or
//! DeepSpeed section it writes.

use super::Reading;
use super::tree::Map;
use crate::error::Result;
use crate::estimate::{Checkpointing, Offload, Precision};

/// Reads an accelerate config.
pub(super) fn read(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    if let Some(n) = m.num("num_processes")? {
        r.input.placement.gpus = Some(n);
    }
    let _ = m.get("num_machines");
    r.input.training.precision = match m.str("mixed_precision")?.as_deref() {
        Some("bf16") => Precision::AmpBf16,
        Some("fp16") => Precision::AmpFp16,
        Some("no") => Precision::Fp32,
        _ => r.input.training.precision,
    };
    let kind = m.str("distributed_type")?.unwrap_or_default();
    match kind.as_str() {
        "FSDP" => {
            if let Some(c) = m.map("fsdp_config")? {
                fsdp(&c, r)?;
            }
        }
        "DEEPSPEED" => {
            if let Some(c) = m.map("deepspeed_config")? {
                deepspeed(&c, r)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// `fsdp_config`: the version (accelerate's default 1), the resharding (FSDP1's strategy or
/// FSDP2's boolean), parameter offload, activation checkpointing.
fn fsdp(c: &Map<'_>, r: &mut Reading) -> Result<()> {
    super::fsdp::read(
        c,
        r,
        "fsdp_version",
        1.0,
        "fsdp_reshard_after_forward",
        "fsdp_sharding_strategy",
    )?;
    super::fsdp::wrap_policy(c, "fsdp_auto_wrap_policy", "NO_WRAP")?;
    if c.bool("fsdp_offload_params")?.unwrap_or(false) {
        r.input.placement.offload = Offload::Cpu;
    }
    if c.bool("fsdp_activation_checkpointing")?.unwrap_or(false) {
        r.input.training.grad_checkpointing = Checkpointing::Full;
    }
    Ok(())
}

/// `deepspeed_config`: the ZeRO stage and its offload, or the DeepSpeed file it names.
fn deepspeed(c: &Map<'_>, r: &mut Reading) -> Result<()> {
    if let Some(path) = c.str("deepspeed_config_file")? {
        r.name_file("deepspeed_config.deepspeed_config_file", path);
        return Ok(());
    }
    if let Some(z) = c.num("zero_stage")? {
        r.input.placement.zero = z;
    }
    let device = |key: &str| -> Result<Offload> {
        Ok(match c.str(key)?.as_deref() {
            Some("cpu") => Offload::Cpu,
            Some("nvme") => Offload::Nvme,
            _ => Offload::None,
        })
    };
    let optimizer = device("offload_optimizer_device")?;
    let params = device("offload_param_device")?;
    r.input.placement.offload = if r.input.placement.zero >= 3.0 && params == Offload::None {
        // ZeRO-3 with the optimizer offloaded alone: the parameters stay partitioned on the GPUs.
        match optimizer {
            Offload::Cpu => Offload::OptimizerCpu,
            Offload::Nvme => Offload::OptimizerNvme,
            _ => Offload::None,
        }
    } else if optimizer != Offload::None {
        optimizer
    } else {
        params
    };
    Ok(())
}
