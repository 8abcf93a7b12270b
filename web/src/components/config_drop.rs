//! The calculator's model source read from a file (full build only: a calculator build hands
//! the config.json source over to the full build).

use std::cell::RefCell;

use vramfit::config::ParsedConfig;
use vramfit::{ErrorKind, InputError};
use yew::prelude::*;

use super::field::error_text;
use crate::i18n::Lang;
use crate::state::Action;
use crate::weights_file;
use crate::{compute, format, use_app};

/// What the drop zone shows under itself: the estimator's error about the file, if any.
#[derive(Properties, PartialEq)]
pub struct ErrProps {
    pub error: Option<InputError>,
}

/// What the last weights file's header said, or why a file was refused.
type Header = UseStateHandle<Option<Result<weights_file::Summary, InputError>>>;

/// config.json, or a `.safetensors` / `.gguf` weights file read by its header alone: drop a
/// file or choose one; it is read here, never uploaded.
#[function_component(ConfigDrop)]
pub fn config_drop(props: &ErrProps) -> Html {
    let app = use_app();
    let lang = app.lang;
    let over = use_state(|| false);
    let reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);
    // What the last weights file's header said (the link keeps only the model it gave).
    let header = use_state(|| None::<Result<weights_file::Summary, InputError>>);
    let load = {
        let app = app.clone();
        let reader = reader.clone();
        let header = header.clone();
        move |file: web_sys::File| read_file(&app, &reader, &header, file)
    };
    let ondrop = {
        let load = load.clone();
        let over = over.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            over.set(false);
            if let Some(f) = e
                .data_transfer()
                .and_then(|d| d.files())
                .and_then(|f| f.get(0))
            {
                load(f);
            }
        })
    };
    let ondragover = {
        let over = over.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            over.set(true);
        })
    };
    let ondragleave = {
        let over = over.clone();
        Callback::from(move |_| over.set(false))
    };
    let onchange = Callback::from(move |e: Event| {
        let input = e.target_unchecked_into::<web_sys::HtmlInputElement>();
        if let Some(f) = input.files().and_then(|f| f.get(0)) {
            load(f);
        }
    });
    let parsed = compute::config_of(&app);
    let err = props
        .error
        .as_ref()
        .filter(|e| e.field.starts_with("config.json"));
    let loaded = parsed.is_some();
    html! {
        <div class="field">
            <div class="drop" data-over={(*over).then_some("true")} {ondrop} {ondragover} {ondragleave} id="config-drop">
                <label for="f-config">{ lang.t(key!("calc.drop")) }</label>
                <input type="file" id="f-config" accept=".json,application/json,.safetensors,.gguf" {onchange} />
            </div>
            { header_info(lang, header.as_ref()) }
            { config_info(lang, parsed) }
            if let Some(e) = err.filter(|_| !loaded) { <span class="err" role="alert">{ error_text(lang, e) }</span> }
        </div>
    }
}

/// Reads a dropped or chosen file: a weights file by its header ([`read_weights`]), anything
/// else as a config.json, which goes into the state whole (the link carries it).
fn read_file(
    app: &crate::Ctx,
    reader: &RefCell<Option<gloo::file::callbacks::FileReader>>,
    header: &Header,
    file: web_sys::File,
) {
    let app = app.clone();
    if weights_file::is_weights(&file.name()) {
        read_weights(app, header.clone(), file);
        return;
    }
    header.set(None);
    // A config.json is a few kilobytes: a large file is refused unread.
    let size = file.size();
    if size > vramfit::config::MAX_CONFIG_BYTES as f64 {
        header.set(Some(Err(InputError::new(
            ErrorKind::ConfigJson,
            "config.json",
            format!(
                "the file has {} bytes",
                vramfit::estimate::thousands(size as u64)
            ),
            format!(
                "a config.json of at most {} bytes, or a .safetensors or .gguf file",
                vramfit::config::MAX_CONFIG_BYTES
            ),
        ))));
        return;
    }
    let file = gloo::file::File::from(file);
    let header = header.clone();
    let task = gloo::file::callbacks::read_as_text(&file, move |r| {
        let text = r.unwrap_or_default();
        // An empty file would clear the config and read as "none loaded": say what it is.
        if text.trim().is_empty() {
            header.set(Some(Err(InputError::new(
                ErrorKind::ConfigJson,
                "config.json",
                "the file is empty",
                "a Hugging Face config.json (a JSON object with model_type, hidden_size, …)",
            ))));
            return;
        }
        // Keep it compact in the URL: re-serialised without whitespace when it is JSON.
        let compact = serde_json::from_str::<serde_json::Value>(&text)
            .map(|v| v.to_string())
            .unwrap_or(text);
        app.dispatch(Action::SetExtra("config".into(), compact));
    });
    *reader.borrow_mut() = Some(task);
}

/// Reads a weights file's header: the model it gives goes into the state (a GGUF file to
/// llama.cpp), or its parameter count when the estimator knows no layout of it.
fn read_weights(app: crate::Ctx, header: Header, file: web_sys::File) {
    wasm_bindgen_futures::spawn_local(async move {
        let got = weights_file::read(&file).await;
        match &got {
            Ok(weights_file::Summary {
                model: Some(m),
                format,
                ..
            }) => {
                app.dispatch(Action::SetExtra("config".into(), weights_file::to_extra(m)));
                // A GGUF file is what llama.cpp runs (transformers would
                // dequantize it).
                if *format == "gguf" {
                    app.dispatch(Action::Set("engine".into(), "llamacpp".into()));
                }
            }
            // No layout the estimator knows: estimate from the parameter count.
            Ok(sum) => app.dispatch(Action::SetMany(vec![
                ("source".into(), "params".into()),
                ("params".into(), sum.params.to_string()),
            ])),
            Err(_) => {}
        }
        header.set(Some(got));
    });
}

/// What the last weights file's header said: its size, tensors and parameters by type.
fn header_info(lang: Lang, header: Option<&Result<weights_file::Summary, InputError>>) -> Html {
    match header {
        Some(Ok(h)) => html! {
            <p class="hint" id="header-info" data-params={h.params.to_string()}>
                { lang.f(key!("calc.header_info"), &[h.format, &vramfit::Bytes::new(h.read_bytes).display_auto(), &vramfit::Bytes::new(h.file_bytes).display_auto(), &vramfit::estimate::thousands(h.tensors), &vramfit::estimate::thousands(h.params)]) }
                <br />
                { h.by_type.iter().map(|t| format!("{} {}", t.dtype, vramfit::estimate::thousands(t.params))).collect::<Vec<_>>().join(" · ") }
                if h.model.is_none() { <><br />{ lang.t(key!("calc.header_no_layout")) }</> }
            </p>
        },
        Some(Err(e)) => {
            html! { <span class="err" role="alert" id="header-error">{ error_text(lang, e) }</span> }
        }
        None => html! {},
    }
}

/// The config.json in use: its model type and size and the estimator's notes on it, or why it
/// cannot be read, or a hint when none is loaded.
fn config_info(lang: Lang, parsed: Option<Result<ParsedConfig, InputError>>) -> Html {
    match parsed {
        Some(Ok(c)) => html! {
            <p class="hint" id="config-info">
                { lang.f(key!("calc.config_info"), &[&c.model_type, &format::params(c.arch.params())]) }
                { for (if lang.is_zh() && c.notes_zh.len() == c.notes.len() { &c.notes_zh } else { &c.notes }).iter().map(|n| html! { <><br />{ n }</> }) }
            </p>
        },
        Some(Err(e)) => html! { <span class="err" role="alert">{ error_text(lang, &e) }</span> },
        None => html! { <span class="hint">{ lang.t(key!("calc.drop_hint")) }</span> },
    }
}
