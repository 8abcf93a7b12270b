//! Step 3.5 (`step3p5`, and `step3p7`'s `text_config`; transformers 5.24 `Step3p7TextConfig`
//! and `modeling_step3p7.py`), read onto [`LayerShapes`]: full-attention layers every fourth from
//! the first beside sliding layers with their own query heads (`num_sliding_attention_heads`, or
//! the hub file's `attention_other_setting.num_attention_heads`), every layer of the same KV heads
//! and head width, a sigmoid gate per head (`g_proj`), q/k norms, and from layer 3 (the hub file's
//! `moe_layers_enum`) 288 routed experts of 1280, top 8, beside a shared expert of
//! `share_expert_dim`. Per-layer rotary (`rope_theta`, `partial_rotary_factors` lists) has no
//! weights. The hub file's per-layer lists carry `num_nextn_predict_layers` trailing MTP entries,
//! cut off as transformers does; the MTP layers' weights are not loaded by transformers and are
//! not counted. The router's score-correction bias is a buffer, not a parameter, in transformers
//! (the checkpoint's `router_bias`, 288 fp32 values per MoE layer, is not counted); Step 3.7's
//! vision tower is counted by [`step3p7_vision_params`].

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde_json::{Map, Value};

use super::decoder::{LLAMA, Style, common, dim};
use super::{Cfg, Notes};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, LayerShapes, MAX_DIM, MAX_LAYERS, Moe};

/// `Step3p7TextConfig`'s defaults (its docstring checkpoint, stepfun-ai/Step-3.7-Flash; the hub
/// file writes its own vocabulary, 128896).
const DEFAULTS: &[(&str, u64)] = &[
    ("vocab_size", 128_815),
    ("hidden_size", 4096),
    ("intermediate_size", 11_264),
    ("num_hidden_layers", 45),
    ("num_attention_heads", 64),
    ("num_key_value_heads", 8),
    ("head_dim", 128),
    ("max_position_embeddings", 128_000),
];

/// The hub file's names for `Step3p7TextConfig`'s fields (its `attribute_map`), first match kept.
const ALIASES: &[(&str, &[&str])] = &[
    ("num_key_value_heads", &["num_attention_groups"]),
    (
        "n_routed_experts",
        &["moe_num_experts", "num_local_experts"],
    ),
    ("num_experts_per_tok", &["moe_top_k"]),
    ("share_expert_dim", &["share_expert_dims"]),
];

/// The architecture of a Step 3.5 text config.
#[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
pub(super) fn step3p5(c: &Cfg, notes: &mut Notes) -> Result<Architecture> {
    let obj = with_class_names(c.obj);
    let c = &Cfg {
        obj: &obj,
        prefix: c.prefix.clone(),
    };
    if c.b("attention_bias")?.unwrap_or(false) {
        return Err(InputError::new(
            ErrorKind::Unsupported,
            c.field("attention_bias"),
            "biased attention projections are not modelled for Step 3.5",
            "false (the released Step 3.5 and 3.7 configs)",
        ));
    }
    let style = Style {
        mlp_bias: c.b("mlp_bias")?.unwrap_or(false),
        ..LLAMA
    };
    let mut a = common(c, style, None)?;
    let layers = a.num_layers;
    let mtp = c.u("num_nextn_predict_layers")?.unwrap_or(0);
    let period = full_period(c, layers, mtp)?;
    let sliding_heads = sliding_heads(c, &a)?;
    gate_per_head(c)?;
    let full = (0..layers).filter(|l| l.is_multiple_of(period)).count() as u64;
    let window = if full < layers {
        dim(
            c,
            "sliding_window",
            c.u("sliding_window")?.unwrap_or(0),
            1,
            MAX_DIM,
        )?
    } else {
        0
    };
    let first_moe = first_moe_layer(c, layers, mtp)?;
    if first_moe < layers {
        let key = |k: &str, default: u64| -> Result<u64> {
            dim(c, k, c.u(k)?.unwrap_or(default), 1, MAX_DIM)
        };
        a.moe = Some(Moe {
            num_experts: key("n_routed_experts", 288)?,
            experts_per_token: key("num_experts_per_tok", 8)?,
            expert_intermediate_size: key("moe_intermediate_size", 1280)?,
            shared_intermediate_size: key("share_expert_dim", 1280)?,
            shared_expert_gate: false,
            first_dense_layers: first_moe,
            router_bias: false,
            expert_bias: false,
        });
    }
    let full_heads = a.num_heads;
    a.num_heads = sliding_heads;
    a.sliding_window = window;
    a.sliding_layers = if window > 0 { layers - full } else { 0 };
    a.qk_norm = false; // each block's q and k norms are counted with its shapes
    a.layer_shapes = Some(LayerShapes {
        full_period: period,
        full_head_dim: a.head_dim,
        full_kv_heads: a.num_kv_heads,
        full_k_eq_v: false,
        kv_shared_layers: 0,
        double_wide_mlp: false,
        per_layer_vocab: 0,
        per_layer_width: 0,
        full_qkv: false,
        altup_inputs: 0,
        laurel_rank: 0,
        full_first: true,
        full_heads: if full_heads == sliding_heads {
            0
        } else {
            full_heads
        },
        head_gate: true,
    });
    let sliding = layers - full;
    let (hd, kv) = (a.head_dim, a.num_kv_heads);
    notes.push(
        format!(
            "Step 3.5: {full} full-attention layers (every {period}th from the first) of {full_heads} query heads and {sliding} sliding layers (window {window}) of {sliding_heads}, each of {kv} KV heads × {hd} and a sigmoid gate per head (g_proj); experts from layer {first_moe}; the MTP layers (num_nextn_predict_layers {mtp}) are not loaded."
        ),
        format!(
            "Step 3.5：{full} 个全局注意力层（从第一层起每 {period} 层一个）为 {full_heads} 个查询头，{sliding} 个滑动窗口层（窗口 {window}）为 {sliding_heads} 个，各为 {kv} 个 KV 头 × {hd}，每个头一个 sigmoid 门控（g_proj）；从第 {first_moe} 层起为专家层；MTP 层（num_nextn_predict_layers {mtp}）不加载。"
        ),
    );
    Ok(a)
}

/// A copy of the file's keys under `Step3p7TextConfig`'s own names, its defaults added where a
/// key is absent (the MoE widths are defaulted where they are read).
fn with_class_names(obj: &Map<String, Value>) -> Map<String, Value> {
    let mut out = obj.clone();
    for (name, aliases) in ALIASES {
        if !out.contains_key(*name)
            && let Some(v) = aliases.iter().find_map(|a| obj.get(*a))
        {
            out.insert(String::from(*name), v.clone());
        }
    }
    for (key, value) in DEFAULTS {
        if !out.contains_key(*key) {
            out.insert(String::from(*key), Value::from(*value));
        }
    }
    if !out.contains_key("tie_word_embeddings") {
        out.insert(String::from("tie_word_embeddings"), Value::Bool(false));
    }
    out
}

/// A per-layer list cut to `layers` entries: the hub file pads it with `mtp` trailing MTP
/// entries, which transformers splits off; any other length is refused.
fn per_layer<'v>(
    c: &Cfg,
    key: &str,
    list: &'v [Value],
    layers: u64,
    mtp: u64,
) -> Result<&'v [Value]> {
    let n = list.len() as u64;
    if n == layers || (mtp > 0 && n == layers + mtp) {
        Ok(&list[..layers as usize])
    } else {
        Err(InputError::new(
            ErrorKind::Conflict,
            c.field(key),
            format!("{n} entries for num_hidden_layers = {layers}"),
            "one entry per layer (and one per MTP layer, num_nextn_predict_layers)",
        ))
    }
}

/// Every `n`-th layer from the first is full: from `layer_types` (all full without it, as
/// transformers defaults), which must follow that pattern.
fn full_period(c: &Cfg, layers: u64, mtp: u64) -> Result<u64> {
    let Some(types) = c.arr("layer_types")? else {
        return Ok(1);
    };
    let types = per_layer(c, "layer_types", types, layers, mtp)?;
    let full: Vec<bool> = types
        .iter()
        .map(|t| match t.as_str() {
            Some("full_attention") => Ok(true),
            Some("sliding_attention") => Ok(false),
            other => Err(InputError::new(
                ErrorKind::Unsupported,
                c.field("layer_types"),
                format!(
                    "layer type {} is not modelled for Step 3.5",
                    other.unwrap_or("(not a string)")
                ),
                "sliding_attention or full_attention",
            )),
        })
        .collect::<Result<_>>()?;
    let period = full[1..]
        .iter()
        .position(|&f| f)
        .map_or(layers, |i| i as u64 + 1);
    let regular = full
        .iter()
        .enumerate()
        .all(|(i, &f)| f == (i as u64).is_multiple_of(period));
    if !regular {
        let pattern: String = full.iter().map(|&f| if f { 'F' } else { 'S' }).collect();
        return Err(InputError::new(
            ErrorKind::Unsupported,
            c.field("layer_types"),
            format!("the pattern {pattern} is not every n-th layer full from the first"),
            "full_attention on layers 0, n, 2n, … and sliding_attention on the others",
        ));
    }
    Ok(period)
}

/// The sliding layers' query heads: `num_sliding_attention_heads`, else the hub file's
/// `attention_other_setting.num_attention_heads`, else `num_attention_heads`. transformers reads
/// only the heads from `attention_other_setting`; a KV-head count or head width there that
/// differs from the full layers' (which vLLM would read) is refused.
fn sliding_heads(c: &Cfg, a: &Architecture) -> Result<u64> {
    let other = c.child("attention_other_setting")?;
    if let Some(o) = &other {
        for (key, same) in [
            ("num_attention_groups", a.num_kv_heads),
            ("head_dim", a.head_dim),
        ] {
            if let Some(v) = o.u(key)?
                && v != same
            {
                return Err(InputError::new(
                    ErrorKind::Unsupported,
                    o.field(key),
                    format!("{v}, where the full layers have {same}"),
                    format!(
                        "{same} (transformers gives the sliding layers the full layers' KV heads and head width)"
                    ),
                ));
            }
        }
    }
    let heads = match (c.u("num_sliding_attention_heads")?, &other) {
        (Some(h), _) => ("num_sliding_attention_heads", h),
        (None, Some(o)) => match o.u("num_attention_heads")? {
            Some(h) => ("attention_other_setting.num_attention_heads", h),
            None => ("num_attention_heads", a.num_heads),
        },
        (None, None) => ("num_attention_heads", a.num_heads),
    };
    dim(c, heads.0, heads.1, 1, 1 << 14)
}

/// transformers' `gating` (true by default): a gate per head; the elementwise gate of any other
/// value is not modelled.
fn gate_per_head(c: &Cfg) -> Result<()> {
    match c.get("gating") {
        None | Some(Value::Bool(true)) => Ok(()),
        Some(Value::String(s)) if s == "per-head" => Ok(()),
        Some(_) => Err(InputError::new(
            ErrorKind::Unsupported,
            c.field("gating"),
            "a gate per query element (not per head) is not modelled for Step 3.5",
            "true or \"per-head\" (the released configs)",
        )),
    }
}

/// The first MoE layer: from `mlp_layer_types` (`sparse` or `dense` per layer), else the hub
/// file's `moe_layers_enum` (the MoE layers' indices, a comma-separated string or a list), else
/// transformers' default of every layer from 3. The MoE layers must be the last ones; `layers`
/// when there are none.
fn first_moe_layer(c: &Cfg, layers: u64, mtp: u64) -> Result<u64> {
    let (key, sparse): (&str, Vec<bool>) = if let Some(types) = c.arr("mlp_layer_types")? {
        let types = per_layer(c, "mlp_layer_types", types, layers, mtp)?;
        let sparse = types
            .iter()
            .map(|t| match t.as_str() {
                Some("sparse") => Ok(true),
                Some("dense") => Ok(false),
                _ => Err(InputError::new(
                    ErrorKind::ConfigJson,
                    c.field("mlp_layer_types"),
                    format!("{t} is not a layer's MLP type"),
                    "sparse or dense",
                )),
            })
            .collect::<Result<_>>()?;
        ("mlp_layer_types", sparse)
    } else if let Some(e) = c.get("moe_layers_enum") {
        let indices = moe_layers_enum(c, e)?;
        let sparse = (0..layers).map(|l| indices.contains(&l)).collect();
        ("moe_layers_enum", sparse)
    } else {
        ("mlp_layer_types", (0..layers).map(|l| l >= 3).collect())
    };
    let first = sparse.iter().position(|&s| s).unwrap_or(sparse.len()) as u64;
    if sparse[first as usize..].iter().any(|&s| !s) {
        return Err(InputError::new(
            ErrorKind::Unsupported,
            c.field(key),
            "dense layers after the first MoE layer are not modelled",
            "the MoE layers last: every layer from the first MoE layer on",
        ));
    }
    Ok(first)
}

/// `moe_layers_enum`'s indices: `"3,4,5"` or `[3, 4, 5]`.
fn moe_layers_enum(c: &Cfg, e: &Value) -> Result<Vec<u64>> {
    let bad = || {
        InputError::new(
            ErrorKind::ConfigJson,
            c.field("moe_layers_enum"),
            "not a list of layer indices",
            "a comma-separated string of layer indices, or a list of them",
        )
    };
    let out: Vec<u64> = match e {
        Value::String(s) => s
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| t.parse::<u64>().map_err(|_| bad()))
            .collect::<Result<_>>()?,
        Value::Array(list) => list
            .iter()
            .map(|v| match v {
                Value::String(t) => t.trim().parse::<u64>().map_err(|_| bad()),
                _ => v.as_u64().ok_or_else(bad),
            })
            .collect::<Result<_>>()?,
        _ => return Err(bad()),
    };
    if out.len() as u64 > 4 * MAX_LAYERS {
        return Err(bad());
    }
    Ok(out)
}

/// Step 3.7's vision tower and projector (`Step3p7VisionModel`, `multi_modal_projector`): the
/// patch convolution (no bias), learned positions over `(image_size / patch_size)²`, a
/// LayerNorm, per layer q/k/v/out with biases, the MLP (`hidden × mlp_ratio`, `intermediate_size`
/// overridden by it as `__post_init__` does) with biases, two LayerNorms and two layer-scale
/// vectors; two stride-2 3×3 convolutions with biases doubling the width twice; and a linear from
/// `4 × hidden` into the text width (biased by `projector_bias`). The hub file's `width`,
/// `layers` and `heads` are the class's legacy names.
pub(super) fn step3p7_vision_params(top: &Cfg, v: &Cfg, text_hidden: u64) -> Result<u64> {
    let key = |names: &[&str], default: u64, lo: u64, max: u64| -> Result<u64> {
        let found = names
            .iter()
            .find_map(|n| v.u(n).transpose().map(|x| (*n, x)));
        match found {
            Some((n, x)) => dim(v, n, x?, lo, max),
            None => Ok(default),
        }
    };
    let h = key(&["width", "hidden_size"], 1536, 1, 1 << 16)?;
    let layers = key(&["layers", "num_hidden_layers"], 47, 0, 256)?;
    let channels = key(&["num_channels"], 3, 1, 64)?;
    let image = key(&["image_size"], 728, 1, 1 << 14)?;
    let patch = key(&["patch_size"], 14, 1, 1024)?;
    let ratio = match v.get("mlp_ratio") {
        None => 8960.0 / 1536.0,
        Some(r) => r
            .as_f64()
            .filter(|r| *r > 0.0 && *r <= 64.0)
            .ok_or_else(|| {
                InputError::new(
                    ErrorKind::OutOfRange,
                    v.field("mlp_ratio"),
                    format!("{r} is not a ratio from 0 to 64"),
                    "a number above 0, at most 64",
                )
            })?,
    };
    // `int(hidden_size * mlp_ratio)`, as the class computes it.
    let inter = (h as f64 * ratio) as u64;
    let positions = (image / patch) * (image / patch);
    let embed = channels * patch * patch * h + positions * h + 2 * h;
    let block = 4 * (h * h + h) + (h * inter + inter) + (inter * h + h) + 4 * h + 2 * h;
    let down = (2 * h * h * 9 + 2 * h) + (4 * h * 2 * h * 9 + 4 * h);
    let projector_bias = top.b("projector_bias")?.unwrap_or(false);
    let projector = 4 * h * text_hidden + if projector_bias { text_hidden } else { 0 };
    Ok(embed + layers * block + down + projector)
}

#[cfg(test)]
#[path = "step3p5_tests.rs"]
mod tests;
