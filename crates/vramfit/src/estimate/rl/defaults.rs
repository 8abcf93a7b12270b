//! Each stack's RL defaults, as its own config sets them, cited: what an RL run gets for a
//! setting it does not give. Without a stack (or for a stack that runs TRL's trainers), TRL's.
//!
//! Sources, read at these commits:
//! - TRL 1.9.0-26-gf2cd577 (2026-07-24): `trl/trainer/grpo_config.py` (GRPO), `trl/experimental/
//!   ppo/ppo_config.py` (PPO), `trl/trainer/dpo_config.py` (DPO), `trl/generation/
//!   vllm_generation.py` (the colocated engine's `max_num_batched_tokens`).
//! - verl 0.7.0-125-gb178a3c (2026-01-29): `verl/trainer/config/_generated_ppo_trainer.yaml`,
//!   `verl/trainer/config/rollout/rollout.yaml`.
//! - OpenRLHF 0.11.0 (2026-08-13): `openrlhf/cli/train_ppo_ray.py`.

use crate::estimate::{RlAlgorithm, Rollout, Stack};

/// TRL's GRPO group size, `GRPOConfig.num_generations = 8`.
pub const TRL_NUM_GENERATIONS: u64 = 8;
/// TRL's GRPO completion length, `GRPOConfig.max_completion_length = 512`.
pub const TRL_MAX_COMPLETION_LENGTH: u64 = 512;
/// TRL's GRPO KL coefficient, `GRPOConfig.beta = 0.0`: no reference model is loaded
/// (`grpo_trainer.py` sets `ref_model = None` when `beta == 0.0` or the model is a PEFT one).
pub const TRL_BETA: f64 = 0.0;
/// TRL's PPO KL coefficient, `PPOConfig.kl_coef = 0.05`.
pub const TRL_PPO_KL_COEF: f64 = 0.05;
/// TRL's PPO completion length, `PPOConfig.response_length = 53`.
pub const TRL_PPO_RESPONSE_LENGTH: u64 = 53;
/// TRL's DPO sequence, `DPOConfig.max_length = 1024`: prompt and completion together.
pub const TRL_DPO_MAX_LENGTH: u64 = 1024;
/// TRL's `vllm_gpu_memory_utilization = 0.3` for the colocated engine.
pub const TRL_ROLLOUT_UTILIZATION: f64 = 0.3;
/// The `max_num_batched_tokens` TRL gives its colocated vLLM: 4096.
pub const TRL_ENGINE_BATCHED_TOKENS: u64 = 4096;
/// verl's `actor_rollout_ref.rollout.gpu_memory_utilization: 0.5`.
pub const VERL_ROLLOUT_UTILIZATION: f64 = 0.5;
/// verl's `data.max_response_length: 512`.
pub const VERL_MAX_RESPONSE_LENGTH: u64 = 512;
/// OpenRLHF's `--vllm.gpu_memory_utilization 0.95`.
pub const OPENRLHF_ROLLOUT_UTILIZATION: f64 = 0.95;
/// OpenRLHF's `--algo.kl.init_coef 0.01`: a reference model is loaded when it is above 0.
pub const OPENRLHF_KL_COEF: f64 = 0.01;
/// OpenRLHF's `--data.max_len 2048`: prompt and response together.
pub const OPENRLHF_MAX_LEN: u64 = 2048;

/// How long a completion is by default: a length of its own, or what a total length leaves
/// after the prompt (at least one token).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Completion {
    Tokens(u64),
    Total(u64),
}

impl Completion {
    /// The completion's tokens after a prompt of `prompt` tokens.
    pub(super) fn after(self, prompt: u64) -> u64 {
        match self {
            Completion::Tokens(n) => n,
            Completion::Total(n) => n.saturating_sub(prompt).max(1),
        }
    }
}

/// One stack's defaults for one algorithm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Defaults {
    /// Completions per prompt.
    pub(super) generations: u64,
    pub(super) completion: Completion,
    /// The KL coefficient: GRPO and PPO load a reference only above 0.
    pub(super) beta: f64,
    /// Where the completions are generated.
    pub(super) rollout: Rollout,
    /// A colocated engine's fraction of the card and its sleep mode.
    pub(super) utilization: f64,
    pub(super) sleep: bool,
}

/// The defaults of `stack` (TRL's without one) for `algorithm`.
pub(super) fn defaults(stack: Option<Stack>, algorithm: RlAlgorithm) -> Defaults {
    let trl = match algorithm {
        RlAlgorithm::Grpo => Defaults {
            generations: TRL_NUM_GENERATIONS,
            completion: Completion::Tokens(TRL_MAX_COMPLETION_LENGTH),
            beta: TRL_BETA,
            // `use_vllm=False`: the policy's own `generate`.
            rollout: Rollout::Hf,
            utilization: TRL_ROLLOUT_UTILIZATION,
            // `vllm_enable_sleep_mode=False`.
            sleep: false,
        },
        // TRL's PPO generates with the policy's `generate` (no vLLM).
        RlAlgorithm::Ppo => Defaults {
            generations: 1,
            completion: Completion::Tokens(TRL_PPO_RESPONSE_LENGTH),
            beta: TRL_PPO_KL_COEF,
            rollout: Rollout::Hf,
            utilization: TRL_ROLLOUT_UTILIZATION,
            sleep: false,
        },
        RlAlgorithm::Dpo => Defaults {
            generations: 1,
            completion: Completion::Total(TRL_DPO_MAX_LENGTH),
            beta: 0.1,
            rollout: Rollout::Hf,
            utilization: TRL_ROLLOUT_UTILIZATION,
            sleep: false,
        },
    };
    match (stack, algorithm) {
        // DPO is TRL's trainer whatever the stack.
        (_, RlAlgorithm::Dpo) => trl,
        // verl's hybrid engine (`hybrid_engine: true`) colocates the rollout, frees its cache
        // while training (`free_cache_engine: true`), one response per prompt (`rollout.n: 1`)
        // and no KL term (`use_kl_loss: false`, `use_kl_in_reward: false`): no reference.
        (Some(Stack::Verl), _) => Defaults {
            generations: 1,
            completion: Completion::Tokens(VERL_MAX_RESPONSE_LENGTH),
            beta: 0.0,
            rollout: Rollout::Colocate,
            utilization: VERL_ROLLOUT_UTILIZATION,
            sleep: true,
        },
        // OpenRLHF runs vLLM on its own GPUs unless `--train.colocate_all`, one sample per
        // prompt (`--rollout.n_samples_per_prompt 1`), a KL term of 0.01, sleep off.
        (Some(Stack::Openrlhf), _) => Defaults {
            generations: 1,
            completion: Completion::Total(OPENRLHF_MAX_LEN),
            beta: OPENRLHF_KL_COEF,
            rollout: Rollout::Server,
            utilization: OPENRLHF_ROLLOUT_UTILIZATION,
            sleep: false,
        },
        _ => trl,
    }
}
