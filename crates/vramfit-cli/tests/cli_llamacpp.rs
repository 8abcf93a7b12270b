//! llama-server's `--kv-unified-per-slot N` (ggml-org/llama.cpp#24124, build b10662) as a CLI
//! flag: the pool it sizes without a context, its checks naming the flag, and the launch.

mod common;
use common::vramfit;

/// gpt-oss-20b in Q4_K_M under llama.cpp with 4 unified slots: these flags and `extra`.
fn gpt_oss(cmd: &str, extra: &[&str]) -> (i32, String, String) {
    let mut a = vec![
        cmd,
        "--model",
        "openai/gpt-oss-20b",
        "--engine",
        "llamacpp",
        "--quantization",
        "gguf-q4_k_m",
        "--batch",
        "4",
        "--kv-unified",
    ];
    a.extend_from_slice(extra);
    vramfit(&a)
}

fn kv_bytes(extra: &[&str]) -> u64 {
    let mut a = extra.to_vec();
    a.push("--json");
    let (code, out, err) = gpt_oss("estimate", &a);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    v["kv_cache_bytes"].as_u64().expect("kv_cache_bytes")
}

/// 4 slots of 4,096 tokens without a context: a unified pool of 16,384 tokens, gpt-oss-20b's
/// (12 full layers × 16,384 + 12 sliding × GGML_PAD(128 × 4 + 512, 256) = 1,024 cells) ×
/// 2 × 8 KV heads × 64 × 2 B = 427,819,008 B, the cache of `--max-model-len 16384`.
#[test]
fn kv_unified_per_slot_sizes_the_pool() {
    let pool = kv_bytes(&["--kv-unified-per-slot", "4096"]);
    assert_eq!(pool, 427_819_008);
    assert_eq!(pool, kv_bytes(&["--max-model-len", "16384"]));
    // With a context it is a cap and holds nothing more.
    assert_eq!(
        kv_bytes(&["--max-model-len", "16384", "--kv-unified-per-slot", "4096"]),
        pool
    );
}

#[test]
fn kv_unified_per_slot_errors_name_the_flag() {
    for (n, says) in [
        ("0", "out of range"),
        ("1.5", "not a whole number"),
        ("1000", "holds no sequence of 2304"),
    ] {
        let (code, _, err) = gpt_oss("estimate", &["--kv-unified-per-slot", n]);
        assert_eq!(code, 2, "{n}: {err}");
        assert!(err.contains("--kv-unified-per-slot"), "{n}: {err}");
        assert!(err.contains(says), "{n}: {err}");
    }
}

#[test]
fn kv_unified_per_slot_is_in_the_launch() {
    let (code, out, err) = gpt_oss("launch", &["--kv-unified-per-slot", "4096"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("-c 16384"), "{out}");
    assert!(out.contains("--kv-unified-per-slot 4096"), "{out}");
    assert!(out.contains("b10662"), "{out}");
}
