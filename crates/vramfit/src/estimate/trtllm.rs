//! Serving with TensorRT-LLM (`trtllm-serve`, its LLM API; the PyTorch backend, the default
//! since 1.0): the weights, the start-up profile over `max_num_tokens`, and the KV pool sized
//! as `free_gpu_memory_fraction` of the memory the profile left free, in blocks of
//! `tokens_per_block`.
//!
//! TensorRT-LLM's `KvCacheCreator` (`tensorrt_llm/_torch/pyexecutor/_util.py`) loads the
//! weights, runs dummy requests of `max_num_tokens` tokens through the executor (CUDA graphs
//! captured, NCCL and the autotuner warmed up), measures the peak (PyTorch's and the memory
//! outside it), then gives the KV cache `fraction × (total − peak)`: `max_tokens` of that
//! budget, rounded up to whole blocks of 32 tokens. A `max_seq_len` longer than the pool holds
//! is cut to the pool ("Adjusted max_seq_len"), not refused. Checked against published start-up
//! logs in `tests/data/trtllm-startup.csv` (`tests/it/trtllm_calibration.rs`).

use super::PeakSource;
use super::engine::{
    CardTraits, Context, ExpertParallel, Formats, LayerOffload, PastTrained, Required, Rules,
};
use crate::precision::KvDtype;
use crate::throughput::Runtime;
use crate::units::Bytes;
// The run shape's own, in a build with it (feature `trtllm`).
#[cfg(feature = "trtllm")]
use super::parts::{PoolBudget, Slack};
#[cfg(feature = "trtllm")]
use super::{
    CUDA_CONTEXT, CUDA_GRAPH_BASE_GIB, CUDA_GRAPH_PER_LAYER_GIB, ComponentKind, Parts, Phase, Run,
    ServePool, VLLM_CUDA_CONTEXT_PARALLEL, b, cublas_workspace, thousands,
};
#[cfg(feature = "trtllm")]
use crate::units::{GIB, short};

/// TensorRT-LLM's decisions: its pool from `free_gpu_memory_fraction` of what its profile left,
/// `max_seq_len` per sequence (cut to the pool when longer), fp8 and nvfp4 KV caches where the
/// card computes in them, expert parallelism within the tensor-parallel group (`--ep_size`).
pub(super) const RULES: Rules = Rules {
    name: "TensorRT-LLM",
    peak: PeakSource::Torch,
    kv_dtypes: Some(&[
        KvDtype::Auto,
        KvDtype::Fp16,
        KvDtype::Bf16,
        KvDtype::Fp8,
        KvDtype::Nvfp4,
    ]),
    required: Required::Theory,
    context: Context::PerSequence {
        setting: "max_seq_len",
    },
    past_trained: PastTrained::Runs,
    offload: LayerOffload::None,
    output_layer_first: false,
    dequantizes_gguf: false,
    decompressed_mla: false,
    indexer_keys: super::engine::IndexerKeys::Widest,
    delta_net_with_plain_attention: true,
    gemma4_layers: false,
    pooled_indexer: false,
    step3p5_layers: false,
    compressed_cache: crate::estimate::engine::CompressedCache::Refused,
    gemma4_full_qkv: false,
    gemma3n_full_qkv: false,
    expert_parallel: ExpertParallel::DividesGroup,
    fp32_auto: crate::estimate::engine::Fp32Auto::Keeps,
    native_kv_formats: true,
    flash_only_when_asked: false,
    expert_offload: false,
    unlike_cards: super::engine::UnlikeCards::EqualShards,
    library_names: false,
    dp_attention: false,
    copies_share_requests: false,
    runtime: Runtime::Batched,
    formats: Formats::Serving,
    reads: CardTraits {
        workspace: true,
        vllm_defaults: false,
        memory: false,
    },
};

/// `KvCacheConfig.free_gpu_memory_fraction` and `trtllm-serve --kv_cache_free_gpu_memory_fraction`
/// when not given: 0.9 (`tensorrt_llm/llmapi/llm_args.py`, `tensorrt_llm/commands/serve.py`).
pub const TRTLLM_FREE_FRACTION: f64 = 0.9;

/// `KvCacheConfig.tokens_per_block`: the pool is whole blocks of 32 tokens, the budget's tokens
/// rounded up (86,711 tokens → 86,720 in a published 1.1 log).
pub const TRTLLM_TOKENS_PER_BLOCK: u64 = 32;

/// `max_batch_size` when not given (`BuildConfig`; logged `max_num_requests=2048`).
pub const TRTLLM_MAX_BATCH_SIZE: u64 = 2048;

/// `max_num_tokens` when not given (`BuildConfig`; logged `max_num_tokens=8192`).
pub const TRTLLM_MAX_NUM_TOKENS: u64 = 8192;

/// Memory the profile run holds outside the parts counted here: the autotuner's tactics, the
/// attention workspace it grows at run time ("increase the size from 0 bytes to 67462144
/// bytes"), the sampler's buffers and the allocator's fragments. Fitted so that the published
/// pool of Llama-3.1-8B-Instruct-FP8 on an H100 (TensorRT-LLM 0.20, issue #6294: 860,320 tokens,
/// 52.51 GiB at fraction 0.8) is not exceeded: with 0.75 GiB the estimate promised 0.4 % more
/// than the log; 1.25 GiB leaves it 0.4 % short.
pub const TRTLLM_PROFILE_EXTRA: Bytes = Bytes::new(1_342_177_280); // 1.25 GiB

/// Tokens in a pool of `budget` bytes at `per_token` bytes a token: `max_tokens` (the budget's
/// whole tokens), rounded up to whole blocks of `tokens_per_block`, as `KVCacheManager` does.
pub fn pool_tokens(budget: u64, per_token: u64, tokens_per_block: u64) -> u64 {
    let max_tokens = budget.checked_div(per_token).unwrap_or(0);
    max_tokens.next_multiple_of(tokens_per_block.max(1))
}

/// What a TensorRT-LLM run holds, with no text.
#[cfg(feature = "trtllm")]
struct Figures {
    weights: u64,
    /// The profile's forward over `max_num_tokens` and its requests' logits.
    activations: u64,
    workspace: u64,
    context: u64,
    cuda_graphs: u64,
    extra: u64,
    /// KV bytes per token: every attention layer on this GPU, the window not counted (the pool
    /// is sized per token of the whole stack, the safe side for windowed layers).
    per_token: u64,
    /// Requests of the profile run: `max_num_tokens` in requests of at most `max_seq_len − 1`.
    profile_requests: u64,
}

#[cfg(feature = "trtllm")]
impl Figures {
    /// The profile's peak: everything but the pool.
    fn peak(&self) -> u64 {
        [
            self.weights,
            self.activations,
            self.workspace,
            self.context,
            self.cuda_graphs,
            self.extra,
        ]
        .into_iter()
        .fold(0, u64::saturating_add)
    }
}

#[cfg(feature = "trtllm")]
impl Run<'_> {
    pub(super) fn trtllm(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let f = self.trtllm_figures();
        self.add_trtllm_parts(p, &f);
        #[cfg(feature = "moments")]
        {
            p.start_up = Some(super::moments::TRTLLM_START_UP);
        }
        let fraction = self.free_gpu_memory_fraction;
        let request = f.per_token.saturating_mul(self.max_model_len);
        let demand = self.batch.saturating_mul(request);
        let peak = f.peak();
        let tokens = match &self.device {
            Some(d) => {
                // `torch.cuda.mem_get_info()`'s free after the profile: memory other programs
                // hold is out of it, and so out of the pool by the fraction.
                let free = d.free().get().saturating_sub(peak);
                let budget = Bytes::from_f64(free as f64 * fraction).get();
                let tokens = pool_tokens(budget, f.per_token, TRTLLM_TOKENS_PER_BLOCK);
                let pool = tokens.saturating_mul(f.per_token);
                self.add_trtllm_pool(p, &f, pool, tokens, Some((free, budget)));
                if self.cache_arch().is_generative() {
                    p.serve_pool = Some(ServePool {
                        start_short: None,
                        available: pool,
                        request,
                        concurrency: tokens as f64 / self.max_model_len.max(1) as f64,
                        budget: PoolBudget::FreeFraction,
                    });
                }
                tokens
            }
            None => {
                let tokens = self.batch.saturating_mul(self.max_model_len);
                self.add_trtllm_pool(p, &f, demand, tokens, None);
                tokens
            }
        };
        p.serve_tokens = Some(if self.cache_arch().is_generative() {
            tokens
        } else {
            0
        });
        // M_theory: the card whose free fraction after the profile holds `batch` sequences of
        // max_seq_len, what other programs hold taken first; the rest of what the profile leaves
        // free, `1 − free_gpu_memory_fraction` of it, holds the allocator's reserve and the
        // block the pool's tokens are rounded up to.
        let before = peak.saturating_add(self.device.as_ref().map_or(0, |d| d.in_use.get()));
        p.theory = Some(before.saturating_add(Bytes::from_f64(demand as f64 / fraction).get()));
        p.slack = Some(Slack {
            fraction,
            before,
            outside: f.per_token.saturating_mul(TRTLLM_TOKENS_PER_BLOCK),
        });
        (Phase::Serving, 0, 0)
    }

    fn trtllm_figures(&self) -> Figures {
        let a = &self.arch;
        let weights = self.serving_weights();
        let forward = self
            .max_num_batched_tokens
            .saturating_mul(self.serving_forward_per_token())
            .div_ceil(self.tp);
        let profile_requests = self
            .max_num_batched_tokens
            .div_ceil(self.max_model_len.saturating_sub(1).max(1))
            .min(self.max_num_seqs);
        let logits = profile_requests.saturating_mul(a.vocab_size.saturating_mul(4));
        let layers_here = a.num_layers.div_ceil(self.pp);
        // The model's cache, or for a bare parameter count the shape assumed for it.
        let cache = self.cache_arch();
        let per_token = if cache.is_generative() {
            self.kv_bytes(1, 1, cache.num_layers.div_ceil(self.pp), false)
                .0
        } else {
            0
        };
        let parallel = self.tp * self.pp > 1;
        Figures {
            weights,
            activations: forward.saturating_add(logits),
            workspace: cublas_workspace(self.hopper()).get(),
            context: if parallel {
                VLLM_CUDA_CONTEXT_PARALLEL.get()
            } else {
                CUDA_CONTEXT.get()
            },
            cuda_graphs: if self.cuda_graphs {
                Bytes::from_f64(
                    (CUDA_GRAPH_BASE_GIB + CUDA_GRAPH_PER_LAYER_GIB * layers_here as f64)
                        * GIB as f64,
                )
                .get()
            } else {
                0
            },
            extra: TRTLLM_PROFILE_EXTRA.get(),
            per_token,
            profile_requests,
        }
    }
}

/// The parts' words: each figure with its formula and why, in the languages of the build.
#[cfg(feature = "trtllm")]
impl Run<'_> {
    fn add_trtllm_parts(&self, p: &mut Parts, f: &Figures) {
        let a = &self.arch;
        p.add(
            ComponentKind::Weights,
            f.weights,
            true,
            self.weights_formula(f.weights),
            en_str!("Weights as TensorRT-LLM's PyTorch backend loads them."),
            zh_str!("TensorRT-LLM 的 PyTorch 后端加载的权重。"),
        );
        p.add(
            ComponentKind::Activations,
            f.activations,
            true,
            formula!(self.text;
                let (tokens, reqs, vocab, size) = (thousands(self.max_num_batched_tokens), f.profile_requests, a.vocab_size, b(f.activations));
                let tp = if self.tp > 1 { alloc::format!(" / tp {}", self.tp) } else { alloc::string::String::new() };
                ["forward over max_num_tokens {tokens}{tp} + logits of {reqs} profile requests × {vocab} vocab × 4 B = {size}"],
                ["前向 max_num_tokens {tokens}{tp} + {reqs} 个剖析请求的 logits × {vocab} 词表 × 4 B = {size}"]
            ),
            en_str!("The start-up profile: dummy requests of max_num_tokens tokens run through the model; their peak is taken out before the KV cache is sized."),
            zh_str!("启动剖析：max_num_tokens 个 token 的虚拟请求跑一遍模型；其峰值在确定 KV 缓存之前扣除。"),
        );
        p.add(
            ComponentKind::Workspace,
            f.workspace,
            true,
            formula!(self.text; let ws = b(f.workspace); ["cuBLAS workspace: {ws}"], ["cuBLAS 工作区：{ws}"]),
            en_str!("Allocated through PyTorch's caching allocator."),
            zh_str!("经 PyTorch 缓存分配器分配。"),
        );
        p.add(
            ComponentKind::CudaContext,
            f.context,
            false,
            if self.tp * self.pp > 1 {
                formula!(self.text; text "CUDA context with NCCL communicators: 1.53 GiB (measured on vLLM 0.19 workers, H100, tp or pp ≥ 2)", "CUDA 上下文与 NCCL 通信器：1.53 GiB (在 vLLM 0.19 的进程上实测，H100，tp 或 pp ≥ 2)")
            } else {
                formula!(self.text; text "CUDA context: 0.51 GiB (measured on a PyTorch 2 process, H100)", "CUDA 上下文：0.51 GiB (在 PyTorch 2 进程上实测，H100)")
            },
            en_str!("Outside PyTorch, and inside the profile's peak: TensorRT-LLM counts the memory used outside torch."),
            zh_str!("不经 PyTorch，但计入剖析峰值：TensorRT-LLM 会统计 torch 之外占用的显存。"),
        );
        if f.cuda_graphs > 0 {
            let layers = a.num_layers.div_ceil(self.pp);
            p.add(
                ComponentKind::CudaGraphs,
                f.cuda_graphs,
                false,
                formula!(self.text;
                    let (base, per, size) = (short(CUDA_GRAPH_BASE_GIB), short(CUDA_GRAPH_PER_LAYER_GIB), b(f.cuda_graphs));
                    ["{base} GiB + {per} GiB × {layers} layers = {size} (vLLM 0.19's fit on H100; TensorRT-LLM publishes no rule)"],
                    ["{base} GiB + {per} GiB × {layers} 层 = {size} (vLLM 0.19 在 H100 上的拟合；TensorRT-LLM 未公布规则)"]
                ),
                en_str!("Captured during the profile (cuda_graph_config), so inside its peak."),
                zh_str!("在剖析期间捕获（cuda_graph_config），因此计入其峰值。"),
            );
        }
        p.add(
            ComponentKind::NonTorch,
            f.extra,
            false,
            formula!(self.text; let size = b(f.extra);
                ["autotuner, attention workspace and sampler buffers during the profile: {size} (fitted: a published TensorRT-LLM 0.20 H100 pool not exceeded)"],
                ["剖析期间的内核自动调优、注意力工作区与采样缓冲：{size}（拟合：不超过 TensorRT-LLM 0.20 在 H100 上公布的池）"]
            ),
            en_str!("What the profile holds beyond the parts above."),
            zh_str!("剖析时在以上各项之外占用的显存。"),
        );
    }

    /// The pool: `budget` of the `free` memory on a card (`Some`), or without one the KV that
    /// `batch` sequences of `max_seq_len` need.
    fn add_trtllm_pool(
        &self,
        p: &mut Parts,
        f: &Figures,
        pool: u64,
        tokens: u64,
        card: Option<(u64, u64)>,
    ) {
        let per = thousands(f.per_token);
        let formula = match card {
            Some((free, budget)) => formula!(self.text;
                let (free, fraction, budget, tokens, size, block) = (b(free), short(self.free_gpu_memory_fraction), b(budget), thousands(tokens), b(pool), TRTLLM_TOKENS_PER_BLOCK);
                ["free after the profile {free} × free_gpu_memory_fraction {fraction} = {budget} → {tokens} tokens (whole blocks of {block}) × {per} B per token = {size}"],
                ["剖析后空闲 {free} × free_gpu_memory_fraction {fraction} = {budget} → {tokens} 个 token（{block} 个 token 一块，取整块） × 每 token {per} B = {size}"]
            ),
            None => formula!(self.text;
                let (batch, len, size) = (self.batch, thousands(self.max_model_len), b(pool));
                ["{batch} × max_seq_len {len} × {per} B per token = {size} (no GPU given: the KV the pool must hold)"],
                ["{batch} × max_seq_len {len} × 每 token {per} B = {size}（未指定显卡：KV 池必须容纳的量）"]
            ),
        };
        p.add(
            ComponentKind::KvCache,
            pool,
            true,
            formula,
            en_str!("TensorRT-LLM allocates the KV cache's blocks once, at start-up."),
            zh_str!("TensorRT-LLM 在启动时一次性分配 KV 缓存块。"),
        );
        if card.is_none() {
            p.note(
                "trtllm_no_device",
                alloc::string::String::from(en_str!("No GPU given: TensorRT-LLM would size its pool from free_gpu_memory_fraction of the memory its profile leaves; shown is the KV needed for `batch` sequences of max_seq_len.")),
                alloc::string::String::from(zh_str!("未指定显卡：TensorRT-LLM 会按剖析后剩余显存的 free_gpu_memory_fraction 确定 KV 池；此处显示 batch 条 max_seq_len 序列所需的 KV。")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block rounding of published logs: a 1.1 log's budget of 86,711 tokens gives a pool
    /// of 86,720 (whole blocks of 32); 0.20's 860,308 gives 860,320.
    #[test]
    fn the_pool_is_whole_blocks_of_the_budgets_tokens() {
        assert_eq!(pool_tokens(86_711 * 73_728 + 100, 73_728, 32), 86_720);
        assert_eq!(pool_tokens(860_308 * 65_536, 65_536, 32), 860_320);
        assert_eq!(pool_tokens(1000, 0, 32), 0);
        assert_eq!(pool_tokens(64 * 10, 10, 32), 64);
    }
}
