//! Which models fit (the full build): the calculator's run (its mode, engine, batch, sequence…)
//! tried with every preset in every weight format its engine loads, on the card chosen in the
//! calculator or here (one row per model: its most precise format that fits, what it needs, its
//! speed and longest context, the other formats that fit too), or on every card of the catalog
//! (the grid: the most precise format per cell). Recomputed whenever the run changes.

use vramfit::estimate::{Bound, EstimateInput, largest_context_fit};
use vramfit::estimate::{HardwareInput, ModelInput};
use vramfit::hardware::grid::{ModelFit, grid, models_on};
use vramfit::hardware::{Gpu, gpus, lookup_gpu};
use vramfit::precision::Quantization;
use yew::prelude::*;

use super::field::error_text;
use super::speed::rate;
use crate::compute;
use crate::format;
use crate::i18n::Lang;
use crate::route::View;
use crate::state::{Action, AppState};
use crate::use_app;

/// The calculator's run without its model and card: every preset is tried with it.
fn template(s: &crate::state::AppState) -> Result<EstimateInput, vramfit::InputError> {
    let input = compute::input_with(s, &[])?;
    Ok(EstimateInput {
        model: ModelInput {
            model: None,
            params: None,
            arch: None,
            ..input.model
        },
        hardware: HardwareInput {
            gpu: None,
            gpu_memory: None,
            ..input.hardware
        },
        ..input
    })
}

/// One model on the card: its most precise format that fits, with that run's longest context,
/// and the other formats that fit.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    best: ModelFit,
    context: Option<(u64, Bound)>,
    also: Vec<String>,
}

/// Every model that fits `gpu` (larger first), one row each.
fn rows_on(run: &EstimateInput, gpu: &Gpu) -> Vec<Row> {
    let fits = models_on(run, gpu, false);
    let mut rows: Vec<Row> = Vec::new();
    for f in fits.into_iter().filter(|f| f.fits) {
        if f.best {
            let input = {
                let mut input = run.clone();
                input.model.model = Some(f.model.clone());
                input.model.quantization = f.format;
                input.hardware.gpu = Some(gpu.id.into());
                input
            };
            let context = largest_context_fit(&input, gpu.memory).map(|(fit, b)| (fit.value, b));
            rows.push(Row {
                best: f,
                context,
                also: Vec::new(),
            });
        } else if let Some(row) = rows.last_mut().filter(|r| r.best.model == f.model) {
            row.also.push(f.weights);
        }
    }
    rows
}

/// A format in a grid cell: the checkpoint as released, or the format's name.
fn cell_text(lang: Lang, q: Quantization) -> String {
    match q {
        Quantization::None => lang.t(key!("models.as_released")).to_string(),
        other => other.name(),
    }
}

/// The calculator's link for `model` in format `q` on `gpu`: the run a row or a cell counted
/// (`hardware::grid`'s `run_of`: the calculator's run with that model, format and card).
fn calc_link(app: &AppState, model: &str, q: Quantization, gpu: &str) -> String {
    app.calc_link_with(&[
        ("source", "preset".into()),
        ("model", model.into()),
        ("quantization", q.name()),
        ("gpu", gpu.into()),
        ("gpu_memory", String::new()),
    ])
}

fn on_card_table(app: &AppState, gpu: &Gpu, rows: &[Row]) -> Html {
    let lang = app.lang;
    html! {
        <>
            <p id="models-count">{ lang.f(key!("models.count"), &[&rows.len().to_string(), &super::gpus::short_name(gpu), &format::gib(gpu.memory)]) }</p>
            <div class="scroll">
                <table id="models-table">
                    <thead><tr>
                        <th>{ lang.t(key!("models.model")) }</th>
                        <th class="num">{ lang.t(key!("models.params")) }</th>
                        <th>{ lang.t(key!("models.format")) }</th>
                        <th class="num">{ lang.t(key!("models.needs")) }</th>
                        <th class="num">{ lang.t(key!("models.speed")) }</th>
                        <th class="num">{ lang.t(key!("models.context")) }</th>
                        <th>{ lang.t(key!("models.also")) }</th>
                    </tr></thead>
                    <tbody>
                        { for rows.iter().map(|r| html! {
                            <tr data-model={r.best.model.clone()} data-bytes={r.best.required_bytes.get().to_string()}>
                                <td><a class="calc-link" href={calc_link(app, &r.best.model, r.best.format, gpu.id)} title={lang.t(key!("models.open"))}>{ &r.best.model }</a></td>
                                <td class="num">{ format::params(r.best.params) }</td>
                                <td>{ &r.best.weights }</td>
                                <td class="num">{ format::gib(r.best.required_bytes) }</td>
                                <td class="num">{ r.best.tokens_per_s.map(rate).unwrap_or_default() }</td>
                                <td class="num">{ match r.context {
                                    Some((c, Bound::TrainedContext)) => lang.f(key!("models.trained"), &[&vramfit::estimate::thousands(c)]),
                                    Some((c, _)) => vramfit::estimate::thousands(c),
                                    None => String::new(),
                                } }</td>
                                <td class="muted">{ r.also.join(", ") }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
        </>
    }
}

fn grid_table(app: &AppState, g: &vramfit::hardware::grid::Grid, cards: &[&Gpu]) -> Html {
    let lang = app.lang;
    html! {
        <>
            <p class="hint">{ lang.t(key!("models.grid_hint")) }</p>
            <div class="scroll">
                <table id="models-grid">
                    <thead><tr>
                        <th>{ lang.t(key!("models.model")) }</th>
                        { for cards.iter().map(|c| html! { <th data-gpu={c.id}>{ super::gpus::short_name(c) }</th> }) }
                    </tr></thead>
                    <tbody>
                        { for g.models.iter().enumerate().map(|(m, model)| html! {
                            <tr data-model={model.clone()}>
                                <td>{ model }</td>
                                { for (0..cards.len()).map(|c| {
                                    let cell = g.cell(m, c);
                                    let q = g.cells.get(m * cards.len() + c).copied().flatten();
                                    html! {
                                        <td data-q={q.map(|i| i.to_string()).unwrap_or_default()}>{ cell.map(|q| html! {
                                            <a class="calc-link" href={calc_link(app, model, q, cards[c].id)} title={lang.t(key!("models.open"))}>{ cell_text(lang, q) }</a>
                                        }).unwrap_or_default() }</td>
                                    }
                                }) }
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
        </>
    }
}

/// The view.
#[function_component(ModelsView)]
pub fn models_view() -> Html {
    let app = use_app();
    let lang = app.lang;
    let every = app.extra("cards") == "all";
    let card = lookup_gpu("gpu", &app.value("gpu")).ok();
    let run = use_memo((app.calc.clone(), app.extra.get("config").cloned()), {
        let s = (*app).clone();
        move |_| template(&s)
    });
    let rows = use_memo(
        ((*run).clone(), card.map(|g| g.id), every),
        move |(run, _, every)| match (run, card) {
            (Ok(run), Some(gpu)) if !every => rows_on(run, gpu),
            _ => Vec::new(),
        },
    );
    let cards: Vec<&Gpu> = gpus().iter().collect();
    let table = use_memo(((*run).clone(), every), {
        let cards = cards.clone();
        move |(run, every)| match run {
            Ok(run) if *every => Some(grid(run, &cards)),
            _ => None,
        }
    });
    let choose = |all: bool| {
        let app = app.clone();
        Callback::from(move |_: Event| {
            app.dispatch(Action::SetExtra(
                "cards".into(),
                if all { "all".into() } else { String::new() },
            ))
        })
    };
    // The card is the calculator's, and can be chosen here too.
    let pick_card = super::gpus::pick(&app);
    let gpu = app.value("gpu");
    let body = match (&*run, card, every) {
        (Err(e), _, _) => html! {
            <div class="notice error" id="models-error" role="alert">
                { lang.t(key!("calc.cannot")) }{ " " }{ error_text(lang, e) }{ " " }
                <a href={app.hash_for(View::Calc)}>{ lang.t(key!("fit.fix_in_calc")) }</a>
            </div>
        },
        (Ok(_), _, true) => match &*table {
            Some(g) => grid_table(&app, g, &cards),
            None => Html::default(),
        },
        (Ok(_), Some(gpu), false) => on_card_table(&app, gpu, &rows),
        (Ok(_), None, false) => html! {
            <p class="notice" id="models-no-card">{ lang.t(key!("models.no_card")) }</p>
        },
    };
    html! {
        <>
            <h1>{ lang.t(key!("view.models")) }</h1>
            <p class="lead">{ lang.t(key!("models.lead")) }</p>
            <div class="row" role="radiogroup">
                <label><input type="radio" name="cards" id="cards-mine" checked={!every} onchange={choose(false)} />{ " " }{ lang.t(key!("models.on_my_card")) }</label>
                <label><input type="radio" name="cards" id="cards-all" checked={every} onchange={choose(true)} />{ " " }{ lang.t(key!("models.on_every_card")) }</label>
            </div>
            if !every {
                <div class="field">
                    <label for="models-gpu">{ lang.t(key!("f.gpu")) }</label>
                    <select id="models-gpu" name="gpu" onchange={pick_card}>
                        <option value="" selected={card.is_none()}>{ lang.t(key!("models.pick_card")) }</option>
                        { super::gpus::options(&gpu) }
                    </select>
                </div>
            }
            { body }
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Lang;
    use crate::route::Route;
    use crate::state::AppState;
    use std::rc::Rc;
    use yew::Reducible;

    fn state(hash: &str) -> Rc<AppState> {
        Rc::new(AppState::default()).reduce(Action::Open(Route::parse(hash), Lang::En))
    }

    /// The view's rows are the core's answer: one row per model that fits, its best format, the
    /// other formats that fit beside it; on a 4090 under llama.cpp, Llama-3.1-8B's F16 GGUF fits
    /// (16 GB of weights in 23.52 GiB) and so do its smaller files.
    #[test]
    fn one_row_per_model_with_its_best_format() {
        let s = state("#/models?model=gpt2&engine=llamacpp&gpu=rtx-4090");
        let run = template(&s).unwrap();
        assert_eq!(run.model.model, None);
        let gpu = lookup_gpu("gpu", "rtx-4090").unwrap();
        let rows = rows_on(&run, gpu);
        let llama = rows
            .iter()
            .find(|r| r.best.model == "meta-llama/Llama-3.1-8B")
            .unwrap();
        assert_eq!(llama.best.weights, "gguf-f16");
        assert!(llama.also.contains(&String::from("gguf-q4_k_m")));
        assert!(llama.best.tokens_per_s.is_some_and(|t| t > 10.0));
        assert!(
            rows.windows(2)
                .all(|w| w[0].best.params >= w[1].best.params)
        );
        let fits: Vec<ModelFit> = models_on(&run, gpu, false)
            .into_iter()
            .filter(|f| f.best)
            .collect();
        assert_eq!(rows.len(), fits.len());
    }

    #[test]
    fn a_cell_names_its_format() {
        use vramfit::precision::GgufFileType;
        assert_eq!(cell_text(Lang::En, Quantization::None), "as released");
        assert_eq!(cell_text(Lang::Zh, Quantization::None), "原始格式");
        let q4 = Quantization::Gguf {
            file_type: GgufFileType::Q4_K_M,
        };
        assert_eq!(cell_text(Lang::En, q4), "gguf-q4_k_m");
    }

    /// Each row opens the calculator on the run it counted: the calculator's need there is the
    /// row's, for every model that fits a 4090 under llama.cpp and under vLLM, in both
    /// languages; a grid cell's link does the same for its card.
    #[test]
    fn each_row_opens_the_calculator_on_its_run() {
        for hash in [
            "#/models?model=gpt2&engine=llamacpp&gpu=rtx-4090",
            "#/models?lang=zh&mode=serve&engine=vllm&gpu=rtx-4090&max_model_len=4096",
        ] {
            let s = state(hash);
            let gpu = lookup_gpu("gpu", "rtx-4090").unwrap();
            let rows = rows_on(&template(&s).unwrap(), gpu);
            assert!(rows.len() > 3, "{hash}");
            for r in &rows {
                let link = calc_link(&s, &r.best.model, r.best.format, gpu.id);
                let opened = state(&link);
                assert_eq!(opened.lang, s.lang);
                let e = crate::compute::estimate_of(&opened).unwrap();
                assert_eq!(
                    e.required_bytes, r.best.required_bytes,
                    "{}: {link}",
                    r.best.model
                );
            }
        }
    }
}
