//! vLLM's LoRA adapter slots (`--enable-lora`): the stacked A and B buffers that
//! `LoRAModelManager._create_lora_modules` allocates on every wrapped layer at start-up, before
//! the profile run, so they come out of the pool's budget.
//!
//! Read from vLLM v0.34.0 and v0.12.0 (the same shapes): `lora/layers/base_linear.py`
//! `create_lora_weights` (A `max_loras × 1 × rank × input`, B `max_loras × 1 × output × rank` per
//! slice, in `lora_dtype`, "auto" being the model's dtype), `column_parallel_linear.py` (q, k, v
//! and gate, up as slices of the merged layer, each its own A of the full input and B of its
//! output over tp; k and v over `min(tp, kv_heads)`), `row_parallel_linear.py` (o and down: A of
//! the input over tp, B of the full output), `vocab_parallel_embedding.py` (A `max_loras ×
//! vocab × rank`, B `max_loras × 1 × hidden × rank`, unsharded) and `logits_processor.py` (A
//! `max_loras × 1 × rank × hidden`, B `max_loras × 1 × vocab × rank`, unsharded). "In vLLM, all
//! linear layers support LoRA" (`lora/utils.py` `get_supported_lora_modules`). The profile run
//! activates dummy adapters created in CPU memory and copied into the slots (no new GPU
//! tensors); its LoRA kernels add an fp32 buffer of `slices × tokens × rank`
//! (`punica_wrapper/punica_gpu.py` `add_lora_linear`), three slices at most (q, k, v).

use super::super::lora_slots::LoraWidths;
use super::super::{Formula, Run, b, thousands};
use crate::estimate::{LoraRules, LoraSlots, VLLM_LORA_FROM, VLLM_LORA_RANKS};

/// vLLM's LoRA settings: `--max-loras` (default 1), `--max-lora-rank` one of `MaxLoRARanks`
/// (default 16), `--max-cpu-loras`; slots on every linear layer of the stage, the embedding
/// and the LM head (whole on each GPU); counted from 0.12.
pub(crate) const LORA: LoraRules = LoraRules {
    engine: "vLLM",
    max_loras_flag: "--max-loras",
    cpu_flag: "--max-cpu-loras",
    default_max_loras: 1,
    ranks: Some(&VLLM_LORA_RANKS),
    default_rank: Some(16),
    reads_targets: false,
    from_version: Some(VLLM_LORA_FROM),
    lm_head_b_over_tp: false,
    every_layer: false,
};

/// What the LoRA slots hold on one GPU, in elements per adapter per unit of rank.
#[derive(Clone, Copy)]
pub(super) struct LoraFigures {
    /// The settings.
    pub(super) slots: LoraSlots,
    /// A's and B's widths summed over one decoder layer's projections on this GPU.
    pub(super) per_layer: u64,
    /// Decoder layers on this GPU.
    pub(super) layers: u64,
    /// The embedding's and the LM head's widths (vocab + hidden each), those on this GPU.
    pub(super) vocab_side: u64,
    /// Bytes per element (the model's dtype).
    pub(super) dtype_bytes: u64,
    /// The slots' bytes.
    pub(super) slots_bytes: u64,
    /// The profile run's fp32 shrink buffer: 3 slices × batched tokens × rank × 4 B, counted
    /// with the slots (on top of the profile's peak, the safe side).
    pub(super) forward: u64,
}

impl LoraFigures {
    /// What comes out of the pool's budget: the slots and the profile's LoRA buffer.
    pub(super) fn bytes(&self) -> u64 {
        self.slots_bytes.saturating_add(self.forward)
    }
}

/// The largest slice count of one LoRA kernel call (q, k, v of the merged qkv layer).
const MAX_SLICES: u64 = 3;

impl Run<'_> {
    /// The LoRA slots on this GPU, `None` without `enable_lora`.
    pub(super) fn vllm_lora(&self) -> Option<LoraFigures> {
        let slots = self.lora?;
        let LoraWidths {
            per_layer,
            layers,
            vocab_side,
        } = self.lora_widths(&slots, &LORA);
        let dtype_bytes = self.act_bytes();
        let widths = per_layer.saturating_mul(layers).saturating_add(vocab_side);
        let slots_bytes = widths
            .saturating_mul(slots.max_loras)
            .saturating_mul(slots.max_lora_rank)
            .saturating_mul(dtype_bytes);
        let forward = MAX_SLICES
            .saturating_mul(self.max_num_batched_tokens)
            .saturating_mul(slots.max_lora_rank)
            .saturating_mul(4);
        Some(LoraFigures {
            slots,
            per_layer,
            layers,
            vocab_side,
            dtype_bytes,
            slots_bytes,
            forward,
        })
    }

    /// The slots' formula.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn vllm_lora_text(&self, l: &LoraFigures) -> Formula {
        formula!(self.text;
            let (loras, rank, per, layers, side, db, slots) = (l.slots.max_loras, l.slots.max_lora_rank, thousands(l.per_layer), l.layers, thousands(l.vocab_side), l.dtype_bytes, b(l.slots_bytes));
            let (tokens, buffer, size) = (thousands(self.max_num_batched_tokens), b(l.forward), b(l.bytes()));
            ["max_loras {loras} × max_lora_rank {rank} × ({per} A+B widths × {layers} layers + {side} embedding/LM head) × {db} B = {slots}; + the profile's fp32 LoRA buffer 3 × {tokens} tokens × {rank} × 4 B = {buffer}; {size}"],
            ["max_loras {loras} × max_lora_rank {rank} × （{per} 个 A+B 宽度 × {layers} 层 + {side} 嵌入层/输出头） × {db} B = {slots}；+ 剖析运行的 fp32 LoRA 缓冲 3 × {tokens} 个 token × {rank} × 4 B = {buffer}；{size}"]
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::ErrorKind;
    use crate::estimate::lora_slots::test_runs::lora_bytes;
    use crate::estimate::{Engine, Estimate, EstimateInput};

    fn serve(lora: impl FnOnce(&mut EstimateInput)) -> Result<Estimate, crate::InputError> {
        crate::estimate::lora_slots::test_runs::serve(Engine::Vllm, lora)
    }

    /// Llama-3.1-8B (hidden 4,096, 32 heads and 8 KV heads of 128, intermediate 14,336, 32
    /// layers, vocab 128,256), max_loras 4, max_lora_rank 16, tp 1, bf16, by hand from vLLM
    /// v0.34.0's `create_lora_weights`:
    /// - per layer, A (rank × input): q, k, v 3 × 4,096 (`MergedQKVParallelLinearWithLoRA`,
    ///   three slices of the full input) + o 4,096 + gate, up 2 × 4,096 + down 14,336 = 38,912;
    ///   B (output × rank): q 4,096 + k, v 2 × 1,024 + o 4,096 + gate, up 2 × 14,336 + down 4,096
    ///   = 43,008; 81,920 per layer, 2,621,440 over 32 layers;
    /// - the embedding (A 128,256 × rank, B 4,096 × rank) and the LM head (A rank × 4,096,
    ///   B 128,256 × rank): 2 × 132,352 = 264,704;
    /// - 2,886,144 × 4 × 16 × 2 B = 369,426,432 B (352.3 MiB);
    /// - the profile's fp32 buffer 3 × 8,192 tokens × 16 × 4 B = 1,572,864 B.
    #[test]
    fn llama8b_four_rank16_slots_by_hand() {
        let plain = serve(|_| {}).unwrap();
        let e = serve(|i| {
            i.serving.enable_lora = true;
            i.serving.max_loras = Some(4.0);
            i.serving.max_lora_rank = Some(16.0);
        })
        .unwrap();
        assert_eq!(lora_bytes(&e), 369_426_432 + 1_572_864);
        // Out of the pool's budget: the pool shrinks by the slots, in whole blocks.
        let (with, without) = (e.kv_cache_bytes.get(), plain.kv_cache_bytes.get());
        let block = 16 * 131_072;
        assert_eq!(
            without - with,
            (369_426_432 + 1_572_864u64).div_ceil(block) * block
        );
        // Defaults: one adapter of rank 16.
        let d = serve(|i| i.serving.enable_lora = true).unwrap();
        assert_eq!(lora_bytes(&d), 2_886_144 * 16 * 2 + 1_572_864);
        assert!(e.notes.iter().any(|n| n.key == "vllm_lora_cpu"));
    }

    /// At tp 2 the column layers' B and the row layers' A halve; k and v split over min(tp, 8).
    #[test]
    fn tensor_parallel_splits_the_sharded_sides() {
        let e = serve(|i| {
            i.serving.enable_lora = true;
            i.placement.tp = 2.0;
        })
        .unwrap();
        // A: 3 × 4,096 + 2,048 + 2 × 4,096 + 7,168 = 29,696; B: 2,048 + 2 × 512 + 4,096 +
        // 2 × 7,168 + 4,096 = 25,600; 55,296 × 32 + 264,704 = 2,034,176.
        assert_eq!(lora_bytes(&e), 2_034_176 * 16 * 2 + 1_572_864);
    }

    #[test]
    fn settings_are_checked_as_vllm_checks_them() {
        let field = |f: fn(&mut EstimateInput)| serve(f).unwrap_err();
        let e = field(|i| i.serving.max_loras = Some(2.0));
        assert_eq!(
            (e.kind, e.field.as_str()),
            (ErrorKind::Conflict, "max_loras")
        );
        let e = field(|i| {
            i.serving.enable_lora = true;
            i.serving.max_lora_rank = Some(24.0);
        });
        assert_eq!(
            (e.kind, e.field.as_str()),
            (ErrorKind::OutOfRange, "max_lora_rank")
        );
        let e = field(|i| {
            i.serving.enable_lora = true;
            i.serving.max_loras = Some(4.0);
            i.serving.max_cpu_loras = Some(2.0);
        });
        assert_eq!(
            (e.kind, e.field.as_str()),
            (ErrorKind::Conflict, "max_cpu_loras")
        );
        let e = field(|i| {
            i.serving.enable_lora = true;
            i.run.engine_version = Some("0.11".into());
        });
        assert_eq!(
            (e.kind, e.field.as_str()),
            (ErrorKind::Unsupported, "enable_lora")
        );
        let e = field(|i| {
            i.serving.enable_lora = true;
            i.run.engine = Engine::Trtllm;
        });
        assert_eq!(
            (e.kind, e.field.as_str()),
            (ErrorKind::Unsupported, "enable_lora")
        );
        let e = field(|i| {
            i.serving.enable_lora = true;
            i.model.arch = None;
            i.model.params = Some("7B".into());
        });
        assert_eq!(
            (e.kind, e.field.as_str()),
            (ErrorKind::Unsupported, "enable_lora")
        );
        // max_cpu_loras is host memory: the GPU's figures do not move.
        let a = serve(|i| i.serving.enable_lora = true).unwrap();
        let b = serve(|i| {
            i.serving.enable_lora = true;
            i.serving.max_cpu_loras = Some(64.0);
        })
        .unwrap();
        assert_eq!(a.kv_cache_bytes, b.kv_cache_bytes);
    }
}
