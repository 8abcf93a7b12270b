//! DeepSpeed's config JSON (DeepSpeed 0.19.8, `deepspeed/runtime/config.py` and
//! `runtime/zero/config.py`; <https://www.deepspeed.ai/docs/config-json/>): the micro-batch,
//! the ZeRO stage and its offload, the precision and the optimizer. `"auto"` (the value
//! transformers' integration fills from the Trainer's arguments) leaves the input as it is.

use super::Reading;
use super::tree::Map;
use crate::error::Result;
use crate::estimate::{DeepSpeedAuto, Offload, Optimizer, Precision};

/// Reads a DeepSpeed config's keys from `m` (the file's top, or a Trainer's `deepspeed` inline).
pub(super) fn read(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    if let Some(b) = m.num("train_micro_batch_size_per_gpu")? {
        r.input.run.batch = b;
    }
    if let Some(z) = m.map("zero_optimization")? {
        zero(&z, r)?;
    }
    if let Some(true) = enabled(m, "bf16")? {
        r.input.training.precision = Precision::AmpBf16;
    } else if let Some(true) = enabled(m, "fp16")? {
        r.input.training.precision = Precision::AmpFp16;
    }
    if let Some(o) = m.map("optimizer")? {
        optimizer(&o, r)?;
    }
    Ok(())
}

/// `{"enabled": …}` under `key`; `"auto"` is `None`.
fn enabled(m: &Map<'_>, key: &str) -> Result<Option<bool>> {
    let Some(section) = m.map(key)? else {
        return Ok(None);
    };
    if section.str("enabled")?.as_deref() == Some("auto") {
        return Ok(None);
    }
    section.bool("enabled")
}

/// `zero_optimization`: the stage (0 by default) and where the optimizer and the parameters
/// are offloaded.
fn zero(z: &Map<'_>, r: &mut Reading) -> Result<()> {
    let stage = z.num("stage")?.unwrap_or(0.0);
    r.input.placement.zero = stage;
    let device = |key: &str| -> Result<Offload> {
        let Some(o) = z.map(key)? else {
            return Ok(Offload::None);
        };
        Ok(match o.str("device")?.as_deref() {
            Some("cpu") => Offload::Cpu,
            Some("nvme") => Offload::Nvme,
            _ => Offload::None,
        })
    };
    buckets(z, r)?;
    let optimizer = device("offload_optimizer")?;
    let params = device("offload_param")?;
    r.input.placement.offload =
        if stage >= 3.0 && optimizer != Offload::None && params == Offload::None {
            // ZeRO-3 with `offload_optimizer` alone: the 16-bit parameters stay partitioned on
            // the GPUs (under ZeRO-1/2 `cpu` already means the optimizer alone).
            if optimizer == Offload::Nvme {
                Offload::OptimizerNvme
            } else {
                Offload::OptimizerCpu
            }
        } else if params == Offload::Nvme || optimizer == Offload::Nvme {
            Offload::Nvme
        } else if optimizer != Offload::None {
            optimizer
        } else {
            params
        };
    Ok(())
}

/// `optimizer.type`: DeepSpeed's names (`Adam`, `AdamW`, `OneBitAdam`, `Lamb`, `Lion`,
/// `CPUAdam`…); Adam's kin hold two fp32 moments.
fn optimizer(o: &Map<'_>, r: &mut Reading) -> Result<()> {
    let Some(name) = o.str("type")? else {
        return Ok(());
    };
    r.input.training.optimizer = match name.to_ascii_lowercase().as_str() {
        "adam" | "adamw" | "onebitadam" | "zerooneadam" | "cpuadam" | "fusedadam" | "lamb"
        | "onebitlamb" => Optimizer::Adamw,
        "lion" | "cpulion" | "fusedlion" => Optimizer::Lion,
        "sgd" => Optimizer::Sgd,
        _ => {
            let line = o.line("type");
            return Err(crate::input_error!(
                Unsupported,
                o.path_of("type"),
                ["line {line}: `{name}` is not an optimizer vramfit counts"],
                ["第 {line} 行：`{name}` 不是 vramfit 计算的优化器"],
                "Adam, AdamW, OneBitAdam, ZeroOneAdam, CPUAdam, FusedAdam, Lamb, OneBitLamb, Lion, SGD",
                "Adam、AdamW、OneBitAdam、ZeroOneAdam、CPUAdam、FusedAdam、Lamb、OneBitLamb、Lion、SGD",
            ));
        }
    };
    Ok(())
}

/// ZeRO's buffers as the file sizes them (elements), `overlap_comm`; `"auto"` as transformers'
/// integration resolves it from the model's hidden size (`DeepSpeedAuto`), or, the model not
/// known yet, DeepSpeed's own defaults (larger: the safe side, said).
fn buckets(z: &Map<'_>, r: &mut Reading) -> Result<()> {
    let hidden = r
        .input
        .model
        .arch
        .as_ref()
        .map(|a| a.hidden_size)
        .or_else(|| {
            r.input
                .model
                .model
                .as_deref()
                .and_then(crate::presets::find)
                .map(|p| p.arch.hidden_size)
        });
    let auto = hidden.map(DeepSpeedAuto::of);
    let mut unresolved = false;
    let mut read = |key: &str, resolved: Option<f64>| -> Result<Option<f64>> {
        if z.is_auto(key) {
            let _ = z.get(key);
            unresolved |= resolved.is_none();
            return Ok(resolved);
        }
        z.num(key)
    };
    r.input.training.reduce_bucket_size =
        read("reduce_bucket_size", auto.map(|a| a.reduce_bucket_size))?;
    r.input.training.allgather_bucket_size = read("allgather_bucket_size", None)?;
    r.input.training.stage3_prefetch_bucket_size = read(
        "stage3_prefetch_bucket_size",
        auto.map(|a| a.stage3_prefetch_bucket_size),
    )?;
    r.input.training.stage3_max_live_parameters = read("stage3_max_live_parameters", None)?;
    r.input.training.stage3_param_persistence_threshold = read(
        "stage3_param_persistence_threshold",
        auto.map(|a| a.stage3_param_persistence_threshold),
    )?;
    if let Some(o) = z.bool("overlap_comm")? {
        r.input.training.overlap_comm = Some(o);
    }
    if unresolved {
        r.assume(
            "\"auto\" buffer sizes with no model known yet: counted at DeepSpeed's own defaults, larger than transformers' hidden-size rule (give the model first)",
            "缓冲区大小为 \"auto\" 而尚不知模型：按 DeepSpeed 自身的默认值计算，大于 transformers 按隐藏维度的规则（请先给出模型）",
        );
    }
    Ok(())
}
