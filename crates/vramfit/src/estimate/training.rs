//! Training and fine-tuning: weights, gradients, optimizer states, saved activations and the
//! step's temporaries under each precision regime, LoRA/QLoRA, ZeRO with offload, and parallelism.

use super::ComponentKind;
use super::PeakSource;
use super::engine::{
    CardTraits, Context, ExpertParallel, Formats, LayerOffload, PastTrained, Required, Rules,
};
use super::{
    Checkpointing, Formula, Offload, Optimizer, Parts, Phase, Precision, Run, Trainable,
    activations, b, per_gpu_weight_bytes, role_bit, thousands, weights,
};
use crate::model::Role;
use crate::precision::{Dtype, Quantization};
use crate::throughput::Runtime;
use crate::units::Bytes;
use alloc::format;
use alloc::string::String;

/// Training's decisions: PyTorch's allocator, the sequence as its context, a GGUF file
/// dequantized on load.
pub(super) const RULES: Rules = Rules {
    name: "training",
    peak: PeakSource::Torch,
    kv_dtypes: None,
    required: Required::Total,
    context: Context::Sequence,
    past_trained: PastTrained::Runs,
    offload: LayerOffload::None,
    dequantizes_gguf: true,
    decompressed_mla: true,
    expert_parallel: ExpertParallel::None,
    downcasts_fp32: false,
    native_kv_formats: false,
    flash_only_when_asked: false,
    runtime: Runtime::Transformers,
    formats: Formats::Checkpoint,
    reads: CardTraits {
        workspace: true,
        vllm_defaults: false,
        memory: false,
    },
};

impl Run<'_> {
    #[allow(clippy::too_many_lines)]
    pub(super) fn training(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let a = &self.arch;
        let reg = self.precision;
        let lora = self.lora_rank > 0;
        let detailed = a.is_detailed();
        let params = a.params();
        let zero = self.zero;
        // Master weights, gradients and optimizer states: fp32 under mixed precision. PEFT keeps
        // LoRA adapters in fp32 whatever the base's dtype (`autocast_adapter_dtype=True`), with
        // their gradients and states; DeepSpeed holds them as the rest of the model.
        let sb = if lora && zero == 0 {
            4
        } else {
            reg.state_bytes()
        };
        let act = reg.act_bytes();
        // Trainable parameters: all, or LoRA's r × (in + out) per targeted projection.
        let mask = self.lora_mask;
        let lora_of = |t: &crate::model::Tensor| {
            if lora && t.role.is_block_linear() && mask & role_bit(t.role) != 0 {
                self.lora_rank
                    .saturating_mul(t.rows_in + t.rows_out)
                    .saturating_mul(t.count)
            } else {
                0
            }
        };
        let lora_params = weights::total(a, lora_of);
        let trainable = if lora { lora_params } else { params };
        // What one GPU holds of a per-tensor quantity: the busiest tensor × pipeline shard (with
        // pipeline stages, the last one holds the head besides its layers).
        let shards = self.tp * self.pp;
        let busiest = |f: &dyn Fn(&crate::model::Tensor) -> u64, total: u64| {
            if detailed {
                weights::busiest_gpu(a, self.tp, self.pp, f)
            } else {
                total.div_ceil(shards)
            }
        };
        // The trainable parameters of that GPU.
        let t_shard = if lora {
            busiest(&lora_of, lora_params)
        } else {
            busiest(&|t| t.numel(), params)
        };
        let dp = self.dp;
        let offload = self.offload != Offload::None;
        // Weights.
        let base_dtype = if reg == Precision::Fp32 {
            Dtype::Fp32
        } else if lora || zero > 0 {
            // LoRA loads the base in the model dtype; ZeRO keeps bf16/fp16 model weights and fp32 masters in the optimizer.
            match reg {
                Precision::Fp16 | Precision::AmpFp16 => Dtype::Fp16,
                _ => Dtype::Bf16,
            }
        } else if reg.fp32_master() {
            Dtype::Fp32
        } else if reg == Precision::Fp16 {
            Dtype::Fp16
        } else {
            Dtype::Bf16
        };
        // Autocast runs matmuls in 16 bits and its fp32 list in fp32, whatever the weights' dtype;
        // over fp32 weights the residual stream stays fp32.
        let compute = activations::Compute {
            act,
            resid: if base_dtype == Dtype::Fp32 { 4 } else { act },
            autocast: matches!(reg, Precision::AmpBf16 | Precision::AmpFp16),
            kernel: self.kernel,
            tp: self.tp,
        };
        let q = if self.qlora {
            Quantization::BnbNf4 { double_quant: true }
        } else if lora {
            self.quantization
        } else {
            Quantization::None
        };
        let mut w = if detailed {
            per_gpu_weight_bytes(a, base_dtype, &q, self.tp, self.pp)
        } else {
            params.saturating_mul(base_dtype.bits() as u64 / 8)
        };
        let mut w_text: Formula = if detailed {
            self.weights_formula_train(w, base_dtype, &q)
        } else {
            formula!(self.text;
                let (n, per, size) = (thousands(params), base_dtype.bits() / 8, b(w));
                ["{n} params × {per} B = {size}"],
                ["{n} 个参数 × {per} B = {size}"]
            )
        };
        if self.qlora {
            // prepare_model_for_kbit_training casts the unquantized parameters (embeddings, head, norms) to fp32.
            let unquantized = |t: &crate::model::Tensor| {
                if weights::is_quantized(&q, a, t) {
                    0
                } else {
                    t.numel()
                }
            };
            let unq = weights::total(a, unquantized);
            let extra = busiest(&unquantized, unq).saturating_mul(2);
            w = w.saturating_add(extra);
            w_text = formula!(self.text;
                let (unq, extra) = (thousands(unq), b(extra));
                [
                    "{} + {unq} unquantized params upcast to fp32 by prepare_model_for_kbit_training (+{extra})",
                    w_text.en
                ],
                [
                    "{} + {unq} 个未量化参数被升为 fp32（prepare_model_for_kbit_training） (+{extra})",
                    w_text.zh
                ]
            );
        }
        if lora {
            // DeepSpeed holds the whole model, adapters included, in 16 bits (their fp32 masters
            // are in the optimizer partition); without ZeRO, PEFT keeps the adapters in fp32.
            let ab = if zero > 0 { act } else { sb };
            let adapters = t_shard.saturating_mul(ab);
            w = w.saturating_add(adapters);
            w_text = formula!(self.text;
                let (n, size) = (thousands(t_shard), b(adapters));
                ["{} + LoRA adapters {n} × {ab} B = {size}", w_text.en],
                ["{} + LoRA 适配器 {n} × {ab} B = {size}", w_text.zh]
            );
        }
        // ZeRO-3 partitions the weights too, the frozen base of a LoRA run included (PEFT's
        // DeepSpeed guide runs Llama-2-70B LoRA this way on 8 GPUs).
        let mut live_params = 0;
        if zero == 3 {
            let layer_params = params / a.num_layers.max(1);
            live_params = layer_params
                .saturating_mul(2)
                .saturating_mul(2)
                .div_ceil(self.tp);
            w = if offload { 0 } else { w.div_ceil(dp) };
            w_text = formula!(self.text;
                [
                    "{}, partitioned over {dp} data-parallel ranks (ZeRO-3){}",
                    w_text.en,
                    if offload { ", offloaded" } else { "" }
                ],
                [
                    "{}，切分到 {dp} 个数据并行 rank (ZeRO-3){}",
                    w_text.zh,
                    if offload { "，已卸载" } else { "" }
                ]
            );
        }
        p.add(
            ComponentKind::Weights,
            w,
            true,
            w_text,
            en_str!("Model weights as held during training."),
            zh_str!("训练时保存的模型权重。"),
        );
        // Gradients (in the master dtype; under ZeRO in the model dtype, reduced into fp32 partitions).
        let grad_bytes = if zero > 0 { act } else { sb };
        let mut g = t_shard.saturating_mul(grad_bytes);
        let n_trainable = if self.text {
            thousands(t_shard)
        } else {
            String::new()
        };
        let mut g_text = formula!(self.text;
            ["{n_trainable} trainable params × {grad_bytes} B"],
            ["{n_trainable} 个可训练参数 × {grad_bytes} B"]
        );
        if zero >= 2 {
            g = if offload { 0 } else { g.div_ceil(dp) };
            g_text = formula!(self.text;
                [
                    "{} / {dp} ranks (ZeRO-{zero}){}",
                    g_text.en,
                    if offload {
                        ", reduced into CPU partitions"
                    } else {
                        ""
                    }
                ],
                [
                    "{} / {dp} 个 rank (ZeRO-{zero}){}",
                    g_text.zh,
                    if offload {
                        "，归约到 CPU 分区"
                    } else {
                        ""
                    }
                ]
            );
        }
        p.add(
            ComponentKind::Gradients,
            g,
            true,
            formula!(self.text; ["{} = {}", g_text.en, b(g)], ["{} = {}", g_text.zh, b(g)]),
            en_str!("One gradient per trainable parameter."),
            zh_str!("每个可训练参数一个梯度。"),
        );
        // Optimizer states.
        let (state_per_param, opt_name) = match self.optimizer {
            Optimizer::Adamw => (
                2 * sb,
                formula!(self.text; ["AdamW: 2 moments × {sb} B"], ["AdamW：2 个矩 × {sb} B"]),
            ),
            Optimizer::Adamw8bit => (
                2,
                formula!(self.text; text "8-bit AdamW: 2 moments × 1 B + an fp32 scale per 256 (blockwise, bitsandbytes)", "8-bit AdamW：2 个矩 × 1 B + fp32 缩放因子（每 256 个一个）（分块，bitsandbytes）"),
            ),
            Optimizer::Sgd => (0, formula!(self.text; text "SGD: no state", "SGD：无状态")),
            Optimizer::SgdMomentum => (
                sb,
                formula!(self.text;
                    ["SGD momentum: 1 state × {sb} B"],
                    ["SGD 动量：1 个状态 × {sb} B"]
                ),
            ),
            Optimizer::Lion => (
                sb,
                formula!(self.text; ["Lion: 1 momentum × {sb} B"], ["Lion：1 个动量 × {sb} B"]),
            ),
            Optimizer::Adafactor => (
                0,
                formula!(self.text; text "Adafactor: factored second moment (row + column per matrix, 4 B)", "Adafactor：分解的二阶矩（每个矩阵的行 + 列，4 B)"),
            ),
        };
        let mut o = t_shard.saturating_mul(state_per_param);
        if self.optimizer == Optimizer::Adamw8bit {
            // bitsandbytes quantizes each state in blocks of 256 with one fp32 absmax per block.
            o = o.saturating_add(t_shard.div_ceil(256).saturating_mul(8));
        }
        if self.optimizer == Optimizer::Adafactor {
            let factored = |t: &crate::model::Tensor| {
                if lora {
                    if t.role.is_block_linear() && mask & role_bit(t.role) != 0 {
                        (self.lora_rank * 2 + t.rows_in + t.rows_out) * 4 * t.count
                    } else {
                        0
                    }
                } else if t.rows_in > 1 {
                    (t.rows_in + t.rows_out) * 4 * t.count
                } else {
                    t.numel() * 4
                }
            };
            let total = weights::total(a, factored);
            o = busiest(&factored, total);
        }
        // ZeRO (DeepSpeed mixed precision) keeps fp32 master weights in the optimizer partition.
        let master = if zero > 0 && reg.fp32_master() && reg != Precision::Fp32 {
            t_shard * 4
        } else {
            0
        };
        let mut o_text = formula!(self.text;
            ["{n_trainable} trainable × ({})", opt_name.en],
            ["{n_trainable} 个可训练参数 × ({})", opt_name.zh]
        );
        if master > 0 {
            o = o.saturating_add(master);
            o_text = formula!(self.text;
                ["{} + fp32 master weights 4 B", o_text.en],
                ["{} + fp32 主权重 4 B", o_text.zh]
            );
        }
        if zero >= 1 {
            o = if offload { 0 } else { o.div_ceil(dp) };
            let cpu = self.offload == Offload::Cpu;
            o_text = formula!(self.text;
                [
                    "{} / {dp} ranks (ZeRO-{zero}){}",
                    o_text.en,
                    match (offload, cpu) {
                        (false, _) => "",
                        (true, true) => ", offloaded to CPU",
                        (true, false) => ", offloaded to NVMe",
                    }
                ],
                [
                    "{} / {dp} 个 rank (ZeRO-{zero}){}",
                    o_text.zh,
                    match (offload, cpu) {
                        (false, _) => "",
                        (true, true) => "，卸载到 CPU",
                        (true, false) => "，卸载到 NVMe",
                    }
                ]
            );
        }
        p.add(
            ComponentKind::Optimizer,
            o,
            true,
            formula!(self.text; ["{} = {}", o_text.en, b(o)], ["{} = {}", o_text.zh, b(o)]),
            en_str!("Optimizer states persist across steps."),
            zh_str!("优化器状态在各步之间常驻。"),
        );
        // Activations.
        let train = Trainable {
            all: !lora,
            lora_mask: if lora { mask } else { 0 },
            lora_rank: if lora { self.lora_rank } else { 0 },
            adapter_bytes: if zero > 0 { act } else { sb },
        };
        // The sequence through the main stack (a ViT's patches and class token, whatever
        // seq_len says) and, for Whisper, the encoder's fixed frames over its own layers.
        let seq = self.main_seq();
        let tokens = self.batch.saturating_mul(seq);
        let (enc_layers, enc_seq) = self.encoder_stack();
        // With full checkpointing, the block recomputed in backward (alive only once the loss's
        // tensors are freed).
        let mut recomputed = 0;
        let (acts, act_text) = if detailed {
            let (per_tok, s2) = activations::training_per_token(a, &compute, &train);
            let s2_total = if self.checkpointing == Checkpointing::None {
                s2
            } else {
                0
            };
            // What one block saves for a sequence of `s` tokens, over the batch.
            let block = |s: u64, s2: u64| {
                self.batch
                    .saturating_mul(s)
                    .saturating_mul(per_tok)
                    .saturating_add(
                        self.batch
                            .saturating_mul(s)
                            .saturating_mul(s)
                            .saturating_mul(s2),
                    )
            };
            // A Whisper decoder layer's cross-attention over the encoder's frames.
            let cross = |s2: u64| {
                if enc_layers == 0 {
                    return 0;
                }
                let (tok, frame) = activations::cross_attention_training(a, &compute, &train);
                self.batch.saturating_mul(
                    seq.saturating_mul(tok)
                        .saturating_add(enc_seq.saturating_mul(frame))
                        .saturating_add(seq.saturating_mul(enc_seq).saturating_mul(s2)),
                )
            };
            let resid = compute.resid;
            let enc_text = if enc_layers > 0 {
                let frames = self.batch * enc_seq;
                formula!(self.text;
                    [
                        " (+ {enc_layers} encoder blocks × {frames} frames, and each decoder block's cross-attention over them)"
                    ],
                    [
                        " (+ {enc_layers} 个编码器块 × {frames} 帧，以及每个解码器块对其的交叉注意力)"
                    ]
                )
            } else {
                Formula::default()
            };
            let (hidden, blocks) = (a.hidden_size, a.num_layers);
            let n_tokens = if self.text {
                thousands(tokens)
            } else {
                String::new()
            };
            match self.checkpointing {
                Checkpointing::Full => {
                    // The block inputs, and the encoder's output that every decoder block reads.
                    let kept = tokens
                        .saturating_mul(a.num_layers)
                        .saturating_add(self.batch * enc_seq * (enc_layers + enc_layers.min(1)))
                        .saturating_mul(resid * a.hidden_size);
                    let one = block(seq.max(enc_seq), s2).max(block(seq, s2) + cross(s2));
                    recomputed = one;
                    (
                        kept.saturating_add(one),
                        formula!(self.text;
                            [
                                "block inputs {n_tokens} tokens × {resid} B × {hidden} hidden × {blocks} blocks{} + one block recomputed ({per_tok} B per token; in backward, once the loss's tensors are freed) = {}",
                                enc_text.en,
                                b(kept + one)
                            ],
                            [
                                "块输入 {n_tokens} token × {resid} B × {hidden} 隐藏维度 × {blocks} 块{} + 重算一个块 ({per_tok} B 每 token；在反向中、损失的张量释放之后) = {}",
                                enc_text.zh,
                                b(kept + one)
                            ]
                        ),
                    )
                }
                _ => {
                    let total = block(seq, s2_total)
                        .saturating_add(cross(s2_total))
                        .saturating_mul(a.num_layers)
                        .saturating_add(block(enc_seq, s2_total).saturating_mul(enc_layers));
                    let s2_text = if s2_total > 0 {
                        let batch = self.batch;
                        formula!(self.text;
                            [" + {batch} × {seq}² × {s2_total} B (eager scores)"],
                            [" + {batch} × {seq}² × {s2_total} B（eager 注意力分数）"]
                        )
                    } else {
                        Formula::default()
                    };
                    (
                        total,
                        formula!(self.text;
                            let size = b(total);
                            [
                                "{n_tokens} tokens × {per_tok} B per token per block{} × {blocks} blocks{} = {size}",
                                s2_text.en,
                                enc_text.en
                            ],
                            [
                                "{n_tokens} token × {per_tok} B 每 token 每块{} × {blocks} 块{} = {size}",
                                s2_text.zh,
                                enc_text.zh
                            ]
                        ),
                    )
                }
            }
        } else if a.has_image_counts() {
            let x = self.image_training_bytes(act);
            (
                x,
                formula!(self.text;
                    [
                        "{} {} × ({} elements saved for backward × {act} B + {} max-pooling indices × 8 B) at {s} × {s} pixels = {}",
                        self.batch,
                        if self.batch == 1 { "image" } else { "images" },
                        thousands(a.image_activations),
                        thousands(a.image_indices),
                        b(x),
                        s = a.image_size,
                    ],
                    [
                        "{} 张图像 × ({} 个为反向保存的元素 × {act} B + {} 个最大池化索引 × 8 B)，输入 {s} × {s} 像素 = {}",
                        self.batch,
                        thousands(a.image_activations),
                        thousands(a.image_indices),
                        b(x),
                        s = a.image_size,
                    ]
                ),
            )
        } else {
            let x = Bytes::from_f64(0.35 * params as f64 * act as f64).get();
            (
                x,
                formula!(self.text;
                    [
                        "0.35 × weights at {act} B (the guide's 0.2–0.5 ×) = {}",
                        b(x)
                    ],
                    ["0.35 × 权重，每参数 {act} B（指南的 0.2–0.5 ×) = {}", b(x)]
                ),
            )
        };
        let acts = if self.pp > 1 {
            // 1F1B: the first stage holds pp micro-batches of its layers in flight.
            acts.div_ceil(self.pp).saturating_mul(self.pp.min(self.pp))
        } else {
            acts
        };
        p.add(
            ComponentKind::Activations,
            acts,
            true,
            act_text,
            en_str!("Tensors saved in forward for backward; frozen projections keep no input."),
            zh_str!("前向保存供反向使用的张量；冻结的投影不保存输入。"),
        );
        // The loss at the start of backward: the fp32 log-softmax (saved), the gradient of the
        // NLL and that of the logits, all fp32 whatever the compute dtype (the head's output and
        // its fp32 copy are freed once the loss is computed: the outputs are dropped, as Trainer
        // does).
        let logits = if a.is_generative() && a.vocab_size > 0 {
            tokens
                .saturating_mul(a.vocab_size)
                .saturating_mul(12)
                .div_ceil(self.tp)
        } else {
            0
        };
        if logits > 0 {
            let text = formula!(self.text;
                let (n, vocab, size) = (thousands(tokens), a.vocab_size, b(logits));
                [
                    "{n} tokens × {vocab} vocab × 12 B (fp32 log-softmax, its gradient and the logits' gradient) = {size}"
                ],
                [
                    "{n} token × {vocab} 词表 × 12 B（fp32 的 log-softmax、其梯度与 logits 的梯度） = {size}"
                ]
            );
            p.add(ComponentKind::Logits, logits, true, text, en_str!("The cross-entropy loss works on the logits in fp32; with a large vocabulary this is often the peak."), zh_str!("交叉熵损失以 fp32 处理 logits；词表大时常是峰值所在。"));
        }
        // End of backward: the embedding's dense gradient is built in a fresh buffer before it is
        // accumulated (twice the matrix when the head shares it: the head's gradient is already there).
        let emb_buf = if !lora && zero == 0 && detailed && a.vocab_size > 0 {
            let n = a
                .vocab_size
                .saturating_mul(a.hidden_size)
                .saturating_mul(grad_bytes);
            let copies = if a.tied_embeddings && a.is_generative() {
                2
            } else {
                1
            };
            n.saturating_mul(copies).div_ceil(self.tp)
        } else {
            0
        };
        if emb_buf > 0 {
            let tied = a.tied_embeddings && a.is_generative();
            let text = formula!(self.text;
                let (vocab, hidden, size) = (a.vocab_size, a.hidden_size, b(emb_buf));
                [
                    "{vocab} vocab × {hidden} hidden × {grad_bytes} B{} = {size}",
                    if tied {
                        " × 2 (tied with the head)"
                    } else {
                        ""
                    }
                ],
                [
                    "{vocab} 词表 × {hidden} 隐藏维度 × {grad_bytes} B{} = {size}",
                    if tied {
                        " × 2（与输出头共享）"
                    } else {
                        ""
                    }
                ]
            );
            p.add(ComponentKind::EmbeddingGradBuffer, emb_buf, true, text, en_str!("The embedding backward's dense gradient, alive with every other gradient at the end of backward."), zh_str!("反向传播末尾词嵌入的稠密梯度缓冲，与全部梯度同时存在。"));
        }
        // Autocast keeps bf16/fp16 copies of fp32 weights for backward.
        let casts = if matches!(reg, Precision::AmpBf16 | Precision::AmpFp16)
            && base_dtype == Dtype::Fp32
            && detailed
        {
            // The blocks' matrices and the head's, which a tied model reads from its embedding.
            let tied_head = a.tied_embeddings && a.is_generative();
            let matrix = |t: &crate::model::Tensor| {
                if t.role.is_block_linear()
                    || t.role == Role::LmHead
                    || tied_head && t.role == Role::Embedding
                {
                    t.numel()
                } else {
                    0
                }
            };
            let mats = weights::total(a, matrix);
            busiest(&matrix, mats).saturating_mul(2)
        } else {
            0
        };
        if casts > 0 {
            p.add(
                ComponentKind::AutocastCopies,
                casts,
                true,
                {
                    formula!(self.text;
                        let (n, size) = (thousands(casts / 2), b(casts));
                        ["{n} matrix weights × 2 B = {size}"],
                        ["{n} 个矩阵权重 × 2 B = {size}"]
                    )
                },
                en_str!(
                    "autocast casts each fp32 weight to 16 bits and keeps the copy for backward."
                ),
                zh_str!("autocast 将 fp32 权重转为 16 位并为反向保留副本。"),
            );
        }
        // QLoRA dequantizes one matrix at a time.
        let dequant = if self.qlora {
            weights::largest(a, |t| {
                if t.role.is_block_linear() {
                    t.rows_in * t.rows_out
                } else {
                    0
                }
            }) * 2
        } else {
            0
        };
        if dequant > 0 {
            p.add(
                ComponentKind::DequantBuffer,
                dequant,
                true,
                formula!(self.text;
                    ["largest matrix dequantized to bf16 = {}", b(dequant)],
                    ["最大的矩阵反量化为 bf16 = {}", b(dequant)]
                ),
                en_str!("bitsandbytes dequantizes a 4-bit weight to compute with it."),
                zh_str!("bitsandbytes 计算时将 4 位权重反量化。"),
            );
        }
        // Optimizer step temporaries: foreach AdamW/Lion materialise one state-sized list (one
        // moment of this GPU's partition).
        let partition = |x: u64| if zero >= 1 { x.div_ceil(dp) } else { x };
        let foreach = match self.optimizer {
            Optimizer::Adamw | Optimizer::Lion
                if !(self.fused_optimizer || zero >= 1 && offload) =>
            {
                partition(t_shard.saturating_mul(sb))
            }
            // Adafactor's update: a full-size fp32 temporary of the largest trainable tensor on
            // this GPU (under LoRA an adapter matrix, not the frozen embedding).
            Optimizer::Adafactor => {
                let trainable = |t: &crate::model::Tensor| {
                    if lora {
                        if lora_of(t) > 0 {
                            self.lora_rank.saturating_mul(t.rows_in.max(t.rows_out))
                        } else {
                            0
                        }
                    } else {
                        t.numel().div_ceil(weights::tp_divisor(a, t, self.tp))
                    }
                };
                weights::largest(a, trainable) * 4
            }
            _ => 0,
        };
        // ZeRO's step casts this rank's gradient partition to fp32 beside the fp32 masters
        // (DeepSpeed stage_1_and_2.py `step()`; its estimators count 16 B per parameter / N).
        let fp32_grads = if zero >= 1 && !offload && master > 0 {
            t_shard.saturating_mul(4).div_ceil(dp)
        } else {
            0
        };
        let step = foreach.saturating_add(fp32_grads);
        if step > 0 {
            let mut text = Formula::default();
            if fp32_grads > 0 {
                text = formula!(self.text;
                    let size = b(fp32_grads);
                    ["fp32 gradient partition {n_trainable} trainable × 4 B / {dp} ranks = {size}"],
                    ["fp32 梯度分区 {n_trainable} 个可训练参数 × 4 B / {dp} 个 rank = {size}"]
                );
            }
            if foreach > 0 {
                text = formula!(self.text;
                    let (plus, size) = (if fp32_grads > 0 { " + " } else { "" }, b(foreach));
                    [
                        "{}{plus}foreach step: one state-sized temporary (e.g. sqrt of the second moment) = {size}",
                        text.en
                    ],
                    [
                        "{}{plus}foreach 步：一个与状态同大小的临时张量（如二阶矩的 sqrt） = {size}",
                        text.zh
                    ]
                );
            }
            p.add(
                ComponentKind::StepTemporaries,
                step,
                true,
                text,
                en_str!("torch.optim's default foreach path (fused=True avoids it); under ZeRO, the gradient partition in fp32."),
                zh_str!("torch.optim 默认 foreach 路径（fused=True 可避免）；ZeRO 下还有 fp32 的梯度分区。"),
            );
        }
        // ZeRO buckets / DDP buckets.
        let h2 = a.hidden_size.saturating_mul(a.hidden_size);
        let buckets = match zero {
            1 | 2 => h2.saturating_mul(2 * 2),
            3 => live_params.saturating_add(Bytes::from_f64(0.9 * h2 as f64).get() * 2),
            _ if dp > 1 => g,
            _ => 0,
        };
        if buckets > 0 {
            let (key, text) = if zero == 0 {
                (
                    ComponentKind::DdpBuckets,
                    formula!(self.text;
                        [
                            "DDP gradient buckets hold a flat copy of the gradients = {}",
                            b(buckets)
                        ],
                        ["DDP 梯度桶保存梯度的一份扁平副本 = {}", b(buckets)]
                    ),
                )
            } else {
                (
                    ComponentKind::ZeroBuffers,
                    formula!(self.text;
                        [
                            "ZeRO-{zero} buckets (reduce/allgather h², prefetch 0.9 h²){} = {}",
                            if zero == 3 {
                                " + two gathered layers"
                            } else {
                                ""
                            },
                            b(buckets)
                        ],
                        [
                            "ZeRO-{zero} 桶 (reduce/allgather h², 预取 0.9 h²){} = {}",
                            if zero == 3 {
                                " + 两个已收集的层"
                            } else {
                                ""
                            },
                            b(buckets)
                        ]
                    ),
                )
            };
            p.add(
                key,
                buckets,
                true,
                text,
                en_str!(
                    "Communication buffers; data parallelism adds memory, it never removes any."
                ),
                zh_str!("通信缓冲区；数据并行只增加显存，不会减少。"),
            );
        }
        self.context_and_workspace(p);
        if dp > 1 || self.tp > 1 || self.pp > 1 {
            p.add(
                ComponentKind::Nccl,
                NCCL_BUFFERS.get(),
                false,
                formula!(self.text;
                    ["NCCL communicator buffers ≈ {}", b(NCCL_BUFFERS.get())],
                    ["NCCL 通信缓冲 ≈ {}", b(NCCL_BUFFERS.get())]
                ),
                en_str!("NCCL's own buffers, outside PyTorch's allocator."),
                zh_str!("NCCL 自身缓冲区，不经 PyTorch 分配器。"),
            );
        }
        // Peak: end of forward (activations, logits, autocast copies alive; no gradients yet, since
        // zero_grad sets them to None) against the optimizer step (gradients and step temporaries).
        // With full checkpointing the loss's tensors and the recomputed block are not alive
        // together: the end of forward holds the larger of the two.
        let overlap = recomputed.min(logits).min(acts);
        let fwd = acts
            .saturating_add(logits - overlap)
            .saturating_add(casts)
            .saturating_add(dequant)
            .saturating_add(if zero == 0 { 0 } else { buckets });
        let stepk = g.saturating_add(step).saturating_add(buckets);
        let bwd = g.saturating_add(emb_buf).saturating_add(buckets);
        let phase = if fwd >= stepk && fwd >= bwd {
            Phase::ForwardLoss
        } else if bwd > stepk {
            Phase::Backward
        } else {
            Phase::OptimizerStep
        };
        // Keep only the components alive at the peak in the torch total (others shown with zero).
        for c in &mut p.comps {
            let alive = alive_at(phase, c.key.kind);
            if !alive && self.text {
                c.note_en = en!(
                    "{} Not alive at the peak ({}).",
                    c.note_en,
                    match phase {
                        Phase::ForwardLoss => "end of forward",
                        Phase::Backward => "end of backward",
                        _ => "optimizer step",
                    }
                );
                c.note_zh = zh!("{} 峰值时刻不驻留。", c.note_zh);
                c.torch = false;
                c.formula = en!("{} (not at the peak)", c.formula);
                c.formula_zh = zh!("{}（不在峰值时刻）", c.formula_zh);
            }
            if !alive {
                c.torch = false;
                c.key.at_peak = false;
            }
        }
        if phase == Phase::ForwardLoss && overlap > 0 {
            let alive = p
                .comps
                .iter()
                .filter(|c| c.torch)
                .map(|c| c.bytes.get())
                .fold(0, u64::saturating_add);
            p.peak = Some(alive.saturating_sub(overlap));
        }
        let cpu = if offload && zero > 0 {
            // Offloaded: fp32 masters, moments (and ZeRO-3 params) live in CPU memory (or on
            // NVMe), for this GPU's tensor × pipeline shard / dp.
            // DeepSpeed's CPU step also holds the fp32 gradient partition (its estimators: 16 B
            // per parameter / N for ZeRO-2, 18 B for ZeRO-3 with the 16-bit parameters).
            let full_states = t_shard.saturating_mul(4 + 4 + state_per_param);
            let params_cpu = if zero == 3 {
                busiest(&|t| t.numel(), params).saturating_mul(2)
            } else {
                0
            };
            full_states.saturating_add(params_cpu).div_ceil(dp)
        } else {
            0
        };
        (phase, trainable, cpu)
    }

    pub(super) fn weights_formula_train(
        &self,
        bytes: u64,
        dtype: Dtype,
        q: &Quantization,
    ) -> Formula {
        if !self.text {
            return Formula::default();
        }
        let size = b(bytes);
        if *q == Quantization::None {
            formula!(self.text;
                let split = if self.tp * self.pp > 1 {
                format!(" / tp {} × pp {}", self.tp, self.pp)
            } else {
                String::new()
            };
                let (p, per) = (thousands(self.arch.params()), dtype.bits() / 8);
                ["{p} params × {per} B ({dtype}){split} = {size}"],
                ["{p} 个参数 × {per} B ({dtype}){split} = {size}"]
            )
        } else {
            let name = q.name();
            formula!(self.text;
                ["base weights in {name} = {size}"],
                ["基础权重为 {name} = {size}"]
            )
        }
    }
}

/// NCCL communicator buffers for multi-GPU training: about 512 MiB (an estimate: NCCL's default
/// 4 MiB buffers × channels × peers; no measurement in the reference data).
pub const NCCL_BUFFERS: Bytes = Bytes::mib(512);

/// Whether a training part is alive at `phase`: the end of forward holds no gradients yet
/// (`zero_grad` sets them to None) nor the step's buffers; the optimizer step no longer holds the
/// forward's tensors; the end of backward holds neither the forward's nor the step's.
fn alive_at(phase: Phase, kind: ComponentKind) -> bool {
    use ComponentKind as K;
    !matches!(
        (phase, kind),
        (
            Phase::ForwardLoss,
            K::Gradients | K::StepTemporaries | K::DdpBuckets | K::EmbeddingGradBuffer
        ) | (
            Phase::OptimizerStep,
            K::Activations
                | K::Logits
                | K::AutocastCopies
                | K::DequantBuffer
                | K::EmbeddingGradBuffer
        ) | (
            Phase::Backward,
            K::Activations | K::Logits | K::AutocastCopies | K::DequantBuffer | K::StepTemporaries
        )
    )
}
