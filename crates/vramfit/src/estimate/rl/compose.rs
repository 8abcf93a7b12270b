//! The two phases of an RL step on one card, composed from the run shapes that compute them: the
//! policy's training run ([`Run::training`]), the colocated vLLM ([`Run::vllm`]) or the policy's
//! own `generate` ([`Run::hf_inference`]) on the same card, and the frozen models' weights.

use super::{RlReport, RlRun};
use crate::estimate::{ComponentKind as K, Engine, Logits, Mode, Offload, Parts, Phase, Run};
use crate::precision::Quantization;
use crate::units::Bytes;

/// What the rollout engine holds, from its own run shape.
pub(super) struct EngineFigures {
    /// Where the completions are generated (`None`: DPO, nothing generated).
    pub(super) rollout: Option<crate::estimate::Rollout>,
    /// The engine's copy of the weights (colocated vLLM only; `generate` uses the policy's).
    pub(super) weights: u64,
    /// The KV cache: vLLM's pool at its fraction, or `generate`'s cache of the rollout.
    pub(super) kv: u64,
    /// The rest of the engine: vLLM's profile-run peak, non-torch memory and CUDA graphs, or
    /// `generate`'s activations and logits.
    pub(super) buffers: u64,
    /// Whether the buffers are PyTorch's (`generate`) or partly outside it (vLLM).
    pub(super) buffers_torch: bool,
    /// vLLM's pool: its tokens, and whether it holds one request of its `max_model_len`.
    pub(super) pool_tokens: Option<u64>,
    pub(super) pool: Option<crate::estimate::ServePool>,
}

/// The frozen and the critic's parts beside the policy, in bytes.
pub(super) struct Beside {
    pub(super) reference: u64,
    pub(super) reward: u64,
    /// The value model's weights and optimizer states, held across the step.
    pub(super) value: u64,
    /// The value model's gradients and saved activations, in its training step.
    pub(super) value_step: u64,
}

/// The policy's parts that stay on the card between steps: `zero_grad(set_to_none=True)` frees
/// the gradients, and the forward's tensors live only within the step.
fn persists(kind: K) -> bool {
    matches!(
        kind,
        K::Weights | K::Optimizer | K::CudaContext | K::Workspace | K::Nccl
    )
}

/// PyTorch-allocated bytes at a run's peak, and the bytes outside PyTorch alive at it.
fn alloc_and_outside(p: &Parts) -> (u64, u64) {
    let torch = p
        .comps
        .iter()
        .filter(|c| c.torch)
        .fold(0u64, |s, c| s.saturating_add(c.bytes.get()));
    let outside = p
        .comps
        .iter()
        .filter(|c| !c.torch && c.key.at_peak)
        .fold(0u64, |s, c| s.saturating_add(c.bytes.get()));
    (p.peak.unwrap_or(torch), outside)
}

impl Run<'_> {
    /// The RL run: the policy's training run, the models beside it and the rollout engine, each
    /// added as its parts, alive in the phase that limits. Returns what [`Run::training`]
    /// returns, with the rollout as the phase when it is the larger.
    pub(in crate::estimate) fn rl(&self, rl: &RlRun, p: &mut Parts) -> (Phase, u64, u64) {
        let mut policy = Parts::new(self.text);
        let (train_phase, trainable, cpu) = self.training(&mut policy);
        let (policy_alloc, policy_outside) = alloc_and_outside(&policy);
        let engine = self.rl_engine(rl);
        let beside = self.rl_beside(rl, &policy);
        let colocate = engine.rollout == Some(crate::estimate::Rollout::Colocate);
        // What the engine keeps while the policy trains: everything without sleep mode; with it,
        // what its sleep leaves (its weights and KV pool are freed, the rest stays).
        let (kept_weights, kept_kv, kept_buffers) = match (colocate, rl.sleep) {
            (true, false) => (true, true, true),
            (true, true) => (false, false, true),
            _ => (false, false, false),
        };
        let persistent: u64 = policy
            .comps
            .iter()
            .filter(|c| persists(c.key.kind))
            .fold(0, |s, c| s.saturating_add(c.bytes.get()));
        let frozen = beside.reference + beside.reward + beside.value;
        let rollout_sum = persistent
            .saturating_add(frozen)
            .saturating_add(engine.weights + engine.kv + engine.buffers);
        let kept = [
            (kept_weights, engine.weights),
            (kept_kv, engine.kv),
            (kept_buffers, engine.buffers),
        ]
        .iter()
        .filter(|(k, _)| *k)
        .fold(0u64, |s, (_, b)| s.saturating_add(*b));
        let training_sum = policy_alloc
            .saturating_add(policy_outside)
            .saturating_add(frozen + beside.value_step)
            .saturating_add(kept);
        let rollout_limits = rollout_sum > training_sum;
        let phase = if rollout_limits {
            Phase::Rollout
        } else {
            train_phase
        };
        // The policy's parts: as its training run left them when the training step limits;
        // during the rollout, only what persists between steps.
        for mut c in policy.comps {
            if rollout_limits {
                let alive = persists(c.key.kind);
                c.key.at_peak = alive;
                if !alive {
                    c.torch = false;
                }
            }
            p.comps.push(c);
        }
        p.notes.extend(policy.notes);
        let alive = |in_training: bool| if rollout_limits { true } else { in_training };
        self.add_beside(&beside, rollout_limits, p);
        self.add_engine(
            &engine,
            [alive(kept_weights), alive(kept_kv), alive(kept_buffers)],
            rl,
            p,
        );
        // The torch peak: the policy's own (its checkpointing overlap taken off) and the torch
        // parts beside it, in the phase that limits.
        let beside_torch = p
            .comps
            .iter()
            .filter(|c| c.torch && !is_policy_kind(c.key.kind))
            .fold(0u64, |s, c| s.saturating_add(c.bytes.get()));
        let policy_torch = if rollout_limits {
            p.comps
                .iter()
                .filter(|c| c.torch && is_policy_kind(c.key.kind))
                .fold(0u64, |s, c| s.saturating_add(c.bytes.get()))
        } else {
            policy_alloc
        };
        p.peak = Some(policy_torch.saturating_add(beside_torch));
        // A colocated vLLM that cannot hold one request of its max_model_len does not start, nor
        // one whose start-up check finds less free memory than it asks (memory in use).
        if let Some(pool) = engine
            .pool
            .filter(|sp| sp.available < sp.request || sp.start_short.is_some())
        {
            p.serve_pool = Some(pool);
        }
        // Each sequence of prompt + completion takes whole 16-token blocks of the pool.
        let block = crate::estimate::VLLM_BLOCK;
        let held = engine
            .pool_tokens
            .map(|t| t / self.seq_len.div_ceil(block).max(1) / block);
        let report = RlReport {
            algorithm: rl.algorithm,
            rollout: rl.rollout,
            reference_model: rl.reference,
            reward_and_value_models: rl.reward_and_value,
            rollout_phase_bytes: Bytes::new(rollout_sum),
            training_phase_bytes: Bytes::new(training_sum),
            limiting_phase: phase,
            rollout_sequences: if rl.rollout.is_some() {
                rl.rollout_sequences()
            } else {
                0
            },
            rollout_sequences_held: held,
            training_sequences: self.batch,
        };
        self.rl_notes(rl, &report, p);
        p.rl = Some(report);
        (phase, trainable, cpu)
    }

    /// The rollout engine's figures from its own run shape on this card.
    fn rl_engine(&self, rl: &RlRun) -> EngineFigures {
        let mut e = EngineFigures {
            rollout: rl.rollout,
            weights: 0,
            kv: 0,
            buffers: 0,
            buffers_torch: false,
            pool_tokens: None,
            pool: None,
        };
        let seqs = rl.rollout_sequences();
        match rl.rollout {
            Some(crate::estimate::Rollout::Colocate) => {
                // vLLM as TRL starts it in the trainer's process: one engine per training GPU,
                // tensor-parallel as the policy, its pool at the fraction of this card.
                let w = crate::estimate::Workload {
                    mode: Mode::Serve,
                    engine: Engine::Vllm,
                    batch: seqs,
                    seq_len: rl.prompt_len,
                    new_tokens: rl.completion,
                    gpu_memory_utilization: rl.utilization,
                    max_model_len: rl.engine_len,
                    max_num_seqs: rl.engine_seqs,
                    max_num_batched_tokens: rl.engine_tokens,
                    quantization: if self.qlora {
                        // TRL passes `quantization="bitsandbytes"` for a 4-bit policy.
                        Quantization::BnbNf4 { double_quant: true }
                    } else {
                        self.quantization
                    },
                    qlora: false,
                    lora_rank: 0,
                    zero: 0,
                    offload: Offload::None,
                    dp: 1,
                    pp: 1,
                    rl: None,
                    ..self.w.clone()
                };
                let run = Run::new(&w, false);
                let mut v = Parts::new(false);
                run.vllm(&mut v);
                e.weights = v.get(K::Weights);
                e.kv = v.get(K::KvCache).saturating_add(v.get(K::StateCache));
                e.buffers = v.sum_where(|k| {
                    !matches!(
                        k,
                        K::Weights | K::KvCache | K::StateCache | K::CudaContext | K::Workspace
                    )
                });
                e.pool_tokens = v.serve_tokens.filter(|_| self.device.is_some());
                e.pool = v.serve_pool;
            }
            Some(crate::estimate::Rollout::Hf) => {
                // `generate` on the policy's own weights: its peak beyond them.
                let w = crate::estimate::Workload {
                    mode: Mode::Inference,
                    engine: Engine::Hf,
                    batch: seqs,
                    seq_len: rl.prompt_len,
                    new_tokens: rl.completion,
                    logits: Logits::Last,
                    rl: None,
                    ..self.w.clone()
                };
                let run = Run::new(&w, false);
                let mut g = Parts::new(false);
                run.hf_inference(&mut g);
                let (alloc, _) = alloc_and_outside(&g);
                let extra = alloc
                    .saturating_sub(g.get(K::Weights))
                    .saturating_sub(g.get(K::Workspace));
                e.kv = g
                    .get(K::KvCache)
                    .saturating_add(g.get(K::StateCache))
                    .min(extra);
                e.buffers = extra - e.kv;
                e.buffers_torch = true;
            }
            _ => {}
        }
        e
    }

    /// The frozen models' weights and PPO's value model beside the policy.
    fn rl_beside(&self, rl: &RlRun, policy: &Parts) -> Beside {
        // A frozen model is the policy's model in its checkpoint's dtype and format, split as
        // the policy is (ZeRO-3 partitions it too: TRL prepares the reference with DeepSpeed).
        let frozen = {
            let w = self.serving_weights();
            if self.zero == 3 && self.dp > 1 {
                w.div_ceil(self.dp)
            } else {
                w
            }
        };
        let value = if rl.reward_and_value {
            // The critic: the policy's model with a scalar head, trained as the policy is.
            policy
                .get(K::Weights)
                .saturating_add(policy.get(K::Optimizer))
        } else {
            0
        };
        let value_step = if rl.reward_and_value {
            policy
                .get(K::Gradients)
                .saturating_add(policy.get(K::Activations))
        } else {
            0
        };
        Beside {
            reference: if rl.reference { frozen } else { 0 },
            reward: if rl.reward_and_value { frozen } else { 0 },
            value,
            value_step,
        }
    }
}

/// The policy's own parts (what its training run adds), as against the parts beside it.
fn is_policy_kind(kind: K) -> bool {
    !matches!(
        kind,
        K::ReferenceModel
            | K::RewardModel
            | K::ValueModel
            | K::ValueModelStep
            | K::RolloutWeights
            | K::RolloutKvCache
            | K::RolloutBuffers
    )
}
