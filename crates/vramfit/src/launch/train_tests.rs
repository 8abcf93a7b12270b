//! The training launches read back: every file a launch writes, read by the stack readers
//! (`stack_config`) as `vramfit estimate --config` reads them, gives the estimate the launch
//! was written from, to the byte, over a grid of stacks and settings; the settings a stack
//! cannot say are refused with their field named. The stacks' own parsers read the files too
//! (`tests/it/training_launch_parsed.rs`).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{Launch, launch_input};
use crate::error::ErrorKind;
use crate::estimate::{
    AttentionImpl, Checkpointing, EstimateInput, Loss, Mode, Offload, Optimizer, Precision, Stack,
    estimate,
};
use crate::estimate::{HardwareInput, ModelInput, PlacementInput, RunInput};
use crate::precision::Quantization;
use crate::stack_config::read_training_config;

fn base() -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 2.0,
            seq_len: 2048.0,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The launch's files read as the CLI reads `--config FILE`: the first file, then each file it
/// names, from the launch; the GPUs given on the command line where no file says them.
fn read_back(l: &Launch, gpus: Option<f64>) -> EstimateInput {
    let start = EstimateInput {
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        placement: PlacementInput {
            gpus,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut queue: Vec<String> = alloc::vec![l.files[0].name.clone()];
    let mut input = start;
    while let Some(name) = queue.pop() {
        let file = l
            .files
            .iter()
            .find(|f| f.name == name)
            .expect("a file it names");
        let read = read_training_config(&file.text, input)
            .unwrap_or_else(|e| panic!("{name} does not read back: {e:?}\n{}", file.text));
        input = read.input;
        queue.extend(read.files.into_iter().map(|f| f.path));
    }
    input
}

/// The same estimate, every figure: what a launch must keep.
fn same_estimate(a: &EstimateInput, b: &EstimateInput, what: &str) {
    let (x, y) = (estimate(a).unwrap(), estimate(b).unwrap());
    assert_eq!(x.peak_allocated_bytes, y.peak_allocated_bytes, "{what}");
    assert_eq!(x.total_bytes, y.total_bytes, "{what}");
    let parts = |e: &crate::estimate::Estimate| -> Vec<(String, u64)> {
        e.components
            .iter()
            .map(|c| (alloc::format!("{:?}", c.key), c.bytes.get()))
            .collect()
    };
    assert_eq!(parts(&x), parts(&y), "{what}");
}

/// Every setting of the grid: a stack, a precision, an adapter, sharding and the savers.
fn grid() -> Vec<EstimateInput> {
    let stacks = [
        None,
        Some(Stack::Trl),
        Some(Stack::Llamafactory),
        Some(Stack::Axolotl),
    ];
    let precisions = [
        Precision::AmpBf16,
        Precision::Bf16,
        Precision::AmpFp16,
        Precision::Fp32,
    ];
    // (lora rank, targets, base)
    let adapters: [(f64, &[&str], Quantization); 4] = [
        (0.0, &[], Quantization::None),
        (16.0, &[], Quantization::None),
        (
            32.0,
            &["all-linear"],
            Quantization::BnbNf4 { double_quant: true },
        ),
        (
            8.0,
            &["q_proj", "k_proj", "v_proj", "o_proj"],
            Quantization::BnbInt8,
        ),
    ];
    // (gpus, zero, offload, fsdp version)
    let shardings: [(f64, f64, Offload, Option<f64>); 7] = [
        (1.0, 0.0, Offload::None, None),
        (4.0, 0.0, Offload::None, None),
        (4.0, 2.0, Offload::None, None),
        (8.0, 3.0, Offload::Cpu, None),
        // `offload_optimizer` without `offload_param`, read back as the same choice.
        (4.0, 3.0, Offload::OptimizerCpu, None),
        (4.0, 3.0, Offload::None, Some(2.0)),
        (4.0, 2.0, Offload::Cpu, Some(1.0)),
    ];
    let mut out = Vec::new();
    for (i, stack) in stacks.iter().enumerate() {
        for (j, precision) in precisions.iter().enumerate() {
            for (k, (rank, targets, q)) in adapters.iter().enumerate() {
                for (n, (gpus, zero, offload, fsdp)) in shardings.iter().enumerate() {
                    let turn = i + j + k + n;
                    let mut input = {
                        let mut input = base();
                        input.training.stack = *stack;
                        input.training.precision = *precision;
                        input.training.lora_rank = *rank;
                        input.training.lora_targets =
                            targets.iter().map(|t| t.to_string()).collect();
                        input.training.qlora = matches!(q, Quantization::BnbNf4 { .. });
                        input.model.quantization = *q;
                        input.placement.gpus = Some(*gpus);
                        input.placement.zero = *zero;
                        input.placement.offload = *offload;
                        input.placement.fsdp_version = *fsdp;
                        input.training.grad_checkpointing = if turn % 2 == 0 {
                            Checkpointing::Full
                        } else {
                            Checkpointing::None
                        };
                        input.training.optimizer = [
                            Optimizer::Adamw,
                            Optimizer::Adamw8bit,
                            Optimizer::PagedAdamw8bit,
                            Optimizer::Lion,
                        ][turn % 4];
                        input.training.fused_optimizer = turn % 3 == 0;
                        input.training.loss = (turn % 5 == 0).then_some(Loss::Fused);
                        input.training.packing = turn % 3 == 1;
                        input.run.attention = if turn % 7 == 3 {
                            AttentionImpl::Eager
                        } else {
                            AttentionImpl::Sdpa
                        };
                        input
                    };
                    if turn % 6 == 2 {
                        input.training.activation_offload = Some(true);
                    }
                    out.push(input);
                }
            }
        }
    }
    out
}

/// Every launch of the grid reads back into its own estimate; what is refused is refused as
/// unsupported, naming a field.
#[test]
fn every_training_launch_reads_back_into_its_estimate() {
    let mut launched = [0usize; 4];
    let mut refused = [0usize; 4];
    for input in grid() {
        let slot = match input.training.stack {
            None => 0,
            Some(Stack::Trl) => 1,
            Some(Stack::Llamafactory) => 2,
            _ => 3,
        };
        if estimate(&input).is_err() {
            continue;
        }
        match launch_input(&input) {
            Ok(l) => {
                // TRL's file carries the processes; the others' GPUs are the ones visible.
                let gpus = (slot >= 2).then_some(input.placement.gpus).flatten();
                let back = read_back(&l, gpus);
                same_estimate(&input, &back, &alloc::format!("{input:?}\n{}", l.script));
                launched[slot] += 1;
            }
            Err(e) => {
                assert_eq!(e.kind, ErrorKind::Unsupported, "{e:?}");
                assert!(!e.field.is_empty());
                refused[slot] += 1;
            }
        }
    }
    // The grid's 96 runs per stack hold settings each stack cannot say (a fused step beside
    // Lion, FSDP for LLaMA-Factory, AMP bf16 for axolotl): a third of each is still launched.
    for slot in 0..4 {
        assert!(
            launched[slot] * 3 > launched[slot] + refused[slot],
            "stack {slot}: {} launched, {} refused",
            launched[slot],
            refused[slot]
        );
    }
}

/// RL runs in TRL: GRPO with each rollout, with and without a reference (`beta`), full or
/// LoRA; DPO with and without its reference's log-probabilities precomputed. GRPO's prompt
/// length is the data's, so it is given on reading back (`--seq-len`), as the launch's note says.
#[test]
fn rl_launches_read_back_into_their_estimates() {
    use crate::estimate::{RlAlgorithm, Rollout};
    let mut launched = 0;
    for (algorithm, rollout, beta, rank, reference) in [
        (RlAlgorithm::Grpo, Some(Rollout::Hf), 0.0, 0.0, None),
        (RlAlgorithm::Grpo, Some(Rollout::Colocate), 0.04, 0.0, None),
        (RlAlgorithm::Grpo, Some(Rollout::Colocate), 0.0, 16.0, None),
        (RlAlgorithm::Grpo, Some(Rollout::Server), 0.04, 16.0, None),
        (RlAlgorithm::Dpo, None, 0.1, 0.0, None),
        (RlAlgorithm::Dpo, None, 0.1, 16.0, None),
        (RlAlgorithm::Dpo, None, 0.1, 0.0, Some(false)),
    ] {
        let input = {
            let mut input = base();
            input.model.model = Some("Qwen/Qwen3-8B".into());
            input.training.rl = Some(algorithm);
            input.training.rollout = rollout;
            input.training.rl_beta = Some(beta);
            input.training.ref_model = reference;
            input.training.lora_rank = rank;
            input.training.num_generations = (algorithm == RlAlgorithm::Grpo).then_some(4.0);
            input.training.max_completion_length = Some(1024.0);
            input.training.rollout_memory_utilization =
                (rollout == Some(Rollout::Colocate)).then_some(0.4);
            input.training.sleep_mode = (rollout == Some(Rollout::Colocate)).then_some(true);
            input.training.grad_checkpointing = Checkpointing::Full;
            input.run.seq_len = 512.0;
            input
        };
        let l = launch_input(&input).unwrap_or_else(|e| panic!("{input:?}: {e:?}"));
        let argv0 = if algorithm == RlAlgorithm::Grpo {
            "grpo"
        } else {
            "dpo"
        };
        assert_eq!(l.commands[0][1], argv0);
        let mut back = read_back(&l, None);
        if algorithm == RlAlgorithm::Grpo {
            back.run.seq_len = input.run.seq_len;
        }
        same_estimate(&input, &back, &alloc::format!("{input:?}\n{}", l.script));
        launched += 1;
    }
    assert_eq!(launched, 7);
}

/// Over several nodes: one command per node, each with its rank and the head's address in the
/// launcher's words, the files the same for every node; the files read back into the estimate
/// (the GPUs given where the stack's file does not carry them), whose nodes are the launch's.
#[test]
fn multi_node_launches_name_each_node_and_read_back() {
    for (stack, zero, fsdp, precision) in [
        (None, 3.0, Some(2.0), Precision::AmpBf16),
        (Some(Stack::Trl), 2.0, None, Precision::AmpBf16),
        (Some(Stack::Llamafactory), 3.0, None, Precision::AmpBf16),
        (Some(Stack::Axolotl), 3.0, Some(2.0), Precision::Bf16),
    ] {
        for nodes in [2u64, 4] {
            let input = {
                let mut input = base();
                input.training.stack = stack;
                input.placement.gpus = Some((8 * nodes) as f64);
                input.placement.zero = zero;
                input.placement.fsdp_version = fsdp;
                input.training.precision = precision;
                input.training.grad_checkpointing = Checkpointing::Full;
                input
            };
            let what = alloc::format!("{stack:?} on {nodes} nodes");
            let l = launch_input(&input).unwrap_or_else(|e| panic!("{what}: {e:?}"));
            assert_eq!(l.commands.len() as u64, nodes, "{what}");
            for (rank, argv) in l.commands.iter().enumerate() {
                let words = argv.join(" ");
                let rank_words = if stack == Some(Stack::Llamafactory) {
                    alloc::format!(
                        "NNODES={nodes} NODE_RANK={rank} MASTER_ADDR=HEAD_IP MASTER_PORT=29500"
                    )
                } else {
                    alloc::format!(
                        "--num_machines {nodes} --machine_rank {rank} --main_process_ip HEAD_IP --main_process_port 29500"
                    )
                };
                assert!(words.contains(&rank_words), "{what}: {words}");
                assert!(
                    l.script
                        .contains(&alloc::format!("# on node {rank} of {nodes}")),
                    "{what}"
                );
            }
            if stack == Some(Stack::Axolotl) {
                let total = alloc::format!("-- --num_processes {}", 8 * nodes);
                assert!(l.commands[0].join(" ").contains(&total), "{what}");
            }
            let env = |name: &str| {
                l.env
                    .iter()
                    .find(|e| e.name == name)
                    .map(|e| e.value.clone())
            };
            if stack == Some(Stack::Llamafactory) {
                assert_eq!(env("NPROC_PER_NODE").as_deref(), Some("8"), "{what}");
            }
            if matches!(stack, Some(Stack::Llamafactory | Stack::Axolotl)) {
                assert_eq!(
                    env("CUDA_VISIBLE_DEVICES").as_deref(),
                    Some("0,1,2,3,4,5,6,7"),
                    "{what}"
                );
            }
            let gpus = matches!(stack, Some(Stack::Llamafactory | Stack::Axolotl))
                .then_some(input.placement.gpus)
                .flatten();
            let back = read_back(&l, gpus);
            same_estimate(&input, &back, &alloc::format!("{what}\n{}", l.script));
            let (a, b) = (estimate(&input).unwrap(), estimate(&back).unwrap());
            assert_eq!((a.nodes, b.nodes), (nodes, nodes), "{what}");
            assert_eq!(
                a.throughput.and_then(|t| t.step_time_s),
                b.throughput.and_then(|t| t.step_time_s),
                "{what}"
            );
        }
    }
}

/// The `deepspeed` stack: TRL's script as a module under DeepSpeed's own launcher, `--num_gpus`
/// on one node, `--hostfile` with a line per node over several (one command, on the head); the
/// files read back into the same estimate; FSDP or no ZeRO refused by field.
#[test]
fn deepspeed_launcher_over_a_hostfile_reads_back() {
    for nodes in [1u64, 2, 4] {
        let input = {
            let mut input = base();
            input.training.stack = Some(Stack::Deepspeed);
            input.placement.gpus = Some((8 * nodes) as f64);
            input.placement.zero = 3.0;
            input.placement.offload = Offload::Cpu;
            input.training.grad_checkpointing = Checkpointing::Full;
            input
        };
        let l = launch_input(&input).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(l.commands.len(), 1);
        let words = l.commands[0].join(" ");
        if nodes == 1 {
            assert_eq!(
                words,
                "deepspeed --num_gpus 8 --module trl.scripts.sft --config train.yaml"
            );
        } else {
            assert_eq!(
                words,
                "deepspeed --hostfile hostfile --master_addr HEAD_IP --master_port 29500 --module trl.scripts.sft --config train.yaml"
            );
            let hostfile = l.files.iter().find(|f| f.name == "hostfile").unwrap();
            assert_eq!(hostfile.text.lines().count() as u64, nodes);
            assert!(hostfile.text.starts_with("node0 slots=8\nnode1 slots=8\n"));
        }
        // No `num_processes`: the launcher, not accelerate, starts the processes.
        assert!(!l.files[0].text.contains("num_processes"));
        let back = read_back(&l, input.placement.gpus);
        same_estimate(&input, &back, &l.script);
    }
    for (zero, fsdp) in [(0.0, None), (3.0, Some(2.0))] {
        let e = launch_input(&{
            let mut input = base();
            input.training.stack = Some(Stack::Deepspeed);
            input.placement.gpus = Some(8.0);
            input.placement.zero = zero;
            input.placement.fsdp_version = fsdp;
            input
        })
        .unwrap_err();
        assert_eq!(e.field, "zero", "{e:?}");
    }
}

/// The trainer's command of a launch (after Ray's `ray start` lines), as a user pastes it,
/// read back by `read_command` with the card given.
fn command_back(l: &Launch, gpu: &Option<String>) -> (EstimateInput, Vec<String>) {
    let argv = l.commands.iter().find(|c| c[0] != "ray").unwrap();
    let text = super::command_text(argv);
    let read = super::read_command(&text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    let mut back = read.input;
    back.hardware.gpu = gpu.clone();
    (back, read.not_read)
}

/// torchtune's `tune run` over a grid (full, LoRA, QLoRA; one GPU and FSDP2 over four; the
/// savers, the losses, the optimizers): every command read back gives the estimate it was
/// written from; the rest is refused with its field named.
#[test]
fn torchtune_commands_read_back_into_their_estimates() {
    let (mut launched, mut refused) = (0, 0);
    for rank in [0.0, 16.0] {
        for qlora in [false, true] {
            for gpus in [1.0, 4.0] {
                for ckpt in [Checkpointing::None, Checkpointing::Full] {
                    for offload_acts in [false, true] {
                        for loss in [None, Some(Loss::Full)] {
                            for (optimizer, fused, in_bwd) in [
                                (Optimizer::Adamw, false, false),
                                (Optimizer::Adamw, true, false),
                                (Optimizer::PagedAdamw8bit, false, false),
                                (Optimizer::Adamw, false, true),
                            ] {
                                let input = {
                                    let mut input = base();
                                    input.training.stack = Some(Stack::Torchtune);
                                    input.training.precision = Precision::Bf16;
                                    input.training.lora_rank = rank;
                                    input.training.qlora = qlora;
                                    input.model.quantization = if qlora {
                                        Quantization::TorchaoNf4
                                    } else {
                                        Quantization::None
                                    };
                                    input.placement.gpus = Some(gpus);
                                    input.placement.zero =
                                        if gpus > 1.0 && !in_bwd { 3.0 } else { 0.0 };
                                    input.placement.fsdp_version =
                                        (gpus > 1.0 && !in_bwd).then_some(2.0);
                                    input.training.grad_checkpointing = ckpt;
                                    input.training.activation_offload = Some(offload_acts);
                                    input.training.loss = loss;
                                    input.training.optimizer = optimizer;
                                    input.training.fused_optimizer = fused;
                                    input.training.optimizer_in_backward = in_bwd;
                                    input
                                };
                                if estimate(&input).is_err() {
                                    continue;
                                }
                                match launch_input(&input) {
                                    Ok(l) => {
                                        let (back, _) = command_back(&l, &input.hardware.gpu);
                                        same_estimate(
                                            &input,
                                            &back,
                                            &alloc::format!("{input:?}\n{}", l.script),
                                        );
                                        launched += 1;
                                    }
                                    Err(e) => {
                                        assert_eq!(e.kind, ErrorKind::Unsupported, "{e:?}");
                                        assert!(!e.field.is_empty());
                                        refused += 1;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(launched > refused, "{launched} launched, {refused} refused");
}

/// torchao's CPUOffloadOptimizer on one GPU, and torchtune's FSDP2 on four GPUs named by no
/// `zero` or `fsdp_version`: written as torchtune's overrides and read back into the same
/// estimate.
#[test]
fn torchtune_cpu_offload_and_default_fsdp2_read_back() {
    for (gpus, offload, words) in [
        (
            1.0,
            Offload::OptimizerCpu,
            "optimizer.offload_gradients=False",
        ),
        (1.0, Offload::Cpu, "optimizer.offload_gradients=True"),
        (4.0, Offload::None, "fsdp_reshard_after_forward=True"),
    ] {
        let mut input = base();
        input.training.stack = Some(Stack::Torchtune);
        input.training.precision = Precision::Bf16;
        input.training.fused_optimizer = true;
        input.placement.gpus = Some(gpus);
        input.placement.offload = offload;
        let l = launch_input(&input).unwrap();
        assert!(l.script.contains(words), "{}", l.script);
        if gpus == 1.0 {
            assert!(
                l.script
                    .contains("optimizer._component_=torchao.optim.CPUOffloadOptimizer"),
                "{}",
                l.script
            );
        }
        let (back, _) = command_back(&l, &input.hardware.gpu);
        same_estimate(&input, &back, &l.script);
    }
}

/// The written launches of torchtune, verl and the fsdp stack estimate "fits" when read back,
/// as the run they were written from; the words they carry that set nothing are listed.
#[test]
fn stack_launches_read_back_fit() {
    use crate::estimate::RlAlgorithm;
    let tt = {
        let mut input = base();
        input.training.stack = Some(Stack::Torchtune);
        input.training.precision = Precision::Bf16;
        input.training.lora_rank = 16.0;
        input.training.grad_checkpointing = Checkpointing::Full;
        input
    };
    let tt_nodes = {
        let mut input = tt.clone();
        input.model.model = Some("meta-llama/Llama-3.1-70B".into());
        input.training.lora_rank = 0.0;
        input.placement.gpus = Some(16.0);
        input.placement.gpus_per_node = Some(8.0);
        input.placement.zero = 3.0;
        input.placement.fsdp_version = Some(2.0);
        input
    };
    let verl = {
        let mut input = base();
        input.training.stack = Some(Stack::Verl);
        input.training.rl = Some(RlAlgorithm::Grpo);
        input.placement.gpus = Some(8.0);
        input.placement.zero = 3.0;
        input.placement.fsdp_version = Some(2.0);
        input.training.num_generations = Some(4.0);
        input.training.max_completion_length = Some(1024.0);
        input.training.rl_beta = Some(0.001);
        input.training.grad_checkpointing = Checkpointing::Full;
        input.run.seq_len = 512.0;
        input
    };
    let verl_nodes = {
        let mut input = verl.clone();
        input.placement.gpus = Some(16.0);
        input.placement.gpus_per_node = Some(8.0);
        input
    };
    // PPO: `gae` with the critic (`critic.*`), read back as PPO.
    let verl_ppo = {
        let mut input = verl.clone();
        input.training.rl = Some(RlAlgorithm::Ppo);
        input.training.num_generations = None;
        input
    };
    let l = launch_input(&verl_ppo).unwrap();
    let argv = &l.commands[0];
    for word in [
        "algorithm.adv_estimator=gae",
        "critic.model.path=meta-llama/Llama-3.1-8B",
        "critic.strategy=fsdp2",
        "critic.ppo_micro_batch_size_per_gpu=2",
        "critic.model.use_remove_padding=false",
    ] {
        assert!(argv.iter().any(|w| w == word), "{word}: {argv:?}");
    }
    for input in [tt, tt_nodes, verl, verl_nodes, verl_ppo] {
        let e = estimate(&input).unwrap();
        assert!(e.fit.as_ref().unwrap().fits, "{input:?}");
        let l = launch_input(&input).unwrap();
        let (back, not_read) = command_back(&l, &input.hardware.gpu);
        same_estimate(&input, &back, &l.script);
        assert!(estimate(&back).unwrap().fit.unwrap().fits);
        assert!(
            not_read
                .iter()
                .any(|w| w == "--config" || w.starts_with("data.")),
            "{not_read:?}"
        );
    }
    let fsdp = {
        let mut input = base();
        input.training.stack = Some(Stack::Fsdp);
        input.placement.gpus = Some(4.0);
        input.placement.zero = 3.0;
        input.placement.fsdp_version = Some(2.0);
        input.training.grad_checkpointing = Checkpointing::Full;
        input
    };
    assert!(estimate(&fsdp).unwrap().fit.unwrap().fits);
    let l = launch_input(&fsdp).unwrap();
    assert!(
        l.files[1]
            .text
            .contains("fsdp_activation_checkpointing: true")
    );
    let back = read_back(&l, None);
    same_estimate(&fsdp, &back, &l.script);
    // The fsdp stack without FSDP is refused by field.
    let plain = {
        let mut input = base();
        input.training.stack = Some(Stack::Fsdp);
        input.placement.gpus = Some(4.0);
        input
    };
    assert_eq!(launch_input(&plain).unwrap_err().field, "fsdp_version");
}

/// Odd `tune run` and `main_ppo` lines are read or refused, never a panic; unknown words are
/// listed, never dropped.
#[test]
fn odd_stack_command_lines_are_read_or_refused() {
    for line in [
        "tune run",
        "tune run --nnodes",
        "tune run --nproc_per_node 0 full_finetune_distributed",
        "tune run lora_finetune_single_device --config",
        "tune run x --config c a=1 a.b=2",
        "tune run x --config c 'a.b=x: y' '..=1' '=' '~a' 'model.x=\n- 1'",
        "python3 -m verl.trainer.main_ppo",
        "python3 -m verl.trainer.main_ppo +a.b=1 ++c=2 '~d' e 'f.g=[1,2'",
        "python3 -m verl.trainer.main_ppo actor_rollout_ref.model.path=meta-llama/Llama-3.1-8B unknown.key=3 --flag",
    ] {
        let read = super::read_command(line);
        if line.contains("unknown.key") {
            let r = read.unwrap();
            assert!(
                r.not_read.iter().any(|w| w == "unknown.key=3"),
                "{:?}",
                r.not_read
            );
            assert!(r.not_read.iter().any(|w| w == "--flag"), "{:?}", r.not_read);
        }
    }
}

/// `lora_dropout` in each stack's words where the estimate's differs from the stack's default
/// (TRL's 0.05, the others' 0), read back into the same estimate.
#[test]
fn lora_dropout_is_written_where_the_stack_would_differ() {
    let lora = |stack, p| {
        let mut input = base();
        input.training.lora_rank = 16.0;
        input.training.lora_targets = alloc::vec!["all-linear".into()];
        input.training.lora_dropout = p;
        input.training.stack = stack;
        input
    };
    // TRL: 0 stated (no stack counts 0), nothing where TRL's own 0.05 is counted.
    let l = launch_input(&lora(None, None)).unwrap();
    assert!(
        l.files[0].text.contains("lora_dropout: 0\n"),
        "{}",
        l.files[0].text
    );
    same_estimate(&lora(None, None), &read_back(&l, None), "TRL, 0");
    let l = launch_input(&lora(Some(Stack::Trl), None)).unwrap();
    assert!(
        !l.files[0].text.contains("lora_dropout"),
        "{}",
        l.files[0].text
    );
    for stack in [
        Some(Stack::Trl),
        Some(Stack::Llamafactory),
        Some(Stack::Axolotl),
    ] {
        let mut input = lora(stack, Some(0.1));
        if stack == Some(Stack::Axolotl) {
            // axolotl's bf16 is pure bf16.
            input.training.precision = Precision::Bf16;
        }
        let l = launch_input(&input).unwrap();
        assert!(
            l.files[0].text.contains("lora_dropout: 0.1\n"),
            "{}",
            l.files[0].text
        );
        let gpus = (stack != Some(Stack::Trl))
            .then_some(input.placement.gpus)
            .flatten();
        same_estimate(&input, &read_back(&l, gpus), &alloc::format!("{stack:?}"));
    }
    // torchtune: a `model.lora_dropout=0.1` override on `tune run`, read back.
    let input = {
        let mut input = lora(Some(Stack::Torchtune), Some(0.1));
        input.training.precision = Precision::Bf16;
        input.training.lora_targets = Vec::new();
        input
    };
    let l = launch_input(&input).unwrap();
    assert!(l.script.contains("model.lora_dropout=0.1"), "{}", l.script);
    let (back, _) = command_back(&l, &input.hardware.gpu);
    assert_eq!(back.training.lora_dropout, Some(0.1));
    same_estimate(&input, &back, "torchtune");
}
