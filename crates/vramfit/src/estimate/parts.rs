//! The parts an estimate is built from while a run shape computes it, and the formulas' text in
//! the languages the crate is built with.

use super::{Component, ComponentKey, ComponentKind, Difference, Workload, weights};
use crate::model::{Architecture, Tensor};
use crate::units::Bytes;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cell::OnceCell;

/// One run of the estimator over a workload: the workload, and whether the formulas' and notes'
/// text is wanted. Every run shape is a method of it; it reads the workload's fields through
/// `Deref`.
pub(super) struct Run<'a> {
    pub(super) w: &'a Workload,
    /// Build the text (formulas, notes, differences); off, the estimate carries numbers only.
    pub(super) text: bool,
    /// Walks over the tensors that several steps read, each done once per run.
    walks: Walks,
    /// The shape assumed for a decoder known by its parameter count alone
    /// ([`Architecture::assumed_decoder`]), its KV cache's; `None` for any other model.
    assumed: Option<Architecture>,
}

/// Sums over the model's tensors, each computed the first time the run asks for it and kept for
/// the rest of the run: a walk costs about as much as the rest of an estimate's arithmetic, and
/// the run shape, the summary and the speed model read the same sums.
#[derive(Default)]
struct Walks {
    /// [`Run::param_sums`].
    params: OnceCell<ParamSums>,
    /// [`Run::weight_split`].
    weights: OnceCell<WeightSplit>,
}

/// Parameters summed over the tensors: all of them, and those a token multiplies with.
#[derive(Clone, Copy, Default)]
struct ParamSums {
    /// [`Architecture::params`](crate::model::Architecture::params).
    all: u64,
    /// The routed experts a token is sent to and every other tensor a token multiplies with
    /// ([`weights::read_per_token`]: not lookups, not the vision tower); 0 for a model without
    /// tensors.
    matmul: u64,
}

impl ParamSums {
    /// Counts `n` blocks' worth of tensor `t` of `a`.
    fn add(&mut self, a: &Architecture, t: &Tensor, n: u64) {
        self.all = self.all.saturating_add(t.numel().saturating_mul(n));
        if !weights::read_per_token(t, a.tied_embeddings) {
            return;
        }
        let x = if t.role.is_expert() {
            t.numel() / t.count.max(1) * a.moe.map_or(0, |m| m.experts_per_token)
        } else {
            t.numel()
        };
        self.matmul = self.matmul.saturating_add(x.saturating_mul(n));
    }
}

/// The weights on the most loaded GPU, in the workload's dtype and format: all of them (the
/// memory estimate's), and those a forward pass reads, the routed experts apart (the speed
/// model's; a lookup — input embedding, learned positions — reads one row, counted as none).
#[derive(Clone, Copy)]
pub(super) struct WeightSplit {
    pub(super) all: u64,
    // Read by the speed model alone; a build without it walks the same tensors all the same.
    #[cfg_attr(not(feature = "speed"), allow(dead_code))]
    pub(super) dense_read: u64,
    #[cfg_attr(not(feature = "speed"), allow(dead_code))]
    pub(super) expert_read: u64,
}

impl<'a> Run<'a> {
    pub(super) fn new(w: &'a Workload, text: bool) -> Self {
        Run {
            w,
            text,
            walks: Walks::default(),
            assumed: w
                .arch
                .is_bare_decoder()
                .then(|| Architecture::assumed_decoder(w.arch.opaque_params)),
        }
    }

    /// The architecture the KV cache is counted from: the model's own, or for a decoder known by
    /// its parameter count alone the shape assumed from that count.
    pub(super) fn cache_arch(&self) -> &Architecture {
        self.assumed.as_ref().unwrap_or(&self.w.arch)
    }

    /// Whether the KV cache is counted from an assumed shape (a bare parameter count).
    pub(super) fn cache_assumed(&self) -> bool {
        self.assumed.is_some()
    }

    /// [`ParamSums`] in one walk, once per run.
    fn param_sums(&self) -> ParamSums {
        *self.walks.params.get_or_init(|| {
            let a = &self.arch;
            if !a.is_detailed() {
                return ParamSums {
                    all: a.opaque_params,
                    matmul: 0,
                };
            }
            let mut sums = ParamSums::default();
            a.visit_grouped(|t, n| sums.add(a, &t, n));
            sums
        })
    }

    /// The model's parameters ([`Architecture::params`](crate::model::Architecture::params)).
    pub(super) fn params(&self) -> u64 {
        self.param_sums().all
    }

    /// Parameters a token multiplies with: the routed experts it is sent to, not lookups.
    #[cfg(feature = "speed")]
    pub(super) fn matmul_params(&self) -> u64 {
        self.param_sums().matmul
    }

    /// Parameters active for one token
    /// ([`Architecture::active_params`](crate::model::Architecture::active_params)): all of a
    /// model without routed experts.
    pub(super) fn active_params(&self) -> u64 {
        if self.arch.moe.is_none() {
            self.params()
        } else {
            self.arch.active_params()
        }
    }

    /// Whether an MLA model's cache is counted decompressed: the runner keeps it so (its rule)
    /// in the transformers release of the run (before 5.15; [`super::TransformersVersion`]).
    pub(super) fn mla_decompressed(&self) -> bool {
        self.rules().decompressed_mla && !self.transformers_version.keeps_mla_latent()
    }

    /// [`WeightSplit`] in one walk ([`weights::busiest_each`]), once per run, with the
    /// [`ParamSums`] when they are not yet known; 0 for a model without tensors.
    pub(super) fn weight_split(&self) -> WeightSplit {
        *self.walks.weights.get_or_init(|| {
            let a = &self.arch;
            if !a.is_detailed() {
                return WeightSplit {
                    all: 0,
                    dense_read: 0,
                    expert_read: 0,
                };
            }
            let (q, dtype) = (&self.quantization, self.dtype);
            let mut sums = ParamSums::default();
            let seen = &mut |t: &Tensor, n| sums.add(a, t, n);
            let [all, dense_read, expert_read] = weights::busiest_each(
                a,
                (self.tp_split(), self.pp),
                seen,
                weights::gguf_by_block(q),
                &|t| {
                    let b = weights::tensor_bytes(q, a, dtype, t);
                    let read = if weights::read_per_token(t, a.tied_embeddings) {
                        b
                    } else {
                        0
                    };
                    if t.role.is_expert() {
                        [b, 0, read]
                    } else {
                        [b, read, 0]
                    }
                },
            );
            // Set unless `param_sums` walked first.
            let _ = self.walks.params.set(sums);
            WeightSplit {
                all,
                dense_read,
                expert_read,
            }
        })
    }
}

impl core::ops::Deref for Run<'_> {
    type Target = Workload;
    fn deref(&self) -> &Workload {
        self.w
    }
}

/// vLLM's KV pool against its requests (`kv_cache_utils.py`: `check_enough_kv_cache_memory`,
/// `get_max_concurrency_for_kv_cache_config`).
#[derive(Clone, Copy)]
pub(super) struct ServePool {
    /// Bytes left for the pool in the utilisation budget.
    pub(super) available: u64,
    /// The engine's start-up check of the free memory, failed: the free memory and what it
    /// asks (vLLM from 0.9.1: `gpu_memory_utilization` × the card). `None`: it starts.
    pub(super) start_short: Option<(u64, u64)>,
    /// What one request of max_model_len needs: every full-attention layer the whole length, a
    /// sliding-window layer its window plus one step's tokens (`SlidingWindowSpec`).
    pub(super) request: u64,
    /// Requests of max_model_len the pool holds at once.
    pub(super) concurrency: f64,
    /// What sizes the pool, which says how the engine refuses a pool too small.
    pub(super) budget: PoolBudget,
}

/// What sizes a serving engine's KV pool.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum PoolBudget {
    /// `gpu_memory_utilization` of the card, less what the profile run measured (vLLM): a pool
    /// too small for one request of `max_model_len` refuses to start.
    Utilization,
    /// `mem_fraction_static` of the card, less the weights (SGLang): a pool too small for one
    /// token refuses to start (no pool at all).
    MemFractionStatic,
    /// `free_gpu_memory_fraction` of what the profile left (TensorRT-LLM): a pool too small for
    /// one request of `max_seq_len` starts, with `max_seq_len` cut to the pool.
    #[cfg(feature = "trtllm")]
    FreeFraction,
}

/// A serving engine sizes its pool from a fraction of the card (vLLM's `gpu_memory_utilization`
/// of the card, SGLang's `mem_fraction_static` of what is free before loading, TensorRT-LLM's
/// `free_gpu_memory_fraction` of what its profile leaves free): the rest of the card must hold
/// what the process keeps outside that fraction, or the engine refuses to start or runs out of
/// memory after the pool is allocated. With `before` the bytes taken before the fraction
/// applies and `outside` those outside it, the card must be at least
/// `before + outside / (1 − fraction)`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Slack {
    /// The fraction the pool is sized from, below 1.
    pub(super) fraction: f64,
    /// Bytes taken before the fraction applies (SGLang's memory in use before loading,
    /// TensorRT-LLM's profile peak; memory other programs hold).
    pub(super) before: u64,
    /// Bytes held outside the fraction, the allocator's reserve not among them (it is added when
    /// the estimate is finished): vLLM's CUDA context, SGLang's prefill and CUDA graphs.
    pub(super) outside: u64,
}

impl Slack {
    /// The smallest card whose rest holds what lives outside the fraction, `reserve` (the
    /// caching allocator's reserved-but-unallocated bytes) among it.
    pub(super) fn floor(&self, reserve: u64) -> u64 {
        let outside = self.outside.saturating_add(reserve) as f64;
        let rest = (1.0 - self.fraction).max(0.01);
        self.before
            .saturating_add(crate::units::Bytes::from_f64(libm::ceil(outside / rest)).get())
    }
}

pub(super) struct Parts {
    /// Whether the run builds text: off, components carry no notes.
    pub(super) text: bool,
    pub(super) comps: Vec<Component>,
    pub(super) notes: Vec<Difference>,
    /// PyTorch-allocated bytes at the peak when it is not the plain sum of the torch components
    /// (HF inference: the KV cache is only partly filled at the prefill peak).
    pub(super) peak: Option<u64>,
    /// Serving: tokens in vLLM's pool.
    pub(super) serve_tokens: Option<u64>,
    /// Serving on a card: what vLLM's pool holds against one request of max_model_len.
    pub(super) serve_pool: Option<ServePool>,
    /// Serving: `M_theory`, the card memory that holds the wanted concurrency (Ollama: that holds
    /// the whole model on the GPUs).
    pub(super) theory: Option<u64>,
    /// Serving: the fraction of the card the engine sizes its pool from, and what must fit in
    /// the rest; `M_theory` is at least the card whose rest holds it.
    pub(super) slack: Option<Slack>,
    /// Ollama: its offload decision and the split `ollama ps` prints.
    pub(super) ollama: Option<super::OllamaLoad>,
    /// RL post-training: its phases and the rollout's pool.
    pub(super) rl: Option<super::RlReport>,
    /// llama.cpp over several cards: each card's share (empty otherwise).
    pub(super) cards: Vec<super::CardUse>,
    /// Training under FSDP's CPU offload: the parameter shards kept in CPU memory for this GPU,
    /// which its offload allowance is a share of (0 otherwise).
    pub(super) offloaded_params: u64,
    /// Training: the step's three moments; transformers inference: the weights, the prefill
    /// and the last token; the allocator's reserve not yet among them.
    pub(super) step: Vec<super::StepMoment>,
    /// A serving engine's (or llama.cpp's, Ollama's, MLX's) start-up in stages, turned into
    /// moments from the parts once the reserve is among them (`moments.rs`).
    #[cfg(feature = "moments")]
    pub(super) start_up: Option<&'static [super::moments::Stage]>,
}

impl Parts {
    /// No part yet, with room for every component a run shape adds, allocated once; text
    /// built when `text`.
    pub(super) fn new(text: bool) -> Parts {
        Parts {
            text,
            comps: Vec::with_capacity(16),
            notes: Vec::new(),
            peak: None,
            serve_tokens: None,
            serve_pool: None,
            theory: None,
            slack: None,
            ollama: None,
            rl: None,
            cards: Vec::new(),
            offloaded_params: 0,
            step: Vec::new(),
            #[cfg(feature = "moments")]
            start_up: None,
        }
    }

    pub(super) fn add(
        &mut self,
        kind: ComponentKind,
        bytes: u64,
        torch: bool,
        formula: Formula,
        en: &str,
        zh: &str,
    ) {
        let (formula, formula_zh) = formula.into_texts();
        let (note_en, note_zh) = if self.text {
            (en.to_string(), zh.to_string())
        } else {
            (String::new(), String::new())
        };
        self.comps.push(Component {
            key: ComponentKey::at_peak(kind),
            bytes: Bytes::new(bytes),
            torch,
            formula,
            formula_zh,
            note_en,
            note_zh,
        });
    }
    pub(super) fn note(&mut self, key: &str, en: String, zh: String) {
        if !self.text {
            return;
        }
        self.notes.push(Difference {
            key: key.to_string(),
            en,
            zh,
        });
    }
    /// A component's size, alive at the peak or not.
    pub(super) fn get(&self, kind: ComponentKind) -> u64 {
        self.sum_where(|k| k == kind)
    }

    /// The components whose kind passes `which`, alive at the peak or not, saturating: an input
    /// at the edge of its ranges (eager attention over 15 million tokens) can make them exceed
    /// `u64`.
    pub(super) fn sum_where(&self, which: impl Fn(ComponentKind) -> bool) -> u64 {
        self.comps
            .iter()
            .filter(|c| which(c.key.kind))
            .map(|c| c.bytes.get())
            .fold(0, u64::saturating_add)
    }
}

/// A formula in the languages the crate is built with: its English and its Chinese, each only
/// under that language's feature (as the notes' text is), so that a module in one language
/// carries one language's words. Written with [`formula!`]; a value computed only for the
/// formula goes unused in a build without either language.
#[derive(Debug, Default)]
pub(super) struct Formula {
    #[cfg(feature = "en")]
    pub(super) en: String,
    #[cfg(feature = "zh")]
    pub(super) zh: String,
}

impl Formula {
    /// A text the same in both languages: numbers, units and names.
    pub(super) fn same(text: String) -> Self {
        Formula {
            #[cfg(all(feature = "en", feature = "zh"))]
            en: text.clone(),
            #[cfg(all(feature = "en", not(feature = "zh")))]
            en: text,
            #[cfg(feature = "zh")]
            zh: text,
        }
    }

    /// The English and the Chinese, empty without their features.
    pub(super) fn into_texts(self) -> (String, String) {
        #[cfg(feature = "en")]
        let en = self.en;
        #[cfg(not(feature = "en"))]
        let en = String::new();
        #[cfg(feature = "zh")]
        let zh = self.zh;
        #[cfg(not(feature = "zh"))]
        let zh = String::new();
        (en, zh)
    }
}

pub(super) fn b(x: u64) -> String {
    Bytes::new(x).display_auto()
}

/// Separates thousands: 8030261248 → 8,030,261,248.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
