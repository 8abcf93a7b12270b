//! The `vramfit estimate` contract: JSON fields, exit codes, messages that name the flag.

mod common;
use common::vramfit;

fn json(args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.push("--json");
    let (code, out, err) = vramfit(&a);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("one JSON object")
}

#[test]
fn json_has_the_contract_fields() {
    let v = json(&["estimate", "--params", "7B", "--dtype", "fp16"]);
    for k in [
        "weights_bytes",
        "kv_cache_bytes",
        "activations_bytes",
        "gradients_bytes",
        "optimizer_bytes",
        "overhead_bytes",
        "peak_allocated_bytes",
        "total_bytes",
        "recommended_bytes",
        "params",
    ] {
        assert!(v[k].is_u64(), "{k}: {}", v[k]);
    }
    // The guide: 7B fp16 weights = 7e9 × 2 B = 14 GB.
    assert_eq!(v["weights_bytes"], 14_000_000_000u64);
    assert_eq!(v["params"], 7_000_000_000u64);
}

#[test]
fn guide_training_example() {
    // §6 Q1: 7B training ≈ 14 × 3.5 = 49 GB; M_rec = 1.2 × (49 + 2) = 61.2 GB.
    let v = json(&[
        "estimate", "--params", "7B", "--mode", "training", "--dtype", "fp16",
    ]);
    assert_eq!(v["quick"]["theory_bytes"], 49_000_000_000u64);
    assert_eq!(v["quick"]["recommended_bytes"], 61_200_000_000u64);
}

#[test]
fn bad_input_exits_2_naming_the_flag() {
    for (args, flag) in [
        (
            vec!["estimate", "--params", "7B", "--batch", "0"],
            "--batch",
        ),
        (
            vec!["estimate", "--params", "7B", "--seq-len", "-5"],
            "--seq-len",
        ),
        (vec!["estimate", "--params", "seven"], "--params"),
        (
            vec!["estimate", "--params", "7B", "--gpu-memory", "80"],
            "--gpu-memory",
        ),
        (
            vec!["estimate", "--params", "7B", "--quantization", "q9"],
            "--quantization",
        ),
        (
            vec![
                "estimate",
                "--params",
                "7B",
                "--gpu-memory-utilization",
                "1.5",
            ],
            "--gpu-memory-utilization",
        ),
        (
            vec!["estimate", "--params", "7B", "--batch", "abc"],
            "--batch",
        ),
        (
            vec![
                "estimate",
                "--model",
                "meta-llama/Llama-3.1-8B",
                "--mode",
                "training",
                "--lora-rank",
                "16",
                "--lora-dropout",
                "1",
            ],
            "--lora-dropout",
        ),
        (vec!["estimate"], "--model"),
        // Every flag in range, the run past 8 PiB: 64 × 32 heads × (2^24)^2 × 6 B = 3 × 2^61 B
        // of eager attention scores (bf16 and the fp32 softmax) alone.
        (
            vec![
                "estimate",
                "--model",
                "meta-llama/Llama-3.1-8B",
                "--engine",
                "hf",
                "--attention",
                "eager",
                "--batch",
                "64",
                "--seq-len",
                "16777216",
            ],
            "--batch × --seq-len",
        ),
    ] {
        let (code, _, err) = vramfit(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(flag), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn an_unknown_model_says_where_the_presets_are_listed() {
    let (code, _, err) = vramfit(&["estimate", "--model", "llama"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("and 9 more (`vramfit models llama` lists them all)"),
        "{err}"
    );
    let (_, _, err) = vramfit(&["estimate", "--model", "zzz"]);
    assert!(
        err.contains("or a bare parameter count (params, e.g. 7B) (`vramfit models` lists them)"),
        "{err}"
    );
}

#[test]
fn table_writes_units() {
    let (code, out, _) = vramfit(&["estimate", "--params", "13B", "--dtype", "bf16"]);
    assert_eq!(code, 0);
    assert!(out.contains("GiB"));
    assert!(out.contains("1.2 × (M_theory + 2 GB)"));
    // The phase of the peak in words: a bare count, its cache counted from the shape assumed
    // for it, and a preset's inference peak in the prompt's forward pass here (2048 prompt
    // tokens against 256 new); foreach AdamW training at its step.
    assert!(
        out.contains("(torch.cuda.max_memory_allocated(), at the input's forward pass)"),
        "{out}"
    );
    assert!(out.contains("(assumed)"), "{out}");
    for (mode, phase) in [
        ("inference", "the input's forward pass"),
        ("training", "the optimizer step"),
    ] {
        let (_, out, _) = vramfit(&[
            "estimate",
            "--model",
            "meta-llama/Llama-3.1-8B",
            "--mode",
            mode,
        ]);
        assert!(
            out.contains(&format!("(torch.cuda.max_memory_allocated(), at {phase})")),
            "{out}"
        );
    }
}

#[test]
fn recommend_estimates_each_layout() {
    let v = json(&[
        "recommend",
        "--model",
        "meta-llama/Llama-3.1-70B",
        "--seq-len",
        "4096",
        "--limit",
        "50",
    ]);
    let one = v["estimate"]["required_bytes"].as_u64().unwrap();
    let opts = v["options"].as_array().unwrap();
    assert!(!opts.is_empty());
    let mut last = 0.0;
    for o in opts {
        // Cheapest first, each option fits: margin = usable − per-GPU need ≥ 0.
        let price = o["price_per_hour"].as_f64().unwrap();
        assert!(price >= last);
        last = price;
        let per_gpu = o["per_gpu_bytes"].as_u64().unwrap();
        assert!(o["usable_bytes"].as_u64().unwrap() >= per_gpu);
        // A single card must hold the whole one-GPU requirement; splits hold less per GPU.
        if o["count"].as_u64() == Some(1)
            && o["parallelism"]
                .as_str()
                .is_some_and(|p| p.contains("1 GPU"))
        {
            assert_eq!(per_gpu, one);
        }
    }
}

#[test]
fn mig_packs_the_guides_example_from_model_estimates() {
    // §5.3: a 13B debug job and two 7B inference jobs on one A100-80GB as 3g.40gb + 2 × 2g.20gb,
    // about 5 ¥/h.
    let v = json(&[
        "mig",
        "--gpu",
        "a100-sxm4-80gb",
        "--job-model",
        "meta-llama/Llama-2-13b-hf",
        "--job-model",
        "meta-llama/Llama-2-7b-hf",
        "--job-model",
        "meta-llama/Llama-2-7b-hf",
        "--currency",
        "CNY",
    ]);
    let cards = v["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 1);
    let mut profiles: Vec<&str> = cards[0]["slices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["profile"].as_str().unwrap())
        .collect();
    profiles.sort_unstable();
    assert_eq!(profiles, ["2g.20gb", "2g.20gb", "3g.40gb"]);
    assert_eq!(v["cost_per_hour"].as_f64(), Some(5.0));
}

#[test]
fn estimate_with_a_card_solves_batch_and_context() {
    let v = json(&[
        "estimate",
        "--model",
        "meta-llama/Llama-3.1-8B",
        "--gpu",
        "a100-sxm4-40gb",
        "--seq-len",
        "4096",
        "--new-tokens",
        "0",
    ]);
    let b = v["solutions"]["max_batch"].as_u64().unwrap();
    // The estimate at batch b fits the card; checked through the CLI at b and b + 1.
    let fits = |batch: u64| {
        let v = json(&[
            "estimate",
            "--model",
            "meta-llama/Llama-3.1-8B",
            "--gpu",
            "a100-sxm4-40gb",
            "--seq-len",
            "4096",
            "--new-tokens",
            "0",
            "--batch",
            &batch.to_string(),
        ]);
        v["fit"]["fits"].as_bool().unwrap()
    };
    assert!(fits(b));
    assert!(!fits(b + 1));
    assert_eq!(v["solutions"]["min_gpus"].as_u64(), Some(1));
}

#[test]
fn a_card_is_named_by_words_that_fit_it_alone() {
    // `h200` is the H200's id word: 139.80 GiB as CUDA reports it (150,109,945,856 B, measured).
    let v = json(&["estimate", "--params", "7B", "--gpu", "h200"]);
    assert_eq!(v["fit"]["gpu"].as_str(), Some("h200-sxm-141gb"));
    assert_eq!(v["fit"]["memory_bytes"].as_u64(), Some(150_109_945_856));
    // The MIG planner takes the same words.
    let (code, out, _) = vramfit(&["mig", "--gpu", "A100 SXM4 80GB", "--job", "a=16GiB"]);
    assert_eq!(code, 0, "{out}");
    // `h100` fits three cards: the error names the flag and lists them; the exit code is 2.
    let (code, _, err) = vramfit(&["estimate", "--params", "7B", "--gpu", "h100"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--gpu: `h100` matches 3 GPUs")
            && err.contains("h100-nvl-94gb, h100-pcie-80gb, h100-sxm5-80gb"),
        "{err}"
    );
}

/// llama.cpp's peak is its own buffers, said so; `--tp 2` alone is two GPUs, as vLLM's
/// `--tensor-parallel-size 2` means.
#[test]
fn llamacpp_says_what_reports_its_peak_and_tp_alone_is_its_gpus() {
    let (code, out, _) = vramfit(&[
        "estimate",
        "--model",
        "meta-llama/Llama-3.1-8B",
        "--engine",
        "llamacpp",
        "--quantization",
        "gguf-q4_k_m",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains(
            "(llama.cpp's model, KV and compute buffers on the GPU, as its load log prints them, at"
        ),
        "{out}"
    );
    assert!(!out.contains("torch.cuda"), "{out}");
    let (code, out, _) = vramfit(&[
        "estimate",
        "--model",
        "meta-llama/Llama-3.1-8B",
        "--tp",
        "2",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("per GPU × 2"), "{out}");
    let (code, _, err) = vramfit(&[
        "estimate",
        "--model",
        "meta-llama/Llama-3.1-8B",
        "--tp",
        "2",
        "--gpus",
        "1",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--gpus: 1 GPU for tp = 2"), "{err}");
}

/// The issue's case: Qwen3-32B in Q4_K_M on an RTX 4090 at -c 32768 does not fit; the CLI
/// says so, gives llama.cpp's largest context rather than the model's, and the fixes that fit.
#[test]
fn llamacpp_solutions_vary_its_context_and_list_the_fixes() {
    let (code, out, _) = vramfit(&[
        "estimate",
        "--model",
        "Qwen/Qwen3-32B",
        "--engine",
        "llamacpp",
        "--quantization",
        "gguf-q4_k_m",
        "--max-model-len",
        "32768",
        "--gpu",
        "rtx-4090",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("largest context (-c, max_model_len) 20,"),
        "{out}"
    );
    assert!(
        out.contains("fewest cards 2 (llama.cpp splits the layers over them)"),
        "{out}"
    );
    assert!(out.contains("each of these alone makes it fit"), "{out}");
    for flag in ["--gpu-layers", "--kv-dtype q8_0", "--max-model-len 20"] {
        assert!(out.contains(flag), "{flag}: {out}");
    }
}

/// `--config`: a torchtune recipe read onto the run, the keys not read listed with their
/// lines, a flag given on the command line winning over the file, the same numbers as the
/// flags that say the same; a bad value exits 2 naming the file, the key and the line.
#[test]
fn a_stack_config_is_read_onto_the_run() {
    let dir = std::env::temp_dir().join(format!("vramfit-cli-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let recipe = dir.join("lora.yaml");
    std::fs::write(
        &recipe,
        "model:\n  _component_: torchtune.models.llama3_2.lora_llama3_2_3b\n  lora_attn_modules: ['q_proj', 'v_proj']\n  lora_rank: 8\n  lora_alpha: 16\ntokenizer:\n  max_seq_len: 1024\nbatch_size: 4\ndtype: bf16\nenable_activation_checkpointing: True\n",
    )
    .expect("write");
    let path = recipe.to_str().expect("utf-8 path");
    let v = json(&["estimate", "--config", path, "--batch", "2"]);
    assert_eq!(v["config"][0]["format"], "torchtune");
    assert_eq!(
        v["config"][0]["not_read"],
        serde_json::json!(["model.lora_alpha (line 5)"])
    );
    let by_flags = json(&[
        "estimate",
        "--model",
        "meta-llama/Llama-3.2-3B",
        "--mode",
        "training",
        "--lora-rank",
        "8",
        "--lora-targets",
        "q_proj,v_proj",
        "--seq-len",
        "1024",
        "--batch",
        "2",
        "--precision",
        "bf16",
        "--grad-checkpointing",
        // A recipe is torchtune's: its defaults (the chunked loss) apply.
        "--stack",
        "torchtune",
        "--activation-offload",
        "false",
    ]);
    assert_eq!(v["peak_allocated_bytes"], by_flags["peak_allocated_bytes"]);
    std::fs::write(
        &recipe,
        "model:\n  _component_: x\ntokenizer: {}\nbatch_size: two\n",
    )
    .expect("write");
    let (code, _, err) = vramfit(&["estimate", "--config", path]);
    assert_eq!(code, 2);
    assert!(
        err.contains("lora.yaml: batch_size: line 4: not a number"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `--gpu rtx-3090,rtx-3060-12gb` is a list of unlike cards: llama.cpp's split by free memory
/// (23 blocks on the 3090, 9 and the output on the 3060, see the library's hand count) in the
/// JSON's `cards`; `--gpu 2x4090` is `--gpu 4090 --gpus 2`; vLLM refuses unlike cards (exit 2).
#[test]
fn a_list_of_cards() {
    let base = [
        "estimate",
        "--model",
        "meta-llama/Llama-3.1-8B",
        "--engine",
        "llamacpp",
        "--quantization",
        "gguf-q4_k_m",
        "--max-model-len",
        "8192",
    ];
    let with = |extra: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        json(&a)
    };
    let v = with(&["--gpu", "rtx-3090,rtx-3060-12gb"]);
    let cards = v["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 2);
    assert_eq!(cards[0]["layers"], 23);
    assert_eq!(cards[1]["layers"], 9);
    assert_eq!(cards[1]["output_layer"], true);
    assert_eq!(cards[1]["limits"], true);
    let ts = with(&["--gpu", "rtx-3090,rtx-3060-12gb", "--ts", "3,1"]);
    assert_eq!(ts["cards"][0]["layers"], 25);
    assert_eq!(
        with(&["--gpu", "2x4090"]),
        with(&["--gpu", "rtx-4090", "--gpus", "2"])
    );
    let (code, _, err) = vramfit(&[
        "estimate",
        "--model",
        "meta-llama/Llama-3.1-8B",
        "--engine",
        "vllm",
        "--mode",
        "serve",
        "--gpu",
        "rtx-3090,rtx-3060-12gb",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("rtx-3060-12gb"), "{err}");
}

#[test]
fn memory_in_use_is_a_flag_and_the_fit_is_said_against_what_is_free() {
    // vLLM 0.33, Llama-3.1-8B on an RTX 4090 (25,253,904,384 B): 3 GiB in use leaves 20.52 GiB
    // free, less than 0.9 × the card (21.17 GiB): vLLM refuses to start (in_use_tests.rs has
    // the hand calculation).
    let args = [
        "estimate",
        "--model",
        "meta-llama/Llama-3.1-8B",
        "--mode",
        "serve",
        "--engine",
        "vllm",
        "--gpu",
        "rtx-4090",
        "--max-model-len",
        "8192",
        "--in-use",
        "3GiB",
    ];
    let (code, out, err) = vramfit(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("(3.00 GiB in use, 20.52 GiB free before the run)"),
        "{out}"
    );
    assert!(
        out.contains("vLLM would refuse to start: 20.52 GiB free, 21.17 GiB asked"),
        "{out}"
    );
    let v = json(&args);
    assert_eq!(v["fit"]["in_use_bytes"].as_u64(), Some(3 << 30));
    // Above the card's memory: an error naming the flag, exit code 2.
    let (code, _, err) = vramfit(&[
        "estimate",
        "--params",
        "7B",
        "--gpu",
        "rtx-4090",
        "--memory-in-use",
        "30GiB",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--memory-in-use"), "{err}");
}

/// `--gpus-per-node` and `--node-link` apply to training: the same run's memory on one node of
/// 16 and on two of 8, its step slower over the network; `--grad-accum` sets the micro-batches;
/// a Megatron-LM command line reads back with its own sequence and layout.
#[test]
fn training_over_nodes_pays_the_network() {
    let run = |extra: &[&str]| {
        let mut a = vec![
            "estimate",
            "--model",
            "meta-llama/Llama-3.1-8B",
            "--mode",
            "training",
            "--gpu",
            "h100-sxm5-80gb",
            "--gpus",
            "16",
            "--zero",
            "3",
            "--fsdp-version",
            "2",
            "--seq-len",
            "4096",
            "--grad-accum",
            "2",
        ];
        a.extend_from_slice(extra);
        json(&a)
    };
    let one = run(&["--gpus-per-node", "16"]);
    let two = run(&["--node-link", "100Gb/s"]);
    assert_eq!(
        (one["nodes"].as_u64(), two["nodes"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(one["total_bytes"], two["total_bytes"]);
    let step = |v: &serde_json::Value| v["throughput"]["step_time_s"].as_f64().unwrap();
    assert!(step(&one) < step(&two), "{} {}", step(&one), step(&two));
    let line = "torchrun --nnodes 2 --rdzv-backend c10d --rdzv-endpoint HEAD_IP:29500 \
        --nproc-per-node 8 pretrain_gpt.py --tensor-model-parallel-size 8 \
        --pipeline-model-parallel-size 2 --micro-batch-size 1 --global-batch-size 8 \
        --seq-length 8192 --bf16 --use-distributed-optimizer \
        --tokenizer-model meta-llama/Llama-3.1-70B --mock-data";
    let m = json(&[
        "estimate",
        "--from-command",
        line,
        "--gpu",
        "h100-sxm5-80gb",
    ]);
    assert_eq!(m["nodes"], 2);
    assert_eq!(m["gpus"], 16);
    // 8 sequences of 8192 tokens a step.
    let t = &m["throughput"];
    let tokens = t["step_time_s"].as_f64().unwrap() * t["tokens_per_s"].as_f64().unwrap();
    assert!((tokens / 65_536.0 - 1.0).abs() < 1e-3, "{tokens}");
}

/// Where the memory goes over the run, moment by moment, under the peak: transformers' load,
/// prefill and last token; vLLM's start-up, its pool with the tokens it holds; the peak named
/// once, and the JSON's moments worded in both languages.
#[test]
fn the_runs_moments_are_printed_under_the_peak() {
    let model = ["estimate", "--model", "meta-llama/Llama-3.1-8B"];
    let (code, out, _) = vramfit(&model);
    assert_eq!(code, 0);
    for words in [
        "(moment: Weights loaded)",
        "(moment: Prefill: 1 × 2,048 prompt tokens, the peak)",
        "(moment: Last of 256 new tokens: the cache at 1 × 2,304 tokens)",
    ] {
        assert!(out.contains(words), "{words}\n{out}");
    }
    let serve = [&model[..], &["--engine", "vllm", "--gpu", "h100-sxm5-80gb"]].concat();
    let (code, out, _) = vramfit(&serve);
    assert_eq!(code, 0);
    assert!(
        out.contains("(moment: Profile run: the activation peak it measures)"),
        "{out}"
    );
    assert!(
        out.contains("(moment: KV pool allocated: 436,880 tokens)"),
        "{out}"
    );
    assert_eq!(out.matches(", the peak)").count(), 1, "{out}");
    let v = json(&serve);
    let step = v["step"].as_array().expect("moments");
    assert_eq!(step.len(), 5);
    assert_eq!(step[2]["phase"], "kv_pool");
    assert_eq!(step[4]["bytes"], v["total_bytes"]);
    assert_eq!(step[0]["zh"], "权重加载完成");
}

/// `--model path/to/config.json` takes the config's `torch_dtype` as the checkpoint's own, not as
/// `--dtype`: vLLM's `auto` serves GPT-2's float32 in bf16 on an H100, 124,439,808 × 2 B =
/// 248,879,616 B, the figures of the `gpt2` preset (fp32) with dtype left auto; transformers
/// loads it in fp32 (× 4 B); `--dtype fp32` keeps fp32 under vLLM.
#[test]
fn a_config_files_dtype_is_the_checkpoints_and_vllm_still_downcasts_it() {
    let path = std::env::temp_dir().join(format!("vramfit-gpt2-fp32-{}.json", std::process::id()));
    std::fs::write(
        &path,
        r#"{"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_ctx": 1024,
            "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024,
            "torch_dtype": "float32", "vocab_size": 50257}"#,
    )
    .unwrap();
    let file = path.to_str().unwrap();
    let run = |model: &str, extra: &[&str]| {
        let mut args = vec!["estimate", "--model", model, "--gpu", "h100-sxm5-80gb"];
        args.extend_from_slice(extra);
        json(&args)
    };
    let serve = ["--engine", "vllm", "--mode", "serve"];
    let (config, preset) = (run(file, &serve), run("gpt2", &serve));
    assert_eq!(config["weights_bytes"], 248_879_616u64);
    for key in [
        "params",
        "weights_bytes",
        "kv_cache_bytes",
        "required_bytes",
        "total_bytes",
    ] {
        assert_eq!(config[key], preset[key], "{key}");
    }
    let hf = run(file, &["--engine", "hf", "--mode", "inference"]);
    assert_eq!(hf["weights_bytes"], 4 * 124_439_808u64);
    let kept = run(
        file,
        &["--engine", "vllm", "--mode", "serve", "--dtype", "fp32"],
    );
    assert_eq!(kept["weights_bytes"], 4 * 124_439_808u64);
    let _ = std::fs::remove_file(&path);
}

/// SGLang 0.5.23 spells DP attention `--attn-dp-size N`; the deprecated `--enable-dp-attention
/// --dp-size N` it still reads is the same run (DeepSeek-V3 on 8 H200s, 8 attention groups),
/// and the two spellings together are refused by clap naming both.
#[test]
fn attn_dp_size_is_the_deprecated_dp_attention() {
    let run = [
        "estimate",
        "--model",
        "deepseek-ai/DeepSeek-V3",
        "--mode",
        "serve",
        "--engine",
        "sglang",
        "--gpu",
        "h200-sxm-141gb",
        "--tp",
        "8",
    ];
    let new = json(&[&run[..], &["--attn-dp-size", "8"]].concat());
    let old = json(&[&run[..], &["--enable-dp-attention", "--dp-size", "8"]].concat());
    let plain = json(&run);
    assert_eq!(new, old);
    assert_ne!(new["total_bytes"], plain["total_bytes"]);
    let both = [&run[..], &["--attn-dp-size", "8", "--dp-size", "8"]].concat();
    let (code, _, err) = vramfit(&both);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--attn-dp-size") && err.contains("--dp-size"),
        "{err}"
    );
}

/// An embedding run on llama.cpp (issue 42): bge-m3 in F16 with `--runner pooling` keeps no KV
/// cache (llama.cpp's `create_memory` makes none for an encoder); an input longer than `--ubatch`
/// is refused naming `--ubatch`, as llama-server refuses it ("input is too large to process").
#[test]
fn an_embedding_run_on_llamacpp() {
    let base = [
        "estimate",
        "--model",
        "BAAI/bge-m3",
        "--engine",
        "llamacpp",
        "--runner",
        "pooling",
        "--quantization",
        "gguf-f16",
        "--gpu",
        "h100-sxm5-80gb",
    ];
    let mut ok = base.to_vec();
    ok.extend(["--seq-len", "512"]);
    let v = json(&ok);
    assert_eq!(v["kv_cache_bytes"], 0);
    let mut long = base.to_vec();
    long.extend(["--seq-len", "8192"]);
    let (code, _, err) = vramfit(&long);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--ubatch"), "{err}");
    assert!(err.contains("-ub 8192"), "{err}");
}

/// `--lora-dropout` 0.1 on Llama-3.1-8B's q and v in pure bf16 (batch 1 × 512, no
/// checkpointing): each adapted module's 1 B mask per input element, 2 × 4096 B × 32 blocks ×
/// 512 tokens = 134,217,728 B more activations (each already kept its fp32 copy of the input).
#[test]
fn lora_dropout_adds_each_adapters_mask() {
    let acts = |p: &str| {
        json(&[
            "estimate",
            "--model",
            "meta-llama/Llama-3.1-8B",
            "--mode",
            "training",
            "--precision",
            "bf16",
            "--lora-rank",
            "16",
            "--lora-targets",
            "q_proj,v_proj",
            "--batch",
            "1",
            "--seq-len",
            "512",
            "--lora-dropout",
            p,
        ])["activations_bytes"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(acts("0.1") - acts("0"), 134_217_728);
}

/// Text Embeddings Inference from the command line (the CLI built alone once refused it: its
/// manifest lacked vramfit's `tei` feature; `tests/it/build_features.rs` now checks every
/// face's list). bge-m3 under TEI v1.9.3's defaults on one H100, the figure worked out by hand
/// in `estimate/tei_tests.rs` (`bge_m3_on_tei_by_hand`): weights 567,754,752 × 2 B =
/// 1,135,509,504 B, the warmup's activations over 16,384 tokens 369,295,360 B, the CUDA context
/// 667,000,000 B and cuBLAS's workspace 33,554,432 B: 2,205,359,296 B, no KV cache.
#[test]
fn text_embeddings_inference_estimates_from_the_command_line() {
    let v = json(&[
        "estimate",
        "--model",
        "bge-m3",
        "--mode",
        "serve",
        "--engine",
        "tei",
        "--gpu",
        "h100-sxm5-80gb",
        "--seq-len",
        "512",
    ]);
    assert_eq!(v["total_bytes"], 2_205_359_296u64);
    assert_eq!(v["kv_bytes_per_token"], 0);
}

/// `--language-model-only` on vLLM: Gemma 3 4B's SigLIP tower and projector (416,866,032 +
/// 1,152 × 2,560 + 1,152 = 419,816,304, the preset's `vision_params`) leave the parameters and,
/// at 2 B each in bf16, the weights; another engine is refused naming the flag.
#[test]
fn language_model_only_leaves_the_tower_out() {
    let run = ["estimate", "--model", "google/gemma-3-4b-it"];
    let serve = [
        "--engine",
        "vllm",
        "--mode",
        "serve",
        "--gpu",
        "h100-sxm5-80gb",
    ];
    let args = |extra: &[&'static str]| [&run[..], &serve[..], extra].concat();
    let all = json(&args(&[]));
    let text = json(&args(&["--language-model-only"]));
    let n = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap();
    assert_eq!(n(&all, "params") - n(&text, "params"), 419_816_304);
    assert_eq!(
        n(&all, "weights_bytes") - n(&text, "weights_bytes"),
        419_816_304 * 2
    );
    let (code, _, err) = vramfit(&[&run[..], &["--language-model-only"]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("language-model-only") || err.contains("language_model_only"),
        "{err}"
    );
}

#[test]
fn offload_optimizer_alone_keeps_zero3_parameters_on_the_gpus() {
    // Llama-3.1-8B (P = 8,030,261,248), ZeRO-3 over 8 GPUs, DeepSpeed's offload_optimizer
    // alone: the bf16 partition stays, P × 2 B / 8 = 2,007,565,312 B; no gradients or states on
    // the GPU; in CPU memory (4 + 4 + 8) B × P / 8 = 16,060,522,496 B.
    let args = |offload| {
        json(&[
            "estimate",
            "--model",
            "meta-llama/Llama-3.1-8B",
            "--mode",
            "training",
            "--zero",
            "3",
            "--gpus",
            "8",
            "--offload",
            offload,
        ])
    };
    let v = args("optimizer-cpu");
    assert_eq!(v["weights_bytes"], 2_007_565_312u64);
    assert_eq!(v["gradients_bytes"], 0u64);
    assert_eq!(v["optimizer_bytes"], 0u64);
    assert_eq!(v["cpu_bytes"], 16_060_522_496u64);
    // `cpu` moves the partition too: P × 18 B / 8 in CPU memory, no weights on the GPU.
    let all = args("cpu");
    assert_eq!(all["weights_bytes"], 0u64);
    assert_eq!(all["cpu_bytes"], 18_068_087_808u64);
}
