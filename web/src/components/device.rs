//! This device: what WebGPU says about the local GPU. Browsers never report the GPU's memory
//! size, and vramfit never guesses one: the memory shown comes only from a catalog card that
//! the adapter's name matches, or that the user picks.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

use crate::route::View;
use crate::state::Action;
use crate::use_app;

/// The adapter limits shown (WebGPU names), in this order.
const LIMITS: &[&str] = &[
    "maxBufferSize",
    "maxStorageBufferBindingSize",
    "maxTextureDimension2D",
    "maxComputeWorkgroupStorageSize",
    "maxComputeInvocationsPerWorkgroup",
    "maxComputeWorkgroupSizeX",
    "maxBindGroups",
];

/// What the browser answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// Still asking.
    Asking,
    /// No `navigator.gpu`.
    NoApi,
    /// `requestAdapter()` gave `null` (or failed).
    NoAdapter,
    /// An adapter.
    Adapter(AdapterInfo),
}

/// The adapter's self-description.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AdapterInfo {
    /// `info.vendor`.
    pub vendor: String,
    /// `info.architecture`.
    pub architecture: String,
    /// `info.device`.
    pub device: String,
    /// `info.description`.
    pub description: String,
    /// `isFallbackAdapter` (a software adapter).
    pub fallback: bool,
    /// Limits by WebGPU name.
    pub limits: Vec<(String, f64)>,
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn text(v: &JsValue, key: &str) -> String {
    get(v, key).as_string().unwrap_or_default()
}

/// Asks the browser, through `navigator.gpu.requestAdapter()`.
pub async fn query() -> Answer {
    let Some(window) = web_sys::window() else {
        return Answer::NoApi;
    };
    let gpu = get(&window.navigator(), "gpu");
    if gpu.is_undefined() || gpu.is_null() {
        return Answer::NoApi;
    }
    let Ok(request) = get(&gpu, "requestAdapter").dyn_into::<Function>() else {
        return Answer::NoApi;
    };
    let Ok(promise) = request.call0(&gpu).and_then(|p| p.dyn_into::<Promise>()) else {
        return Answer::NoAdapter;
    };
    let adapter = match JsFuture::from(promise).await {
        Ok(a) if !a.is_null() && !a.is_undefined() => a,
        _ => return Answer::NoAdapter,
    };
    // `adapter.info` (current browsers); `requestAdapterInfo()` in older ones.
    let mut info = get(&adapter, "info");
    if info.is_undefined()
        && let Ok(f) = get(&adapter, "requestAdapterInfo").dyn_into::<Function>()
        && let Ok(p) = f.call0(&adapter).and_then(|p| p.dyn_into::<Promise>())
    {
        info = JsFuture::from(p).await.unwrap_or(JsValue::UNDEFINED);
    }
    let fallback = get(&info, "isFallbackAdapter")
        .as_bool()
        .or_else(|| get(&adapter, "isFallbackAdapter").as_bool())
        .unwrap_or(false);
    let limits_obj = get(&adapter, "limits");
    let limits = LIMITS
        .iter()
        .filter_map(|&name| {
            get(&limits_obj, name)
                .as_f64()
                .map(|v| (name.to_string(), v))
        })
        .collect();
    Answer::Adapter(AdapterInfo {
        vendor: text(&info, "vendor"),
        architecture: text(&info, "architecture"),
        device: text(&info, "device"),
        description: text(&info, "description"),
        fallback,
        limits,
    })
}

/// The view.
#[function_component(DeviceView)]
pub fn device_view() -> Html {
    let app = use_app();
    let lang = app.lang;
    let answer = use_state(|| Answer::Asking);
    {
        let answer = answer.clone();
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move { answer.set(query().await) });
        });
    }
    let or_dash = |s: &str| {
        if s.is_empty() {
            "—".to_string()
        } else {
            s.to_string()
        }
    };
    let body = match &*answer {
        Answer::Asking => {
            html! { <p id="webgpu-status" data-state="asking">{ lang.t(key!("device.querying")) }</p> }
        }
        Answer::NoApi => {
            html! { <p id="webgpu-status" data-state="no-api" class="notice">{ lang.t(key!("device.no_gpu_api")) }</p> }
        }
        Answer::NoAdapter => {
            html! { <p id="webgpu-status" data-state="no-adapter" class="notice">{ lang.t(key!("device.no_adapter")) }</p> }
        }
        Answer::Adapter(a) => html! {
            <section id="webgpu-status" data-state="adapter" class="panel">
                <h2>{ lang.t(key!("device.adapter")) }</h2>
                <dl class="kv">
                    <dt>{ lang.t(key!("device.vendor")) }</dt><dd id="gpu-vendor">{ or_dash(&a.vendor) }</dd>
                    <dt>{ lang.t(key!("device.architecture")) }</dt><dd id="gpu-arch">{ or_dash(&a.architecture) }</dd>
                    <dt>{ lang.t(key!("device.description")) }</dt><dd id="gpu-desc">{ or_dash(&a.description) }{ if a.device.is_empty() { String::new() } else { format!(" ({})", a.device) } }</dd>
                    <dt>{ lang.t(key!("device.fallback")) }</dt><dd id="gpu-fallback" data-fallback={a.fallback.to_string()}>{ if a.fallback { lang.t(key!("device.yes")) } else { lang.t(key!("device.no")) } }</dd>
                </dl>
                <p id="gpu-memory" class="hint">{ lang.t(key!("device.no_memory")) }</p>
                <h3>{ lang.t(key!("device.limits")) }</h3>
                <dl class="kv" id="gpu-limits">
                    { for a.limits.iter().map(|(k, v)| html! { <><dt><code>{ k }</code></dt><dd>{ format!("{v}") }</dd></> }) }
                </dl>
            </section>
        },
    };
    // The card: the one the adapter's name matches, else the user's pick. Never a guess.
    let matched = match &*answer {
        Answer::Adapter(a) => {
            super::gpus::match_adapter(&format!("{} {}", a.description, a.device))
        }
        _ => None,
    };
    let picked = vramfit::hardware::find_gpu(app.extra("device_gpu"));
    let card = picked.or(matched);
    let on_pick = {
        let app = app.clone();
        Callback::from(move |e: Event| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value();
            app.dispatch(Action::SetExtra("device_gpu".into(), v));
        })
    };
    let use_href = card.map(|g| {
        let mut s = (*app).clone();
        s.calc.insert("gpu".into(), g.id.into());
        s.calc.remove("gpu_memory");
        s.hash_for(View::Calc)
    });
    let answered = !matches!(&*answer, Answer::Asking);
    html! {
        <>
            <h1>{ lang.t(key!("view.device")) }</h1>
            <p class="lead">{ lang.t(key!("device.intro")) }</p>
            { body }
            if answered {
                <section class="panel" id="device-card">
                    <h2>{ lang.t(key!("device.match")) }</h2>
                    if let Some(g) = matched {
                        <p id="matched" data-gpu={g.id}>{ lang.f(key!("device.matched"), &[g.name]) }</p>
                    } else if matches!(&*answer, Answer::Adapter(_)) {
                        <p id="matched" data-gpu="">{ lang.t(key!("device.no_match")) }</p>
                    }
                    <div class="field">
                        <label for="device-gpu">{ lang.t(key!("device.pick")) }</label>
                        <select id="device-gpu" onchange={on_pick}>
                            <option value="" selected={picked.is_none()}>{ lang.t(key!("device.pick_none")) }</option>
                            { super::gpus::options(app.extra("device_gpu")) }
                        </select>
                        <span class="hint">{ lang.t(key!("device.pick_hint")) }</span>
                    </div>
                    if let (Some(g), Some(href)) = (card, use_href) {
                        <p id="card-memory" data-bytes={g.memory.get().to_string()}>
                            { lang.f(key!("device.card_memory"), &[g.name, &crate::format::gib(g.memory), g.marketed_memory]) }
                        </p>
                        <a class="button primary" id="use-card" href={href}>{ lang.t(key!("device.use")) }</a>
                    }
                </section>
            }
        </>
    }
}
