//! verl's trainer config (verl 0.9.1, `verl/trainer/config/_generated_ppo_trainer.yaml`, the
//! defaults every key below falls back to): the actor (the policy: its model, micro-batch,
//! FSDP strategy and offload, KL loss), the rollout (vLLM or SGLang on the same GPUs: its memory
//! fraction, group size `n`, `free_cache_engine`), the data's lengths, the advantage estimator
//! (`gae` is PPO with a critic; the others train the policy alone) and the GPUs.

use alloc::format;

use super::Reading;
use super::tree::Map;
use crate::error::Result;
use crate::estimate::{Checkpointing, Offload, RlAlgorithm, Rollout, Stack};
use crate::precision::Dtype;

/// Reads a verl config.
pub(super) fn read(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    r.input.training.stack = Some(Stack::Verl);
    let algorithm = match m.map("algorithm")? {
        Some(a) => a.str("adv_estimator")?,
        None => None,
    };
    // verl 0.9.1: `algorithm.adv_estimator` gae by default.
    let algorithm = algorithm.unwrap_or_else(|| "gae".into());
    r.input.training.rl = Some(if algorithm == "gae" {
        RlAlgorithm::Ppo
    } else {
        if algorithm != "grpo" {
            r.assume(
                format!("adv_estimator {algorithm}: counted as GRPO (the policy, no critic)"),
                format!("adv_estimator {algorithm}：按 GRPO 计算（策略模型，无 critic）"),
            );
        }
        RlAlgorithm::Grpo
    });
    if let Some(d) = m.map("data")? {
        r.input.run.seq_len = d.num("max_prompt_length")?.unwrap_or(512.0);
        r.input.training.max_completion_length =
            Some(d.num("max_response_length")?.unwrap_or(512.0));
        let _ = d.get("train_batch_size");
    }
    let n = match m.map("actor_rollout_ref")? {
        Some(arr) => actor_rollout_ref(&arr, r)?,
        None => 1.0,
    };
    if let Some(t) = m.map("trainer")? {
        let per_node = t.num("n_gpus_per_node")?.unwrap_or(8.0);
        let nodes = t.num("nnodes")?.unwrap_or(1.0);
        r.input.placement.gpus = Some(per_node * nodes);
    }
    r.assume(
        format!(
            "the policy trains in micro-batches of {} sequences per GPU (ppo_micro_batch_size_per_gpu over rollout.n {n}); the rollout of data.train_batch_size prompts queues in the engine's pool",
            r.input.run.batch * n
        ),
        format!(
            "策略以每卡 {} 条序列的微批训练（ppo_micro_batch_size_per_gpu 除以 rollout.n {n}）；data.train_batch_size 个提示词的 rollout 在引擎的池中排队",
            r.input.run.batch * n
        ),
    );
    Ok(())
}

/// `actor_rollout_ref`: the model, the actor and the rollout; the group size `n` it found.
fn actor_rollout_ref(arr: &Map<'_>, r: &mut Reading) -> Result<f64> {
    if let Some(model) = arr.map("model")? {
        if let Some(path) = model.str("path")? {
            r.set_model(path);
        }
        // `enable_gradient_checkpointing` true by default.
        r.input.training.grad_checkpointing =
            if model.bool("enable_gradient_checkpointing")?.unwrap_or(true) {
                Checkpointing::Full
            } else {
                Checkpointing::None
            };
        r.input.training.lora_rank = model.num("lora_rank")?.unwrap_or(0.0);
    }
    let mut n = 1.0;
    if let Some(rollout) = arr.map("rollout")? {
        // verl's hybrid engine: the rollout engine shares the actor's GPUs.
        r.input.training.rollout = Some(Rollout::Colocate);
        r.input.training.rollout_memory_utilization = rollout.num("gpu_memory_utilization")?;
        r.input.training.sleep_mode = rollout.bool("free_cache_engine")?;
        n = rollout.num("n")?.unwrap_or(1.0).max(1.0);
        r.input.training.num_generations = Some(n);
        let _ = rollout.get("name");
    }
    if let Some(actor) = arr.map("actor")? {
        let micro = actor.num("ppo_micro_batch_size_per_gpu")?.unwrap_or(1.0);
        r.input.run.batch = libm::ceil(micro / n).max(1.0);
        // `use_kl_loss` false by default: no reference; its coefficient 0.001.
        r.input.training.rl_beta = Some(if actor.bool("use_kl_loss")?.unwrap_or(false) {
            actor.num("kl_loss_coef")?.unwrap_or(0.001)
        } else {
            0.0
        });
        let strategy = actor.str("strategy")?.unwrap_or_else(|| "fsdp".into());
        r.input.placement.fsdp_version = Some(if strategy == "fsdp2" { 2.0 } else { 1.0 });
        r.input.placement.zero = 3.0;
        let fsdp_config = actor.map("fsdp_config")?;
        if let Some(f) = &fsdp_config
            && f.bool("param_offload")?.unwrap_or(false)
        {
            r.input.placement.offload = Offload::Cpu;
        }
        r.input.placement.reduce_dtype = reduce_dtype(fsdp_config.as_ref())?;
    }
    Ok(n)
}

/// The actor's `fsdp_config.mixed_precision.reduce_dtype` where the file gives it; absent, the
/// stack's default (verl's fp32: `workload/sharding.rs`).
fn reduce_dtype(fsdp_config: Option<&Map<'_>>) -> Result<Option<Dtype>> {
    let Some(mp) = fsdp_config
        .map(|f| f.map("mixed_precision"))
        .transpose()?
        .flatten()
    else {
        return Ok(None);
    };
    let Some(word) = mp.str("reduce_dtype")? else {
        return Ok(None);
    };
    match super::names::dtype(&word) {
        Some("bf16") => Ok(Some(Dtype::Bf16)),
        Some("fp16") => Ok(Some(Dtype::Fp16)),
        Some(_) => Ok(Some(Dtype::Fp32)),
        None => {
            let line = mp.line("reduce_dtype");
            Err(crate::input_error!(
                OutOfRange,
                mp.path_of("reduce_dtype"),
                ["line {line}: `{word}` is not a dtype FSDP reduces in"],
                ["第 {line} 行：`{word}` 不是 FSDP 归约所用的 dtype"],
                "fp32, bf16 or fp16 (float32, bfloat16, float16)",
                "fp32、bf16 或 fp16（float32、bfloat16、float16）",
            ))
        }
    }
}
