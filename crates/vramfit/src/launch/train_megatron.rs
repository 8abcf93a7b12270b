//! Megatron-LM's launch: `pretrain_gpt.py` under `torchrun`, on every node with the same
//! rendezvous (`--nnodes N --nproc-per-node G --rdzv-backend c10d --rdzv-endpoint
//! HEAD_IP:29500`; `--standalone` on one node), with the parallel layout and the model's shape
//! as Megatron-LM's `arguments.py` spells them (NVIDIA/Megatron-LM at
//! d98e8a64ddf34856e74b24714e3bedb2f5a39553, 2026-08-22): `--tensor-model-parallel-size`,
//! `--pipeline-model-parallel-size`, `--num-layers-per-virtual-pipeline-stage`,
//! `--sequence-parallel`, `--context-parallel-size`, `--use-distributed-optimizer`,
//! `--micro-batch-size`, `--global-batch-size`, `--recompute-granularity`. A dense decoder of
//! Llama's shape (gated SwiGLU MLP, RMSNorm, rotary positions, no linear biases) with Megatron's
//! Adam in mixed precision; anything else is refused by field. Mock data: the estimate counts
//! sequences of `--seq-length` tokens, whatever the data.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Builder;
use super::train::{gpus, refused};
use crate::error::Result;
use crate::estimate::{Checkpointing, Loss, Optimizer, Precision, Workload};
use crate::precision::Quantization;

/// The script Megatron-LM's users launch for GPT-style decoders.
pub(super) const SCRIPT: &str = "pretrain_gpt.py";

/// `torchrun … pretrain_gpt.py …` on every node.
pub(super) fn megatron(w: &Workload, l: &mut Builder) -> Result<()> {
    let p = super::serve::checkpoint(w)?;
    checks(w)?;
    let a = &w.arch;
    // Without any of Megatron's own settings: the plain schedule, no sharding of the states.
    let m = w.sharding.megatron.unwrap_or(crate::estimate::Megatron {
        vp: 1,
        sequence_parallel: false,
        cp: 1,
        distributed_optimizer: false,
        recompute_method: crate::estimate::RecomputeMethod::Uniform,
        recompute_layers: 1,
    });
    let (nodes, per_node) = super::train_nodes::layout(w);
    let cp = m.cp.max(1);
    let replicas = (w.dp / cp).max(1);
    let mut args: Vec<String> = Vec::new();
    let mut set = |flag: &str, value: String| {
        args.push(flag.to_string());
        if !value.is_empty() {
            args.push(value);
        }
    };
    set("--tensor-model-parallel-size", w.tp.to_string());
    set("--pipeline-model-parallel-size", w.pp.to_string());
    if m.vp > 1 {
        let per_chunk = a.num_layers / (w.pp * m.vp);
        set(
            "--num-layers-per-virtual-pipeline-stage",
            per_chunk.to_string(),
        );
    }
    if m.sequence_parallel {
        set("--sequence-parallel", String::new());
    }
    if cp > 1 {
        set("--context-parallel-size", cp.to_string());
    }
    if m.distributed_optimizer {
        set("--use-distributed-optimizer", String::new());
    }
    set("--num-layers", a.num_layers.to_string());
    set("--hidden-size", a.hidden_size.to_string());
    set("--ffn-hidden-size", a.intermediate_size.to_string());
    set("--num-attention-heads", a.num_heads.to_string());
    if a.num_kv_heads != a.num_heads {
        set("--group-query-attention", String::new());
        set("--num-query-groups", a.num_kv_heads.to_string());
    }
    if a.head_dim * a.num_heads != a.hidden_size {
        set("--kv-channels", a.head_dim.to_string());
    }
    set("--seq-length", w.seq_len.to_string());
    let positions = a.max_position_embeddings.max(w.seq_len);
    set("--max-position-embeddings", positions.to_string());
    set("--micro-batch-size", w.batch.to_string());
    let global = w.batch * replicas * w.grad_accum.max(1);
    set("--global-batch-size", global.to_string());
    match w.precision {
        Precision::AmpBf16 => set("--bf16", String::new()),
        Precision::AmpFp16 => set("--fp16", String::new()),
        _ => {}
    }
    match w.checkpointing {
        Checkpointing::None => {}
        Checkpointing::Selective => set("--recompute-granularity", "selective".into()),
        Checkpointing::Full => {
            set("--recompute-granularity", "full".into());
            let method = match m.recompute_method {
                crate::estimate::RecomputeMethod::Uniform => "uniform",
                crate::estimate::RecomputeMethod::Block => "block",
            };
            set("--recompute-method", method.into());
            set("--recompute-num-layers", m.recompute_layers.to_string());
        }
    }
    for flag in [
        "--swiglu",
        "--disable-bias-linear",
        "--position-embedding-type",
        "--normalization",
    ] {
        let value = match flag {
            "--position-embedding-type" => "rope",
            "--normalization" => "RMSNorm",
            _ => "",
        };
        set(flag, value.into());
    }
    if !a.tied_embeddings {
        set("--untie-embeddings-and-output-weights", String::new());
    }
    set("--tokenizer-type", "HuggingFaceTokenizer".into());
    set("--tokenizer-model", p.id.into());
    set("--mock-data", String::new());
    set("--train-iters", "100".into());
    set("--lr", "0.0003".into());
    let program = |rank: Option<u64>| -> Vec<String> {
        let mut v: Vec<String> = Vec::from([String::from("torchrun")]);
        match rank {
            None => v.push("--standalone".into()),
            Some(_) => {
                v.extend(["--nnodes".into(), nodes.to_string()]);
                v.extend(["--rdzv-backend".into(), "c10d".into()]);
                v.extend([
                    "--rdzv-endpoint".into(),
                    format!("HEAD_IP:{}", super::train_nodes::MAIN_PORT),
                ]);
            }
        }
        v.extend(["--nproc-per-node".into(), per_node.to_string()]);
        v.push(SCRIPT.into());
        v.extend(args.iter().cloned());
        v
    };
    if nodes <= 1 {
        l.command(program(None));
    } else {
        for rank in 0..nodes {
            l.command_on(rank, nodes, program(Some(rank)));
        }
        super::serve::head_note(l, nodes, per_node);
    }
    l.note(
        format!("Run from a Megatron-LM checkout (pretrain_gpt.py is at its root); --mock-data stands for your data (--data-path, its tokenizer {}). The estimate counts micro-batches of --seq-length tokens, whatever the data.", p.id),
        format!("在 Megatron-LM 仓库根目录运行（pretrain_gpt.py 在那里）；--mock-data 代表你的数据（--data-path，分词器 {}）。估算按 --seq-length 长度的微批次计算，与数据内容无关。", p.id),
    );
    debug_assert_eq!(gpus(w), nodes * per_node);
    Ok(())
}

/// What this launch cannot say, refused by field.
fn checks(w: &Workload) -> Result<()> {
    let a = &w.arch;
    let refusals: [(bool, &str, &str, &str); 8] = [
        (
            a.moe.is_some(),
            "model",
            "the launch is written for dense decoders; a mixture of experts needs Megatron's --num-experts and its router's settings",
            "启动命令只为稠密解码器生成；混合专家模型需要 Megatron 的 --num-experts 与路由设置",
        ),
        (
            !a.gated_ffn || a.qkv_bias || a.o_bias || a.mlp_bias,
            "model",
            "the launch is written for Llama's shape (gated SwiGLU MLP, no linear biases)",
            "启动命令只为 Llama 结构（门控 SwiGLU MLP、线性层无偏置）生成",
        ),
        (
            w.lora_rank > 0 || w.qlora || w.quantization != Quantization::None,
            "lora_rank",
            "Megatron-LM pre-trains every parameter in 16 bits; adapters and quantized bases are other stacks'",
            "Megatron-LM 以 16 位预训练全部参数；适配器与量化底座属于其他训练栈",
        ),
        (
            w.optimizer != Optimizer::Adamw,
            "optimizer",
            "Megatron-LM's --optimizer adam (fused AdamW) is the one counted",
            "只计入 Megatron-LM 的 --optimizer adam（融合 AdamW）",
        ),
        (
            w.zero > 0 || w.sharding.fsdp.is_some(),
            "zero",
            "Megatron shards with its distributed optimizer (distributed_optimizer), not ZeRO or FSDP",
            "Megatron 用分布式优化器（distributed_optimizer）切分，而非 ZeRO 或 FSDP",
        ),
        (
            matches!(w.precision, Precision::Bf16 | Precision::Fp16),
            "precision",
            "Megatron keeps fp32 main parameters under --bf16 or --fp16: amp-bf16 or amp-fp16",
            "Megatron 在 --bf16 或 --fp16 下保留 fp32 主参数：应为 amp-bf16 或 amp-fp16",
        ),
        (
            w.regimes.loss != Loss::Full
                || w.regimes.optimizer_in_backward
                || w.regimes.activation_offload,
            "loss",
            "Megatron-LM's own loss, step and activations are the ones counted (no chunked or fused loss, step in backward, activation offload)",
            "只计入 Megatron-LM 自身的损失、优化器步与激活（无分块或融合损失、反向中的优化器步、激活卸载）",
        ),
        (
            w.offload != crate::estimate::Offload::None,
            "offload",
            "Megatron-LM's optimizer CPU offload is not counted here",
            "此处不计入 Megatron-LM 的优化器 CPU 卸载",
        ),
    ];
    for (bad, field, en, zh) in refusals {
        if bad {
            return Err(refused(field, en, zh));
        }
    }
    Ok(())
}
