//! A training run's figures for the speed model: its FLOPs' inputs, and its layout's
//! collectives (how the data-parallel replicas sync, the tensor, context and pipeline groups,
//! the nodes and the network between them) for [`crate::throughput::collectives`].

use super::speed::u32_of;
use super::{Checkpointing, Run};
use crate::throughput::{Comm, Compute, DataSync, Recompute, TrainingInput};

impl Run<'_> {
    /// The training run's figures for the speed model: `active` parameters a token multiplies
    /// with, `trainable` of them (at most) updated. The global batch is the micro-batch
    /// (`batch` sequences per GPU) × the data-parallel replicas (GPUs / (tp × pp × cp): a
    /// context-parallel group shares its sequences) × the micro-batches of a step.
    pub(super) fn training_input(&self, active: u64, trainable: u64) -> TrainingInput {
        let a = &self.arch;
        let cp = self.sharding.megatron.map_or(1, |m| m.cp.max(1));
        let replicas = (self.dp / cp).max(1);
        let microbatches = self.grad_accum.max(1);
        TrainingInput {
            compute: if self.qlora {
                Compute::WeightOnly
            } else {
                Compute::Bits16
            },
            active_params: active,
            trainable_params: trainable.min(active),
            layers: u32_of(a.num_layers),
            heads: u32_of(a.num_heads),
            head_dim: u32_of(a.head_dim),
            seq_len: self.seq_len,
            tokens_per_step: self
                .batch
                .saturating_mul(self.seq_len)
                .saturating_mul(replicas)
                .saturating_mul(microbatches),
            recompute: match self.checkpointing {
                Checkpointing::None => Recompute::None,
                Checkpointing::Selective => Recompute::Selective,
                Checkpointing::Full => Recompute::Full,
            },
            gpus: u32_of(self.dp * self.tp * self.pp),
            pp: u32_of(self.pp),
            microbatches: u32_of(microbatches),
            comm: self.training_comm(trainable),
        }
    }

    /// The layout's collectives: `None` on one GPU.
    ///
    /// What moves, per GPU's share of the model (its tensor slice and pipeline stage): the
    /// parameters in the precision's 16 bits (FSDP's and DeepSpeed's mixed precision gather
    /// and update them so; 4 B in fp32), the gradients of the `trainable` parameters in fp32
    /// where the masters are fp32 (Megatron's main gradients, torchtitan's
    /// `mixed_precision_reduce`, DDP under autocast; DeepSpeed and accelerate may reduce in
    /// 16 bits: twice as fast, so this is the slow side), else in 16 bits.
    fn training_comm(&self, trainable: u64) -> Option<Comm> {
        let gpus = self.dp * self.tp * self.pp;
        if gpus <= 1 {
            return None;
        }
        let m = self.sharding.megatron;
        let sync = if let Some(m) = m {
            if m.distributed_optimizer {
                DataSync::ShardedOptimizer
            } else {
                DataSync::AllReduce
            }
        } else if let Some(f) = self.sharding.fsdp {
            DataSync::ShardedParams {
                reshard_after_forward: f.reshard_after_forward,
            }
        } else {
            match self.zero {
                0 => DataSync::AllReduce,
                1 | 2 => DataSync::ShardedOptimizer,
                _ => DataSync::ShardedParams {
                    reshard_after_forward: true,
                },
            }
        };
        let slice = self.tp * self.pp;
        let param_width = self.precision.act_bytes();
        let grad_width = if self.precision.fp32_master() { 4 } else { 2 };
        Some(Comm {
            tp: u32_of(self.tp),
            cp: u32_of(m.map_or(1, |m| m.cp.max(1))),
            vp: u32_of(m.map_or(1, |m| m.vp.max(1))),
            sequence_parallel: m.is_some_and(|m| m.sequence_parallel),
            sync,
            hidden: u32_of(self.arch.hidden_size),
            kv_width: u32_of(self.arch.num_kv_heads.saturating_mul(self.arch.head_dim)),
            param_bytes: self.params().saturating_mul(param_width) / slice,
            grad_bytes: trainable.saturating_mul(grad_width) / slice,
            gpus_per_node: u32_of(self.nodes.gpus_per_node),
            node_link_bytes_per_s: self.nodes.link_bytes_per_s as f64,
        })
    }
}
