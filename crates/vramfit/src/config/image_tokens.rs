//! A multimodal wrapper's image-token rule ([`ImageTokens`]) from its `config.json`, with the
//! processor's defaults where the rule's numbers live in `preprocessor_config.json`, which the
//! hub lookup does not read. Each default is the one the model's own processor files ship.

use super::Cfg;
use super::decoder::dim;
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
/// modelled (Llama 4, Kimi K2.5, Gemma 4), which an `images` input then refuses by name.
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
        // Qwen3VLVisionConfig / Qwen3_5VisionConfig: patch_size 16, spatial_merge_size 2.
        "qwen3_vl" | "qwen3_vl_moe" | "qwen3_5" | "qwen3_5_moe" => Some(ImageTokens::Dynamic {
            patch_size: v("patch_size", 16, 1, 1024)?,
            merge_size: v("spatial_merge_size", 2, 1, 64)?,
            min_pixels: QWEN3_VL_PIXELS.0,
            max_pixels: QWEN3_VL_PIXELS.1,
        }),
        // InternVLConfig: vision_config.image_size 448 (tiles of 448), patch_size 14,
        // downsample_ratio 0.5: (448 / 14)² × 0.5² = 256 tokens per tile, the processor's
        // `image_seq_length`.
        "internvl" => {
            let tile = v("image_size", 448, 1, 1 << 14)?;
            let patch = v("patch_size", 14, 1, 1024)?;
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
        _ => None,
    })
}
