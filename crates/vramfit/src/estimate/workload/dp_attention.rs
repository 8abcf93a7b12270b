//! SGLang's DP attention (`--attn-dp-size N`, once `--enable-dp-attention --dp-size N`): the attention groups inside the
//! tensor-parallel group, checked as SGLang checks them (`ServerArgs._handle_data_parallelism`:
//! `tp_size % dp_size == 0`), for an MLA model, the kind SGLang built it for.

use super::int;
use crate::error::Result;
use crate::estimate::EstimateInput;
use crate::estimate::engine::Rules;
use crate::model::Architecture;

impl EstimateInput {
    /// The attention groups: 1 without DP attention; with it `dp_size`, 2 to `tp`, dividing
    /// `tp`, on an engine that has it and for a model with latent (MLA) attention.
    pub(super) fn resolve_dp_attention(
        &self,
        arch: &Architecture,
        rules: &Rules,
        tp: u64,
    ) -> Result<u64> {
        if !self.placement.enable_dp_attention {
            return match self.placement.dp_size {
                None => Ok(1),
                // SGLang's `--dp-size` alone runs whole copies of the model: vramfit's `gpus`.
                Some(_) => Err(input_error!(
                    Conflict,
                    "dp_size",
                    "dp_size without enable_dp_attention",
                    "未开启 enable_dp_attention 却给出 dp_size",
                    "with enable_dp_attention only; data-parallel copies of the whole model are gpus = tp × pp × copies",
                    "仅与 enable_dp_attention 同用；整模型的数据并行副本用 gpus = tp × pp × 副本数",
                )),
            };
        }
        if !rules.dp_attention {
            let name = rules.name;
            return Err(input_error!(
                Unsupported,
                "enable_dp_attention",
                ["{name} has no DP attention"],
                ["{name} 没有 DP attention"],
                "false with this engine; engine sglang (--attn-dp-size)",
                "这个引擎下为 false；可用 sglang 引擎（--attn-dp-size）",
            ));
        }
        if arch.is_detailed() && arch.mla.is_none() {
            return Err(input_error!(
                Unsupported,
                "enable_dp_attention",
                "DP attention is modelled for latent (MLA) attention only",
                "DP attention 只对潜在注意力（MLA）模型建模",
                "false, or a model with MLA (DeepSeek-V2/V3/R1, Kimi K2, GLM-5)",
                "false，或使用 MLA 模型（DeepSeek-V2/V3/R1、Kimi K2、GLM-5）",
            ));
        }
        let Some(dp) = self.placement.dp_size else {
            // SGLang turns DP attention off at dp_size 1 without a word: asked for, it is named.
            return Err(input_error!(
                Conflict,
                "dp_size",
                "enable_dp_attention without dp_size (SGLang turns it off at dp_size 1)",
                "开启了 enable_dp_attention 却未给出 dp_size（dp_size 为 1 时 SGLang 会关闭它）",
                ["an integer from 2 to tp = {tp} that divides it"],
                ["2 到 tp = {tp} 之间且能整除 tp 的整数"],
            ));
        };
        let dp = int("dp_size", dp, 2, tp.max(2))?;
        if !tp.is_multiple_of(dp) {
            return Err(input_error!(
                Conflict,
                "dp_size",
                ["{dp} does not divide tp = {tp}"],
                ["{dp} 不能整除 tp = {tp}"],
                ["an integer from 2 to tp = {tp} that divides it"],
                ["2 到 tp = {tp} 之间且能整除 tp 的整数"],
            ));
        }
        Ok(dp)
    }
}
