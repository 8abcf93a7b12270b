//! `vramfit diagnose`, run as a binary: the corpus through `--json`, stdin, the text views, the
//! exit codes.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn vramfit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args(args)
        .output()
        .expect("run vramfit")
}

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/diagnose")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn every_corpus_case_gives_its_kind_and_input_as_json() {
    let mut n = 0;
    for entry in std::fs::read_dir(corpus())
        .expect("corpus")
        .filter_map(|e| e.ok())
    {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "txt") {
            continue;
        }
        let expect_path = path.with_extension("expect.json");
        let expect: Value =
            serde_json::from_str(&std::fs::read_to_string(&expect_path).expect("sidecar"))
                .expect("sidecar json");
        let out = vramfit(&["diagnose", path.to_str().expect("utf-8 path"), "--json"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let got: Value = serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(got["kind"], expect["kind"], "{}", path.display());
        assert_eq!(got["input"], expect["input"], "{}", path.display());
        assert!(
            got["evidence"].is_array() && got["fixes"].is_array(),
            "{}",
            path.display()
        );
        if let Some(Value::Object(ev)) = expect.get("evidence") {
            for (name, bytes) in ev {
                let found = got["evidence"]
                    .as_array()
                    .and_then(|a| a.iter().find(|e| e["name"] == *name))
                    .map(|e| e["bytes"].clone());
                assert_eq!(found.as_ref(), Some(bytes), "{}: {name}", path.display());
            }
        }
        n += 1;
    }
    assert!(n >= 40, "{n} cases");
}

#[test]
fn text_output_shows_kind_numbers_and_fixes() {
    let path = corpus().join("pytorch-1.8-fragmentation-issue-35901.txt");
    let out = vramfit(&["diagnose", path.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(0));
    let s = stdout(&out);
    assert!(s.contains("Kind: fragmentation (碎片型)"), "{s}");
    // 10.84 GiB read exactly: 10.84 × 2^30 = 11,639,361,372.16 → 11,639,361,372 B.
    assert!(s.contains("10.84 GiB (11,639,361,372 B)"), "{s}");
    assert!(
        s.contains("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
        "{s}"
    );
    assert!(s.contains("1. [effort 1]"), "{s}");

    let zh = stdout(&vramfit(&[
        "diagnose",
        path.to_str().expect("path"),
        "--lang",
        "zh",
    ]));
    assert!(
        zh.contains("类型: fragmentation (碎片型)") && zh.contains("原因："),
        "{zh}"
    );
}

#[test]
fn nvidia_smi_trends_are_named_in_words() {
    for (file, words) in [
        (
            "smi-csv-header-leak.txt",
            "gpu0: 12 samples, still rising (a leak), +255.7 MiB/s",
        ),
        (
            "smi-csv-noheader-nounits-jump-then-flat.txt",
            "samples, one jump, then level",
        ),
        (
            "smi-csv-stepped-plateau.txt",
            "samples, steps up, then level (the caching allocator)",
        ),
    ] {
        let s = stdout(&vramfit(&[
            "diagnose",
            corpus().join(file).to_str().expect("path"),
        ]));
        assert!(s.contains(words), "{file}: {s}");
    }
}

#[test]
fn stdin_is_read_with_a_dash() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args(["diagnose", "-", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 20029400304 bytes.\n")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(v["kind"], "capacity");
    assert_eq!(v["input"], "jax_oom");
    assert_eq!(v["evidence"][0]["bytes"], 20_029_400_304u64);
}

#[test]
fn tree_checks_and_faq_views() {
    let tree: Value = serde_json::from_str(&stdout(&vramfit(&["diagnose", "--tree", "--json"])))
        .expect("tree json");
    assert_eq!(tree["root"], "start");
    assert_eq!(tree["leaves"].as_array().map(Vec::len), Some(4));
    let text = stdout(&vramfit(&["diagnose", "--tree"]));
    assert!(
        text.contains("[start] (start)") && text.contains("→ leak"),
        "{text}"
    );
    let checks = stdout(&vramfit(&["diagnose", "--checks"]));
    assert!(
        checks.contains("$ dcgmi diag -r 4") && checks.contains("$ watch -n 1 nvidia-smi"),
        "{checks}"
    );
    let checks_zh = stdout(&vramfit(&["diagnose", "--checks", "--lang", "zh"]));
    assert!(checks_zh.contains("租用前的 GPU 健康检测"), "{checks_zh}");
    let faq: Value = serde_json::from_str(&stdout(&vramfit(&["diagnose", "--faq", "--json"])))
        .expect("faq json");
    assert!(faq.as_array().is_some_and(|a| a.len() >= 10));
}

#[test]
fn missing_file_is_exit_1_and_bad_flags_exit_2() {
    let out = vramfit(&["diagnose", "/nonexistent/oom.txt"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read `/nonexistent/oom.txt`"), "{err}");

    assert_eq!(
        vramfit(&["diagnose", "x.txt", "--lang", "fr"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        vramfit(&["diagnose", "--no-such-flag"]).status.code(),
        Some(2)
    );
    assert_eq!(vramfit(&["diagnose"]).status.code(), Some(2));
    assert_eq!(
        vramfit(&["diagnose", "x.txt", "--tree"]).status.code(),
        Some(2)
    );
}

#[test]
fn unknown_text_says_what_to_paste() {
    let dir = std::env::temp_dir().join(format!("vramfit-diag-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let f = dir.join("junk.txt");
    std::fs::write(&f, [0xff, 0xfe, b'h', b'i', b'\n']).expect("write");
    let out = vramfit(&["diagnose", f.to_str().expect("path"), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(v["kind"], "unknown");
    assert!(
        v["what_to_paste_instead"]["en"]
            .as_str()
            .is_some_and(|s| s.contains("nvidia-smi"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_long_log_is_read_from_its_end() {
    // 6 MiB of progress lines, then the OOM: the message at the end must be found.
    let dir = std::env::temp_dir().join(format!("vramfit-diag-long-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let f = dir.join("long.log");
    let mut s = String::new();
    while s.len() < 6 << 20 {
        s.push_str("step 1234 | loss 0.4321 | lr 3.0e-05 | tokens/s 12345\n");
    }
    s.push_str("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.05 GiB is free. Of the allocated memory 75.87 GiB is allocated by PyTorch, and 1.60 GiB is reserved by PyTorch but unallocated.\n");
    std::fs::write(&f, &s).expect("write");
    let out = vramfit(&["diagnose", f.to_str().expect("path"), "--json"]);
    let v: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(v["input"], "pytorch_oom");
    assert_eq!(v["evidence"][0]["bytes"], 2u64 << 30);
    assert!(
        v["notes"][0]["en"]
            .as_str()
            .is_some_and(|n| n.contains("last 4 MiB"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}
