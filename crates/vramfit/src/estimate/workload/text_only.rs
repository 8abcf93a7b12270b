//! vLLM without its encoder towers (`language_model_only`: vLLM's `--language-model-only`, or
//! `--limit-mm-per-prompt` with every modality at 0). From vLLM 0.10.1 (PR #22299, "Implicit
//! language-model-only mode via limit-mm-per-prompt") a multimodal model builds each tower
//! inside `SupportsMultiModal._mark_tower_model(vllm_config, modalities)`, which puts a
//! `StageMissingLayer` in place of its modules `if all(mm_config.get_limit_per_prompt(m) == 0
//! for m in modalities)` (`vllm/model_executor/models/interfaces.py`); Gemma 4 marks its vision
//! tower and embedder with `{"image", "video"}` and its audio tower and embedder with `"audio"`
//! (`gemma4_mm.py`, vLLM main at 01bae2190e1c298115941f50bd6ed508216f24e7, read 2026-12-07);
//! Gemma 3 (`gemma3_mm.py`) and Mistral 3 (`mistral3.py`) mark theirs with `"image"` alone.
//! With every limit at 0 the encoder budget has no modality, so the start-up profile runs no
//! encoder either: the weights lose every tower and no encoder cache is profiled. A pasted
//! limit is read as this only with image, video and audio all at 0 (`launch/multimodal.rs`):
//! with one absent a tower may stay, and the towers stay counted.

use crate::error::Result;
use crate::estimate::{Engine, EstimateInput};
use crate::model::Architecture;

impl EstimateInput {
    /// `language_model_only`: the tower parameters left out of `arch` (which then takes no
    /// images), or `None` where the towers load. vLLM only, and not with `images`.
    pub(super) fn resolve_text_only(
        &self,
        arch: &mut Architecture,
        images: bool,
    ) -> Result<Option<u64>> {
        if !self.run.language_model_only {
            return Ok(None);
        }
        if self.run.engine != Engine::Vllm {
            return Err(input_error!(
                Conflict,
                "language_model_only",
                [
                    "language_model_only is vLLM's (--language-model-only); the other engines load every tower a model has"
                ],
                [
                    "language_model_only 是 vLLM 的设置（--language-model-only）；其他引擎会加载模型的每个编码器"
                ],
                "engine vllm, or language_model_only false",
                "引擎 vllm，或 language_model_only 为 false",
            ));
        }
        if images {
            return Err(input_error!(
                Conflict,
                "language_model_only",
                ["a language-model-only vLLM takes no images"],
                ["仅语言模型的 vLLM 不接受图像"],
                "images 0, or language_model_only false",
                "images 为 0，或 language_model_only 为 false",
            ));
        }
        if arch.vision_params == 0 {
            // vLLM refuses `--limit-mm-per-prompt` for a text model ("only supported for
            // multimodal models").
            return Err(input_error!(
                Conflict,
                "language_model_only",
                ["the model has no encoder tower to leave out"],
                ["该模型没有可省去的编码器"],
                "a multimodal model (a vision or audio tower), or language_model_only false",
                "多模态模型（有视觉或音频编码器），或 language_model_only 为 false",
            ));
        }
        let dropped = arch.vision_params;
        arch.vision_params = 0;
        arch.image_tokens = None;
        arch.vision_tower = None;
        Ok(Some(dropped))
    }
}

#[cfg(test)]
#[path = "text_only_tests.rs"]
mod tests;
