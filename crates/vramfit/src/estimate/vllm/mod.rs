//! Serving with vLLM: the weights, the start-up profile run, the KV pool sized from
//! `gpu_memory_utilization`, CUDA graphs, and the concurrency the pool holds.

mod disaggregation;
mod encoder;
mod figures;
mod lora;
mod mxfp4;
mod sampler;
mod speculative;
mod text;
mod version;

pub(super) use lora::LORA;
pub use version::VllmVersion;

use super::ComponentKind;
use super::PeakSource;
use super::engine::{
    CardTraits, Context, ExpertParallel, Formats, LayerOffload, PastTrained, Required, Rules,
};
use super::parts::PoolBudget;
use super::{Parts, Phase, Run, ServePool};
use crate::precision::KvDtype;
use crate::throughput::Runtime;
use crate::units::Bytes;
use figures::VllmPool;

/// vLLM's decisions: its pool within `gpu_memory_utilization`, `max_model_len` per sequence,
/// fp8 KV caches, expert parallelism.
pub(super) const RULES: Rules = Rules {
    name: "vLLM",
    peak: PeakSource::Torch,
    kv_dtypes: Some(&[KvDtype::Auto, KvDtype::Fp16, KvDtype::Bf16, KvDtype::Fp8]),
    required: Required::Theory,
    context: Context::PerSequence {
        setting: "max_model_len",
    },
    past_trained: PastTrained::RefusedUnlessVllmAllowLong,
    offload: LayerOffload::None,
    output_layer_first: false,
    dequantizes_gguf: false,
    decompressed_mla: false,
    indexer_keys: crate::estimate::engine::IndexerKeys::Fp8Blocks,
    delta_net_with_plain_attention: true,
    gemma4_layers: true,
    pooled_indexer: false,
    step3p5_layers: true,
    compressed_cache: crate::estimate::engine::CompressedCache::Paged,
    gemma4_full_qkv: true,
    gemma3n_full_qkv: true,
    expert_parallel: ExpertParallel::WholeGroup,
    fp32_auto: crate::estimate::engine::Fp32Auto::Vllm,
    native_kv_formats: false,
    library_names: false,
    dp_attention: false,
    // Each data-parallel rank schedules its own requests (`--data-parallel-size`).
    copies_share_requests: true,
    flash_only_when_asked: false,
    expert_offload: false,
    unlike_cards: crate::estimate::UnlikeCards::EqualShards,
    runtime: Runtime::Batched,
    formats: Formats::Serving,
    reads: CardTraits {
        workspace: true,
        vllm_defaults: true,
        memory: false,
    },
};

impl Run<'_> {
    /// A vLLM server: its figures ([`figures`], numbers alone), their components with the text
    /// ([`text`]), then what the estimate reads of its pool: the requests it holds, its tokens
    /// and `M_theory`.
    pub(super) fn vllm(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let f = self.vllm_figures();
        self.vllm_components(&f, p);
        self.vllm_side_note(&f, p);
        p.comps.retain(|c| c.key != ComponentKind::Workspace);
        if let VllmPool::Card {
            available,
            concurrency,
            ..
        } = f.pool
            && self.cache_arch().is_generative()
        {
            p.serve_pool = Some(ServePool {
                available,
                start_short: self.vllm_start_short(),
                request: f.request,
                concurrency,
                budget: PoolBudget::Utilization,
            });
        }
        p.serve_tokens = Some(f.tokens);
        p.theory = Some(f.theory);
        p.slack = Some(f.slack);
        #[cfg(feature = "moments")]
        {
            p.start_up = Some(super::moments::VLLM_START_UP);
        }
        // Offloaded KV blocks are host memory, one server's per data-parallel copy.
        let host = self
            .kv_offload
            .map_or(0, |o| o.host_bytes().saturating_mul(self.dp));
        (Phase::Serving, 0, host)
    }
}

impl Run<'_> {
    /// vLLM from 0.9.1 refuses to start when the free memory is below `gpu_memory_utilization` of
    /// the card (`init_device` in `vllm/v1/worker/gpu_worker.py`: `free_memory <
    /// requested_memory`, the latter `total_memory × gpu_memory_utilization`): the free memory
    /// and what it asks, when it refuses.
    fn vllm_start_short(&self) -> Option<(u64, u64)> {
        let d = self.device.as_ref()?;
        let asked = Bytes::from_f64(d.memory.get() as f64 * self.gpu_memory_utilization).get();
        let free = d.free().get();
        (self.vllm_version.refuses_short_free() && free < asked).then_some((free, asked))
    }
}

/// vLLM's sampler dummy run keeps about this many fp32 copies of `max_num_seqs × vocab` logits
/// (fp32 logits, a sorted copy and int64 indices for top-k/top-p): the median ratio of the profile
/// peak to `max_num_seqs × vocab × 4 B` over the vLLM 0.19 H100 calibration runs.
pub const SAMPLER_FP32_COPIES: f64 = 3.78;
/// Bytes per `max_num_seqs × vocab` entry at the peak of a full-sort sampler profile (V1
/// 0.8–0.16, [`VllmVersion::full_sort_sampler`]), counted from the source: the bf16 logits
/// `_dummy_sampler_run` holds (2), their fp32 copy (4), the sort's values (4) and int64 indices
/// (8), and inside ATen's CUDA sort (`segmented_sort_pairs`, PyTorch 2.8) the int64 index
/// input (8) and cub's alternate key and value buffers (4 + 8). Against the two gpt-oss-120b
/// logs on one H100 (1,024 sequences × 201,088 entries), whose profile and non-torch memory
/// come to 7.44 GiB (0.10.1) and 7.55 GiB (0.11): 38 B is 7.28 GiB, 7.53 with 0.25 GiB of
/// non-torch memory.
pub const SAMPLER_SORT_BYTES: u64 = 38;
/// vLLM's non-torch memory growth during profiling at tp = 1: 0.25 GiB (calibration median).
pub const VLLM_NON_TORCH: Bytes = Bytes::new(268_435_456);
/// At pp ≥ 2, tp = 1: 0.07 GiB.
pub const VLLM_NON_TORCH_PP: Bytes = Bytes::new(75_161_928);
/// At tp ≥ 2 (NCCL and custom all-reduce): 2.1 GiB.
pub const VLLM_NON_TORCH_TP: Bytes = Bytes::new(2_254_857_830);
/// vLLM's KV block size in tokens.
pub const VLLM_BLOCK: u64 = 16;
/// CUDA memory of a vLLM worker in a tensor- or pipeline-parallel group before its profile run
/// (context, NCCL communicators, custom all-reduce buffers): 1.53 GiB, the median of
/// `init_cuda_memory_gib` over the six tp/pp ≥ 2 runs of the calibration data (1.43–1.55).
pub const VLLM_CUDA_CONTEXT_PARALLEL: Bytes = Bytes::new(1_642_824_991); // 1.53 GiB
/// CUDA-graph pool: intercept, fitted on the calibration runs.
pub const CUDA_GRAPH_BASE_GIB: f64 = 0.09;
/// CUDA-graph pool per layer on the GPU, fitted on the calibration runs.
pub const CUDA_GRAPH_PER_LAYER_GIB: f64 = 0.0238;

#[cfg(test)]
#[path = "kv_offload_tests.rs"]
mod kv_offload_tests;
