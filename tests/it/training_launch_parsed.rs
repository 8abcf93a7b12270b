//! The training launches vramfit writes, read by the stacks' own parsers: TRL 1.16's
//! `trl sft` parser (its `SFTConfig`, `ModelConfig`, `ScriptArguments` and the arguments it
//! hands to `accelerate launch`), DeepSpeed 0.19.8's `DeepSpeedZeroConfig`, accelerate 1.16's
//! config loader, LLaMA-Factory 0.9.5's `_parse_train_args`, axolotl 0.19.0's
//! `AxolotlInputConfig`, torchtune 0.6.1's `tune run` parser with `TuneRecipeArgumentParser`
//! merging the overrides onto its shipped config, Hydra's compose over verl 0.9.1's
//! `ppo_trainer.yaml`, OpenRLHF 0.11.2's `train_ppo_ray.py` and `train_dpo.py` parsers and checks
//! (under Ray's `ray job submit` and DeepSpeed's launcher parsers) and Unsloth's `unsloth-cli.py`
//! argparse (with its own `SFTConfig` builder; the repository's script at 015bdef0, the rest installed
//! from PyPI) and run by `tests/launch/parse_training.py`, which
//! reads `tests/data/training-launches.json` and writes what each parser made of each file to
//! `tests/data/training-launches-parsed.json` (with the versions).
//!
//! `training_launches_are_fresh` writes the launches again and fails when they changed: then
//! run the script again (its header says how) and commit both files.

use serde_json::{Value, json};
use vramfit::estimate::{
    Checkpointing, EstimateInput, Loss, Mode, Offload, Optimizer, Precision, RlAlgorithm, Rollout,
    Stack, Workload,
};
use vramfit::estimate::{HardwareInput, ModelInput, RunInput, TrainingInput};
use vramfit::launch::launch;
use vramfit::precision::Quantization;

/// The runs whose launches are parsed.
fn cases() -> Vec<(&'static str, EstimateInput)> {
    let train = |stack: Option<Stack>| EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 2.0,
            seq_len: 4096.0,
            ..Default::default()
        },
        training: TrainingInput {
            stack,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let qlora = |stack| {
        let mut input = train(stack);
        input.training.lora_rank = 16.0;
        input.training.qlora = true;
        input.model.quantization = Quantization::BnbNf4 { double_quant: true };
        input.training.grad_checkpointing = Checkpointing::Full;
        input
    };
    vec![
        ("trl-qlora", qlora(Some(Stack::Trl))),
        ("trl-full-zero3-offload-8gpu", {
            let mut input = train(None);
            input.placement.gpus = Some(8.0);
            input.placement.zero = 3.0;
            input.placement.offload = Offload::Cpu;
            input.training.grad_checkpointing = Checkpointing::Full;
            input.training.fused_optimizer = true;
            input.training.loss = Some(Loss::Fused);
            input
        }),
        ("trl-lora-fsdp2-4gpu", {
            let mut input = train(Some(Stack::Trl));
            input.placement.gpus = Some(4.0);
            input.placement.zero = 3.0;
            input.placement.fsdp_version = Some(2.0);
            input.training.lora_rank = 64.0;
            input.training.lora_targets = vec!["all-linear".into()];
            input.training.precision = Precision::Bf16;
            input.training.packing = true;
            input
        }),
        ("trl-full-fsdp1-shard-grad-op", {
            let mut input = train(None);
            input.placement.gpus = Some(4.0);
            input.placement.zero = 2.0;
            input.placement.fsdp_version = Some(1.0);
            input.training.optimizer = Optimizer::PagedAdamw8bit;
            input
        }),
        ("llamafactory-lora-zero2-4gpu", {
            let mut input = train(Some(Stack::Llamafactory));
            input.placement.gpus = Some(4.0);
            input.placement.zero = 2.0;
            input.training.lora_rank = 8.0;
            input.training.lora_targets = vec!["all-linear".into()];
            input.training.grad_checkpointing = Checkpointing::Full;
            input
        }),
        ("llamafactory-qlora", qlora(Some(Stack::Llamafactory))),
        ("trl-grpo-colocate-lora", {
            let mut input = train(Some(Stack::Trl));
            input.training.rl = Some(RlAlgorithm::Grpo);
            input.training.rollout = Some(Rollout::Colocate);
            input.training.rl_beta = Some(0.04);
            input.training.num_generations = Some(4.0);
            input.training.max_completion_length = Some(1024.0);
            input.training.rollout_memory_utilization = Some(0.4);
            input.training.sleep_mode = Some(true);
            input.training.lora_rank = 16.0;
            input.training.grad_checkpointing = Checkpointing::Full;
            input.run.seq_len = 512.0;
            input
        }),
        ("trl-dpo", {
            let mut input = train(None);
            input.training.rl = Some(RlAlgorithm::Dpo);
            input.training.rl_beta = Some(0.1);
            input.training.max_completion_length = Some(512.0);
            input.run.seq_len = 512.0;
            input.training.grad_checkpointing = Checkpointing::Full;
            input
        }),
        ("axolotl-qlora", {
            let mut input = qlora(Some(Stack::Axolotl));
            input.training.precision = Precision::Bf16;
            input.training.packing = true;
            input
        }),
        // Over two nodes of 8: node 0's command, its machine words read by the launcher's
        // own parser.
        ("trl-full-fsdp2-2nodes", {
            let mut input = train(None);
            input.placement.gpus = Some(16.0);
            input.placement.zero = 3.0;
            input.placement.fsdp_version = Some(2.0);
            input.training.grad_checkpointing = Checkpointing::Full;
            input
        }),
        ("llamafactory-full-zero3-2nodes", {
            let mut input = train(Some(Stack::Llamafactory));
            input.placement.gpus = Some(16.0);
            input.placement.zero = 3.0;
            input.training.grad_checkpointing = Checkpointing::Full;
            input
        }),
        ("axolotl-full-fsdp2-2nodes", {
            let mut input = train(Some(Stack::Axolotl));
            input.placement.gpus = Some(16.0);
            input.placement.zero = 3.0;
            input.placement.fsdp_version = Some(2.0);
            input.training.precision = Precision::Bf16;
            input.training.grad_checkpointing = Checkpointing::Full;
            input
        }),
        ("deepspeed-zero3-hostfile-2nodes", {
            let mut input = train(Some(Stack::Deepspeed));
            input.placement.gpus = Some(16.0);
            input.placement.zero = 3.0;
            input.training.grad_checkpointing = Checkpointing::Full;
            input
        }),
        ("megatron-70b-8nodes", {
            let mut input = train(Some(Stack::Megatron));
            input.model.model = Some("meta-llama/Llama-3.1-70B".into());
            input.placement.gpus = Some(64.0);
            input.placement.tp = 8.0;
            input.placement.pp = 4.0;
            input.placement.vp = Some(2.0);
            input.placement.sequence_parallel = true;
            input.placement.distributed_optimizer = true;
            input.training.grad_accum = Some(16.0);
            input.run.batch = 1.0;
            input.run.seq_len = 8192.0;
            input.training.grad_checkpointing = Checkpointing::Selective;
            input
        }),
        // torchtune 0.6.1's `tune run`: one device, FSDP2 over 4 GPUs and over 2 nodes.
        ("torchtune-lora-1gpu", {
            let mut input = train(Some(Stack::Torchtune));
            input.training.lora_rank = 16.0;
            input.training.precision = Precision::Bf16;
            input.training.grad_checkpointing = Checkpointing::Full;
            input
        }),
        ("torchtune-qlora-1gpu", {
            let mut input = train(Some(Stack::Torchtune));
            input.training.lora_rank = 8.0;
            input.training.qlora = true;
            input.model.quantization = Quantization::TorchaoNf4;
            input.training.lora_targets = vec!["q_proj".into(), "v_proj".into(), "o_proj".into()];
            input.training.precision = Precision::Bf16;
            input.training.grad_checkpointing = Checkpointing::Full;
            input.training.activation_offload = Some(true);
            input
        }),
        ("torchtune-full-fsdp2-4gpu", {
            let mut input = train(Some(Stack::Torchtune));
            input.placement.gpus = Some(4.0);
            input.placement.zero = 3.0;
            input.placement.fsdp_version = Some(2.0);
            input.training.precision = Precision::Bf16;
            input.training.grad_checkpointing = Checkpointing::Full;
            input.training.fused_optimizer = true;
            input.training.grad_accum = Some(4.0);
            input
        }),
        ("torchtune-full-fsdp2-2nodes", {
            let mut input = train(Some(Stack::Torchtune));
            input.placement.gpus = Some(16.0);
            input.placement.zero = 3.0;
            input.placement.fsdp_version = Some(2.0);
            input.placement.offload = Offload::Cpu;
            input.training.precision = Precision::Bf16;
            input.training.grad_checkpointing = Checkpointing::Full;
            input
        }),
        // `--stack fsdp`: accelerate's FSDP config and `trl sft` under `accelerate launch`.
        ("fsdp-fsdp2-4gpu", {
            let mut input = train(Some(Stack::Fsdp));
            input.placement.gpus = Some(4.0);
            input.placement.zero = 3.0;
            input.placement.fsdp_version = Some(2.0);
            input.training.grad_checkpointing = Checkpointing::Full;
            input
        }),
        ("fsdp-fsdp1-offload-2nodes", {
            let mut input = train(Some(Stack::Fsdp));
            input.placement.gpus = Some(16.0);
            input.placement.zero = 3.0;
            input.placement.fsdp_version = Some(1.0);
            input.placement.offload = Offload::Cpu;
            input.training.grad_checkpointing = Checkpointing::Full;
            input
        }),
        // verl 0.9.1's `main_ppo`, GRPO with vLLM on the policy's GPUs.
        ("verl-grpo-4gpu", {
            let mut input = train(Some(Stack::Verl));
            input.placement.gpus = Some(4.0);
            input.placement.zero = 3.0;
            input.placement.fsdp_version = Some(2.0);
            input.training.rl = Some(RlAlgorithm::Grpo);
            input.training.num_generations = Some(4.0);
            input.training.max_completion_length = Some(1024.0);
            input.training.rl_beta = Some(0.001);
            input.training.grad_checkpointing = Checkpointing::Full;
            input.run.seq_len = 512.0;
            input
        }),
        ("verl-grpo-lora-2nodes", {
            let mut input = train(Some(Stack::Verl));
            input.placement.gpus = Some(16.0);
            input.placement.zero = 3.0;
            input.placement.fsdp_version = Some(1.0);
            input.training.rl = Some(RlAlgorithm::Grpo);
            input.training.num_generations = Some(8.0);
            input.training.lora_rank = 32.0;
            input.training.lora_targets = vec!["all-linear".into()];
            input.training.rollout_memory_utilization = Some(0.4);
            input.training.grad_checkpointing = Checkpointing::Full;
            input.run.seq_len = 512.0;
            input.run.batch = 1.0;
            input
        }),
        // verl's PPO: the critic beside the actor.
        ("verl-ppo-4gpu", {
            let mut input = train(Some(Stack::Verl));
            input.placement.gpus = Some(4.0);
            input.placement.zero = 3.0;
            input.placement.fsdp_version = Some(2.0);
            input.training.rl = Some(RlAlgorithm::Ppo);
            input.training.max_completion_length = Some(1024.0);
            input.training.rl_beta = Some(0.001);
            input.training.grad_checkpointing = Checkpointing::Full;
            input.run.seq_len = 512.0;
            input
        }),
        // OpenRLHF 0.11.2: PPO with every model and vLLM on the policy's GPUs, GRPO with vLLM
        // on GPUs of its own and the reference beside a LoRA policy, GRPO over two nodes, DPO.
        ("openrlhf-ppo-colocate-4gpu", {
            let mut input = train(Some(Stack::Openrlhf));
            input.placement.gpus = Some(4.0);
            input.placement.zero = 3.0;
            input.training.rl = Some(RlAlgorithm::Ppo);
            input.training.rollout = Some(Rollout::Colocate);
            input.training.rl_beta = Some(0.01);
            input.training.max_completion_length = Some(1024.0);
            input.training.rollout_memory_utilization = Some(0.5);
            input.training.sleep_mode = Some(true);
            input.training.fused_optimizer = true;
            input.training.grad_checkpointing = Checkpointing::Full;
            input.run.seq_len = 512.0;
            input
        }),
        ("openrlhf-grpo-server-lora-8gpu", {
            let mut input = train(Some(Stack::Openrlhf));
            input.placement.gpus = Some(8.0);
            input.placement.zero = 2.0;
            input.placement.offload = Offload::Cpu;
            input.training.rl = Some(RlAlgorithm::Grpo);
            input.training.rollout = Some(Rollout::Server);
            input.training.rl_beta = Some(0.01);
            input.training.ref_model = Some(true);
            input.training.num_generations = Some(8.0);
            input.training.max_completion_length = Some(2048.0);
            input.training.lora_rank = 32.0;
            input.training.lora_targets = vec!["all-linear".into()];
            input.training.grad_checkpointing = Checkpointing::Full;
            input.run.seq_len = 1024.0;
            input.run.batch = 1.0;
            input
        }),
        ("openrlhf-grpo-colocate-2nodes", {
            let mut input = train(Some(Stack::Openrlhf));
            input.placement.gpus = Some(16.0);
            input.placement.zero = 3.0;
            input.training.rl = Some(RlAlgorithm::Grpo);
            input.training.rollout = Some(Rollout::Colocate);
            input.training.rl_beta = Some(0.0);
            input.training.num_generations = Some(8.0);
            input.training.max_completion_length = Some(1024.0);
            input.training.rollout_memory_utilization = Some(0.6);
            input.training.fused_optimizer = true;
            input.training.grad_checkpointing = Checkpointing::Full;
            input.run.seq_len = 512.0;
            input.run.batch = 1.0;
            input
        }),
        ("openrlhf-dpo-4gpu", {
            let mut input = train(Some(Stack::Openrlhf));
            input.placement.gpus = Some(4.0);
            input.placement.zero = 3.0;
            input.training.rl = Some(RlAlgorithm::Dpo);
            input.training.rl_beta = Some(0.1);
            input.training.max_completion_length = Some(512.0);
            input.training.fused_optimizer = true;
            input.training.grad_checkpointing = Checkpointing::Full;
            input.run.seq_len = 512.0;
            input
        }),
        // Unsloth's unsloth-cli.py: QLoRA on one GPU, Unsloth's checkpointing.
        ("unsloth-qlora", {
            let mut input = train(Some(Stack::Unsloth));
            input.training.lora_rank = 16.0;
            input.training.lora_targets = vec!["all-linear".into()];
            input.training.qlora = true;
            input.model.quantization = Quantization::BnbNf4 { double_quant: true };
            input.training.precision = Precision::Bf16;
            input.training.optimizer = Optimizer::Adamw8bit;
            input.training.grad_accum = Some(4.0);
            input.training.grad_checkpointing = Checkpointing::Full;
            input
        }),
        ("axolotl-full-fsdp2-4gpu", {
            let mut input = train(Some(Stack::Axolotl));
            input.placement.gpus = Some(4.0);
            input.placement.zero = 3.0;
            input.placement.fsdp_version = Some(2.0);
            input.training.precision = Precision::Bf16;
            input.training.grad_checkpointing = Checkpointing::Full;
            input
        }),
    ]
}

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name)
}

/// Each case's workload and its launch as the parse script reads it.
fn launches() -> Vec<(&'static str, Workload, Value)> {
    cases()
        .into_iter()
        .map(|(name, input)| {
            let w = input.resolve().expect("a valid case");
            let l = launch(&w).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            let stack = w.regimes.stack.map_or("trl", |s| s.name());
            let files: Vec<Value> = l
                .files
                .iter()
                .map(|f| json!({"name": f.name, "text": f.text}))
                .collect();
            let env: Vec<Value> = l
                .env
                .iter()
                .map(|e| json!({"name": e.name, "value": e.value}))
                .collect();
            let launch = json!({
                "name": name,
                "stack": stack,
                "files": files,
                "env": env,
                // The trainer's command: after Ray's `ray start` lines where there are any
                // (OpenRLHF's is Ray's `ray job submit`).
                "argv": l.commands.iter().find(|c| c[0] != "ray" || c[1] == "job").unwrap(),
            });
            (name, w, launch)
        })
        .collect()
}

#[test]
fn training_launches_are_fresh() {
    let list: Vec<Value> = launches().into_iter().map(|(_, _, l)| l).collect();
    let want = serde_json::to_string_pretty(&list).unwrap() + "\n";
    let path = data("training-launches.json");
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        std::fs::write(&path, &want).unwrap();
        panic!(
            "tests/data/training-launches.json was stale and is rewritten: run tests/launch/parse_training.py"
        );
    }
}

/// What the stack's parser must give `key` for `w`'s run, as `parse_training.py` names it;
/// `None` for a key the script reports but the run does not decide.
fn expected(w: &Workload, stack: &str, key: &str) -> Option<Value> {
    let gpus = w.dp * w.tp * w.pp;
    let nodes = w.nodes.nodes;
    let offload = |on: bool| match (on, w.offload) {
        (true, Offload::Cpu | Offload::OptimizerCpu) => json!("cpu"),
        (true, Offload::Nvme | Offload::OptimizerNvme) => json!("nvme"),
        _ => json!("none"),
    };
    let pure = w.precision == Precision::Bf16;
    if stack == "torchtune"
        && let Some(v) = torchtune_expected(w, key)
    {
        return Some(v);
    }
    if stack == "verl" {
        return verl_expected(w, key);
    }
    if stack == "openrlhf" {
        return crate::training_launch_rl::openrlhf_expected(w, key);
    }
    if stack == "unsloth"
        && let Some(v) = crate::training_launch_rl::unsloth_expected(w, key)
    {
        return Some(v);
    }
    if let Some(rl) = &w.rl {
        let whole = rl.prompt_len + rl.completion;
        match key {
            "per_device_train_batch_size" => return Some(json!(rl.rollout_sequences())),
            "max_length" if rl.algorithm == RlAlgorithm::Dpo => return Some(json!(whole)),
            "max_length" => return None,
            "num_generations" => return Some(json!(rl.generations)),
            "max_completion_length" => return Some(json!(rl.completion)),
            "beta" => return Some(json!(rl.beta)),
            "use_vllm" => {
                return Some(json!(matches!(
                    rl.rollout,
                    Some(Rollout::Colocate | Rollout::Server)
                )));
            }
            "vllm_mode" if rl.rollout == Some(Rollout::Colocate) => return Some(json!("colocate")),
            "vllm_gpu_memory_utilization" if rl.rollout == Some(Rollout::Colocate) => {
                return Some(json!(rl.utilization));
            }
            "vllm_enable_sleep_mode" if rl.rollout == Some(Rollout::Colocate) => {
                return Some(json!(rl.sleep));
            }
            "precompute_ref_log_probs" => return Some(json!(!rl.reference)),
            _ => {}
        }
    }
    Some(match key {
        "gradient_checkpointing" if stack == "fsdp" => json!(false),
        "per_device_train_batch_size" | "micro_batch_size" => json!(w.batch),
        "max_length" | "cutoff_len" | "sequence_len" => json!(w.seq_len),
        "gradient_checkpointing" if stack == "axolotl" => {
            json!(w.checkpointing == Checkpointing::Full)
        }
        "gradient_checkpointing" => json!(w.checkpointing == Checkpointing::Full),
        "disable_gradient_checkpointing" => json!(w.checkpointing == Checkpointing::None),
        // A full fine-tune's rank is the parser's default, which nothing uses.
        "lora_r" | "lora_rank" if w.lora_rank > 0 => json!(w.lora_rank),
        "load_in_4bit" => json!(w.qlora),
        "use_peft" => json!(w.lora_rank > 0),
        "bf16" if stack == "axolotl" => json!(pure),
        "bf16" if stack == "llamafactory" => json!(w.precision == Precision::AmpBf16),
        "bf16" => json!(matches!(w.precision, Precision::AmpBf16 | Precision::Bf16)),
        "pure_bf16" => json!(pure),
        "dtype" => json!(if pure { "bfloat16" } else { "float32" }),
        "optim" | "optimizer" => json!(match (w.optimizer, w.fused_optimizer) {
            (Optimizer::Adamw, true) => "adamw_torch_fused",
            (Optimizer::Adamw, false) => "adamw_torch",
            (Optimizer::PagedAdamw8bit, _) => "paged_adamw_8bit",
            _ => return None,
        }),
        "use_liger_kernel" => json!(w.regimes.loss == Loss::Fused),
        "packing" | "sample_packing" => json!(w.regimes.packing),
        "num_processes" => json!(gpus),
        "zero_stage" => json!(w.zero),
        "offload_optimizer" => offload(true),
        "offload_param" => offload(w.zero >= 3 && w.offload.params()),
        "fsdp_version" => json!(match w.sharding.fsdp?.version {
            vramfit::estimate::FsdpVersion::V1 => 1,
            vramfit::estimate::FsdpVersion::V2 => 2,
        }),
        "reshard_after_forward" => json!(w.sharding.fsdp?.reshard_after_forward),
        "fsdp_offload_params" => json!(w.offload == Offload::Cpu),
        "fsdp_activation_checkpointing" => json!(w.checkpointing == Checkpointing::Full),
        "quantization_bit" => json!(if w.qlora { 4 } else { return None }),
        "visible_gpus" | "nproc_per_node" => json!(gpus / nodes),
        // Megatron-LM's own names.
        "tensor_model_parallel_size" => json!(w.tp),
        "pipeline_model_parallel_size" => json!(w.pp),
        "num_layers_per_virtual_pipeline_stage" => {
            let m = w.sharding.megatron?;
            json!(w.arch.num_layers / (w.pp * m.vp))
        }
        "sequence_parallel" => json!(w.sharding.megatron?.sequence_parallel),
        "context_parallel_size" => json!(w.sharding.megatron?.cp),
        "use_distributed_optimizer" => json!(w.sharding.megatron?.distributed_optimizer),
        "global_batch_size" => {
            json!(w.batch * w.dp / w.sharding.megatron.map_or(1, |m| m.cp) * w.grad_accum)
        }
        "seq_length" => json!(w.seq_len),
        "num_layers" => json!(w.arch.num_layers),
        "recompute_granularity" => json!(match w.checkpointing {
            Checkpointing::Full => "full",
            Checkpointing::Selective => "selective",
            Checkpointing::None => return None,
        }),
        "rdzv_backend" if nodes > 1 => json!("c10d"),
        "rdzv_endpoint" if nodes > 1 => json!("HEAD_IP:29500"),
        "standalone" => json!(nodes == 1),
        "launcher_module" => json!("trl.scripts.sft"),
        // Node 0's command, the head's address put in by the user, torchrun's port.
        "num_machines" | "nnodes" => json!(nodes),
        "machine_rank" | "node_rank" => json!(0),
        "main_process_ip" | "master_addr" => json!("HEAD_IP"),
        "main_process_port" | "master_port" => json!(29500),
        _ => return None,
    })
}

/// torchtune's config as its parser merged it: `None` for the keys it shares with the others.
fn torchtune_expected(w: &Workload, key: &str) -> Option<Value> {
    let lora = w.lora_rank > 0;
    Some(match key {
        "recipe" => json!(match (lora, w.dp > 1) {
            (false, false) => "full_finetune_single_device",
            (false, true) => "full_finetune_distributed",
            (true, false) => "lora_finetune_single_device",
            (true, true) => "lora_finetune_distributed",
        }),
        "model_component" => json!(format!(
            "torchtune.models.llama3_1.{}llama3_1_8b",
            match (lora, w.quantization) {
                (false, _) => "",
                (true, Quantization::None) => "lora_",
                (true, _) => "qlora_",
            }
        )),
        "model_built" => json!(true),
        "batch_size" => json!(w.batch),
        "gradient_accumulation_steps" => json!(w.grad_accum),
        "max_seq_len" => json!(w.seq_len),
        "tt_dtype" => json!(if w.precision == Precision::Bf16 {
            "bf16"
        } else {
            "fp32"
        }),
        "enable_activation_checkpointing" => json!(w.checkpointing == Checkpointing::Full),
        "enable_activation_offloading" => json!(w.regimes.activation_offload),
        "optimizer_in_bwd" => json!(w.regimes.optimizer_in_backward),
        "optimizer_component" => json!(match w.optimizer {
            Optimizer::Adamw => "torch.optim.AdamW",
            Optimizer::PagedAdamw8bit => "bitsandbytes.optim.PagedAdamW8bit",
            _ => return None,
        }),
        "optimizer_fused" => json!(w.fused_optimizer),
        "loss_component" => json!(match w.regimes.loss {
            Loss::Chunked => "torchtune.modules.loss.CEWithChunkedOutputLoss",
            _ => "torch.nn.CrossEntropyLoss",
        }),
        "num_output_chunks" if w.regimes.loss == Loss::Chunked => json!(w.regimes.loss_chunks),
        "compile" => json!(w.regimes.compile),
        "packed" => json!(w.regimes.packing),
        "lora_attn_modules" => {
            let names = [
                (1, "q_proj"),
                (2, "k_proj"),
                (4, "v_proj"),
                (8, "output_proj"),
            ];
            json!(
                names
                    .iter()
                    .filter(|(b, _)| w.lora_mask & b != 0)
                    .map(|(_, n)| *n)
                    .collect::<Vec<_>>()
            )
        }
        "apply_lora_to_mlp" => json!(w.lora_mask & 112 == 112),
        "fsdp_reshard_after_forward" => json!(w.sharding.fsdp?.reshard_after_forward),
        "fsdp_cpu_offload" => json!(w.offload == Offload::Cpu),
        _ => return None,
    })
}

/// verl's config as Hydra composed it.
fn verl_expected(w: &Workload, key: &str) -> Option<Value> {
    let rl = w.rl.as_ref()?;
    let gpus = w.dp * w.tp * w.pp;
    let nodes = w.nodes.nodes;
    Some(match key {
        "adv_estimator" => json!(match rl.algorithm {
            RlAlgorithm::Ppo => "gae",
            _ => "grpo",
        }),
        // PPO's critic, trained as the actor is.
        "critic_model_path" => json!("meta-llama/Llama-3.1-8B"),
        "critic_strategy" => json!(match w.sharding.fsdp?.version {
            vramfit::estimate::FsdpVersion::V1 => "fsdp",
            vramfit::estimate::FsdpVersion::V2 => "fsdp2",
        }),
        "critic_ppo_micro_batch_size_per_gpu" => json!(rl.rollout_sequences()),
        "critic_enable_gradient_checkpointing" => json!(w.checkpointing == Checkpointing::Full),
        "critic_use_remove_padding" => json!(false),
        "critic_lora_rank" => json!(w.lora_rank),
        "critic_param_offload" | "critic_optimizer_offload" => json!(w.offload == Offload::Cpu),
        "verl_validated" => json!(true),
        "rollout_log_prob_micro_batch_size_per_gpu" => json!(rl.rollout_sequences()),
        "train_batch_size" | "ppo_mini_batch_size" => json!(rl.prompts * gpus),
        "max_prompt_length" => json!(rl.prompt_len),
        "max_response_length" => json!(rl.completion),
        "enable_gradient_checkpointing" => json!(w.checkpointing == Checkpointing::Full),
        "use_remove_padding" => json!(w.regimes.packing),
        "lora_rank" => json!(w.lora_rank),
        "strategy" => json!(match w.sharding.fsdp?.version {
            vramfit::estimate::FsdpVersion::V1 => "fsdp",
            vramfit::estimate::FsdpVersion::V2 => "fsdp2",
        }),
        "ppo_micro_batch_size_per_gpu" => json!(rl.rollout_sequences()),
        "use_kl_loss" => json!(rl.beta > 0.0),
        "kl_loss_coef" if rl.beta > 0.0 => json!(rl.beta),
        "param_offload" | "optimizer_offload" => json!(w.offload == Offload::Cpu),
        "rollout_name" => json!("vllm"),
        "rollout_tensor_model_parallel_size" => json!(1),
        "gpu_memory_utilization" => json!(rl.utilization),
        "rollout_n" => json!(rl.generations),
        "free_cache_engine" => json!(rl.sleep),
        "max_model_len" => json!(rl.engine_len),
        "max_num_seqs" => json!(rl.engine_seqs),
        "max_num_batched_tokens" => json!(rl.engine_tokens),
        "n_gpus_per_node" => json!(gpus / nodes),
        "nnodes" => json!(nodes),
        _ => return None,
    })
}

/// Every value each stack's own parser read from the launch's files is the estimate's; every
/// case was parsed without error, by the versions the readers cite.
#[test]
fn stacks_parse_the_training_launches_as_written() {
    let parsed: Value = serde_json::from_str(
        &std::fs::read_to_string(data("training-launches-parsed.json")).unwrap(),
    )
    .unwrap();
    let versions = &parsed["versions"];
    assert_eq!(versions["trl"], "1.16.0");
    assert_eq!(versions["deepspeed"], "0.19.8");
    assert_eq!(versions["llamafactory"], "0.9.5");
    assert_eq!(versions["axolotl"], "0.19.0");
    assert_eq!(versions["torchtune"], "0.6.1");
    assert_eq!(versions["verl"], "0.9.1");
    assert_eq!(versions["openrlhf"], "0.11.2");
    assert_eq!(
        versions["unsloth-cli.py"],
        "015bdef0d94a241bcd94eec7a405b1700632180d"
    );
    assert_eq!(
        versions["megatron-lm"],
        "d98e8a64ddf34856e74b24714e3bedb2f5a39553"
    );
    for (name, w, launch) in launches() {
        let stack = launch["stack"].as_str().unwrap();
        let case = parsed["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name} was not parsed: run tests/launch/parse_training.py"));
        assert_eq!(case["error"], Value::Null, "{name}: {}", case["error"]);
        let values = case["values"].as_object().unwrap();
        assert!(values.len() >= 6, "{name}: {values:?}");
        let mut checked = 0;
        for (key, got) in values {
            if let Some(want) = expected(&w, stack, key) {
                assert_eq!(got, &want, "{name}: {key}");
                checked += 1;
            }
        }
        assert!(checked >= 6, "{name}: {checked} values checked");
    }
}
