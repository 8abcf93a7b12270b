//! torchtune's recipe configs (torchtune 0.6.1, `recipes/configs/`): the model builder named by
//! `model._component_` (its LoRA and QLoRA settings), `batch_size`, `tokenizer.max_seq_len`,
//! `dtype` (torchtune trains in that dtype itself: pure bf16, no fp32 master weights), the
//! optimizer's `_component_` and `enable_activation_checkpointing`.

use crate::precision::Quantization;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::tree::Map;
use super::{Reading, names};
use crate::error::Result;
use crate::estimate::{Checkpointing, Loss, Offload, Optimizer, Precision, Stack};

/// Whether the file is a recipe: its model is a `_component_`.
pub(super) fn is_recipe(top: &Map<'_>) -> bool {
    top.has("model") && (top.has("tokenizer") || top.has("checkpointer"))
}

/// torchtune's builders (without `lora_`/`qlora_`) and the preset each builds.
const MODELS: [(&str, &str); 16] = [
    ("llama3_1_8b", "meta-llama/Llama-3.1-8B"),
    ("llama3_1_70b", "meta-llama/Llama-3.1-70B"),
    ("llama3_1_405b", "meta-llama/Llama-3.1-405B"),
    ("llama3_2_1b", "meta-llama/Llama-3.2-1B"),
    ("llama3_2_3b", "meta-llama/Llama-3.2-3B"),
    ("llama3_3_70b", "meta-llama/Llama-3.3-70B-Instruct"),
    ("llama3_8b", "meta-llama/Meta-Llama-3-8B"),
    ("llama3_70b", "meta-llama/Meta-Llama-3-70B"),
    ("llama2_7b", "meta-llama/Llama-2-7b-hf"),
    ("llama2_13b", "meta-llama/Llama-2-13b-hf"),
    ("mistral_7b", "mistralai/Mistral-7B-v0.1"),
    ("gemma2_9b", "google/gemma-2-9b-it"),
    ("phi3_mini", "microsoft/Phi-3-mini-4k-instruct"),
    ("qwen2_5_7b", "Qwen/Qwen2.5-7B-Instruct"),
    ("qwen2_5_14b", "Qwen/Qwen2.5-14B-Instruct"),
    ("qwen3_8b", "Qwen/Qwen3-8B"),
];

/// Reads a recipe.
pub(super) fn read(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    r.input.training.stack = Some(Stack::Torchtune);
    if let Some(model) = m.map("model")? {
        read_model(&model, r)?;
    }
    if let Some(b) = m.num("batch_size")? {
        r.input.run.batch = b;
    }
    let max_seq_len = match m.map("tokenizer")? {
        Some(t) => t.num("max_seq_len")?,
        None => None,
    };
    match max_seq_len {
        Some(n) => r.input.run.seq_len = n,
        None => r.assume(
            "the sequence length is the data's: tokenizer.max_seq_len is null",
            "序列长度取决于数据：tokenizer.max_seq_len 为 null",
        ),
    }
    // Recipes cast the model to `dtype` and step the optimizer in it.
    r.input.training.precision = match m.str("dtype")?.as_deref().and_then(names::dtype) {
        Some("fp32") => Precision::Fp32,
        Some("fp16") => Precision::Fp16,
        _ => Precision::Bf16,
    };
    r.input.training.grad_checkpointing =
        if m.bool("enable_activation_checkpointing")?.unwrap_or(false) {
            Checkpointing::Full
        } else {
            Checkpointing::None
        };
    if let Some(o) = m.map("optimizer")? {
        read_optimizer(&o, r)?;
    }
    r.input.training.optimizer_in_backward = m.bool("optimizer_in_bwd")?.unwrap_or(false);
    r.input.training.compile = m.bool("compile")?.unwrap_or(false);
    // The recipes' `cfg.get("enable_activation_offloading", False)`.
    r.input.training.activation_offload =
        Some(m.bool("enable_activation_offloading")?.unwrap_or(false));
    if let Some(d) = m.map("dataset")? {
        r.input.training.packing = d.bool("packed")?.unwrap_or(false);
    }
    if let Some(l) = m.map("loss")? {
        read_loss(&l, r)?;
    }
    distributed(m, r)
}

/// The distributed recipes' FSDP2 keys (torchtune 0.6.1 `recipes/full_finetune_distributed.py`,
/// `lora_finetune_distributed.py`: `cfg.get("fsdp_cpu_offload", False)`,
/// `cfg.get("fsdp_reshard_after_forward", True)`): a recipe that has either shards with FSDP2,
/// full shard unless told, the parameters, gradients and states in CPU memory with the offload,
/// as `tune run --nproc_per_node N` reads them (`launch/read_stack.rs`).
fn distributed(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    let offload = m.bool("fsdp_cpu_offload")?;
    let reshard = m.bool("fsdp_reshard_after_forward")?;
    if offload.is_none() && reshard.is_none() {
        return Ok(());
    }
    r.input.placement.zero = 3.0;
    r.input.placement.fsdp_version = Some(2.0);
    r.input.placement.reshard_after_forward = Some(reshard.unwrap_or(true));
    if offload == Some(true) {
        r.input.placement.offload = crate::estimate::Offload::Cpu;
    }
    r.assume(
        "a distributed recipe (fsdp_* keys): FSDP2 over the GPUs given (gpus)",
        "分布式配方（含 fsdp_* 键）：在给定的 GPU（gpus）上用 FSDP2 分片",
    );
    Ok(())
}

/// `loss._component_`: the chunked losses (`CEWithChunkedOutputLoss`, and
/// `LinearCrossEntropyLoss`, which chunks the output projection with it) and their
/// `num_output_chunks`; plain `CrossEntropyLoss` holds the full logits.
fn read_loss(l: &Map<'_>, r: &mut Reading) -> Result<()> {
    let component = l.str("_component_")?.unwrap_or_default();
    match component.rsplit('.').next().unwrap_or("") {
        "CEWithChunkedOutputLoss" | "LinearCrossEntropyLoss" => {
            r.input.training.loss = Some(Loss::Chunked);
            r.input.training.loss_chunks = l.num("num_output_chunks")?;
        }
        "CrossEntropyLoss" => r.input.training.loss = Some(Loss::Full),
        _ => {
            let line = l.line("_component_");
            return Err(crate::input_error!(
                Unsupported,
                l.path_of("_component_"),
                ["line {line}: `{component}` is not a loss vramfit counts"],
                ["第 {line} 行：`{component}` 不是 vramfit 计算的损失"],
                "torchtune.modules.loss.LinearCrossEntropyLoss, CEWithChunkedOutputLoss, torch.nn.CrossEntropyLoss",
                "torchtune.modules.loss.LinearCrossEntropyLoss、CEWithChunkedOutputLoss、torch.nn.CrossEntropyLoss",
            ));
        }
    }
    Ok(())
}

/// `model`: the builder, LoRA's rank and where it applies.
fn read_model(model: &Map<'_>, r: &mut Reading) -> Result<()> {
    let component = model.str("_component_")?.unwrap_or_default();
    let builder = component.rsplit('.').next().unwrap_or("");
    let (qlora, lora, base) = if let Some(b) = builder.strip_prefix("qlora_") {
        (true, true, b)
    } else if let Some(b) = builder.strip_prefix("lora_") {
        (false, true, b)
    } else {
        (false, false, builder)
    };
    let base = base.trim_end_matches("_instruct").trim_end_matches("_base");
    match MODELS.iter().find(|(b, _)| *b == base) {
        Some((_, id)) => r.set_model((*id).to_string()),
        None => r.assume(
            alloc::format!("torchtune's `{builder}` is no preset: give the model (--model)"),
            alloc::format!("torchtune 的 `{builder}` 不是预设模型：请给出模型（--model）"),
        ),
    }
    if !lora {
        return Ok(());
    }
    r.input.training.qlora = qlora;
    if qlora {
        // `qlora_*` builders pass `quantize_base=True`: torchtune's `FrozenNF4Linear` and
        // `LoRALinear` hold torchao's `to_nf4` (block 64, scalers in blocks of 256), not
        // bitsandbytes (torchtune 0.6.1 `modules/low_precision/nf4_linear.py`, `modules/peft/lora.py`).
        r.input.model.quantization = Quantization::TorchaoNf4;
    }
    // torchtune's LoRA builders: `lora_rank` 8 in every recipe; no default in the builder.
    r.input.training.lora_rank = model.num("lora_rank")?.unwrap_or(8.0);
    // `lora_dropout`: the builders' default 0.0 when absent (the stack's default).
    r.input.training.lora_dropout = model.num("lora_dropout")?;
    let mut targets: Vec<String> = model.strs("lora_attn_modules")?.unwrap_or_default();
    if model.bool("apply_lora_to_mlp")?.unwrap_or(false) {
        targets.extend(["gate_proj", "up_proj", "down_proj"].map(String::from));
    }
    if !targets.is_empty() {
        r.input.training.lora_targets = names::lora_targets(targets);
    }
    Ok(())
}

/// `optimizer._component_`: torch's AdamW (with `fused`), bitsandbytes' and torchao's 8-bit
/// AdamW, bitsandbytes' paged 32-bit AdamW and AdEMAMix, torchao's 4-bit AdamW, torch's Muon,
/// SGD; and torchao's `CPUOffloadOptimizer` around one of them.
fn read_optimizer(o: &Map<'_>, r: &mut Reading) -> Result<()> {
    let component = o.str("_component_")?.unwrap_or_default();
    let name = component.rsplit('.').next().unwrap_or("");
    if name == "CPUOffloadOptimizer" {
        return read_cpu_offload(o, r);
    }
    r.input.training.optimizer = match optimizer_named(name) {
        Some(x) => x,
        None => return Err(not_counted(o, "_component_", &component)),
    };
    r.input.training.fused_optimizer = o.bool("fused")?.unwrap_or(false);
    Ok(())
}

/// torchao's `CPUOffloadOptimizer` (`torchao.optim.`, the older
/// `torchao.prototype.low_bit_optim.`, torchtune 0.6.1's wrapper `torchtune.modules.optim.`;
/// torchtune's docs, `docs/source/tutorials/memory_optimizations.rst`): the states on the CPU,
/// `offload_gradients` (default False) the gradients too, `optimizer_class` the optimizer it
/// runs there (torchao 0.18.0 `torchao/optim/cpu_offload.py`: default `torch.optim.AdamW`,
/// `fused=True` unless given). ZeRO 0 with offload `optimizer-cpu`, or `cpu` with the gradients.
fn read_cpu_offload(o: &Map<'_>, r: &mut Reading) -> Result<()> {
    let class = o.str("optimizer_class")?;
    let class = class.as_deref().unwrap_or("torch.optim.AdamW");
    let name = class.rsplit('.').next().unwrap_or("");
    r.input.training.optimizer = match optimizer_named(name) {
        Some(x) => x,
        None => return Err(not_counted(o, "optimizer_class", class)),
    };
    let adamw = r.input.training.optimizer == Optimizer::Adamw;
    r.input.training.fused_optimizer = o.bool("fused")?.unwrap_or(adamw);
    r.input.placement.offload = if o.bool("offload_gradients")?.unwrap_or(false) {
        Offload::Cpu
    } else {
        Offload::OptimizerCpu
    };
    r.assume(
        "torchao's CPUOffloadOptimizer: a single-device recipe (one GPU), parameters under 4096 elements kept on the GPU (minimal_size)",
        "torchao 的 CPUOffloadOptimizer：单卡配方（一张 GPU），小于 4096 个元素的参数留在 GPU 上（minimal_size）",
    );
    Ok(())
}

/// The optimizer a class name (the last part of its dotted path) names.
fn optimizer_named(name: &str) -> Option<Optimizer> {
    Some(match name {
        "AdamW" | "Adam" => Optimizer::Adamw,
        "AdamW8bit" | "Adam8bit" => Optimizer::Adamw8bit,
        "PagedAdamW8bit" => Optimizer::PagedAdamw8bit,
        "PagedAdamW" | "PagedAdamW32bit" => Optimizer::PagedAdamw,
        "AdamW4bit" | "Adam4bit" => Optimizer::Adamw4bit,
        "AdEMAMix" | "PagedAdEMAMix" | "AdEMAMix32bit" | "PagedAdEMAMix32bit" => {
            Optimizer::Ademamix
        }
        "AdEMAMix8bit" | "PagedAdEMAMix8bit" => Optimizer::Ademamix8bit,
        "Muon" => Optimizer::Muon,
        "AdamWScheduleFree" => Optimizer::ScheduleFreeAdamw,
        "SGD" => Optimizer::Sgd,
        "Adafactor" => Optimizer::Adafactor,
        _ => return None,
    })
}

/// The refusal of an optimizer at `key` that vramfit does not count.
fn not_counted(o: &Map<'_>, key: &str, component: &str) -> crate::error::InputError {
    let line = o.line(key);
    crate::input_error!(
        Unsupported,
        o.path_of(key),
        ["line {line}: `{component}` is not an optimizer vramfit counts"],
        ["第 {line} 行：`{component}` 不是 vramfit 计算的优化器"],
        "torch.optim.AdamW, torch.optim.SGD, torch.optim.Muon, bitsandbytes.optim.PagedAdamW8bit, bitsandbytes.optim.PagedAdamW, bitsandbytes.optim.AdEMAMix, bitsandbytes.optim.AdEMAMix8bit, torchao.optim.AdamW8bit, torchao.optim.AdamW4bit, schedulefree.AdamWScheduleFree; torchao.optim.CPUOffloadOptimizer around one of them (optimizer_class)",
        "torch.optim.AdamW、torch.optim.SGD、torch.optim.Muon、bitsandbytes.optim.PagedAdamW8bit、bitsandbytes.optim.PagedAdamW、bitsandbytes.optim.AdEMAMix、bitsandbytes.optim.AdEMAMix8bit、torchao.optim.AdamW8bit、torchao.optim.AdamW4bit、schedulefree.AdamWScheduleFree；或以其中之一为 optimizer_class 的 torchao.optim.CPUOffloadOptimizer",
    )
}
