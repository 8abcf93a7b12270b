//! GGUF headers: the metadata and tensor list of a llama.cpp file, and the architecture and file
//! type they describe.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::gguf_reader::{Reader, Scalar};
use super::{MAX_GGUF_DIMS, MAX_GGUF_KVS, MAX_GGUF_TENSORS, TypeCount};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, Family, Moe, Norm};
use crate::precision::{GgmlType, GgufFileType};

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
    let mut h = read_preamble(&mut r)?;
    let kvs = read_metadata(&mut r, h.kv_count, h.tensor_count)?;
    apply_metadata(&mut h, &kvs);
    let layout = read_tensor_infos(&mut r, &mut h)?;
    h.header_bytes = r.pos as u64;
    guess_arch(&mut h, &kvs, &layout);
    Ok(h)
}

/// Reads the magic, the version and the counts, refusing a file that is not GGUF v2 or v3 or
/// that claims more tensors or pairs than the caps; the header with only those filled in.
fn read_preamble(r: &mut Reader<'_>) -> Result<GgufHeader> {
    let magic = r.take(4)?;
    if magic != b"GGUF" {
        return Err(InputError::new(
            ErrorKind::Header,
            "gguf",
            "the file does not start with the GGUF magic",
            "a .gguf file (it starts with the bytes `GGUF`)",
        ));
    }
    let version = r.u32()?;
    if !(2..=3).contains(&version) {
        return Err(InputError::new(
            ErrorKind::Header,
            "gguf",
            format!("GGUF version {version}"),
            "GGUF version 2 or 3 (llama.cpp since August 2023)",
        ));
    }
    let tensor_count = r.u64()?;
    let kv_count = r.u64()?;
    if tensor_count > MAX_GGUF_TENSORS {
        return Err(InputError::new(
            ErrorKind::Header,
            "gguf",
            format!("the header claims {tensor_count} tensors"),
            format!("at most {MAX_GGUF_TENSORS} tensors (real models have a few thousand)"),
        ));
    }
    if kv_count > MAX_GGUF_KVS {
        return Err(InputError::new(
            ErrorKind::Header,
            "gguf",
            format!("the header claims {kv_count} metadata entries"),
            format!("at most {MAX_GGUF_KVS} metadata entries (real files have under 100)"),
        ));
    }
    Ok(GgufHeader {
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
    })
}

/// Reads the `kv_count` metadata pairs, in order.
fn read_metadata(
    r: &mut Reader<'_>,
    kv_count: u64,
    tensor_count: u64,
) -> Result<Vec<(String, Scalar)>> {
    // The smallest possible rest of the header: 12 bytes per pair, 24 per tensor info.
    let mut kvs: Vec<(String, Scalar)> = Vec::new();
    for i in 0..kv_count {
        r.rest_min = (kv_count - i - 1) * 12 + tensor_count * 24;
        let key = r.string()?;
        let ty = r.u32()?;
        let value = r.value(ty, 0)?;
        kvs.push((key, value));
    }
    Ok(kvs)
}

/// Fills in what the metadata says: the architecture, its `<arch>.` numbers, the vocabulary,
/// the name and the file type.
fn apply_metadata(h: &mut GgufHeader, kvs: &[(String, Scalar)]) {
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
    for (k, v) in kvs {
        match (k.as_str(), v) {
            ("general.name", Scalar::Str(s)) => h.name = Some(s.clone()),
            ("general.file_type", v) => h.file_type_id = v.as_u64().map(|n| n as u32),
            _ => {}
        }
    }
    h.architecture = arch;
    h.file_type = h.file_type_id.and_then(file_type_from_id);
}

/// One tensor info: its name, shape (padded with 1s), element count and ggml type.
struct TensorInfo {
    name: String,
    dims: [u64; MAX_GGUF_DIMS as usize],
    numel: u64,
    ty: u32,
}

/// Reads one tensor info, refusing more than [`MAX_GGUF_DIMS`] dimensions or a shape whose size
/// overflows.
fn read_tensor_info(r: &mut Reader<'_>) -> Result<TensorInfo> {
    let name = r.string()?;
    let n_dims = r.u32()?;
    if n_dims > MAX_GGUF_DIMS {
        return Err(InputError::new(
            ErrorKind::Header,
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
                ErrorKind::Header,
                "gguf",
                format!("tensor `{name}` has a shape whose size overflows"),
                "a GGUF file with real tensor shapes",
            )
        })?;
    }
    let ty = r.u32()?;
    let _offset = r.u64()?;
    Ok(TensorInfo {
        name,
        dims,
        numel,
        ty,
    })
}

/// Reads the tensor infos, summing parameters and bytes per ggml type (largest first) and in
/// all; the layout of the tensors' names and shapes, for the architecture guess.
fn read_tensor_infos(r: &mut Reader<'_>, h: &mut GgufHeader) -> Result<Layout> {
    let tensor_count = h.tensor_count;
    let mut types: BTreeMap<u32, TypeCount> = BTreeMap::new();
    let mut layout = Layout::default();
    for i in 0..tensor_count {
        r.rest_min = (tensor_count - i - 1) * 24;
        let TensorInfo {
            name,
            dims,
            numel,
            ty,
        } = read_tensor_info(r)?;
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
    h.by_type = types.into_values().collect();
    h.by_type
        .sort_by(|a, b| b.params.cmp(&a.params).then(a.dtype.cmp(&b.dtype)));
    Ok(layout)
}

/// Guesses the architecture from the metadata and the tensor `layout`, with notes on why none
/// was guessed, what it counts as extra, a sliding window it cannot place, and types of unknown
/// size.
fn guess_arch(h: &mut GgufHeader, kvs: &[(String, Scalar)], layout: &Layout) {
    let leading_dense = kvs.iter().find_map(|(k, v)| {
        k.strip_suffix(".leading_dense_block_count")
            .filter(|a| Some(*a) == h.architecture.as_deref())
            .and_then(|_| v.as_u64())
    });
    h.arch = gguf_architecture(h, layout, leading_dense).map_or_else(
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
}

/// The tensors of a GGUF file that decide its architecture (llama.cpp's names).
#[derive(Default)]
pub(super) struct Layout {
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
pub(super) fn gguf_architecture(
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
pub(super) fn file_type_from_id(id: u32) -> Option<GgufFileType> {
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
pub(super) fn ggml_size(id: u32, n: u64) -> (String, Option<u64>) {
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
