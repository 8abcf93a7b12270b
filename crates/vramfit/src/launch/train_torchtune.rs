//! torchtune's launch (torchtune 0.6.1): `tune run` with the recipe the run needs
//! (`full_finetune_single_device`, `full_finetune_distributed`, `lora_finetune_single_device`,
//! `lora_finetune_distributed`; QLoRA is the LoRA recipe with a `qlora_` model builder), the
//! model's own shipped config (`--config llama3_1/8B_lora`, whose tokenizer and checkpointer
//! name the model) and `key=value` overrides that set every number the estimate counted:
//! `model._component_` and LoRA's rank, alpha and modules, `batch_size`,
//! `gradient_accumulation_steps`, `tokenizer.max_seq_len`, `dtype`,
//! `enable_activation_checkpointing`, `enable_activation_offloading`, `optimizer_in_bwd`,
//! `optimizer._component_` (`fused`), `loss._component_` with its `num_output_chunks`,
//! `compile`, `dataset.packed`, FSDP's `fsdp_reshard_after_forward` and `fsdp_cpu_offload`.
//! Several GPUs run under `tune run`'s torchrun words (`--nnodes`, `--nproc_per_node`; over
//! several nodes `--rdzv-backend c10d --rdzv-endpoint HEAD_IP:29500`, the same on each node).
//!
//! torchtune's own parser (`TuneRecipeArgumentParser`, the overrides merged onto the shipped
//! config) and `tune run`'s torchrun words read them (`tests/launch/parse_training.py`); the
//! command reads back through `read_command` into the run estimated.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Builder;
use super::train::{gpus, refused};
use crate::error::Result;
use crate::estimate::{
    Checkpointing, FsdpVersion, Kernel, Loss, Offload, Optimizer, Precision, Workload,
};
use crate::precision::Quantization;

/// A model torchtune 0.6.1 builds, and its shipped configs: full on one device, full
/// distributed, LoRA on one device, LoRA distributed, QLoRA on one device, QLoRA distributed;
/// each with whether its optimizer sets `fused` (an optimizer that takes no `fused` needs it
/// removed, `~optimizer.fused`).
struct Model {
    id: &'static str,
    module: &'static str,
    builder: &'static str,
    /// QLoRA builders (`qlora_…`) exist for the family.
    qlora: bool,
    configs: [Option<(&'static str, bool)>; 6],
}

/// torchtune 0.6.1's `recipes/configs/` (its `_recipe_registry.py`) for the models vramfit names.
const MODELS: [Model; 13] = [
    Model {
        id: "meta-llama/Llama-3.1-8B",
        module: "llama3_1",
        builder: "llama3_1_8b",
        qlora: true,
        configs: [
            Some(("llama3_1/8B_full_single_device", false)),
            Some(("llama3_1/8B_full", true)),
            Some(("llama3_1/8B_lora_single_device", true)),
            Some(("llama3_1/8B_lora", true)),
            Some(("llama3_1/8B_qlora_single_device", true)),
            None,
        ],
    },
    Model {
        id: "meta-llama/Llama-3.1-70B",
        module: "llama3_1",
        builder: "llama3_1_70b",
        qlora: true,
        configs: [
            None,
            Some(("llama3_1/70B_full", true)),
            None,
            Some(("llama3_1/70B_lora", true)),
            None,
            None,
        ],
    },
    Model {
        id: "meta-llama/Llama-3.2-1B",
        module: "llama3_2",
        builder: "llama3_2_1b",
        qlora: true,
        configs: [
            Some(("llama3_2/1B_full_single_device", false)),
            Some(("llama3_2/1B_full", true)),
            Some(("llama3_2/1B_lora_single_device", true)),
            Some(("llama3_2/1B_lora", true)),
            Some(("llama3_2/1B_qlora_single_device", true)),
            None,
        ],
    },
    Model {
        id: "meta-llama/Llama-3.2-3B",
        module: "llama3_2",
        builder: "llama3_2_3b",
        qlora: true,
        configs: [
            Some(("llama3_2/3B_full_single_device", false)),
            Some(("llama3_2/3B_full", true)),
            Some(("llama3_2/3B_lora_single_device", true)),
            Some(("llama3_2/3B_lora", true)),
            Some(("llama3_2/3B_qlora_single_device", true)),
            None,
        ],
    },
    Model {
        id: "meta-llama/Llama-3.3-70B-Instruct",
        module: "llama3_3",
        builder: "llama3_3_70b",
        qlora: true,
        configs: [
            None,
            Some(("llama3_3/70B_full", true)),
            None,
            Some(("llama3_3/70B_lora", true)),
            None,
            Some(("llama3_3/70B_qlora", true)),
        ],
    },
    Model {
        id: "meta-llama/Meta-Llama-3-8B",
        module: "llama3",
        builder: "llama3_8b",
        qlora: true,
        configs: [
            Some(("llama3/8B_full_single_device", false)),
            Some(("llama3/8B_full", true)),
            Some(("llama3/8B_lora_single_device", true)),
            Some(("llama3/8B_lora", true)),
            Some(("llama3/8B_qlora_single_device", true)),
            None,
        ],
    },
    Model {
        id: "meta-llama/Meta-Llama-3-70B",
        module: "llama3",
        builder: "llama3_70b",
        qlora: true,
        configs: [
            None,
            Some(("llama3/70B_full", true)),
            None,
            Some(("llama3/70B_lora", true)),
            None,
            None,
        ],
    },
    Model {
        id: "meta-llama/Llama-2-7b-hf",
        module: "llama2",
        builder: "llama2_7b",
        qlora: true,
        configs: [
            Some(("llama2/7B_full_low_memory", false)),
            Some(("llama2/7B_full", true)),
            Some(("llama2/7B_lora_single_device", true)),
            Some(("llama2/7B_lora", true)),
            Some(("llama2/7B_qlora_single_device", true)),
            Some(("llama2/7B_qlora", true)),
        ],
    },
    Model {
        id: "meta-llama/Llama-2-13b-hf",
        module: "llama2",
        builder: "llama2_13b",
        qlora: true,
        configs: [
            None,
            Some(("llama2/13B_full", true)),
            None,
            Some(("llama2/13B_lora", true)),
            Some(("llama2/13B_qlora_single_device", true)),
            None,
        ],
    },
    Model {
        id: "mistralai/Mistral-7B-v0.1",
        module: "mistral",
        builder: "mistral_7b",
        qlora: true,
        configs: [
            Some(("mistral/7B_full_low_memory", false)),
            Some(("mistral/7B_full", true)),
            Some(("mistral/7B_lora_single_device", true)),
            Some(("mistral/7B_lora", true)),
            Some(("mistral/7B_qlora_single_device", true)),
            None,
        ],
    },
    Model {
        id: "google/gemma-2-9b-it",
        module: "gemma2",
        builder: "gemma2_9b",
        qlora: true,
        configs: [
            None,
            Some(("gemma2/9B_full", true)),
            Some(("gemma2/9B_lora_single_device", true)),
            Some(("gemma2/9B_lora", true)),
            Some(("gemma2/9B_qlora_single_device", true)),
            None,
        ],
    },
    Model {
        id: "microsoft/Phi-3-mini-4k-instruct",
        module: "phi3",
        builder: "phi3_mini",
        qlora: true,
        configs: [
            Some(("phi3/mini_full_low_memory", false)),
            Some(("phi3/mini_full", true)),
            Some(("phi3/mini_lora_single_device", true)),
            Some(("phi3/mini_lora", true)),
            Some(("phi3/mini_qlora_single_device", true)),
            None,
        ],
    },
    Model {
        id: "Qwen/Qwen2.5-7B-Instruct",
        module: "qwen2_5",
        builder: "qwen2_5_7b_instruct",
        qlora: false,
        configs: [
            Some(("qwen2_5/7B_full_single_device", false)),
            Some(("qwen2_5/7B_full", true)),
            Some(("qwen2_5/7B_lora_single_device", true)),
            Some(("qwen2_5/7B_lora", true)),
            None,
            None,
        ],
    },
];

/// `tune run …`.
pub(super) fn torchtune(w: &Workload, l: &mut Builder) -> Result<()> {
    let p = super::serve::checkpoint(w)?;
    let Some(m) = MODELS.iter().find(|m| m.id == p.id) else {
        let names: Vec<&str> = MODELS.iter().map(|m| m.id).collect();
        return Err(refused(
            "model",
            &format!(
                "torchtune 0.6.1 ships no recipe config vramfit writes for this model; these: {}",
                names.join(", ")
            ),
            &format!(
                "torchtune 0.6.1 没有 vramfit 为此模型生成的配方配置；可用：{}",
                names.join("、")
            ),
        ));
    };
    checks(w)?;
    let distributed = gpus(w) > 1;
    let lora = w.lora_rank > 0;
    let qlora = w.quantization != Quantization::None;
    if qlora && !m.qlora {
        return Err(refused(
            "quantization",
            "torchtune 0.6.1 has no QLoRA builder for this model",
            "torchtune 0.6.1 没有此模型的 QLoRA 构建函数",
        ));
    }
    let (recipe, kind) = match (lora, distributed) {
        (false, false) => ("full_finetune_single_device", 0),
        (false, true) => ("full_finetune_distributed", 1),
        (true, false) => ("lora_finetune_single_device", if qlora { 4 } else { 2 }),
        (true, true) => ("lora_finetune_distributed", if qlora { 5 } else { 3 }),
    };
    // QLoRA without a QLoRA config of its own: the LoRA one, its builder QLoRA's.
    let config = m.configs[kind].or(if qlora { m.configs[kind - 2] } else { None });
    let Some((config, fused_in_config)) = config else {
        return Err(refused(
            "model",
            &format!("torchtune 0.6.1 ships no {recipe} config for {}", m.id),
            &format!("torchtune 0.6.1 没有 {} 的 {recipe} 配置", m.id),
        ));
    };
    let mut o: Vec<String> = Vec::new();
    let mut set = |k: &str, v: String| {
        o.push(if k.starts_with('~') {
            String::from(k)
        } else {
            format!("{k}={v}")
        })
    };
    let prefix = match (lora, qlora) {
        (false, _) => "",
        (true, false) => "lora_",
        (true, true) => "qlora_",
    };
    set(
        "model._component_",
        format!("torchtune.models.{}.{prefix}{}", m.module, m.builder),
    );
    if lora {
        lora_keys(w, &mut set)?;
    }
    run_keys(w, fused_in_config, &mut set)?;
    let (nodes, per_node) = super::train_nodes::layout(w);
    let mut argv = tune_run(recipe, config, distributed, (nodes, per_node));
    argv.extend(o);
    if nodes > 1 {
        for rank in 0..nodes {
            l.command_on(rank, nodes, argv.clone());
        }
        super::serve::head_note(l, nodes, per_node);
    } else {
        l.command(argv);
    }
    l.note(
        format!("The config `{config}` is torchtune's own: its tokenizer and checkpointer read the model where `tune download {}` puts it (the paths in the config; override `checkpointer.checkpoint_dir` and `tokenizer.path` for yours), its dataset is torchtune's example. The estimate counts rows of tokenizer.max_seq_len tokens, whatever the data.", p.id),
        format!("配置 `{config}` 是 torchtune 自带的：其分词器与检查点读取器从 `tune download {}` 放置模型的位置读取（配置中的路径；用 `checkpointer.checkpoint_dir` 与 `tokenizer.path` 改成你的），数据集是 torchtune 的示例。估算按 tokenizer.max_seq_len 长度的行计算，与数据内容无关。", p.id),
    );
    Ok(())
}

/// The run's keys beside the model's: the batch, the sequence, the precision, checkpointing
/// and offloading, the optimizer and the loss, compile, packing and (distributed) FSDP2's.
/// `fused_in_config`: the shipped config sets `optimizer.fused`.
fn run_keys(w: &Workload, fused_in_config: bool, set: &mut impl FnMut(&str, String)) -> Result<()> {
    let (lora, distributed) = (w.lora_rank > 0, gpus(w) > 1);
    set("batch_size", w.batch.to_string());
    set("gradient_accumulation_steps", w.grad_accum.to_string());
    set("tokenizer.max_seq_len", w.seq_len.to_string());
    set(
        "dtype",
        String::from(if w.precision == Precision::Bf16 {
            "bf16"
        } else {
            "fp32"
        }),
    );
    // The LoRA builders' `lora_dropout` defaults to 0.0.
    if let Some(p) = super::train::lora_dropout(w, 0.0) {
        set("model.lora_dropout", crate::units::short(p));
    }
    let ac = w.checkpointing == Checkpointing::Full;
    set("enable_activation_checkpointing", bool_word(ac));
    set(
        "enable_activation_offloading",
        bool_word(w.regimes.activation_offload),
    );
    if !lora {
        set(
            "optimizer_in_bwd",
            bool_word(w.regimes.optimizer_in_backward),
        );
    }
    let (component, fused) = optimizer(w)?;
    // torchao's CPUOffloadOptimizer on one GPU (ZeRO 0 with offload): the optimizer becomes its
    // `optimizer_class`, `offload_gradients` with `cpu` (torchao 0.18.0 `optim/cpu_offload.py`).
    if !distributed && w.zero == 0 && w.offload != Offload::None {
        set(
            "optimizer._component_",
            String::from("torchao.optim.CPUOffloadOptimizer"),
        );
        set("optimizer.optimizer_class", String::from(component));
        set(
            "optimizer.offload_gradients",
            bool_word(w.offload == Offload::Cpu),
        );
    } else {
        set("optimizer._component_", String::from(component));
    }
    match fused {
        Some(f) => set("optimizer.fused", bool_word(f)),
        // torchtune's removal of a key the config sets, which the optimizer does not take.
        None if fused_in_config => set("~optimizer.fused", String::new()),
        None => {}
    }
    match w.regimes.loss {
        Loss::Chunked => {
            set(
                "loss._component_",
                String::from("torchtune.modules.loss.CEWithChunkedOutputLoss"),
            );
            set("loss.num_output_chunks", w.regimes.loss_chunks.to_string());
        }
        _ => set(
            "loss._component_",
            String::from("torch.nn.CrossEntropyLoss"),
        ),
    }
    set("compile", bool_word(w.regimes.compile));
    set("dataset.packed", bool_word(w.regimes.packing));
    if distributed {
        let f = w.sharding.fsdp.filter(|f| f.version == FsdpVersion::V2);
        let Some(f) = f else {
            return Err(refused(
                "fsdp_version",
                "torchtune's distributed recipes shard with FSDP2: zero 3 (or 2) with fsdp_version 2",
                "torchtune 的分布式配方用 FSDP2 分片：zero 3（或 2）配 fsdp_version 2",
            ));
        };
        set(
            "fsdp_reshard_after_forward",
            bool_word(f.reshard_after_forward),
        );
        set("fsdp_cpu_offload", bool_word(w.offload == Offload::Cpu));
    }
    Ok(())
}

/// `tune run`'s words up to the overrides: torchrun's (`--nnodes`, `--nproc_per_node`, over
/// several nodes the rendezvous at the head) where the recipe is distributed, the recipe and
/// its shipped config.
fn tune_run(
    recipe: &str,
    config: &str,
    distributed: bool,
    (nodes, per_node): (u64, u64),
) -> Vec<String> {
    let mut argv: Vec<String> = alloc::vec![String::from("tune"), String::from("run")];
    if distributed {
        argv.extend([
            String::from("--nnodes"),
            nodes.to_string(),
            String::from("--nproc_per_node"),
            per_node.to_string(),
        ]);
        if nodes > 1 {
            argv.extend(
                [
                    "--rdzv-backend",
                    "c10d",
                    "--rdzv-endpoint",
                    &format!("HEAD_IP:{}", super::train_nodes::MAIN_PORT),
                ]
                .map(String::from),
            );
        }
    }
    argv.extend([
        String::from(recipe),
        String::from("--config"),
        String::from(config),
    ]);
    argv
}

/// LoRA's rank, alpha (twice the rank, as torchtune's configs set it) and where it applies:
/// the attention's projections by name, the MLP's three together.
fn lora_keys(w: &Workload, set: &mut impl FnMut(&str, String)) -> Result<()> {
    let mask = w.lora_mask;
    let mlp = mask & (16 | 32 | 64);
    if mlp != 0 && mlp != (16 | 32 | 64) || mask & !127 != 0 {
        return Err(refused(
            "lora_targets",
            "torchtune puts LoRA on the attention's projections by name and on the MLP's three together (apply_lora_to_mlp)",
            "torchtune 按名称在注意力投影上加 LoRA，MLP 的三个投影一起加（apply_lora_to_mlp）",
        ));
    }
    let attn: Vec<&str> = [
        (1, "q_proj"),
        (2, "k_proj"),
        (4, "v_proj"),
        (8, "output_proj"),
    ]
    .iter()
    .filter(|(bit, _)| mask & bit != 0)
    .map(|(_, n)| *n)
    .collect();
    set("model.lora_attn_modules", format!("[{}]", attn.join(",")));
    set("model.apply_lora_to_mlp", bool_word(mlp != 0));
    set("model.apply_lora_to_output", bool_word(false));
    set("model.lora_rank", w.lora_rank.to_string());
    set(
        "model.lora_alpha",
        w.lora_rank.saturating_mul(2).to_string(),
    );
    Ok(())
}

/// `optimizer._component_` and its `fused` (`None`: the optimizer takes none).
fn optimizer(w: &Workload) -> Result<(&'static str, Option<bool>)> {
    if w.fused_optimizer && w.optimizer != Optimizer::Adamw {
        return Err(refused(
            "fused_optimizer",
            "the launch fuses torch's AdamW alone (optimizer.fused)",
            "启动命令只融合 torch 的 AdamW（optimizer.fused）",
        ));
    }
    if !w.regimes.foreach && !w.fused_optimizer {
        return Err(refused(
            "foreach",
            "the launch writes torch's default step (foreach), or fused",
            "启动命令写 torch 的默认步骤（foreach）或融合步骤",
        ));
    }
    Ok(match w.optimizer {
        Optimizer::Adamw => ("torch.optim.AdamW", Some(w.fused_optimizer)),
        Optimizer::Adamw8bit => ("bitsandbytes.optim.AdamW8bit", None),
        Optimizer::PagedAdamw8bit => ("bitsandbytes.optim.PagedAdamW8bit", None),
        Optimizer::PagedAdamw => ("bitsandbytes.optim.PagedAdamW", None),
        Optimizer::Adamw4bit => ("torchao.optim.AdamW4bit", None),
        Optimizer::Ademamix => ("bitsandbytes.optim.AdEMAMix", None),
        Optimizer::Ademamix8bit => ("bitsandbytes.optim.AdEMAMix8bit", None),
        Optimizer::Sgd => ("torch.optim.SGD", None),
        Optimizer::Adafactor => ("torch.optim.Adafactor", None),
        _ => {
            return Err(refused(
                "optimizer",
                "the torchtune launch writes torch's AdamW, SGD and Adafactor, bitsandbytes' and torchao's low-bit AdamW and AdEMAMix",
                "torchtune 启动命令只写 torch 的 AdamW、SGD 与 Adafactor，以及 bitsandbytes 与 torchao 的低比特 AdamW 和 AdEMAMix",
            ));
        }
    })
}

/// What torchtune's recipes cannot be told.
fn checks(w: &Workload) -> Result<()> {
    match w.precision {
        Precision::Bf16 | Precision::Fp32 => {}
        _ => {
            return Err(refused(
                "precision",
                "torchtune trains in its dtype itself, no mixed precision and no fp16: bf16 or fp32",
                "torchtune 直接以其 dtype 训练，没有混合精度，也不支持 fp16：bf16 或 fp32",
            ));
        }
    }
    if w.checkpointing == Checkpointing::Selective {
        return Err(refused(
            "grad_checkpointing",
            "the launch checkpoints whole blocks (enable_activation_checkpointing)",
            "启动命令只对整个块做检查点（enable_activation_checkpointing）",
        ));
    }
    if w.regimes.activation_offload && w.checkpointing != Checkpointing::Full {
        return Err(refused(
            "activation_offload",
            "torchtune offloads activations with checkpointing on (enable_activation_checkpointing)",
            "torchtune 在开启检查点（enable_activation_checkpointing）时才卸载激活",
        ));
    }
    if w.regimes.loss == Loss::Fused {
        return Err(refused(
            "loss",
            "torchtune's losses are the full and the chunked (CEWithChunkedOutputLoss); Liger's fused loss is not one",
            "torchtune 的损失是完整损失与分块损失（CEWithChunkedOutputLoss），没有 Liger 的融合损失",
        ));
    }
    if w.kernel != Kernel::Flash {
        return Err(refused(
            "attention",
            "torchtune's attention is PyTorch's SDPA",
            "torchtune 的注意力是 PyTorch 的 SDPA",
        ));
    }
    match w.quantization {
        Quantization::None => {}
        Quantization::TorchaoNf4 if w.lora_rank > 0 && !w.regimes.kbit_upcast => {}
        _ => {
            return Err(refused(
                "quantization",
                "torchtune loads the base as it ships or, for QLoRA, in torchao's NF4 without upcast",
                "torchtune 按原格式加载基座，QLoRA 则用 torchao 的 NF4（不上转换）",
            ));
        }
    }
    if w.lora_rank > 0 && w.regimes.optimizer_in_backward {
        return Err(refused(
            "optimizer_in_backward",
            "torchtune steps in backward in its full fine-tuning recipes only",
            "torchtune 只在全量微调配方中于反向执行优化器步骤",
        ));
    }
    if w.regimes.optimizer_in_backward && w.grad_accum > 1 {
        return Err(refused(
            "grad_accum",
            "torchtune's step in backward takes no gradient accumulation",
            "torchtune 在反向中执行优化器步骤时不能梯度累积",
        ));
    }
    if w.tp > 1 || w.pp > 1 || w.sharding.megatron.is_some() {
        return Err(refused(
            "tp",
            "the torchtune launch shards with FSDP2 only",
            "torchtune 启动命令只用 FSDP2 分片",
        ));
    }
    if gpus(w) <= 1 && w.zero != 0 {
        return Err(refused(
            "zero",
            "torchtune's single-device recipes shard nothing",
            "torchtune 的单卡配方不分片",
        ));
    }
    if gpus(w) <= 1 && w.offload.nvme() {
        return Err(refused(
            "offload",
            "torchtune's single-device recipes offload the optimizer to CPU memory only (torchao's CPUOffloadOptimizer)",
            "torchtune 的单卡配方只把优化器卸载到 CPU 内存（torchao 的 CPUOffloadOptimizer）",
        ));
    }
    if w.offload == Offload::Nvme {
        return Err(refused(
            "offload",
            "torchtune offloads to CPU memory (fsdp_cpu_offload)",
            "torchtune 卸载到 CPU 内存（fsdp_cpu_offload）",
        ));
    }
    Ok(())
}

fn bool_word(b: bool) -> String {
    String::from(if b { "True" } else { "False" })
}
