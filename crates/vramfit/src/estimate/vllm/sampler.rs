//! What vLLM's profile run holds under the sampler's peak beside the per-sequence logits, read in
//! the v0.19.0 source:
//!
//! - the Triton top-k/top-p kernel's cached buffer (`_TRITON_BUFFER_CACHE` in
//!   `vllm/v1/sample/ops/topk_topp_triton.py`): one fp32 vocabulary row per SM
//!   (`num_compute_units`), kept for the process's life, so part of the sampler's peak whatever
//!   the number of sequences. The kernel replaces the sort from 0.17.0
//!   ([`super::VllmVersion::full_sort_sampler`]). The 0.19 H100 calibration's
//!   [`super::SAMPLER_FP32_COPIES`] (3.78 copies at 1,024 sequences) held the H100's 132 rows in
//!   it: 132 / 1,024 = 0.129 of a copy, so the per-sequence part is 3.78 − 0.129 = 3.651 copies
//!   and the buffer is counted by the card's SMs ([`crate::gpu::Gpu::sms`]): the same sum on the
//!   calibration's H100s, 75 rows more on an A100 at 256 sequences (3.651 × 256 + 108 against
//!   3.78 × 256);
//! - the fused-MoE workspaces, which the modular kernel takes from
//!   `current_workspace_manager()` (`vllm/model_executor/layers/fused_moe/modular_kernel.py`)
//!   and which stay allocated after the forward, so that they sit under the sampler's peak too.
//!   Counted for Marlin's MXFP4 experts, whose shapes were read (`MarlinExperts.workspace_shapes`
//!   in `fused_moe/fused_marlin_moe.py`): `M × topk × max(N, K)` and `M × topk × max(2N, K)` in
//!   the activation dtype, `N` and `K` the padded intermediate and hidden widths
//!   (`mxfp4.rs`), `M` the forward's batched tokens. The output `(M, K)` is the layer's
//!   own output, in the forward's peak already.

use super::mxfp4::Mxfp4Backend;
use super::{Run, SAMPLER_FP32_COPIES, VllmVersion};
use crate::gpu::UNKNOWN_SMS;
use crate::units::Bytes;

/// The SMs of the H100 SXM5 the 0.19 calibration ran on (132, NVIDIA's Hopper whitepaper).
const CALIBRATION_SMS: f64 = 132.0;
/// The sequences of the 0.19 calibration's runs (vLLM's default 1,024 on an H100).
const CALIBRATION_SEQS: f64 = 1024.0;
/// The per-sequence fp32 copies of the logits once the Triton buffer is counted apart:
/// 3.78 − 132 / 1,024 = 3.651.
pub const SAMPLER_COPIES_PER_SEQ: f64 = SAMPLER_FP32_COPIES - CALIBRATION_SMS / CALIBRATION_SEQS;
/// A stated margin on the releases that run the Triton sampler with the CUDA graphs outside the
/// budget (0.17–0.20): 0.25 GiB, counted with the non-torch memory. It covers the largest excess
/// of the line's published runs over vramfit once the Triton buffer, the MoE workspaces and the
/// fp32 forward (`Run::vllm_fp32_forward_margin`) are counted, none of them found in the v0.19.0
/// source: granite-3.1-8b on an H100 (the llm-d study, `tests/data/vllm-h100-v0.19-calibration.csv`),
/// whose non-torch memory was 0.46 GiB where the study's other single-GPU runs had 0.24–0.25,
/// was 0.13 GiB over with the former 0.1 GiB margin (0.23 GiB without one); gpt-oss-20b on an
/// A100 80 GB (myoceane.fr post 10289, `tests/data/vllm-versions.csv` row `myoceane10289`)
/// 0.08 GiB; the pipeline-parallel runs' engine-wide pools 70 MiB at pp 2 and 66 MiB at pp 4.
/// The largest, 0.23 GiB, rounded up. With it every run of the line is at or under vLLM's pool.
pub const TRITON_LINE_MARGIN: Bytes = Bytes::new(268_435_456); // 0.25 GiB

impl Run<'_> {
    /// The rows the Triton top-k/top-p buffer holds, where `version` runs that kernel (V1 from
    /// 0.17; not a pooling model, which samples nothing). `apply_top_k_top_p_triton` (v0.19.0,
    /// `vllm/v1/sample/ops/topk_topp_triton.py`) runs `min(num_sm, batch)` programs and caches
    /// `min(next_power_of_2(programs), num_sm)` rows, `num_sm` being torch's
    /// `multi_processor_count` (SMs on CUDA, compute units on ROCm, whose default sampler is the
    /// same `forward_native`); the profile's batch is `max_num_seqs`. A card without an `sms`
    /// record counts [`UNKNOWN_SMS`] (`data/engine-defaults.toml`, the catalog's most).
    pub(super) fn vllm_triton_topk_sms(&self, version: VllmVersion) -> Option<u64> {
        if self.pooling || !version.v1() || version.minor() < 17 {
            return None;
        }
        let sms = match self.device.as_ref().and_then(|d| d.gpu).map(|g| g.sms) {
            Some(n) if n > 0 => u64::from(n),
            _ => u64::from(UNKNOWN_SMS),
        };
        let programs = sms.min(self.max_num_seqs).max(1);
        Some(programs.next_power_of_two().min(sms))
    }

    /// The sampler's profile with the Triton buffer apart: `seqs × vocab × 4 B × 3.651 + sms ×
    /// vocab × 4 B`.
    pub(super) fn vllm_triton_sampler(&self, sms: u64) -> u64 {
        let row = self.arch.vocab_size as f64 * 4.0;
        Bytes::from_f64(self.max_num_seqs as f64 * row * SAMPLER_COPIES_PER_SEQ + sms as f64 * row)
            .get()
    }

    /// [`TRITON_LINE_MARGIN`] where it applies: a sampling model at 0.17–0.20; 0 elsewhere.
    pub(super) fn vllm_triton_line_margin(&self, version: VllmVersion) -> u64 {
        match self.vllm_triton_topk_sms(version) {
            Some(_) if version.minor() <= 20 => TRITON_LINE_MARGIN.get(),
            _ => 0,
        }
    }

    /// Marlin's fused-MoE workspaces kept under the sampler's peak (from 0.19, read at v0.19.0):
    /// `tokens × topk × (max(N, K) + max(2N, K))` in the activation dtype; 0 for any other
    /// backend or model.
    pub(super) fn vllm_moe_workspaces(
        &self,
        version: VllmVersion,
        mxfp4: Option<(Mxfp4Backend, u64)>,
    ) -> u64 {
        let (Some((Mxfp4Backend::Marlin, _)), Some(m)) = (mxfp4, self.arch.moe) else {
            return 0;
        };
        if !version.v1() || version.minor() < 19 {
            return 0;
        }
        let (n, k) = self.vllm_marlin_widths();
        let rows = self
            .max_num_batched_tokens
            .saturating_mul(m.experts_per_token);
        rows.saturating_mul(n.max(k).saturating_add((2 * n).max(k)))
            .saturating_mul(self.act_bytes())
    }
}

#[cfg(test)]
#[path = "sampler_tests.rs"]
mod tests;
