//! vLLM's LoRA adapter slots (`--enable-lora`, `--max-loras`, `--max-lora-rank`,
//! `--max-cpu-loras`), checked as vLLM's `LoRAConfig` checks them (`vllm/config/lora.py`,
//! v0.12.0 to v0.34.0).

use super::int;
use crate::error::Result;
use crate::estimate::{EstimateInput, VllmVersion};
use crate::model::Architecture;

/// vLLM's `MaxLoRARanks` (`vllm/config/lora.py`, v0.12.0 to v0.34.0).
pub const VLLM_LORA_RANKS: [u64; 9] = [1, 8, 16, 32, 64, 128, 256, 320, 512];

/// The first release whose slots vramfit counts: 0.12.0 removed `lora_extra_vocab_size`,
/// whose extra embedding rows the earlier releases added to the embedding and the LM head.
pub const VLLM_LORA_FROM: VllmVersion = VllmVersion::new(12, Some(0));

/// The LoRA slots a vLLM server allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoraSlots {
    /// `max_loras`: the adapters of one batch, each a slot on the GPU.
    pub max_loras: u64,
    /// `max_lora_rank`: the rank every slot is allocated at.
    pub max_lora_rank: u64,
    /// `max_cpu_loras`: adapters cached in CPU memory (host memory only).
    pub max_cpu_loras: u64,
}

impl EstimateInput {
    /// `enable_lora` and its settings: vLLM only, a dense decoder, vLLM 0.12 or later; the
    /// settings only with `enable_lora`.
    pub(super) fn resolve_lora(
        &self,
        arch: &Architecture,
        version: VllmVersion,
    ) -> Result<Option<LoraSlots>> {
        if !self.enable_lora {
            for (field, given) in [
                ("max_loras", self.max_loras),
                ("max_lora_rank", self.max_lora_rank),
                ("max_cpu_loras", self.max_cpu_loras),
            ] {
                if given.is_some() {
                    return Err(input_error!(
                        Conflict,
                        field,
                        ["{field} is read with enable_lora only"],
                        ["{field} 仅在 enable_lora 开启时读取"],
                        "enable_lora on (vLLM --enable-lora), or no LoRA setting",
                        "开启 enable_lora（vLLM --enable-lora），或不设 LoRA 参数",
                    ));
                }
            }
            return Ok(None);
        }
        if !self.runner().serves_lora_slots() {
            let name = self.runner().rules().name;
            return Err(input_error!(
                Unsupported,
                "enable_lora",
                ["LoRA adapter slots are modelled for vLLM serving only, not {name}"],
                ["LoRA 适配器槽位仅对 vLLM 服务部署建模，不含 {name}"],
                "mode serve with engine vllm, or enable_lora off",
                "serve 模式并选 vllm 引擎，或关闭 enable_lora",
            ));
        }
        if version < VLLM_LORA_FROM {
            return Err(input_error!(
                Unsupported,
                "enable_lora",
                ["LoRA slots of vLLM {version} are not modelled (its lora_extra_vocab_size rows)"],
                ["未建模 vLLM {version} 的 LoRA 槽位（其 lora_extra_vocab_size 额外词表行）"],
                "engine_version 0.12 or later with enable_lora",
                "enable_lora 时 engine_version 为 0.12 或更新",
            ));
        }
        let dense = arch.is_detailed()
            && arch.is_generative()
            && arch.encoder_layers == 0
            && arch.moe.is_none()
            && arch.mla.is_none()
            && arch.hybrid.is_none()
            && arch.indexer.is_none();
        if !dense {
            return Err(input_error!(
                Unsupported,
                "enable_lora",
                "LoRA slots are modelled for dense decoders only (attention and MLP projections); this model has routed experts, MLA, state layers, an encoder, or no known layers",
                "LoRA 槽位仅对稠密解码器建模（注意力与 MLP 投影）；此模型含路由专家、MLA、状态层、编码器，或层结构未知",
                "a dense decoder model, or enable_lora off",
                "稠密解码器模型，或关闭 enable_lora",
            ));
        }
        let max_loras = match self.max_loras {
            Some(v) => int("max_loras", v, 1, 1024)?,
            None => 1,
        };
        let max_lora_rank = match self.max_lora_rank {
            Some(v) => {
                let r = int("max_lora_rank", v, 1, 512)?;
                if !VLLM_LORA_RANKS.contains(&r) {
                    return Err(input_error!(
                        OutOfRange,
                        "max_lora_rank",
                        ["{r} is not one of vLLM's ranks"],
                        ["{r} 不是 vLLM 接受的秩"],
                        "1, 8, 16, 32, 64, 128, 256, 320 or 512",
                        "1、8、16、32、64、128、256、320 或 512",
                    ));
                }
                r
            }
            None => 16,
        };
        let max_cpu_loras = match self.max_cpu_loras {
            Some(v) => {
                let n = int("max_cpu_loras", v, 1, 1 << 20)?;
                if n < max_loras {
                    return Err(input_error!(
                        Conflict,
                        "max_cpu_loras",
                        ["{n} is fewer than max_loras {max_loras}"],
                        ["{n} 小于 max_loras {max_loras}"],
                        "at least max_loras (vLLM's own check)",
                        "不小于 max_loras（vLLM 自身的检查）",
                    ));
                }
                n
            }
            None => max_loras,
        };
        Ok(Some(LoraSlots {
            max_loras,
            max_lora_rank,
            max_cpu_loras,
        }))
    }
}
