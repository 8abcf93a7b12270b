//! The calculator's model picker: where the model comes from (a preset found by search, a
//! parameter count, a config.json or weights file, a repo looked up on a hub) and the preset
//! search itself, with Ollama's default tag named where the engine reads library names.

use vramfit::InputError;
use yew::prelude::*;

use super::field::{error_text, field_input, input_value};
use crate::compute;
use crate::format;
use crate::i18n::Key;
use crate::state::Action;

/// Where the model comes from: a preset (searchable), a parameter count, a config.json or
/// weights file, or a repo looked up on a hub (the typed id, in one click: the full build).
pub(super) fn model_picker(app: &crate::Ctx, error: &Option<InputError>) -> Html {
    let lang = app.lang;
    let source = app.value("source");
    let set_source = |v: &'static str| {
        let app = app.clone();
        // Choosing the hub shows its lookup: nothing is fetched until its Look up is pressed.
        Callback::from(move |_| app.dispatch(Action::Set("source".into(), v.into())))
    };
    let seg = |v: &'static str, key: Key| {
        html! {
            <button type="button" aria-pressed={(source == v).to_string()} onclick={set_source(v)} data-source={v}>
                { lang.t(key) }
            </button>
        }
    };
    let model = app.value("model");
    let exact = vramfit::presets::find(&model);
    let body = match source.as_str() {
        "params" => field_input(app, "params", error),
        // The calculator-only build hands a config.json source over to the full build.
        #[cfg(feature = "full")]
        "config" => html! { <super::config_drop::ConfigDrop error={error.clone()} /> },
        #[cfg(feature = "full")]
        "hub" => html! { <super::hub_lookup::HubLookup /> },
        _ => preset_search(app, error, model, exact),
    };
    html! {
        <fieldset>
            <legend>{ lang.t(key!("calc.model")) }</legend>
            <div class="seg" role="group" aria-label={lang.t(key!("calc.model_source"))}>
                { seg("preset", key!("v.source.preset")) }
                { seg("params", key!("v.source.params")) }
                { seg("config", key!("v.source.config")) }
                { seg("hub", key!("v.source.hub")) }
            </div>
            { body }
        </fieldset>
    }
}

/// The preset search: type any words of the name; matches appear below.
fn preset_search(
    app: &crate::Ctx,
    error: &Option<InputError>,
    model: String,
    exact: Option<&'static vramfit::presets::Preset>,
) -> Html {
    let lang = app.lang;
    let matches: Vec<&'static vramfit::presets::Preset> = if exact.is_some_and(|p| p.id == model) {
        Vec::new()
    } else {
        vramfit::presets::search(&model).take(8).collect()
    };
    let oninput = {
        let app = app.clone();
        Callback::from(move |e: InputEvent| {
            let v = input_value(&e);
            app.dispatch(Action::Set("model".into(), v));
        })
    };
    let err = error.as_ref().filter(|e| e.field == "model");
    // With Ollama, a preset runs as Ollama's default tag of it (`compute::input_with`): said here.
    let ollama = compute::runner_of(app).is_some_and(|r| r.rules().library_names);
    let ollama_tag = exact
        .filter(|_| ollama)
        .and_then(|_| crate::engines::ollama_tag_of(&model));
    html! {
        <div class="field">
            <label for="f-model">{ lang.t(key!("f.model")) }</label>
            <input type="search" id="f-model" name="model" value={model.clone()} {oninput} autocomplete="off"
                spellcheck="false" aria-describedby="f-model-hint" aria-invalid={err.is_some().then_some("true")}
                aria-controls={(!matches.is_empty()).then_some("preset-list")} />
            <span class="hint" id="f-model-hint">
                { match (exact, ollama_tag) {
                    (Some(p), Some((tag, file))) => lang.f(key!("calc.ollama_tag"), &[p.name, &tag, &file]),
                    (Some(p), None) => lang.f(key!("calc.preset_info"), &[p.name, &format::params(p.params), p.dtype.name()]),
                    (None, _) => lang.f(key!("calc.preset_count"), &[&vramfit::presets::presets().len().to_string()]),
                } }
            </span>
            if let Some(e) = err { <span class="err" role="alert">{ error_text(lang, e) }</span> }
            if !matches.is_empty() {
                <ul class="suggest" id="preset-list" aria-label={lang.t(key!("calc.matches"))}>
                    { for matches.iter().map(|p| {
                        let app = app.clone();
                        let id = p.id;
                        html! { <li><button type="button" data-preset={id}
                            onclick={Callback::from(move |_| app.dispatch(Action::Set("model".into(), id.into())))}>
                            { p.name }{ " · " }<span class="muted">{ format::params(p.params) }</span>
                        </button></li> }
                    }) }
                </ul>
            }
        </div>
    }
}
