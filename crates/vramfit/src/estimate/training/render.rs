//! The training run's parts from its figures: each component with its bytes and, when the run
//! builds text, its formula and note in English and Chinese ([`formula!`] builds nothing when
//! it does not).

use super::figures::{BlockActivations, Saved, TrainingFigures};
use super::sharding_text::State;
use crate::estimate::{
    Component, ComponentKind, Formula, Offload, Optimizer, Parts, Phase, Run, b, thousands,
};
use crate::precision::{Dtype, Quantization};
use alloc::format;
use alloc::string::String;

impl Run<'_> {
    /// Adds the run's components in their order, the CUDA context and workspace among them.
    pub(super) fn add_training_parts(&self, f: &TrainingFigures, p: &mut Parts) {
        p.add(
            ComponentKind::Weights,
            f.weights.bytes,
            true,
            self.training_weights_text(f),
            en_str!("Model weights as held during training."),
            zh_str!("训练时保存的模型权重。"),
        );
        p.add(
            ComponentKind::Gradients,
            f.gradients.bytes,
            true,
            self.gradients_text(f),
            en_str!("One gradient per trainable parameter."),
            zh_str!("每个可训练参数一个梯度。"),
        );
        p.add(
            ComponentKind::Optimizer,
            f.optimizer.bytes,
            true,
            self.optimizer_text(f),
            en_str!("Optimizer states persist across steps."),
            zh_str!("优化器状态在各步之间常驻。"),
        );
        p.add(
            ComponentKind::Activations,
            f.activations.bytes,
            true,
            self.megatron_activations_text(f, self.activations_text(f)),
            en_str!("Tensors saved in forward for backward; frozen projections keep no input."),
            zh_str!("前向保存供反向使用的张量；冻结的投影不保存输入。"),
        );
        if f.logits > 0 {
            p.add(ComponentKind::Logits, f.logits, true, self.loss_text(f, self.logits_text(f)), en_str!("The cross-entropy loss works on the logits in fp32; with a large vocabulary this is often the peak."), zh_str!("交叉熵损失以 fp32 处理 logits；词表大时常是峰值所在。"));
        }
        if f.embedding_buffer.bytes > 0 {
            p.add(ComponentKind::EmbeddingGradBuffer, f.embedding_buffer.bytes, true, self.embedding_buffer_text(f), en_str!("The embedding backward's dense gradient, alive with every other gradient at the end of backward."), zh_str!("反向传播末尾词嵌入的稠密梯度缓冲，与全部梯度同时存在。"));
        }
        let casts = f.autocast_copies;
        if casts > 0 {
            p.add(
                ComponentKind::AutocastCopies,
                casts,
                true,
                formula!(self.text;
                    let (n, size) = (thousands(casts / 2), b(casts));
                    ["{n} matrix weights × 2 B = {size}"],
                    ["{n} 个矩阵权重 × 2 B = {size}"]
                ),
                en_str!(
                    "autocast casts each fp32 weight to 16 bits and keeps the copy for backward."
                ),
                zh_str!("autocast 将 fp32 权重转为 16 位并为反向保留副本。"),
            );
        }
        self.add_dequant_part(f.dequant, p);
        if f.step.bytes > 0 {
            p.add(
                ComponentKind::StepTemporaries,
                f.step.bytes,
                true,
                self.step_text(f),
                en_str!("torch.optim's default foreach path (fused=True avoids it); under ZeRO, the gradient partition in fp32."),
                zh_str!("torch.optim 默认 foreach 路径（fused=True 可避免）；ZeRO 下还有 fp32 的梯度分区。"),
            );
        }
        if f.buckets.bytes > 0 {
            p.add(
                f.buckets.kind,
                f.buckets.bytes,
                true,
                self.buckets_text(f),
                en_str!(
                    "Communication buffers; data parallelism adds memory, it never removes any."
                ),
                zh_str!("通信缓冲区；数据并行只增加显存，不会减少。"),
            );
        }
        self.regimes_notes(f, p);
        self.sharding_notes(p);
        self.own_optimizer_notes(f.optimizer.bytes, p);
        self.context_and_workspace(p);
        let nccl = f.nccl;
        if nccl > 0 {
            p.add(
                ComponentKind::Nccl,
                nccl,
                false,
                formula!(self.text;
                    let n = self.dp.saturating_mul(self.tp).saturating_mul(self.pp);
                    ["NCCL communicator buffers, one communicator of {n} GPUs ≈ {} (measured on A100)", b(nccl)],
                    ["NCCL 通信缓冲，一个 {n} 卡通信器 ≈ {} (A100 上的实测值)", b(nccl)]
                ),
                en_str!("NCCL's own buffers, outside PyTorch's allocator."),
                zh_str!("NCCL 自身缓冲区，不经 PyTorch 分配器。"),
            );
        }
    }

    /// The weights: the base, QLoRA's fp32 upcast, the adapters, ZeRO-3's partition.
    fn training_weights_text(&self, f: &TrainingFigures) -> Formula {
        if let Some(text) = self.sharded_state_text(f, State::Weights) {
            return text;
        }
        let (basis, w) = (&f.basis, &f.weights);
        let base = w.base;
        let mut text = if basis.detailed {
            self.weights_formula_train(base, basis.dtype, &basis.quantization)
        } else {
            formula!(self.text;
                let (n, per, size) = (thousands(self.params()), basis.dtype.bits() / 8, b(base));
                ["{n} params × {per} B = {size}"],
                ["{n} 个参数 × {per} B = {size}"]
            )
        };
        if let Some(upcast) = &w.upcast {
            let (params, bytes) = (upcast.params, upcast.bytes);
            text = formula!(self.text;
                let (unq, extra) = (thousands(params), b(bytes));
                [
                    "{} + {unq} unquantized params upcast to fp32 by prepare_model_for_kbit_training (+{extra})",
                    text.en
                ],
                [
                    "{} + {unq} 个未量化参数被升为 fp32（prepare_model_for_kbit_training） (+{extra})",
                    text.zh
                ]
            );
        }
        if let Some(adapters) = &w.adapters {
            let (ab, bytes) = (adapters.bytes_per, adapters.bytes);
            text = formula!(self.text;
                let (n, size) = (thousands(basis.shard), b(bytes));
                ["{} + LoRA adapters {n} × {ab} B = {size}", text.en],
                ["{} + LoRA 适配器 {n} × {ab} B = {size}", text.zh]
            );
        }
        if self.zero == 3 {
            let (dp, offload) = (self.dp, self.offload.params());
            text = formula!(self.text;
                [
                    "{}, partitioned over {dp} data-parallel ranks (ZeRO-3){}",
                    text.en,
                    if offload { ", offloaded" } else { "" }
                ],
                [
                    "{}，切分到 {dp} 个数据并行 rank (ZeRO-3){}",
                    text.zh,
                    if offload { "，已卸载" } else { "" }
                ]
            );
            text = self.quant_state_text(f, State::Weights, text);
        }
        text
    }

    /// The base weights of a detailed architecture: their count and dtype, or their format.
    fn weights_formula_train(&self, bytes: u64, dtype: Dtype, q: &Quantization) -> Formula {
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
                let (p, per) = (thousands(self.params()), dtype.bits() / 8);
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

    fn gradients_text(&self, f: &TrainingFigures) -> Formula {
        if let Some(text) = self.sharded_state_text(f, State::Gradients) {
            return text;
        }
        if let Some(text) = self.torchao_gradients_text(f) {
            return text;
        }
        let (zero, dp, offload) = (self.zero, self.dp, self.offload != Offload::None);
        let (grad_bytes, g) = (f.gradients.bytes_per, f.gradients.bytes);
        let mut text = formula!(self.text;
            let n_trainable = thousands(f.basis.shard);
            ["{n_trainable} trainable params × {grad_bytes} B"],
            ["{n_trainable} 个可训练参数 × {grad_bytes} B"]
        );
        if zero >= 2 {
            text = formula!(self.text;
                [
                    "{} / {dp} ranks (ZeRO-{zero}){}",
                    text.en,
                    if offload {
                        ", reduced into CPU partitions"
                    } else {
                        ""
                    }
                ],
                [
                    "{} / {dp} 个 rank (ZeRO-{zero}){}",
                    text.zh,
                    if offload {
                        "，归约到 CPU 分区"
                    } else {
                        ""
                    }
                ]
            );
        }
        formula!(self.text; ["{} = {}", text.en, b(g)], ["{} = {}", text.zh, b(g)])
    }

    /// The optimizer's states per trainable parameter, in words.
    fn optimizer_name(&self, sb: u64) -> Formula {
        match self.optimizer {
            Optimizer::Adamw => {
                formula!(self.text; ["AdamW: 2 moments × {sb} B"], ["AdamW：2 个矩 × {sb} B"])
            }
            Optimizer::Adamw8bit => {
                formula!(self.text; text "8-bit AdamW: 2 moments × 1 B + an fp32 scale per 256 (blockwise, bitsandbytes)", "8-bit AdamW：2 个矩 × 1 B + fp32 缩放因子（每 256 个一个）（分块，bitsandbytes）")
            }
            Optimizer::Sgd => formula!(self.text; text "SGD: no state", "SGD：无状态"),
            Optimizer::SgdMomentum => formula!(self.text;
                ["SGD momentum: 1 state × {sb} B"],
                ["SGD 动量：1 个状态 × {sb} B"]
            ),
            Optimizer::Lion => {
                formula!(self.text; ["Lion: 1 momentum × {sb} B"], ["Lion：1 个动量 × {sb} B"])
            }
            Optimizer::Adafactor => {
                formula!(self.text; text "Adafactor: factored second moment (row + column per matrix, 4 B)", "Adafactor：分解的二阶矩（每个矩阵的行 + 列，4 B)")
            }
            _ => self.own_optimizer_name(sb),
        }
    }

    fn optimizer_text(&self, f: &TrainingFigures) -> Formula {
        if let Some(text) = self.sharded_state_text(f, State::Optimizer) {
            return text;
        }
        if let Some(text) = self.torchao_optimizer_text(f) {
            return text;
        }
        let (zero, dp, offload) = (self.zero, self.dp, self.offload != Offload::None);
        let opt_name = self.optimizer_name(f.basis.state_bytes);
        let o = f.optimizer.bytes;
        let mut text = formula!(self.text;
            let n_trainable = thousands(f.basis.shard);
            ["{n_trainable} trainable × ({})", opt_name.en],
            ["{n_trainable} 个可训练参数 × ({})", opt_name.zh]
        );
        if f.optimizer.master > 0 {
            text = formula!(self.text;
                ["{} + fp32 master weights 4 B", text.en],
                ["{} + fp32 主权重 4 B", text.zh]
            );
        }
        if zero >= 1 {
            let cpu = !self.offload.nvme();
            text = formula!(self.text;
                [
                    "{} / {dp} ranks (ZeRO-{zero}){}",
                    text.en,
                    match (offload, cpu) {
                        (false, _) => "",
                        (true, true) => ", offloaded to CPU",
                        (true, false) => ", offloaded to NVMe",
                    }
                ],
                [
                    "{} / {dp} 个 rank (ZeRO-{zero}){}",
                    text.zh,
                    match (offload, cpu) {
                        (false, _) => "",
                        (true, true) => "，卸载到 CPU",
                        (true, false) => "，卸载到 NVMe",
                    }
                ]
            );
        }
        formula!(self.text; ["{} = {}", text.en, b(o)], ["{} = {}", text.zh, b(o)])
    }

    fn activations_text(&self, f: &TrainingFigures) -> Formula {
        let a = &self.arch;
        let (act, x) = (f.basis.act_bytes, f.activations.total);
        match &f.activations.saved {
            Saved::Blocks(blocks) => self.block_activations_text(f, blocks),
            Saved::Images => formula!(self.text;
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
            Saved::Guide => formula!(self.text;
                [
                    "0.35 × weights at {act} B (the guide's 0.2–0.5 ×) = {}",
                    b(x)
                ],
                ["0.35 × 权重，每参数 {act} B（指南的 0.2–0.5 ×) = {}", b(x)]
            ),
        }
    }

    /// A detailed architecture's saved activations: per token per block, or with full
    /// checkpointing the block inputs and one block recomputed.
    /// LoRA dropout's part of the per-token bytes, named where it adds them.
    fn lora_dropout_text(&self, f: &TrainingFigures) -> Formula {
        let p = self.regimes.lora_dropout;
        if !f.basis.lora || p <= 0.0 {
            return Formula::default();
        }
        formula!(self.text;
            let p = crate::units::number_text(p);
            [" (LoRA dropout {p}: each adapted module's 1 B mask and lora_A's own input copy)"],
            ["（LoRA dropout {p}：每个适配模块的 1 B 掩码与 lora_A 自己的输入副本）"]
        )
    }

    fn block_activations_text(&self, f: &TrainingFigures, blocks: &BlockActivations) -> Formula {
        let &BlockActivations {
            seq,
            per_token: per_tok,
            scores: s2_total,
            encoder_layers: enc_layers,
            encoder_frames: enc_seq,
            kept,
        } = blocks;
        let (tokens, resid) = (f.tokens, f.basis.compute.resid);
        let (hidden, blocks) = (self.arch.hidden_size, self.arch.num_layers);
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
        let n_tokens = if self.text {
            thousands(tokens)
        } else {
            String::new()
        };
        let drop = self.lora_dropout_text(f);
        match kept {
            Some(kept) => {
                let one = f.activations.recomputed;
                formula!(self.text;
                    [
                        "block inputs {n_tokens} tokens × {resid} B × {hidden} hidden × {blocks} blocks{} + one block recomputed ({per_tok} B per token{}; in backward, once the loss's tensors are freed) = {}",
                        enc_text.en,
                        drop.en,
                        b(kept.saturating_add(one))
                    ],
                    [
                        "块输入 {n_tokens} token × {resid} B × {hidden} 隐藏维度 × {blocks} 块{} + 重算一个块 ({per_tok} B 每 token{}；在反向中、损失的张量释放之后) = {}",
                        enc_text.zh,
                        drop.zh,
                        b(kept.saturating_add(one))
                    ]
                )
            }
            None => {
                let total = f.activations.total;
                let s2_text = if s2_total > 0 {
                    let batch = self.batch;
                    formula!(self.text;
                        [" + {batch} × {seq}² × {s2_total} B (eager scores)"],
                        [" + {batch} × {seq}² × {s2_total} B（eager 注意力分数）"]
                    )
                } else {
                    Formula::default()
                };
                formula!(self.text;
                    let size = b(total);
                    [
                        "{n_tokens} tokens × {per_tok} B per token per block{}{} × {blocks} blocks{} = {size}",
                        drop.en,
                        s2_text.en,
                        enc_text.en
                    ],
                    [
                        "{n_tokens} token × {per_tok} B 每 token 每块{}{} × {blocks} 块{} = {size}",
                        drop.zh,
                        s2_text.zh,
                        enc_text.zh
                    ]
                )
            }
        }
    }

    fn logits_text(&self, f: &TrainingFigures) -> Formula {
        let (tokens, logits) = (f.tokens, f.logits);
        if let Some(m) = f
            .megatron
            .as_ref()
            .filter(|_| self.regimes.loss == crate::estimate::Loss::Full && !self.regimes.compile)
        {
            return self.megatron_logits_text(m, logits);
        }
        if self.regimes.compile {
            return formula!(self.text;
                let (n, vocab, size, per) = (thousands(tokens), self.arch.vocab_size, b(logits), self.full_loss_bytes());
                [
                    "{n} tokens × {vocab} vocab × {per} B (compiled: the logits saved in the compute dtype and one fp32 gradient, no fp32 copy) = {size}"
                ],
                [
                    "{n} token × {vocab} 词表 × {per} B（编译后：以计算精度保存的 logits 与一份 fp32 梯度，无 fp32 副本） = {size}"
                ]
            );
        }
        formula!(self.text;
            let (n, vocab, size) = (thousands(tokens), self.arch.vocab_size, b(logits));
            [
                "{n} tokens × {vocab} vocab × 12 B (fp32 log-softmax, its gradient and the logits' gradient) = {size}"
            ],
            [
                "{n} token × {vocab} 词表 × 12 B（fp32 的 log-softmax、其梯度与 logits 的梯度） = {size}"
            ]
        )
    }

    fn embedding_buffer_text(&self, f: &TrainingFigures) -> Formula {
        let (tied, emb_buf) = (f.embedding_buffer.tied, f.embedding_buffer.bytes);
        let grad_bytes = f.gradients.bytes_per;
        formula!(self.text;
            let (vocab, hidden, size) = (self.arch.vocab_size, self.arch.hidden_size, b(emb_buf));
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
        )
    }

    /// ZeRO's fp32 gradient partition, then the foreach temporary.
    fn step_text(&self, f: &TrainingFigures) -> Formula {
        if !self.text {
            return Formula::default();
        }
        let (fp32_grads, foreach, dp) = (f.step.fp32_grads, f.step.foreach, self.dp);
        let mut text = Formula::default();
        if fp32_grads > 0 {
            text = formula!(self.text;
                let (n_trainable, size) = (thousands(f.basis.shard), b(fp32_grads));
                ["fp32 gradient partition {n_trainable} trainable × 4 B / {dp} ranks = {size}"],
                ["fp32 梯度分区 {n_trainable} 个可训练参数 × 4 B / {dp} 个 rank = {size}"]
            );
        }
        if let Some(words) = (foreach > 0)
            .then(|| self.own_step_words(&b(foreach)))
            .flatten()
        {
            text = formula!(self.text;
                let plus = if fp32_grads > 0 { " + " } else { "" };
                ["{}{plus}{}", text.en, words.en],
                ["{}{plus}{}", text.zh, words.zh]
            );
        } else if foreach > 0 {
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
        text
    }

    fn buckets_text(&self, f: &TrainingFigures) -> Formula {
        let buckets = f.buckets.bytes;
        match f.buckets.kind {
            ComponentKind::DdpBuckets if self.sharding.no_shard => formula!(self.text;
                [
                    "FSDP1 NO_SHARD all-reduces each unit's flat gradient in place: no bucket = {}",
                    b(buckets)
                ],
                ["FSDP1 NO_SHARD 在每个单元的扁平梯度上原地全归约：没有梯度桶 = {}", b(buckets)]
            ),
            ComponentKind::DdpBuckets => formula!(self.text;
                [
                    "DDP gradient buckets hold a flat copy of the gradients = {}",
                    b(buckets)
                ],
                ["DDP 梯度桶保存梯度的一份扁平副本 = {}", b(buckets)]
            ),
            _ => self.sharded_buffers_text(f),
        }
    }
}

/// Marks a component not alive at the peak in its note and formula (the run builds text).
pub(super) fn not_at_peak(c: &mut Component, phase: Phase) {
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
    c.formula = en!("{} (not at the peak)", c.formula);
    c.formula_zh = zh!("{}（不在峰值时刻）", c.formula_zh);
}
