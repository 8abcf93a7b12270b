//! Lookups across the data catalogs, for the estimator's input resolution.

use crate::estimate::Device;
use crate::model::Architecture;
use crate::precision::{Dtype, Quantization};

/// A preset's checkpoint dtype and architecture, by id (case-insensitive).
pub fn find_model(id: &str) -> Option<(Dtype, Architecture, Quantization)> {
    crate::presets::find(id).map(|p| (p.dtype, p.arch, p.quantization))
}

/// A catalog GPU as the estimator needs it, by id or by what names it alone
/// ([`crate::hardware::match_gpus`]: `h200`, `4090`, `NVIDIA A100 SXM4 80GB`).
pub fn find_device(id: &str) -> Option<Device> {
    match crate::hardware::match_gpus(id).as_slice() {
        [g] => Some(device_of(g)),
        _ => None,
    }
}

/// What the estimator needs to know of a catalog GPU.
pub fn device_of(g: &crate::hardware::Gpu) -> Device {
    let arch = g.architecture.to_ascii_lowercase();
    Device {
        id: alloc::string::String::from(g.id),
        memory: g.memory,
        // cuBLAS uses 32 MiB workspaces from Hopper (sm90) on. (`starts_with`, not `contains`:
        // the wasm modules then link none of core's substring search.)
        hopper_or_newer: arch.starts_with("hopper") || arch.starts_with("blackwell"),
        // vLLM keeps its smaller defaults on A100s whatever their memory.
        a100: g.id.starts_with("a100") || g.id.starts_with("a800"),
        bf16: g.bf16_tflops > 0.0,
    }
}
