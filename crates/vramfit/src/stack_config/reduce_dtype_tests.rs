//! FSDP's `reduce_dtype` as verl's actor config spells it (verl 0.9.1,
//! `actor_rollout_ref.actor.fsdp_config.mixed_precision`; `verl/workers/fsdp_workers.py`: fp32
//! unless given); the bytes by hand in `estimate/training/reduce_dtype_tests.rs`.

use super::read_training_config;
use crate::estimate::EstimateInput;
use crate::precision::Dtype;

fn verl(fsdp_config: &str) -> Result<Option<Dtype>, crate::InputError> {
    let text = alloc::format!(
        "actor_rollout_ref:\n  model:\n    path: Qwen/Qwen2.5-7B-Instruct\n  actor:\n    strategy: fsdp2\n    ppo_micro_batch_size_per_gpu: 4\n{fsdp_config}\
         algorithm:\n  adv_estimator: grpo\ntrainer:\n  n_gpus_per_node: 8\n"
    );
    read_training_config(&text, EstimateInput::default()).map(|r| r.input.placement.reduce_dtype)
}

#[test]
fn verls_actor_reduces_in_fp32_unless_told() {
    // Not given: left to the stack's default, verl's fp32 (the test below).
    assert_eq!(verl("").unwrap(), None);
    assert_eq!(
        verl("    fsdp_config:\n      param_offload: false\n").unwrap(),
        None
    );
    assert_eq!(
        verl("    fsdp_config:\n      mixed_precision:\n        param_dtype: bf16\n        reduce_dtype: bf16\n").unwrap(),
        Some(Dtype::Bf16)
    );
    assert_eq!(
        verl("    fsdp_config:\n      mixed_precision:\n        reduce_dtype: float32\n").unwrap(),
        Some(Dtype::Fp32)
    );
    let err =
        verl("    fsdp_config:\n      mixed_precision:\n        reduce_dtype: int8\n").unwrap_err();
    assert_eq!(
        err.field,
        "actor_rollout_ref.actor.fsdp_config.mixed_precision.reduce_dtype"
    );
}

#[test]
fn verl_without_reduce_dtype_is_verls_fp32() {
    let text = "actor_rollout_ref:\n  model:\n    path: Qwen/Qwen2.5-7B-Instruct\n  actor:\n    strategy: fsdp2\n\
                algorithm:\n  adv_estimator: grpo\ntrainer:\n  n_gpus_per_node: 8\n";
    let plain = read_training_config(text, EstimateInput::default())
        .unwrap()
        .input;
    let mut fp32 = plain.clone();
    fp32.placement.reduce_dtype = Some(Dtype::Fp32);
    let mut bf16 = plain.clone();
    bf16.placement.reduce_dtype = Some(Dtype::Bf16);
    // The whole estimate, every part and the policy's phases: the default is fp32's.
    let e = |i: &EstimateInput| alloc::format!("{:?}", crate::estimate::estimate(i).unwrap());
    assert_eq!(e(&plain), e(&fp32));
    assert_ne!(e(&bf16), e(&fp32));
}
