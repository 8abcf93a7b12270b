//! Diagnose: paste a `CUDA out of memory` message, a `memory_summary()` report or an
//! `nvidia-smi` log; get the kind (capacity, fragmentation, leak), the numbers read, the fixes,
//! the checks of the decision tree, and a plot of an `nvidia-smi` trend. Or walk the decision
//! tree by hand.

use vramfit::diagnose;
use vramfit::diagnose::{self as tree, Diagnosis, Parsed, SmiLog};
use yew::prelude::*;

use crate::format;
use crate::i18n::{Key, Lang};
use crate::state::{Action, AppState};
use crate::use_app;

/// Real examples from the diagnosis corpus, one per family.
const EXAMPLES: &[(&str, Key, &str)] = &[
    (
        "diag.ex_oom",
        key!("diag.ex_oom"),
        include_str!("../../../tests/corpus/diagnose/pytorch-2.5-brief-example.txt"),
    ),
    (
        "diag.ex_summary",
        key!("diag.ex_summary"),
        include_str!("../../../tests/corpus/diagnose/summary-2.x-fragmented-with-retries.txt"),
    ),
    (
        "diag.ex_smi",
        key!("diag.ex_smi"),
        include_str!("../../../tests/corpus/diagnose/smi-csv-header-leak.txt"),
    ),
];

fn dl(lang: Lang) -> diagnose::Lang {
    match lang {
        Lang::En => diagnose::Lang::En,
        Lang::Zh => diagnose::Lang::Zh,
    }
}

/// The view.
#[function_component(DiagnoseView)]
pub fn view() -> Html {
    let app = use_app();
    let lang = app.lang;
    let text = app.extra("text").to_string();
    let result = use_memo(text.clone(), |t| {
        (!t.trim().is_empty()).then(|| diagnose::diagnose(t))
    });
    let set_text = {
        let app = app.clone();
        move |v: String| app.dispatch(Action::SetExtra("text".into(), v))
    };
    let oninput = {
        let set = set_text.clone();
        Callback::from(move |e: InputEvent| {
            set(e
                .target_unchecked_into::<web_sys::HtmlTextAreaElement>()
                .value())
        })
    };
    html! {
        <>
            <h1>{ lang.t(key!("view.diagnose")) }</h1>
            <p class="lead">{ lang.t(key!("diag.lead")) }</p>
            <div class="layout">
                <div class="panel">
                    <div class="field">
                        <label for="diag-text">{ lang.t(key!("diag.paste")) }</label>
                        <textarea id="diag-text" value={text.clone()} {oninput} spellcheck="false"
                            aria-describedby="diag-hint" />
                        <span class="hint" id="diag-hint">{ lang.t(key!("diag.hint")) }</span>
                    </div>
                    <div class="row">
                        { for EXAMPLES.iter().map(|(name, key, ex)| {
                            let set = set_text.clone();
                            let ex = ex.to_string();
                            html! { <button type="button" data-example={*name} onclick={Callback::from(move |_| set(ex.clone()))}>{ lang.t(*key) }</button> }
                        }) }
                        <button type="button" onclick={{ let set = set_text.clone(); Callback::from(move |_| set(String::new())) }}>{ lang.t(key!("diag.clear")) }</button>
                    </div>
                    if text.len() > crate::state::MAX_TEXT_IN_URL {
                        <p class="hint">{ lang.t(key!("diag.not_in_link")) }</p>
                    }
                </div>
                <section aria-live="polite">
                    { match result.as_ref() {
                        Some(d) => diagnosis(&app, d),
                        None => html! {},
                    } }
                    <Walk leaf={result.as_ref().as_ref().and_then(|d| d.leaf.clone())} />
                </section>
            </div>
        </>
    }
}

/// The calculator's link for a run on the card the message names by its capacity (a PyTorch
/// OOM's "total capacity"): the calculator's run on that memory, to see what fits there.
fn capacity_link(app: &AppState, d: &Diagnosis) -> Option<(String, vramfit::Bytes)> {
    let Parsed::PytorchOom(oom) = &d.parsed else {
        return None;
    };
    let cap = oom.total_capacity.filter(|b| b.get() > 0)?;
    let href = app.calc_link_with(&[
        ("gpu", String::new()),
        ("gpu_memory", format!("{}B", cap.get())),
    ]);
    Some((href, cap))
}

fn diagnosis(app: &AppState, d: &Diagnosis) -> Html {
    let lang = app.lang;
    let l = dl(lang);
    let leaf = d.leaf.as_deref().and_then(tree::leaf);
    html! {
        <div class="panel" id="diagnosis" data-kind={d.kind.as_str()} data-input={d.input.as_str()}>
            <h2>{ lang.f(key!("diag.kind"), &[d.kind.name(l)]) }</h2>
            <p class="muted">{ lang.f(key!("diag.meta"), &[d.input.as_str(), lang.t(match d.confidence {
                diagnose::Confidence::High => key!("diag.conf_high"),
                diagnose::Confidence::Medium => key!("diag.conf_medium"),
                diagnose::Confidence::Low => key!("diag.conf_low"),
            })]) }</p>
            <p id="explanation">{ d.explanation.get(l) }</p>
            if !d.evidence.is_empty() {
                <h3>{ lang.t(key!("diag.evidence")) }</h3>
                <dl class="kv" id="evidence">
                    { for d.evidence.iter().map(|e| html! { <>
                        <dt data-name={e.name.clone()}>{ match diagnose::evidence_label(&e.name) {
                            Some((en, zh)) => html! { { if lang.is_zh() { zh } else { en } } },
                            None => html! { <code>{ &e.name }</code> },
                        } }</dt>
                        <dd data-bytes={e.bytes.map(|b| b.get().to_string())}>{ if lang.is_zh() { diagnose::evidence_text_zh(&e.text) } else { e.text.clone() } }
                            { e.bytes.map(|b| format!(" = {}", format::gib(b))).unwrap_or_default() }</dd>
                    </> }) }
                </dl>
            }
            if let Some((href, cap)) = capacity_link(app, d) {
                <p><a class="calc-link" id="diag-calc" href={href}>{ lang.f(key!("diag.open_calc"), &[&format::gib(cap)]) }</a></p>
            }
            if let Parsed::NvidiaSmi(log) = &d.parsed { { smi_plot(lang, log) } }
            if !d.fixes.is_empty() {
                <h3>{ lang.t(key!("diag.fixes")) }</h3>
                <ol id="fixes">
                    { for d.fixes.iter().map(|f| html! {
                        <li data-fix={f.id.clone()}><strong>{ f.title.get(l) }</strong>
                            <span class="muted">{ lang.f(key!("diag.effort"), &[&f.effort.to_string()]) }</span><br />{ f.detail.get(l) }</li>
                    }) }
                </ol>
            }
            if let Some(leaf) = leaf {
                if !leaf.checks.is_empty() {
                    <h3>{ lang.t(key!("diag.checks")) }</h3>
                    { checks(lang, leaf.checks) }
                }
            }
            if let Some(t) = &d.what_to_paste_instead {
                <p class="notice" id="paste-instead">{ t.get(l) }</p>
            }
            { for d.notes.iter().map(|n| html! { <p class="hint">{ n.get(l) }</p> }) }
        </div>
    }
}

fn checks(lang: Lang, ids: &[&str]) -> Html {
    let l = dl(lang);
    html! {
        <ul class="reasons checks">
            { for ids.iter().filter_map(|id| tree::check(id)).map(|c| html! {
                <li><strong>{ c.title.get(l) }</strong><pre><code>{ c.command }</code></pre>{ c.look_for.get(l) }</li>
            }) }
        </ul>
    }
}

/// Memory used against time (or sample), per GPU, with the fitted trend and memory.total.
fn smi_plot(lang: Lang, log: &SmiLog) -> Html {
    let series: Vec<_> = log.series.iter().filter(|s| !s.points.is_empty()).collect();
    if series.is_empty() {
        return html! {};
    }
    let (w, h) = (640.0, 260.0);
    let (left, right, top, bottom) = (62.0, 16.0, 12.0, 38.0);
    let pw = w - left - right;
    let ph = h - top - bottom;
    let xmax = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.x))
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let ymax_b = series
        .iter()
        .map(|s| s.total.map_or(s.peak.get(), |t| t.get().max(s.peak.get())))
        .max()
        .unwrap_or(1)
        .max(1);
    let (step, steps) = super::chart::gib_axis(ymax_b as f64 / (1u64 << 30) as f64 * 1.05);
    let ymax = step * f64::from(steps);
    let px = |x: f64| left + x / xmax * pw;
    let py = |b: u64| top + ph - (b as f64 / (1u64 << 30) as f64) / ymax * ph;
    let unit = if series[0].x_unit == diagnose::XUnit::Seconds {
        lang.t(key!("diag.seconds"))
    } else {
        lang.t(key!("diag.samples"))
    };
    html! {
        <figure id="smi-plot">
            <svg class="plot" viewBox={format!("0 0 {w} {h}")} role="img" aria-label={lang.t(key!("diag.plot_label"))}>
                { for (0..=steps).map(|i| {
                    let y = top + ph - step * f64::from(i) / ymax * ph;
                    html! { <>
                        <line class="grid" x1={format!("{left}")} x2={format!("{}", left + pw)} y1={format!("{y:.1}")} y2={format!("{y:.1}")} />
                        <text x={format!("{}", left - 6.0)} y={format!("{:.1}", y + 4.0)} text-anchor="end">{ super::chart::gib_tick(i, step) }</text>
                    </> }
                }) }
                <text x={format!("{}", left + pw / 2.0)} y={format!("{}", h - 6.0)} text-anchor="middle" class="muted">{ unit }</text>
                <text x={format!("{left}")} y={format!("{}", top + ph + 16.0)} text-anchor="middle">{ "0" }</text>
                <text x={format!("{}", left + pw)} y={format!("{}", top + ph + 16.0)} text-anchor="end">{ format!("{xmax:.0}") }</text>
                { for series.iter().map(|s| {
                    let d: String = s.points.iter().enumerate()
                        .map(|(i, p)| format!("{}{:.1},{:.1}", if i == 0 { "M" } else { "L" }, px(p.x), py(p.used.get())))
                        .collect();
                    let total = s.total.map(|t| html! {
                        <>
                            <line class="gpu-line" x1={format!("{left}")} x2={format!("{}", left + pw)} y1={format!("{:.1}", py(t.get()))} y2={format!("{:.1}", py(t.get()))} />
                            <text x={format!("{}", left + 4.0)} y={format!("{:.1}", py(t.get()) - 4.0)}>{ format!("memory.total {}", format::gib(t)) }</text>
                        </>
                    });
                    let trend = s.tail_fit.or(s.fit).map(|f| html! {
                        <line class="series2" x1={format!("{:.1}", px(f.start.x))} y1={format!("{:.1}", py(f.start.used.get()))}
                              x2={format!("{:.1}", px(f.end.x))} y2={format!("{:.1}", py(f.end.used.get()))} />
                    });
                    html! { <>
                        { for total }
                        <path class="series" d={d} data-gpu={s.gpu.to_string()} />
                        { for trend }
                    </> }
                }) }
                <line class="axis" x1={format!("{left}")} x2={format!("{left}")} y1={format!("{top}")} y2={format!("{}", top + ph)} />
                <line class="axis" x1={format!("{left}")} x2={format!("{}", left + pw)} y1={format!("{}", top + ph)} y2={format!("{}", top + ph)} />
            </svg>
            <figcaption class="hint">
                { for series.iter().map(|s| html! { <div data-pattern={format!("{:?}", s.pattern)}>{ lang.f(key!("diag.series"), &[
                    &s.gpu.to_string(),
                    // " NVIDIA H100 80GB HBM3", or nothing when the log names no card.
                    &s.name.as_deref().map(|n| format!(" {n}")).unwrap_or_default(),
                    &format::gib(s.peak),
                    &s.growth_mib_per_x.map(|g| format!("{g:.0} MiB / {unit}")).unwrap_or_else(|| "—".into()),
                ]) }</div> }) }
            </figcaption>
        </figure>
    }
}

#[derive(Properties, PartialEq)]
struct WalkProps {
    leaf: Option<String>,
}

/// The decision tree, walked one question at a time; the path is in the URL (`walk=0.1.0`).
#[function_component(Walk)]
fn walk(props: &WalkProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    let l = dl(lang);
    let t = tree::tree();
    let path: Vec<usize> = app
        .extra("walk")
        .split('.')
        .filter_map(|s| s.parse().ok())
        .collect();
    // Follow the path as far as it is valid.
    let mut at = t.root;
    let mut steps: Vec<(&tree::Node, usize)> = Vec::new();
    for &i in &path {
        let Some(node) = tree::node(at) else { break };
        let Some(a) = node.answers.get(i) else { break };
        steps.push((node, i));
        at = a.next;
    }
    let set_walk = |p: Vec<usize>| {
        let app = app.clone();
        let v = p.iter().map(usize::to_string).collect::<Vec<_>>().join(".");
        Callback::from(move |_| app.dispatch(Action::SetExtra("walk".into(), v.clone())))
    };
    let taken: Vec<usize> = steps.iter().map(|(_, i)| *i).collect();
    html! {
        <div class="panel" id="walk">
            <h2>{ lang.t(key!("diag.walk")) }</h2>
            if let Some(leaf) = &props.leaf {
                <p class="hint">{ lang.f(key!("diag.lands_on"), &[tree::leaf(leaf).map_or(leaf.as_str(), |x| x.title.get(l))]) }</p>
            }
            <ol class="tree">
                { for steps.iter().enumerate().map(|(k, (node, i))| html! {
                    <li class="taken">{ node.question.get(l) }{ " → " }<strong>{ node.answers[*i].label.get(l) }</strong>
                        { " " }<button type="button" onclick={set_walk(taken[..k].to_vec())}>{ lang.t(key!("diag.change")) }</button></li>
                }) }
                { match (tree::node(at), tree::leaf(at)) {
                    (Some(node), _) => html! {
                        <li id="walk-question" data-node={node.id}>
                            <strong>{ node.question.get(l) }</strong>
                            <p class="hint">{ node.help.get(l) }</p>
                            <div class="row">
                                { for node.answers.iter().enumerate().map(|(i, a)| {
                                    let mut p = taken.clone();
                                    p.push(i);
                                    html! { <button type="button" onclick={set_walk(p)}>{ a.label.get(l) }</button> }
                                }) }
                            </div>
                        </li>
                    },
                    (None, Some(leaf)) => html! {
                        <li class="result" id="walk-leaf" data-leaf={leaf.id} data-kind={leaf.kind.as_str()}>
                            { leaf.title.get(l) }
                            <p>{ leaf.summary.get(l) }</p>
                            { checks(lang, leaf.checks) }
                            <h3>{ lang.t(key!("diag.fixes")) }</h3>
                            <ol>{ for leaf.fixes.iter().filter_map(|f| tree::fix(f)).map(|f| html! {
                                <li><strong>{ f.title.get(l) }</strong><br />{ f.detail.get(l) }</li>
                            }) }</ol>
                            <button type="button" onclick={set_walk(Vec::new())}>{ lang.t(key!("diag.restart")) }</button>
                        </li>
                    },
                    (None, None) => html! {},
                } }
            </ol>
        </div>
    }
}
