//! The RL run's parts beside the policy, with their formulas and notes in English and Chinese,
//! and the notes that say which phase limits and what the rollout's pool holds.

use super::compose::{Beside, EngineFigures};
use super::{RlReport, RlRun};
use crate::estimate::{ComponentKind as K, Formula, Parts, Phase, Rollout, Run, b, thousands};
use crate::units::Bytes;

/// Marks the last part added as not alive at the peak, outside PyTorch's peak.
fn off_peak(p: &mut Parts) {
    if let Some(c) = p.comps.last_mut() {
        c.key.at_peak = false;
        c.torch = false;
    }
}

impl Run<'_> {
    /// The frozen models and the value model: alive in both phases, the value model's step in
    /// the training step alone.
    pub(super) fn add_beside(&self, f: &Beside, rollout_limits: bool, p: &mut Parts) {
        let frozen_text = |bytes: u64| -> Formula {
            formula!(self.text;
                let (n, dtype, size) = (thousands(self.params()), self.dtype, b(bytes));
                let split = if self.zero == 3 && self.dp > 1 { alloc::format!(" / {} ranks (ZeRO-3)", self.dp) } else { alloc::string::String::new() };
                ["{n} params in {dtype}, frozen{split} = {size}"],
                ["{n} 个参数，{dtype}，冻结{split} = {size}"]
            )
        };
        if f.reference > 0 {
            p.add(
                K::ReferenceModel,
                f.reference,
                true,
                frozen_text(f.reference),
                en_str!("The reference policy for the KL term: a frozen copy of the model, on the card through both phases (a LoRA policy disables its adapters instead: no copy)."),
                zh_str!("KL 项所用的参考策略：模型的冻结副本，两个阶段都在卡上（LoRA 策略改为关闭适配器，无需副本）。"),
            );
        }
        if f.reward > 0 {
            p.add(
                K::RewardModel,
                f.reward,
                true,
                frozen_text(f.reward),
                en_str!("PPO's reward model, frozen; counted as the policy's model (give a smaller one's size by running it as its own estimate)."),
                zh_str!("PPO 的奖励模型，冻结；按策略模型计（较小的奖励模型请单独估算）。"),
            );
        }
        if f.value > 0 {
            p.add(
                K::ValueModel,
                f.value,
                true,
                formula!(self.text;
                    ["the policy's weights and optimizer states, again = {}", b(f.value)],
                    ["再一份策略的权重与优化器状态 = {}", b(f.value)]
                ),
                en_str!("PPO's value model (the critic): the policy's model with a scalar head, trained alike; its weights and optimizer states stay through both phases."),
                zh_str!("PPO 的价值模型（critic）：策略模型加标量输出头，以相同方式训练；其权重与优化器状态两个阶段都在卡上。"),
            );
        }
        if f.value_step > 0 {
            p.add(
                K::ValueModelStep,
                f.value_step,
                true,
                formula!(self.text;
                    ["the policy's gradients and saved activations, again = {}", b(f.value_step)],
                    ["再一份策略的梯度与保存的激活 = {}", b(f.value_step)]
                ),
                en_str!("The critic's gradients and saved activations in the training step: TRL's PPO runs the policy and the critic in one forward and one backward."),
                zh_str!("训练步中 critic 的梯度与保存的激活：TRL 的 PPO 在同一次前向与反向中运行策略与 critic。"),
            );
            if rollout_limits {
                off_peak(p);
            }
        }
    }

    /// The rollout engine's parts; `alive` says, for its weights, its KV cache and its buffers,
    /// whether each is alive in the phase that limits.
    pub(super) fn add_engine(
        &self,
        e: &EngineFigures,
        alive: [bool; 3],
        rl: &RlRun,
        p: &mut Parts,
    ) {
        let colocate = e.rollout == Some(Rollout::Colocate);
        let util = rl.utilization;
        if e.weights > 0 {
            p.add(
                K::RolloutWeights,
                e.weights,
                true,
                formula!(self.text;
                    ["vLLM's copy of the weights in {} = {}", self.dtype, b(e.weights)],
                    ["vLLM 的权重副本，{} = {}", self.dtype, b(e.weights)]
                ),
                en_str!("The colocated vLLM loads its own copy of the policy's weights and receives the trained ones after each step; sleep mode frees it while the policy trains."),
                zh_str!("同卡的 vLLM 加载自己的一份策略权重，每步训练后接收新权重；睡眠模式在策略训练时释放它。"),
            );
            if !alive[0] {
                off_peak(p);
            }
        }
        if e.kv > 0 {
            let seqs = rl.rollout_sequences();
            let len = rl.prompt_len + rl.completion;
            let text = if colocate {
                formula!(self.text;
                    ["KV pool in vLLM's gpu_memory_utilization {util} of the card = {}", b(e.kv)],
                    ["vLLM 的 KV 池，占卡的 gpu_memory_utilization {util} = {}", b(e.kv)]
                )
            } else {
                formula!(self.text;
                    ["generate's cache: {seqs} sequences × {len} tokens = {}", b(e.kv)],
                    ["generate 的缓存：{seqs} 条序列 × {len} 个 token = {}", b(e.kv)]
                )
            };
            p.add(
                K::RolloutKvCache,
                e.kv,
                true,
                text,
                en_str!("The rollout's KV cache: vLLM reserves its whole pool at start; generate grows its cache to the completions' end and frees it after."),
                zh_str!("rollout 的 KV 缓存：vLLM 启动时预留整个池；generate 的缓存增长到补全结束，之后释放。"),
            );
            if !alive[1] {
                off_peak(p);
            }
        }
        if e.buffers > 0 {
            let text = if colocate {
                formula!(self.text;
                    ["vLLM's profile-run peak, non-torch memory and CUDA graphs = {}", b(e.buffers)],
                    ["vLLM 剖析运行的峰值、非 torch 显存与 CUDA 计算图 = {}", b(e.buffers)]
                )
            } else {
                formula!(self.text;
                    ["generate's activations and logits at its peak = {}", b(e.buffers)],
                    ["generate 峰值时的激活与 logits = {}", b(e.buffers)]
                )
            };
            p.add(
                K::RolloutBuffers,
                e.buffers,
                e.buffers_torch,
                text,
                en_str!("What the engine holds besides its weights and cache; vLLM's sleep mode does not free it (its test allows up to 7 GiB left after sleep in V1)."),
                zh_str!("引擎在权重与缓存之外占用的显存；vLLM 睡眠模式不释放它（其 V1 测试允许睡眠后仍占用至多 7 GiB）。"),
            );
            if !alive[2] {
                off_peak(p);
            }
        }
    }

    /// The notes: which phase limits, and the rollout's sequences against the pool.
    pub(super) fn rl_notes(&self, rl: &RlRun, r: &RlReport, p: &mut Parts) {
        if !self.text {
            return;
        }
        let (roll, train) = (r.rollout_phase_bytes, r.training_phase_bytes);
        let rollout_limits = r.limiting_phase == Phase::Rollout;
        p.note(
            "rl_phases",
            en!(
                "RL step on one card: the rollout holds {} and the training step {} (before the allocator's reserve); the {} is the peak. Each training micro-batch is {} sequences of {} + {} tokens.",
                Bytes::new(roll.get()),
                Bytes::new(train.get()),
                if rollout_limits { "rollout" } else { "training step" },
                r.training_sequences,
                rl.prompt_len,
                rl.completion
            ),
            zh!(
                "单卡上的 RL 步：rollout 占 {}，训练步占 {}（不含分配器预留）；峰值在{}。每个训练微批为 {} 条 {} + {} token 的序列。",
                Bytes::new(roll.get()),
                Bytes::new(train.get()),
                if rollout_limits { " rollout" } else { "训练步" },
                r.training_sequences,
                rl.prompt_len,
                rl.completion
            ),
        );
        if let Some(held) = r.rollout_sequences_held {
            let asked = r.rollout_sequences;
            if held < asked {
                p.note(
                    "rl_rollout_queued",
                    en!("vLLM's pool holds {held} of the rollout's {asked} sequences of prompt + completion at once; the rest wait for room (the rollout runs in about {} rounds). A larger rollout_memory_utilization holds more.", asked.div_ceil(held.max(1))),
                    zh!("vLLM 的池同时只能容纳 rollout 的 {asked} 条序列（提示 + 补全）中的 {held} 条；其余排队（rollout 约分 {} 轮）。更大的 rollout_memory_utilization 可容纳更多。", asked.div_ceil(held.max(1))),
                );
            } else {
                p.note(
                    "rl_rollout_pool",
                    en!("vLLM's pool holds {held} sequences of prompt + completion at once: all {asked} of the rollout."),
                    zh!("vLLM 的池可同时容纳 {held} 条序列（提示 + 补全）：rollout 的 {asked} 条全部容纳。"),
                );
            }
        }
        if rl.rollout == Some(Rollout::Colocate) && !rl.sleep {
            p.note(
                "rl_no_sleep",
                en_str!("Without sleep mode the colocated vLLM keeps its weights and its whole KV pool while the policy trains (TRL vllm_enable_sleep_mode, verl free_cache_engine: true by default there).").into(),
                zh_str!("不开睡眠模式时，同卡的 vLLM 在策略训练时仍保留其权重与整个 KV 池（TRL vllm_enable_sleep_mode；verl 的 free_cache_engine 默认开启）。").into(),
            );
        }
        p.note(
            "rl_uncalibrated",
            en_str!("The RL composition is the training estimate and the engine's estimate added phase by phase; it is not calibrated against a measured RL run. The loss's logits are counted over the whole sequence (TRL keeps the completion's only): safe side.").into(),
            zh_str!("RL 的组合是训练估算与推理引擎估算按阶段相加；尚未用实测的 RL 运行校准。损失的 logits 按整条序列计（TRL 只保留补全部分）：偏安全。").into(),
        );
    }
}
