//! vLLM's start-up moments (`Estimate::step`) against the measured runs of
//! tests/data/vllm-h100-v0.19-calibration.csv (the llm-d planner accuracy study, H100-80GB, vLLM
//! v0.19.0), whose logs give each stage on its own: the CUDA memory at start, "Model loading
//! took", the profile's torch peak and non-torch growth, "Available KV cache memory" and the
//! graphs' actual memory. The measured moments:
//! - loaded = init_cuda_memory + weights_memory;
//! - profile run = loaded + activation_memory + non_torch_forward;
//! - KV pool = loaded + non_torch_forward + kv_cache_memory (the profile's tensors freed);
//! - CUDA graphs = KV pool + cuda_graph_actual.

use crate::calibration::{GIB, csv, estimate_run, vllm_runs};
use vramfit::estimate::{Estimate, Phase};

/// The estimate's moment at `phase`, in GiB.
fn at(e: &Estimate, phase: Phase) -> f64 {
    e.step
        .iter()
        .find(|m| m.phase == phase)
        .map(|m| m.bytes.get() as f64 / GIB)
        .unwrap_or_else(|| panic!("no {phase:?} moment"))
}

#[test]
fn vllm_moments_against_every_measured_start_up() {
    let text = include_str!("../data/vllm-h100-v0.19-calibration.csv");
    let measured = csv(text, |row| {
        let num = |n: &str| row.get(n).parse::<f64>().unwrap();
        let loaded = num("init_cuda_memory_gib") + num("weights_memory_gib");
        let non_torch = num("non_torch_forward_gib");
        let pool = loaded + non_torch + num("kv_cache_memory_gib");
        [
            loaded,
            loaded + num("activation_memory_gib") + non_torch,
            pool,
            pool + num("cuda_graph_actual_gib"),
        ]
    });
    let phases = [
        Phase::Load,
        Phase::ProfileRun,
        Phase::KvPool,
        Phase::CudaGraphs,
    ];
    for (r, m) in vllm_runs().iter().zip(measured) {
        let e = estimate_run(r);
        for (i, phase) in phases.iter().enumerate() {
            let err = at(&e, *phase) / m[i] - 1.0;
            let what = format!("{} tp {} pp {} {phase:?}", r.model, r.tp, r.pp);
            // The pool and the graphs: within 1 % on every run (at most +0.72 % and −0.91 %).
            // Loaded and profile, over one pipeline stage, count the heaviest stage (the
            // embedding's or the head's) where the log is one worker's: never under by more
            // than 1 %, up to +33 % over at pp 4; elsewhere within 1 % loaded and 6 % profile
            // (the most, Gemma 2 2B's, +5.55 %: +2.86 % before the 0.17–0.20 line's stated
            // 0.25 GiB margin, counted with the non-torch memory, which keeps every run's pool
            // at or under vLLM's; the Triton top-k/top-p buffer's rows are the named H100's 132,
            // as in the calibration's 3.78 copies, `estimate/vllm/sampler.rs`).
            let bound = match (phase, r.pp) {
                (Phase::KvPool | Phase::CudaGraphs, _) => 0.01,
                (_, 2..) => {
                    assert!(err > -0.01, "{what}: {:+.2} %", err * 100.0);
                    continue;
                }
                (Phase::Load, _) => 0.01,
                _ => 0.06,
            };
            assert!(err.abs() < bound, "{what}: {:+.2} %", err * 100.0);
        }
    }
}

/// llama.cpp's moments against its published load logs (tests/data/llamacpp-buffers.csv): the
/// KV buffer's moment adds the logged `KV buffer size` (and a hybrid's `RS buffer size`) to the
/// model buffers' moment, to the
/// printed hundredth of a MiB, on every log with a KV buffer that vramfit reproduces (the
/// misses, with why, are in `llamacpp_calibration::MISSES`), and the last moment is every
/// buffer, the estimate's total.
#[test]
fn llamacpp_moments_add_the_logged_kv_buffer() {
    use crate::llamacpp_calibration::{estimate_run, llamacpp_runs, miss};
    let mut seen = 0;
    for r in llamacpp_runs() {
        let e = estimate_run(&r);
        let last = e.step.last().expect("moments");
        assert_eq!(last.bytes, e.total_bytes, "{}", r.source);
        let (Some(kv), None, None) = (r.kv_buffer, miss(&r, "KV"), miss(&r, "RS")) else {
            continue;
        };
        // A hybrid model's recurrent state is allocated with its KV cache, in the same moment.
        let kv = kv + r.rs_buffer.unwrap_or(0.0);
        if e.step.iter().all(|m| m.phase != Phase::KvPool) {
            continue;
        }
        let bytes = |p: Phase| {
            e.step
                .iter()
                .find(|m| m.phase == p)
                .map_or(0, |m| m.bytes.get())
        };
        let step = (bytes(Phase::KvPool) - bytes(Phase::Load)) as f64;
        // The log prints MiB to the hundredth: within half of one.
        assert!(
            (step - kv).abs() <= 0.005 * 1_048_576.0,
            "{}: {step} B against {kv} B logged",
            r.source
        );
        seen += 1;
    }
    assert!(seen >= 10, "{seen}");
}
