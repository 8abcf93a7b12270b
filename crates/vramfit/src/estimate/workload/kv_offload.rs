//! vLLM's KV offloading to CPU memory (`--kv-offloading-size`, `--kv-offloading-backend`,
//! `CacheConfig` from 0.14, where the size alone turns on the native backend: vLLM PR #32421,
//! 2026-01-15), checked into a typed [`KvOffload`].

use crate::error::Result;
use crate::estimate::{EstimateInput, KvOffloadingBackend, VllmVersion};

/// The largest `kv_offloading_size` taken, in GiB (16 TiB of host memory).
const MAX_GIB: f64 = 16_384.0;

/// KV blocks offloaded to CPU memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KvOffload {
    /// `kv_offloading_size` in GiB, as given.
    pub gib: f64,
    /// Where the blocks go.
    pub backend: KvOffloadingBackend,
}

impl KvOffload {
    /// The host memory one server holds for them: the native backend's `kv_offloading_size ×
    /// 2^30` bytes over all its ranks (`cpu_bytes_to_use`); LMCache's server sizes its own.
    pub fn host_bytes(self) -> u64 {
        match self.backend {
            KvOffloadingBackend::Native => {
                crate::units::Bytes::from_f64(self.gib * (1u64 << 30) as f64).get()
            }
            KvOffloadingBackend::Lmcache => 0,
        }
    }
}

impl EstimateInput {
    /// `kv_offloading_size` and its backend: vLLM 0.14 or later, 0.01 to 16,384 GiB; the backend
    /// alone is refused (vLLM offloads nothing without a size).
    pub(super) fn resolve_kv_offload(&self, version: VllmVersion) -> Result<Option<KvOffload>> {
        let Some(gib) = self.serving.kv_offloading_size else {
            if self.serving.kv_offloading_backend.is_some() {
                return Err(input_error!(
                    Conflict,
                    "kv_offloading_backend",
                    "a backend without kv_offloading_size: vLLM offloads nothing then",
                    "给出了后端却没有 kv_offloading_size：此时 vLLM 不卸载任何内容",
                    "with kv_offloading_size only",
                    "仅与 kv_offloading_size 同用",
                ));
            }
            return Ok(None);
        };
        if !self.runner().offloads_kv() {
            let name = self.runner().rules().name;
            return Err(input_error!(
                Unsupported,
                "kv_offloading_size",
                ["KV offloading to CPU memory is modelled for vLLM serving only, not {name}"],
                ["KV 卸载到 CPU 内存仅对 vLLM 服务部署建模，不含 {name}"],
                "no kv_offloading_size with this engine; engine vllm (--kv-offloading-size)",
                "这个引擎下不设 kv_offloading_size；可用 vllm 引擎（--kv-offloading-size）",
            ));
        }
        if version.minor() < 14 {
            let minor = version.minor();
            return Err(input_error!(
                Unsupported,
                "kv_offloading_size",
                [
                    "vLLM 0.{minor} names its KV connector in --kv-transfer-config; --kv-offloading-size alone offloads from 0.14"
                ],
                [
                    "vLLM 0.{minor} 需在 --kv-transfer-config 中指定 KV 连接器；单独的 --kv-offloading-size 从 0.14 起才会卸载"
                ],
                "engine_version 0.14 or later (the latest by default)",
                "engine_version 0.14 或更新（默认最新）",
            ));
        }
        if !(gib.is_finite() && (0.01..=MAX_GIB).contains(&gib)) {
            return Err(input_error!(
                OutOfRange,
                "kv_offloading_size",
                ["{} is out of range", crate::units::number_text(gib)],
                ["{} 超出范围", crate::units::number_text(gib)],
                "GiB of CPU memory, from 0.01 to 16,384",
                "以 GiB 计的 CPU 内存，0.01 到 16,384",
            ));
        }
        Ok(Some(KvOffload {
            gib,
            backend: self.serving.kv_offloading_backend.unwrap_or_default(),
        }))
    }
}
