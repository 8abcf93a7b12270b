//! A multimodal wrapper's image-token rule ([`ImageTokens`]) from its `config.json`, with the
//! processor's defaults where the rule's numbers live in `preprocessor_config.json`, which the
//! hub lookup does not read. Each default is the one the model's own processor files ship.

use super::Cfg;
use super::decoder::dim;
use super::vision_vl::pair;
use crate::error::Result;
use crate::model::ImageTokens;

/// Qwen3-VL's and Qwen3.5's processor bounds, `size.shortest_edge` and `size.longest_edge`
/// (Qwen/Qwen3-VL-8B-Instruct and Qwen/Qwen3.5 `preprocessor_config.json`: 65536 and
/// 16777216, 256² to 4096² pixels, as quoted by public copies of those files, read 2026-12-06).
pub const QWEN3_VL_PIXELS: (u64, u64) = (65_536, 16_777_216);

/// InternVL's processor (OpenGVLab/InternVL3-8B-hf `preprocessor_config.json`:
/// `crop_to_patches` true, `min_patches` 1, `max_patches` 12; `GotOcr2ImageProcessor`'s own
/// defaults in transformers 5.24 are the same 1 and 12).
const INTERNVL_TILES: (u64, u64) = (1, 12);

/// The image-token rule of the wrapper `model_type`, `None` for a tower whose rule is not
/// modelled (Llama 4, Kimi K2.5), which an `images` input then refuses by name.
pub(super) fn image_tokens(model_type: &str, top: &Cfg) -> Result<Option<ImageTokens>> {
    let vision = top.child("vision_config")?;
    let v = |k: &str, default: u64, lo: u64, hi: u64| -> Result<u64> {
        match &vision {
            Some(v) => dim(v, k, v.u(k)?.unwrap_or(default), lo, hi),
            None => Ok(default),
        }
    };
    let t = |k: &str, default: u64, lo: u64, hi: u64| -> Result<u64> {
        dim(top, k, top.u(k)?.unwrap_or(default), lo, hi)
    };
    Ok(match model_type {
        // Gemma3Config.mm_tokens_per_image, default 256 (transformers 5.24).
        "gemma3" => Some(ImageTokens::Fixed {
            tokens: t("mm_tokens_per_image", 256, 1, 1 << 16)?,
        }),
        // Gemma3nConfig.vision_soft_tokens_per_image, default 256 (transformers 5.24): the
        // processor resizes every image to 768 × 768, MobileNet-v5's 16 × 16 output.
        "gemma3n" => Some(ImageTokens::Fixed {
            tokens: t("vision_soft_tokens_per_image", 256, 1, 1 << 16)?,
        }),
        // Qwen3VLVisionConfig / Qwen3_5VisionConfig: patch_size 16, spatial_merge_size 2.
        "qwen3_vl" | "qwen3_vl_moe" | "qwen3_5" | "qwen3_5_moe" => Some(ImageTokens::Dynamic {
            patch_size: v("patch_size", 16, 1, 1024)?,
            merge_size: v("spatial_merge_size", 2, 1, 64)?,
            min_pixels: QWEN3_VL_PIXELS.0,
            max_pixels: QWEN3_VL_PIXELS.1,
            // Qwen3-VL's DeepStack levels, one per `deepstack_visual_indexes` entry (default
            // [8, 16, 24]); Qwen3.5's tower has none.
            deepstack: match (model_type, &vision) {
                ("qwen3_5" | "qwen3_5_moe", _) => 0,
                (_, Some(v)) => v
                    .u_arr("deepstack_visual_indexes")?
                    .map_or(3, |ix| ix.len() as u64),
                (_, None) => 3,
            },
        }),
        // InternVLConfig: vision_config.image_size 448 (tiles of 448), patch_size 14,
        // downsample_ratio 0.5: (448 / 14)² × 0.5² = 256 tokens per tile, the processor's
        // `image_seq_length`.
        "internvl" => {
            // `image_size` and `patch_size` are one integer or `[height, width]` (square in
            // every released InternVL); the height is read.
            let (tile, patch) = match &vision {
                Some(v) => (
                    pair(v, "image_size", 448, 1 << 14)?.0,
                    pair(v, "patch_size", 14, 1024)?.0,
                ),
                None => (448, 14),
            };
            let ratio = match top.get("downsample_ratio") {
                Some(serde_json::Value::Number(n)) => n.as_f64().unwrap_or(0.5),
                _ => 0.5,
            };
            let side = tile / patch;
            // (side × ratio)², the pixel shuffle's merged grid; a ratio outside (0, 1] is kept
            // from making tokens out of nothing.
            let merged = libm::floor(side as f64 * ratio.clamp(1e-3, 1.0)) as u64;
            Some(ImageTokens::Tiles {
                tile_size: tile,
                min_tiles: INTERNVL_TILES.0,
                max_tiles: INTERNVL_TILES.1,
                tokens_per_tile: (merged * merged).max(1),
            })
        }
        // Mistral3Config: spatial_merge_size 2 (top level); PixtralVisionConfig patch_size 16,
        // image_size 1024, which is the processor's `longest_edge` (Mistral Small 3.1: 14, 1540).
        "mistral3" => Some(ImageTokens::Rows {
            patch_size: v("patch_size", 16, 1, 1024)?,
            merge_size: t("spatial_merge_size", 2, 1, 16)?,
            longest_edge: v("image_size", 1024, 1, 1 << 15)?,
        }),
        // Gemma4VisionConfig: patch_size 16, pooling_kernel_size 3 (transformers 5.25); the
        // image processor's `max_soft_tokens` 280 (its class default and the processor's
        // `image_seq_length`), or `vision_config.default_output_length` where a config names
        // it, as vLLM's `gemma4_mm.py` reads it. Only a config with a vision tower.
        "gemma4" if vision.is_some() => Some(ImageTokens::Pooled {
            patch_size: v("patch_size", 16, 1, 1024)?,
            pooling: v("pooling_kernel_size", 3, 1, 64)?,
            max_soft_tokens: v("default_output_length", GEMMA4_SOFT_TOKENS, 1, 1 << 16)?,
        }),
        _ => None,
    })
}

/// Gemma 4's image processor's `max_soft_tokens` (transformers 5.25 `Gemma4ImageProcessor`:
/// 280, one of 70, 140, 280, 560, 1120).
const GEMMA4_SOFT_TOKENS: u64 = 280;

#[cfg(test)]
mod tests {
    use crate::config::parse_config;
    use crate::model::ImageTokens;

    const TEXT: &str = r#""vocab_size": 128, "hidden_size": 64, "intermediate_size": 96,
        "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
        "head_dim": 16"#;

    fn rule(model_type: &str, text_type: &str, outer: &str, vision: &str) -> Option<ImageTokens> {
        let json = alloc::format!(
            r#"{{"model_type": "{model_type}", {outer} "text_config": {{"model_type": "{text_type}", {TEXT}}}, "vision_config": {{{vision}}}}}"#
        );
        parse_config(&json).unwrap().arch.image_tokens
    }

    /// Each wrapper's rule from its config's keys (the values of the real files: Gemma 3's
    /// `mm_tokens_per_image` 256; Mistral Small 3.1's vision `patch_size` 14, `image_size` 1540
    /// and top-level `spatial_merge_size` 2; InternVL3's tile 448, patch 14, ratio 0.5 → 256;
    /// Qwen3-VL's patch 16 and merge 2 with the processor's pixel bounds), and none for Llama 4.
    #[test]
    fn wrappers_read_their_rule() {
        assert_eq!(
            rule(
                "gemma3",
                "gemma3_text",
                r#""mm_tokens_per_image": 256,"#,
                ""
            ),
            Some(ImageTokens::Fixed { tokens: 256 })
        );
        assert_eq!(
            rule(
                "mistral3",
                "mistral",
                r#""spatial_merge_size": 2,"#,
                r#""patch_size": 14, "image_size": 1540, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1"#
            ),
            Some(ImageTokens::Rows {
                patch_size: 14,
                merge_size: 2,
                longest_edge: 1540
            })
        );
        assert_eq!(
            rule(
                "internvl",
                "qwen2",
                r#""downsample_ratio": 0.5,"#,
                r#""image_size": [448, 448], "patch_size": [14, 14], "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2"#
            ),
            Some(ImageTokens::Tiles {
                tile_size: 448,
                min_tiles: 1,
                max_tiles: 12,
                tokens_per_tile: 256
            })
        );
        assert_eq!(
            rule(
                "qwen3_vl",
                "qwen3_vl_text",
                "",
                r#""patch_size": 16, "spatial_merge_size": 2, "depth": 1, "hidden_size": 32, "intermediate_size": 64, "out_hidden_size": 64, "num_heads": 2"#
            ),
            Some(ImageTokens::Dynamic {
                patch_size: 16,
                merge_size: 2,
                min_pixels: 65_536,
                max_pixels: 16_777_216,
                deepstack: 3
            })
        );
    }
}
