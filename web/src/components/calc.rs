//! The calculator.

use yew::prelude::*;

use crate::use_app;

/// The view.
#[function_component(CalcView)]
pub fn calc_view() -> Html {
    let app = use_app();
    let lang = app.lang;
    html! { <h1>{ lang.t("view.calc") }</h1> }
}
