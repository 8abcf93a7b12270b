//! The MIG planner: pack several jobs onto valid MIG layouts of one GPU model (NVIDIA's
//! placement rules), and compare the cost with a whole card per job (guide §4.1, §5.2, §5.3).

use vramfit::Bytes;
use vramfit::hardware::mig::{MigOptions, MigPlan, MigPricing, plan_mig};
use vramfit::hardware::{Currency, Offer, find_gpu, gpus};
use vramfit::{ErrorKind, InputError};
use yew::prelude::*;

use super::field::error_text;
use crate::compute;
use crate::format;
use crate::state::Action;
use crate::use_app;

/// The guide's example (§5.3): one A100-80GB as 3g.40gb + 2 × 2g.20gb.
pub const DEFAULT_JOBS: &str = "13b-inference=30GiB\n7b-finetune-a=16GiB\n7b-finetune-b=16GiB";
/// The default card.
pub const DEFAULT_GPU: &str = "a100-sxm4-80gb";

/// `name=size` per line or comma; a bare size is named by its position (`job 1`, …).
pub fn parse_jobs(text: &str) -> Result<Vec<(String, Bytes)>, InputError> {
    text.split(['\n', ','])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(i, l)| vramfit::hardware::mig::parse_job("jobs", i, l))
        .collect()
}

/// Plans the jobs on the card, priced by `offers`.
pub fn plan(
    gpu: &str,
    jobs: &str,
    currency: Currency,
    offers: &[Offer],
) -> Result<(Vec<(String, Bytes)>, MigPlan), InputError> {
    let g = find_gpu(gpu).ok_or_else(|| {
        InputError::new(
            ErrorKind::UnknownGpu,
            "mig_gpu",
            format!("no GPU named `{gpu}`"),
            vramfit::hardware::mig::mig_gpu_list(),
        )
    })?;
    let jobs = parse_jobs(jobs)?;
    let sizes: Vec<Bytes> = jobs.iter().map(|(_, b)| *b).collect();
    let p = plan_mig(
        g,
        &sizes,
        offers,
        &MigOptions {
            currency,
            job_names: jobs.iter().map(|(n, _)| n.clone()).collect(),
            ..MigOptions::default()
        },
    )?;
    Ok((jobs, p))
}

/// The view.
#[function_component(MigView)]
pub fn view() -> Html {
    let app = use_app();
    let lang = app.lang;
    let gpu = match app.extra("mig_gpu") {
        "" => DEFAULT_GPU.to_string(),
        g => g.to_string(),
    };
    let jobs = if app.extra.contains_key("jobs") {
        app.extra("jobs").to_string()
    } else {
        DEFAULT_JOBS.to_string()
    };
    let currency = if app.extra("currency") == "USD" {
        Currency::Usd
    } else {
        Currency::Cny
    };
    let catalog = crate::use_catalog();
    let result = use_memo(
        (gpu.clone(), jobs.clone(), currency, catalog.offers.clone()),
        |(g, j, c, offers)| plan(g, j, *c, offers),
    );
    let set = |k: &'static str| {
        let app = app.clone();
        move |v: String| app.dispatch(Action::SetExtra(k.into(), v))
    };
    let on_gpu = {
        let set = set("mig_gpu");
        Callback::from(move |e: Event| {
            set(e
                .target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value())
        })
    };
    let on_jobs = {
        let set = set("jobs");
        Callback::from(move |e: InputEvent| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlTextAreaElement>()
                .value();
            // An emptied box stays empty (not the default) so the error shows.
            set(if v.is_empty() { " ".into() } else { v })
        })
    };
    let on_currency = {
        let set = set("currency");
        Callback::from(move |e: Event| {
            set(e
                .target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value())
        })
    };
    // The calculator's run as one more job.
    let calc_job = compute::estimate_of(&app).ok().map(|e| {
        let line = format!(
            "{}={:.2}GiB",
            e.model.rsplit('/').next().unwrap_or(&e.model),
            e.required_bytes.as_gib()
        );
        let set = set("jobs");
        let jobs = jobs.clone();
        let add = Callback::from(move |_| set(format!("{}\n{line}", jobs.trim_end())));
        (e.required_bytes, add)
    });
    let err = result.as_ref().as_ref().err();
    html! {
        <>
            <h1>{ lang.t(key!("view.mig")) }</h1>
            <p class="lead">{ lang.t(key!("mig.lead")) }</p>
            <div class="layout">
                <div class="panel">
                    <div class="field">
                        <label for="mig-gpu">{ lang.t(key!("mig.gpu")) }</label>
                        <select id="mig-gpu" onchange={on_gpu}>
                            { for gpus().iter().filter(|g| g.has_mig()).map(|g| html! {
                                <option value={g.id} selected={g.id == gpu}>{ format!("{} ({})", g.name, g.marketed_memory) }</option>
                            }) }
                        </select>
                    </div>
                    <div class="field">
                        <label for="mig-jobs">{ lang.t(key!("mig.jobs")) }</label>
                        <textarea id="mig-jobs" value={jobs.clone()} oninput={on_jobs} spellcheck="false"
                            aria-invalid={err.is_some_and(|e| e.field == "jobs" || e.field == "job").then_some("true")} />
                        <span class="hint">{ lang.t(key!("mig.jobs_hint")) }</span>
                        if let Some(e) = err.filter(|e| e.field == "jobs" || e.field == "job") {
                            <span class="err" id="mig-jobs-err" role="alert">{ error_text(lang, e) }</span>
                        }
                    </div>
                    if let Some((b, add)) = calc_job {
                        <button type="button" id="add-calc-job" onclick={add}>{ lang.f(key!("mig.add_calc"), &[&format::gib(b)]) }</button>
                    }
                    <div class="field">
                        <label for="mig-currency">{ lang.t(key!("fit.currency")) }</label>
                        <select id="mig-currency" onchange={on_currency}>
                            <option value="CNY" selected={currency == Currency::Cny}>{ "CNY" }</option>
                            <option value="USD" selected={currency == Currency::Usd}>{ "USD" }</option>
                        </select>
                    </div>
                </div>
                <section aria-live="polite">
                    { match result.as_ref() {
                        Ok((jobs, p)) => plan_view(&app, jobs, p),
                        Err(e) if e.field != "jobs" && e.field != "job" => html! {
                            <div class="notice error" id="mig-error" role="alert">{ error_text(lang, e) }</div>
                        },
                        Err(_) => html! {},
                    } }
                </section>
            </div>
        </>
    }
}

fn plan_view(app: &crate::Ctx, jobs: &[(String, Bytes)], p: &MigPlan) -> Html {
    let lang = app.lang;
    let g = find_gpu(&p.gpu);
    let slices_per_card = g.map_or(8, |g| u32::from(g.mig_memory_slices.max(1)));
    let cost = |c: Option<f64>| {
        c.map_or_else(
            || lang.t(key!("mig.unpriced")).to_string(),
            |c| format::price(c, p.currency.code()),
        )
    };
    html! {
        <div class="panel" id="mig-plan" data-cards={p.cards.len().to_string()}>
            <h2>{ lang.f(if p.cards.len() == 1 { key!("mig.result_one") } else { key!("mig.result") }, &[&p.cards.len().to_string(), g.map_or(p.gpu.as_str(), |g| g.name)]) }</h2>
            <div class="totals">
                <div class="stat" id="mig-cost"><div class="k">{ lang.t(key!("mig.cost")) }</div><div class="v">{ cost(p.cost_per_hour) }</div>
                    <div class="s">{ lang.t(match p.pricing {
                        MigPricing::PerSlice => key!("mig.per_slice"),
                        MigPricing::WholeCard => key!("mig.whole_card"),
                        MigPricing::Unpriced => key!("mig.unpriced"),
                    }) }</div></div>
                <div class="stat" id="mig-whole"><div class="k">{ lang.t(key!("mig.whole_cost")) }</div><div class="v">{ cost(p.whole_cards_cost_per_hour) }</div>
                    <div class="s">{ lang.f(if jobs.len() == 1 { key!("mig.whole_sub_one") } else { key!("mig.whole_sub") }, &[&jobs.len().to_string()]) }</div></div>
            </div>
            { for p.cards.iter().enumerate().map(|(ci, card)| html! {
                <div class="mig-card" data-card={ci.to_string()}>
                    <h3>{ lang.f(key!("mig.card"), &[&(ci + 1).to_string()]) }</h3>
                    <svg class="bar" viewBox={format!("0 0 {} 40", slices_per_card * 100)} preserveAspectRatio="none" role="img" aria-label={lang.f(key!("mig.card"), &[&(ci + 1).to_string()])}>
                        <rect class="mig-free" x="0" y="0" width={(slices_per_card * 100).to_string()} height="40" />
                        { for card.slices.iter().map(|s| {
                            let ms = g.and_then(|g| g.mig_profile(&s.profile)).map_or(1, |p| u32::from(p.memory_slices));
                            html! { <rect class="mig-slot" data-job={(s.job % 6).to_string()} x={(u32::from(s.start) * 100).to_string()} y="0" width={(ms * 100).to_string()} height="40">
                                <title>{ format!("{} @ {}: {}", s.profile, s.start, jobs.get(s.job).map_or("", |j| j.0.as_str())) }</title>
                            </rect> }
                        }) }
                    </svg>
                    <div class="scroll"><table>
                        <thead><tr><th>{ lang.t(key!("mig.profile")) }</th><th>{ lang.t(key!("mig.job")) }</th><th class="num">{ lang.t(key!("fit.per_gpu")) }</th><th class="num">{ lang.t(key!("fit.usable")) }</th><th class="num">{ lang.t(key!("fit.margin")) }</th></tr></thead>
                        <tbody>{ for card.slices.iter().map(|s| html! {
                            <tr data-profile={s.profile.clone()}>
                                <td><code>{ format!("{}:{}", s.profile, s.start) }</code></td>
                                <td><span class="swatch mig-slot" data-job={(s.job % 6).to_string()}></span>{ jobs.get(s.job).map_or("", |j| j.0.as_str()) }</td>
                                <td class="num">{ format::gib(s.job_bytes) }</td>
                                <td class="num">{ format::gib(s.usable_bytes) }</td>
                                <td class="num">{ format::gib(s.margin_bytes) }</td>
                            </tr>
                        }) }</tbody>
                    </table></div>
                    <pre><code>{ format!("sudo nvidia-smi mig -cgi {} -C", card.slices.iter().map(|s| format!("{}:{}", s.profile, s.start)).collect::<Vec<_>>().join(",")) }</code></pre>
                </div>
            }) }
            if !p.exhaustive { <p class="hint">{ lang.t(key!("mig.not_exhaustive")) }</p> }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guides_example_fits_one_card() {
        let (jobs, p) = plan(
            DEFAULT_GPU,
            DEFAULT_JOBS,
            Currency::Cny,
            vramfit::hardware::offers(),
        )
        .unwrap();
        assert_eq!(jobs.len(), 3);
        assert_eq!(p.cards.len(), 1);
        assert_eq!(p.cards[0].slices.len(), 3);
    }

    #[test]
    fn bad_jobs_name_the_field() {
        assert_eq!(parse_jobs("a=lots").unwrap_err().field, "jobs");
        assert_eq!(
            plan("t4", "1GiB", Currency::Cny, vramfit::hardware::offers())
                .unwrap_err()
                .field,
            "gpu"
        );
    }
}
