//! "Your training config": a fine-tuning stack's own file (TRL, Trainer, DeepSpeed, torchtune,
//! LLaMA-Factory, axolotl, accelerate), pasted, dropped or chosen, read onto the form by the estimator's
//! `stack_config` (the CLI's `--config`): the fields it sets change in the form, and the keys not
//! read, what it assumed and the files it names are shown. Read here, never uploaded; the full
//! build's (training is).

use vramfit::InputError;
use vramfit::estimate::EstimateInput;
use vramfit::stack_config::{ConfigFormat, ReadConfig, read_training_config};
use yew::prelude::*;

use super::field::error_text;
use crate::i18n::Lang;
use crate::state::Action;
use crate::{compute, fields, use_app};

/// The panel: the text, a file to choose, the Read button and what the last reading said.
#[function_component(TrainingConfig)]
pub fn training_config() -> Html {
    let app = use_app();
    let lang = app.lang;
    let text = use_state(String::new);
    let read = use_state(|| None::<Result<ReadConfig, InputError>>);
    let reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);
    let over = use_state(|| false);
    let apply = {
        let (app, read) = (app.clone(), read.clone());
        move |t: &str| {
            let current = compute::input_with(&app, &[]).unwrap_or_default();
            let got = read_training_config(t, current.clone());
            if let Ok(r) = &got {
                app.dispatch(Action::SetMany(changes(&current, &r.input)));
            }
            read.set(Some(got));
        }
    };
    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            let area = e.target_unchecked_into::<web_sys::HtmlTextAreaElement>();
            text.set(area.value());
        })
    };
    let onclick = {
        let (text, apply) = (text.clone(), apply.clone());
        Callback::from(move |_| apply(&text))
    };
    // A file dropped on the panel or chosen: its text shown and read at once.
    let load = {
        let text = text.clone();
        move |f: web_sys::File| {
            let (text, apply) = (text.clone(), apply.clone());
            let file = gloo::file::File::from(f);
            let task = gloo::file::callbacks::read_as_text(&file, move |r| {
                let t = r.unwrap_or_default();
                apply(&t);
                text.set(t);
            });
            *reader.borrow_mut() = Some(task);
        }
    };
    let onchange = {
        let load = load.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<web_sys::HtmlInputElement>();
            if let Some(f) = input.files().and_then(|f| f.get(0)) {
                load(f);
            }
        })
    };
    let ondrop = {
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
    html! {
        <details class="field" id="training-config" open={read.is_some()}>
            <summary>{ lang.t(key!("tc.title")) }</summary>
            <p class="hint">{ lang.t(key!("tc.hint")) }</p>
            <div class="drop" data-over={(*over).then_some("true")} {ondrop} {ondragover} {ondragleave} id="training-config-drop">
                <label for="f-training-config">{ lang.t(key!("tc.text")) }</label>
                <textarea id="f-training-config" rows="6" spellcheck="false" value={(*text).clone()} {oninput} />
                <div class="row">
                    <input type="file" id="f-training-config-file" aria-label={lang.t(key!("tc.file"))} accept=".yaml,.yml,.json,application/json" {onchange} />
                    <button type="button" id="training-config-read" {onclick}>{ lang.t(key!("tc.read")) }</button>
                </div>
            </div>
            { summary(lang, read.as_ref()) }
        </details>
    }
}

/// The form's fields that `read` sets differently from `current`, as the form writes them;
/// the model by its preset id when the file names one.
fn changes(current: &EstimateInput, read: &EstimateInput) -> Vec<(String, String)> {
    let (before, after) = (fields::form_texts(current), fields::form_texts(read));
    let mut out: Vec<(String, String)> = after
        .into_iter()
        .zip(before)
        .filter(|((k, a), (_, b))| !matches!(*k, "source" | "model" | "params") && a != b)
        .map(|((k, a), _)| (k.to_string(), a))
        .collect();
    if let Some(id) = read
        .model
        .model
        .as_ref()
        .filter(|m| read.model.model != current.model.model && !m.is_empty())
    {
        out.push(("source".into(), "preset".into()));
        out.push(("model".into(), id.clone()));
    }
    out
}

/// What the last reading said: the stack, the keys not read, the assumptions, the files named;
/// or the error, naming the key and its line.
fn summary(lang: Lang, read: Option<&Result<ReadConfig, InputError>>) -> Html {
    let r = match read {
        None => return Html::default(),
        Some(Err(e)) => {
            return html! { <span class="err" role="alert" id="training-config-error">{ error_text(lang, e) }</span> };
        }
        Some(Ok(r)) => r,
    };
    let not_read = if r.not_read.is_empty() {
        lang.t(key!("tc.none")).to_string()
    } else {
        r.not_read
            .iter()
            .map(|k| line_words(lang, k))
            .collect::<Vec<_>>()
            .join(if lang.is_zh() { "、" } else { ", " })
    };
    html! {
        <div class="hint" id="training-config-read-as" data-format={format_id(r.format)}>
            <p>{ lang.f(key!("tc.read_as"), &[format_name(lang, r.format)]) }</p>
            <p id="training-config-not-read">{ lang.f(key!("tc.not_read"), &[&not_read]) }</p>
            { for r.assumed.iter().map(|a| html! {
                <p>{ lang.f(key!("tc.assumed"), &[if lang.is_zh() { &a.zh } else { &a.en }]) }</p>
            }) }
            { for r.files.iter().map(|f| html! {
                <p>{ lang.f(key!("tc.names"), &[&f.path, &f.key]) }</p>
            }) }
        </div>
    }
}

/// `key (line N)` in the page's language.
fn line_words(lang: Lang, entry: &str) -> String {
    match entry.rsplit_once(" (line ") {
        Some((key, n)) if lang.is_zh() => format!("{key}（第 {} 行）", n.trim_end_matches(')')),
        _ => entry.to_string(),
    }
}

/// The stack's name in words.
fn format_name(lang: Lang, f: ConfigFormat) -> &'static str {
    lang.t(match f {
        ConfigFormat::Trainer => key!("tc.format.trainer"),
        ConfigFormat::Trl => key!("tc.format.trl"),
        ConfigFormat::Deepspeed => key!("tc.format.deepspeed"),
        ConfigFormat::Torchtune => key!("tc.format.torchtune"),
        ConfigFormat::Llamafactory => key!("tc.format.llamafactory"),
        ConfigFormat::Axolotl => key!("tc.format.axolotl"),
        ConfigFormat::Accelerate => key!("tc.format.accelerate"),
        ConfigFormat::Verl => key!("tc.format.verl"),
    })
}

/// The stack's id, for tests and styles.
fn format_id(f: ConfigFormat) -> &'static str {
    match f {
        ConfigFormat::Trainer => "trainer",
        ConfigFormat::Trl => "trl",
        ConfigFormat::Deepspeed => "deepspeed",
        ConfigFormat::Torchtune => "torchtune",
        ConfigFormat::Llamafactory => "llamafactory",
        ConfigFormat::Axolotl => "axolotl",
        ConfigFormat::Accelerate => "accelerate",
        ConfigFormat::Verl => "verl",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vramfit::estimate::{Mode, ModelInput, Precision, RunInput};

    /// A TRL file read onto the form changes exactly the fields it sets differently, the model
    /// by its preset, in the form's own texts.
    #[test]
    fn a_reading_changes_the_fields_it_sets() {
        let current = EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.1-8B".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Training,
                ..Default::default()
            },
            ..Default::default()
        };
        let r = read_training_config(
            "model_name_or_path: Qwen/Qwen3-8B\nper_device_train_batch_size: 2\nmax_length: 4096\nbf16: true\ngradient_checkpointing: false\n",
            {
                let mut input = current.clone();
                input.model.model = None;
                input
            },
        );
        let r = match r {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(r.input.training.precision, Precision::AmpBf16);
        let mut got = changes(&current, &r.input);
        got.sort();
        let want: Vec<(String, String)> = [
            ("batch", "2"),
            ("fused_optimizer", "true"),
            ("model", "Qwen/Qwen3-8B"),
            ("seq_len", "4096"),
            ("source", "preset"),
            ("stack", "trl"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn lines_are_said_in_chinese() {
        assert_eq!(line_words(Lang::Zh, "a.b (line 12)"), "a.b（第 12 行）");
        assert_eq!(line_words(Lang::En, "a.b (line 12)"), "a.b (line 12)");
    }
}

#[cfg(test)]
mod roundtrip {
    use super::*;

    /// The form's texts of a reading read back give the reading's input (what the page then
    /// estimates is what the CLI's --config estimates).
    #[test]
    fn the_form_reads_back_the_reading() {
        let r = read_training_config(
            "model_name_or_path: Qwen/Qwen3-8B\nper_device_train_batch_size: 2\nmax_length: 2048\nuse_peft: true\nlora_r: 16\nload_in_4bit: true\nlearning_rate: 2.0e-4\n",
            EstimateInput::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let texts = fields::form_texts(&r.input);
        let value = |k: &str| {
            if k == "model" {
                return "Qwen/Qwen3-8B".to_string();
            }
            texts
                .iter()
                .find(|(key, _)| *key == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let back = fields::to_input(&value, None).unwrap_or_else(|e| panic!("{e}"));
        let a = serde_json::to_value(&back).unwrap_or_default();
        let b = serde_json::to_value(&r.input).unwrap_or_default();
        assert_eq!(a, b);
    }
}
