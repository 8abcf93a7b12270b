//! OpenRLHF's and Unsloth's launches: each number the estimate counted, in the stack's own
//! flags, checked against a hand calculation; each setting the stack cannot say, refused with
//! its field named and in both languages. (The stacks' own parsers read these commands in
//! `tests/it/training_launch_parsed.rs`; verl's PPO reads back in `train_tests.rs`.)

use alloc::string::String;
use alloc::vec::Vec;

use super::{Launch, launch_input};
use crate::error::ErrorKind;
use crate::estimate::{
    Checkpointing, EstimateInput, Loss, Mode, Offload, Optimizer, Precision, RlAlgorithm, Rollout,
    Stack,
};
use crate::estimate::{HardwareInput, ModelInput, PlacementInput, RunInput, TrainingInput};
use crate::precision::Quantization;

const MODEL: &str = "meta-llama/Llama-3.1-8B";

/// GRPO on 4 GPUs with vLLM on them: 2 prompts per GPU, 8 completions each.
fn grpo() -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some(MODEL.into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 2.0,
            seq_len: 512.0,
            ..Default::default()
        },
        training: TrainingInput {
            stack: Some(Stack::Openrlhf),
            rl: Some(RlAlgorithm::Grpo),
            rollout: Some(Rollout::Colocate),
            rl_beta: Some(0.04),
            num_generations: Some(8.0),
            max_completion_length: Some(1024.0),
            rollout_memory_utilization: Some(0.5),
            sleep_mode: Some(true),
            fused_optimizer: true,
            grad_checkpointing: Checkpointing::Full,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        placement: PlacementInput {
            gpus: Some(4.0),
            zero: 3.0,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The word after `flag` in `argv`.
fn value<'a>(argv: &'a [String], flag: &str) -> Option<&'a str> {
    let i = argv.iter().position(|w| w == flag)?;
    argv.get(i + 1).map(String::as_str)
}

fn has(argv: &[String], flag: &str) -> bool {
    argv.iter().any(|w| w == flag)
}

/// Every note in both languages, the Chinese in Chinese.
fn bilingual(l: &Launch) {
    for n in &l.notes {
        assert!(!n.en.is_empty());
        assert!(
            n.zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
            "{}",
            n.zh
        );
    }
}

/// The refusal of `input`: Unsupported, naming `field`, in both languages.
fn refused_by(input: &EstimateInput, field: &str) {
    let e = launch_input(input).expect_err(field);
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e:?}");
    assert_eq!(e.field, field, "{e:?}");
    #[cfg(all(feature = "en", feature = "zh"))]
    {
        let (problem, _) = &**e.zh.as_ref().expect("a Chinese text");
        assert!(
            problem
                .chars()
                .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
        );
    }
}

/// GRPO colocated: Ray's head, then the job; per GPU 2 prompts × 8 = 16 sequences, so the
/// rollout batch is 2 × 4 GPUs = 8 prompts, the training batch 16 × 4 = 64 sequences in
/// micro-batches of 16 (one step per rollout); the sequence 512 + 1024 = 1536 tokens.
#[test]
fn openrlhf_grpo_says_the_estimate() {
    let l = launch_input(&grpo()).unwrap();
    assert_eq!(l.commands.len(), 2);
    assert_eq!(l.commands[0], ["ray", "start", "--head", "--port", "6379"]);
    let job = &l.commands[1];
    assert_eq!(
        job[..9],
        [
            "ray",
            "job",
            "submit",
            "--address",
            "http://127.0.0.1:8265",
            "--",
            "python3",
            "-m",
            "openrlhf.cli.train_ppo_ray"
        ]
    );
    for (flag, want) in [
        ("--actor.model_name_or_path", MODEL),
        ("--algo.advantage.estimator", "group_norm"),
        ("--rollout.batch_size", "8"),
        ("--rollout.n_samples_per_prompt", "8"),
        ("--rollout.micro_batch_size", "16"),
        ("--train.micro_batch_size", "16"),
        ("--train.batch_size", "64"),
        ("--data.max_len", "1536"),
        ("--rollout.max_new_tokens", "1024"),
        ("--vllm.num_engines", "4"),
        ("--vllm.tensor_parallel_size", "1"),
        ("--vllm.gpu_memory_utilization", "0.5"),
        ("--algo.kl.init_coef", "0.04"),
        ("--algo.kl.estimator", "k3"),
        ("--actor.num_gpus_per_node", "4"),
        ("--ref.num_gpus_per_node", "4"),
        ("--ds.zero_stage", "3"),
        ("--ds.param_dtype", "bf16"),
        ("--reward.remote_url", "reward_func.py"),
    ] {
        assert_eq!(value(job, flag), Some(want), "{flag}");
    }
    for flag in [
        "--train.colocate_all",
        "--vllm.enable_sleep",
        "--algo.kl.use_loss",
        "--actor.gradient_checkpointing_enable",
    ] {
        assert!(has(job, flag), "{flag}");
    }
    // No critic or reward model for GRPO, no DeepSpeed sleep (the estimate keeps the states).
    for flag in [
        "--critic.model_name_or_path",
        "--reward.model_name_or_path",
        "--ds.enable_sleep",
        "--ds.adam_offload",
    ] {
        assert!(!has(job, flag), "{flag}");
    }
    bilingual(&l);
}

/// PPO: the critic and reward model named, on the policy's GPUs with vLLM; GRPO with vLLM on
/// its own GPUs and the reference beside a LoRA policy (OpenRLHF loads it, LoRA or not); DPO
/// under DeepSpeed's launcher, 2 pairs per GPU × 4 GPUs = 8, sequences of 512 + 512.
#[test]
fn openrlhf_ppo_server_and_dpo() {
    let ppo = {
        let mut input = grpo();
        input.training.rl = Some(RlAlgorithm::Ppo);
        input.training.num_generations = None;
        input
    };
    let l = launch_input(&ppo).unwrap();
    let job = &l.commands[1];
    assert_eq!(value(job, "--algo.advantage.estimator"), Some("gae"));
    assert_eq!(value(job, "--critic.model_name_or_path"), Some(MODEL));
    assert_eq!(value(job, "--reward.model_name_or_path"), Some(MODEL));
    assert_eq!(value(job, "--critic.num_gpus_per_node"), Some("4"));
    assert_eq!(value(job, "--train.micro_batch_size"), Some("2"));
    assert!(!has(job, "--algo.kl.use_loss"));
    bilingual(&l);

    let server = {
        let mut input = grpo();
        input.training.rollout = Some(Rollout::Server);
        input.training.rollout_memory_utilization = None;
        input.training.sleep_mode = None;
        input.training.lora_rank = 16.0;
        input.training.lora_targets = alloc::vec!["q_proj".into(), "v_proj".into()];
        input.training.ref_model = Some(true);
        input.placement.zero = 2.0;
        input.placement.offload = Offload::Cpu;
        input
    };
    let l = launch_input(&server).unwrap();
    let job = &l.commands[1];
    assert!(has(job, "--train.colocate_actor_ref") && !has(job, "--train.colocate_all"));
    assert!(has(job, "--ds.adam_offload"));
    assert!(!has(job, "--vllm.gpu_memory_utilization"));
    assert_eq!(value(job, "--ds.lora.rank"), Some("16"));
    let i = job
        .iter()
        .position(|w| w == "--ds.lora.target_modules")
        .unwrap();
    assert_eq!(job[i + 1..i + 3], ["q_proj", "v_proj"]);
    bilingual(&l);

    let dpo = {
        let mut input = grpo();
        input.training.rl = Some(RlAlgorithm::Dpo);
        input.training.rollout = None;
        input.training.rollout_memory_utilization = None;
        input.training.sleep_mode = None;
        input.training.num_generations = None;
        input.training.rl_beta = Some(0.1);
        input.training.max_completion_length = Some(512.0);
        input
    };
    let l = launch_input(&dpo).unwrap();
    let argv = &l.commands[0];
    assert_eq!(
        argv[..5],
        [
            "deepspeed",
            "--num_gpus",
            "4",
            "--module",
            "openrlhf.cli.train_dpo"
        ]
    );
    for (flag, want) in [
        ("--model.model_name_or_path", MODEL),
        ("--ref.model_name_or_path", MODEL),
        ("--train.micro_batch_size", "2"),
        ("--train.batch_size", "8"),
        ("--data.max_len", "1024"),
        ("--model.beta", "0.1"),
    ] {
        assert_eq!(value(argv, flag), Some(want), "{flag}");
    }
    assert!(has(argv, "--model.gradient_checkpointing_enable"));
    bilingual(&l);
    // The estimate's foreach step, which DeepSpeed's FusedAdam does not take: said, over.
    assert!(!l.notes.iter().any(|n| n.en.contains("FusedAdam")));
    let foreach = EstimateInput {
        training: TrainingInput {
            fused_optimizer: false,
            ..dpo.training
        },
        ..dpo
    };
    let l = launch_input(&foreach).unwrap();
    assert!(l.notes.iter().any(|n| n.en.contains("FusedAdam")));
}

/// Over two nodes of 8: Ray's head on node 0, node 1 joins it, the job on the head; every model
/// group's nodes said.
#[test]
fn openrlhf_over_two_nodes() {
    let input = {
        let mut input = grpo();
        input.placement.gpus = Some(16.0);
        input.placement.gpus_per_node = Some(8.0);
        input
    };
    let l = launch_input(&input).unwrap();
    assert_eq!(l.commands.len(), 3);
    assert_eq!(l.commands[1], ["ray", "start", "--address", "HEAD_IP:6379"]);
    let job = &l.commands[2];
    assert_eq!(value(job, "--actor.num_nodes"), Some("2"));
    assert_eq!(value(job, "--ref.num_nodes"), Some("2"));
    assert_eq!(value(job, "--actor.num_gpus_per_node"), Some("8"));
    assert_eq!(value(job, "--vllm.num_engines"), Some("16"));
    // 2 prompts × 16 GPUs.
    assert_eq!(value(job, "--rollout.batch_size"), Some("32"));
    bilingual(&l);
}

/// What OpenRLHF cannot be told is refused by field.
#[test]
fn openrlhf_refuses_what_it_cannot_say() {
    let g = grpo;
    let cases: Vec<(EstimateInput, &str)> = alloc::vec![
        (
            {
                let mut input = g();
                input.training.rl = None;
                input.training.rollout = None;
                input.training.rl_beta = None;
                input.training.num_generations = None;
                input.training.max_completion_length = None;
                input.training.rollout_memory_utilization = None;
                input.training.sleep_mode = None;
                input
            },
            "rl"
        ),
        (
            {
                let mut input = g();
                input.training.rollout = Some(Rollout::Hf);
                input.training.rollout_memory_utilization = None;
                input.training.sleep_mode = None;
                input
            },
            "rollout"
        ),
        (
            {
                let mut input = g();
                input.training.rl = Some(RlAlgorithm::Ppo);
                input.training.num_generations = None;
                input.training.rollout = Some(Rollout::Server);
                input.training.rollout_memory_utilization = None;
                input.training.sleep_mode = None;
                input
            },
            "rollout"
        ),
        // A LoRA policy's base is the estimate's reference; OpenRLHF loads one anyway.
        (
            {
                let mut input = g();
                input.training.lora_rank = 16.0;
                input
            },
            "ref_model"
        ),
        (
            {
                let mut input = g();
                input.training.num_generations = Some(1.0);
                input
            },
            "num_generations"
        ),
        (
            {
                let mut input = g();
                input.placement.offload = Offload::Cpu;
                input
            },
            "offload"
        ),
        (
            {
                let mut input = g();
                input.serving.max_model_len = Some(4096.0);
                input
            },
            "max_model_len"
        ),
        (
            {
                let mut input = g();
                input.placement.fsdp_version = Some(2.0);
                input
            },
            "fsdp_version"
        ),
        (
            {
                let mut input = g();
                input.training.precision = Precision::Bf16;
                input
            },
            "precision"
        ),
        (
            {
                let mut input = g();
                input.training.loss = Some(Loss::Fused);
                input
            },
            "loss"
        ),
        (
            {
                let mut input = g();
                input.training.lora_rank = 16.0;
                input.training.ref_model = Some(true);
                input.training.qlora = true;
                input.model.quantization = Quantization::BnbNf4 { double_quant: true };
                input
            },
            "quantization"
        ),
        (
            {
                let mut input = g();
                input.training.rl = Some(RlAlgorithm::Dpo);
                input.training.rollout = None;
                input.training.rollout_memory_utilization = None;
                input.training.sleep_mode = None;
                input.training.num_generations = None;
                input.training.lora_rank = 16.0;
                input
            },
            "ref_model"
        ),
    ];
    for (input, field) in cases {
        refused_by(&input, field);
    }
}

/// Unsloth's QLoRA on one GPU.
fn unsloth() -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some(MODEL.into()),
            quantization: Quantization::BnbNf4 { double_quant: true },
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 2.0,
            seq_len: 2048.0,
            ..Default::default()
        },
        training: TrainingInput {
            stack: Some(Stack::Unsloth),
            lora_rank: 16.0,
            lora_targets: alloc::vec!["all-linear".into()],
            qlora: true,
            precision: Precision::Bf16,
            optimizer: Optimizer::Adamw8bit,
            grad_checkpointing: Checkpointing::Full,
            grad_accum: Some(4.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// `python unsloth-cli.py` with the run's words, in the script's spelling; below 512 tokens
/// Unsloth's checkpointing offloads nothing, so the run without offload is the one it says.
#[test]
fn unsloth_cli_says_the_estimate() {
    let l = launch_input(&unsloth()).unwrap();
    assert_eq!(l.commands.len(), 1);
    assert_eq!(
        l.commands[0],
        [
            "python",
            "unsloth-cli.py",
            "--model_name",
            MODEL,
            "--max_seq_length",
            "2048",
            "--r",
            "16",
            "--lora_alpha",
            "16",
            "--use_gradient_checkpointing",
            "unsloth",
            "--per_device_train_batch_size",
            "2",
            "--gradient_accumulation_steps",
            "4",
            "--optim",
            "adamw_bnb_8bit",
            "--load_in_4bit"
        ]
    );
    bilingual(&l);
    let short = {
        let mut input = unsloth();
        input.run.seq_len = 256.0;
        input.training.activation_offload = Some(false);
        input
    };
    assert!(launch_input(&short).is_ok());
    let full_base = {
        let mut input = unsloth();
        input.training.qlora = false;
        input.model.quantization = Quantization::None;
        input
    };
    assert!(!has(
        &launch_input(&full_base).unwrap().commands[0],
        "--load_in_4bit"
    ));
}

/// What unsloth-cli.py cannot say is refused by field.
#[test]
fn unsloth_refuses_what_its_script_cannot_say() {
    let u = unsloth;
    let cases: Vec<(EstimateInput, &str)> = alloc::vec![
        (
            {
                let mut input = u();
                input.training.lora_rank = 0.0;
                input.training.qlora = false;
                input.model.quantization = Quantization::None;
                input
            },
            "lora_rank"
        ),
        (
            {
                let mut input = u();
                input.training.lora_targets = alloc::vec!["q_proj".into()];
                input
            },
            "lora_rank"
        ),
        (
            {
                let mut input = u();
                input.training.precision = Precision::AmpBf16;
                input
            },
            "precision"
        ),
        (
            {
                let mut input = u();
                input.training.loss = Some(Loss::Full);
                input
            },
            "loss"
        ),
        (
            {
                let mut input = u();
                input.training.grad_checkpointing = Checkpointing::None;
                input
            },
            "grad_checkpointing"
        ),
        // Below 512 tokens "unsloth" offloads nothing: the stack's offload cannot be said.
        (
            {
                let mut input = u();
                input.run.seq_len = 256.0;
                input
            },
            "grad_checkpointing"
        ),
        (
            {
                let mut input = u();
                input.placement.gpus = Some(2.0);
                input
            },
            "gpus"
        ),
        (
            {
                let mut input = u();
                input.model.quantization = Quantization::BnbNf4 {
                    double_quant: false,
                };
                input
            },
            "quantization"
        ),
    ];
    for (input, field) in cases {
        refused_by(&input, field);
    }
}
