//! Ollama over several GPUs as the report says it: from 0.30, a model whose prediction fits one
//! GPU is loaded on that GPU alone (`server/sched.go` `selectLlamaServerPlacement` →
//! `bestSingleGPUFit`, ollama/ollama fb3076099), and the header names it with the others idle.

mod common;
use common::vramfit;

fn run(args: &[&str]) -> (String, serde_json::Value) {
    let (code, out, err) = vramfit(args);
    assert_eq!(code, 0, "{err}");
    let mut a = args.to_vec();
    a.push("--json");
    let (code, json, err) = vramfit(&a);
    assert_eq!(code, 0, "{err}");
    (out, serde_json::from_str(&json).expect("one JSON object"))
}

/// `vramfit estimate --model MODEL --engine ollama --gpu GPUS`, as text and as JSON.
fn ollama(model: &str, gpus: &str) -> (String, serde_json::Value) {
    run(&[
        "estimate", "--model", model, "--engine", "ollama", "--gpu", gpus,
    ])
}

/// llama3.1:8b on two RTX 4090s (47 GiB together: the automatic num_ctx 32,768): Ollama's
/// prediction, the 4.58 GiB file and an f16 KV of 4 × 32 × 8 × 128 × 32,768 B = 4 GiB,
/// 8.58 GiB, is within 80 % of one card's 23.52 GiB free (18.8 GiB), so one card runs it and
/// the other is idle; the JSON keeps `gpus` 2, the cards given, and names the one used.
/// llama3.1:70b (a 39.6 GiB file) fits neither alone: both, per GPU × 2.
#[test]
fn ollama_on_one_gpu_of_two_names_it_and_the_other_idle() {
    let (out, v) = ollama("llama3.1:8b", "2x4090");
    let header = out.lines().next().unwrap();
    assert!(
        header.ends_with(
            "on one GPU (rtx-4090) of the 2 given: Ollama loads it there alone, the other idle"
        ),
        "{header}"
    );
    assert!(!out.contains("per GPU × 2"), "{out}");
    assert!(out.contains("fits on the one GPU Ollama uses"), "{out}");
    assert_eq!(v["gpus"], 2);
    assert_eq!(v["ollama"]["loaded_on"], "rtx-4090");
    // Unlike cards: the freer, the 3090, whichever order they are named in.
    let (out, v) = ollama("llama3.1:8b", "rtx-3060,rtx-3090");
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("on one GPU (rtx-3090) of the 2 given"),
        "{out}"
    );
    assert_eq!(v["ollama"]["loaded_on"], "rtx-3090");
    let (out, v) = ollama("llama3.1:70b", "2x4090");
    assert!(
        out.lines().next().unwrap().ends_with("per GPU × 2"),
        "{out}"
    );
    assert!(v["ollama"].get("loaded_on").is_none(), "{}", v["ollama"]);
}
