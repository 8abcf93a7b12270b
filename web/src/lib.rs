//! The vramfit site. The only crate that knows about the DOM.
//!
//! [`App`] owns one [`state::AppState`] (a pure reducer, tested natively) and keeps the URL in
//! step with it: opening a link dispatches [`state::Action::Open`], and every new state
//! replaces the URL's hash, so that whatever is on screen can be shared. The views read the
//! state from a context and compute everything they show from the estimator and the planners
//! of the `vramfit` crate; nothing on screen is a hard-coded answer.

pub mod catalog;
pub mod compute;
pub mod fields;
pub mod format;
pub mod i18n;
pub mod route;
pub mod state;
pub mod weights_file;

mod components;
mod hooks;

use std::rc::Rc;

use yew::prelude::*;

use crate::route::{Route, View};
use crate::state::{Action, AppState};

/// The state and its dispatcher, shared with every component.
pub type Ctx = UseReducerHandle<AppState>;

/// The offers in use (typed prices, an imported catalog), shared with every component.
pub type CatalogCtx = UseReducerHandle<catalog::Catalog>;

/// The root component.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| {
        let route = Route::parse(&hooks::location_hash());
        let s = Rc::new(AppState::default());
        let s = yew::Reducible::reduce(s, Action::Open(route, hooks::browser_lang()));
        (*s).clone()
    });

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
            hooks::set_document_lang(s.lang.code());
            hooks::set_title(&format!(
                "{} · {}",
                s.lang.t(s.view.title_key()),
                s.lang.t("app.title")
            ));
        });
    }

    let lang = state.lang;
    let view = match state.view {
        View::Calc => html! { <components::calc::CalcView /> },
        View::Fit => html! { <components::fit::FitView /> },
        View::Mig => html! { <components::mig::MigView /> },
        View::Diagnose => html! { <components::diagnose::DiagnoseView /> },
        View::Faq => html! { <components::faq::FaqView /> },
        View::Device => html! { <components::device::DeviceView /> },
    };
    html! {
        <ContextProvider<Ctx> context={state.clone()}>
        <ContextProvider<CatalogCtx> context={offers.clone()}>
            <a class="skip" href="#main" onclick={hooks::focus_main()}>{ lang.t("app.skip") }</a>
            <components::shell::Header />
            <components::shell::Nav />
            <main id="main" tabindex="-1" data-view={state.view.slug()}>
                <components::shell::Notice />
                { view }
            </main>
            <footer>
                { lang.t("app.footer") }{ " · " }
                <a href={if lang == crate::i18n::Lang::Zh { "./book/zh/" } else { "./book/en/" }}>{ lang.t("app.book") }</a>
                { " · vramfit " }{ vramfit::VERSION }
            </footer>
        </ContextProvider<CatalogCtx>>
        </ContextProvider<Ctx>>
    }
}

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
