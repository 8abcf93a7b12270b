//! What OpenRLHF's and Unsloth's own parsers must read from vramfit's launches of them
//! (`training_launch_parsed.rs` runs the check; `tests/launch/parse_training.py` the parsers).

use serde_json::{Value, json};
use vramfit::estimate::{
    Checkpointing, Offload, Optimizer, Precision, RlAlgorithm, Rollout, Workload,
};

/// OpenRLHF's arguments as its own parser and checks left them (`orl_` keys).
pub fn openrlhf_expected(w: &Workload, key: &str) -> Option<Value> {
    let rl = w.rl.as_ref()?;
    let gpus = w.dp * w.tp * w.pp;
    let nodes = w.nodes.nodes;
    let ppo = rl.algorithm == RlAlgorithm::Ppo;
    let colocate = rl.rollout == Some(Rollout::Colocate);
    let model = "meta-llama/Llama-3.1-8B";
    let seqs = rl.rollout_sequences();
    Some(match key {
        "orl_ray_address" => json!("http://127.0.0.1:8265"),
        "orl_model" | "orl_ref_model" => json!(model),
        // OpenRLHF's check drops the critic of a non-gae estimator.
        "orl_critic_model" | "orl_reward_model" if ppo => json!(model),
        "orl_critic_model" | "orl_reward_model" => Value::Null,
        "orl_reward_remote_url" if ppo => Value::Null,
        "orl_reward_remote_url" => json!(["reward_func.py"]),
        "orl_estimator" => json!(if ppo { "gae" } else { "group_norm" }),
        "orl_kl_init_coef" => json!(rl.beta),
        "orl_kl_use_loss" => json!(!ppo && rl.beta > 0.0),
        "orl_beta" => json!(rl.beta),
        "orl_n_samples_per_prompt" => json!(rl.generations),
        "orl_rollout_batch_size" => json!(rl.prompts * gpus),
        "orl_rollout_micro_batch_size" => json!(seqs),
        // DPO's micro-batch counts pairs; PPO's and GRPO's the rollout's sequences.
        "orl_micro_batch_size" if rl.algorithm == RlAlgorithm::Dpo => json!(rl.prompts),
        "orl_batch_size" if rl.algorithm == RlAlgorithm::Dpo => json!(rl.prompts * gpus),
        "orl_micro_batch_size" => json!(seqs),
        "orl_batch_size" => json!(seqs * gpus),
        "orl_max_len" => json!(rl.prompt_len + rl.completion),
        "orl_max_new_tokens" => json!(rl.completion),
        "orl_zero_stage" => json!(w.zero),
        "orl_adam_offload" => json!(w.offload == Offload::Cpu),
        "orl_param_dtype" => json!("bf16"),
        "orl_gradient_checkpointing" => json!(w.checkpointing == Checkpointing::Full),
        "orl_colocate_all" => json!(colocate),
        "orl_colocate_actor_ref" => json!(!colocate && rl.reference),
        "orl_vllm_num_engines" => json!(gpus),
        "orl_vllm_tensor_parallel_size" => json!(1),
        "orl_vllm_gpu_memory_utilization" if colocate => json!(rl.utilization),
        "orl_vllm_enable_sleep" => json!(colocate && rl.sleep),
        "orl_actor_num_nodes" => json!(nodes),
        "orl_actor_num_gpus_per_node" => json!(gpus / nodes),
        "orl_ref_num_gpus_per_node" if rl.reference => json!(gpus / nodes),
        "orl_critic_num_gpus_per_node" | "orl_reward_num_gpus_per_node" if ppo => {
            json!(gpus / nodes)
        }
        "orl_lora_rank" => json!(w.lora_rank),
        "orl_attn_implementation" => json!("flash_attention_2"),
        "nproc_per_node" => json!(gpus / nodes),
        _ => return None,
    })
}

/// unsloth-cli.py's arguments and the `SFTConfig` it builds from them.
pub fn unsloth_expected(w: &Workload, key: &str) -> Option<Value> {
    Some(match key {
        "unsloth_model_name" => json!("meta-llama/Llama-3.1-8B"),
        "unsloth_max_seq_length" => json!(w.seq_len),
        "unsloth_dtype" => Value::Null,
        "unsloth_load_in_4bit" => json!(w.qlora),
        "unsloth_r" => json!(w.lora_rank),
        "unsloth_use_gradient_checkpointing" => json!("unsloth"),
        "gradient_accumulation_steps" => json!(w.grad_accum),
        "optim" => json!(match w.optimizer {
            Optimizer::Adamw8bit => "adamw_bnb_8bit",
            Optimizer::Adamw => "adamw_torch",
            _ => return None,
        }),
        // The script sets bf16 on a bf16 card, as the estimate's pure bf16 run.
        "bf16" => json!(w.precision == Precision::Bf16),
        _ => return None,
    })
}
