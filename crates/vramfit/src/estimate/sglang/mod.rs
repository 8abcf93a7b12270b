//! Serving with SGLang: the weights, a KV pool of `mem_fraction_static` × the memory free at start
//! less the weights (`ModelRunner.profile_max_num_token`), the request-to-token table
//! (`ReqToTokenPool`), and what SGLang leaves outside its static fraction for the prefill's
//! activations and the CUDA graphs.
//!
//! SGLang measures the free memory before loading the weights (`pre`) and after (`post`), and
//! sizes its token pool as `post − pre × (1 − mem_fraction_static)`, that is
//! `mem_fraction_static × pre − (what loading took)`, in cells of one token's keys and values over
//! every layer of the GPU (`kv_lora_rank + qk_rope_head_dim` per layer for MLA, not split by tp;
//! `2 × kv heads / tp × head_dim` for the others). The defaults follow `server_args.py`
//! (`_handle_gpu_memory_settings`).

mod disaggregation;
mod figures;
mod lora;
mod prefill_graphs;
mod speculative;
mod text;
mod version;
mod vision;

use super::DisaggregationMode;
use super::PeakSource;
use super::engine::{
    CardTraits, Context, ExpertParallel, Formats, LayerOffload, PastTrained, Required, Rules,
};
use super::parts::PoolBudget;
use super::{CUDA_CONTEXT, Parts, Phase, Run, ServePool};
use crate::precision::KvDtype;
use crate::throughput::Runtime;
use crate::units::Bytes;
use figures::SglangPool;
pub(super) use lora::LORA;
pub use prefill_graphs::PrefillGraphs;
pub(crate) use speculative::algorithm as speculative_algorithm;
pub use version::{FractionRule, Parallelism, SglangVersion};
pub use vision::VisionCut;

/// SGLang's decisions: its token pool within `mem_fraction_static`, `context_length` per
/// sequence, defaults that follow the card's memory.
pub(super) const RULES: Rules = Rules {
    name: "SGLang",
    peak: PeakSource::Torch,
    kv_dtypes: Some(&[KvDtype::Auto, KvDtype::Fp16, KvDtype::Bf16, KvDtype::Fp8]),
    required: Required::Theory,
    context: Context::PerSequence {
        setting: "context_length",
    },
    past_trained: PastTrained::RefusedUnlessSglangOverwrite,
    offload: LayerOffload::None,
    output_layer_first: false,
    dequantizes_gguf: false,
    decompressed_mla: false,
    indexer_keys: crate::estimate::engine::IndexerKeys::Fp8Blocks,
    delta_net_with_plain_attention: true,
    gemma4_layers: false,
    pooled_indexer: true,
    step3p5_layers: true,
    compressed_cache: crate::estimate::engine::CompressedCache::Paged,
    gemma4_full_qkv: false,
    gemma3n_full_qkv: false,
    expert_parallel: ExpertParallel::DividesGroup,
    fp32_auto: crate::estimate::engine::Fp32Auto::Sglang,
    native_kv_formats: false,
    flash_only_when_asked: false,
    expert_offload: false,
    unlike_cards: crate::estimate::UnlikeCards::EqualShards,
    library_names: false,
    dp_attention: true,
    // Its data-parallel controller shares the requests among `--dp-size` copies.
    copies_share_requests: true,
    runtime: Runtime::Batched,
    formats: Formats::Serving,
    reads: CardTraits {
        workspace: true,
        vllm_defaults: true,
        memory: true,
    },
};

/// SGLang's memory-dependent defaults for a card of `gpu_mib` MiB at tensor parallel `tp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Defaults {
    /// `chunked_prefill_size`.
    pub(super) chunked_prefill_size: u64,
    /// `cuda_graph_max_bs`.
    pub(super) cuda_graph_max_bs: u64,
}

/// `_handle_gpu_memory_settings`: by the card's memory (SGLang reads nvidia-smi's `memory.total`;
/// vramfit has the memory CUDA reports, a few hundred MiB less, which moves no card across a
/// threshold in the catalog): 2048 tokens and 8 graphs below 20 GiB; 2048 and 24 (80 at tp ≥ 4)
/// below 35 GiB; 4096 and 32 (160) below 60 GiB; 8192 and 256 (512) below 160 GiB; 16384 and 512
/// above; 4096 and 160 without a card.
pub(super) fn defaults(gpu_mib: Option<u64>, tp: u64) -> Defaults {
    let wide = tp >= 4;
    let (chunked_prefill_size, cuda_graph_max_bs) = match gpu_mib {
        None => (4096, 160),
        Some(m) if m < 20 * 1024 => (2048, 8),
        Some(m) if m < 35 * 1024 => (2048, if wide { 80 } else { 24 }),
        Some(m) if m < 60 * 1024 => (4096, if wide { 160 } else { 32 }),
        Some(m) if m < 160 * 1024 => (8192, if wide { 512 } else { 256 }),
        Some(_) => (16384, 512),
    };
    Defaults {
        chunked_prefill_size,
        cuda_graph_max_bs,
    }
}

/// What SGLang's default `mem_fraction_static` reserves for: the settings
/// `handle_gpu_memory_settings` reads (SGLang 0.5.23's `arg_groups/memory_hook.py`, which runs
/// before the data-parallel handling divides the prefill chunk).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::estimate) struct Reserve {
    /// The card's memory in MiB; `None` without a card.
    pub(in crate::estimate) gpu_mib: Option<u64>,
    /// `chunked_prefill_size`, given or picked.
    pub(in crate::estimate) chunked_prefill_size: u64,
    /// `cuda_graph_max_bs`, given or picked.
    pub(in crate::estimate) cuda_graph_max_bs: u64,
    /// Decode CUDA graphs are captured (not `--disable-cuda-graph`).
    pub(in crate::estimate) decode_graphs: bool,
    /// The prefill graphs captured.
    pub(in crate::estimate) prefill_graphs: PrefillGraphs,
    /// `tp_size × pp_size`.
    pub(in crate::estimate) tp_pp: u64,
    /// DP attention's `dp_size` (1: none).
    pub(in crate::estimate) dp_attention: u64,
    /// `max_running_requests` as given.
    pub(in crate::estimate) max_running_requests: Option<u64>,
}

/// SGLang's default `mem_fraction_static` for a plain server (`side` `None`) or a P/D side: the
/// card less a reserve, at least 10 GiB on cards above 60 GiB, as a fraction rounded to three
/// places; 0.88 without a card. The reserve (MiB): `512 + max(tokens, 2048) × 1.5 + tp × pp / 8
/// × 1024`, `tokens` the prefill chunk (the decode side: `max_running_requests`, else
/// `cuda_graph_max_bs`); then `reserve_for_graph_mb`: `cuda_graph_max_bs × 2` for the decode
/// graphs, under DP attention `cuda_graph_max_bs × dp_size × 3` (and `× 1.5` more above a
/// `cuda_graph_max_bs` of 300), neither on the prefill side; the prefill graphs'
/// ([`PrefillGraphs::reserve_mib`]), not on the decode side.
pub(in crate::estimate) fn default_fraction(r: &Reserve, side: Option<DisaggregationMode>) -> f64 {
    let Some(m) = r.gpu_mib.filter(|&m| m > 0) else {
        return 0.88;
    };
    let (prefill_side, decode_side) = (
        side == Some(DisaggregationMode::Prefill),
        side == Some(DisaggregationMode::Decode),
    );
    let tokens = if decode_side {
        r.max_running_requests.unwrap_or(r.cuda_graph_max_bs).max(1)
    } else {
        r.chunked_prefill_size
    };
    let mut reserved = 512.0 + tokens.max(2048) as f64 * 1.5 + r.tp_pp as f64 / 8.0 * 1024.0;
    let (bs, dp) = (r.cuda_graph_max_bs as f64, r.dp_attention as f64);
    if !prefill_side && r.decode_graphs {
        reserved += bs * 2.0;
    }
    if !prefill_side && r.dp_attention > 1 {
        // DP attention's padding, "much more for large cuda graph max bs".
        reserved += bs * dp * 3.0;
        if r.cuda_graph_max_bs > 300 {
            reserved += bs * dp * 1.5;
        }
    }
    if !decode_side {
        reserved += r.prefill_graphs.reserve_mib() as f64;
    }
    fraction_of(m, reserved)
}

/// The fraction of a card of `m` MiB left by a reserve of `reserved` MiB, at least 10 GiB on
/// cards above 60 GiB, rounded to three places.
fn fraction_of(m: u64, reserved: f64) -> f64 {
    let reserved = if m > 60 * 1024 {
        reserved.max(10.0 * 1024.0)
    } else {
        reserved
    };
    let f = libm::round((m as f64 - reserved) / m as f64 * 1000.0) / 1000.0;
    // A card smaller than the reserve: SGLang's own fraction is negative and its pool empty.
    f.clamp(0.01, 0.99)
}

/// The batch sizes SGLang captures a CUDA graph for, up to `max_bs`
/// (`_generate_cuda_graph_batch_sizes`): 1, 2, 4, 8, 12, then every 8 to 256, every 16 to 496,
/// every 32 from 512.
pub(super) fn capture_sizes(max_bs: u64) -> u64 {
    let upto = |from: u64, to: u64, step: u64| {
        if max_bs < from {
            0
        } else {
            (max_bs.min(to) - from) / step + 1
        }
    };
    [1, 2, 4, 8, 12].iter().filter(|&&b| b <= max_bs).count() as u64
        + upto(16, 256, 8)
        + upto(272, 496, 16)
        + upto(512, u64::MAX, 32)
}

/// SGLang's own default for `max_running_requests`: `tokens / context_len × 512`, between 2048
/// and 4096 (`ModelRunner.init_memory_pool`).
pub(super) fn default_running_requests(tokens: u64, context_len: u64) -> u64 {
    (tokens.saturating_mul(512) / context_len.max(1)).clamp(2048, 4096)
}

impl Run<'_> {
    /// Memory in use before SGLang loads the weights: the CUDA context, on one GPU
    /// [`SGLANG_INIT_ONE_GPU`], and at tp × pp ≥ 2 what `init_torch_distributed` takes (NCCL, and custom all-reduce buffers where the GPUs have
    /// NVLink: Hopper or newer here).
    fn sglang_preload(&self) -> u64 {
        let dist = if self.tp * self.pp <= 1 {
            SGLANG_INIT_ONE_GPU.get()
        } else if self.hopper() {
            SGLANG_DIST_INIT.get()
        } else {
            SGLANG_DIST_INIT_PCIE.get()
        };
        CUDA_CONTEXT.get().saturating_add(dist)
    }

    /// An SGLang server: its figures ([`figures`], numbers alone), their components with the
    /// text ([`text`]), then what the estimate reads of its pool: the requests it holds, its
    /// tokens and `M_theory`.
    pub(super) fn sglang(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let f = self.sglang_figures();
        self.sglang_components(&f, p);
        #[cfg(feature = "moments")]
        {
            p.start_up = Some(super::moments::SGLANG_START_UP);
        }
        self.sglang_side_notes(&f, p);
        if let SglangPool::Card { rest, tokens, .. } = f.pool
            && self.cache_arch().is_generative()
        {
            // A hybrid's states come out of the rest first; SGLang stops when not one fits.
            let available = match f.state {
                Some(s) if s.slots == 0 => 0,
                Some(s) => rest.saturating_sub(s.bytes),
                None => rest,
            };
            p.serve_pool = Some(ServePool {
                start_short: None,
                available,
                request: f.cell,
                // Each DP-attention group's pool holds its own requests.
                concurrency: (tokens as f64 / (f.per_request_tokens as f64).max(1.0))
                    .min(f.requests as f64)
                    * f.ranks as f64,
                budget: PoolBudget::MemFractionStatic,
            });
        }
        p.serve_tokens = Some(if self.cache_arch().is_generative() {
            f.pool.tokens()
        } else {
            0
        });
        p.theory = Some(f.theory);
        p.slack = Some(f.slack);
        (Phase::Serving, 0, 0)
    }
}

/// `--mamba-full-memory-ratio`'s default, 0.9 (SGLang `server_args.py`, printed in its start-up
/// `server_args`): a hybrid's MambaPool takes `r / (1 + r)` of the memory left for the pools,
/// the token pool the rest (`ModelRunner._handle_max_mamba_cache`).
pub const SGLANG_MAMBA_FULL_MEMORY_RATIO: f64 = 0.9;

/// What SGLang's weight loading takes beyond the weights themselves, measured as free memory
/// (kernel modules, the rotary cache, loader buffers): 0.29 GiB, the largest of the six logs of
/// `tests/data/sglang-calibration.csv` that print `mem usage` at `Load weight end` or the free
/// memory on both sides of it (0.06 to 0.282 GiB beyond vramfit's weights, the largest on 4 ×
/// L4), rounded up: a log that loaded more than vramfit counts would get a pool larger than
/// SGLang's.
pub const SGLANG_LOAD_OVERHEAD: Bytes = Bytes::new(311_385_129); // 0.29 GiB
/// What a one-GPU SGLang server holds before loading beyond the CUDA context: 0.09 GiB, PR 4760's
/// H100 log (github.com/sgl-project/sglang/pull/4760, 2025-03-25, SGLang 0.4.4.post1 by date):
/// `Load weight begin. avail mem=78.59 GB` on a card whose CUDA total is 79.19 GiB, less the
/// 0.51 GiB context. Without it that log's pool came out 0.13 % larger than SGLang's.
pub const SGLANG_INIT_ONE_GPU: Bytes = Bytes::new(96_636_764); // 0.09 GiB
/// `Init torch distributed ends. mem usage` at tp ≥ 2 on NVLink GPUs (NCCL and custom all-reduce
/// buffers): 2.01 GiB on 8 × H200 (github.com/sgl-project/sglang/pull/11716, 2025-10-16).
pub const SGLANG_DIST_INIT: Bytes = Bytes::new(2_158_221_066); // 2.01 GiB
/// The same on PCIe GPUs, where SGLang disables custom all-reduce across more than two: 0.13 GiB on
/// 4 × L4 (github.com/didier-durand/llms-in-clouds, docs/sglang.md, 2025-03-08).
pub const SGLANG_DIST_INIT_PCIE: Bytes = Bytes::new(139_586_437); // 0.13 GiB
/// CUDA-graph memory per captured graph per layer on the GPU: 1 MiB, the mean of 1.14 MiB (0.93 GiB
/// for 13 graphs of QwQ-32B's 64 layers, tp 4) and 0.88 MiB (0.11 GiB for 4 graphs of a Llama 8B's
/// 32 layers), the two logs of `tests/data/sglang-calibration.csv` that print it.
pub const SGLANG_CUDA_GRAPH_PER_LAYER: Bytes = Bytes::mib(1);

#[cfg(test)]
mod tests {
    use super::super::{ComponentKind, Engine, EstimateInput, Mode, estimate, weights};
    use super::super::{HardwareInput, ModelInput, PlacementInput, RunInput};
    use super::*;

    /// A plain server's reserve inputs with decode graphs on and no `max_running_requests`.
    pub(super) fn reserve(
        gpu_mib: Option<u64>,
        chunked_prefill_size: u64,
        cuda_graph_max_bs: u64,
        tp_pp: u64,
        dp_attention: u64,
        prefill_graphs: PrefillGraphs,
    ) -> Reserve {
        Reserve {
            gpu_mib,
            chunked_prefill_size,
            cuda_graph_max_bs,
            decode_graphs: true,
            prefill_graphs,
            tp_pp,
            dp_attention,
            max_running_requests: None,
        }
    }
    use crate::precision::{Dtype, Quantization};

    fn sglang(model: &str) -> EstimateInput {
        EstimateInput {
            model: ModelInput {
                model: Some(model.into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Serve,
                engine: Engine::Sglang,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// `handle_gpu_memory_settings` by hand. H100 (81,090 MiB): 8192 tokens, 256 graphs, reserve
    /// 512 + 8192 × 1.5 + 256 × 2 + 1 / 8 × 1024 = 13,440 MiB (over the 10 GiB floor), so
    /// (81,090 − 13,440) / 81,090 = 0.834 without prefill graphs; with SGLang 0.5.23's 58 prefill
    /// graphs up to 8192 tokens (464 MiB) 13,904 MiB, 67,186 / 81,090 = 0.8285 → 0.829. RTX 4090
    /// (24,084 MiB): 2048 and 24, reserve 512 + 3072 + 48 + 128 = 3,760 MiB, 0.844; with 42
    /// prefill graphs up to 2048 tokens (336 MiB) 4,096 MiB, 19,988 / 24,084 = 0.8299 → 0.830. An
    /// MLA model's flat 1,536 MiB on the H100: 14,976 MiB, 66,114 / 81,090 = 0.8153 → 0.815. No
    /// card: 4096, 160 and 0.88.
    #[test]
    fn defaults_follow_the_cards_memory() {
        let h100 = defaults(Some(81_090), 1);
        assert_eq!(
            (h100.chunked_prefill_size, h100.cuda_graph_max_bs),
            (8192, 256)
        );
        let graphs = |tokens, mla| PrefillGraphs::of(tokens, true, mla, false);
        assert_eq!(
            default_fraction(
                &reserve(Some(81_090), 8192, 256, 1, 1, PrefillGraphs::OFF),
                None
            ),
            0.834
        );
        assert_eq!(
            default_fraction(
                &reserve(Some(81_090), 8192, 256, 1, 1, graphs(8192, false)),
                None
            ),
            0.829
        );
        assert_eq!(
            default_fraction(
                &reserve(Some(81_090), 8192, 256, 1, 1, graphs(8192, true)),
                None
            ),
            0.815
        );
        assert_eq!(defaults(Some(81_090), 4).cuda_graph_max_bs, 512);
        let rtx = defaults(Some(24_084), 1);
        assert_eq!(
            (rtx.chunked_prefill_size, rtx.cuda_graph_max_bs),
            (2048, 24)
        );
        assert_eq!(
            default_fraction(
                &reserve(Some(24_084), 2048, 24, 1, 1, PrefillGraphs::OFF),
                None
            ),
            0.844
        );
        assert_eq!(
            default_fraction(
                &reserve(Some(24_084), 2048, 24, 1, 1, graphs(2048, false)),
                None
            ),
            0.830
        );
        assert_eq!(
            defaults(None, 1),
            Defaults {
                chunked_prefill_size: 4096,
                cuda_graph_max_bs: 160
            }
        );
        assert_eq!(
            default_fraction(&reserve(None, 4096, 160, 1, 1, PrefillGraphs::OFF), None),
            0.88
        );
        // The resolved input carries them: an H100 by its catalog id.
        let w = {
            let mut input = sglang("meta-llama/Llama-3.1-8B");
            input.hardware.gpu = Some("h100-sxm5-80gb".into());
            input
        }
        .resolve()
        .unwrap();
        assert_eq!(
            (
                w.mem_fraction_static,
                w.max_num_batched_tokens,
                w.cuda_graph_max_bs
            ),
            (0.829, 8192, 256)
        );
        assert_eq!(
            w.prefill_graphs,
            PrefillGraphs::of(8192, true, false, false)
        );
    }

    /// SGLang 0.5.23 runs an fp32 checkpoint in fp16 when its dtype is "auto"
    /// (`_get_and_verify_dtype`, `configs/model_config.py`): GPT-2 (fp32 in its config, 124,439,808
    /// parameters) holds 124,439,808 × 2 B of weights, with a note; `--dtype float32` keeps 4 B.
    #[test]
    fn an_fp32_checkpoint_runs_in_16_bits() {
        let gpt2 = {
            let mut input = sglang("openai-community/gpt2");
            input.hardware.gpu = Some("h100-sxm5-80gb".into());
            input.serving.max_model_len = Some(1024.0);
            input
        };
        let e = estimate(&gpt2).unwrap();
        assert_eq!(e.weights_bytes.get(), 124_439_808 * 2);
        assert!(e.notes.iter().any(|n| n.key == "sglang_downcast"));
        let kept = estimate(&EstimateInput {
            run: RunInput {
                dtype: Some(crate::precision::Dtype::Fp32),
                ..gpt2.run
            },
            ..gpt2
        })
        .unwrap();
        assert_eq!(kept.weights_bytes.get(), 124_439_808 * 4);
        assert!(!kept.notes.iter().any(|n| n.key == "sglang_downcast"));
    }

    /// SGLang captures no prefill graph off CUDA (`default_prefill_backend`), with CUDA graphs
    /// turned off, or under pipeline parallel; its fraction then reserves none for them.
    #[test]
    fn prefill_graphs_only_where_sglang_captures_them() {
        let on = |input: EstimateInput| input.resolve().unwrap().prefill_graphs;
        let h100 = {
            let mut input = sglang("meta-llama/Llama-3.1-8B");
            input.hardware.gpu = Some("h100-sxm5-80gb".into());
            input
        };
        assert_eq!(on(h100.clone()).sizes(), 58);
        let no_graphs = {
            let mut input = h100.clone();
            input.serving.cuda_graphs = false;
            input
        };
        assert_eq!(on(no_graphs.clone()), PrefillGraphs::OFF);
        // Neither the decode graphs' 512 MiB: 13,440 − 512 = 12,928 MiB, 0.841.
        assert_eq!(no_graphs.resolve().unwrap().mem_fraction_static, 0.841);
        let pp = {
            let mut input = h100.clone();
            input.placement.gpus = Some(2.0);
            input.placement.pp = 2.0;
            input
        };
        assert_eq!(on(pp), PrefillGraphs::OFF);
        let amd = {
            let mut input = h100.clone();
            input.hardware.gpu = Some("mi300x".into());
            input
        };
        assert_eq!(on(amd), PrefillGraphs::OFF);
        // A memory size alone: the safe side, reserved for.
        let custom = EstimateInput {
            hardware: HardwareInput {
                gpu: None,
                gpu_memory: Some("80GiB".into()),
                ..h100.hardware
            },
            ..h100
        };
        assert_eq!(on(custom).sizes(), 58);
    }

    /// The batch sizes SGLang captures: [1, 2, 4, 8, 12] + 16..=256 by 8 (31) + 272..=496 by 16
    /// (15) + 512.. by 32.
    #[test]
    fn capture_sizes_as_sglang_lists_them() {
        assert_eq!(capture_sizes(8), 4);
        assert_eq!(capture_sizes(80), 5 + 9);
        assert_eq!(capture_sizes(256), 5 + 31);
        assert_eq!(capture_sizes(512), 5 + 31 + 15 + 1);
    }

    /// Llama-3.1-8B on an H100 at mem_fraction_static 0.88, by hand: before loading, 85,029,027,840
    /// − 547,608,330 (the CUDA context) − 96,636,764 (a one-GPU server's init) = 84,384,782,746 B
    /// free; × 0.88 = 74,258,608,816; less the weights 16,060,522,496 and the loading overhead
    /// 311,385,129 = 57,886,701,191 B; ÷ 131,072 B per token (2 × 8 KV heads × 128 × 32 layers ×
    /// 2 B) = 441,640 tokens. SGLang logged 442,750 for this run (PR 4760): 0.25 % fewer, never
    /// more.
    #[test]
    fn the_token_pool_by_hand() {
        let e = estimate(&{
            let mut input = sglang("meta-llama/Llama-3.1-8B");
            input.hardware.gpu = Some("h100-sxm5-80gb".into());
            input.serving.mem_fraction_static = Some(0.88);
            input
        })
        .unwrap();
        assert_eq!(e.kv_cache_tokens, Some(441_640));
        assert_eq!(e.kv_cache_bytes.get(), 441_641 * 131_072);
        assert_eq!(e.kv_bytes_per_token, 131_072);
        // ReqToTokenPool: 441,640 × 512 / 131,072 = 1,725 requests, raised to 2048; × (131,072 +
        // 4) × 4 B.
        let table = e
            .components
            .iter()
            .find(|c| c.key == ComponentKind::ReqToTokenPool)
            .unwrap();
        assert_eq!(table.bytes.get(), 2048 * 131_076 * 4);
        // Requests of the full 131,072-token context the pool holds at once: 441,640 / 131,072 =
        // 3.369 → 3.36.
        assert_eq!(e.max_concurrency_exact, Some(3.36));
        // CUDA graphs: 36 decode graphs up to 256 × 32 layers × 1 MiB, and SGLang 0.5.23's 58
        // prefill graphs up to 8192 tokens × 8 MiB.
        let graphs = e
            .components
            .iter()
            .find(|c| c.key == ComponentKind::CudaGraphs)
            .unwrap();
        assert_eq!(graphs.bytes.get(), (36 * 32 + 58 * 8) * 1_048_576);
    }

    /// MLA caches `kv_lora_rank + qk_rope_head_dim` per layer, the same on every GPU whatever the
    /// tp (SGLang's MLATokenToKVPool): DeepSeek-V3, (512 + 64) × 61 layers × 2 B = 70,272 B per
    /// token at tp 8. Grouped-query attention splits the KV heads: Llama-3.1-8B at tp 2 keeps 4
    /// of its 8, 65,536 B.
    #[test]
    fn the_cell_is_sglangs_for_mla_and_gqa() {
        let v3 = estimate(&{
            let mut input = sglang("deepseek-ai/DeepSeek-V3");
            input.hardware.gpu = Some("h200-sxm-141gb".into());
            input.placement.tp = 8.0;
            input
        })
        .unwrap();
        assert_eq!(v3.kv_bytes_per_token, 70_272);
        let llama = estimate(&{
            let mut input = sglang("meta-llama/Llama-3.1-8B");
            input.placement.tp = 2.0;
            input
        })
        .unwrap();
        assert_eq!(llama.kv_bytes_per_token, 65_536);
    }

    #[test]
    fn a_fraction_out_of_range_is_refused_with_its_range() {
        for f in [0.0, 1.0, f64::NAN, -0.5] {
            let e = {
                let mut input = sglang("meta-llama/Llama-3.1-8B");
                input.serving.mem_fraction_static = Some(f);
                input
            }
            .resolve()
            .unwrap_err();
            assert_eq!(e.field, "mem_fraction_static");
            assert!(e.accepted.contains("0.01 to 0.99"), "{e}");
        }
    }

    /// A fraction too small for the weights: the pool is empty, SGLang refuses to start, and the
    /// fit says why.
    #[test]
    fn no_room_for_the_pool_does_not_fit() {
        let e = estimate(&{
            let mut input = sglang("meta-llama/Llama-3.1-8B");
            input.hardware.gpu = Some("rtx-4090".into());
            input.serving.mem_fraction_static = Some(0.5);
            input
        })
        .unwrap();
        assert_eq!(e.kv_cache_tokens, Some(0));
        let fit = e.fit.unwrap();
        assert!(!fit.fits);
        assert!(fit.reason.unwrap().en.contains("mem_fraction_static"));
    }

    /// Expert parallelism, by hand on Mixtral 8x7B (bf16): its routed experts are 32 layers × 8 ×
    /// 3 × 4096 × 14,336 = 45,097,156,608 parameters. vLLM with `--enable-expert-parallel` over 2
    /// GPUs of data parallel (tp 1) keeps attention whole on each and 4 experts per layer: (params
    /// − experts) × 2 B + experts / 2 × 2 B. SGLang's ep 2 inside tp 2 holds the same bytes as tp
    /// 2 alone (4 whole experts, or half of every expert).
    #[test]
    fn expert_parallel_divides_the_routed_experts() {
        let (_, a, _) = crate::catalog::find_model("mistralai/Mixtral-8x7B-v0.1").unwrap();
        let experts: u64 = 32 * 8 * 3 * 4096 * 14_336;
        assert_eq!(experts, 45_097_156_608);
        let ep = weights::per_gpu_weight_bytes_ep(
            &a,
            Dtype::Bf16,
            &Quantization::None,
            (weights::TpSplit::plain(1), 1),
            2,
            2,
        );
        assert_eq!(ep, (a.params() - experts) * 2 + experts);
        let vllm = estimate(&EstimateInput {
            model: ModelInput {
                model: Some("mistralai/Mixtral-8x7B-v0.1".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Serve,
                engine: Engine::Vllm,
                ..Default::default()
            },
            placement: PlacementInput {
                gpus: Some(2.0),
                ep: 2.0,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        // vLLM adds its rotary cache: 32,768 positions × 128 × 2 B.
        assert_eq!(vllm.weights_bytes.get(), ep + 32_768 * 128 * 2);
        let tp2 = weights::per_gpu_weight_bytes(&a, Dtype::Bf16, &Quantization::None, 2, 1);
        let sglang_ep = estimate(&{
            let mut input = sglang("mistralai/Mixtral-8x7B-v0.1");
            input.placement.tp = 2.0;
            input.placement.ep = 2.0;
            input
        })
        .unwrap();
        assert_eq!(sglang_ep.weights_bytes.get(), tp2);
    }

    #[test]
    fn an_ep_the_engine_cannot_use_is_refused() {
        let e = |i: EstimateInput| i.resolve().unwrap_err();
        // A dense model has no experts to divide.
        let dense = e({
            let mut input = sglang("meta-llama/Llama-3.1-8B");
            input.placement.tp = 2.0;
            input.placement.ep = 2.0;
            input
        });
        assert_eq!(dense.field, "ep");
        // 3 does not divide Mixtral's 8 experts; vLLM's EP is tp × dp, here 2.
        let mixtral = || sglang("mistralai/Mixtral-8x7B-v0.1");
        let three = e({
            let mut input = mixtral();
            input.placement.tp = 4.0;
            input.placement.gpus = Some(12.0);
            input.placement.ep = 3.0;
            input
        });
        assert!(three.accepted.contains("1, 2, 4"), "{three}");
        let vllm = e({
            let mut input = mixtral();
            input.run.engine = Engine::Vllm;
            input.placement.tp = 2.0;
            input.placement.ep = 4.0;
            input
        });
        assert_eq!(vllm.accepted, "one of 1, 2");
        // Training and llama.cpp have no expert parallelism.
        let train = e({
            let mut input = mixtral();
            input.run.mode = Mode::Training;
            input.placement.ep = 2.0;
            input.placement.gpus = Some(2.0);
            input
        });
        assert!(train.problem.contains("vLLM and SGLang"), "{train}");
    }
}

#[cfg(test)]
#[path = "dp_attention_tests.rs"]
mod dp_attention_tests;
