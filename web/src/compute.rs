//! What the views compute from the state: the estimate, the what-ifs and the curve of memory
//! against context length. Pure functions over [`AppState`], tested natively; every number the
//! calculator shows comes from here, that is, from the estimator.

use vramfit::InputError;
use vramfit::config::ParsedConfig;
use vramfit::estimate::{Estimate, EstimateInput, Mode, estimate};

use vramfit::Bytes;
use vramfit::hardware::{Layout, ParallelKind, PlanOption, PlanOptions};

use crate::fields;
use crate::state::AppState;

/// The parsed config.json of the state, if the source is one.
pub fn config_of(s: &AppState) -> Option<Result<ParsedConfig, InputError>> {
    let text = s.extra("config");
    (!text.is_empty()).then(|| vramfit::config::parse_config(text))
}

/// The estimator's input for the state with `changes` applied on top (field, value).
pub fn input_with(s: &AppState, changes: &[(&str, String)]) -> Result<EstimateInput, InputError> {
    let config = match config_of(s) {
        Some(Ok(c)) => Some(c),
        Some(Err(e)) if s.value("source") == "config" => return Err(e),
        _ => None,
    };
    let value = |k: &str| {
        changes
            .iter()
            .rev()
            .find(|(ck, _)| *ck == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| s.value(k))
    };
    fields::to_input(&value, config.as_ref())
}

/// The estimate for the state.
pub fn estimate_of(s: &AppState) -> Result<Estimate, InputError> {
    estimate(&input_with(s, &[])?)
}

/// One what-if: a change of the inputs and what it does.
#[derive(Clone, Debug, PartialEq)]
pub struct WhatIf {
    /// The i18n key of its name.
    pub key: &'static str,
    /// The form changes (field, value) it makes; "apply" sets exactly these.
    pub changes: Vec<(&'static str, String)>,
    /// The estimate with the change.
    pub estimate: Estimate,
}

/// The guide's optimisations (§5.1) that apply to this run, each re-estimated. Those that
/// fail validation or change nothing are left out.
pub fn what_ifs(s: &AppState, base: &Estimate) -> Vec<WhatIf> {
    let mode = s.value("mode");
    let training = mode == "training";
    let num = |k: &str| s.value(k).trim().parse::<f64>().unwrap_or(0.0);
    let mut candidates: Vec<(&'static str, Vec<(&'static str, String)>)> = Vec::new();
    let batch = num("batch");
    if batch >= 2.0 && mode != "serve" {
        candidates.push((
            "whatif.half_batch",
            vec![("batch", format!("{}", (batch / 2.0).floor()))],
        ));
    }
    let seq = num("seq_len");
    if seq >= 2.0 && mode != "serve" {
        candidates.push((
            "whatif.half_seq",
            vec![("seq_len", format!("{}", (seq / 2.0).floor()))],
        ));
    }
    if training {
        if s.value("grad_checkpointing") == "none" {
            candidates.push((
                "whatif.checkpointing",
                vec![("grad_checkpointing", "full".into())],
            ));
        }
        if num("lora_rank") == 0.0 {
            candidates.push(("whatif.lora", vec![("lora_rank", "16".into())]));
            candidates.push((
                "whatif.qlora",
                vec![("lora_rank", "16".into()), ("qlora", "true".into())],
            ));
        }
        if s.value("optimizer") == "adamw" {
            candidates.push(("whatif.adam8bit", vec![("optimizer", "adamw-8bit".into())]));
        }
        if s.value("zero") != "3" && num("gpus") >= 2.0 {
            candidates.push(("whatif.zero3", vec![("zero", "3".into())]));
        }
        if s.value("offload") == "none" {
            let zero = if s.value("zero") == "0" {
                "2".to_string()
            } else {
                s.value("zero")
            };
            candidates.push((
                "whatif.offload",
                vec![("zero", zero), ("offload", "cpu".into())],
            ));
        }
    } else {
        if s.value("quantization") == "none" {
            if s.value("engine") == "llamacpp" {
                candidates.push(("whatif.q8", vec![("quantization", "gguf-q8_0".into())]));
                candidates.push(("whatif.q4", vec![("quantization", "gguf-q4_k_m".into())]));
            } else {
                candidates.push(("whatif.int8", vec![("quantization", "bnb-int8".into())]));
                candidates.push(("whatif.int4", vec![("quantization", "awq".into())]));
            }
        }
        if s.value("kv_dtype") == "auto" {
            candidates.push(("whatif.kv_fp8", vec![("kv_dtype", "fp8".into())]));
        }
    }
    candidates
        .into_iter()
        .filter_map(|(key, changes)| {
            let input = input_with(s, &changes).ok()?;
            let e = estimate(&input).ok()?;
            let differs = e.total_bytes != base.total_bytes
                || e.max_concurrency != base.max_concurrency
                || e.kv_cache_tokens != base.kv_cache_tokens;
            differs.then_some(WhatIf {
                key,
                changes,
                estimate: e,
            })
        })
        .collect()
}

/// Memory against context length: `(tokens, total bytes, KV-cache bytes)` for context lengths
/// from 512 tokens to a few times the current one (powers of two and the current value).
/// Serving varies `max_model_len`, which changes concurrency rather than memory: it has no
/// curve here.
pub fn context_curve(s: &AppState) -> Vec<(u64, Estimate)> {
    let Ok(input) = input_with(s, &[]) else {
        return Vec::new();
    };
    if input.mode == Mode::Serve {
        return Vec::new();
    }
    let current = input.seq_len.max(1.0) as u64;
    let top = current.saturating_mul(8).clamp(32_768, 1 << 21);
    let mut points: Vec<u64> = (9..=21).map(|p| 1u64 << p).filter(|&n| n <= top).collect();
    points.push(current);
    points.sort_unstable();
    points.dedup();
    points
        .into_iter()
        .filter_map(|n| {
            let i = EstimateInput {
                seq_len: n as f64,
                ..input.clone()
            };
            estimate(&i).ok().map(|e| (n, e))
        })
        .collect()
}

/// Memory one GPU needs in a layout: the estimator re-run with that layout, exactly as the
/// CLI's `recommend` does (ZeRO-3 only for training; a layout the estimator rejects gets a
/// size no card has).
pub fn per_gpu(input: &EstimateInput, layout: Layout) -> Bytes {
    let training = input.mode == Mode::Training;
    let i = match layout.kind {
        ParallelKind::Single | ParallelKind::Mig | ParallelKind::Data => input.clone(),
        ParallelKind::Zero3 if !training => return vramfit::units::MAX_SIZE,
        ParallelKind::Zero3 => EstimateInput {
            gpus: f64::from(layout.gpus),
            zero: 3.0,
            ..input.clone()
        },
        _ => EstimateInput {
            gpus: f64::from(layout.gpus),
            tp: f64::from(layout.tp),
            pp: f64::from(layout.pp),
            ..input.clone()
        },
    };
    estimate(&i).map_or(vramfit::units::MAX_SIZE, |e| e.required_bytes)
}

/// The rental options for the state, cheapest first (the CLI's `recommend`).
pub fn plan_of(s: &AppState, options: &PlanOptions) -> Result<Vec<PlanOption>, InputError> {
    let input = input_with(s, &[])?;
    estimate(&input)?;
    Ok(vramfit::hardware::plan(
        |l| per_gpu(&input, l),
        vramfit::hardware::offers(),
        vramfit::hardware::gpus(),
        options,
    ))
}

/// The largest batch and the largest sequence length that fit `capacity` with the other
/// inputs as they are.
pub fn largest(
    s: &AppState,
    capacity: Bytes,
) -> (
    Option<vramfit::hardware::fit::Fit>,
    Option<vramfit::hardware::fit::Fit>,
) {
    let Ok(input) = input_with(s, &[]) else {
        return (None, None);
    };
    let need =
        |i: EstimateInput| estimate(&i).map_or(vramfit::units::MAX_SIZE, |e| e.required_bytes);
    let batch = vramfit::hardware::fit::largest_fitting(
        |b| {
            need(EstimateInput {
                batch: b as f64,
                ..input.clone()
            })
        },
        capacity,
        1,
        vramfit::estimate::MAX_BATCH.min(1 << 16),
    );
    let seq = vramfit::hardware::fit::largest_fitting(
        |n| {
            need(EstimateInput {
                seq_len: n as f64,
                ..input.clone()
            })
        },
        capacity,
        1,
        vramfit::estimate::MAX_SEQ,
    );
    (batch, seq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Lang;
    use crate::route::Route;
    use crate::state::{Action, AppState};
    use std::rc::Rc;
    use yew::Reducible;

    fn state(hash: &str) -> Rc<AppState> {
        Rc::new(AppState::default()).reduce(Action::Open(Route::parse(hash), Lang::En))
    }

    #[test]
    fn default_state_estimates_the_default_model() {
        let e = estimate_of(&state("")).unwrap();
        assert_eq!(e.model, fields::DEFAULT_MODEL);
        assert!(e.total_bytes.get() > e.weights_bytes.get());
    }

    #[test]
    fn the_guides_example_by_parameter_count() {
        let e = estimate_of(&state("#/calc?source=params&params=7B&dtype=fp16")).unwrap();
        // Guide: 7B fp16 weights = 14 GB.
        assert_eq!(e.quick.weights_bytes.get(), 14_000_000_000);
    }

    #[test]
    fn what_ifs_save_memory_in_training() {
        let s = state("#/calc?mode=training&batch=8");
        let base = estimate_of(&s).unwrap();
        let w = what_ifs(&s, &base);
        let keys: Vec<_> = w.iter().map(|w| w.key).collect();
        for k in [
            "whatif.half_batch",
            "whatif.checkpointing",
            "whatif.lora",
            "whatif.qlora",
        ] {
            assert!(keys.contains(&k), "{k} missing from {keys:?}");
        }
        for w in &w {
            assert!(
                w.estimate.total_bytes < base.total_bytes,
                "{} does not save",
                w.key
            );
        }
    }

    #[test]
    fn bad_input_gives_the_estimators_error_not_a_panic() {
        let s = state("#/calc?batch=-3");
        assert_eq!(estimate_of(&s).unwrap_err().field, "batch");
        assert!(context_curve(&s).is_empty());
        let s = state("#/calc?source=config");
        assert_eq!(estimate_of(&s).unwrap_err().field, "config.json");
    }

    #[test]
    fn the_curve_grows_with_context() {
        let c = context_curve(&state("#/calc?seq_len=3000"));
        assert!(c.len() >= 5);
        assert!(c.iter().any(|(n, _)| *n == 3000));
        for w in c.windows(2) {
            assert!(w[0].1.total_bytes <= w[1].1.total_bytes);
        }
    }
}
