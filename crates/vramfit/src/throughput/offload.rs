//! The part of a forward pass that llama.cpp runs from CPU memory: the layers `-ngl` leaves there
//! and the routed experts `--n-cpu-moe` keeps there, with their text.
//!
//! - A decode step (and a prompt of fewer than 32 tokens) reads the CPU-resident weights a token
//!   uses — the layers' weights, the routed experts' touched share, the layers' KV cache — at the
//!   host memory's bandwidth times the host class's share of it ([`efficiency::host_mbu`]), one pass after the GPU's; each hand-over
//!   between the GPU and the CPU costs [`efficiency::BACKEND_SWITCH_S`] (a copy of the hidden state
//!   and a synchronisation: two per block whose experts sit in CPU memory).
//! - A prompt of 32 tokens or more (`GGML_OP_OFFLOAD_MIN_BATCH`) runs on the GPU: ggml's scheduler
//!   copies every CPU-resident weight it multiplies with to the GPU, once per ubatch (op offload,
//!   `ggml_backend_sched`), over PCIe at [`efficiency::PCIE_EFFICIENCY`] of its per-direction
//!   bandwidth; the whole expert tensors, all experts, since the copy is of the tensor.

use alloc::format;
use alloc::string::String;

use super::inference::InferenceInput;
use super::{FormulaText, efficiency};
use crate::units::fixed;

/// llama.cpp's `GGML_OP_OFFLOAD_MIN_BATCH`: a batch of this many tokens or more runs a matrix
/// product with CPU-resident weights on the GPU (`ggml-cuda.cu`, `ggml_backend_cuda_device_offload_op`).
pub const OP_OFFLOAD_MIN_BATCH: f64 = 32.0;

/// The CPU side of one phase: each term of its time.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub(super) struct Terms {
    /// Bytes read from CPU memory (decode, or a prompt under [`OP_OFFLOAD_MIN_BATCH`]).
    pub cpu_bytes: f64,
    /// Their time at the host's bandwidth.
    pub cpu_s: f64,
    /// Hand-overs between the GPU and the CPU, and their time.
    pub switches: f64,
    pub switch_s: f64,
    /// Ubatches whose weights op offload copies, the bytes of one copy, and the copies' time.
    pub copies: f64,
    pub copy_bytes: f64,
    pub copy_s: f64,
}

impl Terms {
    /// The CPU side's time.
    pub fn total_s(&self) -> f64 {
        self.cpu_s + self.switch_s + self.copy_s
    }
}

/// Whether `i` keeps anything in CPU memory.
pub(super) fn offloaded(i: &InferenceInput) -> bool {
    i.cpu_weight_bytes > 0 || i.cpu_expert_weight_bytes > 0 || i.cpu_kv_bytes_per_token > 0
}

/// The CPU side of a pass of `tokens` tokens reading the KV cache of `kv_tokens`, the routed
/// experts' share `touched` of them.
pub(super) fn terms(i: &InferenceInput, tokens: f64, kv_tokens: f64, touched: f64) -> Terms {
    if !offloaded(i) {
        return Terms::default();
    }
    let switches = f64::from(i.backend_switches);
    let switch_s = switches * efficiency::BACKEND_SWITCH_S;
    let link = i.host_link_bytes_per_s as f64;
    if tokens >= OP_OFFLOAD_MIN_BATCH && link > 0.0 {
        let ubatch = f64::from(i.ubatch.max(1));
        let copies = libm::ceil(tokens / ubatch);
        let copy_bytes = (i.cpu_weight_bytes + i.cpu_expert_weight_bytes) as f64;
        let copy_s = copies * copy_bytes / (link * efficiency::PCIE_EFFICIENCY);
        return Terms {
            switches,
            switch_s,
            copies,
            copy_bytes,
            copy_s,
            ..Terms::default()
        };
    }
    let cpu_bytes = i.cpu_weight_bytes as f64
        + i.cpu_expert_weight_bytes as f64 * touched
        + i.cpu_kv_bytes_per_token as f64 * kv_tokens;
    let host = (i.host_bandwidth_bytes_per_s as f64).max(1.0);
    Terms {
        cpu_bytes,
        cpu_s: cpu_bytes / (host * efficiency::host_mbu(i.host_kind)),
        switches,
        switch_s,
        ..Terms::default()
    }
}

fn gb(bytes: f64) -> String {
    format!("{} GB", fixed(bytes / 1e9, 2))
}

fn gb_s(bytes_per_s: f64) -> String {
    format!("{} GB/s", fixed(bytes_per_s / 1e9, 1))
}

fn ms(s: f64) -> String {
    format!("{} ms", fixed(s * 1e3, 2))
}

/// The CPU side's terms as they follow the GPU's in a phase's formula (empty without any).
pub(super) fn text(i: &InferenceInput, t: &Terms) -> FormulaText {
    if !offloaded(i) {
        return FormulaText::default();
    }
    let switches = if t.switches > 0.0 {
        let (n, each, total) = (
            fixed(t.switches, 0),
            fixed(efficiency::BACKEND_SWITCH_S * 1e6, 0),
            ms(t.switch_s),
        );
        (
            format!(" + {n} GPU↔CPU hand-overs × {each} µs = {total}"),
            format!(" + {n} 次 GPU↔CPU 交接 × {each} µs = {total}"),
        )
    } else {
        (String::new(), String::new())
    };
    let (en, zh) = if t.copies > 0.0 {
        let (n, bytes, link, eff, total) = (
            fixed(t.copies, 0),
            gb(t.copy_bytes),
            gb_s(i.host_link_bytes_per_s as f64),
            fixed(efficiency::PCIE_EFFICIENCY, 2),
            ms(t.copy_s),
        );
        (
            format!(
                " + op offload: {n} ubatches × {bytes} of CPU-resident weights copied to the GPU / ({link} PCIe × {eff}) = {total}"
            ),
            format!(
                " + 算子卸载：{n} 个 ubatch × {bytes} 的 CPU 内存权重复制到 GPU /（{link} PCIe × {eff}）= {total}"
            ),
        )
    } else {
        let (bytes, host, eff, total) = (
            gb(t.cpu_bytes),
            gb_s(i.host_bandwidth_bytes_per_s as f64),
            fixed(efficiency::host_mbu(i.host_kind), 2),
            ms(t.cpu_s),
        );
        (
            format!(" + CPU memory: {bytes} read / ({host} host × {eff}) = {total}"),
            format!(" + CPU 内存：读取 {bytes} /（主机 {host} × {eff}）= {total}"),
        )
    };
    FormulaText {
        en: if cfg!(feature = "en") {
            format!("{en}{}", switches.0)
        } else {
            String::new()
        },
        zh: if cfg!(feature = "zh") {
            format!("{zh}{}", switches.1)
        } else {
            String::new()
        },
    }
}
