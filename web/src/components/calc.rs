//! The calculator: the model, the run, the card; the estimate with its working, the guide's
//! quick estimate beside it, the what-ifs and memory against context length.

use std::rc::Rc;

use vramfit::InputError;
use vramfit::estimate::{Estimate, Fit, Formats, LayerOffload, PeakSource, Required};
use vramfit::units::fixed;
use yew::prelude::*;

use super::chart;
#[cfg(feature = "full")]
use super::chart::Line;
use super::field::{Shown, error_as, error_text, field_input, field_with};
use crate::compute;
use crate::format;
use crate::i18n::{Key, Lang};
use crate::state::Action;
use crate::use_app;

/// The view.
#[function_component(CalcView)]
pub fn calc_view() -> Html {
    let app = use_app();
    let lang = app.lang;
    let result = use_memo((app.calc.clone(), app.extra.get("config").cloned()), {
        let s = (*app).clone();
        move |_| compute::estimate_of(&s).map(Rc::new)
    });
    // The answer, with the estimate it answers from: the last one while the inputs are typed.
    // The rental it names is priced on the offers in use, as Fit & rent's table.
    let offers = use_offers();
    let answer = use_memo(
        (app.calc.clone(), app.extra.get("config").cloned(), offers),
        {
            let s = (*app).clone();
            let r = result.clone();
            move |(_, _, offers)| {
                r.as_ref()
                    .as_ref()
                    .ok()
                    .and_then(|e| compute::answer_of(&s, e, offers_of(offers)))
            }
        },
    );
    let last_answer = use_mut_ref(|| None::<Rc<crate::answer::Answer>>);
    if let Some(a) = answer.as_ref() {
        *last_answer.borrow_mut() = Some(Rc::new(a.clone()));
    }
    let shown_answer = last_answer.borrow().clone();
    // Typing is not an error: while the inputs change, the last result stays (marked as the
    // last one) and an error waits for a pause or for the focus to leave a field, so that a
    // half-typed value (`Qwen3-32`, `1` of `16`) does not replace the answer with an error.
    // A page opened on an input with an error shows it at once: only a change unsettles.
    let settled = use_state(|| true);
    let seen = use_mut_ref(|| app.calc.clone());
    {
        let settled = settled.clone();
        use_effect_with(app.calc.clone(), move |calc| {
            let changed = *seen.borrow() != *calc;
            *seen.borrow_mut() = calc.clone();
            let pause = changed.then(|| {
                settled.set(false);
                gloo::timers::callback::Timeout::new(SETTLE_MS, move || settled.set(true))
            });
            move || drop(pause)
        });
    }
    let last = use_mut_ref(|| None::<Rc<Estimate>>);
    if let Ok(e) = result.as_ref() {
        *last.borrow_mut() = Some(e.clone());
    }
    let last = last.borrow().clone();
    let error = result.as_ref().as_ref().err().filter(|_| *settled).cloned();
    let onfocusout = {
        let settled = settled.clone();
        Callback::from(move |_: FocusEvent| settled.set(true))
    };
    // The form's fields (some 400 elements with the card list's 138 options) come one frame
    // after the answer and the results: on a slow device the first paint then holds the result
    // sooner (its layout and the code it runs for the first time, compiled on first use, are
    // the smaller part of the page). The form's panel is there from the first frame, empty, so
    // that nothing beside it moves when its fields arrive (issue #43).
    let painted = crate::hooks::use_painted();
    html! {
        <>
            <h1>{ lang.t(key!("view.calc")) }</h1>
            <p class="lead">{ lang.t(key!("calc.lead")) }</p>
            if let Some(a) = shown_answer {
                <div data-stale={if result.is_ok() { "false" } else { "true" }}>{ super::answer::block(&app, &a) }</div>
            }
            <div class="layout">
                <form class="panel" id="calc-form" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}
                      {onfocusout} aria-label={lang.t(key!("calc.form"))} aria-busy={(!painted).then_some("true")}>
                    if painted {
                        { super::model_picker::model_picker(&app, &error) }
                        { run_fields(&app, &error, result.as_ref().as_ref().ok().map(|e| &**e)) }
                        <button type="button" onclick={{ let app = app.clone(); Callback::from(move |_| app.dispatch(Action::Reset)) }}>
                            { lang.t(key!("calc.reset")) }
                        </button>
                    }
                </form>
                <section class="results" aria-live="polite" aria-label={lang.t(key!("calc.results"))}>
                    { match (result.as_ref(), &error) {
                        (Ok(e), _) => html! { <Results estimate={e.clone()} /> },
                        (Err(_), None) => html! {
                            <>
                                <p class="notice hint" id="calc-typing" role="status">{ lang.t(key!("calc.typing")) }</p>
                                if let Some(l) = last { <div class="stale"><Results estimate={l} /></div> }
                            </>
                        },
                        (Err(_), Some(e)) => html! {
                            <>
                                <div class="notice error" id="calc-error" role="alert" data-field={e.field.clone()}>
                                    <strong>{ lang.t(key!("calc.cannot")) }</strong>{ " " }
                                    { error_as(lang, e, compute::runner_of(&app).and_then(|r| crate::engines::name_of(r, &e.field)).unwrap_or(&e.field)) }
                                </div>
                                if let Some(l) = last {
                                    <p class="muted" id="calc-last">{ lang.t(key!("calc.last_result")) }</p>
                                    <div class="stale"><Results estimate={l} /></div>
                                }
                            </>
                        },
                    } }
                </section>
            </div>
        </>
    }
}

/// The offers in use, which the answer's rental is priced on: the full build's provider's.
#[cfg(feature = "full")]
type Offers = Rc<Vec<vramfit::hardware::Offer>>;

#[cfg(feature = "full")]
#[hook]
fn use_offers() -> Offers {
    crate::use_catalog().offers.clone()
}

/// A calculator build has no provider of offers and prices nothing: none, and none of the
/// code that compares or clones them in its first load.
#[cfg(not(feature = "full"))]
type Offers = [vramfit::hardware::Offer; 0];

#[cfg(not(feature = "full"))]
#[hook]
fn use_offers() -> Offers {
    []
}

/// The offers as the answer takes them.
fn offers_of(o: &Offers) -> &[vramfit::hardware::Offer] {
    o
}

/// How long the inputs must rest before an error replaces the typing hint, in milliseconds.
const SETTLE_MS: u32 = 700;

// The form's parts are plain functions of the state that `CalcView` calls, not components, for
// the reason `components::shell` gives (1.5 KB of the first load for these four).

/// The run's fields, grouped; the groups that do not apply to the mode are left out. The
/// engine's own settings are a section named after it, each under the engine's own name with the
/// value it takes when left empty (`e`: the estimate shown, for Ollama's choice of layers).
fn run_fields(app: &crate::Ctx, error: &Option<InputError>, e: Option<&Estimate>) -> Html {
    let lang = app.lang;
    let mode = app.value("mode");
    let f = |name: &'static str| field_input(app, name, error);
    let runner = compute::runner_of(app);
    let settings = runner.map(crate::engines::settings).unwrap_or_default();
    let in_engine = |k: &str| settings.iter().any(|(f, _, _)| *f == k);
    let defaults = compute::engine_defaults(app, e);
    let default = |k: &str| {
        defaults
            .iter()
            .find(|(f, _)| *f == k)
            .map(|(_, v)| v.clone())
    };
    let rules = runner.map(|r| r.rules());
    // The nodes' fields once the run has more than one GPU, or a value is set in them.
    let several_gpus = e.is_some_and(|e| e.gpus > 1)
        || !app.value("gpus_per_node").is_empty()
        || !app.value("node_link").is_empty();
    // The KV-cache types and weight formats the engine takes.
    let kv_types = rules.and_then(|r| r.kv_dtypes).unwrap_or_default();
    let keep_kv = |v: &str| {
        vramfit::precision::KvDtype::parse("kv_dtype", v).is_ok_and(|k| kv_types.contains(&k))
    };
    let formats = rules.map(|r| r.formats);
    let keep_format = |v: &str| match formats {
        Some(Formats::Gguf) => v == "none" || v.starts_with("gguf-"),
        Some(Formats::Serving) => !v.starts_with("gguf-") && !v.starts_with("mlx-"),
        Some(Formats::Mlx) => v == "none" || v.starts_with("mlx-"),
        Some(Formats::Bitsandbytes | Formats::Checkpoint) => !v.starts_with("mlx-"),
        _ => true,
    };
    let quantization = Shown {
        keep: Some(&keep_format),
        relabel: default("quantization")
            .map(|q| ("none", lang.f(key!("calc.q_as_shipped"), &[&q]))),
        ..Shown::default()
    };
    let batch = Shown {
        label: (mode == "serve").then_some(key!("calc.users")),
        ..Shown::default()
    };
    let setting = |(field, name, what): (&'static str, &'static str, Key)| {
        let shown = Shown {
            name: Some((name, what)),
            placeholder: default(field).map(|v| lang.f(key!("e.default"), &[&v])),
            keep: (field == "kv_dtype").then_some(&keep_kv as &dyn Fn(&str) -> bool),
            ..Shown::default()
        };
        field_with(app, field, error, &shown)
    };
    html! {
        <>
            <fieldset>
                <legend>{ lang.t(key!("calc.run")) }</legend>
                { f("mode") }
                if mode != "training" { { f("engine") } }
                <div class="row">
                    if !in_engine("batch") { { field_with(app, "batch", error, &batch) } }
                    { f("seq_len") }
                </div>
                if mode != "training" { { f("new_tokens") } }
                <div class="row">{ f("dtype") }{ field_with(app, "quantization", error, &quantization) }</div>
                if mode != "training" && !in_engine("kv_dtype") { { f("kv_dtype") } }
            </fieldset>
            if mode == "training" { { training_fields(app, error) } }
            <fieldset>
                <legend>{ lang.t(key!("calc.hardware")) }</legend>
                { gpu_picker(app, error) }
                <div class="row">{ f("gpus") }{ f("tp") }{ f("pp") }</div>
                // Over several GPUs the nodes they fill and the network between them: the
                // speed pays the links (serving and training alike).
                if several_gpus {
                    <div class="row">{ f("gpus_per_node") }{ f("node_link") }</div>
                }
            </fieldset>
            if let (false, Some(r)) = (settings.is_empty(), rules) {
                <fieldset class="engine" id="engine-settings" data-engine={r.name}>
                    <legend>{ lang.f(key!("e.settings"), &[r.name]) }</legend>
                    { for settings.iter().copied().map(setting) }
                </fieldset>
            }
            <details open={error.as_ref().is_some_and(|e| matches!(e.field.as_str(), "attention" | "logits"))}>
                <summary>{ lang.t(key!("calc.advanced")) }</summary>
                <div class="row">
                    if !in_engine("attention") { { f("attention") } }
                    { f("logits") }
                </div>
            </details>
        </>
    }
}

/// The training fields: the full build's, to which a calculator build hands every training run
/// (`AppState::build`), so that the first load carries none of their rows, readers or texts.
#[cfg(feature = "full")]
fn training_fields(app: &crate::Ctx, error: &Option<InputError>) -> Html {
    let lang = app.lang;
    let rl = app.value("rl");
    let f = |name: &'static str| field_input(app, name, error);
    html! {
        <fieldset>
            <legend>{ lang.t(key!("calc.training")) }</legend>
            <div class="row">{ f("optimizer") }{ f("precision") }</div>
            { f("grad_checkpointing") }
            <div class="row">{ f("lora_rank") }{ f("lora_targets") }</div>
            { f("lora_dropout") }
            { f("qlora") }
            <div class="row">{ f("zero") }{ f("offload") }</div>
            <div class="row">{ f("fused_optimizer") }{ f("grad_accum") }</div>
            <div class="row">{ f("stack") }{ f("loss") }</div>
            <div class="row">{ f("loss_chunks") }{ f("kbit_upcast") }</div>
            { f("foreach") }
            { f("optimizer_in_backward") }
            { f("activation_offload") }
            { f("packing") }
            { f("compile") }
            { training_config_panel() }
            { f("rl") }
            if !rl.is_empty() {
                if rl != "dpo" {
                    <div class="row">{ f("rollout") }{ f("num_generations") }</div>
                }
                <div class="row">{ f("max_completion_length") }{ f("rl_beta") }</div>
                { f("ref_model") }
                if rl != "dpo" && app.value("rollout") == "colocate" {
                    <div class="row">{ f("rollout_memory_utilization") }{ f("sleep_mode") }</div>
                }
            }
        </fieldset>
    }
}

/// The calculator builds hand a training run to the full build before it is shown.
#[cfg(not(feature = "full"))]
fn training_fields(_: &crate::Ctx, _: &Option<InputError>) -> Html {
    Html::default()
}

/// The card: a catalog GPU or a memory size (one or the other, as the estimator accepts).
fn gpu_picker(app: &crate::Ctx, error: &Option<InputError>) -> Html {
    let lang = app.lang;
    let gpu = app.value("gpu");
    let onchange = super::gpus::pick(app);
    let err = error.as_ref().filter(|e| e.field == "gpu");
    html! {
        <>
            <div class="field">
                <label for="f-gpu">{ lang.t(key!("f.gpu")) }</label>
                <select id="f-gpu" name="gpu" {onchange} aria-invalid={err.is_some().then_some("true")}>
                    <option value="" selected={gpu.is_empty()}>{ lang.t(key!("calc.no_gpu")) }</option>
                    { super::gpus::options(&gpu) }
                </select>
                if let Some(e) = err { <span class="err" id="f-gpu-err" role="alert">{ error_text(lang, e) }</span> }
            </div>
            if gpu.is_empty() { { field_input(app, "gpu_memory", error) } }
            // The memory already in use on the card (a desktop, a display), once there is one.
            if !gpu.is_empty() || !app.value("gpu_memory").is_empty() {
                { field_input(app, "memory_in_use", error) }
            }
        </>
    }
}

#[derive(Properties)]
struct ResultProps {
    estimate: Rc<Estimate>,
}

/// The same estimate is the same `Rc`: `CalcView`'s memo makes a new one only when an input
/// changed. Comparing pointers spares the first load a field-by-field comparison of an estimate
/// and its copy (the book's performance chapter has the figure).
impl PartialEq for ResultProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.estimate, &other.estimate)
    }
}

/// The estimate.
#[function_component(Results)]
fn results(props: &ResultProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    let e = &props.estimate;
    // The what-ifs and the context chart (some twenty estimates and an SVG) follow a change one
    // task later, so that the totals and the working above paint within the frame of the change.
    #[cfg(feature = "full")]
    let late = crate::hooks::use_deferred((app.calc.clone(), app.extra.get("config").cloned()));
    #[cfg(feature = "full")]
    let context = use_context_panel(&app, e, late.clone());
    // The calculator builds leave the context chart to the full build.
    #[cfg(not(feature = "full"))]
    let context = Html::default();
    #[cfg(feature = "full")]
    let whatifs = use_whatif_panel(&app, e, late);
    // The calculator builds leave the what-ifs to the full build.
    #[cfg(not(feature = "full"))]
    let whatifs = Html::default();
    // And the command that starts the run.
    #[cfg(feature = "full")]
    let launch = super::launch::launch_panel(&app);
    #[cfg(not(feature = "full"))]
    let launch = Html::default();
    html! {
        <>
            { totals_panel(&app, e) }
            // The speed is the full build's: a calculator build hands a state with a catalog card
            // over to it (`AppState::build`).
            { speed_panel(lang, e) }
            { working_panel(lang, e) }
            { launch }
            { quick_panel(lang, e) }
            { whatifs }
            { context }
        </>
    }
}

/// Memory against context length (some twenty estimates and an SVG), with the card's memory
/// and the catalog's common sizes as lines: the full build's, which a catalog card loads (the
/// calculator builds leave it out of the first load).
#[cfg(feature = "full")]
#[hook]
fn use_context_panel(app: &crate::Ctx, e: &Estimate, late: Deps) -> Html {
    let lang = app.lang;
    let curve = use_memo(late, {
        let s = (**app).clone();
        move |_| compute::context_curve(&s)
    });
    if curve.len() < 2 {
        return Html::default();
    }
    let current_seq =
        vramfit::units::parse_number(app.value("seq_len").trim()).unwrap_or(0.0) as u64;
    let mut lines: Vec<Line> = Vec::new();
    if let Some(f) = &e.fit {
        lines.push(Line {
            label: format::gib(f.memory_bytes),
            bytes: f.memory_bytes,
        });
    }
    lines.extend(super::gpus::chart_lines());
    html! {
        <div class="panel">
            <h2>{ lang.t(key!("calc.chart")) }</h2>
            { chart::context_chart(lang, &curve, current_seq, &lines) }
            <p class="hint">{ lang.t(key!("calc.chart_hint")) }</p>
        </div>
    }
}

/// The guide's optimisations (§5.1) that apply, each re-estimated (about ten estimates): the full
/// build's, which a catalog card loads (the calculator builds leave it out of the first load).
/// With the estimate they were computed against, so that what a card saves is exact even in the
/// one task where the totals above are newer.
#[cfg(feature = "full")]
#[hook]
fn use_whatif_panel(app: &crate::Ctx, e: &Rc<Estimate>, late: Deps) -> Html {
    let lang = app.lang;
    let whatifs = use_memo(late, {
        let s = (**app).clone();
        let e = e.clone();
        move |_| (compute::what_ifs(&s, &e), e)
    });
    if whatifs.0.is_empty() {
        return Html::default();
    }
    html! {
        <div class="panel">
            <h2>{ lang.t(key!("calc.whatif")) }</h2>
            <div class="whatif" id="whatif">
                { for whatifs.0.iter().map(|w| whatif_card(app, w, &whatifs.1)) }
            </div>
        </div>
    }
}

/// What the late panels follow: the inputs and the config.json.
#[cfg(feature = "full")]
type Deps = (crate::state::Inputs, Option<String>);

/// One figure of the results: its name, its bytes in GiB and a line under them.
fn stat(lang: Lang, id: &str, key: Key, b: vramfit::Bytes, sub: String) -> Html {
    html! {
        <div class="stat" id={id.to_string()} data-bytes={b.get().to_string()}>
            <div class="k">{ lang.t(key) }</div>
            <div class="v">{ format::gib(b) }</div>
            <div class="s">{ sub }</div>
        </div>
    }
}

/// The totals: what the run needs, its peak, the recommended memory and whether the card
/// holds it; the serving figures, what goes to CPU memory and NVMe, and the stacked bar.
fn totals_panel(app: &crate::Ctx, e: &Estimate) -> Html {
    let lang = app.lang;
    let fit = e.fit.as_ref().map(|f| fit_stat(lang, f));
    let capacity = e.fit.as_ref().map(|f| f.memory_bytes);
    // M_rec is 1.2 × (M_theory + 2 GB), M_theory as the engine decides it: PyTorch's peak,
    // llama.cpp's total, the card memory a serving engine's pool needs for the batch, or the
    // memory that holds Ollama's every layer on the GPU.
    let rules = compute::rules_of(app);
    let llamacpp_peak = e.peak_source == PeakSource::Llamacpp;
    let m_theory = match rules.map(|r| (r.required, r.offload)) {
        Some((Required::Theory, LayerOffload::EngineDecides)) => {
            key!("calc.recommended_sub_ollama")
        }
        Some((Required::Theory, _)) => key!("calc.recommended_sub_vllm"),
        _ if llamacpp_peak => key!("calc.recommended_sub_total"),
        _ => key!("calc.recommended_sub"),
    };
    // Ollama on one GPU of several: that GPU's figures, the others idle.
    let one = e.ollama.as_ref().and_then(|o| o.loaded_on.as_deref());
    let per_gpu = if let (Some(card), true) = (one, e.gpus > 1) {
        let name = vramfit::hardware::find_gpu(card)
            .map_or_else(|| card.to_string(), super::gpus::short_name);
        lang.f(key!("calc.ollama_one_gpu"), &[&name, &e.gpus.to_string()])
    } else if e.gpus > 1 {
        lang.f(key!("calc.per_gpu"), &[&e.gpus.to_string()])
    } else {
        String::new()
    };
    html! {
        <div class="panel">
            <h2 id="result-title">{ lang.f(key!("calc.result_for"), &[&e.model, &format::params(e.params)]) }{ per_gpu }</h2>
            <div class="totals">
                { stat(lang, "total", key!("calc.total"), e.total_bytes, lang.f(key!("calc.total_sub"), &[&format::mib(e.total_bytes)])) }
                { stat(lang, "peak", key!("calc.peak"), e.peak_allocated_bytes, lang.t(if llamacpp_peak { key!("calc.peak_sub_llamacpp") } else { key!("calc.peak_sub") }).to_string()) }
                { stat(lang, "recommended", key!("calc.recommended"), e.recommended_bytes, lang.f(m_theory, &[&format::gb(e.recommended_bytes)])) }
                { for fit }
            </div>
            if let (Some(t), Some(c)) = (e.kv_cache_tokens, e.max_concurrency_exact) {
                <p id="serving" data-kv-tokens={t.to_string()}>{ lang.f(key!("calc.serving_result"), &[&vramfit::estimate::thousands(t), &fixed(c, 2), context_name(app)]) }</p>
            }
            if e.cpu_bytes.get() > 0 {
                <p id="cpu">{ lang.f(key!("calc.cpu"), &[&format::gib(e.cpu_bytes)]) }</p>
            }
            if e.nvme_bytes.get() > 0 {
                <p id="nvme">{ lang.f(key!("calc.nvme"), &[&format::gib(e.nvme_bytes)]) }</p>
            }
            if !e.cards.is_empty() {
                <div id="cards">
                    <p>{ lang.t(key!("cards.title")) }</p>
                    <ul>{ for e.cards.iter().enumerate().map(|(i, c)| html! {
                        <li data-limits={if c.limits { "true" } else { "false" }}>{ card_row(lang, i, c) }</li>
                    }) }</ul>
                </div>
            }
            { chart::stacked_bar(lang, e, capacity) }
            { step_chart(lang, e, capacity) }
        </div>
    }
}

/// One card of a llama.cpp run over several: what it holds of its memory, its blocks, whether
/// it has room and whether it limits.
fn card_row(lang: Lang, i: usize, c: &vramfit::estimate::CardUse) -> String {
    let verdict = if c.fits {
        lang.f(key!("cards.spare"), &[&format::gib(c.headroom_bytes)])
    } else {
        lang.f(key!("cards.short"), &[&format::gib(c.shortfall_bytes)])
    };
    let output = if c.output_layer {
        lang.t(key!("cards.output"))
    } else {
        ""
    };
    let limits = if c.limits {
        lang.t(key!("cards.limits"))
    } else {
        ""
    };
    lang.f(
        key!("cards.row"),
        &[
            &i.to_string(),
            &c.gpu,
            &format::gib(c.used_bytes),
            &format::gib(c.memory_bytes),
            &c.layers.to_string(),
            output,
            &verdict,
            limits,
        ],
    )
}

/// The name of the context in the state's engine (`max_model_len`, `context_length`, `num_ctx`).
fn context_name(app: &crate::Ctx) -> &'static str {
    compute::runner_of(app)
        .and_then(|r| crate::engines::name_of(r, "max_model_len"))
        .unwrap_or("max_model_len")
}

/// Whether the run fits the card, with where the card's memory figure comes from.
fn fit_stat(lang: Lang, f: &Fit) -> Html {
    let text = if f.fits {
        lang.f(key!("calc.fits"), &[&format::gib(f.headroom_bytes)])
    } else {
        // A reason other than the bytes (vLLM's pool too small for one max_model_len
        // sequence) says what fails; the shortfall alone could read "0 GiB short".
        match &f.reason {
            Some(r) => (if lang.is_zh() { &r.zh } else { &r.en }).clone(),
            None => lang.f(key!("calc.nofit"), &[&format::gib(f.shortfall_bytes)]),
        }
    };
    let card = vramfit::hardware::find_gpu(&f.gpu);
    let provenance = card.map(|g| memory_source(lang, g));
    html! {
        <div class="stat" id="fit" data-fits={if f.fits { "true" } else { "false" }}>
            <div class="k">{ lang.f(key!("calc.on_gpu"), &[&card.map_or_else(|| lang.t(key!("calc.custom_gpu")).to_string(), super::gpus::short_name)]) }</div>
            <div class="v">{ format::gib(f.memory_bytes) }</div>
            <div class="s">{ text }</div>
            { for provenance }
        </div>
    }
}

/// Where a catalog card's memory figure comes from: CUDA's total on a real card, or a stated
/// rule. A calculator build hands a catalog card over to the full build: none there.
#[cfg(feature = "full")]
fn memory_source(lang: Lang, g: &vramfit::hardware::Gpu) -> Html {
    let (key, rest) = match g.memory_source {
        vramfit::hardware::MemorySource::Measured => (
            key!("calc.mem_measured"),
            g.memory_note.strip_prefix("measured: "),
        ),
        vramfit::hardware::MemorySource::Derived => (
            key!("calc.mem_derived"),
            g.memory_note.strip_prefix("derived: "),
        ),
    };
    html! { <div class="src muted" id="gpu-memory-source">{ lang.f(key, &[rest.unwrap_or(g.memory_note), g.date]) }</div> }
}

#[cfg(not(feature = "full"))]
fn memory_source(_: Lang, _: &vramfit::hardware::Gpu) -> Html {
    Html::default()
}

/// The working: every component of the estimate with its bytes and formula, and the notes.
fn working_panel(lang: Lang, e: &Estimate) -> Html {
    html! {
        <div class="panel">
            <h2>{ lang.t(key!("calc.working")) }</h2>
            <div class="scroll">
                <table id="working">
                    <thead><tr><th>{ lang.t(key!("calc.component")) }</th><th class="num">{ lang.t(key!("calc.bytes")) }</th><th>{ lang.t(key!("calc.formula")) }</th></tr></thead>
                    <tbody>
                        { for e.components.iter().map(|c| {
                            let off = !c.key.at_peak;
                            html! {
                                <tr data-key={c.key.to_string()} data-bytes={c.bytes.get().to_string()}>
                                    <td><span class="swatch" data-c={c.key.kind.name()}></span>
                                        { chart::component_label(lang, c.key.kind) }
                                        if off { <br /><span class="muted">{ lang.t(key!("calc.off_peak")) }</span> }</td>
                                    <td class="num">{ format::gib(c.bytes) }</td>
                                    <td><div class="formula">{ if lang.is_zh() { c.formula_zh.clone() } else { c.formula.clone() } }</div>
                                        <div>{ if lang.is_zh() { &c.note_zh } else { &c.note_en } }</div></td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
            if !e.notes.is_empty() {
                <h3>{ lang.t(key!("calc.notes")) }</h3>
                <ul class="reasons">{ for e.notes.iter().map(|n| html! { <li>{ if lang.is_zh() { &n.zh } else { &n.en } }</li> }) }</ul>
            }
        </div>
    }
}

/// The guide's quick estimate beside the detailed one, and how the two differ.
fn quick_panel(lang: Lang, e: &Estimate) -> Html {
    html! {
        <div class="panel" id="quick">
            <h2>{ lang.t(key!("calc.quick")) }</h2>
            <div class="totals">
                { stat(lang, "quick-theory", key!("calc.quick_theory"), e.quick.theory_bytes, format::gb(e.quick.theory_bytes)) }
                { stat(lang, "quick-rec", key!("calc.quick_rec"), e.quick.recommended_bytes, format::gb(e.quick.recommended_bytes)) }
            </div>
            <p class="formula" id="quick-formula">{ if lang.is_zh() { e.quick.formula_zh.clone() } else { e.quick.formula.clone() } }</p>
            if !e.differences.is_empty() {
                <h3>{ lang.t(key!("calc.differences")) }</h3>
                <ul class="reasons" id="differences">{ for e.differences.iter().map(|d| html! { <li>{ if lang.is_zh() { &d.zh } else { &d.en } }</li> }) }</ul>
            }
        </div>
    }
}

#[cfg(feature = "full")]
fn speed_panel(lang: crate::i18n::Lang, e: &Estimate) -> Html {
    super::speed::panel(lang, e)
}

#[cfg(not(feature = "full"))]
fn speed_panel(_: crate::i18n::Lang, _: &Estimate) -> Html {
    Html::default()
}

#[cfg(feature = "full")]
fn whatif_card(app: &crate::Ctx, w: &compute::WhatIf, base: &Estimate) -> Html {
    let lang = app.lang;
    let (before, after) = (base.total_bytes.get(), w.estimate.total_bytes.get());
    let delta = if after <= before {
        html! { <span class="save">{ lang.f(key!("calc.saves"), &[&format::gib(vramfit::Bytes::new(before - after)), &format::percent(before - after, before)]) }</span> }
    } else {
        html! { <span class="cost">{ lang.f(key!("calc.costs"), &[&format::gib(vramfit::Bytes::new(after - before))]) }</span> }
    };
    let changes: Vec<(String, String)> = w
        .changes
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let apply = {
        let app = app.clone();
        Callback::from(move |_| app.dispatch(Action::SetMany(changes.clone())))
    };
    html! {
        <div class="card" data-whatif={w.key} data-bytes={after.to_string()}>
            <div>{ lang.t(w.title) }</div>
            <div class="v">{ format::gib(w.estimate.total_bytes) }</div>
            <div>{ delta }</div>
            <div class="muted speed">{ lang.t(w.speed) }</div>
            if let (Some(c0), Some(c1)) = (base.max_concurrency_exact, w.estimate.max_concurrency_exact) {
                <div class="muted">{ lang.f(key!("calc.concurrency"), &[&fixed(c0, 1), &fixed(c1, 1)]) }</div>
            }
            <button type="button" onclick={apply}>{ lang.t(key!("calc.apply")) }</button>
        </div>
    }
}

/// The training form's reader of a stack's config file (the full build's: training is).
#[cfg(feature = "full")]
fn training_config_panel() -> Html {
    html! { <super::training_config::TrainingConfig /> }
}

/// The run's moments: a training step's, an inference's, a serving engine's start-up (the full
/// build).
#[cfg(feature = "full")]
fn step_chart(lang: Lang, e: &Estimate, capacity: Option<vramfit::Bytes>) -> Html {
    if e.step.is_empty() {
        return html! {};
    }
    chart::step_chart(lang, e, capacity)
}

/// The calculator's build, the first load, leaves the moments' chart to the full build.
#[cfg(not(feature = "full"))]
fn step_chart(_: Lang, _: &Estimate, _: Option<vramfit::Bytes>) -> Html {
    html! {}
}
