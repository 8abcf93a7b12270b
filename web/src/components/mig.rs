//! The mig view.

use yew::prelude::*;

use crate::use_app;

/// The view.
#[function_component(MigView)]
pub fn view() -> Html {
    let app = use_app();
    let lang = app.lang;
    html! { <h1>{ lang.t("view.mig") }</h1> }
}
