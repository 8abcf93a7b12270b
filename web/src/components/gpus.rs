//! The GPU catalog as the views use it: the picker, the chart's memory lines, and matching a
//! WebGPU adapter's name to a card.

use vramfit::hardware::{Gpu, gpus};
use yew::prelude::*;

#[cfg(feature = "full")]
use super::chart::Line;
use crate::format;

#[cfg(feature = "full")]
/// Catalog cards drawn as memory lines on the context chart: one per common size.
const CHART_GPUS: &[&str] = &["rtx-4090", "l40s", "h100-sxm5-80gb", "h200-sxm-141gb"];

#[cfg(feature = "full")]
/// Memory lines for the context chart.
pub fn chart_lines() -> Vec<Line> {
    CHART_GPUS
        .iter()
        .filter_map(|id| vramfit::hardware::find_gpu(id))
        .map(|g| Line {
            label: short_name(g),
            bytes: g.memory,
        })
        .collect()
}

/// `H100 SXM5 80GB` from `NVIDIA H100 SXM5 80GB`.
pub fn short_name(g: &Gpu) -> String {
    let name = g.name.strip_prefix("NVIDIA ").unwrap_or(g.name);
    name.strip_prefix("GeForce ").unwrap_or(name).to_string()
}

/// What a card's `<select>` does: the card chosen is the calculator's, and a memory size given
/// instead of a card is cleared (the estimator takes one or the other).
pub fn pick(app: &crate::Ctx) -> Callback<Event> {
    let app = app.clone();
    Callback::from(move |e: Event| {
        let v = e
            .target_unchecked_into::<web_sys::HtmlSelectElement>()
            .value();
        app.dispatch(crate::state::Action::SetMany(vec![
            ("gpu".into(), v),
            ("gpu_memory".into(), String::new()),
        ]));
    })
}

/// `<option>`s of every catalog card, `selected` the one `value` names as the estimator reads it
/// (an id, or words such as `4090` that name one card alone). A value that names no single card
/// (from an address) is an option of its own, selected, so the select shows what the estimate
/// was asked for beside the error that says why it has none.
pub fn options(value: &str) -> Html {
    let named = match vramfit::hardware::match_gpus(value).as_slice() {
        [g] => Some(g.id),
        _ => None,
    };
    html! {
        <>
            if !value.is_empty() && named.is_none() {
                <option value={value.to_string()} selected=true>{ value }</option>
            }
            { for gpus().iter().map(|g| html! {
                <option value={g.id} selected={Some(g.id) == named}>
                    { format!("{} — {} ({})", g.name, g.marketed_memory, format::gib(g.memory)) }
                </option>
            }) }
        </>
    }
}

#[cfg(feature = "full")]
/// Lower-case alphanumeric words.
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

#[cfg(feature = "full")]
/// The catalog card whose name an adapter's description names, if exactly one fits best:
/// every word of the card's short name (vendor words aside) appears in the description, and
/// the card with the most such words wins. Nothing is guessed when nothing fits.
pub fn match_adapter(description: &str) -> Option<&'static Gpu> {
    let have = words(description);
    if have.is_empty() {
        return None;
    }
    let mut best: Option<(&'static Gpu, usize)> = None;
    for g in gpus() {
        let need: Vec<String> = words(g.name)
            .into_iter()
            .filter(|w| {
                !matches!(
                    w.as_str(),
                    "nvidia" | "geforce" | "amd" | "radeon" | "instinct" | "apple" | "huawei"
                )
            })
            .collect();
        if need.is_empty() || !need.iter().all(|w| have.contains(w)) {
            continue;
        }
        if best.is_none_or(|(_, n)| need.len() > n) {
            best = Some((g, need.len()));
        }
    }
    best.map(|(g, _)| g)
}

#[cfg(test)]
#[cfg(feature = "full")]
mod tests {
    use super::*;

    #[test]
    fn adapters_match_by_name_or_not_at_all() {
        let g = match_adapter("NVIDIA GeForce RTX 4090").expect("4090");
        assert_eq!(g.id, "rtx-4090");
        assert!(match_adapter("Google SwiftShader").is_none());
        assert!(match_adapter("").is_none());
        assert_eq!(chart_lines().len(), CHART_GPUS.len());
    }
}
