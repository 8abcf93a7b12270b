//! Gemma 3n's text stack (`gemma3n_text`, and `gemma3n`'s `text_config`; transformers 5.24
//! `Gemma3nTextConfig` and `modeling_gemma3n.py`), read onto Gemma 4's [`LayerShapes`]: sliding
//! layers with every fifth attending globally (at the same head width and KV heads), per-layer
//! embeddings, the last `num_kv_shared_layers` layers reading an earlier layer's cache with no
//! cache or k/v projections of their own, and in every block AltUp's router and coefficients
//! (`altup_num_inputs`) and LAuReL's low-rank residual (`laurel_rank`).
//!
//! `activation_sparsity_pattern` (a top-k of each early layer's FFN activations, 0.95 on the
//! first 10 layers) is read for its length alone: it keeps 5 % of the activations' values but
//! computes and stores them whole, so it changes neither weights nor memory.

use alloc::format;
use alloc::string::String;

use serde_json::{Map, Value};

use super::decoder::{Defaults, LLAMA, Style, common};
use super::{Cfg, Notes};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, LayerShapes, MAX_DIM};

/// Gemma 3n's layers: a sliding window of `sliding_window` (512) with every fifth layer full.
const FULL_PERIOD: u64 = 5;

/// The architecture of a Gemma 3n text config, with `Gemma3nTextConfig`'s defaults (the E4B's).
#[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
pub(super) fn gemma3n(c: &Cfg, notes: &mut Notes) -> Result<Architecture> {
    let obj = uniform_ffn(c)?;
    let c = &Cfg {
        obj: &obj,
        prefix: c.prefix.clone(),
    };
    if c.b("attention_bias")?.unwrap_or(false) {
        return Err(InputError::new(
            ErrorKind::Unsupported,
            c.field("attention_bias"),
            "biased attention projections are not modelled for Gemma 3n",
            "false (every released Gemma 3n config)",
        ));
    }
    let style = Style {
        tie_default: true,
        norms_per_layer: 4,
        ..LLAMA
    };
    let mut a = common(c, style, Some(Defaults::GEMMA3N))?;
    let layers = a.num_layers;
    let period = match c.arr("layer_types")? {
        Some(_) => super::gemma4::full_period(c, layers)?,
        None if layers.is_multiple_of(FULL_PERIOD) => FULL_PERIOD,
        None => {
            return Err(InputError::new(
                ErrorKind::Unsupported,
                c.field("num_hidden_layers"),
                format!(
                    "{layers} layers without layer_types: Gemma 3n's default pattern (every fifth layer full) would leave the last layer sliding"
                ),
                "a multiple of 5, or layer_types with every n-th layer (and the last) full_attention",
            ));
        }
    };
    sparsity_pattern(c, layers)?;
    let window = c.u("sliding_window")?.unwrap_or(512);
    let shared = c.u("num_kv_shared_layers")?.unwrap_or(15);
    if shared >= layers {
        return Err(InputError::new(
            ErrorKind::Conflict,
            c.field("num_kv_shared_layers"),
            format!("{shared} shared layers of num_hidden_layers = {layers}"),
            "fewer than num_hidden_layers: an earlier layer of each type keeps the cache they read",
        ));
    }
    let width = checked(c, "hidden_size_per_layer_input", 256, 0)?;
    let vocab = checked(c, "vocab_size_per_layer_input", 262_144, 1)?;
    let altup = checked(c, "altup_num_inputs", 4, 1)?;
    let laurel = checked(c, "laurel_rank", 64, 0)?;
    let full = (0..layers)
        .filter(|l| (l + 1).is_multiple_of(period) || l + 1 == layers)
        .count() as u64;
    a.sliding_window = window;
    a.sliding_layers = layers - full;
    a.qk_norm = false; // each block's q and k norms are counted with its shapes
    a.layer_shapes = Some(LayerShapes {
        full_period: period,
        full_head_dim: a.head_dim,
        full_kv_heads: a.num_kv_heads,
        full_k_eq_v: false,
        kv_shared_layers: shared,
        double_wide_mlp: false,
        per_layer_vocab: if width == 0 { 0 } else { vocab },
        per_layer_width: width,
        full_qkv: false,
        altup_inputs: altup,
        laurel_rank: laurel,
        full_first: false,
        full_heads: 0,
        head_gate: false,
    });
    let (shared_full, shared_sliding) = a.kv_shared_layers();
    let sliding = layers - full;
    let (hd, kv) = (a.head_dim, a.num_kv_heads);
    notes.push(
        format!(
            "Gemma 3n: {sliding} sliding layers (window {window}) and {full} full-attention layers, each of {kv} KV heads × {hd}; the last {shared} layers ({shared_full} full, {shared_sliding} sliding) read an earlier layer's keys and values and keep no cache; per-layer embeddings of {width} per layer over a vocabulary of {vocab}; AltUp of {altup} streams and LAuReL of rank {laurel} in every layer; activation_sparsity_pattern changes no memory."
        ),
        format!(
            "Gemma 3n：{sliding} 个滑动窗口层（窗口 {window}）与 {full} 个全局注意力层，各为 {kv} 个 KV 头 × {hd}；最后 {shared} 层（{shared_full} 个全局、{shared_sliding} 个滑动）读取前面层的键值，不保留缓存；逐层嵌入每层 {width} 维，词表 {vocab}；每层有 {altup} 路 AltUp 与秩 {laurel} 的 LAuReL；activation_sparsity_pattern 不改变显存。"
        ),
    );
    Ok(a)
}

/// A copy of the config with `intermediate_size` one number: Gemma 3n writes it per layer (a
/// list, all equal in the released E2B and E4B); a list of different widths is refused.
fn uniform_ffn(c: &Cfg) -> Result<Map<String, Value>> {
    let mut obj = c.obj.clone();
    if let Some(Value::Array(list)) = c.get("intermediate_size") {
        let first = list.first().and_then(Value::as_u64);
        let Some(width) = first.filter(|w| list.iter().all(|v| v.as_u64() == Some(*w))) else {
            return Err(InputError::new(
                ErrorKind::Unsupported,
                c.field("intermediate_size"),
                "per-layer FFN widths that differ (a MatFormer slice) are not modelled",
                "one width, or a list of the same width for every layer",
            ));
        };
        let layers = c.u("num_hidden_layers")?.unwrap_or(35);
        if list.len() as u64 != layers {
            return Err(InputError::new(
                ErrorKind::Conflict,
                c.field("intermediate_size"),
                format!("{} entries for num_hidden_layers = {layers}", list.len()),
                "one width, or one entry per layer",
            ));
        }
        obj.insert(String::from("intermediate_size"), Value::from(width));
    }
    Ok(obj)
}

/// `activation_sparsity_pattern` must have one fraction per layer, as transformers requires.
fn sparsity_pattern(c: &Cfg, layers: u64) -> Result<()> {
    match c.arr("activation_sparsity_pattern")? {
        Some(list) if list.len() as u64 != layers => Err(InputError::new(
            ErrorKind::Conflict,
            c.field("activation_sparsity_pattern"),
            format!("{} entries for num_hidden_layers = {layers}", list.len()),
            "one fraction from 0 to 1 per layer",
        )),
        _ => Ok(()),
    }
}

/// `key`, or its default, from `lo` to [`MAX_DIM`].
fn checked(c: &Cfg, key: &str, default: u64, lo: u64) -> Result<u64> {
    let v = c.u(key)?.unwrap_or(default);
    super::decoder::dim(c, key, v, lo, MAX_DIM)
}

#[cfg(test)]
#[path = "gemma3n_tests.rs"]
mod tests;
