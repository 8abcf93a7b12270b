//! safetensors headers: the 8-byte length, the JSON header of one file or of every shard, and
//! the architecture guessed from its tensor names and shapes.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::Value;

use super::{MAX_SAFETENSORS_HEADER, SafetensorsHeader, TypeCount};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, Family, Moe, Norm};

/// The JSON header's length N from a safetensors file's first 8 bytes (little-endian u64), so
/// the caller can read exactly `8 + N` bytes.
pub fn safetensors_header_len(first8: &[u8]) -> Result<u64> {
    let Some(b) = first8.get(..8) else {
        return Err(InputError::new(
            ErrorKind::Header,
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
            ErrorKind::Header,
            "safetensors",
            format!("the header length is {n}"),
            "a safetensors file (its first 8 bytes give the JSON header's length)",
        ));
    }
    if n > MAX_SAFETENSORS_HEADER {
        return Err(InputError::new(
            ErrorKind::Header,
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
            ErrorKind::OutOfRange,
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

pub(super) fn read_shard(
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
            ErrorKind::Header,
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
            ErrorKind::Header,
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

pub(super) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Bits per element of a safetensors dtype.
pub(super) fn safetensors_bits(dtype: &str) -> Option<u64> {
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
pub(super) fn guess_architecture(
    shapes: &BTreeMap<String, Vec<u64>>,
    total: u64,
    notes: &mut Vec<String>,
) -> Option<Architecture> {
    match guess(&Tensors { shapes }, total, notes) {
        Ok(a) => Some(a),
        Err(why) => {
            notes.push(format!(
                "No architecture guessed: {why}; a config.json gives it exactly."
            ));
            None
        }
    }
}

/// A step of the guess: its result, or why no architecture is guessed.
type Guess<T> = core::result::Result<T, &'static str>;

/// The tensors' shapes by name, looked up by the end of a name.
struct Tensors<'a> {
    shapes: &'a BTreeMap<String, Vec<u64>>,
}

impl Tensors<'_> {
    /// The shape of the first tensor (by name) whose name ends with `suffix`.
    fn find(&self, suffix: &str) -> Option<&[u64]> {
        self.shapes
            .iter()
            .find(|(k, _)| k.ends_with(suffix))
            .map(|(_, v)| v.as_slice())
    }

    /// The shape of `suffix` in layer `l` (`.layers.{l}.{suffix}`).
    fn layer(&self, l: u64, suffix: &str) -> Option<&[u64]> {
        self.find(&format!(".layers.{l}.{suffix}"))
    }

    /// The shape of `suffix` in layer 0.
    fn layer0(&self, suffix: &str) -> Option<&[u64]> {
        self.layer(0, suffix)
    }
}

/// The architecture the tensors show, with notes on what was assumed; why not, when they show
/// none.
fn guess(t: &Tensors<'_>, total: u64, notes: &mut Vec<String>) -> Guess<Architecture> {
    let Some(&[vocab, hidden]) = t.find("embed_tokens.weight") else {
        return Err("no embed_tokens tensor (not a Llama-style layout)");
    };
    let scan = LayerScan::of(t.shapes);
    let (Some(&[q_out, _]), Some(&[kv_out, _])) = (
        t.layer0("self_attn.q_proj.weight"),
        t.layer0("self_attn.k_proj.weight"),
    ) else {
        return Err("no separate q_proj and k_proj in layer 0");
    };
    let (gated, inter) = match (
        t.layer0("mlp.gate_proj.weight"),
        t.layer0("mlp.up_proj.weight"),
    ) {
        (Some(&[i, _]), _) => (true, i),
        (None, Some(&[i, _])) => (false, i),
        _ if scan.first_moe.is_some() => (true, 0),
        _ => return Err("no gate_proj or up_proj in layer 0"),
    };
    let moe = match scan.first_moe {
        Some(f) => Some(experts(t, f, scan.experts, notes)?),
        None => None,
    };
    let head_dim = head_dim(t, q_out, kv_out, notes);
    let a = Architecture {
        family: Family::CausalLm,
        vocab_size: vocab,
        hidden_size: hidden,
        num_layers: scan.layers,
        num_heads: q_out / head_dim.max(1),
        num_kv_heads: kv_out / head_dim.max(1),
        head_dim,
        intermediate_size: inter,
        gated_ffn: gated,
        tied_embeddings: t.find("lm_head.weight").is_none(),
        qkv_bias: t.layer0("self_attn.q_proj.bias").is_some(),
        o_bias: t.layer0("self_attn.o_proj.bias").is_some(),
        mlp_bias: t.layer0("mlp.down_proj.bias").is_some(),
        norm: if t.layer0("input_layernorm.bias").is_some() {
            Norm::Layer
        } else {
            Norm::Rms
        },
        norms_per_layer: norms_in_layer0(t.shapes),
        qk_norm: t.layer0("self_attn.q_norm.weight").is_some(),
        moe,
        ..Architecture::default()
    };
    with_extra(a, total, notes)
}

/// What the layer indices (`.layers.N.` anywhere in a name) show.
struct LayerScan {
    /// One past the highest layer index.
    layers: u64,
    /// The first layer that holds experts.
    first_moe: Option<u64>,
    /// One past the highest expert index.
    experts: u64,
}

impl LayerScan {
    /// Scans every tensor name for its layer index and whether the layer holds experts.
    fn of(shapes: &BTreeMap<String, Vec<u64>>) -> Self {
        let mut s = LayerScan {
            layers: 0,
            first_moe: None,
            experts: 0,
        };
        for k in shapes.keys() {
            let Some(rest) = k.split(".layers.").nth(1) else {
                continue;
            };
            let mut parts = rest.split('.');
            let Some(n) = parts.next().and_then(|n| n.parse::<u64>().ok()) else {
                continue;
            };
            s.layers = s.layers.max(n.saturating_add(1));
            if let Some(e) = rest.split(".experts.").nth(1) {
                s.first_moe = Some(s.first_moe.map_or(n, |f| f.min(n)));
                if let Some(i) = e.split('.').next().and_then(|i| i.parse::<u64>().ok()) {
                    s.experts = s.experts.max(i.saturating_add(1));
                }
            }
        }
        s
    }
}

/// The MoE block from the experts of layer `f` (the first with experts; Mixtral's or Qwen's
/// names) and its shared expert, noting that experts per token are assumed.
fn experts(t: &Tensors<'_>, f: u64, experts: u64, notes: &mut Vec<String>) -> Guess<Moe> {
    let expert = |p: &str| {
        [".mlp.experts.0.", ".block_sparse_moe.experts.0."]
            .iter()
            .find_map(|m| t.find(&format!(".layers.{f}{m}{p}")))
    };
    let Some(&[expert_inter, _]) = expert("gate_proj.weight")
        .or_else(|| expert("w1.weight"))
        .or_else(|| expert("up_proj.weight"))
    else {
        return Err("expert tensors without a recognized name");
    };
    let shared = [
        "mlp.shared_expert.up_proj.weight",
        "mlp.shared_experts.up_proj.weight",
    ]
    .iter()
    .find_map(|s| t.layer(f, s))
    .map_or(0, |d| d.first().copied().unwrap_or(0));
    notes.push(String::from(
        "Experts per token are not in a safetensors header: 1 assumed (the total is exact; active parameters need config.json's num_experts_per_tok).",
    ));
    Ok(Moe {
        num_experts: experts,
        experts_per_token: 1,
        expert_intermediate_size: expert_inter,
        shared_intermediate_size: shared,
        shared_expert_gate: t.layer(f, "mlp.shared_expert_gate.weight").is_some(),
        first_dense_layers: f,
        router_bias: t.layer(f, "mlp.gate.e_score_correction_bias").is_some(),
        expert_bias: false,
    })
}

/// The head width: the q_norm's when the model has one, else the first usual width that divides
/// both projections (noted as assumed).
fn head_dim(t: &Tensors<'_>, q_out: u64, kv_out: u64, notes: &mut Vec<String>) -> u64 {
    match t.layer0("self_attn.q_norm.weight") {
        Some(&[d]) => d,
        _ => {
            let d = [128u64, 64, 256, 96, 80, 32, 16, 8]
                .into_iter()
                .find(|d| q_out.is_multiple_of(*d) && kv_out.is_multiple_of(*d))
                .unwrap_or_else(|| gcd(q_out, kv_out).max(1));
            notes.push(format!(
                "head_dim is not in a safetensors header; {d} assumed (the KV cache size, kv_heads x head_dim = {kv_out}, is exact either way)."
            ));
            d
        }
    }
}

/// The norms of layer 0 (the q and k norms left out).
fn norms_in_layer0(shapes: &BTreeMap<String, Vec<u64>>) -> u64 {
    shapes
        .keys()
        .filter(|k| {
            k.contains(".layers.0.")
                && k.ends_with("norm.weight")
                && !k.ends_with("q_norm.weight")
                && !k.ends_with("k_norm.weight")
        })
        .count() as u64
}

/// `a` checked, with the parameters of the `total` it does not model counted as extra (and
/// noted); why not, when it is inconsistent or models more than `total`.
fn with_extra(mut a: Architecture, total: u64, notes: &mut Vec<String>) -> Guess<Architecture> {
    if a.validate("safetensors").is_err() {
        return Err("the shapes do not form a consistent architecture");
    }
    let modelled = a.params();
    if modelled > total {
        return Err("the layers differ from layer 0 (or a shard is missing)");
    }
    a.extra_params = total - modelled;
    if a.extra_params > 0 {
        notes.push(format!(
            "{} parameters outside the recognized layers (a vision tower, a projector, extra heads) are counted as extra.",
            a.extra_params
        ));
    }
    Ok(a)
}
