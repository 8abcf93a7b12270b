//! Unsloth's launch: `python unsloth-cli.py …`, the argparse script the unslothai/unsloth
//! repository ships at its root (read at 015bdef0d94a241bcd94eec7a405b1700632180d, 2026-08-22).
//! It loads the model with `FastLanguageModel.from_pretrained` (`--model_name`,
//! `--max_seq_length`, `--load_in_4bit`: bitsandbytes NF4 with double quantization; `--dtype`
//! left to its auto choice, bf16 where the card has it), puts LoRA on all seven projections
//! (`--r`, a fixed `target_modules` list) with `get_peft_model(use_gradient_checkpointing=…)`,
//! and trains with TRL's `SFTTrainer` (`--per_device_train_batch_size`,
//! `--gradient_accumulation_steps`, `--optim`, `--packing`; `bf16` where the card has it).
//!
//! What the script cannot say is refused with its field named: a full fine-tune, other LoRA
//! targets, another precision, the full logits, checkpointing other than Unsloth's, several
//! GPUs. `tests/launch/parse_training.py` runs the script's own argparse on each command.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Builder;
use super::train::{Base, base_quantization, hf_optim, refused, regimes_hf};
use crate::error::Result;
use crate::estimate::{Checkpointing, Kernel, Loss, Offload, Precision, Workload};

/// The script's own default dataset (`--dataset`), which the launch leaves as it is.
const DATASET: &str = "yahma/alpaca-cleaned";

/// Below this `max_seq_length` Unsloth's `"unsloth"` checkpointing is plain checkpointing, its
/// offload off (`apply_unsloth_gradient_checkpointing`, unsloth/models/_utils.py).
const OFFLOAD_FROM: u64 = 512;

/// `python unsloth-cli.py …`.
pub(super) fn unsloth(w: &Workload, l: &mut Builder) -> Result<()> {
    let p = super::serve::checkpoint(w)?;
    checks(w)?;
    let load_in_4bit = match base_quantization(w)? {
        Base::Full => false,
        Base::Nf4 { double_quant: true } => true,
        _ => {
            return Err(refused(
                "quantization",
                "unsloth-cli.py loads the base as it ships or, with --load_in_4bit, in bitsandbytes NF4 with double quantization",
                "unsloth-cli.py 按原格式加载基座，或用 --load_in_4bit 以带双重量化的 bitsandbytes NF4 加载",
            ));
        }
    };
    let mut argv: Vec<String> = ["python", "unsloth-cli.py"].map(String::from).to_vec();
    let mut set = |k: &str, v: String| {
        argv.push(k.to_string());
        argv.push(v);
    };
    set("--model_name", p.id.to_string());
    set("--max_seq_length", w.seq_len.to_string());
    set("--r", w.lora_rank.to_string());
    set("--lora_alpha", w.lora_rank.to_string());
    // unsloth-cli.py's `--lora_dropout` defaults to 0.
    if let Some(p) = super::train::lora_dropout(w, 0.0) {
        set("--lora_dropout", crate::units::short(p));
    }
    set("--use_gradient_checkpointing", "unsloth".into());
    set("--per_device_train_batch_size", w.batch.to_string());
    set("--gradient_accumulation_steps", w.grad_accum.to_string());
    set("--optim", hf_optim(w)?.to_string());
    if load_in_4bit {
        argv.push("--load_in_4bit".into());
    }
    if w.regimes.packing {
        argv.push("--packing".into());
    }
    l.command(argv);
    l.note(
        alloc::format!("unsloth-cli.py is the script at the root of the unslothai/unsloth repository (not in the pip package): fetch it beside you. It trains on its default dataset `{DATASET}` (--dataset to change it); the estimate counts rows of {} tokens, whatever the data. --dtype is left to Unsloth's choice, bf16 on a card that has it, as the estimate counts.", w.seq_len),
        alloc::format!("unsloth-cli.py 是 unslothai/unsloth 仓库根目录下的脚本（不在 pip 包中），请下载到当前目录。它用默认数据集 `{DATASET}` 训练（用 --dataset 更换）；估算按 {} 个 token 的行计算，与数据内容无关。--dtype 交由 Unsloth 选择，在支持 bf16 的卡上为 bf16，与估算一致。", w.seq_len),
    );
    Ok(())
}

/// What the script cannot say.
fn checks(w: &Workload) -> Result<()> {
    regimes_hf(w)?;
    if w.lora_rank == 0 || w.lora_mask & 127 != 127 {
        return Err(refused(
            "lora_rank",
            "unsloth-cli.py trains LoRA adapters on all seven projections (q, k, v, o, gate, up, down) only: set lora_rank, lora_targets all-linear",
            "unsloth-cli.py 只在全部七个投影（q、k、v、o、gate、up、down）上训练 LoRA 适配器：请设置 lora_rank，lora_targets 为 all-linear",
        ));
    }
    if w.precision != Precision::Bf16 {
        return Err(refused(
            "precision",
            "unsloth-cli.py loads the model in bf16 and trains bf16 where the card has it (--dtype None): precision bf16",
            "unsloth-cli.py 在支持的卡上以 bf16 加载模型并以 bf16 训练（--dtype None）：precision bf16",
        ));
    }
    if w.regimes.loss != Loss::Fused || w.regimes.compile || w.regimes.kbit_upcast {
        return Err(refused(
            "loss",
            "unsloth-cli.py always runs Unsloth's fused cross-entropy, uncompiled, with a 4-bit base's other parameters kept as loaded: the unsloth stack's defaults",
            "unsloth-cli.py 总是使用 Unsloth 的融合交叉熵、不编译，4 比特基座的其余参数保持加载时的类型：即 unsloth 训练栈的默认值",
        ));
    }
    // `--use_gradient_checkpointing` is a string: only "unsloth" reaches Unsloth as it means it
    // ("True" and "False" are strings, not the booleans get_peft_model compares with).
    let offloads = w.seq_len >= OFFLOAD_FROM;
    if w.checkpointing != Checkpointing::Full || w.regimes.activation_offload != offloads {
        return Err(refused(
            "grad_checkpointing",
            "unsloth-cli.py says only Unsloth's checkpointing (--use_gradient_checkpointing unsloth): full checkpointing, activations offloaded to CPU memory from 512 tokens, not below",
            "unsloth-cli.py 只能表达 Unsloth 的检查点（--use_gradient_checkpointing unsloth）：完整检查点，512 个 token 起把激活卸载到 CPU 内存，低于 512 不卸载",
        ));
    }
    if w.dp > 1 || w.zero > 0 || w.offload != Offload::None || w.sharding.fsdp.is_some() {
        return Err(refused(
            "gpus",
            "unsloth-cli.py trains on one GPU, without ZeRO, FSDP or offload",
            "unsloth-cli.py 在单个 GPU 上训练，不用 ZeRO、FSDP 或卸载",
        ));
    }
    if w.kernel != Kernel::Flash {
        return Err(refused(
            "attention",
            "Unsloth runs its own attention kernels, which keep no S × S matrix",
            "Unsloth 使用自己的注意力内核，不保留 S × S 矩阵",
        ));
    }
    Ok(())
}
