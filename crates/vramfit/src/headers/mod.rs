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

mod gguf;
mod gguf_reader;
mod safetensors;
#[cfg(test)]
mod tests;

use alloc::string::String;
use alloc::vec::Vec;

use crate::model::Architecture;
pub use gguf::{GgufHeader, gguf_prefix_needed, parse_gguf_header};
pub use safetensors::{parse_safetensors_header, parse_safetensors_shards, safetensors_header_len};

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
