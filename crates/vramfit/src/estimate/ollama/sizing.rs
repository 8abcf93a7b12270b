//! Ollama's own sizing of a load (`fs/ggml/ggml.go` `GraphSize` and `VisionGraphSize`, read at
//! ollama/ollama v0.12.5, commit 3d32249c749c6f77c1dc8a7cb55ae74fc2f4c08b, the last release whose
//! scheduler decides from this estimate for every model): the KV cache of each layer, the compute
//! graph for a partial and a full offload, and a vision tower counted with the output layer.
//!
//! Each family has its own rule, keyed on the GGUF `general.architecture`:
//! - the KV of a layer is `context × (key + value length) × KV heads × bytes` (2 for f16, 1 for
//!   q8_0, 0.5 for q4_0), except `gemma3`'s sliding layers (every layer but each sixth), sized at
//!   `num_parallel × sliding_window + batch`, and `gptoss`'s even (sliding) layers, sized at
//!   `num_parallel × 4096 + batch`. Gemma 2 slides too, but Ollama sizes it at the whole context.
//! - the graph has a formula per family (`llama`, `qwen2`, the Gemmas, `phi2`, `deepseek2`,
//!   `gptoss`); any other falls back to `GQA × KV / 6` in `llm/memory.go`.

use super::super::{Kernel, Run};
use crate::precision::KvDtype;
use alloc::vec::Vec;

/// The batch Ollama estimates the graph for and gives llama.cpp (`num_batch`, default 512).
pub const OLLAMA_BATCH: u64 = 512;

/// The batch Ollama gives llama-server for an embedding model (a GGUF naming
/// `{arch}.pooling_type`): `-b` and `-ub` of `min(num_batch, num_ctx × parallel)`, `num_batch`
/// defaulting to 2,048 for such a model (`llm/llama_server.go`, `DefaultEmbeddingNumBatch`,
/// `appendBatchArgs`, at ollama/ollama v0.33.0-rc2, commit fb30760996871fa9460115c753afd2c60d4ab0f7).
pub const OLLAMA_EMBEDDING_BATCH: u64 = 2048;

/// The ubatch Ollama gives llama-server for an embedding model with `num_ctx` (parallel 1).
pub(crate) fn ollama_embedding_batch(num_ctx: u64) -> u64 {
    OLLAMA_EMBEDDING_BATCH.min(num_ctx.max(1))
}

/// The GGUF architectures whose sizing rule in `GraphSize` differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum GgufArch {
    Llama,
    Qwen2,
    Gemma2,
    Gemma3,
    Phi2,
    Deepseek2,
    GptOss,
    /// Any other (`qwen3`, `qwen3moe`, …): no graph formula of its own.
    Other,
}

impl GgufArch {
    /// The architecture a library name gives (`llama`, `qwen2`, `qwen3`).
    pub(super) fn named(name: &str) -> Self {
        match name {
            "llama" | "llama4" => Self::Llama,
            "qwen2" => Self::Qwen2,
            "gemma2" => Self::Gemma2,
            "gemma3" => Self::Gemma3,
            "phi2" => Self::Phi2,
            "deepseek2" => Self::Deepseek2,
            "gptoss" | "gpt-oss" => Self::GptOss,
            _ => Self::Other,
        }
    }

    /// Its `general.architecture` as the GGUF writes it.
    pub(super) const fn name(self) -> &'static str {
        match self {
            Self::Llama => "llama",
            Self::Qwen2 => "qwen2",
            Self::Gemma2 => "gemma2",
            Self::Gemma3 => "gemma3",
            Self::Phi2 => "phi2",
            Self::Deepseek2 => "deepseek2",
            Self::GptOss => "gptoss",
            Self::Other => "other",
        }
    }
}

/// Gemma 3's vision tower as its GGUF declares it (`gemma3.vision.*`, the `vision_config` of
/// google/gemma-3-{4b,12b,27b}-it's config.json: SigLIP at 896 pixels, patch 14, width 1152, MLP
/// 4304, 16 heads, 27 blocks). Its matrices are F16 and its vectors F32 in Ollama's files.
struct VisionTower {
    image_size: u64,
    patch_size: u64,
    num_channels: u64,
    embedding: u64,
    heads: u64,
    blocks: u64,
    ffn: u64,
}

/// Gemma 3's tokenizer: 262,144 tokens (google/gemma-3-*-it tokenizer.json).
const GEMMA3_TOKENS: u64 = 262_144;

const GEMMA3_VISION: VisionTower = VisionTower {
    image_size: 896,
    patch_size: 14,
    num_channels: 3,
    embedding: 1152,
    heads: 16,
    blocks: 27,
    ffn: 4304,
};

impl VisionTower {
    /// The `v.*` tensors' bytes: the patch embedding and positions, each block's attention, norms
    /// and MLP, the post-norm; matrices 2 B, vectors 4 B an element. (The `mm.*` projector into
    /// the text model is not a `v.` tensor: Ollama leaves it out.)
    fn weights(&self) -> u64 {
        let (e, f) = (self.embedding, self.ffn);
        let patches = (self.image_size / self.patch_size).pow(2);
        let matrices = e * self.num_channels * self.patch_size * self.patch_size
            + patches * e
            + self.blocks * (4 * e * e + 2 * e * f);
        // Biases of q, k, v, o, fc1, fc2; the two norms' weight and bias; the patch bias and
        // the post-norm.
        let vectors = self.blocks * (4 * e + 4 * e + f + e) + e + 2 * e;
        matrices * 2 + vectors * 4
    }

    /// `VisionGraphSize` for `gemma3`: `4 × (image² × channels + width × patch + patches² × heads)`.
    fn graph(&self) -> u64 {
        let patches = (self.image_size / self.patch_size).pow(2);
        4 * (self.image_size * self.image_size * self.num_channels
            + self.embedding * self.patch_size
            + patches * patches * self.heads)
    }
}

impl Run<'_> {
    /// The GGUF architecture Ollama sizes the model by: a library name's, else the family read
    /// from the layer pattern that defines it (a checkpoint's `model_type` is not kept): four
    /// norms a block with sliding layers among global ones is Gemma 3 (with q/k norms) or Gemma 2;
    /// alternating 128-token windows over experts with biases is gpt-oss; latent attention is
    /// DeepSeek's `deepseek2`; one norm a block with a biased LM head is Phi-2.
    pub(super) fn ollama_gguf_arch(&self) -> GgufArch {
        let a = &self.arch;
        let named = GgufArch::named(self.ollama_arch);
        if self.ollama_tag.is_some() || named != GgufArch::Llama {
            return named;
        }
        // An encoder's GGUF is `bert` (XLM-RoBERTa converts to it): no formula of its own.
        if a.family == crate::model::Family::Bert {
            return GgufArch::Other;
        }
        let interleaved =
            a.sliding_window > 0 && a.sliding_layers > 0 && a.sliding_layers < a.num_layers;
        if a.norms_per_layer == 4 && interleaved {
            return if a.qk_norm {
                GgufArch::Gemma3
            } else {
                GgufArch::Gemma2
            };
        }
        if interleaved
            && a.moe.is_some_and(|m| m.expert_bias)
            && 2 * a.sliding_layers == a.num_layers
        {
            return GgufArch::GptOss;
        }
        if a.mla.is_some() {
            return GgufArch::Deepseek2;
        }
        if a.norms_per_layer == 1 && a.lm_head_bias {
            return GgufArch::Phi2;
        }
        named
    }

    /// Bytes per element of Ollama's KV estimate (`kvCacheBytesPerElement`) applied to `elems`.
    fn ollama_kv_bytes(&self, elems: u64) -> u64 {
        match self.kv_dtype {
            KvDtype::Q8_0 => elems,
            KvDtype::Q4_0 => elems / 2,
            _ => elems.saturating_mul(2),
        }
    }

    /// Keys and values a token keeps in one layer: `(key + value length) × KV heads`, MLA as its
    /// GGUF declares it (a key and a value per head).
    fn ollama_kv_width(&self) -> u64 {
        let a = self.cache_arch();
        match a.mla {
            Some(m) => (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim) * a.num_heads,
            None => 2 * a.head_dim * a.num_kv_heads,
        }
    }

    /// Ollama's KV estimate of each block for `num_ctx` tokens a sequence over `parallel`
    /// sequences (`GraphSize`'s `kv`), and the whole-context total its graph fallback reads.
    pub(super) fn ollama_kv_layers(&self, num_ctx: u64, parallel: u64) -> (Vec<u64>, u64) {
        let context = num_ctx.saturating_mul(parallel);
        let batch = num_ctx.min(OLLAMA_BATCH);
        let width = self.ollama_kv_width();
        let layers = self.cache_arch().num_layers as usize;
        let full = self.ollama_kv_bytes(context.saturating_mul(width));
        let default_total = full.saturating_mul(layers as u64);
        let window = |cells: u64| self.ollama_kv_bytes(cells.saturating_mul(width));
        let kv = (0..layers)
            .map(|i| match self.ollama_gguf_arch() {
                GgufArch::Gemma3 if (i + 1) % 6 != 0 => {
                    window(parallel.saturating_mul(self.arch.sliding_window) + batch)
                }
                GgufArch::GptOss if i % 2 == 0 => window(parallel.saturating_mul(4096) + batch),
                _ => full,
            })
            .collect();
        (kv, default_total)
    }

    /// Ollama's graph estimate for a partial and a full offload (0 where its family has none),
    /// for `num_ctx` tokens a sequence over `parallel` sequences.
    pub(super) fn ollama_graph(&self, num_ctx: u64, parallel: u64, kv_default: u64) -> (u64, u64) {
        let a = &self.arch;
        let c = num_ctx.saturating_mul(parallel);
        let b = num_ctx.min(OLLAMA_BATCH);
        let (e, v) = (a.hidden_size, self.ollama_vocab());
        let h = a.num_heads.max(1);
        let hkv = a.num_kv_heads.max(1);
        // `embeddingHeads`: the width over the heads; `key_length`: the head's own.
        let eh = e / h;
        let hk = match a.mla {
            Some(m) => m.qk_nope_head_dim + m.qk_rope_head_dim,
            None => a.head_dim,
        };
        match self.ollama_gguf_arch() {
            GgufArch::Llama => {
                let full = (4 * b * (1 + 4 * e + c * (1 + h))).max(4 * b * (e + v));
                let partial = 4 * b * e
                    + (4 * b * (1 + e + c.max(e)) + e * e * 9 / 16 + 4 * c * (b * h + eh * hkv))
                        .max(4 * b * (e + v) + e * v * 105 / 128);
                (partial, full)
            }
            GgufArch::Qwen2 => {
                let full = (4 * b * (e + v)).max(4 * b * (1 + 2 * e + c + c * h));
                let partial = (4 * b * (e + v) + e * v * 105 / 128)
                    .max(4 * (b * (1 + 2 * e + c * (1 + h)) + e * (1 + c)));
                (partial, full)
            }
            GgufArch::Gemma2 | GgufArch::Gemma3 => {
                let full = (4 * b * (e + v)).max(4 * b * (2 + c + c * h + 2 * e + 2 * hk * h));
                let partial = (4 * e * b + e * v * 105 / 128 + 4 * v * b).max(
                    4 * b * (2 * e + 1 + 2 * hk * h + c + c * h)
                        + 4 * hk * c * 8
                        + e * hk * h * 9 / 16,
                );
                (partial, full)
            }
            GgufArch::Phi2 => {
                let full = (4 * b * (e + v)).max(4 * b * (1 + 4 * e + c + c * h));
                let partial =
                    (4 * b * (2 * e + v) + e * v * 105 / 128).max(4 * b * (2 + 3 * e + c + c * h));
                (partial, full)
            }
            GgufArch::Deepseek2 => {
                // `head_count_kv` of a DeepSeek GGUF is the query heads (a key per head).
                let hkv = a.num_heads;
                let full =
                    (4 * b * (3 * e + v)).max(4 * b * (3 * e + 2 + c * (1 + hkv) + 2 * hk * hkv));
                let partial = (4 * b * (3 * e + v) + e * v * 105 / 128).max(
                    4 * b * (2 * e + 1 + 2 * hk * hkv + c + c * hkv)
                        + 4 * hk * c * hkv
                        + e * hk * hkv * 9 / 16,
                );
                (partial, full)
            }
            GgufArch::GptOss => {
                // Read from the whole-context KV the default rule gave before gpt-oss's own.
                let partial = if self.ollama_flash_attention() {
                    (4 * parallel + (c >> 10) + 110) * crate::units::MIB
                } else {
                    2 * h / hkv * kv_default / 6
                };
                (partial, 0)
            }
            GgufArch::Other => (0, 0),
        }
    }

    /// The vocabulary Ollama's graph reads: the GGUF's `tokenizer.ggml.tokens`, which for Gemma 3
    /// is the tokenizer's 262,144 tokens, not config.json's 262,208 (its embedding padded for the
    /// image tokens; llama.cpp's converter writes the tokenizer's list).
    fn ollama_vocab(&self) -> u64 {
        match self.ollama_gguf_arch() {
            GgufArch::Gemma3 => self.arch.vocab_size.min(GEMMA3_TOKENS),
            _ => self.arch.vocab_size,
        }
    }

    /// Whether the run has flash attention (`OLLAMA_FLASH_ATTENTION=1`, as vramfit runs Ollama);
    /// never for Gemma 2 (`SupportsFlashAttention`).
    fn ollama_flash_attention(&self) -> bool {
        self.kernel == Kernel::Flash && self.ollama_gguf_arch() != GgufArch::Gemma2
    }

    /// The vision tower Ollama counts with the output layer (`VisionGraphSize`): its weights and
    /// its graph; nothing for a model without one.
    pub(super) fn ollama_projector(&self) -> (u64, u64) {
        if self.ollama_gguf_arch() == GgufArch::Gemma3 && self.arch.vision_params > 0 {
            (GEMMA3_VISION.weights(), GEMMA3_VISION.graph())
        } else {
            (0, 0)
        }
    }
}

impl Run<'_> {
    /// The note saying how Ollama sized the sliding-window layers, for a model that has them:
    /// at the window (Gemma 3, gpt-oss) or at the whole context (Gemma 2, any other family).
    pub(super) fn ollama_window_note(
        &self,
        num_ctx: u64,
        parallel: u64,
    ) -> Option<(alloc::string::String, alloc::string::String)> {
        let a = &self.arch;
        if a.sliding_window == 0 || a.sliding_layers == 0 || a.sliding_layers >= a.num_layers {
            return None;
        }
        let batch = num_ctx.min(OLLAMA_BATCH);
        let arch = self.ollama_gguf_arch().name();
        let (sliding, global) = (a.sliding_layers, a.num_layers - a.sliding_layers);
        let ctx = num_ctx.saturating_mul(parallel);
        let cells = match self.ollama_gguf_arch() {
            GgufArch::Gemma3 => Some((
                a.sliding_window,
                parallel.saturating_mul(a.sliding_window) + batch,
            )),
            GgufArch::GptOss => Some((4096, parallel.saturating_mul(4096) + batch)),
            _ => None,
        };
        Some(match cells {
            Some((window, cells)) => (
                en!(
                    "Ollama sizes the {sliding} sliding-window layers of {arch} at {parallel} × {window} + batch {batch} = {cells} tokens each (fs/ggml GraphSize), the {global} global layers at {ctx}."
                ),
                zh!(
                    "Ollama 把 {arch} 的 {sliding} 个滑动窗口层各按 {parallel} × {window} + 批 {batch} = {cells} 个 token 计（fs/ggml GraphSize），{global} 个全局层按 {ctx} 计。"
                ),
            ),
            None => (
                en!(
                    "Ollama's estimate sizes all {sliding} sliding-window layers of {arch} at the whole context ({ctx} tokens), as it does every layer of this family; llama.cpp's cache for them holds only the window, so the estimate is the larger."
                ),
                zh!(
                    "Ollama 的估算把 {arch} 的全部 {sliding} 个滑动窗口层按整个上下文（{ctx} 个 token）计，这一族的每层都如此；llama.cpp 给它们的缓存只存窗口，所以估算更大。"
                ),
            ),
        })
    }
}
