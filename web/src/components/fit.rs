//! Fit & rent: which cards hold the calculator's run, the cheapest ways to rent it (single
//! cards, tensor / pipeline parallel, ZeRO-3, MIG slices), the guide's tier for the model size,
//! the largest batch and context on the chosen card; then the prices and catalog in use
//! ([`super::prices`]), spot against on-demand ([`super::spot`]) and the platform decision
//! matrix ([`super::matrix`]).

use vramfit::InputError;
use vramfit::estimate::{Bound, Estimate};
use vramfit::hardware::{
    Currency, Layout, Market, ParallelKind, PlanOption, PlanOptions, gpus, tiers,
};
use yew::prelude::*;

use super::field::error_text;
use super::matrix::Matrix;
use super::prices::Prices;
use super::spot::SpotCalc;
use crate::compute;
use crate::format;
use crate::i18n::Lang;
use crate::state::{Action, AppState};
use crate::{use_app, use_catalog};

/// A layout in the page's language (`1 GPU` and `2 nodes × 8 GPUs` are words; `TP=4` is
/// notation).
fn layout_text(lang: Lang, l: &Layout) -> String {
    if l.nodes > 1 {
        let per_node = (l.gpus / l.nodes).to_string();
        let n = l.nodes.to_string();
        return lang.f(key!("fit.nodes"), &[&n, &per_node, &l.notation()]);
    }
    match l.kind {
        ParallelKind::Single => lang.t(key!("fit.one_gpu")).to_string(),
        _ => l.describe(),
    }
}

const ROWS: usize = 25;

/// The view.
#[function_component(FitView)]
pub fn view() -> Html {
    let app = use_app();
    let lang = app.lang;
    let currency = if app.extra("currency") == "CNY" {
        Currency::Cny
    } else {
        Currency::Usd
    };
    let spot = app.extra("spot") == "true";
    let catalog = use_catalog();
    let est = use_memo((app.calc.clone(), app.extra.get("config").cloned()), {
        let s = (*app).clone();
        move |_| compute::estimate_of(&s)
    });
    // Spot offers are always planned (the spot calculator's defaults need them) and filtered
    // out of the table unless asked for: the planner drops options only within one offer, so
    // the on-demand rows are exactly those of a plan without spot.
    let plan = use_memo(
        (
            app.calc.clone(),
            app.extra.get("config").cloned(),
            currency,
            catalog.offers.clone(),
        ),
        {
            let s = (*app).clone();
            move |(_, _, currency, offers)| {
                compute::plan_of(
                    &s,
                    offers,
                    &PlanOptions {
                        currency: *currency,
                        include_spot: true,
                        ..PlanOptions::default()
                    },
                )
            }
        },
    );
    let all = plan.as_ref().as_ref().map(|v| v.as_slice()).unwrap_or(&[]);
    let spot_defaults = compute::spot_defaults(all, &app.value("gpu"));
    let options: Vec<&PlanOption> = all
        .iter()
        .filter(|o| spot || o.market == Market::OnDemand)
        .collect();
    let capacity = est
        .as_ref()
        .as_ref()
        .ok()
        .and_then(|e| e.fit.as_ref().map(|f| (f.gpu.clone(), f.memory_bytes)));
    let largest = use_memo(
        (
            app.calc.clone(),
            app.extra.get("config").cloned(),
            capacity.clone(),
        ),
        {
            let s = (*app).clone();
            move |(_, _, cap)| {
                let bounded = compute::input_with(&s, &[])
                    .map_or(compute::Bounds::None, |i| compute::bounds(&i));
                cap.as_ref()
                    .map(|(_, c)| (compute::largest(&s, *c), bounded))
            }
        },
    );
    let tail = html! {
        <>
            <Prices />
            <SpotCalc defaults={spot_defaults} currency={currency.code()} />
            <Matrix />
        </>
    };
    let e = match est.as_ref() {
        Ok(e) => e.clone(),
        Err(err) => return error_view(&app, err, tail),
    };
    // llama.cpp's `-c` and vLLM's `max_model_len` are the context the solver varies there.
    let (mode, engine) = (app.value("mode"), app.value("engine"));
    let context_len = mode == "serve" || (engine == "llamacpp" && mode != "training");
    html! {
        <>
            <h1>{ lang.t(key!("view.fit")) }</h1>
            <p class="lead">{ lang.f(key!("fit.lead"), &[&e.model, &format::gib(e.required_bytes), &format::gib(e.recommended_bytes)]) }</p>
            { tier_panel(lang, tiers::tier_for(e.params)) }
            if let (Some((gpu, cap)), Some(((batch, seq), bounded))) = (capacity.as_ref(), largest.as_ref().as_ref()) {
                { largest_panel(lang, (gpu, *cap), (batch, seq), *bounded, context_len) }
            }
            { offers_panel(&app, &catalog, currency, spot, &options) }
            <super::jobs::JobCosts options={options.iter().map(|o| (*o).clone()).collect::<Vec<_>>()} />
            { tail }
            { cards_panel(lang, &e) }
        </>
    }
}

/// The view when the calculator's run has no estimate: the error, a link to fix it in the
/// calculator, and the parts that need no estimate (`tail`).
fn error_view(app: &crate::Ctx, err: &InputError, tail: Html) -> Html {
    let lang = app.lang;
    html! {
        <>
            <h1>{ lang.t(key!("view.fit")) }</h1>
            <div class="notice error" id="fit-error" role="alert">
                { lang.t(key!("calc.cannot")) }{ " " }{ error_text(lang, err) }{ " " }
                <a href={app.hash_for(crate::route::View::Calc)}>{ lang.t(key!("fit.fix_in_calc")) }</a>
            </div>
            { tail }
        </>
    }
}

/// The guide's tier for the model size.
fn tier_panel(lang: Lang, tier: &tiers::Tier) -> Html {
    html! {
        <div class="panel" id="tier">
            <h2>{ lang.f(key!("fit.tier"), &[if lang.is_zh() { tier.name_zh } else { tier.name }]) }</h2>
            <dl class="kv">
                <dt>{ lang.t(key!("fit.tier_inference")) }</dt><dd>{ if lang.is_zh() { tier.inference_zh } else { tier.inference } }</dd>
                <dt>{ lang.t(key!("fit.tier_training")) }</dt><dd>{ if lang.is_zh() { tier.training_zh } else { tier.training } }</dd>
                <dt>{ lang.t(key!("fit.tier_note")) }</dt><dd>{ if lang.is_zh() { tier.note_zh } else { tier.note } }</dd>
            </dl>
        </div>
    }
}

/// The largest batch and context on the chosen card (`card`: its name and memory), from
/// [`compute::largest`] and what bounds the model ([`compute::Bounds`]).
fn largest_panel(
    lang: Lang,
    (gpu, cap): (&String, vramfit::Bytes),
    (batch, seq): (&compute::Solved, &compute::Solved),
    bounded: compute::Bounds,
    context_len: bool,
) -> Html {
    html! {
        <div class="panel" id="largest">
            <h2>{ lang.f(key!("fit.on_card"), &[gpu, &format::gib(cap)]) }</h2>
            if bounded == compute::Bounds::None {
                <p id="no-bound">{ lang.t(key!("fit.no_bound")) }</p>
            } else {
            <p id="max-batch">{ match batch {
                Some((b, bound)) => format!("{}{}", lang.f(key!("fit.max_batch"), &[&b.value.to_string(), &format::gib(b.bytes)]), if *bound == Bound::SharedContext { lang.t(key!("fit.bound_shared")) } else { "" }),
                None => lang.t(key!("fit.nothing_fits")).to_string(),
            } }</p>
            <p id="max-seq">{ match seq {
                _ if bounded == compute::Bounds::Batch => lang.t(key!("fit.no_seq")).to_string(),
                Some((n, bound)) => format!("{}{}", lang.f(if context_len { key!("fit.max_ctx") } else { key!("fit.max_seq") }, &[&vramfit::estimate::thousands(n.value), &format::gib(n.bytes)]), if *bound == Bound::TrainedContext { lang.t(key!("fit.bound_trained")) } else { "" }),
                None => lang.t(key!("fit.nothing_fits")).to_string(),
            } }</p>
            }
        </div>
    }
}

/// The rental options: the currency and spot choices, and the cheapest `ROWS` options.
fn offers_panel(
    app: &crate::Ctx,
    catalog: &crate::CatalogCtx,
    currency: Currency,
    spot: bool,
    options: &[&PlanOption],
) -> Html {
    let lang = app.lang;
    let set_extra = |k: &'static str| {
        let app = app.clone();
        move |v: String| app.dispatch(Action::SetExtra(k.into(), v))
    };
    let on_currency = {
        let set = set_extra("currency");
        Callback::from(move |ev: Event| {
            set(ev
                .target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value())
        })
    };
    let on_spot = {
        let set = set_extra("spot");
        Callback::from(move |ev: Event| {
            let c = ev
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .checked();
            set(if c { "true".into() } else { String::new() })
        })
    };
    html! {
        <div class="panel">
            <h2>{ lang.t(key!("fit.offers")) }</h2>
            <div class="row">
                <div class="field">
                    <label for="currency">{ lang.t(key!("fit.currency")) }</label>
                    <select id="currency" onchange={on_currency}>
                        <option value="USD" selected={currency == Currency::Usd}>{ "USD" }</option>
                        <option value="CNY" selected={currency == Currency::Cny}>{ "CNY" }</option>
                    </select>
                </div>
                <label class="check" for="spot"><input type="checkbox" id="spot" checked={spot} onchange={on_spot} />{ lang.t(key!("fit.spot")) }</label>
            </div>
            if options.is_empty() {
                <p class="notice" id="no-offer">{ lang.t(key!("fit.none")) }</p>
            } else {
                <div class="scroll">
                    <table id="offers">
                        <thead><tr>
                            <th>{ "#" }</th><th>{ lang.t(key!("fit.offer")) }</th><th>{ lang.t(key!("fit.layout")) }</th>
                            <th class="num">{ lang.t(key!("fit.per_gpu")) }</th><th class="num">{ lang.t(key!("fit.usable")) }</th>
                            <th class="num">{ lang.t(key!("fit.margin")) }</th><th class="num">{ lang.t(key!("fit.price")) }</th>
                        </tr></thead>
                        <tbody>
                            { for options.iter().take(ROWS).enumerate().map(|(i, o)| offer_row(app, catalog, i, o)) }
                        </tbody>
                    </table>
                </div>
                <p class="hint">{ lang.f(key!("fit.footnote"), &[&options.len().to_string()]) }</p>
            }
        </div>
    }
}

/// The offers table's row of option `o`, the `i`-th cheapest (from 0).
fn offer_row(app: &AppState, catalog: &crate::CatalogCtx, i: usize, o: &PlanOption) -> Html {
    let lang = app.lang;
    let layout = match &o.mig_profile {
        Some(p) => format!("MIG {p}"),
        None => layout_text(lang, &o.parallelism),
    };
    let rents = if o.rented_gpus > o.count {
        lang.f(key!("fit.rents"), &[&o.rented_gpus.to_string()])
    } else {
        String::new()
    };
    html! {
        <tr data-offer={o.offer.clone()} data-typed={catalog.prices.contains_key(&o.offer).to_string()} data-per-gpu={o.per_gpu_bytes.get().to_string()} data-price={format!("{}", o.price_per_hour)}>
            <td>{ i + 1 }</td>
            <td>{ &o.offer }<br /><span class="muted">{ format!("{} · {} × {}", o.provider, o.count, o.gpu) }{ if o.market == Market::Spot { format!(" · {}", lang.t(key!("fit.spot_short"))) } else { String::new() } }{ if catalog.prices.contains_key(&o.offer) { format!(" · {}", lang.t(key!("fit.typed_price"))) } else { String::new() } }</span></td>
            <td>{ match compute::layout_link(app, o) {
                Some(href) => html! { <a class="calc-link" href={href} title={lang.t(key!("models.open"))}>{ layout }</a> },
                None => html! { { layout } },
            } }{ rents }</td>
            <td class="num">{ format::gib(o.per_gpu_bytes) }</td>
            <td class="num">{ format::gib(o.usable_bytes) }</td>
            <td class="num">{ format::gib(o.margin_bytes) }</td>
            <td class="num">{ format::price(o.price_per_hour, o.currency.code()) }{ if o.reference_estimate { " ~" } else { "" } }</td>
        </tr>
    }
}

/// Every card of the catalog against the run's requirement.
fn cards_panel(lang: Lang, e: &Estimate) -> Html {
    html! {
        <div class="panel">
            <h2>{ lang.t(key!("fit.cards")) }</h2>
            <p class="hint">{ lang.f(key!("fit.cards_hint"), &[&format::gib(e.required_bytes)]) }</p>
            <div class="scroll">
                <table id="cards">
                    <thead><tr><th>{ lang.t(key!("fit.gpu")) }</th><th class="num">{ lang.t(key!("fit.memory")) }</th><th>{ lang.t(key!("fit.fits")) }</th></tr></thead>
                    <tbody>
                        { for gpus().iter().map(|g| {
                            let fits = e.required_bytes <= g.memory;
                            html! {
                                <tr data-gpu={g.id} data-fits={fits.to_string()}>
                                    <td>{ g.name }<br /><span class="muted">{ format!("{} · {}", g.architecture, g.interconnect()) }</span></td>
                                    <td class="num">{ format::gib(g.memory) }<br /><span class="muted">{ g.marketed_memory }</span></td>
                                    <td>{ if fits {
                                        html! { <span class="fit-yes">{ lang.f(key!("calc.fits"), &[&format::gib(g.memory.minus(e.required_bytes))]) }</span> }
                                    } else {
                                        html! { <span class="fit-no">{ lang.f(key!("calc.nofit"), &[&format::gib(e.required_bytes.minus(g.memory))]) }</span> }
                                    } }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
        </div>
    }
}
