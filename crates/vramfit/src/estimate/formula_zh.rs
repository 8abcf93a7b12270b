//! The estimator's formulas in Chinese: the formulas are built in English with the values in
//! them ([`Component::formula`](super::Component), [`Quick::formula`](super::Quick)); their
//! words are few and fixed, so one phrase table gives the Chinese, with every number, unit and
//! symbol left as it is. The JSON keeps one formula; the site shows this one in Chinese.

use alloc::string::String;

/// English phrases of the formulas and their Chinese, longest first (a test keeps the order), so
/// that a phrase is replaced before any shorter one inside it.
const PHRASES: &[(&str, &str)] = &[
    (
        "foreach step: one state-sized temporary (e.g. sqrt of the second moment)",
        "foreach 步：一个与状态同大小的临时张量（如二阶矩的 sqrt）",
    ),
    (
        " (needs hidden size and layers: give a preset or config.json)",
        "（需要隐藏维度与层数：请选择预设模型或 config.json）",
    ),
    (
        " frames, and each decoder block's cross-attention over them)",
        " 帧，以及每个解码器块对其的交叉注意力)",
    ),
    (
        "Adafactor: factored second moment (row + column per matrix, ",
        "Adafactor：分解的二阶矩（每个矩阵的行 + 列，",
    ),
    (
        " elements alive at the widest point of the forward pass (",
        " 个元素，前向传播最宽处同时存活（",
    ),
    (
        " (none of it exists yet at the peak, the encoder's pass)",
        "（峰值在编码器前向时，此时尚未分配）",
    ),
    (
        "DDP gradient buckets hold a flat copy of the gradients",
        "DDP 梯度桶保存梯度的一份扁平副本",
    ),
    (
        "(measured: NCCL and custom all-reduce buffers at ",
        "(实测：NCCL 与自定义 all-reduce 缓冲，",
    ),
    (
        "non-torch memory growth during the profile run: ",
        "剖析运行期间非 torch 内存的增长：",
    ),
    (
        "activations ≈ 0.2 × weights (10–30 %) = ",
        "激活值 ≈ 0.2 × 权重（10–30 %）= ",
    ),
    (
        " MiB per handle and stream (Hopper or newer)",
        " MiB，每个 handle 与 stream 各一份（Hopper 及更新的架构）",
    ),
    (
        " (no GPU given: the KV the pool must hold)",
        "（未指定显卡：KV 池必须容纳的量）",
    ),
    (
        "CUDA context with lazy module loading: ",
        "CUDA 上下文（模块延迟加载）：",
    ),
    (
        "CUDA context with NCCL communicators: ",
        "CUDA 上下文与 NCCL 通信器：",
    ),
    (
        "; token embeddings stay in CPU memory",
        "；词嵌入留在 CPU 内存",
    ),
    (
        " by prepare_model_for_kbit_training",
        "（prepare_model_for_kbit_training）",
    ),
    (
        " layers and the encoder's output (",
        " 层，以及编码器输出（",
    ),
    (" elements saved for backward × ", " 个为反向保存的元素 × "),
    (
        " max-pooling indices × 8 B) at ",
        " 个最大池化索引 × 8 B)，输入 ",
    ),
    (" values per token per layer × ", " 个值每 token 每层 × "),
    (" + cross-attention K and V of ", " + 交叉注意力 KV："),
    (" unquantized params upcast to ", " 个未量化参数被升为 "),
    (" in the widest op of one block", "，取一个块内最宽的算子"),
    ("largest matrix dequantized to ", "最大的矩阵反量化为 "),
    ("NCCL communicator buffers ≈ ", "NCCL 通信缓冲 ≈ "),
    (" (HF caches MLA decompressed)", "（HF 缓存解压后的 MLA）"),
    (", reduced into CPU partitions", "，归约到 CPU 分区"),
    (" cross-attention frames) × ", " 个交叉注意力帧) × "),
    ("; its own components sum to ", "；指南自身各项之和为 "),
    (" (not a generative decoder)", "（不是生成式解码器）"),
    (" data-parallel ranks (ZeRO-", " 个数据并行 rank (ZeRO-"),
    (" buckets (reduce/allgather ", " 桶 (reduce/allgather "),
    (" + output layer on the GPU", " + 输出层在 GPU 上"),
    (" copy of the last position", " 末位置的副本"),
    (" (blockwise, bitsandbytes)", "（分块，bitsandbytes）"),
    ("CUDA context and cuBLAS: ", "CUDA 上下文与 cuBLAS："),
    (" % of transient tensors (", " % 的临时张量 ("),
    (
        " + an fp32 scale per 256",
        " + fp32 缩放因子（每 256 个一个）",
    ),
    ("fp32 gradient partition ", "fp32 梯度分区 "),
    (" per token per layer × ", " 每 token 每层 × "),
    (" per token per block × ", " 每 token 每块 × "),
    (" one block recomputed (", " 重算一个块 ("),
    (" + two gathered layers", " + 两个已收集的层"),
    ("no KV cache on the GPU", "GPU 上没有 KV 缓存"),
    (" (at the prefill peak ", "（预填充峰值时已填充 "),
    (" (guide §2.2, §6 Q1)", "（指南 §2.2、§6 Q1）"),
    (" (tied with the head)", "（与输出头共享）"),
    (" trainable params × ", " 个可训练参数 × "),
    ("rotary cos/sin cache ", "旋转位置编码 cos/sin 缓存 "),
    (" cross-attention of ", " 个交叉注意力组，每请求 "),
    (" blocks per request)", " 块)"),
    (" per token per layer", " 每 token 每层"),
    (", on the busiest of ", "，在 "),
    (" quantized weights (", " 个量化权重 ("),
    (", block activations ", "，块激活 "),
    (" encoder frames × ", " 个编码器帧 × "),
    (" encoder blocks × ", " 个编码器块 × "),
    (" sliding layers × ", " 个滑动窗口层 × "),
    (", partitioned over ", "，切分到 "),
    (" batched tokens × ", " 个批内 token × "),
    (" matrix weights × ", " 个矩阵权重 × "),
    (" blocks on the GPU", " 块在 GPU 上"),
    (" (not at the peak)", "（不在峰值时刻）"),
    (" global layers × ", " 个全局层 × "),
    ("cuBLAS workspace: ", "cuBLAS 工作区："),
    (" self-attention, ", " 个自注意力组，"),
    (", tp or pp ≥ 2)", "，tp 或 pp ≥ 2)"),
    (" of it is filled)", "）"),
    ("max(forward over ", "max(前向 "),
    ("(fitted to vLLM ", "(拟合自 vLLM "),
    (" master weights ", " 主权重 "),
    ("base weights in ", "基础权重为 "),
    (", padded to 256)", "，补齐到 256 的倍数）"),
    (", offloaded to ", "，卸载到 "),
    (" cells (window ", " 个单元（窗口 "),
    (" (the guide's ", "（指南的 "),
    ("SGD momentum: ", "SGD 动量："),
    (", with scales)", "，含缩放因子)"),
    ("LoRA adapters ", "LoRA 适配器 "),
    (" trainable × ", " 个可训练参数 × "),
    ("CUDA context: ", "CUDA 上下文："),
    (" seq + ubatch ", " 条序列 + ubatch "),
    (" rounding × ", " 取整 × "),
    (" with scales)", "，含缩放因子)"),
    ("block inputs ", "块输入 "),
    ("SGD: no state", "SGD：无状态"),
    (" momentum × ", " 个动量 × "),
    (" kv heads × ", " 个 KV 头 × "),
    (" ranks (ZeRO-", " 个 rank (ZeRO-"),
    (" pixels) × ", " 像素）× "),
    (" hidden) × ", " 隐藏维度）× "),
    (" + non-torch", " + 非 torch"),
    (" weights at ", " 权重，每参数 "),
    (" moments × ", " 个矩 × "),
    (" context × ", " 上下文 × "),
    (" images × ", " 张图像 × "),
    (" blocks (+ ", " 块 (+ "),
    (" groups of ", " 组，每组 "),
    ("(measured, ", "(实测，"),
    (", offloaded", "，已卸载"),
    ("no KV cache", "没有 KV 缓存"),
    (" layers × ", " 层 × "),
    (" blocks × ", " 块 × "),
    (" hidden × ", " 隐藏维度 × "),
    (" params × ", " 个参数 × "),
    ("activations", "激活"),
    (" tokens × ", " token × "),
    (", prefetch ", ", 预取 "),
    (" context + ", " 上下文 + "),
    (" pixels = ", " 像素 = "),
    (" image × ", " 张图像 × "),
    (" state × ", " 个状态 × "),
    (" per token", " 每 token"),
    (", sampler ", "，采样器 "),
    (" heads × ", " 个头 × "),
    (" layers = ", " 层 = "),
    (" blocks + ", " 块 + "),
    (" blocks = ", " 块 = "),
    (" vocab × ", " 词表 × "),
    (" tokens + ", " token + "),
    (" ranks = ", " 个 rank = "),
    (" sliding)", " 个滑动窗口组)"),
    (" layers: ", " 层："),
    (" global, ", " 个全局组，"),
    (" copy of ", " 副本："),
    (" seqs × ", " 条序列 × "),
    (" kept in ", " 个参数保留为 "),
    (" frames)", " 帧)"),
    (" tokens)", " token)"),
    (" tokens ", " token "),
    (" copy + ", " 副本 + "),
    (" seq × ", " 条序列 × "),
    ("measured", "实测"),
    (" seq = ", " 条序列 = "),
    (" shards", " 个分片中最重的一个上"),
    ("weights", "权重"),
    ("AdamW: ", "AdamW："),
    (" seq (", " 条序列 ("),
    (" runs)", " 的实测)"),
    ("Lion: ", "Lion："),
    ("grads", "梯度"),
    (" of ", " / "),
    ("; ", "；"),
];

/// `formula` in Chinese: each phrase of the table replaced, longest first; numbers, units and
/// symbols as they were.
pub fn formula_zh(formula: &str) -> String {
    PHRASES
        .iter()
        .fold(String::from(formula), |s, (en, zh)| s.replace(en, zh))
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::{PHRASES, formula_zh};
    use crate::precision::GgufFileType;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    /// Every run shape the estimator distinguishes, on a dense, a MoE, an MLA, an MXFP4 and a
    /// parameters-only model, with and without a card.
    fn run_shapes() -> Vec<EstimateInput> {
        let mut out = Vec::new();
        let models: [(Option<&str>, Option<&str>); 9] = [
            (Some("meta-llama/Llama-3.1-8B"), None),
            (Some("google/gemma-3-27b-it"), None),
            (Some("openai/whisper-tiny"), None),
            (Some("google/vit-large-patch16-224"), None),
            (Some("mistralai/Mixtral-8x7B-v0.1"), None),
            (Some("deepseek-ai/DeepSeek-V3"), None),
            (Some("openai/gpt-oss-20b"), None),
            (Some("microsoft/resnet-50"), None),
            (None, Some("7B")),
        ];
        let q4 = Quantization::Gguf {
            file_type: GgufFileType::Q4_K_M,
        };
        for (model, params) in models {
            for gpu in [None, Some("h100-sxm5-80gb")] {
                let b = EstimateInput {
                    model: model.map(str::to_string),
                    params: params.map(str::to_string),
                    gpu: gpu.map(str::to_string),
                    ..EstimateInput::default()
                };
                let serve = EstimateInput {
                    mode: Mode::Serve,
                    engine: Engine::Vllm,
                    ..b.clone()
                };
                let cpp = EstimateInput {
                    engine: Engine::Llamacpp,
                    quantization: q4,
                    ..b.clone()
                };
                let t = EstimateInput {
                    mode: Mode::Training,
                    ..b.clone()
                };
                out.extend([
                    b.clone(),
                    EstimateInput {
                        logits: Logits::All,
                        ..b.clone()
                    },
                    EstimateInput {
                        quantization: Quantization::BnbNf4 { double_quant: true },
                        ..b.clone()
                    },
                    EstimateInput {
                        quantization: Quantization::Gptq {
                            bits: 4,
                            group_size: 128,
                        },
                        ..b.clone()
                    },
                    EstimateInput {
                        tp: 2.0,
                        pp: 2.0,
                        gpus: 4.0,
                        ..b.clone()
                    },
                    serve.clone(),
                    EstimateInput {
                        tp: 2.0,
                        gpus: 2.0,
                        ..serve
                    },
                    cpp.clone(),
                    EstimateInput {
                        gpu_layers: Some(10.0),
                        ..cpp
                    },
                ]);
                for optimizer in Optimizer::ALL {
                    for precision in [Precision::Fp32, Precision::AmpBf16, Precision::Bf16] {
                        out.push(EstimateInput {
                            optimizer,
                            precision,
                            ..t.clone()
                        });
                    }
                }
                for grad_checkpointing in [Checkpointing::Full, Checkpointing::Selective] {
                    out.push(EstimateInput {
                        grad_checkpointing,
                        ..t.clone()
                    });
                }
                for qlora in [false, true] {
                    out.push(EstimateInput {
                        lora_rank: 16.0,
                        qlora,
                        ..t.clone()
                    });
                }
                for zero in [0.0, 1.0, 2.0, 3.0] {
                    for offload in [Offload::None, Offload::Cpu, Offload::Nvme] {
                        out.push(EstimateInput {
                            zero,
                            offload,
                            gpus: 8.0,
                            ..t.clone()
                        });
                    }
                }
                out.extend([
                    EstimateInput {
                        tp: 2.0,
                        pp: 2.0,
                        gpus: 4.0,
                        ..t.clone()
                    },
                    EstimateInput {
                        fused_optimizer: true,
                        ..t
                    },
                ]);
            }
        }
        out
    }

    /// The runs of digits (and the decimal marks in them), in order.
    fn numbers(s: &str) -> Vec<String> {
        s.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .map(|n| n.trim_matches(|c| c == '.' || c == ','))
            .filter(|n| n.chars().any(|c| c.is_ascii_digit()))
            .map(str::to_string)
            .collect()
    }

    /// What stays in Latin letters: units, names, and the notation of the formulas.
    const NOTATION: &[&str] = &[
        "B",
        "KiB",
        "MiB",
        "GiB",
        "TiB",
        "GB",
        "KV",
        "HF",
        "MLA",
        "CPU",
        "GPU",
        "NVMe",
        "CUDA",
        "cuBLAS",
        "NCCL",
        "DDP",
        "ZeRO",
        "LoRA",
        "PyTorch",
        "vLLM",
        "Hopper",
        "AdamW",
        "SGD",
        "Lion",
        "Adafactor",
        "bitsandbytes",
        "foreach",
        "sqrt",
        "handle",
        "stream",
        "fp",
        "bf",
        "mxfp",
        "bnb",
        "nf",
        "dq",
        "ubatch",
        "gptq",
        "gguf",
        "q",
        "_k_m",
        "bit",
        "tp",
        "pp",
        "h",
        "H",
        "max",
        "max_model_len",
        "head_dim",
        "nope",
        "rope",
        "v",
        "cos",
        "sin",
        "logits",
        "log",
        "softmax",
        "all",
        "reduce",
        "allgather",
        "token",
        "rank",
        "torch",
        "prepare_model_for_kbit_training",
        "M_train",
        "M_theory",
        "M_rec",
        "M_infer",
        "config",
        "json",
        "Q",
        "rec",
        "train",
        "theory",
    ];

    #[test]
    fn every_formula_of_every_run_shape_reads_in_chinese_with_the_same_numbers() {
        let mut formulas = alloc::collections::BTreeSet::new();
        for input in run_shapes() {
            let Ok(e) = estimate(&input) else { continue };
            for c in &e.components {
                formulas.insert(c.formula.clone());
            }
            formulas.insert(e.quick.formula.clone());
        }
        assert!(formulas.len() > 400, "{} formulas", formulas.len());
        let mut left = Vec::new();
        for f in &formulas {
            let zh = formula_zh(f);
            assert_eq!(numbers(f), numbers(&zh), "{f}\n{zh}");
            let english: Vec<&str> = zh
                .split(|c: char| !(c.is_ascii_alphabetic() || c == '_'))
                .filter(|w| !w.is_empty() && !NOTATION.contains(w))
                .collect();
            if !english.is_empty() {
                left.push(alloc::format!("{english:?} left in\n{f}\n{zh}"));
            }
        }
        assert!(left.is_empty(), "{}", left.join("\n\n"));
    }

    #[test]
    fn chinese_formulas_by_hand() {
        // Llama-3.1-8B: 8 KV heads × 128 head_dim × 32 layers × 2 B, 2,048 + 256 tokens.
        let kv = "2 × 8 kv heads × 128 head_dim × 1 seq × 32 layers × 2,304 tokens × 2 B (bf16) = 288.00 MiB (at the prefill peak 256.00 MiB of it is filled)";
        assert_eq!(
            formula_zh(kv),
            "2 × 8 个 KV 头 × 128 head_dim × 1 条序列 × 32 层 × 2,304 token × 2 B (bf16) = 288.00 MiB（预填充峰值时已填充 256.00 MiB）"
        );
        let adam = "8,030,261,248 trainable × (AdamW: 2 moments × 4 B) + fp32 master weights 4 B = 89.75 GiB";
        assert_eq!(
            formula_zh(adam),
            "8,030,261,248 个可训练参数 × (AdamW：2 个矩 × 4 B) + fp32 主权重 4 B = 89.75 GiB"
        );
        assert_eq!(formula_zh("SGD: no state"), "SGD：无状态");
    }

    #[test]
    fn phrases_are_longest_first_and_distinct() {
        for w in PHRASES.windows(2) {
            assert!(
                w[0].0.len() >= w[1].0.len(),
                "{:?} before {:?}",
                w[0].0,
                w[1].0
            );
        }
        for (i, (en, _)) in PHRASES.iter().enumerate() {
            assert!(PHRASES[..i].iter().all(|(e, _)| e != en), "{en} twice");
        }
    }
}
