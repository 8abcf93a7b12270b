//! torchao's `CPUOffloadOptimizer` on one GPU (torchao 0.18.0, `torchao/optim/cpu_offload.py`,
//! pytorch/ao at cee38d8; the same class as `torchao.prototype.low_bit_optim.CPUOffloadOptimizer`
//! and torchtune 0.6.1's wrapper `torchtune.modules.optim.CPUOffloadOptimizer`), as torchtune's
//! single-device recipes take it: ZeRO 0 with offload `optimizer-cpu`, or `cpu` for
//! `offload_gradients=True`.
//!
//! What its source keeps where: every trainable parameter of at least `minimal_size` (4096)
//! elements gets a pinned CPU copy `p_host = torch.empty_like(p_device, device="cpu")` in the
//! parameter's own dtype (no fp32 master: torchtune's bf16 stays bf16) and a pinned CPU gradient
//! of the same size; its optimizer (`optimizer_class`, fused AdamW by default) and so its states
//! live on the CPU, and the step runs there. A post-accumulate-grad hook copies each gradient to
//! `p_host.grad` as soon as backward has built it; with `offload_gradients` it then drops the GPU
//! gradient (`p_device.grad.record_stream(stream); p_device.grad = None`), so the block returns
//! to the allocator when the copy ends: one gradient being built while the previous one is
//! copied, two at most. Without it every gradient stays on the GPU until `zero_grad`. Parameters
//! under `minimal_size` (norms, biases) keep an on-device optimizer (`d_opt`) with their
//! gradients and states on the GPU. The parameters themselves never leave the GPU.

use super::figures::{Basis, GradientFigures, TrainingFigures};
use crate::estimate::weights;
use crate::estimate::{Formula, Mode, Offload, Run, b, thousands};
use crate::model::Tensor;

/// torchao's `minimal_size` default: parameters with fewer elements stay on the GPU.
pub(super) const MINIMAL_SIZE: u64 = 4096;

impl Run<'_> {
    /// Whether the optimizer is torchao's CPU offload: an offload without ZeRO or FSDP (the
    /// input check lets only torchtune's single-GPU run through).
    pub(super) fn torchao_offload(&self) -> bool {
        self.mode == Mode::Training
            && self.zero == 0
            && self.offload != Offload::None
            && self.sharding.fsdp.is_none()
    }

    /// The trainable elements torchao leaves on the GPU: parameters under [`MINIMAL_SIZE`]
    /// elements (for LoRA, each adapter matrix `lora_A` r × in and `lora_B` out × r apart).
    pub(super) fn torchao_kept(&self, basis: &Basis) -> u64 {
        if !basis.detailed {
            return 0;
        }
        let (a, r) = (&self.arch, self.lora_rank);
        let small = |n: u64| if n < MINIMAL_SIZE { n } else { 0 };
        let kept = |t: &Tensor| {
            if basis.lora {
                if self.lora_params(t) == 0 {
                    return 0;
                }
                let each = small(r.saturating_mul(t.rows_in))
                    .saturating_add(small(r.saturating_mul(t.rows_out)));
                each.saturating_mul(t.count.max(1))
            } else {
                small(t.numel()).div_ceil(weights::tp_divisor(a, t, self.tp))
            }
        };
        weights::total(a, kept).min(basis.shard)
    }

    /// The gradients on the GPU: all of them without `offload_gradients` (`optimizer-cpu`), or
    /// the small parameters' and two of the largest (the one built, the one being copied) with
    /// it (`cpu`).
    pub(super) fn torchao_gradients(&self, basis: &Basis, g: GradientFigures) -> GradientFigures {
        if !self.torchao_offload() || self.offload == Offload::OptimizerCpu {
            return g;
        }
        let in_flight = self.largest_trainable(basis).saturating_mul(2);
        let elements = self
            .torchao_kept(basis)
            .saturating_add(in_flight)
            .min(basis.shard);
        GradientFigures {
            bytes: elements.saturating_mul(g.bytes_per),
            ..g
        }
    }

    /// In CPU memory: each offloaded parameter's pinned copy and gradient in its own dtype, and
    /// its optimizer's states (`per_param` bytes each).
    pub(super) fn torchao_cpu(&self, basis: &Basis, per_param: u64) -> u64 {
        let moved = basis.shard.saturating_sub(self.torchao_kept(basis));
        moved.saturating_mul(
            basis
                .state_bytes
                .saturating_mul(2)
                .saturating_add(per_param),
        )
    }

    /// The gradients' formula under torchao's offload.
    pub(super) fn torchao_gradients_text(&self, f: &TrainingFigures) -> Option<Formula> {
        if !self.torchao_offload() || !self.text {
            return None;
        }
        let (per, g) = (f.gradients.bytes_per, b(f.gradients.bytes));
        let n = thousands(f.basis.shard);
        Some(if self.offload == Offload::OptimizerCpu {
            formula!(self.text;
                ["{n} trainable params × {per} B, kept on the GPU until zero_grad (torchao CPUOffloadOptimizer without offload_gradients; copied to pinned CPU memory for the step) = {g}"],
                ["{n} 个可训练参数 × {per} B，在 GPU 上保留到 zero_grad（torchao CPUOffloadOptimizer 未开 offload_gradients；为优化器步骤复制到锁页 CPU 内存）= {g}"]
            )
        } else {
            let (kept, largest) = (
                thousands(self.torchao_kept(&f.basis)),
                thousands(self.largest_trainable(&f.basis)),
            );
            formula!(self.text;
                ["(2 × the largest parameter {largest} + {kept} in parameters under 4096 elements) × {per} B: torchao CPUOffloadOptimizer(offload_gradients=True) frees each GPU gradient once copied to CPU = {g}"],
                ["（2 × 最大参数 {largest} + 小于 4096 个元素的参数 {kept}）× {per} B：torchao CPUOffloadOptimizer(offload_gradients=True) 在每个梯度复制到 CPU 后释放其 GPU 副本 = {g}"]
            )
        })
    }

    /// The optimizer's formula under torchao's offload.
    pub(super) fn torchao_optimizer_text(&self, f: &TrainingFigures) -> Option<Formula> {
        if !self.torchao_offload() || !self.text {
            return None;
        }
        let kept = thousands(self.torchao_kept(&f.basis));
        let (per, o) = (f.optimizer.per_param, b(f.optimizer.bytes));
        Some(formula!(self.text;
            ["{kept} params under 4096 elements × {per} B on the GPU; the rest in CPU memory (torchao CPUOffloadOptimizer: the states, a pinned copy of each parameter and of its gradient, the step on the CPU) = {o}"],
            ["小于 4096 个元素的参数 {kept} 个 × {per} B 在 GPU 上；其余在 CPU 内存中（torchao CPUOffloadOptimizer：状态、每个参数及其梯度的锁页副本，优化器步骤在 CPU 上）= {o}"]
        ))
    }
}
