//! Hunyuan-MoE (`hunyuan_v1_moe`, tencent/Hunyuan-A13B), as transformers 5.25.0 builds it
//! (`modeling_hunyuan_v1_moe.py`, `configuration_hunyuan_v1_moe.py`): a Llama-layout decoder
//! with q and k RMSNorms over `head_dim` (read by the style's `qk_norm`) and, in every layer,
//! `HunYuanMoEV1Moe`: a router `hidden × num_experts` (`gate.wg`, no bias, built in fp32),
//! `num_experts` experts (`HunYuanMoEV1Experts`, fused gate/up and down) and one shared MLP
//! (`shared_mlp`, `HunYuanMoEV1MLP`), both `intermediate_size` wide. The class reads
//! `num_experts` as one count and `moe_topk` as one count or one per layer; the published
//! checkpoints' `moe_intermediate_size` and `num_shared_expert` lists are not read by it, so a
//! config whose lists disagree with what it builds (another width, other than one shared MLP)
//! is refused by that key rather than counted one way for one engine and another for the next.
//! Cross-layer attention (`use_cla`, `cla_share_factor`: layers sharing one K/V) is not built
//! by transformers (every layer projects and caches its own K and V); `use_cla: true` is refused.

use alloc::format;
use alloc::string::ToString;

use super::{Cfg, Notes};
use crate::error::Result;
use crate::model::{Architecture, Moe};

/// The MoE block of every layer, after checking the keys transformers does not read.
#[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
pub(super) fn hunyuan_moe(c: &Cfg, a: &mut Architecture, notes: &mut Notes) -> Result<()> {
    if c.b("use_cla")? == Some(true) {
        return Err(refused(
            c,
            "use_cla",
            "cross-layer attention: transformers 5.25 builds and caches K and V in every layer, and the engines share them between cla_share_factor layers",
        ));
    }
    let width = a.intermediate_size;
    // One count per layer, each what transformers builds.
    let per_layer_equal = |key: &str, want: u64| -> Result<()> {
        let Some(v) = c.get(key) else {
            return Ok(());
        };
        let ok = match v {
            serde_json::Value::Array(list) => {
                list.len() as u64 == a.num_layers && list.iter().all(|x| x.as_u64() == Some(want))
            }
            x => x.as_u64() == Some(want),
        };
        if ok {
            Ok(())
        } else {
            Err(refused(
                c,
                key,
                &format!(
                    "transformers 5.25 builds {want} in every layer (intermediate_size and one shared MLP), not what {key} says"
                ),
            ))
        }
    };
    per_layer_equal("moe_intermediate_size", width)?;
    per_layer_equal("num_shared_expert", 1)?;
    let experts = match c.get("num_experts") {
        None => 1,
        Some(_) => c.u("num_experts")?.unwrap_or(1),
    };
    let top_k = match c.get("moe_topk") {
        Some(serde_json::Value::Array(list)) => {
            let ks: Option<alloc::vec::Vec<u64>> = list.iter().map(|x| x.as_u64()).collect();
            match ks {
                Some(ks) if ks.len() as u64 == a.num_layers && !ks.is_empty() => {
                    ks.into_iter().max().unwrap_or(1)
                }
                _ => {
                    return Err(refused(
                        c,
                        "moe_topk",
                        "a list that is not one count per layer",
                    ));
                }
            }
        }
        _ => c.u("moe_topk")?.unwrap_or(1),
    };
    if top_k == 0 || top_k > experts {
        return Err(refused(c, "moe_topk", "not between 1 and num_experts"));
    }
    a.moe = Some(Moe {
        num_experts: experts,
        experts_per_token: top_k,
        expert_intermediate_size: width,
        shared_intermediate_size: width,
        shared_expert_gate: false,
        first_dense_layers: 0,
        router_bias: false,
        expert_bias: false,
    });
    // The router's fp32 weights take 2 B more each than the model dtype's 2 B.
    let router_extra = a
        .num_layers
        .saturating_mul(a.hidden_size)
        .saturating_mul(experts)
        .saturating_mul(2);
    notes.push(
        format!(
            "Hunyuan-MoE: {experts} experts and one shared MLP of intermediate_size {width} in every layer, top-{top_k} routing (the largest moe_topk), q/k norms, as transformers 5.25 builds it. Its router (gate.wg) is built in fp32, counted in the model dtype: {router_extra} B more in bf16."
        ),
        format!(
            "Hunyuan-MoE：每层 {experts} 个专家与一个共享 MLP，宽度均为 intermediate_size {width}，top-{top_k} 路由（取 moe_topk 的最大值），含 q/k 归一化，与 transformers 5.25 的构建一致。其路由器（gate.wg）以 fp32 构建，按模型数据类型计入：bf16 时少算 {router_extra} B。"
        ),
    );
    Ok(())
}

fn refused(c: &Cfg, key: &str, problem: &str) -> crate::error::InputError {
    crate::error::InputError::new(
        crate::error::ErrorKind::Unsupported,
        c.field(key),
        problem.to_string(),
        "a hunyuan_v1_moe config as transformers 5.25 builds it: use_cla false, moe_intermediate_size equal to intermediate_size, one shared expert, moe_topk one count or one per layer",
    )
}

#[cfg(test)]
#[path = "hunyuan_tests.rs"]
mod tests;
