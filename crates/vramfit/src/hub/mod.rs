//! The hub lookup without I/O: which files of a Hugging Face or ModelScope repo vramfit reads,
//! at which address, how each answer is read, and the model they give together.
//!
//! The faces do the requests (the CLI with a blocking HTTP client, the site and the npm package
//! with `fetch`), in this order, and only when the person asks:
//!
//! 1. the repo's file list ([`Hub::list_url`], read by [`read_listing`]), which [`plan`] turns
//!    into the files to read;
//! 2. `config.json` ([`crate::config::parse_config`]), when the repo has one;
//! 3. the weights' headers, never the weights: for safetensors, the index
//!    (`model.safetensors.index.json`, read by [`index_shards`]) and of each shard its first 8
//!    bytes by HTTP Range, then the JSON header they announce ([`header_len`]); for GGUF, a first
//!    megabyte of the chosen file, grown to what its header asks ([`gguf_step`]); at most
//!    [`MAX_HEADER_BYTES`] of any file;
//! 4. [`assemble`]: the model to estimate (the config's architecture and format, else the
//!    header's) with the checkpoint's exact tensor counts and bytes by type.
//!
//! Beyond a hub's repos ([`address`]): a GGUF file at any web address ([`HubKind::Url`]: its
//! header by Range, the parts of a split one from their names, the model from the header alone),
//! and an Ollama registry tag ([`HubKind::Ollama`]: its manifest, read by [`ollama`], then the
//! model blob's GGUF header by Range).
//!
//! Every failure is an [`InputError`] of field `hub` that names the repo and says what to do
//! ([`failure`], [`in_file`]), in English and Chinese.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::Value;

use crate::error::Result;
use crate::headers::GgufHeader;

pub mod address;
mod errors;
mod lookup;
mod model;
pub mod ollama;

pub use address::{OLLAMA_REGISTRY, Target, is_address, target};
use errors::no_gguf;
pub use errors::{Failure, failure, in_file};
pub use lookup::{Lookup, Reply, Request, run, run_lookup};
pub use model::{Checkpoint, HubModel, Read, assemble};

/// The most bytes read of one file's header (a safetensors JSON header, a GGUF prefix): real
/// ones are kilobytes to a few megabytes (a GGUF's vocabulary of 256k tokens about 10 MB).
pub const MAX_HEADER_BYTES: u64 = 64 << 20;

/// The first GGUF prefix read; a longer header asks for more ([`gguf_step`]).
pub const FIRST_GGUF_PREFIX: u64 = 1 << 20;

/// The largest file list, `config.json` or safetensors index read (real ones are kilobytes;
/// the index of a 600B-parameter model about 2 MB).
pub const MAX_TEXT_BYTES: u64 = 16 << 20;

/// Seconds a face waits for one answer before it gives up with [`Failure::Timeout`].
pub const TIMEOUT_SECS: u64 = 30;

/// The most safetensors shards read (DeepSeek-V3 has 163).
pub const MAX_SHARDS: usize = 4096;

/// The kind of hub: its addresses and answers have two shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum HubKind {
    /// Hugging Face and its mirrors (`HF_ENDPOINT`, e.g. hf-mirror.com): `/{repo}/resolve/main/{file}`,
    /// `/api/models/{repo}`.
    #[cfg_attr(feature = "serde", serde(rename = "huggingface"))]
    HuggingFace,
    /// ModelScope: `/api/v1/models/{repo}/repo?Revision=master&FilePath={file}`,
    /// `/api/v1/models/{repo}/repo/files?Revision=master&Recursive=true`.
    #[cfg_attr(feature = "serde", serde(rename = "modelscope"))]
    ModelScope,
    /// An Ollama registry (registry.ollama.ai): `/v2/{namespace}/{model}/manifests/{tag}`, then
    /// `/v2/{namespace}/{model}/blobs/{digest}`; the repo is `NAMESPACE/MODEL:TAG`.
    #[cfg_attr(feature = "serde", serde(rename = "ollama"))]
    Ollama,
    /// A web server holding a GGUF file: the repo is the file's address, read by HTTP Range.
    #[cfg_attr(feature = "serde", serde(rename = "url"))]
    Url,
}

impl HubKind {
    /// `hf` (or `huggingface`), `modelscope` (or `ms`) and `ollama` (its registry).
    pub fn parse(text: &str) -> Result<HubKind> {
        match text.trim().to_ascii_lowercase().as_str() {
            "hf" | "huggingface" | "hugging-face" => Ok(HubKind::HuggingFace),
            "modelscope" | "ms" => Ok(HubKind::ModelScope),
            "ollama" => Ok(HubKind::Ollama),
            _ => Err(input_error!(
                UnknownName,
                "hub",
                ["`{text}` is not a kind of hub"],
                ["`{text}` 不是一种模型仓库"],
                "hf (Hugging Face or a mirror of it), modelscope or ollama (its registry)",
                "hf（Hugging Face 或其镜像）、modelscope 或 ollama（其注册表）",
            )),
        }
    }

    /// The hub's own address.
    pub const fn default_endpoint(self) -> &'static str {
        match self {
            HubKind::HuggingFace => "https://huggingface.co",
            HubKind::ModelScope => "https://www.modelscope.cn",
            HubKind::Ollama => address::OLLAMA_REGISTRY,
            HubKind::Url => "",
        }
    }

    /// The branch read: `main` on Hugging Face, `master` on ModelScope; an Ollama tag's is in
    /// its name (`latest` by default), a file's address has none.
    pub const fn revision(self) -> &'static str {
        match self {
            HubKind::HuggingFace => "main",
            HubKind::ModelScope => "master",
            HubKind::Ollama => "latest",
            HubKind::Url => "",
        }
    }
}

/// A hub at an address.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Hub {
    /// The shape of its addresses and answers.
    pub kind: HubKind,
    /// `scheme://host[:port][/path]`, without a trailing slash.
    pub endpoint: String,
}

impl Hub {
    /// A hub of `kind` at `endpoint` (`http://` or `https://`, a host, an optional port and
    /// path; no query).
    pub fn new(kind: HubKind, endpoint: &str) -> Result<Hub> {
        let e = endpoint.trim().trim_end_matches('/');
        let rest = e
            .strip_prefix("https://")
            .or_else(|| e.strip_prefix("http://"));
        let host = rest.map(|r| r.split('/').next().unwrap_or(""));
        let ok = host.is_some_and(|h| {
            !h.is_empty()
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'))
        }) && !e.contains(['?', '#', ' ', '@']);
        if !ok {
            return Err(input_error!(
                Malformed,
                "hub",
                ["`{endpoint}` is not the address of a hub"],
                ["`{endpoint}` 不是模型仓库的地址"],
                "an address such as https://huggingface.co, https://hf-mirror.com or https://www.modelscope.cn",
                "地址，如 https://huggingface.co、https://hf-mirror.com 或 https://www.modelscope.cn",
            ));
        }
        Ok(Hub {
            kind,
            endpoint: e.to_string(),
        })
    }

    /// The hub at `endpoint`, its kind from its host: ModelScope for `*modelscope*`, Ollama's
    /// registry for `registry.ollama.ai`, otherwise Hugging Face or a mirror of it.
    pub fn at(endpoint: &str) -> Result<Hub> {
        let e = endpoint.to_ascii_lowercase();
        let kind = if e.contains("modelscope") {
            HubKind::ModelScope
        } else if e.contains("registry.ollama.ai") {
            HubKind::Ollama
        } else {
            HubKind::HuggingFace
        };
        Hub::new(kind, endpoint)
    }

    /// The address of the repo's file list (an Ollama tag's manifest).
    pub fn list_url(&self, repo: &str) -> String {
        match self.kind {
            HubKind::HuggingFace => format!("{}/api/models/{repo}", self.endpoint),
            HubKind::ModelScope => format!(
                "{}/api/v1/models/{repo}/repo/files?Revision=master&Recursive=true",
                self.endpoint
            ),
            HubKind::Ollama => {
                let (name, tag) = address::ollama_split(repo);
                format!("{}/v2/{name}/manifests/{tag}", self.endpoint)
            }
            HubKind::Url => repo.to_string(),
        }
    }

    /// The address of one file of the repo (an Ollama blob by its digest; for a file's address,
    /// `path` is the address of the part read).
    pub fn file_url(&self, repo: &str, path: &str) -> String {
        match self.kind {
            HubKind::Ollama => {
                let (name, _) = address::ollama_split(repo);
                format!("{}/v2/{name}/blobs/{path}", self.endpoint)
            }
            HubKind::Url => path.to_string(),
            HubKind::HuggingFace => format!(
                "{}/{repo}/resolve/main/{}",
                self.endpoint,
                encode(path, true)
            ),
            HubKind::ModelScope => format!(
                "{}/api/v1/models/{repo}/repo?Revision=master&FilePath={}",
                self.endpoint,
                encode(path, false)
            ),
        }
    }

    /// The repo's page, where a person accepts a gated model's licence.
    pub fn page_url(&self, repo: &str) -> String {
        match self.kind {
            HubKind::HuggingFace => format!("{}/{repo}", self.endpoint),
            HubKind::ModelScope => format!("{}/models/{repo}", self.endpoint),
            HubKind::Ollama if self.endpoint == address::OLLAMA_REGISTRY => {
                let page = repo.strip_prefix("library/").unwrap_or(repo);
                format!("https://ollama.com/{page}")
            }
            HubKind::Ollama => format!("{}/{repo}", self.endpoint),
            HubKind::Url => repo.to_string(),
        }
    }

    /// `repo` checked as this kind of hub names a model: a repo id, `NAMESPACE/MODEL:TAG`, a
    /// GGUF file's address.
    pub fn check_repo(&self, repo: &str) -> Result<String> {
        match self.kind {
            HubKind::HuggingFace | HubKind::ModelScope => repo_id(repo),
            HubKind::Ollama => address::ollama_parts(repo).map(|(_, r)| r),
            HubKind::Url => address::gguf_url(repo),
        }
    }
}

/// `path` percent-encoded for an address (`/` kept when `keep_slash`).
fn encode(path: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric()
            || matches!(b, b'.' | b'-' | b'_' | b'~')
            || (keep_slash && b == b'/')
        {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The repo id `OWNER/NAME` in `text`, which may also be the repo's address on a hub
/// (`https://huggingface.co/OWNER/NAME`, `https://www.modelscope.cn/models/OWNER/NAME`). Each part
/// as the hubs accept it: 1 to 96 of `A-Z a-z 0-9 . _ -`, neither starting nor ending with `.` or
/// `-`, without `--` or `..`.
pub fn repo_id(text: &str) -> Result<String> {
    let t = text.trim();
    let t = match t.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, path)| path),
        None => t,
    };
    let t = t.strip_prefix("models/").unwrap_or(t);
    let mut parts = t.split('/');
    let (owner, name) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    // `/tree/main`, `/blob/main/config.json`, `/files` after the id of an address.
    let tail_ok = match parts.next() {
        None => true,
        Some(p) => t.contains("://") || matches!(p, "tree" | "blob" | "resolve" | "files" | ""),
    };
    let part_ok = |p: &str| {
        (1..=96).contains(&p.len())
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
            && !p.starts_with(['.', '-'])
            && !p.ends_with(['.', '-'])
            && !p.contains("--")
            && !p.contains("..")
    };
    if tail_ok && part_ok(owner) && part_ok(name) {
        Ok(format!("{owner}/{name}"))
    } else {
        Err(input_error!(
            Malformed,
            "hub",
            ["`{text}` is not a repo id"],
            ["`{text}` 不是仓库名"],
            "OWNER/NAME as the hub writes it, e.g. Qwen/Qwen2.5-7B-Instruct (letters, digits, . _ -)",
            "仓库页上写的 OWNER/NAME，如 Qwen/Qwen2.5-7B-Instruct（字母、数字、. _ -）",
        ))
    }
}

/// One file of a repo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoFile {
    /// Its path in the repo.
    pub path: String,
    /// Its size in bytes, where the list gives it (ModelScope's does).
    pub size: Option<u64>,
}

/// What a repo's file list says.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Listing {
    /// The files.
    pub files: Vec<RepoFile>,
    /// Whether the repo is gated (Hugging Face's `gated`: `auto` or `manual`).
    pub gated: bool,
    /// The parameters the hub counted in its safetensors files, where it says
    /// (Hugging Face's `safetensors.total`).
    pub params: Option<u64>,
}

impl Listing {
    /// Whether the repo has the file `path`.
    pub fn has(&self, path: &str) -> bool {
        self.files.iter().any(|f| f.path == path)
    }
}

/// Reads a repo's file list: Hugging Face's `/api/models/{repo}` (its `siblings`) or
/// ModelScope's `repo/files` (its `Data.Files`).
pub fn read_listing(hub: &Hub, repo: &str, body: &str) -> Result<Listing> {
    let bad = |why: &str| failure(hub, repo, "", Failure::Unreadable(why.to_string()));
    let root: Value = serde_json::from_str(body).map_err(|e| bad(&e.to_string()))?;
    let mut out = Listing::default();
    match hub.kind {
        HubKind::HuggingFace => {
            let siblings = root
                .get("siblings")
                .and_then(Value::as_array)
                .ok_or_else(|| bad("no `siblings` list"))?;
            for s in siblings {
                if let Some(p) = s.get("rfilename").and_then(Value::as_str) {
                    out.files.push(RepoFile {
                        path: p.to_string(),
                        size: s.get("size").and_then(Value::as_u64),
                    });
                }
            }
            out.gated = matches!(
                root.get("gated"),
                Some(Value::String(_)) | Some(Value::Bool(true))
            );
            out.params = root
                .get("safetensors")
                .and_then(|s| s.get("total"))
                .and_then(Value::as_u64);
        }
        HubKind::ModelScope => {
            let files = root
                .get("Data")
                .and_then(|d| d.get("Files"))
                .and_then(Value::as_array)
                .ok_or_else(|| bad("no `Data.Files` list"))?;
            for f in files {
                if f.get("Type").and_then(Value::as_str) == Some("tree") {
                    continue;
                }
                if let Some(p) = f
                    .get("Path")
                    .or_else(|| f.get("Name"))
                    .and_then(Value::as_str)
                {
                    out.files.push(RepoFile {
                        path: p.to_string(),
                        size: f.get("Size").and_then(Value::as_u64),
                    });
                }
            }
        }
        HubKind::Ollama | HubKind::Url => return Err(bad("it has no file list")),
    }
    Ok(out)
}

/// The weights to read the headers of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Weights {
    /// `model.safetensors.index.json`: its shards, read by [`index_shards`].
    Index(String),
    /// These safetensors files.
    Safetensors(Vec<String>),
    /// One GGUF model: one file, or the parts of a split one (`-00001-of-00003.gguf`), in order.
    Gguf(Vec<String>),
    /// No weights file the lookup reads.
    None,
}

/// What to read of a repo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Whether to read `config.json`.
    pub config: bool,
    /// The weights.
    pub weights: Weights,
    /// The repo's GGUF models, each by its first file, for a person to choose among.
    pub gguf_choices: Vec<String>,
}

/// The file types a GGUF lookup prefers when none is chosen: the one most people run first.
const GGUF_PREFERRED: [&str; 4] = ["q4_k_m", "q4_k_s", "q8_0", "q5_k_m"];

/// Which files of `listing` to read. `gguf` chooses among GGUF models by a part of its name
/// (`Q4_K_M`, a file name); by default Q4_K_M, else the first.
pub fn plan(hub: &Hub, repo: &str, listing: &Listing, gguf: Option<&str>) -> Result<Plan> {
    let top = |p: &&RepoFile| !p.path.contains('/');
    let config = listing.has("config.json");
    let mut ggufs: Vec<Vec<String>> = Vec::new();
    let mut paths: Vec<&str> = listing
        .files
        .iter()
        .map(|f| f.path.as_str())
        .filter(|p| {
            p.to_ascii_lowercase().ends_with(".gguf") && !p.to_ascii_lowercase().contains("mmproj")
        })
        .collect();
    paths.sort_unstable();
    for p in paths {
        // `…-00002-of-00003.gguf` joins the model whose first part has the same stem.
        match split_part(p) {
            Some((stem, n)) if n > 1 => {
                if let Some(m) = ggufs
                    .iter_mut()
                    .find(|m| split_part(&m[0]).is_some_and(|(s, _)| s == stem))
                {
                    m.push(p.to_string());
                }
            }
            _ => ggufs.push(alloc::vec![p.to_string()]),
        }
    }
    let gguf_choices: Vec<String> = ggufs.iter().map(|m| m[0].clone()).collect();
    let weights = if listing.has("model.safetensors.index.json") && gguf.is_none() {
        Weights::Index("model.safetensors.index.json".into())
    } else if listing.has("model.safetensors") && gguf.is_none() {
        Weights::Safetensors(alloc::vec!["model.safetensors".into()])
    } else {
        let st: Vec<String> = listing
            .files
            .iter()
            .filter(top)
            .map(|f| f.path.clone())
            .filter(|p| p.ends_with(".safetensors") && p.starts_with("model"))
            .collect();
        if !st.is_empty() && gguf.is_none() {
            Weights::Safetensors(st)
        } else if ggufs.is_empty() {
            if let Some(want) = gguf {
                return Err(no_gguf(hub, repo, want, &gguf_choices));
            }
            Weights::None
        } else {
            let pick = match gguf {
                Some(want) => {
                    let w = want.to_ascii_lowercase();
                    ggufs
                        .iter()
                        .find(|m| m[0].to_ascii_lowercase() == w)
                        .or_else(|| {
                            ggufs
                                .iter()
                                .find(|m| m[0].to_ascii_lowercase().contains(&w))
                        })
                        .ok_or_else(|| no_gguf(hub, repo, want, &gguf_choices))?
                }
                None => GGUF_PREFERRED
                    .iter()
                    .find_map(|t| ggufs.iter().find(|m| m[0].to_ascii_lowercase().contains(t)))
                    .unwrap_or(&ggufs[0]),
            };
            Weights::Gguf(pick.clone())
        }
    };
    Ok(Plan {
        config,
        weights,
        gguf_choices,
    })
}

/// `(stem, part)` of a split GGUF's file name, `name-00002-of-00003.gguf` → (`name`, 2).
fn split_part(path: &str) -> Option<(&str, u32)> {
    let stem = path.get(..path.len().checked_sub(5)?)?;
    let (rest, total) = stem.rsplit_once("-of-")?;
    let (name, n) = rest.rsplit_once('-')?;
    (total.len() == 5 && n.len() == 5 && total.bytes().all(|b| b.is_ascii_digit())).then_some(())?;
    Some((name, n.parse().ok()?))
}

/// The shard files a safetensors index (`model.safetensors.index.json`) names, sorted, each once.
pub fn index_shards(hub: &Hub, repo: &str, text: &str) -> Result<Vec<String>> {
    let file = "model.safetensors.index.json";
    let bad = |why: String| failure(hub, repo, file, Failure::Unreadable(why));
    let root: Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    let map = root
        .get("weight_map")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("no `weight_map` object".into()))?;
    let mut shards: Vec<String> = Vec::new();
    for v in map.values() {
        let s = v
            .as_str()
            .ok_or_else(|| bad("a `weight_map` value is not a file name".into()))?;
        if s.is_empty() || s.starts_with('/') || s.contains("..") || !s.ends_with(".safetensors") {
            return Err(bad(format!("`{s}` is not a safetensors file of the repo")));
        }
        if let Err(i) = shards.binary_search_by(|x| x.as_str().cmp(s)) {
            shards.insert(i, s.to_string());
        }
    }
    if shards.is_empty() || shards.len() > MAX_SHARDS {
        return Err(bad(format!("{} shards", shards.len())));
    }
    Ok(shards)
}

/// The JSON header's length N from a safetensors file's first 8 bytes, within
/// [`MAX_HEADER_BYTES`]: the next request reads bytes 8 to 8 + N − 1.
pub fn header_len(hub: &Hub, repo: &str, file: &str, first8: &[u8]) -> Result<u64> {
    if let Some(b) = first8.get(..8) {
        let mut le = [0u8; 8];
        le.copy_from_slice(b);
        let n = u64::from_le_bytes(le);
        if n > MAX_HEADER_BYTES {
            return Err(failure(hub, repo, file, Failure::TooLarge(n)));
        }
    }
    crate::headers::safetensors_header_len(first8).map_err(|e| in_file(hub, repo, file, &e, None))
}

/// What to do next with a GGUF prefix.
#[derive(Debug)]
pub enum GgufStep {
    /// The header is read (boxed: it is some 600 bytes, the other variant 8).
    Done(alloc::boxed::Box<GgufHeader>),
    /// Read the first this many bytes of the file and try again.
    Read(u64),
}

/// Reads the GGUF header in `prefix` (the file's first bytes; `size` the file's, where known),
/// or says how many bytes to read instead: what the header asks, and at least half as much again
/// as the prefix (fewer round trips, past the header's end by less than half of it), at most
/// [`MAX_HEADER_BYTES`] and the file.
pub fn gguf_step(
    hub: &Hub,
    repo: &str,
    file: &str,
    prefix: &[u8],
    size: Option<u64>,
) -> Result<GgufStep> {
    let e = match crate::headers::parse_gguf_header(prefix) {
        Ok(h) => return Ok(GgufStep::Done(alloc::boxed::Box::new(h))),
        Err(e) => e,
    };
    let have = prefix.len() as u64;
    match crate::headers::gguf_prefix_needed(&e) {
        Some(need) if need > have && size.is_none_or(|s| have < s) => {
            if need > MAX_HEADER_BYTES {
                return Err(failure(hub, repo, file, Failure::TooLarge(need)));
            }
            let want = need
                .max(have.saturating_add(have / 2))
                .min(MAX_HEADER_BYTES)
                .min(size.unwrap_or(u64::MAX));
            Ok(GgufStep::Read(want))
        }
        _ => Err(in_file(hub, repo, file, &e, None)),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod address_tests;
