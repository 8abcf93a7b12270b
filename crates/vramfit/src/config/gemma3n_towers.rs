//! Gemma 3n's encoders (transformers 5.24 `modeling_gemma3n.py`): the MobileNet-v5 vision tower
//! (a timm model named by `vision_config.architecture`), the USM conformer audio tower
//! (`Gemma3nAudioEncoder`, from `audio_config`) and the two multimodal embedders that project
//! their outputs into the language model (`Gemma3nMultimodalEmbedder`). transformers builds each
//! from its class defaults where the file has no such config.

use alloc::format;
use alloc::string::String;

use serde_json::{Map, Value};

use super::Cfg;
use super::decoder::dim;
use crate::error::{ErrorKind, InputError, Result};
use crate::model::MAX_DIM;

/// The vision towers by timm architecture, with their parameter count: the timm model has no
/// shapes in the config to count from. `mobilenetv5_300m_enc` (google/gemma-3n-E2B-it and
/// -E4B-it): 294,126,912, counted on the meta device with timm 1.0.31
/// (`tests/reference/gemma3n_reference.py`, 2026-12-07).
const VISION_TOWERS: &[(&str, u64)] = &[("mobilenetv5_300m_enc", 294_126_912)];

/// Every encoder and embedder parameter of a `gemma3n` config whose language model is
/// `text_hidden` wide.
pub(super) fn towers(top: &Cfg, text_hidden: u64) -> Result<u64> {
    let empty = Map::new();
    let child = |key: &str| -> Result<Cfg> {
        Ok(top.child(key)?.unwrap_or(Cfg {
            obj: &empty,
            prefix: format!("{key}."),
        }))
    };
    let vision = child("vision_config")?;
    let audio = child("audio_config")?;
    let architecture = vision
        .str("architecture")?
        .unwrap_or("mobilenetv5_300m_enc");
    let Some(&(_, tower)) = VISION_TOWERS.iter().find(|(name, _)| *name == architecture) else {
        return Err(InputError::new(
            ErrorKind::Unsupported,
            vision.field("architecture"),
            format!("the timm vision tower {architecture} is not known"),
            "mobilenetv5_300m_enc (Gemma 3n's released checkpoints)",
        ));
    };
    let vision_hidden = get(&vision, "hidden_size", 2048)?;
    let audio_hidden = get(&audio, "hidden_size", 1536)?;
    let embedders = embedder(&vision, vision_hidden, text_hidden)?.saturating_add(embedder(
        &audio,
        audio_hidden,
        text_hidden,
    )?);
    Ok(tower
        .saturating_add(audio_tower(&audio, audio_hidden)?)
        .saturating_add(embedders))
}

/// `Gemma3nMultimodalEmbedder`: a table of `vocab_size` (128) soft tokens, two norms of the
/// encoder's width and its projection into the language model (the norm after it has no
/// weight).
fn embedder(c: &Cfg, width: u64, text_hidden: u64) -> Result<u64> {
    let vocab = get(c, "vocab_size", 128)?;
    Ok((vocab + 2 + text_hidden).saturating_mul(width))
}

/// `Gemma3nAudioEncoder`: two sub-sampling convolutions (each with a norm of its channels) and
/// their projection into `hidden_size` h, then `conf_num_hidden_layers` conformer blocks of
/// 24 h² + 9 h + h·`conf_conv_kernel_size` + h / `conf_num_attention_heads`: two feed-forwards
/// of 4 h (8 h² and two norms each), attention of q, k, v, relative positions and output
/// (5 h², two norms, a scale per head dimension), a light convolution (3 h², a depthwise
/// kernel, two norms) and the block's norm. All without biases.
fn audio_tower(c: &Cfg, h: u64) -> Result<u64> {
    let features = get(c, "input_feat_size", 128)?;
    let channels = pair(c, "sscp_conv_channel_size", [128, 32])?;
    let kernels = [
        pair_at(c, "sscp_conv_kernel_size", 0, [3, 3])?,
        pair_at(c, "sscp_conv_kernel_size", 1, [3, 3])?,
    ];
    let strides = [
        pair_at(c, "sscp_conv_stride_size", 0, [2, 2])?,
        pair_at(c, "sscp_conv_stride_size", 1, [2, 2])?,
    ];
    let layers = get(c, "conf_num_hidden_layers", 12)?;
    let heads = get(c, "conf_num_attention_heads", 8)?;
    let conv_kernel = get(c, "conf_conv_kernel_size", 5)?;
    if !h.is_multiple_of(heads) {
        return Err(InputError::new(
            ErrorKind::Conflict,
            c.field("conf_num_attention_heads"),
            format!("{heads} heads do not divide hidden_size {h}"),
            "a divisor of hidden_size",
        ));
    }
    // The frequency axis after each convolution, padded by one on either side.
    let mut freq = features;
    let mut inputs = 1;
    let mut sscp = 0u64;
    for i in 0..2 {
        let [kh, kw] = kernels[i];
        freq = (freq + 2).saturating_sub(kw) / strides[i][1].max(1) + 1;
        sscp += channels[i] * inputs * kh * kw + channels[i];
        inputs = channels[i];
    }
    sscp += channels[1] * freq * h;
    let block = 24 * h * h + 9 * h + h * conv_kernel + h / heads;
    Ok(sscp.saturating_add(layers.saturating_mul(block)))
}

fn get(c: &Cfg, key: &str, default: u64) -> Result<u64> {
    dim(c, key, c.u(key)?.unwrap_or(default), 1, MAX_DIM)
}

/// A `[a, b]` of positive integers, or `default` where the key is absent.
fn pair(c: &Cfg, key: &str, default: [u64; 2]) -> Result<[u64; 2]> {
    match c.arr(key)? {
        None => Ok(default),
        Some(list) => two(c, key, list),
    }
}

/// Entry `i` of a `[[a, b], [c, d]]`, or `default` where the key is absent.
fn pair_at(c: &Cfg, key: &str, i: usize, default: [u64; 2]) -> Result<[u64; 2]> {
    match c.arr(key)? {
        None => Ok(default),
        Some(list) if list.len() == 2 => match &list[i] {
            Value::Array(inner) => two(c, key, inner),
            _ => Err(bad(c, key)),
        },
        Some(_) => Err(bad(c, key)),
    }
}

fn two(c: &Cfg, key: &str, list: &[Value]) -> Result<[u64; 2]> {
    match list {
        [a, b] => match (a.as_u64(), b.as_u64()) {
            (Some(a), Some(b)) if (1..=MAX_DIM).contains(&a) && (1..=MAX_DIM).contains(&b) => {
                Ok([a, b])
            }
            _ => Err(bad(c, key)),
        },
        _ => Err(bad(c, key)),
    }
}

fn bad(c: &Cfg, key: &str) -> InputError {
    InputError::new(
        ErrorKind::ConfigJson,
        c.field(key),
        String::from("not two positive integers per convolution"),
        "two convolutions of [height, width] positive integers, as Gemma3nAudioConfig writes",
    )
}
