//! FAQ: the guide's four questions and more, each answer's numbers computed live by the
//! estimator and the planners (and Q4 with the calculator's own run and card).

use vramfit::diagnose::{self, faq};
use yew::prelude::*;

use crate::compute;
use crate::use_app;

/// The view.
#[function_component(FaqView)]
pub fn view() -> Html {
    let app = use_app();
    let lang = app.lang;
    let l = if lang.is_zh() {
        diagnose::Lang::Zh
    } else {
        diagnose::Lang::En
    };
    let values = use_memo((app.calc.clone(), app.extra.get("config").cloned()), {
        let s = (*app).clone();
        move |_| compute::faq_values(&s)
    });
    let refs: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
    html! {
        <>
            <h1>{ lang.t(key!("view.faq")) }</h1>
            <p class="lead">{ lang.t(key!("faq.lead")) }</p>
            <div class="panel faq" id="faq">
                { for faq().iter().enumerate().map(|(i, e)| html! {
                    <details open={i == 0} data-faq={e.id}>
                        <summary>{ e.question.get(l) }</summary>
                        <p>{ e.render(l, &refs) }</p>
                        { runs_of(&app, e.id) }
                        <p class="hint">{ source(lang, e.source) }</p>
                    </details>
                }) }
            </div>
        </>
    }
}

/// The links that open the runs an answer's numbers come from in the calculator; nothing for an
/// answer with none.
fn runs_of(app: &crate::state::AppState, id: &str) -> Html {
    let lang = app.lang;
    let runs: Vec<_> = compute::faq_runs()
        .into_iter()
        .filter(|(of, _, _)| *of == id)
        .collect();
    if runs.is_empty() {
        return Html::default();
    }
    html! {
        <p class="faq-runs">{ lang.t(key!("faq.open")) }{ " " }
            { for runs.iter().enumerate().map(|(i, (_, label, input))| html! {
                <>
                    if i > 0 { { " · " } }
                    <a class="calc-link" href={app.calc_link_of(input)}>{ lang.t(*label) }</a>
                </>
            }) }
        </p>
    }
}

/// Where an entry comes from, in the page's language: a section of the guide ("guide §6 Q1"), or
/// a question users ask ("users").
fn source(lang: crate::i18n::Lang, source: &str) -> String {
    match source.strip_prefix("guide ") {
        Some(section) => lang.f(key!("faq.source_guide"), &[section]),
        None => lang.t(key!("faq.source_users")).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Lang;

    #[test]
    fn every_source_reads_as_words_in_both_languages() {
        for e in faq() {
            assert!(
                e.source == "users" || e.source.starts_with("guide §"),
                "{}: source `{}` has no wording",
                e.id,
                e.source
            );
        }
        assert_eq!(source(Lang::En, "guide §6 Q1"), "From the guide, §6 Q1");
        assert_eq!(source(Lang::Zh, "guide §6 Q1"), "出自指南 §6 Q1");
        assert_eq!(source(Lang::Zh, "users"), "用户常问的问题");
    }
}
