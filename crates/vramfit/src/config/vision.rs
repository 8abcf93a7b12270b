//! Vision towers of multimodal checkpoints (SigLIP, Llama 4, Pixtral): their parameters, counted
//! into the language model's `extra_params`.

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
