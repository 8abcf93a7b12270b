//! From the parts to the estimate: the allocator's reserve, the peak `max_memory_allocated`
//! would report, the total `nvidia-smi` would show, the guide's recommendation and the fit.
//!
//! The figures are computed here without text ([`PeakFigures`], [`Totals`]); `words.rs` writes
//! the reserve's formula, the notes and the fit's reasons.

mod words;

use super::parts::ServePool;
use super::{
    ComponentKind, Estimate, Fit, Group, Mode, OllamaLoad, Parts, PeakSource, Phase, Precision,
    Quick, Required, Run, m_rec, quick,
};
use crate::precision::Dtype;
use crate::units::{Bytes, MIB};

/// The figures the peak and the total come from, read from the parts before the allocator's
/// reserve is added to them.
struct PeakFigures {
    /// The transient tensors (activations, logits, temporaries) the reserve is a share of.
    transient: u64,
    /// Reserved by PyTorch's caching allocator but not allocated (0 for llama.cpp).
    reserve: u64,
    /// Of `reserve`: the margin for the allocator's cache under ZeRO-3's or FSDP's per-layer
    /// gathers (`training/sharding.rs`, `sharded_cache`; 0 for any other run, and in a build
    /// without training, whose words never read it).
    #[cfg_attr(not(feature = "training"), allow(dead_code))]
    sharded_cache: u64,
    /// Of `reserve`: the allowance of an FSDP run with CPU offload (`training/sharding.rs`,
    /// `fsdp_offload_allowance`; 0 for any other run).
    #[cfg_attr(not(feature = "training"), allow(dead_code))]
    offload_allowance: u64,
    /// The parameter shards in CPU memory for one GPU, which the offload allowance is a share of.
    #[cfg_attr(not(feature = "training"), allow(dead_code))]
    offloaded_params: u64,
    /// What `max_memory_allocated` reports (llama.cpp: its own buffers).
    peak_allocated: u64,
    /// What `nvidia-smi` shows at the peak.
    total: u64,
    /// What the card must hold: `total` less `sharded_cache`, which the caching allocator gives
    /// back before it fails an allocation (`c10/cuda/CUDACachingAllocator.cpp`, `malloc`: on a
    /// failed `cudaMalloc` it frees cached blocks, `release_available_cached_blocks`, then every
    /// wholly free segment, `release_cached_blocks`, and retries before the OutOfMemoryError).
    needed: u64,
}

/// The figures read from the parts once the reserve is among them, with no text.
struct Totals {
    /// The temporaries' group.
    temporaries: u64,
    /// The overhead's group.
    overhead: u64,
    /// KV-cache bytes per token on one GPU (0 for a model that generates nothing).
    kv_per_token: u64,
    /// `M_theory`: the memory that holds the run as asked.
    m_theory: u64,
    /// A serving engine's pool against its requests.
    pool: Option<ServePool>,
    /// Whether the pool, if any, holds one request (the engine starts).
    pool_ok: bool,
    /// Whether the pool, if any, holds `batch` requests at once: the concurrency asked for.
    pool_holds_batch: bool,
    /// Whether Ollama puts fewer layers on the GPUs than asked.
    partial_offload: bool,
    /// Bytes kept in CPU memory.
    cpu: u64,
    /// Bytes kept on NVMe (ZeRO-Infinity).
    nvme: u64,
    /// llama.cpp's layers on the CPU, whose pace the speed model does not know.
    #[cfg(feature = "speed")]
    cpu_layers: u64,
}

impl Run<'_> {
    pub(super) fn finish(
        &self,
        mut parts: Parts,
        phase: Phase,
        trainable: u64,
        cpu: u64,
    ) -> Estimate {
        let rules = self.rules();
        let peak = self.peak_figures(&parts);
        // llama.cpp and MLX have no PyTorch allocator: no reserve.
        if !rules.peak.own_buffers() {
            self.add_reserve(&mut parts, &peak);
        }
        let t = self.totals(&parts, &peak, cpu);
        let quick = self.quick_estimate();
        let ollama = parts.ollama.clone();
        let rl = parts.rl.take();
        let cards = core::mem::take(&mut parts.cards);
        #[cfg(feature = "moments")]
        let step = match parts.start_up.filter(|_| rl.is_none()) {
            Some(stages) => self.start_up_moments(&parts, stages),
            None => self.step_with_reserve(core::mem::take(&mut parts.step), &peak, rl.is_some()),
        };
        #[cfg(not(feature = "moments"))]
        let step = self.step_with_reserve(core::mem::take(&mut parts.step), &peak, rl.is_some());
        let mut fit = self.fit(&peak, &t, ollama.as_ref());
        // Over unlike cards the fit is per card: the one with the least memory left is shown,
        // and the run fits when every card holds its share.
        if let (Some(f), Some(lim)) = (fit.as_mut(), cards.iter().find(|c| c.limits))
            && !self.cards.is_empty()
        {
            f.gpu = lim.gpu.clone();
            f.memory_bytes = lim.memory_bytes;
            f.in_use_bytes = self
                .cards
                .iter()
                .map(|c| c.in_use)
                .max()
                .unwrap_or_default();
            f.fits = cards.iter().all(|c| c.fits);
            f.headroom_bytes = lim.headroom_bytes;
            f.shortfall_bytes = lim.shortfall_bytes;
        }
        #[cfg(feature = "speed")]
        let gpu_layers = self.speed_gpu_layers(ollama.as_ref());
        #[cfg(feature = "speed")]
        self.speed_note(&mut parts, t.cpu_layers, gpu_layers);
        self.nodes_note(&mut parts);
        self.in_use_note(&mut parts);
        self.cache_given_back_note(&mut parts, &peak, fit.as_ref());
        let differences = self.differences(&quick, &parts);
        let tokens = parts.serve_tokens;
        // To the hundredth, as vLLM logs it (and a short decimal survives any JSON reader).
        let concurrency = match t.pool {
            Some(sp) => Some(sp.concurrency),
            None => tokens.map(|t| t as f64 / self.max_model_len.max(1) as f64),
        };
        let max_concurrency_exact = concurrency.map(|c| libm::floor(c * 100.0) / 100.0);
        Estimate {
            model: self.model_name.clone(),
            params: self.params(),
            active_params: self.active_params(),
            trainable_params: trainable,
            weights_bytes: Bytes::new(parts.get(ComponentKind::Weights)),
            kv_cache_bytes: Bytes::new(parts.get(ComponentKind::KvCache)),
            activations_bytes: Bytes::new(parts.get(ComponentKind::Activations)),
            gradients_bytes: Bytes::new(parts.get(ComponentKind::Gradients)),
            optimizer_bytes: Bytes::new(parts.get(ComponentKind::Optimizer)),
            temporaries_bytes: Bytes::new(t.temporaries),
            overhead_bytes: Bytes::new(t.overhead),
            allocator_reserve_bytes: Bytes::new(peak.reserve),
            peak_phase: phase,
            peak_source: rules.peak,
            peak_allocated_bytes: Bytes::new(peak.peak_allocated),
            total_bytes: Bytes::new(peak.total),
            recommended_bytes: m_rec(Bytes::new(t.m_theory)),
            required_bytes: Bytes::new(match rules.required {
                Required::Theory => t.m_theory,
                Required::Total => peak.needed,
            }),
            kv_cache_tokens: tokens,
            max_concurrency: concurrency.map(|c| c as u64),
            max_concurrency_exact,
            kv_bytes_per_token: t.kv_per_token,
            cpu_bytes: Bytes::new(t.cpu),
            nvme_bytes: Bytes::new(t.nvme),
            gpus: self.dp * self.tp * self.pp,
            nodes: self.nodes.nodes,
            components: parts.comps,
            quick,
            differences,
            fit,
            // The speed model is one card's roofline: none over cards that are not alike.
            #[cfg(feature = "speed")]
            throughput: if self.cards.is_empty() {
                self.throughput(trainable, gpu_layers)
            } else {
                None
            },
            #[cfg(not(feature = "speed"))]
            throughput: None,
            notes: parts.notes,
            ollama,
            rl,
            cards,
            step,
        }
    }

    /// The training step's (or transformers inference's) moments with the allocator's reserve,
    /// which every moment after the first forward holds (cached blocks stay reserved; the
    /// weights loaded, before any forward, hold none); none for RL, whose phases are its own.
    fn step_with_reserve(
        &self,
        mut step: alloc::vec::Vec<super::StepMoment>,
        peak: &PeakFigures,
        rl: bool,
    ) -> alloc::vec::Vec<super::StepMoment> {
        if rl {
            return alloc::vec::Vec::new();
        }
        if peak.reserve > 0 {
            for m in step.iter_mut().filter(|m| m.phase != Phase::Load) {
                m.parts.push(super::StepPart {
                    kind: ComponentKind::AllocatorReserve,
                    bytes: Bytes::new(peak.reserve),
                });
                m.bytes = Bytes::new(m.bytes.get().saturating_add(peak.reserve));
            }
        }
        step
    }

    /// The allocator's reserve, the peak and the total, from the parts as the run shape left
    /// them.
    fn peak_figures(&self, parts: &Parts) -> PeakFigures {
        let torch: u64 = parts
            .comps
            .iter()
            .filter(|c| c.torch)
            .map(|c| c.bytes.get())
            .fold(0, u64::saturating_add);
        let non_torch: u64 = parts
            .comps
            .iter()
            .filter(|c| !c.torch && c.key.at_peak)
            .map(|c| c.bytes.get())
            .fold(0, u64::saturating_add);
        // llama.cpp and MLX have no PyTorch allocator: no reserve, and the peak is their own
        // buffers (MLX's: every part alive at the peak).
        let source = self.rules().peak;
        let is_llamacpp = source.own_buffers();
        // Allocator reserve: the caching allocator keeps freed blocks of the transient tensors
        // (activations, logits, temporaries) cached; about 5 % of them plus 2 MiB rounding per
        // block-sized weight tensor is reserved-but-unallocated at the peak.
        let transient = parts.sum_where(ComponentKind::is_transient);
        // llama.cpp's "allocated" peak is its own buffers (weights, KV, compute).
        let peak_allocated = if matches!(source, PeakSource::Mlx | PeakSource::Candle) {
            non_torch
        } else if is_llamacpp {
            parts.sum_where(ComponentKind::is_llamacpp_buffer)
        } else {
            parts.peak.unwrap_or(torch)
        };
        #[cfg(feature = "training")]
        let sharded_cache = if is_llamacpp {
            0
        } else {
            self.sharded_cache(peak_allocated)
        };
        #[cfg(not(feature = "training"))]
        let sharded_cache = 0;
        #[cfg(feature = "training")]
        let offload_allowance = if is_llamacpp {
            0
        } else {
            self.fsdp_offload_allowance(parts.offloaded_params)
        };
        #[cfg(not(feature = "training"))]
        let offload_allowance = 0;
        let reserve = if is_llamacpp {
            0
        } else {
            (transient / 20)
                .saturating_add(self.arch.num_layers.saturating_mul(MIB))
                .saturating_add(sharded_cache)
                .saturating_add(offload_allowance)
        };
        // llama.cpp's buffers are all outside PyTorch, so its total is the non-torch sum alone.
        let total = if is_llamacpp {
            non_torch
        } else {
            peak_allocated
                .saturating_add(reserve)
                .saturating_add(non_torch)
        };
        PeakFigures {
            transient,
            reserve,
            sharded_cache,
            offload_allowance,
            offloaded_params: parts.offloaded_params,
            peak_allocated,
            total,
            needed: total.saturating_sub(sharded_cache),
        }
    }

    /// The groups, the KV cache per token, `M_theory` (`peak`'s when the run shape gives none),
    /// the pool check and the layers off the GPUs, from the parts with the reserve among them;
    /// `cpu`, the run shape's bytes in CPU memory, split from those on NVMe.
    fn totals(&self, parts: &Parts, peak: &PeakFigures, cpu: u64) -> Totals {
        let rules = self.rules();
        let is_llamacpp = rules.peak.own_buffers();
        // ZeRO-Infinity's NVMe offload keeps the partitions on the drive, not in CPU memory.
        let (cpu, nvme) = if self.mode == Mode::Training && self.offload.nvme() {
            (0, cpu)
        } else {
            (cpu, 0)
        };
        // The model's cache, or for a bare parameter count the shape assumed for it.
        let cache = self.cache_arch();
        let layers_here = cache.num_layers.div_ceil(self.pp);
        let kv_per_token = if self.keeps_kv_cache(cache) {
            let target = self.kv_bytes(1, 1, layers_here, self.mla_decompressed()).0;
            // The draft's share: SGLang's by its rule on the target's cell, vLLM's by layer.
            let draft = match self.runner() {
                super::Runner::Sglang => self.sglang_draft_cell(target, layers_here),
                _ => self.drafter_kv_per_token(),
            };
            target.saturating_add(draft)
        } else {
            0
        };
        let m_theory = parts.theory.unwrap_or(if is_llamacpp {
            peak.total
        } else {
            peak.peak_allocated
        });
        // A serving engine's card must also hold, in the rest its fraction leaves, what lives
        // outside the fraction: the larger of the two is the smallest card the fit accepts.
        let m_theory = match parts.slack {
            Some(s) => m_theory.max(s.floor(peak.reserve)),
            None => m_theory,
        };
        // Serving fits when vLLM starts, i.e. its pool holds one request of max_model_len
        // (`check_enough_kv_cache_memory`; more requests than the pool holds wait in the queue),
        // and the process fits the card.
        let pool = parts.serve_pool;
        // Ollama fits when its own estimate puts the whole model on the GPUs; otherwise it runs,
        // split between the CPU and the GPUs.
        let ollama = parts.ollama.as_ref();
        // llama.cpp with layers on the CPU generates at the pace of the CPU's memory for them,
        // which the speed model, a GPU's roofline, does not know: no speed, and a note says why.
        #[cfg(feature = "speed")]
        let cpu_layers = if !rules.offload.splits_layers()
            || !self.arch.is_detailed()
            || self.device.is_none()
        {
            0
        } else if let Some(o) = ollama {
            o.model_layers.saturating_sub(o.gpu_layers)
        } else {
            (self.arch.num_layers + 1).saturating_sub(self.gpu_layers)
        };
        Totals {
            temporaries: parts.sum_where(|k| k.group() == Group::Temporaries),
            overhead: parts.sum_where(|k| k.group() == Group::Overhead),
            kv_per_token,
            m_theory,
            pool,
            pool_ok: pool.is_none_or(|sp| sp.available >= sp.request && sp.start_short.is_none()),
            pool_holds_batch: pool.is_none_or(|sp| sp.concurrency >= self.batch as f64),
            partial_offload: ollama.is_some_and(|o| o.gpu_layers < o.requested_layers),
            cpu,
            nvme,
            #[cfg(feature = "speed")]
            cpu_layers,
        }
    }

    /// The guide's quick estimate: its b for training is the precision the weights are held
    /// in (4 B in fp32), its sequence the prompt and the generated tokens.
    fn quick_estimate(&self) -> Quick {
        let quick_dtype = if self.mode == Mode::Training && self.precision == Precision::Fp32 {
            Dtype::Fp32
        } else {
            self.dtype
        };
        let a = &self.arch;
        quick::quick(
            self.text,
            self.params(),
            a,
            self.mode,
            quick_dtype,
            &self.quantization,
            self.optimizer,
            self.batch,
            self.seq_len
                + if self.mode == Mode::Training {
                    0
                } else {
                    self.new_tokens
                },
        )
    }

    /// Whether the card holds the run as asked: the total, the serving pool's `batch` requests
    /// at once (an engine that starts but queues the rest does not meet the concurrency asked
    /// for), Ollama's whole model on the GPUs; with the reason when it does not.
    fn fit(&self, peak: &PeakFigures, t: &Totals, ollama: Option<&OllamaLoad>) -> Option<Fit> {
        // What the card must hold: the total less the cache the allocator gives back before an
        // out-of-memory error (ZeRO-3's and FSDP's margin; the total itself for any other run).
        let total = peak.needed;
        let partial = ollama.filter(|_| t.partial_offload);
        // Said against what is free: the card's memory less what is already in use on it.
        self.device.as_ref().map(|d| Fit {
            gpu: alloc::string::String::from(d.id),
            memory_bytes: d.memory,
            in_use_bytes: d.in_use,
            fits: total <= d.free().get() && t.pool_ok && t.pool_holds_batch && partial.is_none(),
            reason: match (
                t.pool.filter(|_| !t.pool_ok || !t.pool_holds_batch),
                partial,
            ) {
                (Some(sp), _) if !t.pool_ok => Some(match sp.start_short {
                    Some((free, asked)) => self.start_refused(free, asked),
                    None => self.pool_reason(sp, t.kv_per_token),
                }),
                (Some(sp), _) => Some(self.pool_below_batch(sp, t.m_theory)),
                // The layers placed (llama-server's fit keeps none on the GPU where no layer
                // leaves its margin free, `common/fit.cpp`) and still more than is free: the
                // load runs out of memory rather than running on the CPU.
                (None, Some(o)) if total > d.free().get() => {
                    Some(self.offload_out_of_memory(o, total, d.free().get()))
                }
                (None, Some(o)) => Some(self.offload_reason(o, t.m_theory)),
                (None, None) => None,
            },
            headroom_bytes: d.free().minus(Bytes::new(total)),
            shortfall_bytes: Bytes::new(total).minus(d.free()),
        })
    }
}
