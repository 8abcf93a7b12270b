//! Images per request (`images`, vLLM's `--limit-mm-per-prompt '{"image": N}'`) and their size
//! (`image_width` × `image_height`): checked, then counted into the prompt by the model's own
//! image-token rule ([`crate::model::ImageTokens`]), so that every engine's KV cache and
//! activations grow by them.

use super::{MAX_SEQ, Shape, int};
use crate::error::Result;
use crate::estimate::EstimateInput;
use crate::model::{Architecture, ImageTokens};

/// Most images per request accepted.
pub const MAX_IMAGES: u64 = 1024;
/// Longest image side accepted, in pixels.
pub const MAX_IMAGE_SIDE: u64 = 1 << 15;
/// The image side assumed when `images` is given without a size: 1024 pixels (a 1024 × 1024
/// image, about a phone photo's 1 MP after the usual downscale).
pub const DEFAULT_IMAGE_SIDE: u64 = 1024;

/// The images of each request and the tokens they add to its prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Images {
    /// Images per request.
    pub per_request: u64,
    /// Each image's width in pixels.
    pub width: u64,
    /// Each image's height in pixels.
    pub height: u64,
    /// The tokens one image takes in the sequence, its markers included.
    pub tokens_each: u64,
    /// The most tokens one image of this model can take (its largest image).
    pub max_tokens_each: u64,
}

impl Images {
    /// The tokens the images add to one request's prompt.
    pub const fn tokens(&self) -> u64 {
        self.per_request * self.tokens_each
    }
}

impl super::Workload {
    /// The images of each request; `None` without them, and always in a build without the
    /// `vision` feature, so that no code of theirs is linked there.
    pub fn images(&self) -> Option<Images> {
        if cfg!(feature = "vision") {
            self.images
        } else {
            None
        }
    }
}

impl EstimateInput {
    /// `images`, `image_width`, `image_height`: `None` without images; a model without an
    /// image-token rule refused by name; the images' tokens added to `shape.seq_len`. A build
    /// without the `vision` feature refuses the first of them given
    /// ([`super::checks::not_built`]).
    pub(super) fn resolve_images(
        &self,
        arch: &Architecture,
        model: &str,
        shape: &mut Shape,
    ) -> Result<Option<Images>> {
        if !cfg!(feature = "vision") {
            let given = [
                ("images", self.run.images != 0.0),
                ("image_width", self.run.image_width.is_some()),
                ("image_height", self.run.image_height.is_some()),
            ];
            return match given.iter().find(|(_, g)| *g) {
                Some((field, _)) => Err(super::checks::not_built(field)),
                None => Ok(None),
            };
        }
        let per_request = int("images", self.run.images, 0, MAX_IMAGES)?;
        let side = |field: &str, v: Option<f64>| -> Result<u64> {
            v.map_or(Ok(DEFAULT_IMAGE_SIDE), |v| int(field, v, 1, MAX_IMAGE_SIDE))
        };
        let width = side("image_width", self.run.image_width)?;
        let height = side("image_height", self.run.image_height)?;
        if per_request == 0 {
            for (field, given) in [
                ("image_width", self.run.image_width),
                ("image_height", self.run.image_height),
            ] {
                if given.is_some() {
                    return Err(input_error!(
                        Conflict,
                        field,
                        ["{field} is read with images only"],
                        ["{field} 仅在 images 大于 0 时读取"],
                        "images of 1 or more per request, or no image size",
                        "每个请求 1 张或更多图像，或不设图像尺寸",
                    ));
                }
            }
            return Ok(None);
        }
        let Some(rule) = arch.image_tokens else {
            return Err(input_error!(
                Unsupported,
                "images",
                [
                    "{model} has no image-token rule vramfit models (it takes no images, or its tower is Llama 4's or Kimi K2.5's)"
                ],
                [
                    "{model} 没有 vramfit 建模的图像 token 规则（它不接受图像，或其视觉编码器属于 Llama 4 或 Kimi K2.5）"
                ],
                "a model with Gemma 3's, Gemma 4's, Qwen-VL's, InternVL's or Pixtral's image tokens, or images 0",
                "采用 Gemma 3、Gemma 4、Qwen-VL、InternVL 或 Pixtral 图像 token 规则的模型，或 images 为 0",
            ));
        };
        // Qwen-VL's `smart_resize` raises "absolute aspect ratio must be smaller than 200".
        let (long, short) = (width.max(height), width.min(height));
        if matches!(rule, ImageTokens::Dynamic { .. }) && long > 200 * short {
            return Err(input_error!(
                OutOfRange,
                "image_width",
                [
                    "{width} × {height} pixels: {model}'s processor refuses an aspect ratio above 200"
                ],
                ["{width} × {height} 像素：{model} 的预处理器拒绝超过 200 的宽高比"],
                "an image whose longer side is at most 200 times its shorter",
                "长边不超过短边 200 倍的图像",
            ));
        }
        let images = Images {
            per_request,
            width,
            height,
            tokens_each: rule.count(width, height),
            max_tokens_each: rule.max_count(),
        };
        let prompt = shape.seq_len + images.tokens();
        if prompt > MAX_SEQ {
            return Err(input_error!(
                OutOfRange,
                "images",
                [
                    "{per_request} images of {} tokens make a prompt of {prompt} tokens",
                    images.tokens_each
                ],
                [
                    "{per_request} 张图像、每张 {} 个 token，提示词达到 {prompt} 个 token",
                    images.tokens_each
                ],
                ["a prompt of at most {MAX_SEQ} tokens with its images"],
                ["含图像的提示词至多 {MAX_SEQ} 个 token"],
            ));
        }
        shape.seq_len = prompt;
        Ok(Some(images))
    }
}

#[cfg(test)]
mod tests {
    use crate::error::ErrorKind;
    use crate::estimate::{ComponentKind, Engine, EstimateInput, Mode, ModelInput, RunInput};

    fn run(model: &str, images: f64, size: Option<(f64, f64)>) -> EstimateInput {
        EstimateInput {
            model: ModelInput {
                model: Some(model.into()),
                ..Default::default()
            },
            run: RunInput {
                images,
                image_width: size.map(|s| s.0),
                image_height: size.map(|s| s.1),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// Qwen3-VL-8B, two 1024 × 1024 images in a 2048-token prompt, transformers: each image is
    /// 1024² / 32² = 1024 tokens and 2 markers, so the prompt is 2048 + 2 × 1026 = 4100 tokens
    /// and the cache holds 4100 + 256 new tokens at 36 layers × 8 KV heads × 128 × 2 (K, V) ×
    /// 2 B = 147,456 B each: 642,318,336 B. The same run without images at seq_len 4100 has the
    /// same cache, and less memory by the vision tower's forward (`hf_images.rs`).
    #[test]
    fn images_join_the_prompt_by_hand() {
        let with = run("Qwen/Qwen3-VL-8B-Instruct", 2.0, Some((1024.0, 1024.0)));
        let w = with.resolve().unwrap();
        assert_eq!(w.seq_len, 4100);
        assert_eq!(w.images.map(|i| i.tokens()), Some(2052));
        let e = w.estimate();
        assert_eq!(e.component_bytes(ComponentKind::KvCache), 4356 * 147_456);
        let plain = {
            let mut input = run("Qwen/Qwen3-VL-8B-Instruct", 0.0, None);
            input.run.seq_len = 4100.0;
            input
        };
        let p = plain.resolve().unwrap().estimate();
        assert_eq!(
            e.component_bytes(ComponentKind::KvCache),
            p.component_bytes(ComponentKind::KvCache)
        );
        assert_eq!(p.component_bytes(ComponentKind::EncoderActivations), 0);
        assert!(e.component_bytes(ComponentKind::EncoderActivations) > 0);
        assert!(e.total_bytes > p.total_bytes);
        assert!(e.notes.iter().any(|n| n.key == "images"));
    }

    /// Every engine serving the model, and LoRA training on it, grows by the images: Gemma 3's
    /// 256 soft tokens and 2 markers each.
    #[test]
    fn engines_and_gemma_count_the_tokens() {
        let mut i = run("google/gemma-3-4b-it", 4.0, None);
        i.run.mode = Mode::Serve;
        i.run.engine = Engine::Vllm;
        let w = i.resolve().unwrap();
        assert_eq!(w.seq_len, 2048 + 4 * 258);
        i.run.engine = Engine::Llamacpp;
        i.run.mode = Mode::Inference;
        assert_eq!(i.resolve().unwrap().seq_len, 2048 + 4 * 258);
        // LoRA training with the images in each sequence: the sequence grows the same way.
        i.run.engine = Engine::Hf;
        i.run.mode = Mode::Training;
        i.training.lora_rank = 16.0;
        assert_eq!(i.resolve().unwrap().seq_len, 2048 + 4 * 258);
    }

    /// A model without a rule, a size without images, and a Qwen image past its processor's
    /// aspect ratio are refused by field.
    #[test]
    fn refusals_name_their_field() {
        let e = run("meta-llama/Llama-3.1-8B", 1.0, None)
            .resolve()
            .unwrap_err();
        assert_eq!(
            (e.kind, e.field.as_str()),
            (ErrorKind::Unsupported, "images")
        );
        assert!(e.problem.contains("Llama-3.1-8B"), "{}", e.problem);
        let e = run("google/gemma-3-4b-it", 0.0, Some((640.0, 480.0)))
            .resolve()
            .unwrap_err();
        assert_eq!(
            (e.kind, e.field.as_str()),
            (ErrorKind::Conflict, "image_width")
        );
        let e = run("Qwen/Qwen3-VL-8B-Instruct", 1.0, Some((20100.0, 100.0)))
            .resolve()
            .unwrap_err();
        assert_eq!(e.field, "image_width");
        let e = run("google/gemma-3-4b-it", 1.0, Some((0.0, 480.0)))
            .resolve()
            .unwrap_err();
        assert_eq!(
            (e.kind, e.field.as_str()),
            (ErrorKind::OutOfRange, "image_width")
        );
        let e = run("google/gemma-3-4b-it", 1.5, None)
            .resolve()
            .unwrap_err();
        assert_eq!(e.field, "images");
    }
}
