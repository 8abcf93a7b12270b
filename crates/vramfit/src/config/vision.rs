//! Vision towers of multimodal checkpoints (SigLIP, Llama 4, Pixtral): their parameters, counted
//! into the language model's `vision_params`.

use super::Cfg;
use super::decoder::dim;
use crate::error::Result;

/// SigLIP vision tower (`vision_use_head` false) plus Gemma 3's projector into `text_hidden`.
pub(super) fn siglip_params(v: &Cfg, text_hidden: u64) -> Result<u64> {
    let h = dim(
        v,
        "hidden_size",
        v.u("hidden_size")?.unwrap_or(768),
        1,
        1 << 16,
    )?;
    let inter = dim(
        v,
        "intermediate_size",
        v.u("intermediate_size")?.unwrap_or(3072),
        1,
        1 << 18,
    )?;
    let layers = dim(
        v,
        "num_hidden_layers",
        v.u("num_hidden_layers")?.unwrap_or(12),
        0,
        256,
    )?;
    let patch = dim(v, "patch_size", v.u("patch_size")?.unwrap_or(16), 1, 1024)?;
    let image = dim(
        v,
        "image_size",
        v.u("image_size")?.unwrap_or(224),
        1,
        1 << 14,
    )?;
    let channels = dim(v, "num_channels", v.u("num_channels")?.unwrap_or(3), 1, 64)?;
    let side = image / patch;
    let embeddings = channels * patch * patch * h + h + side * side * h;
    let layer = 4 * (h * h + h) + (h * inter + inter) + (inter * h + h) + 4 * h;
    let post_norm = 2 * h;
    // Gemma3MultiModalProjector: mm_input_projection_weight (h × text) and mm_soft_emb_norm (h).
    let projector = h * text_hidden + h;
    Ok(embeddings + layers * layer + post_norm + projector)
}

/// Llama 4 vision encoder, pixel-shuffle adapter and projector into `text_hidden`.
pub(super) fn llama4_vision_params(v: &Cfg, text_hidden: u64) -> Result<u64> {
    let h = dim(
        v,
        "hidden_size",
        v.u("hidden_size")?.unwrap_or(768),
        1,
        1 << 16,
    )?;
    let inter = dim(
        v,
        "intermediate_size",
        v.u("intermediate_size")?.unwrap_or(5632),
        1,
        1 << 18,
    )?;
    let layers = dim(
        v,
        "num_hidden_layers",
        v.u("num_hidden_layers")?.unwrap_or(34),
        0,
        256,
    )?;
    let patch = dim(v, "patch_size", v.u("patch_size")?.unwrap_or(14), 1, 1024)?;
    let image = dim(
        v,
        "image_size",
        v.u("image_size")?.unwrap_or(448),
        1,
        1 << 14,
    )?;
    let channels = dim(v, "num_channels", v.u("num_channels")?.unwrap_or(3), 1, 64)?;
    let proj_in = dim(
        v,
        "projector_input_dim",
        v.u("projector_input_dim")?.unwrap_or(4096),
        1,
        1 << 18,
    )?;
    let proj_out = dim(
        v,
        "projector_output_dim",
        v.u("projector_output_dim")?.unwrap_or(4096),
        1,
        1 << 18,
    )?;
    let out = dim(
        v,
        "vision_output_dim",
        v.u("vision_output_dim")?.unwrap_or(7680),
        1,
        1 << 18,
    )?;
    let side = image / patch;
    let embeddings = channels * patch * patch * h + h + (side * side + 1) * h;
    let norms = 2 * (2 * h);
    let layer = 4 * (h * h + h) + (h * inter + inter) + (inter * h + h) + 4 * h;
    // Llama4VisionMLP2: fc1 intermediate → projector_input, fc2 projector_output², no biases.
    let adapter = inter * proj_in + proj_out * proj_out;
    let projector = out * text_hidden;
    Ok(embeddings + norms + layers * layer + adapter + projector)
}

/// Pixtral vision encoder plus Mistral 3's projector into `text_hidden`.
pub(super) fn pixtral_params(top: &Cfg, v: &Cfg, text_hidden: u64) -> Result<u64> {
    let h = dim(
        v,
        "hidden_size",
        v.u("hidden_size")?.unwrap_or(1024),
        1,
        1 << 16,
    )?;
    let inter = dim(
        v,
        "intermediate_size",
        v.u("intermediate_size")?.unwrap_or(4096),
        1,
        1 << 18,
    )?;
    let layers = dim(
        v,
        "num_hidden_layers",
        v.u("num_hidden_layers")?.unwrap_or(24),
        0,
        256,
    )?;
    let patch = dim(v, "patch_size", v.u("patch_size")?.unwrap_or(16), 1, 1024)?;
    let channels = dim(v, "num_channels", v.u("num_channels")?.unwrap_or(3), 1, 64)?;
    let merge = dim(
        top,
        "spatial_merge_size",
        top.u("spatial_merge_size")?.unwrap_or(2),
        1,
        16,
    )?;
    let bias = top.b("multimodal_projector_bias")?.unwrap_or(false);
    // Patch conv without bias, ln_pre; per layer q, k, v, o, gated FFN, two RMSNorms.
    let encoder = channels * patch * patch * h + h + layers * (4 * h * h + 3 * h * inter + 2 * h);
    let b = |n: u64| if bias { n } else { 0 };
    let projector = h
        + h * merge * merge * h
        + h * text_hidden
        + b(text_hidden)
        + text_hidden * text_hidden
        + b(text_hidden);
    Ok(encoder + projector)
}

/// Qwen3.5's vision tower (`Qwen3_5VisionModel`: Qwen3-VL's without the deepstack mergers): a
/// 3-D patch convolution, learned positions, `depth` pre-norm blocks (LayerNorms, a fused qkv
/// and every projection with biases) and the patch merger into `out_hidden_size` over
/// `spatial_merge_size²` patches. The class defaults fill the keys a file leaves out.
pub(super) fn qwen3_5_vision_params(v: &Cfg) -> Result<u64> {
    let key = |k: &str, default: u64, max: u64| -> Result<u64> {
        dim(v, k, v.u(k)?.unwrap_or(default), 1, max)
    };
    let h = key("hidden_size", 1152, 1 << 16)?;
    let inter = key("intermediate_size", 4304, 1 << 18)?;
    let depth = dim(v, "depth", v.u("depth")?.unwrap_or(27), 0, 256)?;
    let channels = key("in_channels", 3, 64)?;
    let patch = key("patch_size", 16, 1024)?;
    let temporal = key("temporal_patch_size", 2, 64)?;
    let merge = key("spatial_merge_size", 2, 64)?;
    let positions = key("num_position_embeddings", 2304, 1 << 20)?;
    let out = key("out_hidden_size", 3584, 1 << 18)?;
    let embed = channels * temporal * patch * patch * h + h + positions * h;
    // norm1, norm2 (LayerNorm: weight and bias), qkv, proj, fc1, fc2 with biases.
    let block = 4 * h + (3 * h * h + 3 * h) + (h * h + h) + (h * inter + inter) + (inter * h + h);
    // The merger: a LayerNorm over one patch, fc1 over the merged patches, fc2 into the text.
    let merged = h * merge * merge;
    let merger = 2 * h + (merged * merged + merged) + (merged * out + out);
    Ok(embed + depth * block + merger)
}
