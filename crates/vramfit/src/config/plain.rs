//! Plain decoders read by name, each Llama's layout with one small rule taken from its
//! transformers 5.25.0 modeling file: OLMo 3 (post-norms, q/k norms over the whole projection,
//! 3 sliding layers in 4), SmolLM3 (NoPE layers, tied), Seed-OSS (q/k/v biases without an output
//! bias), GLM-4.5 (DeepSeek-style experts with a score-correction bias), ERNIE 4.5 MoE (experts
//! on an interval of layers, biases everywhere or nowhere), MiniMax-M2 (every layer MoE, q/k
//! norms over the whole projection) and GPT-BigCode (GPT-2 with multi-query attention).
//! `tests/reference/decoder-reference.csv` holds transformers' counts.

use alloc::format;

use super::decoder::{LLAMA, Style, common, dense_layers};
use super::generic::attention_layer_types;
use super::{Cfg, Notes};
use crate::error::Result;
use crate::model::{Architecture, Moe};

/// The architecture of a plain decoder vramfit names, or `None` for any other `model_type`.
pub(super) fn plain(model_type: &str, c: &Cfg, notes: &mut Notes) -> Result<Option<Architecture>> {
    let attention_bias = c.b("attention_bias")?;
    let mlp_bias = c.b("mlp_bias")?.unwrap_or(false);
    let mut a = match model_type {
        "olmo3" => olmo3(c, notes)?,
        "smollm3" => smollm3(c, attention_bias.unwrap_or(false), mlp_bias)?,
        // `SeedOssAttention`: q, k and v biased by `attention_bias` (default true), the output
        // by `attention_out_bias` (default false).
        "seed_oss" => common(
            c,
            Style {
                qkv_bias: attention_bias.unwrap_or(true),
                o_bias: c.b("attention_out_bias")?.unwrap_or(false),
                mlp_bias,
                ..LLAMA
            },
            None,
        )?,
        "glm4_moe" => glm4_moe(c, attention_bias.unwrap_or(false), notes)?,
        "ernie4_5_moe" => ernie4_5_moe(c, notes)?,
        "minimax_m2" => minimax_m2(c, notes)?,
        "gpt_bigcode" => super::families::gpt_bigcode(c)?,
        _ => return Ok(None),
    };
    if a.sliding_window == 0 || a.sliding_layers == 0 {
        a.sliding_window = 0;
        a.sliding_layers = 0;
    }
    Ok(Some(a))
}

/// OLMo 3: a post-attention and a post-FFN norm (two a layer, none before), q and k norms over
/// the whole projection, and `layer_types` (by default every 4th layer full, the others
/// sliding over `sliding_window`, 4,096).
fn olmo3(c: &Cfg, notes: &mut Notes) -> Result<Architecture> {
    let mut a = common(
        c,
        Style {
            qkv_bias: c.b("attention_bias")?.unwrap_or(false),
            o_bias: c.b("attention_bias")?.unwrap_or(false),
            ..LLAMA
        },
        None,
    )?;
    full_width_qk_norm(&mut a, notes);
    a.sliding_window = match c.get("sliding_window") {
        None if c.obj.contains_key("sliding_window") => 0,
        _ => c.u("sliding_window")?.unwrap_or(4096),
    };
    a.sliding_layers = match attention_layer_types(c, a.num_layers)? {
        Some(n) => n,
        None => a.num_layers - a.num_layers / 4,
    };
    Ok(a)
}

/// SmolLM3: Llama's layout, tied by default; the NoPE layers (`no_rope_layers[i] == 0`, by
/// default every 4th) slide over `sliding_window` when `use_sliding_window` is set.
fn smollm3(c: &Cfg, attention_bias: bool, mlp_bias: bool) -> Result<Architecture> {
    let mut a = common(
        c,
        Style {
            qkv_bias: attention_bias,
            o_bias: attention_bias,
            mlp_bias,
            tie_default: true,
            ..LLAMA
        },
        None,
    )?;
    let window = c.u("sliding_window")?;
    if let Some(n) = attention_layer_types(c, a.num_layers)? {
        a.sliding_window = window.unwrap_or(0);
        a.sliding_layers = n;
    } else if c.b("use_sliding_window")?.unwrap_or(false)
        && let Some(w) = window
    {
        let interval = c.u("no_rope_layer_interval")?.unwrap_or(4).max(1);
        let nope = match c.u_arr("no_rope_layers")? {
            Some(flags) => flags.iter().filter(|&&f| f == 0).count() as u64,
            None => a.num_layers / interval,
        };
        a.sliding_window = w;
        a.sliding_layers = nope.min(a.num_layers);
    }
    Ok(a)
}

/// GLM-4.5 (`Glm4MoeConfig`): DeepSeek-V3's experts (`n_routed_experts`, one shared expert of
/// the expert width, `first_k_dense_replace` dense layers, a score-correction bias the
/// checkpoint holds), q/k/v biases by `attention_bias`, per-head q/k norms by `use_qk_norm`.
fn glm4_moe(c: &Cfg, attention_bias: bool, notes: &mut Notes) -> Result<Architecture> {
    let mut a = common(
        c,
        Style {
            qkv_bias: attention_bias,
            qk_norm: c.b("use_qk_norm")?.unwrap_or(false),
            ..LLAMA
        },
        None,
    )?;
    let expert = c.u("moe_intermediate_size")?.unwrap_or(1408);
    a.moe = Some(Moe {
        num_experts: c
            .opt(&["n_routed_experts", "num_local_experts"])?
            .unwrap_or(128),
        experts_per_token: c.u("num_experts_per_tok")?.unwrap_or(8),
        expert_intermediate_size: expert,
        shared_intermediate_size: c.u("n_shared_experts")?.unwrap_or(1).saturating_mul(expert),
        shared_expert_gate: false,
        first_dense_layers: c.u("first_k_dense_replace")?.unwrap_or(1).min(a.num_layers),
        router_bias: true,
        expert_bias: false,
    });
    mtp_note(c, notes)?;
    Ok(a)
}

/// ERNIE 4.5 MoE: every `moe_layer_interval`-th layer from `moe_layer_start_index` to
/// `moe_layer_end_index` (-1: the last) routes to `moe_num_experts` experts with
/// `moe_num_shared_experts` shared ones; `use_bias` biases every projection and the LM head
/// (not the routed experts); the router keeps a score-correction bias.
fn ernie4_5_moe(c: &Cfg, notes: &mut Notes) -> Result<Architecture> {
    let bias = c.b("use_bias")?.unwrap_or(false);
    let mut a = common(
        c,
        Style {
            qkv_bias: bias,
            o_bias: bias,
            mlp_bias: bias,
            lm_head_bias: bias,
            tie_default: true,
            ..LLAMA
        },
        None,
    )?;
    let expert = c.u("moe_intermediate_size")?.unwrap_or(1536);
    let moe = Moe {
        num_experts: c.opt(&["moe_num_experts", "num_experts"])?.unwrap_or(64),
        experts_per_token: c.opt(&["moe_k", "num_experts_per_tok"])?.unwrap_or(6),
        expert_intermediate_size: expert,
        shared_intermediate_size: c
            .u("moe_num_shared_experts")?
            .unwrap_or(2)
            .saturating_mul(expert),
        shared_expert_gate: false,
        first_dense_layers: 0,
        router_bias: true,
        expert_bias: false,
    };
    let layers = a.num_layers;
    let start = c.u("moe_layer_start_index")?.unwrap_or(1);
    let end = match c.get("moe_layer_end_index") {
        Some(v) if v.as_i64() != Some(-1) => c.u("moe_layer_end_index")?.unwrap_or(layers),
        _ => layers.saturating_sub(1),
    };
    let interval = c.u("moe_layer_interval")?.unwrap_or(1).max(1);
    let sparse = (0..layers)
        .filter(|l| (l + 1) % interval == 0 && *l >= start && *l <= end)
        .count() as u64;
    a.moe = Some(dense_layers(moe, layers - sparse, layers, notes));
    mtp_note(c, notes)?;
    Ok(a)
}

/// MiniMax-M2: every layer routes to `num_local_experts` experts of `intermediate_size` (no
/// shared expert, a score-correction bias), q and k norms over the whole projection.
fn minimax_m2(c: &Cfg, notes: &mut Notes) -> Result<Architecture> {
    let mut a = common(c, LLAMA, None)?;
    full_width_qk_norm(&mut a, notes);
    a.moe = Some(Moe {
        num_experts: c.opt(&["num_local_experts", "num_experts"])?.unwrap_or(256),
        experts_per_token: c.u("num_experts_per_tok")?.unwrap_or(8),
        expert_intermediate_size: a.intermediate_size,
        shared_intermediate_size: 0,
        shared_expert_gate: false,
        first_dense_layers: 0,
        router_bias: true,
        expert_bias: false,
    });
    mtp_note(c, notes)?;
    Ok(a)
}

/// q and k norms over the whole projection (`num_heads × head_dim` and `num_kv_heads ×
/// head_dim` weights a layer, OLMo 2/3, MiniMax-M2): counted as extra parameters, which like
/// norms are never quantized; the per-head norms of [`Architecture::qk_norm`] are `2 × head_dim`.
fn full_width_qk_norm(a: &mut Architecture, notes: &mut Notes) {
    let per_layer = a
        .num_heads
        .saturating_add(a.num_kv_heads)
        .saturating_mul(a.head_dim);
    let n = per_layer.saturating_mul(a.num_layers);
    a.extra_params = a.extra_params.saturating_add(n);
    notes.push(
        format!(
            "q_norm and k_norm span the whole projection ({per_layer} weights a layer): their {n} weights are counted as extra parameters, kept unquantized like every norm."
        ),
        format!(
            "q_norm 与 k_norm 覆盖整个投影（每层 {per_layer} 个权重）：这 {n} 个权重计为额外参数，与所有归一化层一样不量化。"
        ),
    );
}

/// A note on the multi-token-prediction layers a checkpoint holds and transformers does not load.
fn mtp_note(c: &Cfg, notes: &mut Notes) -> Result<()> {
    if let Some(n) = c.opt(&[
        "num_nextn_predict_layers",
        "num_mtp_layers",
        "num_mtp_modules",
    ])? && n > 0
    {
        notes.push(
            format!(
                "The {n} multi-token-prediction layer(s) in the checkpoint are not counted: transformers does not load them, and serving engines load them only for speculative decoding."
            ),
            format!(
                "检查点中的 {n} 个多 token 预测层不计入：transformers 不加载它们，推理引擎只在投机解码时加载。"
            ),
        );
    }
    Ok(())
}
