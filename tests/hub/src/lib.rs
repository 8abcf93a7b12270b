//! A local mock of the two kinds of hub vramfit looks models up on, for its tests (the CLI's,
//! the npm package's and the site's in Chromium), on a free loopback port:
//!
//! - Hugging Face: `GET /api/models/{repo}` (the file list: `siblings`, `gated`,
//!   `safetensors.total`), `GET /{repo}/resolve/main/{file}`: small files answered there,
//!   weights files (`.safetensors`, `.gguf`) redirected (302) to a CDN path, `/__cdn/…`, as
//!   huggingface.co redirects them to its CDN hosts;
//! - ModelScope: `GET /api/v1/models/{repo}/repo/files?Revision=master&Recursive=true`
//!   (`Data.Files`), `GET /api/v1/models/{repo}/repo?Revision=master&FilePath={file}` (weights
//!   redirected to `/__mscdn/…`);
//! - Ollama's registry: `GET /v2/{namespace}/{model}/manifests/{tag}`, then the model blob
//!   redirected (307) to the CDN path ([`ollama`]).
//!
//! A file on the CDN path is also a GGUF at a plain address, served by Range.
//!
//! Every answer has the CORS headers a browser needs (`Access-Control-Allow-Origin: *`, the
//! error and range headers exposed; preflights answered); weights are served by HTTP Range
//! only. The failures: a repo it does not have (Hugging Face: 401 `RepoNotFound`, as
//! huggingface.co answers without a token; ModelScope: 404), a file it lacks (404
//! `EntryNotFound`), `meta-llama/Llama-3.1-8B` (gated: 401 `GatedRepo`), `mock/rate-limited`
//! (429), `mock/slow` (answers after a delay) and `mock/huge-header` (a 100 MiB header).
//!
//! Each request is logged ([`MockHub::log`], or `GET /__mock/log` as JSON;
//! `GET /__mock/clear` empties it), with the bytes it got from weights' tensor data, which
//! tests hold to zero.

mod fixtures;
mod gguf;
mod ollama;

pub use ollama::{MODEL_DIGEST as OLLAMA_MODEL_DIGEST, PROJECTOR_SIZE as OLLAMA_PROJECTOR_SIZE};

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use fixtures::{Behaviour, Body, Repo};

/// One request the mock hub answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Logged {
    /// `GET`, `OPTIONS`, …
    pub method: String,
    /// The path and query.
    pub target: String,
    /// The `Range` header.
    pub range: Option<String>,
    /// The status answered.
    pub status: u16,
    /// Body bytes sent.
    pub bytes: u64,
    /// Of those, bytes of a weights file's tensor data (past its header).
    pub data_bytes: u64,
}

struct State {
    repos: Vec<Repo>,
    log: Mutex<Vec<Logged>>,
    slow: Duration,
}

/// A running mock hub; it serves until the process ends.
pub struct MockHub {
    addr: SocketAddr,
    state: Arc<State>,
}

/// The fixtures folder.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

impl MockHub {
    /// Starts a mock hub on a free port; `mock/slow` answers after 5 s.
    pub fn start() -> MockHub {
        MockHub::start_on(0, Duration::from_secs(5)).expect("a loopback port")
    }

    /// Starts a mock hub on `port` (0: a free one), `mock/slow` answering after `slow`.
    pub fn start_on(port: u16, slow: Duration) -> std::io::Result<MockHub> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let addr = listener.local_addr()?;
        let state = Arc::new(State {
            repos: fixtures::load(&fixtures_dir()),
            log: Mutex::new(Vec::new()),
            slow,
        });
        let s = Arc::clone(&state);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let s = Arc::clone(&s);
                std::thread::spawn(move || {
                    let _ = handle(stream, &s);
                });
            }
        });
        Ok(MockHub { addr, state })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The requests answered so far (not those to `/__mock/`).
    pub fn log(&self) -> Vec<Logged> {
        self.state.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Forgets the requests logged.
    pub fn clear(&self) {
        if let Ok(mut l) = self.state.log.lock() {
            l.clear();
        }
    }
}

/// An answer.
struct Answer {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    data_bytes: u64,
}

impl Answer {
    fn new(status: u16, body: impl Into<Vec<u8>>) -> Answer {
        Answer {
            status,
            headers: Vec::new(),
            body: body.into(),
            data_bytes: 0,
        }
    }

    fn json(status: u16, body: String) -> Answer {
        Answer::new(status, body).header("Content-Type", "application/json")
    }

    fn header(mut self, k: &'static str, v: impl Into<String>) -> Answer {
        self.headers.push((k, v.into()));
        self
    }

    /// Hugging Face's error answer: `X-Error-Code` and `X-Error-Message`.
    fn hf_error(status: u16, code: &str, message: &str) -> Answer {
        Answer::json(status, format!("{{\"error\":{}}}", quote(message)))
            .header("X-Error-Code", code)
            .header("X-Error-Message", message)
    }
}

fn handle(stream: TcpStream, s: &State) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let (mut range, mut host, mut accept) = (None, String::from("127.0.0.1"), None);
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            match k.trim().to_ascii_lowercase().as_str() {
                "range" => range = Some(v.trim().to_string()),
                "host" => host = v.trim().to_string(),
                "accept" => accept = Some(v.trim().to_string()),
                _ => {}
            }
        }
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("/").to_string();
    let base = format!("http://{host}");
    let answer = if method == "OPTIONS" {
        Answer::new(204, Vec::new())
            .header("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
            .header("Access-Control-Allow-Headers", "Range, Content-Type")
            .header("Access-Control-Max-Age", "600")
    } else if target == "/__mock/log" {
        Answer::json(
            200,
            log_json(&s.log.lock().map(|l| l.clone()).unwrap_or_default()),
        )
    } else if target == "/__mock/clear" {
        if let Ok(mut l) = s.log.lock() {
            l.clear();
        }
        Answer::new(200, "cleared\n")
    } else {
        let (id, file) = ollama::MODEL_FILE.rsplit_once('/').unwrap_or_default();
        let model_len = s
            .repos
            .iter()
            .find(|r| r.id == id)
            .and_then(|r| r.file(file))
            .map_or(0, |f| f.body.size());
        ollama::route(&target, accept.as_deref(), &base, model_len)
            .unwrap_or_else(|| route(s, &target, range.as_deref(), &base))
    };
    if !target.starts_with("/__mock/")
        && let Ok(mut l) = s.log.lock()
    {
        l.push(Logged {
            method: method.clone(),
            target: target.clone(),
            range: range.clone(),
            status: answer.status,
            bytes: answer.body.len() as u64,
            data_bytes: answer.data_bytes,
        });
    }
    let mut out = stream;
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Length: {}\r\nConnection: close\r\n\
         Access-Control-Allow-Origin: *\r\n\
         Access-Control-Expose-Headers: X-Error-Code, X-Error-Message, Content-Range, Accept-Ranges, Retry-After, Content-Length, X-Repo-Commit\r\n",
        answer.status,
        reason(answer.status),
        answer.body.len()
    );
    for (k, v) in &answer.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    if method != "HEAD" {
        out.write_all(&answer.body)?;
    }
    out.flush()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        206 => "Partial Content",
        302 => "Found",
        307 => "Temporary Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        416 => "Range Not Satisfiable",
        429 => "Too Many Requests",
        _ => "Status",
    }
}

/// `%XX` decoded.
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn query<'a>(q: &'a str, key: &str) -> Option<&'a str> {
    q.split('&')
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}

/// `owner/name` and the rest of `path`.
fn repo_and_rest(path: &str) -> Option<(String, &str)> {
    let mut it = path.splitn(3, '/');
    let (owner, name) = (it.next()?, it.next()?);
    (!owner.is_empty() && !name.is_empty())
        .then(|| (format!("{owner}/{name}"), it.next().unwrap_or("")))
}

fn route(s: &State, target: &str, range: Option<&str>, base: &str) -> Answer {
    let (path, q) = target.split_once('?').unwrap_or((target, ""));
    let path = decode(path);
    let find = |id: &str| s.repos.iter().find(|r| r.id == id);
    let ms_missing = || {
        Answer::json(
            404,
            "{\"Code\":10010205001,\"Message\":\"model not found\",\"Success\":false}".into(),
        )
    };
    let hf_missing = || Answer::hf_error(401, "RepoNotFound", "Repository not found");
    // ModelScope.
    if let Some(rest) = path.strip_prefix("/api/v1/models/") {
        let Some((id, tail)) = repo_and_rest(rest) else {
            return ms_missing();
        };
        let Some(repo) = find(&id) else {
            return ms_missing();
        };
        if let Some(a) = failing(s, repo, tail == "repo/files") {
            return a;
        }
        return match tail {
            "repo/files" => Answer::json(200, ms_listing(repo)),
            "repo" => {
                let file = decode(query(q, "FilePath").unwrap_or(""));
                match repo.file(&file) {
                    None => Answer::json(
                        404,
                        "{\"Code\":10010205001,\"Message\":\"file not found\",\"Success\":false}"
                            .into(),
                    ),
                    Some(f) if matches!(f.body, Body::Weights { .. }) => Answer::new(302, "")
                        .header("Location", format!("{base}/__mscdn/{id}/{file}")),
                    Some(f) => serve(&f.body, range),
                }
            }
            _ => ms_missing(),
        };
    }
    // Hugging Face's API.
    if let Some(rest) = path.strip_prefix("/api/models/") {
        let Some((id, _)) = repo_and_rest(rest) else {
            return hf_missing();
        };
        let Some(repo) = find(&id) else {
            return hf_missing();
        };
        if let Some(a) = failing(s, repo, true) {
            return a;
        }
        return Answer::json(200, hf_listing(repo));
    }
    // The CDNs.
    for cdn in ["/__cdn/", "/__mscdn/"] {
        if let Some(rest) = path.strip_prefix(cdn) {
            let Some((id, file)) = repo_and_rest(rest) else {
                return Answer::new(404, "");
            };
            return match find(&id).and_then(|r| r.file(file)) {
                Some(f) => serve(&f.body, range),
                None => Answer::new(404, ""),
            };
        }
    }
    // Hugging Face's files.
    let Some((id, rest)) = repo_and_rest(path.trim_start_matches('/')) else {
        return Answer::new(404, "not found\n");
    };
    let Some(file) = rest.strip_prefix("resolve/main/") else {
        return Answer::new(404, "not found\n");
    };
    let Some(repo) = find(&id) else {
        return hf_missing();
    };
    if let Some(a) = failing(s, repo, false) {
        return a;
    }
    match repo.file(file) {
        None => Answer::hf_error(
            404,
            "EntryNotFound",
            &format!("{file} does not exist on \"main\""),
        ),
        Some(f) if matches!(f.body, Body::Weights { .. }) => {
            Answer::new(302, "").header("Location", format!("{base}/__cdn/{id}/{file}"))
        }
        Some(f) => serve(&f.body, range),
    }
}

/// The answer of a repo that fails, if it does for this request.
fn failing(s: &State, repo: &Repo, listing: bool) -> Option<Answer> {
    match repo.behaviour {
        Behaviour::Public => None,
        Behaviour::Gated if !listing => Some(Answer::hf_error(
            401,
            "GatedRepo",
            &format!(
                "Access to model {} is restricted. You must have access to it and be authenticated to access it. Please log in.",
                repo.id
            ),
        )),
        Behaviour::Gated => None,
        Behaviour::RateLimited => Some(
            Answer::hf_error(429, "RateLimited", "Too many requests").header("Retry-After", "30"),
        ),
        Behaviour::Slow => {
            std::thread::sleep(s.slow);
            None
        }
    }
}

/// A file's bytes, the range asked for; weights only by range.
fn serve(body: &Body, range: Option<&str>) -> Answer {
    let len = body.size();
    let Some(r) = range.and_then(|r| r.strip_prefix("bytes=")) else {
        return match body {
            Body::Text(t) => Answer::new(200, t.clone()),
            Body::Weights { .. } => Answer::new(400, "the mock hub serves weights by Range only\n"),
        };
    };
    let (a, b) = r.split_once('-').unwrap_or((r, ""));
    let (Ok(start), end) = (a.trim().parse::<u64>(), b.trim().parse::<u64>().ok()) else {
        return Answer::new(416, "");
    };
    let end = end
        .unwrap_or(len.saturating_sub(1))
        .min(len.saturating_sub(1));
    if start >= len || end < start {
        return Answer::new(416, "").header("Content-Range", format!("bytes */{len}"));
    }
    let (bytes, data) = match body {
        Body::Text(t) => (t[start as usize..=end as usize].to_vec(), 0),
        Body::Weights {
            head, data_start, ..
        } => {
            let mut out = vec![0u8; (end - start + 1) as usize];
            for (i, o) in out.iter_mut().enumerate() {
                *o = head.get(start as usize + i).copied().unwrap_or(0);
            }
            let data = (end + 1).saturating_sub(start.max(*data_start));
            (out, data)
        }
    };
    let mut a = Answer::new(206, bytes)
        .header("Content-Range", format!("bytes {start}-{end}/{len}"))
        .header("Accept-Ranges", "bytes");
    a.data_bytes = data;
    a
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Parameters by dtype in the repo's safetensors headers, as Hugging Face's API counts them.
fn safetensors_params(repo: &Repo) -> Vec<(String, u64)> {
    let mut by: Vec<(String, u64)> = Vec::new();
    for f in &repo.files {
        let Body::Weights { head, .. } = &f.body else {
            continue;
        };
        if !f.path.ends_with(".safetensors") {
            continue;
        }
        let text = String::from_utf8_lossy(head.get(8..).unwrap_or(&[]));
        for entry in text.split("\"dtype\":\"").skip(1) {
            let dtype = entry.split('"').next().unwrap_or("").to_string();
            let shape = entry
                .split("\"shape\":[")
                .nth(1)
                .and_then(|s| s.split(']').next())
                .unwrap_or("");
            let n: u64 = shape
                .split(',')
                .filter(|d| !d.is_empty())
                .map(|d| d.trim().parse::<u64>().unwrap_or(0))
                .product();
            match by.iter_mut().find(|(d, _)| *d == dtype) {
                Some((_, c)) => *c += n,
                None => by.push((dtype, n)),
            }
        }
    }
    by
}

fn hf_listing(repo: &Repo) -> String {
    let siblings: Vec<String> = repo
        .files
        .iter()
        .map(|f| format!("{{\"rfilename\":{}}}", quote(&f.path)))
        .collect();
    let params = safetensors_params(repo);
    let safetensors = if params.is_empty() {
        String::new()
    } else {
        let by: Vec<String> = params
            .iter()
            .map(|(d, n)| format!("{}:{n}", quote(d)))
            .collect();
        let total: u64 = params.iter().map(|(_, n)| n).sum();
        format!(
            ",\"safetensors\":{{\"parameters\":{{{}}},\"total\":{total}}}",
            by.join(",")
        )
    };
    let gated = if repo.behaviour == Behaviour::Gated {
        "\"manual\""
    } else {
        "false"
    };
    format!(
        "{{\"_id\":\"mock\",\"id\":{id},\"modelId\":{id},\"private\":false,\"gated\":{gated},\"disabled\":false,\"sha\":\"0000000000000000000000000000000000000000\",\"siblings\":[{}]{safetensors}}}",
        siblings.join(","),
        id = quote(&repo.id)
    )
}

fn ms_listing(repo: &Repo) -> String {
    let files: Vec<String> = repo
        .files
        .iter()
        .map(|f| {
            let name = f.path.rsplit('/').next().unwrap_or(&f.path);
            format!(
                "{{\"Name\":{},\"Path\":{},\"Size\":{},\"Type\":\"blob\",\"IsLFS\":{},\"Revision\":\"0000000000000000000000000000000000000000\"}}",
                quote(name),
                quote(&f.path),
                f.body.size(),
                matches!(f.body, Body::Weights { .. })
            )
        })
        .collect();
    format!(
        "{{\"Code\":200,\"Data\":{{\"Files\":[{}]}},\"Message\":\"success\",\"Success\":true}}",
        files.join(",")
    )
}

fn log_json(log: &[Logged]) -> String {
    let rows: Vec<String> = log
        .iter()
        .map(|l| {
            format!(
                "{{\"method\":{},\"target\":{},\"range\":{},\"status\":{},\"bytes\":{},\"data_bytes\":{}}}",
                quote(&l.method),
                quote(&l.target),
                l.range.as_deref().map_or_else(|| "null".into(), quote),
                l.status,
                l.bytes,
                l.data_bytes
            )
        })
        .collect();
    format!("[{}]", rows.join(","))
}
