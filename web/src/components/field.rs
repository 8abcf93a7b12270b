//! One calculator input, drawn from its row in [`crate::fields::FIELDS`]: label, control,
//! hint, and the estimator's error when it is about this field.

use vramfit::InputError;
use yew::prelude::*;

use crate::fields::{Choice, Kind, field};
use crate::i18n::{Key, Lang};
use crate::state::Action;

/// The error text for a person: problem and what is accepted, in the page's language. The
/// Chinese calculator's errors are Chinese as written (`vramfit::input_error!`); the full
/// build, with the file readers and planners, takes [`InputError::zh`], which translates
/// what their code wrote in English alone.
pub fn error_text(lang: Lang, e: &InputError) -> String {
    error_as(lang, e, &e.field)
}

/// [`error_text`] with the field named `name`: the engine's own name of it (`num_ctx`).
pub fn error_as(lang: Lang, e: &InputError, name: &str) -> String {
    #[cfg(feature = "full")]
    let zh;
    #[cfg(feature = "full")]
    let e = if lang.is_zh() {
        zh = e.zh();
        &zh
    } else {
        e
    };
    lang.f(key!("calc.error"), &[name, &e.problem, &e.accepted])
}

/// How a field is shown besides its row: under an engine's own name with what it is, a
/// default in place of "automatic", the choices its engine takes, a label of its own for one
/// value.
#[derive(Default)]
pub struct Shown<'a> {
    /// The engine's name of it (`num_ctx`) and the text of what it is.
    pub name: Option<(&'static str, Key)>,
    /// The label in place of the row's (the serving batch: the users wanted).
    pub label: Option<Key>,
    /// The placeholder of an empty number: the value the estimator takes.
    pub placeholder: Option<String>,
    /// Which choices to offer (the value set is always offered).
    pub keep: Option<&'a dyn Fn(&str) -> bool>,
    /// A label of its own for one choice: the format `none` stands for.
    pub relabel: Option<(&'static str, String)>,
}

/// The label of a choice: its text where the value is a word, else the value as it is.
pub fn choice_label(lang: Lang, (value, label): &Choice) -> &'static str {
    match label {
        Some(k) => lang.t(*k),
        None => value,
    }
}

/// One field, `name`, with `error` shown when it names this field: a plain function of the
/// state, not a component, like the form's other parts (see `components::shell`; 0.8 KB of the
/// first load).
pub fn field_input(app: &crate::Ctx, name: &str, error: &Option<InputError>) -> Html {
    field_with(app, name, error, &Shown::default())
}

/// [`field_input`], shown as `shown` says.
pub fn field_with(
    app: &crate::Ctx,
    name: &str,
    error: &Option<InputError>,
    shown: &Shown<'_>,
) -> Html {
    let lang = app.lang;
    let Some(f) = field(name) else {
        return html! {};
    };
    let id = format!("f-{}", f.key);
    let value = app.value(f.key);
    let err = error.as_ref().filter(|e| e.field == f.key);
    let err_id = format!("{id}-err");
    let hint = f.hint.map(|k| lang.t(k));
    let hint_id = format!("{id}-hint");
    let described = match (err.is_some(), hint.is_some()) {
        (true, true) => Some(format!("{err_id} {hint_id}")),
        (true, false) => Some(err_id.clone()),
        (false, true) => Some(hint_id.clone()),
        (false, false) => None,
    };
    let key = f.key.to_string();
    let set = {
        let app = app.clone();
        let key = key.clone();
        move |v: String| app.dispatch(Action::Set(key.clone(), v))
    };
    let invalid = err.is_some().then_some("true");
    let label = match shown.name {
        Some((n, what)) => html! { <><code>{ n }</code>{ " · " }{ lang.t(what) }</> },
        None => html! { { lang.t(shown.label.unwrap_or(f.label)) } },
    };
    let err_text = |e: &InputError| match shown.name {
        Some((n, _)) => error_as(lang, e, n),
        None => error_text(lang, e),
    };
    let control = match f.kind {
        Kind::Bool => {
            let checked = value == "true";
            let onchange = Callback::from(move |e: Event| {
                let c = e
                    .target_unchecked_into::<web_sys::HtmlInputElement>()
                    .checked();
                set(c.to_string());
            });
            return html! {
                <div class="field">
                    <label class="check" for={id.clone()}>
                        <input type="checkbox" id={id.clone()} name={f.key} {checked} {onchange}
                            aria-describedby={described} aria-invalid={invalid} />
                        { label }
                    </label>
                    if let Some(h) = hint { <span class="hint" id={hint_id}>{ h }</span> }
                    if let Some(e) = err { <span class="err" id={err_id} role="alert">{ err_text(e) }</span> }
                </div>
            };
        }
        Kind::Choice(values) => {
            let onchange = Callback::from(move |e: Event| {
                set(e
                    .target_unchecked_into::<web_sys::HtmlSelectElement>()
                    .value());
            });
            html! {
                // `value` as the select's property too: an option the person chose once no longer
                // follows its `selected` attribute, and the state may change the choice (the mode
                // and the engine agree, Reset).
                <select id={id.clone()} name={f.key} {onchange} aria-describedby={described} aria-invalid={invalid}
                    ~value={value.clone()}>
                    { for values.iter().filter(|c| c.0 == value || shown.keep.is_none_or(|k| k(c.0))).map(|c| html! {
                        <option value={c.0} selected={c.0 == value}>
                            { match &shown.relabel { Some((v, l)) if *v == c.0 => l.as_str(), _ => choice_label(lang, c) } }
                        </option>
                    }) }
                </select>
            }
        }
        Kind::Number | Kind::OptNumber | Kind::Text => {
            let oninput = Callback::from(move |e: InputEvent| {
                set(input_value(&e));
            });
            let (ty, mode) = match f.kind {
                Kind::Text => ("text", None),
                _ => ("text", Some("decimal")),
            };
            let placeholder = match f.kind {
                Kind::OptNumber => Some(
                    shown
                        .placeholder
                        .clone()
                        .unwrap_or_else(|| lang.t(key!("calc.auto")).to_string()),
                ),
                _ => None,
            };
            html! {
                <input type={ty} inputmode={mode} id={id.clone()} name={f.key} value={value.clone()} {oninput}
                    {placeholder} autocomplete="off" spellcheck="false"
                    aria-describedby={described} aria-invalid={invalid} />
            }
        }
    };
    html! {
        <div class="field">
            <label for={id}>{ label }</label>
            { control }
            if let Some(h) = hint { <span class="hint" id={hint_id}>{ h }</span> }
            if let Some(e) = err { <span class="err" id={err_id} role="alert">{ err_text(e) }</span> }
        </div>
    }
}

/// The text of the `<input>` an event came from.
pub fn input_value(e: &Event) -> String {
    e.target_unchecked_into::<web_sys::HtmlInputElement>()
        .value()
}

#[cfg(test)]
#[cfg(all(feature = "en", feature = "zh"))]
mod tests {
    use super::error_text;
    use crate::i18n::Lang;
    use crate::state::AppState;

    #[test]
    #[cfg(all(feature = "en", feature = "zh"))]
    fn errors_read_in_the_pages_language() {
        let mut s = AppState::default();
        s.calc.insert("batch".into(), "0".into());
        let e = crate::compute::estimate_of(&s).unwrap_err();
        assert_eq!(
            error_text(Lang::En, &e),
            "batch: 0 is out of range. Accepted: an integer from 1 to 1048576."
        );
        assert_eq!(
            error_text(Lang::Zh, &e),
            "batch：0 超出范围。可接受：整数，从 1 到 1048576。"
        );
    }
}
