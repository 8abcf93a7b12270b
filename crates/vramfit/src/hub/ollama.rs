//! An Ollama registry's manifest: which blob holds the model's GGUF, and a vision model's
//! projector.
//!
//! The registry speaks the Docker registry API v2: `GET /v2/{namespace}/{model}/manifests/{tag}`
//! with `Accept: application/vnd.docker.distribution.manifest.v2+json` (ollama's
//! `server/images.go`, `pullModelManifest`), answered with `{schemaVersion, mediaType, config,
//! layers: [{mediaType, digest, size}]}` (ollama's `manifest/manifest.go` and `layer.go`); the
//! model's GGUF is the layer of media type `application/vnd.ollama.image.model`, a vision
//! model's mmproj the one of `application/vnd.ollama.image.projector` (`server/images.go`,
//! `GetModel`), each read at `/v2/{namespace}/{model}/blobs/{digest}` (`server/download.go`),
//! which redirects to the registry's storage.

use alloc::format;
use alloc::string::{String, ToString};

use serde_json::Value;

use super::{Failure, Hub, failure};
use crate::error::Result;

/// The manifest format asked for (ollama's `pullModelManifest`).
pub const MANIFEST_ACCEPT: &str = "application/vnd.docker.distribution.manifest.v2+json";

/// The media type of the model's GGUF layer.
pub const MODEL_LAYER: &str = "application/vnd.ollama.image.model";

/// The media type of a vision model's projector (mmproj) layer.
pub const PROJECTOR_LAYER: &str = "application/vnd.ollama.image.projector";

/// The file name the lookup gives the manifest in its messages and list of files read.
pub const MANIFEST_FILE: &str = "manifest";

/// One layer: its blob's digest and size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
    /// Bytes, where the manifest says.
    pub size: Option<u64>,
}

/// What a manifest says of the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// The GGUF layer.
    pub model: Layer,
    /// A vision model's projector.
    pub projector: Option<Layer>,
}

/// Reads the manifest of `repo` (`NAMESPACE/MODEL:TAG`) in `body`.
pub fn read_manifest(hub: &Hub, repo: &str, body: &str) -> Result<Manifest> {
    let bad = |why: String| failure(hub, repo, MANIFEST_FILE, Failure::Unreadable(why));
    let root: Value = serde_json::from_str(body).map_err(|e| bad(e.to_string()))?;
    let layers = root
        .get("layers")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no `layers` list".into()))?;
    let mut model = None;
    let mut projector = None;
    let mut kinds = alloc::vec::Vec::new();
    for l in layers {
        let kind = l.get("mediaType").and_then(Value::as_str).unwrap_or("");
        let slot = match kind {
            MODEL_LAYER => &mut model,
            PROJECTOR_LAYER => &mut projector,
            other => {
                if !other.is_empty() && !kinds.contains(&other) && kinds.len() < 8 {
                    kinds.push(other);
                }
                continue;
            }
        };
        if slot.is_some() {
            continue;
        }
        let digest = l.get("digest").and_then(Value::as_str).unwrap_or("");
        if !is_digest(digest) {
            return Err(bad_digest(hub, repo, digest));
        }
        let size =
            match l.get("size") {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.as_u64().ok_or_else(|| {
                    bad(format!("the size of layer {digest} is not a byte count"))
                })?),
            };
        *slot = Some(Layer {
            digest: digest.to_string(),
            size,
        });
    }
    let Some(model) = model else {
        return Err(no_model_layer(hub, repo, &kinds.join(", ")));
    };
    Ok(Manifest { model, projector })
}

/// `sha256:` and 64 lowercase hex digits, as the registry writes a digest.
pub fn is_digest(d: &str) -> bool {
    d.strip_prefix("sha256:").is_some_and(|h| {
        h.len() == 64
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

#[allow(unused_variables)]
fn bad_digest(hub: &Hub, repo: &str, digest: &str) -> crate::error::InputError {
    let shown: String = digest.chars().take(100).collect();
    let at = &hub.endpoint;
    input_error!(
        Hub,
        "hub",
        ["`{repo}` ({at}): its manifest names the blob `{shown}`, which is not a digest"],
        ["`{repo}`（{at}）：其清单中的文件 `{shown}` 不是摘要"],
        "a registry's manifest, whose layers are named sha256: and 64 hex digits",
        "注册表的清单，其各层以 sha256: 加 64 位十六进制数命名",
    )
}

#[allow(unused_variables)]
fn no_model_layer(hub: &Hub, repo: &str, kinds: &str) -> crate::error::InputError {
    let at = &hub.endpoint;
    let kinds = if kinds.is_empty() { "none" } else { kinds };
    input_error!(
        Unsupported,
        "hub",
        [
            "`{repo}` ({at}): its manifest has no GGUF model layer ({MODEL_LAYER}); its layers: {kinds}"
        ],
        ["`{repo}`（{at}）：其清单中没有 GGUF 模型层（{MODEL_LAYER}）；其层：{kinds}"],
        "an Ollama model whose weights are a GGUF file, as the library's are; or the model's GGUF on Hugging Face",
        "权重为 GGUF 文件的 Ollama 模型（如官方库中的模型）；或 Hugging Face 上该模型的 GGUF",
    )
}
