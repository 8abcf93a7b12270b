//! Inference with Hugging Face transformers: `generate` over a batch of prompts, the peak at the
//! prefill or at the last generated token.

use super::ComponentKind;
use super::PeakSource;
use super::engine::{
    CardTraits, Context, ExpertParallel, Formats, LayerOffload, PastTrained, Required, Rules,
};
use super::hf_images::HfImages;
use super::state::{StateFigures, StateLayout};
use super::{
    Formula, Kernel, Logits, Parts, Phase, Run, activations, b, cublas_workspace, thousands,
};
use crate::precision::KvDtype;
use crate::throughput::Runtime;
use crate::units::Bytes;

/// Hugging Face transformers' decisions: PyTorch's allocator, the prompt as its context, an
/// MLA cache kept decompressed, a GGUF file dequantized on load.
pub(super) const RULES: Rules = Rules {
    name: "Hugging Face transformers",
    peak: PeakSource::Torch,
    kv_dtypes: Some(&[KvDtype::Auto, KvDtype::Fp16, KvDtype::Bf16]),
    required: Required::Total,
    context: Context::Prompt,
    past_trained: PastTrained::Runs,
    offload: LayerOffload::None,
    output_layer_first: false,
    dequantizes_gguf: true,
    decompressed_mla: true,
    indexer_keys: super::engine::IndexerKeys::ActivationDtype,
    delta_net_with_plain_attention: true,
    gemma4_layers: true,
    pooled_indexer: true,
    step3p5_layers: true,
    compressed_cache: crate::estimate::engine::CompressedCache::Transformers,
    gemma4_full_qkv: false,
    gemma3n_full_qkv: false,
    expert_parallel: ExpertParallel::None,
    fp32_auto: crate::estimate::engine::Fp32Auto::Keeps,
    native_kv_formats: false,
    flash_only_when_asked: false,
    expert_offload: false,
    unlike_cards: super::engine::UnlikeCards::EqualShards,
    library_names: false,
    dp_attention: false,
    copies_share_requests: false,
    runtime: Runtime::Transformers,
    formats: Formats::Bitsandbytes,
    reads: CardTraits {
        workspace: true,
        vllm_defaults: false,
        memory: false,
    },
};

/// Every number of a transformers inference run and no text: what [`Run::hf_inference`] adds to
/// the parts, and what [`Run::hf_components`] writes the formulas of.
pub(super) struct HfFigures {
    /// The weights in their stored format.
    pub(super) weights: u64,
    /// Layers on this GPU.
    pub(super) layers: u64,
    /// The KV cache of prompt and output (at the last token), and of the prompt (at the prefill).
    pub(super) kv_end: u64,
    pub(super) kv_prefill: u64,
    /// A hybrid model's fixed-size state, alive from the prefill on.
    pub(super) state: StateFigures,
    /// Whisper's cross-attention keys and values and the encoder's output (0 without frames).
    pub(super) cross: u64,
    /// Bytes per token in the widest op of one block, and the eager scores' bytes per token².
    pub(super) per_token: u64,
    pub(super) scores: u64,
    /// The encoder's frames (0 for a model without an encoder).
    pub(super) frames: u64,
    /// The longer pass's tokens per sequence, and over the batch.
    pub(super) seq: u64,
    pub(super) tokens: u64,
    /// The decoder's (or the whole model's) activations, and the encoder's pass.
    pub(super) acts: u64,
    pub(super) acts_encoder: u64,
    /// Positions whose logits are kept at the prefill.
    pub(super) kept: u64,
    /// The prefill's logits, and the final norm's output alive with them at the head.
    pub(super) logits: u64,
    #[cfg_attr(not(feature = "moments"), allow(dead_code))]
    pub(super) head_input: u64,
    /// The decoder's prefill: its cache, the cross-attention, and the larger of one block and
    /// the head (the logits and the final norm's output).
    pub(super) decoder_prefill: u64,
    /// Each generated token's logits and generate's fp32 copy (0 without new tokens).
    pub(super) decode_logits: u64,
    /// The vision tower's forward on the batch's images, before the decoder's prefill.
    pub(super) images: Option<HfImages>,
    /// Where the peak is: the prefill (with the encoder's pass) or the last generated token.
    pub(super) phase: Phase,
    /// PyTorch-allocated bytes at the peak.
    pub(super) peak: u64,
}

impl Run<'_> {
    /// `generate` with transformers: its figures (numbers alone), their components with the
    /// text, the CUDA context and cuBLAS workspace.
    pub(super) fn hf_inference(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let f = self.hf_figures();
        p.peak = Some(f.peak);
        self.hf_components(&f, p);
        #[cfg(feature = "moments")]
        {
            p.step = self.hf_moments(&f);
        }
        self.context_and_workspace(p);
        self.mla_release_note(p);
        (f.phase, 0, 0)
    }

    /// An MLA model's cache depends on the transformers release (`hf_version.rs`): said, with
    /// how much the other releases keep.
    fn mla_release_note(&self, p: &mut Parts) {
        let Some(m) = self.arch.mla.filter(|_| self.rules().decompressed_mla) else {
            return;
        };
        if self.arch.indexer.is_some() || self.arch.hybrid.is_some() {
            return;
        }
        let latent = m.kv_lora_rank + m.qk_rope_head_dim;
        let full = self.arch.num_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim);
        let ratio = full / latent.max(1);
        let v = self.transformers_version.text();
        if self.mla_decompressed() {
            p.note(
                "hf_mla_release",
                en!("transformers {v} caches every head's decompressed keys and values ({full} values per token per layer); from 5.15 it caches the compressed latent ({latent}), {ratio}x less."),
                zh!("transformers {v} 缓存每个头解压后的键和值（每 token 每层 {full} 个值）；从 5.15 起缓存压缩的潜向量（{latent} 个），少 {ratio} 倍。"),
            );
        } else {
            p.note(
                "hf_mla_release",
                en!("transformers {v} caches MLA's compressed latent ({latent} values per token per layer); 4.x to 5.14 cached every head's decompressed keys and values ({full}), {ratio}x more: give engine_version for an older release."),
                zh!("transformers {v} 缓存 MLA 的压缩潜向量（每 token 每层 {latent} 个值）；4.x 到 5.14 缓存每个头解压后的键和值（{full} 个），多 {ratio} 倍：旧版本请给出 engine_version。"),
            );
        }
    }

    /// The figures of `generate`: the weights, the cache at the prefill and at the last token,
    /// one block's activations, the logits, and which of the two phases peaks.
    fn hf_figures(&self) -> HfFigures {
        let a = &self.arch;
        let w = if a.is_detailed() {
            self.weight_split().all
        } else {
            self.opaque_weights()
        };
        // The cache's layers: the model's, or those assumed for a bare parameter count.
        let layers = self.cache_arch().num_layers.div_ceil(self.pp);
        let numbers = Run::new(self.w, false);
        // A sliding layer holds the prompt's whole keys and values until the first decode step.
        let (kv_end, _) = numbers.kv_bytes_held(
            self.batch,
            self.seq_len + self.new_tokens,
            layers,
            self.mla_decompressed(),
            self.seq_len,
        );
        let (kv_prefill, _) = numbers.kv_bytes_held(
            self.batch,
            self.seq_len,
            layers,
            self.mla_decompressed(),
            self.seq_len,
        );
        let state = self.state_figures(self.batch, layers, StateLayout::Transformers);
        let act = self.act_bytes();
        let (per_tok, s2) = activations::hf_inference_per_token(a, act);
        // One block at a time. Whisper runs its encoder over the 1,500 frames first, then the
        // decoder over the prompt: the two passes peak apart.
        let (_, frames) = self.encoder_stack();
        let one_block = |seq: u64| {
            let eager = if self.kernel == Kernel::Eager {
                self.batch
                    .saturating_mul(s2)
                    .saturating_mul(seq)
                    .saturating_mul(seq)
            } else {
                0
            };
            self.batch
                .saturating_mul(seq)
                .saturating_mul(per_tok)
                .div_ceil(self.tp)
                .saturating_add(eager.div_ceil(self.tp))
        };
        let seq = self.main_seq().max(frames);
        let (acts, acts_encoder) = if a.is_detailed() {
            (one_block(self.main_seq()), one_block(frames))
        } else if a.has_image_counts() {
            (self.image_inference_bytes(), 0)
        } else {
            (Bytes::from_f64(0.2 * w as f64).get(), 0)
        };
        // Whisper's decoder keeps the encoder's output and every layer's cross-attention keys
        // and values from its first step to its last (nothing for a model without frames).
        let cross = self
            .kv_dtype
            .bytes_for(
                self.cross_kv_elements(layers).saturating_mul(self.batch),
                self.act_kv_dtype(),
            )
            .saturating_add(
                self.batch
                    .saturating_mul(frames)
                    .saturating_mul(a.hidden_size)
                    .saturating_mul(act),
            );
        let kept = if self.logits == Logits::All {
            self.seq_len
        } else {
            1
        };
        let (logits, head_input) = self.hf_head(kept);
        let decoder_prefill = kv_prefill
            .saturating_add(state.bytes)
            .saturating_add(cross)
            .saturating_add(acts.max(logits.saturating_add(head_input)));
        // The images' encoder runs before the decoder's prefill; their fp32 pixels stay with
        // the caller's inputs through `generate` (`hf_images.rs`).
        let images = self.hf_images(decoder_prefill);
        let pixels = images.map_or(0, |i| i.input);
        let prefill = decoder_prefill
            .saturating_add(images.map_or(0, |i| i.extra()))
            .max(acts_encoder);
        // Each generated token: the cache of prompt and output, the last position's logits and
        // generate's fp32 copy of them. A prefill alone (no new tokens) has no such step.
        let decode_logits = if self.new_tokens > 0 {
            self.batch * a.vocab_size * (act + 4)
        } else {
            0
        };
        let decode = if self.new_tokens > 0 {
            kv_end
                .saturating_add(state.bytes)
                .saturating_add(cross)
                .saturating_add(decode_logits)
                .saturating_add(pixels)
        } else {
            0
        };
        // A bare parameter count peaks as a decoder too: its cache is counted from the shape
        // assumed for it.
        let phase = if prefill >= decode {
            Phase::Prefill
        } else {
            Phase::Decode
        };
        let ws = cublas_workspace(self.hopper()).get();
        HfFigures {
            weights: w,
            layers,
            kv_end,
            kv_prefill,
            state,
            cross,
            per_token: per_tok,
            scores: s2,
            frames,
            seq,
            tokens: self.batch.saturating_mul(seq),
            acts,
            acts_encoder,
            kept,
            logits,
            head_input,
            decoder_prefill,
            decode_logits,
            images,
            phase,
            peak: w.saturating_add(prefill.max(decode)).saturating_add(ws),
        }
    }

    /// The logits of `kept` positions and the final norm's output they are computed from. At the
    /// LM head every block's tensors are freed: these are what is alive (a forward without labels
    /// returns them in the model's dtype; generate copies only the last position to fp32, in its
    /// decode term).
    fn hf_head(&self, kept: u64) -> (u64, u64) {
        let a = &self.arch;
        // A pooling run (sentence-transformers' `AutoModel`) ends at the last hidden state.
        if !a.is_generative() || a.vocab_size == 0 || self.pooling {
            return (0, 0);
        }
        let act = self.act_bytes();
        (
            self.batch
                .saturating_mul(kept)
                .saturating_mul(a.vocab_size)
                .saturating_mul(act),
            self.batch
                .saturating_mul(self.main_seq())
                .saturating_mul(a.hidden_size)
                .saturating_mul(act),
        )
    }

    /// The components of `generate` from its figures, with their formulas and notes in both
    /// languages (when the run builds text).
    fn hf_components(&self, f: &HfFigures, p: &mut Parts) {
        let a = &self.arch;
        p.add(
            ComponentKind::Weights,
            f.weights,
            true,
            self.weights_formula(f.weights),
            en_str!("Every weight tensor in its stored format."),
            zh_str!("每个权重张量按其存储格式计。"),
        );
        p.add(
            ComponentKind::KvCache,
            f.kv_end.saturating_add(f.cross),
            true,
            self.hf_kv_text(f),
            en_str!("Keys and values of every past token; HF's cache grows to prompt + generated tokens."),
            zh_str!("每个历史 token 的 K 与 V；HF 缓存随提示与生成 token 增长。"),
        );
        if f.state.bytes > 0 {
            p.add(
                ComponentKind::StateCache,
                f.state.bytes,
                true,
                self.state_text(&f.state, self.batch, StateLayout::Transformers),
                en_str!("Linear-attention and state-space layers keep one fixed-size state per sequence (transformers' LinearAttentionLayer), whatever the context."),
                zh_str!("线性注意力与状态空间层每条序列只保存一份固定大小的状态（transformers 的 LinearAttentionLayer），与上下文长度无关。"),
            );
        }
        let acts_shown = f.acts.max(f.acts_encoder);
        let (en, zh) = if a.is_detailed() {
            (
                en_str!(
                    "Inference frees each block's tensors before the next: only one block's are alive."
                ),
                zh_str!("推理时每层张量用完即释放：同一时刻只有一层的中间结果。"),
            )
        } else if a.has_image_counts() {
            (
                en_str!(
                    "Counted layer by layer over the network: inference frees each layer's input once nothing reads it."
                ),
                zh_str!("逐层计数：推理时每层的输入在无人再读后即释放。"),
            )
        } else {
            (
                en_str!("Only the parameter count is known: the guide's rule."),
                zh_str!("仅知参数量：采用指南经验值。"),
            )
        };
        p.add(
            ComponentKind::Activations,
            acts_shown,
            true,
            self.hf_activations_text(f, acts_shown),
            en,
            zh,
        );
        if let Some(i) = &f.images {
            p.add(
                ComponentKind::EncoderActivations,
                i.extra(),
                true,
                self.hf_images_text(i),
                en_str!("The vision tower runs on the batch's images before the decoder's prefill: the processor's fp32 pixels (kept by generate's inputs to the end) and the encoder's peak where it rises above the decoder's prefill with the image embeddings on top (flash/SDPA attention unless attn_implementation is eager)."),
                zh_str!("视觉编码器在解码器预填充之前处理批次中的图像：处理器给出的 fp32 像素（generate 的输入一直保留到结束），以及编码器峰值高出“解码器预填充 + 图像嵌入”的部分（除非 attn_implementation 为 eager，否则为 flash/SDPA 注意力）。"),
            );
        }
        let logits_shown = f.logits.max(f.decode_logits);
        if logits_shown > 0 {
            p.add(
                ComponentKind::Logits,
                logits_shown,
                true,
                self.hf_logits_text(f),
                en_str!("The LM head's output; generate keeps the last position in fp32."),
                zh_str!("语言模型头的输出；generate 以 fp32 保存最后位置。"),
            );
        }
    }

    /// The KV cache's formula: the cache at the last token, Whisper's cross-attention, and how
    /// much of it the prefill's peak holds.
    fn hf_kv_text(&self, f: &HfFigures) -> Formula {
        if !self.text {
            return Formula::default();
        }
        let (_, kv_text) = self.kv_bytes_held(
            self.batch,
            self.seq_len + self.new_tokens,
            f.layers,
            self.mla_decompressed(),
            self.seq_len,
        );
        let kv_note = if f.phase == Phase::Prefill && f.acts_encoder > f.decoder_prefill {
            formula!(self.text; text " (none of it exists yet at the peak, the encoder's pass)", "（峰值在编码器前向时，此时尚未分配）")
        } else if f.phase == Phase::Prefill && f.kv_end > f.kv_prefill {
            formula!(self.text;
                let filled = b(f.kv_prefill + f.cross);
                [" (at the prefill peak {filled} of it is filled)"],
                ["（预填充峰值时已填充 {filled}）"]
            )
        } else {
            Formula::default()
        };
        let cross_text = if f.cross > 0 {
            let (frames, layers) = (f.frames, f.layers);
            formula!(self.text;
                let (hidden, seqs, size) = (self.arch.hidden_size, self.batch, b(f.cross));
                [
                    " + cross-attention K and V of {frames} encoder frames × {layers} layers and the encoder's output ({hidden} hidden) × {seqs} seq = {size}"
                ],
                [
                    " + 交叉注意力 KV：{frames} 个编码器帧 × {layers} 层，以及编码器输出（{hidden} 隐藏维度）× {seqs} 条序列 = {size}"
                ]
            )
        } else {
            Formula::default()
        };
        formula!(self.text;
            ["{}{}{}", kv_text.en, cross_text.en, kv_note.en],
            ["{}{}{}", kv_text.zh, cross_text.zh, kv_note.zh]
        )
    }

    /// The activations' formula: one block's widest op, an image network's layers, or the
    /// guide's share of the weights.
    // Built without a language, the last two branches are the same empty formula.
    #[cfg_attr(
        not(any(feature = "en", feature = "zh")),
        allow(clippy::if_same_then_else)
    )]
    fn hf_activations_text(&self, f: &HfFigures, acts_shown: u64) -> Formula {
        let a = &self.arch;
        let act = self.act_bytes();
        if a.is_detailed() {
            let (per_tok, seq) = (f.per_token, f.seq);
            let eager_text = if self.kernel == Kernel::Eager {
                let (batch, heads, bytes) =
                    (self.batch, a.num_heads, f.scores / a.num_heads.max(1));
                formula!(self.text;
                    [" + eager scores {batch} × {heads} heads × {seq}² × {bytes} B"],
                    [" + eager 注意力分数 {batch} × {heads} 个头 × {seq}² × {bytes} B"]
                )
            } else {
                Formula::default()
            };
            formula!(self.text;
                let (tokens, size) = (thousands(f.tokens), b(acts_shown));
                [
                    "{tokens} tokens × {per_tok} B per token in the widest op of one block{} = {size}",
                    eager_text.en
                ],
                [
                    "{tokens} token × {per_tok} B 每 token，取一个块内最宽的算子{} = {size}",
                    eager_text.zh
                ]
            )
        } else if a.has_image_counts() {
            formula!(self.text;
                [
                    "{} {} × {} elements alive at the widest point of the forward pass ({s} × {s} pixels) × {act} B = {}",
                    self.batch,
                    if self.batch == 1 { "image" } else { "images" },
                    thousands(a.image_working),
                    b(f.acts),
                    s = a.image_size,
                ],
                [
                    "{} 张图像 × {} 个元素，前向传播最宽处同时存活（{s} × {s} 像素）× {act} B = {}",
                    self.batch,
                    thousands(a.image_working),
                    b(f.acts),
                    s = a.image_size,
                ]
            )
        } else {
            formula!(self.text;
                ["0.2 × weights (the guide's 10–30 %) = {}", b(f.acts)],
                ["0.2 × 权重（指南的 10–30 %) = {}", b(f.acts)]
            )
        }
    }

    /// The logits' formula: the prefill's, with the final norm's output, or the last
    /// position's with generate's fp32 copy.
    fn hf_logits_text(&self, f: &HfFigures) -> Formula {
        let a = &self.arch;
        let (act, kept, vocab) = (self.act_bytes(), f.kept, a.vocab_size);
        if f.logits >= f.decode_logits {
            formula!(self.text;
                let (batch, seq, hidden, size) = (self.batch, self.main_seq(), a.hidden_size, b(f.logits));
                [
                    "{batch} × {kept} × {vocab} vocab × {act} B = {size}, alive at the head with the final norm's output {batch} × {seq} × {hidden} hidden × {act} B (the prefill holds the larger of these two and one block)"
                ],
                [
                    "{batch} × {kept} × {vocab} 词表 × {act} B = {size}，在输出头处与最后一个归一化的输出 {batch} × {seq} × {hidden} 隐藏维度 × {act} B 同时存在（预填充取这两者与一个块中的较大者）"
                ]
            )
        } else {
            formula!(self.text;
                let (batch, size) = (self.batch, b(f.decode_logits));
                ["{batch} × {vocab} vocab × ({act} B + 4 B fp32 copy) of the last position = {size}"],
                ["{batch} × {vocab} 词表 × ({act} B + 4 B fp32 副本)，末位置 = {size}"]
            )
        }
    }
}
