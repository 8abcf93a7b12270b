//! What the views compute from the state: the estimate, the what-ifs and the curve of memory
//! against context length. Pure functions over [`AppState`], tested natively; every number the
//! calculator shows comes from here, that is, from the estimator.

use vramfit::config::ParsedConfig;
use vramfit::estimate::{Estimate, EstimateInput, Mode, Rules, estimate};
#[cfg(feature = "full")]
use vramfit::precision::KvDtype;
use vramfit::{ErrorKind, InputError};

use vramfit::Bytes;
use vramfit::hardware::matrix::{CRITERIA, PlatformScore, Weights, rank_platforms};
use vramfit::hardware::spot::{GUIDE_SPOT_FRACTION, SpotComparison, SpotInput, compare};
use vramfit::hardware::{Layout, Market, Offer, PlanOption, PlanOptions};

use crate::fields;
#[cfg(feature = "full")]
use crate::i18n::Key;
use crate::state::AppState;

mod faq;
mod links;
#[cfg(feature = "full")]
pub use faq::faq_runs;
pub use faq::faq_values;
pub use links::{layout_changes, layout_link};

/// The parsed config.json of the state, the model a weights file's header gave, or the model
/// looked up on a hub, if the source is one.
#[cfg(feature = "full")]
pub fn config_of(s: &AppState) -> Option<Result<ParsedConfig, InputError>> {
    let text = s.extra("config");
    if text.is_empty() {
        return None;
    }
    if let Some(m) = crate::hub::from_extra(text) {
        return Some(Ok(m.model));
    }
    crate::weights_file::from_extra(text).or_else(|| Some(vramfit::config::parse_config(text)))
}

/// The calculator-only build reads no config.json: a page whose model comes from one is handed
/// over to the full build before anything is estimated (see `view_of` in `lib.rs`).
#[cfg(not(feature = "full"))]
pub fn config_of(_: &AppState) -> Option<Result<ParsedConfig, InputError>> {
    None
}

/// The estimator's input for the state with `changes` applied on top (field, value).
pub fn input_with(s: &AppState, changes: &[(&str, String)]) -> Result<EstimateInput, InputError> {
    let config = match config_of(s) {
        Some(Ok(c)) => Some(c),
        Some(Err(e)) if matches!(s.value("source").as_str(), "config" | "hub") => return Err(e),
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
    let mut input = fields::to_input(&value, config.as_ref())?;
    // A preset typed with Ollama runs as Ollama's default tag of it (`qwen3:32b` for
    // `Qwen/Qwen3-32B`, in Q4_K_M): what `ollama run` pulls, not the 16-bit checkpoint. The form
    // says so beside the model.
    if input.runner().rules().library_names && value("source") == "preset" {
        let tag = input
            .model
            .model
            .as_deref()
            .and_then(crate::engines::ollama_tag_of);
        if let Some((tag, _)) = tag {
            input.model.model = Some(tag);
        }
    }
    Ok(input)
}

/// What runs the state's mode and engine, from those two fields alone.
pub fn runner_of(s: &AppState) -> Option<vramfit::estimate::Runner> {
    fields::runner_of(&|k| s.value(k))
}

/// The answer for the state, whose estimate is `e` (see [`crate::answer`]).
pub fn answer_of(s: &AppState, e: &Estimate, offers: &[Offer]) -> Option<crate::answer::Answer> {
    crate::answer::answer(&input_with(s, &[]).ok()?, e, offers)
}

/// The values the estimator takes for the engine settings left empty, as text, by field: the
/// engine's context, sequences and step tokens, its memory fractions, its layers on the GPU
/// (Ollama's own choice, from the estimate `e`); and the weights' format the run uses (field
/// `quantization`: the checkpoint's or the Ollama tag's own).
pub fn engine_defaults(s: &AppState, e: Option<&Estimate>) -> Vec<(&'static str, String)> {
    let Some(w) = input_with(s, &[]).ok().and_then(|i| i.resolve().ok()) else {
        return Vec::new();
    };
    let n = |x: u64| vramfit::estimate::thousands(x);
    let mut out = vec![
        ("max_model_len", n(w.max_model_len)),
        ("max_num_batched_tokens", n(w.max_num_batched_tokens)),
        (
            "mem_fraction_static",
            vramfit::units::short(w.mem_fraction_static),
        ),
        (
            "free_gpu_memory_fraction",
            vramfit::units::short(w.free_gpu_memory_fraction),
        ),
        ("cuda_graph_max_bs", n(w.cuda_graph_max_bs)),
        ("quantization", crate::answer::format_name(&w)),
    ];
    // SGLang sizes its running requests from its pool when none is given: no number to show.
    if w.runner() != vramfit::estimate::Runner::Sglang || w.max_running_requests.is_some() {
        out.push(("max_num_seqs", n(w.max_num_seqs)));
    }
    let layers = e
        .and_then(|e| e.ollama.as_ref())
        .map_or(w.gpu_layers, |o| o.gpu_layers);
    out.push(("gpu_layers", n(layers)));
    out
}

/// The estimate for the state.
pub fn estimate_of(s: &AppState) -> Result<Estimate, InputError> {
    estimate(&input_with(s, &[])?)
}

/// What the state's engine decides (`vramfit::estimate::Rules`), for the words that depend on
/// it; `None` while the form does not read as an input.
pub fn rules_of(s: &AppState) -> Option<&'static Rules> {
    input_with(s, &[]).ok().map(|i| i.runner().rules())
}

#[cfg(feature = "full")]
/// One what-if: a change of the inputs and what it does.
#[derive(Clone, Debug, PartialEq)]
pub struct WhatIf {
    /// Its name, `whatif.NAME` (the page's `data-whatif`).
    pub key: &'static str,
    /// The text of its title (the row `whatif.NAME`).
    pub title: Key,
    /// The text of what it costs in speed (the row `whatif_speed.NAME`).
    pub speed: Key,
    /// The form changes (field, value) it makes; "apply" sets exactly these.
    pub changes: Vec<(&'static str, String)>,
    /// The estimate with the change.
    pub estimate: Estimate,
}

#[cfg(feature = "full")]
/// A what-if's name with the texts of its title and of its cost in speed.
type What = (&'static str, Key, Key);

#[cfg(feature = "full")]
/// The [`What`] of `whatif.NAME`, found when the site is compiled.
macro_rules! what {
    ($n:literal) => {{
        const W: What = (
            concat!("whatif.", $n),
            key!(concat!("whatif.", $n)),
            key!(concat!("whatif_speed.", $n)),
        );
        W
    }};
}

#[cfg(feature = "full")]
/// The guide's optimisations (§5.1) that apply to this run, each re-estimated. Those that
/// fail validation or change nothing are left out.
pub fn what_ifs(s: &AppState, base: &Estimate) -> Vec<WhatIf> {
    let mode = s.value("mode");
    let training = mode == "training";
    let num = |k: &str| vramfit::units::parse_number(s.value(k).trim()).unwrap_or(0.0);
    let mut candidates: Vec<(What, Vec<(&'static str, String)>)> = Vec::new();
    let batch = num("batch");
    if batch >= 2.0 && mode != "serve" {
        candidates.push((
            what!("half_batch"),
            vec![("batch", vramfit::units::short((batch / 2.0).floor()))],
        ));
    }
    let seq = num("seq_len");
    if seq >= 2.0 && mode != "serve" {
        candidates.push((
            what!("half_seq"),
            vec![("seq_len", vramfit::units::short((seq / 2.0).floor()))],
        ));
    }
    if training {
        if s.value("grad_checkpointing") == "none" {
            candidates.push((
                what!("checkpointing"),
                vec![("grad_checkpointing", "full".into())],
            ));
        }
        if num("lora_rank") == 0.0 {
            candidates.push((what!("lora"), vec![("lora_rank", "16".into())]));
            candidates.push((
                what!("qlora"),
                vec![("lora_rank", "16".into()), ("qlora", "true".into())],
            ));
        }
        if s.value("optimizer") == "adamw" {
            candidates.push((what!("adam8bit"), vec![("optimizer", "adamw-8bit".into())]));
        }
        if s.value("zero") != "3" && num("gpus") >= 2.0 {
            candidates.push((what!("zero3"), vec![("zero", "3".into())]));
        }
        if s.value("offload") == "none" {
            let zero = if s.value("zero") == "0" {
                "2".to_string()
            } else {
                s.value("zero")
            };
            candidates.push((
                what!("offload"),
                vec![("zero", zero), ("offload", "cpu".into())],
            ));
        }
    } else {
        if s.value("quantization") == "none" {
            if s.value("engine") == "llamacpp" {
                candidates.push((what!("q8"), vec![("quantization", "gguf-q8_0".into())]));
                candidates.push((what!("q4"), vec![("quantization", "gguf-q4_k_m".into())]));
            } else {
                candidates.push((what!("int8"), vec![("quantization", "bnb-int8".into())]));
                candidates.push((what!("int4"), vec![("quantization", "awq".into())]));
            }
        }
        // A smaller KV cache where the engine has one (its rules' KV types): q8_0 in llama.cpp
        // and Ollama, fp8 in vLLM, SGLang and TensorRT-LLM (transformers has neither).
        let kv_types = rules_of(s).and_then(|r| r.kv_dtypes).unwrap_or_default();
        if s.value("kv_dtype") == "auto" {
            if kv_types.contains(&KvDtype::Q8_0) {
                candidates.push((what!("kv_q8"), vec![("kv_dtype", "q8_0".into())]));
            } else if kv_types.contains(&KvDtype::Fp8) {
                candidates.push((what!("kv_fp8"), vec![("kv_dtype", "fp8".into())]));
            }
        }
    }
    candidates
        .into_iter()
        .filter_map(|((key, title, speed), changes)| {
            let input = input_with(s, &changes).ok()?;
            let e = estimate(&input).ok()?;
            let differs = e.total_bytes != base.total_bytes
                || e.max_concurrency != base.max_concurrency
                || e.kv_cache_tokens != base.kv_cache_tokens;
            differs.then_some(WhatIf {
                key,
                title,
                speed,
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
    if input.run.mode == Mode::Serve {
        return Vec::new();
    }
    let current = input.run.seq_len.max(1.0) as u64;
    let top = current.saturating_mul(8).clamp(32_768, 1 << 21);
    let mut points: Vec<u64> = (9..=21).map(|p| 1u64 << p).filter(|&n| n <= top).collect();
    points.push(current);
    points.sort_unstable();
    points.dedup();
    points
        .into_iter()
        .filter_map(|n| {
            let i = {
                let mut input = input.clone();
                input.run.seq_len = n as f64;
                input
            };
            estimate(&i).ok().map(|e| (n, e))
        })
        .collect()
}

/// Memory one GPU needs in a layout: the estimator re-run with that layout, exactly as the
/// CLI's `recommend` does (ZeRO-3 only for training; a layout the estimator rejects gets a
/// size no card has).
pub fn per_gpu(input: &EstimateInput, layout: Layout, on: &vramfit::hardware::Gpu) -> Bytes {
    vramfit::hardware::layout_required_bytes(input, layout, on)
}

/// The rental options for the state on `offers`, cheapest first (the CLI's `recommend` when
/// `offers` is the built-in catalog), with the layouts the run can use beside `options`
/// (`PlanOptions::for_run`: a vLLM or SGLang serving run's replicas and expert parallel).
pub fn plan_of(
    s: &AppState,
    offers: &[Offer],
    options: &PlanOptions,
) -> Result<Vec<PlanOption>, InputError> {
    let input = input_with(s, &[])?;
    estimate(&input)?;
    Ok(vramfit::hardware::plan(
        |l, g| per_gpu(&input, l, g),
        offers,
        vramfit::hardware::gpus(),
        &options.clone().for_run(&input),
    ))
}

// ---- the platform decision matrix ---------------------------------------------------------

/// The weights of the state's `weights` (the CLI's `--weights` text: `memory=3,support=0`;
/// absent, every weight 1). Errors name the field `weights`.
pub fn weights_of(s: &AppState) -> Result<Weights, InputError> {
    Weights::parse("weights", s.extra("weights"))
}

/// A criterion's weight.
pub fn weight(w: &Weights, criterion: &str) -> u32 {
    match criterion {
        "memory" => w.memory,
        "billing" => w.billing,
        "slicing" => w.slicing,
        "interconnect" => w.interconnect,
        "frameworks" => w.frameworks,
        "support" => w.support,
        _ => 0,
    }
}

/// `w` with one criterion's weight changed (at most 100, as `Weights::parse` accepts).
pub fn with_weight(w: &Weights, criterion: &str, v: u32) -> Weights {
    let mut w = *w;
    let v = v.min(100);
    match criterion {
        "memory" => w.memory = v,
        "billing" => w.billing = v,
        "slicing" => w.slicing = v,
        "interconnect" => w.interconnect = v,
        "frameworks" => w.frameworks = v,
        "support" => w.support = v,
        _ => {}
    }
    w
}

/// The weights as the URL and the CLI's `--weights` write them: the criteria whose weight is
/// not 1, in the guide's order (`""` when every weight is 1).
pub fn weights_text(w: &Weights) -> String {
    CRITERIA
        .iter()
        .filter(|c| weight(w, c) != 1)
        .map(|c| format!("{c}={}", weight(w, c)))
        .collect::<Vec<_>>()
        .join(",")
}

/// The platforms ranked by the weights of the state, on `offers` (the CLI's `platforms`).
pub fn matrix_of(s: &AppState, offers: &[Offer]) -> Result<Vec<PlatformScore>, InputError> {
    let w = weights_of(s)?;
    if CRITERIA.iter().all(|c| weight(&w, c) == 0) {
        return Err(InputError::new(
            ErrorKind::OutOfRange,
            "weights",
            "every weight is 0",
            "at least one weight above 0",
        ));
    }
    Ok(rank_platforms(
        vramfit::hardware::platforms(),
        offers,
        vramfit::hardware::gpus(),
        &w,
    ))
}

// ---- spot against on-demand ----------------------------------------------------------------

/// The spot calculator's inputs: URL key, the core's field name (which its errors name), and
/// the default text (`""`: from the offers).
pub const SPOT_FIELDS: [(&str, &str, &str); 6] = [
    ("spot_hours", "hours", "24"),
    ("spot_od", "on_demand_price", ""),
    ("spot_price", "spot_price", ""),
    ("spot_mtbi", "mtbi", "12"),
    ("spot_ckpt", "checkpoint_every", "0.5"),
    ("spot_restart", "restart", "0.25"),
];

/// Where the spot calculator's default prices come from.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SpotDefaults {
    /// The cheapest on-demand option for the run: offer id and price per hour.
    pub on_demand: Option<(String, f64)>,
    /// The cheapest spot option for the run, if any offer is spot.
    pub spot: Option<(String, f64)>,
}

/// A price rounded to 4 decimals, as the calculator's fields show it.
pub fn round_price(x: f64) -> f64 {
    // Four significant digits: a price of 0.0001 stays itself rather than rounding to 0, which
    // the spot calculator would refuse for a field the user never typed in.
    if !(x.is_finite() && x > 0.0) {
        return x;
    }
    // Divided (or multiplied) by an exact power of ten, so that the result is the double
    // nearest the rounded decimal and prints as it.
    let e = 3 - x.log10().floor() as i32;
    if e >= 0 {
        let s = 10f64.powi(e);
        (x * s).round() / s
    } else {
        let s = 10f64.powi(-e);
        (x / s).round() * s
    }
}

/// The cheapest on-demand and spot options of `options` (cheapest first, spot included), on
/// the calculator's card when one is chosen and has options.
pub fn spot_defaults(options: &[PlanOption], gpu: &str) -> SpotDefaults {
    let on_card = !gpu.is_empty() && options.iter().any(|o| o.gpu == gpu);
    let pick = |m: Market| {
        options
            .iter()
            .filter(|o| o.market == m && (!on_card || o.gpu == gpu))
            .find(|o| o.price_per_hour.is_finite() && o.price_per_hour > 0.0)
            .map(|o| (o.offer.clone(), o.price_per_hour))
    };
    SpotDefaults {
        on_demand: pick(Market::OnDemand),
        spot: pick(Market::Spot),
    }
}

/// The text of a spot field: what the user typed, or its default.
pub fn spot_value(s: &AppState, key: &str, d: &SpotDefaults) -> String {
    if let Some(v) = s.extra.get(key) {
        return v.clone();
    }
    let default = SPOT_FIELDS
        .iter()
        .find(|(k, _, _)| *k == key)
        .map_or("", |(_, _, v)| *v);
    match key {
        "spot_od" => d
            .on_demand
            .as_ref()
            .map(|(_, p)| format!("{}", round_price(*p)))
            .unwrap_or_default(),
        "spot_price" => match (&d.spot, &d.on_demand) {
            (Some((_, p)), _) => format!("{}", round_price(*p)),
            (None, Some((_, p))) => format!("{}", round_price(p * GUIDE_SPOT_FRACTION)),
            (None, None) => String::new(),
        },
        _ => default.to_string(),
    }
}

/// Spot against on-demand for the state's fields (the CLI's `spot`). A field that is not a
/// number is named by the core's field name, as the core names the out-of-range ones.
pub fn spot_of(s: &AppState, d: &SpotDefaults) -> Result<SpotComparison, InputError> {
    let mut v = [0.0f64; 6];
    for (i, (key, field, _)) in SPOT_FIELDS.iter().enumerate() {
        let text = spot_value(s, key, d);
        let t = text.trim();
        v[i] = vramfit::units::parse_number(t).ok_or_else(|| {
            InputError::new(
                if t.is_empty() {
                    ErrorKind::Missing
                } else {
                    ErrorKind::NotANumber
                },
                *field,
                if t.is_empty() {
                    "empty".to_string()
                } else {
                    format!("`{t}` is not a number")
                },
                "a number",
            )
        })?;
    }
    compare(&SpotInput {
        hours: v[0],
        on_demand_price: v[1],
        spot_price: v[2],
        mtbi_hours: v[3],
        checkpoint_every_hours: v[4],
        restart_hours: v[5],
    })
}

/// What bounds a model's size on a card: a bare parameter count grows by the KV cache of the
/// shape assumed for it, out of training; in training it keeps no cache and its activations are
/// a share of the weights, so nothing bounds its batch or sequence; a convolutional network's
/// per-image counts bound its batch, and no sequence length reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bounds {
    /// Nothing: a bare parameter count in training.
    None,
    /// The batch only: an image network.
    Batch,
    /// The batch and the sequence.
    Both,
}

/// What bounds the input's model (see [`Bounds`]).
pub fn bounds(input: &EstimateInput) -> Bounds {
    match input.resolve() {
        Ok(w) if w.arch.is_detailed() => Bounds::Both,
        Ok(w) if w.arch.is_bare_decoder() && w.mode != Mode::Training => Bounds::Both,
        Ok(w) if w.arch.has_image_counts() => Bounds::Batch,
        _ => Bounds::None,
    }
}

/// A solver's answer with its proof (the value's need and the next value's) and what bounds it.
pub type Solved = Option<(vramfit::hardware::fit::Fit, vramfit::estimate::Bound)>;

/// The largest batch and the largest context that fit `capacity` with the other inputs as they
/// are (only what [`bounds`] allows), from the estimator's solvers: the context is llama.cpp's
/// `-c` or vLLM's `max_model_len` where those engines run, the sequence elsewhere.
pub fn largest(s: &AppState, capacity: Bytes) -> (Solved, Solved) {
    let Ok(input) = input_with(s, &[]) else {
        return (None, None);
    };
    let bounded = bounds(&input);
    if bounded == Bounds::None {
        return (None, None);
    }
    let batch = vramfit::estimate::largest_batch_fit(&input, capacity);
    if bounded == Bounds::Batch {
        return (batch, None);
    }
    (
        batch,
        vramfit::estimate::largest_context_fit(&input, capacity),
    )
}

#[cfg(test)]
mod tests;
