//! The lookup's requests, with the browser's `fetch`, in the order `vramfit::hub` sets: the
//! file list, `config.json`, the weights' headers by HTTP Range (never the weights). The CLI's
//! `crates/vramfit-cli/src/hub.rs` does the same with its HTTP client.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::Uint8Array;
use vramfit::InputError;
use vramfit::headers::{GgufHeader, SafetensorsHeader};
use vramfit::hub::{self, Failure, GgufStep, Hub, HubModel, Weights};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Looks `repo` up on `hub` (`file`: the GGUF file chosen, if any).
pub async fn look_up(hub: &Hub, repo: &str, file: Option<&str>) -> Result<HubModel, InputError> {
    let repo = hub::repo_id(repo)?;
    let mut c = Client {
        hub,
        repo: &repo,
        files: Vec::new(),
        bytes: 0,
    };
    let list = c.text(&hub.list_url(&repo), "").await?;
    let listing = hub::read_listing(hub, &repo, &list)?;
    let plan = hub::plan(hub, &repo, &listing, file)?;
    let mut read = hub::Read::default();
    if plan.config {
        let text = c
            .text(&hub.file_url(&repo, "config.json"), "config.json")
            .await?;
        let parsed = vramfit::config::parse_config(&text)
            .map_err(|e| hub::in_file(hub, &repo, "config.json", &e, listing.params))?;
        read.config = Some(parsed);
    }
    match plan.weights {
        Weights::Index(index) => {
            let text = c.text(&hub.file_url(&repo, &index), &index).await?;
            let shards = hub::index_shards(hub, &repo, &text)?;
            read.safetensors = Some(c.safetensors(shards).await?);
        }
        Weights::Safetensors(files) => read.safetensors = Some(c.safetensors(files).await?),
        Weights::Gguf(files) => {
            let mut headers = Vec::new();
            for f in &files {
                let size = listing
                    .files
                    .iter()
                    .find(|x| &x.path == f)
                    .and_then(|x| x.size);
                headers.push(c.gguf(f, size).await?);
            }
            read.gguf = Some((files, headers));
        }
        Weights::None => {}
    }
    read.files_read = c.files;
    read.bytes_read = c.bytes;
    hub::assemble(hub, &repo, read, listing.params)
}

struct Client<'a> {
    hub: &'a Hub,
    repo: &'a str,
    files: Vec<String>,
    bytes: u64,
}

/// What the browser says about a request that failed (a `TypeError` that, by design, does not
/// tell a network failure from a refused cross-origin answer or the page's policy).
fn said(e: &JsValue) -> String {
    let m = js_sys::Reflect::get(e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_default();
    format!("{m} (the network, the hub's cross-origin answer or the page's security policy)")
}

impl Client<'_> {
    fn fail(&self, file: &str, f: Failure) -> InputError {
        hub::failure(self.hub, self.repo, file, f)
    }

    /// GET `url` (with `range`, first and last byte), within [`hub::TIMEOUT_SECS`]: its body,
    /// at most `limit` bytes, and the file's length from `Content-Range`.
    async fn get(
        &mut self,
        url: &str,
        file: &str,
        range: Option<(u64, u64)>,
        limit: u64,
    ) -> Result<(Vec<u8>, Option<u64>), InputError> {
        let network = |e: JsValue| Failure::Network(said(&e));
        let init = web_sys::RequestInit::new();
        init.set_method("GET");
        init.set_referrer_policy(web_sys::ReferrerPolicy::NoReferrer);
        let headers = web_sys::Headers::new().map_err(|e| self.fail(file, network(e)))?;
        if let Some((a, b)) = range {
            let _ = headers.set("Range", &format!("bytes={a}-{b}"));
        }
        init.set_headers(&headers);
        let ctrl = web_sys::AbortController::new().map_err(|e| self.fail(file, network(e)))?;
        init.set_signal(Some(&ctrl.signal()));
        let timed_out = Rc::new(Cell::new(false));
        let _timer = {
            let timed_out = timed_out.clone();
            gloo::timers::callback::Timeout::new((hub::TIMEOUT_SECS * 1000) as u32, move || {
                timed_out.set(true);
                ctrl.abort();
            })
        };
        let why = |e: JsValue| {
            if timed_out.get() {
                Failure::Timeout(hub::TIMEOUT_SECS)
            } else {
                network(e)
            }
        };
        let resp = JsFuture::from(gloo::utils::window().fetch_with_str_and_init(url, &init))
            .await
            .map_err(|e| self.fail(file, why(e)))?;
        let resp: web_sys::Response = resp.unchecked_into();
        let status = resp.status();
        let header = |k: &str| resp.headers().get(k).ok().flatten();
        let cancel = |r: &web_sys::Response| {
            if let Some(b) = r.body() {
                let _ = b.cancel();
            }
        };
        if !(status == 200 || (status == 206 && range.is_some())) {
            cancel(&resp);
            return Err(self.fail(
                file,
                Failure::Status {
                    status,
                    code: header("x-error-code"),
                    retry_after: header("retry-after").and_then(|s| s.trim().parse().ok()),
                },
            ));
        }
        let length: Option<u64> = header("content-length").and_then(|s| s.trim().parse().ok());
        // A hub that ignores the range answers 200 with the whole file: not downloaded.
        if status == 200 && (range.is_some() || length.is_some_and(|n| n > limit)) {
            cancel(&resp);
            let why = if range.is_some() {
                Failure::Unreadable(String::from("it ignored the byte range asked for"))
            } else {
                Failure::TooLarge(length.unwrap_or(0))
            };
            return Err(self.fail(file, why));
        }
        let total = header("content-range")
            .and_then(|r| r.rsplit('/').next().and_then(|t| t.trim().parse().ok()));
        let buf = resp
            .array_buffer()
            .map_err(|e| self.fail(file, network(e)))?;
        let buf = JsFuture::from(buf)
            .await
            .map_err(|e| self.fail(file, why(e)))?;
        let mut body = Uint8Array::new(&buf).to_vec();
        body.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        self.bytes += body.len() as u64;
        if !file.is_empty() && self.files.last().map(String::as_str) != Some(file) {
            self.files.push(file.to_string());
        }
        Ok((body, total))
    }

    async fn text(&mut self, url: &str, file: &str) -> Result<String, InputError> {
        let (body, _) = self.get(url, file, None, hub::MAX_TEXT_BYTES + 1).await?;
        if body.len() as u64 > hub::MAX_TEXT_BYTES {
            return Err(self.fail(file, Failure::TooLarge(body.len() as u64)));
        }
        String::from_utf8(body).map_err(|e| self.fail(file, Failure::Unreadable(e.to_string())))
    }

    async fn range(
        &mut self,
        file: &str,
        a: u64,
        b: u64,
    ) -> Result<(Vec<u8>, Option<u64>), InputError> {
        let url = self.hub.file_url(self.repo, file);
        let (bytes, total) = self.get(&url, file, Some((a, b)), b - a + 1).await?;
        if (bytes.len() as u64) < b - a + 1 && total.is_none_or(|t| b < t) {
            let got = bytes.len();
            return Err(self.fail(
                file,
                Failure::Unreadable(format!("{got} bytes where {} were asked for", b - a + 1)),
            ));
        }
        Ok((bytes, total))
    }

    async fn safetensors(
        &mut self,
        files: Vec<String>,
    ) -> Result<(Vec<String>, SafetensorsHeader), InputError> {
        let mut shards = Vec::new();
        for f in &files {
            let (mut first, _) = self.range(f, 0, 7).await?;
            let n = hub::header_len(self.hub, self.repo, f, &first)?;
            let (json, _) = self.range(f, 8, 8 + n - 1).await?;
            first.extend_from_slice(&json);
            shards.push(first);
        }
        let refs: Vec<&[u8]> = shards.iter().map(Vec::as_slice).collect();
        let first = files.first().cloned().unwrap_or_default();
        let h = vramfit::headers::parse_safetensors_shards(&refs)
            .map_err(|e| hub::in_file(self.hub, self.repo, &first, &e, None))?;
        Ok((files, h))
    }

    async fn gguf(&mut self, file: &str, size: Option<u64>) -> Result<GgufHeader, InputError> {
        let first = hub::FIRST_GGUF_PREFIX.min(size.unwrap_or(u64::MAX)).max(1);
        let (mut prefix, total) = self.range(file, 0, first - 1).await?;
        let size = size.or(total);
        loop {
            match hub::gguf_step(self.hub, self.repo, file, &prefix, size)? {
                GgufStep::Done(h) => return Ok(h),
                GgufStep::Read(n) => {
                    let have = prefix.len() as u64;
                    let (more, _) = self.range(file, have, n - 1).await?;
                    prefix.extend_from_slice(&more);
                }
            }
        }
    }
}
