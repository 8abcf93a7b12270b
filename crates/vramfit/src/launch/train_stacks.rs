//! The launches of LLaMA-Factory (`llamafactory-cli train train.yaml`, LLaMA-Factory 0.9.5's
//! keys) and axolotl (`axolotl train train.yml`, axolotl 0.19.0's), each with DeepSpeed's
//! JSON under ZeRO; the GPUs are the ones `CUDA_VISIBLE_DEVICES` shows, each stack starting a
//! process per GPU (LLaMA-Factory through `torchrun` when more than one is visible, axolotl
//! through `accelerate launch`).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Builder;
use super::train::{
    Base, base_quantization, checkpointing, ds_file, gpus, hf_optim, lora_targets, refused,
    regimes_hf,
};
use super::yaml::{Keys, Value};
use crate::error::Result;
use crate::estimate::{Kernel, Loss, Offload, Optimizer, Precision, Stack, Workload};

/// LLaMA-Factory's example dataset (its `examples/train_lora/llama3_lora_sft.yaml`).
const LLAMAFACTORY_DATASET: &str = "alpaca_en_demo";

/// axolotl's example dataset (its `examples/llama-3/lora-1b.yml`), in the alpaca format.
const AXOLOTL_DATASET: &str = "mhenrichsen/alpaca_2k_test";

/// `llamafactory-cli train train.yaml`.
pub(super) fn llamafactory(w: &Workload, l: &mut Builder) -> Result<()> {
    let p = super::serve::checkpoint(w)?;
    common_checks(w, Stack::Llamafactory)?;
    if w.regimes.compile {
        return Err(refused(
            "compile",
            "LLaMA-Factory's file has no torch.compile setting vramfit reads",
            "LLaMA-Factory 的文件中没有 vramfit 读取的 torch.compile 设置",
        ));
    }
    let mut k = Keys::default();
    k.set("model_name_or_path", p.id);
    k.set("stage", "sft");
    k.set("do_train", true);
    match (w.lora_rank, base_quantization(w)?) {
        (0, Base::Full) => k.set("finetuning_type", "full"),
        (0, _) => return Err(adapters_only()),
        (rank, base) => {
            k.set("finetuning_type", "lora");
            k.set("lora_rank", rank);
            let targets = match lora_targets(w.lora_mask) {
                Value::List(names) => names.join(","),
                _ => "all".to_string(),
            };
            k.set("lora_target", targets);
            if let Some(p) = super::train::lora_dropout(w, 0.0) {
                k.set("lora_dropout", p);
            }
            match base {
                Base::Full => {}
                Base::Nf4 { double_quant } => {
                    k.set("quantization_bit", 4u64);
                    k.set("quantization_method", "bnb");
                    k.set("double_quantization", double_quant);
                }
                Base::Int8 => {
                    k.set("quantization_bit", 8u64);
                    k.set("quantization_method", "bnb");
                }
            }
        }
    }
    k.set("dataset", LLAMAFACTORY_DATASET);
    k.set("template", "default");
    k.set("cutoff_len", w.seq_len);
    k.set("output_dir", "out");
    k.set("per_device_train_batch_size", w.batch);
    match w.precision {
        Precision::AmpBf16 => k.set("bf16", true),
        Precision::Bf16 => k.set("pure_bf16", true),
        Precision::AmpFp16 => k.set("fp16", true),
        Precision::Fp32 => {}
        Precision::Fp16 => return Err(pure_fp16("LLaMA-Factory")),
    }
    k.set("disable_gradient_checkpointing", !checkpointing(w)?);
    k.set(
        "flash_attn",
        match w.kernel {
            Kernel::Flash => "sdpa",
            Kernel::Eager => "disabled",
        },
    );
    k.set("optim", hf_optim(w)?);
    if w.regimes.loss == Loss::Fused {
        k.set("enable_liger_kernel", true);
    }
    if w.regimes.activation_offload {
        k.set("use_unsloth_gc", true);
    }
    if w.regimes.packing {
        k.set("packing", true);
    }
    if w.zero > 0 {
        ds_file(w, l);
        k.set("deepspeed", "ds_config.json");
    }
    l.first_file("train.yaml", k.yaml());
    visible_gpus(w, l);
    if gpus(w) > 1 {
        // LLaMA-Factory 0.9.5 `cli.py`: torchrun with NPROC_PER_NODE processes (every visible
        // GPU by default) when FORCE_TORCHRUN is set or more than one GPU is visible.
        l.env("FORCE_TORCHRUN", "1".to_string());
        let (_, per_node) = super::train_nodes::layout(w);
        l.env("NPROC_PER_NODE", per_node.to_string());
    }
    super::train_nodes::llamafactory_on_nodes(w, l);
    l.note(
        format!("`{LLAMAFACTORY_DATASET}` and the template `default` are LLaMA-Factory's example: put your dataset (in its dataset_info.json) and your model's chat template there. The estimate counts rows of cutoff_len tokens, whatever the data."),
        format!("`{LLAMAFACTORY_DATASET}` 与模板 `default` 是 LLaMA-Factory 的示例：请换成你的数据集（登记在其 dataset_info.json 中）与模型的对话模板。估算按 cutoff_len 长度的行计算，与数据内容无关。"),
    );
    Ok(())
}

/// `axolotl train train.yml`.
pub(super) fn axolotl(w: &Workload, l: &mut Builder) -> Result<()> {
    let p = super::serve::checkpoint(w)?;
    common_checks(w, Stack::Axolotl)?;
    if w.regimes.activation_offload && !checkpointing(w)? {
        return Err(refused(
            "activation_offload",
            "axolotl offloads the checkpoints (gradient_checkpointing: offload): it needs checkpointing on",
            "axolotl 卸载的是检查点（gradient_checkpointing: offload），需要开启检查点",
        ));
    }
    let mut k = Keys::default();
    k.set("base_model", p.id);
    match (w.lora_rank, base_quantization(w)?) {
        (0, Base::Full) => {}
        (0, _) => return Err(adapters_only()),
        (rank, base) => {
            k.set(
                "adapter",
                if matches!(base, Base::Nf4 { .. }) {
                    "qlora"
                } else {
                    "lora"
                },
            );
            k.set("lora_r", rank);
            match lora_targets(w.lora_mask) {
                Value::List(names) => k.set("lora_target_modules", Value::List(names)),
                _ => k.set("lora_target_linear", true),
            }
            if let Some(p) = super::train::lora_dropout(w, 0.0) {
                k.set("lora_dropout", p);
            }
            match base {
                Base::Full => {}
                Base::Nf4 { double_quant } => {
                    k.set("load_in_4bit", true);
                    k.set("bnb_4bit_use_double_quant", double_quant);
                }
                Base::Int8 => k.set("load_in_8bit", true),
            }
        }
    }
    k.set(
        "datasets",
        Value::Records(alloc::vec![alloc::vec![
            ("path", Value::from(AXOLOTL_DATASET)),
            ("type", Value::from("alpaca")),
        ]]),
    );
    k.set("output_dir", "out");
    // Required by axolotl's schema; its examples' rate. No memory depends on it.
    k.set("learning_rate", 0.0002);
    k.set("micro_batch_size", w.batch);
    k.set("sequence_len", w.seq_len);
    match w.precision {
        Precision::Bf16 => k.set("bf16", true),
        Precision::AmpFp16 => {
            k.set("bf16", false);
            k.set("fp16", true);
        }
        Precision::Fp32 => k.set("bf16", false),
        Precision::AmpBf16 => {
            return Err(refused(
                "precision",
                "axolotl loads the model in bf16 under bf16: its runs are pure bf16 (precision bf16)",
                "axolotl 在 bf16 下以 bf16 加载模型：它的运行是纯 bf16（precision bf16）",
            ));
        }
        Precision::Fp16 => return Err(pure_fp16("axolotl")),
    }
    let gc: Value = match (checkpointing(w)?, w.regimes.activation_offload) {
        (true, true) => "offload".into(),
        (on, _) => on.into(),
    };
    k.set("gradient_checkpointing", gc);
    // axolotl 0.19: `attn_implementation` (its `sdp_attention` is deprecated).
    k.set("attn_implementation", super::train::attention(w.kernel));
    k.set("optimizer", hf_optim(w)?);
    if w.regimes.loss == Loss::Fused {
        k.set(
            "plugins",
            Value::List(Vec::from([
                "axolotl.integrations.liger.LigerPlugin".to_string()
            ])),
        );
        k.set("liger_fused_linear_cross_entropy", true);
    }
    if w.regimes.packing {
        k.set("sample_packing", true);
    }
    if w.regimes.compile {
        k.set("torch_compile", true);
    }
    axolotl_sharding(w, &mut k, l)?;
    l.first_file("train.yml", k.yaml());
    visible_gpus(w, l);
    // Over several nodes axolotl hands the words after `--` to `accelerate launch`, which
    // needs the processes of every node (`--num_processes`).
    let total = gpus(w).to_string();
    super::train_nodes::accelerate_on_nodes(
        w,
        l,
        &["axolotl", "train", "train.yml"],
        &["--", "--num_processes", &total],
    );
    l.note(
        format!("`{AXOLOTL_DATASET}` is axolotl's example dataset: put yours there with its format. The estimate counts rows of sequence_len tokens, whatever the data."),
        format!("`{AXOLOTL_DATASET}` 是 axolotl 的示例数据集，请换成你的数据集及其格式。估算按 sequence_len 长度的行计算，与数据内容无关。"),
    );
    Ok(())
}

/// axolotl's ZeRO (a DeepSpeed JSON) or FSDP (`fsdp_version`, `fsdp_config`).
fn axolotl_sharding(w: &Workload, k: &mut Keys, l: &mut Builder) -> Result<()> {
    if let Some(f) = w.sharding.fsdp {
        if !f.reshard_after_forward || w.offload == Offload::Nvme {
            return Err(refused(
                "reshard_after_forward",
                "axolotl's FSDP is a full shard, offloaded to CPU memory or not",
                "axolotl 的 FSDP 是完全分片，可卸载到 CPU 内存",
            ));
        }
        let version = match f.version {
            crate::estimate::FsdpVersion::V1 => 1u64,
            crate::estimate::FsdpVersion::V2 => 2,
        };
        k.set("fsdp_version", version);
        let mut c = alloc::vec![("offload_params", Value::Bool(w.offload == Offload::Cpu))];
        if version >= 2 {
            c.push(("reshard_after_forward", Value::Bool(true)));
        }
        c.push(("auto_wrap_policy", Value::from("TRANSFORMER_BASED_WRAP")));
        k.set("fsdp_config", Value::Map(c));
    } else if w.zero > 0 {
        ds_file(w, l);
        k.set("deepspeed", "ds_config.json");
    } else if w.offload != Offload::None {
        return Err(refused(
            "offload",
            "offload needs ZeRO (zero 1 to 3) or FSDP",
            "卸载需要 ZeRO（zero 1 到 3）或 FSDP",
        ));
    }
    Ok(())
}

/// What LLaMA-Factory and axolotl share with transformers, and their own limits: GaLore's rank
/// and the 4-bit base's upcast are their defaults only; FSDP is written for axolotl alone.
fn common_checks(w: &Workload, stack: Stack) -> Result<()> {
    regimes_hf(w)?;
    if matches!(
        w.optimizer,
        Optimizer::GaloreAdamw | Optimizer::GaloreAdamw8bit
    ) {
        return Err(refused(
            "optimizer",
            "GaLore's rank is not read from this stack's file",
            "不从该训练栈的文件读取 GaLore 的秩",
        ));
    }
    if w.lora_rank > 0
        && w.quantization != crate::precision::Quantization::None
        && w.regimes.kbit_upcast != w.regimes.defaults().kbit_upcast
    {
        return Err(refused(
            "kbit_upcast",
            "the stack casts a quantized base's other parameters by its own rule, with no setting",
            "训练栈按自身规则转换量化基座的其余参数，没有可改的设置",
        ));
    }
    if stack == Stack::Llamafactory && w.sharding.fsdp.is_some() {
        return Err(refused(
            "fsdp_version",
            "LLaMA-Factory's FSDP runs through an accelerate config of its own; the launch writes ZeRO for it",
            "LLaMA-Factory 的 FSDP 通过它自己的 accelerate 配置运行；启动命令为它写 ZeRO",
        ));
    }
    if stack == Stack::Llamafactory && w.zero == 0 && w.offload != Offload::None {
        return Err(refused(
            "offload",
            "offload needs ZeRO (zero 1 to 3)",
            "卸载需要 ZeRO（zero 1 到 3）",
        ));
    }
    Ok(())
}

/// The GPUs a run uses, as the stacks see them: `CUDA_VISIBLE_DEVICES` when several.
fn visible_gpus(w: &Workload, l: &mut Builder) {
    // Each node's own GPUs.
    let (_, n) = super::train_nodes::layout(w);
    if n > 1 {
        let ids: Vec<String> = (0..n.min(1024)).map(|i| i.to_string()).collect();
        l.env("CUDA_VISIBLE_DEVICES", ids.join(","));
    }
}

fn adapters_only() -> crate::error::InputError {
    refused(
        "quantization",
        "a quantized base trains adapters only: set lora_rank",
        "量化基座只能训练适配器：请设置 lora_rank",
    )
}

fn pure_fp16(stack: &str) -> crate::error::InputError {
    refused(
        "precision",
        &format!("{stack} has no pure fp16 run: amp-fp16, bf16 or fp32"),
        &format!("{stack} 没有纯 fp16 运行：amp-fp16、bf16 或 fp32"),
    )
}
