//! The diagnosis corpus: `tests/corpus/diagnose/NAME.txt` is a real-shaped message or log and
//! `NAME.expect.json` what must be read from it. Numbers are asserted exactly.
//!
//! Sidecar keys (all optional but `kind` and `input`):
//! - `kind`, `input`, `leaf`, `confidence`: as in the JSON of a `Diagnosis`;
//! - `evidence`: `{name: bytes}`, the first evidence of that name must have exactly these bytes;
//! - `values`: `{name: v}` or `{name: [v, tolerance]}`, for counts, ratios and rates;
//! - `pointers`: `{json_pointer: expected}` into the serialized `Diagnosis` (`[v, tol]` for
//!   floats compared with a tolerance, when the expected value is a two-number array and the
//!   actual one a number);
//! - `fixes_first`: the id of the first fix; `paste`: whether `what_to_paste_instead` is set;
//! - `notes`: how many notes; `source`: where the shape comes from (not checked).

use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use vramfit::diagnose::{Kind, diagnose};

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/diagnose")
}

fn close(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Number(a), Value::Array(pair)) if pair.len() == 2 => {
            let (Some(a), Some(v), Some(t)) = (a.as_f64(), pair[0].as_f64(), pair[1].as_f64())
            else {
                return false;
            };
            (a - v).abs() <= t * v.abs().max(1.0)
        }
        (Value::Number(a), Value::Number(e)) => match (a.as_u64(), e.as_u64()) {
            (Some(a), Some(e)) => a == e,
            _ => a
                .as_f64()
                .zip(e.as_f64())
                .is_some_and(|(a, e)| (a - e).abs() <= 1e-9 * e.abs().max(1.0)),
        },
        _ => actual == expected,
    }
}

fn check_one(name: &str, text: &str, expect: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    let d = diagnose(text);
    let json = serde_json::to_value(&d).expect("a Diagnosis serializes");
    for key in ["kind", "input", "leaf", "confidence"] {
        if let Some(e) = expect.get(key) {
            let got = json.get(key).unwrap_or(&Value::Null);
            if got != e {
                errors.push(format!("{key}: got {got}, expected {e}"));
            }
        }
    }
    if let Some(Value::Object(ev)) = expect.get("evidence") {
        for (k, e) in ev {
            match d.evidence.iter().find(|x| x.name == *k) {
                Some(x) if x.bytes.map(|b| b.get()) == e.as_u64() => {}
                Some(x) => errors.push(format!(
                    "evidence {k}: got {:?} ({}), expected {e} bytes",
                    x.bytes.map(|b| b.get()),
                    x.text
                )),
                None => errors.push(format!("evidence {k}: missing")),
            }
        }
    }
    if let Some(Value::Object(vals)) = expect.get("values") {
        for (k, e) in vals {
            match d.evidence.iter().find(|x| x.name == *k) {
                Some(x) => {
                    let got = x.value.map(Value::from).unwrap_or(Value::Null);
                    if !close(&got, e) {
                        errors.push(format!("value {k}: got {got} ({}), expected {e}", x.text));
                    }
                }
                None => errors.push(format!("value {k}: missing")),
            }
        }
    }
    if let Some(Value::Object(ptrs)) = expect.get("pointers") {
        for (p, e) in ptrs {
            let got = json.pointer(p).unwrap_or(&Value::Null);
            if !close(got, e) {
                errors.push(format!("{p}: got {got}, expected {e}"));
            }
        }
    }
    if let Some(f) = expect.get("fixes_first").and_then(Value::as_str) {
        let got = d.fixes.first().map(|f| f.id.as_str()).unwrap_or("");
        if got != f {
            errors.push(format!("first fix: got {got}, expected {f}"));
        }
    }
    if let Some(p) = expect.get("paste").and_then(Value::as_bool)
        && d.what_to_paste_instead.is_some() != p
    {
        errors.push(format!(
            "what_to_paste_instead: got {}, expected {p}",
            d.what_to_paste_instead.is_some()
        ));
    }
    if let Some(n) = expect.get("notes").and_then(Value::as_u64)
        && d.notes.len() as u64 != n
    {
        errors.push(format!(
            "notes: got {} {:?}, expected {n}",
            d.notes.len(),
            d.notes.iter().map(|t| &t.en).collect::<Vec<_>>()
        ));
    }
    // `detect` agrees with `diagnose`.
    let detected = vramfit::diagnose::detect(text);
    if detected != d.input {
        errors.push(format!(
            "detect says {}, diagnose says {}",
            detected.as_str(),
            d.input.as_str()
        ));
    }
    // What every diagnosis must hold, whatever the input.
    if d.explanation.en.is_empty() || d.explanation.zh.is_empty() {
        errors.push("explanation missing in a language".into());
    }
    if d.kind == Kind::Unknown {
        if d.what_to_paste_instead.is_none() {
            errors.push("unknown without what_to_paste_instead".into());
        }
    } else if d.fixes.is_empty() || d.leaf.is_none() {
        errors.push("a classified diagnosis needs a leaf and fixes".into());
    }
    if !d.fixes.windows(2).all(|w| w[0].effort <= w[1].effort) {
        errors.push("fixes not ranked by effort".into());
    }
    errors.into_iter().map(|e| format!("{name}: {e}")).collect()
}

#[test]
fn corpus() {
    let dir = corpus_dir();
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".txt").map(String::from))
        .collect();
    names.sort();
    assert!(names.len() >= 40, "the corpus has {} cases", names.len());
    let mut errors = Vec::new();
    let mut formats = std::collections::BTreeSet::new();
    for name in &names {
        let text = fs::read_to_string(dir.join(format!("{name}.txt"))).expect("read case");
        let expect_path = dir.join(format!("{name}.expect.json"));
        let expect: Value = serde_json::from_str(
            &fs::read_to_string(&expect_path)
                .unwrap_or_else(|e| panic!("{}: {e}", expect_path.display())),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", expect_path.display()));
        assert!(
            expect.get("kind").is_some() && expect.get("input").is_some(),
            "{name}: kind and input are required"
        );
        formats.insert(expect["input"].as_str().unwrap_or("").to_string());
        errors.extend(check_one(name, &text, &expect));
    }
    assert!(
        errors.is_empty(),
        "{} corpus failures:\n{}",
        errors.len(),
        errors.join("\n")
    );
    // Every format has cases.
    for f in [
        "pytorch_oom",
        "tensorflow_oom",
        "jax_oom",
        "vllm_error",
        "llamacpp_error",
        "memory_summary",
        "nvidia_smi_table",
        "nvidia_smi_csv",
        "unknown",
    ] {
        assert!(formats.contains(f), "no case for {f}");
    }
}

#[test]
fn every_case_survives_truncation_at_every_char_boundary() {
    // Cut each case at many points (including inside multi-byte characters' neighbours): no
    // panic, and the result is always a well-formed diagnosis.
    let dir = corpus_dir();
    for entry in fs::read_dir(&dir).expect("corpus").filter_map(|e| e.ok()) {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "txt") {
            continue;
        }
        let text = fs::read_to_string(&path).expect("read");
        let step = (text.len() / 40).max(1);
        for (i, _) in text.char_indices().step_by(step) {
            let d = diagnose(&text[..i]);
            assert!(
                !d.explanation.en.is_empty(),
                "{}: cut at {i}",
                path.display()
            );
        }
    }
}

#[test]
fn a_100_kb_nvidia_smi_log_reads_as_a_leak() {
    let mut s = String::from("timestamp, index, memory.used [MiB], memory.total [MiB]\n");
    let mut i = 0u64;
    while s.len() < 100_000 {
        s.push_str(&format!(
            "2026/11/30 {:02}:{:02}:{:02}.000, 0, {} MiB, 81559 MiB\n",
            10 + i / 3600,
            (i / 60) % 60,
            i % 60,
            20_000 + i * 7
        ));
        i += 1;
    }
    // Memory that grows by 7 MiB every second for the whole log is a leak. How fast a log
    // of this size is read is measured by `cargo xtask bench` ("diagnose a 100 KB
    // nvidia-smi CSV log"), not timed here: a timer in a test fails on a busy machine.
    assert_eq!(diagnose(&s).kind, Kind::Leak);
}

#[test]
fn every_evidence_reads_in_both_languages() {
    let mut missing = Vec::new();
    for entry in fs::read_dir(corpus_dir()).expect("the corpus") {
        let path = entry.expect("an entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("txt") {
            continue;
        }
        let text = fs::read_to_string(&path).expect("a text case");
        for e in diagnose(&text).evidence {
            // The value's text reads in Chinese too: none of its English words is left.
            let zh = vramfit::diagnose::evidence_text_zh(&e.text);
            for word in [
                "held", "pinned", "report", "samples", "tokens", "blocks", "layers", "process",
                "device", "after",
            ] {
                if zh.contains(word) {
                    missing.push(format!("{}: `{word}` left in `{zh}`", path.display()));
                }
            }
            match vramfit::diagnose::evidence_label(&e.name) {
                Some((en, zh)) if !en.is_empty() && !zh.is_empty() => {}
                _ => missing.push(format!("{}: {}", path.display(), e.name)),
            }
        }
    }
    assert!(missing.is_empty(), "evidence without Chinese: {missing:?}");
}
