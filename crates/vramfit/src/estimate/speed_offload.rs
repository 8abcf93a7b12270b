//! Where a llama.cpp or Ollama run's weights sit for its speed: the blocks `-ngl` (or Ollama's
//! own decision) puts on the GPU and the routed experts `--n-cpu-moe` keeps in CPU memory, each
//! tensor as the memory estimate counts it. Compiled with the crate's `speed` feature only.

use super::{Run, weights};
use crate::model::Tensor;

/// The bytes a forward pass reads on each side, and what passes between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(super) struct OffloadSplit {
    /// Weights on the GPU every pass reads (all but the routed experts and the lookups).
    pub gpu_dense: u64,
    /// Routed experts on the GPU.
    pub gpu_expert: u64,
    /// Weights in CPU memory every pass reads: the blocks left there and the output layer if it
    /// stays.
    pub cpu_dense: u64,
    /// Routed experts in CPU memory: those of the CPU blocks and of `--n-cpu-moe`'s.
    pub cpu_expert: u64,
    /// Blocks on the GPU and in CPU memory (their KV caches go with them).
    pub gpu_blocks: u64,
    pub cpu_blocks: u64,
    /// Hand-overs between the GPU and the CPU in a pass beyond the embedding's (which a run
    /// with every layer on the GPU makes too): two per block whose experts alone sit in CPU
    /// memory, one for an output layer in CPU memory after blocks on the GPU.
    pub switches: u64,
    /// Blocks on the GPU whose routed experts alone sit in CPU memory (`--n-cpu-moe` beyond the
    /// blocks left there).
    pub expert_blocks: u64,
}

impl Run<'_> {
    /// The split of a run with `gpu_layers` layers on one GPU (the output layer counting as one,
    /// placed first or last by the engine's rule), or `None` when nothing is in CPU memory.
    pub(super) fn offload_split(&self, gpu_layers: u64) -> Option<OffloadSplit> {
        let a = &self.arch;
        let layers = a.num_layers.max(1);
        let (on_gpu, output_on_gpu) = if self.llamacpp_output_first() {
            (gpu_layers.saturating_sub(1).min(layers), gpu_layers > 0)
        } else {
            (gpu_layers.min(layers), gpu_layers > layers)
        };
        let first = layers - on_gpu;
        let experts_from = first.max(self.n_cpu_moe.min(layers));
        if first == 0 && output_on_gpu && experts_from == 0 {
            return None;
        }
        let mut s = OffloadSplit {
            gpu_blocks: on_gpu,
            cpu_blocks: first,
            switches: 2 * (experts_from - first) + u64::from(!output_on_gpu && on_gpu > 0),
            expert_blocks: experts_from - first,
            ..OffloadSplit::default()
        };
        a.visit_grouped(|t, n| {
            if !weights::read_per_token(&t, a.tied_embeddings) {
                return;
            }
            let Some(l) = t.layer else {
                // The output layer (and the final norm) go with the output; a tied embedding is
                // read as the output layer.
                let b = self.gguf_tensor_bytes(&t);
                if output_on_gpu {
                    s.gpu_dense = s.gpu_dense.saturating_add(b);
                } else {
                    s.cpu_dense = s.cpu_dense.saturating_add(b);
                }
                return;
            };
            let expert = t.role.is_expert();
            let from = if expert { experts_from } else { first };
            for block in l..l + n {
                let b = self.gguf_tensor_bytes(&Tensor {
                    layer: Some(block),
                    ..t
                });
                let slot = match (expert, block >= from) {
                    (false, true) => &mut s.gpu_dense,
                    (true, true) => &mut s.gpu_expert,
                    (false, false) => &mut s.cpu_dense,
                    (true, false) => &mut s.cpu_expert,
                };
                *slot = slot.saturating_add(b);
            }
        });
        Some(s)
    }
}
