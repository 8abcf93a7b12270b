//! Kimi-Linear (`kimi_linear`): Kimi Delta Attention layers, a fixed-size state per sequence,
//! and multi-head latent attention layers without rotary embedding, with DeepSeek-style experts
//! (transformers 5.24 `KimiLinearConfig`: the layer kinds from `layer_types`, else
//! `linear_attn_config`'s 1-indexed `full_attn_layers` and `kda_layers`, else every fourth
//! layer from the fifth attending).

use alloc::format;

use super::{Cfg, Notes};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, Hybrid, Moe, StateMixer};

/// Which layers attend (true) and which run Kimi Delta Attention.
fn attending(c: &Cfg, lin: Option<&Cfg>, layers: u64) -> Result<alloc::vec::Vec<bool>> {
    if let Some(types) = c.arr("layer_types")? {
        if types.len() as u64 != layers {
            return Err(InputError::new(
                ErrorKind::Conflict,
                c.field("layer_types"),
                format!("{} entries for num_hidden_layers = {layers}", types.len()),
                "one entry per layer",
            ));
        }
        return types
            .iter()
            .map(|t| match t.as_str() {
                Some("full_attention") => Ok(true),
                Some("linear_attention") => Ok(false),
                _ => Err(InputError::new(
                    ErrorKind::Unsupported,
                    c.field("layer_types"),
                    format!("layer kind {t} is not modelled"),
                    "full_attention or linear_attention",
                )),
            })
            .collect();
    }
    if let Some(l) = lin
        && let (Some(full), Some(kda)) = (l.u_arr("full_attn_layers")?, l.u_arr("kda_layers")?)
    {
        let mut kinds = alloc::vec![None; layers as usize];
        for (list, key, attends) in [
            (&full, "full_attn_layers", true),
            (&kda, "kda_layers", false),
        ] {
            for &i in list.iter() {
                match kinds.get_mut((i as usize).wrapping_sub(1)) {
                    Some(k) => *k = Some(attends),
                    None => {
                        return Err(InputError::new(
                            ErrorKind::OutOfRange,
                            l.field(key),
                            format!("layer {i}"),
                            format!("layers numbered 1 to {layers}"),
                        ));
                    }
                }
            }
        }
        return kinds
            .into_iter()
            .enumerate()
            .map(|(i, k)| {
                k.ok_or_else(|| {
                    InputError::new(
                        ErrorKind::ConfigJson,
                        l.field("kda_layers"),
                        format!(
                            "layer {} is in neither full_attn_layers nor kda_layers",
                            i + 1
                        ),
                        "every layer, numbered from 1, in one of the two lists",
                    )
                })
            })
            .collect();
    }
    Ok((0..layers).map(|i| i > 0 && i % 4 == 0).collect())
}

/// The KDA and MLA layers, the experts and the trained context of a Kimi-Linear config whose
/// MLA `deepseek` has read.
pub(super) fn kimi_linear(c: &Cfg, a: &mut Architecture, notes: &mut Notes) -> Result<()> {
    let lin = c.child("linear_attn_config")?;
    let kinds = attending(c, lin.as_ref(), a.num_layers)?;
    let full = kinds.iter().filter(|&&k| k).count() as u64;
    a.hybrid = Some(kda_layers(c, a.num_layers, full, 32)?);
    if let Some(len) = c.u("model_max_length")? {
        a.max_position_embeddings = len;
    }
    let experts = c.opt(&["num_experts", "num_local_experts", "n_routed_experts"])?;
    if let Some(experts) = experts.filter(|&e| e > 0) {
        let expert = c.req(&["moe_intermediate_size"], "expert FFN width")?;
        let dense = match c.arr("mlp_layer_types")? {
            Some(t) => t.iter().filter(|v| v.as_str() == Some("dense")).count() as u64,
            None => c.u("first_k_dense_replace")?.unwrap_or(1),
        };
        let shared = c
            .opt(&["num_shared_experts", "n_shared_experts"])?
            .unwrap_or(1);
        a.moe = Some(Moe {
            num_experts: experts,
            experts_per_token: c
                .opt(&["num_experts_per_token", "num_experts_per_tok"])?
                .unwrap_or(8),
            expert_intermediate_size: expert,
            shared_intermediate_size: shared.saturating_mul(expert),
            shared_expert_gate: false,
            first_dense_layers: dense.min(a.num_layers),
            // The router's e_score_correction_bias (a buffer in transformers, a tensor in
            // the checkpoint).
            router_bias: true,
            expert_bias: false,
        });
    }
    let state = a.num_layers - full;
    notes.push(
        format!(
            "{state} Kimi Delta Attention (linear attention) layers keep a fixed-size state per sequence; only the {full} MLA layers keep a latent cache that grows with the context."
        ),
        format!(
            "{state} 个 Kimi Delta Attention（线性注意力）层每条序列只保存固定大小的状态；只有 {full} 个 MLA 层的潜向量缓存随上下文增长。"
        ),
    );
    Ok(())
}

/// Kimi Delta Attention's layers of a stack of `layers` with `full` attention layers among them,
/// as `linear_attn_config` gives them (or the top-level `linear_*` keys): `default_heads` heads
/// of 128 and a convolution of 4 when neither says (Kimi-Linear's and GLM-5-Next's classes).
pub(super) fn kda_layers(c: &Cfg, layers: u64, full: u64, default_heads: u64) -> Result<Hybrid> {
    let lin = c.child("linear_attn_config")?;
    let key = |nested: &str, top: &str, default: u64| -> Result<u64> {
        if let Some(l) = &lin
            && let Some(v) = l.u(nested)?
        {
            return Ok(v);
        }
        Ok(c.u(top)?.unwrap_or(default))
    };
    let heads = key("num_heads", "linear_num_heads", default_heads)?;
    let head_dim = key("head_dim", "linear_head_dim", 128)?;
    Ok(Hybrid {
        mixer: StateMixer::KimiDelta,
        state_layers: layers - full,
        attention_layers: full,
        ffn_layers: layers,
        parallel: false,
        heads,
        groups: heads,
        state_size: head_dim,
        head_dim,
        conv_kernel: key("short_conv_kernel_size", "linear_conv_kernel_dim", 4)?,
        ..Hybrid::default()
    })
}
