//! Megatron-LM / Megatron-Core on one GPU: its mixed precision's model states (16-bit
//! parameters, fp32 main gradients, fp32 master weights and Adam's moments in the optimizer,
//! sharded over the data-parallel GPUs by the distributed optimizer), and its activations under
//! sequence, context and interleaved pipeline parallelism.
//!
//! Model states as `megatron/training/theoretical_memory_usage.py` (NVIDIA/Megatron-LM at
//! 00caa53af30912914981c86f39db123961678bbd) counts them: 18 B per parameter of the most loaded
//! shard, `6 + 12 / dp` with `--use-distributed-optimizer` (`args.accumulate_allreduce_grads_in_fp32`
//! is set for bf16: the gradient buffer is fp32; the all-reduce works in it, so there is no
//! bucket copy; Megatron's Adam is fused, so no foreach temporary).
//!
//! Activations after Korthikanti et al. 2022 (arXiv 2205.05198, Table 2): with sequence
//! parallelism every activation of a layer is split over `tp` (`34 s b h / t`), without it the
//! layer norms' and dropouts' inputs stay whole (`s b h (10 + 24 / t)`); context parallelism
//! splits the sequence over `cp`; the interleaved schedule (Narayanan et al. 2021) holds
//! `1 + (pp − 1) / (pp × vp)` times the plain schedule's micro-batches on the first stage.

use super::figures::TrainingFigures;
use crate::estimate::workload::Megatron;
use crate::estimate::{Precision, Run, per_gpu_weight_bytes};
use crate::precision::Dtype;

/// The interleaved schedule's factor on the first stage's activations, as a fraction
/// (numerator, denominator): `1 + (pp − 1) / (pp × vp)`; 1 without interleaving.
pub(super) fn interleave_factor(pp: u64, vp: u64) -> (u64, u64) {
    if vp <= 1 || pp <= 1 {
        (1, 1)
    } else {
        (pp * vp + pp - 1, pp * vp)
    }
}

impl Run<'_> {
    /// transformers' activations under Megatron's sequence, context and interleaved pipeline
    /// parallelism (an architecture Megatron's layer is not counted on).
    fn transformers_megatron_activations(&self, f: &mut TrainingFigures, m: Megatron) {
        // Activations: sequence parallel splits what tensor parallelism leaves whole.
        if m.sequence_parallel && self.tp > 1 && f.basis.detailed {
            let mut whole = f.basis.clone();
            whole.compute.tp = 1;
            let a = self.training_activations(&whole, f.tokens);
            f.activations.saved = a.saved;
            f.activations.total = a.total.div_ceil(self.tp);
            f.activations.bytes = a.bytes.div_ceil(self.tp);
            f.activations.recomputed = a.recomputed.div_ceil(self.tp);
        }
        // Context parallel: each GPU runs seq / cp of every sequence, its logits too.
        if m.cp > 1 {
            let acts = &mut f.activations;
            acts.total = acts.total.div_ceil(m.cp);
            acts.bytes = acts.bytes.div_ceil(m.cp);
            acts.recomputed = acts.recomputed.div_ceil(m.cp);
            f.logits = f.logits.div_ceil(m.cp);
        }
        let (num, den) = interleave_factor(self.pp, m.vp);
        f.activations.bytes = f.activations.bytes.saturating_mul(num).div_ceil(den);
    }

    /// Megatron's model states and activations, when any of its settings is given.
    pub(super) fn apply_megatron(&self, f: &mut TrainingFigures) {
        let Some(m) = self.sharding.megatron else {
            return;
        };
        // Activations: Megatron-Core's own layer where vramfit counts it (`megatron_acts`),
        // else transformers' tensors with sequence and context parallelism applied.
        let act = f.basis.act_bytes;
        if let Some(acts) = self.megatron_acts(act, m.sequence_parallel && self.tp > 1, m.cp, m.vp)
        {
            f.cpu = f.cpu.saturating_sub(f.activations.cpu);
            f.activations.cpu = 0;
            f.activations.total = acts.total;
            f.activations.bytes = acts.bytes;
            f.activations.recomputed = acts.recomputed;
            // Its vocab-parallel cross-entropy, unless another loss is asked for.
            if self.regimes.loss == crate::estimate::Loss::Full && !self.regimes.compile {
                f.logits = self.megatron_logits(acts.tokens);
            } else {
                f.logits = f.logits.div_ceil(m.cp);
            }
            f.megatron = Some(acts);
        } else {
            self.transformers_megatron_activations(f, m);
        }
        // Model states (full training; LoRA keeps PEFT's accounting).
        let basis = &f.basis;
        if basis.lora {
            return;
        }
        // Megatron's gradients are one contiguous buffer (`param_and_grad_buffer.py`), allocated
        // at start-up and zeroed, never freed, between steps: alive at the end of forward too.
        f.gradients.persistent = true;
        let shard = basis.shard;
        let sixteen = basis.act_bytes == 2 && basis.state_bytes == 4;
        if sixteen {
            // bf16 (or fp16) parameters, fp32 main gradients, fp32 masters in the optimizer.
            f.weights.base = if basis.detailed {
                let dtype = if self.precision == Precision::AmpFp16 {
                    Dtype::Fp16
                } else {
                    Dtype::Bf16
                };
                per_gpu_weight_bytes(&self.arch, dtype, &basis.quantization, self.tp, self.pp)
            } else {
                shard.saturating_mul(2)
            };
            f.weights.bytes = f.weights.base;
            f.gradients.bytes_per = 4;
            f.gradients.bytes = shard.saturating_mul(4);
            f.optimizer.master = shard.saturating_mul(4);
            f.optimizer.bytes = f.optimizer.bytes.saturating_add(f.optimizer.master);
            f.autocast_copies = 0;
            // The embedding's dense gradient is built in the 16-bit dtype.
            f.embedding_buffer.bytes /= 2;
        }
        if m.distributed_optimizer {
            f.optimizer.bytes = f.optimizer.bytes.div_ceil(self.dp);
        }
        // The gradient buffer is reduced in place, and the step is fused.
        f.buckets.bytes = 0;
        f.step.foreach = 0;
        f.step.bytes = f.step.fp32_grads;
    }
}
