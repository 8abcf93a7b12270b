//! Prices and catalog: type a price over an offer's (kept in this browser's `localStorage`),
//! reset them, export the offers in use as JSON and import a JSON catalog (validated by the
//! core: an error names the record and the field). Everything that plans with offers — the
//! offers table, the spot calculator's defaults, the matrix and the MIG planner — uses them.

use vramfit::InputError;
use vramfit::hardware::import::{offers_from_json, parse_price};
use vramfit::hardware::{Market, Offer, gpus};
use yew::prelude::*;

use super::field::{error_text, input_value};
use crate::catalog::CatalogAction;
use crate::{use_app, use_catalog};

/// The export's file name.
pub const EXPORT_NAME: &str = "vramfit-offers.json";

/// The panel.
#[function_component(Prices)]
pub fn prices() -> Html {
    let app = use_app();
    let catalog = use_catalog();
    let lang = app.lang;
    let import_error = use_state(|| None::<InputError>);
    let imported_now = use_state(|| None::<usize>);
    let reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);
    let on_export = {
        let catalog = catalog.clone();
        Callback::from(move |_| {
            crate::hooks::download(EXPORT_NAME, "application/json", &catalog.export());
        })
    };
    let on_import = {
        let catalog = catalog.clone();
        let import_error = import_error.clone();
        let imported_now = imported_now.clone();
        let reader = reader.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<web_sys::HtmlInputElement>();
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            // The same file may be chosen again after a fix.
            input.set_value("");
            let catalog = catalog.clone();
            let import_error = import_error.clone();
            let imported_now = imported_now.clone();
            let file = gloo::file::File::from(file);
            let task = gloo::file::callbacks::read_as_text(&file, move |r| {
                let text = r.unwrap_or_default();
                match offers_from_json(&text, gpus()) {
                    Ok(v) => {
                        imported_now.set(Some(v.len()));
                        import_error.set(None);
                        catalog.dispatch(CatalogAction::Import(v));
                    }
                    Err(e) => {
                        imported_now.set(None);
                        import_error.set(Some(e));
                    }
                }
            });
            *reader.borrow_mut() = Some(task);
        })
    };
    let on_reset = {
        let catalog = catalog.clone();
        let imported_now = imported_now.clone();
        Callback::from(move |_| {
            imported_now.set(None);
            catalog.dispatch(CatalogAction::ResetPrices)
        })
    };
    let on_builtin = {
        let catalog = catalog.clone();
        let imported_now = imported_now.clone();
        Callback::from(move |_| {
            imported_now.set(None);
            catalog.dispatch(CatalogAction::Builtin)
        })
    };
    let on_dismiss = {
        let catalog = catalog.clone();
        Callback::from(move |_| catalog.dispatch(CatalogAction::DismissProblem))
    };
    let edited = catalog.prices.len();
    // Open at first when prices were typed before; then as the user leaves it.
    let open = use_state(|| !catalog.prices.is_empty());
    let ontoggle = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            open.set(
                e.target_unchecked_into::<web_sys::Element>()
                    .has_attribute("open"),
            )
        })
    };
    html! {
        <div class="panel" id="prices">
            <h2>{ lang.t(key!("prices.title")) }</h2>
            <p class="hint">{ lang.t(key!("prices.lead")) }</p>
            if let Some(p) = &catalog.problem {
                <div class="notice" id="storage-problem" role="alert">
                    { lang.t(key!("prices.storage_problem")) }{ " " }{ error_text(lang, p) }
                    <button type="button" onclick={on_dismiss}>{ lang.t(key!("notice.dismiss")) }</button>
                </div>
            }
            <p id="catalog-status" data-imported={catalog.imported.is_some().to_string()} data-edited={edited.to_string()}>
                { match &catalog.imported {
                    Some(v) => lang.f(key!("prices.using_imported"), &[&v.len().to_string()]),
                    None => lang.f(key!("prices.using_builtin"), &[&catalog.offers.len().to_string()]),
                } }
                { " " }
                { lang.f(key!("prices.edited"), &[&edited.to_string()]) }
            </p>
            <div class="row actions">
                <button type="button" id="export" onclick={on_export}>{ lang.t(key!("prices.export")) }</button>
                <span class="file-button">
                    <input type="file" id="import-file" accept=".json,application/json" onchange={on_import}
                        aria-describedby="import-hint" />
                    <label for="import-file" class="button">{ lang.t(key!("prices.import")) }</label>
                </span>
                <button type="button" id="reset-prices" onclick={on_reset} disabled={edited == 0}>{ lang.t(key!("prices.reset")) }</button>
                if catalog.imported.is_some() {
                    <button type="button" id="builtin" onclick={on_builtin}>{ lang.t(key!("prices.builtin")) }</button>
                }
            </div>
            <p class="hint" id="import-hint">{ lang.t(key!("prices.import_hint")) }</p>
            if let Some(n) = *imported_now {
                <p id="import-ok" role="status">{ lang.f(key!("prices.imported"), &[&n.to_string()]) }</p>
            }
            if let Some(e) = &*import_error {
                <p class="err" id="import-error" role="alert" data-field={e.field.clone()}>
                    { lang.t(key!("prices.import_failed")) }{ " " }{ error_text(lang, e) }
                </p>
            }
            <details id="price-editor" open={*open} {ontoggle}>
                <summary>{ lang.f(key!("prices.edit"), &[&catalog.offers.len().to_string()]) }</summary>
                <div class="scroll">
                    <table id="price-table">
                        <thead><tr>
                            <th>{ lang.t(key!("fit.offer")) }</th><th>{ lang.t(key!("prices.unit")) }</th>
                            <th class="num">{ lang.t(key!("prices.price")) }</th><th class="num">{ lang.t(key!("prices.catalog_price")) }</th>
                        </tr></thead>
                        <tbody>
                            { for catalog.offers.iter().enumerate().map(|(i, o)| html! {
                                <PriceRow index={i} offer={o.clone()} base={catalog.base_price(&o.id)} />
                            }) }
                        </tbody>
                    </table>
                </div>
            </details>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct RowProps {
    index: usize,
    offer: Offer,
    base: Option<f64>,
}

/// One offer's price: the text as typed stays while it is being typed; a valid price is applied
/// at once, an invalid one shows the core's error next to the field.
#[function_component(PriceRow)]
fn price_row(props: &RowProps) -> Html {
    let app = use_app();
    let catalog = use_catalog();
    let lang = app.lang;
    let o = &props.offer;
    // What is being typed, with the catalog generation and the price in force it goes with:
    // shown while both still hold (a reset or an import elsewhere wins).
    let draft = use_state(|| None::<(String, u64, f64)>);
    let current = o.price_per_hour;
    let generation = catalog.generation;
    let live = draft
        .as_ref()
        .filter(|(_, g, p)| *g == generation && *p == current);
    let shown = live.map_or_else(|| format!("{current}"), |(d, _, _)| d.clone());
    let error = live.and_then(|(d, _, _)| parse_price("price_per_hour", d).err());
    let id = format!("price-{}", props.index);
    let oninput = {
        let catalog = catalog.clone();
        let draft = draft.clone();
        let offer = o.id.to_string();
        Callback::from(move |e: InputEvent| {
            let v = input_value(&e);
            let in_force = match parse_price("price_per_hour", &v) {
                Ok(p) => {
                    catalog.dispatch(CatalogAction::SetPrice(offer.clone(), p));
                    p
                }
                Err(_) => current,
            };
            draft.set(Some((v, generation, in_force)));
        })
    };
    let edited = props.base.is_some_and(|b| b != current);
    let on_undo = {
        let catalog = catalog.clone();
        let draft = draft.clone();
        let offer = o.id.to_string();
        Callback::from(move |_| {
            draft.set(None);
            catalog.dispatch(CatalogAction::ResetPrice(offer.clone()));
        })
    };
    let unit = match (&o.mig_profile, &o.vgpu) {
        (Some(p), _) => format!("{} MIG {p}", o.gpu),
        (None, Some(v)) => format!("vGPU {v}"),
        (None, None) => format!("{} × {}", o.count, o.gpu),
    };
    let market = if o.market == Market::Spot {
        lang.t(key!("fit.spot_short"))
    } else {
        lang.t(key!("prices.on_demand"))
    };
    let err_id = format!("{id}-err");
    html! {
        <tr data-offer={o.id.to_string()} data-edited={edited.to_string()}>
            <td>{ o.id.to_string() }<br /><span class="muted">{ o.provider.to_string() }{ " · " }{ market }</span></td>
            <td>{ unit }</td>
            <td class="num">
                <input type="text" inputmode="decimal" class="price" id={id.clone()} value={shown} {oninput}
                    autocomplete="off" spellcheck="false" size="8"
                    aria-label={lang.f(key!("prices.price_of"), &[&o.id, o.currency.code()])}
                    aria-invalid={error.is_some().then_some("true")}
                    aria-describedby={error.is_some().then(|| err_id.clone())} />
                { " " }{ o.currency.code() }
                if let Some(e) = &error {
                    <span class="err" id={err_id} role="alert">{ error_text(lang, e) }</span>
                }
            </td>
            <td class="num">
                { props.base.map(|b| format!("{b} {}", o.currency.code())).unwrap_or_default() }
                if edited {
                    { " " }
                    <button type="button" class="undo" onclick={on_undo}
                        aria-label={lang.f(key!("prices.undo"), &[&o.id])}>{ "↺" }</button>
                }
            </td>
        </tr>
    }
}
