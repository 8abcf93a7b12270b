//! The speed under offload against published llama.cpp runs with layers (`-ngl` below all) or
//! routed experts (`--n-cpu-moe`) in CPU memory (tests/data/offload-speed.csv): each run's decode
//! tokens/s against vramfit's, held within [`BOUND`] but for the misses listed with their reason.

use vramfit::estimate::{Engine, EstimateInput, estimate};
use vramfit::precision::{GgufFileType, Quantization};

use crate::calibration::csv;

/// The bound on decode speed under offload.
pub const BOUND: f64 = 0.15;

/// One published run.
#[derive(Debug, Clone)]
pub struct OffloadRun {
    pub source: String,
    pub date: String,
    pub model: String,
    pub preset: String,
    pub file_type: String,
    pub gpu: String,
    pub host: String,
    pub gpu_layers: u64,
    pub n_cpu_moe: u64,
    pub ctx: u64,
    pub measured: f64,
    pub setup: String,
}

pub fn offload_runs() -> Vec<OffloadRun> {
    csv(include_str!("../data/offload-speed.csv"), |row| {
        let g = |n: &str| row.get(n).to_string();
        let u = |n: &str| row.get(n).parse::<u64>().unwrap();
        OffloadRun {
            source: g("source"),
            date: g("date"),
            model: g("model"),
            preset: g("preset"),
            file_type: g("file_type"),
            gpu: g("gpu"),
            host: g("host_memory"),
            gpu_layers: u("gpu_layers"),
            n_cpu_moe: u("n_cpu_moe"),
            ctx: u("ctx"),
            measured: row.get("tg_tokens_per_s").parse().unwrap(),
            setup: g("setup"),
        }
    })
}

/// vramfit's decode tokens/s for a run: the preset in the run's file type (MXFP4_MOE: the
/// checkpoint as it ships, which llama.cpp runs from that file), a 128-token prompt and 128
/// generated tokens (llama-bench's tg128; the servers' short chats), one sequence.
pub fn predicted(r: &OffloadRun) -> f64 {
    let quantization = if r.file_type == "MXFP4_MOE" {
        Quantization::None
    } else {
        Quantization::Gguf {
            file_type: *GgufFileType::ALL
                .iter()
                .find(|f| f.name().eq_ignore_ascii_case(&r.file_type))
                .unwrap_or_else(|| panic!("file type {}", r.file_type)),
        }
    };
    let e = estimate(&EstimateInput {
        model: Some(r.preset.clone()),
        engine: Engine::Llamacpp,
        quantization,
        gpu: Some(r.gpu.clone()),
        host_memory: Some(r.host.clone()),
        // `-ngl 99` (or more) is every layer: the input's default.
        gpu_layers: (r.gpu_layers < 99).then_some(r.gpu_layers as f64),
        n_cpu_moe: (r.n_cpu_moe > 0).then_some(r.n_cpu_moe as f64),
        max_model_len: Some(r.ctx as f64),
        seq_len: 128.0,
        new_tokens: 128.0,
        batch: 1.0,
        ..EstimateInput::default()
    })
    .unwrap_or_else(|e| panic!("{}: {e}", r.model));
    e.throughput
        .and_then(|t| t.decode_tokens_per_s_per_sequence)
        .unwrap_or_else(|| panic!("{}: no speed", r.model))
}

/// Why a run is known to miss, shown in the book and not held to the bound.
pub fn miss(r: &OffloadRun) -> Option<&'static str> {
    // Only runs beyond the bound are excused; the reason is the host's, whose DIMM speed the
    // source does not print.
    if r.gpu == "rtx-2080" && (predicted(r) / r.measured - 1.0).abs() > BOUND {
        return Some(
            "over-estimated: a quad-channel DDR4 host on a 10-core i9-10900X whose DIMM speed is not printed (DDR4-2933 is the CPU's rated speed; DDR4-3200 taken from the author's ~102 GB/s), llmfit's average includes the prompt's time; the host efficiency fitted on dual-channel desktops (0.60 of the peak) is too high for it: about 0.45 would match",
        );
    }
    None
}

#[test]
fn decode_under_offload_matches_published_runs() {
    let runs = offload_runs();
    assert!(runs.len() >= 10);
    let mut failures = Vec::new();
    for r in &runs {
        assert!(r.source.starts_with("https://"), "{}", r.source);
        let p = predicted(r);
        let err = p / r.measured - 1.0;
        println!(
            "{:<40} {:>4} ngl {:>3} ncmoe {:>3} on {:<18} {:<16} measured {:>6.2} vramfit {:>6.2} {:+.1} %",
            r.model,
            r.file_type,
            r.gpu_layers,
            r.n_cpu_moe,
            r.gpu,
            r.host,
            r.measured,
            p,
            err * 100.0
        );
        if err.abs() > BOUND && miss(r).is_none() {
            failures.push(format!(
                "{} ngl {} ncmoe {}: {:+.1} %",
                r.model,
                r.gpu_layers,
                r.n_cpu_moe,
                err * 100.0
            ));
        }
    }
    assert!(failures.is_empty(), "beyond {BOUND}: {failures:#?}");
}
