//! `--hub`: a model looked up on Hugging Face (or the mirror `HF_ENDPOINT` names), ModelScope
//! or Ollama's registry (`--hub ollama`, a tag), or a GGUF at any address (`--model
//! https://…/x.gguf`), by HTTP: the requests that `vramfit::hub::Lookup` asks for (the file
//! list or manifest, `config.json`, the weights' headers by Range), each made here, redirects
//! followed (a registry's blob to its storage); the model cached in the user's cache folder
//! once read whole.

use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use vramfit::InputError;
use vramfit::hub::{self, Failure, Hub, HubKind, HubModel, Reply, Request};

/// Where and how to look a model up.
pub struct Lookup {
    /// The hub chosen (`--hub`); none for an address read by its host.
    pub hub: Option<Hub>,
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
    /// else the hub's own address. Without `kind`, the model is an address, read by its host.
    pub fn new(
        kind: Option<&str>,
        endpoint: Option<&str>,
        file: Option<String>,
        refresh: bool,
        timeout: u64,
    ) -> Result<Lookup, InputError> {
        let hub = match kind {
            Some(k) => Some(hub_of(HubKind::parse(k)?, endpoint)?),
            None => None,
        };
        Ok(Lookup {
            hub,
            file,
            refresh,
            timeout: timeout.clamp(1, 600),
        })
    }

    /// The model `text` names: from the cache, or looked up and then cached.
    pub fn model(&self, text: &str) -> Result<HubModel, InputError> {
        let t = hub::target(text, self.hub.as_ref())?;
        let file = self.file.clone().or(t.file);
        let path = cache_path(&t.hub, &t.repo, file.as_deref());
        if !self.refresh
            && let Some(m) = path.as_ref().and_then(|p| cached(p, &t.hub, &t.repo))
        {
            return Ok(m);
        }
        let m = self.fetch(&t.hub, &t.repo, file.as_deref())?;
        if let Some(p) = &path {
            store(p, &m);
        }
        Ok(m)
    }

    fn fetch(&self, hub: &Hub, repo: &str, file: Option<&str>) -> Result<HubModel, InputError> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(self.timeout)))
            .http_status_as_error(false)
            .max_redirects(5)
            .user_agent(concat!("vramfit/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        hub::run(hub, repo, file, |r| get(&agent, r, self.timeout))
    }
}

/// The hub of `kind` at `endpoint`, else at its variable's address, else at its own.
fn hub_of(kind: HubKind, endpoint: Option<&str>) -> Result<Hub, InputError> {
    {
        let from_env = || match kind {
            HubKind::HuggingFace => std::env::var("HF_ENDPOINT").ok(),
            HubKind::ModelScope => std::env::var("MODELSCOPE_DOMAIN").ok().map(|d| {
                if d.contains("://") {
                    d
                } else {
                    format!("https://{d}")
                }
            }),
            HubKind::Ollama | HubKind::Url => None,
        };
        let endpoint = endpoint
            .map(str::to_string)
            .or_else(from_env)
            .filter(|e| !e.trim().is_empty())
            .unwrap_or_else(|| kind.default_endpoint().to_string());
        Hub::new(kind, &endpoint)
    }
}

/// One GET of the lookup (`r.range`, if any, as an HTTP Range), its body read up to `r.limit`
/// bytes: a hub that ignores the range is not downloaded whole.
fn get(agent: &ureq::Agent, r: &Request, timeout: u64) -> Reply {
    let mut req = agent.get(&r.url);
    if let Some((a, b)) = r.range {
        req = req.header("Range", format!("bytes={a}-{b}"));
    }
    if let Some(accept) = r.accept {
        req = req.header("Accept", accept);
    }
    let mut resp = match req.call() {
        Ok(resp) => resp,
        Err(e) => return Reply::Failed(transport(&e, timeout)),
    };
    let header = |k: &str| {
        resp.headers()
            .get(k)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let (status, code, retry_after) = (
        resp.status().as_u16(),
        header("x-error-code"),
        header("retry-after").and_then(|s| s.trim().parse().ok()),
    );
    let total = header("content-range")
        .and_then(|c| c.rsplit('/').next().and_then(|t| t.trim().parse().ok()));
    let mut body = Vec::new();
    if status == 200 || status == 206 {
        let read = resp
            .body_mut()
            .as_reader()
            .take(r.limit.saturating_add(1))
            .read_to_end(&mut body);
        if let Err(e) = read {
            return Reply::Failed(io_failure(&e, timeout));
        }
    }
    Reply::Http {
        status,
        code,
        retry_after,
        total,
        body,
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
/// then `vramfit/hub/KIND/HOST/OWNER/NAME[@FILE].json` (an Ollama tag's `NAMESPACE/MODEL@TAG`,
/// a file's address its path with `/` and other signs as `_`).
fn cache_path(hub: &Hub, repo: &str, file: Option<&str>) -> Option<PathBuf> {
    let root = std::env::var_os("VRAMFIT_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| dirs::cache_dir().map(|d| d.join("vramfit")))?;
    let host = safe(
        hub.endpoint
            .split_once("://")
            .map_or(hub.endpoint.as_str(), |(_, h)| h),
    );
    let kind = match hub.kind {
        HubKind::HuggingFace => "huggingface",
        HubKind::ModelScope => "modelscope",
        HubKind::Ollama => "ollama",
        HubKind::Url => "url",
    };
    let repo = match hub.kind {
        HubKind::HuggingFace | HubKind::ModelScope => repo.to_string(),
        HubKind::Ollama => repo.replace(':', "@"),
        HubKind::Url => safe(repo.split_once("://").map_or(repo, |(_, r)| r)),
    };
    let name = match file {
        Some(f) => format!("{repo}@{}.json", f.replace(['/', '\\'], "_")),
        None => format!("{repo}.json"),
    };
    Some(root.join("hub").join(kind).join(host).join(name))
}

/// `text` with every sign but `A-Z a-z 0-9 . -` as `_`: a file name.
fn safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
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
