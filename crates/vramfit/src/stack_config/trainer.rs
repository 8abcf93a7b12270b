//! Hugging Face `TrainingArguments` (transformers 5.25, `training_args.py`) and TRL's configs
//! (TRL 1.16: `SFTConfig` over its `_BaseConfig`, and `ModelConfig`, which `trl sft --config`
//! reads from one YAML).

use super::tree::Map;
use super::{Reading, deepspeed, names};
use crate::error::Result;
use crate::estimate::{Checkpointing, Loss, Offload, Precision, Stack};
use crate::precision::Quantization;

/// Reads a Trainer's or (`trl`) TRL's keys.
pub(super) fn read(m: &Map<'_>, r: &mut Reading, trl: bool) -> Result<()> {
    // transformers: `per_device_train_batch_size` defaults to 8.
    r.input.run.batch = m.num("per_device_train_batch_size")?.unwrap_or(8.0);
    let rl = if trl {
        super::rl::trl_algorithm(m)
    } else {
        None
    };
    if rl.is_none() {
        sequence(m, r, trl)?;
    }
    precision(m, r, trl)?;
    // TRL's `_BaseConfig` turns gradient checkpointing on; transformers leaves it off.
    // transformers 5.25 names it `activation_checkpointing`, `gradient_checkpointing` its
    // deprecated alias used only when the new name is not set (`training_args.py`
    // `__post_init__`); both are read, the new name first.
    let checkpointing = match m.bool("activation_checkpointing")? {
        Some(b) => {
            let _ = m.get("gradient_checkpointing");
            b
        }
        None => m.bool("gradient_checkpointing")?.unwrap_or(trl),
    };
    r.input.training.grad_checkpointing = if checkpointing {
        Checkpointing::Full
    } else {
        Checkpointing::None
    };
    let _ = m.get("gradient_checkpointing_kwargs");
    let _ = m.get("activation_checkpointing_kwargs");
    r.hf_optimizer(m, "optim")?;
    galore_rank(m, r)?;
    savers(m, r)?;
    if trl {
        r.input.training.stack = Some(Stack::Trl);
        model(m, r)?;
        launcher(m, r)?;
    }
    if let Some(a) = rl {
        super::rl::read_trl(m, r, a)?;
    }
    sharding(m, r)
}

/// The keys `trl sft --config` hands to `accelerate launch` (TRL 1.16 `TrainingCommand`: a
/// key that is no field of its dataclasses becomes a launch argument): `num_processes`, the
/// GPUs, and `accelerate_config`, a config file to read too (TRL's own named configs, `zero3`
/// and the like, are not files: said, not read).
fn launcher(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    if let Some(n) = m.num("num_processes")? {
        r.input.placement.gpus = Some(n);
    }
    if let Some(c) = m.str("accelerate_config")? {
        if c.ends_with(".yaml") || c.ends_with(".yml") || c.ends_with(".json") {
            r.name_file("accelerate_config", c);
        } else {
            r.assume(
                alloc::format!("TRL's accelerate config `{c}` is not read: write it out as a file to count its sharding"),
                alloc::format!("未读取 TRL 的 accelerate 配置 `{c}`：请写成文件以计入其分片"),
            );
        }
    }
    Ok(())
}

/// GaLore's rank from `optim_args` (`"rank=64, update_proj_gap=200"`), as transformers 5.25
/// `trainer_optimizer.py` `_parse_optim_args` splits it and `_get_galore_optimizer` reads `rank`
/// (128 when absent); the other arguments change no memory. Read with the GaLore optimizers only.
pub(super) fn galore_rank(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    use crate::estimate::Optimizer;
    if !matches!(
        r.input.training.optimizer,
        Optimizer::GaloreAdamw | Optimizer::GaloreAdamw8bit
    ) {
        return Ok(());
    }
    let Some(args) = m.str("optim_args")? else {
        return Ok(());
    };
    let rank = args
        .split(',')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| k.trim() == "rank")
        .map(|(_, v)| v.trim());
    if let Some(v) = rank {
        match v.parse::<u32>() {
            Ok(n) if n >= 1 => r.input.training.galore_rank = Some(f64::from(n)),
            _ => {
                let line = m.line("optim_args");
                return Err(crate::input_error!(
                    OutOfRange,
                    "optim_args",
                    ["line {line}: rank={v} is not a GaLore rank"],
                    ["第 {line} 行：rank={v} 不是 GaLore 的秩"],
                    "rank=N with N an integer from 1 to 65536, e.g. \"rank=64, update_proj_gap=200\"",
                    "rank=N，N 为 1 到 65536 的整数，如 \"rank=64, update_proj_gap=200\"",
                ));
            }
        }
    }
    Ok(())
}

/// The memory savers a Trainer or TRL config turns on: Liger's fused linear cross-entropy
/// (`use_liger_kernel`), TRL's `activation_offloading`, `packing` and `padding_free`.
fn savers(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    if m.bool("use_liger_kernel")?.unwrap_or(false) {
        r.input.training.loss = Some(Loss::Fused);
    }
    if m.bool("torch_compile")?.unwrap_or(false) {
        r.input.training.compile = true;
    }
    if m.bool("activation_offloading")?.unwrap_or(false) {
        r.input.training.activation_offload = Some(true);
    }
    let packing = m.bool("packing")?.unwrap_or(false);
    let padding_free = m.bool("padding_free")?.unwrap_or(false);
    if packing || padding_free {
        r.input.training.packing = true;
    }
    Ok(())
}

/// The sequence length: TRL's `max_length` (1024 by default; `max_seq_length` before TRL
/// 0.20); a plain Trainer's is the data's.
fn sequence(m: &Map<'_>, r: &mut Reading, trl: bool) -> Result<()> {
    let given = match m.num("max_length")? {
        Some(n) => Some(n),
        None => m.num("max_seq_length")?,
    };
    match (given, trl) {
        (Some(n), _) => r.input.run.seq_len = n,
        (None, true) => {
            r.input.run.seq_len = 1024.0;
            r.assume(
                "sequence length 1024: TRL's max_length default",
                "序列长度 1024：TRL 的 max_length 默认值",
            );
        }
        (None, false) => r.assume(
            "the sequence length is the data's: the file does not say it",
            "序列长度取决于数据：文件中没有写",
        ),
    }
    Ok(())
}

/// `bf16` / `fp16` and the dtype the model is loaded in. TRL loads in fp32 (`ModelConfig.dtype`
/// and `model_init_kwargs`' default) and turns `bf16` on unless `fp16` is; a model loaded in
/// bf16 under `bf16` trains in pure bf16 (its optimizer states in bf16 too).
fn precision(m: &Map<'_>, r: &mut Reading, trl: bool) -> Result<()> {
    let fp16 = m.bool("fp16")?.unwrap_or(false);
    let bf16 = m.bool("bf16")?.unwrap_or(trl && !fp16);
    let loaded = match m.str("dtype")? {
        Some(d) => Some(d),
        None => m.str("torch_dtype")?,
    };
    let loaded = match (loaded, m.map("model_init_kwargs")?) {
        (Some(d), _) => Some(d),
        (None, Some(kw)) => match kw.str("dtype")? {
            Some(d) => Some(d),
            None => kw.str("torch_dtype")?,
        },
        (None, None) => None,
    };
    let half = loaded
        .as_deref()
        .and_then(names::dtype)
        .filter(|d| *d != "fp32");
    r.input.training.precision = match (bf16, fp16, half) {
        (true, _, Some("bf16")) => Precision::Bf16,
        (_, true, Some("fp16")) => Precision::Fp16,
        (true, _, _) => Precision::AmpBf16,
        (_, true, _) => Precision::AmpFp16,
        (false, false, Some("bf16")) => Precision::Bf16,
        (false, false, Some(_)) => Precision::Fp16,
        (false, false, None) => Precision::Fp32,
    };
    if !trl && half.is_none() {
        r.assume(
            "the model loaded in fp32: the file does not say how it is loaded (a model loaded in bf16 trains in pure bf16, about half the states)",
            "模型以 fp32 加载：文件没有写加载方式（以 bf16 加载则为纯 bf16 训练，状态约减半）",
        );
    }
    Ok(())
}

/// TRL's `ModelConfig`: the model, its attention, PEFT's LoRA and bitsandbytes' loading.
fn model(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    if let Some(id) = m.str("model_name_or_path")? {
        r.set_model(id);
    }
    if let Some(a) = m.str("attn_implementation")?
        && let Some(a) = names::attention(&a)
    {
        r.input.run.attention = a;
    }
    if !m.bool("use_peft")?.unwrap_or(false) {
        return Ok(());
    }
    // TRL `ModelConfig`: `lora_r` 16; target modules PEFT's default for the model.
    r.input.training.lora_rank = m.num("lora_r")?.unwrap_or(16.0);
    // `lora_dropout`: TRL's `ModelConfig` 0.05 when absent (the stack's default).
    r.input.training.lora_dropout = m.num("lora_dropout")?;
    if let Some(t) = m.strs("lora_target_modules")? {
        r.input.training.lora_targets = names::lora_targets(t);
    }
    if m.bool("load_in_4bit")?.unwrap_or(false) {
        r.input.training.qlora = true;
        // Loaded in fp32 (TRL's default) the unquantized parameters are fp32; in bf16, bf16.
        r.input.training.kbit_upcast = Some(r.input.training.precision != Precision::Bf16);
        let nested = m.bool("use_bnb_nested_quant")?.unwrap_or(false);
        r.input.model.quantization = Quantization::BnbNf4 {
            double_quant: nested,
        };
    } else if m.bool("load_in_8bit")?.unwrap_or(false) {
        r.input.model.quantization = Quantization::parse("load_in_8bit", "bnb-int8")?;
    }
    Ok(())
}

/// `deepspeed` (a path, or the config inline) and `fsdp` (`"full_shard auto_wrap offload"`).
fn sharding(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    if let Some(ds) = m.map_or_str("deepspeed")? {
        match ds {
            Ok(inline) => deepspeed::read(&inline, r)?,
            Err(path) => r.name_file("deepspeed", path),
        }
    }
    let Some(words) = m.strs_spaced("fsdp")? else {
        return Ok(());
    };
    let has = |w: &str| words.iter().any(|x| x == w);
    if words.is_empty() {
        return Ok(());
    }
    // transformers 5.25: `fsdp_config["version"]` 2 by default; FSDP1's strategy from the
    // `fsdp` words, FSDP2's `reshard_after_forward` from the config (true by default).
    let config = match m.map_or_str("fsdp_config")? {
        Some(Ok(c)) => Some(c),
        Some(Err(path)) => {
            r.name_file("fsdp_config", path);
            None
        }
        None => None,
    };
    let version = match &config {
        Some(c) => match c.num("version")? {
            Some(v) => v,
            None => c.num("fsdp_version")?.unwrap_or(2.0),
        },
        None => 2.0,
    };
    if let Some(c) = &config {
        super::fsdp::wrap_policy(c, "auto_wrap_policy", "TRANSFORMER_BASED_WRAP")?;
    }
    r.input.placement.fsdp_version = Some(version);
    r.input.placement.zero = if has("shard_grad_op") || has("hybrid_shard_zero2") {
        2.0
    } else {
        3.0
    };
    if let (true, Some(c)) = (version >= 2.0, &config)
        && let Some(b) = c.bool("reshard_after_forward")?
    {
        r.input.placement.reshard_after_forward = Some(b);
    }
    // `fsdp: "… offload"` sets `fsdp_config["cpu_offload"]`, which may be written itself;
    // `fsdp_config.activation_checkpointing: true` is FSDP's own checkpointing (full), beside the
    // Trainer's (transformers 5.25 `training_args.py`, the FSDP plugin's arguments).
    let config_offload = match &config {
        Some(c) => c.bool("cpu_offload")?.unwrap_or(false),
        None => false,
    };
    if has("offload") || config_offload {
        r.input.placement.offload = Offload::Cpu;
    }
    if let Some(c) = &config
        && c.bool("activation_checkpointing")? == Some(true)
    {
        r.input.training.grad_checkpointing = Checkpointing::Full;
    }
    if r.input.placement.gpus.is_none() {
        r.assume(
            "FSDP shards over the GPUs given (gpus): the file does not say how many",
            "FSDP 在给定的 GPU（gpus）上分片：文件没有写 GPU 数",
        );
    }
    Ok(())
}
