//! GLM-5-Next (`glm5_next`, transformers 5.24 `Glm5NextConfig`, the docstring's
//! zai-org/GLM-5.3-Flash): Kimi Delta Attention layers (a fixed-size state per sequence) beside
//! NoPE multi-head latent attention layers whose DSA indexer scores pools of `index_kpool`
//! tokens, hyper-connection streams (`hc_mult`), DeepSeek-style experts and a GLM-4V-style vision
//! tower. The text fields are `text_config`'s, or the file's own in a flat (text-only) file,
//! which `Glm5NextConfig.__post_init__` forwards; defaults are `Glm5NextTextConfig`'s and
//! `Glm5NextVisionConfig`'s. Checked against transformers' meta-device count and a tiny model's
//! cache storage in `tests/reference/glm5-next-reference.csv`.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde_json::Map;

use super::{Cfg, Notes};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, Indexer, MAX_LAYERS, Mla, Moe};

/// The language model of a `glm5_next` file: `text_config`, or the file itself when flat.
pub(super) fn text_cfg<'a>(top: &Cfg<'a>) -> Result<Option<Cfg<'a>>> {
    top.child("text_config")
}

/// The MLA, KDA, experts, pooled indexer and hyper-connections of a `glm5_next_text` config whose
/// shared keys `common` has read.
pub(super) fn text(c: &Cfg, a: &mut Architecture, notes: &mut Notes) -> Result<()> {
    let rope = c.u("qk_rope_head_dim")?.unwrap_or(0);
    let nope = c.u("qk_nope_head_dim")?.unwrap_or(256);
    a.mla = Some(Mla {
        q_lora_rank: c.u("q_lora_rank")?.unwrap_or(1536),
        kv_lora_rank: c.u("kv_lora_rank")?.unwrap_or(512),
        qk_rope_head_dim: rope,
        qk_nope_head_dim: nope,
        v_head_dim: c.u("v_head_dim")?.unwrap_or(256),
    });
    a.head_dim = rope.saturating_add(nope);
    a.num_kv_heads = a.num_heads;
    let attends = attending(c, a.num_layers)?;
    let full = attends.iter().filter(|&&x| x).count() as u64;
    a.hybrid = Some(super::linear::kda_layers(c, a.num_layers, full, 64)?);
    let expert = c.u("moe_intermediate_size")?.unwrap_or(2048);
    let dense = match c.arr("mlp_layer_types")? {
        Some(t) => t.iter().filter(|v| v.as_str() == Some("dense")).count() as u64,
        None => a.num_layers.min(3),
    };
    a.moe = Some(Moe {
        num_experts: c.u("n_routed_experts")?.unwrap_or(288),
        experts_per_token: c.u("num_experts_per_tok")?.unwrap_or(8),
        expert_intermediate_size: expert,
        shared_intermediate_size: c.u("n_shared_experts")?.unwrap_or(1).saturating_mul(expert),
        shared_expert_gate: false,
        first_dense_layers: dense.min(a.num_layers),
        // e_score_correction_bias: a buffer in transformers, a tensor in the checkpoint.
        router_bias: true,
        expert_bias: false,
    });
    // Only the MLA layers run an indexer: those of them `indexer_types` calls "full".
    let own = super::sparse::full_indexers(c, a.num_layers)?;
    let indexers = attends
        .iter()
        .zip(&own)
        .filter(|(at, f)| **at && **f)
        .count() as u64;
    let ix = Indexer {
        heads: c.u("index_n_heads")?.unwrap_or(32),
        head_dim: c.u("index_head_dim")?.unwrap_or(128),
        topk: c.u("index_topk")?.unwrap_or(2048),
        layers: indexers,
        pool: c.u("index_kpool")?.unwrap_or(16),
    };
    a.indexer = Some(ix);
    a.hyper_connections = c.u("hc_mult")?.unwrap_or(4);
    let state = a.num_layers - full;
    let (pool, hc) = (ix.pool, a.hyper_connections);
    notes.push(
        format!(
            "GLM-5-Next: {state} Kimi Delta Attention layers keep a fixed-size state per sequence; only the {full} MLA layers (no rotary key) keep a latent that grows with the context, and {indexers} of them an indexer key and gate score per token, which the indexer pools {pool} tokens at a time to pick {} tokens per query. {hc} hyper-connection streams.",
            ix.topk
        ),
        format!(
            "GLM-5-Next：{state} 个 Kimi Delta Attention 层每条序列只保存固定大小的状态；只有 {full} 个 MLA 层（无旋转键）的潜向量随上下文增长，其中 {indexers} 层每个 token 另存一个索引键与门控分数，索引器每 {pool} 个 token 合成一组，为每个查询挑选 {} 个 token。{hc} 路超连接。",
            ix.topk
        ),
    );
    super::decoder::note_mtp_layers(c, notes)
}

/// Which layers attend (MLA with the indexer) and which run Kimi Delta Attention: `layer_types`
/// (`linear_attention` against `indexed_attention`, `full_attention` or the checkpoints'
/// `deepseek_sparse_attention`), else every fourth layer from the fourth attending.
fn attending(c: &Cfg, layers: u64) -> Result<Vec<bool>> {
    let Some(types) = c.arr("layer_types")? else {
        return Ok((0..layers.min(MAX_LAYERS)).map(|i| i % 4 == 3).collect());
    };
    if types.len() as u64 != layers {
        return Err(InputError::new(
            ErrorKind::Conflict,
            c.field("layer_types"),
            format!("{} entries for num_hidden_layers = {layers}", types.len()),
            "one entry per layer",
        ));
    }
    types
        .iter()
        .map(|t| match t.as_str() {
            Some("indexed_attention" | "full_attention" | "deepseek_sparse_attention") => Ok(true),
            Some("linear_attention") => Ok(false),
            _ => Err(InputError::new(
                ErrorKind::Unsupported,
                c.field("layer_types"),
                format!("layer kind {t} is not modelled"),
                "indexed_attention (or full_attention) or linear_attention",
            )),
        })
        .collect()
}

/// The vision tower and its merger (`Glm5NextVisionModel`), from `vision_config` or the class
/// defaults that transformers builds when there is none: a Conv3d patch embedding with bias,
/// `depth` blocks (two RMSNorms, fused qkv and proj with `attention_bias`, per-head q and k
/// RMSNorms, a gated MLP with `attention_bias`), the post-norm, a Conv2d downsample over
/// `spatial_merge_size²` patches to `out_hidden_size`, and the merger (proj, LayerNorm, gated MLP
/// of `projection_intermediate_size`, no biases).
pub(super) fn vision_params(top: &Cfg) -> Result<u64> {
    let none = Map::new();
    let v = top.child("vision_config")?.unwrap_or(Cfg {
        obj: &none,
        prefix: String::from("vision_config."),
    });
    let h = v.u("hidden_size")?.unwrap_or(1024);
    let depth = v.u("depth")?.unwrap_or(24);
    let heads = v.u("num_heads")?.unwrap_or(16).max(1);
    let inter = v.u("intermediate_size")?.unwrap_or(4096);
    let patch = v.u("patch_size")?.unwrap_or(14);
    let temporal = v.u("temporal_patch_size")?.unwrap_or(2);
    let channels = v.u("in_channels")?.unwrap_or(3);
    let merge = v.u("spatial_merge_size")?.unwrap_or(2);
    let out = v.u("out_hidden_size")?.unwrap_or(1536);
    let ctx = v.u("projection_intermediate_size")?.unwrap_or(10240);
    let bias = u64::from(v.b("attention_bias")?.unwrap_or(true));
    let (wide, small) = (1 << 20, 1 << 10);
    for (key, x, most) in [
        ("hidden_size", h, wide),
        ("intermediate_size", inter, wide),
        ("out_hidden_size", out, wide),
        ("projection_intermediate_size", ctx, wide),
        ("depth", depth, small),
        ("patch_size", patch, small),
        ("temporal_patch_size", temporal, small),
        ("in_channels", channels, small),
        ("spatial_merge_size", merge, small),
    ] {
        if x == 0 || x > most {
            return Err(InputError::new(
                ErrorKind::OutOfRange,
                v.field(key),
                format!("{x}"),
                format!("1 to {most}"),
            ));
        }
    }
    let block = 2 * h
        + (h * 3 * h + bias * 3 * h)
        + (h * h + bias * h)
        + 2 * (h / heads)
        + 2 * (h * inter + bias * inter)
        + (inter * h + bias * h);
    let patch_embed = channels * temporal * patch * patch * h + h;
    let downsample = h * out * merge * merge + out;
    let merger = out * out + 2 * out + 3 * out * ctx;
    Ok(patch_embed + depth * block + h + downsample + merger)
}

#[cfg(test)]
#[path = "glm5_next_tests.rs"]
mod tests;
