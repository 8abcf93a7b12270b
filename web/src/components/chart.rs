//! Inline SVG charts: the stacked bar of the breakdown and memory against context length.
//! Attributes only, no inline styles (the CSP forbids them); colours come from CSS rules on each
//! part's `data-c` key.

use vramfit::Bytes;
use vramfit::estimate::{ComponentKind, Estimate};
use vramfit::units::fixed;
#[cfg(feature = "full")]
use vramfit::units::short;
use yew::prelude::*;

use crate::format;
use crate::i18n::{Key, Lang};

/// The components drawn in the bar: those alive at the peak, with bytes.
pub fn peak_parts(e: &Estimate) -> Vec<(ComponentKind, Bytes)> {
    e.components
        .iter()
        .filter(|c| c.key.at_peak && c.bytes.get() > 0)
        .map(|c| (c.key.kind, c.bytes))
        .collect()
}

/// The label of each kind of part (the row `comp.KEY`): a match, so that a kind the estimator
/// adds cannot go unlabelled.
pub fn label_key(kind: ComponentKind) -> Key {
    use ComponentKind as K;
    match kind {
        K::Weights => key!("comp.weights"),
        K::KvCache => key!("comp.kv_cache"),
        K::Activations => key!("comp.activations"),
        K::Logits => key!("comp.logits"),
        K::Gradients => key!("comp.gradients"),
        K::Optimizer => key!("comp.optimizer"),
        K::StepTemporaries => key!("comp.step_temporaries"),
        K::AutocastCopies => key!("comp.autocast_copies"),
        K::DequantBuffer => key!("comp.dequant_buffer"),
        K::EmbeddingGradBuffer => key!("comp.embedding_grad_buffer"),
        K::ZeroBuffers => key!("comp.zero_buffers"),
        K::DdpBuckets => key!("comp.ddp_buckets"),
        K::ComputeBuffer => key!("comp.compute_buffer"),
        K::CudaContext => key!("comp.cuda_context"),
        K::Workspace => key!("comp.workspace"),
        K::Nccl => key!("comp.nccl"),
        K::CudaGraphs => key!("comp.cuda_graphs"),
        K::NonTorch => key!("comp.non_torch"),
        K::ReqToTokenPool => key!("comp.req_to_token_pool"),
        K::StateCache => key!("comp.state_cache"),
        K::AllocatorReserve => key!("comp.allocator_reserve"),
        K::ReferenceModel => key!("comp.reference_model"),
        K::RewardModel => key!("comp.reward_model"),
        K::ValueModel => key!("comp.value_model"),
        K::ValueModelStep => key!("comp.value_model_step"),
        K::RolloutWeights => key!("comp.rollout_weights"),
        K::RolloutKvCache => key!("comp.rollout_kv_cache"),
        K::RolloutBuffers => key!("comp.rollout_buffers"),
        K::LoraAdapters => key!("comp.lora_adapters"),
        K::Drafter => key!("comp.drafter"),
        K::EncoderCache => key!("comp.encoder_cache"),
        K::EncoderActivations => key!("comp.encoder_activations"),
        K::VisionWeights => key!("comp.vision_weights"),
    }
}

/// The label of a kind of part.
pub fn component_label(lang: Lang, kind: ComponentKind) -> &'static str {
    lang.t(label_key(kind))
}

/// One bar of `parts` on a scale of `scale_max` bytes, with the card's memory as a line.
fn bar(
    lang: Lang,
    parts: &[(ComponentKind, Bytes)],
    scale_max: f64,
    capacity: Option<Bytes>,
    label: &str,
) -> Html {
    let width = 1000.0;
    let mut x = 0.0;
    let rects = parts.iter().map(|(k, b)| {
        let w = b.get() as f64 / scale_max * width;
        let r = html! {
            <rect data-c={k.to_string()} x={fixed(x, 2)} y="0" width={fixed(w.max(0.0), 2)} height="40">
                <title>{ format!("{}: {}", component_label(lang, *k), format::gib(*b)) }</title>
            </rect>
        };
        x += w;
        r
    });
    let cap_line = capacity.map(|c| {
        let cx = c.get() as f64 / scale_max * width;
        html! { <line class="gpu-line" x1={fixed(cx, 1)} x2={fixed(cx, 1)} y1="-4" y2="44" /> }
    });
    html! {
        <svg class="bar" viewBox="0 -6 1000 52" role="img" aria-label={label.to_string()} preserveAspectRatio="none">
            { for rects }
            { for cap_line }
        </svg>
    }
}

/// The stacked bar.
pub fn stacked_bar(lang: Lang, e: &Estimate, capacity: Option<Bytes>) -> Html {
    let parts = peak_parts(e);
    let sum: u64 = parts
        .iter()
        .map(|(_, b)| b.get())
        .fold(0, u64::saturating_add);
    let scale_max = sum.max(capacity.map_or(0, Bytes::get)).max(1) as f64;
    html! {
        <figure class="barfig">
            { bar(lang, &parts, scale_max, capacity, lang.t(key!("calc.bar_label"))) }
            <ul class="legend">
                { for parts.iter().map(|(k, b)| html! {
                    <li><span class="swatch" data-c={k.to_string()}></span>
                        { component_label(lang, *k) }{ " " }<strong>{ format::gib(*b) }</strong>
                        <span class="muted">{ format!(" · {}", format::percent(b.get(), sum)) }</span></li>
                }) }
            </ul>
        </figure>
    }
}

#[cfg(feature = "full")]
/// The run's moments — a training step's (the end of forward, the end of backward, the
/// optimizer step), an inference's (the weights, the prefill, the last token) or a serving
/// engine's start-up (the weights, the profile run, the KV pool, the CUDA graphs, serving) —
/// each a bar on one scale under its own line of words, so that no label meets another, the
/// peak named: where the memory goes over the run and which moment sets the peak
/// (`Estimate::step`, each moment worded by the estimator in both languages).
pub fn step_chart(lang: Lang, e: &Estimate, capacity: Option<Bytes>) -> Html {
    let scale_max = e
        .step
        .iter()
        .map(|m| m.bytes.get())
        .chain(capacity.map(Bytes::get))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let rows = e.step.iter().map(|m| {
        let parts: Vec<(ComponentKind, Bytes)> =
            m.parts.iter().map(|p| (p.kind, p.bytes)).collect();
        let name = lang.pick(&m.en, &m.zh);
        let peak = m.phase == e.peak_phase;
        html! {
            <div class={if peak { "step-row peak" } else { "step-row" }} data-phase={format!("{:?}", m.phase)}>
                <p>{ name }{ " " }<strong>{ format::gib(m.bytes) }</strong>
                    if peak { <span class="muted">{ lang.t(key!("calc.step_peak")) }</span> }
                </p>
                { bar(lang, &parts, scale_max, capacity, name) }
            </div>
        }
    });
    let (title, label) = step_words(e);
    html! {
        <figure class="barfig" id="step-chart" aria-label={lang.t(label)}>
            <figcaption>{ lang.t(title) }</figcaption>
            { for rows }
        </figure>
    }
}

#[cfg(feature = "full")]
/// The chart's title and label: a training step, a serving engine's start-up (its moments
/// hold a KV pool) or an inference run.
fn step_words(e: &Estimate) -> (Key, Key) {
    use vramfit::estimate::Phase as P;
    let has = |p: P| e.step.iter().any(|m| m.phase == p);
    if has(P::ForwardLoss) {
        (key!("calc.step_title"), key!("calc.step_label"))
    } else if has(P::Serving) || has(P::KvPool) {
        (key!("calc.step_title_serve"), key!("calc.step_label_serve"))
    } else {
        (key!("calc.step_title_infer"), key!("calc.step_label_infer"))
    }
}

#[cfg(feature = "full")]
/// A GPU memory line on the context chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Label.
    pub label: String,
    /// Memory.
    pub bytes: Bytes,
}

#[cfg(feature = "full")]
/// Memory (total, and its KV cache) against context length, on a log-2 x axis, with GPU
/// memory lines.
pub fn context_chart(lang: Lang, points: &[(u64, Estimate)], current: u64, lines: &[Line]) -> Html {
    if points.len() < 2 {
        return html! {};
    }
    let (w, h) = (640.0, 300.0);
    let (left, right, top, bottom) = (62.0, 110.0, 14.0, 40.0);
    let pw = w - left - right;
    let ph = h - top - bottom;
    let xmin = (points[0].0 as f64).log2();
    let xmax = (points[points.len() - 1].0 as f64).log2();
    let max_total = points
        .iter()
        .map(|(_, e)| e.total_bytes.get())
        .max()
        .unwrap_or(1);
    let ymax_bytes = lines
        .iter()
        .map(|l| l.bytes.get())
        .filter(|&b| b <= max_total.saturating_mul(3))
        .fold(max_total, u64::max);
    let (step, steps) = gib_axis(ymax_bytes as f64 / (1u64 << 30) as f64 * 1.08);
    let ymax = step * f64::from(steps);
    let px = |n: u64| left + ((n as f64).log2() - xmin) / (xmax - xmin).max(1e-9) * pw;
    let py = |b: u64| top + ph - (b as f64 / (1u64 << 30) as f64 / ymax).min(1.05) * ph;
    let path = |f: &dyn Fn(&Estimate) -> u64| {
        points
            .iter()
            .enumerate()
            .map(|(i, (n, e))| {
                format!(
                    "{}{},{}",
                    if i == 0 { "M" } else { "L" },
                    fixed(px(*n), 1),
                    fixed(py(f(e)), 1)
                )
            })
            .collect::<String>()
    };
    let total_path = path(&|e| e.total_bytes.get());
    let kv_path = path(&|e| e.kv_cache_bytes.get());
    let yticks = 0..=steps;
    let xticks = points
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| n.is_power_of_two());
    let cur = points.iter().find(|(n, _)| *n == current);
    html! {
        <svg class="chart" viewBox={format!("0 0 {} {}", short(w), short(h))} role="img" aria-label={lang.t(key!("calc.chart_label"))}>
            { for yticks.map(|i| {
                let y = top + ph - step * f64::from(i) / ymax * ph;
                html! { <>
                    <line class="grid" x1={short(left)} x2={short(left + pw)} y1={fixed(y, 1)} y2={fixed(y, 1)} />
                    <text x={short(left - 6.0)} y={fixed(y + 4.0, 1)} text-anchor="end">{ gib_tick(i, step) }</text>
                </> }
            }) }
            { for xticks.map(|n| {
                let x = px(n);
                html! { <>
                    <line class="grid" x1={fixed(x, 1)} x2={fixed(x, 1)} y1={short(top)} y2={short(top + ph)} />
                    <text x={fixed(x, 1)} y={short(top + ph + 16.0)} text-anchor="middle">{ short_tokens(n) }</text>
                </> }
            }) }
            <text x={short(left + pw / 2.0)} y={short(h - 4.0)} text-anchor="middle" class="muted">{ lang.t(key!("calc.chart_x")) }</text>
            { for lines.iter().filter(|l| (l.bytes.get() as f64 / (1u64 << 30) as f64) <= ymax).map(|l| {
                let y = py(l.bytes.get());
                html! { <>
                    <line class="gpu-line" x1={short(left)} x2={short(left + pw)} y1={fixed(y, 1)} y2={fixed(y, 1)} />
                    <text x={short(left + pw + 4.0)} y={fixed(y + 4.0, 1)}>{ &l.label }</text>
                </> }
            }) }
            <path class="series2" d={kv_path} />
            <path class="series" d={total_path} />
            if let Some((n, e)) = cur {
                <circle class="marker" cx={fixed(px(*n), 1)} cy={fixed(py(e.total_bytes.get()), 1)} r="5">
                    <title>{ format!("{} → {}", short_tokens(*n), format::gib(e.total_bytes)) }</title>
                </circle>
            }
            <line class="axis" x1={short(left)} x2={short(left)} y1={short(top)} y2={short(top + ph)} />
            <line class="axis" x1={short(left)} x2={short(left + pw)} y1={short(top + ph)} y2={short(top + ph)} />
        </svg>
    }
}

#[cfg(feature = "full")]
/// 1024 → `1K`, 131072 → `128K`, 1048576 → `1M`.
pub fn short_tokens(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{}M", n >> 20)
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{}K", n >> 10)
    } else {
        n.to_string()
    }
}

#[cfg(feature = "full")]
/// A round axis for sizes up to `x` GiB: its step, 1, 2, 2.5 or 5 × a power of ten, and the
/// number of steps (at most five) whose top is the first at or above `x`. `x` below 0.1 GiB (or
/// not a number) counts as 0.1 GiB.
pub fn gib_axis(x: f64) -> (f64, u32) {
    let x = if x >= 0.1 { x } else { 0.1 };
    let p = 10f64.powi((x / 5.0).log10().floor() as i32);
    for p in [p, 10.0 * p] {
        for m in [1.0, 2.0, 2.5, 5.0] {
            let step = m * p;
            let n = (x / step - 1e-9).ceil().max(1.0);
            if n <= 5.0 {
                return (step, n as u32);
            }
        }
    }
    (x, 1)
}

#[cfg(feature = "full")]
/// The label of the tick at `i` steps of `step` GiB, with the decimals the step needs and no
/// more: steps of 2.5 GiB read `0.0 GiB`, `2.5 GiB`, `5.0 GiB`…, steps of 10 GiB `0 GiB`,
/// `10 GiB`, `20 GiB`….
pub fn gib_tick(i: u32, step: f64) -> String {
    let decimals = (0..4)
        .find(|&d| {
            let scaled = step * 10f64.powi(d);
            (scaled - scaled.round()).abs() < 1e-6 * scaled.max(1.0)
        })
        .unwrap_or(3);
    let v = step * f64::from(i);
    if decimals == 0 && v >= 1000.0 {
        return format!("{} GiB", vramfit::estimate::thousands(v.round() as u64));
    }
    format!("{} GiB", fixed(v, decimals as u32))
}

#[cfg(test)]
#[cfg(feature = "full")]
mod tests {
    use super::*;

    /// `gib_axis(x)`, checked against a step and a count worked out by hand.
    fn axis(x: f64, step: f64, n: u32) {
        let (s, m) = gib_axis(x);
        assert!(
            (s - step).abs() < 1e-12 * step && m == n,
            "{x}: {s} × {m}, not {step} × {n}"
        );
    }

    #[test]
    fn the_axis_steps_are_round_and_its_top_covers_the_data() {
        // The calculator's default page: Llama-3.1-8B (16.1 GiB) beside the L40S line
        // (48 GB = 44.70 GiB), plus 8 % room = 48.28 GiB: steps of 1, 2, 2.5 and 5 GiB need
        // 49, 25, 20 and 10 of them; 10 GiB needs five. Before, a top of 50 GiB cut in quarters
        // was labelled 12 and 38 GiB for 12.5 and 37.5.
        axis(48.28, 10.0, 5);
        // 17.4 GiB: 5 GiB × 4 (2.5 GiB would need 7 steps).
        axis(17.4, 5.0, 4);
        // Exactly on a step: no step above it. 80 GiB: 10 × 8 is too many, 20 × 4.
        axis(80.0, 20.0, 4);
        // 0.756 GiB (GPT-2 small inference): 0.1 × 8 is too many, 0.2 × 4 = 0.8 GiB.
        axis(0.756, 0.2, 4);
        // 11 GiB: 2 × 6 is too many, 2.5 × 5 = 12.5 GiB.
        axis(11.0, 2.5, 5);
        // 141.8 GiB (an H200's 131.3 GiB + 8 %): 25 × 6 is too many, 50 × 3 = 150 GiB.
        axis(141.8, 50.0, 3);
        // Nothing to plot, or not a number, counts as 0.1 GiB: 0.02 × 5.
        axis(0.0, 0.02, 5);
        axis(f64::NAN, 0.02, 5);
        for x in [0.1, 0.37, 1.0, 3.3, 9.99, 10.0, 10.01, 47.0, 333.0, 1e6] {
            let (step, n) = gib_axis(x);
            assert!(
                n <= 5 && step * f64::from(n) >= x - 1e-9,
                "{x}: {step} × {n}"
            );
            assert!(step * f64::from(n - 1) < x, "{x}: one step too many");
        }
    }

    /// Every part of the breakdown the site has a label for has a colour: without one a part
    /// draws black in the bar (SVG's default fill) and its swatch stays empty, as the
    /// dequantization buffer, the embedding-gradient buffer and NCCL's buffers once did.
    #[test]
    fn every_labelled_part_has_a_colour() {
        let css = include_str!("../../../www/style.css");
        let parts: Vec<&str> = crate::i18n::TEXT_KEYS
            .iter()
            .filter_map(|k| k.strip_prefix("comp."))
            .collect();
        assert!(parts.len() >= 20, "{parts:?}");
        // Every kind of part has a label of its own name, and every label is a kind's.
        let mut kinds: Vec<&str> = ComponentKind::ALL.iter().map(|k| k.name()).collect();
        kinds.sort_unstable();
        let mut labelled = parts.clone();
        labelled.sort_unstable();
        assert_eq!(kinds, labelled);
        for kind in ComponentKind::ALL {
            assert_eq!(label_key(kind).name(), format!("comp.{kind}"));
        }
        for part in parts {
            assert!(
                css.contains(&format!("[data-c=\"{part}\"]")),
                "{part} has no colour in www/style.css"
            );
        }
    }

    #[test]
    fn tick_labels_carry_the_decimals_of_their_step() {
        assert_eq!(gib_tick(0, 10.0), "0 GiB");
        assert_eq!(gib_tick(3, 10.0), "30 GiB");
        assert_eq!(gib_tick(1, 2.5), "2.5 GiB");
        assert_eq!(gib_tick(2, 2.5), "5.0 GiB");
        assert_eq!(gib_tick(3, 0.2), "0.6 GiB");
        assert_eq!(gib_tick(1, 0.25), "0.25 GiB");
        assert_eq!(gib_tick(5, 250.0), "1,250 GiB");
        assert_eq!(gib_tick(5, 500_000.0), "2,500,000 GiB");
    }
}
