//! verl's launch (verl 0.9.1): `python3 -m verl.trainer.main_ppo` with Hydra overrides of its
//! `ppo_trainer.yaml`, GRPO (`algorithm.adv_estimator=grpo`) or PPO (`gae`, with the critic on
//! the same GPUs as verl places it: `critic.*` as the actor's) with the rollout on the policy's
//! own GPUs (verl's hybrid engine: vLLM at `rollout.gpu_memory_utilization`, its cache freed
//! while the policy trains, `free_cache_engine`). Each number the estimate counted is set:
//! the prompts each GPU trains on (`data.train_batch_size` over the GPUs), the group
//! (`rollout.n`), the lengths, the micro-batch (`ppo_micro_batch_size_per_gpu`, in sequences:
//! the GPU's prompts times the group, one micro-batch as the estimate counts it), the KL loss
//! (which loads the reference), FSDP's version and offload, checkpointing, and the colocated
//! engine's `max_model_len`, `max_num_seqs` and `max_num_batched_tokens`. Over several nodes,
//! Ray's cluster first (`ray start`), then the trainer on the head (verl's multi-node guide).
//!
//! Hydra's compose over verl's own config reads the overrides and verl's `validate_config` checks
//! them (`tests/launch/parse_training.py`);
//! `stack_config::verl` reads them back.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Builder;
use super::train::{gpus, refused};
use crate::error::Result;
use crate::estimate::{
    Checkpointing, Fsdp, FsdpVersion, Kernel, Loss, Offload, Optimizer, Precision, RlAlgorithm,
    RlRun, Rollout, Workload,
};
use crate::precision::Quantization;

/// verl's quickstart data (`examples/data_preprocess/gsm8k.py` writes it).
const TRAIN_FILES: &str = "data/gsm8k/train.parquet";
const VAL_FILES: &str = "data/gsm8k/test.parquet";

/// `python3 -m verl.trainer.main_ppo key=value …`.
pub(super) fn verl(w: &Workload, l: &mut Builder) -> Result<()> {
    let p = super::serve::checkpoint(w)?;
    let Some(rl) = &w.rl else {
        return Err(refused(
            "rl",
            "verl trains with RL: give rl grpo or ppo",
            "verl 用 RL 训练：请给出 rl grpo 或 ppo",
        ));
    };
    rl_checks(rl)?;
    let Some(f) = w.sharding.fsdp.filter(|f| f.reshard_after_forward) else {
        return Err(refused(
            "fsdp_version",
            "verl's actor is FSDP's full shard: zero 3 with fsdp_version 1 or 2",
            "verl 的 actor 用 FSDP 完全分片：zero 3 配 fsdp_version 1 或 2",
        ));
    };
    run_checks(w, rl)?;
    let (nodes, per_node) = super::train_nodes::layout(w);
    let mut argv: Vec<String> = ["python3", "-m", "verl.trainer.main_ppo"]
        .map(String::from)
        .to_vec();
    argv.extend(overrides(w, rl, f, p.id, (nodes, per_node)));
    start(l, argv, nodes, per_node);
    if rl.algorithm == RlAlgorithm::Ppo {
        l.note(
            format!("The estimate counts PPO's frozen reward model as a copy of the policy's weights on each GPU (its 1/{} share under FSDP); this launch scores with verl's rule reward for its data (no reward model is loaded), so it holds that copy less than counted: the estimate is over by it. A critic of the policy's model is trained beside the actor, as counted.", gpus(w)),
            format!("估算把 PPO 的冻结奖励模型按每卡一份策略模型权重计算（FSDP 下每卡 1/{} 份）；此启动命令用 verl 针对其数据的规则奖励打分（不加载奖励模型），因此比估算少占这一份：估算按此偏高。与 actor 并列训练一个与策略模型相同的 critic，与估算一致。", gpus(w)),
        );
    }
    let whole = rl.prompt_len.saturating_add(rl.completion);
    l.note(
        format!("`{TRAIN_FILES}` and `{VAL_FILES}` are verl's quickstart data (its examples/data_preprocess/gsm8k.py writes them): put yours there. The estimate counts prompts of {} tokens and completions of {}, whatever the data; the sequence is {whole} tokens.", rl.prompt_len, rl.completion),
        format!("`{TRAIN_FILES}` 与 `{VAL_FILES}` 是 verl 快速入门的数据（由其 examples/data_preprocess/gsm8k.py 生成），请换成你的数据。估算按 {} 个 token 的提示词与 {} 个 token 的回答计算，与数据内容无关；整条序列 {whole} 个 token。", rl.prompt_len, rl.completion),
    );
    Ok(())
}

/// What verl's launch is written for: GRPO or PPO, with the rollout on the policy's GPUs.
fn rl_checks(rl: &RlRun) -> Result<()> {
    if rl.algorithm == RlAlgorithm::Dpo {
        return Err(refused(
            "rl",
            "verl's launch is written for GRPO and PPO (main_ppo); DPO's launch is TRL's (trl dpo) or OpenRLHF's (train_dpo)",
            "verl 的启动命令只为 GRPO 与 PPO（main_ppo）生成；DPO 的启动命令属于 TRL（trl dpo）或 OpenRLHF（train_dpo）",
        ));
    }
    if rl.rollout != Some(Rollout::Colocate) {
        return Err(refused(
            "rollout",
            "verl's hybrid engine runs the rollout on the policy's GPUs (rollout colocate)",
            "verl 的混合引擎在策略模型的 GPU 上运行 rollout（rollout colocate）",
        ));
    }
    Ok(())
}

/// What the run must be for verl to run it as estimated: the actor's settings ([`checks`]),
/// the reference with the KL loss, vLLM's whole-sequence prefill.
fn run_checks(w: &Workload, rl: &RlRun) -> Result<()> {
    checks(w)?;
    let lora = w.lora_rank > 0;
    if rl.reference != (rl.beta > 0.0 && !lora) {
        return Err(refused(
            "ref_model",
            "verl loads the reference with the KL loss (use_kl_loss) and not beside a LoRA policy, whose base serves as it",
            "verl 在使用 KL 损失（use_kl_loss）时加载参考模型，LoRA 策略以其基座充当参考模型，不另加载",
        ));
    }
    if rl.engine_tokens < rl.engine_len {
        return Err(refused(
            "max_num_batched_tokens",
            "verl's vLLM prefills in chunks and needs max_num_batched_tokens at least max_model_len",
            "verl 的 vLLM 分块预填充，要求 max_num_batched_tokens 不小于 max_model_len",
        ));
    }
    Ok(())
}

/// The Hydra overrides that carry the estimate: the data, the actor on FSDP, the vLLM rollout
/// on the same GPUs, the trainer's `nodes` × `per_node` GPUs.
fn overrides(
    w: &Workload,
    rl: &RlRun,
    f: Fsdp,
    model: &str,
    (nodes, per_node): (u64, u64),
) -> Vec<String> {
    let lora = w.lora_rank > 0;
    let n = rl.generations;
    let mut o: Vec<String> = Vec::new();
    let mut set = |k: &str, v: String| o.push(format!("{k}={v}"));
    let estimator = match rl.algorithm {
        RlAlgorithm::Ppo => "gae",
        _ => "grpo",
    };
    set("algorithm.adv_estimator", estimator.into());
    set("data.train_files", TRAIN_FILES.into());
    set("data.val_files", VAL_FILES.into());
    // Every GPU's prompts: verl splits the batch's rollouts over the GPUs.
    let batch = rl.prompts.saturating_mul(gpus(w));
    set("data.train_batch_size", batch.to_string());
    set("data.max_prompt_length", rl.prompt_len.to_string());
    set("data.max_response_length", rl.completion.to_string());
    set("actor_rollout_ref.model.path", model.to_string());
    set(
        "actor_rollout_ref.model.enable_gradient_checkpointing",
        bool_word(w.checkpointing == Checkpointing::Full),
    );
    // Padded rows, as the estimate counts them.
    set(
        "actor_rollout_ref.model.use_remove_padding",
        bool_word(false),
    );
    if lora {
        set("actor_rollout_ref.model.lora_rank", w.lora_rank.to_string());
        set(
            "actor_rollout_ref.model.lora_alpha",
            w.lora_rank.saturating_mul(2).to_string(),
        );
        set(
            "actor_rollout_ref.model.target_modules",
            "all-linear".into(),
        );
    }
    let strategy = match f.version {
        FsdpVersion::V1 => "fsdp",
        FsdpVersion::V2 => "fsdp2",
    };
    set("actor_rollout_ref.actor.strategy", strategy.into());
    // One mini-batch a step: the GPU's sequences, in one micro-batch.
    set(
        "actor_rollout_ref.actor.ppo_mini_batch_size",
        batch.to_string(),
    );
    set(
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
        rl.rollout_sequences().to_string(),
    );
    set(
        "actor_rollout_ref.actor.use_kl_loss",
        bool_word(rl.beta > 0.0),
    );
    if rl.beta > 0.0 {
        set("actor_rollout_ref.actor.kl_loss_coef", number(rl.beta));
    }
    let offload = bool_word(w.offload == Offload::Cpu);
    set(
        "actor_rollout_ref.actor.fsdp_config.param_offload",
        offload.clone(),
    );
    set(
        "actor_rollout_ref.actor.fsdp_config.optimizer_offload",
        offload,
    );
    // FSDP's reduce_dtype: verl's fp32 unless the run reduces in another.
    if let Some(d) = w.sharding.fsdp.and_then(|f| f.reduce_dtype)
        && d != crate::precision::Dtype::Fp32
    {
        set(
            "actor_rollout_ref.actor.fsdp_config.mixed_precision.reduce_dtype",
            String::from(d.name()),
        );
    }
    // The log-probabilities' forward (no gradient) in the training micro-batch, the rollout's
    // and the reference's: verl requires each set.
    set(
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
        rl.rollout_sequences().to_string(),
    );
    // The KL loss computes the reference's (a LoRA policy's base, adapters off, or the copy).
    if rl.beta > 0.0 {
        set(
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu",
            rl.rollout_sequences().to_string(),
        );
    }
    set("actor_rollout_ref.rollout.name", "vllm".into());
    set(
        "actor_rollout_ref.rollout.tensor_model_parallel_size",
        "1".into(),
    );
    set(
        "actor_rollout_ref.rollout.gpu_memory_utilization",
        number(rl.utilization),
    );
    set("actor_rollout_ref.rollout.n", n.to_string());
    set(
        "actor_rollout_ref.rollout.free_cache_engine",
        bool_word(rl.sleep),
    );
    set(
        "actor_rollout_ref.rollout.max_model_len",
        rl.engine_len.to_string(),
    );
    set(
        "actor_rollout_ref.rollout.max_num_seqs",
        rl.engine_seqs.to_string(),
    );
    set(
        "actor_rollout_ref.rollout.max_num_batched_tokens",
        rl.engine_tokens.to_string(),
    );
    if rl.algorithm == RlAlgorithm::Ppo {
        critic(&mut set, w, strategy, model, rl.rollout_sequences());
    }
    set("trainer.n_gpus_per_node", per_node.to_string());
    set("trainer.nnodes", nodes.to_string());
    set("trainer.logger", "[console]".into());
    o
}

/// PPO's critic (`critic.*`, verl 0.9.1 `FSDPCriticConfig`): the policy's model with a value
/// head, trained as the actor is (the estimate's value model: the policy's weights, optimizer
/// states, gradients and activations): the same FSDP strategy and offload, checkpointing, padded
/// rows, LoRA, and micro-batch of the GPU's sequences.
fn critic(
    set: &mut impl FnMut(&str, String),
    w: &Workload,
    strategy: &str,
    model: &str,
    seqs: u64,
) {
    set("critic.model.path", model.to_string());
    set("critic.strategy", strategy.into());
    set(
        "critic.model.enable_gradient_checkpointing",
        bool_word(w.checkpointing == Checkpointing::Full),
    );
    set("critic.model.use_remove_padding", bool_word(false));
    if w.lora_rank > 0 {
        set("critic.model.lora_rank", w.lora_rank.to_string());
        set(
            "critic.model.lora_alpha",
            w.lora_rank.saturating_mul(2).to_string(),
        );
        set("critic.model.target_modules", "all-linear".into());
    }
    set("critic.ppo_micro_batch_size_per_gpu", seqs.to_string());
    let offload = bool_word(w.offload == Offload::Cpu);
    set("critic.fsdp.param_offload", offload.clone());
    set("critic.fsdp.optimizer_offload", offload);
}

/// The commands: `main_ppo` alone on one node; over several, Ray started on each (the head
/// first) and `main_ppo` on the head.
fn start(l: &mut Builder, argv: Vec<String>, nodes: u64, per_node: u64) {
    if nodes > 1 {
        let head = format!("HEAD_IP:{RAY_PORT}");
        l.command_on(
            0,
            nodes,
            ["ray", "start", "--head", "--port", RAY_PORT]
                .map(String::from)
                .to_vec(),
        );
        for node in 1..nodes {
            l.command_on(
                node,
                nodes,
                ["ray", "start", "--address", head.as_str()]
                    .map(String::from)
                    .to_vec(),
            );
        }
        l.command_on(0, nodes, argv);
        super::serve::head_note(l, nodes, per_node);
    } else {
        l.command(argv);
    }
}

/// Ray's port on the head (Ray's default), as the serving launches use it.
const RAY_PORT: &str = "6379";

/// What verl's actor cannot be told: it trains in bf16 mixed precision with torch's AdamW,
/// the full logits, FlashAttention, the model as it ships (or LoRA on it).
fn checks(w: &Workload) -> Result<()> {
    if w.precision != Precision::AmpBf16 {
        return Err(refused(
            "precision",
            "verl's actor trains in bf16 mixed precision (fp32 master weights): amp-bf16",
            "verl 的 actor 以 bf16 混合精度训练（fp32 主权重）：amp-bf16",
        ));
    }
    if w.optimizer != Optimizer::Adamw || w.fused_optimizer || !w.regimes.foreach {
        return Err(refused(
            "optimizer",
            "verl's actor steps with torch's AdamW (foreach)",
            "verl 的 actor 使用 torch 的 AdamW（foreach）",
        ));
    }
    if w.regimes.loss != Loss::Full || w.regimes.compile {
        return Err(refused(
            "loss",
            "verl's launch computes the full logits, uncompiled",
            "verl 的启动命令计算完整 logits，不编译",
        ));
    }
    if w.regimes.activation_offload || w.regimes.packing || w.regimes.optimizer_in_backward {
        return Err(refused(
            "activation_offload",
            "verl's launch writes no activation offload, packing or step in backward",
            "verl 的启动命令不写激活卸载、packing 或反向中的优化器步骤",
        ));
    }
    if w.checkpointing == Checkpointing::Selective {
        return Err(refused(
            "grad_checkpointing",
            "verl checkpoints whole blocks (enable_gradient_checkpointing)",
            "verl 只对整个块做检查点（enable_gradient_checkpointing）",
        ));
    }
    if w.kernel != Kernel::Flash {
        return Err(refused(
            "attention",
            "verl's actor runs FlashAttention",
            "verl 的 actor 使用 FlashAttention",
        ));
    }
    if w.quantization != Quantization::None {
        return Err(refused(
            "quantization",
            "verl loads the base as it ships",
            "verl 按原格式加载基座",
        ));
    }
    if w.lora_rank > 0 && w.lora_mask & 127 != 127 {
        return Err(refused(
            "lora_targets",
            "verl's launch puts LoRA on every linear layer (all-linear)",
            "verl 的启动命令在所有线性层上加 LoRA（all-linear）",
        ));
    }
    // verl 0.9.1's FSDP engine builds PEFT's `LoraConfig` without a dropout
    // (workers/engine/fsdp/transformer_impl.py): PEFT's 0.
    if super::train::lora_dropout(w, 0.0).is_some() {
        return Err(refused(
            "lora_dropout",
            "verl's FSDP actor passes no lora_dropout to PEFT (0)",
            "verl 的 FSDP actor 不向 PEFT 传 lora_dropout（即 0）",
        ));
    }
    if w.tp > 1 || w.pp > 1 || w.sharding.megatron.is_some() {
        return Err(refused(
            "tp",
            "verl's FSDP actor: no tensor or pipeline parallelism",
            "verl 的 FSDP actor 不用张量并行或流水线并行",
        ));
    }
    Ok(())
}

fn bool_word(b: bool) -> String {
    String::from(if b { "true" } else { "false" })
}

/// A fraction as Hydra reads it (`0.5`).
fn number(x: f64) -> String {
    crate::units::number_text(x)
}
