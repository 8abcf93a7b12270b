//! `vramfit estimate --engine sglang --speculative-method …`: SGLang 0.5.23's drafting through
//! the CLI, the same figures as the library's hand check, and its launch's flags.

mod common;
use common::vramfit;

/// Llama-3.1-8B with its EAGLE-3 head on an H100 at mem_fraction_static 0.88: 408,366 tokens
/// of 131,072 + 4,096 B (the hand calculation of `an_eagle3_head_by_hand` in
/// crates/vramfit/src/estimate/sglang/speculative_tests.rs), the head's 2,688,581,632 B as the
/// drafter, and the launch's flags as SGLang spells them.
#[test]
fn sglang_eagle3_through_the_cli() {
    let args = [
        "estimate",
        "--model",
        "meta-llama/Llama-3.1-8B",
        "--mode",
        "serve",
        "--engine",
        "sglang",
        "--gpu",
        "h100-sxm5-80gb",
        "--mem-fraction-static",
        "0.88",
        "--speculative-method",
        "eagle3",
        "--draft-model",
        "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
        "--num-speculative-tokens",
        "3",
        "--json",
    ];
    let (code, out, err) = vramfit(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(v["kv_cache_tokens"], 408_366);
    let drafter = v["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == "drafter")
        .expect("a drafter component");
    assert_eq!(drafter["bytes"], 2_688_581_632_u64);
    // NGRAM is SGLang's too, but not modelled: refused naming the flag.
    let ngram = [&args[..12], &["ngram", "--num-speculative-tokens", "3"][..]].concat();
    let (code, _, err) = vramfit(&ngram);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--speculative-method"), "{err}");
    // The launch writes SGLang's own flags.
    let launch = [&["launch"][..], &args[1..args.len() - 1]].concat();
    let (code, out, err) = vramfit(&launch);
    assert_eq!(code, 0, "{err}");
    for flag in [
        "--speculative-algorithm EAGLE3",
        "--speculative-draft-model-path yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
        "--speculative-num-steps 3",
        "--speculative-eagle-topk 1",
        "--speculative-num-draft-tokens 4",
    ] {
        assert!(out.contains(flag), "{flag}: {out}");
    }
}
