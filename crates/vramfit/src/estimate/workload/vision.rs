//! Images per request (`images`, vLLM's `--limit-mm-per-prompt '{"image": N}'`) and their size
//! (`image_width` × `image_height`): checked, then counted into the prompt by the model's own
//! image-token rule ([`crate::model::ImageTokens`]), so that every engine's KV cache and
//! activations grow by them.

use super::{MAX_SEQ, Shape, int};
use crate::error::Result;
use crate::estimate::EstimateInput;
use crate::model::Architecture;

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

impl EstimateInput {
    /// `images`, `image_width`, `image_height`: `None` without images; a model without an
    /// image-token rule refused by name; the images' tokens added to `shape.seq_len`.
    pub(super) fn resolve_images(
        &self,
        arch: &Architecture,
        model: &str,
        shape: &mut Shape,
    ) -> Result<Option<Images>> {
        let per_request = int("images", self.images, 0, MAX_IMAGES)?;
        let side = |field: &str, v: Option<f64>| -> Result<u64> {
            v.map_or(Ok(DEFAULT_IMAGE_SIDE), |v| int(field, v, 1, MAX_IMAGE_SIDE))
        };
        let width = side("image_width", self.image_width)?;
        let height = side("image_height", self.image_height)?;
        if per_request == 0 {
            for (field, given) in [
                ("image_width", self.image_width),
                ("image_height", self.image_height),
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
                    "{model} has no image-token rule vramfit models (it takes no images, or its tower is Llama 4's, Kimi K2.5's or Gemma 4's)"
                ],
                [
                    "{model} 没有 vramfit 建模的图像 token 规则（它不接受图像，或其视觉编码器属于 Llama 4、Kimi K2.5 或 Gemma 4）"
                ],
                "a model with Gemma 3's, Qwen-VL's, InternVL's or Pixtral's image tokens, or images 0",
                "采用 Gemma 3、Qwen-VL、InternVL 或 Pixtral 图像 token 规则的模型，或 images 为 0",
            ));
        };
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
