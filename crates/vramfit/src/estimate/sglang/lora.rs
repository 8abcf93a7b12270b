//! SGLang's LoRA memory pool (`--enable-lora`): the A and B buffers `LoRAMemoryPool.init_buffers`
//! allocates for `--max-loras-per-batch` adapters at `--max-lora-rank` on the modules of
//! `--lora-target-modules` (`all`: every linear layer, the embedding and the LM head), in the
//! model's dtype, before `init_memory_pool` sizes the token pool: they come out of the static
//! fraction's rest like the weights.
//!
//! Read from SGLang 0.5.23 (`lora/mem_pool.py`: `get_lora_A_shape` `(max_loras_per_batch,
//! rank × stacked, input)`, `get_lora_B_shape` `(max_loras_per_batch, output, rank)`, one per
//! layer of `num_hidden_layers` whatever the pipeline stage; `get_embedding_lora_A_shape` over
//! the whole vocabulary, the LM head's B over tp; `model_executor/model_runner.py`:
//! `maybe_init_lora_manager` before the memory pool; `lora_manager.py` `init_lora_shapes`:
//! `all` is every module the model has plus `embed_tokens` and `lm_head`).

use super::super::{Formula, Run, b, thousands};
use crate::estimate::{LoraRules, LoraSlots};

/// SGLang's LoRA settings: `--max-loras-per-batch` (default 8), `--max-lora-rank` (taken from
/// the adapters of `--lora-paths` when not given: vramfit asks for it), `--lora-target-modules`
/// (read; `all` when not given), `--max-loaded-loras`.
pub(crate) const LORA: LoraRules = LoraRules {
    engine: "SGLang",
    max_loras_flag: "--max-loras-per-batch",
    cpu_flag: "--max-loaded-loras",
    default_max_loras: 8,
    ranks: None,
    default_rank: None,
    reads_targets: true,
    from_version: None,
    lm_head_b_over_tp: true,
    every_layer: true,
};

/// What SGLang's LoRA pool holds on one GPU.
#[derive(Clone, Copy, Debug)]
pub(super) struct SglangLora {
    /// The settings.
    pub(super) slots: LoraSlots,
    /// A's and B's widths per adapter and unit of rank, summed over every layer and the
    /// vocabulary side.
    pub(super) widths: u64,
    /// Bytes per element (the model's dtype).
    pub(super) dtype_bytes: u64,
    /// The pool's bytes.
    pub(super) bytes: u64,
}

impl Run<'_> {
    /// SGLang's LoRA pool on this GPU, `None` without `enable_lora`.
    pub(super) fn sglang_lora(&self) -> Option<SglangLora> {
        let slots = self.lora?;
        let widths = self.lora_widths(&slots, &LORA).total();
        let dtype_bytes = self.act_bytes();
        let bytes = widths
            .saturating_mul(slots.max_loras)
            .saturating_mul(slots.max_lora_rank)
            .saturating_mul(dtype_bytes);
        Some(SglangLora {
            slots,
            widths,
            dtype_bytes,
            bytes,
        })
    }

    /// The pool's formula.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn sglang_lora_text(&self, l: &SglangLora) -> Formula {
        let t = l.slots.targets;
        formula!(self.text;
            let (side, side_zh) = match (t.embed, t.lm_head) {
                (true, true) => (", the embedding and the LM head", "、嵌入层与输出头"),
                (true, false) => (" and the embedding", "与嵌入层"),
                (false, true) => (" and the LM head", "与输出头"),
                (false, false) => ("", ""),
            };
            let (loras, rank, widths, db, size) = (l.slots.max_loras, l.slots.max_lora_rank, thousands(l.widths), l.dtype_bytes, b(l.bytes));
            ["max_loras_per_batch {loras} × max_lora_rank {rank} × {widths} A+B widths (every layer's target modules{side}) × {db} B = {size}"],
            ["max_loras_per_batch {loras} × max_lora_rank {rank} × {widths} 个 A+B 宽度（每层的目标模块{side_zh}） × {db} B = {size}"]
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::ErrorKind;
    use crate::estimate::lora_slots::test_runs::lora_bytes;
    use crate::estimate::{Engine, Estimate, EstimateInput};

    fn serve(lora: impl FnOnce(&mut EstimateInput)) -> Result<Estimate, crate::InputError> {
        crate::estimate::lora_slots::test_runs::serve(Engine::Sglang, lora)
    }

    fn tokens(e: &Estimate) -> u64 {
        e.kv_cache_tokens.unwrap()
    }

    /// Llama-3.1-8B (hidden 4,096, 32 heads and 8 KV heads of 128, intermediate 14,336, 32
    /// layers, vocab 128,256), SGLang's default 8 adapters at rank 16, `all` targets, tp 1, bf16,
    /// by hand from SGLang 0.5.23's `LoRAMemoryPool` shapes:
    /// - per layer, A: qkv_proj 3 × 4,096 (rank × 3 stacked, of the input) + o_proj 4,096 +
    ///   gate_up_proj 2 × 4,096 + down_proj 14,336 = 38,912; B: qkv 4,096 + 2 × 1,024 + o 4,096 +
    ///   gate_up 2 × 14,336 + down 4,096 = 43,008; 81,920 per layer, 2,621,440 over 32 layers;
    /// - embed_tokens (A 128,256, B 4,096) and lm_head (A 4,096, B 128,256): 264,704;
    /// - 2,886,144 × 8 × 16 × 2 B = 738,852,864 B (704.6 MiB).
    ///
    /// Allocated before the token pool is sized, it comes out of the static fraction's rest:
    /// the pool loses 738,852,864 B ÷ 131,072 B per token = 5,637 tokens (to a token).
    #[test]
    fn llama8b_default_pool_by_hand() {
        let plain = serve(|_| {}).unwrap();
        let e = serve(|i| {
            i.serving.enable_lora = true;
            i.serving.max_lora_rank = Some(16.0);
        })
        .unwrap();
        assert_eq!(lora_bytes(&e), 738_852_864);
        let lost = tokens(&plain) - tokens(&e);
        assert!((5_636..=5_637).contains(&lost), "{lost}");
        assert!(e.required_bytes.get() > plain.required_bytes.get() + 738_852_864);
    }

    /// Target modules as SGLang spells them: q_proj alone allocates the merged qkv_proj's slot
    /// (12,288 + 6,144 = 18,432 per layer), no embedding or head: 18,432 × 32 × 8 × 64 × 2 B.
    #[test]
    fn target_modules_choose_the_slots() {
        let e = serve(|i| {
            i.serving.enable_lora = true;
            i.serving.max_lora_rank = Some(64.0);
            i.training.lora_targets = alloc::vec!["q_proj".into()];
        })
        .unwrap();
        assert_eq!(lora_bytes(&e), 18_432 * 32 * 8 * 64 * 2);
        let all = serve(|i| {
            i.serving.enable_lora = true;
            i.serving.max_lora_rank = Some(64.0);
            i.training.lora_targets = alloc::vec!["all".into()];
        })
        .unwrap();
        assert_eq!(lora_bytes(&all), 2_886_144 * 8 * 64 * 2);
    }

    /// At tp 2 the column layers' B and the row layers' A halve, the LM head's B too (SGLang
    /// splits it like the head), the embedding's A stays whole: per layer A 3 × 4,096 + 2,048 +
    /// 2 × 4,096 + 7,168 = 29,696, B 2,048 + 2 × 512 + 4,096 + 2 × 7,168 + 4,096 = 25,600;
    /// 55,296 × 32 + (128,256 + 4,096) + (4,096 + 64,128) = 1,970,048.
    #[test]
    fn tensor_parallel_splits_the_sharded_sides() {
        let e = serve(|i| {
            i.serving.enable_lora = true;
            i.serving.max_lora_rank = Some(16.0);
            i.placement.tp = 2.0;
        })
        .unwrap();
        assert_eq!(lora_bytes(&e), 1_970_048 * 8 * 16 * 2);
    }

    #[test]
    fn settings_are_checked_as_sglang_checks_them() {
        let field = |f: fn(&mut EstimateInput)| serve(f).unwrap_err();
        // SGLang reads the rank from --lora-paths' adapters: vramfit asks for it.
        let e = field(|i| i.serving.enable_lora = true);
        assert_eq!(
            (e.kind, e.field.as_str()),
            (ErrorKind::Missing, "max_lora_rank")
        );
        // Any rank (vLLM's 24 is refused, SGLang's is not).
        assert!(
            serve(|i| {
                i.serving.enable_lora = true;
                i.serving.max_lora_rank = Some(24.0);
            })
            .is_ok()
        );
        let e = field(|i| {
            i.serving.enable_lora = true;
            i.serving.max_lora_rank = Some(16.0);
            i.training.lora_targets = alloc::vec!["experts".into()];
        });
        assert_eq!(
            (e.kind, e.field.as_str()),
            (ErrorKind::UnknownName, "lora_targets")
        );
        let e = field(|i| {
            i.serving.enable_lora = true;
            i.serving.max_lora_rank = Some(16.0);
            i.serving.max_cpu_loras = Some(4.0);
        });
        assert_eq!(
            (e.kind, e.field.as_str()),
            (ErrorKind::Conflict, "max_cpu_loras")
        );
    }
}
