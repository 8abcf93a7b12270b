//! The hub lookup on the site (full build): a repo id typed in the calculator, looked up on
//! Hugging Face or ModelScope when the person presses the button, never before.
//!
//! What is read, and in which order, is `vramfit::hub`'s (the CLI does the same); [`fetch`]
//! does the requests with the browser's `fetch`. The model it gives is kept:
//!
//! - in the state, as the `config` extra (`{"vramfit_hub": …}`, [`to_extra`]), which the link
//!   leaves out: a link carries `source=hub&model=OWNER/NAME`, and reopens the model from this
//!   browser's cache, or shows the button;
//! - in `localStorage` ([`CACHE_KEY`]), by endpoint and repo, once read whole: a failure is
//!   never stored, and a stored model is checked again when read back ([`Cache::get`]).
//!
//! The hub's address is a setting of this browser ([`ENDPOINT_KEY`]); the page's
//! Content-Security-Policy lets it reach exactly the hubs of [`ENDPOINTS`] and their download
//! hosts ([`CONNECT_SRC`]; `cargo xtask size` checks that the built page says exactly that).

pub mod fetch;

use vramfit::InputError;
use vramfit::headers::TypeCount;
use vramfit::hub::{Checkpoint, Hub, HubKind, HubModel};

/// The key of the `config` extra that holds a looked-up model.
pub const EXTRA_KEY: &str = "vramfit_hub";

/// `localStorage` key of the hub's address.
pub const ENDPOINT_KEY: &str = "vramfit.hub.endpoint";

/// `localStorage` key of the models looked up, by endpoint and repo.
pub const CACHE_KEY: &str = "vramfit.hub.models";

/// The most models the cache keeps (the oldest go first); each is a few kilobytes.
pub const CACHE_MODELS: usize = 40;

/// The hubs the site offers, in a list: Hugging Face, whose answers (and its CDN's) carry CORS
/// headers (https://huggingface.co/.well-known/meta.json lists the CDN hosts, all under `hf.co`);
/// its mirror hf-mirror.com, which the guide's readers in China use; and ModelScope, whose site
/// and CDN (`cdn-lfs-cn-*.modelscope.cn`) send `Access-Control-Allow-Origin: *` and allow `Range`
/// (https://github.com/modelscope/modelscope/issues/1399). hf-mirror.com turned cross-origin
/// answers off (https://github.com/padeoe/hf-mirror-site/issues/23): the policy lets the page ask,
/// and a refused answer is named as such with the command line that reads it ([`cli_command`]).
pub const ENDPOINTS: [&str; 4] = [
    "https://huggingface.co",
    "https://hf-mirror.com",
    "https://www.modelscope.cn",
    "https://modelscope.cn",
];

/// The page's `connect-src`: itself, and the hubs with the hosts their downloads redirect to
/// (a source without a scheme takes the page's, `https:` on the web).
pub const CONNECT_SRC: &str =
    "'self' huggingface.co *.hf.co hf-mirror.com *.hf-mirror.com modelscope.cn *.modelscope.cn";

/// Whether the page's policy lets it reach `host` ([`CONNECT_SRC`]).
fn allowed(host: &str) -> bool {
    ["huggingface.co", "hf-mirror.com", "modelscope.cn"].contains(&host)
        || [".hf.co", ".hf-mirror.com", ".modelscope.cn"]
            .iter()
            .any(|d| host.ends_with(d))
}

/// The hub at `endpoint` (empty: Hugging Face), refused without a request when the page's
/// security policy would block it, with what to do instead.
pub fn hub_at(endpoint: &str) -> Result<Hub, InputError> {
    let e = endpoint.trim().trim_end_matches('/');
    let e = if e.is_empty() { ENDPOINTS[0] } else { e };
    let hub = Hub::at(e)?;
    let host = hub
        .endpoint
        .strip_prefix("https://")
        .map(|r| r.split('/').next().unwrap_or(""));
    if host.is_some_and(allowed) {
        return Ok(hub);
    }
    let (list, cli) = (ENDPOINTS.join(", "), cli_command(&hub, "OWNER/NAME"));
    Err(vramfit::input_error!(
        Unsupported,
        "hub",
        ["this page may reach only {list} (its security policy), not {e}"],
        ["本页只能访问 {list}（其安全策略），不能访问 {e}"],
        ["one of those; for {e}, the command line: {cli}"],
        ["其中之一；{e} 请用命令行：{cli}"],
    ))
}

/// What `text` names on `hub` (the hub chosen): a repo there, or a GGUF file's address or a
/// Hugging Face file link ([`vramfit::hub::target`]); refused without a request when the
/// page's policy would block the host it names (an Ollama registry, a server not of
/// [`CONNECT_SRC`]), with the hosts the page reads and the command line, which reads any.
pub fn target_at(hub: &Hub, text: &str) -> Result<vramfit::hub::Target, InputError> {
    let t = vramfit::hub::target(text, Some(hub))?;
    let host = t
        .hub
        .endpoint
        .strip_prefix("https://")
        .map(|r| r.split('/').next().unwrap_or(""));
    if t.hub == *hub || host.is_some_and(allowed) {
        return Ok(t);
    }
    let (list, cli, at) = (
        ENDPOINTS.join(", "),
        cli_command(&t.hub, &t.repo),
        t.hub.endpoint.clone(),
    );
    Err(vramfit::input_error!(
        Unsupported,
        "hub",
        [
            "this page may reach only {list} and their download hosts (its security policy), not {at}"
        ],
        ["本页只能访问 {list} 及其下载主机（其安全策略），不能访问 {at}"],
        ["a model on one of those; for {at}, the command line, which reads any address: {cli}"],
        ["上述仓库中的模型；{at} 请用可读取任意地址的命令行：{cli}"],
    ))
}

/// The command line that looks `repo` up on `hub`, for a hub the page cannot reach: the CLI
/// reads any address (`HF_ENDPOINT`, as huggingface_hub does, for a Hugging Face mirror).
pub fn cli_command(hub: &Hub, repo: &str) -> String {
    match hub.kind {
        HubKind::HuggingFace if hub.endpoint == ENDPOINTS[0] => {
            format!("vramfit estimate --model {repo} --hub")
        }
        HubKind::HuggingFace => format!(
            "HF_ENDPOINT={} vramfit estimate --model {repo} --hub",
            hub.endpoint
        ),
        HubKind::ModelScope => format!(
            "vramfit estimate --model {repo} --hub modelscope --hub-endpoint {}",
            hub.endpoint
        ),
        HubKind::Ollama => format!("vramfit estimate --model {repo} --hub ollama"),
        HubKind::Url => format!("vramfit estimate --model {repo}"),
    }
}

/// The `config` extra of a looked-up model.
pub fn to_extra(m: &HubModel) -> String {
    let json = serde_json::to_string(m).unwrap_or_default();
    format!("{{\"{EXTRA_KEY}\":{json}}}")
}

/// The model of a `config` extra written by [`to_extra`], checked; `None` when the text is not
/// one.
pub fn from_extra(text: &str) -> Option<HubModel> {
    let inner = text
        .strip_prefix(&format!("{{\"{EXTRA_KEY}\":"))?
        .strip_suffix('}')?;
    read_model(inner)
}

/// A model from its JSON (as `HubModel` serializes), checked as the estimator checks an
/// architecture. Read by hand from a `Value`, its architecture with the reader the site has for
/// a config.json's, rather than with the derived readers of `HubModel` and its parts, whose
/// code the full build would carry besides.
fn read_model(json: &str) -> Option<HubModel> {
    use serde_json::Value;
    let v: Value = serde_json::from_str(json).ok()?;
    let text = |v: &Value, k: &str| v.get(k)?.as_str().map(str::to_string);
    let num = |v: &Value, k: &str| v.get(k)?.as_u64();
    let texts = |v: &Value, k: &str| {
        v.get(k)?
            .as_array()?
            .iter()
            .map(|x| x.as_str().map(str::to_string))
            .collect::<Option<Vec<String>>>()
    };
    let hub = v.get("hub")?;
    let kind = match hub.get("kind")?.as_str()? {
        "huggingface" => HubKind::HuggingFace,
        "modelscope" => HubKind::ModelScope,
        _ => return None,
    };
    let checkpoint = match v.get("checkpoint")? {
        Value::Null => None,
        c => Some(Checkpoint {
            format: text(c, "format")?,
            files: texts(c, "files")?,
            tensors: num(c, "tensors")?,
            params: num(c, "params")?,
            bytes: num(c, "bytes")?,
            by_dtype: c
                .get("by_dtype")?
                .as_array()?
                .iter()
                .map(|t| {
                    Some(TypeCount {
                        dtype: text(t, "dtype")?,
                        tensors: num(t, "tensors")?,
                        params: num(t, "params")?,
                        bytes: t.get("bytes")?.as_u64(),
                    })
                })
                .collect::<Option<Vec<TypeCount>>>()?,
        }),
    };
    let m = HubModel {
        repo: text(&v, "repo")?,
        hub: Hub {
            kind,
            endpoint: text(hub, "endpoint")?,
        },
        revision: text(&v, "revision")?,
        model: serde_json::from_value(v.get("model")?.clone()).ok()?,
        notes_zh: texts(&v, "notes_zh")?,
        checkpoint,
        files_read: texts(&v, "files_read")?,
        bytes_read: num(&v, "bytes_read")?,
    };
    m.validate().ok().map(|()| m)
}

/// The models looked up in this browser, as `localStorage` keeps them: a JSON array of
/// `[key, model]`, oldest first, the key `ENDPOINT|REPO`, the model as JSON text (read back
/// with the reader of [`from_extra`], and checked).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cache(Vec<(String, String)>);

impl Cache {
    /// The cache stored as `text` (absent or unreadable: empty).
    pub fn read(text: Option<&str>) -> Cache {
        Cache(
            text.and_then(|t| serde_json::from_str(t).ok())
                .unwrap_or_default(),
        )
    }

    /// The text to store.
    pub fn text(&self) -> String {
        serde_json::to_string(&self.0).unwrap_or_else(|_| "[]".into())
    }

    fn key(endpoint: &str, repo: &str) -> String {
        format!("{endpoint}|{repo}")
    }

    /// The model of `repo` read from `endpoint`, if kept and still valid.
    pub fn get(&self, endpoint: &str, repo: &str) -> Option<HubModel> {
        let key = Cache::key(endpoint, repo);
        let (_, json) = self.0.iter().rev().find(|(k, _)| *k == key)?;
        read_model(json).filter(|m| m.repo == repo && m.hub.endpoint == endpoint)
    }

    /// Keeps `m`, the newest, dropping its older copy and the oldest past [`CACHE_MODELS`].
    pub fn put(&mut self, m: &HubModel) {
        let key = Cache::key(&m.hub.endpoint, &m.repo);
        self.0.retain(|(k, _)| *k != key);
        if let Ok(json) = serde_json::to_string(m) {
            self.0.push((key, json));
        }
        let over = self.0.len().saturating_sub(CACHE_MODELS);
        self.0.drain(..over);
    }

    /// How many models are kept.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(repo: &str, endpoint: &str) -> HubModel {
        let config = vramfit::config::parse_config(
            r#"{"model_type":"llama","vocab_size":1000,"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,"torch_dtype":"bfloat16"}"#,
        )
        .unwrap();
        let read = vramfit::hub::Read {
            config: Some(config),
            ..Default::default()
        };
        vramfit::hub::assemble(&Hub::at(endpoint).unwrap(), repo, read, None).unwrap()
    }

    #[test]
    fn the_page_reaches_exactly_the_hubs_its_policy_allows() {
        assert_eq!(hub_at("").unwrap().endpoint, "https://huggingface.co");
        assert_eq!(
            hub_at("https://huggingface.co/").unwrap().endpoint,
            "https://huggingface.co"
        );
        let ms = hub_at("https://www.modelscope.cn").unwrap();
        assert_eq!(ms.kind, vramfit::hub::HubKind::ModelScope);
        // Every hub of the list is allowed, the mirror and ModelScope's bare name too.
        for e in ENDPOINTS {
            assert_eq!(hub_at(e).unwrap().endpoint, e);
        }
        assert_eq!(
            hub_at("https://hf-mirror.com").unwrap().kind,
            vramfit::hub::HubKind::HuggingFace
        );
        for blocked in [
            "http://huggingface.co",
            "https://huggingface.co.evil.com",
            "https://evilmodelscope.cn",
            "https://hf-mirror.com.example.com",
            "https://example.com",
        ] {
            let e = hub_at(blocked).unwrap_err();
            assert_eq!(e.field, "hub");
            assert_eq!(e.kind, vramfit::ErrorKind::Unsupported);
            assert!(e.accepted.contains("vramfit estimate"), "{blocked}: {e}");
        }
        assert!(hub_at("not a url").is_err());
        // The policy's list in the shell is this one.
        let html = include_str!("../../../www/index.html");
        let csp = html
            .split("connect-src ")
            .nth(1)
            .unwrap()
            .split(';')
            .next()
            .unwrap();
        assert_eq!(csp, CONNECT_SRC);
    }

    #[test]
    fn a_hub_the_page_cannot_reach_is_read_by_the_command_line() {
        let at = |e: &str| Hub::at(e).unwrap();
        assert_eq!(
            cli_command(&at("https://hf-mirror.com"), "Qwen/Qwen3-8B"),
            "HF_ENDPOINT=https://hf-mirror.com vramfit estimate --model Qwen/Qwen3-8B --hub"
        );
        assert_eq!(
            cli_command(&at("https://huggingface.co"), "a/b"),
            "vramfit estimate --model a/b --hub"
        );
        assert_eq!(
            cli_command(&at("https://modelscope.cn"), "a/b"),
            "vramfit estimate --model a/b --hub modelscope --hub-endpoint https://modelscope.cn"
        );
    }

    #[test]
    fn an_address_is_read_where_the_policy_allows_its_host_and_else_named() {
        let hf = hub_at("").unwrap();
        // A Hugging Face file link: the repo and the file, on the hub in use.
        let t = target_at(&hf, "https://huggingface.co/a/b/resolve/main/m-Q4_K_M.gguf").unwrap();
        assert_eq!((t.hub, t.repo.as_str()), (hf.clone(), "a/b"));
        assert_eq!(t.file.as_deref(), Some("m-Q4_K_M.gguf"));
        // A GGUF on a download host of the policy.
        let url = "https://cas-bridge.xethub.hf.co/x/m.gguf";
        let t = target_at(&hf, url).unwrap();
        assert_eq!(
            (t.hub.kind, t.repo.as_str()),
            (vramfit::hub::HubKind::Url, url)
        );
        // Any other server, and Ollama's registry: the hosts the page reads, and the command.
        for (text, cli) in [
            (
                "https://files.example.com/m.gguf",
                "vramfit estimate --model https://files.example.com/m.gguf",
            ),
            (
                "registry.ollama.ai/library/qwen3:8b",
                "vramfit estimate --model library/qwen3:8b --hub ollama",
            ),
        ] {
            let e = target_at(&hf, text).unwrap_err();
            assert!(
                e.problem
                    .contains("this page may reach only https://huggingface.co"),
                "{e}"
            );
            assert!(e.accepted.contains(cli), "{e}");
        }
    }

    #[test]
    fn a_model_goes_into_the_state_and_comes_back_checked() {
        let mut m = model("x/y", "https://huggingface.co");
        // With a checkpoint, read back by hand as the derived reader reads it.
        m.checkpoint = Some(Checkpoint {
            format: "gguf".into(),
            files: vec!["a.gguf".into()],
            tensors: 2,
            params: 10,
            bytes: 20,
            by_dtype: vec![TypeCount {
                dtype: "IQ1_M".into(),
                tensors: 2,
                params: 10,
                bytes: None,
            }],
        });
        m.notes_zh = vec!["甲".into()];
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(serde_json::from_str::<HubModel>(&json).unwrap(), m);
        assert_eq!(read_model(&json), Some(m.clone()));
        let extra = to_extra(&m);
        assert!(extra.starts_with("{\"vramfit_hub\":{"));
        assert_eq!(from_extra(&extra), Some(m));
        assert_eq!(from_extra("{\"model_type\":\"llama\"}"), None);
        let damaged = extra.replace("\"hidden_size\":64", "\"hidden_size\":0");
        assert_eq!(
            from_extra(&damaged),
            None,
            "an architecture out of range is not used"
        );
    }

    #[test]
    fn the_cache_keeps_models_by_endpoint_and_repo_newest_last() {
        let mut c = Cache::read(None);
        assert!(c.is_empty());
        let a = model("x/a", "https://huggingface.co");
        c.put(&a);
        c.put(&model("x/a", "https://www.modelscope.cn"));
        assert_eq!(c.get("https://huggingface.co", "x/a"), Some(a.clone()));
        assert_eq!(c.get("https://huggingface.co", "x/b"), None);
        assert_eq!(
            c.get("https://www.modelscope.cn", "x/a").unwrap().hub.kind,
            vramfit::hub::HubKind::ModelScope
        );
        // Read back from its text; a second copy replaces the first.
        let mut back = Cache::read(Some(&c.text()));
        assert_eq!(back, c);
        back.put(&a);
        assert_eq!(back.len(), 2);
        for i in 0..CACHE_MODELS + 5 {
            back.put(&model(&format!("o/m{i}"), "https://huggingface.co"));
        }
        assert_eq!(back.len(), CACHE_MODELS);
        assert_eq!(
            back.get("https://huggingface.co", "x/a"),
            None,
            "the oldest went first"
        );
        assert!(
            back.get(
                "https://huggingface.co",
                &format!("o/m{}", CACHE_MODELS + 4)
            )
            .is_some()
        );
        // Damaged text: an empty cache; a damaged entry: not used.
        assert!(Cache::read(Some("{oops")).is_empty());
        let bad = c
            .text()
            .replace("\\\"hidden_size\\\":64", "\\\"hidden_size\\\":0");
        assert_ne!(bad, c.text());
        assert_eq!(
            Cache::read(Some(&bad)).get("https://huggingface.co", "x/a"),
            None
        );
    }
}
