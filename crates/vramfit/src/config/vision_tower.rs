//! A multimodal wrapper's vision tower widths ([`VisionTower`]) from its `vision_config`, for
//! the encoder's activation peak; each default is the tower class's own in transformers 5.24
//! (as `vision.rs` and `vision_vl.rs` count the same towers' parameters).

use super::Cfg;
use super::decoder::dim;
use super::vision_vl::pair;
use crate::error::Result;
use crate::model::VisionTower;

/// The tower of the wrapper `model_type`, `None` where its activations are not modelled (Llama
/// 4, Kimi K2.5: the same wrappers whose image tokens are not modelled).
pub(super) fn vision_tower(model_type: &str, top: &Cfg) -> Result<Option<VisionTower>> {
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
        // SiglipVisionConfig: 12 layers, hidden 768, MLP 3072, 12 heads, patch 16, image 224; the
        // (image / patch)² patches pooled into `mm_tokens_per_image` (Gemma3MultiModalProjector).
        "gemma3" => {
            let h = v("hidden_size", 768, 1, 1 << 16)?;
            let heads = v("num_attention_heads", 12, 1, 1 << 10)?;
            let patch = v("patch_size", 16, 1, 1024)?;
            let side = v("image_size", 224, 1, 1 << 14)? / patch;
            let tokens = t("mm_tokens_per_image", 256, 1, 1 << 16)?;
            Some(VisionTower {
                layers: v("num_hidden_layers", 12, 1, 1 << 10)?,
                hidden: h,
                intermediate: v("intermediate_size", 3072, 1, 1 << 18)?,
                head_dim: h / heads,
                pixels: v("num_channels", 3, 1, 64)? * patch * patch,
                patches_per_token: (side * side / tokens).max(1),
                stream: 4,
                cls_per_tile: 0,
                rope: false,
                gated: false,
                axial_rope: false,
                deepstack: 0,
                out_hidden: 0,
            })
        }
        // Qwen3VLVisionConfig / Qwen3_5VisionConfig: depth 27, hidden 1152, MLP 4304, 16 heads, patch 16,
        // 2 frames, merge 2, out 3584, DeepStack after blocks [8, 16, 24] (none for Qwen3.5).
        "qwen3_vl" | "qwen3_vl_moe" | "qwen3_5" | "qwen3_5_moe" => {
            let h = v("hidden_size", 1152, 1, 1 << 16)?;
            let heads = v("num_heads", 16, 1, 1 << 10)?;
            let patch = v("patch_size", 16, 1, 1024)?;
            let merge = v("spatial_merge_size", 2, 1, 64)?;
            let deepstack = match (model_type, &vision) {
                ("qwen3_5" | "qwen3_5_moe", _) => 0,
                (_, Some(c)) => c
                    .u_arr("deepstack_visual_indexes")?
                    .map_or(3, |ix| ix.len() as u64),
                (_, None) => 3,
            };
            Some(VisionTower {
                layers: v("depth", 27, 1, 1 << 10)?,
                hidden: h,
                intermediate: v("intermediate_size", 4304, 1, 1 << 18)?,
                head_dim: h / heads,
                pixels: v("in_channels", 3, 1, 64)?
                    * v("temporal_patch_size", 2, 1, 64)?
                    * patch
                    * patch,
                patches_per_token: merge * merge,
                stream: 2,
                cls_per_tile: 0,
                rope: true,
                gated: false,
                axial_rope: false,
                deepstack,
                out_hidden: v("out_hidden_size", 3584, 1, 1 << 18)?,
            })
        }
        // InternVLVisionConfig: 24 layers, hidden 1024, MLP 4096, 16 heads, patch 14, a CLS token a tile;
        // the pixel shuffle folds ⌊1 / downsample_ratio⌋² patches (default 0.5: 4) into a token.
        "internvl" => {
            let h = v("hidden_size", 1024, 1, 1 << 16)?;
            let heads = v("num_attention_heads", 16, 1, 1 << 10)?;
            let (patch_h, patch_w) = match &vision {
                Some(c) => pair(c, "patch_size", 14, 1024)?,
                None => (14, 14),
            };
            let ratio = match top.get("downsample_ratio") {
                Some(serde_json::Value::Number(n)) => n.as_f64().unwrap_or(0.5),
                _ => 0.5,
            };
            let shuffle = libm::floor(1.0 / ratio.clamp(1.0 / 64.0, 1.0)) as u64;
            Some(VisionTower {
                layers: v("num_hidden_layers", 24, 1, 1 << 10)?,
                hidden: h,
                intermediate: v("intermediate_size", 4096, 1, 1 << 18)?,
                head_dim: h / heads,
                pixels: v("num_channels", 3, 1, 64)? * patch_h * patch_w,
                patches_per_token: (shuffle * shuffle).max(1),
                stream: 5,
                cls_per_tile: 1,
                rope: false,
                gated: false,
                axial_rope: false,
                deepstack: 0,
                out_hidden: 0,
            })
        }
        // PixtralVisionConfig: 24 layers, hidden 1024, gated MLP 4096, 16 heads, patch 16, 2-D rotary;
        // Mistral3Config's `spatial_merge_size` 2 merges 2 × 2 patches into a token.
        "mistral3" => {
            let h = v("hidden_size", 1024, 1, 1 << 16)?;
            let heads = v("num_attention_heads", 16, 1, 1 << 10)?;
            let patch = v("patch_size", 16, 1, 1024)?;
            let merge = t("spatial_merge_size", 2, 1, 16)?;
            Some(VisionTower {
                layers: v("num_hidden_layers", 24, 1, 1 << 10)?,
                hidden: h,
                intermediate: v("intermediate_size", 4096, 1, 1 << 18)?,
                head_dim: h / heads,
                pixels: v("num_channels", 3, 1, 64)? * patch * patch,
                patches_per_token: merge * merge,
                stream: 5,
                cls_per_tile: 0,
                rope: true,
                gated: true,
                axial_rope: false,
                deepstack: 0,
                out_hidden: 0,
            })
        }
        // Gemma4VisionConfig (transformers 5.25): 16 layers, hidden 768, gated MLP 3072, 12 heads
        // of `head_dim` 64, patch 16, `pooling_kernel_size` 3 (3² patches a soft token), axial
        // 2-D rotary; only where the config names a vision tower (`Gemma4Model` builds none
        // without `vision_config`).
        "gemma4" if vision.is_some() => {
            let h = v("hidden_size", 768, 1, 1 << 16)?;
            let patch = v("patch_size", 16, 1, 1024)?;
            let pooling = v("pooling_kernel_size", 3, 1, 64)?;
            Some(VisionTower {
                layers: v("num_hidden_layers", 16, 1, 1 << 10)?,
                hidden: h,
                intermediate: v("intermediate_size", 3072, 1, 1 << 18)?,
                head_dim: v("head_dim", 64, 1, 1 << 12)?,
                pixels: 3 * patch * patch,
                patches_per_token: pooling * pooling,
                stream: 4,
                cls_per_tile: 0,
                rope: false,
                gated: true,
                axial_rope: true,
                deepstack: 0,
                out_hidden: 0,
            })
        }
        _ => None,
    })
}
