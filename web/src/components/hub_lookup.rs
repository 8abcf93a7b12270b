//! The calculator's model looked up on a hub (full build only: a calculator build hands the
//! `hub` source over to it). Nothing is fetched until the person presses Look up: choosing the
//! source, typing a repo or opening a link fetches nothing; a model looked up before in this
//! browser comes back from its cache. The hubs are offered in a list; one the page cannot reach
//! is named as such, with the command line that reads it.

use std::rc::Rc;

use vramfit::InputError;
use vramfit::hub::HubModel;
use yew::prelude::*;

use super::field::error_text;
use crate::hub::{self, Cache};
use crate::state::Action;
use crate::{hooks, use_app};

/// Where the lookup stands.
#[derive(Clone, PartialEq)]
enum Status {
    /// Not looked up in this browser: the button.
    Idle,
    /// The requests are under way.
    Looking,
    /// Read just now (`false`) or from the cache (`true`).
    Read(bool),
    /// It failed: why, and what to do; `true` when the page could not reach the hub.
    Failed(Rc<InputError>, bool),
}

/// The lookup's form and what it read.
#[function_component(HubLookup)]
pub fn hub_lookup() -> Html {
    let app = use_app();
    let lang = app.lang;
    let repo = app.value("model");
    let endpoint = use_state(|| hooks::local_get(hub::ENDPOINT_KEY).unwrap_or_default());
    let status = use_state(|| Status::Idle);
    // The model the state holds, if it is this repo's on this hub.
    let hub_now = hub::hub_at(&endpoint).ok();
    let model = hub::from_extra(app.extra("config")).filter(|m| {
        Some(&m.hub) == hub_now.as_ref()
            && m.repo == vramfit::hub::repo_id(&repo).unwrap_or_default()
    });

    let look_up = look_up(&app, &status, &endpoint);

    // A repo or a hub newly named: its model from this browser's cache, else none (the estimate
    // says it is not looked up yet). Never a request: only the button makes one.
    {
        let app = app.clone();
        let status = status.clone();
        use_effect_with(
            (repo.clone(), (*endpoint).clone()),
            move |(repo, endpoint)| {
                let id = vramfit::hub::repo_id(repo).ok();
                let cached = hub::hub_at(endpoint).ok().zip(id).and_then(|(h, id)| {
                    Cache::read(hooks::local_get(hub::CACHE_KEY).as_deref()).get(&h.endpoint, &id)
                });
                match cached {
                    Some(m) => {
                        show(&app, &m);
                        status.set(Status::Read(true));
                    }
                    None => {
                        if hub::from_extra(app.extra("config")).is_some() {
                            app.dispatch(Action::SetExtra("config".into(), String::new()));
                        }
                        status.set(Status::Idle);
                    }
                }
            },
        );
    }

    let oninput = {
        let app = app.clone();
        Callback::from(move |e: InputEvent| {
            app.dispatch(Action::Set("model".into(), super::field::input_value(&e)));
        })
    };
    let set_endpoint = {
        let endpoint = endpoint.clone();
        Callback::from(move |v: String| {
            let v = v.trim().trim_end_matches('/').to_string();
            hooks::local_set(hub::ENDPOINT_KEY, (!v.is_empty()).then_some(v.as_str()));
            endpoint.set(v);
        })
    };
    let onchange = {
        let set = set_endpoint.clone();
        Callback::from(move |e: Event| {
            set.emit(
                e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            )
        })
    };
    let onclick = {
        let repo = repo.clone();
        Callback::from(move |_| look_up(repo.clone()))
    };
    let host = hub_now
        .as_ref()
        .map_or_else(|| endpoint.to_string(), |h| h.endpoint.clone());
    let looking = *status == Status::Looking;
    // The estimate's weights, to compare with the checkpoint's (one GPU's whole copy).
    let weights = use_memo((app.calc.clone(), app.extra.get("config").cloned()), {
        let s = (*app).clone();
        move |_| {
            crate::compute::estimate_of(&s)
                .ok()
                .filter(|e| e.gpus == 1)
                .map(|e| e.weights_bytes.get())
        }
    });
    html! {
        <div class="field" id="hub">
            <label for="f-model">{ lang.t(key!("hub.repo")) }</label>
            <input type="text" id="f-model" name="model" value={repo.clone()} {oninput} autocomplete="off" spellcheck="false" />
            <span class="label" id="hub-list-label">{ lang.t(key!("hub.endpoint")) }</span>
            { hub_list(&set_endpoint, &host) }
            <label for="f-hub-endpoint">{ lang.t(key!("hub.other")) }</label>
            <input type="url" id="f-hub-endpoint" placeholder={hub::ENDPOINTS[0]}
                value={(*endpoint).clone()} {onchange} aria-describedby="f-hub-endpoint-hint" />
            <span class="hint" id="f-hub-endpoint-hint">{ lang.t(key!("hub.endpoint_hint")) }</span>
            <button type="button" id="hub-lookup" {onclick} disabled={looking}>
                { lang.t(if model.is_some() { key!("hub.refresh") } else { key!("hub.lookup") }) }
            </button>
            <span class="hint" id="hub-privacy">{ lang.f(key!("hub.privacy"), &[&host]) }</span>
            { status_view(lang, &status, model.as_ref(), &host, hub_now.as_ref(), &repo, *weights) }
        </div>
    }
}

/// The lookup the button starts: the hub's answer into the state and this browser's cache, or
/// why it failed (and whether the page could not reach the hub).
fn look_up(
    app: &crate::Ctx,
    status: &UseStateHandle<Status>,
    endpoint: &UseStateHandle<String>,
) -> Rc<dyn Fn(String)> {
    let (app, status, endpoint) = (app.clone(), status.clone(), endpoint.clone());
    Rc::new(move |repo: String| {
        let h = match hub::hub_at(&endpoint) {
            Ok(h) => h,
            Err(e) => return status.set(Status::Failed(Rc::new(e), false)),
        };
        status.set(Status::Looking);
        let (app, status) = (app.clone(), status.clone());
        wasm_bindgen_futures::spawn_local(async move {
            match hub::fetch::look_up(&h, &repo, None).await {
                Ok(m) => {
                    let mut cache = Cache::read(hooks::local_get(hub::CACHE_KEY).as_deref());
                    cache.put(&m);
                    hooks::local_set(hub::CACHE_KEY, Some(&cache.text()));
                    show(&app, &m);
                    status.set(Status::Read(false));
                }
                Err(f) => status.set(Status::Failed(Rc::new(f.error), f.unreachable)),
            }
        });
    })
}

/// The well-known hubs as buttons, the one in use pressed.
fn hub_list(set_endpoint: &Callback<String>, host: &str) -> Html {
    html! {
        <div class="seg" role="group" aria-labelledby="hub-list-label" id="hub-list">
            { for hub::ENDPOINTS.iter().map(|e| {
                let set = set_endpoint.clone();
                let pressed = host == *e;
                html! {
                    <button type="button" data-hub={*e} aria-pressed={pressed.to_string()}
                        onclick={Callback::from(move |_| set.emit(e.to_string()))}>
                        { e.strip_prefix("https://").unwrap_or(e) }
                    </button>
                }
            }) }
        </div>
    }
}

/// Where the lookup stands: looking, failed (with the CLI command when the page could not reach
/// the hub), what was read, or not looked up yet.
fn status_view(
    lang: crate::i18n::Lang,
    status: &Status,
    model: Option<&HubModel>,
    host: &str,
    hub_now: Option<&vramfit::hub::Hub>,
    repo: &str,
    weights: Option<u64>,
) -> Html {
    match (status, model) {
        (Status::Looking, _) => {
            html! { <p class="hint" role="status" id="hub-status">{ lang.f(key!("hub.looking"), &[host]) }</p> }
        }
        (Status::Failed(e, unreachable), _) => html! {
            <>
                <span class="err" role="alert" id="hub-error">{ error_text(lang, e) }</span>
                if *unreachable {
                    <p class="hint" id="hub-cli">
                        { lang.f(key!("hub.unreachable"), &[host]) }{ " " }
                        <code>{ hub_now.map(|h| hub::cli_command(h, repo)).unwrap_or_default() }</code>
                    </p>
                }
            </>
        },
        (Status::Read(cached), Some(m)) => read(lang, m, *cached, weights),
        _ => html! { <p class="hint" id="hub-status">{ lang.t(key!("hub.not_cached")) }</p> },
    }
}

/// The model into the state: the calculator's model, and llama.cpp for a GGUF file.
fn show(app: &crate::Ctx, m: &HubModel) {
    app.dispatch(Action::SetExtra("config".into(), hub::to_extra(m)));
    if m.is_gguf() {
        app.dispatch(Action::Set("engine".into(), "llamacpp".into()));
    }
}

/// What was read, the checkpoint exactly, and the notes.
fn read(lang: crate::i18n::Lang, m: &HubModel, cached: bool, weights: Option<u64>) -> Html {
    let bytes = |n: u64| vramfit::Bytes::new(n).display_auto();
    let thousands = vramfit::estimate::thousands;
    let checkpoint = m.checkpoint.as_ref().map(|c| {
        let types: Vec<String> = c
            .by_dtype
            .iter()
            .map(|t| format!("{} {}", t.dtype, t.bytes.map_or_else(|| "?".into(), bytes)))
            .collect();
        let compared = weights.map(|w| {
            let text = if w == c.bytes {
                lang.t(key!("hub.weights_exact")).to_string()
            } else {
                lang.f(key!("hub.weights_differ"), &[&bytes(w), &bytes(w.abs_diff(c.bytes))])
            };
            html! { <><br /><span id="hub-weights" data-bytes={w.to_string()}>{ text }</span></> }
        });
        html! {
            <><br /><span id="hub-checkpoint" data-bytes={c.bytes.to_string()} data-params={c.params.to_string()}>
                { lang.f(key!("hub.checkpoint"), &[&c.format, &thousands(c.tensors), &thousands(c.params), &bytes(c.bytes), &types.join(" · ")]) }
            </span>{ for compared }</>
        }
    });
    html! {
        <p class="hint" id="hub-info" data-repo={m.repo.clone()}>
            if cached { { lang.f(key!("hub.cached"), &[&m.hub.endpoint]) }<br /> }
            { lang.f(key!("hub.read"), &[&m.hub.endpoint, &m.files_read.join(", "), &bytes(m.bytes_read)]) }
            { for checkpoint }
            { for m.notes(lang.is_zh()).iter().map(|n| html! { <><br />{ n }</> }) }
        </p>
    }
}
