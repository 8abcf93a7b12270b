//! Gemma 4's encoders (transformers 5.25 `modeling_gemma4.py`, `configuration_gemma4.py`): the
//! vision tower (`Gemma4VisionModel`, from `vision_config`), the USM conformer audio tower
//! (`Gemma4AudioModel`, from `audio_config`) and the two embedders that project their outputs
//! into the language model (`Gemma4MultimodalEmbedder`). `Gemma4Model` builds each only where
//! the config names it (`vision_config` and `audio_config` default to none), from the class
//! defaults for the keys it leaves out.
//!
//! Only parameters are counted. The clipped linears' input and output bounds (four fp32 scalars
//! each where `use_clipped_linears`) and `standardize`'s bias and scale (2 × hidden_size) are
//! persistent buffers: 928 values for google/gemma-4-E2B-it (`gemma4-towers-reference.csv`'s
//! `towers_state_dict`), under 4 KB.

use alloc::format;

use super::decoder::dim;
use super::{Cfg, Notes};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::MAX_DIM;

/// Every encoder and embedder parameter of a `gemma4` config whose language model is
/// `text_hidden` wide; 0 where it names neither tower.
#[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
pub(super) fn towers(top: &Cfg, text_hidden: u64, notes: &mut Notes) -> Result<u64> {
    let vision = match top.child("vision_config")? {
        Some(v) => vision_tower(&v)?.saturating_add(get(&v, "hidden_size", 768)? * text_hidden),
        None => 0,
    };
    let audio = match top.child("audio_config")? {
        Some(a) => {
            // The embedder reads the tower's `output_proj_dims`, not its width.
            let out = get(&a, "output_proj_dims", 1536)?;
            audio_tower(&a, out)?.saturating_add(out * text_hidden)
        }
        None => 0,
    };
    if vision.saturating_add(audio) > 0 {
        notes.push(
            format!(
                "Gemma 4: the vision tower and its embedder ({vision} parameters) and the audio tower and its embedder ({audio}) are counted: transformers builds each its config names, and vLLM loads each unless --limit-mm-per-prompt sets its modalities to 0 (image and video; audio) or --language-model-only is given, which vramfit reads as language_model_only. All in the model dtype; llama.cpp keeps them in a separate mmproj file."
            ),
            format!(
                "Gemma 4：视觉编码器及其嵌入层（{vision} 个参数）与音频编码器及其嵌入层（{audio} 个）都已计入：transformers 构建 config 中给出的每一个，vLLM 也会加载，除非 --limit-mm-per-prompt 把其模态（image 与 video；audio）设为 0 或给出 --language-model-only，vramfit 将其读作 language_model_only。都按模型的数据类型计入；llama.cpp 把它们放在单独的 mmproj 文件中。"
            ),
        );
    }
    Ok(vision.saturating_add(audio))
}

/// `Gemma4VisionModel` of width h: the patch embedder (a projection of 3 × `patch_size`² pixel
/// values, no bias, and a table of 2 × `position_embedding_size` positions × h), then
/// `num_hidden_layers` blocks of q and o (h × heads × `head_dim`), k and v (h × KV heads ×
/// `head_dim`), q and k norms of `head_dim`, a gated MLP of 3 × h × `intermediate_size` and
/// four norms of h. No biases (the clipped linears have none); the pooler has no weights.
fn vision_tower(c: &Cfg) -> Result<u64> {
    let h = get(c, "hidden_size", 768)?;
    let ffn = get(c, "intermediate_size", 3072)?;
    let layers = get(c, "num_hidden_layers", 16)?;
    let heads = get(c, "num_attention_heads", 12)?;
    let kv_heads = get(c, "num_key_value_heads", 12)?;
    let head_dim = get(c, "head_dim", 64)?;
    let patch = get(c, "patch_size", 16)?;
    let positions = get(c, "position_embedding_size", 10 * 1024)?;
    // Every key is at most MAX_DIM (2^24): the products of two or three keys fit; those of
    // four saturate, and so do the sums after them.
    let embedder = (3 * patch * patch)
        .saturating_mul(h)
        .saturating_add((2 * positions).saturating_mul(h));
    let block = (2 * heads * head_dim + 2 * kv_heads * head_dim)
        .saturating_mul(h)
        .saturating_add(2 * head_dim)
        .saturating_add((3 * ffn).saturating_mul(h))
        .saturating_add(4 * h);
    Ok(embedder.saturating_add(layers.saturating_mul(block)))
}

/// `Gemma4AudioModel` of width h into `out` (`output_proj_dims`): two sub-sampling
/// convolutions of 3 × 3 kernels without bias, each with a norm of its channels c₀ and c₁
/// (`subsampling_conv_channels`), and their projection of c₀ / 4 × c₁ inputs into h (the code's
/// `proj_input_dim`); `num_hidden_layers` conformer blocks of 24 h² + 9 h + h ×
/// `conv_kernel_size` + h / heads, as Gemma 3n's (two feed-forwards of 4 h with two norms
/// each, q, k, v, relative-position k and output projections of h² with a scale per head
/// dimension, a light convolution of 3 h² with a depthwise kernel and two norms, three block
/// norms); the output projection h × out with its bias.
fn audio_tower(c: &Cfg, out: u64) -> Result<u64> {
    let h = get(c, "hidden_size", 1024)?;
    let layers = get(c, "num_hidden_layers", 12)?;
    let heads = get(c, "num_attention_heads", 8)?;
    let kernel = get(c, "conv_kernel_size", 5)?;
    let [c0, c1] = channels(c)?;
    if !h.is_multiple_of(heads) {
        return Err(InputError::new(
            ErrorKind::Conflict,
            c.field("num_attention_heads"),
            format!("{heads} heads do not divide hidden_size {h}"),
            "a divisor of hidden_size",
        ));
    }
    let convs = 9 * c0 + c0 + 9 * c0 * c1 + c1;
    let subsample = convs.saturating_add((c0 / 4 * c1).saturating_mul(h));
    let block = (24 * h)
        .saturating_mul(h)
        .saturating_add(9 * h + h * kernel + h / heads);
    let output = h * out + out;
    Ok(subsample
        .saturating_add(layers.saturating_mul(block))
        .saturating_add(output))
}

/// `subsampling_conv_channels`: two positive channel counts, `[128, 32]` by default.
fn channels(c: &Cfg) -> Result<[u64; 2]> {
    let key = "subsampling_conv_channels";
    let Some(list) = c.arr(key)? else {
        return Ok([128, 32]);
    };
    let ok = |v: &serde_json::Value| v.as_u64().filter(|n| (1..=MAX_DIM).contains(n));
    match list.as_slice() {
        [a, b] => match (ok(a), ok(b)) {
            (Some(a), Some(b)) => Ok([a, b]),
            _ => Err(bad_channels(c)),
        },
        _ => Err(bad_channels(c)),
    }
}

fn bad_channels(c: &Cfg) -> InputError {
    InputError::new(
        ErrorKind::ConfigJson,
        c.field("subsampling_conv_channels"),
        "not two positive channel counts",
        "two positive integers, one per sub-sampling convolution, as Gemma4AudioConfig writes ([128, 32])",
    )
}

fn get(c: &Cfg, key: &str, default: u64) -> Result<u64> {
    dim(c, key, c.u(key)?.unwrap_or(default), 1, MAX_DIM)
}

#[cfg(test)]
#[path = "gemma4_towers_tests.rs"]
mod tests;
