//! The stacks' regimes in words: the chunked and fused losses' formulas, the notes saying which
//! regime changed a figure and which the stack's defaults set.

use super::figures::TrainingFigures;
use super::regimes::LossFigures;
use crate::estimate::{Formula, Parts, Run, b, thousands};
use alloc::string::String;

impl Run<'_> {
    /// The loss's formula by its form (transformers' own: `full`).
    pub(super) fn loss_text(&self, f: &TrainingFigures, full: Formula) -> Formula {
        let vocab = self.arch.vocab_size;
        let size = f.logits;
        match &f.loss {
            LossFigures::Full => full,
            &LossFigures::Chunked {
                chunks,
                saved_per,
                transient_per,
                chunk_tokens,
                saved,
                transient,
                head_grads,
                gathered,
                accumulating,
            } => {
                let n = thousands(f.tokens);
                let moment = if accumulating {
                    formula!(self.text;
                        let (s, g) = (b(saved / chunks * chunks.saturating_sub(2)), b(head_grads));
                        [" then, as the head's gradient accumulates over the chunks, {s} of chunks not yet reached + 3 head gradients {g}"],
                        ["；随后输出头梯度在各块间累加时，尚未处理的块 {s} + 3 份输出头梯度 {g}"]
                    )
                } else {
                    formula!(self.text;
                        let t = b(transient);
                        [" + one chunk's gradients {chunk_tokens} × {vocab} × {transient_per} B = {t}"],
                        [" + 一块的梯度 {chunk_tokens} × {vocab} × {transient_per} B = {t}"]
                    )
                };
                formula!(self.text;
                    let (s, g, total) = (b(saved), b(gathered), b(size));
                    [
                        "chunked loss ({chunks} chunks): saved {} {n} tokens × {vocab} × {saved_per} B = {s}{} + gathered hidden states {g} = {total}",
                        if self.regimes.compile { "logits (compiled: no fp32 copy)" } else { "fp32 log-softmax" },
                        moment.en
                    ],
                    [
                        "分块损失（{chunks} 块）：保存的{} {n} token × {vocab} × {saved_per} B = {s}{} + 收集的隐藏状态 {g} = {total}",
                        if self.regimes.compile { " logits（编译后：无 fp32 副本）" } else { " fp32 log-softmax" },
                        moment.zh
                    ]
                )
            }
            &LossFigures::Fused {
                chunk_tokens,
                grad_input,
                grad_weight,
                chunk_logits,
                head_product,
            } => formula!(self.text;
                let (gi, gw, cl, hp, total) =
                    (b(grad_input), b(grad_weight), b(chunk_logits), b(head_product), b(size));
                [
                    "fused linear cross-entropy: hidden states' gradient {gi} + head's gradient {gw} + 2 chunks' logits 2 × {chunk_tokens} tokens × {vocab} = 2 × {cl} (Liger's chunk) + the head gradient's product per chunk {hp} = {total}"
                ],
                [
                    "融合线性交叉熵：隐藏状态梯度 {gi} + 输出头梯度 {gw} + 两块的 logits 2 × {chunk_tokens} token × {vocab} = 2 × {cl}（Liger 的分块） + 每块输出头梯度的乘积 {hp} = {total}"
                ]
            ),
        }
    }

    /// Notes on the regimes that changed a figure, and on the knobs the stack's defaults set.
    pub(super) fn regimes_notes(&self, f: &TrainingFigures, p: &mut Parts) {
        let r = &self.regimes;
        if let Some(stack) = r.stack {
            let d = r.defaults();
            let name = stack.name();
            let mut set_en = String::new();
            let mut set_zh = String::new();
            let mut add = |en: String, zh: String| {
                if !set_en.is_empty() {
                    set_en.push_str(", ");
                    set_zh.push('，');
                }
                set_en.push_str(&en);
                set_zh.push_str(&zh);
            };
            if r.from_stack.loss {
                let (loss, chunks) = (r.loss.name(), r.loss_chunks);
                add(
                    en!(
                        "{loss} loss{}",
                        if r.loss == crate::estimate::Loss::Chunked {
                            alloc::format!(", {chunks} chunks")
                        } else {
                            String::new()
                        }
                    ),
                    zh!(
                        "{loss} 损失{}",
                        if r.loss == crate::estimate::Loss::Chunked {
                            alloc::format!("，{chunks} 块")
                        } else {
                            String::new()
                        }
                    ),
                );
            }
            if r.from_stack.activation_offload {
                add(en!("activations offloaded to CPU"), zh!("激活卸载到 CPU"));
            }
            if r.from_stack.kbit_upcast
                && self
                    .quantized_base()
                    .is_some_and(super::kbit::QuantizedBase::peft_upcasts)
            {
                add(
                    en!("no fp32 upcast of a quantized base's other parameters"),
                    zh!("量化基座的其余参数不升为 fp32"),
                );
            }
            if r.from_stack.lora_dropout && self.lora_rank > 0 {
                let d = crate::units::number_text(r.lora_dropout);
                add(
                    en!("lora_dropout {d} (each adapted module keeps a mask and its own input)"),
                    zh!("lora_dropout {d}（每个适配模块保存掩码与自己的输入）"),
                );
            }
            if !set_en.is_empty() {
                p.note(
                    "stack_defaults",
                    en!("{name}'s defaults: {set_en} ({}).", d.source),
                    zh!("{name} 的默认设置：{set_zh}（{}）。", d.source),
                );
            }
        }
        if r.optimizer_in_backward {
            let g = b(f.gradients.bytes);
            p.note(
                "optimizer_in_backward",
                en!("Optimizer in backward: each parameter steps as its gradient is ready and the gradient is freed; one gradient ({g}, the largest) is alive at a time."),
                zh!("反向中执行优化器：每个参数的梯度就绪即更新并释放；同一时刻只有一个梯度（最大的，{g}）。"),
            );
        }
        if f.activations.cpu > 0 {
            let (cpu, gpu) = (b(f.activations.cpu), b(f.activations.bytes));
            p.note(
                "activation_offload",
                en!("Activation offload: {cpu} of saved activations in CPU memory; the GPU keeps {gpu} (the last 5 offloaded tensors in flight, and the block recomputed under checkpointing)."),
                zh!("激活卸载：{cpu} 的保存激活位于 CPU 内存；GPU 保留 {gpu}（传输中的最后 5 个张量，以及检查点下重算的块）。"),
            );
        }
        if r.from_stack.checkpointing
            && let Some(name) = r.stack.map(|s| s.name())
        {
            p.note(
                "stack_checkpointing",
                en!("{name} checkpoints gradients by default; this run is counted without (set grad_checkpointing full to count it)."),
                zh!("{name} 默认启用梯度检查点；本次按未启用计算（设 grad_checkpointing 为 full 即按启用计算）。"),
            );
        }
        if r.packing {
            p.note(
                "packing",
                en!("Packing: sequences packed into rows of seq_len take the memory of batch × seq_len, as unpacked rows of that length do (with flash/SDPA varlen, position ids and cu_seqlens add under a KiB per row; eager attention's scores span the packed row, as they span a padded one)."),
                zh!("打包：序列打包成长度为 seq_len 的行，显存与 batch × seq_len 的未打包行相同（flash/SDPA 变长注意力的 position ids 与 cu_seqlens 每行不足 1 KiB；eager 注意力的分数覆盖整个打包行，与填充行相同）。"),
            );
        }
        if !r.foreach
            && f.step.foreach == 0
            && matches!(
                self.optimizer,
                crate::estimate::Optimizer::Adamw | crate::estimate::Optimizer::Lion
            )
            && !self.fused_optimizer
        {
            p.note(
                "foreach",
                en!("foreach=False: the optimizer steps tensor by tensor, with no state-sized temporary list."),
                zh!("foreach=False：优化器逐个张量更新，没有与状态同大小的临时列表。"),
            );
        }
    }
}
