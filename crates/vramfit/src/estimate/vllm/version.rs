//! vLLM's releases and the rules each line of them sizes its KV pool by.
//!
//! Every rule names the vLLM source or the published start-up log it is read from; the logs are
//! in `tests/data/vllm-versions.csv` (notes in `vllm-versions.notes.md`) and
//! `tests/it/vllm_versions.rs` holds the estimate to them.

use crate::error::Result;
use crate::units::Bytes;
use core::fmt;

/// A vLLM release, `0.minor` or `0.minor.patch`, from 0.6 to [`VllmVersion::LATEST`].
///
/// Ordered as the releases are; a version without its patch stands for the last patch of its
/// minor release (`0.6` is 0.6.6), so its rules are that release's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VllmVersion {
    minor: u16,
    /// `u16::MAX` when not given: the last patch of the minor release.
    patch: u16,
}

/// What `engine_version` accepts, in the words of an error.
#[cfg(any(feature = "en", not(feature = "zh")))]
const ACCEPTED: &str = "a vLLM release from 0.6 to 0.33, e.g. 0.19 or 0.8.5";
#[cfg(feature = "zh")]
const ACCEPTED_ZH: &str = "0.6 到 0.33 的 vLLM 版本，如 0.19 或 0.8.5";

impl VllmVersion {
    /// The oldest release vramfit models: 0.6.
    pub const OLDEST: VllmVersion = VllmVersion::new(6, None);
    /// The newest release vramfit knows, the default: 0.33.
    pub const LATEST: VllmVersion = VllmVersion::new(33, None);

    /// `0.minor` (`patch` `None`: its last patch) or `0.minor.patch`.
    pub const fn new(minor: u16, patch: Option<u16>) -> VllmVersion {
        VllmVersion {
            minor,
            patch: match patch {
                Some(p) => p,
                None => u16::MAX,
            },
        }
    }

    /// The minor release: 19 for 0.19.1.
    pub const fn minor(self) -> u16 {
        self.minor
    }

    /// Reads `0.19`, `0.19.1`, `v0.19.0` or `0.8.5.post1` (a suffix after the patch is a build
    /// of that patch), from 0.6 to [`VllmVersion::LATEST`]; anything else is an error naming
    /// `field`.
    pub fn parse(field: &'static str, text: &str) -> Result<VllmVersion> {
        let bad = || {
            input_error!(
                Malformed,
                field,
                ["{} is not a vLLM version", crate::units::quoted(text)],
                ["{} 不是 vLLM 版本", crate::units::quoted(text)],
                [= ACCEPTED],
                [= ACCEPTED_ZH],
            )
        };
        let mut parts = crate::estimate::release::parts(text);
        let number = crate::estimate::release::number;
        let (Some(0), Some(minor)) = (number(parts.next()), number(parts.next())) else {
            return Err(bad());
        };
        let patch = match parts.next() {
            None => None,
            Some(p) => Some(number(Some(p)).ok_or_else(bad)?),
        };
        let v = VllmVersion::new(minor, patch);
        if !(VllmVersion::OLDEST.minor..=VllmVersion::LATEST.minor).contains(&minor) {
            return Err(input_error!(
                OutOfRange,
                field,
                ["vLLM {} is not modelled", text],
                ["未建模 vLLM {}", text],
                [= ACCEPTED],
                [= ACCEPTED_ZH],
            ));
        }
        Ok(v)
    }

    /// The engine this release serves with by default: V1 from 0.8.0 (`VLLM_USE_V1` defaults to
    /// 1 in `vllm/envs.py` at v0.8.0), V0 before.
    pub const fn v1(self) -> bool {
        self.minor >= 8
    }

    /// `--limit-mm-per-prompt` of a modality the launch does not name: 999 on V1, 1 on V0
    /// (`MultiModalConfig.get_limit_per_prompt`, `vllm/config/multimodal.py`: "Unspecified
    /// modality is set to 999 by default" at 0.33.0; `999 if envs.VLLM_USE_V1 else 1` before
    /// vllm-project/vllm#25631 removed V0). The start-up profile encodes dummy items up to it.
    pub const fn default_mm_limit(self) -> u64 {
        if self.v1() { 999 } else { 1 }
    }

    /// The CUDA-graph memory is profiled before the pool is sized and taken out of the
    /// utilisation budget (`gpu_worker.py`: "CUDA graph memory profiling is enabled (default
    /// since v0.21.0)", printed by the 0.21+ logs of tests/data/vllm-versions.csv); before 0.21
    /// the graphs were captured after the pool was allocated, outside the budget
    /// (`worker.py` `_warm_up_model` in V0, `gpu_worker.py` `compile_or_warm_up_model` in V1).
    pub const fn graphs_in_budget(self) -> bool {
        self.minor >= 21
    }

    /// From 0.26.0 the CUDA-graph profiler also charges a profiling transient that grows with
    /// `max_num_batched_tokens` as graph memory on hybrid Gated-DeltaNet models, 18–24 % of
    /// their pool (vllm-project/vllm#50780, open): vramfit charges one more forward over
    /// `max_num_batched_tokens` for a model with state layers, the smaller pool.
    pub const fn hybrid_graph_transient(self) -> bool {
        self.minor >= 26
    }

    /// 0.6.5–0.6.6's profiler (vllm-project/vllm#10511, until #11809 in 0.7.0) measured the
    /// activation peak from a baseline taken before the forward and kept the sampler's logits
    /// on top of it: its H100 logs print the same 1.26 GiB for Llama 3 8B at tp = 1 and tp = 2.
    /// vramfit counts the whole forward on each GPU plus the sampler there, 1.37 GiB for that
    /// run (0.2 % of its pool smaller than vLLM's).
    pub const fn profile_whole_forward_and_sampler(self) -> bool {
        self.minor == 6 && self.patch >= 5
    }

    /// V1 from 0.8 to 0.16 profiles the sampler's top-k/top-p with a full sort of the logits:
    /// `apply_top_k_top_p` in `vllm/v1/sample/ops/topk_topp_sampler.py` (v0.11.0, v0.14.1) runs
    /// `logits.sort(dim=-1)` whenever a top-p is set, which `_dummy_sampler_run` does (top-p
    /// 0.9, top-k vocab − 1), unless FlashInfer's sampler runs instead (in 0.8–0.11 when
    /// FlashInfer is installed, an extra of the wheel; opt-in from 0.14): vramfit counts the sort,
    /// the larger. From 0.17.0 a Triton kernel (`topk_topp_triton.py`, batches of 8 or more)
    /// replaces the sort, and the 0.19 calibration's [`super::SAMPLER_FP32_COPIES`] applies.
    pub const fn full_sort_sampler(self) -> bool {
        self.v1() && self.minor < 17
    }

    /// From 0.9.1 V1 checks at start-up that the free memory holds `gpu_memory_utilization` of
    /// the card and refuses otherwise ("Free memory on device (…/… GiB) on startup is less than
    /// desired GPU memory utilization (…, … GiB)", `init_device` in
    /// `vllm/v1/worker/gpu_worker.py`), and sizes the pool from that `requested_memory` less this
    /// process's own profile, so memory other programs hold leaves the pool as it was. 0.9.1 is
    /// the first release seen to refuse: vllm-project/llm-compressor#1560 (2025-06-17, "starting
    /// from version 0.9.1") and vllm-project/vllm#20305 (v0.9.1's log).
    /// Before, no such check: the 0.8-era V1 worker (`determine_available_memory`,
    /// vllm-project/vllm@0012cf691b7e) counts `total − free − torch` after the profile as
    /// non-torch memory, other programs' memory with it, so that memory comes out of the
    /// budget; vramfit takes that rule for 0.6 to 0.9.0 (V0's profiler counts the same way up
    /// to 0.6.4; from 0.6.5 it measures from a baseline and may not: the smaller pool is the
    /// safe side).
    pub const fn refuses_short_free(self) -> bool {
        self.minor > 9 || (self.minor == 9 && self.patch >= 1)
    }

    /// Non-torch memory the profile run counts against the budget, per GPU.
    ///
    /// - 0.6.0–0.6.4 (`torch.cuda.memory_stats` peak, vllm-project/vllm#9352): 0.35 GiB at
    ///   tp = 1 (vllm-project/vllm#10517, RTX 3090); [`super::VLLM_NON_TORCH_TP`] in a group.
    /// - 0.6.5–0.6.6 (the profiler overhaul, vllm-project/vllm#10511, which counted the CUDA
    ///   context and NCCL's buffers as non-torch until #11809 in 0.7.0): 1.79 GiB at tp = 1,
    ///   3.58 GiB at tp = 2, as that PR's own H100 logs print.
    /// - 0.7 on: [`super::VLLM_NON_TORCH`], [`super::VLLM_NON_TORCH_PP`],
    ///   [`super::VLLM_NON_TORCH_TP`] (the 0.19 H100 calibration).
    pub const fn non_torch(self, tp: u64, pp: u64) -> Bytes {
        match (self.minor, self.patch) {
            (6, 0..=4) if tp > 1 => super::VLLM_NON_TORCH_TP,
            (6, 0..=4) => V06_NON_TORCH,
            (6, _) if tp > 1 => V065_NON_TORCH_TP,
            (6, _) => V065_NON_TORCH,
            _ if tp > 1 => super::VLLM_NON_TORCH_TP,
            _ if pp > 1 => super::VLLM_NON_TORCH_PP,
            _ => super::VLLM_NON_TORCH,
        }
    }

    /// `max_num_batched_tokens` when not given, for a context of `max_model_len`.
    ///
    /// V0 (`SchedulerConfig` in `vllm/config.py`, v0.6.0–v0.7.3): without chunked prefill
    /// `max(max_model_len, 2048)`, one whole prompt per step; the OpenAI server turns chunked
    /// prefill on above a 32,768-token context, where 0.6 steps 512 tokens and 0.7 2,048
    /// (vramfit takes 2,048 for both: the larger profile, the smaller pool). V1: `None`, the
    /// engine's per-card default.
    pub fn v0_batched_tokens(self, max_model_len: u64) -> Option<u64> {
        if self.v1() {
            return None;
        }
        Some(if max_model_len > 32_768 {
            2048
        } else {
            max_model_len.max(2048)
        })
    }

    /// `max_num_seqs` when not given: V0's 256 on every card (`SchedulerConfig`); V1 `None`,
    /// the engine's per-card default.
    pub const fn v0_max_seqs(self) -> Option<u64> {
        if self.v1() { None } else { Some(256) }
    }
}

impl Default for VllmVersion {
    fn default() -> Self {
        VllmVersion::LATEST
    }
}

impl fmt::Display for VllmVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.patch == u16::MAX {
            write!(f, "0.{}", self.minor)
        } else {
            write!(f, "0.{}.{}", self.minor, self.patch)
        }
    }
}

/// 0.6.0–0.6.4 non-torch memory at tp = 1: 0.35 GiB (vllm-project/vllm#10517).
const V06_NON_TORCH: Bytes = Bytes::new(375_809_639);
/// 0.6.5–0.6.6 non-torch memory at tp = 1: 1.79 GiB (vllm-project/vllm#10511).
const V065_NON_TORCH: Bytes = Bytes::new(1_921_997_783);
/// 0.6.5–0.6.6 non-torch memory at tp ≥ 2: 3.58 GiB (vllm-project/vllm#10511).
const V065_NON_TORCH_TP: Bytes = Bytes::new(3_843_995_566);

#[cfg(test)]
mod tests {
    use super::VllmVersion;
    use alloc::string::ToString;

    #[test]
    fn versions_are_read_and_ordered() {
        let v = |t: &str| VllmVersion::parse("engine_version", t).unwrap();
        assert_eq!(v("0.19"), VllmVersion::new(19, None));
        assert_eq!(v("v0.19.1"), VllmVersion::new(19, Some(1)));
        assert_eq!(v("0.8.5.post1"), VllmVersion::new(8, Some(5)));
        assert_eq!(v("0.6.3.post1").to_string(), "0.6.3");
        assert!(v("0.6.4") < v("0.6.5") && v("0.6.6") < v("0.6") && v("0.6") < v("0.7.0"));
        assert!(v("0.9") < v("0.10.0") && v("0.33") == VllmVersion::LATEST);
        for bad in [
            "", "0", "1.0", "0.x", "0.5", "0.34", "0.19.", "latest", "0..1",
        ] {
            let e = VllmVersion::parse("engine_version", bad).unwrap_err();
            assert_eq!(e.field, "engine_version", "{bad}");
        }
    }

    #[test]
    fn lines_switch_where_the_sources_say() {
        let v = |t: &str| VllmVersion::parse("engine_version", t).unwrap();
        assert!(!v("0.7.3").v1() && v("0.8.0").v1());
        assert!(!v("0.20.2").graphs_in_budget() && v("0.21.0").graphs_in_budget());
        assert!(!v("0.9.0").refuses_short_free() && v("0.9.1").refuses_short_free());
        assert!(v("0.9").refuses_short_free() && !v("0.8").refuses_short_free());
        assert!(!v("0.25").hybrid_graph_transient() && v("0.26.0").hybrid_graph_transient());
        assert!(!v("0.7").full_sort_sampler() && v("0.8.0").full_sort_sampler());
        assert!(v("0.16").full_sort_sampler() && !v("0.17.0").full_sort_sampler());
        assert_eq!(v("0.6.4").non_torch(1, 1).get(), 375_809_639);
        assert_eq!(v("0.6").non_torch(2, 1).get(), 3_843_995_566);
        assert_eq!(v("0.6.5").v0_batched_tokens(8192), Some(8192));
        assert_eq!(v("0.7").v0_batched_tokens(1024), Some(2048));
        assert_eq!(v("0.7").v0_batched_tokens(40_960), Some(2048));
        assert_eq!(v("0.8").v0_batched_tokens(8192), None);
    }
}
