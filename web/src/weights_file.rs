//! A dropped weights file (`.safetensors` or `.gguf`), read by its header alone.
//!
//! The browser hands over a `File`; only slices of it are read: 8 bytes, then the safetensors
//! JSON header they announce, or a GGUF prefix that grows to what the header needs. A 10 GB
//! checkpoint costs a few kilobytes to megabytes of reading, never the whole file. The
//! architecture the header gives becomes the calculator's model, kept in the link as a small
//! JSON of its own (`{"vramfit_header": …}`, in the same place as a dropped config.json).

use vramfit::config::ParsedConfig;
use vramfit::headers::{GgufHeader, SafetensorsHeader, TypeCount};
use vramfit::precision::{Dtype, Quantization};
use vramfit::{ErrorKind, InputError};

/// The key that marks a header's model in the `config` extra, instead of a config.json.
pub const HEADER_KEY: &str = "vramfit_header";

/// The largest GGUF prefix read (a header with a 256k-token vocabulary is about 10 MB).
pub const MAX_GGUF_PREFIX: u64 = 64 << 20;

/// The first GGUF prefix read; a longer header asks for more.
const FIRST_GGUF_PREFIX: u64 = 1 << 20;

/// What a weights file's header says, for the page.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// `safetensors` or `gguf`.
    pub format: &'static str,
    /// The file's size in bytes.
    pub file_bytes: u64,
    /// Bytes read from the start of the file.
    pub read_bytes: u64,
    /// Tensors listed.
    pub tensors: u64,
    /// Elements in all tensors.
    pub params: u64,
    /// Element types, largest first.
    pub by_type: Vec<TypeCount>,
    /// The model to estimate, when the tensor names give an architecture.
    pub model: Option<ParsedConfig>,
}

/// The file's kind, from its name or, failing that, its first bytes.
pub fn is_gguf(name: &str, first: &[u8]) -> bool {
    name.to_ascii_lowercase().ends_with(".gguf") || first.starts_with(b"GGUF")
}

/// Whether a file of this name is read as a weights header rather than a config.json.
pub fn is_weights(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.ends_with(".safetensors") || n.ends_with(".gguf")
}

/// The safetensors element type as a compute dtype, or as a quantization for fp8.
fn safetensors_dtype(t: &str) -> (Option<Dtype>, Option<Quantization>) {
    match t {
        "BF16" => (Some(Dtype::Bf16), None),
        "F16" => (Some(Dtype::Fp16), None),
        "F32" => (Some(Dtype::Fp32), None),
        "F8_E4M3" | "F8_E5M2" => (Some(Dtype::Bf16), Some(Quantization::Fp8)),
        _ => (None, None),
    }
}

/// The summary of a safetensors header of a file of `file_bytes` bytes.
pub fn of_safetensors(h: SafetensorsHeader, file_bytes: u64) -> Summary {
    let (dtype, quantization) = h
        .by_dtype
        .first()
        .map_or((None, None), |t| safetensors_dtype(&t.dtype));
    Summary {
        format: "safetensors",
        file_bytes,
        read_bytes: 8 + h.header_len,
        tensors: h.tensor_count,
        params: h.total_params,
        model: h.arch.map(|arch| ParsedConfig {
            arch,
            dtype,
            model_type: "safetensors".into(),
            quantization,
            notes: Vec::new(),
            notes_zh: Vec::new(),
        }),
        by_type: h.by_dtype,
    }
}

/// The summary of a GGUF header of a file of `file_bytes` bytes.
pub fn of_gguf(h: GgufHeader, file_bytes: u64) -> Summary {
    let model_type = match &h.architecture {
        Some(a) => format!("gguf ({a})"),
        None => "gguf".into(),
    };
    Summary {
        format: "gguf",
        file_bytes,
        read_bytes: h.header_bytes,
        tensors: h.tensor_count,
        params: h.total_params,
        model: h.arch.map(|arch| ParsedConfig {
            arch,
            dtype: None,
            model_type,
            quantization: h
                .file_type
                .map(|file_type| Quantization::Gguf { file_type }),
            notes: Vec::new(),
            notes_zh: Vec::new(),
        }),
        by_type: h.by_type,
    }
}

/// The `config` extra for a header's model.
pub fn to_extra(model: &ParsedConfig) -> String {
    let json = serde_json::to_string(model).unwrap_or_default();
    format!("{{\"{HEADER_KEY}\":{json}}}")
}

/// The model of a `config` extra written by [`to_extra`], checked as the estimator checks an
/// architecture; `None` when the text is not one (it is then a config.json).
pub fn from_extra(text: &str) -> Option<Result<ParsedConfig, InputError>> {
    let inner = text
        .strip_prefix(&format!("{{\"{HEADER_KEY}\":"))?
        .strip_suffix('}')?;
    // Through a `Value`, as the form's input is read: the site then carries one deserializer
    // per type (from a `Value`) instead of two (16 KB of wasm).
    Some(
        serde_json::from_str::<serde_json::Value>(inner)
            .and_then(serde_json::from_value::<ParsedConfig>)
            .map_err(|e| {
                InputError::new(
                    ErrorKind::Malformed,
                    "weights header",
                    format!("the model in the link cannot be read: {e}"),
                    "a link written by vramfit after reading a .safetensors or .gguf file",
                )
            })
            .and_then(|c| c.arch.validate("weights header").map(|()| c)),
    )
}

/// Reads the header of `file` (slices only) and summarises it.
pub async fn read(file: &web_sys::File) -> Result<Summary, InputError> {
    let size = file.size().max(0.0) as u64;
    let name = file.name();
    let first = read_range(file, 0, 8.min(size)).await?;
    if is_gguf(&name, &first) {
        let mut want = FIRST_GGUF_PREFIX.min(size);
        loop {
            let bytes = read_range(file, 0, want).await?;
            match vramfit::headers::parse_gguf_header(&bytes) {
                Ok(h) => return Ok(of_gguf(h, size)),
                Err(e) => match vramfit::headers::gguf_prefix_needed(&e) {
                    Some(n) if n > want && n <= size && n <= MAX_GGUF_PREFIX => want = n,
                    Some(n) if n > size => {
                        return Err(InputError::new(
                            ErrorKind::Header,
                            "gguf",
                            format!("the header needs {n} bytes but the file has {size}"),
                            "a complete .gguf file",
                        ));
                    }
                    Some(n) if n > MAX_GGUF_PREFIX => {
                        return Err(InputError::new(
                            ErrorKind::Header,
                            "gguf",
                            format!("the header is longer than {MAX_GGUF_PREFIX} bytes ({n})"),
                            format!("a GGUF header of at most {MAX_GGUF_PREFIX} bytes"),
                        ));
                    }
                    _ => return Err(e),
                },
            }
        }
    }
    let n = vramfit::headers::safetensors_header_len(&first)?;
    if 8 + n > size {
        return Err(InputError::new(
            ErrorKind::Header,
            "safetensors",
            format!("the header claims {n} bytes but the file has {size}"),
            "a complete .safetensors file (8 bytes of length, then that much JSON)",
        ));
    }
    let bytes = read_range(file, 0, 8 + n).await?;
    let h = vramfit::headers::parse_safetensors_header(&bytes)?;
    Ok(of_safetensors(h, size))
}

/// Bytes `start..end` of `file`.
async fn read_range(file: &web_sys::File, start: u64, end: u64) -> Result<Vec<u8>, InputError> {
    let failed = |what: &str| {
        InputError::new(
            ErrorKind::Header,
            "file",
            format!("the browser could not {what} the file"),
            "a file the page may read",
        )
    };
    let blob = file
        .slice_with_f64_and_f64(start as f64, end as f64)
        .map_err(|_| failed("slice"))?;
    let buf = wasm_bindgen_futures::JsFuture::from(blob.array_buffer())
        .await
        .map_err(|_| failed("read"))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(name: &str) -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fuzz/seeds")
            .join(name);
        std::fs::read(p).unwrap()
    }

    #[test]
    fn a_safetensors_header_becomes_the_model_and_survives_the_link() {
        let bytes = seed("safetensors/tiny-llama-untied");
        let h = vramfit::headers::parse_safetensors_header(&bytes).unwrap();
        let s = of_safetensors(h, 10 << 30);
        // Two Llama blocks of width 64 (4 heads of 16, 2 KV heads, FFN 128), vocab 100, untied:
        // embeddings and head 2 × 100 × 64, per block q 64×64 + k,v 2 × 32×64 + o 64×64 +
        // q/k norms 2 × 16 + MLP 3 × 128×64 + 2 norms × 64, and the final norm 64.
        let block = 64 * 64 + 2 * 32 * 64 + 64 * 64 + 2 * 16 + 3 * 128 * 64 + 2 * 64;
        let want = 2 * 100 * 64 + 2 * block + 64;
        assert_eq!(s.params, want);
        assert_eq!(s.read_bytes, bytes.len() as u64);
        assert_eq!(s.format, "safetensors");
        let m = s.model.expect("a Llama layout");
        assert_eq!(m.arch.params(), want);
        assert_eq!(m.dtype, Some(Dtype::Bf16));
        let extra = to_extra(&m);
        assert!(extra.starts_with("{\"vramfit_header\":"));
        assert_eq!(from_extra(&extra).unwrap().unwrap().arch, m.arch);
    }

    #[test]
    fn a_gguf_header_becomes_the_model_with_its_file_type() {
        let bytes = seed("gguf/qwen2-untied");
        let h = vramfit::headers::parse_gguf_header(&bytes).unwrap();
        let s = of_gguf(h, 5 << 30);
        // Qwen2-style: vocab 1000, width 128, 3 blocks, K/V width 64, FFN 256, q/k/v biases,
        // untied output: 2 × 1000 × 128 + 3 × (2 norms × 128 + q 128×128 + 128 + k,v 2 × (128×64
        // + 64) + o 128×128 + MLP 3 × 128×256) + the final norm 128.
        let block = 2 * 128 + 128 * 128 + 128 + 2 * (128 * 64 + 64) + 128 * 128 + 3 * 128 * 256;
        assert_eq!(s.params, 2 * 1000 * 128 + 3 * block + 128);
        let m = s.model.expect("a Qwen2 layout");
        assert_eq!(m.model_type, "gguf (qwen2)");
        assert_eq!(
            m.quantization,
            Some(Quantization::Gguf {
                file_type: vramfit::precision::GgufFileType::Q4_K_M
            })
        );
        assert_eq!(from_extra(&to_extra(&m)).unwrap().unwrap(), m);
    }

    #[test]
    fn a_config_json_is_not_a_header_and_a_broken_link_names_the_field() {
        assert!(from_extra("{\"model_type\":\"llama\"}").is_none());
        let e = from_extra("{\"vramfit_header\":{\"arch\":1}}")
            .unwrap()
            .unwrap_err();
        assert_eq!(e.field, "weights header");
        assert!(is_weights("Model-00001-of-00004.SafeTensors") && is_weights("m.gguf"));
        assert!(!is_weights("config.json"));
        assert!(is_gguf("weights.bin", b"GGUF\x03\0\0\0"));
    }
}
