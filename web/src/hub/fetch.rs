//! The lookup's requests with the browser's `fetch`: `vramfit::hub::Lookup` says what to read
//! (the file list, `config.json`, the weights' headers by HTTP Range, never the weights) and
//! judges each answer; this makes the requests, one at a time. The CLI does the same with its
//! HTTP client (`crates/vramfit-cli/src/hub.rs`).

use std::cell::Cell;
use std::rc::Rc;

use js_sys::Uint8Array;
use vramfit::InputError;
use vramfit::hub::{self, Failure, Hub, HubModel, Lookup, Reply, Request};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Why a lookup failed: the error, and whether the page could not reach the hub at all (the
/// browser's `TypeError`: the network, the hub's refusal of another site's page, or the page's
/// policy), which the command line can do instead.
pub struct Failed {
    /// The error, naming the repo and what to do.
    pub error: InputError,
    /// The page could not reach the hub.
    pub unreachable: bool,
}

/// Looks `repo` up on `hub` (`file`: the GGUF file chosen, if any); `repo` may also be a GGUF
/// file's address or a Hugging Face file link on a host the page reaches ([`super::target_at`]).
pub async fn look_up(hub: &Hub, repo: &str, file: Option<&str>) -> Result<HubModel, Failed> {
    let failed = |error, unreachable| Failed { error, unreachable };
    let t = super::target_at(hub, repo).map_err(|e| failed(e, false))?;
    let file = file.or(t.file.as_deref());
    let mut l = Lookup::new(&t.hub, &t.repo, file).map_err(|e| failed(e, false))?;
    let mut unreachable = false;
    while let Some(r) = l.request().cloned() {
        let reply = get(&r).await.unwrap_or_else(Reply::Failed);
        unreachable |= matches!(reply, Reply::Failed(Failure::Network(_)));
        l.answer(reply).map_err(|e| failed(e, unreachable))?;
    }
    l.finish().map_err(|e| failed(e, unreachable))
}

/// What the browser says about a request that failed (a `TypeError` that, by design, does not
/// tell a network failure from a refused cross-origin answer or the page's policy).
fn network(e: JsValue) -> Failure {
    let m = js_sys::Reflect::get(&e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_default();
    Failure::Network(format!(
        "{m} (the network, the hub's cross-origin answer or the page's security policy)"
    ))
}

/// One GET, within [`hub::TIMEOUT_SECS`]; a body is read only for a status of 200 or 206, and a
/// 200 to a request for a range (a hub that ignores it) is refused unread.
async fn get(r: &Request) -> Result<Reply, Failure> {
    let init = web_sys::RequestInit::new();
    init.set_method("GET");
    init.set_referrer_policy(web_sys::ReferrerPolicy::NoReferrer);
    let headers = web_sys::Headers::new().map_err(network)?;
    if let Some((a, b)) = r.range {
        headers
            .set("Range", &format!("bytes={a}-{b}"))
            .map_err(network)?;
    }
    if let Some(accept) = r.accept {
        headers.set("Accept", accept).map_err(network)?;
    }
    init.set_headers(&headers);
    let ctrl = web_sys::AbortController::new().map_err(network)?;
    init.set_signal(Some(&ctrl.signal()));
    let timed_out = Rc::new(Cell::new(false));
    let _timer = {
        let timed_out = timed_out.clone();
        gloo::timers::callback::Timeout::new((hub::TIMEOUT_SECS * 1000) as u32, move || {
            timed_out.set(true);
            ctrl.abort();
        })
    };
    let failed = |e: JsValue| {
        if timed_out.get() {
            Failure::Timeout(hub::TIMEOUT_SECS)
        } else {
            network(e)
        }
    };
    let resp = JsFuture::from(gloo::utils::window().fetch_with_str_and_init(&r.url, &init))
        .await
        .map_err(failed)?;
    let resp: web_sys::Response = resp.unchecked_into();
    let status = resp.status();
    let header = |k: &str| resp.headers().get(k).ok().flatten();
    let total = header("content-range")
        .and_then(|c| c.rsplit('/').next().and_then(|t| t.trim().parse().ok()));
    if status == 200 && r.range.is_some() {
        // A hub that ignores the range would send the whole file: not downloaded.
        if let Some(b) = resp.body() {
            let _ = b.cancel();
        }
        return Err(Failure::Unreadable(String::from(
            "it ignored the byte range asked for",
        )));
    }
    let mut body = Vec::new();
    if status == 200 || status == 206 {
        let buf = resp.array_buffer().map_err(network)?;
        let buf = JsFuture::from(buf).await.map_err(failed)?;
        body = Uint8Array::new(&buf).to_vec();
    } else if let Some(b) = resp.body() {
        let _ = b.cancel();
    }
    Ok(Reply::Http {
        status,
        code: header("x-error-code"),
        retry_after: header("retry-after").and_then(|s| s.trim().parse().ok()),
        total,
        body,
    })
}
