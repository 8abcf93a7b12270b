//! The estimator against PyTorch's own accounting of real models: `tests/reference/torch-peaks.csv`,
//! produced by `tests/reference/torch_peaks.py` (transformers models run under fake tensors, every
//! storage tracked and rounded as the caching allocator rounds it; see that folder's README).

use vramfit::estimate::{
    AttentionImpl, Checkpointing, Estimate, EstimateInput, Logits, Mode, Optimizer, Precision,
    estimate,
};
use vramfit::precision::Dtype;

/// One reference case.
#[derive(Debug, Clone)]
pub struct TorchCase {
    pub id: String,
    pub training: bool,
    pub peak: u64,
    pub input: EstimateInput,
}

pub fn cases() -> Vec<TorchCase> {
    let text = include_str!("../reference/torch-peaks.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let g = |n: &str| f[col(n)];
            let id = g("case_id").to_string();
            let training = g("mode") == "training";
            let lora_rank: f64 = g("lora_rank").parse().unwrap_or(0.0);
            let lora_targets = match g("lora_targets") {
                // GPT-2's fused qkv projection.
                "c_attn" => vec!["q_proj".into(), "k_proj".into(), "v_proj".into()],
                "" => Vec::new(),
                t => t.split('+').map(String::from).collect(),
            };
            let input = EstimateInput {
                model: Some(g("model").to_string()),
                mode: if training {
                    Mode::Training
                } else {
                    Mode::Inference
                },
                batch: g("batch").parse().unwrap(),
                seq_len: g("seq_len").parse().unwrap(),
                // Prefill only, or prefill and one generated token.
                new_tokens: if id.contains("-gen1-") { 1.0 } else { 0.0 },
                dtype: Some(Dtype::parse("dtype", g("dtype")).unwrap()),
                attention: if g("attention") == "eager" {
                    AttentionImpl::Eager
                } else {
                    AttentionImpl::Sdpa
                },
                logits: if g("logits") == "all" {
                    Logits::All
                } else {
                    Logits::Last
                },
                optimizer: match g("optimizer") {
                    // The generator runs SGD with momentum 0.9.
                    "sgd" => Optimizer::SgdMomentum,
                    _ => Optimizer::Adamw,
                },
                fused_optimizer: g("fused") == "True",
                precision: match g("precision") {
                    "fp32" => Precision::Fp32,
                    "bf16" => Precision::Bf16,
                    _ => Precision::AmpBf16,
                },
                grad_checkpointing: if g("grad_checkpointing") == "True" {
                    Checkpointing::Full
                } else {
                    Checkpointing::None
                },
                lora_rank,
                lora_targets,
                // The generator runs on sm90 (H100) rules: 32 MiB cuBLAS workspace.
                gpu: Some("h100-sxm5-80gb".into()),
                ..EstimateInput::default()
            };
            TorchCase {
                id,
                training,
                peak: g("peak_allocated_bytes").parse().unwrap(),
                input,
            }
        })
        .collect()
}

/// Every case with vramfit's estimate and the relative error of `peak_allocated_bytes`.
pub fn errors() -> Vec<(TorchCase, Estimate, f64)> {
    cases()
        .into_iter()
        .map(|c| {
            let e = estimate(&c.input).unwrap_or_else(|err| panic!("{}: {err}", c.id));
            let err = e.peak_allocated_bytes.get() as f64 / c.peak as f64 - 1.0;
            (c, e, err)
        })
        .collect()
}

#[test]
fn every_case_estimates() {
    assert_eq!(cases().len(), 112);
}

#[test]
fn peak_allocated_within_target_at_the_median() {
    let errs = errors();
    let med = |training: bool| {
        crate::calibration::median(
            errs.iter()
                .filter(|(c, _, _)| c.training == training)
                .map(|(_, _, e)| e.abs())
                .collect(),
        )
    };
    // Targets (issue 3): 5 % for inference, 10 % for training, at the median.
    assert!(
        med(false) < 0.05,
        "inference median |error| {:.4}",
        med(false)
    );
    assert!(med(true) < 0.10, "training median |error| {:.4}", med(true));
}
