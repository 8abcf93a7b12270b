//! From the parts to the estimate: the allocator's reserve, the peak `max_memory_allocated`
//! would report, the total `nvidia-smi` would show, the guide's recommendation and the fit.

use super::parts::PoolBudget;
use super::{
    ComponentKind, Difference, Estimate, Fit, Group, Mode, Offload, Parts, PeakSource, Phase,
    Precision, Required, Run, b, m_rec, quick, thousands,
};
use crate::precision::Dtype;
use crate::units::{Bytes, MIB, fixed};
use alloc::string::String;

impl Run<'_> {
    pub(super) fn finish(
        &self,
        mut parts: Parts,
        phase: Phase,
        trainable: u64,
        cpu: u64,
    ) -> Estimate {
        let a = &self.arch;
        // ZeRO-Infinity's NVMe offload keeps the partitions on the drive, not in CPU memory.
        let (cpu, nvme) = if self.mode == Mode::Training && self.offload == Offload::Nvme {
            (0, cpu)
        } else {
            (cpu, 0)
        };
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
        let rules = self.rules();
        // llama.cpp has no PyTorch allocator: no reserve, and its peak is its own buffers.
        let is_llamacpp = rules.peak == PeakSource::Llamacpp;
        // Allocator reserve: the caching allocator keeps freed blocks of the transient tensors
        // (activations, logits, temporaries) cached; about 5 % of them plus 2 MiB rounding per
        // block-sized weight tensor is reserved-but-unallocated at the peak.
        let transient = parts.sum_where(ComponentKind::is_transient);
        let reserve = if is_llamacpp {
            0
        } else {
            (transient / 20).saturating_add(a.num_layers.saturating_mul(MIB))
        };
        if !is_llamacpp {
            parts.add(
            ComponentKind::AllocatorReserve,
            reserve,
            false,
            {
                formula!(self.text;
                    let (t, blocks, size) = (b(transient), a.num_layers, b(reserve));
                    ["5 % of transient tensors ({t}) + 1 MiB rounding × {blocks} blocks = {size}"],
                    ["5 % 的临时张量 ({t}) + 1 MiB 取整 × {blocks} 块 = {size}"]
                )
            },
            en_str!("Reserved by PyTorch's caching allocator but not allocated: counted by nvidia-smi, not by max_memory_allocated."),
            zh_str!("PyTorch 缓存分配器已保留但未分配：nvidia-smi 计入，max_memory_allocated 不计。"),
            );
        }
        // llama.cpp's "allocated" peak is its own buffers (weights, KV, compute).
        let peak_allocated = if is_llamacpp {
            parts.sum_where(ComponentKind::is_llamacpp_buffer)
        } else {
            parts.peak.unwrap_or(torch)
        };
        // llama.cpp's buffers are all outside PyTorch, so its total is the non-torch sum alone.
        let total = if is_llamacpp {
            non_torch
        } else {
            peak_allocated
                .saturating_add(reserve)
                .saturating_add(non_torch)
        };
        let tokens = parts.serve_tokens;
        let temporaries = parts.sum_where(|k| k.group() == Group::Temporaries);
        let overhead = parts.sum_where(|k| k.group() == Group::Overhead);
        let layers_here = a.num_layers.div_ceil(self.pp);
        let kv_per_token = if a.is_generative() {
            self.kv_bytes(1, 1, layers_here, rules.decompressed_mla).0
        } else {
            0
        };
        // The guide's b for training is the precision the weights are held in: 4 B in fp32.
        let quick_dtype = if self.mode == Mode::Training && self.precision == Precision::Fp32 {
            Dtype::Fp32
        } else {
            self.dtype
        };
        let params = a.params();
        let quick = quick::quick(
            self.text,
            params,
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
        );
        let m_theory = parts
            .theory
            .unwrap_or(if is_llamacpp { total } else { peak_allocated });
        // Serving fits when vLLM starts, i.e. its pool holds one request of max_model_len
        // (`check_enough_kv_cache_memory`; more requests than the pool holds wait in the queue),
        // and the process fits the card.
        let pool = parts.serve_pool;
        let pool_ok = pool.is_none_or(|sp| sp.available >= sp.request);
        if let Some(sp) = pool
            && self.text
            && pool_ok
            && sp.concurrency < self.batch as f64
        {
            let held = fixed(sp.concurrency, 2);
            let engine = rules.name;
            parts.note(
                "kv_pool_queues",
                en!("The KV pool holds {} requests of max_model_len {} at once, fewer than batch {}: {engine} starts and queues the rest.", held, thousands(self.max_model_len), self.batch),
                zh!("KV 池同时只能容纳 {} 个 max_model_len {} 的请求，少于 batch {}：{engine} 照常启动，其余请求排队。", held, thousands(self.max_model_len), self.batch),
            );
        }
        // Ollama fits when its own estimate puts the whole model on the GPUs; otherwise it runs,
        // split between the CPU and the GPUs.
        let ollama = parts.ollama.clone();
        let partial = ollama
            .as_ref()
            .filter(|o| o.gpu_layers < o.requested_layers);
        let fit = self.device.as_ref().map(|d| Fit {
            gpu: d.id.clone(),
            memory_bytes: d.memory,
            fits: total <= d.memory.get() && pool_ok && partial.is_none(),
            reason: match (pool.filter(|_| !pool_ok), partial) {
                (Some(sp), _) if sp.budget == PoolBudget::MemFractionStatic => Some(Difference {
                    key: String::from("kv_pool_too_small"),
                    en: if !self.text { String::new() } else { en!("mem_fraction_static {} leaves {} for the token pool, less than one token's {}: SGLang would refuse to start (not enough memory). Raise mem_fraction_static, use an fp8 KV cache or a larger card.", fixed(self.mem_fraction_static, 3), b(sp.available), b(sp.request)) },
                    zh: if !self.text { String::new() } else { zh!("mem_fraction_static {} 只给 token 池留下 {}，不够一个 token 的 {}：SGLang 将拒绝启动（显存不足）。请提高 mem_fraction_static、使用 fp8 KV 缓存或更大的显卡。", fixed(self.mem_fraction_static, 3), b(sp.available), b(sp.request)) },
                }),
                (Some(sp), _) if sp.budget == PoolBudget::FreeFraction => Some(Difference {
                    key: String::from("kv_pool_too_small"),
                    en: if !self.text { String::new() } else { en!("The KV pool holds {} tokens, fewer than one sequence of max_seq_len {}: TensorRT-LLM starts but cuts max_seq_len to {} (\"Adjusted max_seq_len\"; --fail_fast_on_attention_window_too_large refuses instead). Lower max_seq_len, raise free_gpu_memory_fraction, use an fp8 KV cache or a larger card.", thousands(sp.available / kv_per_token.max(1)), thousands(self.max_model_len), thousands(sp.available / kv_per_token.max(1))) },
                    zh: if !self.text { String::new() } else { zh!("KV 池只能容纳 {} 个 token，不够一条 max_seq_len {} 的序列：TensorRT-LLM 会启动，但把 max_seq_len 缩短到 {}（日志 \"Adjusted max_seq_len\"；加 --fail_fast_on_attention_window_too_large 则拒绝启动）。请降低 max_seq_len、提高 free_gpu_memory_fraction、使用 fp8 KV 缓存或更大的显卡。", thousands(sp.available / kv_per_token.max(1)), thousands(self.max_model_len), thousands(sp.available / kv_per_token.max(1))) },
                }),
                (Some(sp), _) => Some(Difference {
                    key: String::from("kv_pool_too_small"),
                    en: if !self.text { String::new() } else { en!("The KV pool has {} of the budget left; one request of max_model_len {} needs {}: vLLM would refuse to start. Lower max_model_len, raise gpu_memory_utilization, use an fp8 KV cache or a larger card.", b(sp.available), thousands(self.max_model_len), b(sp.request)) },
                    zh: if !self.text { String::new() } else { zh!("预算内只剩 {} 给 KV 池；一个 max_model_len {} 的请求需要 {}：vLLM 将拒绝启动。请降低 max_model_len、提高 gpu_memory_utilization、使用 fp8 KV 缓存或更大的显卡。", b(sp.available), thousands(self.max_model_len), b(sp.request)) },
                }),
                (None, Some(o)) => Some(Difference {
                    key: String::from("ollama_partial_offload"),
                    en: if !self.text { String::new() } else { en!("Ollama puts {} of the {} layers asked for on the GPU and runs the rest on the CPU ({}% of its estimate), much slower. All of them on the GPU need {} of free memory.", o.gpu_layers, o.requested_layers, o.cpu_percent, b(m_theory)) },
                    zh: if !self.text { String::new() } else { zh!("Ollama 把要求的 {} 层中的 {} 层放到 GPU，其余在 CPU 上运行（占其估算的 {}%），速度慢得多。全部放在 GPU 上需要 {} 空闲显存。", o.requested_layers, o.gpu_layers, o.cpu_percent, b(m_theory)) },
                }),
                (None, None) => None,
            },
            headroom_bytes: d.memory.minus(Bytes::new(total)),
            shortfall_bytes: Bytes::new(total).minus(d.memory),
        });
        // llama.cpp with layers on the CPU generates at the pace of the CPU's memory for them,
        // which the speed model, a GPU's roofline, does not know: no speed, and a note says why.
        #[cfg(feature = "speed")]
        let cpu_layers = if !is_llamacpp || !a.is_detailed() || self.device.is_none() {
            0
        } else if let Some(o) = &ollama {
            o.model_layers.saturating_sub(o.gpu_layers)
        } else {
            (a.num_layers + 1).saturating_sub(self.gpu_layers)
        };
        #[cfg(feature = "speed")]
        if cpu_layers > 0 && self.text {
            let all = a.num_layers + 1;
            parts.note(
                "speed_cpu_layers",
                en!("No speed estimate: {cpu_layers} of the {all} layers (the output layer counting as one) run on the CPU, and generation then goes at the pace of the CPU's memory, which vramfit does not know. With every layer on the GPU the card's speed applies."),
                zh!("不估算速度：{all} 层中有 {cpu_layers} 层（输出层算一层）在 CPU 上运行，生成速度取决于 CPU 内存的带宽，vramfit 无从得知。全部层都在 GPU 上时才适用显卡的速度。"),
            );
        }
        let differences = self.differences(&quick, &parts);
        // To the hundredth, as vLLM logs it (and a short decimal survives any JSON reader).
        let concurrency = match pool {
            Some(sp) => Some(sp.concurrency),
            None => tokens.map(|t| t as f64 / self.max_model_len.max(1) as f64),
        };
        let max_concurrency_exact = concurrency.map(|c| libm::floor(c * 100.0) / 100.0);
        Estimate {
            model: self.model_name.clone(),
            params,
            active_params: a.active_params(),
            trainable_params: trainable,
            weights_bytes: Bytes::new(parts.get(ComponentKind::Weights)),
            kv_cache_bytes: Bytes::new(parts.get(ComponentKind::KvCache)),
            activations_bytes: Bytes::new(parts.get(ComponentKind::Activations)),
            gradients_bytes: Bytes::new(parts.get(ComponentKind::Gradients)),
            optimizer_bytes: Bytes::new(parts.get(ComponentKind::Optimizer)),
            temporaries_bytes: Bytes::new(temporaries),
            overhead_bytes: Bytes::new(overhead),
            allocator_reserve_bytes: Bytes::new(reserve),
            peak_phase: phase,
            peak_source: rules.peak,
            peak_allocated_bytes: Bytes::new(peak_allocated),
            total_bytes: Bytes::new(total),
            recommended_bytes: m_rec(Bytes::new(m_theory)),
            required_bytes: Bytes::new(match rules.required {
                Required::Theory => m_theory,
                Required::Total => total,
            }),
            kv_cache_tokens: tokens,
            max_concurrency: concurrency.map(|c| c as u64),
            max_concurrency_exact,
            kv_bytes_per_token: kv_per_token,
            cpu_bytes: Bytes::new(cpu),
            nvme_bytes: Bytes::new(nvme),
            gpus: self.dp * self.tp * self.pp,
            components: parts.comps,
            quick,
            differences,
            fit,
            #[cfg(feature = "speed")]
            throughput: if cpu_layers > 0 {
                None
            } else {
                self.throughput(trainable)
            },
            #[cfg(not(feature = "speed"))]
            throughput: None,
            notes: parts.notes,
            ollama,
        }
    }
}
