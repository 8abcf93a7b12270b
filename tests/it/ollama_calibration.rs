//! The estimator against Ollama's own load decisions (tests/data/ollama-offload.csv): the layers
//! it offloads for the memory it sees, and the estimate it prints for them.

use vramfit::estimate::{Engine, Estimate, EstimateInput, OllamaLoad, estimate};
use vramfit::estimate::{HardwareInput, ModelInput, RunInput, ServingInput};
use vramfit::precision::{GgufFileType, Quantization};

use crate::calibration::csv;

const MIB: f64 = 1_048_576.0;
const GIB: f64 = 1_073_741_824.0;

/// One logged Ollama load.
#[derive(Debug, Clone)]
pub struct OllamaRun {
    pub source: String,
    pub date: String,
    pub model: String,
    pub preset: String,
    pub file_type: GgufFileType,
    pub gguf_arch: String,
    pub num_ctx: u64,
    pub parallel: u64,
    pub available: String,
    pub layers_model: u64,
    pub layers_offload: u64,
    /// The logged figures in bytes: full, partial, kv, graph full, graph partial, non-repeating.
    pub required_full: f64,
    pub required_partial: f64,
    pub kv: f64,
    pub graph_full: f64,
    pub graph_partial: f64,
}

/// A size as Ollama's `format.HumanBytes2` prints it: `896.0 MiB`, `3.7 GiB`.
fn bytes(s: &str) -> f64 {
    let (n, unit) = s.split_once(' ').unwrap();
    let n: f64 = n.parse().unwrap();
    n * match unit {
        "MiB" => MIB,
        "GiB" => GIB,
        _ => panic!("unit of {s}"),
    }
}

pub fn ollama_runs() -> Vec<OllamaRun> {
    csv(include_str!("../data/ollama-offload.csv"), |row| {
        let g = |n: &str| row.get(n).to_string();
        let u = |n: &str| row.get(n).parse::<u64>().unwrap();
        OllamaRun {
            source: g("source"),
            date: g("date"),
            model: g("model"),
            preset: g("preset"),
            file_type: *GgufFileType::ALL
                .iter()
                .find(|f| f.name().eq_ignore_ascii_case(row.get("file_type")))
                .unwrap(),
            gguf_arch: g("gguf_arch"),
            num_ctx: u("num_ctx"),
            parallel: u("parallel"),
            available: g("available"),
            layers_model: u("layers_model"),
            layers_offload: u("layers_offload"),
            required_full: bytes(row.get("required_full")),
            required_partial: bytes(row.get("required_partial")),
            kv: bytes(row.get("kv")),
            graph_full: bytes(row.get("graph_full")),
            graph_partial: bytes(row.get("graph_partial")),
        }
    })
}

/// The estimate of a logged load: the preset in the log's file type, its context and parallel
/// sequences, on a card of the memory Ollama saw free. A preset carries no GGUF architecture, so
/// the run names the library model that has it (qwen2.5 for `qwen2`, llama3.2 for `llama`); a
/// family without one (`gemma3`) is read from the preset's layer pattern.
pub fn estimate_run(r: &OllamaRun) -> (Estimate, OllamaLoad) {
    let model = match r.gguf_arch.as_str() {
        "qwen2" => format!("qwen2.5:72b-{}", r.file_type.name()),
        "llama" => format!("llama3.2:3b-{}", r.file_type.name()),
        // No library name: the preset in the log's file type, its family read from its layers.
        _ => r.preset.clone(),
    };
    let input = EstimateInput {
        model: ModelInput {
            model: Some(model),
            quantization: Quantization::Gguf {
                file_type: r.file_type,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Ollama,

            // Every row is a load of Ollama's Go runner (0.24 and before: its own plan, its
            // vendored llama.cpp, flash attention off): any such release has the same rules.
            engine_version: Some("0.24.0".into()),
            seq_len: 1024.0,
            new_tokens: 0.0,
            batch: r.parallel as f64,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(r.num_ctx as f64),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu_memory: Some(r.available.replace(' ', "")),
            ..Default::default()
        },
        ..Default::default()
    };
    let e = estimate(&input).unwrap_or_else(|e| panic!("{}: {e}", r.model));
    let load = e.ollama.clone().unwrap();
    (e, load)
}

/// Relative error of vramfit's figure against the log's, its one-decimal rounding allowed for.
fn err(ours: f64, logged: f64) -> f64 {
    ours / logged - 1.0
}

#[test]
fn every_log_is_read_and_its_preset_is_the_one_named() {
    let runs = ollama_runs();
    assert_eq!(runs.len(), 3);
    for r in &runs {
        assert!(r.source.starts_with("https://") && r.date.len() == 10);
        let (_, a, _) = vramfit::catalog::find_model(&r.preset).unwrap();
        assert_eq!(a.num_layers + 1, r.layers_model, "{}", r.model);
    }
}

/// The layers Ollama offloads, exactly; its KV and graph estimates to the log's printed digits;
/// its full and partial totals within 2 % (the blocks' GGUF sizes are vramfit's).
#[test]
fn ollamas_decision_and_estimate_are_reproduced() {
    for r in ollama_runs() {
        let (_, load) = estimate_run(&r);
        assert_eq!(load.gpu_layers, r.layers_offload, "{}", r.model);
        assert_eq!(load.model_layers, r.layers_model);
        let kv = load.kv_bytes.get() as f64;
        assert!((kv - r.kv).abs() < 0.05 * MIB, "{}: KV {kv}", r.model);
        let graph = load.graph_bytes.get() as f64;
        let logged = if load.gpu_layers == load.model_layers {
            r.graph_full
        } else {
            r.graph_partial
        };
        // MiB figures to 0.1 MiB; GiB figures to 0.1 GiB.
        let tol = if logged < GIB { 0.05 * MIB } else { 0.05 * GIB };
        assert!((graph - logged).abs() < tol, "{}: graph {graph}", r.model);
        for (name, ours, logged) in [
            ("full", load.total_bytes.get() as f64, r.required_full),
            ("partial", load.vram_bytes.get() as f64, r.required_partial),
        ] {
            assert!(
                err(ours, logged).abs() < 0.02,
                "{} {name}: {:.2} GiB against {:.2} GiB",
                r.model,
                ours / GIB,
                logged / GIB
            );
        }
    }
}
