//! Checkpoint headers: what a safetensors or GGUF file holds, read from its first bytes only.
//!
//! Both formats put a header before the weights, so the site slices the file (a `File` is a
//! `Blob`) and never reads gigabytes: for safetensors, [`safetensors_header_len`] on the first
//! 8 bytes says how many to read (and [`parse_safetensors_shards`] joins the shards of a large
//! checkpoint); for GGUF, [`parse_gguf_header`] says, when the prefix is too
//! short, how many bytes the header needs at least ([`gguf_prefix_needed`] reads that number
//! back from the error).
//!
//! The bytes are untrusted. Every count and length read from them is checked against a cap and
//! against the bytes that remain before anything is allocated from it, so a header that claims
//! 2^60 tensors or a 2^40-byte string costs an error, not memory or time.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::Value;

use crate::error::{InputError, Result};
use crate::model::{Architecture, Family, Moe, Norm};
use crate::precision::{GgmlType, GgufFileType};

/// Largest safetensors header accepted (the format's own limit is 100 MB; real headers of the
/// largest checkpoints are a few hundred KiB per shard).
pub const MAX_SAFETENSORS_HEADER: u64 = 100 << 20;

/// Most tensors a GGUF header may declare (DeepSeek-V3 has about 1,100).
pub const MAX_GGUF_TENSORS: u64 = 1 << 20;
/// Most metadata key–value pairs a GGUF header may declare (real ones have 20 to 60).
pub const MAX_GGUF_KVS: u64 = 1 << 16;
/// Longest GGUF string accepted (chat templates are a few KiB).
pub const MAX_GGUF_STRING: u64 = 1 << 24;
/// Longest GGUF array accepted (vocabularies and merge lists are under a million entries).
pub const MAX_GGUF_ARRAY: u64 = 1 << 25;
/// GGML_MAX_DIMS.
const MAX_GGUF_DIMS: u32 = 4;

/// Parameters and bytes of one element type.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TypeCount {
    /// The type as the file names it: `BF16`, `F8_E4M3` (safetensors), `Q4_K`, `IQ4_XS` (GGUF).
    pub dtype: String,
    /// Tensors of this type.
    pub tensors: u64,
    /// Elements in them (for packed integer layouts such as GPTQ's `I32` qweight, the stored
    /// elements, not the weights they pack).
    pub params: u64,
    /// Bytes they occupy; `None` for a GGUF type whose block size is not known.
    pub bytes: Option<u64>,
}

/// What a safetensors header says.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SafetensorsHeader {
    /// The JSON header's length N (the file's first 8 bytes), summed over shards.
    pub header_len: u64,
    /// Tensors in the file.
    pub tensor_count: u64,
    /// Elements in all tensors.
    pub total_params: u64,
    /// Bytes of tensor data (from `data_offsets`).
    pub total_bytes: u64,
    /// Per element type, largest first.
    pub by_dtype: Vec<TypeCount>,
    /// The `__metadata__` map (string values only, as the format requires).
    pub metadata: Vec<(String, String)>,
    /// A best-effort architecture from tensor names and shapes (Llama-style names, dense or
    /// MoE); its `params()` equals `total_params`, with unrecognized tensors in `extra_params`.
    pub arch: Option<Architecture>,
    /// What was assumed or could not be read, one sentence each.
    pub notes: Vec<String>,
}

/// The JSON header's length N from a safetensors file's first 8 bytes (little-endian u64), so
/// the caller can read exactly `8 + N` bytes.
pub fn safetensors_header_len(first8: &[u8]) -> Result<u64> {
    let Some(b) = first8.get(..8) else {
        return Err(InputError::new(
            "safetensors",
            format!("only {} bytes given", first8.len()),
            "the first 8 bytes of the file",
        ));
    };
    let mut le = [0u8; 8];
    le.copy_from_slice(b);
    let n = u64::from_le_bytes(le);
    if n < 2 {
        return Err(InputError::new(
            "safetensors",
            format!("the header length is {n}"),
            "a safetensors file (its first 8 bytes give the JSON header's length)",
        ));
    }
    if n > MAX_SAFETENSORS_HEADER {
        return Err(InputError::new(
            "safetensors",
            format!("the header claims {n} bytes, more than the format's limit"),
            "a safetensors file with a header of at most 100 MiB",
        ));
    }
    Ok(n)
}

/// Reads a safetensors header from the first `8 + N` bytes of the file (more are ignored).
///
/// A sharded checkpoint (`model-00001-of-00004.safetensors`…) has one header per shard, each
/// describing only its own tensors: pass them all to [`parse_safetensors_shards`].
pub fn parse_safetensors_header(bytes: &[u8]) -> Result<SafetensorsHeader> {
    parse_safetensors_shards(&[bytes])
}

/// Reads the headers of all shards of one checkpoint (each the first `8 + N` bytes of its
/// file) into one summary: counts summed, metadata from the first shard, and the architecture
/// guessed from the tensors of all shards together. `header_len` is the sum of the shards'.
pub fn parse_safetensors_shards(shards: &[&[u8]]) -> Result<SafetensorsHeader> {
    if shards.is_empty() || shards.len() > 4096 {
        return Err(InputError::new(
            "safetensors",
            format!("{} shards given", shards.len()),
            "the headers of 1 to 4096 shards",
        ));
    }
    let mut out = SafetensorsHeader {
        header_len: 0,
        tensor_count: 0,
        total_params: 0,
        total_bytes: 0,
        by_dtype: Vec::new(),
        metadata: Vec::new(),
        arch: None,
        notes: Vec::new(),
    };
    let mut shapes: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut types: BTreeMap<String, TypeCount> = BTreeMap::new();
    for (i, bytes) in shards.iter().enumerate() {
        read_shard(bytes, i == 0, &mut out, &mut shapes, &mut types)?;
    }
    out.by_dtype = types.into_values().collect();
    out.by_dtype
        .sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.dtype.cmp(&b.dtype)));
    let packed = shapes.keys().any(|k| {
        k.ends_with("qweight")
            || k.ends_with(".SCB")
            || k.contains("absmax")
            || k.ends_with("_blocks")
            || k.ends_with("weight_packed")
    });
    if packed {
        out.notes.push(String::from(
            "Packed quantized tensors (GPTQ/AWQ qweight, bitsandbytes, MXFP4 blocks, packed W4A16): element counts are stored integers, not weights; read the architecture from config.json.",
        ));
    } else {
        out.arch = guess_architecture(&shapes, out.total_params, &mut out.notes);
    }
    Ok(out)
}

fn read_shard(
    bytes: &[u8],
    first: bool,
    out: &mut SafetensorsHeader,
    shapes: &mut BTreeMap<String, Vec<u64>>,
    types: &mut BTreeMap<String, TypeCount>,
) -> Result<()> {
    let n = safetensors_header_len(bytes)?;
    let end = 8 + n as usize;
    let Some(json) = bytes.get(8..end) else {
        return Err(InputError::new(
            "safetensors",
            format!(
                "the header is {n} bytes but only {} of them were given",
                bytes.len().saturating_sub(8)
            ),
            format!("the first {end} bytes of the file"),
        ));
    };
    let bad = |problem: String| {
        InputError::new(
            "safetensors",
            problem,
            "a safetensors header: {name: {dtype, shape, data_offsets}}",
        )
    };
    // Text, then a `Value`, as config.json is read: one JSON reader in the wasm for both.
    let text = core::str::from_utf8(json)
        .map_err(|e| bad(format!("the header is not UTF-8 text: {e}")))?;
    let root = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err(bad("the header is not a JSON object".into())),
        Err(e) => return Err(bad(format!("the header is not JSON: {e}"))),
    };
    out.header_len = out.header_len.saturating_add(n);
    for (name, v) in root {
        if name == "__metadata__" {
            if let (true, Value::Object(m)) = (first, &v) {
                for (k, v) in m {
                    if let Value::String(s) = v {
                        out.metadata.push((k.clone(), s.clone()));
                    }
                }
            }
            continue;
        }
        let t = v
            .as_object()
            .ok_or_else(|| bad(format!("`{name}` is not an object")))?;
        let dtype = t
            .get("dtype")
            .and_then(Value::as_str)
            .ok_or_else(|| bad(format!("`{name}` has no dtype")))?;
        let shape: Vec<u64> = t
            .get("shape")
            .and_then(Value::as_array)
            .ok_or_else(|| bad(format!("`{name}` has no shape")))?
            .iter()
            .map(Value::as_u64)
            .collect::<Option<Vec<u64>>>()
            .ok_or_else(|| bad(format!("`{name}` has a shape that is not integers")))?;
        let offsets = t
            .get("data_offsets")
            .and_then(Value::as_array)
            .and_then(|a| Some((a.first()?.as_u64()?, a.get(1)?.as_u64()?, a.len())))
            .filter(|&(b, e, len)| len == 2 && b <= e)
            .ok_or_else(|| bad(format!("`{name}` has no valid data_offsets [begin, end]")))?;
        let numel = shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| bad(format!("`{name}` has a shape whose size overflows")))?;
        let size = offsets.1 - offsets.0;
        if let Some(bits) = safetensors_bits(dtype)
            && numel
                .checked_mul(bits)
                .map(|b| b.div_ceil(8))
                .is_none_or(|b| b != size)
        {
            return Err(bad(format!(
                "`{name}`: {numel} elements of {dtype} do not fill its {size} bytes"
            )));
        }
        let entry = types.entry(dtype.to_string()).or_insert(TypeCount {
            dtype: dtype.to_string(),
            tensors: 0,
            params: 0,
            bytes: Some(0),
        });
        entry.tensors += 1;
        entry.params = entry.params.saturating_add(numel);
        entry.bytes = entry.bytes.map(|b| b.saturating_add(size));
        out.tensor_count += 1;
        out.total_params = out.total_params.saturating_add(numel);
        out.total_bytes = out.total_bytes.saturating_add(size);
        shapes.insert(name, shape);
    }
    Ok(())
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Bits per element of a safetensors dtype.
fn safetensors_bits(dtype: &str) -> Option<u64> {
    Some(match dtype {
        "F64" | "I64" | "U64" => 64,
        "F32" | "I32" | "U32" => 32,
        "F16" | "BF16" | "I16" | "U16" => 16,
        "I8" | "U8" | "BOOL" | "F8_E4M3" | "F8_E5M2" | "F8_E8M0" => 8,
        "F4" => 4,
        _ => return None,
    })
}

/// The Llama-style layout (`model.embed_tokens`, `model.layers.N.self_attn.q_proj`…): the
/// llama, mistral, qwen, gemma, phi3 and granite families, their multimodal wrappers, and their
/// MoE variants (Mixtral's `block_sparse_moe.experts.E.w1`, Qwen's `mlp.experts.E.gate_proj`
/// with a `shared_expert`). Returns `None` (with a note) for anything else.
fn guess_architecture(
    shapes: &BTreeMap<String, Vec<u64>>,
    total: u64,
    notes: &mut Vec<String>,
) -> Option<Architecture> {
    let find = |suffix: &str| {
        shapes
            .iter()
            .find(|(k, _)| k.ends_with(suffix))
            .map(|(_, v)| v.as_slice())
    };
    let give_up = |notes: &mut Vec<String>, why: &str| {
        notes.push(format!(
            "No architecture guessed: {why}; a config.json gives it exactly."
        ));
        None
    };
    let Some(&[vocab, hidden]) = find("embed_tokens.weight") else {
        return give_up(notes, "no embed_tokens tensor (not a Llama-style layout)");
    };
    // Per layer index (`.layers.N.` anywhere in a name): whether it holds experts.
    let mut layers = 0u64;
    let mut first_moe: Option<u64> = None;
    let mut experts = 0u64;
    for k in shapes.keys() {
        let Some(rest) = k.split(".layers.").nth(1) else {
            continue;
        };
        let mut parts = rest.split('.');
        let Some(n) = parts.next().and_then(|n| n.parse::<u64>().ok()) else {
            continue;
        };
        layers = layers.max(n.saturating_add(1));
        if let Some(e) = rest.split(".experts.").nth(1) {
            first_moe = Some(first_moe.map_or(n, |f| f.min(n)));
            if let Some(i) = e.split('.').next().and_then(|i| i.parse::<u64>().ok()) {
                experts = experts.max(i.saturating_add(1));
            }
        }
    }
    let layer = |l: u64, suffix: &str| find(&format!(".layers.{l}.{suffix}"));
    let layer0 = |suffix: &str| layer(0, suffix);
    let (Some(&[q_out, _]), Some(&[kv_out, _])) = (
        layer0("self_attn.q_proj.weight"),
        layer0("self_attn.k_proj.weight"),
    ) else {
        return give_up(notes, "no separate q_proj and k_proj in layer 0");
    };
    let mut moe = None;
    let (gated, inter) = match (layer0("mlp.gate_proj.weight"), layer0("mlp.up_proj.weight")) {
        (Some(&[i, _]), _) => (true, i),
        (None, Some(&[i, _])) => (false, i),
        _ if first_moe.is_some() => (true, 0),
        _ => return give_up(notes, "no gate_proj or up_proj in layer 0"),
    };
    if let Some(f) = first_moe {
        let expert = |p: &str| {
            [".mlp.experts.0.", ".block_sparse_moe.experts.0."]
                .iter()
                .find_map(|m| find(&format!(".layers.{f}{m}{p}")))
        };
        let Some(&[expert_inter, _]) = expert("gate_proj.weight")
            .or_else(|| expert("w1.weight"))
            .or_else(|| expert("up_proj.weight"))
        else {
            return give_up(notes, "expert tensors without a recognized name");
        };
        let shared = [
            "mlp.shared_expert.up_proj.weight",
            "mlp.shared_experts.up_proj.weight",
        ]
        .iter()
        .find_map(|s| layer(f, s))
        .map_or(0, |d| d.first().copied().unwrap_or(0));
        notes.push(String::from(
            "Experts per token are not in a safetensors header: 1 assumed (the total is exact; active parameters need config.json's num_experts_per_tok).",
        ));
        moe = Some(Moe {
            num_experts: experts,
            experts_per_token: 1,
            expert_intermediate_size: expert_inter,
            shared_intermediate_size: shared,
            shared_expert_gate: layer(f, "mlp.shared_expert_gate.weight").is_some(),
            first_dense_layers: f,
            router_bias: layer(f, "mlp.gate.e_score_correction_bias").is_some(),
            expert_bias: false,
        });
    }
    let head_dim = match layer0("self_attn.q_norm.weight") {
        Some(&[d]) => d,
        _ => {
            let d = [128u64, 64, 256, 96, 80, 32, 16, 8]
                .into_iter()
                .find(|d| q_out % d == 0 && kv_out % d == 0)
                .unwrap_or_else(|| gcd(q_out, kv_out).max(1));
            notes.push(format!(
                "head_dim is not in a safetensors header; {d} assumed (the KV cache size, kv_heads x head_dim = {kv_out}, is exact either way)."
            ));
            d
        }
    };
    let norms = shapes
        .keys()
        .filter(|k| {
            k.contains(".layers.0.")
                && k.ends_with("norm.weight")
                && !k.ends_with("q_norm.weight")
                && !k.ends_with("k_norm.weight")
        })
        .count() as u64;
    let mut a = Architecture {
        family: Family::CausalLm,
        vocab_size: vocab,
        hidden_size: hidden,
        num_layers: layers,
        num_heads: q_out / head_dim.max(1),
        num_kv_heads: kv_out / head_dim.max(1),
        head_dim,
        intermediate_size: inter,
        gated_ffn: gated,
        tied_embeddings: find("lm_head.weight").is_none(),
        qkv_bias: layer0("self_attn.q_proj.bias").is_some(),
        o_bias: layer0("self_attn.o_proj.bias").is_some(),
        mlp_bias: layer0("mlp.down_proj.bias").is_some(),
        norm: if layer0("input_layernorm.bias").is_some() {
            Norm::Layer
        } else {
            Norm::Rms
        },
        norms_per_layer: norms,
        qk_norm: layer0("self_attn.q_norm.weight").is_some(),
        moe,
        ..Architecture::default()
    };
    if a.validate("safetensors").is_err() {
        return give_up(notes, "the shapes do not form a consistent architecture");
    }
    let modelled = a.params();
    if modelled > total {
        return give_up(
            notes,
            "the layers differ from layer 0 (or a shard is missing)",
        );
    }
    a.extra_params = total - modelled;
    if a.extra_params > 0 {
        notes.push(format!(
            "{} parameters outside the recognized layers (a vision tower, a projector, extra heads) are counted as extra.",
            a.extra_params
        ));
    }
    Some(a)
}

/// What a GGUF header says.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GgufHeader {
    /// GGUF version: 2 or 3.
    pub version: u32,
    /// Tensors declared.
    pub tensor_count: u64,
    /// Metadata key–value pairs declared.
    pub kv_count: u64,
    /// `general.architecture`: `llama`, `qwen2`, `gemma3`…
    pub architecture: Option<String>,
    /// `general.name`.
    pub name: Option<String>,
    /// `<arch>.block_count`.
    pub block_count: Option<u64>,
    /// `<arch>.embedding_length`.
    pub embedding_length: Option<u64>,
    /// `<arch>.attention.head_count`.
    pub head_count: Option<u64>,
    /// `<arch>.attention.head_count_kv` (the largest, where it is given per layer).
    pub head_count_kv: Option<u64>,
    /// `<arch>.context_length`.
    pub context_length: Option<u64>,
    /// `<arch>.feed_forward_length` (the largest, where it is given per layer).
    pub feed_forward_length: Option<u64>,
    /// `<arch>.attention.key_length` (head_dim of keys).
    pub key_length: Option<u64>,
    /// `<arch>.attention.value_length`.
    pub value_length: Option<u64>,
    /// `<arch>.attention.sliding_window`.
    pub sliding_window: Option<u64>,
    /// `<arch>.expert_count`.
    pub expert_count: Option<u64>,
    /// `<arch>.expert_used_count`.
    pub expert_used_count: Option<u64>,
    /// Vocabulary size: `<arch>.vocab_size`, else the length of `tokenizer.ggml.tokens`.
    pub vocab_size: Option<u64>,
    /// `general.file_type` as stored (llama.cpp's `llama_ftype`).
    pub file_type_id: Option<u32>,
    /// `general.file_type` when it is one of the types the estimator models.
    pub file_type: Option<GgufFileType>,
    /// Per ggml type, largest first.
    pub by_type: Vec<TypeCount>,
    /// Elements in all tensors.
    pub total_params: u64,
    /// Bytes of all tensors of known types.
    pub total_bytes: u64,
    /// Bytes from the start of the file to the end of the tensor infos.
    pub header_bytes: u64,
    /// A best-effort architecture from the metadata and the tensor list (dense and MoE decoders);
    /// its `params()` equals `total_params`, with unrecognized tensors in `extra_params`.
    pub arch: Option<Architecture>,
    /// What was assumed or could not be read, one sentence each.
    pub notes: Vec<String>,
}

/// Reads a GGUF (v2 or v3) header from a prefix of the file.
///
/// When the prefix ends inside the header, the error (field `gguf`) says how many bytes the
/// header needs at least; [`gguf_prefix_needed`] returns that number.
pub fn parse_gguf_header(bytes: &[u8]) -> Result<GgufHeader> {
    let mut r = Reader {
        buf: bytes,
        pos: 0,
        rest_min: 0,
    };
    let magic = r.take(4)?;
    if magic != b"GGUF" {
        return Err(InputError::new(
            "gguf",
            "the file does not start with the GGUF magic",
            "a .gguf file (it starts with the bytes `GGUF`)",
        ));
    }
    let version = r.u32()?;
    if !(2..=3).contains(&version) {
        return Err(InputError::new(
            "gguf",
            format!("GGUF version {version}"),
            "GGUF version 2 or 3 (llama.cpp since August 2023)",
        ));
    }
    let tensor_count = r.u64()?;
    let kv_count = r.u64()?;
    if tensor_count > MAX_GGUF_TENSORS {
        return Err(InputError::new(
            "gguf",
            format!("the header claims {tensor_count} tensors"),
            format!("at most {MAX_GGUF_TENSORS} tensors (real models have a few thousand)"),
        ));
    }
    if kv_count > MAX_GGUF_KVS {
        return Err(InputError::new(
            "gguf",
            format!("the header claims {kv_count} metadata entries"),
            format!("at most {MAX_GGUF_KVS} metadata entries (real files have under 100)"),
        ));
    }
    let mut h = GgufHeader {
        version,
        tensor_count,
        kv_count,
        architecture: None,
        name: None,
        block_count: None,
        embedding_length: None,
        head_count: None,
        head_count_kv: None,
        context_length: None,
        feed_forward_length: None,
        key_length: None,
        value_length: None,
        sliding_window: None,
        expert_count: None,
        expert_used_count: None,
        vocab_size: None,
        file_type_id: None,
        file_type: None,
        by_type: Vec::new(),
        total_params: 0,
        total_bytes: 0,
        header_bytes: 0,
        arch: None,
        notes: Vec::new(),
    };
    // The smallest possible rest of the header: 12 bytes per pair, 24 per tensor info.
    let mut kvs: Vec<(String, Scalar)> = Vec::new();
    for i in 0..kv_count {
        r.rest_min = (kv_count - i - 1) * 12 + tensor_count * 24;
        let key = r.string()?;
        let ty = r.u32()?;
        let value = r.value(ty, 0)?;
        kvs.push((key, value));
    }
    let arch = kvs.iter().find_map(|(k, v)| match (k.as_str(), v) {
        ("general.architecture", Scalar::Str(s)) => Some(s.clone()),
        _ => None,
    });
    let get = |key: &str| -> Option<&Scalar> {
        let full = match &arch {
            Some(a) => format!("{a}.{key}"),
            None => return None,
        };
        kvs.iter().find(|(k, _)| *k == full).map(|(_, v)| v)
    };
    let num = |key: &str| get(key).and_then(Scalar::as_u64);
    h.block_count = num("block_count");
    h.embedding_length = num("embedding_length");
    h.head_count = num("attention.head_count");
    h.head_count_kv = num("attention.head_count_kv");
    h.context_length = num("context_length");
    h.feed_forward_length = num("feed_forward_length");
    h.key_length = num("attention.key_length");
    h.value_length = num("attention.value_length");
    h.sliding_window = num("attention.sliding_window");
    h.expert_count = num("expert_count");
    h.expert_used_count = num("expert_used_count");
    h.vocab_size = num("vocab_size").or_else(|| {
        kvs.iter().find_map(|(k, v)| match (k.as_str(), v) {
            ("tokenizer.ggml.tokens", Scalar::Array(n)) => Some(*n),
            _ => None,
        })
    });
    if matches!(get("attention.head_count_kv"), Some(Scalar::MaxOf(_))) {
        h.notes.push(String::from(
            "head_count_kv is given per layer; the largest value is reported.",
        ));
    }
    for (k, v) in &kvs {
        match (k.as_str(), v) {
            ("general.name", Scalar::Str(s)) => h.name = Some(s.clone()),
            ("general.file_type", v) => h.file_type_id = v.as_u64().map(|n| n as u32),
            _ => {}
        }
    }
    h.architecture = arch;
    h.file_type = h.file_type_id.and_then(file_type_from_id);
    // Tensor infos.
    let mut types: BTreeMap<u32, TypeCount> = BTreeMap::new();
    let mut layout = Layout::default();
    for i in 0..tensor_count {
        r.rest_min = (tensor_count - i - 1) * 24;
        let name = r.string()?;
        let n_dims = r.u32()?;
        if n_dims > MAX_GGUF_DIMS {
            return Err(InputError::new(
                "gguf",
                format!("tensor `{name}` has {n_dims} dimensions"),
                "at most 4 dimensions per tensor (GGML_MAX_DIMS)",
            ));
        }
        let mut numel = 1u64;
        let mut dims = [1u64; MAX_GGUF_DIMS as usize];
        for dim in dims.iter_mut().take(n_dims as usize) {
            let d = r.u64()?;
            *dim = d;
            numel = numel.checked_mul(d).ok_or_else(|| {
                InputError::new(
                    "gguf",
                    format!("tensor `{name}` has a shape whose size overflows"),
                    "a GGUF file with real tensor shapes",
                )
            })?;
        }
        let ty = r.u32()?;
        let _offset = r.u64()?;
        layout.see(&name, dims);
        let (label, bytes) = ggml_size(ty, numel);
        let e = types.entry(ty).or_insert(TypeCount {
            dtype: label,
            tensors: 0,
            params: 0,
            bytes: Some(0),
        });
        e.tensors += 1;
        e.params = e.params.saturating_add(numel);
        e.bytes = match (e.bytes, bytes) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            _ => None,
        };
        h.total_params = h.total_params.saturating_add(numel);
        h.total_bytes = h.total_bytes.saturating_add(bytes.unwrap_or(0));
    }
    h.header_bytes = r.pos as u64;
    h.by_type = types.into_values().collect();
    h.by_type
        .sort_by(|a, b| b.params.cmp(&a.params).then(a.dtype.cmp(&b.dtype)));
    let leading_dense = kvs.iter().find_map(|(k, v)| {
        k.strip_suffix(".leading_dense_block_count")
            .filter(|a| Some(*a) == h.architecture.as_deref())
            .and_then(|_| v.as_u64())
    });
    h.arch = gguf_architecture(&h, &layout, leading_dense).map_or_else(
        |why| {
            h.notes.push(format!(
                "No architecture guessed: {why}; a config.json gives it exactly."
            ));
            None
        },
        Some,
    );
    if let Some(a) = &h.arch
        && a.extra_params > 0
    {
        h.notes.push(format!(
            "{} parameters outside the recognized layers (fused or extra tensors) are counted as extra.",
            a.extra_params
        ));
    }
    if h.arch.is_some() && h.sliding_window.is_some() {
        h.notes.push(String::from(
            "The header gives a sliding window but not which layers use it: the KV cache is counted as global on every layer (an upper bound).",
        ));
    }
    for t in &h.by_type {
        if t.bytes.is_none() {
            h.notes.push(format!(
                "ggml type {} has no known block size: its {} elements are left out of the byte total.",
                t.dtype, t.params
            ));
        }
    }
    Ok(h)
}

/// The tensors of a GGUF file that decide its architecture (llama.cpp's names).
#[derive(Default)]
struct Layout {
    /// `token_embd.weight` dims (ne0 = width, ne1 = vocabulary).
    token_embd: Option<[u64; 4]>,
    /// `position_embd.weight` rows (learned positions, GPT-2).
    positions: Option<u64>,
    output: bool,
    /// Suffixes of block 0's tensors (`attn_q.weight`, `ffn_gate.weight`…).
    block0: Vec<String>,
    /// Suffixes seen in any block (MoE files start with dense blocks).
    any_block: BTreeSet<String>,
    /// `ffn_up_exps.weight` dims of the first MoE block: width, expert FFN, experts.
    up_exps: Option<[u64; 4]>,
    /// `ffn_up_shexp.weight` dims: width, shared FFN.
    up_shexp: Option<[u64; 4]>,
}

impl Layout {
    fn see(&mut self, name: &str, dims: [u64; 4]) {
        match name {
            "token_embd.weight" => self.token_embd = Some(dims),
            "position_embd.weight" => self.positions = Some(dims[1]),
            "output.weight" => self.output = true,
            _ => {
                if let Some(rest) = name.strip_prefix("blk.0.") {
                    self.block0.push(rest.to_string());
                }
                let Some(suffix) = name
                    .strip_prefix("blk.")
                    .and_then(|r| r.split_once('.'))
                    .map(|(_, s)| s)
                else {
                    return;
                };
                match suffix {
                    "ffn_up_exps.weight" if self.up_exps.is_none() => self.up_exps = Some(dims),
                    "ffn_up_shexp.weight" if self.up_shexp.is_none() => self.up_shexp = Some(dims),
                    _ => {}
                }
                if !self.any_block.contains(suffix) {
                    self.any_block.insert(suffix.to_string());
                }
            }
        }
    }

    fn has(&self, suffix: &str) -> bool {
        self.block0.iter().any(|s| s == suffix)
    }

    fn any(&self, suffix: &str) -> bool {
        self.any_block.contains(suffix)
    }
}

/// A decoder from the `<arch>.*` keys and the tensor names (dense, or MoE with
/// llama.cpp's `ffn_*_exps` / `ffn_*_shexp` tensors); `Err` says why not.
fn gguf_architecture(
    h: &GgufHeader,
    l: &Layout,
    leading_dense: Option<u64>,
) -> core::result::Result<Architecture, &'static str> {
    if l.any("attn_kv_a_mqa.weight") {
        return Err("multi-head latent attention (DeepSeek) is not read from GGUF metadata");
    }
    let moe = match h.expert_count {
        Some(n) if n > 0 => {
            let up = l
                .up_exps
                .ok_or("expert_count is set but there are no ffn_up_exps tensors")?;
            Some(Moe {
                num_experts: n,
                experts_per_token: h.expert_used_count.unwrap_or(0),
                expert_intermediate_size: up[1],
                shared_intermediate_size: l.up_shexp.map_or(0, |d| d[1]),
                shared_expert_gate: l.any("ffn_gate_inp_shexp.weight"),
                first_dense_layers: leading_dense.unwrap_or(0),
                router_bias: l.any("ffn_gate_inp.bias") || l.any("exp_probs_b.bias"),
                expert_bias: l.any("ffn_down_exps.bias"),
            })
        }
        _ => None,
    };
    let (Some(hidden), Some(layers), Some(heads)) =
        (h.embedding_length, h.block_count, h.head_count)
    else {
        return Err("embedding_length, block_count or head_count is missing");
    };
    if heads == 0 || !l.has("attn_q.weight") && !l.has("attn_qkv.weight") {
        return Err("no attention tensors in block 0");
    }
    let vocab = match l.token_embd {
        Some(d) => d[1],
        None => h
            .vocab_size
            .ok_or("no token_embd tensor and no vocabulary size")?,
    };
    let norms = l
        .block0
        .iter()
        .filter(|s| {
            s.ends_with("norm.weight")
                && !s.starts_with("attn_q_norm")
                && !s.starts_with("attn_k_norm")
        })
        .count() as u64;
    let mut a = Architecture {
        family: Family::CausalLm,
        vocab_size: vocab,
        hidden_size: hidden,
        num_layers: layers,
        num_heads: heads,
        num_kv_heads: h.head_count_kv.unwrap_or(heads),
        head_dim: h.key_length.unwrap_or(hidden / heads),
        intermediate_size: h.feed_forward_length.unwrap_or(0),
        gated_ffn: l.any("ffn_gate.weight") || l.any("ffn_gate_exps.weight"),
        tied_embeddings: !l.output,
        qkv_bias: l.has("attn_q.bias") || l.has("attn_qkv.bias"),
        o_bias: l.has("attn_output.bias"),
        mlp_bias: l.has("ffn_down.bias"),
        norm: if l.has("attn_norm.bias") {
            Norm::Layer
        } else {
            Norm::Rms
        },
        norms_per_layer: norms,
        qk_norm: l.has("attn_q_norm.weight"),
        learned_positions: l.positions.unwrap_or(0),
        max_position_embeddings: h.context_length.unwrap_or(0),
        moe,
        ..Architecture::default()
    };
    a.validate("gguf")
        .map_err(|_| "the metadata does not form a consistent architecture")?;
    let modelled = a.params();
    if modelled > h.total_params {
        return Err("the tensors are fewer than the metadata implies");
    }
    a.extra_params = h.total_params - modelled;
    Ok(a)
}

/// The prefix length (bytes from the start of the file) that a "header continues" error from
/// [`parse_gguf_header`] asks for, so the caller can read that much and try again.
pub fn gguf_prefix_needed(e: &InputError) -> Option<u64> {
    if e.field != "gguf" {
        return None;
    }
    e.accepted
        .strip_prefix("the first ")?
        .split(' ')
        .next()?
        .parse()
        .ok()
}

/// llama.cpp's `llama_ftype` ids of the file types the estimator models.
fn file_type_from_id(id: u32) -> Option<GgufFileType> {
    Some(match id {
        1 => GgufFileType::F16,
        2 => GgufFileType::Q4_0,
        3 => GgufFileType::Q4_1,
        7 => GgufFileType::Q8_0,
        8 => GgufFileType::Q5_0,
        9 => GgufFileType::Q5_1,
        10 => GgufFileType::Q2_K,
        11 => GgufFileType::Q3_K_S,
        12 => GgufFileType::Q3_K_M,
        13 => GgufFileType::Q3_K_L,
        14 => GgufFileType::Q4_K_S,
        15 => GgufFileType::Q4_K_M,
        16 => GgufFileType::Q5_K_S,
        17 => GgufFileType::Q5_K_M,
        18 => GgufFileType::Q6_K,
        _ => return None,
    })
}

/// A ggml type's name and the bytes of `n` elements. Types beyond [`GgmlType`] (i-quants,
/// integer and ternary types, MXFP4) take their block sizes from ggml-common.h here.
fn ggml_size(id: u32, n: u64) -> (String, Option<u64>) {
    if let Some(t) = GgmlType::from_id(id) {
        return (format!("{t:?}"), Some(t.bytes_for(n)));
    }
    let (name, block_bytes, per) = match id {
        16 => ("IQ2_XXS", 66, 256),
        17 => ("IQ2_XS", 74, 256),
        18 => ("IQ3_XXS", 98, 256),
        19 => ("IQ1_S", 50, 256),
        9 => ("Q8_1", 36, 32),
        20 => ("IQ4_NL", 18, 32),
        21 => ("IQ3_S", 110, 256),
        22 => ("IQ2_S", 82, 256),
        23 => ("IQ4_XS", 136, 256),
        24 => ("I8", 1, 1),
        25 => ("I16", 2, 1),
        26 => ("I32", 4, 1),
        27 => ("I64", 8, 1),
        28 => ("F64", 8, 1),
        29 => ("IQ1_M", 56, 256),
        34 => ("TQ1_0", 54, 256),
        35 => ("TQ2_0", 66, 256),
        39 => ("MXFP4", 17, 32),
        _ => return (format!("type {id}"), None),
    };
    (
        name.to_string(),
        Some(n.div_ceil(per).saturating_mul(block_bytes)),
    )
}

/// A metadata value, kept only as far as the header fields need it.
#[derive(Clone, Debug)]
enum Scalar {
    Uint(u64),
    Int(i64),
    Str(String),
    /// An array of strings, floats or booleans: its length.
    Array(u64),
    /// An array of integers (per-layer values): its largest element.
    MaxOf(u64),
    Other,
}

impl Scalar {
    fn as_u64(&self) -> Option<u64> {
        match *self {
            Scalar::Uint(n) => Some(n),
            Scalar::Int(n) => u64::try_from(n).ok(),
            Scalar::MaxOf(max) => Some(max),
            _ => None,
        }
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Smallest number of bytes the rest of the header can take after the current item.
    rest_min: u64,
}

impl<'a> Reader<'a> {
    /// `n` bytes, or the "read more" error when the prefix ends first.
    fn take(&mut self, n: u64) -> Result<&'a [u8]> {
        let have = (self.buf.len() - self.pos) as u64;
        if n > have {
            let need = (self.pos as u64)
                .saturating_add(n)
                .saturating_add(self.rest_min);
            return Err(InputError::new(
                "gguf",
                format!(
                    "the header continues past the {} bytes given",
                    self.buf.len()
                ),
                format!(
                    "the first {need} bytes of the file or more (read at least {} more bytes)",
                    need - self.buf.len() as u64
                ),
            ));
        }
        let s = &self.buf[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut le = [0u8; 8];
        le.copy_from_slice(b);
        Ok(u64::from_le_bytes(le))
    }

    fn string(&mut self) -> Result<String> {
        let len = self.u64()?;
        if len > MAX_GGUF_STRING {
            return Err(InputError::new(
                "gguf",
                format!("a string claims {len} bytes"),
                format!("strings of at most {MAX_GGUF_STRING} bytes"),
            ));
        }
        let b = self.take(len)?;
        Ok(String::from_utf8_lossy(b).into_owned())
    }

    /// One value of GGUF type `ty` (`gguf_metadata_value_type`).
    fn value(&mut self, ty: u32, depth: u32) -> Result<Scalar> {
        Ok(match ty {
            0 => Scalar::Uint(self.take(1)?[0] as u64),
            1 => Scalar::Int(self.take(1)?[0] as i8 as i64),
            2 => {
                let b = self.take(2)?;
                Scalar::Uint(u16::from_le_bytes([b[0], b[1]]) as u64)
            }
            3 => {
                let b = self.take(2)?;
                Scalar::Int(i16::from_le_bytes([b[0], b[1]]) as i64)
            }
            4 => Scalar::Uint(self.u32()? as u64),
            5 => Scalar::Int(self.u32()? as i32 as i64),
            6 => {
                self.take(4)?;
                Scalar::Other
            }
            7 => {
                self.take(1)?;
                Scalar::Other
            }
            8 => Scalar::Str(self.string()?),
            9 => {
                if depth >= 2 {
                    return Err(InputError::new(
                        "gguf",
                        "arrays are nested more than 2 deep",
                        "a GGUF file (metadata arrays hold scalars or strings)",
                    ));
                }
                let item = self.u32()?;
                let count = self.u64()?;
                if count > MAX_GGUF_ARRAY {
                    return Err(InputError::new(
                        "gguf",
                        format!("an array claims {count} entries"),
                        format!("arrays of at most {MAX_GGUF_ARRAY} entries"),
                    ));
                }
                match fixed_size(item) {
                    Some(size) if !matches!(item, 0..=5 | 10 | 11) => {
                        self.take(count * size)?;
                        Scalar::Array(count)
                    }
                    Some(_) => {
                        // Integer arrays (per-layer head counts, FFN widths): keep the largest.
                        let mut max = 0u64;
                        for _ in 0..count {
                            if let Some(v) = self.value(item, depth + 1)?.as_u64() {
                                max = max.max(v);
                            }
                        }
                        Scalar::MaxOf(max)
                    }
                    None if matches!(item, 8 | 9) => {
                        for _ in 0..count {
                            self.value(item, depth + 1)?;
                        }
                        Scalar::Array(count)
                    }
                    None => return Err(unknown_type(item)),
                }
            }
            10 => Scalar::Uint(self.u64()?),
            11 => Scalar::Int(self.u64()? as i64),
            12 => {
                self.take(8)?;
                Scalar::Other
            }
            other => return Err(unknown_type(other)),
        })
    }
}

fn unknown_type(ty: u32) -> InputError {
    InputError::new(
        "gguf",
        format!("metadata value type {ty} is not a GGUF type"),
        "value types 0 to 12 (GGUF v2/v3)",
    )
}

/// Bytes of one fixed-size GGUF value type; `None` for strings and arrays.
const fn fixed_size(ty: u32) -> Option<u64> {
    Some(match ty {
        0 | 1 | 7 => 1,
        2 | 3 => 2,
        4..=6 => 4,
        10..=12 => 8,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    // ---- a small safetensors writer ----

    fn safetensors(tensors: &[(&str, &str, &[u64])], metadata: &str) -> Vec<u8> {
        let mut json = String::from("{");
        if !metadata.is_empty() {
            json.push_str(&format!("\"__metadata__\":{metadata},"));
        }
        let mut offset = 0u64;
        for (i, (name, dtype, shape)) in tensors.iter().enumerate() {
            let numel: u64 = shape.iter().product();
            let size = (numel * safetensors_bits(dtype).unwrap()).div_ceil(8);
            let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            json.push_str(&format!(
                "{}\"{name}\":{{\"dtype\":\"{dtype}\",\"shape\":[{}],\"data_offsets\":[{offset},{}]}}",
                if i == 0 { "" } else { "," },
                dims.join(","),
                offset + size
            ));
            offset += size;
        }
        json.push('}');
        let mut out = (json.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(json.as_bytes());
        out
    }

    /// A two-layer Llama-style model: vocab 100, hidden 64, 4 heads of 16, 2 KV heads, FFN 128.
    fn tiny_llama(tied: bool) -> Vec<(String, &'static str, Vec<u64>)> {
        let mut t = vec![(
            String::from("model.embed_tokens.weight"),
            "BF16",
            vec![100, 64],
        )];
        for l in 0..2 {
            let p = format!("model.layers.{l}.");
            for (n, s) in [
                ("self_attn.q_proj.weight", vec![64, 64]),
                ("self_attn.k_proj.weight", vec![32, 64]),
                ("self_attn.v_proj.weight", vec![32, 64]),
                ("self_attn.o_proj.weight", vec![64, 64]),
                ("self_attn.q_norm.weight", vec![16]),
                ("self_attn.k_norm.weight", vec![16]),
                ("mlp.gate_proj.weight", vec![128, 64]),
                ("mlp.up_proj.weight", vec![128, 64]),
                ("mlp.down_proj.weight", vec![64, 128]),
                ("input_layernorm.weight", vec![64]),
                ("post_attention_layernorm.weight", vec![64]),
            ] {
                t.push((format!("{p}{n}"), "BF16", s));
            }
        }
        t.push((String::from("model.norm.weight"), "BF16", vec![64]));
        if !tied {
            t.push((String::from("lm_head.weight"), "BF16", vec![100, 64]));
        }
        t
    }

    fn write(t: &[(String, &'static str, Vec<u64>)]) -> Vec<u8> {
        let refs: Vec<(&str, &str, &[u64])> = t
            .iter()
            .map(|(n, d, s)| (n.as_str(), *d, s.as_slice()))
            .collect();
        safetensors(&refs, "{\"format\":\"pt\"}")
    }

    #[test]
    fn safetensors_counts_and_guess() {
        let bytes = write(&tiny_llama(false));
        let h = parse_safetensors_header(&bytes).unwrap();
        // Hand: embed + head 2 × 6,400; per layer q, o 2 × 4,096, k, v 2 × 2,048,
        // FFN 3 × 8,192, norms 128, q/k norms 32 → 37,024 × 2; final norm 64.
        let total = 12_800 + 2 * 37_024 + 64;
        assert_eq!(total, 86_912);
        assert_eq!(h.total_params, total);
        assert_eq!(h.total_bytes, 2 * total);
        assert_eq!(h.tensor_count, 1 + 22 + 1 + 1);
        assert_eq!(h.by_dtype.len(), 1);
        assert_eq!(h.by_dtype[0].dtype, "BF16");
        assert_eq!(
            h.metadata,
            vec![(String::from("format"), String::from("pt"))]
        );
        let a = h.arch.unwrap();
        assert_eq!(
            (
                a.vocab_size,
                a.hidden_size,
                a.num_layers,
                a.num_heads,
                a.num_kv_heads
            ),
            (100, 64, 2, 4, 2)
        );
        assert_eq!(a.head_dim, 16);
        assert!(a.qk_norm && a.gated_ffn && !a.tied_embeddings);
        assert_eq!(a.params(), total);
        assert_eq!(a.extra_params, 0);
        // Tied: no lm_head.
        let h = parse_safetensors_header(&write(&tiny_llama(true))).unwrap();
        assert!(h.arch.unwrap().tied_embeddings);
    }

    #[test]
    fn safetensors_shards_are_merged() {
        let all = tiny_llama(false);
        let (a, b) = all.split_at(10);
        let (a, b) = (write(a), write(b));
        let whole = parse_safetensors_header(&write(&all)).unwrap();
        let merged = parse_safetensors_shards(&[&a, &b]).unwrap();
        assert_eq!(merged.total_params, whole.total_params);
        assert_eq!(merged.total_bytes, whole.total_bytes);
        assert_eq!(merged.tensor_count, whole.tensor_count);
        assert_eq!(merged.arch, whole.arch);
        assert!(merged.arch.is_some());
        // One shard alone is a part: its guess, if any, cannot claim the whole model.
        let part = parse_safetensors_header(&b).unwrap();
        assert!(part.total_params < whole.total_params);
        assert!(parse_safetensors_shards(&[]).is_err());
    }

    /// Qwen-MoE style: 2 layers, 4 experts of width 32, a shared expert of 96 with its gate.
    #[test]
    fn safetensors_moe_guess() {
        let mut t = vec![(
            String::from("model.embed_tokens.weight"),
            "BF16",
            vec![100, 64],
        )];
        for l in 0..2 {
            let p = format!("model.layers.{l}.");
            for (n, s) in [
                ("self_attn.q_proj.weight", vec![64, 64]),
                ("self_attn.k_proj.weight", vec![32, 64]),
                ("self_attn.v_proj.weight", vec![32, 64]),
                ("self_attn.o_proj.weight", vec![64, 64]),
                ("mlp.gate.weight", vec![4, 64]),
                ("mlp.shared_expert.gate_proj.weight", vec![96, 64]),
                ("mlp.shared_expert.up_proj.weight", vec![96, 64]),
                ("mlp.shared_expert.down_proj.weight", vec![64, 96]),
                ("mlp.shared_expert_gate.weight", vec![1, 64]),
                ("input_layernorm.weight", vec![64]),
                ("post_attention_layernorm.weight", vec![64]),
            ] {
                t.push((format!("{p}{n}"), "BF16", s));
            }
            for e in 0..4 {
                for (n, s) in [
                    ("gate_proj.weight", vec![32, 64]),
                    ("up_proj.weight", vec![32, 64]),
                    ("down_proj.weight", vec![64, 32]),
                ] {
                    t.push((format!("{p}mlp.experts.{e}.{n}"), "BF16", s));
                }
            }
        }
        t.push((String::from("model.norm.weight"), "BF16", vec![64]));
        t.push((String::from("lm_head.weight"), "BF16", vec![100, 64]));
        let h = parse_safetensors_header(&write(&t)).unwrap();
        // Hand: 2 × 6,400; per layer attention 12,288, router 256, shared 3 × 6,144 + gate 64,
        // experts 4 × 3 × 2,048 = 24,576, norms 128 → 55,744 × 2; final norm 64.
        assert_eq!(h.total_params, 12_800 + 2 * 55_744 + 64);
        let a = h.arch.unwrap_or_else(|| panic!("{:?}", h.notes));
        let m = a.moe.unwrap();
        assert_eq!(
            (
                m.num_experts,
                m.expert_intermediate_size,
                m.shared_intermediate_size
            ),
            (4, 32, 96)
        );
        assert!(m.shared_expert_gate);
        assert_eq!(m.first_dense_layers, 0);
        assert_eq!(a.params(), h.total_params);
        assert_eq!(a.extra_params, 0);
    }

    #[test]
    fn safetensors_mixed_dtypes_and_extra_tensors() {
        let mut t = tiny_llama(false);
        t.push((String::from("vision.patch.weight"), "F32", vec![10, 10]));
        t.push((String::from("scales"), "F8_E4M3", vec![7]));
        let h = parse_safetensors_header(&write(&t)).unwrap();
        assert_eq!(h.by_dtype[0].dtype, "BF16");
        let f32s = h.by_dtype.iter().find(|t| t.dtype == "F32").unwrap();
        assert_eq!((f32s.params, f32s.bytes), (100, Some(400)));
        let fp8 = h.by_dtype.iter().find(|t| t.dtype == "F8_E4M3").unwrap();
        assert_eq!(fp8.bytes, Some(7));
        assert_eq!(h.arch.unwrap().extra_params, 107);
    }

    #[test]
    fn safetensors_hostile_and_short() {
        assert!(safetensors_header_len(&[1, 2, 3]).is_err());
        let huge = (200u64 << 20).to_le_bytes();
        let e = safetensors_header_len(&huge).unwrap_err();
        assert!(e.accepted.contains("100 MiB"));
        let e = parse_safetensors_header(&u64::MAX.to_le_bytes()).unwrap_err();
        assert_eq!(e.field, "safetensors");
        // Header length 1000 but only 10 bytes after it: asks for the first 1008 bytes.
        let mut short = 1000u64.to_le_bytes().to_vec();
        short.extend_from_slice(b"{\"a\":1}   ");
        let e = parse_safetensors_header(&short).unwrap_err();
        assert!(e.accepted.contains("1008"));
        // Offsets that do not match the shape are refused.
        let json = br#"{"w":{"dtype":"F16","shape":[4],"data_offsets":[0,7]}}"#;
        let mut b = (json.len() as u64).to_le_bytes().to_vec();
        b.extend_from_slice(json);
        assert!(
            parse_safetensors_header(&b)
                .unwrap_err()
                .problem
                .contains("do not fill")
        );
        // A shape whose size overflows u64.
        let json = br#"{"w":{"dtype":"F16","shape":[4294967296,4294967296],"data_offsets":[0,2]}}"#;
        let mut b = (json.len() as u64).to_le_bytes().to_vec();
        b.extend_from_slice(json);
        assert!(
            parse_safetensors_header(&b)
                .unwrap_err()
                .problem
                .contains("overflows")
        );
        // Not JSON.
        let mut b = 4u64.to_le_bytes().to_vec();
        b.extend_from_slice(b"\xff\xfe{[");
        assert!(parse_safetensors_header(&b).is_err());
    }

    // ---- a small GGUF writer ----

    struct Gguf {
        out: Vec<u8>,
    }

    impl Gguf {
        fn new(version: u32, tensors: u64, kvs: u64) -> Gguf {
            let mut out = b"GGUF".to_vec();
            out.extend_from_slice(&version.to_le_bytes());
            out.extend_from_slice(&tensors.to_le_bytes());
            out.extend_from_slice(&kvs.to_le_bytes());
            Gguf { out }
        }
        fn str(&mut self, s: &str) -> &mut Self {
            self.out.extend_from_slice(&(s.len() as u64).to_le_bytes());
            self.out.extend_from_slice(s.as_bytes());
            self
        }
        fn kv_str(&mut self, k: &str, v: &str) -> &mut Self {
            self.str(k);
            self.out.extend_from_slice(&8u32.to_le_bytes());
            self.str(v)
        }
        fn kv_u32(&mut self, k: &str, v: u32) -> &mut Self {
            self.str(k);
            self.out.extend_from_slice(&4u32.to_le_bytes());
            self.out.extend_from_slice(&v.to_le_bytes());
            self
        }
        fn kv_f32(&mut self, k: &str, v: f32) -> &mut Self {
            self.str(k);
            self.out.extend_from_slice(&6u32.to_le_bytes());
            self.out.extend_from_slice(&v.to_le_bytes());
            self
        }
        fn kv_strings(&mut self, k: &str, items: &[&str]) -> &mut Self {
            self.str(k);
            self.out.extend_from_slice(&9u32.to_le_bytes());
            self.out.extend_from_slice(&8u32.to_le_bytes());
            self.out
                .extend_from_slice(&(items.len() as u64).to_le_bytes());
            for s in items {
                self.str(s);
            }
            self
        }
        fn kv_f32s(&mut self, k: &str, items: &[f32]) -> &mut Self {
            self.str(k);
            self.out.extend_from_slice(&9u32.to_le_bytes());
            self.out.extend_from_slice(&6u32.to_le_bytes());
            self.out
                .extend_from_slice(&(items.len() as u64).to_le_bytes());
            for v in items {
                self.out.extend_from_slice(&v.to_le_bytes());
            }
            self
        }
        fn kv_i32s(&mut self, k: &str, items: &[i32]) -> &mut Self {
            self.str(k);
            self.out.extend_from_slice(&9u32.to_le_bytes());
            self.out.extend_from_slice(&5u32.to_le_bytes());
            self.out
                .extend_from_slice(&(items.len() as u64).to_le_bytes());
            for v in items {
                self.out.extend_from_slice(&v.to_le_bytes());
            }
            self
        }
        fn tensor(&mut self, name: &str, dims: &[u64], ty: u32, offset: u64) -> &mut Self {
            self.str(name);
            self.out
                .extend_from_slice(&(dims.len() as u32).to_le_bytes());
            for d in dims {
                self.out.extend_from_slice(&d.to_le_bytes());
            }
            self.out.extend_from_slice(&ty.to_le_bytes());
            self.out.extend_from_slice(&offset.to_le_bytes());
            self
        }
    }

    /// A Llama-shaped Q4_K_M file: 2 blocks, 4 tensors listed.
    fn tiny_gguf() -> Vec<u8> {
        let mut g = Gguf::new(3, 4, 12);
        g.kv_str("general.architecture", "llama")
            .kv_str("general.name", "Tiny Llama")
            .kv_u32("general.file_type", 15)
            .kv_u32("llama.block_count", 2)
            .kv_u32("llama.embedding_length", 256)
            .kv_u32("llama.attention.head_count", 4)
            .kv_u32("llama.attention.head_count_kv", 2)
            .kv_u32("llama.context_length", 4096)
            .kv_u32("llama.feed_forward_length", 512)
            .kv_f32("llama.rope.freq_base", 500000.0)
            .kv_strings("tokenizer.ggml.tokens", &["<s>", "</s>", "a", "b"])
            .kv_f32s("tokenizer.ggml.scores", &[0.0, 0.0, -1.0, -2.0]);
        g.tensor("token_embd.weight", &[256, 4], 14, 0) // Q6_K
            .tensor("blk.0.attn_q.weight", &[256, 256], 12, 1024) // Q4_K
            .tensor("blk.0.attn_norm.weight", &[256], 0, 4096) // F32
            .tensor("blk.0.ffn_down.weight", &[512, 256], 23, 8192); // IQ4_XS
        g.out.clone()
    }

    #[test]
    fn gguf_reads_the_architecture_keys() {
        let bytes = tiny_gguf();
        let h = parse_gguf_header(&bytes).unwrap();
        assert_eq!(h.version, 3);
        assert_eq!(h.architecture.as_deref(), Some("llama"));
        assert_eq!(h.name.as_deref(), Some("Tiny Llama"));
        assert_eq!(h.block_count, Some(2));
        assert_eq!(h.embedding_length, Some(256));
        assert_eq!(h.head_count, Some(4));
        assert_eq!(h.head_count_kv, Some(2));
        assert_eq!(h.context_length, Some(4096));
        assert_eq!(h.feed_forward_length, Some(512));
        assert_eq!(h.vocab_size, Some(4));
        assert_eq!(h.file_type_id, Some(15));
        assert_eq!(h.file_type, Some(GgufFileType::Q4_K_M));
        assert_eq!(h.header_bytes, bytes.len() as u64);
        // Elements: 1,024 + 65,536 + 256 + 131,072.
        assert_eq!(h.total_params, 1_024 + 65_536 + 256 + 131_072);
        // Bytes by hand: Q6_K 4 blocks × 210; Q4_K 256 × 144; F32 1,024; IQ4_XS 512 × 136.
        assert_eq!(h.total_bytes, 4 * 210 + 256 * 144 + 1_024 + 512 * 136);
        let q4k = h.by_type.iter().find(|t| t.dtype == "Q4_K").unwrap();
        assert_eq!(
            (q4k.tensors, q4k.params, q4k.bytes),
            (1, 65_536, Some(36_864))
        );
        assert_eq!(h.by_type[0].dtype, "IQ4_XS");
    }

    /// A complete Qwen2-style GGUF header: vocab 1000, width 128, 3 blocks, 4 heads of 32,
    /// 2 KV heads, FFN 256, q/k/v biases, untied output; tensors in Q4_K / Q6_K / F32.
    fn full_gguf(tied: bool) -> Vec<u8> {
        let (v, h, f, kv) = (1000u64, 128u64, 256u64, 64u64);
        let mut names: Vec<(String, Vec<u64>, u32)> =
            vec![(String::from("token_embd.weight"), vec![h, v], 14)];
        for b in 0..3 {
            for (n, d, t) in [
                ("attn_norm.weight", vec![h], 0),
                ("attn_q.weight", vec![h, h], 12),
                ("attn_q.bias", vec![h], 0),
                ("attn_k.weight", vec![h, kv], 12),
                ("attn_k.bias", vec![kv], 0),
                ("attn_v.weight", vec![h, kv], 14),
                ("attn_v.bias", vec![kv], 0),
                ("attn_output.weight", vec![h, h], 12),
                ("ffn_norm.weight", vec![h], 0),
                ("ffn_gate.weight", vec![h, f], 12),
                ("ffn_up.weight", vec![h, f], 12),
                ("ffn_down.weight", vec![f, h], 14),
            ] {
                names.push((format!("blk.{b}.{n}"), d, t));
            }
        }
        names.push((String::from("output_norm.weight"), vec![h], 0));
        if !tied {
            names.push((String::from("output.weight"), vec![h, v], 14));
        }
        let mut g = Gguf::new(3, names.len() as u64, 8);
        g.kv_str("general.architecture", "qwen2")
            .kv_u32("general.file_type", 15)
            .kv_u32("qwen2.block_count", 3)
            .kv_u32("qwen2.embedding_length", 128)
            .kv_u32("qwen2.attention.head_count", 4)
            .kv_u32("qwen2.attention.head_count_kv", 2)
            .kv_u32("qwen2.feed_forward_length", 256)
            .kv_u32("qwen2.context_length", 32768);
        for (n, d, t) in &names {
            g.tensor(n, d, *t, 0);
        }
        g.out.clone()
    }

    #[test]
    fn gguf_architecture_guess() {
        let h = parse_gguf_header(&full_gguf(false)).unwrap();
        let a = h.arch.expect("a dense Qwen2 layout");
        // Hand: embed + output 2 × 128,000; per block q, o 2 × 16,384, k, v 2 × 8,192,
        // biases 128 + 64 + 64, FFN 3 × 32,768, norms 256 → 147,968 × 3; output norm 128.
        let total = 256_000 + 3 * 147_968 + 128;
        assert_eq!(total, 700_032);
        assert_eq!(h.total_params, total);
        assert_eq!(a.params(), total);
        assert_eq!(a.extra_params, 0);
        assert_eq!(
            (
                a.vocab_size,
                a.num_layers,
                a.num_heads,
                a.num_kv_heads,
                a.head_dim
            ),
            (1000, 3, 4, 2, 32)
        );
        assert!(a.qkv_bias && !a.o_bias && a.gated_ffn && !a.tied_embeddings);
        assert_eq!(a.norms_per_layer, 2);
        assert_eq!(a.max_position_embeddings, 32_768);
        // Q4_K: per block q, k, o, gate, up = 16,384 + 8,192 + 16,384 + 2 × 32,768 elements.
        let q4k = h.by_type.iter().find(|t| t.dtype == "Q4_K").unwrap();
        assert_eq!(q4k.params, 3 * 106_496);
        assert_eq!(q4k.bytes, Some(3 * 106_496 / 256 * 144));
        let tied = parse_gguf_header(&full_gguf(true)).unwrap().arch.unwrap();
        assert!(tied.tied_embeddings);
        assert_eq!(tied.params(), total - 128_000);
    }

    /// Mixtral-style: 2 blocks of 4 experts (top-2) of width 128, hidden 64, 4 heads, 2 KV.
    #[test]
    fn gguf_moe_architecture_guess() {
        let (v, h, f, kv) = (100u64, 64u64, 128u64, 32u64);
        let mut names: Vec<(String, Vec<u64>)> =
            vec![(String::from("token_embd.weight"), vec![h, v])];
        for b in 0..2 {
            for (n, d) in [
                ("attn_norm.weight", vec![h]),
                ("attn_q.weight", vec![h, h]),
                ("attn_k.weight", vec![h, kv]),
                ("attn_v.weight", vec![h, kv]),
                ("attn_output.weight", vec![h, h]),
                ("ffn_norm.weight", vec![h]),
                ("ffn_gate_inp.weight", vec![h, 4]),
                ("ffn_gate_exps.weight", vec![h, f, 4]),
                ("ffn_up_exps.weight", vec![h, f, 4]),
                ("ffn_down_exps.weight", vec![f, h, 4]),
            ] {
                names.push((format!("blk.{b}.{n}"), d));
            }
        }
        names.push((String::from("output_norm.weight"), vec![h]));
        names.push((String::from("output.weight"), vec![h, v]));
        let mut g = Gguf::new(3, names.len() as u64, 7);
        g.kv_str("general.architecture", "llama")
            .kv_u32("llama.block_count", 2)
            .kv_u32("llama.embedding_length", 64)
            .kv_u32("llama.attention.head_count", 4)
            .kv_u32("llama.attention.head_count_kv", 2)
            .kv_u32("llama.expert_count", 4)
            .kv_u32("llama.expert_used_count", 2);
        for (n, d) in &names {
            g.tensor(n, d, 1, 0);
        }
        let hdr = parse_gguf_header(&g.out).unwrap();
        // Hand: embed + output 2 × 6,400; per block attention 4,096 + 2 × 2,048 + 4,096,
        // norms 128, router 256, experts 3 × 8,192 × 4 = 98,304 → 110,976 × 2; output norm 64.
        assert_eq!(hdr.total_params, 12_800 + 2 * 110_976 + 64);
        let a = hdr.arch.expect("a Mixtral-style layout");
        let m = a.moe.unwrap();
        assert_eq!(
            (
                m.num_experts,
                m.experts_per_token,
                m.expert_intermediate_size
            ),
            (4, 2, 128)
        );
        assert_eq!(a.params(), hdr.total_params);
        assert_eq!(a.extra_params, 0);
        // Active: 2 of 4 experts → 2 × 2 × 24,576 fewer.
        assert_eq!(a.active_params(), hdr.total_params - 2 * 2 * 24_576);
    }

    #[test]
    fn gguf_v2_and_per_layer_arrays() {
        let mut g = Gguf::new(2, 0, 2);
        g.kv_str("general.architecture", "openelm")
            .kv_i32s("openelm.attention.head_count_kv", &[3, 4, 5, 2]);
        let h = parse_gguf_header(&g.out).unwrap();
        assert_eq!(h.head_count_kv, Some(5));
        assert!(h.notes.iter().any(|n| n.contains("per layer")));
    }

    #[test]
    fn gguf_truncated_prefix_says_how_much_to_read() {
        let bytes = tiny_gguf();
        for cut in [0, 3, 10, 24, 40, 100, bytes.len() - 1] {
            let e = parse_gguf_header(&bytes[..cut]).unwrap_err();
            assert_eq!(e.field, "gguf", "cut at {cut}");
            let need = gguf_prefix_needed(&e).unwrap_or_else(|| panic!("{e}"));
            assert!(
                need > cut as u64 && need <= bytes.len() as u64,
                "cut {cut}: need {need}"
            );
        }
        // Reading what is asked for, repeatedly, reaches the whole header.
        let mut have = 16;
        let mut rounds = 0;
        let h = loop {
            match parse_gguf_header(&bytes[..have.min(bytes.len())]) {
                Ok(h) => break h,
                Err(e) => have = gguf_prefix_needed(&e).unwrap() as usize,
            }
            rounds += 1;
            assert!(rounds < 100);
        };
        assert_eq!(h.tensor_count, 4);
    }

    #[test]
    fn gguf_hostile_headers_fail_fast() {
        // 2^60 tensors.
        let g = Gguf::new(3, 1 << 60, 0);
        let e = parse_gguf_header(&g.out).unwrap_err();
        assert!(e.problem.contains("1152921504606846976 tensors"));
        // 2^60 metadata pairs.
        let g = Gguf::new(3, 0, 1 << 60);
        assert!(
            parse_gguf_header(&g.out)
                .unwrap_err()
                .problem
                .contains("metadata")
        );
        // A 2^40-byte key string.
        let mut g = Gguf::new(3, 0, 1);
        g.out.extend_from_slice(&(1u64 << 40).to_le_bytes());
        let e = parse_gguf_header(&g.out).unwrap_err();
        assert!(e.problem.contains("1099511627776 bytes"));
        // An array of 2^62 u8.
        let mut g = Gguf::new(3, 0, 1);
        g.str("k");
        g.out.extend_from_slice(&9u32.to_le_bytes());
        g.out.extend_from_slice(&0u32.to_le_bytes());
        g.out.extend_from_slice(&(1u64 << 62).to_le_bytes());
        assert!(
            parse_gguf_header(&g.out)
                .unwrap_err()
                .problem
                .contains("entries")
        );
        // A legal-size array larger than the prefix: asks for more, allocates nothing.
        let mut g = Gguf::new(3, 0, 1);
        g.str("k");
        g.out.extend_from_slice(&9u32.to_le_bytes());
        g.out.extend_from_slice(&12u32.to_le_bytes());
        g.out.extend_from_slice(&(1u64 << 24).to_le_bytes());
        let len = g.out.len() as u64;
        let e = parse_gguf_header(&g.out).unwrap_err();
        assert_eq!(gguf_prefix_needed(&e), Some(len + 8 * (1 << 24)));
        // Nested arrays.
        let mut g = Gguf::new(3, 0, 1);
        g.str("k");
        g.out.extend_from_slice(&9u32.to_le_bytes());
        for _ in 0..3 {
            g.out.extend_from_slice(&9u32.to_le_bytes());
            g.out.extend_from_slice(&1u64.to_le_bytes());
        }
        assert!(
            parse_gguf_header(&g.out)
                .unwrap_err()
                .problem
                .contains("nested")
        );
        // Unknown value type, too many dimensions, overflowing shape, bad magic, version 1.
        let mut g = Gguf::new(3, 0, 1);
        g.str("k");
        g.out.extend_from_slice(&13u32.to_le_bytes());
        assert!(
            parse_gguf_header(&g.out)
                .unwrap_err()
                .problem
                .contains("type 13")
        );
        let mut g = Gguf::new(3, 1, 0);
        g.tensor("t", &[1, 1, 1, 1, 1], 0, 0);
        assert!(
            parse_gguf_header(&g.out)
                .unwrap_err()
                .problem
                .contains("5 dimensions")
        );
        let mut g = Gguf::new(3, 1, 0);
        g.tensor("t", &[1 << 40, 1 << 40], 0, 0);
        assert!(
            parse_gguf_header(&g.out)
                .unwrap_err()
                .problem
                .contains("overflows")
        );
        assert!(
            parse_gguf_header(b"GGML\x03\0\0\0")
                .unwrap_err()
                .problem
                .contains("magic")
        );
        let g = Gguf::new(1, 0, 0);
        assert!(
            parse_gguf_header(&g.out)
                .unwrap_err()
                .problem
                .contains("version 1")
        );
    }

    #[test]
    fn gguf_unknown_tensor_type_is_reported_not_fatal() {
        let mut g = Gguf::new(3, 1, 0);
        g.tensor("t", &[64], 99, 0);
        let h = parse_gguf_header(&g.out).unwrap();
        assert_eq!(h.total_params, 64);
        assert_eq!(h.total_bytes, 0);
        assert_eq!(h.by_type[0].bytes, None);
        assert!(h.notes.iter().any(|n| n.contains("type 99")));
    }

    /// The fuzz targets start from these (`fuzz/seeds/`, given to libFuzzer by `cargo xtask
    /// fuzz`): valid headers reach the tensor-info and key-value loops at once instead of
    /// waiting for libFuzzer to guess a magic number and a length prefix. Written when missing
    /// or stale, and then the test fails, so that the committed seeds are these.
    #[test]
    #[cfg(feature = "std")]
    fn fuzz_seeds_are_current() {
        extern crate std;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds");
        let seeds: [(&str, Vec<u8>); 5] = [
            ("safetensors/tiny-llama-untied", write(&tiny_llama(false))),
            ("safetensors/tiny-llama-tied", write(&tiny_llama(true))),
            ("gguf/tiny-llama-q4_k_m", tiny_gguf()),
            ("gguf/qwen2-untied", full_gguf(false)),
            ("gguf/qwen2-tied", full_gguf(true)),
        ];
        let mut stale = Vec::new();
        for (name, bytes) in &seeds {
            // Each seed is a valid header (the fuzzers' assertions start from a success).
            if name.starts_with("gguf") {
                assert!(parse_gguf_header(bytes).is_ok(), "{name}");
            } else {
                assert!(parse_safetensors_header(bytes).is_ok(), "{name}");
            }
            let path = dir.join(name);
            if std::fs::read(&path).ok().as_ref() != Some(bytes) {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, bytes).unwrap();
                stale.push(*name);
            }
        }
        assert!(
            stale.is_empty(),
            "fuzz seeds rewritten, commit them: {stale:?}"
        );
    }
}
