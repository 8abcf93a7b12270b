//! SGLang's prefill CUDA graphs: since its "breakable" graphs became the prefill default on CUDA,
//! SGLang captures one graph per prefill token count and reserves room for them in its default
//! `mem_fraction_static`. Read from SGLang 0.5.23 (the wheel on PyPI, 2026):
//!
//! - `model_executor/cuda_graph_config.py` `default_prefill_backend`: `breakable` on CUDA,
//!   `disabled` elsewhere (ROCm included); `--disable-cuda-graph` and
//!   `--disable-prefill-cuda-graph` turn it off (`arg_groups/cuda_graph_hook.py`
//!   `parse_cuda_graph_config`), as do pipeline parallelism (`apply_cuda_graph_compatibility`)
//!   and the decode side of P/D disaggregation (`apply_cuda_graph_disaggregation_roles`).
//! - `arg_groups/memory_hook.py` `handle_gpu_memory_settings`: the most tokens one graph
//!   captures is `chunked_prefill_size`, at most 8192 with an MLA model, at most 4096 for a model
//!   path with `llama-2` in it; the sizes are `generate_prefill_cuda_graph_batch_sizes`
//!   (`cuda_graph_hook.py`).
//! - `reserve_for_graph_mb`: 8 MiB per captured size ("only non-torch memory is counted; torch
//!   memory is reused by cuda graph capture"), 1.5 GiB with an MLA model; added to the reserve
//!   before the 10 GiB floor.
//!
//! A few models keep the prefill graphs off by SGLang's own rules (DeepSeek-V4, multimodal
//! models off its list, DeepSeek-V3 on `trtllm_mla`); vramfit reserves for them anyway, the safe
//! side by at most the reserve.

use crate::units::MIB;

/// The prefill graphs an SGLang server captures: the most tokens one graph captures, and
/// whether the model's attention is MLA (whose reserve is flat).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrefillGraphs {
    /// The most tokens one graph captures; 0 when SGLang captures no prefill graph.
    pub max_tokens: u64,
    /// The model's attention is MLA: SGLang reserves 1.5 GiB whatever the sizes.
    pub mla: bool,
}

/// SGLang's reserve for an MLA model's prefill graphs, MiB ("MLA backend overhead is much
/// higher than expected with fa3").
const MLA_RESERVE_MIB: u64 = 1536;

/// SGLang's reserve per captured prefill size, MiB.
const PER_SIZE_MIB: u64 = 8;

impl PrefillGraphs {
    /// None captured.
    pub const OFF: PrefillGraphs = PrefillGraphs {
        max_tokens: 0,
        mla: false,
    };

    /// The prefill graphs of a server whose prefill chunk is `chunked_prefill_size` tokens:
    /// none when `on` is false (no CUDA card, graphs turned off, pipeline parallel); up to 8192
    /// tokens with MLA, 4096 for a `llama-2` model path.
    pub fn of(chunked_prefill_size: u64, on: bool, mla: bool, llama2_path: bool) -> PrefillGraphs {
        if !on {
            return PrefillGraphs::OFF;
        }
        let mut max_tokens = chunked_prefill_size;
        if mla {
            max_tokens = max_tokens.min(8192);
        }
        if llama2_path {
            max_tokens = max_tokens.min(4096);
        }
        PrefillGraphs { max_tokens, mla }
    }

    /// The token counts captured (`generate_prefill_cuda_graph_batch_sizes`): every 4 from 4 to
    /// 32, every 16 from 48 to 256, every 32 from 288 to 512, every 64 from 576 to 1024, every
    /// 256 from 1280 to 4096, every 512 from 4608, up to `max_tokens`.
    pub fn sizes(self) -> u64 {
        let m = self.max_tokens;
        let upto = |from: u64, to: u64, step: u64| {
            if m < from {
                0
            } else {
                (m.min(to) - from) / step + 1
            }
        };
        upto(4, 32, 4)
            + upto(48, 256, 16)
            + upto(288, 512, 32)
            + upto(576, 1024, 64)
            + upto(1280, 4096, 256)
            + upto(4608, u64::MAX, 512)
    }

    /// What SGLang reserves for them in its default `mem_fraction_static`, MiB: 8 a size, 1.5
    /// GiB with MLA, nothing when none is captured.
    pub fn reserve_mib(self) -> u64 {
        match self.sizes() {
            0 => 0,
            _ if self.mla => MLA_RESERVE_MIB,
            n => n * PER_SIZE_MIB,
        }
    }

    /// The same reserve in bytes: what vramfit counts the captured graphs to hold outside the
    /// static fraction.
    pub fn bytes(self) -> u64 {
        self.reserve_mib() * MIB
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SGLang 0.5.23's list for 8192 tokens, counted by hand: 4, 8, … 32 (8), 48 … 256 (14),
    /// 288 … 512 (8), 576 … 1024 (8), 1280 … 4096 (12), 4608 … 8192 (8) = 58 sizes, 464 MiB
    /// (the same 58 token counts SGLang's earlier `piecewise_cuda_graph_tokens` printed in its
    /// server arguments).
    #[test]
    fn the_sizes_follow_sglangs_list() {
        let h100 = PrefillGraphs::of(8192, true, false, false);
        assert_eq!(h100.sizes(), 8 + 14 + 8 + 8 + 12 + 8);
        assert_eq!(h100.sizes(), 58);
        assert_eq!(h100.reserve_mib(), 464);
        // An RTX 4090's 2048-token chunk: 8 + 14 + 8 + 8 + (1280, 1536, 1792, 2048) = 42
        // sizes, 336 MiB.
        let rtx = PrefillGraphs::of(2048, true, false, false);
        assert_eq!((rtx.sizes(), rtx.reserve_mib()), (42, 336));
        // A B200's 16384: 4608 … 16384 by 512 is 24 sizes, 50 + 24 = 74.
        assert_eq!(PrefillGraphs::of(16384, true, false, false).sizes(), 74);
        // Below the first size nothing is captured.
        assert_eq!(PrefillGraphs::of(3, true, false, false).reserve_mib(), 0);
        assert_eq!(PrefillGraphs::of(4, true, false, false).sizes(), 1);
    }

    #[test]
    fn mla_reserves_a_flat_gib_and_a_half_and_llama2_paths_stop_at_4096() {
        let mla = PrefillGraphs::of(16384, true, true, false);
        assert_eq!(mla.max_tokens, 8192);
        assert_eq!(mla.reserve_mib(), 1536);
        assert_eq!(mla.bytes(), 1536 * 1024 * 1024);
        let llama2 = PrefillGraphs::of(8192, true, false, true);
        // 4096 tokens: 8 + 14 + 8 + 8 + 12 = 50 sizes, 400 MiB.
        assert_eq!((llama2.sizes(), llama2.reserve_mib()), (50, 400));
        assert_eq!(
            PrefillGraphs::of(8192, false, true, false),
            PrefillGraphs::OFF
        );
        assert_eq!(PrefillGraphs::OFF.bytes(), 0);
    }
}
