//! Why the detailed estimate differs from the guide's quick one, in words a reader can check.

use super::ComponentKind;
use super::{Difference, Mode, Optimizer, Parts, Quick, Run, b, guide_bytes_per_param, thousands};
use crate::precision::Quantization;
use crate::units::short;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

impl Run<'_> {
    pub(super) fn differences(&self, quick: &Quick, parts: &Parts) -> Vec<Difference> {
        let a = &self.arch;
        let mut d = Vec::new();
        if !self.text {
            return d;
        }
        let mut add = |key: &str, en: String, zh: String| {
            d.push(Difference {
                key: key.to_string(),
                en,
                zh,
            })
        };
        if a.has_image_counts() {
            add(
                "image_counts",
                en!(
                    "A convolutional network: its activations are counted layer by layer for one {s} × {s} image and grow with the batch, where the guide's 0.2–0.5 × weights does not see the batch; another image size changes them with its pixel count.",
                    s = a.image_size
                ),
                zh!(
                    "卷积网络：激活值按一张 {s} × {s} 图像逐层计数，并随批大小增长，而指南的 0.2–0.5 × 权重与批大小无关；换用其他图像尺寸时按像素数变化。",
                    s = a.image_size
                ),
            );
            return d;
        }
        if !a.is_detailed() {
            add(
                "quick_only",
                String::from(en_str!(
                    "Only the parameter count is known, so the detailed estimate falls back on the guide's rules for activations and has no KV cache; give a preset or a config.json for the exact figures."
                )),
                String::from(zh_str!(
                    "仅知参数量：激活值沿用指南经验值且无法计算 KV 缓存；提供预设或 config.json 可得精确结果。"
                )),
            );
            return d;
        }
        // The KV cache differences (GQA, head_dim, sliding windows, MLA) speak of a cache that
        // training does not keep, and the guide's training rule has no KV term either.
        let kv = self.mode != Mode::Training && a.is_generative();
        if kv && a.mla.is_none() && a.num_kv_heads < a.num_heads {
            add(
                "gqa",
                // One KV head shared by every query head is multi-query attention.
                en!(
                    "KV cache: the guide's 2 × batch × seq × hidden × layers assumes every one of the {} heads stores K and V; this model has {}, so its cache is {}× smaller.",
                    a.num_heads,
                    if a.num_kv_heads == 1 {
                        "1 KV head (multi-query attention)".to_string()
                    } else {
                        format!("{} KV heads (grouped-query attention)", a.num_kv_heads)
                    },
                    a.num_heads / a.num_kv_heads
                ),
                zh!(
                    "KV 缓存：指南公式假设全部 {} 个注意力头都存 K、V；该模型只有 {} 个 KV 头（{}），缓存小 {} 倍。",
                    a.num_heads,
                    a.num_kv_heads,
                    if a.num_kv_heads == 1 { "MQA" } else { "GQA" },
                    a.num_heads / a.num_kv_heads
                ),
            );
        }
        if kv && a.num_heads * a.head_dim != a.hidden_size && a.mla.is_none() {
            add(
                "head_dim",
                en!(
                    "head_dim is {} while hidden / heads is {}: the KV cache uses kv_heads × head_dim, not hidden.",
                    a.head_dim,
                    a.hidden_size / a.num_heads.max(1)
                ),
                zh!(
                    "head_dim 为 {}，而 hidden/heads 为 {}：KV 缓存按 kv_heads × head_dim 计算，而非 hidden。",
                    a.head_dim,
                    a.hidden_size / a.num_heads.max(1)
                ),
            );
        }
        if kv && a.sliding_window > 0 && a.sliding_layers > 0 {
            add(
                "sliding",
                en!(
                    "{} of {} layers attend within a {}-token window; HF caches only the window for them, llama.cpp the window × sequences + ubatch (vLLM sizes its pool for every layer).",
                    a.sliding_layers,
                    a.num_layers,
                    a.sliding_window
                ),
                zh!(
                    "{} 层中有 {} 层使用 {} token 滑动窗口；HF 仅缓存窗口，llama.cpp 缓存窗口 × 序列数 + ubatch（vLLM 按全部层分配 KV 池）。",
                    a.num_layers,
                    a.sliding_layers,
                    a.sliding_window
                ),
            );
        }
        if let Some(m) = a.mla.filter(|_| kv) {
            add(
                "mla",
                en!(
                    "Multi-head latent attention: vLLM caches one {}-wide latent per token and layer instead of K and V per head; HF transformers caches them decompressed.",
                    m.kv_lora_rank + m.qk_rope_head_dim
                ),
                zh!(
                    "多头潜在注意力（MLA）：vLLM 每 token 每层只缓存 {} 维潜向量；HF transformers 缓存解压后的 K、V。",
                    m.kv_lora_rank + m.qk_rope_head_dim
                ),
            );
        }
        if let Some(m) = a.moe {
            add(
                "moe",
                en!(
                    "Mixture of experts: all {} experts stay in memory although each token uses {}; active parameters {} of {}.",
                    m.num_experts,
                    m.experts_per_token,
                    thousands(a.active_params()),
                    thousands(a.params())
                ),
                zh!(
                    "混合专家：{} 个专家全部常驻显存，而每个 token 只用 {} 个；激活参数 {} / 总参数 {}。",
                    m.num_experts,
                    m.experts_per_token,
                    thousands(a.active_params()),
                    thousands(a.params())
                ),
            );
        }
        if self.quantization != Quantization::None {
            let w = parts.get(ComponentKind::Weights);
            let per_param = short(guide_bytes_per_param(self.dtype, &self.quantization));
            add(
                "quant_bits",
                en!(
                    "Quantized weights carry scales and zero points, and embeddings, the LM head and norms stay unquantized: {} against the guide's {} at {} B per parameter.",
                    b(w),
                    b(quick.weights_bytes.get()),
                    per_param
                ),
                zh!(
                    "量化权重含缩放因子与零点，词嵌入、输出头与归一化层不量化：{}，而指南按每参数 {} 字节计为 {}。",
                    b(w),
                    per_param,
                    b(quick.weights_bytes.get())
                ),
            );
        }
        if self.mode == Mode::Training {
            if self.precision.fp32_master()
                && self.lora_rank == 0
                && self.optimizer == Optimizer::Adamw
            {
                add(
                    "amp_adam",
                    String::from(en_str!(
                        "Mixed-precision AdamW keeps fp32 master weights (4 B), fp32 gradients (4 B) and two fp32 moments (8 B): 16 B per parameter, not the guide's 2 + 2 + 4 = 8 B."
                    )),
                    String::from(zh_str!(
                        "混合精度 AdamW 保存 fp32 主权重（4 B）、fp32 梯度（4 B）与两个 fp32 动量（8 B）：每参数 16 字节，而非指南的 2 + 2 + 4 = 8 字节。"
                    )),
                );
            }
            add(
                "guide_multiple",
                String::from(en_str!(
                    "The guide's rule says 3.2–3.7 × weights, but its own components (weights + 2 × weights + weights + 0.2–0.5 × weights) add up to 4.2–4.5 ×."
                )),
                String::from(zh_str!(
                    "指南的经验倍数为权重的 3.2–3.7 倍，但其各项之和（权重 + 2 × 权重 + 权重 + 0.2–0.5 × 权重）为 4.2–4.5 倍。"
                )),
            );
            if parts.get(ComponentKind::Logits) > 0 && a.vocab_size >= 100_000 {
                add(
                    "logits",
                    en!(
                        "With a {}-token vocabulary the loss's fp32 logits take {} alone — the guide's activation share does not see them.",
                        a.vocab_size,
                        b(parts.get(ComponentKind::Logits))
                    ),
                    zh!(
                        "词表 {} 时，损失中的 fp32 logits 单独就占 {}——指南的激活比例未计入。",
                        a.vocab_size,
                        b(parts.get(ComponentKind::Logits))
                    ),
                );
            }
        }
        add(
            "activations",
            String::from(en_str!(
                "Activations are counted tensor by tensor (what autograd saves, or what one block holds at once in inference), not as a share of the weights."
            )),
            String::from(zh_str!(
                "激活值按张量逐一计算（反向需要保存的张量，或推理时单层同时存在的张量），而非按权重比例估算。"
            )),
        );
        d
    }
}
