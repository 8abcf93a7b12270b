//! OpenRLHF's launches (OpenRLHF 0.11.2, its `openrlhf/cli/train_ppo_ray.py` and `train_dpo.py`,
//! whose dotted flags `--actor.…`, `--ds.…`, `--vllm.…` replaced 0.10's `--pretrain`,
//! `--actor_num_gpus_per_node`, `--zero_stage`…). PPO (`--algo.advantage.estimator gae`, a critic
//! and a reward model) and GRPO (`group_norm`) run under Ray: `ray start`, then `ray job submit
//! -- python3 -m openrlhf.cli.train_ppo_ray …`; DPO runs under DeepSpeed's launcher (`deepspeed
//! --module openrlhf.cli.train_dpo`), as OpenRLHF's example scripts start them.
//!
//! The estimate's card holds the policy and every model beside it (the reference, PPO's critic
//! and reward model) and, colocated, the vLLM engine: OpenRLHF puts them all on the policy's GPUs
//! with `--train.colocate_all` (one placement group for every model and the engines), the
//! reference alone beside the policy with `--train.colocate_actor_ref`. Each number the estimate
//! counted is set: the prompts each GPU rolls out (`--rollout.batch_size` over the GPUs), the
//! group, the lengths (`--data.max_len` is the whole sequence, the engine's `max_model_len`), the
//! micro-batches (the GPU's sequences, one step per rollout), ZeRO's stage, Adam's offload,
//! checkpointing, LoRA. What OpenRLHF cannot be told is refused with its field named.
//! `tests/launch/parse_training.py` runs OpenRLHF's own parser and its checks on each command.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Builder;
use super::train::{gpus, refused};
use crate::error::Result;
use crate::estimate::{
    Checkpointing, Kernel, Loss, Offload, Optimizer, Precision, RlAlgorithm, RlRun, Rollout,
    Workload,
};
use crate::precision::Quantization;

/// OpenRLHF's example prompts (its `examples/scripts/train_ppo_ray_hybrid_engine.sh`) and
/// preference pairs (`train_dpo_llama.sh`).
const PROMPTS: &str = "OpenRLHF/prompt-collection-v0.1";
const PAIRS: &str = "OpenRLHF/preference_dataset_mixture2_and_safe_pku";
/// The reward function file GRPO scores with (`--reward.remote_url` naming a `.py` file:
/// `SingleTurnAgentExecutor` loads its `reward_func`).
const REWARD_FUNC: &str = "reward_func.py";
/// Ray's port on the head, and its job server's address there (Ray's defaults).
const RAY_PORT: &str = "6379";
const RAY_JOBS: &str = "http://127.0.0.1:8265";

/// The launch of an OpenRLHF run.
pub(super) fn openrlhf(w: &Workload, l: &mut Builder) -> Result<()> {
    let p = super::serve::checkpoint(w)?;
    let Some(rl) = &w.rl else {
        return Err(refused(
            "rl",
            "OpenRLHF's launches are its RL trainers: give rl ppo, grpo or dpo",
            "OpenRLHF 的启动命令是其 RL 训练器：请给出 rl ppo、grpo 或 dpo",
        ));
    };
    checks(w)?;
    let mut words = ds_words(w)?;
    match rl.algorithm {
        RlAlgorithm::Dpo => dpo(w, rl, p.id, words, l),
        _ => {
            let mut argv: Vec<String> = ["python3", "-m", "openrlhf.cli.train_ppo_ray"]
                .map(String::from)
                .to_vec();
            argv.extend(ppo_words(w, rl, p.id, l)?);
            argv.append(&mut words);
            ray_job(l, argv, super::train_nodes::layout(w));
            Ok(())
        }
    }
}

/// What OpenRLHF's DeepSpeed trainer cannot be told: it trains bf16 weights under DeepSpeed's
/// bf16 mode (fp32 master weights and Adam states) with DeepSpeed's Adam, the full logits, padded
/// rows, the base as it ships, ZeRO for sharding.
fn checks(w: &Workload) -> Result<()> {
    if w.precision != Precision::AmpBf16 {
        return Err(refused(
            "precision",
            "OpenRLHF trains bf16 weights in DeepSpeed's bf16 mode, which keeps fp32 master weights (--ds.param_dtype bf16): amp-bf16",
            "OpenRLHF 在 DeepSpeed 的 bf16 模式下训练 bf16 权重，保留 fp32 主权重（--ds.param_dtype bf16）：amp-bf16",
        ));
    }
    if w.optimizer != Optimizer::Adamw || !(w.regimes.foreach || w.fused_optimizer) {
        return Err(refused(
            "optimizer",
            "the OpenRLHF launch steps with DeepSpeed's Adam (FusedAdam, DeepSpeedCPUAdam offloaded)",
            "OpenRLHF 启动命令使用 DeepSpeed 的 Adam（FusedAdam，卸载时 DeepSpeedCPUAdam）",
        ));
    }
    if w.regimes.loss != Loss::Full || w.regimes.compile {
        return Err(refused(
            "loss",
            "OpenRLHF's trainers compute the full logits for their log-probabilities, uncompiled",
            "OpenRLHF 的训练器为对数概率计算完整 logits，不编译",
        ));
    }
    if w.regimes.activation_offload || w.regimes.packing || w.regimes.optimizer_in_backward {
        return Err(refused(
            "packing",
            "the OpenRLHF launch trains padded rows, as the estimate counts them, with no activation offload or step in backward",
            "OpenRLHF 启动命令按估算的方式训练补齐的行，不做激活卸载，也不在反向中执行优化器步骤",
        ));
    }
    if w.checkpointing == Checkpointing::Selective {
        return Err(refused(
            "grad_checkpointing",
            "OpenRLHF checkpoints whole blocks (gradient_checkpointing_enable)",
            "OpenRLHF 只对整个块做检查点（gradient_checkpointing_enable）",
        ));
    }
    if w.quantization != Quantization::None {
        return Err(refused(
            "quantization",
            "the OpenRLHF launch loads the base as it ships (its --ds.load_in_4bit loads the reference, critic and reward model in 4 bits too, which the estimate does not count)",
            "OpenRLHF 启动命令按原格式加载基座（其 --ds.load_in_4bit 也以 4 比特加载参考模型、critic 与奖励模型，估算不这样计算）",
        ));
    }
    if w.tp > 1 || w.pp > 1 || w.sharding.megatron.is_some() || w.sharding.fsdp.is_some() {
        return Err(refused(
            "fsdp_version",
            "OpenRLHF shards with DeepSpeed ZeRO (--ds.zero_stage): no FSDP, tensor or pipeline parallelism",
            "OpenRLHF 用 DeepSpeed ZeRO 分片（--ds.zero_stage）：不用 FSDP、张量并行或流水线并行",
        ));
    }
    Ok(())
}

/// DeepSpeed's words, the same in both scripts (`--ds.…`): ZeRO's stage, bf16, attention, Adam's
/// offload, LoRA.
fn ds_words(w: &Workload) -> Result<Vec<String>> {
    let mut a = Args::default();
    a.set("--ds.zero_stage", w.zero.to_string());
    a.set("--ds.param_dtype", "bf16".into());
    let attention = match w.kernel {
        Kernel::Flash => "flash_attention_2",
        Kernel::Eager => "eager",
    };
    a.set("--ds.attn_implementation", attention.into());
    match w.offload {
        Offload::None => {}
        // OpenRLHF's `get_train_ds_config`: `offload_optimizer` to the CPU, `offload_param` never.
        Offload::Cpu if (1..3).contains(&w.zero) => a.flag("--ds.adam_offload"),
        Offload::OptimizerCpu if w.zero >= 1 => a.flag("--ds.adam_offload"),
        _ => {
            return Err(refused(
                "offload",
                "OpenRLHF offloads Adam's states to CPU memory alone (--ds.adam_offload, ZeRO 1 or 2); the estimate's cpu/nvme under ZeRO-3 move the parameters too (optimizer-cpu is its choice)",
                "OpenRLHF 只把 Adam 状态卸载到 CPU 内存（--ds.adam_offload，ZeRO 1 或 2）；估算在 ZeRO-3 下的 cpu/nvme 还会移走参数（应选 optimizer-cpu）",
            ));
        }
    }
    if w.lora_rank > 0 {
        a.set("--ds.lora.rank", w.lora_rank.to_string());
        a.set("--ds.lora.alpha", w.lora_rank.saturating_mul(2).to_string());
        // `--ds.lora.dropout` defaults to 0 (openrlhf/cli/train_ppo_ray.py, 0.11.2).
        if let Some(p) = super::train::lora_dropout(w, 0.0) {
            a.set("--ds.lora.dropout", crate::units::short(p));
        }
        a.word("--ds.lora.target_modules");
        match super::train::lora_targets(w.lora_mask) {
            super::yaml::Value::List(names) => {
                for n in names {
                    a.word(&n);
                }
            }
            super::yaml::Value::Str(s) => a.word(&s),
            _ => {}
        }
    }
    Ok(a.0)
}

/// `train_ppo_ray`'s words for PPO and GRPO: the models and where they run, the rollout, the
/// batches, the lengths, the KL term.
fn ppo_words(w: &Workload, rl: &RlRun, model: &str, l: &mut Builder) -> Result<Vec<String>> {
    let ppo = rl.algorithm == RlAlgorithm::Ppo;
    let colocate = match rl.rollout {
        Some(Rollout::Colocate) => true,
        Some(Rollout::Server) if !ppo => false,
        Some(Rollout::Server) => {
            return Err(refused(
                "rollout",
                "OpenRLHF puts PPO's critic and reward model on the policy's GPUs, as the estimate counts them, only with --train.colocate_all, which runs vLLM there too: rollout colocate",
                "OpenRLHF 只有在 --train.colocate_all 下才把 PPO 的 critic 与奖励模型放在策略模型的 GPU 上（如估算所计），此时 vLLM 也在这些 GPU 上：rollout colocate",
            ));
        }
        _ => {
            return Err(refused(
                "rollout",
                "OpenRLHF 0.11 generates with vLLM engines only (--vllm.num_engines): rollout colocate or server",
                "OpenRLHF 0.11 只用 vLLM 引擎生成（--vllm.num_engines）：rollout colocate 或 server",
            ));
        }
    };
    // `train_ppo_ray` loads the reference whenever the KL coefficient is above 0, LoRA or not.
    if rl.reference != (rl.beta > 0.0) {
        return Err(refused(
            "ref_model",
            "OpenRLHF loads the reference exactly when --algo.kl.init_coef is above 0, LoRA or not: ref_model true with rl_beta above 0, false with 0",
            "OpenRLHF 恰在 --algo.kl.init_coef 大于 0 时加载参考模型，与是否 LoRA 无关：rl_beta 大于 0 时 ref_model 为 true，为 0 时为 false",
        ));
    }
    if !ppo && rl.generations < 2 {
        return Err(refused(
            "num_generations",
            "OpenRLHF's group_norm (GRPO) needs --rollout.n_samples_per_prompt above 1",
            "OpenRLHF 的 group_norm（GRPO）要求 --rollout.n_samples_per_prompt 大于 1",
        ));
    }
    let whole = rl.prompt_len.saturating_add(rl.completion);
    // OpenRLHF starts its engines at `max_model_len = --data.max_len`.
    if colocate && rl.engine_len != whole {
        return Err(refused(
            "max_model_len",
            "OpenRLHF starts vLLM at max_model_len = --data.max_len, the whole sequence",
            "OpenRLHF 以 max_model_len = --data.max_len（整条序列）启动 vLLM",
        ));
    }
    let (nodes, per_node) = super::train_nodes::layout(w);
    let gpus = gpus(w);
    let seqs = rl.rollout_sequences();
    let mut a = Args::default();
    a.set("--actor.model_name_or_path", model.into());
    let mut groups = alloc::vec!["actor"];
    if rl.reference {
        groups.push("ref");
    }
    if ppo {
        a.set("--critic.model_name_or_path", model.into());
        a.set("--reward.model_name_or_path", model.into());
        groups.extend(["critic", "reward"]);
    } else {
        a.set("--reward.remote_url", REWARD_FUNC.into());
    }
    // Every model on the policy's GPUs, the defaults (8 per node) replaced.
    for g in groups {
        a.set(&format!("--{g}.num_nodes"), nodes.to_string());
        a.set(&format!("--{g}.num_gpus_per_node"), per_node.to_string());
    }
    if colocate {
        a.flag("--train.colocate_all");
    } else if rl.reference {
        a.flag("--train.colocate_actor_ref");
    }
    a.set("--vllm.num_engines", gpus.to_string());
    a.set("--vllm.tensor_parallel_size", "1".into());
    if colocate {
        a.set("--vllm.gpu_memory_utilization", number(rl.utilization));
        if rl.sleep {
            a.flag("--vllm.enable_sleep");
        }
    }
    let estimator = if ppo { "gae" } else { "group_norm" };
    a.set("--algo.advantage.estimator", estimator.into());
    a.set("--algo.kl.init_coef", number(rl.beta));
    if !ppo && rl.beta > 0.0 {
        // GRPO's KL as a loss, with the k3 estimator (OpenRLHF's GRPO example).
        a.flag("--algo.kl.use_loss");
        a.set("--algo.kl.estimator", "k3".into());
    }
    a.set("--data.prompt_dataset", PROMPTS.into());
    a.set("--data.input_key", "context_messages".into());
    a.flag("--data.apply_chat_template");
    a.set("--data.max_len", whole.to_string());
    a.set("--rollout.max_new_tokens", rl.completion.to_string());
    // Each GPU's prompts and their group; one training step of one micro-batch per rollout.
    a.set(
        "--rollout.batch_size",
        rl.prompts.saturating_mul(gpus).to_string(),
    );
    a.set("--rollout.n_samples_per_prompt", rl.generations.to_string());
    a.set("--rollout.micro_batch_size", seqs.to_string());
    a.set("--train.micro_batch_size", seqs.to_string());
    a.set("--train.batch_size", seqs.saturating_mul(gpus).to_string());
    if w.checkpointing == Checkpointing::Full {
        a.flag("--actor.gradient_checkpointing_enable");
    }
    ppo_notes(w, rl, model, colocate, l);
    Ok(a.0)
}

/// The notes of a `train_ppo_ray` launch, in both languages.
fn ppo_notes(w: &Workload, rl: &RlRun, model: &str, colocate: bool, l: &mut Builder) {
    let gpus = gpus(w);
    if rl.algorithm == RlAlgorithm::Ppo {
        l.note(
            format!("The estimate counts PPO's critic and reward model as the policy's model: --critic.model_name_or_path and --reward.model_name_or_path name `{model}`; put your reward model there (one of another size changes the memory)."),
            format!("估算把 PPO 的 critic 与奖励模型按策略模型计算：--critic.model_name_or_path 与 --reward.model_name_or_path 写的是 `{model}`；请换成你的奖励模型（大小不同则显存不同）。"),
        );
    } else {
        l.note(
            format!("`{REWARD_FUNC}` stands for your reward function file: OpenRLHF loads its `reward_func(queries, prompts, labels)` (its examples/python/reward_func.py); no reward model is loaded, as the estimate counts."),
            format!("`{REWARD_FUNC}` 指你的奖励函数文件：OpenRLHF 加载其中的 `reward_func(queries, prompts, labels)`（见其 examples/python/reward_func.py）；不加载奖励模型，与估算一致。"),
        );
    }
    if colocate {
        l.note(
            format!("OpenRLHF gives vLLM no max_num_seqs or max_num_batched_tokens: vLLM's own defaults apply, where the estimate counted {} sequences and {} batched tokens. The engine still takes --vllm.gpu_memory_utilization of each card; its split between KV pool and buffers may differ. The policy's weights and Adam states stay on the card during the rollout, as counted (no --ds.enable_sleep).", rl.engine_seqs, rl.engine_tokens),
            format!("OpenRLHF 不给 vLLM 设置 max_num_seqs 或 max_num_batched_tokens，采用 vLLM 自身默认值，而估算按 {} 条序列、{} 个批内 token 计算。引擎仍占每张卡的 --vllm.gpu_memory_utilization；其 KV 池与缓冲区的划分可能不同。rollout 期间策略模型的权重与 Adam 状态留在卡上，与估算一致（不设 --ds.enable_sleep）。", rl.engine_seqs, rl.engine_tokens),
        );
    } else {
        l.note(
            format!("vLLM runs on {gpus} more GPUs of the Ray cluster ({gpus} engines, tensor parallel 1), which this estimate does not count: estimate them as a vLLM server and set --vllm.num_engines to what your cluster has."),
            format!("vLLM 在 Ray 集群的另外 {gpus} 个 GPU 上运行（{gpus} 个引擎，张量并行 1），本估算不计入：请按 vLLM 服务另行估算，并把 --vllm.num_engines 设为你的集群所有。"),
        );
    }
    fused_note(w, l);
    l.note(
        format!("`{PROMPTS}` is OpenRLHF's example prompt set: put yours there. The prompts' length is the data's (OpenRLHF sets none): the estimate counts prompts of {} tokens, completions of {} (--rollout.max_new_tokens), {} in all (--data.max_len).", rl.prompt_len, rl.completion, rl.prompt_len + rl.completion),
        format!("`{PROMPTS}` 是 OpenRLHF 的示例提示词集，请换成你的数据。提示词长度取决于数据（OpenRLHF 不设置）：估算按 {} 个 token 的提示词、{} 个 token 的回答（--rollout.max_new_tokens）计算，共 {} 个（--data.max_len）。", rl.prompt_len, rl.completion, rl.prompt_len + rl.completion),
    );
}

/// The note on DeepSpeed's Adam where the estimate counted the foreach step's temporary.
fn fused_note(w: &Workload, l: &mut Builder) {
    if !w.fused_optimizer {
        l.note(
            "DeepSpeed's FusedAdam keeps no foreach temporary; the estimate counted one (over by a copy of the optimizer states' size): set fused_optimizer to count as OpenRLHF runs.".to_string(),
            "DeepSpeed 的 FusedAdam 不保留 foreach 临时量；估算计入了一份（偏高约一份优化器状态大小）：设置 fused_optimizer 即按 OpenRLHF 的方式计算。".to_string(),
        );
    }
}

/// DPO: `deepspeed --module openrlhf.cli.train_dpo`, the reference always loaded.
fn dpo(w: &Workload, rl: &RlRun, model: &str, ds: Vec<String>, l: &mut Builder) -> Result<()> {
    if !rl.reference {
        return Err(refused(
            "ref_model",
            "OpenRLHF's DPO always loads the reference (--ref.model_name_or_path), LoRA or not: ref_model true",
            "OpenRLHF 的 DPO 总是加载参考模型（--ref.model_name_or_path），与是否 LoRA 无关：ref_model 为 true",
        ));
    }
    let mut a = Args::default();
    a.set("--model.model_name_or_path", model.into());
    a.set("--ref.model_name_or_path", model.into());
    a.set("--data.dataset", PAIRS.into());
    a.flag("--data.apply_chat_template");
    // The pair's chosen and rejected sequences, each of prompt and completion.
    a.set(
        "--data.max_len",
        rl.prompt_len.saturating_add(rl.completion).to_string(),
    );
    a.set("--train.micro_batch_size", rl.prompts.to_string());
    a.set(
        "--train.batch_size",
        rl.prompts.saturating_mul(gpus(w)).to_string(),
    );
    a.set("--model.beta", number(rl.beta));
    if w.checkpointing == Checkpointing::Full {
        a.flag("--model.gradient_checkpointing_enable");
    }
    let mut words = a.0;
    words.extend(ds);
    super::train_nodes::deepspeed_module(w, l, "openrlhf.cli.train_dpo", words);
    fused_note(w, l);
    l.note(
        format!("`{PAIRS}` is OpenRLHF's example preference set: put yours there. --data.max_len holds the prompt and the completion ({} tokens); --train.micro_batch_size counts pairs, each a chosen and a rejected sequence.", rl.prompt_len + rl.completion),
        format!("`{PAIRS}` 是 OpenRLHF 的示例偏好数据集，请换成你的数据。--data.max_len 包含提示词与回答（{} 个 token）；--train.micro_batch_size 按偏好对计数，每对含一条 chosen 与一条 rejected 序列。", rl.prompt_len + rl.completion),
    );
    Ok(())
}

/// Ray's cluster (`ray start` on each node, the head first) and the job on the head.
fn ray_job(l: &mut Builder, argv: Vec<String>, (nodes, per_node): (u64, u64)) {
    let mut job: Vec<String> = ["ray", "job", "submit", "--address", RAY_JOBS, "--"]
        .map(String::from)
        .to_vec();
    job.extend(argv);
    let head = ["ray", "start", "--head", "--port", RAY_PORT].map(String::from);
    if nodes > 1 {
        let address = format!("HEAD_IP:{RAY_PORT}");
        l.command_on(0, nodes, head.to_vec());
        for node in 1..nodes {
            l.command_on(
                node,
                nodes,
                ["ray", "start", "--address", address.as_str()]
                    .map(String::from)
                    .to_vec(),
            );
        }
        l.command_on(0, nodes, job);
        super::serve::head_note(l, nodes, per_node);
    } else {
        l.command(head.to_vec());
        l.command(job);
    }
}

/// Command-line words, in order.
#[derive(Default)]
struct Args(Vec<String>);

impl Args {
    fn set(&mut self, flag: &str, value: String) {
        self.0.push(flag.to_string());
        self.0.push(value);
    }
    fn flag(&mut self, flag: &str) {
        self.0.push(flag.to_string());
    }
    fn word(&mut self, w: &str) {
        self.0.push(w.to_string());
    }
}

/// A number as argparse's `float` reads it (`0.01`).
fn number(x: f64) -> String {
    crate::units::number_text(x)
}
