//! `vramfit estimate --model https://…/x.gguf` and `--hub ollama --model NAME:TAG` against the
//! mock hub (`tests/hub`): a GGUF at a plain address and an Ollama registry tag, each read by
//! its header alone, to the same exact weights as the repo they come from; their failures.

use std::path::PathBuf;
use std::process::Command;

use vramfit_mock_hub::{MockHub, OLLAMA_MODEL_DIGEST, OLLAMA_PROJECTOR_SIZE};

fn cache(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vramfit-addr-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run(cache: &PathBuf, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args(args)
        .env("VRAMFIT_CACHE_DIR", cache)
        .env_remove("HF_ENDPOINT")
        .output()
        .expect("run vramfit");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Q4_K_M of Qwen2.5-0.5B (`tests/hub/fixtures`): its bytes, elements and tensors, by hand in
/// `cli_hub.rs` (`a_gguf_repo_gives_its_exact_weights_on_llama_cpp`).
const QWEN05_Q4KM: (u64, u64, u64) = (391_859_712, 494_032_768, 290);

fn checkpoint(v: &serde_json::Value) -> (u64, u64, u64) {
    let c = &v["hub"]["checkpoint"];
    (
        c["bytes"].as_u64().unwrap(),
        c["params"].as_u64().unwrap(),
        c["tensors"].as_u64().unwrap(),
    )
}

#[test]
fn a_gguf_at_an_address_is_read_by_range_alone_and_run_on_llama_cpp() {
    let hub = MockHub::start();
    let url = format!(
        "{}/__cdn/Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf",
        hub.url()
    );
    let c = cache("url");
    let (code, out, err) = run(&c, &["estimate", "--model", &url, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(checkpoint(&v), QWEN05_Q4KM);
    assert_eq!(v["weights_bytes"], QWEN05_Q4KM.0);
    assert_eq!(v["hub"]["hub"]["kind"], "url");
    assert_eq!(v["hub"]["repo"], url.as_str());
    let log = hub.log();
    assert!(
        !log.is_empty() && log.iter().all(|l| l.range.is_some()),
        "{log:?}"
    );
    // Once read, from the cache.
    hub.clear();
    let (code, _, err) = run(&c, &["estimate", "--model", &url, "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(hub.log().is_empty());
    // A file the server does not have.
    let missing = format!(
        "{}/__cdn/Qwen/Qwen2.5-0.5B-Instruct-GGUF/nope.gguf",
        hub.url()
    );
    let (code, _, err) = run(&c, &["estimate", "--model", &missing]);
    assert_ne!(code, 0);
    assert!(
        err.contains(&format!("has no {missing} (HTTP 404)")),
        "{err}"
    );
    // An address that is no GGUF's, without --hub.
    let (code, _, err) = run(
        &c,
        &["estimate", "--model", "https://example.com/model.bin"],
    );
    assert_ne!(code, 0);
    assert!(err.contains("is not the address of a GGUF file"), "{err}");
}

#[test]
fn an_ollama_tag_is_read_through_its_manifest_to_the_model_blob() {
    let hub = MockHub::start();
    let c = cache("ollama");
    let args = |model: &'static str| {
        vec![
            "estimate".to_string(),
            "--model".into(),
            model.into(),
            "--hub".into(),
            "ollama".into(),
            "--hub-endpoint".into(),
            hub.url(),
            "--json".into(),
        ]
    };
    let a = args("qwen2.5:0.5b");
    let (code, out, err) = run(&c, &a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(checkpoint(&v), QWEN05_Q4KM);
    assert_eq!(v["hub"]["repo"], "library/qwen2.5:0.5b");
    assert_eq!(v["hub"]["revision"], "0.5b");
    assert_eq!(
        v["hub"]["files_read"],
        serde_json::json!(["manifest", OLLAMA_MODEL_DIGEST])
    );
    assert!(
        !v["ollama"].is_null(),
        "a registry's model runs on Ollama: {v}"
    );
    let notes = v["hub"]["model"]["notes"].to_string();
    assert!(
        notes.contains(&format!(
            "vision projector (mmproj) of {OLLAMA_PROJECTOR_SIZE} bytes"
        )),
        "{notes}"
    );
    // The manifest asked with the registry's Accept (the mock refuses it otherwise), then the
    // blob, redirected to storage and read by Range.
    let log = hub.log();
    assert_eq!(log[0].target, "/v2/library/qwen2.5/manifests/0.5b");
    assert_eq!(log[0].status, 200);
    assert_eq!(
        log[1].target,
        format!("/v2/library/qwen2.5/blobs/{OLLAMA_MODEL_DIGEST}")
    );
    assert_eq!(log[1].status, 307);
    assert!(
        log[1..]
            .iter()
            .all(|l| l.range.is_some() && (l.status == 307 || l.target.starts_with("/__cdn/")))
    );
    let data: u64 = log.iter().map(|l| l.data_bytes).sum();
    let read = v["hub"]["bytes_read"].as_u64().unwrap();
    assert!(
        data < (read - data) / 2,
        "the header, not the weights: {data}"
    );
    // An unknown tag, and a model without a GGUF layer: named.
    let a = args("qwen2.5:999b");
    let (code, _, err) = run(&c, &a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_ne!(code, 0);
    assert!(err.contains("`library/qwen2.5:999b` is not on"), "{err}");
    assert!(err.contains("no such model or tag"), "{err}");
    let a = args("mock-tensors");
    let (code, _, err) = run(&c, &a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_ne!(code, 0);
    assert!(err.contains("has no GGUF model layer"), "{err}");
}

#[test]
fn an_ollama_name_without_hub_is_still_a_preset() {
    let c = cache("preset");
    let (code, out, err) = run(
        &c,
        &[
            "estimate",
            "--model",
            "llama3.1:8b",
            "--engine",
            "ollama",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v.get("hub").is_none_or(|h| h.is_null()), "no lookup: {v}");
}
