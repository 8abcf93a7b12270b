//! The vision towers of Qwen3-VL and InternVL (issue 42): their parameters, counted into the
//! language model's `vision_params` (transformers 5.24 `Qwen3VLVisionModel`,
//! `InternVLVisionModel` and `InternVLMultiModalProjector`). A missing `vision_config` takes the
//! class defaults, as transformers builds the tower from them.

use super::Cfg;
use super::decoder::dim;
use super::vision::qwen3_5_vision_params;
use crate::error::Result;

/// Qwen3-VL's tower: Qwen3.5's (patch convolution, learned positions, blocks, the patch merger)
/// plus one DeepStack merger per `deepstack_visual_indexes` entry (default `[8, 16, 24]`), each
/// a patch merger whose LayerNorm runs after the shuffle, over `hidden × merge²`.
pub(super) fn qwen3_vl_vision_params(v: &Cfg) -> Result<u64> {
    let base = qwen3_5_vision_params(v)?;
    let deepstack = match v.u_arr("deepstack_visual_indexes")? {
        Some(ix) => ix.len() as u64,
        None => 3,
    };
    let key = |k: &str, default: u64, max: u64| -> Result<u64> {
        dim(v, k, v.u(k)?.unwrap_or(default), 1, max)
    };
    let h = key("hidden_size", 1152, 1 << 16)?;
    let merge = key("spatial_merge_size", 2, 64)?;
    let out = key("out_hidden_size", 3584, 1 << 18)?;
    let merged = h * merge * merge;
    // norm (weight and bias over the merged width), fc1 merged², fc2 into the text, biases.
    let merger = 2 * merged + (merged * merged + merged) + (merged * out + out);
    Ok(base + deepstack * merger)
}

/// InternVL's tower (InternViT: a CLS token, the patch convolution with its bias, learned
/// positions over `patches + 1`, and per layer q/k/v (biased by `attention_bias`), the output
/// projection with its bias, q/k RMSNorms over the width when `use_qk_norm`, the MLP with
/// biases, two norms (`norm_type` `layer_norm` with biases, `rms_norm` without) and two
/// layer-scale vectors; a final LayerNorm unless `use_mean_pooling`) and the projector: a
/// LayerNorm and two biased linears from `hidden × ⌊1 / downsample_ratio⌋²` (the pixel shuffle)
/// into the language model's width.
pub(super) fn internvl_vision_params(top: &Cfg, v: &Cfg, text_hidden: u64) -> Result<u64> {
    let key = |k: &str, default: u64, max: u64| -> Result<u64> {
        dim(v, k, v.u(k)?.unwrap_or(default), 1, max)
    };
    let h = key("hidden_size", 1024, 1 << 16)?;
    let inter = key("intermediate_size", 4096, 1 << 18)?;
    let layers = dim(
        v,
        "num_hidden_layers",
        v.u("num_hidden_layers")?.unwrap_or(24),
        0,
        256,
    )?;
    let channels = key("num_channels", 3, 64)?;
    let (image_h, image_w) = pair(v, "image_size", 448, 1 << 14)?;
    let (patch_h, patch_w) = pair(v, "patch_size", 14, 1024)?;
    let patches = (image_h / patch_h) * (image_w / patch_w);
    let bias = v.b("attention_bias")?.unwrap_or(false);
    let qk_norm = v.b("use_qk_norm")?.unwrap_or(false);
    let layer_norm = match v.str("norm_type")?.unwrap_or("layer_norm") {
        "layer_norm" => true,
        "rms_norm" => false,
        other => {
            return Err(input_error!(
                ConfigJson,
                v.field("norm_type"),
                ["`{other}` is not a norm InternVL builds"],
                ["`{other}` 不是 InternVL 构建的归一化层"],
                ["layer_norm or rms_norm"],
                ["layer_norm 或 rms_norm"],
            ));
        }
    };
    let mask_token = if v.b("use_mask_token")?.unwrap_or(false) {
        h
    } else {
        0
    };
    let positions = if v.b("use_absolute_position_embeddings")?.unwrap_or(true) {
        (patches + 1) * h
    } else {
        0
    };
    let embed = h + mask_token + channels * patch_h * patch_w * h + h + positions;
    let norm = if layer_norm { 2 * h } else { h };
    let layer = 3 * h * h
        + if bias { 3 * h } else { 0 }
        + (h * h + h)
        + if qk_norm { 2 * h } else { 0 }
        + (h * inter + inter)
        + (inter * h + h)
        + 2 * norm
        + 2 * h;
    let final_norm = if v.b("use_mean_pooling")?.unwrap_or(true) {
        0
    } else {
        2 * h
    };
    let shuffle = shuffle_factor(top)?;
    let merged = h * shuffle * shuffle;
    let projector = 2 * merged
        + (merged * text_hidden + text_hidden)
        + (text_hidden * text_hidden + text_hidden);
    Ok(embed + layers * layer + final_norm + projector)
}

/// `⌊1 / downsample_ratio⌋` (default ratio 0.5): the side of the patch square the pixel shuffle
/// folds into one token.
fn shuffle_factor(top: &Cfg) -> Result<u64> {
    let Some(value) = top.get("downsample_ratio") else {
        return Ok(2);
    };
    match value.as_f64() {
        Some(r) if r > 1.0 / 64.0 && r <= 1.0 => Ok(libm::floor(1.0 / r) as u64),
        _ => Err(input_error!(
            OutOfRange,
            top.field("downsample_ratio"),
            ["`{value}` is out of range"],
            ["`{value}` 超出范围"],
            ["a number above 1/64 and at most 1 (InternVL's 0.5 folds 2 × 2 patches into a token)"],
            ["大于 1/64 且不超过 1 的数（InternVL 的 0.5 把 2 × 2 个图块合成一个 token）"],
        )),
    }
}

/// A size given as one integer or as `[height, width]`.
pub(super) fn pair(v: &Cfg, key: &str, default: u64, max: u64) -> Result<(u64, u64)> {
    if matches!(v.get(key), Some(serde_json::Value::Array(_)))
        && let Some(a) = v.u_arr(key)?
    {
        return match a.as_slice() {
            [x, y] => Ok((dim(v, key, *x, 1, max)?, dim(v, key, *y, 1, max)?)),
            _ => Err(input_error!(
                ConfigJson,
                v.field(key),
                ["{} entries", a.len()],
                ["{} 个元素", a.len()],
                ["one integer, or [height, width]"],
                ["一个整数，或 [高, 宽]"],
            )),
        };
    }
    let n = dim(v, key, v.u(key)?.unwrap_or(default), 1, max)?;
    Ok((n, n))
}

/// Kimi K2.5's MoonViT (`Kimi_K25VisionModel`): the patch convolution with its bias, a learned
/// `pos_emb_height × pos_emb_width` position grid, per layer two LayerNorms, q/k/v and the output
/// projection with biases and the MLP with biases, a final LayerNorm; and the projector
/// (`Kimi_K25MultimodalProjection`): a LayerNorm over `projection_hidden_size`, then linears from
/// the merged `hidden × merge_kernel_size` patches to themselves and into the text width.
pub(super) fn kimi_k25_vision_params(top: &Cfg, v: &Cfg, text_hidden: u64) -> Result<u64> {
    let key = |k: &str, default: u64, max: u64| -> Result<u64> {
        dim(v, k, v.u(k)?.unwrap_or(default), 1, max)
    };
    let h = key("hidden_size", 1152, 1 << 16)?;
    let inter = key("intermediate_size", 4304, 1 << 18)?;
    let layers = dim(
        v,
        "num_hidden_layers",
        v.u("num_hidden_layers")?.unwrap_or(27),
        0,
        256,
    )?;
    let patch = key("patch_size", 14, 1024)?;
    let grid = key("pos_emb_height", 64, 1 << 12)? * key("pos_emb_width", 64, 1 << 12)?;
    let (merge_h, merge_w) = pair(v, "merge_kernel_size", 2, 64)?;
    let projection = dim(
        top,
        "projection_hidden_size",
        top.u("projection_hidden_size")?.unwrap_or(1152),
        1,
        1 << 18,
    )?;
    let embed = 3 * patch * patch * h + h + grid * h;
    let layer = 4 * h + 4 * (h * h + h) + (h * inter + inter) + (inter * h + h);
    let merged = h * merge_h * merge_w;
    let projector =
        2 * projection + (merged * merged + merged) + (merged * text_hidden + text_hidden);
    Ok(embed + layers * layer + 2 * h + projector)
}
