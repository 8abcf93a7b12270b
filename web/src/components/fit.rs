//! The fit view.

use yew::prelude::*;

use crate::use_app;

/// The view.
#[function_component(FitView)]
pub fn view() -> Html {
    let app = use_app();
    let lang = app.lang;
    html! { <h1>{ lang.t("view.fit") }</h1> }
}
