//! The frame around every view: header with the language switch, the view menu, and the
//! notice about a link that could not be read.
//!
//! Plain functions of the app's state that `App` calls, not components: they hold no state of
//! their own and change whenever the state does, and each component costs the first load its
//! own lifecycle code, which the first load's budget cannot spare (the book's performance chapter
//! has the figure).

use yew::prelude::*;

use crate::Ctx;
use crate::i18n::Lang;
use crate::route::View;
use crate::state::Action;

/// The header.
pub fn header(app: &Ctx) -> Html {
    let lang = app.lang;
    let onchange = {
        let app = app.clone();
        Callback::from(move |e: Event| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value();
            app.dispatch(Action::SetLang(Lang::from_url(&v).unwrap_or_default()));
        })
    };
    html! {
        <header class="top">
            <a class="brand" href={app.hash_for(View::Calc)}>
                <img src="./icon.svg" alt="" width="26" height="26" />{ "vramfit" }
            </a>
            <span class="tagline">{ lang.t(key!("app.tagline")) }</span>
            <label class="lang">
                <span class="skip">{ lang.t(key!("app.lang")) }</span>
                <select id="lang" aria-label={lang.t(key!("app.lang"))} {onchange}>
                    <option value="en" selected={!lang.is_zh()}>{ "English" }</option>
                    <option value="zh" selected={lang.is_zh()}>{ "简体中文" }</option>
                </select>
            </label>
        </header>
    }
}

/// The view menu.
pub fn nav(app: &Ctx) -> Html {
    let lang = app.lang;
    html! {
        <nav class="views" aria-label={lang.t(key!("view.nav"))}>
            { for View::ALL.iter().map(|&v| html! {
                <a href={app.hash_for(v)} data-nav={v.slug()}
                   aria-current={(app.view == v).then_some("page")}>{ lang.t(v.title_key()) }</a>
            }) }
        </nav>
    }
}

/// The notice shown when a link had parts that could not be read.
pub fn notice(app: &Ctx) -> Html {
    if app.problems.is_empty() {
        return html! {};
    }
    let lang = app.lang;
    let dismiss = {
        let app = app.clone();
        Callback::from(move |_| app.dispatch(Action::DismissProblems))
    };
    html! {
        <div class="notice" role="status" id="link-notice">
            { lang.f(key!("notice.bad_link"), &[&app.problems.join(", ")]) }
            <button type="button" onclick={dismiss}>{ lang.t(key!("notice.dismiss")) }</button>
        </div>
    }
}
