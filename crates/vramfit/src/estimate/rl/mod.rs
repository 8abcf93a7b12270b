//! RL post-training (GRPO, PPO, DPO) on one card: the policy's training run, the models beside
//! it (a frozen reference, PPO's frozen reward model and trained value model) and the rollout
//! engine (a colocated vLLM with its KV pool at `rollout_memory_utilization`, or the policy's own
//! `generate`), as two phases of the card's memory over time: the rollout and the training step.
//! The larger phase is the peak.
//!
//! The module composes the training run shape and the vLLM (or transformers) one: it calls them
//! on the same card and adds their parts ([`compose`]); it computes no memory formula of its own
//! besides the frozen models' weights, which are the serving weights of the same model.
//!
//! Here: the resolved settings ([`RlRun`]) and their validation, and the report an estimate
//! carries ([`RlReport`]); `defaults.rs` each stack's defaults, `compose.rs` the phases,
//! `render.rs` the text.

#[cfg(feature = "training")]
mod compose;
// Its constants are public in every build; the rules that read them only where training runs.
#[cfg_attr(not(feature = "training"), allow(dead_code))]
mod defaults;
#[cfg(feature = "training")]
mod render;
#[cfg(all(test, feature = "training"))]
mod tests;

#[cfg(feature = "training")]
use super::workload::{MAX_BATCH, MAX_SEQ, Shape, int};
#[cfg(feature = "training")]
use super::{EstimateInput, Mode};
use super::{Phase, RlAlgorithm, Rollout};
#[cfg(feature = "training")]
use crate::error::Result;
use crate::units::Bytes;

pub use defaults::{
    OPENRLHF_KL_COEF, OPENRLHF_MAX_LEN, OPENRLHF_ROLLOUT_UTILIZATION, TRL_BETA, TRL_DPO_MAX_LENGTH,
    TRL_ENGINE_BATCHED_TOKENS, TRL_MAX_COMPLETION_LENGTH, TRL_NUM_GENERATIONS, TRL_PPO_KL_COEF,
    TRL_PPO_RESPONSE_LENGTH, TRL_ROLLOUT_UTILIZATION, VERL_MAX_RESPONSE_LENGTH,
    VERL_ROLLOUT_UTILIZATION,
};

/// The largest group size accepted.
pub const MAX_GENERATIONS: u64 = 1024;

/// An RL run's settings, resolved: what the card holds beside the policy and how the rollout
/// runs. The workload's `batch` is then the training micro-batch in sequences and its `seq_len`
/// the whole sequence, prompt and completion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RlRun {
    /// The algorithm.
    pub algorithm: RlAlgorithm,
    /// The KL coefficient, given or the stack's (TRL: GRPO 0.0, PPO 0.05).
    pub beta: f64,
    /// A frozen reference model is on the card.
    pub reference: bool,
    /// PPO's frozen reward model and trained value model are on the card.
    pub reward_and_value: bool,
    /// Prompts per GPU per step (DPO: pairs): the input's `batch`.
    pub prompts: u64,
    /// The prompt's tokens: the input's `seq_len`.
    pub prompt_len: u64,
    /// Completions per prompt (1 for DPO, whose chosen and rejected sequences are its two).
    pub generations: u64,
    /// Tokens per completion.
    pub completion: u64,
    /// Where the completions are generated; `None` for DPO, which generates nothing.
    pub rollout: Option<Rollout>,
    /// The colocated vLLM's `gpu_memory_utilization`.
    pub utilization: f64,
    /// vLLM's sleep mode while the policy trains (colocated only).
    pub sleep: bool,
    /// The colocated vLLM's `max_model_len`: `max_model_len` as given, else the whole sequence.
    pub engine_len: u64,
    /// Its `max_num_seqs`: as given, else the rollout's sequences (TRL's choice).
    pub engine_seqs: u64,
    /// Its `max_num_batched_tokens`: as given, else TRL's 4096.
    pub engine_tokens: u64,
}

impl RlRun {
    /// The rollout's sequences: prompts × completions per prompt.
    pub fn rollout_sequences(&self) -> u64 {
        self.prompts.saturating_mul(self.generations)
    }
}

/// What an RL estimate adds: its two phases and the rollout's sequences against its pool.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RlReport {
    /// The algorithm.
    pub algorithm: RlAlgorithm,
    /// Where the completions are generated (absent for DPO).
    pub rollout: Option<Rollout>,
    /// Whether a frozen reference model is on the card.
    pub reference_model: bool,
    /// Whether PPO's reward and value models are on the card.
    pub reward_and_value_models: bool,
    /// The card during the rollout: the policy's weights and optimizer states, the frozen
    /// models, the value model's states and the rollout engine, before the allocator's reserve.
    pub rollout_phase_bytes: Bytes,
    /// The card during the training step: the policy's training peak, the frozen models, the
    /// value model's step and what the rollout engine keeps, before the allocator's reserve.
    pub training_phase_bytes: Bytes,
    /// The larger phase: `rollout`, or the training step's phase.
    pub limiting_phase: Phase,
    /// Sequences the rollout generates: prompts × `num_generations`.
    pub rollout_sequences: u64,
    /// Sequences of prompt + completion the colocated engine's KV pool holds at once (absent
    /// without a colocated engine on a card).
    pub rollout_sequences_held: Option<u64>,
    /// Sequences in each training micro-batch (GRPO and PPO: the rollout's; DPO: 2 per pair).
    pub training_sequences: u64,
}

#[cfg(feature = "training")]
impl EstimateInput {
    /// The RL settings, resolved after the shape: the shape the training run sees (its batch in
    /// sequences, its sequence the prompt and the completion) and the settings. With `rl` unset,
    /// every RL field must be unset and the shape is returned as it is.
    pub(super) fn resolve_rl(&self, shape: Shape, lora: bool) -> Result<(Shape, Option<RlRun>)> {
        let Some(algorithm) = self.training.rl else {
            self.no_rl_fields()?;
            return Ok((shape, None));
        };
        if self.run.mode != Mode::Training {
            return Err(input_error!(
                Conflict,
                "rl",
                "RL post-training is a training run",
                "RL 后训练是训练运行",
                "mode training with rl, or no rl",
                "mode 为 training 时使用 rl，或不设 rl",
            ));
        }
        let dpo = algorithm == RlAlgorithm::Dpo;
        if dpo {
            self.nothing_generated()?;
        }
        let d = defaults::defaults(self.training.stack, algorithm);
        let beta = match self.training.rl_beta {
            None => d.beta,
            Some(b) if b.is_finite() && (0.0..=1000.0).contains(&b) => b,
            Some(b) => {
                return Err(input_error!(
                    OutOfRange,
                    "rl_beta",
                    ["{} is out of range", crate::units::number_text(b)],
                    ["{} 超出范围", crate::units::number_text(b)],
                    "a number from 0 to 1000 (TRL's GRPO default: 0.0, no reference model)",
                    "0 到 1000 的数（TRL GRPO 默认 0.0，不加载参考模型）",
                ));
            }
        };
        let generations = match self.training.num_generations {
            Some(g) => int("num_generations", g, 1, MAX_GENERATIONS)?,
            None => d.generations,
        };
        let completion = match self.training.max_completion_length {
            Some(c) => int("max_completion_length", c, 1, MAX_SEQ)?,
            None => d.completion.after(shape.seq_len),
        };
        let seq = shape.seq_len + completion;
        if seq > MAX_SEQ {
            return Err(too_long(shape.seq_len, completion));
        }
        // DPO runs the chosen and the rejected sequence of each pair in one forward (TRL's
        // `concatenated_forward`); GRPO and PPO train on the rollout's sequences.
        let train_batch = if dpo {
            shape.batch.saturating_mul(2)
        } else {
            shape.batch.saturating_mul(generations)
        };
        if train_batch > MAX_BATCH {
            return Err(input_error!(
                OutOfRange,
                "num_generations",
                ["batch × num_generations = {train_batch} sequences is out of range"],
                ["batch × num_generations = {train_batch} 条序列超出范围"],
                [
                    "at most {MAX_BATCH} sequences per step: batch × num_generations (DPO: 2 × batch)"
                ],
                ["每步最多 {MAX_BATCH} 条序列：batch × num_generations（DPO：2 × batch）"],
            ));
        }
        let rollout = if dpo {
            None
        } else {
            Some(self.training.rollout.unwrap_or(d.rollout))
        };
        let colocate = rollout == Some(Rollout::Colocate);
        self.colocated_only(colocate)?;
        let utilization = match self.training.rollout_memory_utilization {
            None => d.utilization,
            Some(u) if u.is_finite() && (0.01..=1.0).contains(&u) => u,
            Some(u) => {
                return Err(input_error!(
                    OutOfRange,
                    "rollout_memory_utilization",
                    ["{} is out of range", crate::units::number_text(u)],
                    ["{} 超出范围", crate::units::number_text(u)],
                    "a fraction from 0.01 to 1 (TRL's default 0.3, verl's 0.5)",
                    "0.01 到 1 的比例（TRL 默认 0.3，verl 默认 0.5）",
                ));
            }
        };
        // The reference: GRPO and PPO only with a KL term, DPO always; with a LoRA policy, the
        // base with its adapters disabled serves as the reference (TRL, verl's `ref_in_actor`),
        // no copy.
        let reference = self.training.ref_model.unwrap_or(match algorithm {
            RlAlgorithm::Grpo | RlAlgorithm::Ppo => beta > 0.0 && !lora,
            RlAlgorithm::Dpo => !lora,
        });
        let rollout_sequences = shape.batch.saturating_mul(generations);
        let given =
            |v: Option<f64>, field: &str, hi: u64| v.map(|x| int(field, x, 1, hi)).transpose();
        let engine_len =
            given(self.serving.max_model_len, "max_model_len", MAX_SEQ)?.unwrap_or(seq);
        let engine_seqs = given(self.serving.max_num_seqs, "max_num_seqs", MAX_BATCH)?
            .unwrap_or(rollout_sequences);
        let engine_tokens = given(
            self.serving.max_num_batched_tokens,
            "max_num_batched_tokens",
            MAX_SEQ,
        )?
        .unwrap_or(TRL_ENGINE_BATCHED_TOKENS);
        let run = RlRun {
            algorithm,
            beta,
            reference,
            reward_and_value: algorithm == RlAlgorithm::Ppo,
            prompts: shape.batch,
            prompt_len: shape.seq_len,
            generations: if dpo { 1 } else { generations },
            completion,
            rollout,
            utilization,
            sleep: self.training.sleep_mode.unwrap_or(d.sleep && colocate),
            engine_len,
            engine_seqs,
            engine_tokens,
        };
        let shape = Shape {
            batch: train_batch,
            seq_len: seq,
            new_tokens: shape.new_tokens,
        };
        Ok((shape, Some(run)))
    }

    /// Without `rl`, no RL field may be given: each would be ignored.
    fn no_rl_fields(&self) -> Result<()> {
        let set = [
            ("rl_beta", self.training.rl_beta.is_some()),
            ("ref_model", self.training.ref_model.is_some()),
            ("num_generations", self.training.num_generations.is_some()),
            (
                "max_completion_length",
                self.training.max_completion_length.is_some(),
            ),
            ("rollout", self.training.rollout.is_some()),
            (
                "rollout_memory_utilization",
                self.training.rollout_memory_utilization.is_some(),
            ),
            ("sleep_mode", self.training.sleep_mode.is_some()),
        ];
        match set.into_iter().find(|(_, given)| *given) {
            None => Ok(()),
            Some((field, _)) => Err(input_error!(
                Conflict,
                field,
                ["{field} is an RL setting, and rl is not set"],
                ["{field} 是 RL 设置，但没有设 rl"],
                ["rl (grpo, ppo or dpo) with {field}, or no {field}"],
                ["设 rl（grpo、ppo 或 dpo）时再给 {field}，或不给 {field}"],
            )),
        }
    }

    /// DPO trains on pairs it is given: no rollout, no group.
    fn nothing_generated(&self) -> Result<()> {
        let set = [
            ("rollout", self.training.rollout.is_some()),
            ("num_generations", self.training.num_generations.is_some()),
        ];
        match set.into_iter().find(|(_, given)| *given) {
            None => Ok(()),
            Some((field, _)) => Err(input_error!(
                Conflict,
                field,
                ["DPO generates nothing: {field} does not apply"],
                ["DPO 不生成序列：{field} 不适用"],
                ["rl grpo or ppo with {field}, or no {field}"],
                ["rl 为 grpo 或 ppo 时再给 {field}，或不给 {field}"],
            )),
        }
    }

    /// The engine's memory fraction and its sleep mode are a colocated vLLM's.
    fn colocated_only(&self, colocate: bool) -> Result<()> {
        let set = [
            (
                "rollout_memory_utilization",
                self.training.rollout_memory_utilization.is_some(),
            ),
            ("sleep_mode", self.training.sleep_mode.is_some()),
        ];
        match set.into_iter().find(|(_, given)| *given && !colocate) {
            None => Ok(()),
            Some((field, _)) => Err(input_error!(
                Conflict,
                field,
                ["{field} is the colocated vLLM's, and the rollout is not colocated"],
                ["{field} 属于同卡的 vLLM，而 rollout 不是 colocate"],
                ["rollout colocate with {field}, or no {field}"],
                ["rollout 为 colocate 时再给 {field}，或不给 {field}"],
            )),
        }
    }
}

/// The prompt and the completion past the longest sequence accepted.
#[cfg(feature = "training")]
#[cold]
fn too_long(prompt: u64, completion: u64) -> crate::error::InputError {
    input_error!(
        OutOfRange,
        "max_completion_length",
        ["seq_len {prompt} + max_completion_length {completion} is out of range"],
        ["seq_len {prompt} + max_completion_length {completion} 超出范围"],
        ["seq_len + max_completion_length at most {MAX_SEQ} tokens"],
        ["seq_len + max_completion_length 最多 {MAX_SEQ} 个 token"],
    )
}
