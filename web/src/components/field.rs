//! One calculator input, drawn from its row in [`crate::fields::FIELDS`]: label, control,
//! hint, and the estimator's error when it is about this field.

use vramfit::InputError;
use yew::prelude::*;

use crate::fields::{Choice, Kind, field};
use crate::i18n::Lang;
use crate::state::Action;

/// The error text for a person: problem and what is accepted, in the page's language. The
/// Chinese calculator's errors are Chinese as written (`vramfit::input_error!`); the full
/// build, with the file readers and planners, takes [`InputError::zh`], which translates
/// what their code wrote in English alone.
pub fn error_text(lang: Lang, e: &InputError) -> String {
    #[cfg(feature = "full")]
    let zh;
    #[cfg(feature = "full")]
    let e = if lang.is_zh() {
        zh = e.zh();
        &zh
    } else {
        e
    };
    lang.f(key!("calc.error"), &[&e.field, &e.problem, &e.accepted])
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
    let label = lang.t(f.label);
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
                    if let Some(e) = err { <span class="err" id={err_id} role="alert">{ error_text(lang, e) }</span> }
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
                <select id={id.clone()} name={f.key} {onchange} aria-describedby={described} aria-invalid={invalid}>
                    { for values.iter().map(|c| html! {
                        <option value={c.0} selected={c.0 == value}>{ choice_label(lang, c) }</option>
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
                Kind::OptNumber => Some(lang.t(key!("calc.auto"))),
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
            if let Some(e) = err { <span class="err" id={err_id} role="alert">{ error_text(lang, e) }</span> }
        </div>
    }
}

/// The text of the `<input>` an event came from.
pub fn input_value(e: &Event) -> String {
    e.target_unchecked_into::<web_sys::HtmlInputElement>()
        .value()
}

#[cfg(test)]
mod tests {
    use super::error_text;
    use crate::i18n::Lang;
    use crate::state::AppState;

    #[test]
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
