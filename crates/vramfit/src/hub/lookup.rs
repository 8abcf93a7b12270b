//! The lookup as a state machine without I/O: [`Lookup::request`] says what to fetch next,
//! [`Lookup::answer`] takes what came back, and [`Lookup::finish`] gives the model. A face is
//! then a loop around its HTTP client (the CLI's, the site's `fetch`), and every decision (the
//! files, the ranges, the bounds, the errors) is made here, once.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::ollama::{MANIFEST_ACCEPT, MANIFEST_FILE, read_manifest};
use super::{
    FIRST_GGUF_PREFIX, Failure, GgufStep, Hub, HubKind, HubModel, Listing, MAX_TEXT_BYTES, Read,
    RepoFile, Weights, address, assemble, failure, gguf_step, header_len, in_file, index_shards,
    plan, read_listing,
};
use crate::error::{InputError, Result};
use crate::headers::GgufHeader;

/// One HTTP GET the lookup needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The address.
    pub url: String,
    /// The repo's file it reads (`""`: the file list), for messages.
    pub file: String,
    /// The bytes asked for, first and last (an HTTP `Range: bytes=A-B`), or the whole file.
    pub range: Option<(u64, u64)>,
    /// The most body bytes to read: a face stops reading (and drops the answer) past them.
    pub limit: u64,
    /// The HTTP `Accept` header to send, where the server needs one (an Ollama registry's
    /// manifest format).
    pub accept: Option<&'static str>,
}

/// What came back for a [`Request`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// An HTTP answer: its status, Hugging Face's `X-Error-Code`, `Retry-After` in seconds,
    /// the file's length from `Content-Range`, and the body (at most the request's `limit`
    /// bytes; none needed for a status other than 200 or 206).
    Http {
        /// The status.
        status: u16,
        /// `X-Error-Code`.
        code: Option<String>,
        /// `Retry-After`.
        retry_after: Option<u64>,
        /// The total after the `/` of `Content-Range`.
        total: Option<u64>,
        /// The body.
        body: Vec<u8>,
    },
    /// No answer (a timeout, the network).
    Failed(Failure),
}

/// Where a lookup stands.
#[derive(Debug)]
enum Step {
    List,
    Config,
    Index,
    /// The first 8 bytes of safetensors file `i`.
    First8(usize),
    /// The JSON header of safetensors file `i`, after its first 8 bytes.
    Header(usize, Vec<u8>),
    /// A prefix of GGUF file `i`, of a file of this length where known.
    Gguf(usize, Vec<u8>, Option<u64>),
    Done,
}

/// A lookup under way.
#[derive(Debug)]
pub struct Lookup {
    hub: Hub,
    repo: String,
    gguf: Option<String>,
    listing: Listing,
    files: Vec<String>,
    shards: Vec<Vec<u8>>,
    headers: Vec<GgufHeader>,
    read: Read,
    step: Step,
    request: Option<Request>,
    /// The weights to read once config.json is read.
    pending: Option<Weights>,
}

impl Lookup {
    /// A lookup of `repo` (an id or its address on a hub; for an Ollama registry a tag, for
    /// [`HubKind::Url`] a GGUF file's address) on `hub`; `gguf` chooses a GGUF file of several
    /// (see [`super::plan`]).
    pub fn new(hub: &Hub, repo: &str, gguf: Option<&str>) -> Result<Lookup> {
        let repo = hub.check_repo(repo)?;
        let mut l = Lookup {
            hub: hub.clone(),
            gguf: gguf.map(str::to_string),
            listing: Listing::default(),
            files: Vec::new(),
            shards: Vec::new(),
            headers: Vec::new(),
            read: Read::default(),
            step: Step::List,
            request: None,
            pending: None,
            repo,
        };
        match l.hub.kind {
            HubKind::HuggingFace | HubKind::ModelScope => {
                l.request = Some(Request {
                    url: l.hub.list_url(&l.repo),
                    file: String::new(),
                    range: None,
                    limit: MAX_TEXT_BYTES + 1,
                    accept: None,
                });
            }
            HubKind::Ollama => {
                l.request = Some(Request {
                    url: l.hub.list_url(&l.repo),
                    file: MANIFEST_FILE.to_string(),
                    range: None,
                    limit: MAX_TEXT_BYTES + 1,
                    accept: Some(MANIFEST_ACCEPT),
                });
            }
            HubKind::Url => {
                let parts = address::gguf_parts(&l.repo)?;
                l.weights(Weights::Gguf(parts));
            }
        }
        Ok(l)
    }

    /// A lookup of what a person typed ([`super::target`]): `hub` the hub chosen, if any;
    /// `gguf` chooses a GGUF file where a link did not.
    pub fn of(text: &str, hub: Option<&Hub>, gguf: Option<&str>) -> Result<Lookup> {
        let t = super::target(text, hub)?;
        Lookup::new(&t.hub, &t.repo, gguf.or(t.file.as_deref()))
    }

    /// The hub looked up on.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    /// The repo id looked up.
    pub fn repo(&self) -> &str {
        &self.repo
    }

    /// The request to make next; `None` once everything is read.
    pub fn request(&self) -> Option<&Request> {
        self.request.as_ref()
    }

    /// Takes the reply to [`Self::request`]; the error names the repo and what to do.
    pub fn answer(&mut self, reply: Reply) -> Result<()> {
        let Some(req) = self.request.take() else {
            return Ok(());
        };
        let body = self.body(&req, reply)?;
        let (hub, repo) = (&self.hub, self.repo.as_str());
        let text = |b: &[u8]| {
            core::str::from_utf8(b)
                .map(str::to_string)
                .map_err(|e| failure(hub, repo, &req.file, Failure::Unreadable(e.to_string())))
        };
        let step = core::mem::replace(&mut self.step, Step::Done);
        match step {
            Step::List if hub.kind == HubKind::Ollama => {
                let m = read_manifest(hub, repo, &text(&body.0)?)?;
                if let Some(p) = &m.projector {
                    let size = p
                        .size
                        .map_or_else(String::new, |s| format!(" of {s} bytes"));
                    let size_zh = p.size.map_or_else(String::new, |s| format!("（{s} 字节）"));
                    self.read.notes.push((
                        format!("The manifest has a vision projector (mmproj){size}, layer {}: Ollama loads it beside the model; it is not counted here.", p.digest),
                        format!("清单中有视觉投影层（mmproj）{size_zh}，层 {}：Ollama 会与模型一同加载；此处未计入。", p.digest),
                    ));
                }
                self.listing.files.push(RepoFile {
                    path: m.model.digest.clone(),
                    size: m.model.size,
                });
                self.weights(Weights::Gguf(alloc::vec![m.model.digest]));
            }
            Step::List => {
                self.listing = read_listing(hub, repo, &text(&body.0)?)?;
                let p = plan(hub, repo, &self.listing, self.gguf.as_deref())?;
                if p.config {
                    self.step = Step::Config;
                    self.request = Some(self.text_request("config.json"));
                    self.pending = Some(p.weights);
                } else {
                    self.weights(p.weights);
                }
            }
            Step::Config => {
                let parsed = crate::config::parse_config(&text(&body.0)?)
                    .map_err(|e| in_file(hub, repo, "config.json", &e, self.listing.params))?;
                self.read.config = Some(parsed);
                let w = self.pending.take().unwrap_or(Weights::None);
                self.weights(w);
            }
            Step::Index => {
                let shards = index_shards(hub, repo, &text(&body.0)?)?;
                self.safetensors(shards);
            }
            Step::First8(i) => {
                let n = header_len(hub, repo, &req.file, &body.0)?;
                self.step = Step::Header(i, body.0);
                self.request = Some(self.range(&req.file, 8, 8 + n - 1));
            }
            Step::Header(i, mut first8) => {
                first8.extend_from_slice(&body.0);
                self.shards.push(first8);
                if i + 1 < self.files.len() {
                    self.step = Step::First8(i + 1);
                    let f = self.files[i + 1].clone();
                    self.request = Some(self.range(&f, 0, 7));
                } else {
                    let refs: Vec<&[u8]> = self.shards.iter().map(Vec::as_slice).collect();
                    let h = crate::headers::parse_safetensors_shards(&refs)
                        .map_err(|e| in_file(hub, repo, &self.files[0], &e, None))?;
                    self.read.safetensors = Some((core::mem::take(&mut self.files), h));
                }
            }
            Step::Gguf(i, mut prefix, size) => {
                prefix.extend_from_slice(&body.0);
                let size = size.or(body.1);
                match gguf_step(hub, repo, &req.file, &prefix, size)? {
                    GgufStep::Done(h) => {
                        self.headers.push(*h);
                        if i + 1 < self.files.len() {
                            self.gguf_file(i + 1);
                        } else {
                            let files = core::mem::take(&mut self.files);
                            self.read.gguf = Some((files, core::mem::take(&mut self.headers)));
                        }
                    }
                    GgufStep::Read(n) => {
                        let have = prefix.len() as u64;
                        self.request = Some(self.range(&req.file, have, n - 1));
                        self.step = Step::Gguf(i, prefix, size);
                    }
                }
            }
            Step::Done => {}
        }
        Ok(())
    }

    /// The model, once [`Self::request`] is `None`.
    pub fn finish(self) -> Result<HubModel> {
        if let Some(r) = &self.request {
            return Err(failure(
                &self.hub,
                &self.repo,
                &r.file,
                Failure::Unreadable(String::from("the lookup was not finished")),
            ));
        }
        assemble(&self.hub, &self.repo, self.read, self.listing.params)
    }

    /// The body of a reply checked against its request: an answer of the right kind, at most
    /// `limit` bytes kept, and counted.
    fn body(&mut self, req: &Request, reply: Reply) -> Result<(Vec<u8>, Option<u64>)> {
        let fail = |f| failure(&self.hub, &self.repo, &req.file, f);
        let (status, code, retry_after, total, mut body) = match reply {
            Reply::Failed(f) => return Err(fail(f)),
            Reply::Http {
                status,
                code,
                retry_after,
                total,
                body,
            } => (status, code, retry_after, total, body),
        };
        if !(status == 200 || (status == 206 && req.range.is_some())) {
            return Err(fail(Failure::Status {
                status,
                code,
                retry_after,
            }));
        }
        // A hub that ignores the range answers 200 with the whole file from its start.
        if status == 200 && req.range.is_some_and(|(a, _)| a > 0) {
            return Err(fail(Failure::Unreadable(String::from(
                "it ignored the byte range asked for",
            ))));
        }
        if req.range.is_none() && body.len() as u64 > MAX_TEXT_BYTES {
            return Err(fail(Failure::TooLong(body.len() as u64)));
        }
        // A whole file sent for a range from its start, within the limit: its length is known.
        let total = match req.range {
            Some(_) if status == 200 && body.len() as u64 <= req.limit => Some(body.len() as u64),
            _ => total,
        };
        body.truncate(usize::try_from(req.limit).unwrap_or(usize::MAX));
        if let Some((a, b)) = req.range {
            let want = b - a + 1;
            if (body.len() as u64) < want && total.is_none_or(|t| b < t) {
                return Err(fail(Failure::Unreadable(format!(
                    "{} bytes where {want} were asked for",
                    body.len()
                ))));
            }
        }
        self.read.bytes_read += body.len() as u64;
        if !req.file.is_empty() && self.read.files_read.last() != Some(&req.file) {
            self.read.files_read.push(req.file.clone());
        }
        Ok((body, total))
    }

    fn text_request(&self, file: &str) -> Request {
        Request {
            url: self.hub.file_url(&self.repo, file),
            file: file.to_string(),
            range: None,
            limit: MAX_TEXT_BYTES + 1,
            accept: None,
        }
    }

    fn range(&self, file: &str, a: u64, b: u64) -> Request {
        Request {
            url: self.hub.file_url(&self.repo, file),
            file: file.to_string(),
            range: Some((a, b)),
            limit: b - a + 1,
            accept: None,
        }
    }

    /// The first request of the weights, or the end.
    fn weights(&mut self, w: Weights) {
        match w {
            Weights::Index(index) => {
                self.request = Some(self.text_request(&index));
                self.step = Step::Index;
            }
            Weights::Safetensors(files) => self.safetensors(files),
            Weights::Gguf(files) => {
                self.files = files;
                self.gguf_file(0);
            }
            Weights::None => self.step = Step::Done,
        }
    }

    fn safetensors(&mut self, files: Vec<String>) {
        self.files = files;
        self.shards.clear();
        self.step = Step::First8(0);
        let f = self.files[0].clone();
        self.request = Some(self.range(&f, 0, 7));
    }

    /// The first megabyte of GGUF file `i` (less, when the list says the file is smaller).
    fn gguf_file(&mut self, i: usize) {
        let f = self.files[i].clone();
        let size = self
            .listing
            .files
            .iter()
            .find(|x| x.path == f)
            .and_then(|x| x.size);
        let first = FIRST_GGUF_PREFIX.min(size.unwrap_or(u64::MAX)).max(1);
        self.request = Some(self.range(&f, 0, first - 1));
        self.step = Step::Gguf(i, Vec::new(), size);
    }
}

/// Runs a lookup with `get`, a blocking HTTP GET (the CLI's): the model, or the first error.
pub fn run(
    hub: &Hub,
    repo: &str,
    gguf: Option<&str>,
    get: impl FnMut(&Request) -> Reply,
) -> core::result::Result<HubModel, InputError> {
    run_lookup(Lookup::new(hub, repo, gguf)?, get)
}

/// Runs the lookup `l` with `get`, a blocking HTTP GET: the model, or the first error.
pub fn run_lookup(
    mut l: Lookup,
    mut get: impl FnMut(&Request) -> Reply,
) -> core::result::Result<HubModel, InputError> {
    while let Some(r) = l.request() {
        let reply = get(r);
        l.answer(reply)?;
    }
    l.finish()
}
