//! The hub lookup's errors: each names the repo and the hub, and says what to do, in English
//! and Chinese.

use alloc::format;
use alloc::string::{String, ToString};

#[cfg(doc)]
use super::TIMEOUT_SECS;
use super::{Hub, HubKind, MAX_HEADER_BYTES};
use crate::error::InputError;

// Each language's words (and the variables only they use) are compiled only where the build
// shows them, hence `unused_variables` in a build of one language.
#[allow(unused_variables)]
pub(super) fn no_gguf(hub: &Hub, repo: &str, want: &str, choices: &[String]) -> InputError {
    let list = if choices.is_empty() {
        String::from("none")
    } else {
        choices.join(", ")
    };
    let page = hub.page_url(repo);
    input_error!(
        UnknownName,
        "hub",
        ["`{repo}` has no GGUF file matching `{want}`"],
        ["`{repo}` 没有与 `{want}` 相符的 GGUF 文件"],
        ["one of its GGUF files ({list}), by name or a part of it such as Q4_K_M ({page})"],
        ["它的 GGUF 文件之一（{list}），写全名或其中一段，如 Q4_K_M（{page}）"],
    )
}

#[allow(unused_variables)]
pub(super) fn no_layout(hub: &Hub, repo: &str, params: Option<u64>, gguf: bool) -> InputError {
    let what = if gguf {
        "its GGUF header names no architecture vramfit reads, and it has no config.json"
    } else {
        "it has no config.json, and no weights header gives an architecture vramfit reads"
    };
    let what_zh = if gguf {
        "它的 GGUF 头没有 vramfit 能读的架构，也没有 config.json"
    } else {
        "它没有 config.json，权重文件头也给不出 vramfit 能读的架构"
    };
    let count = params.map_or_else(|| String::from("N"), |p| p.to_string());
    input_error!(
        Unsupported,
        "hub",
        ["`{repo}` ({}): {what}", hub.endpoint],
        ["`{repo}`（{}）：{what_zh}", hub.endpoint],
        ["the parameter count alone: --params {count} (the quick estimate)"],
        ["只用参数量：--params {count}（快速估算）"],
    )
}

/// What went wrong with one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The hub answered with this HTTP status; `code` is Hugging Face's `X-Error-Code`
    /// (`GatedRepo`, `RepoNotFound`, `EntryNotFound`) where the face could read it,
    /// `retry_after` the `Retry-After` header.
    Status {
        /// The HTTP status.
        status: u16,
        /// `X-Error-Code`.
        code: Option<String>,
        /// `Retry-After`, in seconds.
        retry_after: Option<u64>,
    },
    /// No answer within this many seconds ([`TIMEOUT_SECS`] by default).
    Timeout(u64),
    /// The hub could not be reached (name, connection, TLS; in a browser also a refused
    /// cross-origin answer or the page's security policy): the face's words.
    Network(String),
    /// A header announces this many bytes, over [`MAX_HEADER_BYTES`].
    TooLarge(u64),
    /// A file list, config.json or index of this many bytes, over [`super::MAX_TEXT_BYTES`].
    TooLong(u64),
    /// An answer that is not what the hub sends (not JSON, cut short): why.
    Unreadable(String),
}

/// What was asked of the hub when it failed, as its errors say it.
struct Asked<'a> {
    /// The hub's endpoint.
    at: &'a str,
    repo: &'a str,
    /// The file read (`""`: its file list).
    file: &'a str,
    /// The repo's page on the hub.
    page: String,
    /// The file's name, or "its file list", in English and Chinese.
    what: String,
    what_zh: String,
    /// Where else to read it, in English and Chinese.
    mirror: &'static str,
    mirror_zh: &'static str,
}

/// The error for `f` while reading `file` of `repo` (`""`: its file list), naming the repo and
/// saying what to do: an HTTP status by [`status_error`], the rest by [`transport_error`].
pub fn failure(hub: &Hub, repo: &str, file: &str, f: Failure) -> InputError {
    let (what, what_zh) = if file.is_empty() {
        (String::from("its file list"), String::from("文件列表"))
    } else {
        (file.to_string(), file.to_string())
    };
    if let (Failure::Status { status: 404, .. }, HubKind::Ollama | HubKind::Url) = (&f, hub.kind) {
        return missing(hub, repo, &what, &what_zh);
    }
    let (mirror, mirror_zh) = elsewhere(hub.kind);
    let asked = Asked {
        at: &hub.endpoint,
        repo,
        file,
        page: hub.page_url(repo),
        what,
        what_zh,
        mirror,
        mirror_zh,
    };
    match f {
        Failure::Status {
            status,
            code,
            retry_after,
        } => status_error(&asked, status, code.as_deref(), retry_after),
        other => transport_error(hub, &asked, other),
    }
}

/// The error for an HTTP `status` (with Hugging Face's `X-Error-Code` `code` and the
/// `Retry-After` seconds): gated or private, missing, rate-limited, or any other.
#[allow(unused_variables)]
fn status_error(
    asked: &Asked,
    status: u16,
    code: Option<&str>,
    retry_after: Option<u64>,
) -> InputError {
    let Asked {
        at,
        repo,
        file,
        page,
        what,
        what_zh,
        mirror,
        mirror_zh,
    } = asked;
    match status {
        401 | 403 if code != Some("RepoNotFound") => {
            let gated = code == Some("GatedRepo");
            let why = if gated {
                "gated"
            } else {
                "gated, private or missing"
            };
            let why_zh = if gated {
                "需授权（gated）"
            } else {
                "需授权、私有或不存在"
            };
            input_error!(
                Hub,
                "hub",
                ["`{repo}` on {at} is {why}: HTTP {status} for {what}"],
                ["{at} 上的 `{repo}` {why_zh}：读取 {what_zh} 得到 HTTP {status}"],
                [
                    "a public repo (vramfit sends no token): for a gated one, accept its licence at {page}, download its config.json and read that file instead"
                ],
                [
                    "公开仓库（vramfit 不发送令牌）：需授权的仓库请在 {page} 接受许可，下载其 config.json 后改读该文件"
                ],
            )
        }
        _ if status == 404 || code == Some("RepoNotFound") => {
            if file.is_empty() || code == Some("RepoNotFound") {
                input_error!(
                    Hub,
                    "hub",
                    [
                        "`{repo}` is not on {at} (HTTP {status}): it does not exist, or it is private"
                    ],
                    ["{at} 上没有 `{repo}`（HTTP {status}）：仓库不存在，或是私有的"],
                    "the OWNER/NAME of a public repo, as its page writes it (letters and case as shown)",
                    "公开仓库的 OWNER/NAME，照仓库页上的写法（大小写一致）",
                )
            } else {
                input_error!(
                    Hub,
                    "hub",
                    ["`{repo}` on {at} has no {what} (HTTP {status})"],
                    ["{at} 上的 `{repo}` 没有 {what_zh}（HTTP {status}）"],
                    ["a repo with a config.json and safetensors or GGUF weights ({page})"],
                    ["含 config.json 与 safetensors 或 GGUF 权重的仓库（{page}）"],
                )
            }
        }
        429 => {
            let wait = retry_after.map_or_else(String::new, |s| format!(" {s} s"));
            input_error!(
                Hub,
                "hub",
                ["{at} is limiting requests (HTTP 429) while reading {what} of `{repo}`"],
                ["{at} 正在限制请求（HTTP 429），读取 `{repo}` 的 {what_zh} 时"],
                [
                    "a later try: wait{wait} and ask again (a model once read is kept in the cache), or use {mirror}"
                ],
                ["稍后再试：等待{wait}后重新查询（读过的模型会缓存），或改用{mirror_zh}"],
            )
        }
        _ => input_error!(
            Hub,
            "hub",
            ["{at} answered HTTP {status} for {what} of `{repo}`"],
            ["{at} 对 `{repo}` 的 {what_zh} 返回 HTTP {status}"],
            ["a hub that answers: try again later, or use {mirror}"],
            ["能正常应答的仓库：稍后再试，或改用{mirror_zh}"],
        ),
    }
}

/// The error for a failure with no HTTP status: no answer in time, no connection, an answer
/// too large or unreadable.
#[allow(unused_variables)]
fn transport_error(hub: &Hub, asked: &Asked, f: Failure) -> InputError {
    let Asked {
        at,
        repo,
        what,
        what_zh,
        mirror,
        mirror_zh,
        ..
    } = asked;
    let (served, served_zh) = match hub.kind {
        HubKind::HuggingFace | HubKind::ModelScope => (
            "check that {at} is a Hugging Face or ModelScope hub",
            "请确认 {at} 是 Hugging Face 或 ModelScope 仓库",
        ),
        HubKind::Ollama => (
            "check that {at} is an Ollama registry (registry.ollama.ai)",
            "请确认 {at} 是 Ollama 注册表（registry.ollama.ai）",
        ),
        HubKind::Url => (
            "a server that sends a GGUF file's bytes as asked (HTTP Range)",
            "按请求返回 GGUF 文件字节（HTTP Range）的服务器",
        ),
    };
    let served = served.replace("{at}", at);
    let served_zh = served_zh.replace("{at}", at);
    match f {
        Failure::Timeout(secs) => input_error!(
            Hub,
            "hub",
            ["{at} did not answer within {secs} s for {what} of `{repo}`"],
            ["{at} 在 {secs} 秒内没有应答（`{repo}` 的 {what_zh}）"],
            ["a reachable hub: check the network, or use {mirror}"],
            ["可访问的仓库：检查网络，或改用{mirror_zh}"],
        ),
        Failure::Network(why) => input_error!(
            Hub,
            "hub",
            ["{at} could not be reached for {what} of `{repo}`: {why}"],
            ["无法访问 {at}（`{repo}` 的 {what_zh}）：{why}"],
            ["a reachable hub: check the network, or use {mirror}"],
            ["可访问的仓库：检查网络，或改用{mirror_zh}"],
        ),
        Failure::TooLarge(n) => {
            let max = MAX_HEADER_BYTES >> 20;
            input_error!(
                Hub,
                "hub",
                [
                    "{what} of `{repo}` announces a header of {n} bytes, over the {max} MiB vramfit reads"
                ],
                [
                    "`{repo}` 的 {what_zh} 声明的文件头有 {n} 字节，超过 vramfit 读取的上限 {max} MiB"
                ],
                ["a checkpoint whose headers are at most {max} MiB; or its config.json read alone"],
                ["文件头不超过 {max} MiB 的检查点；或只读取它的 config.json"],
            )
        }
        Failure::TooLong(n) => {
            let max = super::MAX_TEXT_BYTES >> 20;
            input_error!(
                Hub,
                "hub",
                [
                    "{what} of `{repo}` has {n} bytes, over the {max} MiB vramfit reads of such a file"
                ],
                ["`{repo}` 的 {what_zh} 有 {n} 字节，超过 vramfit 读取此类文件的上限 {max} MiB"],
                ["a hub's own answer: {served}"],
                ["仓库自身的应答：{served_zh}"],
            )
        }
        Failure::Unreadable(why) => input_error!(
            Hub,
            "hub",
            ["{at} sent for {what} of `{repo}` what vramfit cannot read: {why}"],
            ["{at} 返回的 `{repo}` 的 {what_zh} 无法读取：{why}"],
            ["the hub's own answer: {served}"],
            ["仓库自身的应答：{served_zh}"],
        ),
        // `failure` sends these to `status_error` itself.
        Failure::Status {
            status,
            code,
            retry_after,
        } => status_error(asked, status, code.as_deref(), retry_after),
    }
}

/// Where else to read a model of a hub of `kind`, in English and Chinese.
fn elsewhere(kind: HubKind) -> (&'static str, &'static str) {
    match kind {
        HubKind::HuggingFace => (
            "a mirror (HF_ENDPOINT=https://hf-mirror.com) or ModelScope",
            "镜像（HF_ENDPOINT=https://hf-mirror.com）或 ModelScope",
        ),
        HubKind::ModelScope => ("Hugging Face or a mirror of it", "Hugging Face 或其镜像"),
        HubKind::Ollama => (
            "the model's GGUF on Hugging Face (--hub with its repo)",
            "Hugging Face 上该模型的 GGUF（--hub 加其仓库名）",
        ),
        HubKind::Url => (
            "another copy of the file, e.g. its Hugging Face repo (--hub)",
            "该文件的其他副本，如其 Hugging Face 仓库（--hub）",
        ),
    }
}

/// HTTP 404 from an Ollama registry (no such model or tag) or a web server (no such file).
#[allow(unused_variables)]
fn missing(hub: &Hub, repo: &str, what: &str, what_zh: &str) -> InputError {
    let at = &hub.endpoint;
    if hub.kind == HubKind::Url {
        return input_error!(
            Hub,
            "hub",
            ["{at} has no {what} (HTTP 404)"],
            ["{at} 上没有 {what_zh}（HTTP 404）"],
            "the address of a GGUF file the server serves, as its download link writes it",
            "服务器上 GGUF 文件的地址，照其下载链接的写法",
        );
    }
    let page = hub.page_url(repo);
    input_error!(
        Hub,
        "hub",
        ["`{repo}` is not on {at} (HTTP 404 for {what}): no such model or tag"],
        ["{at} 上没有 `{repo}`（读取 {what_zh} 得到 HTTP 404）：模型或标签不存在"],
        ["a model and tag as ollama.com lists them, e.g. llama3.1:8b or qwen3:30b-a3b ({page})"],
        ["ollama.com 上列出的模型与标签，如 llama3.1:8b 或 qwen3:30b-a3b（{page}）"],
    )
}

/// A reader's error about `file` of `repo` (a config.json of a model type vramfit does not
/// read, a damaged header) as the hub's, naming the repo; with `params`, the hub's count, for a
/// quick estimate instead.
#[allow(unused_variables)]
pub fn in_file(
    hub: &Hub,
    repo: &str,
    file: &str,
    e: &InputError,
    params: Option<u64>,
) -> InputError {
    let at = &hub.endpoint;
    let (field, problem, accepted) = (&e.field, &e.problem, &e.accepted);
    let quick = params.map_or_else(String::new, |p| {
        format!("; or its parameter count alone: --params {p}")
    });
    let quick_zh = params.map_or_else(String::new, |p| format!("；或只用参数量：--params {p}"));
    #[cfg(feature = "zh")]
    let zh = e.zh();
    input_error!(
        [= e.kind],
        "hub",
        ["`{repo}` ({at}), {}: {problem}", shown_field(file, field)],
        [= format!("`{repo}`（{at}），{}：{}", shown_field(file, field), zh.problem)],
        ["{accepted}{quick}"],
        [= format!("{}{quick_zh}", zh.accepted)],
    )
}

/// `file: field`, or the field alone where it names the file already (`config.json: model_type`).
fn shown_field(file: &str, field: &str) -> String {
    if field.starts_with(file) {
        field.to_string()
    } else {
        format!("{file}: {field}")
    }
}
