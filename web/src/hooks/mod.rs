//! The few places the site touches the browser outside Yew: the URL, the document, and the
//! browser's language.

use gloo::events::EventListener;
use wasm_bindgen::JsValue;
use yew::prelude::*;

use crate::i18n::Lang;

/// `location.hash`, or "" outside a browser.
pub fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// The browser's preferred language (`navigator.language`).
pub fn browser_lang() -> Lang {
    web_sys::window()
        .and_then(|w| w.navigator().language())
        .map(|l| Lang::from_tag(&l))
        .unwrap_or_default()
}

/// Replaces the URL's hash without a new history entry (and without a `hashchange`).
pub fn replace_hash(hash: &str) {
    let Some(w) = web_sys::window() else { return };
    if w.location().hash().ok().as_deref() == Some(hash) {
        return;
    }
    if let Ok(history) = w.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(hash));
    }
}

/// Sets `<html lang>`.
pub fn set_document_lang(code: &str) {
    if let Some(el) = gloo::utils::document().document_element() {
        let _ = el.set_attribute("lang", code);
    }
}

/// Sets the document's title.
pub fn set_title(title: &str) {
    gloo::utils::document().set_title(title);
}

/// The skip link's handler: focus `main` without touching the hash (which holds the state).
pub fn focus_main() -> Callback<MouseEvent> {
    Callback::from(|e: MouseEvent| {
        e.prevent_default();
        if let Some(el) = gloo::utils::document().get_element_by_id("main") {
            use wasm_bindgen::JsCast;
            if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        }
    })
}

/// Calls `f(location.hash)` on every `hashchange`.
#[hook]
pub fn use_hashchange<F: Fn(String) + 'static>(f: F) {
    let f = std::rc::Rc::new(f);
    use_effect_with((), move |_| {
        let listener = EventListener::new(&gloo::utils::window(), "hashchange", move |_| {
            f(location_hash());
        });
        move || drop(listener)
    });
}
