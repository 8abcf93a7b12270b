//! llama.cpp (ggml) allocation failures. llama.cpp allocates three things on the GPU, in this
//! order, and the failing one decides the fix:
//!
//! 1. the weights of the offloaded layers (`load_tensors`, `alloc_tensor_range: failed to
//!    allocate CUDA0 buffer of size …`, `llama_model_load: error loading model: unable to
//!    allocate CUDA0 buffer`): fewer layers on the GPU (`-ngl`) or a smaller quant;
//! 2. the KV cache (`llama_kv_cache_init: failed to allocate buffer for kv cache`): a smaller
//!    context (`-c`) or a quantized KV cache (`-ctk q8_0 -ctv q8_0`);
//! 3. the compute buffers (`ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size …`,
//!    `failed to allocate compute buffers`): smaller batches (`-b`, `-ub`) or context.
//!
//! The line before names the size: `ggml_backend_cuda_buffer_type_alloc_buffer: allocating
//! 4096.00 MiB on device 0: cudaMalloc failed: out of memory`.

use alloc::string::String;
use alloc::vec::Vec;

use super::Evidence;
use super::scan::{Legacy, count_after, count_at, size_after};
use crate::units::{Bytes, MAX_SIZE};

/// Which allocation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum LlamaCppStage {
    /// The model weights of the offloaded layers.
    Weights,
    /// The KV cache.
    KvCache,
    /// The compute (scratch) buffers.
    Compute,
    /// Pinned host memory (`ggml_cuda_host_malloc`): system RAM, not the GPU.
    HostPinned,
    /// Not said.
    Unknown,
}

/// What a llama.cpp failure and its log say.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LlamaCppError {
    /// Which allocation failed.
    pub stage: LlamaCppStage,
    /// The failed allocation (exact when the log prints `buffer of size N`).
    pub requested: Option<Bytes>,
    /// The device index (`on device 0`).
    pub device: Option<u32>,
    /// The backend buffer name (`CUDA0`, `ROCm0`, `Vulkan0`).
    pub buffer: Option<String>,
    /// `model buffer size` on the GPU, when the log got that far.
    pub model_buffer: Option<Bytes>,
    /// `KV buffer size` on the GPU.
    pub kv_buffer: Option<Bytes>,
    /// `compute buffer size` on the GPU.
    pub compute_buffer: Option<Bytes>,
    /// `offloaded A/B layers to GPU`: (A, B).
    pub layers_offloaded: Option<(u64, u64)>,
    /// `n_ctx`: the context size.
    pub n_ctx: Option<u64>,
}

pub(crate) fn looks_like(flat: &str) -> bool {
    flat.contains("ggml_backend_cuda_buffer_type_alloc_buffer")
        || flat.contains("ggml_gallocr_reserve_n")
        || flat.contains("alloc_tensor_range: failed to allocate")
        || flat.contains("llama_model_load: error loading model: unable to allocate")
        || flat.contains("failed to allocate buffer for kv cache")
        || flat.contains("failed to allocate compute")
        || flat.contains("ggml_cuda_host_malloc: failed to allocate")
}

/// Reads a llama.cpp allocation failure.
pub fn parse_llamacpp_error(text: &str) -> Option<LlamaCppError> {
    parse(&super::scan::flatten(text)).map(|(l, _)| l)
}

pub(crate) fn parse(flat: &str) -> Option<(LlamaCppError, Vec<Evidence>)> {
    if !looks_like(flat) {
        return None;
    }
    let stage = stage_of(flat);
    let mut l = LlamaCppError {
        stage,
        requested: None,
        device: None,
        buffer: None,
        model_buffer: None,
        kv_buffer: None,
        compute_buffer: None,
        layers_offloaded: None,
        n_ctx: None,
    };
    let mut ev = Vec::new();
    read_requested(flat, &mut l, &mut ev);
    for (needle, name) in [
        (" model buffer size =", "model_buffer"),
        (" KV buffer size =", "kv_buffer"),
        (" compute buffer size =", "compute_buffer"),
    ] {
        let Some((total, text)) = gpu_buffers(flat, needle) else {
            continue;
        };
        match name {
            "model_buffer" => l.model_buffer = Some(total),
            "kv_buffer" => l.kv_buffer = Some(total),
            _ => l.compute_buffer = Some(total),
        }
        ev.push(Evidence::size(name, total, text));
    }
    if let Some(i) = flat.find("offloaded ") {
        let rest = &flat[i + 10..];
        if let Some((a, n)) = count_at(rest)
            && let Some(b) = rest[n..]
                .strip_prefix('/')
                .and_then(count_at)
                .map(|(b, _)| b)
        {
            l.layers_offloaded = Some((a, b));
            ev.push(Evidence::value(
                "layers_offloaded",
                a as f64,
                alloc::format!("{a}/{b} layers"),
            ));
        }
    }
    if let Some(n) = count_after(flat, "n_ctx =").or_else(|| count_after(flat, "n_ctx      =")) {
        l.n_ctx = Some(n);
        ev.push(Evidence::value(
            "n_ctx",
            n as f64,
            alloc::format!("{n} tokens"),
        ));
    }
    Some((l, ev))
}

/// The stage that failed, by the words of its failure.
fn stage_of(flat: &str) -> LlamaCppStage {
    if flat.contains("gallocr_reserve") || flat.contains("failed to allocate compute") {
        LlamaCppStage::Compute
    } else if flat.contains("failed to allocate buffer for kv cache")
        || flat.contains("kv_cache_init() failed")
    {
        LlamaCppStage::KvCache
    } else if flat.contains("alloc_tensor_range") || flat.contains("error loading model") {
        LlamaCppStage::Weights
    } else if flat.contains("ggml_cuda_host_malloc: failed") && !flat.contains("cudaMalloc failed")
    {
        LlamaCppStage::HostPinned
    } else {
        LlamaCppStage::Unknown
    }
}

/// The size requested and the device it was asked of: the failing buffer's exact size, else the
/// allocator's `allocating … on device`, else the pinned host memory asked.
fn read_requested(flat: &str, l: &mut LlamaCppError, ev: &mut Vec<Evidence>) {
    // The exact size: `failed to allocate CUDA0 buffer of size 10345253120` — the first
    // `failed to allocate` followed by a buffer name, not a pinned-memory warning before it.
    for i in super::scan::find_all(flat, "failed to allocate ", 64) {
        let rest = super::scan::clip(&flat[i + 19..], 120);
        let Some(of) = rest.find(" buffer of size ") else {
            continue;
        };
        let name = &rest[..of];
        if name.is_empty()
            || name.len() > 16
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            continue;
        }
        l.buffer = Some(String::from(name));
        if let Some((n, _)) = count_at(&rest[of + 16..])
            && n <= MAX_SIZE.get()
        {
            l.requested = Some(Bytes::new(n));
            ev.push(Evidence::size(
                "requested",
                Bytes::new(n),
                alloc::format!("buffer of size {n}"),
            ));
        }
        break;
    }
    if let Some(i) = flat.find("alloc_buffer: allocating ") {
        let seg = super::scan::clip(&flat[i..], 160);
        if let Some(s) = size_after(seg, "allocating", Legacy::Decimal)
            && l.requested.is_none()
        {
            l.requested = Some(s.bytes);
            ev.push(Evidence::size("requested", s.bytes, s.text));
        }
        l.device = count_after(seg, "on device").and_then(|d| u32::try_from(d).ok());
    } else if l.stage == LlamaCppStage::HostPinned
        && let Some(i) = flat.find("host_malloc: failed to allocate")
        && let Some(s) = size_after(
            super::scan::clip(&flat[i..], 120),
            "failed to allocate",
            Legacy::Decimal,
        )
    {
        l.requested = Some(s.bytes);
        ev.push(Evidence::size(
            "requested",
            s.bytes,
            alloc::format!("{} of pinned host memory", s.text),
        ));
    }
    if let Some(d) = l.device {
        ev.push(Evidence::value(
            "device",
            f64::from(d),
            alloc::format!("device {d}"),
        ));
    }
}

/// The GPU buffers of one kind (`needle`: ` KV buffer size =`), summed over the devices
/// (`CUDA0 model buffer size`, not `CPU model buffer size`), with the text of each.
fn gpu_buffers(flat: &str, needle: &str) -> Option<(Bytes, String)> {
    let gpu_prefix = |b: &str| {
        b.starts_with("CUDA")
            || b.starts_with("ROCm")
            || b.starts_with("Vulkan")
            || b.starts_with("Metal")
    };
    let mut total = Bytes::ZERO;
    let mut texts: Vec<String> = Vec::new();
    for i in super::scan::find_all(flat, needle, 64) {
        let before = &flat[..i];
        let word = before.rsplit(' ').next().unwrap_or("");
        if !gpu_prefix(word) {
            continue;
        }
        if let Some(s) = super::scan::size_after_spaces(&flat[i + needle.len()..], Legacy::Decimal)
        {
            total = total.plus(s.bytes);
            texts.push(alloc::format!("{word}: {}", s.text));
        }
    }
    (!texts.is_empty()).then(|| (total, texts.join(", ")))
}
