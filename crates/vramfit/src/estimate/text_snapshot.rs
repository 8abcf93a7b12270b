//! The estimates' text held to a snapshot, and the numbers-only estimate held to the full one.
//!
//! `Workload::figures` builds no text; `Workload::estimate` builds it only when asked, through
//! the same code. Two checks keep that honest over every run shape of `formula_zh`'s list
//! (about 1,300 inputs): the full estimate's JSON, text and numbers, hashes to the digest
//! recorded in `tests/data/estimate-digests.txt` (written from the estimator before its text
//! became lazy; `VRAMFIT_BLESS=1 cargo test -p vramfit --lib text_snapshot` writes it again after
//! a deliberate change), and the numbers-only estimate equals the full one with its text removed.

use super::formula_zh::tests::run_shapes;
use super::{Estimate, EstimateInput, within_reach};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

const DIGESTS: &str = include_str!("../../tests/data/estimate-digests.txt");

/// FNV-1a, 64 bits: a stable digest of a text.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A line per run shape: its place in the list, what it is, and the digest of its estimate's
/// JSON (or of its error).
fn digest_line(i: usize, input: &EstimateInput) -> String {
    let what = format!(
        "{} {:?} {:?} {:?} gpu={} tp={} pp={}",
        input
            .model
            .as_deref()
            .or(input.params.as_deref())
            .unwrap_or("arch"),
        input.mode,
        input.engine,
        input.quantization,
        input.gpu.as_deref().unwrap_or("-"),
        input.tp,
        input.pp,
    );
    let json = match input.resolve().map(|w| within_reach(w.estimate())) {
        Ok(Ok(e)) => serde_json::to_string(&e).unwrap_or_default(),
        Ok(Err(e)) | Err(e) => format!("{e}"),
    };
    format!("{i}\t{what}\t{:016x}", fnv(&json))
}

#[test]
fn every_estimate_reads_as_the_snapshot() {
    let lines: Vec<String> = run_shapes()
        .iter()
        .enumerate()
        .map(|(i, input)| digest_line(i, input))
        .collect();
    if std::env::var_os("VRAMFIT_BLESS").is_some() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/estimate-digests.txt"
        );
        std::fs::write(path, lines.join("\n") + "\n").expect("the snapshot is writable");
        return;
    }
    let want: Vec<&str> = DIGESTS.lines().collect();
    assert_eq!(
        lines.len(),
        want.len(),
        "run shapes added or removed: bless again"
    );
    let changed: Vec<String> = lines
        .iter()
        .zip(&want)
        .filter(|(got, want)| got.as_str() != **want)
        .map(|(got, want)| format!("now  {got}\nwas  {want}"))
        .collect();
    assert!(
        changed.is_empty(),
        "{} estimates changed (text or numbers):\n{}",
        changed.len(),
        changed.join("\n")
    );
}

/// `e` with every text emptied, as `figures` gives it.
fn without_text(mut e: Estimate) -> Estimate {
    for c in &mut e.components {
        for s in [
            &mut c.formula,
            &mut c.formula_zh,
            &mut c.note_en,
            &mut c.note_zh,
        ] {
            s.clear();
        }
    }
    e.quick.formula.clear();
    e.quick.formula_zh.clear();
    e.notes.clear();
    e.differences.clear();
    if let Some(t) = e.throughput.as_mut() {
        t.formulas.clear();
    }
    if let Some(r) = e.fit.as_mut().and_then(|f| f.reason.as_mut()) {
        r.en.clear();
        r.zh.clear();
    }
    e
}

#[test]
fn the_numbers_alone_are_the_full_estimates_numbers() {
    let mut n = 0;
    for input in run_shapes() {
        let Ok(w) = input.resolve() else { continue };
        let (full, bare) = (w.estimate(), w.figures());
        assert!(bare.components.iter().all(|c| c.formula.is_empty()));
        assert_eq!(without_text(full), bare, "{input:?}");
        n += 1;
    }
    assert!(n > 1000, "{n} run shapes compared");
}
