//! The mock's Ollama registry: `GET /v2/{namespace}/{model}/manifests/{tag}` and
//! `GET /v2/{namespace}/{model}/blobs/{digest}`, as registry.ollama.ai answers them (the Docker
//! registry API v2 that ollama's `server/images.go` `pullModelManifest` and
//! `server/download.go` read): the manifest only for `Accept:
//! application/vnd.docker.distribution.manifest.v2+json`, a blob redirected (307) to the CDN
//! path, as the registry redirects to its storage.
//!
//! `library/qwen2.5:0.5b` is the Q4_K_M file of `Qwen/Qwen2.5-0.5B-Instruct-GGUF` with a
//! projector layer (its size as the manifest says it); `library/mock-tensors:latest` has
//! safetensors layers only; any other name is unknown.

use crate::Answer;

/// The model blob's digest.
pub const MODEL_DIGEST: &str =
    "sha256:c5396e06af294bd101b30dce59131a76d2b773e76950acc870eda801d3ab0515";
const PROJECTOR_DIGEST: &str =
    "sha256:8dde1fc2ca50e6ffa4fb9a1b8f8d5a8b4e3d8f3b58d8fd6a1a1b5f1e3d1c0b9a";
const OTHER_DIGEST: &str =
    "sha256:66b9ea09bd5b7099cbb4fc820f31b575c0366fa439b08245566692c6784e281e";
/// The file the model blob is.
pub const MODEL_FILE: &str = "Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf";
/// The projector's size in the manifest.
pub const PROJECTOR_SIZE: u64 = 199_128_000;

fn layer(kind: &str, digest: &str, size: u64) -> String {
    format!(
        r#"{{"mediaType":"application/vnd.ollama.image.{kind}","digest":"{digest}","size":{size}}}"#
    )
}

fn manifest(layers: &[String]) -> String {
    format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json","config":{{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"{OTHER_DIGEST}","size":487}},"layers":[{}]}}"#,
        layers.join(",")
    )
}

fn registry_error(status: u16, code: &str, message: &str) -> Answer {
    Answer::json(
        status,
        format!(r#"{{"errors":[{{"code":"{code}","message":"{message}","detail":null}}]}}"#),
    )
}

/// The answer to `path` (`/v2/…`), or `None` for another path.
pub fn route(path: &str, accept: Option<&str>, base: &str, model_len: u64) -> Option<Answer> {
    let rest = path.strip_prefix("/v2/")?;
    let mut it = rest.splitn(4, '/');
    let (ns, model, what, arg) = (it.next()?, it.next()?, it.next()?, it.next()?);
    let name = format!("{ns}/{model}");
    Some(match what {
        "manifests" => {
            let wanted = "application/vnd.docker.distribution.manifest.v2+json";
            if accept.is_none_or(|a| !a.contains(wanted)) {
                return Some(registry_error(
                    404,
                    "MANIFEST_UNKNOWN",
                    "manifest unknown for the media types accepted",
                ));
            }
            match (name.as_str(), arg) {
                ("library/qwen2.5", "0.5b") => Answer::json(
                    200,
                    manifest(&[
                        layer("model", MODEL_DIGEST, model_len),
                        layer("projector", PROJECTOR_DIGEST, PROJECTOR_SIZE),
                        layer("template", OTHER_DIGEST, 1482),
                        layer("params", OTHER_DIGEST, 96),
                    ]),
                ),
                ("library/mock-tensors", "latest") => {
                    Answer::json(200, manifest(&[layer("tensor", OTHER_DIGEST, 1_000_000)]))
                }
                _ => registry_error(404, "MANIFEST_UNKNOWN", "manifest unknown"),
            }
        }
        "blobs" if arg == MODEL_DIGEST => {
            Answer::new(307, "").header("Location", format!("{base}/__cdn/{MODEL_FILE}"))
        }
        _ => registry_error(404, "BLOB_UNKNOWN", "blob unknown to registry"),
    })
}
