//! Spot against on-demand for a job (guide §6 Q2): the core's expected-cost model with
//! interruptions, checkpoints and restarts. The prices default to the cheapest on-demand and
//! spot options for the calculator's run; every field is in the URL.

use vramfit::InputError;
use vramfit::hardware::spot::SpotComparison;
use yew::prelude::*;

use super::field::{error_text, input_value};
use crate::compute::{self, SPOT_FIELDS, SpotDefaults};
use crate::i18n::{Key, Lang};
use crate::state::Action;
use crate::use_app;

/// Properties of [`SpotCalc`].
#[derive(Properties, PartialEq)]
pub struct SpotProps {
    /// Where the default prices come from.
    pub defaults: SpotDefaults,
    /// The currency of the prices (that of the offers table).
    pub currency: &'static str,
}

/// `12.34 USD`, never NaN, infinite or negative.
pub fn money(x: f64, code: &str) -> String {
    if x.is_finite() && x >= 0.0 {
        format!("{x:.2} {code}")
    } else {
        "—".into()
    }
}

/// `3.50 h`.
pub fn hours(x: f64) -> String {
    if x.is_finite() && x >= 0.0 {
        format!("{x:.2} h")
    } else {
        "—".into()
    }
}

/// The calculator.
#[function_component(SpotCalc)]
pub fn spot_calc(props: &SpotProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    let d = &props.defaults;
    let result = compute::spot_of(&app, d);
    let err = result.as_ref().err();
    let field = |key: &'static str, name: &'static str, label: Key| -> Html {
        let id = key.replace('_', "-");
        let value = compute::spot_value(&app, key, d);
        let mine: Option<&InputError> = err.filter(|e| e.field == name);
        let oninput = {
            let app = app.clone();
            Callback::from(move |e: InputEvent| {
                let v = input_value(&e);
                // An emptied field keeps a space, so it shows its error instead of the default.
                let v = if v.is_empty() { " ".to_string() } else { v };
                app.dispatch(Action::SetExtra(key.into(), v));
            })
        };
        let hint = match key {
            "spot_od" => Some(match &d.on_demand {
                Some((offer, _)) => lang.f(key!("spot.from_offer"), &[offer]),
                None => lang.t(key!("spot.no_offer")).to_string(),
            }),
            "spot_price" => Some(match (&d.spot, &d.on_demand) {
                (Some((offer, _)), _) => lang.f(key!("spot.from_offer"), &[offer]),
                _ => lang.t(key!("spot.guide_fraction")).to_string(),
            }),
            "spot_mtbi" => Some(lang.t(key!("spot.mtbi_hint")).to_string()),
            _ => None,
        };
        // The prices' labels name the currency; the others have no slot.
        let label = lang.f(label, &[props.currency]);
        let err_id = format!("{id}-err");
        let hint_id = format!("{id}-hint");
        let described = match (mine.is_some(), hint.is_some()) {
            (true, true) => Some(format!("{err_id} {hint_id}")),
            (true, false) => Some(err_id.clone()),
            (false, true) => Some(hint_id.clone()),
            (false, false) => None,
        };
        html! {
            <div class="field">
                <label for={id.clone()}>{ label }</label>
                <input type="text" inputmode="decimal" id={id.clone()} name={key} value={value}
                    {oninput} autocomplete="off" spellcheck="false" aria-describedby={described}
                    aria-invalid={mine.is_some().then_some("true")} />
                if let Some(h) = hint { <span class="hint" id={hint_id}>{ h }</span> }
                if let Some(e) = mine { <span class="err" id={err_id} role="alert">{ error_text(lang, e) }</span> }
            </div>
        }
    };
    let reset = {
        let app = app.clone();
        Callback::from(move |_| {
            let kvs = SPOT_FIELDS
                .iter()
                .map(|(k, _, _)| (k.to_string(), String::new()))
                .collect::<Vec<_>>();
            for (k, v) in kvs {
                app.dispatch(Action::SetExtra(k, v));
            }
        })
    };
    let typed = SPOT_FIELDS
        .iter()
        .any(|(k, _, _)| app.extra.contains_key(k));
    html! {
        <div class="panel" id="spot-panel">
            <h2>{ lang.t(key!("spot.title")) }</h2>
            <p class="hint">{ lang.t(key!("spot.lead")) }</p>
            <div class="row">{ field("spot_hours", "hours", key!("spot.spot_hours")) }{ field("spot_od", "on_demand_price", key!("spot.spot_od")) }{ field("spot_price", "spot_price", key!("spot.spot_price")) }</div>
            <div class="row">{ field("spot_mtbi", "mtbi", key!("spot.spot_mtbi")) }{ field("spot_ckpt", "checkpoint_every", key!("spot.spot_ckpt")) }{ field("spot_restart", "restart", key!("spot.spot_restart")) }</div>
            <button type="button" id="spot-reset" onclick={reset} disabled={!typed}>{ lang.t(key!("spot.defaults")) }</button>
            { match &result {
                Ok(c) => breakdown(lang, c, props.currency),
                Err(e) => html! {
                    <p class="notice error" id="spot-error" data-field={e.field.clone()}>{ lang.t(key!("spot.cannot")) }{ " " }{ error_text(lang, e) }</p>
                },
            } }
        </div>
    }
}

fn breakdown(lang: Lang, c: &SpotComparison, cur: &str) -> Html {
    let spot_cheaper = c.spot_is_cheaper;
    let diff = (c.on_demand_cost - c.spot_cost).abs();
    let extra = (c.expected_wall_hours - c.input.hours).max(0.0);
    let n = format!("{:.2}", c.expected_interruptions);
    let verdict = if spot_cheaper {
        lang.f(
            key!("spot.verdict_spot"),
            &[
                &money(diff, cur),
                &n,
                &hours(extra),
                &money(c.break_even_spot_price, cur),
            ],
        )
    } else {
        lang.f(
            key!("spot.verdict_od"),
            &[
                &money(diff, cur),
                &n,
                &hours(c.expected_wall_hours),
                &money(c.break_even_spot_price, cur),
            ],
        )
    };
    let mtbi = match c.break_even_mtbi_hours {
        Some(m) if m.is_finite() => lang.f(key!("spot.break_even_mtbi"), &[&hours(m)]),
        _ => lang.t(key!("spot.never")).to_string(),
    };
    let row = |key: Key, id: &str, v: f64, shown: String| {
        html! {
            <tr id={id.to_string()} data-value={format!("{v}")}>
                <th scope="row">{ lang.t(key) }</th><td class="num">{ shown }</td>
            </tr>
        }
    };
    html! {
        <div id="spot-result" data-cheaper={if spot_cheaper { "spot" } else { "on-demand" }}>
            <div class="totals">
                <div class="stat" id="spot-cost" data-cheaper={spot_cheaper.then_some("true")} data-value={format!("{}", c.spot_cost)}>
                    <div class="k">{ lang.t(key!("spot.spot_cost")) }</div>
                    <div class="v">{ money(c.spot_cost, cur) }</div>
                    <div class="s">{ lang.f(key!("spot.wall"), &[&hours(c.expected_wall_hours)]) }</div>
                </div>
                <div class="stat" id="od-cost" data-cheaper={(!spot_cheaper).then_some("true")} data-value={format!("{}", c.on_demand_cost)}>
                    <div class="k">{ lang.t(key!("spot.od_cost")) }</div>
                    <div class="v">{ money(c.on_demand_cost, cur) }</div>
                    <div class="s">{ lang.f(key!("spot.wall"), &[&hours(c.input.hours)]) }</div>
                </div>
            </div>
            <p id="spot-verdict"><strong>{ if spot_cheaper { lang.t(key!("spot.spot_wins")) } else { lang.t(key!("spot.od_wins")) } }</strong>{ " " }{ verdict }</p>
            <table id="spot-breakdown">
                <tbody>
                    { row(key!("spot.interruptions"), "spot-interruptions", c.expected_interruptions, format!("{:.2}", c.expected_interruptions)) }
                    { row(key!("spot.lost"), "spot-lost", c.expected_lost_hours_per_interruption, hours(c.expected_lost_hours_per_interruption)) }
                    { row(key!("spot.wall_hours"), "spot-wall", c.expected_wall_hours, hours(c.expected_wall_hours)) }
                    { row(key!("spot.break_even_price"), "spot-break-even", c.break_even_spot_price, format!("{}/h", money(c.break_even_spot_price, cur))) }
                    <tr id="spot-break-even-mtbi" data-value={c.break_even_mtbi_hours.map_or_else(String::new, |m| format!("{m}"))}>
                        <th scope="row">{ lang.t(key!("spot.mtbi_row")) }</th><td class="num">{ mtbi }</td>
                    </tr>
                </tbody>
            </table>
            if c.guide_prefers_on_demand {
                <p class="notice" id="spot-guide">{ lang.t(key!("spot.guide_24h")) }</p>
            }
            <p class="hint">{ lang.t(key!("spot.model")) }</p>
        </div>
    }
}
