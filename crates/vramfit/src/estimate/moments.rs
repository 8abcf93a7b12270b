//! Where the memory goes over a serving engine's start-up (and llama.cpp's, Ollama's and MLX's
//! load), moment by moment (`Estimate::step`): each engine names its stages in order and what
//! each allocates ([`Stage`]); the moments are read from the estimate's own parts once the
//! allocator's reserve is among them, so that the last moment holds every part alive at the
//! peak, the estimate's total, and no moment is above it.
//!
//! The stages follow the engines' start-up code:
//! - vLLM (`vllm/v1/worker/gpu_worker.py` at v0.11.0, `determine_available_memory` and
//!   `compile_or_warm_up_model`): the weights loaded, `profile_run` (the forward over
//!   `max_num_batched_tokens` and the sampler, measured; `memory_profiling` then frees them with
//!   `torch.cuda.empty_cache()`), the KV cache allocated from what the profile left, CUDA graphs
//!   captured, then serving, where each forward takes its activations back.
//! - SGLang (`model_runner.py`, `init_memory_pool` then `init_cuda_graphs`): no profile run; the
//!   pool from `mem_fraction_static` after loading, then the graphs; the activations live in the
//!   rest, at serving.
//! - TensorRT-LLM (`_torch/pyexecutor/_util.py`, `KvCacheCreator`): its estimation run of
//!   `max_num_tokens` captures the CUDA graphs and measures the peak, then the pool.
//! - llama.cpp and Ollama (`llama_model_load`, then `llama_init_from_model`'s KV buffer and
//!   `ggml_backend_sched_reserve`'s compute buffer): every buffer allocated at load; prefill
//!   and decode run inside them, nothing grows after.
//! - MLX: the weights loaded, then the estimate's bound — the cache at its largest beside one
//!   prompt step's forward and the logits — as one moment: mlx-lm's cache grows with the
//!   tokens, and the estimate does not split that bound into prefill and decode.

use super::{ComponentKind as K, Parts, Phase, Run, StepMoment, StepPart};
use crate::units::Bytes;
use alloc::string::String;
use alloc::vec::Vec;

/// One stage of a start-up: the parts it allocates and keeps, and those alive only while it
/// runs (a profile's activations, freed after it) which come back at the last stage.
pub(super) struct Stage {
    pub(super) phase: Phase,
    /// Kinds allocated at this stage and alive from then on.
    pub(super) keeps: &'static [K],
    /// Kinds alive during this stage alone (and again at the last stage, serving).
    pub(super) passes: &'static [K],
    /// The stage in English and Chinese (empty without the language).
    pub(super) en: &'static str,
    pub(super) zh: &'static str,
}

/// The weights and what is loaded with them, as every serving engine loads them.
const LOADED: &[K] = &[
    K::Weights,
    K::VisionWeights,
    K::LoraAdapters,
    K::Drafter,
    K::CudaContext,
    K::Nccl,
    K::Workspace,
];

/// A forward's transient tensors (a profile's, a serving step's).
const FORWARD: &[K] = &[
    K::Activations,
    K::Logits,
    K::EncoderActivations,
    K::EncoderCache,
];

/// The weights loaded (serving engines).
const LOAD: Stage = Stage {
    phase: Phase::Load,
    keeps: LOADED,
    passes: &[],
    en: en_str!("Weights loaded"),
    zh: zh_str!("权重加载完成"),
};

/// The KV pool allocated, with the fixed-size state and SGLang's table.
const POOL: Stage = Stage {
    phase: Phase::KvPool,
    keeps: &[K::KvCache, K::StateCache, K::ReqToTokenPool],
    passes: &[],
    en: en_str!("KV pool allocated"),
    zh: zh_str!("KV 池分配完成"),
};

/// The CUDA graphs captured (vLLM, SGLang).
const GRAPHS: Stage = Stage {
    phase: Phase::CudaGraphs,
    keeps: &[K::CudaGraphs],
    passes: &[],
    en: en_str!("CUDA graphs captured"),
    zh: zh_str!("CUDA 图捕获完成"),
};

/// Serving with the pool full: a forward over the batch with its activations alive; every part.
const SERVING: Stage = Stage {
    phase: Phase::Serving,
    keeps: &[],
    passes: &[],
    en: en_str!("Serving with the pool full, a forward's activations alive"),
    zh: zh_str!("服务中，KV 池已满，一次前向的激活值存活"),
};

/// vLLM: load, profile, pool, graphs, serving.
pub(super) const VLLM_START_UP: &[Stage] = &[
    LOAD,
    Stage {
        phase: Phase::ProfileRun,
        keeps: &[K::NonTorch, K::AllocatorReserve],
        passes: FORWARD,
        en: en_str!("Profile run: the activation peak it measures"),
        zh: zh_str!("profile 运行：其测得的激活峰值"),
    },
    POOL,
    GRAPHS,
    SERVING,
];

/// SGLang: load, pool (its non-torch memory measured with the free memory it sizes it from),
/// graphs, serving; no profile run.
pub(super) const SGLANG_START_UP: &[Stage] = &[
    LOAD,
    Stage {
        phase: Phase::KvPool,
        keeps: &[K::KvCache, K::StateCache, K::ReqToTokenPool, K::NonTorch],
        passes: &[],
        en: en_str!("KV pool allocated"),
        zh: zh_str!("KV 池分配完成"),
    },
    GRAPHS,
    SERVING,
];

/// TensorRT-LLM: load, the estimation run (graphs captured in it), pool, serving.
pub(super) const TRTLLM_START_UP: &[Stage] = &[
    LOAD,
    Stage {
        phase: Phase::ProfileRun,
        keeps: &[K::NonTorch, K::CudaGraphs, K::AllocatorReserve],
        passes: FORWARD,
        en: en_str!("Estimation run over max_num_tokens, CUDA graphs captured"),
        zh: zh_str!("max_num_tokens 的预估运行，CUDA 图已捕获"),
    },
    POOL,
    SERVING,
];

/// llama.cpp and Ollama: the model buffers, the KV buffer, the compute buffer.
pub(super) const LLAMACPP_START_UP: &[Stage] = &[
    Stage {
        phase: Phase::Load,
        keeps: &[K::Weights, K::VisionWeights, K::CudaContext],
        passes: &[],
        en: en_str!("Model buffers loaded"),
        zh: zh_str!("模型缓冲区加载完成"),
    },
    Stage {
        phase: Phase::KvPool,
        keeps: &[K::KvCache, K::StateCache],
        passes: &[],
        en: en_str!("KV buffer allocated"),
        zh: zh_str!("KV 缓冲区分配完成"),
    },
    Stage {
        phase: Phase::Decode,
        keeps: &[],
        passes: &[],
        en: en_str!("Compute buffer reserved: prefill and decode run inside these buffers"),
        zh: zh_str!("计算缓冲区预留完成：预填充与解码都在这些缓冲区内运行"),
    },
];

/// MLX: the weights, then the estimate's bound as one moment.
pub(super) const MLX_START_UP: &[Stage] = &[
    Stage {
        phase: Phase::Load,
        keeps: &[K::Weights],
        passes: &[],
        en: en_str!("Weights loaded"),
        zh: zh_str!("权重加载完成"),
    },
    Stage {
        phase: Phase::Prefill,
        keeps: &[],
        passes: &[],
        en: en_str!(
            "Generating: the cache at its largest beside a prompt step's forward (the bound)"
        ),
        zh: zh_str!("生成中：最大的缓存与一个提示步的前向同时存在（上界）"),
    },
];

/// A kind's bit in a set of kinds ([`kinds`]).
fn bit(k: K) -> u64 {
    1 << (k as u32)
}

/// The set of `ks` as bits of a `u64`, one per kind: a stage's kinds are tested for every part
/// at every stage, and a bit costs less than a search of the list.
fn kinds(ks: &[K]) -> u64 {
    ks.iter().fold(0, |set, &k| set | bit(k))
}

// Every kind has a bit of its own: no discriminant is 64 or more.
const _: () = {
    let mut i = 0;
    while i < K::ALL.len() {
        assert!((K::ALL[i] as u32) < 64);
        i += 1;
    }
};

/// A moment from its parts: those of 0 bytes left out, its bytes their sum.
pub(super) fn moment(phase: Phase, parts: &[(K, u64)], en: String, zh: String) -> StepMoment {
    // Room for every part and the allocator's reserve that `step_with_reserve` adds after: one
    // allocation, never grown.
    let mut kept = Vec::with_capacity(parts.len() + 1);
    kept.extend(
        parts
            .iter()
            .filter(|(_, b)| *b > 0)
            .map(|&(kind, b)| StepPart {
                kind,
                bytes: Bytes::new(b),
            }),
    );
    let parts = kept;
    let bytes = parts
        .iter()
        .map(|p| p.bytes.get())
        .fold(0, u64::saturating_add);
    StepMoment {
        phase,
        en,
        zh,
        parts,
        bytes: Bytes::new(bytes),
    }
}

impl Run<'_> {
    /// The start-up's moments from the parts alive at the peak: at each stage, what the earlier
    /// stages kept, what it keeps and what passes through it; at the last, every part (those no
    /// stage names among them, so that it is the estimate's total). A stage that adds nothing (no CUDA graphs, no profile's
    /// activations) is left out, the last kept.
    pub(super) fn start_up_moments(&self, p: &Parts, stages: &[Stage]) -> Vec<StepMoment> {
        let mut out = Vec::with_capacity(stages.len());
        // The parts alive at a stage, one list refilled at each.
        let mut parts: Vec<(K, u64)> = Vec::with_capacity(p.comps.len());
        // The kinds kept by this stage and the ones before it, as a set of bits.
        let mut kept = 0u64;
        for (i, stage) in stages.iter().enumerate() {
            let last = i + 1 == stages.len();
            let (keeps, passes) = (kinds(stage.keeps), kinds(stage.passes));
            kept |= keeps;
            let alive = |k: K| last || (kept | passes) & bit(k) != 0;
            let adds = p.comps.iter().any(|c| {
                c.key.at_peak && c.bytes.get() > 0 && (keeps | passes) & bit(c.key.kind) != 0
            });
            if !last && i > 0 && !adds {
                continue;
            }
            parts.clear();
            parts.extend(
                p.comps
                    .iter()
                    .filter(|c| c.key.at_peak && alive(c.key.kind))
                    .map(|c| (c.key.kind, c.bytes.get())),
            );
            let (en, zh) = self.stage_words(p, stage);
            out.push(moment(stage.phase, &parts, en, zh));
        }
        out
    }

    /// A stage's words; the pool's with the tokens it holds.
    fn stage_words(&self, p: &Parts, stage: &Stage) -> (String, String) {
        if !self.text {
            return (String::new(), String::new());
        }
        match (stage.phase, p.serve_tokens) {
            (Phase::KvPool, Some(tokens)) if tokens > 0 => {
                let (s_en, s_zh, t) = (stage.en, stage.zh, super::thousands(tokens));
                (en!("{s_en}: {t} tokens"), zh!("{s_zh}：{t} 个 token"))
            }
            _ => (String::from(stage.en), String::from(stage.zh)),
        }
    }
}
