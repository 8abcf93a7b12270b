//! Inference with Hugging Face transformers: `generate` over a batch of prompts, the peak at the
//! prefill or at the last generated token.

use super::ComponentKind;
use super::PeakSource;
use super::engine::{
    CardTraits, Context, ExpertParallel, Formats, LayerOffload, PastTrained, Required, Rules,
};
use super::{
    Formula, Kernel, Logits, Parts, Phase, Run, activations, b, cublas_workspace,
    per_gpu_weight_bytes, thousands,
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
    dequantizes_gguf: true,
    decompressed_mla: true,
    expert_parallel: ExpertParallel::None,
    downcasts_fp32: false,
    native_kv_formats: false,
    flash_only_when_asked: false,
    library_names: false,
    runtime: Runtime::Transformers,
    formats: Formats::Bitsandbytes,
    reads: CardTraits {
        workspace: true,
        vllm_defaults: false,
        memory: false,
    },
};

impl Run<'_> {
    pub(super) fn hf_inference(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let a = &self.arch;
        let w = per_gpu_weight_bytes(a, self.dtype, &self.quantization, self.tp, self.pp);
        let w = if a.is_detailed() {
            w
        } else {
            self.opaque_weights()
        };
        p.add(
            ComponentKind::Weights,
            w,
            true,
            self.weights_formula(w),
            en_str!("Every weight tensor in its stored format."),
            zh_str!("每个权重张量按其存储格式计。"),
        );
        let layers = a.num_layers.div_ceil(self.pp);
        let (kv_end, kv_text) =
            self.kv_bytes(self.batch, self.seq_len + self.new_tokens, layers, true);
        let (kv_prefill, _) = self.kv_bytes(self.batch, self.seq_len, layers, true);
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
        let tokens = self.batch.saturating_mul(seq);
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
        let vocab = a.vocab_size;
        let kept = if self.logits == Logits::All {
            self.seq_len
        } else {
            1
        };
        // At the LM head every block's tensors are freed: the final norm's output and the
        // logits it gives are what is alive (a forward without labels returns them in the model's
        // dtype; generate copies only the last position to fp32, in its decode term).
        let (logits, head_input) = if a.is_generative() && vocab > 0 {
            (
                self.batch
                    .saturating_mul(kept)
                    .saturating_mul(vocab)
                    .saturating_mul(act),
                self.batch
                    .saturating_mul(self.main_seq())
                    .saturating_mul(a.hidden_size)
                    .saturating_mul(act),
            )
        } else {
            (0, 0)
        };
        let decoder_prefill = kv_prefill
            .saturating_add(cross)
            .saturating_add(acts.max(logits.saturating_add(head_input)));
        let prefill = decoder_prefill.max(acts_encoder);
        // Each generated token: the cache of prompt and output, the last position's logits and
        // generate's fp32 copy of them. A prefill alone (no new tokens) has no such step.
        let decode_logits = if self.new_tokens > 0 {
            self.batch * vocab * (act + 4)
        } else {
            0
        };
        let decode = if self.new_tokens > 0 {
            kv_end.saturating_add(cross).saturating_add(decode_logits)
        } else {
            0
        };
        let phase = if !a.is_detailed() && !a.has_image_counts() {
            Phase::Load
        } else if prefill >= decode {
            Phase::Prefill
        } else {
            Phase::Decode
        };
        let ws = cublas_workspace(self.hopper()).get();
        p.peak = Some(w.saturating_add(prefill.max(decode)).saturating_add(ws));
        let kv_note = if phase == Phase::Prefill && acts_encoder > decoder_prefill {
            formula!(self.text; text " (none of it exists yet at the peak, the encoder's pass)", "（峰值在编码器前向时，此时尚未分配）")
        } else if phase == Phase::Prefill && kv_end > kv_prefill {
            formula!(self.text;
                let filled = b(kv_prefill + cross);
                [" (at the prefill peak {filled} of it is filled)"],
                ["（预填充峰值时已填充 {filled}）"]
            )
        } else {
            Formula::default()
        };
        let cross_text = if cross > 0 {
            formula!(self.text;
                let (hidden, seqs, size) = (a.hidden_size, self.batch, b(cross));
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
        p.add(
            ComponentKind::KvCache,
            kv_end.saturating_add(cross),
            true,
            formula!(self.text;
                ["{}{}{}", kv_text.en, cross_text.en, kv_note.en],
                ["{}{}{}", kv_text.zh, cross_text.zh, kv_note.zh]
            ),
            en_str!("Keys and values of every past token; HF's cache grows to prompt + generated tokens."),
            zh_str!("每个历史 token 的 K 与 V；HF 缓存随提示与生成 token 增长。"),
        );
        let acts_shown = acts.max(acts_encoder);
        let logits_shown = logits.max(decode_logits);
        if a.is_detailed() {
            let eager_text = if self.kernel == Kernel::Eager {
                let (batch, heads, bytes) = (self.batch, a.num_heads, s2 / a.num_heads.max(1));
                formula!(self.text;
                    [" + eager scores {batch} × {heads} heads × {seq}² × {bytes} B"],
                    [" + eager 注意力分数 {batch} × {heads} 个头 × {seq}² × {bytes} B"]
                )
            } else {
                Formula::default()
            };
            p.add(
                ComponentKind::Activations,
                acts_shown,
                true,
                formula!(self.text;
                    let (tokens, size) = (thousands(tokens), b(acts_shown));
                    [
                        "{tokens} tokens × {per_tok} B per token in the widest op of one block{} = {size}",
                        eager_text.en
                    ],
                    [
                        "{tokens} token × {per_tok} B 每 token，取一个块内最宽的算子{} = {size}",
                        eager_text.zh
                    ]
                ),
                en_str!("Inference frees each block's tensors before the next: only one block's are alive."),
                zh_str!("推理时每层张量用完即释放：同一时刻只有一层的中间结果。"),
            );
        } else if a.has_image_counts() {
            p.add(
                ComponentKind::Activations,
                acts_shown,
                true,
                formula!(self.text;
                    [
                        "{} {} × {} elements alive at the widest point of the forward pass ({s} × {s} pixels) × {act} B = {}",
                        self.batch,
                        if self.batch == 1 { "image" } else { "images" },
                        thousands(a.image_working),
                        b(acts),
                        s = a.image_size,
                    ],
                    [
                        "{} 张图像 × {} 个元素，前向传播最宽处同时存活（{s} × {s} 像素）× {act} B = {}",
                        self.batch,
                        thousands(a.image_working),
                        b(acts),
                        s = a.image_size,
                    ]
                ),
                en_str!("Counted layer by layer over the network: inference frees each layer's input once nothing reads it."),
                zh_str!("逐层计数：推理时每层的输入在无人再读后即释放。"),
            );
        } else {
            p.add(
                ComponentKind::Activations,
                acts_shown,
                true,
                formula!(self.text;
                    ["0.2 × weights (the guide's 10–30 %) = {}", b(acts)],
                    ["0.2 × 权重（指南的 10–30 %) = {}", b(acts)]
                ),
                en_str!("Only the parameter count is known: the guide's rule."),
                zh_str!("仅知参数量：采用指南经验值。"),
            );
        }
        if logits_shown > 0 {
            let text = if logits >= decode_logits {
                formula!(self.text;
                    let (batch, seq, hidden, size) = (self.batch, self.main_seq(), a.hidden_size, b(logits));
                    [
                        "{batch} × {kept} × {vocab} vocab × {act} B = {size}, alive at the head with the final norm's output {batch} × {seq} × {hidden} hidden × {act} B (the prefill holds the larger of these two and one block)"
                    ],
                    [
                        "{batch} × {kept} × {vocab} 词表 × {act} B = {size}，在输出头处与最后一个归一化的输出 {batch} × {seq} × {hidden} 隐藏维度 × {act} B 同时存在（预填充取这两者与一个块中的较大者）"
                    ]
                )
            } else {
                formula!(self.text;
                    let (batch, size) = (self.batch, b(decode_logits));
                    ["{batch} × {vocab} vocab × ({act} B + 4 B fp32 copy) of the last position = {size}"],
                    ["{batch} × {vocab} 词表 × ({act} B + 4 B fp32 副本)，末位置 = {size}"]
                )
            };
            p.add(
                ComponentKind::Logits,
                logits_shown,
                true,
                text,
                en_str!("The LM head's output; generate keeps the last position in fp32."),
                zh_str!("语言模型头的输出；generate 以 fp32 保存最后位置。"),
            );
        }
        self.context_and_workspace(p);
        (phase, 0, 0)
    }
}
