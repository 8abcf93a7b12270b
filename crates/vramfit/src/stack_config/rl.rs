//! RL post-training as TRL's and LLaMA-Factory's files set it (TRL 1.16 `GRPOConfig`,
//! `DPOConfig`; LLaMA-Factory 0.9.5 `stage: dpo | ppo`): the algorithm, the group size, the
//! prompt and completion lengths, the KL coefficient, the rollout engine (`use_vllm`,
//! `vllm_mode`, `vllm_gpu_memory_utilization`, `vllm_enable_sleep_mode`) and the reference model
//! (`precompute_ref_log_probs`).

use super::Reading;
use super::tree::Map;
use crate::error::Result;
use crate::estimate::{RlAlgorithm, Rollout};

/// Which RL trainer a TRL config is for, by its own keys; `None` for supervised fine-tuning.
pub(super) fn trl_algorithm(m: &Map<'_>) -> Option<RlAlgorithm> {
    let any = |keys: &[&str]| keys.iter().any(|k| m.has(k));
    if any(&["num_generations", "vllm_mode", "use_vllm", "reward_weights"]) {
        Some(RlAlgorithm::Grpo)
    } else if any(&[
        "precompute_ref_log_probs",
        "ref_model_init_kwargs",
        "rpo_alpha",
        "reference_free",
    ]) {
        Some(RlAlgorithm::Dpo)
    } else {
        None
    }
}

/// A TRL GRPO or DPO config's RL keys. TRL counts `per_device_train_batch_size` in completions
/// (GRPO) or pairs (DPO); vramfit's `batch` is prompts per GPU, so GRPO's is that batch over the
/// group size, rounded up (the safe side).
pub(super) fn read_trl(m: &Map<'_>, r: &mut Reading, algorithm: RlAlgorithm) -> Result<()> {
    r.input.training.rl = Some(algorithm);
    r.input.training.rl_beta = m.num("beta")?;
    let prompt = m.num("max_prompt_length")?;
    if let Some(p) = prompt {
        r.input.run.seq_len = p;
    }
    match algorithm {
        RlAlgorithm::Grpo => {
            // GRPOConfig: `num_generations` 8 by default.
            let group = m.num("num_generations")?.unwrap_or(8.0);
            r.input.training.num_generations = Some(group);
            r.input.run.batch = libm::ceil(r.input.run.batch / group.max(1.0)).max(1.0);
            r.input.training.max_completion_length = m.num("max_completion_length")?;
            if prompt.is_none() {
                r.assume(
                    "the prompt length is the data's: the file does not say it (seq_len)",
                    "提示词长度取决于数据：文件中没有写（seq_len）",
                );
            }
            rollout(m, r)?;
        }
        RlAlgorithm::Dpo => {
            if m.bool("precompute_ref_log_probs")? == Some(true) {
                r.input.training.ref_model = Some(false);
            }
            // DPOConfig's `max_length` (1024 by default) is the prompt and the completion
            // together; the memory counts their sum, however it splits.
            let total = m.num("max_length")?.unwrap_or(1024.0).max(2.0);
            if prompt.is_none() {
                r.input.run.seq_len = libm::floor(total / 2.0);
            }
            r.input.training.max_completion_length = Some((total - r.input.run.seq_len).max(1.0));
        }
        RlAlgorithm::Ppo => {}
    }
    Ok(())
}

/// `use_vllm` (off by default: the policy's own `generate`), `vllm_mode` (`colocate`, TRL
/// 1.16's default, or `server`), its memory fraction and sleep mode.
fn rollout(m: &Map<'_>, r: &mut Reading) -> Result<()> {
    if !m.bool("use_vllm")?.unwrap_or(false) {
        r.input.training.rollout = Some(Rollout::Hf);
        return Ok(());
    }
    // GRPOConfig 1.16: `vllm_mode` "colocate" by default.
    let colocate = m.str("vllm_mode")?.as_deref() != Some("server");
    r.input.training.rollout = Some(if colocate {
        Rollout::Colocate
    } else {
        Rollout::Server
    });
    if colocate {
        r.input.training.rollout_memory_utilization = m.num("vllm_gpu_memory_utilization")?;
        r.input.training.sleep_mode = m.bool("vllm_enable_sleep_mode")?;
    }
    Ok(())
}

/// LLaMA-Factory's `stage`: `dpo` (`pref_beta`, its `ref_model`), `ppo`; supervised stages
/// train one model. `kto` is refused (not counted).
pub(super) fn read_llamafactory(m: &Map<'_>, r: &mut Reading, stage: &str) -> Result<()> {
    match stage {
        "dpo" => {
            r.input.training.rl = Some(RlAlgorithm::Dpo);
            r.input.training.rl_beta = m.num("pref_beta")?;
            if m.str("ref_model")?.is_some() {
                r.input.training.ref_model = Some(true);
            }
        }
        "ppo" => {
            r.input.training.rl = Some(RlAlgorithm::Ppo);
            // LLaMA-Factory's PPO generates with the policy itself.
            r.input.training.rollout = Some(Rollout::Hf);
            let _ = m.get("reward_model");
        }
        _ => {}
    }
    Ok(())
}
