//! The platform decision matrix of guide §4.2: every platform's score on the six criteria and
//! the weighted total, ranked, with one slider per weight. The weights live in the URL
//! (`weights=`, written as the CLI's `--weights`), so a shared link reopens them.

use vramfit::hardware::matrix::CRITERIA;
use yew::prelude::*;

use super::field::{error_text, input_value};
use crate::compute;
use crate::i18n::Key;
use crate::state::Action;
use crate::{use_app, use_catalog};

/// Each criterion of [`CRITERIA`], in its order, with the texts of its label, its description
/// and its column's heading (the rows `matrix.c.NAME`, `matrix.d.NAME` and `matrix.s.NAME`),
/// found when the site is compiled.
static TEXTS: [(&str, Key, Key, Key); CRITERIA.len()] = criteria_texts();

const fn criteria_texts() -> [(&'static str, Key, Key, Key); CRITERIA.len()] {
    const fn of(c: &'static str) -> (&'static str, Key, Key, Key) {
        (
            c,
            Key::of(&["matrix.c.", c]),
            Key::of(&["matrix.d.", c]),
            Key::of(&["matrix.s.", c]),
        )
    }
    let mut out = [of(CRITERIA[0]); CRITERIA.len()];
    let mut i = 1;
    while i < CRITERIA.len() {
        out[i] = of(CRITERIA[i]);
        i += 1;
    }
    out
}

/// The highest weight the sliders offer (a link may carry up to 100; the slider then widens).
pub const SLIDER_MAX: u32 = 10;

/// The matrix panel.
#[function_component(Matrix)]
pub fn matrix() -> Html {
    let app = use_app();
    let catalog = use_catalog();
    let lang = app.lang;
    let text = app.extra("weights").to_string();
    let ranked = use_memo((text.clone(), catalog.offers.clone()), {
        let s = (*app).clone();
        move |(_, offers)| compute::matrix_of(&s, offers)
    });
    let parsed = compute::weights_of(&app);
    let weights = parsed.clone().unwrap_or_default();
    let error = match (&parsed, ranked.as_ref()) {
        (Err(e), _) | (Ok(_), Err(e)) => Some(e.clone()),
        _ => None,
    };
    let sliders = CRITERIA.iter().zip(&TEXTS).map(|(c, (_, label, description, _))| {
        let id = format!("w-{c}");
        let v = compute::weight(&weights, c);
        let max = SLIDER_MAX.max(v);
        let oninput = {
            let app = app.clone();
            let c = *c;
            Callback::from(move |e: InputEvent| {
                let v: u32 = input_value(&e)
                    .parse()
                    .unwrap_or(1);
                let base = compute::weights_of(&app).unwrap_or_default();
                let next = compute::with_weight(&base, c, v);
                app.dispatch(Action::SetExtra("weights".into(), compute::weights_text(&next)));
            })
        };
        html! {
            <div class="field slider">
                <label for={id.clone()}>{ lang.t(*label) }</label>
                <div class="slider-row">
                    <input type="range" id={id.clone()} min="0" max={max.to_string()} step="1"
                        value={v.to_string()} {oninput} aria-describedby={format!("{id}-hint")}
                        aria-valuetext={lang.f(key!("matrix.weight_value"), &[&v.to_string()])} />
                    <output for={id.clone()} id={format!("{id}-value")}>{ v }</output>
                </div>
                <span class="hint" id={format!("{id}-hint")}>{ lang.t(*description) }</span>
            </div>
        }
    });
    let reset = {
        let app = app.clone();
        Callback::from(move |_| app.dispatch(Action::SetExtra("weights".into(), String::new())))
    };
    html! {
        <div class="panel" id="matrix-panel">
            <h2>{ lang.t(key!("matrix.title")) }</h2>
            <p class="hint">{ lang.t(key!("matrix.lead")) }</p>
            <fieldset class="weights">
                <legend>{ lang.t(key!("matrix.weights")) }</legend>
                <div class="sliders">{ for sliders }</div>
                <button type="button" id="weights-reset" onclick={reset} disabled={text.is_empty()}>{ lang.t(key!("matrix.equal")) }</button>
            </fieldset>
            if let Some(e) = &error {
                <p class="err" id="weights-err" role="alert">{ error_text(lang, e) }</p>
            }
            if let Ok(rows) = ranked.as_ref() {
                <div class="scroll">
                    <table id="matrix">
                        <caption class="hint">{ lang.t(key!("matrix.caption")) }</caption>
                        <thead><tr>
                            <th class="num">{ "#" }</th><th>{ lang.t(key!("matrix.platform")) }</th>
                            { for TEXTS.iter().map(|(_, _, description, short)| html! {
                                <th class="num" title={lang.t(*description)}>{ lang.t(*short) }</th>
                            }) }
                            <th class="num">{ lang.t(key!("matrix.total")) }</th>
                        </tr></thead>
                        <tbody>
                            { for rows.iter().map(|p| html! {
                                <tr data-platform={p.platform.clone()} data-rank={p.rank.to_string()}
                                    data-total={format!("{}", p.total)}
                                    data-scores={p.scores.iter().map(u8::to_string).collect::<Vec<_>>().join(",")}>
                                    <td class="num">{ p.rank }</td>
                                    <td>{ if lang.is_zh() { &p.name_zh } else { &p.name } }</td>
                                    { for p.scores.iter().map(|s| html! { <td class="num">{ s }</td> }) }
                                    <td class="num total">{ format!("{:.2}", p.total) }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </div>
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_texts_follow_the_criteria() {
        let names: Vec<&str> = TEXTS.iter().map(|t| t.0).collect();
        assert_eq!(names, CRITERIA);
        for (c, label, description, short) in TEXTS {
            assert_eq!(label.name(), format!("matrix.c.{c}"));
            assert_eq!(description.name(), format!("matrix.d.{c}"));
            assert_eq!(short.name(), format!("matrix.s.{c}"));
        }
    }
}
