//! The vLLM pool by release line against published start-up logs (tests/data/vllm-versions.csv,
//! what was read from each in vllm-versions.notes.md): on every log whose model has a preset,
//! the estimate run with the log's release, card memory, utilisation, context, tp and
//! quantization never promises a pool larger than vLLM's, and is at most 3 % short of it, or the
//! row is listed in [`SHORT`] with its reason.

use crate::calibration::{csv, median};
use vramfit::estimate::{Engine, Estimate, EstimateInput, Mode, VllmVersion, estimate};
use vramfit::precision::Quantization;

const GIB: f64 = 1_073_741_824.0;

/// One published vLLM start-up log.
#[derive(Debug, Clone)]
pub struct Log {
    pub id: String,
    pub source: String,
    pub version: String,
    pub gpu: String,
    pub total_gib: Option<f64>,
    pub preset: String,
    pub quantization: String,
    pub tp: Option<u64>,
    pub max_model_len: Option<u64>,
    pub max_num_seqs: Option<u64>,
    pub max_num_batched_tokens: Option<u64>,
    pub util: Option<f64>,
    pub eager: bool,
    pub cuda_graph_gib: Option<f64>,
    pub kv_gib: Option<f64>,
}

pub fn logs() -> Vec<Log> {
    csv(include_str!("../data/vllm-versions.csv"), |row| {
        let g = |n: &str| row.get(n).to_string();
        let f = |n: &str| row.get(n).parse::<f64>().ok();
        let u = |n: &str| row.get(n).parse::<u64>().ok();
        Log {
            id: g("id"),
            source: g("source"),
            version: g("vllm_version"),
            gpu: g("gpu"),
            total_gib: f("total_gpu_memory_gib"),
            preset: g("preset"),
            quantization: g("quantization"),
            tp: u("tp"),
            max_model_len: u("max_model_len"),
            max_num_seqs: u("max_num_seqs"),
            max_num_batched_tokens: u("max_num_batched_tokens"),
            util: f("gpu_memory_utilization"),
            eager: row.get("enforce_eager") == "true",
            cuda_graph_gib: f("cuda_graph_gib"),
            kv_gib: f("kv_cache_gib"),
        }
    })
}

/// The logs vramfit can run: a preset, the card's memory, the utilisation and a pool printed.
pub fn estimable() -> Vec<Log> {
    logs()
        .into_iter()
        .filter(|l| {
            !l.preset.is_empty() && l.total_gib.is_some() && l.util.is_some() && l.kv_gib.is_some()
        })
        .collect()
}

/// vramfit's estimate for a logged start-up.
pub fn estimate_log(l: &Log) -> Estimate {
    let quantization = match l.quantization.as_str() {
        "none" | "" => Quantization::None,
        q => Quantization::parse("quantization", q).unwrap(),
    };
    let tp = l.tp.unwrap_or(1);
    let input = EstimateInput {
        model: Some(l.preset.clone()),
        mode: Mode::Serve,
        engine: Engine::Vllm,
        engine_version: Some(l.version.clone()),
        quantization,
        gpu_memory: Some(format!("{}GiB", l.total_gib.unwrap())),
        gpu_memory_utilization: l.util.unwrap(),
        max_model_len: l.max_model_len.map(|v| v as f64),
        max_num_seqs: l.max_num_seqs.map(|v| v as f64),
        max_num_batched_tokens: l.max_num_batched_tokens.map(|v| v as f64),
        cuda_graphs: !l.eager,
        tp: tp as f64,
        gpus: Some(tp as f64),
        ..EstimateInput::default()
    };
    estimate(&input).unwrap_or_else(|e| panic!("{}: {e}", l.id))
}

/// The estimated pool over the logged one, minus 1 (a negative logged pool is none).
pub fn pool_error(l: &Log, e: &Estimate) -> f64 {
    let ours = e.kv_cache_bytes.get() as f64 / GIB;
    let theirs = l.kv_gib.unwrap().max(0.0);
    if theirs == 0.0 {
        return if ours == 0.0 { 0.0 } else { f64::INFINITY };
    }
    ours / theirs - 1.0
}

/// Rows short of the log by more than 3 %, with why.
const SHORT: &[(&str, &str)] = &[
    (
        "i10517-20k",
        "a 3.81 GiB pool on a 24 GiB card: vramfit's profile of a 20,000-token prompt is 0.14 GiB \
         above the logged 2.07 GiB (7 %), which is 3.7 % of so small a pool",
    ),
    (
        "i10517-29k",
        "a 2.89 GiB pool: the profile of a 29,000-token prompt is 0.22 GiB above the logged \
         2.99 GiB (7 %), 7.5 % of the pool",
    ),
];

/// Rows where vramfit promises more than the log and the log does not say why: the excerpt
/// prints the pool alone (no weights, profile or non-torch line), so the memory vLLM found
/// taken cannot be read. They stay in the data, are shown in the book's table as over, and
/// this test fails when one of them stops being over (then move it to the checked rows).
const OVER_UNEXPLAINED: &[(&str, &str)] = &[
    (
        "i21348",
        "Qwen3-235B-A22B-FP8 at tp 4 with LMCache's GPU connector (kv_both), whose own GPU \
         buffers vramfit does not model: 3.7 GiB per GPU more than vramfit counts",
    ),
    (
        "i27508",
        "gpt-oss-120b on one H100 at 0.95: vLLM left 1.71 GiB where vramfit counts 60.8 GiB of \
         weights and a 2.9 GiB profile (11.3 GiB); 9.6 GiB unexplained by the excerpt",
    ),
];

/// The release line a version belongs to, as the book's table groups them.
pub fn line(v: &str) -> &'static str {
    let v = VllmVersion::parse("engine_version", v).unwrap();
    match v.minor() {
        6..=7 => "V0 (0.6–0.7)",
        8..=20 => "V1, graphs outside the budget (0.8–0.20)",
        _ => "V1, graphs in the budget (0.21–0.33)",
    }
}

#[test]
fn every_log_is_cited_and_read() {
    let all = logs();
    assert!(all.len() >= 20, "{} logs", all.len());
    for l in &all {
        assert!(l.source.starts_with("https://github.com/"), "{}", l.id);
        VllmVersion::parse("engine_version", &l.version).unwrap();
    }
    assert!(estimable().len() >= 8, "{} estimable", estimable().len());
}

#[test]
fn the_pool_is_never_over_and_at_most_3_percent_short() {
    let mut failures = Vec::new();
    for l in estimable() {
        let e = estimate_log(&l);
        let err = pool_error(&l, &e);
        let short = SHORT.iter().find(|(id, _)| *id == l.id);
        let unexplained = OVER_UNEXPLAINED.iter().any(|(id, _)| *id == l.id);
        if unexplained {
            if err <= 0.0 {
                failures.push(format!("{}: no longer over ({:+.2} %)", l.id, err * 100.0));
            }
        } else if err > 0.0 {
            failures.push(format!("{}: {:+.2} % (over)", l.id, err * 100.0));
        } else if err < -0.03 && short.is_none() {
            failures.push(format!("{}: {:+.2} % (short)", l.id, err * 100.0));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The graph memory the logs print spans 0.09 to 6.24 GiB (a draft model's graphs beside the
/// target's): no one constant reads it, which is why from 0.21, where it comes out of the pool,
/// vramfit charges its larger per-layer estimate there.
#[test]
fn logged_graph_memory_spans_what_the_issue_says() {
    let g: Vec<f64> = logs().iter().filter_map(|l| l.cuda_graph_gib).collect();
    let lo = g.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = g.iter().copied().fold(0.0, f64::max);
    assert!(lo <= 0.1 && hi >= 3.0, "{lo}..{hi}");
}

/// The calibration table by line (the book's), printed with `--nocapture`.
#[test]
fn table_by_line() {
    let mut lines: Vec<(&str, Vec<f64>)> = Vec::new();
    for l in estimable() {
        let e = estimate_log(&l);
        let err = pool_error(&l, &e);
        println!(
            "{:<14} {:<8} {:<10} ours {:>7.2} GiB, log {:>6.2} GiB: {:+.2} % (weights {:.2}, profile {:.2})",
            l.id,
            l.version,
            l.gpu,
            e.kv_cache_bytes.get() as f64 / GIB,
            l.kv_gib.unwrap(),
            err * 100.0,
            e.weights_bytes.get() as f64 / GIB,
            e.activations_bytes.get() as f64 / GIB,
        );
        let k = line(&l.version);
        match lines.iter_mut().find(|(n, _)| *n == k) {
            Some((_, v)) => v.push(err),
            None => lines.push((k, vec![err])),
        }
    }
    for (k, v) in lines {
        let worst = v
            .iter()
            .copied()
            .fold(0.0, |a: f64, b| if b.abs() > a.abs() { b } else { a });
        println!(
            "{k}: {} logs, median {:+.2} %, worst {:+.2} %",
            v.len(),
            median(v.clone()) * 100.0,
            worst * 100.0
        );
    }
}
