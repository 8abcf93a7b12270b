//! Gemma 4's text stack (`gemma4_text`, and `gemma4`'s `text_config`; transformers 5.24
//! `Gemma4TextConfig` and `modeling_gemma4.py`): sliding layers of `head_dim` beside
//! full-attention layers of `global_head_dim` (with `num_global_key_value_heads` and no `v_proj`
//! where `attention_k_eq_v`), per-layer embeddings, and the last `num_kv_shared_layers` layers
//! reading an earlier layer's cache, with no cache or k/v projections of their own.

use alloc::format;
use alloc::string::String;

use super::{Cfg, Notes};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, LayerShapes, MAX_DIM, MAX_LAYERS};

/// The layer types, widths, sharing and per-layer embeddings of a Gemma 4 text config whose
/// shared keys `common` has read (with `Gemma4TextConfig`'s defaults).
#[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
pub(super) fn gemma4(c: &Cfg, a: &mut Architecture, notes: &mut Notes) -> Result<()> {
    if c.b("enable_moe_block")?.unwrap_or(false) {
        return Err(input_error!(
            Unsupported,
            c.field("enable_moe_block"),
            [
                "Gemma 4's mixture-of-experts block (a router and experts beside each layer's dense MLP) is not modelled yet"
            ],
            ["尚未支持 Gemma 4 的混合专家块（每层稠密 MLP 旁另有路由器与专家）"],
            ["false (the dense Gemma 4 models); for this model, enter its parameter count instead"],
            ["false（稠密的 Gemma 4 模型）；这个模型请改为输入参数量"],
        ));
    }
    if c.b("attention_bias")?.unwrap_or(false) {
        return Err(InputError::new(
            ErrorKind::Unsupported,
            c.field("attention_bias"),
            "biased attention projections are not modelled for Gemma 4",
            "false (every released Gemma 4 config)",
        ));
    }
    let layers = a.num_layers;
    let period = full_period(c, layers)?;
    let mut window = c.u("sliding_window")?.unwrap_or(512);
    if c.str("use_bidirectional_attention")? == Some("all") {
        // `Gemma4TextConfig.__post_init__`: the window's bounds made exclusive.
        window = window / 2 + 1;
    }
    let full = (0..layers)
        .filter(|l| (l + 1).is_multiple_of(period) || l + 1 == layers)
        .count() as u64;
    let head_dim = checked(c, "global_head_dim", c.u("global_head_dim")?.unwrap_or(512))?;
    let k_eq_v = c.b("attention_k_eq_v")?.unwrap_or(false);
    let kv_heads = match c.u("num_global_key_value_heads")? {
        Some(n) if k_eq_v => checked(c, "num_global_key_value_heads", n)?,
        _ => a.num_kv_heads,
    };
    let shared = c.u("num_kv_shared_layers")?.unwrap_or(0);
    if shared >= layers {
        return Err(InputError::new(
            ErrorKind::Conflict,
            c.field("num_kv_shared_layers"),
            format!("{shared} shared layers of num_hidden_layers = {layers}"),
            "fewer than num_hidden_layers: an earlier layer of each type keeps the cache they read",
        ));
    }
    let width = c.u("hidden_size_per_layer_input")?.unwrap_or(256);
    let width = if width == 0 {
        0
    } else {
        checked(c, "hidden_size_per_layer_input", width)?
    };
    let vocab = if width == 0 {
        0
    } else {
        c.u("vocab_size_per_layer_input")?.unwrap_or(262_144)
    };
    a.sliding_window = window;
    a.sliding_layers = layers - full;
    a.qk_norm = false; // each block's q and k norms are counted with its shapes
    a.layer_shapes = Some(LayerShapes {
        full_period: period,
        full_head_dim: head_dim,
        full_kv_heads: kv_heads,
        full_k_eq_v: k_eq_v,
        kv_shared_layers: shared,
        double_wide_mlp: c.b("use_double_wide_mlp")?.unwrap_or(false),
        per_layer_vocab: vocab,
        per_layer_width: width,
        full_qkv: false,
        altup_inputs: 0,
        laurel_rank: 0,
        full_first: false,
        full_heads: 0,
        head_gate: false,
    });
    let (shared_full, shared_sliding) = a.kv_shared_layers();
    let sliding = layers - full;
    let (sd, skv) = (a.head_dim, a.num_kv_heads);
    notes.push(
        format!(
            "Gemma 4: {sliding} sliding layers (window {window}) of {skv} KV heads × {sd} and {full} full-attention layers of {kv_heads} KV heads × {head_dim} (global_head_dim); the last {shared} layers ({shared_full} full, {shared_sliding} sliding) read an earlier layer's keys and values and keep no cache; per-layer embeddings of {width} per layer over a vocabulary of {vocab}."
        ),
        format!(
            "Gemma 4：{sliding} 个滑动窗口层（窗口 {window}）为 {skv} 个 KV 头 × {sd}，{full} 个全局注意力层为 {kv_heads} 个 KV 头 × {head_dim}（global_head_dim）；最后 {shared} 层（{shared_full} 个全局、{shared_sliding} 个滑动）读取前面层的键值，不保留缓存；逐层嵌入每层 {width} 维，词表 {vocab}。"
        ),
    );
    Ok(())
}

/// Every `n`-th layer is full (and the last): from `layer_types`, which must follow that
/// pattern, or transformers' default of 6.
pub(super) fn full_period(c: &Cfg, layers: u64) -> Result<u64> {
    let Some(types) = c.arr("layer_types")? else {
        return Ok(6);
    };
    if types.len() as u64 != layers || layers > MAX_LAYERS {
        return Err(InputError::new(
            ErrorKind::Conflict,
            c.field("layer_types"),
            format!("{} entries for num_hidden_layers = {layers}", types.len()),
            "one entry per layer",
        ));
    }
    let full: alloc::vec::Vec<bool> = types
        .iter()
        .map(|t| match t.as_str() {
            Some("full_attention") => Ok(true),
            Some("sliding_attention") => Ok(false),
            other => Err(InputError::new(
                ErrorKind::ConfigJson,
                c.field("layer_types"),
                format!(
                    "layer type {} is not known",
                    other.unwrap_or("(not a string)")
                ),
                "sliding_attention or full_attention",
            )),
        })
        .collect::<Result<_>>()?;
    let period = full
        .iter()
        .position(|&f| f)
        .map_or(layers, |i| i as u64 + 1);
    let regular = full
        .iter()
        .enumerate()
        .all(|(i, &f)| f == ((i as u64 + 1).is_multiple_of(period) || i as u64 + 1 == layers));
    if !regular {
        let pattern: String = full.iter().map(|&f| if f { 'F' } else { 'S' }).collect();
        return Err(InputError::new(
            ErrorKind::Unsupported,
            c.field("layer_types"),
            format!("the pattern {pattern} is not every n-th layer full"),
            "every n-th layer (and the last) full_attention, the others sliding_attention",
        ));
    }
    Ok(period)
}

fn checked(c: &Cfg, key: &str, v: u64) -> Result<u64> {
    super::decoder::dim(c, key, v, 1, MAX_DIM)
}

#[cfg(test)]
#[path = "gemma4_tests.rs"]
mod tests;
