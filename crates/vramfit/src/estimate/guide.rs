//! Why the detailed estimate differs from the guide's quick one, in words a reader can check.

use super::ComponentKind;
use super::{Difference, Mode, Optimizer, Parts, Quick, Run, b, guide_bytes_per_param, thousands};
use crate::precision::Quantization;
use crate::units::short;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// One reason the detailed estimate differs from the guide's quick one, with its numbers and no
/// text: what [`Run::guide_differences`] finds, and [`Run::difference_text`] words.
#[derive(Clone, Copy)]
pub(super) enum GuideDifference {
    /// A convolutional network counted layer by layer for one image of this side.
    ImageCounts { image_size: u64 },
    /// Only the parameter count is known.
    QuickOnly,
    /// Fewer KV heads than attention heads (grouped-query or multi-query attention).
    Gqa { heads: u64, kv_heads: u64 },
    /// head_dim is not hidden / heads.
    HeadDim { head_dim: u64, hidden_per_head: u64 },
    /// Layers attending within a window.
    Sliding {
        sliding_layers: u64,
        layers: u64,
        window: u64,
    },
    /// Multi-head latent attention: one latent of this width per token and layer; `hf_latent`
    /// when transformers keeps it compressed too (a DSA or a hybrid model, transformers 5.24).
    Mla { latent: u64, hf_latent: bool },
    /// Mixture of experts.
    Moe {
        experts: u64,
        per_token: u64,
        active_params: u64,
        params: u64,
    },
    /// Quantized weights against the guide's bytes per parameter.
    QuantBits {
        weights: u64,
        guide_weights: u64,
        per_param: f64,
        /// The format quantizes the embedding and the LM head too (MLX's).
        head_quantized: bool,
    },
    /// Mixed-precision AdamW's 16 B per parameter.
    AmpAdam,
    /// The guide's training multiple against its own components.
    GuideMultiple,
    /// The loss's fp32 logits over a large vocabulary.
    Logits { vocab: u64, bytes: u64 },
    /// Activations counted tensor by tensor.
    Activations,
}

impl GuideDifference {
    /// Its key in the estimate's differences.
    fn key(self) -> &'static str {
        match self {
            GuideDifference::ImageCounts { .. } => "image_counts",
            GuideDifference::QuickOnly => "quick_only",
            GuideDifference::Gqa { .. } => "gqa",
            GuideDifference::HeadDim { .. } => "head_dim",
            GuideDifference::Sliding { .. } => "sliding",
            GuideDifference::Mla { .. } => "mla",
            GuideDifference::Moe { .. } => "moe",
            GuideDifference::QuantBits { .. } => "quant_bits",
            GuideDifference::AmpAdam => "amp_adam",
            GuideDifference::GuideMultiple => "guide_multiple",
            GuideDifference::Logits { .. } => "logits",
            GuideDifference::Activations => "activations",
        }
    }
}

impl Run<'_> {
    /// The differences from the guide (none when the run builds no text): found with their
    /// numbers, then worded.
    pub(super) fn differences(&self, quick: &Quick, parts: &Parts) -> Vec<Difference> {
        if !self.text {
            return Vec::new();
        }
        self.guide_differences(quick, parts)
            .into_iter()
            .map(|d| self.difference_text(d))
            .collect()
    }

    /// The differences from the guide that apply to this run, in the order they are shown.
    fn guide_differences(&self, quick: &Quick, parts: &Parts) -> Vec<GuideDifference> {
        use GuideDifference as D;
        let a = &self.arch;
        if a.has_image_counts() {
            return alloc::vec![D::ImageCounts {
                image_size: a.image_size
            }];
        }
        if !a.is_detailed() {
            return alloc::vec![D::QuickOnly];
        }
        let mut d = Vec::new();
        // The KV cache differences (GQA, head_dim, sliding windows, MLA) speak of a cache that
        // training does not keep, and the guide's training rule has no KV term either.
        let kv = self.mode != Mode::Training && a.is_generative();
        if kv && a.mla.is_none() && a.num_kv_heads < a.num_heads {
            d.push(D::Gqa {
                heads: a.num_heads,
                kv_heads: a.num_kv_heads,
            });
        }
        if kv && a.num_heads * a.head_dim != a.hidden_size && a.mla.is_none() {
            d.push(D::HeadDim {
                head_dim: a.head_dim,
                hidden_per_head: a.hidden_size / a.num_heads.max(1),
            });
        }
        if kv && a.sliding_window > 0 && a.sliding_layers > 0 {
            d.push(D::Sliding {
                sliding_layers: a.sliding_layers,
                layers: a.num_layers,
                window: a.sliding_window,
            });
        }
        if let Some(m) = a.mla.filter(|_| kv) {
            d.push(D::Mla {
                latent: m.kv_lora_rank + m.qk_rope_head_dim,
                hf_latent: a.indexer.is_some() || a.hybrid.is_some(),
            });
        }
        if let Some(m) = a.moe {
            d.push(D::Moe {
                experts: m.num_experts,
                per_token: m.experts_per_token,
                active_params: self.active_params(),
                params: self.params(),
            });
        }
        if self.quantization != Quantization::None {
            d.push(D::QuantBits {
                weights: parts.get(ComponentKind::Weights),
                guide_weights: quick.weights_bytes.get(),
                per_param: guide_bytes_per_param(self.dtype, &self.quantization),
                head_quantized: matches!(self.quantization, Quantization::Mlx { .. }),
            });
        }
        if self.mode == Mode::Training {
            if self.precision.fp32_master()
                && self.lora_rank == 0
                && self.optimizer == Optimizer::Adamw
            {
                d.push(D::AmpAdam);
            }
            d.push(D::GuideMultiple);
            let logits = parts.get(ComponentKind::Logits);
            if logits > 0 && a.vocab_size >= 100_000 {
                d.push(D::Logits {
                    vocab: a.vocab_size,
                    bytes: logits,
                });
            }
        }
        d.push(D::Activations);
        d
    }

    /// A difference in English and Chinese.
    fn difference_text(&self, d: GuideDifference) -> Difference {
        use GuideDifference as D;
        let (en, zh) = match d {
            D::ImageCounts { image_size: s } => (
                en!(
                    "A convolutional network: its activations are counted layer by layer for one {s} × {s} image and grow with the batch, where the guide's 0.2–0.5 × weights does not see the batch; another image size changes them with its pixel count."
                ),
                zh!(
                    "卷积网络：激活值按一张 {s} × {s} 图像逐层计数，并随批大小增长，而指南的 0.2–0.5 × 权重与批大小无关；换用其他图像尺寸时按像素数变化。"
                ),
            ),
            // Training keeps no cache: there the bare count's estimate has none either.
            D::QuickOnly if self.mode == Mode::Training => (
                String::from(en_str!(
                    "Only the parameter count is known, so the detailed estimate falls back on the guide's rules for activations and has no KV cache; give a preset or a config.json for the exact figures."
                )),
                String::from(zh_str!(
                    "仅知参数量：激活值沿用指南经验值且无法计算 KV 缓存；提供预设或 config.json 可得精确结果。"
                )),
            ),
            D::QuickOnly => (
                String::from(en_str!(
                    "Only the parameter count is known, so the detailed estimate falls back on the guide's rules for activations and counts the KV cache of a typical shape assumed from the count, where the guide counts none; give a preset or a config.json for the exact figures."
                )),
                String::from(zh_str!(
                    "仅知参数量：激活值沿用指南经验值，KV 缓存按由参数量假定的典型形状计算（指南不计 KV 缓存）；提供预设或 config.json 可得精确结果。"
                )),
            ),
            D::Gqa { heads, kv_heads } => (
                // One KV head shared by every query head is multi-query attention.
                en!(
                    "KV cache: the guide's 2 × batch × seq × hidden × layers assumes every one of the {heads} heads stores K and V; this model has {}, so its cache is {}× smaller.",
                    if kv_heads == 1 {
                        "1 KV head (multi-query attention)".to_string()
                    } else {
                        format!("{kv_heads} KV heads (grouped-query attention)")
                    },
                    heads / kv_heads
                ),
                zh!(
                    "KV 缓存：指南公式假设全部 {heads} 个注意力头都存 K、V；该模型只有 {kv_heads} 个 KV 头（{}），缓存小 {} 倍。",
                    if kv_heads == 1 { "MQA" } else { "GQA" },
                    heads / kv_heads
                ),
            ),
            D::HeadDim {
                head_dim,
                hidden_per_head,
            } => (
                en!(
                    "head_dim is {head_dim} while hidden / heads is {hidden_per_head}: the KV cache uses kv_heads × head_dim, not hidden."
                ),
                zh!(
                    "head_dim 为 {head_dim}，而 hidden/heads 为 {hidden_per_head}：KV 缓存按 kv_heads × head_dim 计算，而非 hidden。"
                ),
            ),
            D::Sliding {
                sliding_layers,
                layers,
                window,
            } => (
                en!(
                    "{sliding_layers} of {layers} layers attend within a {window}-token window; HF caches only the window for them once it decodes (the prompt's keys and values until then), llama.cpp the window × sequences + ubatch (vLLM sizes its pool for every layer)."
                ),
                zh!(
                    "{layers} 层中有 {sliding_layers} 层使用 {window} token 滑动窗口；HF 开始解码后仅缓存窗口（此前保留提示词的键值），llama.cpp 缓存窗口 × 序列数 + ubatch（vLLM 按全部层分配 KV 池）。"
                ),
            ),
            D::Mla {
                latent,
                hf_latent: false,
            } => (
                en!(
                    "Multi-head latent attention: vLLM caches one {latent}-wide latent per token and layer instead of K and V per head; HF transformers caches them decompressed."
                ),
                zh!(
                    "多头潜在注意力（MLA）：vLLM 每 token 每层只缓存 {latent} 维潜向量；HF transformers 缓存解压后的 K、V。"
                ),
            ),
            D::Mla {
                latent,
                hf_latent: true,
            } => (
                en!(
                    "Multi-head latent attention: every engine, transformers too, caches one {latent}-wide latent per token and MLA layer instead of K and V per head."
                ),
                zh!(
                    "多头潜在注意力（MLA）：包括 transformers 在内的每个引擎，每 token 每个 MLA 层只缓存 {latent} 维潜向量，而非每个头的 K、V。"
                ),
            ),
            D::Moe {
                experts,
                per_token,
                active_params,
                params,
            } => (
                en!(
                    "Mixture of experts: all {experts} experts stay in memory although each token uses {per_token}; active parameters {} of {}.",
                    thousands(active_params),
                    thousands(params)
                ),
                zh!(
                    "混合专家：{experts} 个专家全部常驻显存，而每个 token 只用 {per_token} 个；激活参数 {} / 总参数 {}。",
                    thousands(active_params),
                    thousands(params)
                ),
            ),
            D::QuantBits {
                weights,
                guide_weights,
                per_param,
                head_quantized,
            } => quant_bits_text(weights, guide_weights, per_param, head_quantized),
            D::Logits { vocab, bytes } => logits_text(vocab, bytes),
            D::AmpAdam => (
                String::from(en_str!(
                    "Mixed-precision AdamW keeps fp32 master weights (4 B), fp32 gradients (4 B) and two fp32 moments (8 B): 16 B per parameter, not the guide's 2 + 2 + 4 = 8 B."
                )),
                String::from(zh_str!(
                    "混合精度 AdamW 保存 fp32 主权重（4 B）、fp32 梯度（4 B）与两个 fp32 动量（8 B）：每参数 16 字节，而非指南的 2 + 2 + 4 = 8 字节。"
                )),
            ),
            D::GuideMultiple => (
                String::from(en_str!(
                    "The guide's rule says 3.2–3.7 × weights, but its own components (weights + 2 × weights + weights + 0.2–0.5 × weights) add up to 4.2–4.5 ×."
                )),
                String::from(zh_str!(
                    "指南的经验倍数为权重的 3.2–3.7 倍，但其各项之和（权重 + 2 × 权重 + 权重 + 0.2–0.5 × 权重）为 4.2–4.5 倍。"
                )),
            ),
            D::Activations => (
                String::from(en_str!(
                    "Activations are counted tensor by tensor (what autograd saves, or what one block holds at once in inference), not as a share of the weights."
                )),
                String::from(zh_str!(
                    "激活值按张量逐一计算（反向需要保存的张量，或推理时单层同时存在的张量），而非按权重比例估算。"
                )),
            ),
        };
        Difference {
            key: d.key().to_string(),
            en,
            zh,
        }
    }
}

/// Quantized weights against the guide's bytes per parameter, in English and Chinese.
fn quant_bits_text(
    weights: u64,
    guide_weights: u64,
    per_param: f64,
    head_quantized: bool,
) -> (String, String) {
    let per_param = short(per_param);
    if head_quantized {
        return (
            en!(
                "Quantized weights carry a scale (and a bias) per group, the embedding and the LM head quantized too; norms stay unquantized: {} against the guide's {} at {per_param} B per parameter.",
                b(weights),
                b(guide_weights)
            ),
            zh!(
                "量化权重每组含缩放因子（及偏置），词嵌入与输出头同样量化，归一化层不量化：{}，而指南按每参数 {per_param} 字节计为 {}。",
                b(weights),
                b(guide_weights)
            ),
        );
    }
    (
        en!(
            "Quantized weights carry scales and zero points, and embeddings, the LM head and norms stay unquantized: {} against the guide's {} at {per_param} B per parameter.",
            b(weights),
            b(guide_weights)
        ),
        zh!(
            "量化权重含缩放因子与零点，词嵌入、输出头与归一化层不量化：{}，而指南按每参数 {per_param} 字节计为 {}。",
            b(weights),
            b(guide_weights)
        ),
    )
}

/// The loss's fp32 logits over a large vocabulary, in English and Chinese.
fn logits_text(vocab: u64, bytes: u64) -> (String, String) {
    (
        en!(
            "With a {vocab}-token vocabulary the loss's fp32 logits take {} alone — the guide's activation share does not see them.",
            b(bytes)
        ),
        zh!(
            "词表 {vocab} 时，损失中的 fp32 logits 单独就占 {}——指南的激活比例未计入。",
            b(bytes)
        ),
    )
}
