//! DeepSeek-V4 (`deepseek_v4`, transformers 5.24.0 `DeepseekV4Config`): compressed attention
//! beside a sliding window, hyper-connections, a grouped output projection and hash-routed
//! experts, read into [`Compressed`]. Defaults are `DeepseekV4Config`'s; the legacy keys its
//! `__post_init__` folds in (`compress_ratios`, `compress_rate_csa` / `compress_rate_hca`,
//! `num_hash_layers`) are read the same way.

use alloc::format;
use alloc::string::String;

use super::{Cfg, Notes};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, Compressed, Family, MAX_LAYERS, Moe};
use crate::precision::Quantization;

/// The architecture of a `deepseek_v4` config.
pub(super) fn deepseek_v4(c: &Cfg, notes: &mut Notes) -> Result<Architecture> {
    let layers = c.u("num_hidden_layers")?.unwrap_or(43);
    if layers == 0 || layers > MAX_LAYERS {
        return Err(InputError::new(
            ErrorKind::OutOfRange,
            c.field("num_hidden_layers"),
            format!("{layers}"),
            format!("1 to {MAX_LAYERS}"),
        ));
    }
    let (csa_rate, hca_rate) = rates(c)?;
    let (sliding, csa, hca) = layer_kinds(c, layers)?;
    let hash_layers = hash_layers(c, layers)?;
    let hidden = c.u("hidden_size")?.unwrap_or(4096);
    let expert = c.u("moe_intermediate_size")?.unwrap_or(2048);
    let compressed = Compressed {
        sliding_layers: sliding,
        csa_layers: csa,
        hca_layers: hca,
        csa_rate,
        hca_rate,
        q_lora_rank: c.u("q_lora_rank")?.unwrap_or(1024),
        o_groups: c.u("o_groups")?.unwrap_or(8),
        o_lora_rank: c.u("o_lora_rank")?.unwrap_or(1024),
        hc_mult: c.u("hc_mult")?.unwrap_or(4),
        index_heads: c.u("index_n_heads")?.unwrap_or(64),
        index_head_dim: c.u("index_head_dim")?.unwrap_or(128),
        index_topk: c.u("index_topk")?.unwrap_or(512),
        hash_layers,
    };
    let window = c.u("sliding_window")?.unwrap_or(128);
    let a = Architecture {
        family: Family::CausalLm,
        vocab_size: c.u("vocab_size")?.unwrap_or(129_280),
        hidden_size: hidden,
        num_layers: layers,
        num_heads: c.u("num_attention_heads")?.unwrap_or(64),
        // One key-value head whatever `num_key_value_heads` says: `kv_proj` projects to one
        // `head_dim`, read as both key and value.
        num_kv_heads: 1,
        head_dim: c.u("head_dim")?.unwrap_or(512),
        // The shared expert is one `DeepseekV4MLP` of `moe_intermediate_size`
        // (`attribute_map`), whatever `n_shared_experts` says.
        intermediate_size: expert,
        gated_ffn: true,
        tied_embeddings: c.b("tie_word_embeddings")?.unwrap_or(false),
        norms_per_layer: 2,
        max_position_embeddings: c.u("max_position_embeddings")?.unwrap_or(1_048_576),
        sliding_window: window,
        sliding_layers: layers,
        moe: Some(Moe {
            num_experts: c.u("n_routed_experts")?.unwrap_or(256),
            experts_per_token: c.u("num_experts_per_tok")?.unwrap_or(6),
            expert_intermediate_size: expert,
            shared_intermediate_size: expert,
            shared_expert_gate: false,
            first_dense_layers: 0,
            // The routers' buffers (`e_score_correction_bias`, `tid2eid`) are counted with the
            // compressed block.
            router_bias: false,
            expert_bias: false,
        }),
        compressed: Some(compressed),
        ..Architecture::default()
    };
    notes.push(
        format!(
            "DeepSeek-V4 compressed attention: every layer keeps a sliding window of {window} tokens of one {} key-value head; {csa} CSA layers add one entry per {csa_rate} tokens and an indexer key of {} per entry, {hca} HCA layers one entry per {hca_rate} tokens ({sliding} layers keep the window alone). Hyper-connections ({} streams), grouped output projection ({} groups).",
            a.head_dim, compressed.index_head_dim, compressed.hc_mult, compressed.o_groups
        ),
        format!(
            "DeepSeek-V4 压缩注意力：每层保留 {window} 个 token 的滑动窗口（一个 {} 维的键值头）；{csa} 个 CSA 层每 {csa_rate} 个 token 增加一个条目及每条目 {} 维的索引键，{hca} 个 HCA 层每 {hca_rate} 个 token 增加一个条目（{sliding} 层只有窗口）。超连接（{} 路），分组输出投影（{} 组）。",
            a.head_dim, compressed.index_head_dim, compressed.hc_mult, compressed.o_groups
        ),
    );
    super::decoder::note_mtp_layers(c, notes)?;
    Ok(a)
}

/// `compress_rates` (or the legacy `compress_rate_csa` / `compress_rate_hca`): 4 and 128 by
/// default.
fn rates(c: &Cfg) -> Result<(u64, u64)> {
    let mut csa = c.u("compress_rate_csa")?.unwrap_or(4);
    let mut hca = c.u("compress_rate_hca")?.unwrap_or(128);
    if let Some(r) = c.child("compress_rates")? {
        csa = r.u("compressed_sparse_attention")?.unwrap_or(csa);
        hca = r.u("heavily_compressed_attention")?.unwrap_or(hca);
    }
    for (key, v) in [("compress_rates", csa), ("compress_rates", hca)] {
        if v == 0 || v > 1 << 16 {
            return Err(InputError::new(
                ErrorKind::OutOfRange,
                c.field(key),
                format!("a rate of {v}"),
                "1 to 65536 tokens per compressed entry",
            ));
        }
    }
    Ok((csa, hca))
}

/// The layers of each kind: `layer_types`, else the legacy per-layer `compress_ratios` (0, 4 or
/// 128; the entries past `num_hidden_layers` are the MTP layers'), else `DeepseekV4Config`'s
/// default (two HCA layers, then CSA and HCA in turn).
fn layer_kinds(c: &Cfg, layers: u64) -> Result<(u64, u64, u64)> {
    let mut kinds = [0u64; 3];
    if let Some(types) = c.arr("layer_types")? {
        if (types.len() as u64) < layers {
            return Err(too_few(c, "layer_types", types.len(), layers));
        }
        for t in types.iter().take(layers as usize) {
            let i = match t.as_str() {
                Some("sliding_attention") => 0,
                Some("compressed_sparse_attention") => 1,
                Some("heavily_compressed_attention") => 2,
                other => {
                    return Err(InputError::new(
                        ErrorKind::ConfigJson,
                        c.field("layer_types"),
                        format!("layer type {} is not DeepSeek-V4's", other.unwrap_or("?")),
                        "sliding_attention, compressed_sparse_attention or heavily_compressed_attention",
                    ));
                }
            };
            kinds[i] += 1;
        }
    } else if let Some(ratios) = c.u_arr("compress_ratios")? {
        if (ratios.len() as u64) < layers {
            return Err(too_few(c, "compress_ratios", ratios.len(), layers));
        }
        for &r in ratios.iter().take(layers as usize) {
            // transformers maps the three values by a fixed table (`_COMPRESS_RATIO_TO_LAYER_TYPE`).
            let i = match r {
                0 => 0,
                4 => 1,
                128 => 2,
                _ => {
                    return Err(InputError::new(
                        ErrorKind::ConfigJson,
                        c.field("compress_ratios"),
                        format!("a ratio of {r}"),
                        "0 (window alone), 4 (CSA) or 128 (HCA) per layer",
                    ));
                }
            };
            kinds[i] += 1;
        }
    } else {
        let rest = layers.saturating_sub(2);
        kinds = [0, rest / 2, layers.min(2) + rest.div_ceil(2)];
    }
    Ok((kinds[0], kinds[1], kinds[2]))
}

/// The hash-routed layers: `mlp_layer_types`' `hash_moe` entries, else `num_hash_layers`
/// (3 by default), at most every layer.
fn hash_layers(c: &Cfg, layers: u64) -> Result<u64> {
    if let Some(types) = c.arr("mlp_layer_types")? {
        let hash = types
            .iter()
            .take(layers as usize)
            .filter(|t| t.as_str() == Some("hash_moe"))
            .count() as u64;
        return Ok(hash);
    }
    Ok(c.u("num_hash_layers")?.unwrap_or(3).min(layers))
}

fn too_few(c: &Cfg, key: &str, n: usize, layers: u64) -> InputError {
    InputError::new(
        ErrorKind::Conflict,
        c.field(key),
        format!("{n} entries for num_hidden_layers = {layers}"),
        "one entry per layer (more are the MTP layers', ignored)",
    )
}

/// The released checkpoints keep the routed experts in FP4 (`expert_dtype: "fp4"`, at the top
/// or in `quantization_config`) and the rest in block FP8. vramfit holds one format per
/// checkpoint: such a config is counted as MXFP4 experts with the rest in the model dtype, which
/// over-counts the FP8 rest by one byte a parameter (about 7 GB for DeepSeek-V4-Flash) and never
/// under-counts; FP8 everywhere would over-count the experts by about 130 GB.
pub(super) fn quantization(
    c: &Cfg,
    read: Option<Quantization>,
    notes: &mut Notes,
) -> Result<Option<Quantization>> {
    let in_quant = match c.child("quantization_config")? {
        Some(q) => q.str("expert_dtype")?,
        None => None,
    };
    let expert = c.str("expert_dtype")?.or(in_quant);
    if expert != Some("fp4") || read != Some(Quantization::Fp8) {
        return Ok(read);
    }
    notes.push(
        String::from(
            "The routed experts are FP4 (expert_dtype) and the rest FP8: counted as MXFP4 experts with the rest in the model dtype, one byte a parameter over for the rest (the safe side).",
        ),
        String::from(
            "路由专家为 FP4（expert_dtype），其余为 FP8：按 MXFP4 专家、其余为模型数据类型计算，其余部分每个参数多计一个字节（偏安全）。",
        ),
    );
    Ok(Some(Quantization::Mxfp4))
}
