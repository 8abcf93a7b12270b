//! `--hub`: a model looked up on Hugging Face (or the mirror `HF_ENDPOINT` names) or ModelScope,
//! by HTTP, in the order `vramfit::hub` sets (the file list, `config.json`, the weights'
//! headers by Range), and cached in the user's cache folder once read whole.

use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use vramfit::InputError;
use vramfit::hub::{self, Failure, GgufStep, Hub, HubKind, HubModel, Weights};

/// Where and how to look a model up.
pub struct Lookup {
    /// The hub.
    pub hub: Hub,
    /// The GGUF file chosen (`--hub-file`).
    pub file: Option<String>,
    /// Look up again rather than read the cache (`--hub-refresh`).
    pub refresh: bool,
    /// Seconds to wait for each answer (`--hub-timeout`).
    pub timeout: u64,
}

impl Lookup {
    /// The hub that `--hub KIND` and `--hub-endpoint` name: the endpoint given, else
    /// `HF_ENDPOINT` (huggingface_hub's variable for a mirror) for Hugging Face, or
    /// `MODELSCOPE_DOMAIN` (the modelscope library's: a host, `https://` assumed) for ModelScope,
    /// else the hub's own address.
    pub fn new(
        kind: &str,
        endpoint: Option<&str>,
        file: Option<String>,
        refresh: bool,
        timeout: u64,
    ) -> Result<Lookup, InputError> {
        let kind = HubKind::parse(kind)?;
        let from_env = || match kind {
            HubKind::HuggingFace => std::env::var("HF_ENDPOINT").ok(),
            HubKind::ModelScope => std::env::var("MODELSCOPE_DOMAIN").ok().map(|d| {
                if d.contains("://") {
                    d
                } else {
                    format!("https://{d}")
                }
            }),
        };
        let endpoint = endpoint
            .map(str::to_string)
            .or_else(from_env)
            .filter(|e| !e.trim().is_empty())
            .unwrap_or_else(|| kind.default_endpoint().to_string());
        Ok(Lookup {
            hub: Hub::new(kind, &endpoint)?,
            file,
            refresh,
            timeout: timeout.clamp(1, 600),
        })
    }

    /// The model `repo` names: from the cache, or looked up and then cached.
    pub fn model(&self, repo: &str) -> Result<HubModel, InputError> {
        let repo = hub::repo_id(repo)?;
        let path = cache_path(&self.hub, &repo, self.file.as_deref());
        if !self.refresh
            && let Some(m) = path.as_ref().and_then(|p| cached(p, &self.hub, &repo))
        {
            return Ok(m);
        }
        let m = self.fetch(&repo)?;
        if let Some(p) = &path {
            store(p, &m);
        }
        Ok(m)
    }

    fn fetch(&self, repo: &str) -> Result<HubModel, InputError> {
        let mut c = Client::new(&self.hub, repo, self.timeout);
        let list = c.text(&self.hub.list_url(repo), "")?;
        let listing = hub::read_listing(&self.hub, repo, &list)?;
        let plan = hub::plan(&self.hub, repo, &listing, self.file.as_deref())?;
        let mut read = hub::Read::default();
        if plan.config {
            let text = c.text(&self.hub.file_url(repo, "config.json"), "config.json")?;
            let parsed = vramfit::config::parse_config(&text)
                .map_err(|e| hub::in_file(&self.hub, repo, "config.json", &e, listing.params))?;
            read.config = Some(parsed);
        }
        match plan.weights {
            Weights::Index(index) => {
                let text = c.text(&self.hub.file_url(repo, &index), &index)?;
                let shards = hub::index_shards(&self.hub, repo, &text)?;
                read.safetensors = Some(c.safetensors(shards)?);
            }
            Weights::Safetensors(files) => read.safetensors = Some(c.safetensors(files)?),
            Weights::Gguf(files) => {
                let mut headers = Vec::new();
                for f in &files {
                    let size = listing
                        .files
                        .iter()
                        .find(|x| &x.path == f)
                        .and_then(|x| x.size);
                    headers.push(c.gguf(f, size)?);
                }
                read.gguf = Some((files, headers));
            }
            Weights::None => {}
        }
        read.files_read = c.files;
        read.bytes_read = c.bytes;
        hub::assemble(&self.hub, repo, read, listing.params)
    }
}

/// The requests of one lookup, with what they read.
struct Client<'a> {
    agent: ureq::Agent,
    hub: &'a Hub,
    repo: &'a str,
    files: Vec<String>,
    bytes: u64,
    timeout: u64,
}

impl<'a> Client<'a> {
    fn new(hub: &'a Hub, repo: &'a str, timeout: u64) -> Client<'a> {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(timeout)))
            .http_status_as_error(false)
            .max_redirects(5)
            .user_agent(concat!("vramfit/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Client {
            agent,
            hub,
            repo,
            files: Vec::new(),
            bytes: 0,
            timeout,
        }
    }

    fn fail(&self, file: &str, f: Failure) -> InputError {
        hub::failure(self.hub, self.repo, file, f)
    }

    /// GET `url`, with `range` (first and last byte) if given: the answer's status and headers
    /// checked, its body read up to `limit` bytes.
    fn get(
        &mut self,
        url: &str,
        file: &str,
        range: Option<(u64, u64)>,
        limit: u64,
    ) -> Result<(Vec<u8>, Option<u64>), InputError> {
        let mut req = self.agent.get(url);
        if let Some((a, b)) = range {
            req = req.header("Range", format!("bytes={a}-{b}"));
        }
        let mut resp = req
            .call()
            .map_err(|e| self.fail(file, transport(&e, self.timeout)))?;
        let status = resp.status().as_u16();
        let header = |k: &str| {
            resp.headers()
                .get(k)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let ok = status == 200 || (status == 206 && range.is_some());
        if !ok {
            return Err(self.fail(
                file,
                Failure::Status {
                    status,
                    code: header("x-error-code"),
                    retry_after: header("retry-after").and_then(|s| s.trim().parse().ok()),
                },
            ));
        }
        // A hub that ignores the range answers 200 with the whole file: only its start is read.
        if status == 200 && range.is_some_and(|(a, _)| a > 0) {
            return Err(self.fail(
                file,
                Failure::Unreadable(String::from("it ignored the byte range asked for")),
            ));
        }
        let total = header("content-range")
            .and_then(|r| r.rsplit('/').next().and_then(|t| t.trim().parse().ok()));
        let mut body = Vec::new();
        resp.body_mut()
            .as_reader()
            .take(limit)
            .read_to_end(&mut body)
            .map_err(|e| self.fail(file, io_failure(&e, self.timeout)))?;
        self.bytes += body.len() as u64;
        if !file.is_empty() && self.files.last().map(String::as_str) != Some(file) {
            self.files.push(file.to_string());
        }
        Ok((body, total))
    }

    /// A small file (a list, config.json, an index) as text.
    fn text(&mut self, url: &str, file: &str) -> Result<String, InputError> {
        let (body, _) = self.get(url, file, None, hub::MAX_TEXT_BYTES + 1)?;
        if body.len() as u64 > hub::MAX_TEXT_BYTES {
            return Err(self.fail(file, Failure::TooLarge(body.len() as u64)));
        }
        String::from_utf8(body).map_err(|e| self.fail(file, Failure::Unreadable(e.to_string())))
    }

    /// Bytes `a` to `b` of `file`, exactly.
    fn range(&mut self, file: &str, a: u64, b: u64) -> Result<(Vec<u8>, Option<u64>), InputError> {
        let url = self.hub.file_url(self.repo, file);
        let (bytes, total) = self.get(&url, file, Some((a, b)), b - a + 1)?;
        if (bytes.len() as u64) < b - a + 1 && total.is_none_or(|t| b < t) {
            return Err(self.fail(
                file,
                Failure::Unreadable(format!(
                    "{} bytes where {} were asked for",
                    bytes.len(),
                    b - a + 1
                )),
            ));
        }
        Ok((bytes, total))
    }

    /// The headers of safetensors `files`, read together.
    fn safetensors(
        &mut self,
        files: Vec<String>,
    ) -> Result<(Vec<String>, vramfit::headers::SafetensorsHeader), InputError> {
        let mut shards = Vec::new();
        for f in &files {
            let (mut first, _) = self.range(f, 0, 7)?;
            let n = hub::header_len(self.hub, self.repo, f, &first)?;
            let (json, _) = self.range(f, 8, 8 + n - 1)?;
            first.extend_from_slice(&json);
            shards.push(first);
        }
        let refs: Vec<&[u8]> = shards.iter().map(Vec::as_slice).collect();
        let name = files.first().map_or("", String::as_str).to_string();
        let h = vramfit::headers::parse_safetensors_shards(&refs)
            .map_err(|e| hub::in_file(self.hub, self.repo, &name, &e, None))?;
        Ok((files, h))
    }

    /// The header of the GGUF `file` (`size` bytes, where the list says): a first megabyte,
    /// grown to what the header asks.
    fn gguf(
        &mut self,
        file: &str,
        size: Option<u64>,
    ) -> Result<vramfit::headers::GgufHeader, InputError> {
        let first = hub::FIRST_GGUF_PREFIX.min(size.unwrap_or(u64::MAX)).max(1);
        let (mut prefix, total) = self.range(file, 0, first - 1)?;
        let size = size.or(total);
        loop {
            match hub::gguf_step(self.hub, self.repo, file, &prefix, size)? {
                GgufStep::Done(h) => return Ok(h),
                GgufStep::Read(n) => {
                    let have = prefix.len() as u64;
                    let (more, _) = self.range(file, have, n - 1)?;
                    prefix.extend_from_slice(&more);
                }
            }
        }
    }
}

/// What a transport error means to the person: a timeout, or a hub out of reach.
fn transport(e: &ureq::Error, secs: u64) -> Failure {
    match e {
        ureq::Error::Timeout(_) => Failure::Timeout(secs),
        ureq::Error::Io(io) => io_failure(io, secs),
        other => Failure::Network(other.to_string()),
    }
}

fn io_failure(e: &std::io::Error, secs: u64) -> Failure {
    if matches!(
        e.kind(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    ) || e.to_string().contains("timeout")
    {
        Failure::Timeout(secs)
    } else {
        Failure::Network(e.to_string())
    }
}

/// `VRAMFIT_CACHE_DIR`, else the user's cache folder (`$XDG_CACHE_HOME` or `~/.cache` on Linux),
/// then `vramfit/hub/KIND/HOST/OWNER/NAME[@FILE].json`.
fn cache_path(hub: &Hub, repo: &str, file: Option<&str>) -> Option<PathBuf> {
    let root = std::env::var_os("VRAMFIT_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| dirs::cache_dir().map(|d| d.join("vramfit")))?;
    let host: String = hub
        .endpoint
        .split_once("://")
        .map_or(hub.endpoint.as_str(), |(_, h)| h)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let kind = match hub.kind {
        HubKind::HuggingFace => "huggingface",
        HubKind::ModelScope => "modelscope",
    };
    let name = match file {
        Some(f) => format!("{repo}@{}.json", f.replace(['/', '\\'], "_")),
        None => format!("{repo}.json"),
    };
    Some(root.join("hub").join(kind).join(host).join(name))
}

/// The cached model of `repo` on `hub`, if it reads back whole and valid (a damaged or foreign
/// copy is ignored and looked up again).
fn cached(path: &PathBuf, hub: &Hub, repo: &str) -> Option<HubModel> {
    let text = std::fs::read_to_string(path).ok()?;
    let m: HubModel = serde_json::from_str(&text).ok()?;
    (m.repo == repo && m.hub == *hub && m.validate().is_ok()).then_some(m)
}

/// Writes `m` to the cache (a temporary file renamed into place, so that a reader never sees
/// half of it); a cache that cannot be written is skipped.
fn store(path: &PathBuf, m: &HubModel) {
    let Some(dir) = path.parent() else { return };
    let Ok(text) = serde_json::to_string_pretty(m) else {
        return;
    };
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::create_dir_all(dir).is_ok() && std::fs::write(&tmp, text).is_ok() {
        let _ = std::fs::rename(&tmp, path);
    }
}
