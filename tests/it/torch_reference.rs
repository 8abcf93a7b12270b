//! The estimator against PyTorch's own accounting of real models: `tests/reference/torch-peaks.csv`,
//! produced by `tests/reference/torch_peaks.py` (transformers models run under fake tensors, every
//! storage tracked and rounded as the caching allocator rounds it; see that folder's README).
//!
//! Each row has a `regime` (what kind of run: `prefill`, `prefill-all-logits`, `decode`,
//! `training`, `amp-small`, `lora-<style>-<precision>`) and a `split`: `tuned` rows are the ones
//! the estimator's formulas may be fitted to, `held-out` rows (other models, batches and lengths)
//! are not, and show whether a fit generalises.

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
    /// `tuned` or `held-out`.
    pub split: String,
    pub regime: String,
    pub peak: u64,
    /// Decode rows: the peak of the decode steps alone (the allocator's peak reset after the
    /// prefill, with the prefill's KV cache alive).
    pub decode_peak: Option<u64>,
    pub input: EstimateInput,
}

/// The LoRA targets of a row as the estimator names them.
fn lora_targets(column: &str) -> Vec<String> {
    column
        .split('+')
        .filter(|t| !t.is_empty())
        .flat_map(|t| match t {
            // GPT-2's fused q, k, v projection and its attention output projection.
            "c_attn" => vec!["q_proj", "k_proj", "v_proj"],
            "attn.c_proj" => vec!["o_proj"],
            t => vec![t],
        })
        .map(String::from)
        .collect()
}

pub fn cases() -> Vec<TorchCase> {
    crate::calibration::csv(include_str!("../reference/torch-peaks.csv"), |row| {
        let g = |n: &str| row.get(n);
        let id = g("case_id").to_string();
        let training = g("mode") == "training";
        let input = EstimateInput {
            model: Some(g("model").to_string()),
            mode: if training {
                Mode::Training
            } else {
                Mode::Inference
            },
            batch: g("batch").parse().unwrap(),
            seq_len: g("seq_len").parse().unwrap(),
            // Prefill only, or prefill and that many generated tokens.
            new_tokens: g("decode_steps").parse().unwrap(),
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
            // Both adapter styles (`lora_style` peft or hand) map to the same input: the
            // estimator has no switch for the adapter's dtype or peft's input casts.
            lora_rank: g("lora_rank").parse().unwrap(),
            lora_targets: lora_targets(g("lora_targets")),
            // The generator runs on sm90 (H100) rules: 32 MiB cuBLAS workspace.
            gpu: Some("h100-sxm5-80gb".into()),
            ..EstimateInput::default()
        };
        TorchCase {
            id,
            training,
            split: g("split").to_string(),
            regime: g("regime").to_string(),
            peak: g("peak_allocated_bytes").parse().unwrap(),
            decode_peak: g("decode_peak_bytes").parse().ok(),
            input,
        }
    })
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
    let cases = cases();
    assert_eq!(cases.len(), 185);
    assert_eq!(cases.iter().filter(|c| c.split == "held-out").count(), 38);
}

#[test]
fn lora_targets_of_gpt2_are_q_k_v_and_o() {
    assert_eq!(
        lora_targets("c_attn+attn.c_proj"),
        ["q_proj", "k_proj", "v_proj", "o_proj"]
    );
    assert_eq!(lora_targets("q_proj+v_proj"), ["q_proj", "v_proj"]);
    assert!(lora_targets("").is_empty());
}

#[test]
fn peak_allocated_within_target_at_the_median() {
    let errs = errors();
    let med = |training: bool| {
        crate::calibration::median(
            errs.iter()
                .filter(|(c, _, _)| c.training == training && c.split == "tuned")
                .map(|(_, _, e)| e.abs())
                .collect(),
        )
    };
    // Targets (issue 3): 5 % for inference, 10 % for training, at the median of the tuned rows.
    assert!(
        med(false) < 0.05,
        "inference median |error| {:.4}",
        med(false)
    );
    assert!(med(true) < 0.10, "training median |error| {:.4}", med(true));
}

/// Issue 31's goals: |error| at the median of a regime 3 % (inference) or 5 % (training), and
/// 10 % for any one case.
const GOAL_MEDIAN_INFERENCE: f64 = 0.03;
const GOAL_MEDIAN_TRAINING: f64 = 0.05;
const GOAL_MAX: f64 = 0.10;

/// Per regime and split: the median and the largest |error| allowed, in percent. Where the
/// estimator meets issue 31's goal the bound is the goal; where it does not, the bound is the
/// error measured when the regime was added (rounded up to the next 0.5 %): a known gap, reported
/// in `tests/reference/FINDINGS-31.md` (issue #31). A fix must lower these rows to the goal, never
/// raise them.
const BOUNDS: &[(&str, &str, f64, f64)] = &[
    // (regime, split, median %, max %); measured 2026-12-03 in comments where above the goal.
    ("prefill", "tuned", 3.0, 11.5), // max 11.18: eager Llama-3.2-1B prefill (issue #31)
    ("prefill", "held-out", 3.0, 10.0),
    ("prefill-all-logits", "tuned", 7.0, 12.0), // 6.75 / 11.70 (issue #31)
    ("prefill-all-logits", "held-out", 5.5, 10.0), // 5.42 / 9.69 (issue #31)
    ("decode", "tuned", 3.0, 10.5),             // max 10.43: GPT-2 fp32 b4 prefill (issue #31)
    ("decode", "held-out", 3.0, 10.0),
    ("training", "tuned", 5.0, 20.5), // max 20.16: Qwen2.5-0.5B fp32 checkpointed (issue #31)
    ("training", "held-out", 5.0, 11.0), // max 10.95: BERT-large fp32 (issue #31)
    ("amp-small", "tuned", 10.0, 14.5), // 9.50 / 14.22 (issue #31)
    ("amp-small", "held-out", 11.5, 11.5), // 11.19 / 11.22 (issue #31)
    ("lora-hand-amp-bf16", "tuned", 6.5, 25.0), // 6.37 / 24.73 (issue #31)
    ("lora-hand-amp-bf16", "held-out", 5.0, 10.0),
    ("lora-hand-bf16", "tuned", 28.0, 34.5), // 27.79 / 34.27 (issue #31; a comparison only)
    ("lora-peft-bf16", "tuned", 11.0, 16.0), // 10.79 / 15.54 (issue #31)
    ("lora-peft-bf16", "held-out", 12.5, 19.0), // 12.08 / 18.75 (issue #31)
    ("lora-peft-amp-bf16", "tuned", 9.0, 24.5), // 8.78 / 24.43 (issue #31)
];

/// Per (regime, split): the number of cases, the median and the largest |error| in percent,
/// with the regimes in the order of [`BOUNDS`] (then any other, alphabetically).
pub fn regime_table(errs: &[(TorchCase, Estimate, f64)]) -> Vec<(String, String, usize, f64, f64)> {
    let mut keys: Vec<(String, String)> = Vec::new();
    for (c, _, _) in errs {
        let k = (c.regime.clone(), c.split.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let rank = |k: &(String, String)| {
        BOUNDS
            .iter()
            .position(|(r, s, _, _)| *r == k.0 && *s == k.1)
            .unwrap_or(BOUNDS.len())
    };
    keys.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.cmp(b)));
    keys.into_iter()
        .map(|(regime, split)| {
            let group: Vec<f64> = errs
                .iter()
                .filter(|(c, _, _)| c.regime == regime && c.split == split)
                .map(|(_, _, e)| e.abs() * 100.0)
                .collect();
            let n = group.len();
            let max = group.iter().copied().fold(0.0, f64::max);
            let med = crate::calibration::median(group);
            (regime, split, n, med, max)
        })
        .collect()
}

#[test]
fn every_regime_within_its_recorded_bounds() {
    let errs = errors();
    for (c, e, err) in &errs {
        println!(
            "{:62} {:9} {:>16} {:>16} {:+7.2} %",
            c.id,
            c.split,
            c.peak,
            e.peak_allocated_bytes.get(),
            err * 100.0
        );
    }
    println!(
        "{:22} {:9} {:>5} {:>9} {:>9} {:>9} {:>9}",
        "regime", "split", "cases", "median %", "bound", "max %", "bound"
    );
    let mut failures = Vec::new();
    for (regime, split, n, med, max) in regime_table(&errs) {
        let Some(&(_, _, med_bound, max_bound)) = BOUNDS
            .iter()
            .find(|(r, s, _, _)| *r == regime && *s == split)
        else {
            failures.push(format!("{regime} / {split}: no bound"));
            continue;
        };
        println!(
            "{regime:22} {split:9} {n:>5} {med:>9.3} {med_bound:>9.1} {max:>9.3} {max_bound:>9.1}"
        );
        if med > med_bound || max > max_bound {
            failures.push(format!(
                "{regime} / {split}: median {med:.2} % (bound {med_bound}), max {max:.2} % (bound {max_bound})"
            ));
        }
    }
    // No bound is looser than the goal where the goal holds, and none is left without cases.
    for &(regime, split, med_bound, max_bound) in BOUNDS {
        let training = !matches!(regime, "prefill" | "prefill-all-logits" | "decode");
        let goal = if training {
            GOAL_MEDIAN_TRAINING
        } else {
            GOAL_MEDIAN_INFERENCE
        };
        assert!(med_bound >= goal * 100.0 && max_bound >= GOAL_MAX * 100.0);
        assert!(
            errs.iter()
                .any(|(c, _, _)| c.regime == regime && c.split == split),
            "no case in {regime} / {split}"
        );
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The bytes of the estimate's component `key` (0 when it has none).
fn component(e: &Estimate, key: &str) -> u64 {
    e.components
        .iter()
        .find(|c| c.key == key)
        .map_or(0, |c| c.bytes.get())
}

/// A decode step's own peak (what `torch.cuda.max_memory_allocated()` reports when the peak is
/// reset after the prefill) is the weights, the KV cache of S + n tokens, one layer's K (or V) of
/// S + n − 1 tokens still alive while `torch.cat` writes its longer copy (`DynamicLayer.update`),
/// the last position's logits with generate()'s fp32 copy of them, and the cuBLAS
/// workspace: B·K·d·(S + n − 1)·a + B·V·(a + 4) (a: bytes of the dtype) on top of the estimator's weights, KV cache and
/// workspace. Issue 31's "decode over by 20–30 % at batch ≥ 4" is the whole-run peak (the
/// prefill's, which the estimator reports) compared with this figure; see FINDINGS-31.md.
#[test]
fn decode_step_peak_is_weights_cache_one_layer_copy_and_last_logits() {
    let mut checked = 0;
    for (c, e, _) in errors() {
        let Some(measured) = c.decode_peak else {
            continue;
        };
        let model = c.input.model.as_deref().unwrap_or_default();
        let (_, a, _) = vramfit::catalog::find_model(model).unwrap();
        let (b, s, n) = (
            c.input.batch as u64,
            c.input.seq_len as u64,
            c.input.new_tokens as u64,
        );
        let act = if c.id.contains("-fp32-") { 4 } else { 2 };
        let cat_copy = b * a.num_kv_heads * a.head_dim * (s + n - 1) * act;
        // generate() copies the last position's logits to fp32; the plain model() loop does not.
        let fp32_copy = if c.id.contains("-generate") { 4 } else { 0 };
        let logits = b * a.vocab_size * (act + fp32_copy);
        let formula = component(&e, "weights")
            + component(&e, "kv_cache")
            + component(&e, "workspace")
            + cat_copy
            + logits;
        let err = formula as f64 / measured as f64 - 1.0;
        let whole_run = e.peak_allocated_bytes.get() as f64 / measured as f64 - 1.0;
        println!(
            "{:58} decode-step peak {measured:>14} formula {:+6.2} %, estimator's whole-run peak {:+6.2} %",
            c.id,
            err * 100.0,
            whole_run * 100.0
        );
        assert!(err.abs() < 0.01, "{}: {:+.2} %", c.id, err * 100.0);
        checked += 1;
    }
    assert_eq!(checked, 25);
}
