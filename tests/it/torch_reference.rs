//! The estimator against PyTorch's own accounting of real models: `tests/reference/torch-peaks.csv`,
//! produced by `tests/reference/torch_peaks.py` (transformers models run under fake tensors, every
//! storage tracked and rounded as the caching allocator rounds it; see that folder's README).
//!
//! Each row has a `regime` (what kind of run: `prefill`, `prefill-all-logits`, `decode`,
//! `training`, `amp-small`, `lora-<style>-<precision>`, `lora-peft-dropout`) and a `split`: `tuned` rows are the ones
//! the estimator's formulas may be fitted to, `held-out` rows (other models, batches and lengths)
//! are not, and show whether a fit generalises.

use vramfit::estimate::{
    AttentionImpl, Checkpointing, ComponentKind, Estimate, EstimateInput, Logits, Loss, Mode,
    Optimizer, Precision, estimate,
};
use vramfit::estimate::{HardwareInput, ModelInput, RunInput, TrainingInput};
use vramfit::precision::Dtype;

use crate::calibration::component;

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
            model: ModelInput {
                model: Some(g("model").to_string()),
                ..Default::default()
            },
            run: RunInput {
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
                ..Default::default()
            },
            training: TrainingInput {
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

                // Both adapter styles (`lora_style` peft or hand) map to the same input: both keep
                // their adapters in fp32, as PEFT does by default and the estimator assumes. They
                // differ only in pure bf16, where the hand adapter does not cast its sum back
                // (`lora-hand-bf16`, a comparison: see `COMPARISONS`).
                lora_rank: g("lora_rank").parse().unwrap(),
                lora_targets: lora_targets(g("lora_targets")),

                // PEFT's `LoraConfig(lora_dropout=…)` (issue 40's rows, `lora-peft-dropout`); 0 in
                // the rows before them.
                lora_dropout: g("lora_dropout").parse().ok(),

                // Issue 40's regimes (torch_regimes.py): empty in the rows before them.
                loss: match g("loss") {
                    "chunked" => Some(Loss::Chunked),
                    "fused" => Some(Loss::Fused),
                    _ => None,
                },
                loss_chunks: g("loss_chunks").parse().ok(),
                optimizer_in_backward: g("optimizer_in_bwd") == "True",
                activation_offload: Some(g("activation_offload") == "True"),
                ..Default::default()
            },
            hardware: HardwareInput {
                // The generator runs on sm90 (H100) rules: 32 MiB cuBLAS workspace.
                gpu: Some("h100-sxm5-80gb".into()),
                ..Default::default()
            },
            ..Default::default()
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
    assert_eq!(cases.len(), 205);
    assert_eq!(cases.iter().filter(|c| c.split == "held-out").count(), 47);
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

/// Issue 31's goals: |error| at the median of a regime 3 % (inference) or 5 % (training), and
/// 10 % for any one case, on the tuned and the held-out rows alike.
const GOAL_MEDIAN_INFERENCE: f64 = 3.0;
const GOAL_MEDIAN_TRAINING: f64 = 5.0;
const GOAL_MAX: f64 = 10.0;

/// The regimes of the reference set, in the order the table prints them.
const REGIMES: &[&str] = &[
    "prefill",
    "prefill-all-logits",
    "decode",
    "training",
    "amp-small",
    "lora-hand-amp-bf16",
    "lora-peft-bf16",
    "lora-peft-amp-bf16",
    "lora-hand-bf16",
    "lora-peft-dropout",
    "loss-chunked",
    "loss-fused",
    "optimizer-in-backward",
    "activation-offload",
];

/// Regimes that are there for comparison, not runs that the estimator models: printed, not held
/// to the goals, with the reason.
///
/// `lora-hand-bf16`: the generator's own adapter in pure bf16 returns `base(x) + B(A(x in fp32))`
/// without casting the sum back, so everything after the first adapted projection runs in fp32
/// (fp32 attention on the memory-efficient kernel, an fp32 FFN). No LoRA library does this: PEFT
/// casts the sum back to the base's dtype (`lora-peft-bf16`, which the estimator meets).
const COMPARISONS: &[(&str, &str)] = &[(
    "lora-hand-bf16",
    "an adapter whose fp32 sum is never cast back (PEFT casts it back: lora-peft-bf16)",
)];

fn goal_median(regime: &str) -> f64 {
    if matches!(regime, "prefill" | "prefill-all-logits" | "decode") {
        GOAL_MEDIAN_INFERENCE
    } else {
        GOAL_MEDIAN_TRAINING
    }
}

#[test]
fn peak_allocated_within_the_goals_at_the_median() {
    let errs = errors();
    let med = |training: bool| {
        crate::calibration::median(
            errs.iter()
                .filter(|(c, _, _)| c.training == training)
                .filter(|(c, _, _)| !COMPARISONS.iter().any(|(r, _)| *r == c.regime))
                .map(|(_, _, e)| e.abs() * 100.0)
                .collect(),
        )
    };
    assert!(
        med(false) <= GOAL_MEDIAN_INFERENCE,
        "inference median |error| {:.2} %",
        med(false)
    );
    assert!(
        med(true) <= GOAL_MEDIAN_TRAINING,
        "training median |error| {:.2} %",
        med(true)
    );
}

/// Per (regime, split): the number of cases, the median and the largest |error| in percent,
/// with the regimes in the order of [`REGIMES`] (then any other, alphabetically), tuned before
/// held-out.
pub fn regime_table(errs: &[(TorchCase, Estimate, f64)]) -> Vec<(String, String, usize, f64, f64)> {
    let mut keys: Vec<(String, String)> = Vec::new();
    for (c, _, _) in errs {
        let k = (c.regime.clone(), c.split.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let rank = |k: &(String, String)| {
        (
            REGIMES
                .iter()
                .position(|r| *r == k.0)
                .unwrap_or(REGIMES.len()),
            k.1 != "tuned",
        )
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

/// Why a regime is left out of the goals, or `None` when it is held to them.
pub fn comparison(regime: &str) -> Option<&'static str> {
    COMPARISONS
        .iter()
        .find(|(r, _)| *r == regime)
        .map(|(_, why)| *why)
}

#[test]
fn every_regime_within_the_goals() {
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
        "{:22} {:9} {:>5} {:>9} {:>6} {:>9} {:>6}",
        "regime", "split", "cases", "median %", "goal", "max %", "goal"
    );
    let mut failures = Vec::new();
    for (regime, split, n, med, max) in regime_table(&errs) {
        if !REGIMES.contains(&regime.as_str()) {
            failures.push(format!("{regime}: not in REGIMES"));
        }
        let goal = goal_median(&regime);
        if let Some(why) = comparison(&regime) {
            println!(
                "{regime:22} {split:9} {n:>5} {med:>9.3} {:>6} {max:>9.3} {:>6}  comparison: {why}",
                "-", "-"
            );
            continue;
        }
        println!("{regime:22} {split:9} {n:>5} {med:>9.3} {goal:>6.1} {max:>9.3} {GOAL_MAX:>6.1}");
        if med > goal || max > GOAL_MAX {
            failures.push(format!(
                "{regime} / {split}: median {med:.2} % (goal {goal}), max {max:.2} % (goal {GOAL_MAX})"
            ));
        }
    }
    // Every regime named has cases, and the four that issue 31 names have held-out ones.
    for regime in REGIMES {
        assert!(
            errs.iter().any(|(c, _, _)| c.regime == *regime),
            "no case in {regime}"
        );
    }
    for regime in [
        "prefill-all-logits",
        "decode",
        "amp-small",
        "lora-peft-bf16",
        "lora-peft-dropout",
    ] {
        assert!(
            errs.iter()
                .any(|(c, _, _)| c.regime == regime && c.split == "held-out"),
            "no held-out case in {regime}"
        );
    }
    assert!(failures.is_empty(), "{failures:#?}");
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
        let model = c.input.model.model.as_deref().unwrap_or_default();
        let (_, a, _) = vramfit::catalog::find_model(model).unwrap();
        let (b, s, n) = (
            c.input.run.batch as u64,
            c.input.run.seq_len as u64,
            c.input.run.new_tokens as u64,
        );
        let act = if c.id.contains("-fp32-") { 4 } else { 2 };
        let cat_copy = b * a.num_kv_heads * a.head_dim * (s + n - 1) * act;
        // generate() copies the last position's logits to fp32; the plain model() loop does not.
        let fp32_copy = if c.id.contains("-generate") { 4 } else { 0 };
        let logits = b * a.vocab_size * (act + fp32_copy);
        let formula = component(&e, ComponentKind::Weights)
            + component(&e, ComponentKind::KvCache)
            + component(&e, ComponentKind::Workspace)
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
