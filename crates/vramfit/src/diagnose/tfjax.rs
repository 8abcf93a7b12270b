//! TensorFlow and JAX/XLA out-of-memory errors.
//!
//! TensorFlow: `ResourceExhaustedError: OOM when allocating tensor with shape[64,2016,9,9] and
//! type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc`, preceded
//! in the log by the BFC allocator's `Allocator (GPU_0_bfc) ran out of memory trying to allocate
//! 2.34GiB (rounded to 2511536640)` and its statistics (`Limit:`, `InUse:`, `MaxInUse:`).
//!
//! TensorFlow's StreamExecutor also logs each failed `cuMemAlloc` of the BFC allocator's pool:
//! `failed to allocate 3.81G (4087755776 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of
//! memory` (`cuda_driver.cc`; older versions end at `CUDA_ERROR_OUT_OF_MEMORY`). The allocator
//! retries with 90 % of the size, so these lines come in runs; the exact byte count is read.
//!
//! JAX: `XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 7406166528
//! bytes.` (or `Out of memory allocating …`), sometimes with XLA's `BufferAssignment stats`; and
//! XLA's `StreamExecutorMemoryAllocator`: `RESOURCE_EXHAUSTED: Failed to allocate request for
//! 2.00GiB (2147483648B) on device ordinal 0` (`Resource exhausted: …` in older versions), read
//! from the exact byte count in brackets.

use alloc::string::String;
use alloc::vec::Vec;

use super::Evidence;
use super::scan::{Legacy, count_after, count_at, size_after};
use crate::units::{Bytes, MAX_SIZE};

/// What a TensorFlow OOM says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TensorflowOom {
    /// The tensor shape, `[64, 2016, 9, 9]`.
    pub shape: Vec<u64>,
    /// The dtype as printed (`float`, `half`, `bfloat16`, …).
    pub dtype: Option<String>,
    /// Bytes per element of that dtype.
    pub dtype_bytes: Option<u64>,
    /// shape × dtype size: the tensor that did not fit.
    pub tensor_bytes: Option<Bytes>,
    /// The device string (`/job:localhost/replica:0/task:0/device:GPU:0`).
    pub device: Option<String>,
    /// The allocator (`GPU_0_bfc`).
    pub allocator: Option<String>,
    /// The BFC request, rounded to its bin (`rounded to 2511536640`).
    pub requested: Option<Bytes>,
    /// The BFC pool limit (`Limit:`).
    pub limit: Option<Bytes>,
    /// In use in the pool (`InUse:`).
    pub in_use: Option<Bytes>,
    /// Peak in use (`MaxInUse:`).
    pub max_in_use: Option<Bytes>,
}

/// What a JAX/XLA OOM says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JaxOom {
    /// The allocation that failed.
    pub requested: Option<Bytes>,
    /// XLA's `total allocation` for the program, when the buffer-assignment stats are there.
    pub total_allocation: Option<Bytes>,
    /// XLA's `total fragmentation` of the buffer assignment.
    pub total_fragmentation: Option<Bytes>,
    /// `preallocated temp allocation`.
    pub temp_allocation: Option<Bytes>,
}

/// Reads a TensorFlow OOM.
pub fn parse_tensorflow_oom(text: &str) -> Option<TensorflowOom> {
    parse_tf(&super::scan::flatten(text)).map(|(t, _)| t)
}

/// Reads a JAX/XLA OOM.
pub fn parse_jax_oom(text: &str) -> Option<JaxOom> {
    parse_jax(&super::scan::flatten(text)).map(|(j, _)| j)
}

pub(crate) fn looks_like_tf(flat: &str) -> bool {
    flat.contains("OOM when allocating tensor")
        || flat.contains("_bfc) ran out of memory")
        || flat.contains("ResourceExhaustedError")
        || flat.contains("from device: CUDA_ERROR_OUT_OF_MEMORY")
}

pub(crate) fn looks_like_jax(flat: &str) -> bool {
    flat.contains("RESOURCE_EXHAUSTED: Out of memory")
        || flat.contains("Out of memory while trying to allocate")
        || flat.contains("Out of memory allocating")
        || flat.contains("Failed to allocate request for")
}

/// How many of StreamExecutor's `failed to allocate … from device` lines the text holds, when
/// they are all it says (no tensor, no BFC allocator report): the request is then the pool's.
pub(crate) fn driver_failures_only(flat: &str) -> usize {
    if flat.contains("OOM when allocating tensor")
        || flat.contains("ran out of memory trying to allocate")
    {
        return 0;
    }
    super::scan::find_all(
        flat,
        " bytes) from device: CUDA_ERROR_OUT_OF_MEMORY",
        10_000,
    )
    .len()
}

/// The exact byte count of StreamExecutor's messages, after the human-readable size:
/// `3.81G (4087755776 bytes)` or `2.00GiB (2147483648B)`, from the start of `s`.
/// Returns (the size as shown, the bytes).
fn shown_and_exact(s: &str) -> Option<(&str, Bytes)> {
    let s = s.trim_start();
    let open = s.find(" (")?;
    let shown = &s[..open];
    if shown.is_empty() || shown.len() > 16 || shown.contains(' ') {
        return None;
    }
    let inner = &s[open + 2..];
    let (n, used) = count_at(inner)?;
    let unit = inner[used..].trim_start();
    if !(unit.starts_with("bytes)") || unit.starts_with("B)")) {
        return None;
    }
    (n <= MAX_SIZE.get()).then_some((shown, Bytes::new(n)))
}

/// Bytes per element of a TensorFlow dtype name.
fn dtype_size(name: &str) -> Option<u64> {
    Some(match name {
        "float" | "float32" | "int32" | "uint32" | "qint32" => 4,
        "double" | "float64" | "int64" | "uint64" | "complex64" => 8,
        "half" | "float16" | "bfloat16" | "int16" | "uint16" | "qint16" | "quint16" => 2,
        "int8" | "uint8" | "bool" | "qint8" | "quint8" | "float8_e4m3fn" | "float8_e5m2" => 1,
        "complex128" => 16,
        _ => return None,
    })
}

pub(crate) fn parse_tf(flat: &str) -> Option<(TensorflowOom, Vec<Evidence>)> {
    if !looks_like_tf(flat) {
        return None;
    }
    let mut t = TensorflowOom::default();
    let mut ev = Vec::new();
    if let Some(i) = flat.rfind("OOM when allocating tensor") {
        let seg = super::scan::clip(&flat[i..], 600);
        if let Some(s) = seg.find("shape[") {
            let rest = &seg[s + 6..];
            if let Some(close) = rest.find(']') {
                let dims: Option<Vec<u64>> = rest[..close]
                    .split(',')
                    .filter(|d| !d.trim().is_empty())
                    .map(|d| d.trim().parse::<u64>().ok())
                    .collect();
                if let Some(dims) = dims {
                    t.shape = dims.into_iter().take(32).collect();
                }
            }
        }
        if let Some(s) = seg.find(" and type ") {
            let name: String = seg[s + 10..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .take(24)
                .collect();
            if !name.is_empty() {
                t.dtype_bytes = dtype_size(&name);
                t.dtype = Some(name);
            }
        }
        if let Some(s) = seg.find(" on /") {
            let dev: String = seg[s + 4..]
                .chars()
                .take_while(|c| !c.is_whitespace())
                .take(80)
                .collect();
            t.device = Some(dev);
        }
        if let Some(s) = seg.find("by allocator ") {
            let a: String = seg[s + 13..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .take(40)
                .collect();
            if !a.is_empty() {
                t.allocator = Some(a);
            }
        }
        if let (false, Some(size)) = (t.shape.is_empty(), t.dtype_bytes) {
            let elems = t.shape.iter().try_fold(1u64, |acc, d| acc.checked_mul(*d));
            if let Some(bytes) = elems
                .and_then(|e| e.checked_mul(size))
                .filter(|b| *b <= MAX_SIZE.get())
            {
                let b = Bytes::new(bytes);
                t.tensor_bytes = Some(b);
                let dims: Vec<String> = t.shape.iter().map(|d| alloc::format!("{d}")).collect();
                ev.push(Evidence::size(
                    "tensor",
                    b,
                    alloc::format!(
                        "shape[{}] × {} B ({}) = {}",
                        dims.join(","),
                        size,
                        t.dtype.as_deref().unwrap_or(""),
                        b.display_auto()
                    ),
                ));
            }
        }
    }
    if let Some(i) = flat.rfind("ran out of memory trying to allocate") {
        let seg = super::scan::clip(&flat[i..], 200);
        let rounded = count_after(seg, "(rounded to")
            .map(Bytes::new)
            .filter(|b| *b <= MAX_SIZE);
        let shown = size_after(seg, "trying to allocate", Legacy::Decimal);
        match (rounded, shown) {
            (Some(r), Some(s)) => {
                t.requested = Some(r);
                ev.push(Evidence::size(
                    "requested",
                    r,
                    alloc::format!("{} (rounded to {})", s.text, r.get()),
                ));
            }
            (Some(r), None) => {
                t.requested = Some(r);
                ev.push(Evidence::size(
                    "requested",
                    r,
                    alloc::format!("rounded to {}", r.get()),
                ));
            }
            (None, Some(s)) => {
                t.requested = Some(s.bytes);
                ev.push(Evidence::size("requested", s.bytes, s.text));
            }
            (None, None) => {}
        }
    }
    // StreamExecutor's failed cuMemAlloc (the last of a run of retries), when the BFC allocator
    // gave no request of its own.
    if t.requested.is_none()
        && let Some(i) = flat.rfind(" bytes) from device: CUDA_ERROR_OUT_OF_MEMORY")
        && let Some(start) = flat[..i].rfind("failed to allocate ")
        && let Some((shown, b)) = shown_and_exact(&flat[start + 19..])
    {
        t.requested = Some(b);
        ev.push(Evidence::size(
            "requested",
            b,
            alloc::format!("{shown} ({} bytes)", b.get()),
        ));
    }
    for (key, name) in [
        ("Limit:", "limit"),
        ("InUse:", "in_use"),
        ("MaxInUse:", "max_in_use"),
    ] {
        // `InUse:` is also inside `MaxInUse:`: match it at a word start.
        let found = super::scan::find_all(flat, key, 64)
            .into_iter()
            .rev()
            .find(|&i| i == 0 || flat.as_bytes().get(i - 1) == Some(&b' '));
        let Some(i) = found else { continue };
        let Some((v, _)) = count_at(flat[i + key.len()..].trim_start()) else {
            continue;
        };
        if v > MAX_SIZE.get() {
            continue;
        }
        let b = Bytes::new(v);
        match name {
            "limit" => t.limit = Some(b),
            "in_use" => t.in_use = Some(b),
            _ => t.max_in_use = Some(b),
        }
        ev.push(Evidence::size(
            name,
            b,
            alloc::format!("{key} {v} ({})", b.display_auto()),
        ));
    }
    Some((t, ev))
}

pub(crate) fn parse_jax(flat: &str) -> Option<(JaxOom, Vec<Evidence>)> {
    if !looks_like_jax(flat) {
        return None;
    }
    let mut j = JaxOom::default();
    let mut ev = Vec::new();
    let req = [
        "Out of memory while trying to allocate",
        "Out of memory allocating",
    ]
    .iter()
    .filter_map(|n| flat.rfind(n).map(|i| (i, n.len())))
    .max_by_key(|(i, _)| *i)
    .and_then(|(i, n)| super::scan::size_after_spaces(&flat[i + n..], Legacy::Decimal));
    if let Some(r) = req {
        j.requested = Some(r.bytes);
        ev.push(Evidence::size("requested", r.bytes, r.text));
    } else if let Some(i) = flat.rfind("Failed to allocate request for ")
        && let Some((shown, b)) = shown_and_exact(&flat[i + 30..])
    {
        j.requested = Some(b);
        ev.push(Evidence::size(
            "requested",
            b,
            alloc::format!("{shown} ({}B)", b.get()),
        ));
    }
    for (needle, name) in [
        ("total allocation:", "total_allocation"),
        ("preallocated temp allocation:", "temp_allocation"),
        ("total fragmentation:", "total_fragmentation"),
    ] {
        let Some(s) = size_after(flat, needle, Legacy::Decimal) else {
            continue;
        };
        match name {
            "total_allocation" => j.total_allocation = Some(s.bytes),
            "temp_allocation" => j.temp_allocation = Some(s.bytes),
            _ => j.total_fragmentation = Some(s.bytes),
        }
        ev.push(Evidence::size(name, s.bytes, s.text));
    }
    Some((j, ev))
}
