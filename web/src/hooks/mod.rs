//! The few places the site touches the browser outside Yew: the URL, the document, the
//! browser's language, `localStorage` and file downloads.

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

/// Where the language last shown is kept, for a link that names none (`www/boot.js` reads the
/// same key).
const LANG_KEY: &str = "vramfit.lang";

/// The language for a link that names none: the one last shown in this browser
/// (`localStorage`), else the browser's preferred one (`navigator.language`).
pub fn browser_lang() -> Lang {
    let w = web_sys::window();
    let remembered = w
        .as_ref()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(LANG_KEY).ok().flatten())
        .and_then(|l| Lang::from_url(&l));
    remembered
        .or_else(|| {
            w.and_then(|w| w.navigator().language())
                .map(|l| Lang::from_tag(&l))
        })
        .unwrap_or_default()
}

/// Keeps `lang` as the language last shown, for the next visit (a full or refused storage is
/// ignored: the next visit then follows the browser's language).
pub fn remember_lang(lang: Lang) {
    if let Some(s) = web_sys::window().and_then(|w| w.local_storage().ok().flatten())
        && s.get_item(LANG_KEY).ok().flatten().as_deref() != Some(lang.url_code())
    {
        let _ = s.set_item(LANG_KEY, lang.url_code());
    }
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

/// Asks the page to start another build in place of this one (`vramfitSwitch`, which
/// `www/boot.js` defines): `"full"`, `"en"` or `"zh"`. Without it (a test page), nothing
/// happens.
#[cfg(not(feature = "full"))]
pub fn start_build(name: &str) {
    use wasm_bindgen::JsCast;
    let global = js_sys::global();
    if let Ok(f) = js_sys::Reflect::get(&global, &JsValue::from_str("vramfitSwitch"))
        && let Some(f) = f.dyn_ref::<js_sys::Function>()
    {
        let _ = f.call1(&global, &JsValue::from_str(name));
    }
}

/// Sets `<html lang>`, when it differs: writing the attribute, even unchanged, makes Blink
/// recompute the style of the whole document.
pub fn set_document_lang(code: &str) {
    if let Some(el) = gloo::utils::document().document_element()
        && el.get_attribute("lang").as_deref() != Some(code)
    {
        let _ = el.set_attribute("lang", code);
    }
}

/// Sets the document's title, when it differs.
pub fn set_title(title: &str) {
    let doc = gloo::utils::document();
    if doc.title() != title {
        doc.set_title(title);
    }
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

#[cfg(feature = "full")]
/// `localStorage[key]`, or `None` (absent, or storage unavailable: private windows may refuse it).
pub fn local_get(key: &str) -> Option<String> {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(key).ok().flatten())
}

#[cfg(feature = "full")]
/// Sets `localStorage[key]` (`None` removes it). A full or refused storage is ignored: the
/// values stay in the page until it is closed.
pub fn local_set(key: &str, value: Option<&str>) {
    let Some(s) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) else {
        return;
    };
    let _ = match value {
        Some(v) => s.set_item(key, v),
        None => s.remove_item(key),
    };
}

#[cfg(feature = "full")]
/// Offers `text` as a file download named `name` (a `blob:` URL, revoked after a while).
pub fn download(name: &str, mime: &str, text: &str) {
    use wasm_bindgen::JsCast;
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    let doc = gloo::utils::document();
    if let Some(a) = doc
        .create_element("a")
        .ok()
        .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    // Revoked a little later: the download may still be reading the blob after the click.
    gloo::timers::callback::Timeout::new(30_000, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    })
    .forget();
}

/// `value` one task late: what it was at the last render until a zero-delay timer has fired
/// since it changed (a newer change restarts the wait). What depends on the late value renders
/// in the next frame, after what a change shows first; on the first render it is `value`.
#[cfg(feature = "full")]
#[hook]
pub fn use_deferred<T: Clone + PartialEq + 'static>(value: T) -> T {
    let shown = use_state_eq(|| value.clone());
    {
        let shown = shown.clone();
        use_effect_with(value, move |v| {
            let v = v.clone();
            let timer = gloo::timers::callback::Timeout::new(0, move || shown.set(v));
            move || drop(timer)
        });
    }
    (*shown).clone()
}

/// False until the frame that shows the component's first render has been painted, then true
/// (it stays true while the component lives). What can wait one frame is left out of that first
/// frame, so that the page paints what matters sooner on a slow device (the calculator's form,
/// beside its result on a desktop: issue #43, the book's performance chapter has the figures).
/// A `requestAnimationFrame` callback runs just before the next paint, a zero-delay timer it
/// sets runs just after it. Outside a browser (no window) the answer stays false.
#[hook]
pub fn use_painted() -> bool {
    let painted = use_state_eq(|| false);
    {
        let painted = painted.clone();
        use_effect_with((), move |_| {
            use wasm_bindgen::JsCast;
            let timer = std::rc::Rc::new(std::cell::RefCell::new(None));
            let after = timer.clone();
            let frame = wasm_bindgen::closure::Closure::once_into_js(move || {
                *after.borrow_mut() = Some(gloo::timers::callback::Timeout::new(0, move || {
                    painted.set(true);
                }));
            });
            let window = web_sys::window();
            let id = window
                .as_ref()
                .and_then(|w| w.request_animation_frame(frame.unchecked_ref()).ok());
            move || {
                if let (Some(w), Some(id)) = (window, id) {
                    let _ = w.cancel_animation_frame(id);
                }
                drop(timer.borrow_mut().take());
            }
        });
    }
    *painted
}
