//! What a person types for a model beyond a hub's repo id, read into what the lookup reads:
//!
//! - a GGUF file at any web address (`https://host/path/model-Q4_K_M.gguf`), its header read by
//!   HTTP Range ([`HubKind::Url`]); the parts of a split one (`-00001-of-00003.gguf`) from the
//!   sibling addresses its name gives ([`gguf_parts`]);
//! - a Hugging Face file link (`https://huggingface.co/OWNER/NAME/resolve/main/x.gguf`, or
//!   `/blob/main/`): the repo, with that file chosen, so that the lookup reads its list and
//!   `config.json` as for the repo;
//! - an Ollama registry tag (`llama3.1:8b`, `user/model:tag`,
//!   `registry.ollama.ai/library/gemma3:4b`, `ollama.com/library/qwen3`): its manifest, then its
//!   model blob ([`HubKind::Ollama`], [`super::ollama`]). Names as ollama's `types/model/name.go`
//!   reads them (`ParseNameBare`, `isValidPart`; host `registry.ollama.ai`, namespace `library`
//!   and tag `latest` by default).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{Hub, HubKind, MAX_SHARDS, repo_id};
use crate::error::Result;

/// Ollama's registry (ollama's `types/model/name.go`, `defaultHost`).
pub const OLLAMA_REGISTRY: &str = "https://registry.ollama.ai";

/// The longest address read (browsers' practical limit; a GGUF's is under 300 characters).
pub const MAX_ADDRESS: usize = 2048;

/// What to look up: the hub, the repo (for [`HubKind::Url`] the file's address, for
/// [`HubKind::Ollama`] `NAMESPACE/MODEL:TAG`) and the GGUF file a link chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Where.
    pub hub: Hub,
    /// What.
    pub repo: String,
    /// The GGUF file of the repo a file link named.
    pub file: Option<String>,
}

/// Reads `text` into what to look up. `hub` is the hub the person chose, if any: an Ollama one
/// reads `text` as a tag; a Hugging Face one reads a Hugging Face file link on itself (a
/// mirror); any reads an address ending in `.gguf` as that file. Without one, an address is read
/// by its host, and a bare `OWNER/NAME` is a Hugging Face repo.
pub fn target(text: &str, hub: Option<&Hub>) -> Result<Target> {
    let t = text.trim();
    let chosen_ollama = hub.filter(|h| h.kind == HubKind::Ollama);
    if chosen_ollama.is_some() || is_ollama_address(t) {
        let (host, repo) = ollama_parts(t)?;
        let hub = match (host, chosen_ollama) {
            (Some(h), _) => Hub::new(HubKind::Ollama, &h)?,
            (None, Some(h)) => h.clone(),
            (None, None) => Hub::new(HubKind::Ollama, OLLAMA_REGISTRY)?,
        };
        return Ok(Target {
            hub,
            repo,
            file: None,
        });
    }
    if let Some((origin, path)) = split_address(t) {
        let hf = hub.filter(|h| h.kind == HubKind::HuggingFace);
        if let Some((repo, rev, file)) = hf_file_link(origin, path, hf) {
            if rev == "main" {
                let hub = match hf {
                    Some(h) => h.clone(),
                    None => Hub::new(HubKind::HuggingFace, origin)?,
                };
                return Ok(Target {
                    hub,
                    repo,
                    file: Some(file),
                });
            }
            // Another branch or commit: the file itself, at its download address.
            let url = format!("{origin}/{repo}/resolve/{rev}/{}", path_tail(path, 4));
            return url_target(origin, &url);
        }
        let file_path = path.split(['?', '#']).next().unwrap_or("");
        if file_path.to_ascii_lowercase().ends_with(".gguf") {
            return url_target(origin, t);
        }
        if let Some(h) = hub {
            return Ok(Target {
                hub: h.clone(),
                repo: repo_id(t)?,
                file: None,
            });
        }
        return Err(not_gguf_address(text));
    }
    let hub = match hub {
        Some(h) => h.clone(),
        None => Hub::new(
            HubKind::HuggingFace,
            HubKind::HuggingFace.default_endpoint(),
        )?,
    };
    Ok(Target {
        hub,
        repo: repo_id(t)?,
        file: None,
    })
}

/// Whether `text` is an address the lookup reads without a hub being chosen: a web address, or
/// an Ollama registry's (`registry.ollama.ai/…`, `ollama.com/…`).
pub fn is_address(text: &str) -> bool {
    let t = text.trim();
    t.contains("://") || is_ollama_address(t)
}

fn is_ollama_address(t: &str) -> bool {
    let rest = t
        .strip_prefix("https://")
        .or_else(|| t.strip_prefix("http://"))
        .unwrap_or(t)
        .to_ascii_lowercase();
    ["registry.ollama.ai/", "ollama.com/", "www.ollama.com/"]
        .iter()
        .any(|p| rest.starts_with(p))
}

/// `(scheme://host[:port], path)` of a web address (its path without the leading `/`).
fn split_address(t: &str) -> Option<(&str, &str)> {
    let scheme = if t.starts_with("https://") {
        8
    } else if t.starts_with("http://") {
        7
    } else {
        return None;
    };
    match t[scheme..].find('/') {
        Some(i) => Some((&t[..scheme + i], &t[scheme + i + 1..])),
        None => Some((t, "")),
    }
}

/// `path` from its `n`-th `/`-separated part on.
fn path_tail(path: &str, n: usize) -> &str {
    path.splitn(n + 1, '/').nth(n).unwrap_or("")
}

/// `(repo, revision, file)` of a Hugging Face link to a GGUF file,
/// `OWNER/NAME/resolve|blob/REVISION/FILE.gguf`, on a Hugging Face host or on `hf` (a mirror).
fn hf_file_link(origin: &str, path: &str, hf: Option<&Hub>) -> Option<(String, String, String)> {
    let host = origin.split_once("://").map_or(origin, |(_, h)| h);
    let known = [
        "huggingface.co",
        "www.huggingface.co",
        "hf.co",
        "hf-mirror.com",
    ];
    if !known.contains(&host.to_ascii_lowercase().as_str())
        && hf.is_none_or(|h| h.endpoint != origin)
    {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or("");
    let mut parts = path.splitn(5, '/');
    let (owner, name, how, rev, file) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    if !matches!(how, "resolve" | "blob") || !file.to_ascii_lowercase().ends_with(".gguf") {
        return None;
    }
    let repo = repo_id(&format!("{owner}/{name}")).ok()?;
    let file = decode(file)?;
    Some((repo, rev.to_string(), file))
}

/// `%XX` decoded (a link's file name as the repo lists it); `None` for a bad escape or bytes
/// that are not UTF-8.
fn decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = core::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn url_target(origin: &str, url: &str) -> Result<Target> {
    let hub = Hub::new(HubKind::Url, origin).map_err(|_| not_gguf_address(url))?;
    Ok(Target {
        hub,
        repo: gguf_url(url)?,
        file: None,
    })
}

/// `text` checked as the address of a GGUF file: `http://` or `https://`, a host, a path ending
/// in `.gguf` (a query may follow), no spaces, no user or fragment, at most [`MAX_ADDRESS`].
pub fn gguf_url(text: &str) -> Result<String> {
    let t = text.trim();
    let ok = t.len() <= MAX_ADDRESS
        && split_address(t).is_some_and(|(origin, path)| {
            let host = origin.split_once("://").map_or("", |(_, h)| h);
            let file = path.split('?').next().unwrap_or("");
            !host.is_empty()
                && host
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'))
                && file.to_ascii_lowercase().ends_with(".gguf")
                && file.len() > 5
        })
        && t.bytes().all(|b| b.is_ascii_graphic())
        && !t.contains(['#', '@', '\\']);
    if ok {
        Ok(t.to_string())
    } else {
        Err(not_gguf_address(text))
    }
}

fn not_gguf_address(text: &str) -> crate::error::InputError {
    input_error!(
        Malformed,
        "hub",
        ["`{text}` is not the address of a GGUF file"],
        ["`{text}` 不是 GGUF 文件的地址"],
        "https://HOST/PATH/NAME.gguf (read by HTTP Range), a Hugging Face repo or its file link, or an Ollama tag such as llama3.1:8b",
        "https://HOST/PATH/NAME.gguf（以 HTTP Range 读取）、Hugging Face 仓库或其文件链接，或 Ollama 标签，如 llama3.1:8b",
    )
}

/// The addresses of a GGUF file's parts: the file alone, or for a split one
/// (`NAME-00002-of-00003.gguf`, llama.cpp's `gguf-split` naming) every part from the first, by
/// its name in the same folder.
pub fn gguf_parts(url: &str) -> Result<Vec<String>> {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let name_at = base.rfind('/').map_or(0, |i| i + 1);
    let name = &base[name_at..];
    let Some((stem, _, total)) = split_name(name) else {
        return Ok(alloc::vec![url.to_string()]);
    };
    if total == 0 || total as usize > MAX_SHARDS {
        return Err(input_error!(
            Malformed,
            "hub",
            ["`{name}` names a GGUF split in {total} parts"],
            ["`{name}` 表示分为 {total} 份的 GGUF"],
            ["a split of 1 to {MAX_SHARDS} parts, NAME-00001-of-0000N.gguf"],
            ["分为 1 到 {MAX_SHARDS} 份的 GGUF，NAME-00001-of-0000N.gguf"],
        ));
    }
    let ext = &name[name.len() - 5..];
    Ok((1..=total)
        .map(|i| {
            let q = query.map_or_else(String::new, |q| format!("?{q}"));
            format!("{}{stem}-{i:05}-of-{total:05}{ext}{q}", &base[..name_at])
        })
        .collect())
}

/// `(stem, part, parts)` of `NAME-00002-of-00003.gguf`.
fn split_name(name: &str) -> Option<(&str, u32, u32)> {
    let stem = name.get(..name.len().checked_sub(5)?)?;
    if !name[stem.len()..].eq_ignore_ascii_case(".gguf") {
        return None;
    }
    let (rest, total) = stem.rsplit_once("-of-")?;
    let (stem, n) = rest.rsplit_once('-')?;
    let digits = |s: &str| s.len() == 5 && s.bytes().all(|b| b.is_ascii_digit());
    (digits(total) && digits(n)).then_some(())?;
    let (n, total) = (n.parse().ok()?, total.parse().ok()?);
    (n >= 1 && n <= total).then_some((stem, n, total))
}

/// `(host, NAMESPACE/MODEL:TAG)` of an Ollama name, `[[scheme://]host/][namespace/]model[:tag]`
/// (ollama's `ParseNameBare`), each part checked as its `isValidPart` does; the host an
/// `ollama.com` page address names is the registry's. A digest (`@sha256:…`) is not read.
pub fn ollama_parts(text: &str) -> Result<(Option<String>, String)> {
    let t = text.trim();
    let bad = || {
        input_error!(
            Malformed,
            "hub",
            ["`{text}` is not an Ollama model name"],
            ["`{text}` 不是 Ollama 模型名"],
            "MODEL[:TAG], NAMESPACE/MODEL[:TAG] or registry.ollama.ai/NAMESPACE/MODEL[:TAG] as ollama.com writes them, e.g. llama3.1:8b or qwen3:30b-a3b (letters, digits, _ - . ; the tag latest by default)",
            "ollama.com 上的写法 MODEL[:TAG]、NAMESPACE/MODEL[:TAG] 或 registry.ollama.ai/NAMESPACE/MODEL[:TAG]，如 llama3.1:8b 或 qwen3:30b-a3b（字母、数字、_ - .；标签默认 latest）",
        )
    };
    let (scheme, rest) = match t.split_once("://") {
        Some((s, r)) if s == "https" || s == "http" => (s, r),
        Some(_) => return Err(bad()),
        None => ("https", t),
    };
    let (rest, tag) = match (rest.rfind(':'), rest.rfind('/')) {
        (Some(c), s) if s.is_none_or(|s| c > s) => (&rest[..c], &rest[c + 1..]),
        _ => (rest, "latest"),
    };
    let parts: Vec<&str> = rest.split('/').collect();
    let (host, ns, model) = match parts.as_slice() {
        [m] => (None, "library", *m),
        [n, m] => (None, *n, *m),
        [h, n, m] => (Some(*h), *n, *m),
        _ => return Err(bad()),
    };
    let part = |s: &str, dot: bool| {
        (1..=80).contains(&s.len())
            && s.bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
            && s.bytes().all(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-') || (dot && b == b'.')
            })
    };
    let host_ok = |h: &str| {
        (1..=350).contains(&h.len())
            && h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
    };
    if !part(ns, false) || !part(model, true) || !part(tag, true) || !host.is_none_or(host_ok) {
        return Err(bad());
    }
    let host = host.map(|h| {
        if matches!(
            h.to_ascii_lowercase().as_str(),
            "ollama.com" | "www.ollama.com"
        ) {
            OLLAMA_REGISTRY.to_string()
        } else {
            format!("{scheme}://{h}")
        }
    });
    Ok((host, format!("{ns}/{model}:{tag}")))
}

/// `(NAMESPACE/MODEL, TAG)` of a repo written by [`ollama_parts`].
pub(super) fn ollama_split(repo: &str) -> (&str, &str) {
    repo.rsplit_once(':').unwrap_or((repo, "latest"))
}
