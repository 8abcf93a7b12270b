//! `vramfit launch` for the RL stacks and Unsloth: the script a user pastes and its `--json`
//! commands, the words the stacks' own parsers read (`tests/it/training_launch_parsed.rs`);
//! a refusal exits 2 naming the flag.

mod common;
use common::vramfit;

const GRPO: &[&str] = &[
    "launch",
    "--model",
    "meta-llama/Llama-3.1-8B",
    "--mode",
    "training",
    "--gpu",
    "h100-sxm5-80gb",
    "--stack",
    "openrlhf",
    "--gpus",
    "4",
    "--zero",
    "3",
    "--rl",
    "grpo",
    "--rollout",
    "colocate",
    "--rl-beta",
    "0.04",
    "--num-generations",
    "8",
    "--max-completion-length",
    "1024",
    "--rollout-memory-utilization",
    "0.4",
    "--sleep-mode",
    "true",
    "--fused-optimizer",
    "--grad-checkpointing",
    "--batch",
    "2",
    "--seq-len",
    "512",
];

/// OpenRLHF's GRPO: Ray's head, then the job; per GPU 2 prompts × 8 = 16 sequences, the rollout
/// 2 × 4 GPUs = 8 prompts, the training batch 16 × 4 = 64, the sequence 512 + 1024 = 1536.
#[test]
fn openrlhf_grpo_is_launched_under_ray() {
    let (code, out, err) = vramfit(GRPO);
    assert_eq!(code, 0, "{err}");
    // The fit is said first (this run is about 1 GiB over an 80 GB card), then the notes.
    assert!(
        out.starts_with("# Does not fit one NVIDIA H100 SXM5 80GB"),
        "{out}"
    );
    assert!(
        out.contains("ray start --head --port 6379\nray job submit"),
        "{out}"
    );
    let v = commands(GRPO);
    assert_eq!(
        v["commands"][0],
        serde_json::json!(["ray", "start", "--head", "--port", "6379"])
    );
    let job = line(&v["commands"][1]);
    assert!(
        job.starts_with("ray job submit --address http://127.0.0.1:8265 -- python3 -m openrlhf.cli.train_ppo_ray "),
        "{job}"
    );
    for part in [
        " --algo.advantage.estimator group_norm ",
        " --rollout.batch_size 8 ",
        " --rollout.n_samples_per_prompt 8 ",
        " --train.micro_batch_size 16 ",
        " --train.batch_size 64 ",
        " --data.max_len 1536 ",
        " --train.colocate_all ",
        " --vllm.gpu_memory_utilization 0.4 ",
        " --vllm.enable_sleep ",
    ] {
        assert!(job.contains(part), "{part}: {job}");
    }
    assert!(v["notes"][0]["zh"].as_str().is_some_and(|z| !z.is_empty()));
}

/// The `--json` launch of `args`.
fn commands(args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.push("--json");
    let (code, out, err) = vramfit(&a);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("one JSON object")
}

/// A command's words joined by spaces, with a space at the end.
fn line(argv: &serde_json::Value) -> String {
    let words: Vec<&str> = argv
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    words.join(" ") + " "
}

/// `--rollout hf`: OpenRLHF 0.11 generates with vLLM only, refused naming the flag.
#[test]
fn openrlhf_refuses_a_generation_without_vllm() {
    let mut args: Vec<&str> = GRPO
        .iter()
        .copied()
        .filter(|a| {
            ![
                "--rollout-memory-utilization",
                "0.4",
                "--sleep-mode",
                "true",
            ]
            .contains(a)
        })
        .collect();
    let i = args.iter().position(|a| *a == "colocate").unwrap();
    args[i] = "hf";
    let (code, _, err) = vramfit(&args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--rollout"), "{err}");
    assert!(err.contains("vLLM engines only"), "{err}");
}

/// Unsloth's `unsloth-cli.py`: QLoRA on one GPU in the script's words.
#[test]
fn unsloth_is_launched_by_its_cli_script() {
    let v = commands(&[
        "launch",
        "--model",
        "meta-llama/Llama-3.1-8B",
        "--mode",
        "training",
        "--gpu",
        "h100-sxm5-80gb",
        "--stack",
        "unsloth",
        "--lora-rank",
        "16",
        "--lora-targets",
        "all-linear",
        "--qlora",
        "--precision",
        "bf16",
        "--grad-checkpointing",
        "--batch",
        "2",
        "--seq-len",
        "2048",
    ]);
    assert_eq!(v["commands"].as_array().unwrap().len(), 1);
    assert_eq!(
        line(&v["commands"][0]),
        "python unsloth-cli.py --model_name meta-llama/Llama-3.1-8B --max_seq_length 2048 --r 16 \
         --lora_alpha 16 --use_gradient_checkpointing unsloth --per_device_train_batch_size 2 \
         --gradient_accumulation_steps 1 --optim adamw_torch --load_in_4bit "
    );
}
