//! The `vramfit estimate` contract: JSON fields, exit codes, messages that name the flag.

use std::process::Command;

fn vramfit(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args(args)
        .output()
        .expect("run vramfit");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

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
        (vec!["estimate"], "--model"),
    ] {
        let (code, _, err) = vramfit(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(flag), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn table_writes_units() {
    let (code, out, _) = vramfit(&["estimate", "--params", "13B", "--dtype", "bf16"]);
    assert_eq!(code, 0);
    assert!(out.contains("GiB"));
    assert!(out.contains("1.2 × (M_theory + 2 GB)"));
}
