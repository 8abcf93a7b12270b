//! The widths of a serving engine's LoRA slots on one GPU: A (`rank × input`) and B (`output ×
//! rank`) of each module that holds a slot, summed per unit of rank, for one adapter.
//!
//! The merged projections hold one slot of stacked slices (`qkv_proj`: three A of the full
//! input, B of q, k and v over the tensor-parallel GPUs, k and v over `min(tp, kv heads)`;
//! `gate_up_proj`: two); the row-parallel ones (`o_proj`, `down_proj`) an A of their input over
//! tp and a B of the full output; the embedding an A of the whole vocabulary and a B of the
//! hidden size; the LM head an A of the hidden size and a B of the vocabulary, whole (vLLM
//! v0.34.0 `lora/layers/`) or over tp like the head itself (SGLang 0.5.23
//! `lora/mem_pool.py` `get_embedding_lora_B_shape`).

use super::{LoraRules, LoraSlots, Run};

/// A slot's widths on one GPU, per adapter and unit of rank.
#[derive(Clone, Copy, Debug)]
pub(super) struct LoraWidths {
    /// A's and B's widths summed over one decoder layer's modules.
    pub(super) per_layer: u64,
    /// The decoder layers that hold slots on this GPU.
    pub(super) layers: u64,
    /// The embedding's and the LM head's widths.
    pub(super) vocab_side: u64,
}

impl LoraWidths {
    /// Every width: the layers' and the vocabulary side's.
    pub(super) fn total(&self) -> u64 {
        self.per_layer
            .saturating_mul(self.layers)
            .saturating_add(self.vocab_side)
    }
}

impl Run<'_> {
    /// The widths of `slots` on this GPU as the engine of `rules` shapes them.
    pub(super) fn lora_widths(&self, slots: &LoraSlots, rules: &LoraRules) -> LoraWidths {
        let a = &self.arch;
        let t = slots.targets;
        let tp = self.tp.max(1);
        let h = a.hidden_size;
        let q = a.num_heads.saturating_mul(a.head_dim);
        let kv = a.num_kv_heads.saturating_mul(a.head_dim);
        let kv_split = tp.min(a.num_kv_heads.max(1));
        let i = a.intermediate_size;
        let mlp_in = if a.gated_ffn { 2 } else { 1 };
        let modules = [
            (t.qkv, 3 * h + q.div_ceil(tp) + 2 * kv.div_ceil(kv_split)),
            (t.o, q.div_ceil(tp) + h),
            (t.gate_up, mlp_in * h + mlp_in * i.div_ceil(tp)),
            (t.down, i.div_ceil(tp) + h),
        ];
        let per_layer = modules.iter().filter(|(on, _)| *on).map(|(_, w)| w).sum();
        let layers = if rules.every_layer {
            a.num_layers
        } else {
            a.num_layers.div_ceil(self.pp)
        };
        let vocab = a.vocab_size;
        let head_b = if rules.lm_head_b_over_tp && tp > 1 {
            // `VocabParallelEmbedding`'s shard of the vocabulary padded to 64, the busiest one.
            (vocab.next_multiple_of(64) / tp).min(vocab)
        } else {
            vocab
        };
        let embed = if t.embed { vocab + h } else { 0 };
        let head = if t.lm_head { h + head_b } else { 0 };
        // With pipeline stages, vLLM's first stage holds the embedding and its last the LM head.
        let vocab_side = if rules.every_layer || self.pp == 1 {
            embed + head
        } else {
            embed.max(head)
        };
        LoraWidths {
            per_layer,
            layers,
            vocab_side,
        }
    }
}

/// The runs the engines' LoRA tests share.
#[cfg(test)]
pub(super) mod test_runs {
    use crate::estimate::{
        ComponentKind, Engine, Estimate, EstimateInput, HardwareInput, Mode, ModelInput, RunInput,
        ServingInput, estimate,
    };

    /// Llama-3.1-8B served by `engine` on an 80 GB card (79.19 GiB) at 8,192 tokens, with
    /// `lora`'s settings.
    pub(in crate::estimate) fn serve(
        engine: Engine,
        lora: impl FnOnce(&mut EstimateInput),
    ) -> Result<Estimate, crate::InputError> {
        let mut i = EstimateInput {
            model: ModelInput {
                arch: Some(crate::model::tests::llama31_8b()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Serve,
                engine,
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(8192.0),
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu_memory: Some("79.19GiB".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        lora(&mut i);
        estimate(&i)
    }

    /// The bytes of the LoRA slots' component.
    pub(in crate::estimate) fn lora_bytes(e: &Estimate) -> u64 {
        e.components
            .iter()
            .filter(|c| c.key == ComponentKind::LoraAdapters)
            .map(|c| c.bytes.get())
            .sum()
    }
}
