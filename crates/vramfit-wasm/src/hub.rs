//! `HubLookup`: the crate's hub lookup (`vramfit::hub::Lookup`, a state machine without I/O)
//! for the package's `fetchModel` (`js/hub.js`), which makes each request with `fetch` and hands
//! the answer back. Every decision (the files, the ranges, the bounds, how each answer is read,
//! the errors' words) is the crate's, as in the CLI and the site.

use serde::Serialize;
use vramfit::estimate::{Engine, EstimateInput};
use vramfit::hub::{Failure, Hub, HubKind, HubModel, Lookup, Reply};
use vramfit::model::Architecture;
use vramfit::precision::{Dtype, Quantization};
use wasm_bindgen::prelude::*;

use crate::{js_err, to_js};

#[wasm_bindgen(typescript_custom_section)]
const HUB_TYPES: &str = r#"
/** One GET of a hub lookup: `HubLookup.request()`. */
export interface HubRequest {
  url: string;
  /** The repo's file it reads (`""`: the file list). */
  file: string;
  /** `Range: bytes=A-B`, or the whole file. */
  range: [number, number] | null;
  /** The most body bytes the lookup reads: read at most one more, then stop. */
  limit: number;
  /** The `Accept` header to send, where the server needs one. */
  accept?: string;
}

/** What a looked-up model sets of `estimate`'s input, as the CLI's `--hub` sets it. */
export interface HubInput {
  arch: Architecture;
  /** The checkpoint's own dtype, which `dtype` left out resolves from by the engine's rule. */
  checkpoint_dtype?: Dtype;
  quantization?: Quantization;
  /** `ollama` for a registry tag, `llamacpp` for a GGUF file. */
  engine?: Engine;
}

/**
 * A lookup under way (what `fetchModel` drives): `request()` says what to fetch next, `answer()`
 * or `failed()` takes what came of it, `finish()` gives the model; `free()` once done. Declared
 * here rather than by wasm-bindgen so that its type needs no `Symbol.dispose` (ES2025's).
 */
export class HubLookup {
  /**
   * A lookup of `text`: a repo id or its address on a hub, a GGUF file's address, or (with
   * `hub: "ollama"`) an Ollama tag; `endpoint` the hub's address, `file` a GGUF file of several.
   */
  constructor(text: string, hub?: string | null, endpoint?: string | null, file?: string | null);
  /** The request to make next; `undefined` once everything is read. */
  request(): HubRequest | undefined;
  /** The answer to the last request (the body for a status of 200 or 206). */
  answer(status: number, code: string | null | undefined, retry_after: number | null | undefined, total: number | null | undefined, body: Uint8Array): void;
  /** No answer came: `"timeout"` after `seconds`, or `"network"` with the browser's words. */
  failed(kind: "timeout" | "network", detail: string, seconds: number): void;
  /** The model, once every request is answered. */
  finish(): FoundModel;
  /** Frees the lookup's memory in the module. */
  free(): void;
}

/** A model looked up: the `hub` object of `vramfit estimate --hub --json`, and `input`. */
export interface FoundModel extends HubModel {
  /** The model as `estimate`'s input: `estimate({ ...m.input, mode: "serve", gpu: "h100" })`. */
  input: HubInput;
}
"#;

#[wasm_bindgen]
extern "C" {
    /// `HubRequest` in TypeScript.
    #[wasm_bindgen(typescript_type = "HubRequest | undefined")]
    pub type JsHubRequest;
    /// `FoundModel` in TypeScript.
    #[wasm_bindgen(typescript_type = "FoundModel")]
    pub type JsFoundModel;
}

/// A lookup under way: `request()` says what to fetch next, `answer()` or `failed()` takes
/// what came of it, and `finish()` gives the model. Its TypeScript is written above.
#[wasm_bindgen(skip_typescript)]
pub struct HubLookup {
    /// `None` once finished.
    lookup: Option<Lookup>,
}

/// One GET, as `hub.js` makes it.
#[derive(Serialize)]
struct HubRequest<'a> {
    url: &'a str,
    /// The repo's file it reads (`""`: the file list).
    file: &'a str,
    /// `Range: bytes=A-B`, or the whole file.
    range: Option<[u64; 2]>,
    /// The most body bytes the lookup reads: read at most one more, then stop.
    limit: u64,
    /// The `Accept` header to send, where the server needs one.
    #[serde(skip_serializing_if = "Option::is_none")]
    accept: Option<&'static str>,
}

/// What a looked-up model sets of `estimate`'s input, as the CLI's `--hub` sets it.
#[derive(Serialize)]
struct HubInput {
    arch: Architecture,
    #[serde(skip_serializing_if = "Option::is_none")]
    checkpoint_dtype: Option<Dtype>,
    #[serde(skip_serializing_if = "Option::is_none")]
    quantization: Option<Quantization>,
    #[serde(skip_serializing_if = "Option::is_none")]
    engine: Option<Engine>,
}

impl HubInput {
    fn of(m: &HubModel) -> HubInput {
        let mut input = EstimateInput::default();
        m.fill(&mut input, false);
        HubInput {
            arch: m.model.arch,
            checkpoint_dtype: input.model.checkpoint_dtype,
            quantization: (input.model.quantization != Quantization::None)
                .then_some(input.model.quantization),
            engine: (input.run.engine != Engine::default()).then_some(input.run.engine),
        }
    }
}

#[wasm_bindgen]
impl HubLookup {
    /// A lookup of `text`: a repo id or its address on a hub, a GGUF file's address, or (with
    /// `hub: "ollama"`) an Ollama tag. `hub` names the kind, `endpoint` the address (the kind's
    /// own by default; without `hub`, the kind is read from the endpoint's host); `file`
    /// chooses a GGUF file of several.
    #[wasm_bindgen(constructor, skip_typescript)]
    pub fn new(
        text: &str,
        hub: Option<String>,
        endpoint: Option<String>,
        file: Option<String>,
    ) -> Result<HubLookup, JsValue> {
        let endpoint = endpoint.filter(|e| !e.trim().is_empty());
        let hub = match (hub.as_deref(), endpoint.as_deref()) {
            (Some(kind), e) => {
                let kind = HubKind::parse(kind).map_err(js_err)?;
                Some(Hub::new(kind, e.unwrap_or(kind.default_endpoint())).map_err(js_err)?)
            }
            (None, Some(e)) => Some(Hub::at(e).map_err(js_err)?),
            (None, None) => None,
        };
        let lookup = Lookup::of(text, hub.as_ref(), file.as_deref()).map_err(js_err)?;
        Ok(HubLookup {
            lookup: Some(lookup),
        })
    }

    /// The request to make next; `undefined` once everything is read.
    #[wasm_bindgen(skip_typescript)]
    pub fn request(&self) -> Result<JsHubRequest, JsValue> {
        let Some(r) = self.lookup.as_ref().and_then(Lookup::request) else {
            return Ok(JsValue::UNDEFINED.unchecked_into());
        };
        to_js(&HubRequest {
            url: &r.url,
            file: &r.file,
            range: r.range.map(|(a, b)| [a, b]),
            limit: r.limit,
            accept: r.accept,
        })
    }

    /// The server's answer to the last request: its status, `X-Error-Code`, `Retry-After` in
    /// seconds, the total of `Content-Range`, and the body (for a status of 200 or 206).
    #[wasm_bindgen(skip_typescript)]
    pub fn answer(
        &mut self,
        status: u16,
        code: Option<String>,
        retry_after: Option<f64>,
        total: Option<f64>,
        body: Vec<u8>,
    ) -> Result<(), JsValue> {
        let whole = |n: Option<f64>| n.filter(|n| n.is_finite() && *n >= 0.0).map(|n| n as u64);
        self.take(Reply::Http {
            status,
            code,
            retry_after: whole(retry_after),
            total: whole(total),
            body,
        })
    }

    /// No answer came: `"timeout"` after `seconds`, or `"network"` with the browser's words.
    #[wasm_bindgen(skip_typescript)]
    pub fn failed(&mut self, kind: &str, detail: String, seconds: f64) -> Result<(), JsValue> {
        let failure = if kind == "timeout" {
            Failure::Timeout(seconds.max(1.0).ceil() as u64)
        } else {
            Failure::Network(detail)
        };
        self.take(Reply::Failed(failure))
    }

    /// The model, once every request is answered, with its input to `estimate`.
    #[wasm_bindgen(skip_typescript)]
    pub fn finish(&mut self) -> Result<JsFoundModel, JsValue> {
        let lookup = self.lookup.take().ok_or_else(finished)?;
        let model = lookup.finish().map_err(js_err)?;
        // The model's own JSON (the CLI's `hub` object) with `input` beside its keys.
        let json = |e: serde_json::Error| JsValue::from(JsError::new(&format!("output: {e}")));
        let mut found = serde_json::to_value(&model).map_err(json)?;
        if let serde_json::Value::Object(keys) = &mut found {
            let input = serde_json::to_value(HubInput::of(&model)).map_err(json)?;
            keys.insert(String::from("input"), input);
        }
        to_js(&found)
    }
}

impl HubLookup {
    fn take(&mut self, reply: Reply) -> Result<(), JsValue> {
        let lookup = self.lookup.as_mut().ok_or_else(finished)?;
        lookup.answer(reply).map_err(js_err)
    }
}

fn finished() -> JsValue {
    JsError::new("hub: the lookup is finished").into()
}

/// The repo id `OWNER/NAME` in `text` (also a repo's address on a hub).
#[wasm_bindgen(js_name = repoId)]
pub fn repo_id(text: &str) -> Result<String, JsValue> {
    vramfit::hub::repo_id(text).map_err(js_err)
}
