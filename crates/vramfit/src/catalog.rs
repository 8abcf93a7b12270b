//! Lookups across the data catalogs, for the estimator's input resolution.

use crate::model::Architecture;
use crate::precision::{Dtype, Quantization};
use crate::units::Bytes;

/// A GPU the workload runs on, as far as the estimate needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Device {
    /// Catalog id, or `custom`.
    pub id: &'static str,
    /// The catalog's record (for the speed model), or `None` for a memory size alone.
    pub gpu: Option<&'static crate::gpu::Gpu>,
    /// Memory as the CUDA runtime reports it.
    pub memory: Bytes,
    /// Hopper or newer: 32 MiB cuBLAS workspaces instead of 8 MiB + 128 KiB.
    pub hopper_or_newer: bool,
    /// An A100: vLLM picks its smaller defaults for it even at 80 GB.
    pub a100: bool,
    /// Computes in bf16 (Ampere and newer): vLLM runs an fp32 checkpoint in bf16 there, in fp16
    /// elsewhere.
    pub bf16: bool,
    /// Computes in FP8 (Ada, Hopper and newer): TensorRT-LLM keeps an fp8 KV cache there only.
    pub fp8: bool,
    /// Computes in FP4 (Blackwell): TensorRT-LLM's nvfp4 KV cache.
    pub fp4: bool,
    /// Memory already in use on the card before the run starts (the desktop, a display, other
    /// programs): `memory_in_use`, 0 when not given, at most `memory`.
    pub in_use: Bytes,
}

impl Device {
    /// The memory free when the run starts, what `cudaMemGetInfo` reports as free: `memory`
    /// less what is already in use.
    pub fn free(&self) -> Bytes {
        self.memory.minus(self.in_use)
    }
}

/// A preset's checkpoint dtype and architecture, by id (case-insensitive).
pub fn find_model(id: &str) -> Option<(Dtype, Architecture, Quantization)> {
    crate::presets::find(id).map(|p| (p.dtype, p.arch, p.quantization))
}

/// A catalog GPU as the estimator needs it, by id or by what names it alone
/// ([`crate::gpu::match_gpus`]: `h200`, `4090`, `NVIDIA A100 SXM4 80GB`).
pub fn find_device(id: &str) -> Option<Device> {
    // A catalog id as written, the usual question, is the one card `match_gpus` would give
    // (ids are lower-case and distinct: a test in `gpu::catalog`), without its search.
    if let Some(g) = crate::gpu::find_gpu(id.trim()) {
        return Some(device_of(g));
    }
    match crate::gpu::match_gpus(id).as_slice() {
        [g] => Some(device_of(g)),
        _ => None,
    }
}

/// What the estimator needs to know of a catalog GPU.
pub fn device_of(g: &'static crate::gpu::Gpu) -> Device {
    let generation = g.generation();
    Device {
        id: g.id,
        gpu: Some(g),
        memory: g.memory,
        // cuBLAS uses 32 MiB workspaces from Hopper (sm90) on.
        hopper_or_newer: generation.hopper_or_newer(),
        // vLLM keeps its smaller defaults on A100s whatever their memory.
        a100: g.id.starts_with("a100") || g.id.starts_with("a800"),
        bf16: generation.bf16(),
        fp8: generation.fp8(),
        fp4: generation.fp4(),
        in_use: Bytes::ZERO,
    }
}
