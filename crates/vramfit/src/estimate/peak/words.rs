//! The words of the estimate's last figures: the allocator reserve's formula, the notes on the
//! serving pool's queue and on the speed of layers on the CPU, and the fit's reasons.

use super::PeakFigures;
use crate::estimate::parts::{PoolBudget, ServePool};
use crate::estimate::{
    ComponentKind, Context, Difference, Formula, OllamaLoad, Parts, Run, b, thousands,
};
use crate::units::fixed;
use alloc::string::String;

/// Bytes in GiB to the hundredth, as vLLM's start-up check prints them (`round(b / GiB, 2)`).
fn gib2(bytes: u64) -> String {
    fixed(bytes as f64 / (1u64 << 30) as f64, 2)
}

impl Run<'_> {
    /// The allocator's reserve as a component, with its formula.
    pub(super) fn add_reserve(&self, parts: &mut Parts, peak: &PeakFigures) {
        let (transient, reserve, a) = (peak.transient, peak.reserve, &self.arch);
        parts.add(
            ComponentKind::AllocatorReserve,
            reserve,
            false,
            self.sharded_reserve_formula(peak).unwrap_or_else(|| {
                formula!(self.text;
                    let (t, blocks, size) = (b(transient), a.num_layers, b(reserve));
                    ["5 % of transient tensors ({t}) + 1 MiB rounding × {blocks} blocks = {size}"],
                    ["5 % 的临时张量 ({t}) + 1 MiB 取整 × {blocks} 块 = {size}"]
                )
            }),
            en_str!("Reserved by PyTorch's caching allocator but not allocated: counted by nvidia-smi, not by max_memory_allocated."),
            zh_str!("PyTorch 缓存分配器已保留但未分配：nvidia-smi 计入，max_memory_allocated 不计。"),
        );
    }

    /// The reserve's formula with ZeRO-3's or FSDP's margin for the cache, written by the
    /// training run shape; `None` for every other run.
    #[cfg(feature = "training")]
    fn sharded_reserve_formula(&self, peak: &PeakFigures) -> Option<Formula> {
        (peak.sharded_cache > 0).then(|| {
            self.sharded_cache_formula(
                peak.transient,
                peak.sharded_cache,
                (peak.offload_allowance, peak.offloaded_params),
                peak.reserve,
            )
        })
    }

    /// A build without training has no sharded run: the plain reserve's formula.
    #[cfg(not(feature = "training"))]
    fn sharded_reserve_formula(&self, _peak: &PeakFigures) -> Option<Formula> {
        None
    }

    /// The note of a ZeRO-3 or FSDP run that fits although its total (as nvidia-smi shows it)
    /// is over the card's free memory: the cache margin is what the caching allocator gives back
    /// before it fails an allocation (`c10/cuda/CUDACachingAllocator.cpp`, `malloc`:
    /// `release_available_cached_blocks`, then `release_cached_blocks`, then a retry).
    pub(super) fn cache_given_back_note(
        &self,
        p: &mut Parts,
        peak: &PeakFigures,
        fit: Option<&crate::estimate::Fit>,
    ) {
        let Some(f) = fit.filter(|f| f.fits && peak.sharded_cache > 0) else {
            return;
        };
        let free = f.memory_bytes.get().saturating_sub(f.in_use_bytes.get());
        if peak.total <= free {
            return;
        }
        let (total, needed, card) = (b(peak.total), b(peak.needed), b(free));
        p.note(
            "sharded_cache_given_back",
            en!(
                "It fits: the card must hold {needed}. nvidia-smi may read up to {card} (vramfit's total, {total}, holds a margin for the allocator's cache under the per-layer gathers): PyTorch's caching allocator frees its cached blocks and retries before it reports an out-of-memory error, so that cache is not needed."
            ),
            zh!(
                "可以放下：这张卡需要容纳 {needed}。nvidia-smi 的读数可能接近 {card}（vramfit 的 total {total} 含逐层收集下分配器缓存的余量）：PyTorch 的缓存分配器在报告内存不足之前会释放缓存块并重试，所以这部分缓存并非必需。"
            ),
        );
    }

    /// Why a run whose engine starts does not fit as asked: its pool holds fewer requests of
    /// max_model_len at once than `batch`, and the card that holds them all (`m_theory`).
    pub(super) fn pool_below_batch(&self, sp: ServePool, m_theory: u64) -> Difference {
        let (en, zh) = if !self.text {
            (String::new(), String::new())
        } else {
            let held = fixed(sp.concurrency, 2);
            // The context as the engine names it: max_model_len, context_length, max_seq_len.
            let setting = match self.rules().context {
                Context::PerSequence { setting } => setting,
                _ => "max_model_len",
            };
            let (engine, len, batch, need) = (
                self.rules().name,
                thousands(self.max_model_len),
                self.batch,
                b(m_theory),
            );
            let (requests, copies) = (self.requests, self.copies);
            if copies > 1 {
                (
                    en!(
                        "{engine} starts, but each of its {copies} copies' KV pool holds {held} of its {batch} sequences of {setting} {len} ({requests} asked for at once over the copies); the rest wait in its queue. All {requests} at once need cards of {need} each, or fewer or shorter sequences, an fp8 KV cache or more copies."
                    ),
                    zh!(
                        "{engine} 可以启动，但 {copies} 份副本各自的 KV 池同时只能容纳其分到的 {batch} 条 {setting} {len} 序列中的 {held} 条（共要求同时 {requests} 条），其余在队列中等待。要同时容纳全部 {requests} 条，每张卡需要 {need} 显存，或更少、更短的序列、fp8 KV 缓存或更多副本。"
                    ),
                )
            } else {
                (
                    en!(
                        "{engine} starts, but its KV pool holds {held} of the {batch} sequences of {setting} {len} asked for at once; the rest wait in its queue. All {batch} at once need a card of {need}, or fewer or shorter sequences, an fp8 KV cache or more GPUs."
                    ),
                    zh!(
                        "{engine} 可以启动，但 KV 池同时只能容纳要求的 {batch} 条 {setting} {len} 序列中的 {held} 条，其余在队列中等待。要同时容纳全部 {batch} 条，需要 {need} 显存的显卡，或更少、更短的序列、fp8 KV 缓存或更多 GPU。"
                    ),
                )
            }
        };
        Difference {
            key: String::from("kv_pool_below_batch"),
            en,
            zh,
        }
    }

    /// llama.cpp's and Ollama's layers on the GPU (the output layer counting) for the speed
    /// under offload: Ollama's own decision where it made one; `None` for the other engines.
    #[cfg(feature = "speed")]
    pub(super) fn speed_gpu_layers(&self, ollama: Option<&OllamaLoad>) -> Option<u64> {
        if !self.rules().offload.splits_layers() || !self.arch.is_detailed() {
            return None;
        }
        Some(ollama.map_or(self.gpu_layers, |o| o.gpu_layers))
    }

    /// The note on the speed of a run with weights in CPU memory: the host memory it was timed
    /// with (and that it was assumed, when the input names none), or why there is no speed.
    #[cfg(feature = "speed")]
    pub(super) fn speed_note(&self, parts: &mut Parts, cpu_layers: u64, gpu_layers: Option<u64>) {
        use crate::host::HostChoice;
        let Some(split) = gpu_layers.and_then(|g| self.offload_split(g)) else {
            return;
        };
        if !self.text || self.device.as_ref().and_then(|d| d.gpu).is_none() {
            return;
        }
        let all = self.arch.num_layers + 1;
        if self.offload_unmodelled() {
            parts.note(
                "speed_cpu_layers",
                en!("No speed estimate: {cpu_layers} of the {all} layers (the output layer counting as one) or some blocks' experts are in CPU memory, on several GPUs or on memory the CPU shares with the GPU, which vramfit's speed model does not time. With every layer on one GPU the card's speed applies."),
                zh!("不估算速度：{all} 层中有 {cpu_layers} 层（输出层算一层）或部分块的专家留在 CPU 内存，且分布在多张 GPU 上或 CPU 与 GPU 共享内存，vramfit 的速度模型不计这种情形。全部层都在一张 GPU 上时才适用显卡的速度。"),
            );
            return;
        }
        let gb = |b: u64| crate::units::fixed(b as f64 / 1e9, 1);
        let (cpu, bw) = (
            gb(split.cpu_dense.saturating_add(split.cpu_expert)),
            gb(self.host.bandwidth_bytes_per_s()),
        );
        let mbu = crate::units::fixed(crate::throughput::efficiency::host_mbu(self.host.kind()), 2);
        let (host_en, host_zh) = match self.host {
            HostChoice::Catalog(h) => (
                alloc::format!("{} ({bw} GB/s)", h.name),
                alloc::format!("{}（{bw} GB/s）", h.name),
            ),
            HostChoice::Given(_) => (
                alloc::format!(
                    "host_bandwidth {bw} GB/s, read at the lowest host class's share since a bandwidth alone does not say the platform (name it with host_memory for its own)"
                ),
                alloc::format!(
                    "host_bandwidth {bw} GB/s；仅给带宽无法判断平台，按各主机类别中最低的比例计（用 host_memory 指明平台可得其自身比例）"
                ),
            ),
            HostChoice::Assumed(h) => (
                alloc::format!(
                    "{} ({bw} GB/s), assumed: none was given; set host_memory or host_bandwidth (a DDR4-3200 desktop has 51.2 GB/s and decodes the CPU's part about 40 % slower)",
                    h.name
                ),
                alloc::format!(
                    "{}（{bw} GB/s），为假定值：未给出主机内存；请设置 host_memory 或 host_bandwidth（DDR4-3200 台式机为 51.2 GB/s，CPU 部分的解码约慢 40 %）",
                    h.name
                ),
            ),
        };
        let (experts, blocks) = (split.expert_blocks, self.arch.num_layers);
        let (what_en, what_zh) = match (cpu_layers > 0, experts > 0) {
            (true, true) => (
                alloc::format!(
                    "{cpu_layers} of the {all} layers, the output layer counting as one, and the routed experts of {experts} more blocks, --n-cpu-moe"
                ),
                alloc::format!(
                    "{all} 层中的 {cpu_layers} 层，输出层算一层，以及另外 {experts} 个块的路由专家，--n-cpu-moe"
                ),
            ),
            (false, true) => (
                alloc::format!(
                    "the routed experts of {experts} of the {blocks} blocks, --n-cpu-moe"
                ),
                alloc::format!("{blocks} 个块中 {experts} 个块的路由专家，--n-cpu-moe"),
            ),
            _ => (
                alloc::format!(
                    "{cpu_layers} of the {all} layers, the output layer counting as one"
                ),
                alloc::format!("{all} 层中的 {cpu_layers} 层，输出层算一层"),
            ),
        };
        parts.note(
            "speed_cpu_layers",
            en!("{cpu} GB of weights are in CPU memory ({what_en}): a token reads what it uses of them at {mbu} of the host memory's peak, {host_en}; a prompt batch of 32 tokens or more copies them to the GPU over PCIe once per ubatch (llama.cpp's op offload)."),
            zh!("有 {cpu} GB 权重留在 CPU 内存（{what_zh}）：每个 token 按主机内存峰值带宽的 {mbu} 读取其中用到的部分，{host_zh}；32 个 token 及以上的提示批处理每个 ubatch 经 PCIe 把它们复制到 GPU 一次（llama.cpp 的算子卸载）。"),
        );
    }

    /// Why the pool does not fit, as the engine that sizes it refuses (or cuts) it.
    // `kv_per_token` reads TensorRT-LLM's pool in tokens, in a build with it.
    #[cfg_attr(not(feature = "trtllm"), allow(unused_variables))]
    pub(super) fn pool_reason(&self, sp: ServePool, kv_per_token: u64) -> Difference {
        let (en, zh) = if !self.text {
            (String::new(), String::new())
        } else {
            match sp.budget {
                PoolBudget::MemFractionStatic => (
                    en!(
                        "mem_fraction_static {} leaves {} for the token pool, less than one token's {}: SGLang would refuse to start (not enough memory). Raise mem_fraction_static, use an fp8 KV cache or a larger card.",
                        fixed(self.mem_fraction_static, 3),
                        b(sp.available),
                        b(sp.request)
                    ),
                    zh!(
                        "mem_fraction_static {} 只给 token 池留下 {}，不够一个 token 的 {}：SGLang 将拒绝启动（显存不足）。请提高 mem_fraction_static、使用 fp8 KV 缓存或更大的显卡。",
                        fixed(self.mem_fraction_static, 3),
                        b(sp.available),
                        b(sp.request)
                    ),
                ),
                #[cfg(feature = "trtllm")]
                PoolBudget::FreeFraction => {
                    // The pool in tokens, the length TensorRT-LLM cuts max_seq_len to.
                    let tokens = thousands(sp.available / kv_per_token.max(1));
                    let len = thousands(self.max_model_len);
                    (
                        en!(
                            "The KV pool holds {tokens} tokens, fewer than one sequence of max_seq_len {len}: TensorRT-LLM starts but cuts max_seq_len to {tokens} (\"Adjusted max_seq_len\"; --fail_fast_on_attention_window_too_large refuses instead). Lower max_seq_len, raise free_gpu_memory_fraction, use an fp8 KV cache or a larger card."
                        ),
                        zh!(
                            "KV 池只能容纳 {tokens} 个 token，不够一条 max_seq_len {len} 的序列：TensorRT-LLM 会启动，但把 max_seq_len 缩短到 {tokens}（日志 \"Adjusted max_seq_len\"；加 --fail_fast_on_attention_window_too_large 则拒绝启动）。请降低 max_seq_len、提高 free_gpu_memory_fraction、使用 fp8 KV 缓存或更大的显卡。"
                        ),
                    )
                }
                PoolBudget::Utilization => (
                    en!(
                        "The KV pool has {} of the budget left; one request of max_model_len {} needs {}: vLLM would refuse to start. Lower max_model_len, raise gpu_memory_utilization, use an fp8 KV cache or a larger card.",
                        b(sp.available),
                        thousands(self.max_model_len),
                        b(sp.request)
                    ),
                    zh!(
                        "预算内只剩 {} 给 KV 池；一个 max_model_len {} 的请求需要 {}：vLLM 将拒绝启动。请降低 max_model_len、提高 gpu_memory_utilization、使用 fp8 KV 缓存或更大的显卡。",
                        b(sp.available),
                        thousands(self.max_model_len),
                        b(sp.request)
                    ),
                ),
            }
        };
        Difference {
            key: String::from("kv_pool_too_small"),
            en,
            zh,
        }
    }

    /// The memory already in use on each GPU, named, and what is free for the run; on Apple
    /// silicon, where it is taken from.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(in crate::estimate) fn in_use_note(&self, p: &mut Parts) {
        let Some(d) = self.device.as_ref().filter(|d| d.in_use.get() > 0) else {
            return;
        };
        let (used, free) = (d.in_use.get(), d.free().get());
        if self.in_use_sizes > 1 && !self.cards.is_empty() {
            // One size per card that is not alike: each card's share against its own free.
            let each = |sep: &str| {
                let items: alloc::vec::Vec<String> = self
                    .cards
                    .iter()
                    .map(|c| alloc::format!("{} {}", c.id, b(c.in_use.get())))
                    .collect();
                items.join(sep)
            };
            p.note(
                "memory_in_use",
                en!(
                    "Already in use before the run (memory_in_use: the desktop, a display, other programs): {}; each card's share is said against its own free memory.",
                    each(", ")
                ),
                zh!(
                    "运行前已占用（memory_in_use：桌面、显示器、其他程序）：{}；每张卡的份额按它自己的空闲显存判断。",
                    each("，")
                ),
            );
        } else if self.in_use_sizes > 1 {
            // One size per GPU of alike cards: every rank sizes its pool alike, so the busiest
            // GPU decides for all.
            let n = self.in_use_sizes;
            p.note(
                "memory_in_use",
                en!(
                    "Up to {} is already in use on one of the {n} GPUs before the run (memory_in_use: the desktop, a display, other programs): the GPU with the least free memory decides for every rank, so the run fits in its {} free, not the card's {}.",
                    b(used),
                    b(free),
                    b(d.memory.get())
                ),
                zh!(
                    "运行前 {n} 块 GPU 中最多的一块已占用 {}（memory_in_use：桌面、显示器、其他程序）：空闲最少的 GPU 决定所有进程，所以运行须放进它空闲的 {}，而非显卡的 {}。",
                    b(used),
                    b(free),
                    b(d.memory.get())
                ),
            );
        } else {
            p.note(
                "memory_in_use",
                en!(
                    "{} is already in use on each GPU before the run (memory_in_use: the desktop, a display, other programs): the run fits in the {} free, not the card's {}.",
                    b(used),
                    b(free),
                    b(d.memory.get())
                ),
                zh!(
                    "运行前每块 GPU 已占用 {}（memory_in_use：桌面、显示器、其他程序）：运行须放进空闲的 {}，而非显卡的 {}。",
                    b(used),
                    b(free),
                    b(d.memory.get())
                ),
            );
        }
        // Apple silicon: Metal's working set is a share of the RAM the GPU may wire, which
        // other programs' memory also draws on; vramfit takes it out of the working set.
        if d.gpu.is_some_and(|g| g.generation().apple()) {
            p.note(
                "memory_in_use_apple",
                String::from(en_str!("On Apple silicon the memory other programs hold is taken out of Metal's working set (recommendedMaxWorkingSetSize, or iogpu.wired_limit_mb): the working set is a share of the same unified memory, and what they hold of it is not the run's.")),
                String::from(zh_str!("在 Apple 芯片上，其他程序占用的内存从 Metal 工作集（recommendedMaxWorkingSetSize，或 iogpu.wired_limit_mb）中扣除：工作集是同一块统一内存的一部分，它们占用的部分不归本次运行。")),
            );
        }
    }

    /// vLLM's refusal at start-up: less memory free than `gpu_memory_utilization` asks of the
    /// card, and the largest `gpu_memory_utilization` that starts (free ÷ card, down to the
    /// hundredth, which vLLM's check then passes).
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn start_refused(&self, free: u64, asked: u64) -> Difference {
        let memory = self.device.as_ref().map_or(0, |d| d.memory.get()).max(1);
        let largest = libm::floor(free as f64 / memory as f64 * 100.0) / 100.0;
        // The utilisation asked, from what it asks of the card: a colocated RL rollout's own
        // (`rollout_memory_utilization`), not the training run's setting.
        let util = asked as f64 / memory as f64;
        let (en, zh) = if !self.text {
            (String::new(), String::new())
        } else {
            (
                en!(
                    "vLLM would refuse to start: {} GiB free, {} GiB asked (gpu_memory_utilization {} of the card; \"Free memory on device … on startup is less than desired GPU memory utilization\"). The largest gpu_memory_utilization that starts is {}; or free the memory other programs hold.",
                    gib2(free),
                    gib2(asked),
                    fixed(util, 2),
                    fixed(largest, 2)
                ),
                zh!(
                    "vLLM 将拒绝启动：空闲 {} GiB，请求 {} GiB（显存的 gpu_memory_utilization {}；日志 \"Free memory on device … on startup is less than desired GPU memory utilization\"）。能启动的最大 gpu_memory_utilization 为 {}；或释放其他程序占用的显存。",
                    gib2(free),
                    gib2(asked),
                    fixed(util, 2),
                    fixed(largest, 2)
                ),
            )
        };
        Difference {
            key: String::from("vllm_free_memory_short"),
            en,
            zh,
        }
    }

    /// Why Ollama's load fails: the layers it places on the GPU (none, where llama-server's fit
    /// finds no layer that leaves its margin free) and the buffers that stay there (the CUDA
    /// context, the compute buffer) need more than is free, so the load runs out of memory.
    pub(super) fn offload_out_of_memory(
        &self,
        o: &OllamaLoad,
        needed: u64,
        free: u64,
    ) -> Difference {
        Difference {
            key: String::from("ollama_out_of_memory"),
            en: if !self.text {
                String::new()
            } else {
                en!(
                    "The load runs out of GPU memory: with {} of the {} layers on the GPU, the GPU still needs {} (the CUDA context and compute buffer stay there) and {} is free, so Ollama reports an out-of-memory error rather than running on the CPU. Free memory on the card, or lower num_ctx.",
                    o.gpu_layers,
                    o.requested_layers,
                    b(needed),
                    b(free)
                )
            },
            zh: if !self.text {
                String::new()
            } else {
                zh!(
                    "加载会显存不足：{} 层中只有 {} 层在 GPU 上时，GPU 仍需 {}（CUDA 上下文和计算缓冲区留在 GPU），而空闲仅 {}，因此 Ollama 报显存不足错误，而不是在 CPU 上运行。请释放显卡上的显存，或降低 num_ctx。",
                    o.requested_layers,
                    o.gpu_layers,
                    b(needed),
                    b(free)
                )
            },
        }
    }

    /// Why Ollama's load does not fit: layers on the CPU.
    pub(super) fn offload_reason(&self, o: &OllamaLoad, m_theory: u64) -> Difference {
        Difference {
            key: String::from("ollama_partial_offload"),
            en: if !self.text {
                String::new()
            } else {
                en!(
                    "Ollama puts {} of the {} layers asked for on the GPU and runs the rest on the CPU ({}% of its estimate), much slower. All of them on the GPU need {} of free memory.",
                    o.gpu_layers,
                    o.requested_layers,
                    o.cpu_percent,
                    b(m_theory)
                )
            },
            zh: if !self.text {
                String::new()
            } else {
                zh!(
                    "Ollama 把要求的 {} 层中的 {} 层放到 GPU，其余在 CPU 上运行（占其估算的 {}%），速度慢得多。全部放在 GPU 上需要 {} 空闲显存。",
                    o.requested_layers,
                    o.gpu_layers,
                    o.cpu_percent,
                    b(m_theory)
                )
            },
        }
    }
}
