//! The RL composition against independent figures: the training estimate and the vLLM (or
//! transformers) estimate of the same card, run on their own through the public API and added
//! phase by phase by hand; the frozen models' weights by hand (parameters × 2 B).

use crate::ErrorKind;
use crate::estimate::{
    ComponentKind as K, Engine, Estimate, EstimateInput, Mode, Phase, RlAlgorithm, Rollout,
    estimate,
};
use crate::estimate::{HardwareInput, ModelInput, RunInput, ServingInput, TrainingInput};

/// Llama-3.2-1B's parameters (tied embeddings): 1,235,814,400.
const LLAMA_1B_PARAMS: u64 = 1_235_814_400;

fn grpo(rollout: Rollout) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.2-1B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 2.0,
            seq_len: 256.0,
            ..Default::default()
        },
        training: TrainingInput {
            rl: Some(RlAlgorithm::Grpo),
            num_generations: Some(4.0),
            max_completion_length: Some(768.0),
            rollout: Some(rollout),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn bytes(e: &Estimate, kind: K) -> u64 {
    e.components
        .iter()
        .filter(|c| c.key.kind == kind)
        .map(|c| c.bytes.get())
        .sum()
}

fn sum(e: &Estimate, kinds: &[K]) -> u64 {
    kinds.iter().map(|k| bytes(e, *k)).sum()
}

/// The policy's training run on its own: the rollout's 8 sequences of 256 + 768 tokens.
fn policy_alone() -> Estimate {
    estimate(&EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.2-1B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 8.0,
            seq_len: 1024.0,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap()
}

/// The colocated vLLM on its own, as TRL starts it: utilisation 0.3, max_num_seqs the rollout's
/// sequences, max_num_batched_tokens 4096, max_model_len prompt + completion.
fn engine_alone(util: f64) -> Estimate {
    estimate(&engine_input(util)).unwrap()
}

fn engine_input(util: f64) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.2-1B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            batch: 8.0,
            seq_len: 256.0,
            new_tokens: 768.0,
            ..Default::default()
        },
        serving: ServingInput {
            gpu_memory_utilization: util,
            max_model_len: Some(1024.0),
            max_num_seqs: Some(8.0),
            max_num_batched_tokens: Some(4096.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The engine's memory on the card: its total less its CUDA context (the trainer's: one
/// process) and its allocator reserve (the composed estimate adds one reserve for the card).
fn engine_bytes(v: &Estimate) -> u64 {
    v.total_bytes.get() - bytes(v, K::CudaContext) - v.allocator_reserve_bytes.get()
}

/// The policy's parts that stay between steps, and its whole training peak before the reserve.
fn policy_phases(t: &Estimate) -> (u64, u64) {
    let persistent = sum(t, &[K::Weights, K::Optimizer, K::CudaContext, K::Workspace]);
    let training = t.total_bytes.get() - t.allocator_reserve_bytes.get();
    (persistent, training)
}

#[test]
fn colocated_grpo_is_the_training_run_plus_the_engine_at_its_fraction() {
    let e = estimate(&grpo(Rollout::Colocate)).unwrap();
    let r = e.rl.clone().unwrap();
    let (t, v) = (policy_alone(), engine_alone(0.3));
    let (persistent, training) = policy_phases(&t);
    // The engine: its weights, its pool and the rest of its budget; its CUDA context is the
    // trainer's (one process).
    let engine = engine_bytes(&v);
    assert_eq!(bytes(&e, K::RolloutWeights), bytes(&v, K::Weights));
    assert_eq!(bytes(&e, K::RolloutKvCache), bytes(&v, K::KvCache));
    assert_eq!(r.rollout_phase_bytes.get(), persistent + engine);
    // Without sleep mode the engine stays whole while the policy trains.
    assert_eq!(r.training_phase_bytes.get(), training + engine);
    assert_eq!(r.limiting_phase, t.peak_phase);
    // The engine's budget is 0.3 of the card: 0.3 × 79.19 GiB less its context-free rest.
    let budget = (0.3 * 85_045_231_616f64) as u64;
    assert!(
        engine <= budget + bytes(&v, K::CudaGraphs),
        "{engine} vs {budget}"
    );
    // No reference at TRL's beta 0.0.
    assert_eq!(bytes(&e, K::ReferenceModel), 0);
    // The pool holds far more than the 8 sequences of 1,024 tokens: vLLM's own figure.
    let held = r.rollout_sequences_held.unwrap();
    assert_eq!(held, v.kv_cache_tokens.unwrap() / 1024);
    assert_eq!(r.rollout_sequences, 8);
    assert_eq!(r.training_sequences, 8);
    // The estimate's total is the larger phase with the allocator's reserve.
    assert_eq!(
        e.total_bytes.get() - e.allocator_reserve_bytes.get(),
        r.training_phase_bytes.get()
    );
}

#[test]
fn sleep_mode_frees_the_engines_weights_and_pool_while_the_policy_trains() {
    let awake = estimate(&grpo(Rollout::Colocate)).unwrap();
    let asleep = estimate(&{
        let mut input = grpo(Rollout::Colocate);
        input.training.sleep_mode = Some(true);
        input
    })
    .unwrap();
    let v = engine_alone(0.3);
    let (a, s) = (awake.rl.unwrap(), asleep.rl.unwrap());
    assert_eq!(a.rollout_phase_bytes, s.rollout_phase_bytes);
    assert_eq!(
        a.training_phase_bytes.get() - s.training_phase_bytes.get(),
        bytes(&v, K::Weights) + bytes(&v, K::KvCache)
    );
    let kv = asleep
        .components
        .iter()
        .find(|c| c.key.kind == K::RolloutKvCache)
        .unwrap();
    assert!(!kv.key.at_peak, "the pool is freed at the training peak");
}

/// TRL's old default fraction, 0.9, ran out of memory once the optimizer states came after vLLM's
/// start (huggingface/trl#2688, 2025-01-30; TRL PR #2600's comment: "the optimizer's weights
/// are not yet loaded onto the GPU [...] we must reserve enough space for them"), and the
/// default became 0.3. The estimate says the same: at 0.9 the rollout is the peak and over the
/// card, even with sleep mode.
#[test]
fn a_larger_fraction_makes_the_rollout_the_peak() {
    let e = estimate(&{
        let mut input = grpo(Rollout::Colocate);
        input.training.rollout_memory_utilization = Some(0.9);
        input.training.sleep_mode = Some(true);
        input
    })
    .unwrap();
    let r = e.rl.unwrap();
    let (persistent, _) = policy_phases(&policy_alone());
    let v = engine_alone(0.9);
    assert_eq!(r.limiting_phase, Phase::Rollout);
    assert_eq!(e.peak_phase, Phase::Rollout);
    assert_eq!(r.rollout_phase_bytes.get(), persistent + engine_bytes(&v));
    // At the rollout, the policy's gradients and activations are not on the card.
    for c in &e.components {
        if matches!(c.key.kind, K::Gradients | K::Activations | K::Logits) {
            assert!(!c.key.at_peak, "{:?}", c.key.kind);
        }
    }
    // 16 GiB of policy state + 0.9 of the card: over the card.
    assert!(!e.fit.unwrap().fits);
}

#[test]
fn grpo_loads_a_reference_only_with_a_kl_term_and_not_beside_lora() {
    let with = estimate(&{
        let mut input = grpo(Rollout::Server);
        input.training.rl_beta = Some(0.04);
        input
    })
    .unwrap();
    // By hand: 1,235,814,400 parameters × 2 B (bf16).
    assert_eq!(bytes(&with, K::ReferenceModel), LLAMA_1B_PARAMS * 2);
    let lora = estimate(&{
        let mut input = grpo(Rollout::Server);
        input.training.rl_beta = Some(0.04);
        input.training.lora_rank = 16.0;
        input
    })
    .unwrap();
    assert_eq!(bytes(&lora, K::ReferenceModel), 0);
    let forced = estimate(&{
        let mut input = grpo(Rollout::Server);
        input.training.ref_model = Some(true);
        input
    })
    .unwrap();
    assert_eq!(bytes(&forced, K::ReferenceModel), LLAMA_1B_PARAMS * 2);
    // A server rollout puts nothing on this card: the training phase is the policy's own plus
    // the reference.
    let (_, training) = policy_phases(&policy_alone());
    assert_eq!(
        with.rl.unwrap().training_phase_bytes.get(),
        training + LLAMA_1B_PARAMS * 2
    );
}

#[test]
fn hf_rollout_is_generates_peak_beyond_the_weights() {
    let e = estimate(&grpo(Rollout::Hf)).unwrap();
    let g = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.2-1B".into()),
            ..Default::default()
        },
        run: RunInput {
            batch: 8.0,
            seq_len: 256.0,
            new_tokens: 768.0,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let beyond = g.peak_allocated_bytes.get() - bytes(&g, K::Weights) - bytes(&g, K::Workspace);
    assert_eq!(
        bytes(&e, K::RolloutKvCache) + bytes(&e, K::RolloutBuffers),
        beyond
    );
    // generate's cache: 8 sequences × 1,024 tokens × 16 layers × 2 × 8 KV heads × 64 × 2 B.
    assert_eq!(bytes(&e, K::RolloutKvCache), 8 * 1024 * 16 * 2 * 8 * 64 * 2);
}

#[test]
fn dpo_trains_two_sequences_per_pair_beside_its_reference() {
    let dpo = |r: Option<bool>| EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.2-1B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 4.0,
            seq_len: 512.0,
            ..Default::default()
        },
        training: TrainingInput {
            max_completion_length: Some(512.0),
            rl: Some(RlAlgorithm::Dpo),
            ref_model: r,
            ..Default::default()
        },
        ..Default::default()
    };
    let e = estimate(&dpo(None)).unwrap();
    let t = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.2-1B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 8.0,
            seq_len: 1024.0,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(bytes(&e, K::Activations), bytes(&t, K::Activations));
    assert_eq!(bytes(&e, K::ReferenceModel), LLAMA_1B_PARAMS * 2);
    let r = e.rl.unwrap();
    assert_eq!(
        (r.rollout, r.rollout_sequences, r.training_sequences),
        (None, 0, 8)
    );
    // precompute_ref_log_probs: no reference on the card.
    let pre = estimate(&dpo(Some(false))).unwrap();
    assert_eq!(bytes(&pre, K::ReferenceModel), 0);
}

#[test]
fn ppo_adds_the_reward_model_and_a_trained_critic() {
    let e = estimate(&{
        let mut input = grpo(Rollout::Server);
        input.training.rl = Some(RlAlgorithm::Ppo);
        input.training.num_generations = None;
        input.run.batch = 8.0;
        input
    })
    .unwrap();
    let t = policy_alone();
    assert_eq!(bytes(&e, K::RewardModel), LLAMA_1B_PARAMS * 2);
    assert_eq!(bytes(&e, K::ReferenceModel), LLAMA_1B_PARAMS * 2);
    assert_eq!(
        bytes(&e, K::ValueModel),
        bytes(&t, K::Weights) + bytes(&t, K::Optimizer)
    );
    assert_eq!(
        bytes(&e, K::ValueModelStep),
        bytes(&t, K::Gradients) + bytes(&t, K::Activations)
    );
    let (_, training) = policy_phases(&t);
    let r = e.rl.unwrap();
    assert_eq!(
        r.training_phase_bytes.get(),
        training
            + 2 * LLAMA_1B_PARAMS * 2
            + bytes(&t, K::Weights)
            + bytes(&t, K::Optimizer)
            + bytes(&t, K::Gradients)
            + bytes(&t, K::Activations)
    );
}

#[test]
fn figures_are_the_estimates_numbers() {
    let input = {
        let mut input = grpo(Rollout::Colocate);
        input.training.rl_beta = Some(0.04);
        input
    };
    let w = input.resolve().unwrap();
    let (a, b) = (w.estimate(), w.figures());
    assert_eq!(a.total_bytes, b.total_bytes);
    assert_eq!(a.rl, b.rl);
    let sizes = |e: &Estimate| {
        e.components
            .iter()
            .map(|c| (c.key, c.bytes))
            .collect::<alloc::vec::Vec<_>>()
    };
    assert_eq!(sizes(&a), sizes(&b));
    assert!(a.notes.iter().any(|n| n.key == "rl_phases"));
}

#[test]
fn bad_rl_input_names_the_field() {
    let err = |i: EstimateInput| {
        let e = estimate(&i).unwrap_err();
        (e.kind, e.field)
    };
    let c = || grpo(Rollout::Colocate);
    assert_eq!(
        err({
            let mut input = c();
            input.run.mode = Mode::Inference;
            input
        }),
        (ErrorKind::Conflict, "rl".into())
    );
    assert_eq!(
        err({
            let mut input = c();
            input.training.rl = None;
            input
        }),
        (ErrorKind::Conflict, "num_generations".into())
    );
    assert_eq!(
        err({
            let mut input = c();
            input.training.rollout_memory_utilization = Some(1.5);
            input
        }),
        (ErrorKind::OutOfRange, "rollout_memory_utilization".into())
    );
    assert_eq!(
        err({
            let mut input = grpo(Rollout::Hf);
            input.training.sleep_mode = Some(true);
            input
        }),
        (ErrorKind::Conflict, "sleep_mode".into())
    );
    assert_eq!(
        err({
            let mut input = c();
            input.training.rl = Some(RlAlgorithm::Dpo);
            input
        }),
        (ErrorKind::Conflict, "rollout".into())
    );
    for g in [0.0, 1.5, f64::NAN, 2048.0] {
        assert_eq!(
            err({
                let mut input = c();
                input.training.num_generations = Some(g);
                input
            })
            .1,
            "num_generations"
        );
    }
    for b in [-0.1, f64::INFINITY] {
        assert_eq!(
            err({
                let mut input = c();
                input.training.rl_beta = Some(b);
                input
            }),
            (ErrorKind::OutOfRange, "rl_beta".into())
        );
    }
    assert_eq!(
        err({
            let mut input = c();
            input.run.seq_len = (1u64 << 24) as f64;
            input
        }),
        (ErrorKind::OutOfRange, "max_completion_length".into())
    );
}

#[test]
fn the_colocated_engine_runs_the_vllm_release_asked() {
    let v019 = |i: EstimateInput| {
        estimate(&EstimateInput {
            run: RunInput {
                engine_version: Some("0.19".into()),
                ..i.run
            },
            ..i
        })
    };
    let e = v019(grpo(Rollout::Colocate)).unwrap();
    let v = v019(engine_input(0.3)).unwrap();
    assert_eq!(bytes(&e, K::RolloutKvCache), bytes(&v, K::KvCache));
    // Before 0.21 the CUDA graphs sit outside the pool's budget: a larger pool than the latest's.
    let latest = estimate(&grpo(Rollout::Colocate)).unwrap();
    assert!(bytes(&e, K::RolloutKvCache) > bytes(&latest, K::RolloutKvCache));
    // Plain training has no vLLM to read it for, nor a rollout other than a colocated one.
    let err = v019(grpo(Rollout::Hf)).unwrap_err();
    assert_eq!(err.field, "engine_version");
}

/// Each stack's defaults, as its config sets them (`rl/defaults.rs` cites the files): TRL's
/// without a stack.
#[test]
fn each_stack_brings_its_own_defaults() {
    use crate::estimate::{RlRun, Stack};
    let input = |stack: Option<Stack>, rl: RlAlgorithm| EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.2-1B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 2.0,
            seq_len: 256.0,
            ..Default::default()
        },
        training: TrainingInput {
            rl: Some(rl),
            stack,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let run = |i: EstimateInput| -> RlRun { i.resolve().unwrap().rl.unwrap() };
    let facts = |r: RlRun| {
        (
            r.generations,
            r.completion,
            r.reference,
            r.rollout,
            r.utilization,
            r.sleep,
        )
    };
    // TRL's GRPO: 8 completions of 512 tokens, no KL term (no reference), the policy's
    // generate.
    let trl = run(input(None, RlAlgorithm::Grpo));
    assert_eq!(facts(trl), (8, 512, false, Some(Rollout::Hf), 0.3, false));
    assert_eq!(run(input(Some(Stack::Trl), RlAlgorithm::Grpo)), trl);
    // TRL's PPO: response_length 53, kl_coef 0.05 (a reference).
    let ppo = run(input(None, RlAlgorithm::Ppo));
    assert_eq!(
        (ppo.generations, ppo.completion, ppo.reference),
        (1, 53, true)
    );
    // TRL's DPO: max_length 1024 is prompt and completion together.
    assert_eq!(run(input(None, RlAlgorithm::Dpo)).completion, 1024 - 256);
    // verl: the hybrid engine colocated at 0.5, its cache freed while training, one response of
    // 512 tokens, no KL term: no reference, for PPO neither.
    let verl = run(input(Some(Stack::Verl), RlAlgorithm::Grpo));
    assert_eq!(
        facts(verl),
        (1, 512, false, Some(Rollout::Colocate), 0.5, true)
    );
    assert!(!run(input(Some(Stack::Verl), RlAlgorithm::Ppo)).reference);
    // OpenRLHF: vLLM on its own GPUs, a KL term of 0.01 (a reference), max_len 2048 in all.
    let open = run(input(Some(Stack::Openrlhf), RlAlgorithm::Grpo));
    assert_eq!(
        (
            open.generations,
            open.completion,
            open.reference,
            open.rollout
        ),
        (1, 2048 - 256, true, Some(Rollout::Server))
    );
    // Colocated (`--train.colocate_all`): 0.95 of the card, awake.
    let colocated = run({
        let mut input = input(Some(Stack::Openrlhf), RlAlgorithm::Grpo);
        input.training.rollout = Some(Rollout::Colocate);
        input
    });
    assert_eq!((colocated.utilization, colocated.sleep), (0.95, false));
    // A setting given is the run's, whatever the stack.
    let given = run({
        let mut input = input(Some(Stack::Verl), RlAlgorithm::Grpo);
        input.training.sleep_mode = Some(false);
        input.training.rollout_memory_utilization = Some(0.4);
        input.training.num_generations = Some(16.0);
        input
    });
    assert_eq!(
        (given.sleep, given.utilization, given.generations),
        (false, 0.4, 16)
    );
}
