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
use vramfit::launch::launch;
use vramfit::precision::Quantization;

/// The runs whose launches are parsed.
fn cases() -> Vec<(&'static str, EstimateInput)> {
    let train = |stack: Option<Stack>| EstimateInput {
        model: Some("meta-llama/Llama-3.1-8B".into()),
        mode: Mode::Training,
        gpu: Some("h100-sxm5-80gb".into()),
        batch: 2.0,
        seq_len: 4096.0,
        stack,
        ..EstimateInput::default()
    };
    let qlora = |stack| EstimateInput {
        lora_rank: 16.0,
        qlora: true,
        quantization: Quantization::BnbNf4 { double_quant: true },
        grad_checkpointing: Checkpointing::Full,
        ..train(stack)
    };
    vec![
        ("trl-qlora", qlora(Some(Stack::Trl))),
        (
            "trl-full-zero3-offload-8gpu",
            EstimateInput {
                gpus: Some(8.0),
                zero: 3.0,
                offload: Offload::Cpu,
                grad_checkpointing: Checkpointing::Full,
                fused_optimizer: true,
                loss: Some(Loss::Fused),
                ..train(None)
            },
        ),
        (
            "trl-lora-fsdp2-4gpu",
            EstimateInput {
                gpus: Some(4.0),
                zero: 3.0,
                fsdp_version: Some(2.0),
                lora_rank: 64.0,
                lora_targets: vec!["all-linear".into()],
                precision: Precision::Bf16,
                packing: true,
                ..train(Some(Stack::Trl))
            },
        ),
        (
            "trl-full-fsdp1-shard-grad-op",
            EstimateInput {
                gpus: Some(4.0),
                zero: 2.0,
                fsdp_version: Some(1.0),
                optimizer: Optimizer::PagedAdamw8bit,
                ..train(None)
            },
        ),
        (
            "llamafactory-lora-zero2-4gpu",
            EstimateInput {
                gpus: Some(4.0),
                zero: 2.0,
                lora_rank: 8.0,
                lora_targets: vec!["all-linear".into()],
                grad_checkpointing: Checkpointing::Full,
                ..train(Some(Stack::Llamafactory))
            },
        ),
        ("llamafactory-qlora", qlora(Some(Stack::Llamafactory))),
        (
            "trl-grpo-colocate-lora",
            EstimateInput {
                rl: Some(RlAlgorithm::Grpo),
                rollout: Some(Rollout::Colocate),
                rl_beta: Some(0.04),
                num_generations: Some(4.0),
                max_completion_length: Some(1024.0),
                rollout_memory_utilization: Some(0.4),
                sleep_mode: Some(true),
                lora_rank: 16.0,
                grad_checkpointing: Checkpointing::Full,
                seq_len: 512.0,
                ..train(Some(Stack::Trl))
            },
        ),
        (
            "trl-dpo",
            EstimateInput {
                rl: Some(RlAlgorithm::Dpo),
                rl_beta: Some(0.1),
                max_completion_length: Some(512.0),
                seq_len: 512.0,
                grad_checkpointing: Checkpointing::Full,
                ..train(None)
            },
        ),
        (
            "axolotl-qlora",
            EstimateInput {
                precision: Precision::Bf16,
                packing: true,
                ..qlora(Some(Stack::Axolotl))
            },
        ),
        // Over two nodes of 8: node 0's command, its machine words read by the launcher's
        // own parser.
        (
            "trl-full-fsdp2-2nodes",
            EstimateInput {
                gpus: Some(16.0),
                zero: 3.0,
                fsdp_version: Some(2.0),
                grad_checkpointing: Checkpointing::Full,
                ..train(None)
            },
        ),
        (
            "llamafactory-full-zero3-2nodes",
            EstimateInput {
                gpus: Some(16.0),
                zero: 3.0,
                grad_checkpointing: Checkpointing::Full,
                ..train(Some(Stack::Llamafactory))
            },
        ),
        (
            "axolotl-full-fsdp2-2nodes",
            EstimateInput {
                gpus: Some(16.0),
                zero: 3.0,
                fsdp_version: Some(2.0),
                precision: Precision::Bf16,
                grad_checkpointing: Checkpointing::Full,
                ..train(Some(Stack::Axolotl))
            },
        ),
        (
            "deepspeed-zero3-hostfile-2nodes",
            EstimateInput {
                gpus: Some(16.0),
                zero: 3.0,
                grad_checkpointing: Checkpointing::Full,
                ..train(Some(Stack::Deepspeed))
            },
        ),
        (
            "megatron-70b-8nodes",
            EstimateInput {
                model: Some("meta-llama/Llama-3.1-70B".into()),
                gpus: Some(64.0),
                tp: 8.0,
                pp: 4.0,
                vp: Some(2.0),
                sequence_parallel: true,
                distributed_optimizer: true,
                grad_accum: Some(16.0),
                batch: 1.0,
                seq_len: 8192.0,
                grad_checkpointing: Checkpointing::Selective,
                ..train(Some(Stack::Megatron))
            },
        ),
        // torchtune 0.6.1's `tune run`: one device, FSDP2 over 4 GPUs and over 2 nodes.
        (
            "torchtune-lora-1gpu",
            EstimateInput {
                lora_rank: 16.0,
                precision: Precision::Bf16,
                grad_checkpointing: Checkpointing::Full,
                ..train(Some(Stack::Torchtune))
            },
        ),
        (
            "torchtune-qlora-1gpu",
            EstimateInput {
                lora_rank: 8.0,
                qlora: true,
                quantization: Quantization::TorchaoNf4,
                lora_targets: vec!["q_proj".into(), "v_proj".into(), "o_proj".into()],
                precision: Precision::Bf16,
                grad_checkpointing: Checkpointing::Full,
                activation_offload: Some(true),
                ..train(Some(Stack::Torchtune))
            },
        ),
        (
            "torchtune-full-fsdp2-4gpu",
            EstimateInput {
                gpus: Some(4.0),
                zero: 3.0,
                fsdp_version: Some(2.0),
                precision: Precision::Bf16,
                grad_checkpointing: Checkpointing::Full,
                fused_optimizer: true,
                grad_accum: Some(4.0),
                ..train(Some(Stack::Torchtune))
            },
        ),
        (
            "torchtune-full-fsdp2-2nodes",
            EstimateInput {
                gpus: Some(16.0),
                zero: 3.0,
                fsdp_version: Some(2.0),
                offload: Offload::Cpu,
                precision: Precision::Bf16,
                grad_checkpointing: Checkpointing::Full,
                ..train(Some(Stack::Torchtune))
            },
        ),
        // `--stack fsdp`: accelerate's FSDP config and `trl sft` under `accelerate launch`.
        (
            "fsdp-fsdp2-4gpu",
            EstimateInput {
                gpus: Some(4.0),
                zero: 3.0,
                fsdp_version: Some(2.0),
                grad_checkpointing: Checkpointing::Full,
                ..train(Some(Stack::Fsdp))
            },
        ),
        (
            "fsdp-fsdp1-offload-2nodes",
            EstimateInput {
                gpus: Some(16.0),
                zero: 3.0,
                fsdp_version: Some(1.0),
                offload: Offload::Cpu,
                grad_checkpointing: Checkpointing::Full,
                ..train(Some(Stack::Fsdp))
            },
        ),
        // verl 0.9.1's `main_ppo`, GRPO with vLLM on the policy's GPUs.
        (
            "verl-grpo-4gpu",
            EstimateInput {
                gpus: Some(4.0),
                zero: 3.0,
                fsdp_version: Some(2.0),
                rl: Some(RlAlgorithm::Grpo),
                num_generations: Some(4.0),
                max_completion_length: Some(1024.0),
                rl_beta: Some(0.001),
                grad_checkpointing: Checkpointing::Full,
                seq_len: 512.0,
                ..train(Some(Stack::Verl))
            },
        ),
        (
            "verl-grpo-lora-2nodes",
            EstimateInput {
                gpus: Some(16.0),
                zero: 3.0,
                fsdp_version: Some(1.0),
                rl: Some(RlAlgorithm::Grpo),
                num_generations: Some(8.0),
                lora_rank: 32.0,
                lora_targets: vec!["all-linear".into()],
                rollout_memory_utilization: Some(0.4),
                grad_checkpointing: Checkpointing::Full,
                seq_len: 512.0,
                batch: 1.0,
                ..train(Some(Stack::Verl))
            },
        ),
        // verl's PPO: the critic beside the actor.
        (
            "verl-ppo-4gpu",
            EstimateInput {
                gpus: Some(4.0),
                zero: 3.0,
                fsdp_version: Some(2.0),
                rl: Some(RlAlgorithm::Ppo),
                max_completion_length: Some(1024.0),
                rl_beta: Some(0.001),
                grad_checkpointing: Checkpointing::Full,
                seq_len: 512.0,
                ..train(Some(Stack::Verl))
            },
        ),
        // OpenRLHF 0.11.2: PPO with every model and vLLM on the policy's GPUs, GRPO with vLLM
        // on GPUs of its own and the reference beside a LoRA policy, GRPO over two nodes, DPO.
        (
            "openrlhf-ppo-colocate-4gpu",
            EstimateInput {
                gpus: Some(4.0),
                zero: 3.0,
                rl: Some(RlAlgorithm::Ppo),
                rollout: Some(Rollout::Colocate),
                rl_beta: Some(0.01),
                max_completion_length: Some(1024.0),
                rollout_memory_utilization: Some(0.5),
                sleep_mode: Some(true),
                fused_optimizer: true,
                grad_checkpointing: Checkpointing::Full,
                seq_len: 512.0,
                ..train(Some(Stack::Openrlhf))
            },
        ),
        (
            "openrlhf-grpo-server-lora-8gpu",
            EstimateInput {
                gpus: Some(8.0),
                zero: 2.0,
                offload: Offload::Cpu,
                rl: Some(RlAlgorithm::Grpo),
                rollout: Some(Rollout::Server),
                rl_beta: Some(0.01),
                ref_model: Some(true),
                num_generations: Some(8.0),
                max_completion_length: Some(2048.0),
                lora_rank: 32.0,
                lora_targets: vec!["all-linear".into()],
                grad_checkpointing: Checkpointing::Full,
                seq_len: 1024.0,
                batch: 1.0,
                ..train(Some(Stack::Openrlhf))
            },
        ),
        (
            "openrlhf-grpo-colocate-2nodes",
            EstimateInput {
                gpus: Some(16.0),
                zero: 3.0,
                rl: Some(RlAlgorithm::Grpo),
                rollout: Some(Rollout::Colocate),
                rl_beta: Some(0.0),
                num_generations: Some(8.0),
                max_completion_length: Some(1024.0),
                rollout_memory_utilization: Some(0.6),
                fused_optimizer: true,
                grad_checkpointing: Checkpointing::Full,
                seq_len: 512.0,
                batch: 1.0,
                ..train(Some(Stack::Openrlhf))
            },
        ),
        (
            "openrlhf-dpo-4gpu",
            EstimateInput {
                gpus: Some(4.0),
                zero: 3.0,
                rl: Some(RlAlgorithm::Dpo),
                rl_beta: Some(0.1),
                max_completion_length: Some(512.0),
                fused_optimizer: true,
                grad_checkpointing: Checkpointing::Full,
                seq_len: 512.0,
                ..train(Some(Stack::Openrlhf))
            },
        ),
        // Unsloth's unsloth-cli.py: QLoRA on one GPU, Unsloth's checkpointing.
        (
            "unsloth-qlora",
            EstimateInput {
                lora_rank: 16.0,
                lora_targets: vec!["all-linear".into()],
                qlora: true,
                quantization: Quantization::BnbNf4 { double_quant: true },
                precision: Precision::Bf16,
                optimizer: Optimizer::Adamw8bit,
                grad_accum: Some(4.0),
                grad_checkpointing: Checkpointing::Full,
                ..train(Some(Stack::Unsloth))
            },
        ),
        (
            "axolotl-full-fsdp2-4gpu",
            EstimateInput {
                gpus: Some(4.0),
                zero: 3.0,
                fsdp_version: Some(2.0),
                precision: Precision::Bf16,
                grad_checkpointing: Checkpointing::Full,
                ..train(Some(Stack::Axolotl))
            },
        ),
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
