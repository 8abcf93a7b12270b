//! vLLM start-up errors. vLLM reserves `gpu_memory_utilization` × total memory at start-up,
//! loads the weights, profiles one forward pass, and gives the rest to the KV-cache pool; these
//! errors say that pool is too small. All are capacity: the fixes trade context length, KV
//! precision, weight precision or more GPUs for memory.
//!
//! - `ValueError: No available memory for the cache blocks. Try increasing
//!   `gpu_memory_utilization` when initializing the engine.` (weights + activations already
//!   fill the budget);
//! - `ValueError: The model's max seq len (32768) is larger than the maximum number of tokens
//!   that can be stored in KV cache (7344). …` (V0 engine);
//! - `ValueError: To serve at least one request with the models's max seq len (262144), (24.0
//!   GiB KV cache is needed, which is larger than the available KV cache memory (3.18 GiB).
//!   Based on the available memory, the estimated maximum model length is 34736. …` (V1);
//! - `ValueError: Free memory on device (13.5/23.55 GiB) on startup is less than desired GPU
//!   memory utilization (0.9, 21.2 GiB). …` (another process holds memory).
//!
//! vLLM divides by 2^30 when it prints `GB` or `GiB`, so both are read as GiB here.

use alloc::vec::Vec;

use super::Evidence;
use super::scan::{Legacy, count_after, decimal_at, size_after, size_at};
use crate::units::Bytes;

/// Which vLLM error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum VllmErrorKind {
    /// `No available memory for the cache blocks`.
    NoCacheBlocks,
    /// `max seq len (A) is larger than the maximum number of tokens that can be stored in KV cache (B)`.
    MaxSeqLenOverKvTokens,
    /// `(X GiB KV cache is needed, which is larger than the available KV cache memory (Y GiB)`.
    KvCacheTooSmall,
    /// `Free memory on device (F/T GiB) on startup is less than desired GPU memory utilization (u, D GiB)`.
    FreeMemoryBelowUtilization,
}

/// What a vLLM error and the log lines around it say.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VllmError {
    /// Which error.
    pub kind: VllmErrorKind,
    /// The model's max seq len (`max_model_len`), tokens.
    pub max_model_len: Option<u64>,
    /// Tokens the KV cache can hold.
    pub kv_cache_tokens: Option<u64>,
    /// KV cache one max-length request needs.
    pub kv_needed: Option<Bytes>,
    /// KV cache memory available.
    pub kv_available: Option<Bytes>,
    /// vLLM's own estimate of the longest context that fits.
    pub estimated_max_model_len: Option<u64>,
    /// Free memory at start-up.
    pub free_on_startup: Option<Bytes>,
    /// Total memory of the device.
    pub total: Option<Bytes>,
    /// `gpu_memory_utilization`, in (0, 1].
    pub gpu_memory_utilization: Option<f64>,
    /// What that utilization asks for.
    pub utilization_bytes: Option<Bytes>,
    /// `# GPU blocks:` from the V0 log.
    pub gpu_blocks: Option<u64>,
    /// `Model loading took …`: the weights.
    pub weights: Option<Bytes>,
}

pub(crate) fn looks_like(flat: &str) -> bool {
    flat.contains("No available memory for the cache blocks")
        || flat.contains("that can be stored in KV cache")
        || flat.contains("KV cache is needed, which is larger than")
        || flat.contains("on startup is less than desired GPU memory utilization")
}

/// Reads a vLLM start-up error.
pub fn parse_vllm_error(text: &str) -> Option<VllmError> {
    parse(&super::scan::flatten(text)).map(|(v, _)| v)
}

pub(crate) fn parse(flat: &str) -> Option<(VllmError, Vec<Evidence>)> {
    if !looks_like(flat) {
        return None;
    }
    let kind = if flat.contains("on startup is less than desired GPU memory utilization") {
        VllmErrorKind::FreeMemoryBelowUtilization
    } else if flat.contains("KV cache is needed, which is larger than") {
        VllmErrorKind::KvCacheTooSmall
    } else if flat.contains("that can be stored in KV cache") {
        VllmErrorKind::MaxSeqLenOverKvTokens
    } else {
        VllmErrorKind::NoCacheBlocks
    };
    let mut v = VllmError {
        kind,
        max_model_len: None,
        kv_cache_tokens: None,
        kv_needed: None,
        kv_available: None,
        estimated_max_model_len: None,
        free_on_startup: None,
        total: None,
        gpu_memory_utilization: None,
        utilization_bytes: None,
        gpu_blocks: None,
        weights: None,
    };
    let mut ev = Vec::new();
    let count_ev = |ev: &mut Vec<Evidence>, name: &str, n: u64, unit: &str| {
        ev.push(Evidence::value(
            name,
            n as f64,
            alloc::format!("{n} {unit}"),
        ));
    };
    if let Some(n) = count_after(flat, "max seq len (") {
        v.max_model_len = Some(n);
        count_ev(&mut ev, "max_model_len", n, "tokens");
    }
    if let Some(n) = count_after(flat, "can be stored in KV cache (") {
        v.kv_cache_tokens = Some(n);
        count_ev(&mut ev, "kv_cache_tokens", n, "tokens");
    }
    if let Some(i) = flat.find("KV cache is needed") {
        // `(24.0 GiB KV cache is needed`: the size just before.
        if let Some(s) = super::scan::last_size_ending_at(&flat[..i], Legacy::Binary) {
            v.kv_needed = Some(s.bytes);
            ev.push(Evidence::size("kv_needed", s.bytes, s.text));
        }
    }
    if let Some(s) = size_after(flat, "available KV cache memory (", Legacy::Binary) {
        v.kv_available = Some(s.bytes);
        ev.push(Evidence::size("kv_available", s.bytes, s.text));
    } else if let Some(s) = size_after(flat, "Available KV cache memory:", Legacy::Binary) {
        v.kv_available = Some(s.bytes);
        ev.push(Evidence::size("kv_available", s.bytes, s.text));
    }
    if let Some(n) = count_after(flat, "estimated maximum model length is") {
        v.estimated_max_model_len = Some(n);
        count_ev(&mut ev, "estimated_max_model_len", n, "tokens");
    }
    if v.kv_cache_tokens.is_none()
        && let Some(n) = count_after(flat, "GPU KV cache size:")
    {
        v.kv_cache_tokens = Some(n);
        count_ev(&mut ev, "kv_cache_tokens", n, "tokens");
    }
    if let Some(i) = flat.find("Free memory on device (") {
        // `(13.5/23.55 GiB)`: the first number shares the unit of the second.
        let rest = &flat[i + 23..];
        if let (Some((free, n)), Some(slash)) = (decimal_at(rest), rest.find('/'))
            && let Some((total, _)) = size_at(&rest[slash + 1..], Legacy::Binary)
        {
            let unit = if total.text.ends_with("MiB") {
                (1u64 << 20) as f64
            } else {
                (1u64 << 30) as f64
            };
            let f = Bytes::from_f64(free * unit);
            let _ = n;
            v.free_on_startup = Some(f);
            v.total = Some(total.bytes);
            ev.push(Evidence::size(
                "free_on_startup",
                f,
                alloc::format!("{}/{}", super::scan::clip(rest, slash), total.text),
            ));
            ev.push(Evidence::size("total_capacity", total.bytes, total.text));
        }
    }
    if let Some(i) = flat.find("desired GPU memory utilization (") {
        let rest = &flat[i + 32..];
        if let Some((u, n)) = decimal_at(rest) {
            if u > 0.0 && u <= 1.0 {
                v.gpu_memory_utilization = Some(u);
                ev.push(Evidence::value(
                    "gpu_memory_utilization",
                    u,
                    alloc::format!("{u}"),
                ));
            }
            if let Some(s) =
                super::scan::size_after_spaces(rest[n..].trim_start_matches(','), Legacy::Binary)
            {
                v.utilization_bytes = Some(s.bytes);
                ev.push(Evidence::size("utilization_bytes", s.bytes, s.text));
            }
        }
    }
    if let Some(n) = count_after(flat, "# GPU blocks:") {
        v.gpu_blocks = Some(n);
        count_ev(&mut ev, "gpu_blocks", n, "blocks");
    }
    // V1 `Model loading took 14.99 GiB`; V0 `Loading model weights took 14.3919 GB` (GiB).
    if let Some(s) = size_after(flat, "Model loading took", Legacy::Binary)
        .or_else(|| size_after(flat, "model weights took", Legacy::Binary))
    {
        v.weights = Some(s.bytes);
        ev.push(Evidence::size("weights", s.bytes, s.text));
    }
    Some((v, ev))
}
