//! The launch of a fine-tuning run: the stack's own files with every setting the estimate
//! counted, and the line that starts it. TRL's `trl sft --config train.yaml` (TRL 1.16: its
//! `SFTConfig`, `ModelConfig` and `ScriptArguments` in one YAML, run through `accelerate
//! launch`; `trl grpo` and `trl dpo` for RL, `train_rl.rs`), for transformers' `Trainer` too, with DeepSpeed's JSON (`deepspeed:`) or an
//! accelerate config for FSDP and several GPUs (`--accelerate_config`; the `fsdp` stack the
//! same, its checkpointing FSDP's own); LLaMA-Factory's and axolotl's YAML in `train_stacks.rs`;
//! torchtune's `tune run` in `train_torchtune.rs`; verl's `main_ppo` in `train_verl.rs`;
//! OpenRLHF's `train_ppo_ray` (under `ray job submit`) and `train_dpo` in `train_openrlhf.rs`;
//! Unsloth's `unsloth-cli.py` in `train_unsloth.rs`.
//!
//! Each file reads back, through [`crate::stack_config`], into the run that was estimated (a
//! test), and TRL's, DeepSpeed's and accelerate's own parsers read them as written
//! (`tests/launch/parse_training.py`). A setting the stack cannot express (a for-loop optimizer
//! step in transformers, selective checkpointing) is refused with its field named, never
//! written as something else.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Builder;
use super::yaml::{Keys, Value};
use crate::error::{InputError, Result};
use crate::estimate::{
    Checkpointing, FsdpVersion, Kernel, Loss, Offload, Optimizer, Precision, Stack, Workload,
};
use crate::precision::Quantization;

/// The dataset the launches name: TRL's own example (its documentation's `trl sft` line). The
/// estimate counts rows of the sequence length, not the data.
pub(super) const EXAMPLE_DATASET: &str = "trl-lib/Capybara";

/// The launch of `w`, a training run, by its stack.
pub(super) fn training(w: &Workload, l: &mut Builder) -> Result<()> {
    if w.rl.is_some()
        && !matches!(
            w.regimes.stack,
            None | Some(Stack::Trl | Stack::Verl | Stack::Openrlhf)
        )
    {
        return Err(refused(
            "rl",
            "RL launches are written for TRL (trl grpo, trl dpo), verl (main_ppo) and OpenRLHF (train_ppo_ray, train_dpo); this stack's RL runs are read from their configs (--config)",
            "RL 启动命令只为 TRL（trl grpo、trl dpo）、verl（main_ppo）与 OpenRLHF（train_ppo_ray、train_dpo）生成；该训练栈的 RL 运行可从其配置（--config）读取",
        ));
    }
    match w.regimes.stack {
        None | Some(Stack::Trl) => trl(w, l, Launcher::Accelerate),
        Some(Stack::Deepspeed) => trl(w, l, Launcher::Deepspeed),
        Some(Stack::Fsdp) => trl(w, l, Launcher::Fsdp),
        Some(Stack::Torchtune) => super::train_torchtune::torchtune(w, l),
        Some(Stack::Verl) => super::train_verl::verl(w, l),
        Some(Stack::Llamafactory) => super::train_stacks::llamafactory(w, l),
        Some(Stack::Axolotl) => super::train_stacks::axolotl(w, l),
        Some(Stack::Megatron) => super::train_megatron::megatron(w, l),
        Some(Stack::Openrlhf) => super::train_openrlhf::openrlhf(w, l),
        Some(Stack::Unsloth) => super::train_unsloth::unsloth(w, l),
    }
}

/// A setting the stack's files cannot say, refused with its field named.
pub(super) fn refused(field: &str, en: &str, zh: &str) -> InputError {
    crate::input_error!(
        Unsupported,
        field,
        [= String::from(en)],
        [= String::from(zh)],
        "a run the stack's own settings express",
        "该训练栈自身设置能表达的运行",
    )
}

/// What starts TRL's script: `accelerate launch` (through `trl`'s own CLI), DeepSpeed's
/// launcher (the `deepspeed` stack), or `accelerate launch` with the FSDP config the `fsdp`
/// stack is about (checkpointing in that config, `fsdp_activation_checkpointing`, as
/// accelerate's FSDP guide sets it).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Launcher {
    Accelerate,
    Deepspeed,
    Fsdp,
}

/// TRL: `train.yaml` (naming `ds_config.json` under ZeRO and `accelerate.yaml` for FSDP; the
/// processes of several GPUs in its `num_processes`) and `trl sft --config train.yaml`; with
/// `Launcher::Deepspeed` (the `deepspeed` stack) the same script under DeepSpeed's own launcher
/// (`train_nodes::deepspeed_launch`).
fn trl(w: &Workload, l: &mut Builder, launcher: Launcher) -> Result<()> {
    let deepspeed_launcher = launcher == Launcher::Deepspeed;
    if launcher == Launcher::Fsdp && w.sharding.fsdp.is_none() {
        return Err(refused(
            "fsdp_version",
            "the fsdp stack shards with FSDP: give fsdp_version (1 or 2) with zero 3 (full shard) or 2 (SHARD_GRAD_OP)",
            "fsdp 训练栈用 FSDP 分片：请给出 fsdp_version（1 或 2），并配 zero 3（完全分片）或 2（SHARD_GRAD_OP）",
        ));
    }
    let p = super::serve::checkpoint(w)?;
    regimes_hf(w)?;
    let (command, dataset) = match &w.rl {
        None => ("sft", EXAMPLE_DATASET),
        Some(rl) => super::train_rl::command(rl)?,
    };
    let mut k = Keys::default();
    k.set("model_name_or_path", p.id);
    k.set("dataset_name", dataset);
    k.set("output_dir", "out");
    match &w.rl {
        None => {
            k.set("per_device_train_batch_size", w.batch);
            k.set("max_length", w.seq_len);
            if w.regimes.packing {
                k.set("packing", true);
            }
        }
        Some(_) if w.regimes.packing => {
            return Err(refused(
                "packing",
                "TRL packs supervised fine-tuning's rows only",
                "TRL 只对监督微调的行做 packing",
            ));
        }
        Some(rl) => super::train_rl::keys(rl, &mut k, l)?,
    }
    // Under the fsdp stack FSDP checkpoints the blocks it wraps (`fsdp_activation_checkpointing`),
    // and transformers refuses both at once.
    let fsdp_checkpoints = launcher == Launcher::Fsdp && checkpointing(w)?;
    k.set(
        "gradient_checkpointing",
        checkpointing(w)? && !fsdp_checkpoints,
    );
    let (bf16, fp16, dtype) = trl_precision(w.precision);
    k.set("bf16", bf16);
    k.set("fp16", fp16);
    k.set("dtype", dtype);
    k.set("attn_implementation", attention(w.kernel));
    k.set("optim", hf_optim(w)?);
    if matches!(
        w.optimizer,
        Optimizer::GaloreAdamw | Optimizer::GaloreAdamw8bit
    ) {
        k.set("optim_args", format!("rank={}", w.regimes.galore_rank));
    }
    if w.regimes.loss == Loss::Fused {
        k.set("use_liger_kernel", true);
    }
    if w.regimes.compile {
        k.set("torch_compile", true);
    }
    if w.regimes.activation_offload {
        k.set("activation_offloading", true);
    }
    peft(w, &mut k)?;
    // Keys that are no field of TRL's dataclasses go to `accelerate launch` (TRL 1.16
    // `TrainingCommand`): the processes, and the accelerate config of an FSDP run.
    match sharding(w, &mut k, l, fsdp_checkpoints)? {
        Some(text) => {
            l.file("accelerate.yaml", text);
            k.set("accelerate_config", "accelerate.yaml");
        }
        None if deepspeed_launcher => {}
        None if gpus(w) > 1 => k.set("num_processes", gpus(w)),
        None => {}
    }
    l.first_file("train.yaml", k.yaml());
    if deepspeed_launcher {
        super::train_nodes::deepspeed_launch(w, l, command)?;
        dataset_note(l, dataset);
        return Ok(());
    }
    // Over several nodes TRL hands the machine words it does not know to `accelerate launch`.
    super::train_nodes::accelerate_on_nodes(w, l, &["trl", command, "--config", "train.yaml"], &[]);
    dataset_note(l, dataset);
    Ok(())
}

/// The note on the example dataset, in both languages.
pub(super) fn dataset_note(l: &mut Builder, dataset: &str) {
    l.note(
        format!("`{dataset}` is TRL's example dataset: put yours there. The estimate counts rows of the sequence length, whatever the data."),
        format!("`{dataset}` 是 TRL 的示例数据集，请换成你的数据集。估算按序列长度的行计算，与数据内容无关。"),
    );
}

/// The GPUs of the run.
pub(super) fn gpus(w: &Workload) -> u64 {
    w.dp.saturating_mul(w.tp).saturating_mul(w.pp)
}

/// What transformers and TRL cannot say: a per-parameter step in backward, a for-loop step,
/// a chunked loss, tensor or pipeline parallelism (Megatron's), a quantized base whose upcast
/// differs from PEFT's rule.
pub(super) fn regimes_hf(w: &Workload) -> Result<()> {
    if w.regimes.optimizer_in_backward {
        return Err(refused(
            "optimizer_in_backward",
            "the step in backward is torchtune's (optimizer_in_bwd); transformers has no such setting",
            "反向中执行优化器步骤是 torchtune 的功能（optimizer_in_bwd），transformers 没有这个设置",
        ));
    }
    if !w.regimes.foreach && !w.fused_optimizer {
        return Err(refused(
            "foreach",
            "transformers' optimizers take no for-loop setting",
            "transformers 的优化器没有逐张量循环的设置",
        ));
    }
    if w.regimes.loss == Loss::Chunked {
        return Err(refused(
            "loss",
            "the chunked loss is torchtune's; these stacks have the full or Liger's fused loss",
            "分块损失是 torchtune 的功能；这些训练栈只有完整损失或 Liger 的融合损失",
        ));
    }
    if w.tp > 1 || w.pp > 1 {
        return Err(refused(
            "tp",
            "tensor and pipeline parallelism are Megatron's; these stacks shard with ZeRO or FSDP",
            "张量并行与流水线并行是 Megatron 的功能；这些训练栈用 ZeRO 或 FSDP 分片",
        ));
    }
    if w.sharding.megatron.is_some() {
        return Err(refused(
            "stack",
            "Megatron's settings are not these stacks'",
            "Megatron 的设置不属于这些训练栈",
        ));
    }
    Ok(())
}

/// Gradient checkpointing on or off; transformers checkpoints whole blocks only.
pub(super) fn checkpointing(w: &Workload) -> Result<bool> {
    match w.checkpointing {
        Checkpointing::Full => Ok(true),
        Checkpointing::None => Ok(false),
        Checkpointing::Selective => Err(refused(
            "grad_checkpointing",
            "selective checkpointing is Megatron's and torchtune's; transformers checkpoints whole blocks",
            "选择性检查点是 Megatron 与 torchtune 的功能；transformers 只对整个块做检查点",
        )),
    }
}

/// `bf16`, `fp16` and the dtype the model is loaded in (TRL `ModelConfig.dtype`): AMP loads in
/// fp32, a pure run in its half type.
fn trl_precision(p: Precision) -> (bool, bool, &'static str) {
    match p {
        Precision::AmpBf16 => (true, false, "float32"),
        Precision::Bf16 => (true, false, "bfloat16"),
        Precision::AmpFp16 => (false, true, "float32"),
        Precision::Fp16 => (false, true, "float16"),
        Precision::Fp32 => (false, false, "float32"),
    }
}

/// transformers' `attn_implementation`: SDPA (its default, whose kernels keep no `S × S`
/// matrix, as FlashAttention's) or eager.
pub(super) fn attention(k: Kernel) -> &'static str {
    match k {
        Kernel::Flash => "sdpa",
        Kernel::Eager => "eager",
    }
}

/// transformers' `optim` name of the run's optimizer (transformers 5.25 `OptimizerNames`).
pub(super) fn hf_optim(w: &Workload) -> Result<&'static str> {
    if w.fused_optimizer && w.optimizer != Optimizer::Adamw {
        return Err(refused(
            "fused_optimizer",
            "transformers fuses AdamW's step alone (adamw_torch_fused)",
            "transformers 只融合 AdamW 的步骤（adamw_torch_fused）",
        ));
    }
    Ok(match w.optimizer {
        Optimizer::Adamw if w.fused_optimizer => "adamw_torch_fused",
        Optimizer::Adamw => "adamw_torch",
        Optimizer::Adamw8bit => "adamw_bnb_8bit",
        Optimizer::PagedAdamw8bit => "paged_adamw_8bit",
        Optimizer::PagedAdamw => "paged_adamw_32bit",
        Optimizer::Adamw4bit => "adamw_torch_4bit",
        Optimizer::Ademamix => "ademamix",
        Optimizer::Ademamix8bit => "ademamix_8bit",
        Optimizer::GaloreAdamw => "galore_adamw",
        Optimizer::GaloreAdamw8bit => "galore_adamw_8bit",
        Optimizer::ScheduleFreeAdamw => "schedule_free_adamw",
        Optimizer::Adafactor => "adafactor",
        Optimizer::Sgd => "sgd",
        Optimizer::Lion => "lion_32bit",
        Optimizer::SgdMomentum | Optimizer::Muon => {
            return Err(refused(
                "optimizer",
                "transformers names no such optimizer (SGD with momentum, Muon)",
                "transformers 没有这个优化器（带动量的 SGD、Muon）",
            ));
        }
    })
}

/// PEFT's names of the LoRA targets (`all-linear` for every projection).
pub(super) fn lora_targets(mask: u32) -> Value {
    if mask & 127 == 127 {
        return Value::Str("all-linear".to_string());
    }
    let names = [
        (1, "q_proj"),
        (2, "k_proj"),
        (4, "v_proj"),
        (8, "o_proj"),
        (16, "gate_proj"),
        (32, "up_proj"),
        (64, "down_proj"),
    ];
    Value::List(
        names
            .iter()
            .filter(|(bit, _)| mask & bit != 0)
            .map(|(_, n)| (*n).to_string())
            .collect(),
    )
}

/// The `lora_dropout` a launch must write for a stack whose own default is `default`: the
/// estimate's, where the two differ (a LoRA run only).
pub(super) fn lora_dropout(w: &Workload, default: f64) -> Option<f64> {
    (w.lora_rank > 0 && w.regimes.lora_dropout != default).then_some(w.regimes.lora_dropout)
}

/// TRL's `ModelConfig` for LoRA and QLoRA: `use_peft`, `lora_r`, `lora_target_modules`,
/// bitsandbytes' loading.
fn peft(w: &Workload, k: &mut Keys) -> Result<()> {
    let quantized = base_quantization(w)?;
    if w.lora_rank == 0 {
        if quantized != Base::Full {
            return Err(refused(
                "quantization",
                "a quantized base trains adapters only: set lora_rank",
                "量化基座只能训练适配器：请设置 lora_rank",
            ));
        }
        return Ok(());
    }
    k.set("use_peft", true);
    k.set("lora_r", w.lora_rank);
    k.set("lora_target_modules", lora_targets(w.lora_mask));
    // TRL's `ModelConfig.lora_dropout` is 0.05: written where the estimate counted another.
    let trl = crate::estimate::stack_defaults(crate::estimate::Stack::Trl);
    if let Some(p) = lora_dropout(w, trl.lora_dropout) {
        k.set("lora_dropout", p);
    }
    match quantized {
        Base::Full => {}
        Base::Nf4 { double_quant } => {
            // TRL loads in fp32 unless `dtype` says otherwise; PEFT's upcast follows the load.
            if w.regimes.kbit_upcast != (w.precision != Precision::Bf16) {
                return Err(refused(
                    "kbit_upcast",
                    "TRL upcasts a 4-bit base's other parameters as PEFT's prepare_model_for_kbit_training does; it has no setting to keep them as loaded",
                    "TRL 按 PEFT 的 prepare_model_for_kbit_training 上转换 4 比特基座的其余参数，没有保持原样的设置",
                ));
            }
            k.set("load_in_4bit", true);
            k.set("bnb_4bit_quant_type", "nf4");
            k.set("use_bnb_nested_quant", double_quant);
        }
        Base::Int8 => k.set("load_in_8bit", true),
    }
    Ok(())
}

/// How the base is loaded: as it ships, NF4 (QLoRA) or bitsandbytes int8.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Base {
    Full,
    Nf4 { double_quant: bool },
    Int8,
}

/// The base's loading, as bitsandbytes does it; other formats (GPTQ, GGUF, torchao, HQQ) are
/// not written.
pub(super) fn base_quantization(w: &Workload) -> Result<Base> {
    match w.quantization {
        Quantization::None => Ok(Base::Full),
        Quantization::BnbNf4 { double_quant } => Ok(Base::Nf4 { double_quant }),
        Quantization::BnbInt8 => Ok(Base::Int8),
        _ => Err(refused(
            "quantization",
            "the launches load a base as it ships, in bitsandbytes NF4 or in bitsandbytes int8",
            "启动命令只按原格式、bitsandbytes NF4 或 bitsandbytes int8 加载基座",
        )),
    }
}

/// ZeRO as a DeepSpeed JSON the YAML names (`deepspeed: ds_config.json`), FSDP as an
/// accelerate config; several GPUs without either need only their count. Returns the
/// accelerate config's text where one is written.
fn sharding(
    w: &Workload,
    k: &mut Keys,
    l: &mut Builder,
    fsdp_checkpoints: bool,
) -> Result<Option<String>> {
    if let Some(f) = w.sharding.fsdp {
        if w.offload == Offload::Nvme {
            return Err(refused(
                "offload",
                "FSDP offloads to CPU memory only",
                "FSDP 只能卸载到 CPU 内存",
            ));
        }
        return Ok(Some(accelerate_fsdp(w, f, fsdp_checkpoints)));
    }
    if w.zero > 0 {
        ds_file(w, l);
        k.set("deepspeed", "ds_config.json");
    } else if w.offload != Offload::None {
        return Err(refused(
            "offload",
            "offload needs ZeRO (zero 1 to 3) or FSDP",
            "卸载需要 ZeRO（zero 1 到 3）或 FSDP",
        ));
    }
    Ok(None)
}

/// `ds_config.json`, [`ds_config`]'s text.
pub(super) fn ds_file(w: &Workload, l: &mut Builder) {
    let text = ds_config(w, l);
    l.file("ds_config.json", text);
}

/// DeepSpeed's JSON for the run's ZeRO stage, offload and buffers; the batch and precision
/// `"auto"`, which transformers fills from the Trainer's own settings.
fn ds_config(w: &Workload, l: &mut Builder) -> String {
    let b = w.sharding.buckets;
    let mut z: Vec<(&'static str, Value)> = alloc::vec![("stage", Value::Int(u64::from(w.zero)))];
    let device = match w.offload {
        Offload::Cpu | Offload::OptimizerCpu => Some("cpu"),
        Offload::Nvme | Offload::OptimizerNvme => Some("nvme"),
        Offload::None => None,
    };
    if let Some(d) = device {
        let target = |d: &str| {
            let mut m = alloc::vec![("device", Value::from(d))];
            if d == "nvme" {
                m.push(("nvme_path", Value::from("/local_nvme")));
            }
            Value::Map(m)
        };
        z.push(("offload_optimizer", target(d)));
        // `cpu`/`nvme` under ZeRO-3 move the parameters too; `optimizer-cpu`/`optimizer-nvme`
        // leave them on the GPUs.
        if w.zero >= 3 && w.offload.params() {
            z.push(("offload_param", target(d)));
        }
        if d == "nvme" {
            l.note(
                "`/local_nvme` stands for the NVMe directory DeepSpeed offloads to.".to_string(),
                "`/local_nvme` 指 DeepSpeed 卸载到的 NVMe 目录。".to_string(),
            );
        }
    }
    z.push(("overlap_comm", Value::Bool(b.overlap_comm)));
    z.push(("reduce_bucket_size", Value::Int(b.reduce)));
    z.push(("allgather_bucket_size", Value::Int(b.allgather)));
    if w.zero >= 3 {
        z.push(("stage3_prefetch_bucket_size", Value::Int(b.prefetch)));
        z.push(("stage3_max_live_parameters", Value::Int(b.max_live)));
        z.push((
            "stage3_param_persistence_threshold",
            Value::Int(b.persistence),
        ));
    }
    let auto = || Value::Map(alloc::vec![("enabled", Value::from("auto"))]);
    let mut k = Keys::default();
    k.set("train_micro_batch_size_per_gpu", "auto");
    k.set("gradient_accumulation_steps", "auto");
    k.set("zero_optimization", Value::Map(z));
    k.set("bf16", auto());
    k.set("fp16", auto());
    k.json()
}

/// accelerate's config for FSDP (accelerate 1.16 `FullyShardedDataParallelPlugin`'s keys):
/// the version, what is resharded, CPU offload, the processes; the mixed precision where the
/// run is AMP (a pure half run says its type through the model's dtype).
fn accelerate_fsdp(w: &Workload, f: crate::estimate::Fsdp, checkpoints: bool) -> String {
    let mut c: Vec<(&'static str, Value)> = Vec::new();
    match f.version {
        FsdpVersion::V1 => {
            c.push(("fsdp_version", Value::Int(1)));
            let strategy = if f.reshard_after_forward {
                "FULL_SHARD"
            } else {
                "SHARD_GRAD_OP"
            };
            c.push(("fsdp_sharding_strategy", Value::from(strategy)));
        }
        FsdpVersion::V2 => {
            c.push(("fsdp_version", Value::Int(2)));
            c.push((
                "fsdp_reshard_after_forward",
                Value::Bool(f.reshard_after_forward),
            ));
        }
    }
    c.push((
        "fsdp_offload_params",
        Value::Bool(w.offload == Offload::Cpu),
    ));
    c.push((
        "fsdp_auto_wrap_policy",
        Value::from("TRANSFORMER_BASED_WRAP"),
    ));
    if checkpoints {
        c.push(("fsdp_activation_checkpointing", Value::Bool(true)));
    }
    c.push(("fsdp_state_dict_type", Value::from("SHARDED_STATE_DICT")));
    let mut k = Keys::default();
    k.set("compute_environment", "LOCAL_MACHINE");
    k.set("distributed_type", "FSDP");
    k.set("num_machines", w.nodes.nodes.max(1));
    k.set("num_processes", gpus(w));
    match w.precision {
        Precision::AmpBf16 => k.set("mixed_precision", "bf16"),
        Precision::AmpFp16 => k.set("mixed_precision", "fp16"),
        Precision::Fp32 => k.set("mixed_precision", "no"),
        Precision::Bf16 | Precision::Fp16 => {}
    }
    k.set("fsdp_config", Value::Map(c));
    k.yaml()
}
