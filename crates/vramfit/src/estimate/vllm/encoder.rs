//! vLLM's encoder cache in its start-up profile (`--limit-mm-per-prompt`): before the KV pool is
//! sized, `profile_run` runs the vision encoder on a batch of dummy items of the largest size
//! and keeps their outputs in `encoder_cache` while it profiles the text forward, so the pool's
//! budget loses them (vLLM `vllm/multimodal/encoder_budget.py` `MultiModalBudget._get_max_items`
//! and `vllm/v1/core/encoder_cache_manager.py` `compute_mm_encoder_budget`, main at
//! 042a4d3ee43ed07875505b04e93a5a14ddf86964 and 003ad86e237cfccb7846111921a0230a45005196, read
//! 2026-12-06; `gpu_model_runner.py` `profile_run`). The encoder's own activations during that
//! run are not counted.

use super::super::{Formula, Run, b, thousands};

/// The profiled batch of encoder outputs.
#[derive(Clone, Copy)]
pub(super) struct EncoderFigures {
    /// Embeddings of the largest item (`max_tokens_per_mm_item`).
    pub(super) embeds: u64,
    /// The encoder budget: max(`max_num_batched_tokens`, `embeds`).
    pub(super) budget: u64,
    /// Items per prompt: max(1, min(`images`, max_model_len / `embeds`)).
    pub(super) per_prompt: u64,
    /// Items profiled: max(1, min(budget / embeds, max_num_seqs × per_prompt)).
    pub(super) items: u64,
    /// One embedding's width: the text width × (1 + DeepStack levels).
    pub(super) width: u64,
    /// Bytes per element.
    pub(super) dtype_bytes: u64,
}

impl EncoderFigures {
    /// The outputs' bytes: items × embeds × width × dtype.
    pub(super) fn bytes(&self) -> u64 {
        self.items
            .saturating_mul(self.embeds)
            .saturating_mul(self.width)
            .saturating_mul(self.dtype_bytes)
    }
}

impl Run<'_> {
    /// The profile's encoder outputs, where the run has images and the model a rule.
    pub(super) fn vllm_encoder(&self) -> Option<EncoderFigures> {
        let images = self.images?;
        let rule = self.arch.image_tokens?;
        let embeds = rule.max_embeds().max(1);
        let budget = self.max_num_batched_tokens.max(embeds);
        let per_prompt = images.per_request.min(self.max_model_len / embeds).max(1);
        let items = (budget / embeds)
            .min(self.max_num_seqs.saturating_mul(per_prompt))
            .max(1);
        Some(EncoderFigures {
            embeds,
            budget,
            per_prompt,
            items,
            width: self.arch.hidden_size.saturating_mul(rule.embed_widths()),
            dtype_bytes: self.act_bytes(),
        })
    }

    /// The encoder outputs' formula.
    pub(super) fn vllm_encoder_text(&self, e: &EncoderFigures) -> Formula {
        formula!(self.text;
            let (items, embeds, width, db, size) = (e.items, thousands(e.embeds), thousands(e.width), e.dtype_bytes, b(e.bytes()));
            let (budget, per) = (thousands(e.budget), e.per_prompt);
            ["{items} item(s) of the largest image (encoder budget {budget} tokens; {per} per prompt) × {embeds} embeddings × {width} wide × {db} B = {size}"],
            ["{items} 个最大图像（编码器预算 {budget} 个 token；每个提示词 {per} 个） × {embeds} 个嵌入 × 宽 {width} × {db} B = {size}"]
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::estimate::{ComponentKind, Engine, EstimateInput, Mode, estimate};

    fn serve(images: f64) -> EstimateInput {
        EstimateInput {
            model: Some("Qwen/Qwen3-VL-8B-Instruct".into()),
            mode: Mode::Serve,
            engine: Engine::Vllm,
            gpu: Some("h100-sxm5-80gb".into()),
            max_model_len: Some(32768.0),
            images,
            ..EstimateInput::default()
        }
    }

    /// Qwen3-VL-8B on an H100 (max_num_batched_tokens 8192 there), two images a prompt, by
    /// hand from vLLM's `compute_mm_encoder_budget` and `_get_max_items`: the largest image is
    /// 16,777,216 / 32² = 16,384 embeddings; the budget max(8192, 16384) = 16,384; per prompt
    /// max(1, min(2, 32768 / 16384)) = 2; items max(1, min(16384 / 16384, 1024 × 2)) = 1; each
    /// embedding 4,096 × (1 + 3 DeepStack levels) = 16,384 wide in bf16: 1 × 16,384 × 16,384 ×
    /// 2 B = 536,870,912 B, which the pool loses (to within one block of every layer).
    #[test]
    fn encoder_outputs_by_hand_and_out_of_the_pool() {
        let with = estimate(&serve(2.0)).unwrap();
        assert_eq!(
            with.component_bytes(ComponentKind::EncoderCache),
            536_870_912
        );
        let without = estimate(&serve(0.0)).unwrap();
        assert_eq!(without.component_bytes(ComponentKind::EncoderCache), 0);
        let lost = without.component_bytes(ComponentKind::KvCache)
            - with.component_bytes(ComponentKind::KvCache);
        // One block of 16 tokens in each of 36 layers: 16 × 147,456 / 36 × 36 B.
        let block = 16 * 147_456;
        assert!(lost.abs_diff(536_870_912) < block, "{lost}");
    }

    /// Gemma 3 4B with vLLM's A100 default of 2048 batched tokens: 256 embeddings an image,
    /// budget 2048, 8 items (2048 / 256, under 256 sequences × 1 per prompt), each 2,560 wide:
    /// 8 × 256 × 2,560 × 2 B = 10,485,760 B.
    #[test]
    fn gemma3_batches_items_into_the_budget() {
        let mut i = serve(1.0);
        i.model = Some("google/gemma-3-4b-it".into());
        i.gpu = Some("a100-sxm4-80gb".into());
        let e = estimate(&i).unwrap();
        assert_eq!(e.component_bytes(ComponentKind::EncoderCache), 10_485_760);
    }
}
