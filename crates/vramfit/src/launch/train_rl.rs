//! An RL run's launch in TRL 1.16: `trl grpo` or `trl dpo` with its config's keys
//! (`GRPOConfig`: `num_generations`, `max_completion_length`, `beta`, `use_vllm`, `vllm_mode`,
//! `vllm_gpu_memory_utilization`, `vllm_enable_sleep_mode`; `DPOConfig`: `max_length`, `beta`,
//! `precompute_ref_log_probs`). TRL counts GRPO's `per_device_train_batch_size` in completions,
//! so it is the prompts times the group. TRL 1.16 has no prompt length to set: GRPO's prompts
//! are the data's (a note says the length the estimate counted); DPO's `max_length` holds the
//! prompt and the completion together, which is what the memory counts.

use alloc::format;

use super::Builder;
use super::train::refused;
use super::yaml::Keys;
use crate::error::Result;
use crate::estimate::{RlAlgorithm, RlRun, Rollout};

/// TRL's subcommand and its documentation's example dataset for the algorithm.
pub(super) fn command(rl: &RlRun) -> Result<(&'static str, &'static str)> {
    match rl.algorithm {
        // GRPOTrainer's docstring (trl/trainer/grpo_trainer.py).
        RlAlgorithm::Grpo => Ok(("grpo", "trl-lib/DeepMath-103K")),
        // trl/scripts/dpo.py's usage.
        RlAlgorithm::Dpo => Ok(("dpo", "trl-lib/ultrafeedback_binarized")),
        RlAlgorithm::Ppo => Err(refused(
            "rl",
            "TRL 1.16's CLI has no PPO command",
            "TRL 1.16 的命令行没有 PPO 命令",
        )),
    }
}

/// The RL keys of `rl`, and the notes on what the file cannot say.
pub(super) fn keys(rl: &RlRun, k: &mut Keys, l: &mut Builder) -> Result<()> {
    match rl.algorithm {
        RlAlgorithm::Grpo => grpo(rl, k, l),
        RlAlgorithm::Dpo => {
            k.set("per_device_train_batch_size", rl.prompts);
            k.set("max_length", rl.prompt_len.saturating_add(rl.completion));
            k.set("beta", rl.beta);
            k.set("precompute_ref_log_probs", !rl.reference);
            Ok(())
        }
        RlAlgorithm::Ppo => command(rl).map(|_| ()),
    }
}

fn grpo(rl: &RlRun, k: &mut Keys, l: &mut Builder) -> Result<()> {
    // TRL loads its colocated engine at the whole sequence, for the rollout's sequences, with
    // 4096 batched tokens: other engine settings are not the file's to say.
    let whole = rl.prompt_len.saturating_add(rl.completion);
    if rl.engine_len != whole
        || rl.engine_seqs != rl.rollout_sequences()
        || rl.engine_tokens != crate::estimate::TRL_ENGINE_BATCHED_TOKENS
    {
        return Err(refused(
            "max_model_len",
            "TRL sizes its colocated vLLM itself (the whole sequence, the rollout's sequences, 4096 batched tokens)",
            "TRL 自行设定同进程 vLLM 的大小（整条序列、rollout 的序列数、4096 个批内 token）",
        ));
    }
    k.set("per_device_train_batch_size", rl.rollout_sequences());
    k.set("num_generations", rl.generations);
    k.set("max_completion_length", rl.completion);
    k.set("beta", rl.beta);
    k.set(
        "reward_funcs",
        super::yaml::Value::List(alloc::vec!["accuracy_reward".into()]),
    );
    match rl.rollout {
        Some(Rollout::Hf) | None => k.set("use_vllm", false),
        Some(Rollout::Server) => {
            k.set("use_vllm", true);
            k.set("vllm_mode", "server");
        }
        Some(Rollout::Colocate) => {
            k.set("use_vllm", true);
            k.set("vllm_mode", "colocate");
            k.set("vllm_gpu_memory_utilization", rl.utilization);
            k.set("vllm_enable_sleep_mode", rl.sleep);
        }
    }
    l.note(
        format!("The prompts' length is the data's (TRL 1.16 sets none): the estimate counts prompts of {} tokens; run `vramfit estimate --config train.yaml --seq-len {}` to read this file back.", rl.prompt_len, rl.prompt_len),
        format!("提示词长度取决于数据（TRL 1.16 不设置）：估算按 {} 个 token 的提示词计算；用 `vramfit estimate --config train.yaml --seq-len {}` 读回此文件。", rl.prompt_len, rl.prompt_len),
    );
    Ok(())
}
