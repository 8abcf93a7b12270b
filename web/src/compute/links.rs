//! Links from the other views into the calculator: a rental option's layout ([`layout_link`]);
//! the models' rows and the FAQ's runs build theirs with `AppState::calc_link_with` and
//! `AppState::calc_link_of`. Each link opens the calculator on the run the row counted, so the
//! two views never disagree (tested here, number against number).

use vramfit::hardware::PlanOption;

use super::input_with;
use crate::fields;
use crate::state::AppState;

/// The calculator's link for rental option `o`: the state's run spread over `o`'s layout on
/// its card, as [`super::per_gpu`] counted it (`layout_input`), so that the calculator shows
/// the row's memory per GPU. `None` for a MIG or vGPU slice, which is no card of the
/// calculator's.
pub fn layout_link(s: &AppState, o: &PlanOption) -> Option<String> {
    Some(s.calc_link_with(&layout_changes(s, o)?))
}

/// The form's fields that change when the state's run is spread over rental option `o`'s
/// layout on its card (`layout_input`: the card, its GPUs, tp, pp, the GPUs of a node), as
/// the form writes them: what [`layout_link`] opens and the answer's "apply" sets. `None` for
/// a MIG or vGPU slice, which is no card of the calculator's.
pub fn layout_changes(s: &AppState, o: &PlanOption) -> Option<Vec<(&'static str, String)>> {
    if o.mig_profile.is_some() {
        return None;
    }
    let run = input_with(s, &[]).ok()?;
    let gpu = vramfit::hardware::find_gpu(&o.gpu)?;
    let spread = vramfit::hardware::layout_input(&run, o.parallelism, gpu)?;
    let before = fields::form_texts(&run);
    Some(
        fields::form_texts(&spread)
            .into_iter()
            .filter(|kv| !before.contains(kv))
            .collect(),
    )
}

#[cfg(test)]
#[cfg(feature = "full")]
mod tests {
    use super::*;
    use crate::compute::{estimate_of, plan_of};
    use crate::i18n::Lang;
    use crate::route::Route;
    use crate::state::Action;
    use std::rc::Rc;
    use vramfit::hardware::{ParallelKind, PlanOptions};
    use yew::Reducible;

    fn state(hash: &str) -> Rc<AppState> {
        Rc::new(AppState::default()).reduce(Action::Open(Route::parse(hash), Lang::En))
    }

    /// Every whole-card option of Fit & rent opens the calculator on its own run: the
    /// calculator's memory per GPU there is the row's, for single cards and for the tensor,
    /// pipeline and ZeRO-3 layouts (Llama-3.1-70B training needs several cards); a MIG slice
    /// has no link. The language stays.
    #[test]
    fn each_offer_opens_the_calculator_on_its_layout() {
        for hash in [
            "#/fit?lang=zh&model=meta-llama/Llama-3.1-8B&mode=serve&engine=vllm",
            "#/fit?model=meta-llama/Llama-3.1-70B&mode=training&lora_rank=16",
            "#/fit?model=gpt2&batch=4",
        ] {
            let s = state(hash);
            let options = plan_of(&s, vramfit::hardware::offers(), &PlanOptions::default())
                .unwrap_or_else(|e| panic!("{hash}: {e}"));
            assert!(!options.is_empty(), "{hash}: no option");
            let mut kinds = Vec::new();
            for o in &options {
                let Some(link) = layout_link(&s, o) else {
                    assert!(o.mig_profile.is_some(), "{hash}: {} has no link", o.offer);
                    continue;
                };
                let opened = state(&link);
                assert_eq!(opened.lang, s.lang, "{link}");
                let e = estimate_of(&opened).unwrap_or_else(|e| panic!("{link}: {e}"));
                assert_eq!(e.required_bytes, o.per_gpu_bytes, "{hash} → {link}");
                assert_eq!(opened.value("gpu"), o.gpu, "{link}");
                kinds.push(o.parallelism.kind);
            }
            if hash.contains("70B") {
                assert!(
                    kinds.iter().any(|k| *k != ParallelKind::Single),
                    "{hash}: a layout of several cards is linked: {kinds:?}"
                );
            }
        }
    }

    /// Each FAQ run's link reopens the run itself: the input read back from the link equals the
    /// run, in each language.
    #[cfg(feature = "full")]
    #[test]
    fn each_faq_run_reopens_itself() {
        for lang in ["en", "zh"] {
            let s = state(&format!("#/faq?lang={lang}"));
            for (id, _, run) in crate::compute::faq_runs() {
                let link = s.calc_link_of(&run);
                let opened = state(&link);
                assert_eq!(opened.lang.url_code(), lang, "{link}");
                let read = input_with(&opened, &[]).unwrap_or_else(|e| panic!("{id} {link}: {e}"));
                assert_eq!(read, run, "{id}: {link}");
            }
        }
    }
}
