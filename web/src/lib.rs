//! The vramfit site. The only crate that knows about the DOM.
//!
//! [`App`] owns one [`state::AppState`] (a pure reducer, tested natively) and keeps the URL in
//! step with it: opening a link dispatches [`state::Action::Open`], and every new state
//! replaces the URL's hash, so that whatever is on screen can be shared. The views read the
//! state from a context and compute everything they show from the estimator and the planners
//! of the `vramfit` crate; nothing on screen is a hard-coded answer.
//!
//! Three builds come from this crate: the full site in both languages (feature `full`, the
//! default) and the calculator alone in one language (`--no-default-features --features en`,
//! or `zh`), the site's first load. `www/boot.js` starts the one the address and the browser's
//! language ask for; when a calculator build is asked for another view or the other language,
//! boot stops it (`stop`) and starts the build that has it, which reads the whole state from
//! the same address (`start` again, when that build ran before).

/// The [`i18n::Key`] of a text, from its key, found when the site is compiled: `key!("calc.apply")`.
/// A key that no row of the text tables has does not compile.
macro_rules! key {
    ($k:expr) => {{
        const K: $crate::i18n::Key = $crate::i18n::Key::of(&[$k]);
        K
    }};
}

pub mod answer;
pub mod catalog;
pub mod compute;
pub mod engines;
pub mod fields;
pub mod format;
#[cfg(feature = "full")]
pub mod hub;
pub mod i18n;
pub mod route;
pub mod state;
pub mod weights_file;

mod components;
mod hooks;

use std::rc::Rc;

use yew::prelude::*;

use crate::route::Route;
use crate::state::{Action, AppState};

/// The state and its dispatcher, shared with every component.
pub type Ctx = UseReducerHandle<AppState>;

/// The offers in use (typed prices, an imported catalog), shared with every component.
pub type CatalogCtx = UseReducerHandle<catalog::Catalog>;

#[cfg(target_arch = "wasm32")]
thread_local! {
    static RUNNING: std::cell::RefCell<Option<yew::AppHandle<App>>> =
        const { std::cell::RefCell::new(None) };
}

/// Mounts the site on `#app` (the binary's `main`; a page without `#app` is left alone).
/// `www/boot.js` calls it again when the page comes back to a build it stopped.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn start() {
    let Some(root) = gloo::utils::document().get_element_by_id("app") else {
        return;
    };
    root.set_inner_html("");
    let app = yew::Renderer::<App>::with_root(root).render();
    RUNNING.with(|r| *r.borrow_mut() = Some(app));
}

/// Unmounts the site, so that another build can take `#app` over: nothing of this one runs
/// afterwards (its listeners and timers go with its components).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn stop() {
    if let Some(app) = RUNNING.with(|r| r.borrow_mut().take()) {
        app.destroy();
    }
}

/// The root component.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| {
        let route = Route::parse(&hooks::location_hash());
        let s = Rc::new(AppState::default());
        let s = yew::Reducible::reduce(s, Action::Open(route, hooks::browser_lang()));
        (*s).clone()
    });

    // A link opened later (back/forward, an edited address, a pasted link).
    {
        let state = state.clone();
        hooks::use_hashchange(move |hash| {
            state.dispatch(Action::Open(Route::parse(&hash), hooks::browser_lang()));
        });
    }

    // Keep the address, the document language and the title in step with the state.
    // The address is written in a task of its own, after the frame: Chromium's replaceState
    // takes about 10 ms with a long hash, which would otherwise delay every re-render. A newer
    // state cancels a write still pending, and a write is dropped when the address changed in
    // the meantime (a link followed: its hashchange brings the newer state).
    let pending_hash = use_mut_ref(|| None::<gloo::timers::callback::Timeout>);
    {
        let deps = (*state).clone();
        use_effect_with(deps, move |s| {
            let hash = s.hash();
            let seen = hooks::location_hash();
            *pending_hash.borrow_mut() = Some(gloo::timers::callback::Timeout::new(0, move || {
                if hooks::location_hash() == seen {
                    hooks::replace_hash(&hash);
                }
            }));
            hooks::set_document_lang(s.lang.shown().code());
            hooks::remember_lang(s.lang);
            hooks::set_title(&format!(
                "{} · {}",
                s.lang.t(s.view.title_key()),
                s.lang.t(key!("app.title"))
            ));
        });
    }

    use_hand_over(&state);
    let lang = state.lang;
    let view = view_of(&state);
    html! {
        <ContextProvider<Ctx> context={state.clone()}>
        { with_offers(html! { <>
            <a class="skip" href="#main" onclick={hooks::focus_main()}>{ lang.t(key!("app.skip")) }</a>
            { components::shell::header(&state) }
            { components::shell::nav(&state) }
            <main id="main" tabindex="-1" data-view={state.view.slug()}>
                { components::shell::notice(&state) }
                { view }
            </main>
            <footer>
                { lang.t(FOOTER) }{ " · " }
                <a href={if lang.is_zh() { "./book/zh/" } else { "./book/en/" }}>{ lang.t(key!("app.book")) }</a>
                { " · vramfit " }{ vramfit::VERSION }
            </footer>
        </> }) }
        </ContextProvider<Ctx>>
    }
}

/// The footer's claim: the calculator builds make no request at all; the full build makes those of
/// a hub lookup, when asked.
#[cfg(feature = "full")]
const FOOTER: i18n::Key = key!("app.footer_full");
#[cfg(not(feature = "full"))]
const FOOTER: i18n::Key = key!("app.footer");

/// The page inside the provider of the offers (the full build).
#[cfg(feature = "full")]
fn with_offers(page: Html) -> Html {
    html! { <WithOffers>{ page }</WithOffers> }
}

/// The calculator alone prices nothing: no offers to read, no provider around the page.
#[cfg(not(feature = "full"))]
fn with_offers(page: Html) -> Html {
    page
}

/// Provides the offers in use to the views that price things (the full build only).
#[cfg(feature = "full")]
#[function_component(WithOffers)]
fn offers_provider(props: &yew::html::ChildrenProps) -> Html {
    // The offers: read from localStorage once, written back after every change.
    let offers = use_reducer(|| {
        catalog::Catalog::from_storage(
            hooks::local_get(catalog::PRICES_KEY).as_deref(),
            hooks::local_get(catalog::OFFERS_KEY).as_deref(),
        )
    });
    {
        let deps = (offers.prices.clone(), offers.imported.clone());
        let c = (*offers).clone();
        use_effect_with(deps, move |_| {
            let (prices, imported) = c.stored();
            hooks::local_set(catalog::PRICES_KEY, prices.as_deref());
            hooks::local_set(catalog::OFFERS_KEY, imported.as_deref());
        });
    }

    html! {
        <ContextProvider<CatalogCtx> context={offers}>{ props.children.clone() }</ContextProvider<CatalogCtx>>
    }
}

/// The view the state asks for.
#[cfg(feature = "full")]
fn view_of(state: &AppState) -> Html {
    use crate::route::View;
    match state.view {
        View::Calc => html! { <components::calc::CalcView /> },
        View::Fit => html! { <components::fit::FitView /> },
        View::Models => html! { <components::models::ModelsView /> },
        View::Mig => html! { <components::mig::MigView /> },
        View::Diagnose => html! { <components::diagnose::DiagnoseView /> },
        View::Faq => html! { <components::faq::FaqView /> },
        View::Device => html! { <components::device::DeviceView /> },
    }
}

/// The build the state needs, when it is not this one ([`AppState::build`]): a calculator
/// build (the site's first load) has the calculator with the catalog's models, in one
/// language; every other view, and a model read from a config.json or weights file, is in the
/// full build, the other language in the other calculator build. See [`use_hand_over`].
#[cfg(not(feature = "full"))]
fn build_needed(state: &AppState) -> Option<&'static str> {
    let build = state.build();
    (build == "full" || !state.lang.carried()).then_some(build)
}

#[cfg(not(feature = "full"))]
fn view_of(state: &AppState) -> Html {
    if build_needed(state).is_some() {
        html! { <p class="loading" role="status">{ state.lang.t(key!("app.loading")) }</p> }
    } else {
        html! { <components::calc::CalcView /> }
    }
}

/// In a calculator build, once the state asks for what another build has (while `view_of`
/// shows a line saying it is loading): the whole state written to the address, which the
/// other build starts from, and the page asked to start that build. A hook of `App` rather
/// than a component of its own, whose lifecycle code would add to the first load.
#[cfg(not(feature = "full"))]
#[hook]
fn use_hand_over(state: &AppState) {
    let wanted = build_needed(state);
    let hash = if wanted.is_some() {
        state.hash()
    } else {
        String::new()
    };
    use_effect_with(wanted, move |&wanted| {
        if let Some(build) = wanted {
            hooks::replace_hash(&hash);
            hooks::start_build(build);
        }
    });
}

/// The full build has every page in both languages: nothing to hand over.
#[cfg(feature = "full")]
#[hook]
fn use_hand_over(_state: &AppState) {}

/// The shared state, from inside any component.
#[hook]
pub fn use_app() -> Ctx {
    use_context::<Ctx>().expect("components render inside App's ContextProvider")
}

/// The offers in use, from inside any component.
#[hook]
pub fn use_catalog() -> CatalogCtx {
    use_context::<CatalogCtx>().expect("components render inside App's ContextProvider")
}

/// The fields of `EstimateInput` (test code shared by every face's check: the form's in
/// `fields.rs`, the URL's in `state.rs`). Last in the file: `components::tests::calculator_source`
/// reads each file up to its first `#[cfg(test)]`.
#[cfg(test)]
#[cfg(feature = "full")]
#[path = "../../tests/input_fields.rs"]
mod input_fields;
