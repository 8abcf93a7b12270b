//! Errors of TensorFlow, JAX, vLLM and llama.cpp.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Verdict, a, build, tokens};
use crate::diagnose::llamacpp::{LlamaCppError, LlamaCppStage};
use crate::diagnose::tfjax::{JaxOom, TensorflowOom};
use crate::diagnose::vllm::{VllmError, VllmErrorKind};
use crate::diagnose::{Confidence, Diagnosis, Evidence, InputFormat, Kind, Parsed, Text};

pub(super) fn from_tf(t: TensorflowOom, ev: Vec<Evidence>, driver_failures: usize) -> Diagnosis {
    let req = t.requested.or(t.tensor_bytes);
    let mut v = match (req, t.limit, t.in_use) {
        // Only StreamExecutor's failed cuMemAlloc lines: the allocator growing its pool.
        (Some(r), None, _) if driver_failures > 0 => {
            let mut v = Verdict::new(
                Kind::Capacity,
                "capacity_peak",
                Confidence::Low,
                Text::new(
                    format!(
                        "TensorFlow's allocator could not get {} from the driver (cuMemAlloc failed; {} such line(s), the last one read). It retries with 90 % of the size each time and carries on if a smaller pool is enough, so this is fatal only when `OOM when allocating tensor` follows; then the card is full: the job's peak needs more than the card, or another process holds part of it (`nvidia-smi`).",
                        a(r),
                        driver_failures
                    ),
                    format!(
                        "TensorFlow 的分配器未能从驱动获得 {}（cuMemAlloc 失败；共 {} 行，已读取最后一行）。它每次以 90% 的大小重试，较小的内存池够用时会继续运行，因此只有后面出现 `OOM when allocating tensor` 时才是致命的；那时显卡已满：作业峰值超过显卡容量，或有其他进程占用了一部分（`nvidia-smi`）。",
                        a(r),
                        driver_failures
                    ),
                ),
            );
            v.fixes.push("stop_other_processes");
            v.paste = Some(Text::new(
                "Paste the rest of the log: the `OOM when allocating tensor with shape[…]` line and the BFC allocator's statistics (`Limit:`, `InUse:`), if TensorFlow stopped.",
                "如果 TensorFlow 中止了，请粘贴日志的其余部分：`OOM when allocating tensor with shape[…]` 这一行以及 BFC 分配器的统计信息（`Limit:`、`InUse:`）。",
            ));
            v
        }
        (Some(r), Some(l), _) if r > l => Verdict::new(
            Kind::Capacity,
            "capacity_static",
            Confidence::High,
            Text::new(
                format!(
                    "The tensor ({}) is larger than all the memory TensorFlow may use on this GPU ({}).",
                    a(r),
                    a(l)
                ),
                format!(
                    "该张量（{}）超过了 TensorFlow 在此 GPU 上可用的全部显存（{}）。",
                    a(r),
                    a(l)
                ),
            ),
        ),
        (Some(r), Some(l), Some(u)) if l.minus(u) >= r => {
            let mut v = Verdict::new(
                Kind::Fragmentation,
                "fragmentation",
                Confidence::Medium,
                Text::new(
                    format!(
                        "The BFC allocator had {} free in its {} pool — at least the {} requested — but no free chunk that large: the pool is fragmented.",
                        a(l.minus(u)),
                        a(l),
                        a(r)
                    ),
                    format!(
                        "BFC 分配器的 {} 内存池中还有 {} 空闲，不少于申请的 {}，但没有足够大的连续块：内存池碎片化。",
                        a(l),
                        a(l.minus(u)),
                        a(r)
                    ),
                ),
            );
            v.fixes.push("tf_cuda_malloc_async");
            v.fixes.push("pad_shapes");
            v
        }
        (Some(r), _, _) => {
            let mut v = Verdict::new(
                Kind::Capacity,
                "capacity_peak",
                if t.limit.is_some() {
                    Confidence::Medium
                } else {
                    Confidence::Low
                },
                Text::new(
                    format!(
                        "TensorFlow could not fit a {} tensor: the model's live tensors fill the GPU at this step. Shrink the step (batch, input size) or the model's precision.",
                        a(r)
                    ),
                    format!(
                        "TensorFlow 放不下一个 {} 的张量：这一步的存活张量已占满 GPU。请缩小单步（batch、输入尺寸）或降低模型精度。",
                        a(r)
                    ),
                ),
            );
            if t.limit.is_none() {
                v.paste = Some(Text::new(
                    "Paste the BFC allocator's statistics from the log too (`Limit:`, `InUse:`, `MaxInUse:`) to tell capacity from fragmentation.",
                    "请一并粘贴日志中 BFC 分配器的统计信息（`Limit:`、`InUse:`、`MaxInUse:`），以区分容量型与碎片型。",
                ));
            }
            v
        }
        (None, _, _) => {
            let mut v = Verdict::new(
                Kind::Capacity,
                "capacity_peak",
                Confidence::Low,
                Text::new(
                    "TensorFlow ran out of GPU memory; the text does not say how much was requested.",
                    "TensorFlow 显存不足；文本中没有申请量。",
                ),
            );
            v.paste = Some(Text::new(
                "Paste the line `OOM when allocating tensor with shape[…] and type …` and the BFC allocator's statistics.",
                "请粘贴 `OOM when allocating tensor with shape[…] and type …` 这一行以及 BFC 分配器的统计信息。",
            ));
            v
        }
    };
    v.fixes.insert(0, "tf_memory_growth");
    build(InputFormat::TensorflowOom, v, ev, Parsed::TensorflowOom(t))
}

pub(super) fn from_jax(j: JaxOom, ev: Vec<Evidence>) -> Diagnosis {
    let req = j.requested.map_or(String::new(), |r| format!(" {}", a(r)));
    let plan_en = j.total_allocation.map_or(String::new(), |t| {
        format!(" XLA planned {} for this program.", a(t))
    });
    let plan_zh = j
        .total_allocation
        .map_or(String::new(), |t| format!("XLA 为该程序规划了 {}。", a(t)));
    let mut v = Verdict::new(
        Kind::Capacity,
        "capacity_peak",
        if j.requested.is_some() {
            Confidence::Medium
        } else {
            Confidence::Low
        },
        Text::new(
            format!(
                "XLA could not allocate{req}.{plan_en} By default JAX preallocates 75 % of the GPU and must fit everything in it; XLA plans buffers at compile time, so this is the program's peak, not a leak."
            ),
            format!(
                "XLA 无法分配{req}。{plan_zh}JAX 默认预分配 GPU 的 75%，所有数据都要放进这部分；XLA 在编译时规划缓冲区，因此这是程序的峰值需求，而非泄漏。"
            ),
        ),
    );
    v.fixes.insert(0, "jax_mem_fraction");
    build(InputFormat::JaxOom, v, ev, Parsed::JaxOom(j))
}

pub(super) fn from_vllm(x: VllmError, ev: Vec<Evidence>) -> Diagnosis {
    let (en, zh, fixes): (String, String, &[&'static str]) = match x.kind {
        VllmErrorKind::MaxSeqLenOverKvTokens => {
            let (m, k) = (
                x.max_model_len.map_or(String::from("?"), tokens),
                x.kv_cache_tokens.map_or(String::from("?"), tokens),
            );
            (
                format!(
                    "The model's max_model_len ({m} tokens) is longer than the KV cache can hold ({k} tokens): one full-length request would not fit. Set `--max-model-len {k}` or less, or free memory for the KV pool."
                ),
                format!(
                    "模型的 max_model_len（{m} tokens）超过了 KV cache 能容纳的长度（{k} tokens）：一个满长度请求都放不下。请设置 `--max-model-len {k}` 或更小，或为 KV 池腾出显存。"
                ),
                &[
                    "vllm_max_model_len",
                    "vllm_gpu_memory_utilization",
                    "vllm_kv_fp8",
                    "vllm_tensor_parallel",
                ],
            )
        }
        VllmErrorKind::KvCacheTooSmall => {
            let need = x.kv_needed.map_or(String::from("?"), a);
            let have = x.kv_available.map_or(String::from("?"), a);
            let m = x.max_model_len.map_or(String::from("?"), tokens);
            let est_en = x.estimated_max_model_len.map_or(String::new(), |e| {
                format!(" vLLM estimates that {e} tokens would fit: `--max-model-len {e}`.")
            });
            let est_zh = x.estimated_max_model_len.map_or(String::new(), |e| {
                format!("vLLM 估计可容纳 {e} tokens：`--max-model-len {e}`。")
            });
            (
                format!(
                    "One request at max_model_len ({m} tokens) needs {need} of KV cache, but only {have} is left for it after the weights and activations.{est_en}"
                ),
                format!(
                    "一个 max_model_len（{m} tokens）的请求需要 {need} 的 KV cache，但除去权重和激活后只剩 {have}。{est_zh}"
                ),
                &[
                    "vllm_max_model_len",
                    "vllm_kv_fp8",
                    "vllm_gpu_memory_utilization",
                    "vllm_tensor_parallel",
                ],
            )
        }
        VllmErrorKind::FreeMemoryBelowUtilization => {
            let free = x.free_on_startup.map_or(String::from("?"), a);
            let total = x.total.map_or(String::from("?"), a);
            let u = x
                .gpu_memory_utilization
                .map_or(String::from("?"), |u| format!("{u}"));
            let want = x.utilization_bytes.map_or(String::from("?"), a);
            (
                format!(
                    "Only {free} of {total} is free at start-up, but gpu_memory_utilization {u} asks vLLM to take {want}: another process (or a previous vLLM instance) holds the rest. Stop it, or lower `--gpu-memory-utilization` below the free share."
                ),
                format!(
                    "启动时 {total} 中只有 {free} 空闲，而 gpu_memory_utilization {u} 要求 vLLM 占用 {want}：其余显存被其他进程（或之前的 vLLM 实例）占用。请停止该进程，或把 `--gpu-memory-utilization` 调低到空闲比例以下。"
                ),
                &["stop_other_processes", "vllm_gpu_memory_utilization"],
            )
        }
        VllmErrorKind::NoCacheBlocks => (
            String::from(
                "After loading the weights and profiling one forward pass, nothing of the gpu_memory_utilization budget is left for the KV cache: the weights (plus activations) already fill it. Raise the budget if the card has room, or shrink the weights (quantization, tensor parallel).",
            ),
            String::from(
                "加载权重并剖析一次前向计算后，gpu_memory_utilization 预算中已没有留给 KV cache 的空间：权重（加上激活）已将其占满。若显卡仍有余量可提高预算，否则需缩小权重（量化、张量并行）。",
            ),
            &[
                "vllm_gpu_memory_utilization",
                "vllm_max_num_seqs",
                "quantization",
                "vllm_tensor_parallel",
            ],
        ),
    };
    let mut v = Verdict::new(
        Kind::Capacity,
        "capacity_static",
        Confidence::High,
        Text::new(en, zh),
    );
    v.fixes.extend_from_slice(fixes);
    build(InputFormat::VllmError, v, ev, Parsed::VllmError(x))
}

pub(super) fn from_llamacpp(l: LlamaCppError, ev: Vec<Evidence>) -> Diagnosis {
    let req = l
        .requested
        .map_or(String::new(), |r| format!(" ({})", a(r)));
    let (leaf_id, conf, en, zh, fixes): (
        &'static str,
        Confidence,
        String,
        String,
        &[&'static str],
    ) = match l.stage {
        LlamaCppStage::Weights => (
            "capacity_static",
            Confidence::High,
            format!(
                "The weights of the offloaded layers{req} do not fit on the GPU. Offload fewer layers (`-ngl`), the rest runs on the CPU, or use a smaller quant."
            ),
            format!(
                "卸载到 GPU 的层的权重{req}放不下。请减少卸载层数（`-ngl`），其余层在 CPU 上运行，或使用更小的量化版本。"
            ),
            &["llamacpp_ngl", "quantization", "llamacpp_ctx"],
        ),
        LlamaCppStage::KvCache => (
            "capacity_static",
            Confidence::High,
            format!(
                "The KV cache{req} does not fit next to the weights: it grows with the context (`-c`). Use a smaller context or a quantized KV cache."
            ),
            format!(
                "KV cache{req}与权重放不到一起：它随上下文长度（`-c`）增长。请减小上下文或量化 KV cache。"
            ),
            &["llamacpp_ctx", "llamacpp_kv_quant", "llamacpp_ngl"],
        ),
        LlamaCppStage::Compute => (
            "capacity_static",
            Confidence::High,
            format!(
                "The compute buffers{req} do not fit after the weights and KV cache. They grow with the batch sizes (`-b`, `-ub`) and the context."
            ),
            format!(
                "在权重和 KV cache 之后，计算缓冲区{req}放不下。它随批大小（`-b`、`-ub`）和上下文增长。"
            ),
            &["llamacpp_batch", "llamacpp_ctx", "llamacpp_ngl"],
        ),
        LlamaCppStage::HostPinned => return from_llamacpp_pinned(l, ev),
        LlamaCppStage::Unknown => (
            "capacity_static",
            Confidence::Medium,
            format!(
                "A GPU buffer{req} could not be allocated while loading. Reduce what is placed on the GPU: layers (`-ngl`), context (`-c`), batch (`-ub`)."
            ),
            format!(
                "加载时无法分配 GPU 缓冲区{req}。请减少放在 GPU 上的内容：层数（`-ngl`）、上下文（`-c`）、批大小（`-ub`）。"
            ),
            &["llamacpp_ngl", "llamacpp_ctx", "llamacpp_batch"],
        ),
    };
    let mut v = Verdict::new(Kind::Capacity, leaf_id, conf, Text::new(en, zh));
    v.fixes.extend_from_slice(fixes);
    build(InputFormat::LlamacppError, v, ev, Parsed::LlamacppError(l))
}

/// llama.cpp's `ggml_cuda_host_malloc: failed to allocate … MiB of pinned memory` with no GPU
/// failure in the log: `cudaMallocHost` (page-locked system RAM, for faster copies) failed, and
/// llama.cpp went on with an ordinary CPU buffer (ggml-cuda logs it and returns no buffer; the
/// caller falls back). Nothing ran out of GPU memory, so there is no GPU verdict.
pub(super) fn from_llamacpp_pinned(l: LlamaCppError, ev: Vec<Evidence>) -> Diagnosis {
    let size = l.requested.map_or(String::new(), |r| format!(" {}", a(r)));
    let (went_on_en, went_on_zh) = match (l.layers_offloaded, l.kv_buffer) {
        (Some((n, m)), Some(kv)) => (
            format!(
                " The log goes on: {n}/{m} layers were offloaded to the GPU and the {} KV buffer was allocated there.",
                a(kv)
            ),
            format!(
                "日志随后显示：{n}/{m} 层已卸载到 GPU，{} 的 KV 缓冲区也已在 GPU 上分配。",
                a(kv)
            ),
        ),
        (Some((n, m)), None) => (
            format!(" The log goes on: {n}/{m} layers were offloaded to the GPU."),
            format!("日志随后显示：{n}/{m} 层已卸载到 GPU。"),
        ),
        _ => (String::new(), String::new()),
    };
    let mut v = Verdict::new(
        Kind::Unknown,
        "host_memory",
        Confidence::Low,
        Text::new(
            format!(
                "Not a GPU out-of-memory error: llama.cpp could not get{size} of pinned (page-locked) system RAM, a warning it recovers from by using an ordinary CPU buffer instead (only host-to-GPU copies are slower).{went_on_en} Free system RAM, or set `GGML_CUDA_NO_PINNED=1` to skip pinning and the warning."
            ),
            format!(
                "这不是显存不足错误：llama.cpp 未能申请到{size}的锁页（page-locked）系统内存。这只是警告，llama.cpp 会改用普通 CPU 缓冲区继续运行（仅主机到 GPU 的拷贝变慢）。{went_on_zh}可释放系统内存，或设置 `GGML_CUDA_NO_PINNED=1` 跳过锁页并消除该警告。"
            ),
        ),
    );
    v.paste = Some(Text::new(
        "If llama.cpp did stop, paste the log up to its last line: the error it stopped on (`failed to allocate CUDA0 buffer`, `failed to create context`, …) tells what ran out.",
        "如果 llama.cpp 确实中止了，请粘贴直到最后一行的日志：导致中止的错误（`failed to allocate CUDA0 buffer`、`failed to create context` 等）说明了是什么不足。",
    ));
    build(InputFormat::LlamacppError, v, ev, Parsed::LlamacppError(l))
}
