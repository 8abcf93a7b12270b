//! "Run it": the command that starts the estimated run on its engine (`vllm serve …`,
//! `llama-server …`, Ollama's environment and Modelfile), with every number the estimate
//! assumed, and a button that copies it. The full build's, which a catalog card loads (the
//! calculator builds leave it out of the first load).

use vramfit::launch::Launch;
use yew::prelude::*;

use super::field::error_text;
use crate::compute;
use crate::i18n::Lang;

/// The panel for the state's run, or why its run has no launch (transformers, training, a
/// model known by its size alone).
pub fn launch_panel(app: &crate::Ctx) -> Html {
    let lang = app.lang;
    let launch = compute::input_with(app, &[]).and_then(|i| vramfit::launch::launch_input(&i));
    let body = match &launch {
        Ok(l) => script(lang, l),
        Err(e) => html! { <p class="hint">{ error_text(lang, e) }</p> },
    };
    html! {
        <div class="panel" id="launch">
            <h2>{ lang.t(key!("launch.title")) }</h2>
            { body }
        </div>
    }
}

/// The notes, the script and its copy button.
fn script(lang: Lang, l: &Launch) -> Html {
    let text = l.script.clone();
    let copy = Callback::from(move |_| {
        if let Some(w) = web_sys::window() {
            // Refused (no permission, no focus): the user selects the text instead.
            let _ = w.navigator().clipboard().write_text(&text);
        }
    });
    html! {
        <>
            <p class="hint">{ lang.t(key!("launch.hint")) }</p>
            { for l.notes.iter().map(|n| html! {
                <p class="hint">{ if lang.is_zh() { n.zh.clone() } else { n.en.clone() } }</p>
            }) }
            <pre><code>{ l.script.clone() }</code></pre>
            <button type="button" onclick={copy}>{ lang.t(key!("launch.copy")) }</button>
        </>
    }
}
