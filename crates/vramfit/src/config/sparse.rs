//! DeepSeek Sparse Attention (`deepseek_v32`, `glm_moe_dsa`): DeepSeek-V3's multi-head latent
//! attention and experts, with a lightning indexer beside each MLA layer that caches one key per
//! token (`index_head_dim`) and picks `index_topk` tokens per query (transformers 5.24
//! `DeepseekV32Config`, `GlmMoeDsaConfig` and their `Indexer`).

use alloc::format;
use alloc::string::String;

use super::{Cfg, Notes};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, Indexer, MAX_LAYERS};

/// The indexer and the per-layer FFN pattern of a DSA model whose MLA and experts `deepseek`
/// has read.
pub(super) fn dsa(
    model_type: &str,
    c: &Cfg,
    a: &mut Architecture,
    notes: &mut Notes,
) -> Result<()> {
    let glm = model_type == "glm_moe_dsa";
    let heads = c.u("index_n_heads")?.unwrap_or(if glm { 32 } else { 64 });
    let head_dim = c.u("index_head_dim")?.unwrap_or(128);
    let topk = c.u("index_topk")?.unwrap_or(2048);
    let layers = if glm {
        indexer_layers(c, a.num_layers)?
    } else {
        a.num_layers
    };
    a.indexer = Some(Indexer {
        heads,
        head_dim,
        topk,
        layers,
        pool: 0,
    });
    if let Some(types) = c.arr("mlp_layer_types")? {
        if types.len() as u64 != a.num_layers {
            return Err(InputError::new(
                ErrorKind::Conflict,
                c.field("mlp_layer_types"),
                format!(
                    "{} entries for num_hidden_layers = {}",
                    types.len(),
                    a.num_layers
                ),
                "one entry per layer",
            ));
        }
        let dense = types.iter().filter(|t| t.as_str() == Some("dense")).count() as u64;
        if let Some(m) = a.moe.as_mut() {
            m.first_dense_layers = dense;
        }
    }
    let shared = a.num_layers - layers;
    let shared_en = if shared > 0 {
        format!(
            " ({shared} \"shared\" layers reuse the previous layer's choice and keep no indexer keys)"
        )
    } else {
        String::new()
    };
    let shared_zh = if shared > 0 {
        format!("（{shared} 个 \"shared\" 层沿用上一层的选择，不缓存索引键）")
    } else {
        String::new()
    };
    notes.push(
        format!(
            "DeepSeek Sparse Attention: each of {layers} layers caches an indexer key of {head_dim} per token beside the MLA latent{shared_en}; the indexer's {heads} heads pick {topk} tokens per query, which bounds the attention's compute, not its cache: every token's latent and key is kept."
        ),
        format!(
            "DeepSeek 稀疏注意力：{layers} 层中每层在 MLA 潜向量旁为每个 token 缓存一个 {head_dim} 维的索引键{shared_zh}；索引器的 {heads} 个头为每个查询挑选 {topk} 个 token，这限制的是注意力的计算而不是缓存：每个 token 的潜向量与键都保留。"
        ),
    );
    Ok(())
}

/// GLM-5's layers with an indexer of their own (`"full"`), from `indexer_types`, the
/// `index_topk_pattern` (`F`/`S` per layer) or `index_topk_freq` and `index_skip_topk_offset`
/// (`GlmMoeDsaConfig.__post_init__`).
fn indexer_layers(c: &Cfg, layers: u64) -> Result<u64> {
    Ok(full_indexers(c, layers)?.into_iter().filter(|&f| f).count() as u64)
}

/// Which of the `layers` run an indexer of their own (`"full"`) rather than reuse the previous
/// one's choice (`"shared"`), as `GlmMoeDsaConfig` and `Glm5NextTextConfig` read it.
pub(super) fn full_indexers(c: &Cfg, layers: u64) -> Result<alloc::vec::Vec<bool>> {
    let (key, names): (&str, alloc::vec::Vec<String>) = if let Some(t) = c.arr("indexer_types")? {
        (
            "indexer_types",
            t.iter()
                .map(|v| String::from(v.as_str().unwrap_or("?")))
                .collect(),
        )
    } else if let Some(p) = c.str("index_topk_pattern")? {
        (
            "index_topk_pattern",
            p.chars()
                .map(|ch| {
                    String::from(match ch {
                        'F' => "full",
                        'S' => "shared",
                        _ => "?",
                    })
                })
                .collect(),
        )
    } else {
        let freq = c.u("index_topk_freq")?.unwrap_or(1).max(1);
        let offset = c.u("index_skip_topk_offset")?.unwrap_or(2);
        return Ok((0..layers.min(MAX_LAYERS))
            .map(|i| (i + 1).saturating_sub(offset) % freq == 0)
            .collect());
    };
    if names.len() as u64 != layers || names.len() as u64 > MAX_LAYERS {
        return Err(InputError::new(
            ErrorKind::Conflict,
            c.field(key),
            format!("{} entries for num_hidden_layers = {layers}", names.len()),
            "one entry per layer",
        ));
    }
    if let Some(bad) = names.iter().find(|n| *n != "full" && *n != "shared") {
        return Err(InputError::new(
            ErrorKind::ConfigJson,
            c.field(key),
            format!("indexer type {bad} is not known"),
            "full or shared (F or S in index_topk_pattern)",
        ));
    }
    Ok(names.iter().map(|n| n == "full").collect())
}
