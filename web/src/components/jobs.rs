//! Fit & rent, per job: the ways to rent the calculator's run ranked by what a whole job costs
//! (tokens to generate, or an epoch to train on) at each option's speed and price, as
//! `vramfit recommend --per-job` ranks them.

use vramfit::hardware::job::{JobCost, cost_per_job, parse_job};
use vramfit::hardware::{Market, PlanOption};
use yew::prelude::*;

use super::field::error_text;
use super::speed::rate;
use crate::compute;
use crate::format;
use crate::state::Action;
use crate::use_app;

/// The rows shown.
const ROWS: usize = 15;

/// The planner's options, as Fit & rent shows them (on-demand, and spot when asked for).
#[derive(Properties, PartialEq)]
pub struct JobProps {
    /// The options to price.
    pub options: Vec<PlanOption>,
}

/// The panel: the job's field, and the options ranked by the job's cost.
#[function_component(JobCosts)]
pub fn job_costs(props: &JobProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    let text = app.extra("job").to_string();
    let training = app.value("mode") == "training";
    let priced = use_memo(
        (
            app.calc.clone(),
            app.extra.get("config").cloned(),
            text.clone(),
            props.options.clone(),
        ),
        {
            let s = (*app).clone();
            move |(_, _, text, options)| -> Option<Result<Vec<JobCost>, vramfit::InputError>> {
                if text.trim().is_empty() {
                    return None;
                }
                Some(
                    compute::input_with(&s, &[])
                        .and_then(|input| cost_per_job(&input, options, parse_job("job", text)?)),
                )
            }
        },
    );
    let on_job = {
        let app = app.clone();
        Callback::from(move |e: Event| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .value();
            app.dispatch(Action::SetExtra("job".into(), v));
        })
    };
    let body = match &*priced {
        None => html! { <p class="hint">{ lang.t(key!("jobs.hint")) }</p> },
        Some(Err(e)) => html! {
            <p class="notice error" id="job-error" role="alert">{ error_text(lang, e) }</p>
        },
        Some(Ok(rows)) if rows.is_empty() => {
            html! { <p class="notice" id="no-job">{ lang.t(key!("jobs.none")) }</p> }
        }
        Some(Ok(rows)) => html! {
            <div class="scroll">
                <table id="jobs">
                    <thead><tr>
                        <th>{ "#" }</th><th>{ lang.t(key!("fit.offer")) }</th>
                        <th class="num">{ lang.t(key!("jobs.batch")) }</th>
                        <th class="num">{ lang.t(key!("jobs.speed")) }</th>
                        <th class="num">{ lang.t(key!("jobs.hours")) }</th>
                        <th class="num">{ lang.t(key!("fit.price")) }</th>
                        <th class="num">{ lang.t(key!("jobs.cost")) }</th>
                        <th class="num">{ lang.t(key!("jobs.per_million")) }</th>
                    </tr></thead>
                    <tbody>
                        { for rows.iter().take(ROWS).enumerate().map(|(i, r)| {
                            let o = &r.option;
                            let note = if r.guide_prefers_on_demand {
                                lang.t(key!("jobs.spot_long"))
                            } else if o.market == Market::Spot {
                                lang.t(key!("jobs.spot"))
                            } else {
                                ""
                            };
                            html! {
                                <tr data-offer={o.offer.clone()} data-cost={format!("{}", r.cost)} data-tokens-per-s={format!("{}", r.tokens_per_s)}>
                                    <td>{ i + 1 }</td>
                                    <td>{ &o.offer }<br /><span class="muted">{ format!("{} × {}", o.count, o.gpu) }{ if note.is_empty() { String::new() } else { format!(" · {note}") } }</span></td>
                                    <td class="num">{ r.batch }</td>
                                    <td class="num">{ rate(r.tokens_per_s) }</td>
                                    <td class="num">{ vramfit::units::fixed(r.wall_hours, 2) }{ " h" }</td>
                                    <td class="num">{ format::price(o.price_per_hour, o.currency.code()) }</td>
                                    <td class="num">{ format!("{} {}", vramfit::units::fixed(r.cost, 2), o.currency.code()) }</td>
                                    <td class="num">{ format!("{} {}", vramfit::units::fixed(r.cost_per_million_tokens, 2), o.currency.code()) }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
        },
    };
    html! {
        <div class="panel">
            <h2>{ lang.t(key!("jobs.title")) }</h2>
            <div class="field">
                <label for="job">{ lang.t(if training { key!("jobs.epoch") } else { key!("jobs.tokens") }) }</label>
                <input id="job" type="text" value={text} placeholder={if training { "epoch:50M tokens" } else { "1M tokens" }} onchange={on_job} />
            </div>
            { body }
        </div>
    }
}
