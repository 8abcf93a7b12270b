//! `vramfit estimate --model OWNER/NAME --hub` for the families of issue 42 read by their own
//! rules, against the mock hub (`tests/hub`): Qwen3-VL-8B-Instruct's config.json (no weights
//! headers in the fixture), its parameters as transformers 5.24 counts them
//! (`tests/reference/families-reference.csv`) and its KV cache by hand.

mod hub_run;
use hub_run::hub_estimate;
use std::path::PathBuf;

use vramfit_mock_hub::MockHub;

fn estimate(hub: &MockHub, repo: &str, extra: &[&str]) -> serde_json::Value {
    let cache: PathBuf = std::env::temp_dir().join(format!(
        "vramfit-hub-families-{}-{}",
        std::process::id(),
        repo.replace('/', "-")
    ));
    let _ = std::fs::remove_dir_all(&cache);
    let (code, out, err) = hub_estimate(&hub.url(), repo, extra, &cache);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("one JSON object")
}

#[test]
fn qwen3_vl_from_the_hub_counts_its_tower_and_qwen3_cache() {
    let hub = MockHub::start();
    let v = estimate(
        &hub,
        "Qwen/Qwen3-VL-8B-Instruct",
        &["--seq-len", "4096", "--new-tokens", "0", "--batch", "1"],
    );
    // transformers 5.24's meta count of Qwen3VLForConditionalGeneration (families-reference.csv).
    assert_eq!(v["params"], 8_767_123_696u64);
    assert_eq!(
        v["weights_bytes"],
        2 * 8_767_123_696u64,
        "bf16 from text_config.dtype"
    );
    // Qwen3's cache: 36 layers × 2 (K, V) × 8 KV heads × 128 × 2 B = 147,456 B a token.
    let kv = v["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == "kv_cache")
        .unwrap()["bytes"]
        .as_u64()
        .unwrap();
    assert_eq!(kv, 36 * 2 * 8 * 128 * 2 * 4096);
}

/// Step-3.5-Flash's hub config through the lookup: transformers 5.24's meta count
/// (`tests/reference/step3p5-reference.csv`), bf16 from `torch_dtype`, and transformers' cache by
/// hand after a prompt of 4,096 tokens: the sliding layers hold the prompt's storage until the
/// first decode step, so all 45 layers hold 4,096 tokens of 2 × 8 KV heads × 128 × 2 B.
#[test]
fn step3p5_from_the_hub_counts_its_layers() {
    let hub = MockHub::start();
    let v = estimate(
        &hub,
        "stepfun-ai/Step-3.5-Flash",
        &["--seq-len", "4096", "--new-tokens", "0", "--batch", "1"],
    );
    assert_eq!(v["params"], 196_956_118_272u64);
    assert_eq!(v["weights_bytes"], 2 * 196_956_118_272u64);
    let kv = v["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == "kv_cache")
        .unwrap()["bytes"]
        .as_u64()
        .unwrap();
    assert_eq!(kv, 45 * 2 * 8 * 128 * 2 * 4096);
}
